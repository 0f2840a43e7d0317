#!/usr/bin/env python3
"""Do an experiment's findings keep their subjects from run to run? Reads
two results files or more and compares each experiment's findings with
their figures stripped: a finding's subject is its words before the first
colon, at most five (before a verdict's words), once every number and unit is taken out. Findings
that list the series flagged or unsettled in that run ("flagged here",
"did not settle here") are left out: they name what the run's rounds did,
not a subject. Prints, per experiment, each subject some runs have and
others lack; exits 1 when there is one, 0 when every experiment keeps its
subjects in every run, 2 on bad input.

    python3 bench/subjects.py RESULTS.json RESULTS.json [RESULTS.json...]

A folder is read as its results.json. Only the standard library; reads the
files, writes nothing.
"""
import json
import os
import re
import sys

UNITS = r"(ns|µs|ms|s|KiB|MiB|GiB|B|x|%|/s|GB/s|MHz|kB|pages?)"
NUMBER = re.compile(r"[-+−]?\d[\d,]*(\.\d+)?\s*" + UNITS + r"?\b")
WORDS = 5
RUN_STATE = ("flagged here", "did not settle here")


def subject(finding):
    """The words before the first colon, at most five, numbers stripped."""
    text = NUMBER.sub("# ", finding).split(":", 1)[0]
    return " ".join(text.split()[:WORDS]).lower()


def subjects(path):
    if os.path.isdir(path):
        path = os.path.join(path, "results.json")
    with open(path, encoding="utf-8") as f:
        run = json.load(f)
    out = {}
    for e in run.get("experiments", []):
        if e.get("status") != "ok":
            continue
        keep = [
            subject(f)
            for f in e.get("findings", [])
            if not f.lower().startswith(RUN_STATE)
        ]
        out[e["name"]] = keep
    return out


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        runs = [(p, subjects(p)) for p in argv]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
        print(f"subjects.py: {err}", file=sys.stderr)
        return 2
    names = sorted({n for _, r in runs for n in r})
    moved, partial = 0, 0
    for name in names:
        present = [(p, r[name]) for p, r in runs if name in r]
        if len(present) < len(runs):
            print(f"{name}: measured in {len(present)} of {len(runs)} runs")
            partial += 1
            continue
        every = sorted({s for _, fs in present for s in fs})
        for s in every:
            counts = [fs.count(s) for _, fs in present]
            if len(set(counts)) > 1:
                moved += 1
                have = ", ".join(f"{p}: {c}" for (p, _), c in zip(present, counts))
                print(f"{name}: \"{s}\" ({have})")
    words = []
    if moved:
        words.append(f"{moved} subjects moved")
    if partial:
        words.append(f"{partial} experiments not measured in every run")
    print(
        f"{len(names)} experiments, {len(runs)} runs: "
        + ("; ".join(words) if words else "every experiment keeps its subjects")
    )
    return 1 if moved or partial else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
