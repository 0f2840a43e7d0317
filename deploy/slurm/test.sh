#!/usr/bin/env bash
# The Slurm recipe, for real: a one-node cluster on this machine (munged,
# slurmctld and slurmd from Debian's slurm-wlm and munge, installed when
# missing; every file of theirs in a private folder, the node reached on
# loopback), deploy/slurm/tasklab.sbatch submitted as a user submits it (an
# array of two, selftest.spin with three rounds), then the checks:
#   1. both array tasks completed, exit code 0,
#   2. each wrote its results.json, labelled with the node's name (read back
#      with tasklab itself),
#   3. the matrix of the two (tasklab report FILE FILE) has a column for each.
# Every daemon it started is stopped however it ends (trap).
#
#   deploy/slurm/test.sh            # from the repository's root, as root
#
# TASKLAB_BIN         the binary to submit (default: target/debug/tasklab, built)
# TASKLAB_SLURM_PORT  slurmctld's port, slurmd's the next one (default: two free
#                     ports the kernel picks); a port in use is refused
# TASKLAB_SLURM_WAIT  seconds to wait for the array (default 300)
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
me=deploy/slurm/test.sh

fail() {
    echo "$me: FAILED: $*" >&2
    exit 1
}

# slurmd starts each job as its user (setuid), and the packages are
# installed with apt-get: both need root.
[[ $(id -u) == 0 ]] || fail "run it as root: slurmd starts jobs as their user, and slurm-wlm/munge are installed with apt-get"

wait_s=${TASKLAB_SLURM_WAIT:-300}
[[ "$wait_s" =~ ^[1-9][0-9]{0,4}$ ]] || fail "TASKLAB_SLURM_WAIT='$wait_s' is not a number of seconds (1 to 99999)"

if [[ -z "${TASKLAB_BIN:-}" ]]; then
    cargo build --locked --quiet
    TASKLAB_BIN=$root/target/debug/tasklab
fi
bin=$(cd "$(dirname "$TASKLAB_BIN")" && pwd)/$(basename "$TASKLAB_BIN")
[[ -x "$bin" ]] || fail "TASKLAB_BIN=$TASKLAB_BIN is not an executable"

# The node is this machine by its name (slurmctld serves only the host
# its SlurmctldHost names), and the daemons listen on the address the name
# resolves to (NoCtldInAddrAny, NoInAddrAny): it must be a loopback one.
node=$(hostname -s)
addr=$(getent ahostsv4 "$node" | awk 'NR == 1 { print $1 }')
[[ "$addr" == 127.* ]] \
    || fail "this machine's name $node resolves to '$addr', not a loopback address (127.x): the daemons would listen there; add '127.0.1.1 $node' to /etc/hosts"

# Ports: slurmctld's and slurmd's, on that address. Given: checked free.
# Not given: two the kernel says are free now.
port_free() {
    python3 - "$addr" "$1" <<'EOF'
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind((sys.argv[1], int(sys.argv[2])))
except OSError:
    sys.exit(1)
EOF
}
if [[ -n "${TASKLAB_SLURM_PORT:-}" ]]; then
    if ! [[ "$TASKLAB_SLURM_PORT" =~ ^[1-9][0-9]{0,4}$ ]] || ((TASKLAB_SLURM_PORT < 1024 || TASKLAB_SLURM_PORT > 65534)); then
        fail "TASKLAB_SLURM_PORT='$TASKLAB_SLURM_PORT' is not a port from 1024 to 65534"
    fi
    ctld_port=$TASKLAB_SLURM_PORT
    slurmd_port=$((ctld_port + 1))
else
    read -r ctld_port slurmd_port < <(python3 - "$addr" <<'EOF'
import socket, sys
s = [socket.socket() for _ in range(2)]
for x in s:
    x.bind((sys.argv[1], 0))
print(*(x.getsockname()[1] for x in s))
EOF
    )
fi
for p in "$ctld_port:slurmctld" "$slurmd_port:slurmd"; do
    port_free "${p%%:*}" || fail "port ${p%%:*} (for ${p#*:}) is in use on $addr: set TASKLAB_SLURM_PORT to a free port (slurmd takes the next one), or leave it unset for two free ones"
