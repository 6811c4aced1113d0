#!/usr/bin/env python3
"""Plots the CSV of bench/window/stream_throughput: one PNG per experiment (throughput against
the experiment's parameter, one line per series), like figures 12-16 of paper 000.

    plot_stream.py stream_throughput_cpu.csv [more.csv ...] [--out DIR]

Several CSVs (e.g. the CPU and a GPU) share the figures: the device becomes part of each
series' label. Without matplotlib it says so and exits 0.
"""
import argparse
import csv
import os
import sys
from collections import defaultdict

X_LABEL = {
    "batch": ("batch size (bytes of 32-byte tuples)", True),
    "slide": ("slide (us)", True),
    "nw": ("windows per tree n_w", True),
    "keys": ("distinct keys", True),
    "aggregate": ("aggregate", False),
    "delay": ("average delay (us, uniform)", False),
    "threads": ("threads (operator and projection)", True),
}


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
        print("plot_stream.py: matplotlib is not installed; no figures written", file=sys.stderr)
        return 0

    rows = []
    for path in args.csv:
        with open(path, newline="") as f:
            rows.extend(csv.DictReader(f))
    devices = {r["device"] for r in rows}
    series = defaultdict(lambda: defaultdict(list))  # experiment -> label -> [(x, y, name)]
    for r in rows:
        if r["experiment"] == "aggregate":  # one bar group per aggregate, one bar per device
            label = r["device"]
        else:
            label = r["series"] if len(devices) == 1 else f'{r["device"]} {r["series"]}'
        series[r["experiment"]][label].append((float(r["x"]), float(r["mtuples_per_s"]), r["series"]))

    os.makedirs(args.out, exist_ok=True)
    for experiment, lines in series.items():
        xlabel, logx = X_LABEL.get(experiment, (experiment, False))
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        if experiment == "aggregate":
            labels = sorted(lines)
            names = [p[2] for p in sorted(lines[labels[0]])]
            width = 0.8 / len(labels)
            for i, label in enumerate(labels):
                pts = sorted(lines[label])
                ax.bar([p[0] + i * width for p in pts], [p[1] for p in pts], width, label=label)
            ax.set_xticks([p[0] + (len(labels) - 1) * width / 2 for p in sorted(lines[labels[0]])], names)
        else:
            for label in sorted(lines):
                pts = sorted(lines[label])
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
            if logx:
                ax.set_xscale("log")
            if experiment == "delay":
                ax.set_xscale("symlog", linthresh=1000)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("throughput (M tuples/s)")
        ax.set_ylim(bottom=0)
        ax.set_title(f"stream windows: {experiment}")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
        fig.tight_layout()
        path = os.path.join(args.out, f"stream_{experiment}.png")
        fig.savefig(path, dpi=120)
        plt.close(fig)
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
