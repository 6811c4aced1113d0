#!/usr/bin/env python3
"""Plots the CSV of bench/matching/matching_bench: one PNG per experiment and measure (latency in
ms per event, one event at a time; throughput in events/s, batches) against the experiment's
parameter, like figures 6-13 of paper 002.

    plot_matching.py bench-sweeps-cpu.csv [bench-sweeps-gpu0.csv ...] [--out DIR]

Several CSVs (e.g. the CPU and a GPU) share the figures: the devices become part of each line's
label. Without matplotlib it says so and exits 0.
"""
import argparse
import csv
import os
import sys
from collections import defaultdict

X_LABEL = {
    "attributes": "attributes per event (mean)",
    "constraints": "constraints per filter (mean), 1M constraints",
    "constraints25k": "constraints per filter (mean), 25k filters",
    "filters": "filters per interface",
    "interfaces": "interfaces",
    "names": "names",
    "zipf": "Zipf theta of the names",
    "numeric": "share of numeric names",
    "batch": "events per batch",
}
MEASURES = [("latency_mean_ms", "ms per event, one at a time"), ("events_per_s", "events/s in batches")]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv", nargs="+")
    parser.add_argument("--out", default=".", help="directory for the PNGs (default .)")
    args = parser.parse_args()
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_matching.py: matplotlib is not installed; no PNG written")
        return 0
    series = defaultdict(lambda: defaultdict(list))  # (experiment, measure) -> label -> [(x, y)]
    for path in args.csv:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                experiment = row["experiment"]
                if experiment not in X_LABEL:
                    continue
                x = float(row["batch"]) if experiment == "batch" else float(row["x"])
                for measure, _ in MEASURES:
                    y = float(row[measure])
                    if y > 0:
                        series[(experiment, measure)][row["devices"]].append((x, y))
    os.makedirs(args.out, exist_ok=True)
    for (experiment, measure), lines in sorted(series.items()):
        fig, ax = plt.subplots(figsize=(6, 4))
        for label, points in sorted(lines.items()):
            points.sort()
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label)
        ax.set_xlabel(X_LABEL[experiment])
        ax.set_ylabel(dict(MEASURES)[measure])
        if experiment in ("filters", "batch", "names"):
            ax.set_xscale("log")
        ax.set_yscale("log")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        fig.tight_layout()
        name = os.path.join(args.out, f"matching-{experiment}-{measure}.png")
        fig.savefig(name, dpi=120)
        plt.close(fig)
        print(name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
