# The fleet's report.html as a person sees it: Debian's chromium, headless, inside a
# network namespace that has only a loopback interface (so the page cannot fetch
# anything even if it tried), with a fresh profile folder each time.
#
#   fleet_page_dom HTML OUT          the rendered DOM (--dump-dom) into OUT
#   fleet_page_png HTML PNG [W,H]    a screenshot (--screenshot), default 1400,1800
#   fleet_page_cells DOM             every grid cell and failing-pair row of the DOM,
#                                    one "KIND FROM TO CHECK FAMILY VERDICT" a line
# The namespace and profiles are made and removed by each call (name has $$).

_fleet_chromium() { # HTML then chromium's own arguments
    local html=$1 ns="esxfleet-page-$$" prof rc
    shift
    prof=$(mktemp -d) || return 2
    ip netns add "$ns" || { rm -rf "$prof"; return 2; }
    ip -n "$ns" link set lo up
    # bound against a hang: a render takes 3-4 s here under load
    ip netns exec "$ns" timeout -k 5 120 /usr/bin/chromium --headless --no-sandbox --disable-gpu \
        --disable-quic --no-first-run --disable-background-networking --disable-component-update \
        --disable-sync --user-data-dir="$prof" "$@" "file://$(realpath "$html")" 2>"$prof.err"
    rc=$?
    [ "$rc" = 0 ] || tail -n 5 "$prof.err" >&2
    local pids; pids=$(ip netns pids "$ns")
    # shellcheck disable=SC2086
    [ -z "$pids" ] || kill -9 $pids 2>/dev/null
    ip netns del "$ns"
    rm -rf "$prof" "$prof.err"
    return "$rc"
}

fleet_page_dom() { _fleet_chromium "$1" --dump-dom > "$2"; }

fleet_page_png() { _fleet_chromium "$1" --window-size="${3:-1400,1800}" --screenshot="$(realpath -m "$2")"; }

fleet_page_cells() {
    python3 - "$1" <<'PY'
import sys
from html.parser import HTMLParser

class Cells(HTMLParser):
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if 'data-from' not in a or 'data-check' not in a:
            return
        kind = 'cell' if tag == 'td' else 'row'
        print(kind, a['data-from'], a['data-to'], a['data-check'], a.get('data-family') or '-',
              a.get('data-verdict') or '-')

Cells().feed(open(sys.argv[1], encoding='utf-8').read())
PY
}
