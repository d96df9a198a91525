# shellcheck shell=sh disable=SC2034  # QRC, PROG, state, fwdir, rsid: shared with the scripts that source this file
# hostcli.sh: sourced by prepare.sh and cleanup.sh. How they find and call esxcli,
# print every command, honour --dry-run and read esxcli's answers; what the host
# allows (the three execInstalledOnly locks, the kit's CPU, free space); --allow-ip
# values and their canonical form; the lock and the sealed state file. POSIX sh for
# the ESXi shell (busybox ash), using only the commands test/lib/esxi-shell.list
# names: no command, type, tr, od, find or sha256 tool.
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
#   CLI_SECS the bound on each esxcli call, in seconds (cli_run)
#   QFILE QLATE QPID QHUNG  cli_run's answer file, its timeout mark, the call under
#            way, and why esxcli is not asked again (it did not answer once)

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

# On a real host esxcli takes seconds a call and hangs outright while hostd is wedged:
# every call is bounded, by ESXDIAG_ESXCLI_SECS (default 30 s: well past a slow host's
# few seconds; lower it only to test).
CLI_SECS=${ESXDIAG_ESXCLI_SECS:-30}
case $CLI_SECS in
    '' | *[!0-9]* | 0* | ?????*) err "ESXDIAG_ESXCLI_SECS=$CLI_SECS: not a number of seconds 1-3600 (unset it for the default, 30)"; exit 2 ;;
esac
[ "$CLI_SECS" -le 3600 ] || { err "ESXDIAG_ESXCLI_SECS=$CLI_SECS: not a number of seconds 1-3600 (unset it for the default, 30)"; exit 2; }
QFILE='' QLATE='' QPID='' QHUNG=''

# have NAME: NAME is an executable file in a folder of PATH (sets HAVE to its path).
# ESXi's shell has no `command -v` and no `type`: the PATH is walked here.
have() {
    HAVE='' want=$1
    set -f; oldifs=$IFS; IFS=:
    # shellcheck disable=SC2086  # split PATH on its colons on purpose (globbing is off)
    set -- $PATH
    IFS=$oldifs; set +f
    for d in "$@"; do
        if [ -n "$d" ] && [ -f "$d/$want" ] && [ -x "$d/$want" ]; then HAVE=$d/$want; return 0; fi
    done
    return 1
}

# cli_find must|quiet: esxcli, or localcli when esxcli is absent. Looked up in PATH
# first (so the command printed is the one an administrator types), then in /bin and
# /sbin for a PATH that lacks them (a stripped ssh or Ansible environment); CLI_AT
# says where. Not found: "must" exits 2 with a message, "quiet" returns 1.
cli_find() {
    CLI='' CLI_AT=''
    for c in esxcli localcli; do
        if have "$c"; then CLI=$c CLI_AT=$HAVE; return 0; fi
        for d in /bin /sbin; do
            if [ -f "$d/$c" ] && [ -x "$d/$c" ]; then CLI=$d/$c CLI_AT=$d/$c; return 0; fi
        done
    done
    [ "$1" = quiet ] && return 1
    err "neither esxcli nor localcli found (run this in the ESXi shell, as root)"
    exit 2
}

# at_exit: what a script leaves on any exit: the lock dropped, an esxcli call still
# under way stopped, cli_run's files removed. traps_set installs it (and makes ^C, a
# lost session and kill exit through it).
at_exit() {
    lock_drop
    [ -z "$QPID" ] || kill "$QPID" 2>/dev/null
    [ -z "$QFILE" ] || rm -f -- "$QFILE"
    [ -z "$QLATE" ] || rm -f -- "$QLATE"
}
traps_set() {
    trap at_exit EXIT
    trap 'exit 130' INT; trap 'exit 143' TERM; trap 'exit 129' HUP
}

