#!/usr/bin/env bash
# Runs the default suite N times back to back (default 4) and says how well
# its figures hold from run to run:
#   - coverage: the share of series whose 95% interval covers the median of
#     the other runs' medians;
#   - compare: the exit status and the share of rows flagged (improved,
#     regressed or changed) for every pair of runs, and (N >= 4) for runs
#     1+2 against 3+4 (two runs a side), with the threshold and median mde;
#     each pair's gate (regressions consistent or isolated, rows that were
#     not discoveries) and the calibration: |z| of every row, per experiment;
#   - per run: the share of series settled (not flagged for a trend or two
#     modes) and the median interval half-width;
#   - spread: the median over series of max/min of the runs' medians, and the
#     share of series within 1.05x, 1.10x and 1.25x;
#   - each run's canary medians (a bare system call, a pipe write and read,
#     taken at every round's start and end): the machine's own speed, which
#     moves between runs on a shared host;
#   - each run against the series' medians over the runs, by experiment
#     group: whether a whole run sat apart (a host state that lasted it).
# Usage: bench/repeatability.sh [N] [extra tasklab run arguments...]
#        bench/repeatability.sh --from DIR   reads a set again (DIR/run1 ...
#        runN, as this script left them), comparing with this build
#        COLD_GO=1 bench/repeatability.sh   empties tasklab's Go cache first, so
#        run 1 starts as a first run does (the Go helper that build.rs embedded
#        is written out; built, when there was no Go at compile time)
# Needs python3. Do not run anything else meanwhile: it is a benchmark.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_runs tasklab-repeat "$@"
out="$work"
pairs=()
# Every pair of runs (i < j): N runs give N(N-1)/2 A/A pairs (not
# independent: each run is in N-1 of them).
for i in $(seq 1 $((n - 1))); do
  for j in $(seq $((i + 1)) "$n"); do
    set +e
    "$bin" compare --json --no-noise "${files[$((i - 1))]}" "${files[$((j - 1))]}" > "$out/compare$i-$j.json"
    code=$?
    set -e
    pairs+=("$code:$out/compare$i-$j.json")
  done
done
# The practice for CI on a drifting machine: two runs per side, the runs a
# level of every interval.
if [ "$n" -ge 4 ]; then
  set +e
  "$bin" compare --json --no-noise "${files[0]}" "${files[1]}" --vs "${files[2]}" "${files[3]}" > "$out/compare-pooled.json"
  code=$?
  set -e
  pairs+=("$code:$out/compare-pooled.json")
fi
python3 - "${files[@]}" -- "${pairs[@]}" <<'PY'
import json, statistics, sys
args = sys.argv[1:]
cut = args.index('--')
files, pairs = args[:cut], args[cut + 1:]
runs = []
canaries = []
for f in files:
    r = json.load(open(f))
    series = {}
    for e in r['experiments']:
        if e['status'] != 'ok':
            continue
        for m in e['metrics']:
            key = (e['name'], m['name'], tuple(sorted(m['labels'].items())))
            series[key] = dict(m['summary'], better=m.get('better'), detail=m.get('detail'))
    runs.append(series)
    # The machine's own speed in that run: the canary taken at every
    # round's start and end (a bare system call; a pipe write and read).
    canary = [(c['syscall_ns'], c['pipe_ns'])
              for e in r['experiments'] for x in e.get('round_log', [])
              for c in (x['canary_start'], x['canary_end'])]
    canaries.append(canary)
keys = set.intersection(*(set(r) for r in runs))
covered = total = 0
spreads = []
for k in keys:
    meds = [r[k]['median'] for r in runs]
    for i, r in enumerate(runs):
        others = [m for j, m in enumerate(meds) if j != i]
        target = statistics.median(others)
        total += 1
        covered += r[k]['ci95_lo'] <= target <= r[k]['ci95_hi']
    lo, hi = min(meds), max(meds)
    if lo > 0 and hi > 0:
        spreads.append(hi / lo)
print(f"runs: {len(runs)}, series in every run: {len(keys)}")
print(f"coverage: {100 * covered / max(total, 1):.1f}% of intervals cover the median of the other runs' medians")
# Settled (not flagged for a trend or two modes) and how precise, per run:
# the half-width of each interval over its median, for the series better
# one way that tables show.
for i, r in enumerate(runs):
    flagged = sum(bool(s.get('unstable')) for s in r.values())
    widths = sorted((s['ci95_hi'] - s['ci95_lo']) / 2 / abs(s['median'])
                    for s in r.values()
                    if s['median'] and not s.get('detail') and s.get('better') in ('lower', 'higher'))
    print(f"run {i + 1}: settled {100 * (1 - flagged / max(len(r), 1)):.1f}% of {len(r)} series; "
          f"median interval half-width ±{100 * statistics.median(widths):.1f}%, "
          f"±5% or better for {100 * sum(w <= 0.05 for w in widths) / max(len(widths), 1):.1f}%")
# The canary's own noise: how far its end moved from its start within a
# round (10th and 90th percentiles over every round of every run).
ratios = sorted(end[0] / start[0] for cs in canaries
                for start, end in zip(cs[0::2], cs[1::2]) if start[0] > 0)
