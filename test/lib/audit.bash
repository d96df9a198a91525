# Syscall audit for bats tests: every tool must stay within build/syscalls.allow plus
# build/syscalls.optional, and must still work when each optional syscall it used
# fails with ENOSYS (as on an older ESXi userworld).
#
#   audit_syscalls CMD ARGS...   run under strace -f; fail on any syscall outside the
#                                lists; leaves the optional ones it used in $AUDIT_OPTIONAL
#   audit_enosys CMD ARGS...     run again once per optional syscall used, injecting
#                                ENOSYS into it; the command must exit as it did before
#                                (audits CMD first unless the last audit_syscalls was CMD);
#                                and, where every socket() it made carried SOCK_CLOEXEC or
#                                SOCK_NONBLOCK, once with each of those failing EINVAL;
#                                each run bounded by AUDIT_TIMEOUT seconds (60)
#
# AUDIT_ARCH=aarch64 (any ARCH but this machine's): CMD is that architecture's binary;
# audit_syscalls runs it under qemu-ARCH-static -strace (whose log names the guest's
# own syscalls) and checks the lines of build/syscalls.allow that hold for ARCH.
# AUDIT_NOVDSO=1: this machine's binary under qemu-user too, which (7.2) gives the
# guest no vDSO: clock_gettime and gettimeofday are then syscalls, as on ESXi
# (no vDSO there); under strace a static musl binary reads the clock in the vDSO.
#
#   audit_as_nobody [PREFIX...] -- CMD ARGS...   both audits of CMD as user nobody
#                                (PREFIX: what runs before, e.g. ip netns exec NS),
#                                from a readable copy of this file, the syscall lists
#                                and CMD: a clone in a private folder (mode 700, as
#                                mktemp -d and /root make) is closed to nobody
ESXDIAG_ROOT=${ESXDIAG_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}

# the files an audit reads, copied with CMD into a new folder anyone may enter and
# read (under /tmp); prints the folder; the caller removes it
_audit_readable_copy() { # $1 = CMD
    local dir; dir=$(mktemp -d /tmp/esxdiag-audit.XXXXXX) || return 1
    mkdir -p "$dir/test/lib" "$dir/build" "$dir/bin"
    cp "$ESXDIAG_ROOT/test/lib/audit.bash" "$dir/test/lib/"
    cp "$ESXDIAG_ROOT/build/syscalls.allow" "$ESXDIAG_ROOT/build/syscalls.optional" "$dir/build/"
    cp "$1" "$dir/bin/"
    chmod -R a+rX "$dir"
    echo "$dir"
}