# cli_run CMD ARGS...: run CMD bounded by CLI_SECS; QOUT its output (stdout and stderr),
# QRC its exit code. ESXi's busybox is not known to have timeout (no public material
# shows it on a host), so CMD runs in the background with its output in a file (a
# child it leaves behind then holds no pipe of ours) and a watchdog ends it at the
# bound: QRC 124, QHUNG set, and no later esxcli call of this run is made (QRC 125): a
# wedged hostd would only make each wait the full bound.
cli_run() {
    QOUT='' QRC=0
    if [ -n "$QHUNG" ]; then QOUT="not run: $QHUNG"; QRC=125; return 0; fi
    if [ -z "$QFILE" ]; then
        traps_set
        if ! QFILE=$(mktemp) || ! QLATE=$(mktemp); then
            [ -z "$QFILE" ] || rm -f -- "$QFILE"
            QFILE='' QLATE='' QOUT="cannot make a temporary file (mktemp) for esxcli's answer" QRC=2
            return 0
        fi
    fi
    : > "$QLATE"
    "$@" > "$QFILE" 2>&1 &
    QPID=$!
    # the watchdog checks each second; it holds none of our output, and ends itself
    # once CMD is gone
    (
        i=0
        while kill -0 "$QPID" 2>/dev/null; do
            if [ "$i" -ge "$CLI_SECS" ]; then
                echo late > "$QLATE"
                kill "$QPID" 2>/dev/null; sleep 2; kill -9 "$QPID" 2>/dev/null
                exit 0
            fi
            sleep 1; i=$((i + 1))
        done
    ) > /dev/null 2>&1 &
    dog=$!
    wait "$QPID" 2>/dev/null
    QRC=$?
    kill "$dog" 2>/dev/null
    QPID=''
    QOUT=$(cat "$QFILE")
    if [ -s "$QLATE" ]; then
        QHUNG="$CLI did not answer within $CLI_SECS s"
        QOUT="no answer within $CLI_SECS s, stopped; ESXDIAG_ESXCLI_SECS sets the bound" QRC=124
    fi
    return 0
}

# query: a read-only esxcli call, bounded (cli_run). Printed (on stdout, or on
# QUERY_FD), and run even under --dry-run, because it changes nothing. Sets QOUT, QRC.
QUERY_FD=1
query() {
    if [ -n "$QHUNG" ]; then say "(not run: $QHUNG) $CLI $*" >&"$QUERY_FD"; else say "+ $CLI $*" >&"$QUERY_FD"; fi
    cli_run "$CLI" "$@"
}

# act: a command that changes the host. Printed; run unless --dry-run; an esxcli call
# bounded as a query is (what it printed is shown after it). Returns the command's
# exit code (0 under --dry-run).
act() {
    if [ "$DRY" = 1 ]; then
        say "(dry run, not run) $*"
        return 0
    fi
    [ "$1" = "$CLI" ] || { say "+ $*"; "$@"; return; }
    if [ -n "$QHUNG" ]; then say "(not run: $QHUNG) $*"; else say "+ $*"; fi
    cli_run "$@"
    [ -z "$QOUT" ] || printf '%s\n' "$QOUT"
    return "$QRC"
}

# q_why: one line, why the last answer gives no value: esxcli's error, no answer in
# time, an empty answer, or one in no layout esxcli prints (shown, shortened, with
# control characters as ?)
q_why() {
    first=$(printf '%s\n' "$QOUT" | awk 'NF { sub(/^[ \t]+/, ""); gsub(/[^ -~]/, "?"); print substr($0, 1, 60); exit }')
    case $QRC in
        124 | 125) printf '%s\n' "$QOUT" ;;
        0) if [ -z "$first" ]; then echo "an empty answer"; else echo "an answer in no layout esxcli prints ('$first')"; fi ;;
        *) echo "exit $QRC: ${first:-no message}" ;;
    esac
}

# q_table: the last answer is an esxcli table (exit 0, a row of dashes under the column
# titles, as esxcli prints its lists; that it prints them for no rows too is UNVERIFIED:
# if not, such an answer reads unknown, never absent)
q_table() {
    [ "$QRC" = 0 ] && printf '%s\n' "$QOUT" | grep -q '^ *--*\(  *--*\)* *$'
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
    printf '%s\n' "$QOUT" | awk -v k="$1" '$1 == k {
        $1 = ""; n = split($0, a, ",")
        for (i = 1; i <= n; i++) { gsub(/^ +| +$/, "", a[i]); if (a[i] != "") print a[i] }
        exit }'
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

# words_of TEXT SEP: TEXT split at each SEP, the pieces as words (empty ones dropped)
words_of() {
    set -f; oldifs=$IFS; IFS=$2
    # shellcheck disable=SC2086  # split on SEP on purpose (globbing is off)
    set -- $1
    IFS=$oldifs; set +f
    echo "$@"
}

