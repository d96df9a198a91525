# shellcheck shell=sh disable=SC2034  # QRC, PROG, state, fwdir, rsid: shared with the scripts that source this file
# hostcli.sh: sourced by prepare.sh and cleanup.sh. How they call esxcli, print
# every command, honour --dry-run and read esxcli's answers. POSIX sh: it runs
# under the ESXi shell (busybox ash).
#
# The sourcing script sets PROG and here (its own folder) first.
# Globals set here (the two scripts have no other shared state):
#   kit      the unpacked kit folder (parent of esxi/)
#   state    <kit>/esxdiag.state, written by prepare.sh, read by cleanup.sh
#   lock     <kit>/esxdiag.lock, a folder: one prepare or cleanup at a time
#   fwdir    firewall ruleset folder (ESXDIAG_FIREWALL_DIR overrides, for tests)
#   rsid     the custom firewall ruleset id
#   CLI      esxcli, or localcli when esxcli is absent
#   DRY      1 under --dry-run
#   QOUT QRC output and exit code of the last query

kit=$(dirname "${here:?}")
state="$kit/esxdiag.state"
lock="$kit/esxdiag.lock"
fwdir=${ESXDIAG_FIREWALL_DIR:-/etc/vmware/firewall}
rsid=esxdiag
DRY=0
CLI=''
PROG=${PROG:-esxdiag}
QOUT=''
QRC=0

say() { printf '%s\n' "$*"; }
note() { printf '   %s\n' "$*"; }
err() { printf '%s: %s\n' "$PROG" "$*" >&2; }

cli_find() {
    if command -v esxcli >/dev/null 2>&1; then
        CLI=esxcli
    elif command -v localcli >/dev/null 2>&1; then
        CLI=localcli
    else
        err "neither esxcli nor localcli found (run this in the ESXi shell, as root)"
        exit 2
    fi
}

# query: a read-only esxcli call. Printed, and run even under --dry-run,
# because it changes nothing. Sets QOUT and QRC.
query() {
    say "+ $CLI $*"
    QOUT=$("$CLI" "$@" 2>&1)
    QRC=$?
}

# act: a command that changes the host. Printed; run unless --dry-run.
# Returns the command's exit code (0 under --dry-run).
act() {
    if [ "$DRY" = 1 ]; then
        say "(dry run, not run) $*"
        return 0
    fi
    say "+ $*"
    "$@"
}

# value of "   Key: value" in QOUT (esxcli's default key/value layout)
field() {
    printf '%s\n' "$QOUT" | sed -n "s/^ *$1: *//p" | head -n 1
}

# column 2 of the table row whose first column is $1 (ruleset list)
row() {
    printf '%s\n' "$QOUT" | awk -v k="$1" '$1 == k { print $2; exit }'
}

# allowed IPs of a ruleset after "allowedip list": "All" or "a, b, c" -> one a line
allowed_ips() {
    printf '%s\n' "$QOUT" | awk -v k="$1" '$1 == k { $1 = ""; print; exit }' |
        tr ',' '\n' | sed 's/^ *//; s/ *$//; /^$/d'
}

# in_lines LIST WORD: WORD is one whole line of LIST (e.g. of allowed_ips)
in_lines() {
    printf '%s\n' "$1" | grep -qxF "$2"
}

# ---- addresses for --allow-ip

# valid_ipv4 A.B.C.D: four decimal octets 0-255, no leading zeros
valid_ipv4() {
    case $1 in '' | *[!0-9.]* | .* | *. | *..*) return 1 ;; esac
    set -f; oldifs=$IFS; IFS=.
    # shellcheck disable=SC2086  # split on the dots on purpose (globbing is off)
    set -- $1
    IFS=$oldifs; set +f
    [ $# = 4 ] || return 1
    for o in "$@"; do
        case $o in 0 | [1-9] | [1-9][0-9] | [1-9][0-9][0-9]) ;; *) return 1 ;; esac
        [ "$o" -le 255 ] || return 1
    done
}

# valid_ipv6 ADDR: hex groups of 1-4 digits, 8 of them or fewer with one "::"
valid_ipv6() {
    case $1 in '' | *[!0-9a-fA-F:]* | *:::* | *::*::*) return 1 ;; esac
    case $1 in :[!:]* | *[!:]:) return 1 ;; esac   # a lone colon at either end
    groups=$(printf '%s\n' "$1" | sed 's/::/:/; s/^://; s/:$//' | tr ':' '\n')
    n=0
    for g in $groups; do
        case $g in ?????*) return 1 ;; esac
        n=$((n + 1))
    done
    case $1 in *::*) [ "$n" -le 7 ] ;; *) [ "$n" = 8 ] ;; esac
}

