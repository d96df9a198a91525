#!/usr/bin/env bats
# The man pages docs/<tool>.1 (mdoc) against the tools themselves: every option a
# tool's --help names has an entry (.It Fl ...) in its page's OPTIONS, every entry
# and every SYNOPSIS flag is one --help names, each page has the sections a reader
# looks for, renders without a warning, and make install puts tools and pages where
# man finds them. When an option is added or dropped, the failure names it and the
# file to edit.
load ../lib/common

setup() { W=$(mktemp -d); unset MAKEFLAGS MAKELEVEL MFLAGS T U; }
teardown() { rm -rf "$W"; }

tools() { local m; for m in "$ESXDIAG_ROOT"/tools/*/main.c; do basename "$(dirname "$m")"; done; }

# help_opts TOOL: every option word in TOOL --help (-x, --long; a "[" before a word
# is a placeholder such as N[-M], not an option), one a line
help_opts() {
    "$BIN/$1" --help | grep -oE '(^|[[:space:](/,])--?[A-Za-z0-9][A-Za-z0-9-]*' |
        sed -E 's/^[[:space:](/,]//; s/-+$//' | grep -vE '^-[0-9]{2,}' | sort -u
}

# page_opts PAGE SECTION: the flags of the .It lines (OPTIONS) or of every line
# (SYNOPSIS) of that section: each word after Fl, "\-" as "-"; in SYNOPSIS -46dJq
# is five flags
page_opts() {
    awk -v want="$2" '
        /^\.Sh / { sec = $0; sub(/^\.Sh +/, "", sec); next }
        sec != want { next }
        want == "OPTIONS" && !/^\.It / { next }
        { for (i = 1; i < NF; i++) if ($i == "Fl") {
              f = "-" $(i + 1); gsub(/\\/, "", f); sub(/[,;|]+$/, "", f)
              if (want == "SYNOPSIS" && f ~ /^-[A-Za-z0-9][A-Za-z0-9]+$/) {
                  for (k = 2; k <= length(f); k++) print "-" substr(f, k, 1)
              } else print f } }' "$1" | sort -u
}

@test "man pages: each tool's --help options all have an entry in docs/<tool>.1 OPTIONS, and every entry and SYNOPSIS flag is in --help" {
    local t page bad="" o
    for t in $(tools); do
        page=$ESXDIAG_ROOT/docs/$t.1
        [ -f "$page" ] || { bad+=$'\n'"$t: no man page docs/$t.1 (write one: docs/esxperf.1 is the model)"; continue; }
        [ -x "$BIN/$t" ] || flunk "$BIN/$t is not built (run make)"
        help_opts "$t" > "$W/$t.help"
        [ -s "$W/$t.help" ] || flunk "$t --help names no option: the word pattern is wrong"
        page_opts "$page" OPTIONS > "$W/$t.options"
        page_opts "$page" SYNOPSIS > "$W/$t.synopsis"
        for o in $(comm -23 "$W/$t.help" "$W/$t.options"); do
            bad+=$'\n'"$t: $o is in '$t --help' but has no entry in docs/$t.1 OPTIONS (add an .It Fl line)"
        done
        for o in $(comm -13 "$W/$t.help" "$W/$t.options"); do
            bad+=$'\n'"$t: $o has an entry in docs/$t.1 OPTIONS but '$t --help' does not name it (drop it from the page, or add it to the help)"
        done
        for o in $(comm -13 "$W/$t.help" "$W/$t.synopsis"); do
            bad+=$'\n'"$t: $o is in docs/$t.1 SYNOPSIS but '$t --help' does not name it"
        done
    done
    [ -z "$bad" ] || flunk "man pages and --help differ:$bad"
}

@test "man pages: each has NAME, SYNOPSIS, DESCRIPTION, OPTIONS, EXIT STATUS, EXAMPLES, ESXI NOTES, SEE ALSO, in that order" {
    local t page want got
    want="NAME SYNOPSIS DESCRIPTION OPTIONS EXIT STATUS EXAMPLES ESXI NOTES SEE ALSO"
    for t in $(tools); do
        page=$ESXDIAG_ROOT/docs/$t.1
        got=$(sed -n 's/^\.Sh //p' "$page" | grep -vx ENVIRONMENT | tr '\n' ' ')
        [ "${got% }" = "$want" ] || flunk "docs/$t.1 sections: '${got% }', expected '$want' (ENVIRONMENT may come after OPTIONS)"
    done
}

@test "man pages: man -l and groff render each page without a warning" {
    local t page
    for t in $(tools); do
        page=$ESXDIAG_ROOT/docs/$t.1
        MANWIDTH=80 man --warnings -l "$page" > "$W/$t.txt" 2> "$W/$t.man.err" ||
            flunk "man -l docs/$t.1 failed: $(cat "$W/$t.man.err")"
        [ ! -s "$W/$t.man.err" ] || flunk "man --warnings -l docs/$t.1: $(cat "$W/$t.man.err")"
        groff -mandoc -ww -z "$page" 2> "$W/$t.groff.err"
        [ ! -s "$W/$t.groff.err" ] || flunk "groff -mandoc -ww docs/$t.1: $(cat "$W/$t.groff.err")"
        grep -q "^NAME" "$W/$t.txt" || flunk "man -l docs/$t.1 printed no NAME section: $(head -5 "$W/$t.txt")"
        # quotes (Ql, Dq) close before the next one opens: a nested pair renders as
        # ‘a or ‘b’’ (a Ql that a following macro did not end)
        python3 -c 'import sys
d = 0
for n, line in enumerate(open(sys.argv[1], encoding="utf-8"), 1):
    for c in line:
        if c in "\u2018\u201c":
            d += 1
            if d > 1:
                sys.exit("line %d: a quote opens inside another: %s" % (n, line.strip()))
        elif c in "\u2019\u201d":
            d = max(d - 1, 0)' "$W/$t.txt" || flunk "docs/$t.1 renders nested quotes"
    done
}

@test "make install PREFIX: the tools into bin/, the pages into share/man/man1/, where man finds them" {
    local t
    run make -C "$ESXDIAG_ROOT" --no-print-directory install PREFIX="$W/prefix"
    assert_status 0
    for t in $(tools); do
        [ -x "$W/prefix/bin/$t" ] || flunk "no $W/prefix/bin/$t after make install: $output"
        cmp -s "$W/prefix/bin/$t" "$ESXDIAG_ROOT/out/bin/$t" || flunk "bin/$t is not out/bin/$t"
        [ "$(stat -c %a "$W/prefix/share/man/man1/$t.1")" = 644 ] || flunk "share/man/man1/$t.1 missing or not mode 644"
        run man -M "$W/prefix/share/man" -w "$t"
        assert_status 0
        [ "$output" = "$W/prefix/share/man/man1/$t.1" ] || flunk "man -M finds $t at '$output'"
    done
    # DESTDIR is put before PREFIX, as packagers expect
    run make -C "$ESXDIAG_ROOT" --no-print-directory install PREFIX=/usr DESTDIR="$W/stage"
    assert_status 0
    [ -f "$W/stage/usr/share/man/man1/esxperf.1" ] || flunk "DESTDIR=$W/stage PREFIX=/usr: no usr/share/man/man1/esxperf.1 under the stage"
}