# valid_ipv6 ADDR: hex groups of 1-4 digits, 8 of them or fewer with one "::"
valid_ipv6() {
    case $1 in '' | *[!0-9a-fA-F:]* | *:::* | *::*::*) return 1 ;; esac
    case $1 in :[!:]* | *[!:]:) return 1 ;; esac   # a lone colon at either end
    n=0
    for g in $(words_of "$1" :); do
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

# ---- canonical forms of --allow-ip values. The form in which ESXi stores an allowed
# address is not public, so prepare.sh adds each value in one canonical form and both
# scripts compare canonical forms: IPv6 as RFC 5952 writes it (lower case, no leading
# zeros, the longest run of two or more zero groups as ::), a prefix with its host
# bits cleared (10.20.0.5/24 is 10.20.0.0/24), and /32 or /128 as the bare address.

# cidr_canon CIDR: the canonical form of a value valid_cidr accepts
cidr_canon() {
    addr=${1%/*} len=''
    case $1 in */*) len=${1#*/} ;; esac
    if valid_ipv4 "$addr"; then
        [ "$len" = 32 ] && len=''
        [ -n "$len" ] || { echo "$addr"; return; }
        # shellcheck disable=SC2046  # the four octets, one word each
        set -- $(words_of "$addr" .)
        v=$((($1 << 24) + ($2 << 16) + ($3 << 8) + $4))
        v=$((v - v % (1 << (32 - len))))
        echo "$((v >> 24)).$(((v >> 16) & 255)).$(((v >> 8) & 255)).$((v & 255))/$len"
        return
    fi
    [ "$len" = 128 ] && len=''
    # shellcheck disable=SC2046  # the eight groups, one word each
    set -- $(ipv6_groups "$addr" "${len:-128}")
    echo "$(ipv6_text "$@")${len:+/$len}"
}

# ipv6_groups ADDR LEN: the eight groups as decimal numbers, bits past LEN cleared
ipv6_groups() {
    case $1 in
        *::*) l=$(words_of "${1%%::*}" :) r=$(words_of "${1#*::}" :) ;;
        *) l=$(words_of "$1" :) r='' ;;
    esac
    n=0
    for g in $l $r; do n=$((n + 1)); done
    out='' i=0
    for g in $l; do out="$out $((0x$g))"; done
    while [ $((n + i)) -lt 8 ]; do out="$out 0"; i=$((i + 1)); done
    for g in $r; do out="$out $((0x$g))"; done
    i=0
    for g in $out; do
        lo=$((i * 16)) i=$((i + 1))
        if [ "$2" -le "$lo" ]; then g=0
        elif [ "$2" -lt $((lo + 16)) ]; then g=$((g - g % (1 << (lo + 16 - $2)))); fi
        printf '%s ' "$g"
    done
}

# ipv6_text G1..G8: RFC 5952 text (the first longest run of two or more zeros is ::)
ipv6_text() {
    best=0 at=0 run=0 from=0 i=0 out=''
    for g in "$@"; do
        i=$((i + 1))
        if [ "$g" != 0 ]; then run=0; continue; fi
        [ "$run" = 0 ] && from=$i
        run=$((run + 1))
        [ "$run" -gt "$best" ] && best=$run at=$from
    done
    [ "$best" -ge 2 ] || at=0
    i=0
    for g in "$@"; do
        i=$((i + 1))
        if [ "$at" -gt 0 ] && [ "$i" -ge "$at" ] && [ "$i" -lt $((at + best)) ]; then
            [ "$i" = "$at" ] && out="$out::"
            continue
        fi
        case $out in '' | *:) ;; *) out="$out:" ;; esac
        out="$out$(printf '%x' "$g")"
    done
    echo "$out"
}

# canon_lines LIST: each line of LIST as "CANONICAL HOST-FORM" (lines that are no
# address at all are kept as they are, on both sides)
canon_lines() {
    printf '%s\n' "$1" | while IFS= read -r a; do
        [ -n "$a" ] || continue
        if valid_cidr "$a"; then printf '%s %s\n' "$(cidr_canon "$a")" "$a"; else printf '%s %s\n' "$a" "$a"; fi
    done
}

