#!/bin/sh
# shellcheck source-path=SCRIPTDIR
# prepare.sh: make an ESXi host ready to run the esxdiag binaries of this kit.
# Shows the settings that decide it; changes one only when asked; prints every
# command; records each previous value in <kit>/esxdiag.state for cleanup.sh.
# POSIX sh for the ESXi shell (busybox ash).

usage() {
    cat <<'TXT'
usage: sh esxi/prepare.sh [--allow-exec] [--allow-ip CIDR]... [--allow-any]
                          [--port N[-M]] [--disable-firewall] [--dry-run] [-h|--help]

Shows whether this ESXi host lets the copied esxdiag binaries run and lets
esxperf traffic through, and changes a setting only when asked. Every command
is printed before it runs. Each previous value goes into <kit>/esxdiag.state;
sh esxi/cleanup.sh puts them all back.

  --allow-exec        set /User/execInstalledOnly to 0 (ESXi 8 sets it to 1,
                      which refuses any binary not installed from a VIB)
  --allow-ip CIDR     open the esxperf port, TCP and UDP, inbound and outbound,
                      for CIDR only (repeat for more, at most 64; an IPv4 or
                      IPv6 address, or one with /LEN). Uses a custom firewall
                      ruleset "esxdiag" (a file in /etc/vmware/firewall, then
                      esxcli network firewall refresh). UNVERIFIED on ESXi 8,
                      which may refuse custom rulesets: prepare checks that the
                      ruleset loaded and says so if not.
  --allow-any         let --allow-ip take a /0 (0.0.0.0/0, ::/0: any address),
                      refused without it
  --port N[-M]        the port, or a range of at most 64, for --allow-ip
                      (default 5201, as iperf3)
  --disable-firewall  turn the whole host firewall off instead (opens every
                      port to everyone: use only if the ruleset is refused)
  --dry-run           print the commands that would change something, run
                      none (read-only queries still run)
  -h, --help          this text

Examples:
  sh esxi/prepare.sh                    show the settings, change nothing
  sh esxi/prepare.sh --allow-exec --allow-ip 10.20.0.0/24 --dry-run
  sh esxi/prepare.sh --allow-exec --allow-ip 10.20.0.0/24
  sh esxi/cleanup.sh                    undo it and remove the kit

Interrupted (^C, a lost SSH session, kill -9): each previous value is in the
state file before the change is made, so sh esxi/cleanup.sh undoes whatever
was done. One prepare.sh or cleanup.sh at a time runs on a kit; another one
says who holds the lock and stops.

Exit codes:
  0  done (or nothing asked)
  1  this host cannot run copied binaries (TPM-enforced execInstalledOnly),
     or it refused a change (see the message)
  2  usage error, the kit is for another CPU architecture than this
     host's (uname -m), a command failed, another prepare.sh or cleanup.sh
     holds the kit, or an earlier prepare was not undone
TXT
}

PROG=prepare.sh
here=$(cd "$(dirname "$0")" && pwd -P) || exit 2
# shellcheck source=hostcli.sh
. "$here/hostcli.sh" || exit 2

allow_exec=0 disable_fw=0 port=5201 ips=''
allow_any=0 nips=0 everything='' IPS_MAX=64
# add_ip CIDR: checked, lower-cased (IPv6), counted, each one once
add_ip() {
    if ! valid_cidr "$1"; then   # shown on one line, control characters as ?
        err "--allow-ip '$(printf '%s' "$1" | tr -c ' -~' '?')': not an IPv4 or IPv6 address or CIDR"
        exit 2
    fi
    ip=$(printf '%s' "$1" | tr 'A-F' 'a-f')
    case " $ips " in *" $ip "*) return 0 ;; esac
    nips=$((nips + 1))
    [ "$nips" -le "$IPS_MAX" ] ||
        { err "more than $IPS_MAX --allow-ip values: give a wider CIDR (e.g. 198.18.0.0/15) instead"; exit 2; }
    cidr_is_everything "$ip" && everything=$ip
    ips="$ips $ip"
}
while [ $# -gt 0 ]; do
    case $1 in
        --allow-exec) allow_exec=1 ;;
        --disable-firewall) disable_fw=1 ;;
        --allow-any) allow_any=1 ;;
        --dry-run) DRY=1 ;;
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
# [ -gt ] fail (not false) on numbers beyond 64 bits, which would let them through
check_port() { # $1 = one port number; exits 2 unless 1..65535
    case $1 in
        '' | *[!0-9]*) err "--port $port: not a number or a range N-M"; exit 2 ;;
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

