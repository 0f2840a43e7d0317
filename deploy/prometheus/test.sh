#!/usr/bin/env bash
# The Prometheus recipe, for real, on this machine and on loopback only:
#   - node_exporter (Debian's prometheus-node-exporter) with its textfile
#     collector on a private folder standing for the one the systemd unit
#     writes to (/var/lib/node_exporter/textfile_collector);
#   - a Prometheus server (Debian's prometheus) scraping it every second,
#     with tasklab-rules.yml loaded;
#   - the unit's own command (ExecStart of
#     deploy/systemd/tasklab-nightly.service, its paths moved into the
#     private folder, one short experiment added) run once;
# then the checks:
#   1. Prometheus' HTTP API returns every tasklab_summary_* sample of the
#      file the run wrote, with its labels and its value;
#   2. the server loaded the alerting rules and evaluates them without error;
#   3. `promtool check rules` and `promtool test rules` (tasklab-rules.test.yml);
#   0. (first) bad input: a package that cannot be installed, a port in use:
#      a message naming the cause, and nothing left running.
# Every daemon is stopped and the folder removed on every exit (trap).
#
#   deploy/prometheus/test.sh            # from anywhere
#
# TASKLAB_BIN           the binary (default: target/debug/tasklab, built)
# TASKLAB_PROM_PORT, TASKLAB_NODE_EXPORTER_PORT
#                       the ports on 127.0.0.1 (default: free ones, chosen)
# TASKLAB_PROM_EXPERIMENTS
#                       the experiments the unit's command runs (default
#                       yardstick.syscall: a Summary quantity, in seconds)
# TASKLAB_PROM_NEEDS    the commands needed and their Debian packages,
#                       "cmd:package ..." (for the bad-input check)
set -euo pipefail

me=deploy/prometheus/test.sh
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=../daemons.sh
source "$root/deploy/daemons.sh"
started=$SECONDS

work=""
cleanup() {
    stop_daemons
    [[ -z "$work" ]] || rm -rf -- "$work"
}
on_exit cleanup

for need_pair in ${TASKLAB_PROM_NEEDS:-prometheus:prometheus promtool:prometheus \
    prometheus-node-exporter:prometheus-node-exporter curl:curl}; do
    need "${need_pair%%:*}" "${need_pair#*:}"
done

if [[ -z "${TASKLAB_BIN:-}" ]]; then
    (cd "$root" && cargo build --locked --quiet)
    TASKLAB_BIN=$root/target/debug/tasklab
fi
bin=$(cd "$(dirname "$TASKLAB_BIN")" && pwd)/$(basename "$TASKLAB_BIN")
[[ -x "$bin" ]] || die "TASKLAB_BIN=$TASKLAB_BIN is not an executable"

work=$(mktemp -d "${TMPDIR:-/tmp}/tasklab-prometheus.XXXXXX")
fail() {
    echo "$me: FAILED: $*" >&2
    exit 1
}

