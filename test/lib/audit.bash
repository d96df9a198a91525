# Syscall audit for bats tests: every tool must stay within build/syscalls.allow plus
# build/syscalls.optional, and must still work when each optional syscall it used
# fails with ENOSYS (as on an older ESXi userworld).
#
#   audit_syscalls CMD ARGS...   run under strace -f; fail on any syscall outside the
#                                lists; leaves the optional ones it used in $AUDIT_OPTIONAL
#   audit_enosys CMD ARGS...     run again once per optional syscall used, injecting
#                                ENOSYS into it; the command must exit as it did before
#                                (audits CMD first unless the last audit_syscalls was CMD)
ESXDIAG_ROOT=${ESXDIAG_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}

_audit_lists() {
    grep -hv '^#' "$ESXDIAG_ROOT/build/syscalls.allow" "$ESXDIAG_ROOT/build/syscalls.optional" | sed '/^$/d' | sort -u
}

audit_syscalls() {
    local trace; trace=$(mktemp)
    local rc=0
    strace -f -qq -o "$trace" "$@" >/dev/null 2>&1 || rc=$?
    AUDIT_RC=$rc
    AUDIT_CMD="$*"
    if [ ! -s "$trace" ]; then
        rm -f "$trace"
        echo "strace produced no trace (did it start?): $*" >&2
        return 1
    fi
    local used; used=$(sed -E 's/^[0-9]+ +//; s/^<\.\.\. ([a-z0-9_]+) resumed>.*/\1/; s/^([a-z0-9_]+)\(.*/\1/; /^\+\+\+|^---|^$/d' "$trace" | grep -E '^[a-z0-9_]+$' | sort -u)
    rm -f "$trace"
    local bad; bad=$(comm -23 <(printf '%s\n' "$used") <(_audit_lists))
    AUDIT_OPTIONAL=$(comm -12 <(printf '%s\n' "$used") <(grep -v '^#' "$ESXDIAG_ROOT/build/syscalls.optional" | sed '/^$/d' | sort -u) | tr '\n' ' ')
    if [ -n "$bad" ]; then
        echo "syscalls outside build/syscalls.allow and .optional: $(echo $bad)" >&2
        echo "command: $*" >&2
        return 1
    fi
    return 0
}

audit_enosys() {
    # the optional syscalls and exit code of this very command: reuse the audit just
    # made of it, else make one (a list from another command would test the wrong thing)
    [ "${AUDIT_CMD:-}" = "$*" ] || audit_syscalls "$@" || return 1
    local want=$AUDIT_RC sc rc
    for sc in $AUDIT_OPTIONAL; do
        rc=0
        strace -f -qq -o /dev/null -e trace="$sc" -e inject="$sc":error=ENOSYS "$@" >/dev/null 2>&1 || rc=$?
        if [ "$rc" != "$want" ]; then
            echo "with $sc failing ENOSYS the command exited $rc instead of $want: $*" >&2
            return 1
        fi
    done
    return 0
}
