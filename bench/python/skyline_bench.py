#!/usr/bin/env python3
"""Full-space skylines from Python: sextant.skyline against moocore.is_nondominated, paretoset
(with numba) and pymoo's find_non_dominated, on the same data, machine and run, one core each
(every run in a child process pinned with taskset to one CPU, thread pools of one); and the C++
API's time on the same workloads (bench/skycube/skyline_bench: "c++ api" on a dataset built
before the clock, "c++ view" on a view of the caller's values made inside it, as Python does).
Also: the call overhead of a 100-point skyline, and the whole skycube from Python against a loop
of moocore.is_nondominated over every subspace. Prints a table and writes CSV.

  python bench/python/skyline_bench.py --cli build/apps/sextant --cxx build/bench/skycube/skyline_bench \\
      --data /tmp/skyline-data [--workloads indep:1000000:4,anti:200000:12] [--repeats 3] \\
      [--timeout 300] [--cpu 0] [--csv skyline.csv]

Every peer's skyline must have the same ids as Sextant's (checked, with each peer's duplicate
policy set to keep every copy: moocore keep_weakly=True, paretoset distinct=False); a peer that
passes --timeout is reported as such. Data: the `sextant generate` benchmark generator (seed 1),
float32 values, handed to the float64 peers exactly (float32 -> float64 is exact).
"""

import argparse
import csv
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time

DEFAULT_WORKLOADS = ("indep:1000000:4,indep:1000000:8,indep:200000:12,"
                     "anti:1000000:4,anti:1000000:8,anti:200000:12")
PEERS = ("sextant", "moocore", "paretoset", "pymoo")


def load(path):
    import numpy as np
    with open(path, "rb") as f:
        header = f.read(24)
    n = int.from_bytes(header[8:16], "little")
    d = int.from_bytes(header[16:20], "little")
    return np.fromfile(path, dtype="<f4", offset=24).reshape(n, d)


def digest(ids):
    import numpy as np
    ids = np.asarray(ids, dtype=np.int64)
    return hashlib.sha1(ids.tobytes()).hexdigest()[:12], int(len(ids))


def child(peer, path, repeats):
    """Runs in a pinned child: times `peer` on the dataset, prints one JSON line."""
    import numpy as np
    x32 = load(path)
    x64 = x32.astype(np.float64)
    if peer == "sextant":
        import sextant
        sextant.skyline(x32, threads=1)  # not timed, as in the C++ bench: topology discovery, buffers
        run = lambda: sextant.skyline(x32, threads=1)
    elif peer == "moocore":
        import moocore
        run = lambda: np.flatnonzero(moocore.is_nondominated(x64, keep_weakly=True))
    elif peer == "paretoset":
        from paretoset import paretoset
        paretoset(x64[:1000], distinct=False, use_numba=True)  # the numba JIT, not timed
        run = lambda: np.flatnonzero(paretoset(x64, distinct=False, use_numba=True))
    elif peer == "pymoo":
        from pymoo.util.nds.non_dominated_sorting import find_non_dominated
        run = lambda: np.sort(find_non_dominated(x64))
    else:
        raise SystemExit(f"unknown peer {peer}")
    times = []
    ids = None
    for _ in range(repeats):
        t = time.perf_counter()
        ids = run()
        times.append(time.perf_counter() - t)
        if times[-1] > 5:  # slow: one run says enough
            break
    h, count = digest(ids)
    print(json.dumps({"times": times, "hash": h, "count": count}))


