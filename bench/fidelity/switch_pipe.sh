#!/usr/bin/env bash
# Fidelity check for the switch group: `perf bench sched pipe` (a round trip
# per op, two processes; -T two threads) pinned with `taskset -c CPU`, against
# tasklab's pipe ping-pong on that one CPU (round_trip_ns), in alternating
# back-to-back runs. This machine drifts 10-30% over minutes, so only the
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

compare() { # title perf-flags method
  echo "== $1 (µs per round trip; perf: $loops loops, mean)"
  printf '%-6s %10s %12s %12s %10s %10s\n' pair perf tl_median tl_mean r_median r_mean
  for i in $(seq 1 "$pairs"); do
    p=$(taskset -c "$cpu" perf bench sched pipe $2 -l "$loops" 2>/dev/null | awk '/usecs\/op/ {print $1}')
    read -r tmed tmean < <(tl_rt "$3")
    awk -v i="$i" -v p="$p" -v tm="$tmed" -v ta="$tmean" \
      'BEGIN { printf "%-6s %10.3f %12.3f %12.3f %10.3f %10.3f\n", i, p, tm, ta, tm/p, ta/p }'
  done
}

compare "two processes: perf bench sched pipe vs pipe_processes" "" pipe_processes
compare "two threads: perf bench sched pipe -T vs pipe_threads" "-T" pipe_threads
