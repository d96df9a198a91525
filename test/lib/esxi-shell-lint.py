#!/usr/bin/env python3
"""esxi-shell-lint: every command the host scripts run must be in test/lib/esxi-shell.list.

usage: esxi-shell-lint.py LIST SCRIPT...

Reads POSIX sh the way the shell splits it into simple commands (quotes, $( ), ` `,
here-documents, case patterns, for lists, redirections, assignments) and takes the
first word of each: a command name. It must be a builtin or applet of LIST, a
function defined in one of the SCRIPTs, a shell keyword, or an expansion the scripts
run on purpose ("$CLI", the kit's own programs, "$@" inside a wrapper). The first
argument of `act` (a wrapper that runs its arguments) and the text of a `trap`
action are commands too. Prints one line per offending use, "FILE:LINE: NAME", and
exits 1 if there is one; exit 2 on a usage error.
"""
import re
import sys

KEYWORDS = {'if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', 'for', 'case',
            'esac', 'in', '{', '}', '!'}
# words after which the next word is in command position
OPENERS = {'if', 'then', 'else', 'elif', 'do', 'while', 'until', '{', '!', '(', ';', '&', '|',
           '&&', '||', '\n'}
WRAPPERS = {'act'}                    # functions that run their first argument
DYNAMIC_OK = re.compile(r'^("\$CLI"|\$CLI|"\$@"|"\$kit/bin/[a-z]+")$')
OPERATORS = ['&&', '||', ';;', '<<-', '<<', '>>', '>&', '<&', '>|', '<>', ';', '&', '|', '(', ')',
             '<', '>', '\n']


def skip_quoted(src, i, quote):
    """Index after the closing quote starting at src[i] == quote; command substitutions
    inside double quotes are returned as (start, end) spans."""
    subs = []
    i += 1
    while i < len(src):
        c = src[i]
        if quote == "'" and c == "'":
            return i + 1, subs
        if quote == '"':
            if c == '\\':
                i += 2
                continue
            if c == '"':
                return i + 1, subs
            if src.startswith('$(', i) and not src.startswith('$((', i):
                end = match_paren(src, i + 1)
                subs.append((i + 2, end - 1))
                i = end
                continue
            if c == '`':
                end = src.index('`', i + 1)
                subs.append((i + 1, end))
                i = end + 1
                continue
        i += 1
    raise ValueError('unterminated quote')


def match_paren(src, i):
    """src[i] == '(': the index after its matching ')', quotes respected."""
    depth = 0
    while i < len(src):
        c = src[i]
        if c in '\'"':
            i, _ = skip_quoted(src, i, c)
            continue
        if c == '\\':
            i += 2
            continue
        if c == '#' and (i == 0 or src[i - 1] in ' \t\n;('):
            i = src.index('\n', i)
            continue
        if c == '(':
            depth += 1
        elif c == ')':
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError('unbalanced parenthesis')


def tokens(src, base_line=1):
    """(kind, text, line, subs) tokens: kind 'op' or 'word'; subs are command
    substitutions found inside a word, as source spans."""
    i, line, out = 0, base_line, []
    heredocs = []
    while i < len(src):
        c = src[i]
        if c == '\n':
            out.append(('op', '\n', line, []))
            line += 1
            i += 1
            for delim, strip in heredocs:      # skip each here-document's body
                while i < len(src):
                    end = src.find('\n', i)
                    end = len(src) if end < 0 else end
                    text = src[i:end]
                    line += 1
                    i = end + 1
                    if (text.lstrip('\t') if strip else text) == delim:
                        break
            heredocs = []
            continue
        if c in ' \t':
            i += 1
            continue
        if c == '\\' and src.startswith('\\\n', i):
            i += 2
            line += 1
            continue
        if c == '#':
            i = src.find('\n', i)
            i = len(src) if i < 0 else i
            continue
        op = next((o for o in OPERATORS if src.startswith(o, i)), None)
        if op:
            out.append(('op', op, line, []))
            i += len(op)
            if op in ('<<', '<<-'):
                m = re.match(r'[ \t]*([\'"]?)(\w+)\1', src[i:])
                heredocs.append((m.group(2), op == '<<-'))
                out.append(('word', m.group(0).strip(), line, []))
                i += m.end()
            continue
        start, subs = i, []
        while i < len(src) and src[i] not in ' \t\n;&|()<>':
            c = src[i]
            if c in '\'"':
                i, inner = skip_quoted(src, i, c)
                subs += inner
            elif c == '\\':
                i += 2
            elif src.startswith('$((', i):
                i = match_paren(src, i + 1)
            elif src.startswith('$(', i):
                end = match_paren(src, i + 1)
                subs.append((i + 2, end - 1))
                i = end
            elif src.startswith('${', i):
                i = src.index('}', i) + 1
            elif c == '`':
                end = src.index('`', i + 1)
                subs.append((i + 1, end))
                i = end + 1
            else:
                i += 1
        word = src[start:i]
        # io numbers (2>) belong to the operator that follows
        if word.isdigit() and i < len(src) and src[i] in '<>':
            continue
        out.append(('word', word, line, [(a, b, line + src[start:a].count('\n')) for a, b in subs]))
    return out


