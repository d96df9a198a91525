#!/usr/bin/env bats
# The fleet as the Ansible collection esxdiag.fleet: make dist's collection tarball
# (build/dist-fleet.sh, ansible-galaxy collection build) installs offline into a folder
# of this run's own, and the installed copy answers by its full names: ansible-doc on
# the inventory plugin, the playbook esxdiag.fleet.validate from another directory.
# The checkout runs the same files (esxi/fleet/validate.yml imports the collection's
# playbook; the plugin folders beside it hold links, no copies). Debian's ansible-lint
# passes on the collection with the production profile (the rules it skips, each with
# its reason, are in the collection's .ansible-lint). The report callback, loaded twice
# (named and beside a checkout's playbook), prints once; a run without the ^C callback
# enabled says so. The inventory plugin against
# govmomi's simulator is in fleet_vcenter.bats, the installed collection on the namespace
# bench in fleet.bats (run 2).
load ../lib/common

VERSION=$(sed -n 's/^VERSION *:= *//p' "$ESXDIAG_ROOT/Makefile")
COLL=esxi/fleet/collections/ansible_collections/esxdiag/fleet

setup_file() {
    export W; W=$(mktemp -d)
    mkdir -p "$W/home" "$W/tmp" "$W/elsewhere"
    cd "$ESXDIAG_ROOT" || return 1
    ./build/dist-fleet.sh "$VERSION" > "$W/build.out" 2>&1 || { cat "$W/build.out" >&2; return 1; }
    cp "dist/esxdiag-fleet-$VERSION.tar.gz" "$W/"
}

teardown_file() {
    [ -n "${W:-}" ] && rm -rf "$W"
    return 0
}

# Ansible with its own HOME and folders; the collections only from $W/collections
an() {
    (cd "$W/elsewhere" && env HOME="$W/home" ANSIBLE_HOME="$W/home/.ansible" ANSIBLE_LOCAL_TEMP="$W/tmp" \
        ANSIBLE_COLLECTIONS_PATH="$W/collections" ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 "$@")
}

@test "fleet collection: make dist's tarball installs offline; ansible-doc shows the inventory plugin's options and examples by its full name" {
    run cat "$W/build.out"
    assert_contains "dist: dist/esxdiag-fleet-$VERSION.tar.gz (the Ansible collection esxdiag.fleet)"
    # no network at all where it is installed, when this runs as root
    local off=()
    [ "$(id -u)" = 0 ] && off=(unshare -n)
    run an "${off[@]}" ansible-galaxy collection install --offline -p "$W/collections" "$W/esxdiag-fleet-$VERSION.tar.gz"
    assert_status 0
    assert_contains "esxdiag.fleet:$VERSION was installed successfully"
    local d=$W/collections/ansible_collections/esxdiag/fleet f
    for f in galaxy.yml MANIFEST.json plugins/inventory/vcenter.py plugins/filter/fleet_pairs.py \
             plugins/callback/esxdiag_interrupt.py roles/esxdiag/tasks/deploy.yml playbooks/validate.yml; do
        [ -f "$d/$f" ] || [ "$f" = galaxy.yml ] || flunk "installed collection lacks $f"
    done
    run an ansible-doc -t inventory esxdiag.fleet.vcenter
    assert_status 0
    assert_contains "$d/plugins/inventory/vcenter.py"
    for f in hostname port username password validate_certs ca_file datacenters clusters group timeout EXAMPLES \
             "plugin: esxdiag.fleet.vcenter"; do
        assert_contains "$f"
    done
}

@test "fleet collection: installed, ansible-playbook esxdiag.fleet.validate parses from another directory, its role found by full name" {
    [ -d "$W/collections/ansible_collections/esxdiag/fleet" ] || skip "the install row failed"
    printf '[esxdiag]\nh1 esxdiag_test_ip=198.18.0.11\n' > "$W/elsewhere/hosts.ini"
    run an ansible-playbook esxdiag.fleet.validate -i hosts.ini --syntax-check
    assert_status 0
    assert_contains "playbook: $W/collections/ansible_collections/esxdiag/fleet/playbooks/validate.yml"
    # every task of the installed role, through the playbook
    run an ansible-playbook esxdiag.fleet.validate -i hosts.ini --list-tasks
    assert_status 0
    assert_contains "Copy the kit"
    assert_contains "esxdiag.fleet.esxdiag : Write report.html"
}

