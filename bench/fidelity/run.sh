#!/usr/bin/env bash
# Fidelity check: tasklab's figures against the plain C loop a reader would
# write, in alternating back-to-back runs (this machine drifts 10-30% over
# minutes, so only the ratio within each pair means anything).
# Usage: bench/fidelity/run.sh [PAIRS]   (needs gcc; builds tasklab --release)
#        PIN=0 bench/fidelity/run.sh      both sides pinned to CPU 0 (taskset / --pin)
# spawn.methods times creation pinned to one CPU (the first it may use), so
# the C loop for fork and threads runs pinned to that CPU too: both sides'
# children start on their parent's CPU.
set -euo pipefail
cd "$(dirname "$0")/../.."
pairs=${1:-5}
cargo build --release --quiet
tl=target/release/tasklab
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -O2 -pthread bench/fidelity/fork_loop.c -o "$work/c_loop"
# One loop for every comparison: tasklab, like it, maps libc and the loader
# only (build.rs links the unwinder statically; src/sys/math_symbols.rs).

# tasklab: median and mean of one series, from its results.json
tl_stat() { # experiment param metric label
  "$tl" run "$1" --profile thorough ${2:+-p "$2"} ${PIN:+--pin "$PIN"} --out "$work/r" --quiet
  python3 - "$work/r/results.json" "$3" "$4" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
k, v = sys.argv[3].split("=")
# the worker's image (spawn.methods records it), for the image-matched C loop;
# written before the figures are printed, since the caller reads it as soon
# as it has read them
image = {x["name"]: x["value"] for e in r["experiments"] for x in e.get("readings", [])}
with open(sys.argv[1] + ".image", "w") as f:
    f.write("%d %d\n" % (image.get("worker_mappings", 0), image.get("worker_anon_kib", 0)))
for e in r["experiments"]:
    for m in e["metrics"]:
        if m["name"] == sys.argv[2] and m["labels"].get(k) == v:
            print(m["summary"]["median"], m["summary"]["mean"], m["summary"]["n"])
            break
    else:
        continue
    break
PY
}

first_cpu=$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')
# One C run: its mean and median ns.
c_run() { # loop args...
  local loop=$1
  shift
  local cmean="" cmed=""
  read -r _ _ cmean _ cmed _ _ < <(taskset -c "${PIN:-$first_cpu}" "$work/$loop" "$@" 2>"$work/c.err") || true
  [ -n "$cmed" ] || { echo "the C loop failed: $loop $*: $(cat "$work/c.err")" >&2; exit 1; }
  echo "$cmean $cmed"
}
# Each pair is C, tasklab, C (A-B-A): tasklab's figure is set against the
# mean of the two C runs around it, which cancels a drift that is steady
# over the pair. The last line gives the median ratio over the pairs, their
# range, and how many fall within 0.95-1.05x.
compare() { # title c-args experiment param metric label
  echo "== $1"
  printf '%-6s %14s %14s %14s %14s %8s %8s\n' pair C_median C_mean tl_median tl_mean r_median r_mean
  local ratios=()
  for i in $(seq 1 "$pairs"); do
    cargs=$2
    loop=c_loop
    if [ "$cargs" = like ]; then # the C loop's image grown to the worker's, as the last spawn.methods run recorded it
      [ -s "$work/r/results.json.image" ] || tl_stat "$3" "$4" "$5" "$6" > /dev/null
      read -r maps anon < "$work/r/results.json.image"
      cargs="fork_like $maps $anon 10000"
    fi
    ca1=$(c_run "$loop" $cargs) || exit 1
    read -r ca1 cm1 <<<"$ca1"
    tmed="" tmean=""
    read -r tmed tmean _ < <(tl_stat "$3" "$4" "$5" "$6") || true
    [ -n "$tmed" ] || { echo "tasklab gave no $5 $6 for $3 ${4:+-p $4}" >&2; exit 1; }
    ca2=$(c_run "$loop" $cargs) || exit 1
    read -r ca2 cm2 <<<"$ca2"
    line=$(awk -v i="$i" -v cm1="$cm1" -v cm2="$cm2" -v ca1="$ca1" -v ca2="$ca2" -v tm="$tmed" -v ta="$tmean" \
      'BEGIN { cm = (cm1 + cm2) / 2; ca = (ca1 + ca2) / 2; printf "%-6s %14.1f %14.1f %14.1f %14.1f %8.3f %8.3f", i, cm, ca, tm, ta, tm/cm, ta/ca }')
    echo "$line"
    ratios+=("$(awk '{ print $6 }' <<<"$line")")
  done
  printf '%s\n' "${ratios[@]}" | python3 bench/fidelity/ratios.py r_median
}

compare "fork + waitpid (ns)" "fork 10000" spawn.methods methods=fork lifecycle_ns method=fork
compare "fork + waitpid, the C loop's image grown to the worker's mappings and anonymous KiB (ns)" like spawn.methods methods=fork lifecycle_ns method=fork
compare "pthread_create + join (ns)" "thread 10000" spawn.methods methods=pthread_create lifecycle_ns method=pthread_create
compare "clock_gettime(CLOCK_MONOTONIC) (ns)" "clock 20000" yardstick.timer "" call_ns clock=monotonic
