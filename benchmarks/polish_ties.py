"""What breaking ties toward the larger margin does to test error (issue #12, item 3).

Setup of the issue's comparison: real-valued columns binarized once with
``sw.binarize(X, n_thresholds=3)``, 5-fold stratified CV, at most 5 features,
points in -5..5, a time limit per fold. Each fold is solved once with the polish
off; the card the solver returned and the same card polished
(:func:`slimwidgets.solvers.polish.polish`: same objective, lowest logistic
loss of the score among the cards its moves reach) are then scored on the
held-out fold, and so is the card polished with ``keep_l1=False`` (ties in loss +
penalties only: larger points allowed, the eps * L1 preference for the smallest
points given up). Prints a Markdown table: mean test errors, folds where the
card changed, and the folds' statuses.

    python benchmarks/polish_ties.py [--datasets heart haberman] [--time-limit 10] [--folds 5]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from common import load, markdown_table
from sklearn.model_selection import StratifiedKFold

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.core.formulation import build_formulation
from slimwidgets.fitting import driver as fitting
from slimwidgets.solvers.polish import polish


def run(name: str, time_limit: float, n_folds: int) -> list[str]:
    X, y = load(name)
    X = sw.binarize(X, n_thresholds=3)
    fitting.POLISH_TIES = (
        False  # the solver's own card; the polish is applied here, to the same card
    )
    errors, changed, statuses = {"plain": [], "polished": [], "relaxed": []}, [0, 0], []
    started = time.perf_counter()
    for train, test in StratifiedKFold(n_folds, shuffle=True, random_state=0).split(X, y):
        Xtr, ytr, Xte, yte = X.iloc[train], y.iloc[train], X.iloc[test], y.iloc[test]
        spec = sw.make_spec(max_size=5, coef_range=(-5, 5), time_limit=time_limit)
        card = sw.fit(Xtr, ytr, spec=spec)
        form = build_formulation(prepare_data(Xtr, ytr, warn=False), spec)
        errors["plain"].append(card.metrics(Xte, yte).error)
        statuses.append(card.status)
        for k, (kind, keep_l1) in enumerate((("polished", True), ("relaxed", False))):
            points, intercept = polish(
                form, np.array(card.coefficients), card.intercept, keep_l1=keep_l1
            )
            other = card.with_points(
                dict(zip(card.feature_names, points.tolist())), intercept=intercept
            )
            changed[k] += (
                other.coefficients != card.coefficients or other.intercept != card.intercept
            )
            errors[kind].append(other.metrics(Xte, yte).error)
    plain, pol, rel = (100 * np.mean(errors[k]) for k in ("plain", "polished", "relaxed"))
    status = ", ".join(f"{statuses.count(s)} {s}" for s in sorted(set(statuses)))
    return [
        name,
        f"{plain:.2f} %",
        f"{pol:.2f} % ({changed[0]} of {n_folds} changed)",
        f"{rel:.2f} % ({changed[1]} of {n_folds} changed)",
        status,
        f"{time.perf_counter() - started:.0f} s",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["heart", "haberman", "breastcancer"])
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--folds", type=int, default=5)
    args = parser.parse_args()
    rows = [run(name, args.time_limit, args.folds) for name in args.datasets]
    header = [
        "data",
        "test error, solver's card",
        "polished (same objective)",
        "polished, ties in loss + penalties only",
        "statuses",
        "time",
    ]
    print(markdown_table(header, rows))


if __name__ == "__main__":
    main()