# valid_cidr ADDR[/LEN]: an IPv4 or IPv6 address, with a prefix length in range.
# Only these characters pass, so nothing a shell would read specially gets through.
valid_cidr() {
    case $1 in '' | */*/* | *[!0-9a-fA-F.:/]*) return 1 ;; esac
    addr=${1%/*} max=128
    if valid_ipv4 "$addr"; then max=32; else valid_ipv6 "$addr" || return 1; fi
    case $1 in */*) ;; *) return 0 ;; esac
    len=${1#*/}
    case $len in '' | *[!0-9]* | 0?* | ????*) return 1 ;; esac
    [ "$len" -le "$max" ]
}

# cidr_is_everything CIDR: a prefix length of 0 (0.0.0.0/0, ::/0) admits any address
cidr_is_everything() {
    case $1 in */0) return 0 ;; esac
    return 1
}

# ---- one prepare or cleanup at a time (a folder: mkdir is atomic, also in busybox)

LOCKED=0
lock_drop() {
    [ "$LOCKED" = 1 ] && [ "$(cat "$lock/pid" 2>/dev/null)" = "$$" ] && rm -rf -- "$lock"
    LOCKED=0
}

# lock_take TAKEOVER: hold the kit's lock until this script exits. A lock whose
# process is gone (killed, the host rebooted) stops prepare.sh; cleanup.sh
# (TAKEOVER=1) takes it over, since undoing an interrupted prepare is its job.
lock_take() {
    if mkdir "$lock" 2>/dev/null; then
        printf '%s\n' "$$" > "$lock/pid" || { rmdir "$lock"; err "cannot write $lock/pid"; exit 2; }
        LOCKED=1
        trap lock_drop EXIT
        trap 'exit 130' INT; trap 'exit 143' TERM; trap 'exit 129' HUP
        return 0
    fi
    owner=$(cat "$lock/pid" 2>/dev/null)
    if [ -z "$owner" ]; then
        err "another prepare.sh or cleanup.sh is starting on this kit ($lock): try again in a moment (if none runs, remove $lock)"
        exit 2
    fi
    if kill -0 "$owner" 2>/dev/null; then
        err "another prepare.sh or cleanup.sh (pid $owner) is running on this kit: wait for it to end (if pid $owner is not one of them, remove $lock)"
        exit 2
    fi
    if [ "$1" != 1 ]; then
        err "an earlier prepare.sh or cleanup.sh (pid $owner) was interrupted: run sh $here/cleanup.sh, which undoes what it recorded and clears $lock"
        exit 2
    fi
    # one taker per dead owner: mkdir again decides between two cleanups
    mkdir "$lock/taken-from-$owner" 2>/dev/null ||
        { err "another cleanup.sh is taking over the lock of pid $owner: let it finish"; exit 2; }
    printf '%s\n' "$$" > "$lock/pid" || { err "cannot write $lock/pid"; exit 2; }
    LOCKED=1
    trap lock_drop EXIT
    trap 'exit 130' INT; trap 'exit 143' TERM; trap 'exit 129' HUP
    note "took over the lock of pid $owner, which is gone (an interrupted run)"
}

# ---- the state file: previous values, written ahead of each change
#
# Lines KEY=VALUE after a comment header, and a last line sum=SHA256 of all the
# lines before it: a file cut short (it loses its sum line, or lines under it) or
# edited by hand is recognised and not acted on. Every write replaces the whole
# file (written beside it, then renamed over it), so a kill at any moment leaves
# either the old or the new complete file.

STATE_BODY=''
state_write() {
    sum=$(printf '%s' "$STATE_BODY" | sha256sum) || return 1
    { printf '%s' "$STATE_BODY" && printf 'sum=%s\n' "${sum%% *}"; } > "$state.new" &&
        mv -f "$state.new" "$state"
}

# state_begin: the header, before the first change
state_begin() {
    command -v sha256sum >/dev/null 2>&1 || { err "sha256sum not found: the state file cannot be sealed, nothing changed"; return 1; }
    STATE_BODY="# esxdiag prepare.sh state ($(date -u '+%Y-%m-%d %H:%M:%S UTC')): previous values, read by cleanup.sh
kit=$kit
"
    state_write
}

# state_add KEY VALUE: one more record, on disk before the change it describes
state_add() {
    STATE_BODY="$STATE_BODY$1=$2
"
    state_write
}

# state_check: why the state file cannot be trusted (printed), or nothing
state_check() {
    [ -s "$state" ] || { echo "it is empty (prepare.sh always writes a header and a sum line)"; return; }
    [ -z "$(tail -c 1 "$state")" ] || { echo "its last line is cut short"; return; }
    last=$(tail -n 1 "$state")
    case $last in sum=*) ;; *) echo "it has no sum line at the end: cut short, or not written by prepare.sh"; return ;; esac
    want=$(sed '$d' "$state" | sha256sum)
    [ "${last#sum=}" = "${want%% *}" ] || echo "its sum does not match its lines: edited or damaged"
}
