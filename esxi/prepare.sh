#!/bin/sh
# shellcheck source-path=SCRIPTDIR
# prepare.sh: make an ESXi host ready to run the esxdiag binaries of this kit.
# Shows the settings that decide it (all three execInstalledOnly locks, the firewall
# both ways); changes one only when asked; prints every command; records each
# previous value in <kit>/esxdiag.state for cleanup.sh. --check reports, one line
# each (or as JSON), what stands in the way, changing nothing. POSIX sh for the ESXi
# shell (busybox ash), with the commands test/lib/esxi-shell.list names only.

usage() {
    cat <<'TXT'
usage: sh esxi/prepare.sh [--allow-exec] [--allow-ip CIDR]... [--allow-any]
                          [--port N[-M]] [--disable-firewall] [--dry-run] [-h|--help]
       sh esxi/prepare.sh --check [--json] [--port N[-M]]

Shows whether this ESXi host lets the copied esxdiag binaries run and lets
esxperf traffic through, and changes a setting only when asked. Every command
is printed before it runs. Each previous value goes into <kit>/esxdiag.state;
sh esxi/cleanup.sh puts them all back.

  --allow-exec        set /User/execInstalledOnly to 0 (ESXi 8 sets it to 1,
                      which refuses any binary not installed from a VIB), then
                      prove it: run bin/esxpart --version (put back if refused)
  --allow-ip CIDR     open the esxperf port, TCP and UDP, inbound (an esxperf
                      server here) and outbound (an esxperf client here), for
                      CIDR only (repeat for more, at most 64; an IPv4 or IPv6
                      address, or one with /LEN, added in canonical form: see
                      esxi/README). Uses a custom firewall ruleset "esxdiag" (a
                      file in /etc/vmware/firewall, then esxcli network firewall
                      refresh). UNVERIFIED on ESXi 8, which may refuse custom
                      rulesets: prepare checks that the ruleset loaded with both
                      directions and says so if not.
  --allow-any         let --allow-ip take a /0 (0.0.0.0/0, ::/0: any address),
                      refused without it
  --port N[-M]        the port, or a range of at most 64, for --allow-ip
                      (default 5201, as iperf3)
  --disable-firewall  turn the whole host firewall off instead (opens every
                      port to everyone: use only if the ruleset is refused)
  --dry-run           print the commands that would change something, run
                      none (read-only queries still run)
  --check             change nothing: one line each for the shell, esxcli, the
                      three execInstalledOnly locks, the firewall, the kit's
                      architecture against the host's, and the free space where
                      the kit is (the queries it runs go to stderr)
  --json              with --check: the same as one JSON object
  -h, --help          this text

Examples:
  sh esxi/prepare.sh --check            what stands in the way, one line each
  sh esxi/prepare.sh                    show the settings, change nothing
  sh esxi/prepare.sh --allow-exec --allow-ip 10.20.0.0/24 --dry-run
  sh esxi/prepare.sh --allow-exec --allow-ip 10.20.0.0/24
  sh esxi/cleanup.sh                    undo it and remove the kit

execInstalledOnly has three locks: the runtime option /User/execInstalledOnly
(the only one --allow-exec changes), the boot option execInstalledOnly and TPM
enforcement. With either of the last two on, prepare changes nothing and says
which holds and what an administrator can do; both need a reboot, so prepare
never touches them.

Every esxcli call is stopped after 30 s (ESXDIAG_ESXCLI_SECS=N: another
bound, 1-3600; a wedged hostd makes esxcli hang), and after one such call
esxcli is asked nothing more in that run. An error, an empty answer, no
answer, or one in no layout esxcli prints is unknown: never read as clear
or absent.

Interrupted (^C, a lost SSH session, kill -9): each previous value is in the
state file before the change is made, so sh esxi/cleanup.sh undoes whatever
was done. One prepare.sh or cleanup.sh at a time runs on a kit; another one
says who holds the lock and stops.

Exit codes:
  0  done (or nothing asked); --check: nothing stands in the way
  1  this host cannot run copied binaries (the boot option or TPM enforcement
     holds execInstalledOnly, or bin/esxpart was still refused after the
     change, which was then put back), or it refused a change, or the ruleset
     did not load with both directions (see the message); --check: something
     stands in the way (the line says what), or esxcli gave no answer to read
     for it (NOT READ: unknown is never clear)
  2  usage error, the kit is for another CPU architecture than this
     host's (uname -m), a command failed, a setting it could not read and
     was asked to change (nothing of it changed), another prepare.sh or cleanup.sh
     holds the kit, or an earlier prepare was not undone
TXT
}

PROG=prepare.sh
here=$(cd "$(dirname "$0")" && pwd -P) || exit 2
# shellcheck source=hostcli.sh
. "$here/hostcli.sh" || exit 2

