#!/usr/bin/env bash
# `tasklab predict` held against a real program's own fork timing: Redis's
# latest_fork_usec (the time its fork() took in the parent, which Redis
# measures itself around the call), at a few sizes.
#
#   bench/predict-redis.sh [MIB...]      # default: 100 1024 4096
#
# For each size, smallest first, in one Redis grown from size to size:
#   1. fills it to MIB MiB of used_memory (DEBUG POPULATE, values of 1 KiB);
#   2. runs `tasklab predict --pid <redis> --replay --json` (its slopes from a fresh
#      short run, as a user's first call, which adds a heap reaching Redis's
#      page tables where memory allows: about the size's again, briefly);
#   3. triggers BGSAVE K times, one at a time, reads latest_fork_usec
#      after each (INFO stats), and stops the saving child at once (SIGUSR1,
#      which Redis takes as an aborted save, not an error) unless
#      TASKLAB_REDIS_FULL_SAVE=1: the fork is timed in the parent before the
#      child does anything, so writing gigabytes to disk adds nothing to it;
#      each save is waited for before the next, and Redis then left idle
#      TASKLAB_REDIS_IDLE_MS before the next BGSAVE;
# then prints, per size, the predicted median fork (with its 95% interval)
# and the spread of a single fork (10th to 90th percentile), warm (forks
# back to back) and cold (forks after a pause), beside Redis's median fork
# and how many of its single forks fell in each spread; and predict's
# replay (the cold fork of Redis's own frame layout replayed, root only:
# the prediction where it was built, `predicted_by`) beside the model's
# cold figures, held against it the same way.
#
# Redis runs on 127.0.0.1 only, in a private folder (its config, its dir:
# no file written anywhere else), `enable-debug-command local` in its own
# config (DEBUG for this instance alone, from loopback), no persistence
# (`save ""`, no AOF). Redis, its saving child and the folder are gone on
# every exit.
#
# TASKLAB_REDIS_PORT     the port (default: a free one, chosen)
# TASKLAB_REDIS_BGSAVES  K, the forks per size (default 20)
# TASKLAB_REDIS_FULL_SAVE=1  let each save write its file (slow at 4 GiB)
# TASKLAB_REDIS_IDLE_MS  Redis left idle this long after each save, before the
#                        next BGSAVE, ms (default 0: the next as soon as
#                        the last is seen gone, at least 0.1 s after its
#                        fork; 300 is predict's cold pause, pause_ms)
# TASKLAB_REDIS_BEFORE   J, BGSAVEs timed the same way before predict runs
#                        (default 0): Redis's own fork over the minutes
#                        predict takes, its drift from one run to the next
# TASKLAB_REDIS_KEEP     a folder (existing) to copy predict's --json output
#                        for each size into, as predict-MIB.json, and every
#                        size's row (Redis's forks with it) as rows.jsonl
# TASKLAB_REDIS_NEEDS    the commands needed and their Debian packages,
#                        "cmd:package ..." (for the bad-input test)
# TASKLAB_BIN            the binary (default: target/release/tasklab, built)
# Needs root to install redis-server when it is missing (apt-get).
set -euo pipefail

me=bench/predict-redis.sh
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../deploy/daemons.sh
source "$root/deploy/daemons.sh"