done

# The packages, when missing: Debian's slurm-wlm (slurmctld, slurmd and the
# clients) and munge, without the recommended plugins (HDF5, InfluxDB, ...).
# apt-get never starts them here: the image's policy-rc.d says no, and
# without systemd there is nothing to start them.
missing=()
for cmd in munged munge unmunge slurmctld slurmd sbatch srun squeue scontrol scancel sinfo; do
    command -v "$cmd" >/dev/null 2>&1 || missing+=("$cmd")
done
if ((${#missing[@]})); then
    echo "$me: ${missing[*]} missing: installing slurm-wlm and munge with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    if ! { apt-get update -q && apt-get install -y -q --no-install-recommends slurm-wlm munge; } </dev/null; then
        fail "apt-get could not install slurm-wlm and munge (its message is above); install them, then run this again"
    fi
    for cmd in "${missing[@]}"; do
        command -v "$cmd" >/dev/null 2>&1 \
            || fail "apt-get installed slurm-wlm and munge, but there is still no $cmd on PATH"
    done
fi

work=$(mktemp -d /tmp/tasklab-slurm.XXXXXX)
mkdir -m 700 "$work/munge" "$work/state" "$work/spool" "$work/log" "$work/submit"
export SLURM_CONF=$work/slurm.conf

# Stop what was started, in reverse order, however the script ends: the
# jobs cancelled (their steps end with them), then slurmd, slurmctld and
# munged, each waited for; on failure each daemon's log's tail first.
pids=()
names=()
cleanup() {
    local rc=$?
    set +e
    if [[ -n "${ctld_pid:-}" ]] && kill -0 "$ctld_pid" 2>/dev/null; then
        scancel --quiet "--user=$(id -un)" 2>/dev/null
        for _ in $(seq 100); do
            [[ -z $(squeue -h -o %i 2>/dev/null) ]] && break
            sleep 0.2
        done
    fi
    local i
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        kill -TERM "${pids[i]}" 2>/dev/null
        local n=0
        while kill -0 "${pids[i]}" 2>/dev/null && ((n++ < 100)); do sleep 0.1; done
        if kill -0 "${pids[i]}" 2>/dev/null; then
            echo "$me: ${names[i]} (pid ${pids[i]}) did not stop in 10 s: killed" >&2
            kill -KILL "${pids[i]}" 2>/dev/null
        fi
        wait "${pids[i]}" 2>/dev/null
    done
    if ((rc != 0)); then
        for f in "$work"/log/*.log "$work"/submit/*.out; do
            [[ -s "$f" ]] || continue
            echo "--- ${f#"$work"/}, its last lines:" >&2
            tail -n 15 "$f" >&2
        done
    fi
    rm -rf "$work"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Start one daemon in the foreground (its own pid here, so the trap stops
# exactly it), its log (stderr: no LogFile, no syslog) into the folder.
start() {
    local name=$1
    shift
    "$@" >>"$work/log/$name.log" 2>&1 &
    pids+=("$!")
    names+=("$name")
}
# Wait up to $1 seconds for `$2...` to succeed; the daemon $name must stay up.
await() {
    local secs=$1 what=$2
    shift 2
    local end=$((SECONDS + secs))
    until "$@" >/dev/null 2>&1; do
        local i
        for i in "${!pids[@]}"; do
            kill -0 "${pids[i]}" 2>/dev/null || fail "${names[i]} exited while waiting for $what (its log is below)"
        done
        ((SECONDS < end)) || fail "no $what after $secs s"
        sleep 0.2
    done
}

# munged: a fresh key, its socket, pid, seed and log in the folder.
(umask 077 && head -c 1024 /dev/urandom >"$work/munge/munge.key")
start munged munged --foreground --force \
    "--key-file=$work/munge/munge.key" "--socket=$work/munge/munge.socket" \
    "--pid-file=$work/munge/munged.pid" "--seed-file=$work/munge/munged.seed" \
    "--log-file=$work/munge/munged.log"
await 10 "munge socket" test -S "$work/munge/munge.socket"
munge_answers() { munge -n -S "$work/munge/munge.socket" | unmunge -S "$work/munge/munge.socket"; }
await 10 "munge credential" munge_answers

# One node: this machine as slurmd -C sees it (CPUs, sockets, cores,
# memory), at its loopback address, where the daemons (and srun) listen. Plugins that need nothing of the machine: processes
# tracked by their parents (no cgroups), no task affinity, no accounting.
hw=$(slurmd -C | sed -n 's/^NodeName=[^ ]* //p')
[[ -n "$hw" ]] || fail "slurmd -C printed no NodeName line"
cat >"$SLURM_CONF" <<EOF
ClusterName=tasklab-ci
SlurmctldHost=$node($addr)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/munge.socket
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldDebug=info
SlurmdDebug=info
SlurmctldSyslogDebug=quiet
SlurmdSyslogDebug=quiet
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
ReturnToService=2
NodeName=$node NodeAddr=$addr $hw State=UNKNOWN
PartitionName=ci Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF

start slurmctld slurmctld -D -i
ctld_pid=${pids[-1]}
await 30 "answer from slurmctld on port $ctld_port" scontrol ping
start slurmd slurmd -D -N "$node"
node_idle() { [[ $(sinfo -h -N -n "$node" -o %T) == idle ]]; }
await 60 "idle node $node" node_idle
echo "ok: munged, slurmctld (port $ctld_port) and slurmd (port $slurmd_port) up; node $node idle"

# The user's submission: an array of two, the experiments as the script's
# arguments, the results folder and binary by the script's variables.
results=$work/results
cd "$work/submit"
job=$(TASKLAB_RESULTS=$results TASKLAB_BIN=$bin \
    sbatch --parsable --array=0-1 "$root/deploy/slurm/tasklab.sbatch" selftest.spin --rounds 3)
job=${job%%;*}
cd "$root"
[[ "$job" =~ ^[0-9]+$ ]] || fail "sbatch printed '$job', not a job id"
echo "submitted: job $job, an array of two"

# Wait until no task of the array is pending or running, then read each
# task's end (the controller keeps finished jobs for MinJobAge, 300 s).
job_ended() {
    local q
    q=$(squeue -h -j "$job" -o %i) && [[ -z "$q" ]]
}
await "$wait_s" "end of job $job's tasks" job_ended
for t in 0 1; do
    info=$(scontrol -o show job "${job}_$t") || fail "the controller knows no task ${job}_$t"
    state=$(sed -n 's/.* JobState=\([^ ]*\).*/\1/p' <<<"$info")
    code=$(sed -n 's/.* ExitCode=\([^ ]*\).*/\1/p' <<<"$info")
    [[ "$state" == COMPLETED && "$code" == 0:0 ]] \
        || fail "task ${job}_$t ended $state with exit code $code"
done
echo "ok: both tasks of job $job completed, exit code 0"

# 2. Each task's folder, named by node, job and task, holds a results file
#    labelled with the node's name (RunResults::label(), on tasklab_run_info).
files=()
for t in 0 1; do
    f=$results/$node-${job}_$t/results.json
    [[ -s "$f" ]] || fail "task ${job}_$t wrote no $f"
    got=$("$bin" report "$f" --out "$work/check-$t" --export-openmetrics - 2>"$work/log/report-$t.log" \
        | sed -n 's/^tasklab_run_info{label="\([^"]*\)".*/\1/p')
    [[ "$got" == "$node" ]] || fail "$f has the label '$got', not the node's name '$node'"
    files+=("$f")
done
echo "ok: both tasks wrote results.json, each labelled $node"

# 3. The matrix, as docs/FLEET.md says: tasklab report over each task's
#    results.json. Both runs carry the node's name, so the second column is
#    shown as NAME-2: a table row of its Markdown names both.
"$bin" report "$results"/*/results.json --out "$work/matrix" >"$work/log/matrix.log" 2>&1 \
    || fail "tasklab report could not build the matrix of $results/*/results.json"
grep -h '^|' "$work"/matrix/*.md | grep -w -- "$node" | grep -q -- "$node-2" \
    || fail "no table row of the matrix's Markdown ($work/matrix/*.md) names both $node and $node-2"
echo "ok: the matrix has a column for each task ($node, $node-2)"
echo "$me: 4 passed, 0 failed"