if ratios:
    at = lambda q: ratios[int(q * (len(ratios) - 1))]
    print(f"canary end/start within a round: p10 {at(0.1):.3f}, p90 {at(0.9):.3f} over {len(ratios)} rounds")
if all(canaries):
    med = lambda v: f"{statistics.median(v):.0f}"
    print("canary medians per run (the machine's own speed): bare syscall "
          + ", ".join(med([c[0] for c in cs]) for cs in canaries) + " ns; pipe write+read "
          + ", ".join(med([c[1] for c in cs]) for cs in canaries) + " ns")
for p in pairs:
    code, path = p.split(':', 1)
    c = json.load(open(path))
    rows = c['rows']
    flagged = sum(r['verdict'] in ('improved', 'regressed', 'changed') for r in rows)
    verdicts = {}
    for r in rows:
        verdicts[r['verdict']] = verdicts.get(r['verdict'], 0) + 1
    name = path.rsplit('/', 1)[-1]
    if name == 'compare-pooled.json':
        name = 'runs 1+2 --vs 3+4 (pooled)'
    mdes = [r['mde'] for r in rows if isinstance(r.get('mde'), (int, float))]
    mde = f", median mde {statistics.median(mdes):.1f}%" if mdes else ""
    print(f"compare {name}: exit {code}, {100 * flagged / max(len(rows), 1):.1f}% of {len(rows)} rows flagged {verdicts}, threshold ±{c.get('threshold_pct', 0):.1f}%{mde}")
# Calibration (issue 37): every consecutive pair's rows, |z| = |ln(new/base)|
# over its standard error (run-to-run noise included), per experiment.
# Intervals that are right give a median |z| near 0.67 and |z| > 1.96 in
# about 5% of pairs; a median far below says they are too wide, a tail far
# above says the run-to-run noise was missed.
zs = {}
exact = 0
gates = []
for p in pairs:
    code, path = p.split(':', 1)
    c = json.load(open(path))
    if path.endswith('compare-pooled.json'):
        continue
    for r in c['rows']:
        z = r.get('z')
        # every directional row with a z, but flagged ones (no verdict
        # rests on them) and huge pages found for one side only
        if isinstance(z, (int, float)) and r.get('better') in ('lower', 'higher') \
                and r.get('reason') not in ('flagged', 'huge_pages'):
            # A figure the same to the last digit in both runs is a count
            # (a memory size in pages), not a time: its z is 0 by
            # construction and says nothing of the intervals.
            if r.get('base') == r.get('new'):
                exact += 1
                continue
            zs.setdefault(r['experiment'], []).append(abs(z))
    regs = [r for r in c['rows'] if r['verdict'] == 'regressed']
    cons = sum(1 for r in regs if r.get('consistent') is not False)
    gates.append(f"exit {code} ({len(regs)} regressed: {cons} consistent, {len(regs) - cons} isolated; {c.get('discoveries', {}).get('not_discovered', 0)} not discoveries)")
print(f"A/A gates, {len(gates)} pairs: {sum(g.startswith('exit 1') for g in gates)} exit 1; " + "; ".join(gates))
allz = sorted(z for v in zs.values() for z in v)
if allz:
    tail = lambda v: 100 * sum(z > 1.96 for z in v) / len(v)
    print(f"calibration |z| over all rows: median {statistics.median(allz):.2f} (0.67 if right), |z| > 1.96 in {tail(allz):.1f}% (5% if right), {len(allz)} rows; {exact} rows of figures the same in both runs (counts) left out")
    for e in sorted(zs):
        v = zs[e]
        print(f"  {e}: median |z| {statistics.median(v):.2f}, > 1.96 in {tail(v):.1f}% of {len(v)}")
if spreads:
    spreads.sort()
    within = lambda x: 100 * sum(s <= x for s in spreads) / len(spreads)
    print(f"spread of medians (max/min over runs): median {statistics.median(spreads):.3f}x")
    print(f"within 1.05x: {within(1.05):.1f}%, within 1.10x: {within(1.10):.1f}%, within 1.25x: {within(1.25):.1f}%")
# Whether a whole run sat apart: per run and experiment group, the geometric
# mean over series of the run's median against that series' median over the
# runs, each turned so that above 1 is slower (a throughput or a speedup,
# better higher, is inverted). A group that is 1.15 in one run and about
# 1.00 in the others moved as a whole (a host state that lasted the run),
# which no number of rounds inside a run averages away.
import math
groups = sorted({k[0].split('.')[0] for k in keys})
shift = {g: [] for g in groups}
for g in groups:
    ks = [k for k in keys if k[0].split('.')[0] == g
          and all(r[k]['median'] > 0 for r in runs)]
    for r in runs:
        logs = []
        for k in ks:
            x = math.log(r[k]['median'] / statistics.median([y[k]['median'] for y in runs]))
            logs.append(-x if r[k].get('better') == 'higher' else x)
        shift[g].append(math.exp(statistics.mean(logs)) if logs else float('nan'))
print("each run against the series' medians over the runs, by group (geometric mean, above 1 slower): "
      + "; ".join(f"{g} " + " ".join(f"{v:.2f}" for v in shift[g]) for g in groups))
PY
