# Shared by bench/repeatability.sh and bench/power.sh: a set of default
# runs, measured now or read again.
#
# bench_runs PREFIX ARGS...: ARGS is either `--from DIR` (DIR/run1 ...
# runN, as these scripts leave them) or `[N] [extra tasklab run
# arguments...]` (N runs, default 4, measured now into a fresh folder).
# Builds the release binary, then sets:
#   bin    the binary;
#   dir    the folder holding run1 ... runN;
#   work   a folder for copies and compare output (dir itself when the
#          runs were measured now, a fresh one with --from);
#   n      the number of runs; files  their results.json paths.
# COLD_GO=1 empties tasklab's Go cache before the first run.
bench_runs() {
  local prefix="$1" from=""
  shift
  if [ "${1:-}" = --from ]; then
    # Resolved before the cd below, so a folder relative to the caller works.
    from="$(realpath -e -- "${2:?--from takes the folder of a set}")"
  fi
  cd "$(dirname "${BASH_SOURCE[0]}")/.."
  cargo build --release --quiet
  bin="$PWD/target/release/tasklab"
  files=()
  if [ -n "$from" ]; then
    dir="$from"
    n=0
    while [ -f "$dir/run$((n + 1))/results.json" ]; do
      n=$((n + 1))
      files+=("$dir/run$n/results.json")
    done
    [ "$n" -ge 2 ] || { echo "$dir holds fewer than two runs (run1/results.json ...)" >&2; exit 2; }
    work="$(mktemp -d "${TMPDIR:-/tmp}/$prefix-XXXXXX")"
    echo "runs in $dir; this build's copies and compare output in $work" >&2
    return
  fi
  n="${1:-4}"
  shift || true
  dir="$(mktemp -d "${TMPDIR:-/tmp}/$prefix-XXXXXX")"
  work="$dir"
  echo "runs in $dir" >&2
  if [ "${COLD_GO:-0}" = 1 ]; then
    local cache="${XDG_CACHE_HOME:-$HOME/.cache}/tasklab"
    case "$cache" in /*/tasklab) rm -rf -- "$cache" && echo "emptied $cache" >&2 ;; esac
  fi
  local i start end
  for i in $(seq 1 "$n"); do
    start=$(date +%s.%N)
    "$bin" run --quiet --out "$dir/run$i" "$@"
    end=$(date +%s.%N)
    echo "run $i: $(python3 -c "print(f'{$end - $start:.1f}')") s" >&2
    files+=("$dir/run$i/results.json")
  done
}
