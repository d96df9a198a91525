# shellcheck shell=sh disable=SC2034  # QRC, PROG, state, fwdir, rsid: shared with the scripts that source this file
# hostcli.sh: sourced by prepare.sh and cleanup.sh. How they call esxcli, print
# every command, honour --dry-run and read esxcli's answers. POSIX sh: it runs
# under the ESXi shell (busybox ash).
#
# The sourcing script sets PROG and here (its own folder) first.
# Globals set here (the two scripts have no other shared state):
#   kit      the unpacked kit folder (parent of esxi/)
#   state    <kit>/esxdiag.state, written by prepare.sh, read by cleanup.sh
#   fwdir    firewall ruleset folder (ESXDIAG_FIREWALL_DIR overrides, for tests)
#   rsid     the custom firewall ruleset id
#   CLI      esxcli, or localcli when esxcli is absent
#   DRY      1 under --dry-run
#   QOUT QRC output and exit code of the last query

kit=$(dirname "${here:?}")
state="$kit/esxdiag.state"
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

# an IPv4/IPv6 address or CIDR: only these characters, one slash at most
valid_cidr() {
    case $1 in
        '' | */*/* | *[!0-9a-fA-F.:/]*) return 1 ;;
    esac
    return 0
}
