#!/usr/bin/env bash
# Runs CMD [ARGS...] on a noisy host, as a shared cloud VM is one, on any
# Linux machine, so that a test or a figure can be checked against the
# noise it will meet there (a relation that must hold on a busy machine,
# the canary's reading of a bad host, compare's false alarms):
#   - a CPU limit: CMD runs in a fresh cgroup allowed NOISY_CPU_PCT% of the
#     CPUs it may run on (default 75) in every period of NOISY_PERIOD_US
#     (default 100000, 100 ms), then throttled until the next one, as a VM
#     whose time is stolen is. cgroup v2's cpu.max, in the v2 hierarchy
#     (/sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid host; +cpu is
#     added to its cgroup.subtree_control if missing, and taken out again
#     after); when the cpu controller cannot be had there (a hybrid host
#     with cpu bound to v1), cgroup v1's cpu.cfs_quota_us and
#     cpu.cfs_period_us. The line on stderr says which;
#   - a neighbour, outside that cgroup, that maps NOISY_MEM_MIB MiB
#     (default 512), writes a byte in every 4 KiB page, unmaps it and
#     pauses NOISY_PAUSE_MS (default 50), in a loop: page faults, zeroing
#     and frees competing for the CPUs, the memory bus and the page
#     allocator. NOISY_MEM_MIB=0: no neighbour, the CPU limit alone.
# CMD is executed as given (no shell string) and its exit status is this
# script's. INT, TERM and HUP are passed on to CMD; on every exit path the
# neighbour is stopped and the cgroup removed (killed with SIGKILL, it
# leaves the cgroup; the neighbour stops by itself within a cycle). Refuses
# (exit 2, running nothing) when no CPU limit can be set: never CMD without
# its noise.
# Usage: bench/noisy.sh CMD [ARGS...]
#   e.g. NOISY_CPU_PCT=50 bench/noisy.sh target/release/tasklab run --out /tmp/noisy
#        NOISY_QUIET=1  no line on stderr saying what noise was set
# Needs root, and python3 or perl for the neighbour.
set -euo pipefail
die() { echo "noisy.sh: $*" >&2; exit 2; }
[ $# -ge 1 ] || die "usage: $0 CMD [ARGS...]
  (env: NOISY_CPU_PCT NOISY_PERIOD_US NOISY_MEM_MIB NOISY_PAUSE_MS NOISY_QUIET; see the script's header)"

# NAME DEFAULT MIN MAX: the value of $NAME (DEFAULT when unset or empty),
# an integer from MIN to MAX.
setting() {
  local v="${!1:-$2}"
  [[ "$v" =~ ^[0-9]{1,9}$ ]] && [ "$((10#$v))" -ge "$3" ] && [ "$((10#$v))" -le "$4" ] ||
    die "$1=$v: must be an integer from $3 to $4"
  echo "$((10#$v))"
}
pct=$(setting NOISY_CPU_PCT 75 1 100)
period=$(setting NOISY_PERIOD_US 100000 1000 1000000)
pause=$(setting NOISY_PAUSE_MS 50 0 60000)
avail=$(awk '/^MemAvailable:/ {print int($2 / 1024)}' /proc/meminfo)
# At most half of what is available: CMD needs memory too.
mem=$(setting NOISY_MEM_MIB 512 0 $((avail / 2)))
cpus=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)
quota=$((pct * cpus * period / 100))
[ "$quota" -ge 1000 ] || die "NOISY_CPU_PCT=$pct of $cpus CPUs over $period us is $quota us, below the kernel's 1000 us minimum"

# The neighbour: python3's mmap (MAP_PRIVATE, anonymous: python adds
# MAP_ANONYMOUS for fd -1) and close (munmap); else perl, whose string of
# that size glibc maps on its own and unmaps when it is freed. Both stop
# when their parent is gone (this script killed with SIGKILL).
# Arguments: MiB, pause ms, this script's pid.
py='import mmap, os, sys, time
size, pause, parent = int(sys.argv[1]) << 20, int(sys.argv[2]) / 1000, int(sys.argv[3])
ones = b"\1" * (size // 4096)
while os.getppid() == parent:
    m = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE)
    m[::4096] = ones
    m.close()
    time.sleep(pause)'
pl='my ($size, $pause, $parent) = ($ARGV[0] << 20, $ARGV[1] / 1000, $ARGV[2]);
while (getppid() == $parent) {
    my $s = "";
    vec($s, $size - 1, 8) = 1;
    for (my $i = 0; $i < $size; $i += 4096) { vec($s, $i, 8) = 1 }
    undef $s;
    select(undef, undef, undef, $pause);
}'
neighbour=()
if [ "$mem" -gt 0 ]; then
  if command -v python3 >/dev/null 2>&1; then
    neighbour=(python3 -c "$py" "$mem" "$pause" "$$")
  elif command -v perl >/dev/null 2>&1; then
    neighbour=(perl -e "$pl" "$mem" "$pause" "$$")
  else
    die "the neighbour needs python3 or perl (or NOISY_MEM_MIB=0 for the CPU limit alone)"
  fi
fi

name="tasklab-noisy.$$"
cg=""          # the cgroup made, while it exists
restore=""     # the v2 folder whose cgroup.subtree_control got +cpu from us
npid=""        # the neighbour
cmd_pid=""     # CMD
starting=0

# Removes the cgroup once its processes are gone (they may take a moment to
# leave it after CMD was reaped); says so when it cannot. Moves nothing.
remove_cgroup() {
  [ -n "$cg" ] || return 0
  local i
  for i in $(seq 1 100); do
    if rmdir "$cg" 2>/dev/null || [ ! -d "$cg" ]; then
      cg=""
      return 0
    fi
    sleep 0.05
  done
  echo "noisy.sh: $cg left in place: it still holds process(es) $(tr '\n' ' ' <"$cg/cgroup.procs" 2>/dev/null)(left behind by CMD); rmdir it once they are gone" >&2
  return 1
}
restore_subtree() {
  [ -n "$restore" ] || return 0
  if compgen -G "$restore/tasklab-noisy.*" >/dev/null; then
    echo "noisy.sh: +cpu left in $restore/cgroup.subtree_control: another tasklab-noisy cgroup is there" >&2
  elif ! { echo -cpu >"$restore/cgroup.subtree_control"; } 2>/dev/null; then
    echo "noisy.sh: could not take +cpu out of $restore/cgroup.subtree_control again" >&2
  fi
  restore=""
}
cleanup() {
  set +e
  trap '' INT TERM HUP
  if [ -n "$cmd_pid" ] && kill -0 "$cmd_pid" 2>/dev/null; then
    # Only when this script failed itself while CMD ran.
    kill "$cmd_pid" 2>/dev/null
    wait "$cmd_pid" 2>/dev/null
  fi
  if [ -n "$npid" ]; then
    kill "$npid" 2>/dev/null
    wait "$npid" 2>/dev/null
    local st=$?
    [ "$st" = 143 ] || echo "noisy.sh: the neighbour had stopped early (exit status $st): part of the run had no memory noise" >&2
    npid=""
  fi
  remove_cgroup && restore_subtree
}
pending=""     # a signal that came while CMD was being started
on_signal() {
  if [ -n "$cmd_pid" ]; then
    kill -s "$1" "$cmd_pid" 2>/dev/null || true
  elif [ "$starting" = 1 ]; then
    pending="$1"
  else
    exit $((128 + $(kill -l "$1")))
  fi
}
trap cleanup EXIT
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM
trap 'on_signal HUP' HUP

# A v2 cgroup under ROOT with cpu.max set; on failure, why in $why.
why=""
cpu_v2() {
  local root="$1"
  if ! grep -qw cpu "$root/cgroup.controllers" 2>/dev/null; then
    why="the cpu controller is not in cgroup v2 at $root (bound to v1, as on a hybrid host?)"
    return 1
  fi
  if ! grep -qw cpu "$root/cgroup.subtree_control"; then
    { echo +cpu >"$root/cgroup.subtree_control"; } 2>/dev/null ||
      { why="cannot enable cpu in $root/cgroup.subtree_control"; return 1; }
    restore="$root"
  fi
  mkdir "$root/$name" 2>/dev/null || { why="cannot create a cgroup in $root"; return 1; }
  cg="$root/$name"
  { echo "$quota $period" >"$cg/cpu.max"; } 2>/dev/null || { why="cannot write $cg/cpu.max"; return 1; }
  mode="cgroup v2 cpu.max"
}
# A v1 cgroup in the cpu controller's hierarchy with the quota set.
cpu_v1() {
  local root
  root=$(awk '$3 == "cgroup" && ("," $4 ",") ~ /,cpu,/ {print $2; exit}' /proc/self/mounts)
  [ -n "$root" ] || { why="$why; no cgroup v1 cpu hierarchy either"; return 1; }
  mkdir "$root/$name" 2>/dev/null || { why="$why; cannot create a cgroup in $root either"; return 1; }
  cg="$root/$name"
  if [ -f "$cg/cpuset.cpus" ]; then # cpuset mounted with cpu: a new cgroup starts with none
    { cat "$root/cpuset.cpus" >"$cg/cpuset.cpus" && cat "$root/cpuset.mems" >"$cg/cpuset.mems"; } 2>/dev/null ||
      { why="$why; cannot give $cg its cpuset either"; return 1; }
  fi
  { echo "$period" >"$cg/cpu.cfs_period_us" && echo "$quota" >"$cg/cpu.cfs_quota_us"; } 2>/dev/null ||
    { why="$why; cannot set $cg/cpu.cfs_quota_us either"; return 1; }
  mode="cgroup v1 cpu.cfs_quota_us, since $why"
}
v2root=""
for d in /sys/fs/cgroup /sys/fs/cgroup/unified; do
  if [ "$(stat -fc %T "$d" 2>/dev/null)" = cgroup2fs ]; then
    v2root="$d"
    break
  fi
done
mode=""
if [ -n "$v2root" ]; then
  cpu_v2 "$v2root" || { remove_cgroup; restore_subtree; }
else
  why="no cgroup v2 hierarchy"
fi
if [ -z "$mode" ]; then
  cpu_v1 || { remove_cgroup; die "no CPU limit can be set, so nothing was run: $why (needs root)"; }
fi

if [ "${NOISY_QUIET:-0}" != 1 ]; then
  if [ "$mem" -gt 0 ]; then
    n="neighbour ${neighbour[0]} mapping, touching and unmapping $mem MiB every cycle, ${pause} ms apart"
  else
    n="no neighbour (NOISY_MEM_MIB=0)"
  fi
  echo "noisy: CPU limit $pct% of $cpus CPUs ($quota us per $period us period) by $mode; $n; cgroup $cg" >&2
fi

if [ "${#neighbour[@]}" -gt 0 ]; then
  "${neighbour[@]}" &
  npid=$!
fi
# The subshell moves itself into the cgroup, then becomes CMD.
starting=1
(
  { echo "$BASHPID" >"$cg/cgroup.procs"; } 2>/dev/null || { echo "noisy.sh: could not move CMD into $cg" >&2; exit 2; }
  exec "$@"
) &
cmd_pid=$!
[ -z "$pending" ] || kill -s "$pending" "$cmd_pid" 2>/dev/null || true
# Not a plain `wait "$cmd_pid"`: when a trapped signal arrives as CMD dies
# (Ctrl-C reaches both), bash (5.2 here; 5.3's jobs.c alike) can reap CMD
# and jump out of wait to run the trap before noting CMD's status; the next
# wait then blocks until the neighbour ends, i.e. forever. So: look every
# 0.1 s (a read that times out, no process started) until bash has reaped
# CMD, then ask wait for the status it noted.
exec {tick}<> <(:)
while kill -0 "$cmd_pid" 2>/dev/null; do
  read -rt 0.1 -u "$tick" || true
done
wait "$cmd_pid" && status=0 || status=$?
exit "$status"
