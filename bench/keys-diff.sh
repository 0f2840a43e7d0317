#!/usr/bin/env bash
# What two results files measured, compared by their keys, not their
# figures: each experiment's status and series (name, labels, unit,
# direction); with READINGS=1 its readings too (some readings exist only
# when the series they are computed from settled, so they differ between
# two runs of one version). For a refactor that must not change behaviour,
# run the default suite before and after, with the same -p values, and:
#   bench/keys-diff.sh before/results.json after/results.json
# Prints what one file has and the other lacks; exits 1 when they differ.
# Needs python3.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 A.json B.json" >&2; exit 2; }
python3 - "$1" "$2" <<'PY'
import json, os, sys
def keys(path):
    r = json.load(open(path))
    out = set()
    for e in r['experiments']:
        for m in e['metrics']:
            labels = ','.join(f'{k}={v}' for k, v in sorted(m['labels'].items()))
            out.add(f"{e['name']} series {m['name']} [{labels}] {m['unit']} better={m.get('better')}")
        for x in (e['readings'] if os.environ.get('READINGS') == '1' else []):
            labels = ','.join(f'{k}={v}' for k, v in sorted(x['labels'].items()))
            out.add(f"{e['name']} reading {x['name']} [{labels}] {x['unit']}")
        out.add(f"{e['name']} status {e['status']}")
    return out
a, b = keys(sys.argv[1]), keys(sys.argv[2])
for k in sorted(a - b):
    print(f"only in A: {k}")
for k in sorted(b - a):
    print(f"only in B: {k}")
print(f"{len(a & b)} keys in both, {len(a - b)} only in A, {len(b - a)} only in B")
sys.exit(1 if a != b else 0)
PY
