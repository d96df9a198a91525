#!/bin/sh
# shellcheck source-path=SCRIPTDIR
# cleanup.sh: undo what prepare.sh changed on this ESXi host (from the state file
# it wrote in the kit folder), then remove the unpacked kit.
# POSIX sh for the ESXi shell (busybox ash).

usage() {
    cat <<'TXT'
usage: sh esxi/cleanup.sh [--keep-kit] [--dry-run] [-h|--help]

Puts back every setting that prepare.sh changed, exactly as recorded in
<kit>/esxdiag.state (execInstalledOnly, the firewall, the esxdiag ruleset and
the IPs it allowed), removes what an esxmtu --each-uplink run killed midway left
(portgroups named esxmtu-scratch-* and the vmks on them), then deletes the
unpacked kit folder. Every command is
printed before it runs. The kit is deleted only if it still looks like an
unpacked esxdiag kit: a folder named esxdiag-*, holding only the files listed
in its SHA256SUMS (plus SHA256SUMS and the state file).

  --keep-kit   restore the settings, keep the kit folder (the state file goes)
  --dry-run    print the commands that would change something, run none
  -h, --help   this text

Safe to run again, and after an interrupted prepare.sh (^C, kill -9, a lost
session): the state file names every change prepare.sh may have made, and
each setting is changed only where it still differs from the recorded value.
A state file that is empty, cut short, edited, or written for another kit or
ruleset is refused before anything is changed.

Examples:
  sh esxi/cleanup.sh --dry-run
  sh esxi/cleanup.sh
  sh esxi/cleanup.sh --keep-kit

Exit codes:
  0  restored (or nothing to restore) and the kit removed (or kept, if asked)
  1  settings restored (the state file removed), but the folder does not look
     like the kit: not deleted
  2  usage error, a bad state file, a restore command failed or the
     ruleset could not be read (the state file is kept: fix the cause and
     run cleanup.sh again), or prepare.sh is still running on this kit

Every esxcli call is stopped after 30 s (ESXDIAG_ESXCLI_SECS=N: another
bound, 1-3600); after one such call esxcli is asked nothing more.
TXT
}

PROG=cleanup.sh
here=$(cd "$(dirname "$0")" && pwd -P) || exit 2
# shellcheck source=hostcli.sh
. "$here/hostcli.sh" || exit 2

keep_kit=0
while [ $# -gt 0 ]; do
    case $1 in
        --keep-kit) keep_kit=1 ;;
        --dry-run) DRY=1 ;;
        -h | --help) usage; exit 0 ;;
        *) err "unknown argument '$1' (see --help)"; exit 2 ;;
    esac
    shift
done

say "esxdiag cleanup: kit $kit"
[ "$DRY" = 1 ] && say "dry run: commands that change the host are printed, not run"

# one prepare or cleanup at a time; the lock of an interrupted run is taken over
[ "$DRY" = 1 ] || lock_take 1
if [ -e "$state.new" ]; then   # a state write cut short: never acted on (write-ahead)
    note "removing $state.new, a state write that an interrupted prepare.sh did not finish"
    [ "$DRY" = 1 ] || rm -f "$state.new"
fi

# ---- read the state file (never sourced: every value is checked)
exec_prev='' fw_prev='' rs_file='' rs_en_prev='' rs_aa_prev='' rs_ips='' st_kit='' st_rs=''
bad() { err "$state line '$1': $2 (not restoring anything; fix or remove the file)"; exit 2; }
bool() { case $2 in true | false) ;; *) bad "$1" "expected true or false" ;; esac; }
if [ -f "$state" ]; then
    why=$(state_check)
    [ -z "$why" ] || { err "$state cannot be trusted: $why (not restoring anything: compare it with what prepare.sh printed, then fix the host by hand and remove the file)"; exit 2; }
    while IFS= read -r line || [ -n "$line" ]; do
        case $line in '' | '#'*) continue ;; esac
        key=${line%%=*} val=${line#*=}
        [ "$key" != "$line" ] || bad "$line" "not key=value"
        case $key in
            kit) [ "$val" = "$kit" ] || bad "$line" "written for another kit, not $kit"
                 st_kit=$val ;;
            ruleset) [ "$val" = "$rsid" ] || bad "$line" "not the $rsid ruleset that prepare.sh makes"
                     st_rs=$val ;;
            exec_prev) case $val in 0 | 1) exec_prev=$val ;; *) bad "$line" "expected 0 or 1" ;; esac ;;
            fw_enabled_prev) bool "$line" "$val"; fw_prev=$val ;;
            rs_enabled_prev) bool "$line" "$val"; rs_en_prev=$val ;;
            rs_allowed_all_prev) bool "$line" "$val"; rs_aa_prev=$val ;;
            rs_file) [ "$val" = "$fwdir/$rsid.xml" ] || bad "$line" "not $fwdir/$rsid.xml"
                     rs_file=$val ;;
            rs_ip_added) valid_cidr "$val" || bad "$line" "not an IP address or CIDR"
                         rs_ips="$rs_ips $val" ;;
            sum) ;;   # checked above
            *) bad "$line" "unknown key" ;;
        esac
    done < "$state"
    [ -n "$st_kit" ] || bad "(none)" "no kit= line"
    [ -z "$rs_ips$rs_en_prev$rs_aa_prev$rs_file" ] || [ -n "$st_rs" ] ||
        bad "(none)" "ruleset changes without a ruleset= line"
    say "state: $state"
