# Sourced by the scripts that run real daemons on this machine
# (deploy/prometheus/test.sh, bench/predict-redis.sh): what they need
# installed, free ports on loopback, daemons started and stopped.
#
#   me=NAME; source deploy/daemons.sh
#   die MESSAGE               "NAME: MESSAGE" on stderr, exit 2: the script
#                             cannot run as asked (what it refuses, below)
#   need CMD PACKAGE          CMD on PATH, else `apt-get install PACKAGE`
#                             (root only; apt-get update first when the
#                             lists are missing or the install fails for
#                             another reason); die when it cannot be had
#   port=$(free_port)         a port on 127.0.0.1 nobody listens on now
#   check_port WHAT PORT VAR  die with a message naming the port, WHAT
#                             wants it and VAR to choose another, when it
#                             is in use
#   start_daemon NAME LOG CMD [ARGS...]
#                             CMD in the background, its output in LOG; its
#                             pid kept (and in $daemon_pid) for stop_daemons
#   wait_for NAME SECONDS CMD [ARGS...]
#                             until CMD succeeds; die with the daemon's log
#                             when it died or the time ran out
#   stop_daemons              SIGTERM to each, newest first, SIGKILL after
#                             10 s, each waited for; the caller's trap runs it
#   on_exit FUNCTION          FUNCTION runs however the script ends: EXIT,
#                             and INT, TERM, HUP turned into exits 130, 143,
#                             129 (so EXIT's trap runs for them too)
#
# A daemon is started as a child of the script (never daemonized), so its
# pid is the one stopped, and nothing else is.

: "${me:=$(basename "$0")}"
daemon_pids=()
daemon_names=()
daemon_logs=()

die() {
    echo "$me: $*" >&2
    exit 2
}

need() {
    local cmd=$1 pkg=$2 out
    command -v "$cmd" >/dev/null 2>&1 && return 0
    [[ $(id -u) -eq 0 ]] ||
        die "$cmd is not installed (Debian package $pkg) and only root can install it: apt-get install $pkg"
    echo "$me: $cmd is missing: apt-get install $pkg" >&2
    export DEBIAN_FRONTEND=noninteractive
    if ! out=$(apt-get install -y -q "$pkg" </dev/null 2>&1); then
        # The package lists may be missing (a fresh machine) or old (a
        # version no longer served): read them again, once. A package the
        # lists there are do not know is not asked for again.
        if ! grep -q 'Unable to locate package' <<<"$out" ||
            ! compgen -G '/var/lib/apt/lists/*Packages*' >/dev/null; then
            apt-get update -q </dev/null >/dev/null 2>&1 || true
            out=$(apt-get install -y -q "$pkg" </dev/null 2>&1) || out="failed: $out"
        else
            out="failed: $out"
        fi
        [[ $out != failed:* ]] ||
            die "$cmd is not installed and the Debian package $pkg cannot be installed: $(grep '^E:' <<<"$out" | head -2 | tr '\n' ' ')(apt-get install $pkg)"
    fi
    command -v "$cmd" >/dev/null 2>&1 ||
        die "the Debian package $pkg is installed but gives no $cmd on PATH ($PATH)"
}

free_port() {
    python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# 0 when something listens on (or holds) 127.0.0.1:PORT.
port_in_use() {
    python3 - "$1" <<'EOF'
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(0)
sys.exit(1)
EOF
}

check_port() {
    local what=$1 port=$2 var=$3
    [[ "$port" =~ ^[0-9]{1,5}$ ]] && ((port >= 1 && port <= 65535)) ||
        die "$var=$port is not a port (1 to 65535)"
    if port_in_use "$port"; then
        die "port $port on 127.0.0.1, for $what, is in use (\`ss -ltnp 'sport = :$port'\` shows by what): set $var to a free port, or leave it unset for one chosen free"
    fi
}

start_daemon() {
    local name=$1 log=$2
    shift 2
    "$@" >"$log" 2>&1 </dev/null &
    daemon_pid=$!
    daemon_pids+=("$daemon_pid")
    daemon_names+=("$name")
    daemon_logs+=("$log")
}

# Whether PID runs (a child that exited stays a zombie until waited for).
pid_alive() {
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    stat=${stat##*) }
    [[ ${stat:0:1} != Z ]]
}

# Whether the daemon started last under NAME still runs.
daemon_alive() {
    local i
    for ((i = ${#daemon_names[@]} - 1; i >= 0; i--)); do
        if [[ ${daemon_names[i]} == "$1" ]]; then
            pid_alive "${daemon_pids[i]}"
            return
        fi
    done
    return 1
}

daemon_log() {
    local i
    for ((i = ${#daemon_names[@]} - 1; i >= 0; i--)); do
        if [[ ${daemon_names[i]} == "$1" ]]; then
            tail -n 15 "${daemon_logs[i]}" 2>/dev/null
            return
        fi
    done
}

wait_for() {
    local name=$1 secs=$2
    shift 2
    local end=$((SECONDS + secs))
    until "$@" >/dev/null 2>&1; do
        daemon_alive "$name" || die "$name stopped before it was ready; its log:
$(daemon_log "$name")"
        ((SECONDS < end)) || die "$name not ready after ${secs} s; its log:
$(daemon_log "$name")"
        sleep 0.2
    done
}

stop_daemons() {
    local i pid t
    for ((i = ${#daemon_pids[@]} - 1; i >= 0; i--)); do
        pid=${daemon_pids[i]}
        kill -TERM "$pid" 2>/dev/null || continue
        for ((t = 0; t < 100; t++)); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    daemon_pids=()
    daemon_names=()
    daemon_logs=()
}

on_exit() {
    # shellcheck disable=SC2064 # the function's name, fixed now
    trap "$1" EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    trap 'exit 129' HUP
}
