#!/usr/bin/env bash
# What one cpu-clock sample costs on this machine (docs/WHY.md, "What a
# sample costs"): the time a spinning task loses to the timer interrupts
# with no event, with the events at 1 kHz and 4 kHz (with and without a
# call chain, with no ring), then the cost of one sample inside a same-CPU
# ping-pong's batch. Needs gcc, 2 CPUs or more, and root (or
# kernel.perf_event_paranoid <= 0). Usage: bench/why-cost/run.sh [REPEATS]
set -euo pipefail
cd "$(dirname "$0")"
repeats=${1:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -O2 -Wall -pthread sample_cost.c -o "$work/sample_cost"
for _ in $(seq "$repeats"); do
    for args in "0 1 1" "1000 1 1" "1000 0 1" "1000 1 0" "4000 1 1" "4000 0 1"; do
        # shellcheck disable=SC2086 # HZ CHAIN RING, split on purpose
        taskset -c 0 "$work/sample_cost" gaps $args 2
    done
    "$work/sample_cost" batch 1000 250 2000
done
