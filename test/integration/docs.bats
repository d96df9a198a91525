#!/usr/bin/env bats
# The documentation holds together: every relative link in README.md, HACKING.md,
# BENCHMARKS.md and docs/*.md names a file that exists, every #anchor a heading of the
# target (GitHub's slug rule, test/lib/md-links.py), and README.md links every guide in
# docs/, so a reader who starts there reaches each one; a unit test's module can be
# found from its name or HACKING.md's index. The checker itself is shown to
# catch a broken file, a broken anchor and a broken same-file anchor. Every command
# line and every option the pages show for a tool is read by that tool's own option
# engine (ESXDIAG_PARSE_ONLY=1: the options parsed, nothing run), so a page cannot
# name an option that does not exist (test/lib/doc-commands.py finds them). No
# network: a few seconds.
load ../lib/common

setup() { W=$(mktemp -d); }
teardown() { rm -rf "$W"; }

LINKS=$ESXDIAG_ROOT/test/lib/md-links.py
TOOLS=esxperf,esxmtu,esxpart,esxdiag-selftest

# doc_commands FILE...: each command line and option the pages show, run with
# ESXDIAG_PARSE_ONLY=1 through its tool; one line per one that fails, as
# "FILE:LINE: WORDS: exit N: what the tool said". A command line must parse (exit
# 0), or lack only its last option's value (the page names an option, not a run);
# a refusal a code block shows must be the tool's line word for word when the
# option engine gives it (a later check's is not reached by a parse); one shown
# as refused must be refused (exit 2). The runs are in a network namespace of their
# own with nothing but loopback (doc_commands_offline): should the parse-only mode
# ever break, a page's `esxmtu 10.160.22.112` still sends nothing anywhere.
doc_commands() {
    local where kind cmd argv want out rc
    python3 "$ESXDIAG_ROOT/test/lib/doc-commands.py" "$TOOLS" "$@" > "$W/rows" || return 1
    [ -s "$W/rows" ] || { echo "no command lines found in $*"; return 0; }
    while IFS=$'\t' read -r where kind cmd; do
        IFS=$'\x1f' read -r -a argv <<< "$cmd"
        want=
        if [ "$kind" = refusal ]; then want=${argv[-1]#$'\x1e'}; unset 'argv[-1]'; fi
        out=$(ESXDIAG_PARSE_ONLY=1 timeout 5 "$BIN/${argv[0]}" "${argv[@]:1}" 2>&1 </dev/null)
        rc=$?
        case $kind in
        refused) [ "$rc" = 2 ] && continue ;;
        refusal) [ "$rc" = 0 ] && continue
                 [ "$rc" = 2 ] && [ "$out" = "$want" ] && continue ;;
        *) [ "$rc" = 0 ] && continue
           [ "$rc" = 2 ] && [[ "$out" == *"option ${argv[-1]} needs a value"* ]] && continue ;;
        esac
        echo "$where: ${argv[*]}: exit $rc: $out"
    done < "$W/rows"
}
doc_commands_offline() {
    export -f doc_commands
    export W TOOLS
    unshare --net -- bash -c 'doc_commands "$@"' _ "$@"
}

@test "docs: every relative link in README.md, HACKING.md, BENCHMARKS.md and docs/*.md resolves, file and #anchor" {
    cd "$ESXDIAG_ROOT"
    run python3 "$LINKS" README.md HACKING.md BENCHMARKS.md docs/*.md
    [ "$status" -eq 0 ] || flunk "broken links (fix the link, or the heading it points at):"$'\n'"$output"
    [ -z "$output" ] || flunk "the checker printed on success: $output"
}

@test "docs: README.md links every docs/*.md, HACKING.md and BENCHMARKS.md" {
    local f missing=""
    for f in "$ESXDIAG_ROOT"/docs/*.md HACKING.md BENCHMARKS.md; do
        case $f in /*) f=docs/$(basename "$f") ;; esac
        grep -qF "]($f" "$ESXDIAG_ROOT/README.md" || missing+=" $f"
    done
    [ -z "$missing" ] || flunk "README.md does not link:$missing (add each to its Documentation table)"
}

@test "docs: every unit test is named after the module it tests, or HACKING.md's index lists it" {
    local f base tool what dir missing=""
    for f in "$ESXDIAG_ROOT"/test/unit/*_test.c "$ESXDIAG_ROOT"/test/unit/*_test.py; do
        base=${f##*/}
        grep -qF "\`$base\`" "$ESXDIAG_ROOT/HACKING.md" && continue
        tool=${base%%_*}
        what=${base#*_}
        what=${what%_test.*}
        case $tool in common) dir=common ;; fleet) dir=esxi/fleet ;; *) dir=tools/$tool ;; esac
        [ -n "$(find "$ESXDIAG_ROOT/$dir" \( -name "$what.c" -o -name "$what.h" -o -name "$what.py" \) -print -quit)" ] && continue
        missing+=" $base"
    done
    [ -z "$missing" ] || flunk "no module of that name and not in HACKING.md's 'Where a module's tests are':$missing"
}

