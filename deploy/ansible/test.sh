#!/usr/bin/env bash
# The Ansible recipe, for real: ansible-core from the Python package registry
# in a virtual environment, the playbook against two hosts on this machine
# (the local connection, each its own folder and label), a tiny selection
# (selftest.spin, 3 rounds; after a syntax check of the playbook), then the
# checks:
#   1. each host's results.json was fetched to the controller,
#   2. each carries its own label (read back with tasklab itself),
#   3. the matrix the playbook rendered has a column for each.
#
#   deploy/ansible/test.sh            # from the repository's root
#
# TASKLAB_BIN       the binary to deploy (default: target/debug/tasklab, built)
# TASKLAB_VENV      the virtual environment (default: target/ansible-venv;
#                   reused when it has ansible-playbook)
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

if [[ -z "${TASKLAB_BIN:-}" ]]; then
    cargo build --locked --quiet
    TASKLAB_BIN=$root/target/debug/tasklab
fi
bin=$(cd "$(dirname "$TASKLAB_BIN")" && pwd)/$(basename "$TASKLAB_BIN")

venv=${TASKLAB_VENV:-$root/target/ansible-venv}
if [[ ! -x "$venv/bin/ansible-playbook" ]]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check 'ansible-core>=2.15'
fi
py=$venv/bin/python

"$venv/bin/ansible-playbook" --syntax-check -i localhost, deploy/ansible/playbook.yml

work=$(mktemp -d /tmp/tasklab-ansible.XXXXXX)
trap 'rm -rf "$work"' EXIT

# Two hosts on this machine, each its own folder.
cat >"$work/inventory.ini" <<EOF
[tasklab]
fleet-a tasklab_remote_dir=$work/hosts/fleet-a
fleet-b tasklab_remote_dir=$work/hosts/fleet-b

[tasklab:vars]
ansible_connection=local
ansible_python_interpreter=$py
EOF

label='{{ inventory_hostname }}'
render=true
"$py" - "$work/vars.json" "$bin" "$work" "$label" "$render" <<'EOF'
import json, sys
path, binary, work, label, render = sys.argv[1:]
json.dump({
    "tasklab_binary": binary,
    "tasklab_experiments": ["selftest.spin"],
    "tasklab_run_args": ["--rounds", "3"],
    "tasklab_label": label,
    "tasklab_fetch_dir": f"{work}/fetched",
    "tasklab_matrix_dir": f"{work}/matrix",
    "tasklab_render_matrix": render == "true",
}, open(path, "w"))
EOF

export ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_LOCALHOST_WARNING=0
fail() {
    echo "deploy/ansible/test.sh: FAILED: $*" >&2
    exit 1
}

# 0. A host that cannot run the binary (another architecture, an older
#    glibc: faked by what the binary is said to need) stops the playbook
#    before anything is copied or measured, with how to build there.
for needs in '{"arch": "riscv64", "glibc": "", "static": true}' \
             '{"arch": "'"$(uname -m)"'", "glibc": "99.0", "static": false}'; do
    if out=$("$venv/bin/ansible-playbook" -i "$work/inventory.ini" deploy/ansible/playbook.yml \
        -e "@$work/vars.json" -e "{\"tasklab_needs\": $needs}" 2>&1); then
        fail "the playbook went on with a binary that needs $needs"
    fi
    grep -q 'cargo build --release' <<<"$out" || fail "no word on how to build there: $out"
    [[ ! -e "$work/hosts" ]] || fail "something was copied to a host that cannot run the binary"
done
echo "ok: a host of another architecture or an older glibc is refused before anything runs"

"$venv/bin/ansible-playbook" -i "$work/inventory.ini" deploy/ansible/playbook.yml \
    -e "@$work/vars.json"

# 1. Both files fetched.
for h in fleet-a fleet-b; do
    f=$work/fetched/$h/results.json
    [[ -s "$f" ]] || fail "no results.json fetched from $h ($f)"
    "$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"]=="tasklab-results", d["schema"]' "$f" \
        || fail "$f is not a tasklab results file"
done
echo "ok: results.json fetched from fleet-a and fleet-b"

# 2. Each file carries its own label: the run's label as tasklab reads it
#    (RunResults::label(), on tasklab_run_info).
for h in fleet-a fleet-b; do
    got=$("$bin" report "$work/fetched/$h/results.json" --out "$work/check-$h" \
        --export-openmetrics - | sed -n 's/^tasklab_run_info{label="\([^"]*\)".*/\1/p')
    [[ "$got" == "$h" ]] || fail "the file fetched from $h has the label '$got', not '$h'"
done
echo "ok: the fetched files carry the labels fleet-a and fleet-b"

# 3. The matrix (tasklab report FILE FILE --out DIR, run by the playbook)
#    has a column for each: a table row of its Markdown names both labels.
[[ -d "$work/matrix" ]] || fail "the playbook rendered no matrix in $work/matrix"
grep -h '^|' "$work"/matrix/*.md | grep 'fleet-a' | grep -q 'fleet-b' \
    || fail "no table row of the matrix's Markdown ($work/matrix/*.md) names both fleet-a and fleet-b"
echo "ok: the matrix has the columns fleet-a and fleet-b"
echo "deploy/ansible/test.sh: 4 passed, 0 failed"
