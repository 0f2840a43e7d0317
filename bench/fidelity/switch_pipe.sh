#!/usr/bin/env bash
# Fidelity check for the switch group: `perf bench sched pipe` (a round trip
# per op, two processes; -T two threads) pinned with `taskset -c CPU`, against
# tasklab's pipe ping-pong on that one CPU (round_trip_ns), perf before and
# after each tasklab run. This machine drifts 10-30% over minutes, so only the
# ratio within each pair means anything.
# Usage: bench/fidelity/switch_pipe.sh [PAIRS] [CPU]   (needs perf)
set -euo pipefail
cd "$(dirname "$0")/../.."
pairs=${1:-5}
cpu=${2:-0}
loops=${LOOPS:-100000}
command -v perf >/dev/null || { echo "perf is not installed" >&2; exit 1; }
cargo build --release --quiet
tl=target/release/tasklab
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tl_rt() { # method -> "median mean" of round_trip_ns in µs
  "$tl" run switch.pingpong -p "methods=$1" -p placements=same_cpu -p "cpus=$cpu" \
    --profile "${PROFILE:-thorough}" --out "$work/r" --quiet
  python3 - "$work/r/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for e in r["experiments"]:
    for m in e["metrics"]:
        if m["name"] == "round_trip_ns":
            print(m["summary"]["median"] / 1000, m["summary"]["mean"] / 1000)
PY
}

perf_rt() { # perf-flags -> µs per round trip (perf's mean)
  taskset -c "$cpu" perf bench sched pipe $1 -l "$loops" 2>/dev/null | awk '/usecs\/op/ {print $1}'
}

# Each pair is perf, tasklab, perf (A-B-A): tasklab's figure is set against
# the mean of the two perf runs around it, which cancels a drift that is
# steady over the pair. The last line gives the median of the pairs' r_mean
# (perf prints a mean, so the mean is the like-for-like statistic), their
# range, and how many fall within 0.95-1.05x.
compare() { # title perf-flags method
  echo "== $1 (µs per round trip; perf: $loops loops, mean of the runs before and after)"
  printf '%-6s %10s %12s %12s %10s %10s\n' pair perf tl_median tl_mean r_median r_mean
  local ratios=()
  for i in $(seq 1 "$pairs"); do
    p1=$(perf_rt "$2")
    read -r tmed tmean < <(tl_rt "$3")
    p2=$(perf_rt "$2")
    line=$(awk -v i="$i" -v p1="$p1" -v p2="$p2" -v tm="$tmed" -v ta="$tmean" \
      'BEGIN { p = (p1 + p2) / 2; printf "%-6s %10.3f %12.3f %12.3f %10.3f %10.3f", i, p, tm, ta, tm/p, ta/p }')
    echo "$line"
    ratios+=("$(awk '{ print $6 }' <<<"$line")")
  done
  printf '%s\n' "${ratios[@]}" | python3 bench/fidelity/ratios.py "r_mean (perf gives a mean)"
}

compare "two processes: perf bench sched pipe vs pipe_processes" "" pipe_processes
compare "two threads: perf bench sched pipe -T vs pipe_threads" "-T" pipe_threads