# 0. Bad input, each in a run of this script of its own (TMPDIR private,
#    so what it leaves is seen): the cause named, nothing left running.
if [[ -z "${TASKLAB_PROM_CHILD:-}" ]]; then
    # Whether anything still runs, or is left on disk, from a child's TMPDIR.
    left_by() {
        local tmp=$1 p
        [[ -z "$(ls -A "$tmp")" ]] || fail "the failed run left $(ls -A "$tmp") in its TMPDIR"
        for p in /proc/[0-9]*; do
            if { tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null | grep -qF -- "$tmp/"; then
                fail "the failed run left pid ${p#/proc/} running: $(tr '\0' ' ' <"$p/cmdline")"
            fi
        done
    }
    child() {
        local tmp=$1
        shift
        mkdir "$tmp"
        env TASKLAB_PROM_CHILD=1 TMPDIR="$tmp" TASKLAB_BIN="$bin" "$@" bash "$0" 2>&1
    }

    if out=$(child "$work/tmp-package" TASKLAB_PROM_NEEDS="tasklab-no-such-command:tasklab-no-such-package"); then
        fail "it went on without tasklab-no-such-package"
    fi
    grep -q "tasklab-no-such-package cannot be installed" <<<"$out" ||
        fail "a package that cannot be installed is not named: $out"
    left_by "$work/tmp-package"
    echo "ok: a package that cannot be installed is named, nothing started"

    # The server's port held by a listener of ours: node_exporter has
    # started by then, and must be stopped.
    start_daemon "port holder" "$work/holder.log" python3 -c 'import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen()
print(s.getsockname()[1], flush=True)
time.sleep(600)'
    wait_for "port holder" 10 grep -q . "$work/holder.log"
    held=$(head -1 "$work/holder.log")
    if out=$(child "$work/tmp-port" TASKLAB_PROM_PORT="$held"); then
        fail "it went on with port $held in use"
    fi
    grep -q "port $held on 127.0.0.1, for the Prometheus server, is in use" <<<"$out" ||
        fail "a port in use is not named: $out"
    grep -q "started node_exporter" <<<"$out" ||
        fail "node_exporter was not started before the server's port was checked: $out"
    left_by "$work/tmp-port"
    stop_daemons
    echo "ok: a port in use is named, node_exporter started before it stopped"
fi

# node_exporter: the textfile collector alone, on the folder the unit
# writes to (here a private one).
textfile=$work/textfile_collector
mkdir "$textfile"
ne_port=${TASKLAB_NODE_EXPORTER_PORT:-$(free_port)}
check_port node_exporter "$ne_port" TASKLAB_NODE_EXPORTER_PORT
start_daemon node_exporter "$work/node_exporter.log" prometheus-node-exporter \
    --web.listen-address="127.0.0.1:$ne_port" \
    --collector.disable-defaults --collector.textfile \
    --collector.textfile.directory="$textfile"
wait_for node_exporter 30 curl -fsS "http://127.0.0.1:$ne_port/metrics"
echo "started node_exporter on 127.0.0.1:$ne_port (pid $daemon_pid)"

# The server: scrapes node_exporter every second, evaluates the rules
# every second.
prom_port=${TASKLAB_PROM_PORT:-$(free_port)}
check_port "the Prometheus server" "$prom_port" TASKLAB_PROM_PORT
cat >"$work/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $here/tasklab-rules.yml
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ["127.0.0.1:$ne_port"]
EOF
start_daemon prometheus "$work/prometheus.log" prometheus \
    --config.file="$work/prometheus.yml" \
    --storage.tsdb.path="$work/prometheus-data" \
    --web.listen-address="127.0.0.1:$prom_port"
api=http://127.0.0.1:$prom_port/api/v1
wait_for prometheus 60 curl -fsS "http://127.0.0.1:$prom_port/-/ready"
echo "started prometheus on 127.0.0.1:$prom_port (pid $daemon_pid)"

# The unit's own command, its paths moved here, the experiments added.
read -ra experiments <<<"${TASKLAB_PROM_EXPERIMENTS:-yardstick.syscall}"
mapfile -t cmd < <(python3 - "$root/deploy/systemd/tasklab-nightly.service" "$bin" "$work" "${experiments[@]}" <<'EOF'
import shlex, sys
unit, binary, work, *experiments = sys.argv[1:]
lines = [l.strip() for l in open(unit)]
exec_start = [l for l in lines if l.startswith("ExecStart=")]
assert len(exec_start) == 1, f"{unit}: {len(exec_start)} ExecStart lines"
argv = shlex.split(exec_start[0][len("ExecStart="):])
assert argv[0] == "/usr/local/bin/tasklab" and argv[1] == "run", argv
moved = {"/usr/local/bin/tasklab": binary}
out = []
for a in argv:
    a = moved.get(a, a)
    for old, new in (("/var/lib/node_exporter/textfile_collector", f"{work}/textfile_collector"),
                     ("/var/lib/tasklab", f"{work}/state")):
        if a.startswith(old + "/"):
            a = new + a[len(old):]
    out.append(a)
print("\n".join(out[:2] + experiments + out[2:]))
EOF
)
prom_file=""
for ((i = 0; i < ${#cmd[@]}; i++)); do
    [[ ${cmd[i]} != --export-openmetrics ]] || prom_file=${cmd[i + 1]}
done
[[ $prom_file == "$textfile/"* ]] || fail "the unit's command writes no file into the textfile folder: ${cmd[*]}"
mkdir -p "$work/state"
echo "the unit's command: ${cmd[*]}"
"${cmd[@]}" --quiet >"$work/run.log" 2>&1 || fail "the unit's command failed: $(tail -n 20 "$work/run.log")"
[[ -s "$prom_file" ]] || fail "the unit's command wrote no $prom_file"

# 1. Every tasklab_summary_* sample of the file, through the API, with
#    its labels and value (polled until scraped, 60 s at most).
python3 - "$prom_file" "$api" <<'EOF' || fail "Prometheus did not return the file's tasklab_summary_* samples"
import json, re, sys, time, urllib.parse, urllib.request

path, api = sys.argv[1:]
line_re = re.compile(r'^(tasklab_summary[a-z0-9_]*)\{(.*)\} (\S+)$')
label_re = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
unescape = lambda s: re.sub(r'\\(.)', lambda m: {"n": "\n"}.get(m.group(1), m.group(1)), s)
want = []
for line in open(path):
    m = line_re.match(line.strip())
    if m:
        labels = {k: unescape(v) for k, v in label_re.findall(m.group(2))}
        labels["__name__"] = m.group(1)
        want.append((labels, float(m.group(3))))
families = {l["__name__"] for l, _ in want}
if not any(n.endswith("_seconds") and "_ci95_" not in n for n in families):
    sys.exit(f"{path} has no tasklab_summary_*_seconds sample: {sorted(families)}")
query = '{__name__=~"tasklab_summary.*"}'
url = f"{api}/query?" + urllib.parse.urlencode({"query": query})
deadline = time.time() + 60
while True:
    got = json.load(urllib.request.urlopen(url, timeout=10))["data"]["result"]
    missing = []
    for labels, value in want:
        hits = [g for g in got if all(g["metric"].get(k) == v for k, v in labels.items())]
        if len(hits) != 1 or float(hits[0]["value"][1]) != value:
            missing.append((labels, value, [h["value"][1] for h in hits]))
    if not missing:
        break
    if time.time() > deadline:
        for labels, value, seen in missing[:5]:
            print(f"not found: {labels} = {value!r} (seen: {seen})", file=sys.stderr)
        sys.exit(1)
    time.sleep(0.5)
quantities = sorted({l["quantity"] for l, _ in want})
print(f"ok: Prometheus returns the file's {len(want)} tasklab_summary_* samples "
      f"({len(families)} families; {', '.join(quantities)}) with their labels and values, "
      f"label {want[0][0]['label']!r}")
EOF

# 2. The rules loaded by the server and evaluated without error.
python3 - "$api" <<'EOF' || fail "the server did not evaluate tasklab-rules.yml"
import json, sys, time, urllib.request
api = sys.argv[1]
deadline = time.time() + 30
while True:
    groups = json.load(urllib.request.urlopen(f"{api}/rules", timeout=10))["data"]["groups"]
    rules = {r["name"]: r for g in groups for r in g["rules"]}
    health = {n: (r.get("health"), r.get("lastError", "")) for n, r in rules.items()}
    want = {"TasklabSummaryRegressed", "TasklabSpeedupFell"}
    if want <= set(rules) and all(health[n][0] == "ok" for n in want):
        break
    if time.time() > deadline:
        sys.exit(f"the rules' health: {health}")
    time.sleep(0.5)
print(f"ok: the server loaded and evaluates {', '.join(sorted(want))}")
EOF

# 3. The rules checked and unit-tested by promtool.
(cd "$here" && promtool check rules tasklab-rules.yml >/dev/null && promtool test rules tasklab-rules.test.yml >/dev/null) ||
    fail "promtool: $(cd "$here" && promtool check rules tasklab-rules.yml 2>&1; promtool test rules tasklab-rules.test.yml 2>&1)"
echo "ok: promtool check rules and promtool test rules (tasklab-rules.test.yml)"

stop_daemons
echo "$me: passed in $((SECONDS - started)) s"