def commands(src, base_line=1):
    """(name, line) of every simple command, nested substitutions included."""
    found = []
    toks = tokens(src, base_line)
    expect, case_state, skip_next, for_list = True, [], False, False
    k = 0
    while k < len(toks):
        kind, text, line, subs = toks[k]
        for a, b, sline in subs:
            found += commands(src[a:b], sline)
        if kind == 'op':
            if text in ('<', '>', '>>', '>&', '<&', '>|', '<>', '<<', '<<-'):
                skip_next = True           # the redirection's target
            elif text == ';;':
                expect = False
                if case_state:
                    case_state[-1] = 'pattern'
            elif text == ')' and case_state and case_state[-1] == 'pattern':
                case_state[-1] = 'body'
                expect = True
            elif text in OPENERS:
                if for_list and text in (';', '\n'):
                    for_list = False
                if case_state and case_state[-1] == 'in' and text == '\n':
                    case_state[-1] = 'pattern'
                expect = not (case_state and case_state[-1] == 'pattern')
            k += 1
            continue
        if skip_next:
            skip_next = False
            k += 1
            continue
        if case_state and case_state[-1] in ('pattern', 'in', 'word'):
            if text == 'esac':
                case_state.pop()
                expect = False
            elif case_state[-1] == 'word':
                case_state[-1] = 'in' if text == 'in' else 'word'
            elif case_state[-1] == 'in':
                case_state[-1] = 'pattern'     # a pattern on the line of `case ... in`
            k += 1
            continue
        if for_list:
            k += 1
            continue
        if not expect:
            k += 1
            continue
        if re.match(r'^[A-Za-z_][A-Za-z0-9_]*=', text):
            k += 1                         # an assignment: the command (if any) follows
            continue
        if text == 'case':
            case_state.append('word')
            expect = False
        elif text == 'esac' and case_state:
            case_state.pop()
            expect = False
        elif text == 'for':
            for_list = True
            expect = False
        elif text in KEYWORDS:
            expect = text not in ('fi', 'done', '}', 'esac')
        elif k + 2 < len(toks) and toks[k + 1][1] == '(' and toks[k + 2][1] == ')':
            found.append(('=' + text, line))   # a function definition
            k += 3
            expect = True
            continue
        else:
            found.append((text, line))
            expect = False
            nxt = toks[k + 1] if k + 1 < len(toks) else None
            if text in WRAPPERS and nxt and nxt[0] == 'word':
                found.append((nxt[1], nxt[2]))
            if text == 'trap' and nxt and nxt[0] == 'word' and nxt[1][:1] == "'":
                found += commands(nxt[1][1:-1], nxt[2])
        k += 1
    return found


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    allowed = set()
    with open(argv[1]) as f:
        for raw in f:
            parts = raw.split()
            if len(parts) >= 2 and parts[0] in ('builtin', 'applet'):
                allowed.add(parts[1])
    per_file = {}
    for path in argv[2:]:
        with open(path) as f:
            per_file[path] = commands(f.read())
    functions = {n[1:] for cmds in per_file.values() for n, _ in cmds if n.startswith('=')}
    bad = 0
    for path, cmds in per_file.items():
        for name, line in cmds:
            if name.startswith('=') or name in functions or name in allowed or DYNAMIC_OK.match(name):
                continue
            print('%s:%d: %s' % (path, line, name))
            bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