allow_exec=0 disable_fw=0 port=5201 ips='' check=0 json=0
allow_any=0 nips=0 everything='' IPS_MAX=64
# ip_unfit CANONICAL: why no esxperf peer can have this address, or nothing. A prefix
# is refused only when all of it is multicast (224.0.0.0/4, ff00::/8); a /0 is
# cidr_is_everything's (--allow-any).
ip_unfit() {
    len=128
    case $1 in */*) len=${1#*/} ;; esac
    case $1 in
        0.0.0.0 | ::) echo "the unspecified address, which no host has" ;;
        255.255.255.255) echo "the broadcast address, which is no one host" ;;
        22[4-9].* | 23[0-9].*) [ "$len" -lt 4 ] || echo "a multicast address, which is no one host" ;;
        ff[0-9a-f][0-9a-f]:*) [ "$len" -lt 8 ] || echo "a multicast address, which is no one host" ;;
    esac
}
# add_ip CIDR: checked, put in canonical form (cidr_canon), counted, each one once
add_ip() {
    if ! valid_cidr "$1"; then   # shown on one line, control characters as ?
        err "--allow-ip '$(printf '%s' "$1" | awk '{ gsub(/[^ -~]/, "?"); printf "%s%s", (NR > 1 ? "?" : ""), $0 }')': not an IPv4 or IPv6 address or CIDR"
        exit 2
    fi
    ip=$(cidr_canon "$1")
    why=$(ip_unfit "$ip")
    [ -z "$why" ] || { err "--allow-ip $1: $why (give the esxperf peer's own address, or its network such as 198.18.0.0/15)"; exit 2; }
    [ "$ip" = "$(printf '%s' "$1" | sed 'y/ABCDEF/abcdef/')" ] || CANON_NOTES="$CANON_NOTES $1=$ip"
    case " $ips " in *" $ip "*) return 0 ;; esac
    nips=$((nips + 1))
    [ "$nips" -le "$IPS_MAX" ] ||
        { err "more than $IPS_MAX --allow-ip values: give a wider CIDR (e.g. 198.18.0.0/15) instead"; exit 2; }
    cidr_is_everything "$ip" && everything=$1
    ips="$ips $ip"
}
CANON_NOTES=''
while [ $# -gt 0 ]; do
    case $1 in
        --allow-exec) allow_exec=1 ;;
        --disable-firewall) disable_fw=1 ;;
        --allow-any) allow_any=1 ;;
        --dry-run) DRY=1 ;;
        --check) check=1 ;;
        --json) json=1 ;;
        --allow-ip)
            [ $# -ge 2 ] || { err "--allow-ip needs an address or CIDR"; exit 2; }
            add_ip "$2"; shift ;;
        --allow-ip=*) add_ip "${1#*=}" ;;
        --port)
            [ $# -ge 2 ] || { err "--port needs a number"; exit 2; }
            port=$2; shift ;;
        --port=*) port=${1#*=} ;;
        -h | --help) usage; exit 0 ;;
        *) err "unknown argument '$1' (see --help)"; exit 2 ;;
    esac
    shift
done
# --port N or N-M (a range, for the fleet's one port per round); at most 64 ports.
# More than 5 digits is out of range before test(1) sees it: busybox and bash
# [ -gt ] fail (not false) on numbers beyond 64 bits, which would let them through.
# A leading zero is refused, not dropped: the shell's arithmetic reads 05201 as octal,
# and the ruleset file would carry the number as given
check_port() { # $1 = one port number; exits 2 unless 1..65535
    case $1 in
        '' | *[!0-9]*) err "--port $port: not a number or a range N-M"; exit 2 ;;
        0?*) n=$1; while case $n in 0?*) true ;; *) false ;; esac; do n=${n#0}; done
             err "--port $port: $1 has a leading zero (write it as $n)"; exit 2 ;;
        ??????*) err "--port $port: out of range 1-65535"; exit 2 ;;
    esac
    if [ "$1" -lt 1 ] || [ "$1" -gt 65535 ]; then
        err "--port $port: out of range 1-65535"; exit 2
    fi
}
case $port in
    *-*) port_lo=${port%%-*} port_hi=${port#*-} ;;
    *) port_lo=$port port_hi=$port ;;
esac
check_port "$port_lo"
check_port "$port_hi"
if [ "$port_hi" -lt "$port_lo" ] || [ $((port_hi - port_lo)) -ge 64 ]; then
    err "--port $port: a range is low-high with at most 64 ports"; exit 2
fi
if [ -n "$ips" ] && [ "$disable_fw" = 1 ]; then
    err "choose one: --allow-ip (narrow) or --disable-firewall (everything)"; exit 2
fi
if [ -n "$everything" ] && [ "$allow_any" = 0 ]; then
    err "--allow-ip $everything admits any address to port $port: add --allow-any if that is meant"; exit 2
fi
want_change=0
[ "$allow_exec" = 1 ] || [ -n "$ips" ] || [ "$disable_fw" = 1 ] && want_change=1
if [ "$check" = 1 ] && { [ "$want_change" = 1 ] || [ "$DRY" = 1 ]; }; then
    err "--check changes nothing: give it alone (with --json or --port)"; exit 2