audit_as_nobody() {
    local prefix=() dir rc=0
    while [ $# -gt 0 ] && [ "$1" != -- ]; do prefix+=("$1"); shift; done
    shift
    dir=$(_audit_readable_copy "$1") || return 1
    shift
    "${prefix[@]}" setpriv --reuid=nobody --regid=nogroup --clear-groups bash -c \
        'ESXDIAG_ROOT=$1; shift; source "$ESXDIAG_ROOT/test/lib/audit.bash";
         audit_syscalls "$@" && audit_enosys "$@"' _ "$dir" "$dir/bin/$(basename "$1")" "$@" || rc=$?
    rm -rf "$dir"
    return "$rc"
}

_audit_arch() { echo "${AUDIT_ARCH:-$(uname -m)}"; }

# the names in FILE... that hold for ARCH: lines "NAME [ARCH...] [# reason]"; a NAME
# alone holds everywhere, one with ARCHs only there; "#" starts a comment
_audit_parse() { # $1 = arch, the rest = files
    local a=$1; shift
    sed 's/#.*//' "$@" | awk -v a="$a" 'NF == 1 { print $1; next }
        NF > 1 { for (i = 2; i <= NF; i++) if ($i == a) print $1 }' | sort -u
}

_audit_lists() {
    _audit_parse "$(_audit_arch)" "$ESXDIAG_ROOT/build/syscalls.allow" "$ESXDIAG_ROOT/build/syscalls.optional"
}

_audit_optional() {
    _audit_parse "$(_audit_arch)" "$ESXDIAG_ROOT/build/syscalls.optional"
}

# the syscall names in a trace: strace's lines, or qemu's (threads interleave mid-line
# there, so every "PID name(" counts; a syscall qemu does not know is "Unknown syscall N")
_audit_names() { # $1 = trace file, $2 = strace|qemu
    if [ "$2" = qemu ]; then
        grep -oE '[0-9]+ [a-z][a-z0-9_]*\(' "$1" | sed -E 's/^[0-9]+ //; s/\($//'
        grep -oE 'Unknown syscall [0-9]+' "$1" | tr ' ' _
    else
        sed -E 's/^[0-9]+ +//; s/^<\.\.\. ([a-z0-9_]+) resumed>.*/\1/; s/^([a-z0-9_]+)\(.*/\1/; /^\+\+\+|^---|^$/d' "$1" | grep -E '^[a-z0-9_]+$'
    fi | sort -u
}

audit_syscalls() {
    local trace; trace=$(mktemp)
    local rc=0 arch kind=strace
    arch=$(_audit_arch)
    if [ "$arch" != "$(uname -m)" ] || [ "${AUDIT_NOVDSO:-0}" = 1 ]; then
        kind=qemu
        "qemu-$arch-static" -strace -D "$trace" "$@" >/dev/null 2>&1 || rc=$?
    else
        strace -f -qq -o "$trace" "$@" >/dev/null 2>&1 || rc=$?
    fi
    AUDIT_RC=$rc
    AUDIT_CMD="$arch $*"
    if [ ! -s "$trace" ]; then
        rm -f "$trace"
        echo "$kind produced no trace (did it start?): $*" >&2
        return 1
    fi
    local used; used=$(_audit_names "$trace" "$kind")
    # socket()'s type flags: only where every socket() carries one can "every other
    # socket() fails EINVAL" hit each flagged call once and its flagless retry never
    local nsock nflag
    nsock=$(grep -cE '^[0-9]+ +socket\(' "$trace" || true)
    nflag=$(grep -cE '^[0-9]+ +socket\([^,]*, [^,]*SOCK_(CLOEXEC|NONBLOCK)' "$trace" || true)
    AUDIT_SOCKFLAGS=0
    [ "$kind" = strace ] && [ "$nsock" -gt 0 ] && [ "$nsock" = "$nflag" ] && AUDIT_SOCKFLAGS=1
    rm -f "$trace"
    local bad; bad=$(comm -23 <(printf '%s\n' "$used") <(_audit_lists))
    AUDIT_OPTIONAL=$(comm -12 <(printf '%s\n' "$used") <(_audit_optional) | tr '\n' ' ')
    if [ -n "$bad" ]; then
        echo "syscalls outside build/syscalls.allow and .optional ($arch): $(echo $bad)" >&2
        echo "command: $*" >&2
        return 1
    fi
    return 0
}

audit_enosys() {
    # the optional syscalls and exit code of this very command: reuse the audit just
    # made of it, else make one (a list from another command would test the wrong thing)
    if [ "$(_audit_arch)" != "$(uname -m)" ]; then
        # qemu-user turns some guest calls into others (recvmmsg into a recvmsg loop)
        # and makes the same calls for itself (getrandom): an injection would hit qemu
        echo "audit_enosys: cannot inject into $(_audit_arch) syscalls under qemu-user: $*" >&2
        return 1
    fi
    [ "${AUDIT_CMD:-}" = "$(_audit_arch) $*" ] || audit_syscalls "$@" || return 1
    local want=$AUDIT_RC sc rc
    for sc in $AUDIT_OPTIONAL; do
        rc=0
        timeout "${AUDIT_TIMEOUT:-60}" strace -f -qq -o /dev/null -e trace="$sc" -e inject="$sc":error=ENOSYS "$@" >/dev/null 2>&1 || rc=$?
        if [ "$rc" != "$want" ]; then
            echo "with $sc failing ENOSYS the command exited $rc instead of $want: $*" >&2
            return 1
        fi
    done
    # a kernel without SOCK_CLOEXEC/SOCK_NONBLOCK refuses the flagged socket() with
    # EINVAL: each flagged call fails once, its retry (without them) does not
    if [ "${AUDIT_SOCKFLAGS:-0}" = 1 ]; then
        rc=0
        timeout "${AUDIT_TIMEOUT:-60}" strace -f -qq -o /dev/null -e trace=socket -e inject=socket:error=EINVAL:when=1+2 "$@" >/dev/null 2>&1 || rc=$?
        if [ "$rc" != "$want" ]; then
            echo "with socket() type flags refused (EINVAL) the command exited $rc instead of $want: $*" >&2
            return 1
        fi
    fi
    return 0
}

# Socket options refused as an ESXi userworld may refuse them: every setsockopt of
# CMD fails at once (with each of ENOPROTOOPT, EINVAL, EPERM), then one call index
# at a time (strace counts per thread: the Nth setsockopt of every thread fails
# ENOPROTOOPT, for N up to the most any thread made). AUDIT_SOCKOPT_CALL=getsockopt
# does the same to the options CMD reads (a connect's outcome, the MSS, buffer
# sizes, TCP_INFO, the congestion control). Each run is bounded by
# AUDIT_SOCKOPT_SECS (default 20) and must exit as the plain run did; a hang is
# killed and fails. A refusal that ends the run on purpose must do so with exit 2
# (an error exit, 1 or 2) and a line naming the option: list such options in AUDIT_SOCKOPT_ESSENTIAL
# (e.g. "SO_BINDTODEVICE IPV6_DONTFRAG"). A server is audited with its client in
# AUDIT_SOCKOPT_PEER: a shell command started beside every run (not traced) and
# waited for. With AUDIT_SOCKOPT_PORT=P, every run gets a port of its own (the
# first from P up on which no socket is, not even one in TIME_WAIT) in place of
# @PORT@ in ARGS and in the peer's command (and the next call goes on from the
# last): a server listening without SO_REUSEADDR cannot take a port that its last
# run, or an earlier test, left in TIME_WAIT.
#
#   audit_sockopt_refusals CMD ARGS...   leaves the runs made in $AUDIT_SOCKOPT_RUNS
audit_sockopt_refusals() {
    local secs=${AUDIT_SOCKOPT_SECS:-20} call=${AUDIT_SOCKOPT_CALL:-setsockopt} trace out rc want calls n err runs=0
    trace=$(mktemp); out=$(mktemp)
    want=0
    local peer= port=${AUDIT_SOCKOPT_PORT:-0} cmd=()
    _audit_sockopt_peer() { # the command of this run in cmd, its peer started
        local a i
        if [ "${AUDIT_SOCKOPT_PORT:-0}" != 0 ]; then
            for i in $(seq 100); do
                ss -Htuan "sport = :$port" | grep -q . || break
                port=$((port + 1))
            done
        fi
        cmd=()
        for a in "$@"; do cmd+=("${a//@PORT@/$port}"); done
        if [ -n "${AUDIT_SOCKOPT_PEER:-}" ]; then
            timeout -k 2 "$secs" bash -c "${AUDIT_SOCKOPT_PEER//@PORT@/$port}" >/dev/null 2>&1 &
            peer=$!
        fi
        [ "${AUDIT_SOCKOPT_PORT:-0}" = 0 ] || port=$((port + 1))
    }
    _audit_sockopt_peer "$@"
    timeout -k 2 "$secs" strace -f -qq -o "$trace" -e trace="$call" "${cmd[@]}" >/dev/null 2>&1 || want=$?
    [ -z "$peer" ] || wait "$peer" || true
    if [ "$want" = 124 ] || [ "$want" = 137 ]; then
        echo "the plain run did not end within ${secs}s: $*" >&2
        rm -f "$trace" "$out"; return 1
    fi
    # the largest number of calls one thread made
    calls=$(awk -v f="$call" 'index($2, f "(") == 1 || $2 ~ /^<\.\.\./ && $3 == f { c[$1]++ }
                 END { m = 0; for (p in c) if (c[p] > m) m = c[p]; print m }' "$trace")
    rm -f "$trace"
    [ "${calls:-0}" -gt 0 ] || { echo "no $call in: $*" >&2; rm -f "$out"; return 1; }
    _audit_sockopt_run() { # $1 = inject expression; the rest: the command
        local inj=$1 rc=0; shift
        runs=$((runs + 1))
        peer=
        _audit_sockopt_peer "$@"
        timeout -k 2 "$secs" strace -f -qq -o /dev/null -e trace="$call" -e inject="$inj" "${cmd[@]}" >/dev/null 2>"$out" || rc=$?
        # the peer of a run that ended has nothing left to show
        [ -z "$peer" ] || { kill "$peer" 2>/dev/null; wait "$peer" 2>/dev/null; } || true
        [ "$rc" = "$want" ] && return 0
        if { [ "$rc" = 1 ] || [ "$rc" = 2 ]; } && [ -n "${AUDIT_SOCKOPT_ESSENTIAL:-}" ]; then
            local o
            for o in $AUDIT_SOCKOPT_ESSENTIAL; do
                grep -q -- "$o" "$out" && return 0
            done
        fi
        case $rc in
        124|137) echo "with $inj the command hung (killed after ${secs}s): $*" >&2 ;;
        *) echo "with $inj the command exited $rc instead of $want: $* ($(head -c 300 "$out"))" >&2 ;;
        esac
        return 1
    }
    for err in ENOPROTOOPT EINVAL EPERM; do
        _audit_sockopt_run "$call:error=$err" "$@" || { rm -f "$out"; return 1; }
    done
    for n in $(seq "$calls"); do
        _audit_sockopt_run "$call:error=ENOPROTOOPT:when=$n" "$@" || { rm -f "$out"; return 1; }
    done
    rm -f "$out"
    AUDIT_SOCKOPT_RUNS=$runs
    [ "${AUDIT_SOCKOPT_PORT:-0}" = 0 ] || AUDIT_SOCKOPT_PORT=$port   # the next call goes on from here
    return 0
}