# host_form CANON_LINES CANONICAL: how the host lists CANONICAL (its spelling), or nothing
host_form() {
    printf '%s\n' "$1" | awk -v k="$2" '$1 == k { print $2; exit }'
}

# ---- what the host allows: read only, nothing here changes it

# locks_read: the three locks of execInstalledOnly, each on, off, absent (this ESXi
# has no such setting: esxcli said so in its own words) or unknown (no answer, an
# error, or an answer in no layout esxcli prints; LK_*_WHY says which, in one line):
#   LK_TPM   TPM enforcement: esxcli system settings encryption get, "Require
#            Executables Only From Installed VIBs" (7.0 U2+); LK_TPM_MODE, LK_TPM_SB
#   LK_BOOT  the boot option: esxcli system settings kernel list -o execinstalledonly,
#            Runtime column (this boot); next-boot when only Configured is TRUE;
#            LK_BOOT_CFG, LK_BOOT_RUN. When it holds it overrides the runtime option.
#            absent only when esxcli printed its table without the row.
#   LK_RT    the runtime option /User/execInstalledOnly (ESXi 8: 1 by default); LK_RT_VAL
locks_read() {
    query system settings encryption get
    LK_TPM=unknown LK_TPM_WHY='' LK_TPM_MODE='' LK_TPM_REQ='' LK_TPM_SB=''
    if [ "$QRC" = 0 ]; then
        LK_TPM_MODE=$(field Mode) LK_TPM_SB=$(field 'Require Secure Boot')
        LK_TPM_REQ=$(field 'Require Executables Only From Installed VIBs')
        case $LK_TPM_REQ in true) LK_TPM=on ;; false) LK_TPM=off ;; esac
    else
        case $QOUT in *"Unknown command or namespace"*) LK_TPM=absent ;; esac
    fi
    [ "$LK_TPM" != unknown ] || LK_TPM_WHY=$(q_why)
    query system settings kernel list -o execinstalledonly
    LK_BOOT=unknown LK_BOOT_WHY='' LK_BOOT_CFG='' LK_BOOT_RUN=''
    if q_table; then
        # shellcheck disable=SC2046  # two words: Configured and Runtime
        set -- $(printf '%s\n' "$QOUT" | awk 'tolower($1) == "execinstalledonly" { print toupper($3), toupper($4); exit }')
        LK_BOOT_CFG=${1:-} LK_BOOT_RUN=${2:-}
        case $LK_BOOT_CFG/$LK_BOOT_RUN in
            */TRUE) LK_BOOT=on ;;
            TRUE/FALSE) LK_BOOT=next-boot ;;
            FALSE/FALSE) LK_BOOT=off ;;
            /) LK_BOOT=absent ;;
        esac
    fi
    [ "$LK_BOOT" != unknown ] || LK_BOOT_WHY=$(q_why)
    query system settings advanced list -o /User/execInstalledOnly
    LK_RT=unknown LK_RT_WHY='' LK_RT_VAL=''
    if [ "$QRC" = 0 ]; then
        LK_RT_VAL=$(field 'Int Value')
        case $LK_RT_VAL in 1) LK_RT=on ;; 0) LK_RT=off ;; *) LK_RT_VAL='' ;; esac
    else
        case $QOUT in *"Unable to find option"*) LK_RT=absent ;; esac
    fi
    [ "$LK_RT" != unknown ] || LK_RT_WHY=$(q_why)
}

# fw_read: FW, the firewall's Enabled (true or false), or nothing and FW_WHY
fw_read() {
    query network firewall get
    FW=$(field Enabled) FW_WHY=''
    case $FW in true | false) ;; *) FW='' FW_WHY=$(q_why) ;; esac
}

# rs_read: RS, the esxdiag ruleset's Enabled (true, false, or nothing: not loaded);
# RS_WHY, when set, says why the ruleset list could not be read (RS then means nothing)
rs_read() {
    query network firewall ruleset list
    RS='' RS_WHY=''
    if q_table; then RS=$(row "$rsid"); else RS_WHY=$(q_why); fi
    case $RS in '' | true | false) ;; *) RS='' RS_WHY="Enabled '$RS' for $rsid is neither true nor false" ;; esac
}

