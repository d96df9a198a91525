#!/usr/bin/env python3
"""doc-commands.py TOOLS FILE...: what the Markdown FILEs say about the command lines
of TOOLS (comma-separated names), for the docs test to run through each tool's own
option engine. One row a line: FILE:LINE<TAB>KIND<TAB>WORDS (each the first place a
row appears, with "(and N more)" when it appears again), WORDS the tool and its
arguments joined by \\x1f, split as the shell splits them up to the first shell
operator (| > < ; &) or comment. KIND:

  cmd      a command line: a line of a fenced code block, or an inline code span,
           that starts with a tool's name after an optional prompt ("$ ", "# ",
           "[root@host:~] "); a code line ending in "\\" goes on on the next
  refusal  such a code-block line whose next line is the tool's one-line refusal
           ("esxperf: ..."): WORDS then ends with \\x1f\\x1e and that line (a
           refusal from a check after the options, which a parse alone passes, or
           the option engine's own, then word for word)
  refused  an inline command line followed closely (30 characters) by "refused":
           the tool must refuse it (exit 2)
  opt      on README.md and docs/TOOL.md, an inline code span that starts with an
           option ("-V", "--json", "-I vmk1"): the tool and that span's option words, one row each, for
           the tool the paragraph (or table row) last named before the span, or in
           docs/TOOL.md that page's tool when none; a span named close after
           another command's name (vmkping, iperf3, sgdisk...: within NEAR
           characters) is that command's, and a line that says "refused" talks
           about refusals: neither is listed

A paragraph ends at a blank line, a heading or a table row."""
import os
import re
import shlex
import sys

PROMPT = re.compile(r'^(?:\$ |# |~ # |\[[^\]]*\][#$] |\[[^\]]*\] )')
OPERATORS = set('|&;<>()')
# commands whose options the docs quote too: a span after one of these is theirs
OTHERS = ('iperf3', 'iperf', 'vmkping', 'ping', 'sgdisk', 'gdisk', 'sfdisk', 'fdisk',
          'partedUtil', 'esxcli', 'vmkfstools', 'strace', 'ssh', 'scp', 'dd', 'nc',
          'ansible', 'ansible-playbook', 'govc', 'vcsim', 'tcpdump', 'make', 'bats',
          'git', 'tar', 'ip', 'nft', 'tc', 'sockperf', 'qperf', 'man', 'mtype', 'mcopy',
          'mkfs.fat', 'mkfs.vfat', 'jq', 'curl', 'python3', 'busybox', 'sh', 'bash',
          'prepare.sh')
NEAR = 40   # characters: "sgdisk's `-v`", "as vmkping does with `-d`"


def words(text):
    lex = shlex.shlex(text, posix=True, punctuation_chars=True)
    lex.whitespace_split = True
    lex.commenters = '#'
    out = []
    try:
        for w in lex:
            if w and set(w) <= OPERATORS:
                break
            out.append(w)
    except ValueError:      # an unmatched quote: the words before it
        pass
    return out


def command(text, tools):
    text = PROMPT.sub('', text.strip(), count=1)
    first = text.split(None, 1)[0] if text.split() else ''
    return words(text) if first in tools else None


def last_named(text, names):
    """the last of names in text and where it ends, (None, -1) when none"""
    alt = '|'.join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    hits = list(re.finditer(r'(?<![\w.-])(' + alt + r')(?![\w-])', text))
    return (hits[-1].group(1), hits[-1].end()) if hits else (None, -1)


def owner(before, tools, page_tool):
    """whose option a span is: the tool the paragraph last named before it (or the
    page's tool), unless another command is named close before it ("vmkping's",
    "as sgdisk") and after that tool"""
    ours, at = last_named(before, tools)
    other, other_at = last_named(before, OTHERS)
    if other and other_at > at and len(before) - other_at <= NEAR:
        return None
    return ours or page_tool


def option_words(span):
    out = []
    for w in span.replace('/', ' ').split():
        w = w.rstrip(',.:;')
        if re.match(r'^--?[A-Za-z0-9][A-Za-z0-9-]*(=.*)?$', w):
            out.append(w)
    return out


def block_rows(lines, n, line, tools):
    """a code-block line: a command row, or a refusal row when the next line is
    the tool's refusal"""
    argv = command(line, tools)
    if not argv:
        return []
    nxt = lines[n] if n < len(lines) else ''
    if nxt.startswith(argv[0] + ': '):
        return [(n, 'refusal', argv + ['\x1e' + nxt])]
    return [(n, 'cmd', argv)]


def scan(path, tools):
    page = os.path.basename(path)[:-3] if path.endswith('.md') else ''
    page_tool = page if page in tools else None
    # bare options are read on the pages about the tools: README.md and docs/TOOL.md
    # (the others, on the host scripts or the fleet, quote other commands' options)
    opts_here = page_tool is not None or os.path.basename(path) == 'README.md'
    fence = None
    pending, start = '', 0
    para = ''
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    for n, line in enumerate(lines, 1):
        m = re.match(r'^\s*(`{3,}|~{3,})', line)
        if m:
            fence = None if fence and m.group(1).startswith(fence) else (fence or m.group(1))
            para = ''
            continue
        if fence:
            if pending:
                line = pending + ' ' + line.strip()
            elif line.rstrip().endswith('\\'):
                start = n
            if line.rstrip().endswith('\\'):
                pending = line.rstrip()[:-1]
                continue
            at = start if pending else n
            pending = ''
            for row in block_rows(lines, n, line, tools):
                yield (at,) + row[1:]
            continue
        if not line.strip() or line.lstrip().startswith(('#', '|')):
            para = ''
        for sm in re.finditer(r'(?<!`)`([^`]+)`(?!`)', line):
            span = sm.group(1)
            before = para + ' ' + line[:sm.start()]
            argv = command(span, tools)
            refusals = re.search(r'\brefuse[sd]?\b', line, re.I)
            if argv:
                shown_refused = re.search(r'\brefused\b', line[sm.end():sm.end() + 30], re.I)
                yield n, 'refused' if shown_refused else 'cmd', argv
                continue
            if not opts_here or not re.match(r'^--?[A-Za-z0-9]', span) or refusals:
                continue
            who = owner(before, tools, page_tool)
            if who in tools:
                for w in option_words(span):
                    yield n, 'opt', [who, w]
        para += ' ' + line


def main():
    if len(sys.argv) < 3:
        sys.exit('usage: doc-commands.py TOOL[,TOOL...] FILE...')
    tools = set(sys.argv[1].split(','))
    rows, where = [], {}
    for path in sys.argv[2:]:
        for n, kind, argv in scan(path, tools):
            key = (kind, tuple(argv))
            if key not in where:
                rows.append(key)
                where[key] = []
            where[key].append('%s:%d' % (path, n))
    for key in rows:
        at = where[key]
        more = ' (and %d more)' % (len(at) - 1) if len(at) > 1 else ''
        print('%s%s\t%s\t%s' % (at[0], more, key[0], '\x1f'.join(key[1])))


if __name__ == '__main__':
    main()
