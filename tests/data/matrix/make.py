#!/usr/bin/env python3
"""Makes the matrix fixtures from tests/data/report-results.json: three runs
with the Summary's series only (and their samples).

alpha.json  the run as it is (hostname alpha)
beta.json   the same hardware, THP `always`, a bare system call 1.5x slower
gamma.json  another hardware class (another CPU model, 4 CPUs), every
            figure 0.7x

Run from the repository's root: python3 tests/data/matrix/make.py
"""
import copy, json

src = json.load(open("tests/data/report-results.json"))


def keep(e, m):
    n, l = m["name"], m["labels"]
    if e == "yardstick.syscall":
        return True
    if e == "spawn.heap":
        return n == "lifecycle_ns" and l.get("thp") == "system" and "call" not in l and l.get(
            "method") in ("fork", "pthread_create", "posix_spawn", "fork_exec_static")
    if e == "spawn.cow":
        return n == "write_ns" and l.get("pages") == "4k" and l.get("writes") == "100%"
    if e == "switch.pingpong":
        return n == "switch_ns" and l.get("method") == "pipe_threads" and l.get(
            "placement") in ("same_cpu", "two_cpus")
    if e == "switch.userspace":
        return n == "switch_ns" and l.get("variant") in ("coroutine", "async", "go_default")
    if e == "memory.threads":
        return n in ("virt_per_thread_kib", "rss_exact_per_thread_kib") and l.get("variant") == "default"
    if e == "parallel.average":
        return n == "speedup"
    return False


base = copy.deepcopy(src)
base["experiments"] = []
for e in src["experiments"]:
    ms = [m for m in e["metrics"] if keep(e["name"], m)]
    if not ms:
        continue
    e = copy.deepcopy(e)
    e["metrics"] = ms
    e["readings"] = [r for r in e["readings"] if r["name"] == "cpus"]
    e["fits"], e["round_log"] = [], []
    base["experiments"].append(e)
base.pop("round_log", None)
NOSCALE = {"n", "rounds", "rel_spread", "outliers_low", "outliers_high"}


def scale(run, exp, k):
    for e in run["experiments"]:
        if exp is not None and e["name"] != exp:
            continue
        for m in e["metrics"]:
            m["samples"] = [x * k for x in m["samples"]]
            s = m["summary"]
            for key, v in list(s.items()):
                if key in NOSCALE or isinstance(v, bool):
                    continue
                if isinstance(v, (int, float)):
                    s[key] = v * k
                elif isinstance(v, list):
                    s[key] = [x * k for x in v]


alpha = copy.deepcopy(base)
alpha["env"]["hostname"] = "alpha"
beta = copy.deepcopy(base)
beta["env"]["hostname"] = "beta"
beta["env"]["thp_enabled"] = "always"
beta["started_unix_s"] += 3600
scale(beta, "yardstick.syscall", 1.5)
gamma = copy.deepcopy(base)
gamma["env"]["hostname"] = "gamma"
gamma["env"]["cpu_model"] = "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz"
gamma["env"]["cpus_online"] = 4
gamma["started_unix_s"] += 7200
scale(gamma, None, 0.7)
for name, run in [("alpha", alpha), ("beta", beta), ("gamma", gamma)]:
    with open(f"tests/data/matrix/{name}.json", "w") as f:
        json.dump(run, f, indent=1)
        f.write("\n")
