#!/usr/bin/env python3
"""Every relative link in the Markdown files given resolves: md-links.py FILE.md...

A link or image `[text](target)` outside code (fenced blocks and `code spans` are
skipped) whose target has no scheme (http:, mailto:, ...) must name a file or folder
that exists, relative to the file that holds the link; a `#anchor` (alone: the same
file) must be the slug of a heading in the target Markdown file, made as GitHub makes
it: the heading's text lower-cased, every character that is not a letter, a digit, a
space, '-' or '_' dropped, each space turned into '-', and a repeated slug given -1,
-2, ... in order. Prints one line per broken link, FILE:LINE: what is wrong, and
exits 1 when there is one, 0 when every link resolves, 2 on a file it cannot read.
"""
import os
import re
import sys

FENCE = re.compile(r'^ {0,3}(`{3,}|~{3,})')
HEADING = re.compile(r'^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$')
LINK = re.compile(r'!?\[((?:[^\[\]\\]|\\.)*)\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)')
SCHEME = re.compile(r'^[A-Za-z][A-Za-z0-9+.-]*:')


def blank_code(text):
    """text with fenced blocks and code spans replaced by spaces (newlines kept)"""
    out, fence = [], None
    for line in text.split('\n'):
        m = FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            out.append('')
            continue
        if m:
            fence = m.group(1)
            out.append('')
            continue
        out.append(line)
    body = '\n'.join(out)
    return re.sub(r'(`+)(.+?)\1', lambda m: re.sub(r'[^\n]', ' ', m.group(0)), body,
                  flags=re.S)


def slug(heading):
    text = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', heading)   # a link: its text
    text = text.lower()
    text = ''.join(c for c in text if c.isalnum() or c in ' -_')
    return text.replace(' ', '-')


def anchors(path, cache={}):
    if path not in cache:
        seen, found, fence = {}, set(), None
        with open(path, encoding='utf-8') as f:
            for line in f.read().split('\n'):
                m = FENCE.match(line)
                if fence:
                    if m and m.group(1)[0] == fence[0]:
                        fence = None
                    continue
                if m:
                    fence = m.group(1)
                    continue
                h = HEADING.match(line)
                if h:
                    s = slug(h.group(2))
                    n = seen.get(s, 0)
                    seen[s] = n + 1
                    found.add(s if n == 0 else '%s-%d' % (s, n))
        cache[path] = found
    return cache[path]


def check(path):
    bad = []
    try:
        with open(path, encoding='utf-8') as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        print('%s: cannot read: %s' % (path, e), file=sys.stderr)
        sys.exit(2)
    body = blank_code(text)
    for m in LINK.finditer(body):
        target = m.group(2)
        line = body.count('\n', 0, m.start()) + 1
        if not target or SCHEME.match(target):
            continue
        file_part, _, anchor = target.partition('#')
        dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) \
            if file_part else path
        where = '%s:%d: link %s' % (path, line, target)
        if not os.path.exists(dest):
            bad.append('%s: no such file %s' % (where, dest))
            continue
        if not anchor:
            continue
        if not dest.endswith('.md') or os.path.isdir(dest):
            bad.append('%s: an anchor into %s, which is not a Markdown file' % (where, dest))
        elif anchor not in anchors(dest):
            bad.append('%s: no heading in %s has the slug #%s (headings: %s)'
                       % (where, dest, anchor, ' '.join(sorted('#' + a for a in anchors(dest)))))
    return bad


def main(args):
    if not args:
        print('usage: md-links.py FILE.md...', file=sys.stderr)
        return 2
    bad = [b for p in args for b in check(p)]
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