@test "docs: the link checker reports a missing file, a missing anchor in another file and in the same file, and nothing else" {
    mkdir -p "$W/docs"
    cat > "$W/docs/guide.md" <<'EOF'
# The guide

## Size arithmetic (as `vmkping -d -s`)

## Notes

## Notes
EOF
    cat > "$W/README.md" <<'EOF'
# Top

Good: [guide](docs/guide.md), [sizes](docs/guide.md#size-arithmetic-as-vmkping--d--s),
[second notes](docs/guide.md#notes-1), [a folder](docs), [here](#top), [web](https://example.com/x.md),
![picture](docs/guide.md) and a link whose text
[spans two
lines](docs/guide.md#notes).

Broken: [gone](docs/gone.md), [bad anchor](docs/guide.md#no-such-heading), [self](#missing).

`[in a code span](nowhere.md)`

```
[in a fence](nowhere-either.md)
```
EOF
    cd "$W"
    run python3 "$LINKS" README.md docs/guide.md
    assert_status 1
    [ "$(printf '%s\n' "$output" | wc -l)" -eq 3 ] || flunk "expected 3 broken links, got: $output"
    assert_contains "README.md:9: link docs/gone.md: no such file"
    assert_contains "README.md:9: link docs/guide.md#no-such-heading: no heading in docs/guide.md has the slug #no-such-heading"
    assert_contains "README.md:9: link #missing: no heading in README.md has the slug #missing"
    assert_not_contains "nowhere"

    sed -i '/^Broken:/d' README.md
    run python3 "$LINKS" README.md docs/guide.md
    assert_status 0
    [ -z "$output" ] || flunk "a clean file gave: $output"
}

@test "docs: every command line and option README.md and docs/*.md show parses with its tool's own options" {
    cd "$ESXDIAG_ROOT"
    run doc_commands_offline README.md docs/*.md
    [ -z "$output" ] || flunk "pages name options their tool does not take (fix the page, or the tool):"$'\n'"$output"
    # the checker saw the pages: command lines, bare options and refusals
    local n; n=$(python3 test/lib/doc-commands.py "$TOOLS" README.md docs/*.md | cut -f2 | sort | uniq -c | awk '{ printf "%s=%s ", $2, ($1 > 10 ? "many" : $1) }')
    [ "$n" = "cmd=many opt=many refusal=many refused=1 " ] || flunk "rows by kind: $n"
}

@test "docs: the command-line checker finds an unknown option, a bad value, a bare option, a wrong refusal; the parse runs nothing" {
    mkdir -p "$W/docs"
    cat > "$W/docs/esxmtu.md" <<'EOF'
# esxmtu

Good: `esxmtu -s 8972 PEER`, `esxmtu -c` (names the option), `-J` and `--discover`,
vmkping's `-D` (another command's), and `esxpart -V disk` is refused.

```
$ esxmtu -W 0.3 -m 1500 198.18.1.2 | tail -1
$ esxmtu -m 10
MTU_LINE
```

Bad: `esxmtu --no-such 198.18.1.2`, `-V` shows more, esxperf `--bidirectional`, `esxpart -s 999 disk.img`.

```
$ esxmtu -m 99999
esxmtu: this is not what esxmtu says
```
EOF
    # the refusal shown as the tool words it
    local line; line=$("$BIN/esxmtu" -m 10 2>&1) || true
    sed -i "s|^MTU_LINE\$|$line|" "$W/docs/esxmtu.md"
    cd "$W"
    run doc_commands_offline docs/esxmtu.md
    [ "$(printf '%s\n' "$output" | wc -l)" -eq 5 ] || flunk "expected 5 findings, got: $output"
    assert_contains "docs/esxmtu.md:12: esxmtu --no-such 198.18.1.2: exit 2: esxmtu: unknown option"
    assert_contains "docs/esxmtu.md:12: esxmtu -V: exit 2: esxmtu: unknown option -V"
    assert_contains "docs/esxmtu.md:12: esxperf --bidirectional: exit 2: esxperf: unknown option"
    assert_contains "docs/esxmtu.md:12: esxpart -s 999 disk.img: exit 2:"
    assert_contains "docs/esxmtu.md:15: esxmtu -m 99999: exit 2: esxmtu:"
    # parse only: no probe, no help text, no version, nothing on stdout
    run env ESXDIAG_PARSE_ONLY=1 "$BIN/esxmtu" -W 0.3 127.0.0.1
    assert_status 0
    [ -z "$output" ] || flunk "$output"
    run env ESXDIAG_PARSE_ONLY=1 "$BIN/esxperf" --help
    assert_status 0
    [ -z "$output" ] || flunk "$output"
    run env ESXDIAG_PARSE_ONLY=1 "$BIN/esxpart" --version /nonexistent
    assert_status 0
    [ -z "$output" ] || flunk "$output"
}
