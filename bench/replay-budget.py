#!/usr/bin/env python3
"""Replays the default run's time over the round costs results files
recorded: what each rule for the minimum rounds would have measured for,
and how far the progress line's estimate was from the run's end in its
first minute. A replay, not a measured run.

    python3 bench/replay-budget.py [--points] [--eta] [--scale=EXP#POINT=F]... RESULTS.json...

Each round's cost is its worker's wall time (`round_log[].wall_ns`) plus
its experiment's share of what the parent spent around its workers
(`duration_s` less the rounds' wall time, per job); the k-th round of a
point costs what its k-th recorded round did, or the median of its rounds
past those. The run's start and report add what they took in that run.
The Summary's points are those with 8 or more rounds in the first file,
which must be a run without adaptive rounds (`precision.adaptive_jobs`
0, e.g. a run on a slow day) or one whose other points all kept 3.
--scale=EXP#POINT=F (repeatable) multiplies that point's recorded worker
time per round by F before the replay (its parent's share per job kept):
what a change that makes the point's rounds cheaper by a measured factor
would have bought on that day, e.g. --scale=spawn.heap#4=0.8.
Only the standard library; reads the files, writes nothing.
"""
import collections
import json
import random
import statistics as st
import sys

BUDGET_S = 75.0
PRIOR_S = 4 * 0.02 + 0.1  # run::progress::prior_s, quick


def load(path, scale=None):
    scale = scale or {}
    with open(path) as f:
        d = json.load(f)
    costs, labels = {}, {}
    for e in d['experiments']:
        log = e.get('round_log') or []
        if not log:
            continue
        around = (e['duration_s'] - sum(r['wall_ns'] for r in log) / 1e9) / len(log)
        per = collections.defaultdict(list)
        for r in sorted(log, key=lambda r: r['round']):
            f = scale.get((e['name'], r['point']), 1.0)
            per[r['point']].append(f * r['wall_ns'] / 1e9 + max(around, 0.0))
        for p, v in per.items():
            costs[(e['name'], p)] = v
        for m in e['metrics']:
            key = (e['name'], m.get('point'))
            if key in costs and key not in labels:
                labels[key] = ' '.join(f'{k}={v}' for k, v in sorted((m['labels'] or {}).items())
                                       if k not in ('heap_bytes',))
    start_report = (d['finished_unix_s'] - d['started_unix_s']) - d['precision']['measured_s']
    return d, costs, labels, start_report


def cost(costs, key, k):
    v = costs[key]
    return v[k] if k < len(v) else st.median(v)


def span(costs, key, a, b):
    return sum(cost(costs, key, k) for k in range(a, b))


def replay(costs, summary, s_min, o_min, s_rounds=8, budget=BUDGET_S):
    """The minimum rounds (s_min at the Summary's points, o_min at the
    others), then layers of the Summary's rounds up to s_rounds, the
    cheapest first while the layer fits in the time left
    (run::budget::top_up), then the budget's passes, which end at about the
    budget (a pass starts no round dearer than the time left). Returns the
    seconds measured, the minimum rounds' seconds, and the fewest and most
    rounds of a Summary point."""
    t, have = 0.0, {}
    for key in costs:
        have[key] = s_min if key in summary else o_min
        t += span(costs, key, 0, have[key])
    floor = t
    while True:
        left = budget - t
        layer = sorted((cost(costs, k, have[k]), k) for k in summary if have[k] < s_rounds)
        spent, chosen = 0.0, []
        for c, k in layer:
            if spent + c <= left:
                spent += c
                chosen.append(k)
        if not chosen:
            break
        for k in chosen:
            t += cost(costs, k, have[k])
            have[k] += 1
    got = [have[k] for k in summary] or [0]
    return max(t, budget), floor, min(got), max(got)


