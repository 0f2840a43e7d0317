#!/usr/bin/env python3
"""Checks what no schema says of the deploy/ recipes: every YAML file
parses, and the Kubernetes Job has the fields the recipe rests on (an
Indexed Job, one pod per node by required anti-affinity on its own pods,
Guaranteed QoS with whole CPUs, a results volume, the run's --label and
--out). The Job's validity against the Kubernetes API's schemas is
deploy/kubernetes/test.sh's, which runs this too. Needs PyYAML. Exits 1
with one line per problem.

    deploy/check.py [--job FILE]     # from the repository's root
"""

import glob
import os
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def job_problems(path):
    """What is wrong with the Job in `path`, one line each."""
    out = []
    docs = [d for d in yaml.safe_load_all(open(path)) if d is not None]
    jobs = [d for d in docs if d.get("kind") == "Job"]
    if len(jobs) != 1:
        return [f"{path}: {len(jobs)} Jobs, not 1"]
    job = jobs[0]
    spec = job.get("spec", {})
    if job.get("apiVersion") != "batch/v1":
        out.append(f"apiVersion {job.get('apiVersion')!r}, not batch/v1")
    if spec.get("completionMode") != "Indexed":
        out.append(f"completionMode {spec.get('completionMode')!r}, not Indexed")
    for k in ("completions", "parallelism"):
        if not (isinstance(spec.get(k), int) and spec[k] >= 1):
            out.append(f"spec.{k} is {spec.get(k)!r}, not a count")
    if isinstance(spec.get("completions"), int) and isinstance(spec.get("parallelism"), int):
        if spec["parallelism"] > spec["completions"]:
            out.append("parallelism above completions")
    tmpl = spec.get("template", {})
    pod_labels = tmpl.get("metadata", {}).get("labels", {})
    pod = tmpl.get("spec", {})
    if pod.get("restartPolicy") != "Never":
        out.append("restartPolicy is not Never (a failed run would run again on the node)")
    terms = (pod.get("affinity", {}).get("podAntiAffinity", {})
             .get("requiredDuringSchedulingIgnoredDuringExecution", []))
    one_per_node = [
        t for t in terms
        if t.get("topologyKey") == "kubernetes.io/hostname"
        and t.get("labelSelector", {}).get("matchLabels")
        and all(pod_labels.get(k) == v for k, v in t["labelSelector"]["matchLabels"].items())
    ]
    if not one_per_node:
        out.append("no required podAntiAffinity on the job's own pods by kubernetes.io/hostname")
    containers = pod.get("containers", [])
    if not containers:
        out.append("no container")
    volumes = {v.get("name") for v in pod.get("volumes", [])}
    for c in containers:
        name = c.get("name")
        res = c.get("resources", {})
        req, lim = res.get("requests", {}), res.get("limits", {})
        if not req or req != lim:
            out.append(f"container {name}: requests {req} are not its limits {lim} (Guaranteed QoS)")
        if not {"cpu", "memory"} <= set(lim):
            out.append(f"container {name}: limits need cpu and memory (Guaranteed QoS)")
        cpu = str(lim.get("cpu", ""))
        if not (cpu.isdigit() and int(cpu) >= 1):
            out.append(f"container {name}: cpu {cpu!r} is not a whole number of CPUs")
        mounts = c.get("volumeMounts", [])
        if not mounts or any(m.get("name") not in volumes for m in mounts):
            out.append(f"container {name}: its results volume is not mounted from the pod's volumes")
        run = " ".join(str(a) for a in c.get("command", []) + c.get("args", []))
        for flag in ("tasklab run", "--label", "--out"):
            if flag not in run:
                out.append(f"container {name}: its command has no {flag}")
    return [f"{path}: {p}" for p in out]


def main(argv):
    job = os.path.join(ROOT, "deploy/kubernetes/tasklab-job.yaml")
    if len(argv) == 2 and argv[0] == "--job":
        job = argv[1]
    problems = []
    for f in sorted(glob.glob(os.path.join(ROOT, "deploy/**/*.y*ml"), recursive=True)):
        try:
            list(yaml.safe_load_all(open(f)))
        except yaml.YAMLError as e:
            problems.append(f"{f}: does not parse: {e}")
    problems += job_problems(job)
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"deploy/check.py: the YAML parses; {os.path.relpath(job, ROOT)} has every field it needs")


if __name__ == "__main__":
    main(sys.argv[1:])
