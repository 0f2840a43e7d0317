#!/usr/bin/env bash
# Fidelity check for the switch group: `perf bench sched pipe` (a round trip
# per op, two processes; -T two threads) pinned with `taskset -c CPU`, against
# tasklab's pipe ping-pong on that one CPU (round_trip_ns), perf before and
# after each tasklab run. This machine drifts 10-30% over minutes, so only the
# ratio within each pair means anything.
# It does the same against fork_loop.c's pipe loop (the plain C loop a reader
# would write, timed in batches as tasklab times them), median against median.
# Usage: bench/fidelity/switch_pipe.sh [PAIRS] [CPU]   (needs perf and gcc)
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

# The reference's "mean median" µs per round trip: perf gives a mean only;
# the C loop (fork_loop.c pipe / pipe_threads) the mean and the median of
# its batches of 200 round trips, as tasklab's batches.
ref_rt() { # perf|c flags-or-mode
  local mean="" med=""
  if [ "$1" = perf ]; then
    mean=$(perf_rt "$2")
    med=$mean
  else
    read -r _ _ mean _ med _ _ < <(taskset -c "$cpu" "$work/c_loop" "$2" "${BATCHES:-2000}" 2>"$work/c.err") || true
    [ -z "$mean" ] || read -r mean med < <(awk -v a="$mean" -v b="$med" 'BEGIN { print a / 1000, b / 1000 }')
  fi
  [ -n "$mean" ] || { echo "the reference run failed: $1 $2 $(cat "$work/c.err" 2>/dev/null)" >&2; exit 1; }
  echo "$mean $med"
}

# Each pair is the reference, tasklab, the reference (A-B-A): tasklab's
# figure is set against the mean of the two reference runs around it, which
# cancels a drift that is steady over the pair. The last line summarises the
# like-for-like ratio (perf prints a mean: r_mean; the C loop's median of
# batches against tasklab's: r_median): its median over the pairs, its range,
# and how many pairs fall within 0.95-1.05x.
compare() { # title perf|c flags-or-mode method
  echo "== $1 (µs per round trip)"
  printf '%-6s %10s %10s %12s %12s %10s %10s\n' pair ref_mean ref_median tl_median tl_mean r_median r_mean
  local ratios=() col=7 stat="r_mean (perf gives a mean)"
  if [ "$2" = c ]; then col=6 stat="r_median (medians of batches)"; fi
  for i in $(seq 1 "$pairs"); do
    a1=$(ref_rt "$2" "$3") || exit 1
    read -r a1 m1 <<<"$a1"
    tmed="" tmean=""
    read -r tmed tmean < <(tl_rt "$4") || true
    [ -n "$tmed" ] || { echo "tasklab gave no round_trip_ns for $4" >&2; exit 1; }
    a2=$(ref_rt "$2" "$3") || exit 1
    read -r a2 m2 <<<"$a2"
    line=$(awk -v i="$i" -v a1="$a1" -v a2="$a2" -v m1="$m1" -v m2="$m2" -v tm="$tmed" -v ta="$tmean" \
      'BEGIN { a = (a1 + a2) / 2; m = (m1 + m2) / 2; printf "%-6s %10.3f %10.3f %12.3f %12.3f %10.3f %10.3f", i, a, m, tm, ta, tm/m, ta/a }')
    echo "$line"
    ratios+=("$(awk -v c="$col" '{ print $c }' <<<"$line")")
  done
  printf '%s\n' "${ratios[@]}" | python3 bench/fidelity/ratios.py "$stat"
}

gcc -O2 -pthread bench/fidelity/fork_loop.c -o "$work/c_loop"
compare "two processes: perf bench sched pipe vs pipe_processes" perf "" pipe_processes
compare "two threads: perf bench sched pipe -T vs pipe_threads" perf "-T" pipe_threads
compare "two processes: the C pipe loop vs pipe_processes" c pipe pipe_processes
compare "two threads: the C pipe loop vs pipe_threads" c pipe_threads pipe_threads