@test "fleet collection: installed, a run without the interrupt callback enabled says that ^C would not clean up; with it, not" {
    [ -d "$W/collections/ansible_collections/esxdiag/fleet" ] || skip "the install row failed"
    printf '[esxdiag]\nh1 esxdiag_test_ip=198.18.0.11\n' > "$W/elsewhere/hosts.ini"
    # no kit given: the run stops in its first step, before any host is reached
    run an ansible-playbook esxdiag.fleet.validate -i hosts.ini
    assert_status 2
    assert_contains "esxdiag: no kit given"
    assert_contains "esxdiag: the callback esxdiag.fleet.esxdiag_interrupt is not enabled: ^C would end the run without cleanup"
    run an env ANSIBLE_CALLBACKS_ENABLED=esxdiag.fleet.esxdiag_interrupt,esxdiag.fleet.esxdiag_report \
        ansible-playbook esxdiag.fleet.validate -i hosts.ini
    assert_status 2
    assert_contains "esxdiag: no kit given"
    assert_not_contains "esxdiag: the callback esxdiag.fleet.esxdiag_interrupt is not enabled"
}

@test "fleet collection: the checkout holds one copy of each plugin: esxi/fleet's plugin folders are links into the collection" {
    local f n=0
    for f in "$ESXDIAG_ROOT"/esxi/fleet/inventory_plugins/* "$ESXDIAG_ROOT"/esxi/fleet/callback_plugins/*; do
        n=$((n + 1))
        [ -L "$f" ] || flunk "$f is a file of its own, not a link into $COLL"
        case $(readlink -f "$f") in
            "$ESXDIAG_ROOT/$COLL"/plugins/*) ;;
            *) flunk "$f points at $(readlink -f "$f")" ;;
        esac
    done
    [ "$n" = 3 ] || flunk "$n links"
    [ ! -e "$ESXDIAG_ROOT/esxi/fleet/filter_plugins" ] && [ ! -e "$ESXDIAG_ROOT/esxi/fleet/roles" ] ||
        flunk "a second copy of the filters or the role in esxi/fleet"
    run grep -c 'import_playbook: esxdiag.fleet.validate' "$ESXDIAG_ROOT/esxi/fleet/validate.yml"
    [ "$output" = 1 ] || flunk "esxi/fleet/validate.yml does not import the collection's playbook"
}

@test "fleet collection: Debian's ansible-lint passes on it with the production profile" {
    command -v ansible-lint > /dev/null || flunk "ansible-lint missing (make deps installs it)"
    run env -C "$ESXDIAG_ROOT/$COLL" HOME="$W/home" XDG_CACHE_HOME="$W/cache" ANSIBLE_HOME="$W/home/.ansible" \
        ANSIBLE_LOCAL_TEMP="$W/tmp" ANSIBLE_COLLECTIONS_PATH="$ESXDIAG_ROOT/esxi/fleet/collections" \
        NO_COLOR=1 ansible-lint --offline
    assert_status 0
    assert_contains "Passed with production profile: 0 failure(s), 0 warning(s)"
    grep -qx 'profile: production' "$ESXDIAG_ROOT/$COLL/.ansible-lint" || flunk "not the production profile"
}

@test "fleet collection: the report callback enabled by name and also found beside a checkout's playbook prints the report once" {
    # a checkout's esxi/fleet/callback_plugins and the collection's esxdiag_report,
    # both loaded, as when ANSIBLE_CALLBACKS_ENABLED is exported and esxi/fleet/validate.yml runs
    printf '%s\n' '- name: A play that sets the report fact' '  hosts: localhost' '  gather_facts: false' '  tasks:' \
        '    - name: The report' '      ansible.builtin.set_fact: {esxdiag_report_text: "esxdiag-report-line"}' > "$W/elsewhere/play.yml"
    run env -C "$W/elsewhere" HOME="$W/home" ANSIBLE_HOME="$W/home/.ansible" ANSIBLE_LOCAL_TEMP="$W/tmp" \
        ANSIBLE_COLLECTIONS_PATH="$ESXDIAG_ROOT/esxi/fleet/collections" \
        ANSIBLE_CALLBACK_PLUGINS="$ESXDIAG_ROOT/esxi/fleet/callback_plugins" \
        ANSIBLE_CALLBACKS_ENABLED=esxdiag.fleet.esxdiag_report ANSIBLE_NOCOLOR=1 \
        ansible-playbook -i localhost, -c local play.yml
    assert_status 0
    [ "$(grep -c '^esxdiag-report-line$' <<<"$output")" = 1 ] || flunk "not printed once: $output"
    [ "$(tail -n 1 <<<"$output")" = esxdiag-report-line ] || flunk "not last: $output"
}