fi
[ "$json" = 0 ] || [ "$check" = 1 ] || { err "--json goes with --check"; exit 2; }

# rules_read: does the loaded ruleset open the port range both ways, TCP and UDP?
# RULES_MISSING lists what it does not cover ("tcp outbound, udp outbound"); RULES_READ
# is 0 when the host's rule table has no row for it (that layout is UNVERIFIED: then
# nothing is judged); RULES_WHY, when set, says why the rule list could not be read
rules_read() {
    query network firewall ruleset rule list --ruleset-id "$rsid"
    RULES_READ=0 RULES_MISSING='' RULES_WHY=''
    q_table || { RULES_WHY=$(q_why); return 0; }
    rows=$(printf '%s\n' "$QOUT" | awk -v k="$rsid" '$1 == k { print tolower($2), tolower($3), tolower($4), $5, $6 }')
    [ -n "$rows" ] || return 0
    RULES_READ=1
    for proto in tcp udp; do
        for dir in inbound outbound; do
            printf '%s\n' "$rows" | awk -v d="$dir" -v p="$proto" -v lo="$port_lo" -v hi="$port_hi" '
                $1 == d && $2 == p && $3 == "dst" && $4 + 0 <= lo + 0 && $5 + 0 >= hi + 0 { f = 1 }
                END { exit !f }' || RULES_MISSING="$RULES_MISSING${RULES_MISSING:+, }$proto $dir"
        done
    done
}