def extras(path_nba, repeats):
    """Call overhead and the whole skycube against a moocore loop, in this (pinned) process."""
    import itertools
    import numpy as np
    import moocore
    import sextant
    out = {}
    rng = np.random.default_rng(1)
    small = rng.random((100, 4)).astype(np.float32)
    for _ in range(1000):
        sextant.skyline(small)
    t = time.perf_counter()
    calls = 20000
    for _ in range(calls):
        sextant.skyline(small)
    out["overhead_us_100_points"] = (time.perf_counter() - t) / calls * 1e6
    datasets = {"indep-100k-8": None}
    if path_nba and os.path.exists(path_nba):
        with open(path_nba) as f:
            header = not f.readline().split(",")[0].strip().replace(".", "", 1).isdigit()
        datasets["nba-17264-8"] = np.loadtxt(path_nba, delimiter=",", skiprows=int(header), dtype=np.float32,
                                             usecols=range(8))
    for name in list(datasets):
        if datasets[name] is None:
            datasets[name] = rng.random((100000, 8)).astype(np.float32)
    for name, x in datasets.items():
        d = x.shape[1]
        best = []
        for _ in range(repeats):
            t = time.perf_counter()
            cube = sextant.skycube(x, threads=1)
            best.append(time.perf_counter() - t)
        x64 = x.astype(np.float64)
        t = time.perf_counter()
        agree = True
        for k in range(1, d + 1):
            for cols in itertools.combinations(range(d), k):
                ids = np.flatnonzero(moocore.is_nondominated(x64[:, cols], keep_weakly=True))
                agree = agree and np.array_equal(ids, cube.skyline(cols))
        loop = time.perf_counter() - t
        out[f"skycube_{name}"] = {"sextant_s": min(best), "moocore_loop_s": loop, "speedup": loop / min(best),
                                  "same_ids": bool(agree)}
    print(json.dumps(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", help="the sextant command (generates the data)")
    ap.add_argument("--cxx", help="bench/skycube/skyline_bench (the C++ API's time)")
    ap.add_argument("--data", help="folder for the generated datasets")
    ap.add_argument("--workloads", default=DEFAULT_WORKLOADS)
    ap.add_argument("--peers", default=",".join(PEERS))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--cpu", default="0", help="the CPU every timed process is pinned to")
    ap.add_argument("--nba", default=os.path.join(os.path.dirname(__file__), "../../data/nba-8-17264.csv"))
    ap.add_argument("--csv")
    ap.add_argument("--child", nargs=3, metavar=("PEER", "DATA", "REPEATS"), help=argparse.SUPPRESS)
    ap.add_argument("--extras-child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.child[0], args.child[1], int(args.child[2]))
    if args.extras_child:
        return extras(args.nba, args.repeats)

    if not args.cli or not args.data:
        ap.error("--cli and --data are required")
    os.makedirs(args.data, exist_ok=True)
    env = dict(os.environ, OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               MKL_NUM_THREADS="1")
    pin = ["taskset", "-c", args.cpu] if shutil.which("taskset") else []
    rows = []
    print(f"{'workload':<22} {'peer':<10} {'skyline':>8} {'median s':>10} {'vs sextant':>11}  note")
    for w in args.workloads.split(","):
        dist, n, d = w.split(":")
        path = os.path.join(args.data, f"{dist}-{n}-{d}.bin")
        if not os.path.exists(path):
            subprocess.run([args.cli, "generate", "--dist", dist, "--n", n, "--d", d, "--seed", "1",
                            "--output", path], check=True, capture_output=True)
        results = {}
        if args.cxx:
            out = subprocess.run(pin + [args.cxx, "--dists", dist, "--n", n, "--d", d, "--threads", "1",
                                        "--repeats", str(args.repeats)], env=env, capture_output=True, text=True,
                                 check=True).stdout.split("\n")[1].split()
            results["c++ api"] = {"median": float(out[5]), "count": int(out[4]), "hash": None}
            # The same call on a Dataset::view made inside the clock: the C++ path of a Python call.
            results["c++ view"] = {"median": float(out[7]), "count": int(out[4]), "hash": None}
        for peer in args.peers.split(","):
            try:
                p = subprocess.run(pin + [sys.executable, __file__, "--child", peer, path, str(args.repeats)],
                                   env=env, capture_output=True, text=True, timeout=args.timeout)
                if p.returncode != 0:
                    results[peer] = {"error": p.stderr.strip().splitlines()[-1] if p.stderr else "failed"}
                    continue
                r = json.loads(p.stdout.strip().splitlines()[-1])
                times = sorted(r["times"])
                results[peer] = {"median": times[len(times) // 2], "count": r["count"], "hash": r["hash"]}
            except subprocess.TimeoutExpired:
                results[peer] = {"timeout": args.timeout}
        base = results.get("sextant", {})
        for peer, r in results.items():
            note = ""
            if "timeout" in r:
                note = f"> {args.timeout:.0f} s (stopped)"
            elif "error" in r:
                note = "error: " + r["error"]
            elif base.get("hash") and r.get("hash") and r["hash"] != base["hash"]:
                note = "DIFFERENT IDS"
            median = r.get("median")
            ratio = (median / base["median"]) if median and base.get("median") else None
            print(f"{w:<22} {peer:<10} {r.get('count', ''):>8} "
                  f"{(f'{median:.4f}' if median else '-'):>10} {(f'{ratio:.1f}x' if ratio else '-'):>11}  {note}")
            rows.append({"workload": w, "peer": peer, "skyline": r.get("count", ""),
                         "median_s": median if median else "", "ratio_to_sextant": ratio if ratio else "",
                         "note": note})
    extra = subprocess.run(pin + [sys.executable, __file__, "--extras-child", "--nba", args.nba,
                                  "--repeats", str(args.repeats)],
                           env=env, capture_output=True, text=True)
    if extra.returncode == 0:
        e = json.loads(extra.stdout.strip().splitlines()[-1])
        print(f"call overhead, 100-point skyline: {e['overhead_us_100_points']:.1f} us")
        for k, v in e.items():
            if k.startswith("skycube_"):
                print(f"{k}: sextant.skycube {v['sextant_s']:.3f} s, moocore loop {v['moocore_loop_s']:.3f} s, "
                      f"{v['speedup']:.1f}x, same ids: {v['same_ids']}")
                rows.append({"workload": k, "peer": "skycube vs moocore loop", "skyline": "",
                             "median_s": v["sextant_s"], "ratio_to_sextant": v["speedup"],
                             "note": f"moocore loop {v['moocore_loop_s']:.3f} s, same ids {v['same_ids']}"})
        rows.append({"workload": "100 points x 4", "peer": "call overhead (us)", "skyline": "",
                     "median_s": e["overhead_us_100_points"], "ratio_to_sextant": "", "note": ""})
    else:
        print("extras failed:", extra.stderr.strip().splitlines()[-1:] if extra.stderr else "")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            wr = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            wr.writeheader()
            wr.writerows(rows)


if __name__ == "__main__":
    sys.exit(main())