else
    say "no state file ($state): prepare.sh changed nothing, or it was undone already"
fi

# ---- restore, newest change first; keep going on failure, count failures
failed=0
fail() { err "$1"; failed=$((failed + 1)); }
# esxmtu --each-uplink's scratch objects, whatever the state file says: a run killed
# with -9 (or a reboot) in the middle can leave them; vmks first, then their portgroups
if cli_find quiet; then
    scratch_read
    if [ -n "$SCR_WHY" ]; then
        fail "cannot list esxmtu's scratch objects ($SCR_WHY): none removed"
    elif [ -n "$SCR_VMKS$SCR_PGS" ]; then
        say ""
        say "== esxmtu --each-uplink scratch objects ($SCR_PREFIX*)"
        for v in $SCR_VMKS; do
            act "$CLI" network ip interface remove -i "$v" || fail "removing the scratch $v failed"
        done
        # shellcheck disable=SC2086  # PORTGROUP VSWITCH pairs, one word each
        set -- $SCR_PGS
        while [ $# -ge 2 ]; do
            act "$CLI" network vswitch standard portgroup remove -p "$1" -v "$2" ||
                fail "removing the scratch portgroup $1 failed"
            shift 2
        done
    fi
fi
if [ -f "$state" ]; then
    cli_find must
    if [ -n "$rs_ips$rs_en_prev$rs_aa_prev$rs_file" ]; then
        say ""
        say "== firewall ruleset $rsid"
        # a list that cannot be read restores nothing in the ruleset: what is there is
        # unknown, and "not loaded" is never assumed (the state file is kept)
        rs_read
        rs_loaded=$RS
        if [ -n "$RS_WHY" ]; then
            fail "cannot read the firewall's rulesets ($RS_WHY): ruleset $rsid not restored"
            rs_file=''
        elif [ -z "$rs_loaded" ]; then
            note "ruleset $rsid is not loaded (any more): nothing to restore in it"
        elif ips_read; [ -n "$IPS_WHY" ]; then
            fail "cannot read the allowed IPs of ruleset $rsid ($IPS_WHY): ruleset $rsid not restored"
            rs_file=''
        else
            rs_en_cur=$rs_loaded
            listed=$IPS
            if [ "$listed" = All ]; then rs_aa_cur=true; else rs_aa_cur=false; fi
            # compared in canonical form, removed as the host spells it
            listed=$(canon_lines "$listed")
            for ip in $rs_ips; do
                hf=$(host_form "$listed" "$(cidr_canon "$ip")")
                if [ -n "$hf" ]; then
                    act "$CLI" network firewall ruleset allowedip remove --ruleset-id "$rsid" --ip-address "$hf" ||
                        fail "removing $hf from ruleset $rsid failed"
                else
                    note "$ip is no longer in the ruleset"
                fi
            done
            if [ -n "$rs_aa_prev" ] && [ "$rs_aa_cur" = "$rs_aa_prev" ]; then
                note "allowed-all already $rs_aa_prev"
            elif [ -n "$rs_aa_prev" ]; then
                act "$CLI" network firewall ruleset set --ruleset-id "$rsid" --allowed-all "$rs_aa_prev" ||
                    fail "setting --allowed-all $rs_aa_prev on $rsid failed"
            fi
            if [ -n "$rs_en_prev" ] && [ "$rs_en_cur" = "$rs_en_prev" ]; then
                note "enabled already $rs_en_prev"
            elif [ -n "$rs_en_prev" ]; then
                act "$CLI" network firewall ruleset set --ruleset-id "$rsid" --enabled "$rs_en_prev" ||
                    fail "setting --enabled $rs_en_prev on $rsid failed"
            fi
        fi
        # the file prepare.sh wrote (if it got that far), and a refresh to unload the
        # ruleset (also when an interrupted cleanup removed the file but did not refresh)
        if [ -n "$rs_file" ] && { [ -e "$rs_file" ] || [ -n "$rs_loaded" ]; }; then
            if [ -e "$rs_file" ]; then act rm -f "$rs_file" || fail "cannot remove $rs_file"; fi
            act "$CLI" network firewall refresh || fail "esxcli network firewall refresh failed"
        fi
    fi
    if [ -n "$fw_prev" ]; then
        say ""
        say "== firewall"
        fw_read
        [ -z "$FW_WHY" ] || note "cannot read the firewall ($FW_WHY): setting it back all the same"
        if [ "$FW" = "$fw_prev" ]; then
            note "already enabled=$fw_prev"
        else
            act "$CLI" network firewall set --enabled "$fw_prev" ||
                fail "esxcli network firewall set --enabled $fw_prev failed"
        fi
    fi
    if [ -n "$exec_prev" ]; then
        say ""
        say "== executables (execInstalledOnly)"
        query system settings advanced list -o /User/execInstalledOnly
        cur=$(field 'Int Value')
        case $cur in 0 | 1) ;; *) note "cannot read /User/execInstalledOnly ($(q_why)): setting it back all the same" ;; esac
        if [ "$cur" = "$exec_prev" ]; then
            note "already $exec_prev"
        else
            act "$CLI" system settings advanced set -o /User/execInstalledOnly -i "$exec_prev" ||
                fail "setting /User/execInstalledOnly back to $exec_prev failed"
        fi
    fi