# ips_read: IPS, the allowed IPs of the esxdiag ruleset ("All", one a line, or none);
# IPS_WHY, when set, says why the list could not be read
ips_read() {
    query network firewall ruleset allowedip list --ruleset-id "$rsid"
    IPS='' IPS_WHY=''
    if ! q_table; then IPS_WHY=$(q_why)
    elif printf '%s\n' "$QOUT" | awk -v k="$rsid" '$1 == k { f = 1 } END { exit !f }'; then IPS=$(allowed_ips "$rsid")
    else IPS_WHY="its table has no row for $rsid"; fi
}

# elf_machine FILE: x86_64, aarch64 or "ELF for another CPU" from the ELF header (bytes
# 0-3 the magic, 18-19 e_machine little-endian: 62 is x86_64, 183 aarch64); nothing
# for a file that is no ELF. Read with dd, one byte at a time, compared as characters
# (62 is '>'): ESXi's shell has no od.
elf_machine() {
    [ "$(dd if="$1" bs=1 count=4 2>/dev/null)" = "$(printf '\177ELF')" ] || return 0
    m=$(dd if="$1" bs=1 skip=18 count=1 2>/dev/null)
    [ -z "$(dd if="$1" bs=1 skip=19 count=1 2>/dev/null)" ] || m=''   # the high byte: 0
    case $m in
        '>') echo x86_64 ;;
        "$(printf '\267')") echo aarch64 ;;
        *) echo "ELF for another CPU" ;;
    esac
}

# kit_arch_read: ARCH_HOST (uname -m; arm64 read as aarch64), and for the programs in
# bin/: ARCH_KIT and ARCH_FILE (the first whose CPU is not the host's, else the last
# one read); ARCH_STATE is match, mismatch or unchecked (ARCH_WHY says why)
kit_arch_read() {
    ARCH_HOST='' ARCH_KIT='' ARCH_FILE='' ARCH_STATE=unchecked ARCH_WHY=''
    have uname && ARCH_HOST=$(uname -m)
    [ "$ARCH_HOST" = arm64 ] && ARCH_HOST=aarch64
    [ -n "$ARCH_HOST" ] || { ARCH_WHY="uname -m gave nothing"; return 0; }
    have dd || { ARCH_WHY="no dd here to read the programs' headers"; return 0; }
    for b in "$kit"/bin/*; do
        [ -f "$b" ] || continue
        a=$(elf_machine "$b")
        [ -n "$a" ] || continue
        ARCH_KIT=$a ARCH_FILE=bin/${b##*/} ARCH_STATE=match
        [ "$a" = "$ARCH_HOST" ] || { ARCH_STATE=mismatch; return 0; }
    done
    [ -n "$ARCH_KIT" ] || ARCH_WHY="no program in bin/ has an ELF header"
}

# free_kib DIR: the KiB free where DIR is (df -k; the figure before the Use% column,
# which also holds when df wraps a long device name onto its own line), or nothing
free_kib() {
    have df || return 0
    df -k "$1" 2>/dev/null | awk 'END { for (i = NF; i > 1; i--) if ($i ~ /%$/) { print $(i - 1); exit } }'
}

# SH_NEED: the commands prepare.sh and cleanup.sh run (test/lib/esxi-shell.list says
# why each is believed to be on an ESXi host); SH_OPTIONAL: what the kit's own steps
# around them use when the host has it (sha256sum -c SHA256SUMS). shell_missing LIST:
# the ones of LIST not on PATH.
SH_NEED="awk basename cat date dd df dirname grep head mkdir mktemp mv rm sed sleep uname"
SH_OPTIONAL="sha256sum tar"
shell_missing() {
    out=''
    for c in $1; do have "$c" || out="$out${out:+ }$c"; done
    echo "$out"
}

# json_str TEXT: TEXT as a JSON string (backslash, quote and control characters escaped)
json_str() {
    printf '%s' "$1" | awk 'BEGIN { ORS = ""; print "\"" }
        { if (NR > 1) print "\\n"; gsub(/\\/, "\\\\"); gsub(/"/, "\\\""); gsub(/\t/, "\\t")
          gsub(/[\001-\037]/, "?"); print }
        END { print "\"" }'
}