# ---- the pre-flight report (--check): what stands in the way, changing nothing. The
# queries it runs are printed on stderr; stdout holds the report alone (or its JSON).
jarr() { # WORDS: a JSON array of strings
    out='' sep=''
    for w in $1; do out="$out$sep$(json_str "$w")"; sep=,; done
    printf '[%s]' "$out"
}
jstr() { if [ -n "$1" ]; then json_str "$1"; else printf null; fi; }   # "" is null
jnum() { case $1 in '' | *[!0-9]*) printf null ;; *) printf '%s' "$1" ;; esac; }
jbool() { case $1 in true | TRUE) printf true ;; false | FALSE) printf false ;; *) printf null ;; esac; }
preflight_read() {
    PF_MISSING=$(shell_missing "$SH_NEED") PF_OPTIONAL=$(shell_missing "$SH_OPTIONAL")
    kit_arch_read
    PF_DIR=$(dirname "$kit") PF_KIB=$(free_kib "$(dirname "$kit")")
    QUERY_FD=2 PF_FW='' PF_RS='' PF_RULES='' RULES_READ=0 RULES_WHY='' FW_WHY='' RS_WHY=''
    SCR_VMKS='' SCR_PGS='' SCR_WHY=''
    LK_TPM=unknown LK_BOOT=unknown LK_RT=unknown LK_TPM_WHY='' LK_BOOT_WHY='' LK_RT_WHY=''
    # PF_UNREAD: what esxcli was asked and gave no answer to judge by: never taken as clear
    PF_UNREAD=''
    if cli_find quiet; then
        locks_read
        fw_read
        rs_read
        PF_FW=$FW PF_RS=$RS
        [ -n "$RS_WHY" ] || [ -z "$PF_RS" ] || { rules_read; PF_RULES=$RULES_MISSING; }
        [ -z "$LK_TPM_WHY" ] || PF_UNREAD="$PF_UNREAD tpm"
        [ -z "$LK_BOOT_WHY" ] || PF_UNREAD="$PF_UNREAD boot"
        [ -z "$LK_RT_WHY" ] || PF_UNREAD="$PF_UNREAD runtime"
        [ -z "$FW_WHY" ] || PF_UNREAD="$PF_UNREAD firewall"
        [ -z "$RS_WHY" ] || PF_UNREAD="$PF_UNREAD ruleset"
        [ -z "$RULES_WHY" ] || PF_UNREAD="$PF_UNREAD rules"
        scratch_read
        [ -z "$SCR_WHY" ] || PF_UNREAD="$PF_UNREAD scratch"
    fi
    PF_WHY=$LK_TPM_WHY PF_FW_WHY=''   # the first reason; the firewall's reasons
    for w in "$LK_BOOT_WHY" "$LK_RT_WHY" "$FW_WHY" "$RS_WHY" "$RULES_WHY"; do [ -n "$PF_WHY" ] || PF_WHY=$w; done
    for w in "$FW_WHY" "$RS_WHY" "$RULES_WHY"; do [ -z "$w" ] || PF_FW_WHY="${PF_FW_WHY:+$PF_FW_WHY; }$w"; done
    PF_BLOCKED=''
    [ -n "$CLI" ] || PF_BLOCKED="$PF_BLOCKED esxcli"
    [ -z "$PF_MISSING" ] || PF_BLOCKED="$PF_BLOCKED shell"
    [ "$LK_TPM" != on ] || PF_BLOCKED="$PF_BLOCKED tpm"
    [ "$LK_BOOT" != on ] || PF_BLOCKED="$PF_BLOCKED boot"
    [ "$ARCH_STATE" != mismatch ] || PF_BLOCKED="$PF_BLOCKED arch"
    [ -z "$SCR_VMKS$SCR_PGS" ] || PF_BLOCKED="$PF_BLOCKED scratch"
}
preflight_text() {
    line() { printf '  %-13s %s\n' "$1" "$2"; }
    say "esxdiag prepare --check: kit $kit (nothing is changed)"
    # shellcheck disable=SC2086  # one word per command, to count them
    set -- $SH_NEED
    if [ -z "$PF_MISSING" ]; then sh_have="the $# commands the scripts use are here"; else sh_have="MISSING: $PF_MISSING"; fi
    line shell "$sh_have${PF_OPTIONAL:+; optional, not here: $PF_OPTIONAL}"
    if [ -n "$CLI" ]; then line esxcli "$CLI ($CLI_AT)"; else line esxcli "MISSING: neither esxcli nor localcli found"; fi
    line "runtime lock" "$LK_RT${LK_RT_VAL:+ (/User/execInstalledOnly = $LK_RT_VAL)}${LK_RT_WHY:+ ($LK_RT_WHY)}$([ "$LK_RT" = on ] && echo ': --allow-exec sets it to 0')"
    line "boot lock" "$LK_BOOT${LK_BOOT_RUN:+ (Configured $LK_BOOT_CFG, Runtime $LK_BOOT_RUN)}${LK_BOOT_WHY:+ ($LK_BOOT_WHY)}$([ "$LK_BOOT" = on ] && echo ': esxcli system settings kernel set -s execInstalledOnly -v FALSE, then reboot')"
    line "TPM lock" "$LK_TPM${LK_TPM_REQ:+ (Require Executables Only From Installed VIBs: $LK_TPM_REQ, Mode $LK_TPM_MODE)}${LK_TPM_WHY:+ ($LK_TPM_WHY)}"
    if [ -n "$RS_WHY" ]; then rs="ruleset $rsid unknown ($RS_WHY)"
    elif [ -z "$PF_RS" ]; then rs="ruleset $rsid not loaded (--allow-ip writes it: port $port, inbound and outbound)"
    elif [ -n "$RULES_WHY" ]; then rs="ruleset $rsid loaded (enabled: $PF_RS), its rules unknown ($RULES_WHY)"
    elif [ "$RULES_READ" = 0 ]; then rs="ruleset $rsid loaded (enabled: $PF_RS), its rules not read"
    else rs="ruleset $rsid loaded (enabled: $PF_RS), port $port ${PF_RULES:+NOT open for $PF_RULES}${PF_RULES:-open both ways}"; fi
    line firewall "enabled: ${PF_FW:-unknown ($FW_WHY)}; $rs"
    case $ARCH_STATE in
        match) line architecture "kit $ARCH_KIT ($ARCH_FILE), host $ARCH_HOST: match" ;;
        mismatch) line architecture "MISMATCH: kit $ARCH_KIT ($ARCH_FILE), host $ARCH_HOST (unpack $(basename "$kit")-$ARCH_HOST.tar.gz)" ;;
        *) line architecture "not checked: $ARCH_WHY" ;;
    esac
    if [ -n "$SCR_WHY" ]; then line scratch "unknown ($SCR_WHY)"
    elif [ -n "$SCR_VMKS$SCR_PGS" ]; then line scratch "LEFT by an esxmtu --each-uplink run: $(scratch_text) (sh esxi/cleanup.sh --keep-kit removes them)"
    else line scratch "no esxmtu --each-uplink objects ($SCR_PREFIX*) on the host"; fi
    line "free space" "$(if [ -n "$PF_KIB" ]; then echo "$((PF_KIB / 1024)) MiB free in $PF_DIR (df -k)"; else echo "unknown for $PF_DIR (df -k gave no figure)"; fi)"
    if [ -z "$PF_BLOCKED$PF_UNREAD" ]; then line verdict "nothing stands in the way"; return; fi
    v=''
    [ -z "$PF_BLOCKED" ] || v="BLOCKED by:$PF_BLOCKED"
    [ -z "$PF_UNREAD" ] || v="${v:+$v; }NOT READ:$PF_UNREAD"
    line verdict "$v (see the lines above)"
}
preflight_json() {
    printf '{"tool": "esxdiag prepare --check", "kit": %s, "ready": %s, "blocked_by": %s, "unread": %s,\n' \
        "$(json_str "$kit")" "$([ -z "$PF_BLOCKED$PF_UNREAD" ] && echo true || echo false)" "$(jarr "$PF_BLOCKED")" "$(jarr "$PF_UNREAD")"
    printf ' "shell": {"missing": %s, "optional_missing": %s},\n' "$(jarr "$PF_MISSING")" "$(jarr "$PF_OPTIONAL")"
    printf ' "esxcli": {"found": %s, "command": %s, "path": %s},\n' \
        "$([ -n "$CLI" ] && echo true || echo false)" "$(jstr "$CLI")" "$(jstr "$CLI_AT")"
    printf ' "locks": {"runtime": {"state": "%s", "value": %s, "why": %s},\n' "$LK_RT" "$(jnum "$LK_RT_VAL")" "$(jstr "$LK_RT_WHY")"
    printf '           "boot": {"state": "%s", "configured": %s, "runtime": %s, "why": %s},\n' \
        "$LK_BOOT" "$(jbool "$LK_BOOT_CFG")" "$(jbool "$LK_BOOT_RUN")" "$(jstr "$LK_BOOT_WHY")"
    printf '           "tpm": {"state": "%s", "mode": %s, "require_exec_installed_only": %s, "require_secure_boot": %s, "why": %s}},\n' \
        "$LK_TPM" "$(jstr "$LK_TPM_MODE")" "$(jbool "$LK_TPM_REQ")" "$(jbool "$LK_TPM_SB")" "$(jstr "$LK_TPM_WHY")"
    printf ' "firewall": {"enabled": %s, "port": "%s", "ruleset": "%s", "ruleset_loaded": %s, "ruleset_enabled": %s, "rules_read": %s, "rules_missing": %s, "why": %s},\n' \
        "$(jbool "$PF_FW")" "$port" "$rsid" "$([ -n "$PF_RS" ] && echo true || echo false)" "$(jbool "$PF_RS")" \
        "$([ "$RULES_READ" = 1 ] && echo true || echo false)" "$(jarr "$(echo "$PF_RULES" | sed 's/ /-/g; s/,-/ /g')")" \
        "$(jstr "$PF_FW_WHY")"
    printf ' "arch": {"state": "%s", "kit": %s, "host": %s, "file": %s, "why": %s},\n' \
        "$ARCH_STATE" "$(jstr "$ARCH_KIT")" "$(jstr "$ARCH_HOST")" "$(jstr "$ARCH_FILE")" "$(jstr "$ARCH_WHY")"
    printf ' "scratch": {"vmks": %s, "portgroups": %s, "why": %s},\n' "$(jarr "$SCR_VMKS")" \
        "$(jarr "$(printf '%s\n' "$SCR_PGS" | awk '{ print $1 }')")" "$(jstr "$SCR_WHY")"
    printf ' "free_space": {"dir": %s, "kib": %s}}\n' "$(json_str "$PF_DIR")" "$(jnum "$PF_KIB")"
}
if [ "$check" = 1 ]; then
    preflight_read
    if [ "$json" = 1 ]; then preflight_json; else preflight_text; fi
    [ -z "$PF_UNREAD" ] ||
        err "esxcli gave no answer to judge by for:$PF_UNREAD ($PF_WHY): not taken as clear (rerun when esxcli answers)"
    [ -z "$PF_BLOCKED$PF_UNREAD" ] || exit 1
    exit 0
