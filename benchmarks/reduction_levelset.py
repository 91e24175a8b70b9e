"""Fraction of the bankruptcy data removed by data reduction against the
level-set width (paper Fig. 3).

The paper's setting: SLIM with C0 = 0.01 and coefficients (intercept included) in
{-10, ..., 10}; the surrogate is the LP relaxation of the SLIM IP. The width runs
from eps_min = Z(optimal card) - Z_LP to eps_max = Z(all-zero card) - Z_LP.

    python benchmarks/reduction_levelset.py [--points 12]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import load, markdown_table  # noqa: E402

import slimwidgets as sw  # noqa: E402
from slimwidgets.toolbox.reduction import reduce_data  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--points", type=int, default=12, help="number of widths between eps_min and eps_max"
    )
    args = parser.parse_args()
    X, y = load("bankruptcy")
    opts = dict(C0=0.01, coef_range=(-10, 10), intercept_range=(-10, 10))
    t0 = time.perf_counter()
    optimal = sw.fit(X, y, **opts)
    print(
        f"optimal card: objective {optimal.objective:.5f} ({optimal.status}, "
        f"{optimal.solve_time:.2f} s), points {optimal.points}"
    )
    low = reduce_data(X, y, width=optimal, **opts)
    high = reduce_data(X, y, width="trivial", **opts)
    heuristic = reduce_data(X, y, width="heuristic", **opts)
    print(
        f"Z_LP = {low.lp_objective:.5f}; eps_min = {low.width:.5f}; eps_max = {high.width:.5f}; "
        f"heuristic card's eps = {heuristic.width:.5f}"
    )
    widths = np.unique(
        np.concatenate([np.geomspace(low.width, high.width, args.points), [heuristic.width]])
    )
    rows = []
    for eps in widths:
        r = reduce_data(X, y, width=float(eps), **opts)
        check = r.fit()
        same = abs(check.objective - optimal.objective) < 1e-12
        label = (
            " (eps_min)"
            if np.isclose(eps, low.width)
            else " (eps_max)"
            if np.isclose(eps, high.width)
            else (" (heuristic)" if np.isclose(eps, heuristic.width) else "")
        )
        rows.append(
            [
                f"{eps:.5f}{label}",
                f"{r.fraction_removed:.1%}",
                f"{r.fraction_distinct_removed:.1%}",
                f"{r.n_lp}",
                f"{r.seconds:.2f}",
                "yes" if same else "NO",
            ]
        )
    print(
        markdown_table(
            [
                "width eps",
                "rows removed",
                "distinct rows removed",
                "LPs",
                "seconds",
                "reduced optimum = full",
            ],
            rows,
        )
    )
    print(f"total {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