def eta_errors(costs, summary, first_rounds_first, seed, s_min=5, o_min=3, budget=BUDGET_S):
    """One shuffled schedule of the minimum rounds, the Summary's rounds
    spread into it once an experiment has a round of every point, and the
    estimate of the run's end as each job starts (run::execute: each
    point's median so far, its experiment's, the run's, the prior; the
    queued rounds, or the budget's end when later). Returns the run's end
    and [(elapsed, estimated end, every point measured)]."""
    rng = random.Random(seed)
    slots = [(k, r) for k in costs for r in range(o_min)]
    if first_rounds_first:
        first = [s for s in slots if s[1] == 0]
        rest = [s for s in slots if s[1] > 0]
        rng.shuffle(first)
        rng.shuffle(rest)
        queue = first + rest
    else:
        rng.shuffle(slots)
        queue = slots
    done = {k: [] for k in costs}
    exps = collections.defaultdict(list)
    for k in costs:
        exps[k[0]].append(k)
    queued_summary, t, trace = set(), 0.0, []
    while queue:
        measured = [c for v in done.values() for c in v]
        run = st.median(measured) if measured else PRIOR_S

        def est(k):
            if done[k]:
                return st.median(done[k])
            own = [c for kk in exps[k[0]] for c in done[kk]]
            return st.median(own) if own else run
        queued = sum(est(k) for k, _ in queue)
        trace.append((t, t + max(queued, budget - t), all(done.values())))
        k, r = queue.pop(0)
        c = cost(costs, k, r)
        t += c
        done[k].append(c)
        e = k[0]
        if e not in queued_summary and all(done[kk] for kk in exps[e]):
            queued_summary.add(e)
            for kk in exps[e]:
                if kk in summary:
                    for j in range(o_min, s_min):
                        queue.insert(rng.randrange(len(queue) + 1), (kk, j))
    end, _, _, _ = replay(costs, summary, s_min, o_min)
    return end, trace


def main(argv):
    points = '--points' in argv
    eta = '--eta' in argv
    files = [a for a in argv if not a.startswith('--')]
    if not files:
        sys.exit(__doc__)
    scale = {}
    for a in argv:
        if a.startswith('--scale='):
            point, _, f = a[len('--scale='):].rpartition('=')
            name, _, p = point.partition('#')
            try:
                scale[(name, int(p))] = float(f)
            except ValueError:
                sys.exit(f'--scale takes EXP#POINT=FACTOR, e.g. spawn.heap#4=0.8, not {a}')
    if scale:
        print('scaled:', ', '.join(f'{e}#{p} x{f}' for (e, p), f in sorted(scale.items())))
    _, ref, _, _ = load(files[0])
    summary = sorted(k for k, v in ref.items() if len(v) >= 8)
    print("the Summary's points:", ', '.join(f'{e}#{p}' for e, p in summary))
    rules = [("the Summary's 8 first, others 3", 8, 3),
             ("the Summary's 5, layers to 8, others 3 (main)", 5, 3),
             ("the Summary's 8 first, others 2", 8, 2),
             ("the Summary's 5, layers to 8, others 2", 5, 2)]
    for path in files:
        d, costs, labels, extra = load(path, scale)
        wall = d['finished_unix_s'] - d['started_unix_s']
        s8 = sum(span(costs, k, 0, 8) for k in summary if k in costs)
        o3 = sum(span(costs, k, 0, 3) for k in costs if k not in summary)
        first = sum(cost(costs, k, 0) for k in costs)
        print(f'\n{path}: took {wall:.1f} s (measuring {d["precision"]["measured_s"]:.1f} s, '
              f'start and report {extra:.1f} s)')
        print(f"  the Summary's points, 8 rounds: {s8:.1f} s; the other points, 3 rounds: "
              f'{o3:.1f} s; a round of every point: {first:.1f} s')
        for name, s_min, o_min in rules:
            m, f, lo, hi = replay(costs, [k for k in summary if k in costs], s_min, o_min)
            r = f'{lo}' if lo == hi else f'{lo}-{hi}'
            print(f"  {name:47s} minimum {f:6.1f} s, measuring {m:6.1f} s, run {m + extra:6.1f} s, "
                  f"the Summary {r} rounds")
        if points:
            for k in sorted(costs):
                v = costs[k]
                mark = 'S' if k in summary else ' '
                print(f'    {mark} {k[0]:18s} #{k[1]:<2d} {st.median(v):6.2f} s a round, '
                      f'{len(v):2d} rounds {sum(v):6.1f} s  {labels.get(k, "")[:70]}')
        if eta:
            live = [k for k in summary if k in costs]
            for ff in (False, True):
                errs = collections.defaultdict(list)
                for seed in range(200):
                    end, trace = eta_errors(costs, live, ff, seed)
                    for w in (30, 45, 60):
                        _, e, _ = [x for x in trace if x[0] <= w][-1]
                        errs[w].append(100 * (e / end - 1))
                words = '; '.join(f'at {w} s {st.median(v):+.0f}% [{min(v):+.0f}, {max(v):+.0f}]'
                                  for w, v in errs.items())
                order = 'first rounds first' if ff else 'one shuffle      '
                print(f'  estimate of the end, {order}: {words}')


if __name__ == '__main__':
    main(sys.argv[1:])