fi

# ---- 0. is this kit built for this host's CPU? The x86_64 and aarch64 (ESXi-Arm) kits
# look alike; the ELF header of each program in bin/ says which it is (elf_machine).
# Refused before anything is queried or changed.
kit_arch_read
if [ "$ARCH_STATE" = mismatch ]; then
    err "this kit is built for $ARCH_KIT ($ARCH_FILE), this host is $ARCH_HOST: unpack $(basename "$kit")-$ARCH_HOST.tar.gz instead (nothing was changed)"
    exit 2
fi

cli_find must
say "esxdiag prepare: kit $kit"
[ "$ARCH_STATE" = unchecked ] && note "the kit's architecture was not checked: $ARCH_WHY"
[ "$DRY" = 1 ] && say "dry run: commands that change the host are printed, not run"
for c in $CANON_NOTES; do note "--allow-ip ${c%%=*} is added as ${c#*=} (its canonical form)"; done
# one prepare or cleanup at a time on this kit, from the state check to the end
[ "$want_change" = 1 ] && [ "$DRY" = 0 ] && lock_take 0

if [ -e "$state" ] && [ "$want_change" = 1 ]; then
    if [ "$DRY" = 1 ]; then
        say "note: $state exists: without --dry-run prepare would stop here (run cleanup.sh first)"
    else
        err "$state exists: an earlier prepare was not undone (run sh $here/cleanup.sh first)"
        exit 2
    fi
fi