fi
say ""
if [ "$failed" -gt 0 ]; then
    err "$failed restore command(s) failed: state file and kit kept (fix the cause, run cleanup.sh again)"
    exit 2
fi
[ -f "$state" ] && say "settings restored"

# ---- remove the kit, only if it looks like one
# entries DIR PREFIX: every entry under DIR (hidden ones too), one PREFIXname a line,
# folders before what they hold (a glob walk: find is not known on ESXi)
entries() {
    for e in "$1"/* "$1"/.[!.]* "$1"/..?*; do
        [ -e "$e" ] || [ -L "$e" ] || continue
        printf '%s\n' "$2${e##*/}"
        if [ -d "$e" ] && [ ! -L "$e" ]; then entries "$e" "$2${e##*/}/"; fi
    done
}
# why_not_kit: prints the reason the folder is not an unpacked kit, or nothing
why_not_kit() {
    case $(basename "$kit") in esxdiag-*) ;; *) echo "its name is not esxdiag-<version>"; return ;; esac
    for f in SHA256SUMS esxi/prepare.sh esxi/cleanup.sh; do
        [ -f "$kit/$f" ] || { echo "it has no $f"; return; }
    done
    [ -d "$kit/bin" ] || { echo "it has no bin/"; return; }
    # every entry must be a kit folder, a file listed in SHA256SUMS, or ours
    listed=$(sed -n 's/^[0-9a-f]\{64\}  \(.*\)$/\1/p' "$kit/SHA256SUMS")
    entries "$kit" '' | while IFS= read -r e; do
        case $e in
            bin | esxi | docs | licenses) [ -d "$kit/$e" ] && [ ! -L "$kit/$e" ] && continue ;;
            SHA256SUMS | esxdiag.state | esxdiag.state.new) [ -f "$kit/$e" ] && [ ! -L "$kit/$e" ] && continue ;;
            esxdiag.lock | esxdiag.lock/*) [ ! -L "$kit/$e" ] && continue ;;   # ours, held right now
        esac
        if [ -f "$kit/$e" ] && [ ! -L "$kit/$e" ] && in_lines "$listed" "$e"; then
            continue
        fi
        echo "it holds '$e', which is not part of the kit"
        break
    done
}
# the settings are back: the state file has done its job, also when the folder is
# not removed (a later prepare.sh would otherwise refuse, seeing it)
why=''
[ "$keep_kit" = 1 ] || why=$(why_not_kit)
state_gone=0
if [ "$keep_kit" = 1 ] || [ -n "$why" ]; then
    if [ -f "$state" ]; then
        act rm -f "$state" || { err "cannot remove $state"; exit 2; }
        state_gone=1
    fi
fi
if [ "$keep_kit" = 1 ]; then
    say "kit kept: $kit"
    exit 0
fi
if [ -n "$why" ]; then
    [ "$state_gone" = 1 ] && [ "$DRY" != 1 ] &&
        say "state file removed: the settings are back and prepare.sh can run again; the kit folder stays"
    err "not removing $kit: $why. Remove it yourself if you are sure."
    exit 1
fi
act rm -rf -- "$kit" || { err "cannot remove $kit"; exit 2; }
[ "$DRY" = 1 ] || say "kit removed: $kit"
case $(pwd -P 2>/dev/null) in
    "$kit" | "$kit"/*) say "(your shell was inside it: cd / )" ;;
esac
exit 0