# ---- 0. is this kit built for this host's CPU? The x86_64 and aarch64 (ESXi-Arm) kits
# look alike; the ELF header of each program in bin/ says which it is: bytes 0-3 the
# magic, 18-19 e_machine (62 x86_64, 183 aarch64). Read with od, as busybox has it.
# Refused before anything is queried or changed. Files that are not ELF are not judged.
kit_arch_check() {
    host_arch=$(uname -m)
    [ "$host_arch" = arm64 ] && host_arch=aarch64
    command -v od >/dev/null 2>&1 || { say "note: no od here: the kit's architecture is not checked"; return 0; }
    for b in "$kit"/bin/*; do
        [ -f "$b" ] || continue
        # shellcheck disable=SC2046  # the 20 numbers od prints, one word each
        set -- $(od -An -tu1 -N20 "$b" 2>/dev/null)
        if [ $# -ne 20 ] || [ "$1 $2 $3 $4" != "127 69 76 70" ]; then continue; fi
        case "${19} ${20}" in
            '62 0') bin_arch=x86_64 ;;
            '183 0') bin_arch=aarch64 ;;
            *) bin_arch="ELF machine $((${19} + 256 * ${20}))" ;;
        esac
        [ "$bin_arch" = "$host_arch" ] && continue
        err "this kit is built for $bin_arch (bin/${b##*/}), this host is $host_arch: unpack $(basename "$kit")-$host_arch.tar.gz instead (nothing was changed)"
        exit 2
    done
}
kit_arch_check

cli_find
say "esxdiag prepare: kit $kit"
[ "$DRY" = 1 ] && say "dry run: commands that change the host are printed, not run"
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

# ---- 1. may copied binaries run here?
say ""
say "== executables (execInstalledOnly)"
query system settings encryption get
tpm=no
if [ "$QRC" = 0 ]; then
    [ "$(field 'Require Executables Only From Installed VIBs')" = true ] && tpm=yes
    note "enforced by the TPM: $tpm"
else
    note "no encryption settings on this host (older ESXi): no TPM enforcement"
fi
query system settings advanced list -o /User/execInstalledOnly
exec_cur=
if [ "$QRC" = 0 ]; then
    exec_cur=$(field 'Int Value')
    note "/User/execInstalledOnly = $exec_cur (1: only binaries installed from VIBs may run)"
else
    note "/User/execInstalledOnly does not exist here (before ESXi 8): copied binaries may run"
fi

tpm_message() {
    say ""
    say "THIS HOST CANNOT RUN COPIED BINARIES."
    say "  execInstalledOnly is enforced by the TPM (esxcli system settings encryption"
    say "  get: Require Executables Only From Installed VIBs: true). No setting that"
    say "  prepare.sh may change lifts it, so the esxdiag tools cannot run on this host."
    say "  Run them from another machine or VM, or ask who set this host's"
    say "  encryption policy."
}
if [ "$tpm" = yes ] && [ "$exec_cur" != 0 ]; then
    tpm_message
    finish 1
fi
if [ "$exec_cur" = 1 ]; then
    if [ "$allow_exec" = 1 ]; then
        record exec_prev 1
        if act "$CLI" system settings advanced set -o /User/execInstalledOnly -i 0; then
            made=1
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
elif [ "$allow_exec" = 1 ]; then
    note "nothing to change for --allow-exec"
fi

# ---- 2. the firewall
say ""
say "== firewall (esxperf port $port)"
query network firewall get
fw_cur=$(field Enabled)
note "firewall enabled: ${fw_cur:-unknown}"

if [ "$disable_fw" = 1 ]; then
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
    query network firewall ruleset list
    rs_prev=$(row "$rsid")
    record ruleset "$rsid"
    if [ -z "$rs_prev" ]; then
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
            query network firewall ruleset list
            rs_prev=$(row "$rsid")
            if [ -z "$rs_prev" ]; then
                say ""
                say "THE HOST DID NOT LOAD THE CUSTOM RULESET '$rsid'."
                say "  ESXi 8 may refuse custom rulesets (UNVERIFIED). Nothing is open."
                say "  Undo with cleanup.sh, then either use --disable-firewall (opens"
                say "  everything until cleanup) or run esxperf only as a client."
                finish 1
            fi
        else
            rs_prev=false
        fi
        rs_allall_prev=true
    else
        query network firewall ruleset allowedip list --ruleset-id "$rsid"
        if [ "$(allowed_ips "$rsid")" = All ]; then rs_allall_prev=true; else rs_allall_prev=false; fi
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
    query network firewall ruleset allowedip list --ruleset-id "$rsid"
    have=$(allowed_ips "$rsid")
    for ip in $ips; do
        if in_lines "$have" "$ip"; then
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
    note "nothing opened: an esxperf server here needs --allow-ip CIDR (or --disable-firewall)"
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