# record KEY VALUE: the previous value, in the state file BEFORE the change is
# made (write-ahead): a prepare killed at any point leaves a state file that
# names every change it may have made. cleanup.sh compares each with the host.
# made: a change went through (without one, the state file is removed at the end)
made=0
record() {
    [ "$DRY" = 1 ] && return 0
    state_add "$1" "$2" || { err "cannot write $state: nothing more is changed"; finish 2; }
}
finish() { # $1 = exit code
    if [ "$made" = 0 ] && [ "$DRY" = 0 ]; then rm -f "$state" "$state.new"; fi
    exit "$1"
}
# create the state file before the first change: if that is impossible, change nothing
if [ "$want_change" = 1 ] && [ "$DRY" = 0 ]; then
    state_begin ||
        { err "cannot write $state (is the kit on a read-only place? unpack it in /tmp or a datastore)"; rm -f "$state.new"; exit 2; }
fi

# ---- 1. may copied binaries run here? All three locks are read before anything changes.
say ""
say "== executables (execInstalledOnly: TPM enforcement, boot option, runtime option)"
locks_read
case $LK_TPM in
    on | off) note "TPM enforcement: $LK_TPM (Require Executables Only From Installed VIBs: $LK_TPM_REQ, Mode: $LK_TPM_MODE)" ;;
    absent) note "TPM enforcement: none on this host (no encryption settings: before ESXi 7.0 U2)" ;;
    *) note "TPM enforcement: unknown (encryption get: $LK_TPM_WHY)" ;;
esac
case $LK_BOOT in
    on | off | next-boot) note "boot option execInstalledOnly: $LK_BOOT (Configured $LK_BOOT_CFG, Runtime $LK_BOOT_RUN)" ;;
    absent) note "boot option execInstalledOnly: not listed by this host" ;;
    *) note "boot option execInstalledOnly: unknown (kernel list: $LK_BOOT_WHY)" ;;
esac
exec_cur=$LK_RT_VAL
case $LK_RT in
    on | off) note "/User/execInstalledOnly = $exec_cur (1: only binaries installed from VIBs may run)" ;;
    absent) note "/User/execInstalledOnly does not exist here (before ESXi 8): copied binaries may run" ;;
    *) note "/User/execInstalledOnly: unknown ($LK_RT_WHY)" ;;
esac

cannot_run() { say ""; say "THIS HOST CANNOT RUN COPIED BINARIES."; }
if [ "$LK_TPM" = on ]; then
    cannot_run
    say "  Lock: execInstalledOnly is enforced by the TPM (esxcli system settings"
    say "  encryption get: Require Executables Only From Installed VIBs: true). It holds"
    say "  whatever /User/execInstalledOnly says, so prepare.sh changes nothing. Lifting it takes"
    say "      esxcli system settings encryption set --require-exec-installed-only=F"
    say "  and a reboot: part of the host's encryption configuration, which cleanup.sh"
    say "  could not undo, so prepare.sh never does it. Run the tools from another"
    say "  machine or VM, or ask who set this host's encryption policy."
    finish 1
fi
if [ "$LK_BOOT" = on ]; then
    cannot_run
    say "  Lock: the boot option execInstalledOnly (esxcli system settings kernel list"
    say "  -o execinstalledonly: Runtime TRUE). It overrides /User/execInstalledOnly, so"
    say "  prepare.sh changes nothing. Lifting it takes"
    say "      esxcli system settings kernel set -s execInstalledOnly -v FALSE"
    say "  and a reboot (the option is read at boot; hardened hosts set it on purpose):"
    say "  prepare.sh changes no boot option and reboots nothing."
    [ "$LK_BOOT_CFG" = FALSE ] && say "  It is configured FALSE already: it lifts at the next reboot."
    finish 1
fi
[ "$LK_BOOT" = next-boot ] &&
    note "the boot option is configured TRUE for the next boot: after a reboot copied binaries are refused again"

# kit_runs: bin/esxpart --version, the proof that this host runs the kit's binaries
# (execInstalledOnly refuses them with "Operation not permitted"). RUN_OUT: its answer.
kit_runs() {
    say "+ $kit/bin/esxpart --version"
    RUN_OUT=$("$kit/bin/esxpart" --version 2>&1)
    RUN_RC=$?
    RUN_OUT=$(printf '%s\n' "$RUN_OUT" | head -n 1)
    [ "$RUN_RC" = 0 ]
}
# prove_exec: after --allow-exec, the kit must run; if it does not, say so plainly and
# put /User/execInstalledOnly back as it was (exit 1), or point to cleanup.sh (exit 2)
prove_exec() {
    if [ "$DRY" = 1 ]; then say "(dry run, not run) $kit/bin/esxpart --version"; return 0; fi
    if [ ! -f "$kit/bin/esxpart" ]; then note "no bin/esxpart in the kit: whether its binaries run is not proven"; return 0; fi
    if kit_runs; then note "the kit runs: $RUN_OUT"; return 0; fi
    say ""
    say "THE HOST STILL REFUSES THE KIT'S BINARIES: bin/esxpart --version exited $RUN_RC: $RUN_OUT"
    case $RUN_OUT in
        *"Operation not permitted"*)
            say "  Operation not permitted: execInstalledOnly still holds, through a lock prepare.sh"
            say "  could not read or lift (see the three lines above; one read as unknown may be it)." ;;
    esac
    if [ "$exec_set" = 1 ]; then
        if act "$CLI" system settings advanced set -o /User/execInstalledOnly -i "$exec_cur"; then
            made=0
            note "/User/execInstalledOnly is $exec_cur again: nothing is left changed"
        else
            err "could not put /User/execInstalledOnly back to $exec_cur: run sh $here/cleanup.sh"
            finish 2
        fi
    fi
    finish 1
}
exec_set=0
if [ "$exec_cur" = 1 ]; then
    if [ "$allow_exec" = 1 ]; then
        record exec_prev 1
        if act "$CLI" system settings advanced set -o /User/execInstalledOnly -i 0; then
            made=1 exec_set=1
            note "execInstalledOnly is now 0 (cleanup.sh sets it back to 1)"
        else
            say "the host refused to change /User/execInstalledOnly."
            say "  If the encryption settings above could not be read, the setting may"
            say "  still be enforced by the TPM: then copied binaries cannot run here."
            finish 1
        fi
    else
        note "copied binaries will be refused: rerun with --allow-exec to allow them"
    fi
