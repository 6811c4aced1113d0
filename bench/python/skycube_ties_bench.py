#!/usr/bin/env python3
"""The whole skycube of tie-heavy data (issue 21): `sextant skycube` against a loop of
moocore.is_nondominated over every subspace, same data, same machine, same run. Prints a table and
writes CSV.

  python bench/python/skycube_ties_bench.py --cli build/apps/sextant --data /tmp/ties-data \\
      [--workloads ties:3:200000:2,ties:3:200000:6:mixed] [--templates auto,stsc,sdsc,mdmc] \\
      [--threads 0] [--repeats 3] [--check] [--csv ties.csv]

A workload is dist:n:d, with ":mixed" for --prefer min,max,min,max,... (moocore then minimises
the negated max columns). Sextant's time is the skycube's phases as the command reports them
(extended skyline, lattice or quad tree and filter+refine, HashCube), without loading the file and
writing the cube; the moocore loop is one is_nondominated(keep_weakly=True) per subspace (it keeps
every copy of a duplicate, as Sextant does) on a float64 array already in memory. Both are medians
of --repeats (one run when a run takes over 5 s). The sum of the skyline sizes over all subspaces
must agree; --check also compares every subspace's ids (one `sextant query` per subspace).
"""

import argparse
import csv
import itertools
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from skyline_bench import load  # noqa: E402  (the generator's binary files)

DEFAULT_WORKLOADS = ("ties:3:200000:2,ties:3:200000:4,ties:3:200000:6:mixed,"
                     "indep:200000:2,indep:200000:4,indep:200000:6")
PHASES = ("extended skyline", "lattice", "quad tree", "filter+refine", "hashcube")


def subspaces(d):
    for k in range(1, d + 1):
        yield from itertools.combinations(range(d), k)


def sextant_run(cli, path, template, threads, prefer, out):
    cmd = [cli, "skycube", "--input", path, "--template", template, "--threads", str(threads or os.cpu_count()),
           "--format", "binary", "--output", out]
    if prefer:
        cmd += ["--prefer", ",".join(prefer)]
    line = subprocess.run(cmd, capture_output=True, text=True, check=True).stderr
    chose = re.search(r"template=(\w+)", line).group(1)
    seconds = sum(float(s) for name, s in re.findall(r"([a-z+ ]+?) ([0-9.]+) s", line)
                  if name.strip() in PHASES)
    return chose, seconds


def sextant_skylines(cli, cube, d):
    """Per subspace (a tuple of columns), the ids `sextant query` prints."""
    out = {}
    for cols in subspaces(d):
        text = subprocess.run([cli, "query", "--cube", cube, "--subspace", ",".join(map(str, cols))],
                              capture_output=True, text=True, check=True).stdout.split()
        out[cols] = [int(x) for x in text[2:]]
    return out


def moocore_loop(x, repeats):
    import numpy as np
    import moocore
    times, skylines = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        skylines = {cols: np.flatnonzero(moocore.is_nondominated(x[:, cols], keep_weakly=True))
                    for cols in subspaces(x.shape[1])}
        times.append(time.perf_counter() - t)
        if times[-1] > 5:
            break
    return statistics.median(times), skylines


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True, help="the sextant command")
    ap.add_argument("--data", required=True, help="folder for the generated datasets")
    ap.add_argument("--workloads", default=DEFAULT_WORKLOADS)
    ap.add_argument("--templates", default="auto,stsc,sdsc,mdmc")
    ap.add_argument("--threads", type=int, default=0, help="sextant's threads (0: every core)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--check", action="store_true", help="compare every subspace's ids")
    ap.add_argument("--csv")
    args = ap.parse_args()
    import numpy as np

    os.makedirs(args.data, exist_ok=True)
    rows = []
    print(f"{'workload':<26} {'template':<10} {'sextant s':>10} {'moocore loop s':>15} {'speedup':>8}  note")
    for w in args.workloads.split(","):
        parts = w.split(":")
        mixed = parts[-1] == "mixed"
        if mixed:
            parts = parts[:-1]
        dist, n, d = ":".join(parts[:-2]), parts[-2], int(parts[-1])
        path = os.path.join(args.data, f"{dist.replace(':', '')}-{n}-{d}.bin")
        if not os.path.exists(path):
            subprocess.run([args.cli, "generate", "--dist", dist, "--n", n, "--d", str(d), "--seed", "1",
                            "--output", path], check=True, capture_output=True)
        prefer = ["min" if j % 2 == 0 else "max" for j in range(d)] if mixed else []
        x = load(path).astype(np.float64)
        for j, p in enumerate(prefer):
            if p == "max":
                x[:, j] = -x[:, j]
        loop_s, expected = moocore_loop(x, args.repeats)
        expected_total = sum(len(v) for v in expected.values())
        with tempfile.TemporaryDirectory() as tmp:
            cube = os.path.join(tmp, "cube.bin")
            for template in args.templates.split(","):
                runs = [sextant_run(args.cli, path, template, args.threads, prefer, cube)
                        for _ in range(args.repeats)]
                chose = runs[-1][0]
                seconds = statistics.median(r[1] for r in runs)
                got = sextant_skylines(args.cli, cube, d) if args.check or d <= 8 else None
                note = ""
                if got is not None:
                    total = sum(len(v) for v in got.values())
                    same = all(np.array_equal(got[c], expected[c]) for c in expected)
                    note = f"{total} ids over all subspaces, " + ("same ids" if same else "DIFFERENT IDS")
                    if not same:
                        note += f" (moocore {expected_total})"
                label = template if chose == template else f"{template} ({chose})"
                print(f"{w:<26} {label:<10} {seconds:>10.4f} {loop_s:>15.3f} {loop_s / seconds:>7.1f}x  {note}")
                rows.append({"workload": w, "template": template, "chose": chose, "threads": args.threads,
                             "sextant_s": seconds, "moocore_loop_s": loop_s, "speedup": loop_s / seconds,
                             "note": note})
                sys.stdout.flush()
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            wr = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            wr.writeheader()
            wr.writerows(rows)
    return 1 if any("DIFFERENT" in r["note"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
