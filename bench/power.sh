#!/usr/bin/env bash
# False alarms and power of `tasklab compare` on this machine, in the state
# it is in (the canary says which):
#   - A/A: consecutive pairs of identical default runs: exit status, the
#     share of rows called regressed or improved (false alarms), the share
#     inconclusive, the median minimum detectable change (mde);
#   - injected: a copy of run 2 with every series that is better one way
#     made worse by 5%, 10% and 25% (times and sizes x k, rates / k, every
#     sample), compared with run 1: the share regressed, the share called
#     unchanged (a missed change), and the share regressed among the rows
#     whose mde was below the injected change (whether the mde tells the
#     truth);
#   - parallel.average alone, a copy of run 1 with every speedup x0.7 (must
#     be regressed, exit 1) and x1.4 (improved, exit 0).
#   - with --ab, `tasklab ab` instead, inside one run: selftest.spin at
#     1,000 ns against 1,050 ns (+5% on the spin) ten times, and against
#     itself (side B sets a variable nothing reads) ten times; THP madvise
#     against always on spawn.heap's fork at 512 MiB (needs root; THP must be
#     back as it was after); vm.stat_interval 1 against 2 over the default
#     suite (a sysctl that should change nothing). Each line gives the share
#     of tries called correctly and the median mde.
# Usage: bench/power.sh [N]            runs the default suite N times (default 4)
#        bench/power.sh --from DIR     reuses DIR/run1 ... runN (bench/repeatability.sh's)
#        bench/power.sh --ab [TRIES]   the ab rows (default 10 tries each)
# Needs python3. Run nothing else meanwhile: it is a benchmark.
set -euo pipefail
if [ "${1:-}" = --ab ]; then
  cd "$(dirname "$0")/.."
  cargo build --release --quiet
  bin="$PWD/target/release/tasklab"
  tries="${2:-10}"
  work="$(mktemp -d "${TMPDIR:-/tmp}/tasklab-ab-power-XXXXXX")"
  echo "ab runs in $work" >&2
  # TRIES runs of `ab ARGS --json`: "regressed exits (1), verdict counts, median mde".
  tally() {
    local name="$1" want="$2"; shift 2
    local ok=0 mdes=()
    for i in $(seq 1 "$tries"); do
      set +e
      "$bin" ab "$@" --json --quiet --out "$work/$name-$i" >"$work/$name-$i.json"
      code=$?
      set -e
      line=$(python3 - "$work/$name-$i.json" "$want" "$code" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); want = sys.argv[2]; code = int(sys.argv[3])
rows = c['rows']
flagged = [r for r in rows if r['verdict'] in ('regressed', 'improved', 'changed')]
if want == 'regressed':
    good = code == 1 and all(r['verdict'] == 'regressed' for r in rows)
else:
    good = code == 0 and not flagged
mde = [r['mde'] for r in rows if r['mde'] is not None]
print(int(good), mde[0] if mde else 'nan')
PY
)
      ok=$((ok + ${line%% *}))
      mdes+=("${line##* }")
    done
    med=$(printf '%s\n' "${mdes[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    echo "$name: called correctly in $ok of $tries tries (want: $want); median mde ${med}%"
  }
  # +5% on the spin is a little less on the op (its clock reads stay the
  # same), so the threshold is 2%: the whole interval must be beyond it.
  tally spin+5 regressed selftest.spin --a param:ns=1000 --b param:ns=1050 --threshold 2
  tally spin-aa unchanged selftest.spin --a param:ns=1000 --b env:TASKLAB_AB_UNUSED=1 --threshold 2
  if [ "$(id -u)" = 0 ]; then
    thp=/sys/kernel/mm/transparent_hugepage/enabled
    before=$(cat "$thp")
    set +e
    "$bin" ab spawn.heap -p heap_sizes=512M -p methods=fork -p thp=false \
      --a sysfs:$thp=madvise --b sysfs:$thp=always --all --out "$work/thp" | tee "$work/thp.txt"
    set -e
    after=$(cat "$thp")
    [ "$before" = "$after" ] && echo "THP restored: $after" || echo "THP NOT restored: $before -> $after"
    set +e
    "$bin" ab --a sysfs:/proc/sys/vm/stat_interval=1 --b sysfs:/proc/sys/vm/stat_interval=2 \
      --json --quiet --out "$work/stat" >"$work/stat.json"
    set -e
    python3 - "$work/stat.json" <<'PY'
import json, sys, statistics
c = json.load(open(sys.argv[1]))
rows = c['rows']
flagged = [r for r in rows if r['verdict'] in ('regressed', 'improved', 'changed')]
mde = [r['mde'] for r in rows if r['mde'] is not None]
print(f"vm.stat_interval 1 against 2 (default suite): {len(flagged)} of {len(rows)} rows called changed "
      f"({100 * len(flagged) / max(len(rows), 1):.1f}%); median mde {statistics.median(mde):.1f}%; "
      f"{sum(m <= 10 for m in mde)} of {len(mde)} rows could see 10%")
PY
  else
    echo "THP and vm.stat_interval rows need root: skipped"
  fi
  exit 0
fi
. "$(dirname "$0")/lib.sh"
bench_runs tasklab-power "$@"

