# Fleet test bench, the hosts (after fleet_net_up, test/lib/fleet-net.bash): Debian's
# sshd in each host namespace with its own per-run host key and the run's test key,
# a stand-in esxcli (test/lib/fake-esxcli) with its own state per host, the
# ESXi-shaped shell (test/lib/esxi-shell.bash) as root's login shell there with a PATH
# of the listed applets and the stand-in only, and the controller's Ansible
# configuration (its own ansible.cfg, ssh config, known_hosts and key: nothing under
# ~/.ssh or ~/.ansible is read or written).
#
# Root's login shell: `ip netns exec NS` bind-mounts each file of /etc/netns/NS/ over
# the one in /etc for what runs in NS, so sshd there reads /etc/netns/NS/passwd, a
# copy of /etc/passwd whose root has the built busybox sh as shell; sshd's SetEnv
# gives the sessions the restricted PATH, and ansible_shell_executable is that sh too.
# Every command Ansible or the playbook runs on a host (prepare.sh and cleanup.sh
# included) runs under it, with nothing of this machine's on PATH.
#
#   fleet_hosts_up DIR            keys, per-host folders DIR/hI/, sshd in every host
#   fleet_inventory DIR           DIR/inventory.yml: every host, group esxdiag (test
#                                 addresses of both families with FLEET_IPV6=1)
#   fleet_env DIR                 the environment ansible-playbook needs (prints
#                                 NAME=VALUE words for env)
#   fleet_sshd_stop I / fleet_sshd_start I
#   fleet_host_state I            the stand-in esxcli's state of host I, one fact a line
#   fleet_play OUT [ARGS...]      run the playbook (see below)
#   fleet_hosts_down              stop every sshd, remove the /etc/netns/ files
#                                 (fleet_net_down kills the rest)

# shellcheck source=test/lib/esxi-shell.bash
. "$ESXDIAG_ROOT/test/lib/esxi-shell.bash"

fleet_hosts_up() {
    FLEET_DIR=$1
    export FLEET_DIR
    local d=$FLEET_DIR i h
    mkdir -p "$d/ssh" "$d/cp" "$d/home" "$d/ansible/home" "$d/ansible/tmp" || return 1
    ssh-keygen -q -t ed25519 -N '' -C "esxfleet-$FLEET_TAG" -f "$d/ssh/id" || return 1
    cp "$d/ssh/id.pub" "$d/ssh/authorized_keys"
    : > "$d/ssh/known_hosts"
    esxi_shell_bin "$d/esxi-bin" || return 1
    # sshd refuses to start without its privilege separation folder (Debian's package
    # makes it when its service starts; it is left in place, as that service would)
    [ -d /run/sshd ] || install -d -m 0755 /run/sshd || return 1
    for i in $(seq 1 "$FLEET_N"); do
        h=$d/h$i
        mkdir -p "$h/host/firewall" "$h/host/rs/sshServer" "$h/fakebin" || return 1
        ln -sf "$ESXDIAG_ROOT/test/lib/fake-esxcli" "$h/fakebin/esxcli"
        # the host as a fresh ESXi 8 would be: execInstalledOnly 1, no TPM, firewall on
        echo 1 > "$h/host/exec"
        echo "FALSE FALSE" > "$h/host/boot"
        echo false > "$h/host/tpm"
        echo true > "$h/host/fw_enabled"
        echo true > "$h/host/rs/sshServer/enabled"
        echo true > "$h/host/rs/sshServer/allowed_all"
        : > "$h/host/rs/sshServer/ips"
        echo "Inbound TCP Dst 22 22" > "$h/host/rs/sshServer/rules"
        : > "$h/host/log"
        mkdir -p "/etc/netns/$(fleet_ns "$i")" || return 1
        awk -F: -v OFS=: -v sh="$d/esxi-bin/sh" '$1 == "root" { $7 = sh } { print }' /etc/passwd \
            > "/etc/netns/$(fleet_ns "$i")/passwd" || return 1
        ssh-keygen -q -t ed25519 -N '' -C "esxfleet-$FLEET_TAG-h$i" -f "$h/hostkey" || return 1
        printf '%s %s\n' "$(fleet_mgmt_ip "$i")" "$(cut -d' ' -f1,2 "$h/hostkey.pub")" >> "$d/ssh/known_hosts"
        cat > "$h/sshd_config" <<CFG
ListenAddress $(fleet_mgmt_ip "$i"):22
HostKey $h/hostkey
PidFile $h/sshd.pid
AuthorizedKeysFile $d/ssh/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
SetEnv PATH=$h/fakebin:$d/esxi-bin
# a session whose client is gone ends within 10 s (Ansible's ControlPersist masters)
ClientAliveInterval 5
ClientAliveCountMax 2
MaxSessions 64
MaxStartups 64:30:128
Subsystem sftp /usr/lib/openssh/sftp-server
LogLevel ERROR
CFG
        fleet_sshd_start "$i" || return 1
    done
    cat > "$d/ssh/config" <<CFG
Host *
    User root
    IdentityFile $d/ssh/id
    IdentitiesOnly yes
    UserKnownHostsFile $d/ssh/known_hosts
    GlobalKnownHostsFile /dev/null
    StrictHostKeyChecking yes
    BatchMode yes
    ConnectTimeout 5
    ServerAliveInterval 5
    ServerAliveCountMax 2
CFG
    cat > "$d/ansible.cfg" <<CFG
[defaults]
forks = $((FLEET_N + 4))
host_key_checking = True
timeout = 10
local_tmp = $d/ansible/tmp
retry_files_enabled = False
nocows = 1
[ssh_connection]
pipelining = True
ssh_args = -F $d/ssh/config -o ControlMaster=auto -o ControlPersist=30s
control_path_dir = $d/cp
CFG
}

