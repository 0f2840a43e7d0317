"""Summarises a fidelity comparison's per-pair ratios (one per line on
stdin): their median, their range, and how many fall within 0.95-1.05x.
The argument names the ratio (r_median, r_mean)."""
import statistics
import sys

name = sys.argv[1] if len(sys.argv) > 1 else "ratio"
r = [float(x) for x in sys.stdin.read().split()]
if r:
    inside = sum(0.95 <= x <= 1.05 for x in r)
    print(
        f"{name} over {len(r)} pairs: median {statistics.median(r):.3f}, "
        f"range {min(r):.3f}-{max(r):.3f}, within 0.95-1.05x: {inside} of {len(r)}"
    )
