#!/usr/bin/env bash
# Rewrites every figure in README.md from one run of the default suite, and
# the picture in docs/img/ from that run's report.
#
# Usage: bench/readme-figures.sh [RESULTS.json]
#   With a results.json (a complete default run: quick profile, every
#   experiment), it reads that; without one it runs the suite once (about a
#   minute or two: do not run anything else meanwhile, it is a benchmark).
#
# What it rewrites, between markers in README.md:
#   <!-- figures:time -->...<!-- /figures:time -->      the suite's wall time
#   <!-- figures:run -->...<!-- /figures:run -->        the machine, the warnings
#                                                       and the Summary of the run
#   <!-- figures:advise -->...<!-- /figures:advise -->  `tasklab advise` on it
# and docs/img/launch-vs-heap.svg (the run's launch-vs-heap chart).
# Needs python3.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/tasklab
dir="$(mktemp -d "${TMPDIR:-/tmp}/tasklab-readme-XXXXXX")"
trap 'rm -rf "$dir"' EXIT

if [ $# -ge 1 ]; then
  results="$1"
else
  status=0
  "$bin" run --quiet --out "$dir/run" || status=$?
  if [ "$status" -ne 0 ]; then
    echo "the suite exited $status; the README keeps its figures" >&2
    exit 1
  fi
  results="$dir/run/results.json"
fi
if [ ! -f "$results" ]; then
  echo "no such file: $results" >&2
  exit 2
fi

"$bin" list --json >"$dir/list.json"
# The report of that run, rendered by this tasklab: its Summary and chart.
"$bin" report "$results" --out "$dir/report" >/dev/null
advise_args=(--rate 2k --lifetime 20ms --heap 2GiB --switches 50k)
"$bin" advise "${advise_args[@]}" --results "$results" >"$dir/advise.txt" 2>&1 ||
  echo "(advise exited $?)" >>"$dir/advise.txt"

python3 - "$results" "$dir" "${advise_args[*]}" <<'EOF'
import json, re, shutil, sys
from pathlib import Path

results, work, advise_args = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
r = json.loads(results.read_text())
listed = {e["name"] for e in json.loads((work / "list.json").read_text())}
ran = {e["name"] for e in r.get("experiments", [])}
problems = []
if r.get("schema") != "tasklab-results":
    problems.append("not a tasklab results file")
if r.get("profile") != "quick":
    problems.append(f"profile {r.get('profile')}, not quick (the default)")
if r.get("status") != "complete":
    problems.append(f"status {r.get('status')}, not complete")
if ran != listed:
    problems.append("not the default suite: " + ", ".join(sorted(ran ^ listed)))
if problems:
    sys.exit("readme-figures: " + results.as_posix() + ": " + "; ".join(problems))

seconds = r["finished_unix_s"] - r["started_unix_s"]

md = (work / "report" / "report.md").read_text().splitlines()
header = next(l for l in md if " · " in l and l.strip() and not l.startswith("#"))
warnings = [re.sub(r"^> \*\*Warning:\*\*\s*", "", l) for l in md if l.startswith("> **Warning")]
start = md.index("## Summary") + 1
summary = []
for l in md[start:]:
    if l.startswith("#"):
        break
    if l.startswith("- "):
        summary.append("- " + l[2:].replace("**", ""))

run = [f"From one run of the default suite on this project's development machine: {header}."]
for w in warnings:
    run.append(f"The run warned: {w}.")
run.append("")
run.extend(summary)

advise = (work / "advise.txt").read_text().splitlines()
keep = []
for l in advise:
    if l.startswith("workload:"):
        keep = [l]
    elif keep:
        if not l.strip():
            break
        keep.append(l)
if not keep:
    keep = advise
advise_block = ["```text", f"$ tasklab advise {advise_args} --results tasklab-report/results.json"]
advise_block += keep + ["(then the basis: which measured figure each number comes from)", "```"]

blocks = {
    "time": f"{seconds:.0f} s",
    "run": "\n" + "\n".join(run) + "\n",
    "advise": "\n" + "\n".join(advise_block) + "\n",
}
readme = Path("README.md")
text = readme.read_text()
for name, body in blocks.items():
    pattern = re.compile(r"(<!-- figures:%s -->).*?(<!-- /figures:%s -->)" % (name, name), re.S)
    if not pattern.search(text):
        sys.exit(f"readme-figures: README.md has no <!-- figures:{name} --> block")
    text = pattern.sub(lambda m: m.group(1) + body + m.group(2), text)
readme.write_text(text)

chart = work / "report" / "chart-launch-vs-heap.svg"
if chart.exists():
    Path("docs/img").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(chart, "docs/img/launch-vs-heap.svg")
else:
    print("readme-figures: the run drew no launch-vs-heap chart; docs/img keeps the old one",
          file=sys.stderr)
print(f"README.md: suite {seconds:.0f} s, {len(summary)} Summary lines, advise {len(keep)} lines")
EOF
