#!/usr/bin/env bash
# The Kubernetes recipe, checked (CI has no cluster to run it on): every
# resource of every manifest in deploy/kubernetes/ validated against the
# Kubernetes API's OpenAPI schemas of the versions below, strictly (a field
# the API does not have is an error, as `kubectl apply` says), with
# kubernetes-validate from the Python package registry, whose package holds
# the schemas (nothing is fetched while it validates). Then deploy/check.py:
# what no schema says (the Job Indexed, one pod per node, Guaranteed QoS
# with whole CPUs, the results volume mounted, the run's --label and --out).
#
#   deploy/kubernetes/test.sh        # from the repository's root
#
# TASKLAB_K8S_VENV  the virtual environment (default: target/k8s-venv; reused
#                   when it has kubernetes-validate at the pinned version)
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
me=deploy/kubernetes/test.sh

# Kubernetes' supported minor versions when this was written (the newest
# three), each a schema set the pinned package holds.
versions=(1.35.0 1.36.0 1.37.0)
validator='kubernetes-validate==1.37.0'

venv=${TASKLAB_K8S_VENV:-$root/target/k8s-venv}
py=$venv/bin/python
if ! "$py" -m pip show kubernetes-validate 2>/dev/null | grep -qx "Version: ${validator#*==}"; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "$validator"
fi

work=$(mktemp -d /tmp/tasklab-k8s.XXXXXX)
trap 'rm -rf "$work"' EXIT

# Validate FILE... against every version; one line per resource and
# version, one per problem; exit 1 on any problem. A resource whose kind or
# apiVersion has no schema in a version is a problem (kubernetes-validate's
# own command only warns of it).
validate() {
    "$py" - "${versions[*]}" "$@" <<'EOF'
import sys
import yaml
import kubernetes_validate as kv
from kubernetes_validate.utils import SchemaNotFoundError, ValidationError

versions = sys.argv[1].split()
bad = 0
for path in sys.argv[2:]:
    docs = [d for d in yaml.safe_load_all(open(path)) if d]
    if not docs:
        print(f"{path}: no resource in it")
        bad += 1
    for d in docs:
        name = f"{d.get('kind')}/{d.get('metadata', {}).get('name')}"
        for v in versions:
            try:
                kv.validate(d, v, strict=True)
                print(f"ok: {path}: {name} is valid in Kubernetes {v}")
            except ValidationError as e:
                where = ".".join(str(p) for p in e.path) or "(top)"
                print(f"{path}: {name} is not valid in Kubernetes {v}: {where}: {e.message}")
                bad += 1
            except SchemaNotFoundError as e:
                print(f"{path}: {name}: Kubernetes {v} has no {e.kind} in {e.api_version}")
                bad += 1
sys.exit(1 if bad else 0)
EOF
}

fail() {
    echo "$me: FAILED: $*" >&2
    exit 1
}

manifests=(deploy/kubernetes/*.yaml)
validate "${manifests[@]}" || fail "a manifest is not valid against the API's schemas (above)"

# The validator is awake: the Job with a misspelt field, a count of the
# wrong type and an apiVersion the API lacks is refused at every version.
job=deploy/kubernetes/tasklab-job.yaml
for bad in 's/^  parallelism:/  parallelizm:/' 's/^  completions: [0-9]*/  completions: "many"/' \
           's|^apiVersion: batch/v1|apiVersion: batch/v2|'; do
    sed "$bad" "$job" >"$work/job.yaml"
    ! cmp -s "$job" "$work/job.yaml" || fail "'$bad' changes nothing in $job"
    if out=$(validate "$work/job.yaml"); then
        fail "the Job changed by '$bad' passed: $out"
    fi
    [[ $(grep -c "not valid\|has no" <<<"$out") == "${#versions[@]}" ]] \
        || fail "the Job changed by '$bad' was not refused at each of ${versions[*]}: $out"
done
echo "ok: a misspelt field, a count of the wrong type and an unknown apiVersion are refused at ${versions[*]}"

"$py" deploy/check.py
echo "$me: 3 passed, 0 failed"