# ---- esxmtu --each-uplink's scratch objects: a portgroup whose name starts with the
# prefix below (esxmtu makes it from a vmnic name: no spaces) and any vmk on one. esxmtu
# removes them itself on every way out it lives through; a kill -9 or a reboot in the
# middle can leave them. scratch_read lists them: SCR_VMKS (names), SCR_PGS ("PORTGROUP
# VSWITCH" pairs), SCR_WHY (why they could not be listed, "" when they were)
SCR_PREFIX=esxmtu-scratch-
scratch_read() {
    SCR_VMKS='' SCR_PGS='' SCR_WHY=''
    query network ip interface list
    if [ "$QRC" != 0 ]; then SCR_WHY="network ip interface list: $(q_why)"; return 0; fi
    SCR_VMKS=$(printf '%s\n' "$QOUT" | awk -v p="$SCR_PREFIX" '
        /^ *Name: / { n = $2 }
        /^ *Portgroup: / { sub(/^ *Portgroup: */, ""); if (index($0, p) == 1) print n }')
    query network vswitch standard portgroup list
    if ! q_table; then SCR_WHY="network vswitch standard portgroup list: $(q_why)"; return 0; fi
    SCR_PGS=$(printf '%s\n' "$QOUT" | awk -v p="$SCR_PREFIX" 'index($1, p) == 1 { print $1, $2 }')
}
# scratch_text: what scratch_read found, for people: "vmk90, esxmtu-scratch-vmnic1 (vSwitch1)"
scratch_text() {
    { printf '%s\n' "$SCR_VMKS"; printf '%s\n' "$SCR_PGS" | awk 'NF { print $1 " (" $2 ")" }'; } |
        awk 'NF { printf "%s%s", s, $0; s = ", " }'
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
        printf '%s\n' "$$" > "$lock/pid" || { rm -rf -- "$lock"; err "cannot write $lock/pid"; exit 2; }
        LOCKED=1
        traps_set
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
    traps_set
    note "took over the lock of pid $owner, which is gone (an interrupted run)"
}

# ---- the state file: previous values, written ahead of each change
#
# Lines KEY=VALUE after a comment header, and a last line sum=awk:A:B:N over all the
# lines before it (state_sum): a file cut short (it loses its sum line, or lines under
# it) or edited by hand is recognised and not acted on. The sum needs awk only, which
# every ESXi shell has, rather than a sha256 tool that a host may lack; it guards
# against damage and slips, not against someone who means to forge the file. Every
# write replaces the whole file (written beside it, then renamed over it), so a kill
# at any moment leaves either the old or the new complete file.

# state_sum < TEXT: "awk:A:B:N", two polynomial sums of TEXT's bytes (mod 2^31-1 and
# mod 10^9+7, exact in awk's doubles) and its length in bytes (a newline ends each line)
state_sum() {
    LC_ALL=C awk 'BEGIN { for (i = 1; i < 256; i++) ord[sprintf("%c", i)] = i }
        { s = $0 "\n"; k = length(s)
          for (i = 1; i <= k; i++) { c = ord[substr(s, i, 1)] + 0; a = (a * 31 + c) % 2147483647; b = (b * 131 + c) % 1000000007 }
          n += k }
        END { printf "awk:%d:%d:%d\n", a, b, n }'
}

STATE_BODY=''
state_write() {
    sum=$(printf '%s' "$STATE_BODY" | state_sum) || return 1
    { printf '%s' "$STATE_BODY" && printf 'sum=%s\n' "$sum"; } > "$state.new" &&
        mv -f "$state.new" "$state"
}

# state_begin: the header, before the first change
state_begin() {
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

# state_check: why the state file cannot be trusted (printed), or nothing. A last
# line without its newline is what read leaves in l after the loop.
state_check() {
    [ -s "$state" ] || { echo "it is empty (prepare.sh always writes a header and a sum line)"; return; }
    last='' l=''
    while IFS= read -r l; do last=$l; done < "$state"
    [ -z "$l" ] || { echo "its last line is cut short"; return; }
    case $last in sum=*) ;; *) echo "it has no sum line at the end: cut short, or not written by prepare.sh"; return ;; esac
    want=$(sed '$d' "$state" | state_sum)
    [ "${last#sum=}" = "$want" ] || echo "its sum does not match its lines: edited or damaged"
}