elif [ "$allow_exec" = 1 ] && [ "$LK_RT" = unknown ]; then
    err "--allow-exec: cannot read /User/execInstalledOnly ($LK_RT_WHY): nothing changed for it (rerun when esxcli answers)"
    finish 2
elif [ "$allow_exec" = 1 ]; then
    note "nothing to change for --allow-exec"
fi
[ "$allow_exec" = 1 ] && prove_exec

# ---- 2. the firewall
say ""
say "== firewall (esxperf port $port)"
fw_read
fw_cur=$FW
note "firewall enabled: ${fw_cur:-unknown ($FW_WHY)}"
# unreadable: not changed, since cleanup could not know what to put back
cannot_read() { # WHAT WHY
    err "cannot read $1 ($2): nothing more is changed (rerun when esxcli answers$([ "$made" = 1 ] && echo "; sh $here/cleanup.sh undoes what was done"))"
    finish 2
}

if [ "$disable_fw" = 1 ]; then
    [ -n "$fw_cur" ] || cannot_read "whether the firewall is enabled" "$FW_WHY"
    if [ "$fw_cur" = false ]; then
        note "already disabled: nothing to change"
    elif record fw_enabled_prev true && act "$CLI" network firewall set --enabled false; then
        made=1
        note "the WHOLE firewall is off: every port is open (cleanup.sh turns it back on)"
    else
        err "esxcli network firewall set --enabled false failed"; finish 2
    fi
fi

write_ruleset() { # the custom ruleset: esxperf's port, TCP and UDP, both ways
    {
        printf '<!-- esxdiag: temporary ruleset written by prepare.sh, removed by cleanup.sh -->\n'
        printf '<ConfigRoot>\n  <service id="0%s">\n    <id>%s</id>\n' "$port_lo" "$rsid"
        n=0
        for proto in tcp udp; do
            for dir in inbound outbound; do
                printf '    <rule id="%04d">\n' "$n"
                printf '      <direction>%s</direction>\n      <protocol>%s</protocol>\n' "$dir" "$proto"
                if [ "$port_lo" = "$port_hi" ]; then
                    printf '      <porttype>dst</porttype>\n      <port>%s</port>\n    </rule>\n' "$port"
                else
                    printf '      <porttype>dst</porttype>\n      <port>\n        <begin>%s</begin>\n        <end>%s</end>\n      </port>\n    </rule>\n' "$port_lo" "$port_hi"
                fi
                n=$((n + 1))
            done
        done
        printf '    <enabled>false</enabled>\n    <required>false</required>\n  </service>\n</ConfigRoot>\n'
    } > "$1"
}

