# The ESXi-shaped shell for every test that runs esxi/*.sh (load after common.bash):
# busybox ash as build/deps.sh builds it from Debian's source (no `command`, no `type`,
# no tr, no od), and a folder of links to the applets test/lib/esxi-shell.list allows:
# with PATH set to that folder (and the stand-in esxcli's), a command the list does not
# hold is "not found", as on a host, instead of falling through to this machine's.
#
#   ESXI_BUSYBOX              the built busybox
#   esxi_list KIND            the names of that kind in the list (builtin or applet)
#   esxi_shell_bin DIR        DIR/ with one link per listed applet (sh included)
#   esxi_refusing_exec FILE CMD...
#                             run CMD with execve(FILE) refused with EPERM ("Operation
#                             not permitted", what execInstalledOnly gives a copied
#                             binary), injected by strace: every other exec runs

ESXI_SH_LIST=$ESXDIAG_ROOT/test/lib/esxi-shell.list
ESXI_BUSYBOX=$ESXDIAG_ROOT/.cache/esxi-shell/busybox

esxi_list() { awk -v k="$1" '$1 == k { print $2 }' "$ESXI_SH_LIST"; }

esxi_shell_bin() {
    if [ ! -x "$ESXI_BUSYBOX" ]; then
        echo "no ESXi-shaped shell at $ESXI_BUSYBOX: run make deps (build/deps.sh esxi-shell builds it alone)" >&2
        return 1
    fi
    mkdir -p "$1" || return 1
    local a
    for a in $(esxi_list applet); do ln -sf "$ESXI_BUSYBOX" "$1/$a" || return 1; done
}

esxi_refusing_exec() {
    local file=$1
    shift
    strace -f -qq -o /dev/null -P "$file" -e trace=execve -e inject=execve:error=EPERM "$@"
}
