#!/usr/bin/env python3
"""Heat maps of count_heatmap's CSV: one panel per algorithm and one for the selector, W down,
S across (log2), colour = GB/s of input consumed (log scale), grey = cannot run, hatched white
= skipped (predicted too slow). Needs matplotlib; the tests never do.

    plot_heatmap.py heatmap.csv heatmap.png [--reference-gbps 3100]
"""
import argparse
import csv
import math
import sys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv")
    parser.add_argument("png")
    parser.add_argument("--reference-gbps", type=float, default=3100.0)
    args = parser.parse_args()
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.colors import LogNorm
        import numpy as np
    except ImportError as e:
        print(f"plot_heatmap: matplotlib/numpy unavailable ({e}); no PNG written", file=sys.stderr)
        return 0

    cells = {}
    exps = set()
    algorithms = []
    with open(args.csv, newline="") as f:
        for row in csv.DictReader(f):
            w, s = int(row["w"]), int(row["s"])
            a = row["algorithm"]
            if a not in algorithms:
                algorithms.append(a)
            ew, es = int(round(math.log2(w))), int(round(math.log2(s)))
            exps.update((ew, es))
            cells[(a, ew, es)] = (row["status"], float(row["gbps"] or 0))
    if not cells:
        print("plot_heatmap: empty CSV", file=sys.stderr)
        return 1
    lo, hi = min(exps), max(exps)
    size = hi - lo + 1
    # Cells with S > W skip the gaps and reach far beyond the bandwidth: saturate the colour at
    # twice the reference so that the cells around it stay readable.
    vmax = 2 * args.reference_gbps
    vmin = max(1.0, min((v for st, v in cells.values() if st == "ok" and v > 0), default=1.0))
    cols = 3
    rows = (len(algorithms) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6 * cols, 5.2 * rows), squeeze=False)
    image = None
    for index, a in enumerate(algorithms):
        ax = axes[index // cols][index % cols]
        grid = np.full((size, size), np.nan)
        for (alg, ew, es), (status, gbps) in cells.items():
            if alg == a and status == "ok":
                grid[ew - lo, es - lo] = gbps
        ax.set_facecolor("#bbbbbb")
        image = ax.imshow(grid, origin="upper", cmap="viridis", norm=LogNorm(vmin=vmin, vmax=vmax))
        for (alg, ew, es), (status, gbps) in cells.items():
            if alg != a:
                continue
            if status == "skipped":
                ax.add_patch(plt.Rectangle((es - lo - 0.5, ew - lo - 0.5), 1, 1, fill=False, hatch="xx", color="white", lw=0))
            elif status == "failed":
                ax.text(es - lo, ew - lo, "!", ha="center", va="center", color="red", fontsize=8)
            elif status == "ok" and gbps >= 0.8 * args.reference_gbps:
                ax.text(es - lo, ew - lo, "*", ha="center", va="center", color="white", fontsize=6)
        ticks = list(range(0, size, 2))
        ax.set_xticks(ticks)
        ax.set_xticklabels([str(lo + t) for t in ticks])
        ax.set_yticks(ticks)
        ax.set_yticklabels([str(lo + t) for t in ticks])
        ax.set_xlabel("log2 slide S")
        ax.set_ylabel("log2 window W")
        ax.set_title(a)
    for index in range(len(algorithms), rows * cols):
        axes[index // cols][index % cols].axis("off")
    fig.suptitle(f"int32 sum, GB/s of input consumed (* = at least 80% of {args.reference_gbps:.0f} GB/s; colour "
                 f"saturates at {vmax:.0f}; grey = cannot run, hatched = skipped)")
    fig.colorbar(image, ax=axes.ravel().tolist(), shrink=0.8, label="GB/s")
    fig.savefig(args.png, dpi=110)
    print(f"plot_heatmap: wrote {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