# A copy of FILE with every directional series made worse by K (or only
# EXPERIMENT's series named METRIC multiplied by K, when given).
scale() {
  python3 - "$@" <<'PY'
import json, sys
src, dst, k = sys.argv[1], sys.argv[2], float(sys.argv[3])
only = sys.argv[4:6] if len(sys.argv) > 5 else None
r = json.load(open(src))
for e in r['experiments']:
    for m in e['metrics']:
        if only:
            if e['name'] != only[0] or m['name'] != only[1]:
                continue
            f = k
        elif m.get('better') == 'lower':
            f = k
        elif m.get('better') == 'higher':
            f = 1 / k
        else:
            continue
        m['samples'] = [x * f for x in m['samples']]
        s = m['summary']
        for key in ('min', 'max', 'median', 'mean', 'p10', 'p25', 'p75', 'p90', 'p99',
                    'ci95_lo', 'ci95_hi', 'within_ci95_lo', 'within_ci95_hi'):
            if isinstance(s.get(key), (int, float)):
                s[key] *= f
        if f < 0:
            s['min'], s['max'] = s['max'], s['min']
        s['round_medians'] = [x * f for x in s.get('round_medians', [])]
        s['stddev'] = s.get('stddev', 0) * abs(f)
json.dump(r, open(dst, 'w'))
PY
}

compare() { # OUT.json FILES... : the exit status after the json
  local out="$1"; shift
  set +e
  "$bin" compare --json "$@" > "$out"
  local code=$?
  set -e
  echo "$code"
}

results=()
for i in $(seq 1 $((n - 1))); do
  code=$(compare "$work/aa$i.json" "${files[$((i - 1))]}" "${files[$i]}")
  results+=("aa:$i:$code:$work/aa$i.json")
done
for k in 1.05 1.10 1.25; do
  scale "${files[1]}" "$work/worse$k.json" "$k"
  code=$(compare "$work/inj$k.json" "${files[0]}" "$work/worse$k.json")
  results+=("inj:$k:$code:$work/inj$k.json")
done
for k in 0.7 1.4; do
  scale "${files[0]}" "$work/speedup$k.json" "$k" parallel.average speedup
  code=$(compare "$work/sp$k.json" "${files[0]}" "$work/speedup$k.json")
  results+=("sp:$k:$code:$work/sp$k.json")
done

python3 - "${files[@]}" -- "${results[@]}" <<'PY'
import json, statistics, sys
args = sys.argv[1:]
cut = args.index('--')
files, results = args[:cut], args[cut + 1:]
med = statistics.median
canary = []
for f in files:
    r = json.load(open(f))
    c = [x[k]['syscall_ns'] for e in r['experiments'] for x in e.get('round_log', [])
         for k in ('canary_start', 'canary_end')]
    canary.append(f"{med(c):.0f}" if c else "n/a")
print(f"host state: canary (a bare system call) per run, median ns: {', '.join(canary)}")
def pct(a, b):
    return f"{100 * a / max(b, 1):.1f}%"
for line in results:
    kind, what, code, path = line.split(':', 3)
    c = json.load(open(path))
    rows = c['rows']
    directional = [r for r in rows if r['better'] in ('lower', 'higher')]
    mdes = [r['mde'] for r in rows if isinstance(r['mde'], (int, float))]
    count = lambda rs, v: sum(r['verdict'] == v for r in rs)
    if kind == 'aa':
        alarms = count(rows, 'regressed') + count(rows, 'improved')
        print(f"A/A pair {what}: exit {code}; regressed or improved {pct(alarms, len(rows))} of {len(rows)} rows; "
              f"inconclusive {pct(count(rows, 'inconclusive'), len(rows))}; unchanged {pct(count(rows, 'unchanged'), len(rows))}; "
              f"median mde {med(mdes):.1f}%; could see 10%: {c['see_10pct']} of {c['with_mde']}")
    elif kind == 'inj':
        k = float(what)
        settled = [r for r in directional if r.get('reason') != 'flagged']
        seen = [r for r in settled if isinstance(r['mde'], (int, float)) and r['mde'] <= 100 * (k - 1)]
        mde20 = [r for r in settled if isinstance(r['mde'], (int, float)) and r['mde'] <= 20]
        print(f"injected x{k}: exit {code}; of {len(settled)} settled directional series: regressed {pct(count(settled, 'regressed'), len(settled))}, "
              f"unchanged {pct(count(settled, 'unchanged'), len(settled))}, inconclusive {pct(count(settled, 'inconclusive'), len(settled))}; "
              f"regressed among mde <= {100 * (k - 1):.0f}%: {pct(count(seen, 'regressed'), len(seen))} of {len(seen)}; "
              f"among mde <= 20%: {pct(count(mde20, 'regressed'), len(mde20))} of {len(mde20)}; median mde {med(mdes):.1f}%")
    else:
        sp = [r for r in rows if r['experiment'] == 'parallel.average' and r['metric'] == 'speedup']
        print(f"parallel.average speedups x{what}: exit {code}; of {len(sp)} speedup rows: regressed {count(sp, 'regressed')}, "
              f"improved {count(sp, 'improved')}, inconclusive {count(sp, 'inconclusive')}")
PY