# Everything asked is checked before anything is installed or started.
sizes=("$@")
((${#sizes[@]})) || sizes=(100 1024 4096)
for s in "${sizes[@]}"; do
    [[ "$s" =~ ^[0-9]{1,6}$ ]] && ((10#$s >= 1)) || die "'$s' is not a size in MiB (a whole number from 1)"
done
mapfile -t sizes < <(for s in "${sizes[@]}"; do echo $((10#$s)); done | sort -n -u)
avail_mib=$(awk '/^MemAvailable:/ {print int($2 / 1024)}' /proc/meminfo)
largest=${sizes[${#sizes[@]} - 1]}
# Redis's own overhead and the save child's copies: room for 1.5 times.
((largest * 3 / 2 <= avail_mib)) ||
    die "$largest MiB asked, but only $avail_mib MiB of memory is available (1.5 times the size is needed)"
keep=${TASKLAB_REDIS_KEEP:-}
[[ -z "$keep" || -d "$keep" ]] || die "TASKLAB_REDIS_KEEP=$keep is not a folder"
k=${TASKLAB_REDIS_BGSAVES:-20}
[[ "$k" =~ ^[0-9]{1,4}$ ]] && ((10#$k >= 1)) || die "TASKLAB_REDIS_BGSAVES=$k is not a count from 1"
k=$((10#$k))
before=${TASKLAB_REDIS_BEFORE:-0}
[[ "$before" =~ ^[0-9]{1,4}$ ]] || die "TASKLAB_REDIS_BEFORE=$before is not a count from 0"
before=$((10#$before))
idle_ms=${TASKLAB_REDIS_IDLE_MS:-0}
[[ "$idle_ms" =~ ^[0-9]{1,5}$ ]] || die "TASKLAB_REDIS_IDLE_MS=$idle_ms is not a whole number of ms (0 to 99999)"
idle_ms=$((10#$idle_ms))
port=${TASKLAB_REDIS_PORT:-$(free_port)}
check_port redis-server "$port" TASKLAB_REDIS_PORT

for need_pair in ${TASKLAB_REDIS_NEEDS:-redis-server:redis-server redis-cli:redis-tools}; do
    need "${need_pair%%:*}" "${need_pair#*:}"
done
if [[ -z "${TASKLAB_BIN:-}" ]]; then
    (cd "$root" && cargo build --release --locked --quiet)
    TASKLAB_BIN=$root/target/release/tasklab
fi
bin=$(cd "$(dirname "$TASKLAB_BIN")" && pwd)/$(basename "$TASKLAB_BIN")
[[ -x "$bin" ]] || die "TASKLAB_BIN=$TASKLAB_BIN is not an executable"

work=""
redis_pid=""
# The saving child, if one runs: stopped (SIGUSR1: an aborted save) and
# waited for until it is gone.
stop_child() {
    local c t
    [[ -n "$redis_pid" ]] || return 0
    for ((t = 0; t < 100; t++)); do
        c=$(cat "/proc/$redis_pid/task/$redis_pid/children" 2>/dev/null) || return 0
        [[ -n "${c// /}" ]] || return 0
        # shellcheck disable=SC2086
        kill -USR1 $c 2>/dev/null || true
        sleep 0.1
    done
    # shellcheck disable=SC2086
    kill -KILL $c 2>/dev/null || true
}
cleanup() {
    stop_child
    stop_daemons
    [[ -z "$work" ]] || rm -rf -- "$work"
}
on_exit cleanup

work=$(mktemp -d "${TMPDIR:-/tmp}/tasklab-redis.XXXXXX")
mkdir "$work/data"
cat >"$work/redis.conf" <<EOF
bind 127.0.0.1
port $port
protected-mode yes
daemonize no
dir $work/data
dbfilename dump.rdb
save ""
appendonly no
enable-debug-command local
rdbcompression no
rdbchecksum no
EOF
start_daemon redis-server "$work/redis.log" redis-server "$work/redis.conf"
redis_pid=$daemon_pid
cli() { redis-cli -h 127.0.0.1 -p "$port" "$@"; }
wait_for redis-server 30 cli ping
info() { cli INFO "$1" | tr -d '\r' | sed -n "s/^$2:\(.*\)/\1/p"; }
echo "redis-server $(redis-server --version | sed -n 's/.*v=\([^ ]*\).*/\1/p') on 127.0.0.1:$port, pid $redis_pid, in $work" >&2
echo "tasklab env:" >&2
"$bin" env 2>&1 | sed 's/^/  /' >&2

results=$work/rows.jsonl
# N BGSAVEs, one at a time, each fork's latest_fork_usec added to forks.
bgsaves() {
    local i reply end
    for ((i = 0; i < $1; i++)); do
        reply=$(cli BGSAVE | tr -d '\r')
        [[ $reply == "Background saving started" ]] || die "BGSAVE at $mib MiB: $reply"
        forks+=("$(info stats latest_fork_usec)")
        [[ "${TASKLAB_REDIS_FULL_SAVE:-0}" == 1 ]] || stop_child
        end=$((SECONDS + 600))
        until [[ $(info persistence rdb_bgsave_in_progress) == 0 ]]; do
            ((SECONDS < end)) || die "the save at $mib MiB did not finish in 600 s"
            sleep 0.05
        done
        ((idle_ms == 0)) || sleep "$((idle_ms / 1000)).$(printf %03d $((idle_ms % 1000)))"
    done
}
prefix=0
for mib in "${sizes[@]}"; do
    # 1. Filled to MIB MiB of used_memory, in steps of what is missing.
    target=$((mib << 20))
    while :; do
        used=$(info memory used_memory)
        ((used < target)) || break
        prefix=$((prefix + 1))
        count=$(((target - used) / 1200 + 1))
        cli DEBUG POPULATE "$count" "k$prefix:" 1024 >/dev/null
    done
    # 2. J forks before the prediction, when asked: Redis's own drift.
    forks=()
    bgsaves "$before"
    early=("${forks[@]}")
    # 3. The prediction, as a user would ask it.
    pred=$work/predict-$mib.json
    "$bin" predict --pid "$redis_pid" --replay --json >"$pred" 2>"$work/predict-$mib.err" ||
        die "tasklab predict failed at $mib MiB: $(tail -n 5 "$work/predict-$mib.err")"
    [[ -z "$keep" ]] || cp -- "$pred" "$keep/predict-$mib.json"
    # 4. K forks of Redis's own, each waited for.
    forks=()
    bgsaves "$k"
    load=$(cut -d' ' -f1 /proc/loadavg)
    python3 - "$pred" "$mib" "$(info memory used_memory)" "$load" "${early[*]}" "${forks[@]}" >>"$results" <<'EOF'
import json, sys
pred, mib, used, load, early, *forks = sys.argv[1:]
v = json.load(open(pred))
print(json.dumps({"mib": int(mib), "used_memory": int(used), "load": float(load),
                  "process": v["process"], "prediction": v["prediction"],
                  "replay": v.get("replay"), "replay_skipped": v.get("replay_skipped"),
                  "predicted_by": v.get("predicted_by"), "predicted_by_why": v.get("predicted_by_why"),
                  "forks_us": [int(f) for f in forks],
                  "forks_before_us": [int(f) for f in early.split()]}))
EOF
    echo "$mib MiB: predicted and $k forks measured (load average $load)" >&2
done

[[ -z "$keep" ]] || cp -- "$results" "$keep/rows.jsonl"
python3 - "$results" "$k" "$idle_ms" <<'EOF'
import json, os, statistics, sys
path, k, idle_ms = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def ms(ns):
    return f"{ns / 1e6:.2f} ms" if ns >= 1e6 else f"{ns / 1e3:.0f} µs"
rows = [json.loads(l) for l in open(path)]
idle = f", Redis idle {idle_ms} ms before each" if idle_ms else ", each at once after the last"
print(f"Redis's fork (latest_fork_usec, {k} BGSAVEs a size{idle}) against tasklab predict --pid:")
print("the warm prediction (forks back to back) and the cold one (forks after a pause), each held against it")
print()
print("| used_memory | VmPTE | frames in a row | prediction | median fork [95% interval] | single fork (p10 to p90) "
      "| Redis: median fork | Redis: single forks (min to max) | median inside | singles inside | load |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
met = {"warm": True, "cold": True, "replay": True}
met_row = {}
for i, r in enumerate(rows):
    p, proc = r["prediction"], r["process"]
    forks = [f * 1e3 for f in r["forks_us"]]
    med = statistics.median(forks)
    cold = p.get("cold_fork")
    adj = proc.get("frames_adjacent_pct")
    size = (f"| {r['used_memory'] / 2**20:,.0f} MiB | {proc['vm_pte_kib']:,} KiB | "
            + ("hidden" if adj is None else f"{adj:.0f}%"))
    redis = f"{ms(med)} | {ms(min(forks))} to {ms(max(forks))}"
    for kind, m, one, extrapolated in [
        ("warm", p["parent_return_ns"], p.get("single_fork_ns"), p["extrapolated"]),
        ("cold", cold and cold["parent_return_ns"], cold and cold["single_fork_ns"],
         cold and cold["extrapolated"]),
        ("replay", r.get("replay") and r["replay"]["parent_return_ns"],
         r.get("replay") and r["replay"]["single_fork_ns"], False),
    ]:
        if not m:
            met[kind] = met_row[(kind, i)] = False
            print(f"{size} | {kind} | (none) | (none) | {redis} | - | - | {r['load']:.1f} |")
            continue
        # latest_fork_usec is whole µs: a fork within half a µs of an end is in.
        inside = m["lo"] - 500 <= med <= m["hi"] + 500
        if one:
            n_in = sum(one["p10"] - 500 <= f <= one["p90"] + 500 for f in forks)
            single = f"{ms(one['p10'])} to {ms(one['p90'])}"
            share = f"{n_in}/{len(forks)} ({100 * n_in / len(forks):.0f}%)"
            met_row[(kind, i)] = n_in >= 0.8 * len(forks)
        else:
            single, share, met_row[(kind, i)] = "(none)", "-", False
        met_row[(kind, i)] = met_row[(kind, i)] and inside
        met[kind] = met[kind] and met_row[(kind, i)]
        extra = " (extrapolated)" if extrapolated else ""
        print(f"{size} | {kind} | {ms(m['median'])} [{ms(m['lo'])}, {ms(m['hi'])}]{extra} | {single} "
              f"| {redis} | {'yes' if inside else 'no'} | {share} | {r['load']:.1f} |")
print()
print(f"load: the 1-minute load average after the forks, on {os.cpu_count()} CPUs")
print("frames in a row: the share of Redis's anonymous pages in runs of 8 or more whose physical frames are each next to the one before, after or before it (root only)")
for r in rows:
    f = (r["prediction"].get("cold_fork") or {}).get("frames")
    if f:
        layouts = [f"{f[k]:.0f}% {w}" for k, w in (("scattered_pct", "scattered"), ("touched_pct", "as touched"),
                                                   ("contiguous_pct", "in a row")) if f.get(k) is not None]
        where = {None: "between two of them", "more_contiguous": "MORE CONTIGUOUS than every heap (priced as the most contiguous, not extrapolated)",
                 "more_scattered": "MORE SCATTERED than every heap (priced as the most scattered, not extrapolated)"}[f.get("outside")]
        near = ""
        q = r["process"].get("frames_near_pct")
        if q is not None:
            fill, in_row = r["process"].get("frames_near_fill_pct"), r["process"].get("frames_near_in_row_pct") or 0
            near = (f"; outside the runs, {q:.0f}% of Redis's pages near the pages before (in one of the last 8 blocks of 512 frames "
                    f"they lay in)" + (f", their blocks {fill:.0f}% full with Redis's pages on average: counted as {in_row:.0f}% more in a row, "
                                       f"placed at {f['process_pct']:.0f}%" if fill is not None else ""))
        runs = r["process"].get("frames_adjacent_pct")
        runs = f['process_pct'] if runs is None else runs
        print(f"placed at {r['mib']} MiB: Redis {runs:.0f}% of its pages in runs of frames in a row, predict's heaps "
              f"{', '.join(layouts)}: Redis {where}{near}")
for r in rows:
    proc = r["process"]
    e, t = proc.get("anon_pte_entries"), proc.get("anon_pte_tables")
    if e and t:
        print(f"page tables at {r['mib']} MiB: VmPTE {proc['vm_pte_kib']:,} KiB, its anonymous memory's {e:,} entries in {t:,} tables "
              f"({100 * e / (512 * t):.1f}% full; the empty part priced at a table's own share)")
    h = r["prediction"].get("host_memory") or {}
    if h.get("slopes_fresh_page_ns") and h.get("now_fresh_page_ns"):
        print(f"host memory at {r['mib']} MiB (the memory canary's fresh page): {h['slopes_fresh_page_ns']:,.0f} ns over predict's rounds, "
              f"{h['now_fresh_page_ns']:,.0f} ns at the prediction")
for r in rows:
    p = r["prediction"]
    tau = [f"warm {100 * p['run_noise']:.1f}%"] if p.get("run_noise") is not None else []
    if (p.get("cold_fork") or {}).get("run_noise") is not None:
        tau.append(f"cold {100 * p['cold_fork']['run_noise']:.1f}%")
    if tau:
        print(f"run-to-run noise the medians' intervals hold for Redis's fork as a run of its own at {r['mib']} MiB: "
              f"τ {', '.join(tau)} (sd in logs)")
    early = r.get("forks_before_us") or []
    if early:
        a, b = statistics.median(early), statistics.median(r["forks_us"])
        print(f"Redis before predict at {r['mib']} MiB: median fork {ms(a * 1e3)} ({ms(min(early) * 1e3)} to "
              f"{ms(max(early) * 1e3)}, {len(early)} forks), after: {ms(b * 1e3)}: {100 * (b / a - 1):+.1f}% over predict's run")
for r in rows:
    why = r["prediction"].get("extrapolated_why")
    if why:
        print(f"extrapolated at {r['mib']} MiB: {why}")
print("replay: the cold fork of the process's layout replayed, the prediction where it was built; cold: the model's, placed by its layout's shares, the prediction where not")
for r in rows:
    rp = r.get("replay")
    if rp:
        sh = lambda s: f"{s['runs_pct']:.0f}% in runs, {s['near_pct']:.0f}% near, {s['scattered_pct']:.0f}% scattered"
        print(f"replayed at {r['mib']} MiB: {rp['pages']:,} pages in {rp['blocks']:,} blocks ({rp['blocks_whole']:,} whole), "
              f"{rp['pages_not_placed']:,} not placed, built in {rp['build_ms']:,.0f} ms; read back {sh(rp['replayed'])} against Redis's {sh(rp['process'])}")
    else:
        print(f"not replayed at {r['mib']} MiB: {r.get('replay_skipped')}")
for r in rows:
    by = r.get("predicted_by") or "model"
    print(f"the prediction at {r['mib']} MiB: the " + ("replay" if by == "replay" else f"model ({r.get('predicted_by_why')})"))
for kind in ("warm", "cold", "replay"):
    print(f"target met by the {kind} figures: " + ("yes" if met[kind] else "no") +
          " (Redis's median fork inside the median's interval at every size, and at least 80% of its single forks inside the single-fork spread)")
# The prediction: the replay where predict built it, the model's cold figures where not.
ok = all(met_row[("replay" if r.get("predicted_by") == "replay" else "cold", i)] for i, r in enumerate(rows))
print("target met by the prediction: " + ("yes" if ok else "no"))
EOF
