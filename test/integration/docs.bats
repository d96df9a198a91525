#!/usr/bin/env bats
# The documentation holds together: every relative link in README.md, HACKING.md,
# BENCHMARKS.md and docs/*.md names a file that exists, every #anchor a heading of the
# target (GitHub's slug rule, test/lib/md-links.py), and README.md links every guide in
# docs/, so a reader who starts there reaches each one; a unit test's module can be
# found from its name or HACKING.md's index. The checker itself is shown to
# catch a broken file, a broken anchor and a broken same-file anchor. No binaries, no
# network: well under a second.
load ../lib/common

setup() { W=$(mktemp -d); }
teardown() { rm -rf "$W"; }

LINKS=$ESXDIAG_ROOT/test/lib/md-links.py

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
