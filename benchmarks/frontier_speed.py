"""Time the 19-point max-FPR frontier (5 %…95 %) on breastcancer, warm-started point to point.

python benchmarks/frontier_speed.py [--per-point 1.2] [--n-jobs N]
"""

from __future__ import annotations

import argparse
import time

from common import load

import slimwidgets as sw


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-point", type=float, default=1.2, help="time limit per FPR cap (s)")
    parser.add_argument("--n-jobs", type=int, default=None)
    args = parser.parse_args(argv)
    X, y = load("breastcancer")
    sw.fit(X.iloc[:50], y.iloc[:50], time_limit=1)  # load and compile outside the timing
    sw.clear_cache()
    t = time.perf_counter()
    frontier = sw.roc_frontier(X, y, time_limit=args.per_point, n_jobs=args.n_jobs, progress=False)
    total = time.perf_counter() - t
    cols = ["max_fpr", "tpr", "tpr_max", "fpr", "size", "status", "gap", "solve_time"]
    print(frontier[cols].to_markdown(index=False, floatfmt=".3f"))
    proven = int((frontier["tpr"] >= frontier["tpr_max"] - 1e-12).sum())
    print(f"\n19 points in {total:.1f} s; TPR proven optimal at {proven} of {len(frontier)} points")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