fleet_sshd_start() {
    local h=$FLEET_DIR/h$1 i
    ip netns exec "$(fleet_ns "$1")" /usr/sbin/sshd -f "$h/sshd_config" || return 1
    # listening within 5 s (bounded)
    for i in $(seq 50); do
        ip netns exec "$(fleet_ns "$1")" ss -ltnH "sport = :22" | grep -q . && return 0
        sleep 0.1
    done
    echo "fleet: sshd of host $1 does not listen" >&2
    return 1
}

fleet_sshd_stop() { # the listener and its sessions (Ansible's ControlPersist masters
    # would otherwise reach the host through a connection made before the stop)
    local pid p
    pid=$(cat "$FLEET_DIR/h$1/sshd.pid" 2>/dev/null) || return 0
    kill "$pid" 2>/dev/null
    rm -f "$FLEET_DIR/h$1/sshd.pid"
    for p in $(ip netns pids "$(fleet_ns "$1")" 2>/dev/null); do
        [ "$(cat "/proc/$p/comm" 2>/dev/null)" = sshd ] && kill "$p" 2>/dev/null
    done
    return 0
}

fleet_inventory() {
    local d=$1 i h
    {
        echo "esxdiag:"
        echo "  vars:"
        echo "    ansible_user: root"
        echo "    ansible_python_interpreter: /usr/bin/python3"
        echo "  hosts:"
        for i in $(seq 1 "$FLEET_N"); do
            h=$d/h$i
            echo "    h$i:"
            echo "      ansible_host: $(fleet_mgmt_ip "$i")"
            echo "      esxdiag_test_ip: $(fleet_test_ip "$i")"
            [ -n "${FLEET_IPV6:-}" ] && echo "      esxdiag_test_ip6: \"$(fleet_test_ip6 "$i")\""
            echo "      esxdiag_remote_dir: $h/remote"
            echo "      ansible_remote_tmp: $h/remote-tmp"
            echo "      ansible_shell_executable: $d/esxi-bin/sh"
            echo "      esxdiag_host_env:"
            echo "        PATH: $h/fakebin:$d/esxi-bin"
            echo "        FAKE_ESXI: $h/host"
            echo "        ESXDIAG_FIREWALL_DIR: $h/host/firewall"
        done
    } > "$d/inventory.yml"
}

fleet_env() {
    local d=$1
    # HOME too: whatever Ansible or ssh would put in ~ on the controller lands there
    echo "HOME=$d/home ANSIBLE_CONFIG=$d/ansible.cfg ANSIBLE_HOME=$d/ansible/home ANSIBLE_LOCAL_TEMP=$d/ansible/tmp"
    echo "ANSIBLE_SSH_CONTROL_PATH_DIR=$d/cp ANSIBLE_FORCE_COLOR=0 ANSIBLE_NOCOLOR=1"
}

fleet_host_state() { # I: what the stand-in host keeps (as esxi_scripts.bats compares it)
    local s=$FLEET_DIR/h$1/host f
    (cd "$s" && for f in exec boot tpm fw_enabled $(find rs -type f | LC_ALL=C sort); do
        [ -f "$f" ] && printf '%s: %s\n' "$f" "$(tr '\n' ' ' < "$f")"; done)
    ls -A "$s/firewall"
}

fleet_hosts_down() {
    [ -n "${FLEET_DIR:-}" ] || return 0
    local i
    for i in $(seq 1 "${FLEET_N:-0}"); do
        fleet_sshd_stop "$i"
        rm -rf "/etc/netns/$(fleet_ns "$i")"
    done
    return 0
}

# fleet_playbook_argv: FLEET_ARGV, the command line of esxi/fleet/validate.yml run
# from the controller namespace against the bench's inventory (or $FLEET_INVENTORY)
# with the kit $FLEET_KIT
fleet_playbook_argv() {
    # shellcheck disable=SC2207
    FLEET_ARGV=(ip netns exec "$FLEET_NS_CTL" env $(fleet_env "$FLEET_DIR")
        ansible-playbook -i "${FLEET_INVENTORY:-$FLEET_DIR/inventory.yml}" "$ESXDIAG_ROOT/esxi/fleet/validate.yml"
        -e "esxdiag_kit=$FLEET_KIT")
}

# fleet_play OUT [ARGS...]: run it, all output in OUT, the playbook's exit code
# returned. Bound against a hang: 900 s (a 4-host run with every check took 2.5 min
# on this machine at load 12).
fleet_play() {
    local out=$1
    shift
    fleet_playbook_argv
    timeout -k 10 900 "${FLEET_ARGV[@]}" "$@" > "$out" 2>&1
}