if [ -n "$ips" ]; then
    say "   mechanism: a custom ruleset '$rsid' in $fwdir + esxcli network firewall refresh."
    say "   UNVERIFIED on ESXi 8 (reported to refuse custom rulesets); it does not survive"
    say "   a reboot. No predefined ruleset for port $port is known, so there is no other"
    say "   narrow way; the fallback is --disable-firewall."
    rs_read
    [ -z "$RS_WHY" ] || cannot_read "the firewall's rulesets" "$RS_WHY"
    rs_prev=$RS rs_new=0
    record ruleset "$rsid"
    if [ -z "$rs_prev" ]; then
        rs_new=1
        xml="$fwdir/$rsid.xml"
        if [ -e "$xml" ]; then
            err "$xml exists but ruleset $rsid is not loaded: remove the file or look at it first"
            finish 2
        fi
        if [ "$DRY" = 1 ]; then
            say "(dry run, not run) write $xml (ruleset $rsid: tcp+udp port $port, inbound+outbound)"
        else
            say "+ write $xml (ruleset $rsid: tcp+udp port $port, inbound+outbound)"
            record rs_file "$xml"
            write_ruleset "$xml" || { err "cannot write $xml"; rm -f "$xml"; finish 2; }
            made=1
        fi
        act "$CLI" network firewall refresh || { err "esxcli network firewall refresh failed"; finish 2; }
        if [ "$DRY" = 0 ]; then
            rs_read
            [ -z "$RS_WHY" ] || cannot_read "whether ruleset $rsid loaded" "$RS_WHY"
            rs_prev=$RS
            if [ -z "$rs_prev" ]; then
                say ""
                say "THE HOST DID NOT LOAD THE CUSTOM RULESET '$rsid'."
                say "  ESXi 8 may refuse custom rulesets (UNVERIFIED). Nothing is open."
                say "  Undo with cleanup.sh, then use --disable-firewall (opens"
                say "  everything until cleanup): the host firewall filters an esxperf"
                say "  client's outbound traffic too."
                finish 1
            fi
            rules_read
            [ -z "$RULES_WHY" ] || cannot_read "the rules of ruleset $rsid" "$RULES_WHY"
            if [ "$RULES_READ" = 0 ]; then
                note "the host's rule list shows no rules for $rsid: both directions are in the file, not confirmed"
            elif [ -n "$RULES_MISSING" ]; then
                say ""
                say "THE HOST LOADED RULESET '$rsid' WITHOUT PORT $port FOR: $RULES_MISSING."
                say "  Undo with cleanup.sh, then use --disable-firewall."
                finish 1
            fi
        else
            rs_prev=false
        fi
        rs_allall_prev=true
    else
        # a ruleset of this name that prepare.sh did not write this time: it must open
        # the port both ways (an esxperf server here needs inbound, a client outbound);
        # prepare.sh does not rewrite a ruleset it did not write
        rules_read
        [ -z "$RULES_WHY" ] || cannot_read "the rules of ruleset $rsid" "$RULES_WHY"
        if [ "$RULES_READ" = 1 ] && [ -n "$RULES_MISSING" ]; then
            say ""
            say "THE HOST'S RULESET '$rsid' DOES NOT OPEN PORT $port FOR: $RULES_MISSING."
            say "  (esxcli network firewall ruleset rule list --ruleset-id $rsid shows its rules.)"
            say "  An esxperf server here needs the port inbound, an esxperf client outbound."
            say "  prepare.sh changes nothing in a ruleset it did not write: remove that"
            say "  ruleset (its file in $fwdir, then esxcli network firewall refresh) and"
            say "  run prepare again, or use --disable-firewall."
            finish 1
        fi
        ips_read
        [ -z "$IPS_WHY" ] || cannot_read "the allowed IPs of ruleset $rsid" "$IPS_WHY"
        if [ "$IPS" = All ]; then rs_allall_prev=true; else rs_allall_prev=false; fi
    fi
    if [ "$rs_prev" != true ]; then
        record rs_enabled_prev "$rs_prev"
        act "$CLI" network firewall ruleset set --ruleset-id "$rsid" --enabled true ||
            { err "enabling ruleset $rsid failed"; finish 2; }
        made=1
    fi
    if [ "$rs_allall_prev" = true ]; then
        record rs_allowed_all_prev true
        act "$CLI" network firewall ruleset set --ruleset-id "$rsid" --allowed-all false ||
            { err "setting --allowed-all false on $rsid failed"; finish 2; }
        made=1
    fi
    IPS=''   # a ruleset a dry run did not load lists none
    if [ "$DRY" = 0 ] || [ "$rs_new" = 0 ]; then
        ips_read
        [ -z "$IPS_WHY" ] || cannot_read "the allowed IPs of ruleset $rsid" "$IPS_WHY"
    fi
    listed=$(canon_lines "$IPS")
    for ip in $ips; do
        if [ -n "$(host_form "$listed" "$ip")" ]; then
            note "$ip is already allowed: left as it is"
            continue
        fi
        record rs_ip_added "$ip"
        act "$CLI" network firewall ruleset allowedip add --ruleset-id "$rsid" --ip-address "$ip" ||
            { err "adding $ip to ruleset $rsid failed"; finish 2; }
        made=1
    done
    [ "$fw_cur" = false ] && note "the firewall is disabled anyway: the ruleset takes effect when it is enabled"
fi
if [ -z "$ips" ] && [ "$disable_fw" = 0 ] && [ "$fw_cur" != false ]; then
    note "nothing opened: an esxperf server here needs the port open inbound, an esxperf client"
    note "outbound (the host firewall filters both ways): --allow-ip CIDR opens both (or --disable-firewall)"
fi

say ""
if [ "$DRY" = 1 ]; then
    say "dry run: nothing was changed"
elif [ "$made" = 1 ]; then
    say "changes recorded in $state"
    say "undo them (and remove the kit) with: sh $here/cleanup.sh"
else
    say "nothing was changed"
fi
finish 0
