"""What settings by variable cost and give on raw tables (issue 19).

Stratified k-fold cross-validation on raw tables that ship inside installed packages (the ones
of ``raw_tables.py``). Each fold's training part is fitted by :func:`slimwidgets.fit` with its
own rule builder (``rules=True``), points in -5..5, under four settings:

- ``<= 5 rules``: ``max_size=5`` (what ``raw_tables.py`` fits);
- ``<= 3 variables``: ``max_variables=3`` (the cut points and levels of a column count once);
- ``<= 3 variables, 1 cut each``: also ``max_cuts_per_variable=1`` (each number in two bands);
- ``... monotone``: also ``monotone`` on every numeric column, in the direction of its
  Spearman correlation with the target on the training part.

It prints mean ± std over folds of the test and training error, the rules and variables the
cards use, the share of cards that break none of the four readings (a check that must say
k/k), the share proven optimal and the seconds per fit.

Usage::

    python benchmarks/variable_settings.py                     # 3 folds, 10 s per fit
    python benchmarks/variable_settings.py --folds 5 --time-limit 20 --datasets diabetes penguins
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import slimwidgets as sw

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import markdown_table  # noqa: E402
from raw_tables import load_raw  # noqa: E402

POINTS = (-5, 5)


def directions(Xtr: pd.DataFrame, ytr: pd.Series) -> dict[str, str]:
    """Each numeric column's direction: the sign of its Spearman correlation with the target."""
    out = {}
    for c in Xtr.columns:
        col = Xtr[c]
        if (
            pd.api.types.is_numeric_dtype(col)
            and not pd.api.types.is_bool_dtype(col)
            and col.nunique() > 2
        ):
            rho = col.rank().corr(ytr.rank())
            if np.isfinite(rho) and rho != 0:
                out[str(c)] = "+" if rho > 0 else "-"
    return out


SETTINGS = {
    "<= 5 rules": lambda X, y: {"max_size": 5},
    "<= 3 variables": lambda X, y: {"max_variables": 3},
    "<= 3 variables, 1 cut each": lambda X, y: {"max_variables": 3, "max_cuts_per_variable": 1},
    "<= 3 variables, 1 cut each, monotone": lambda X, y: {
        "max_variables": 3,
        "max_cuts_per_variable": 1,
        "monotone": directions(X, y),
    },
}


def cpu_seconds() -> float:
    """CPU seconds of this process and of the solver processes it has waited for."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def run(datasets, folds, time_limit):
    from sklearn.model_selection import StratifiedKFold

    rows = []
    for name in datasets:
        X, y = load_raw(name)
        for fold, (tr, te) in enumerate(
            StratifiedKFold(folds, shuffle=True, random_state=0).split(X, y)
        ):
            Xtr, Xte, ytr, yte = X.iloc[tr], X.iloc[te], y.iloc[tr], y.iloc[te]
            for label, settings in SETTINGS.items():
                t0, cpu0 = time.perf_counter(), cpu_seconds()
                with warnings.catch_warnings():
                    warnings.simplefilter(
                        "ignore"
                    )  # unseen levels in a test fold are named: noise here
                    card = sw.fit(
                        Xtr,
                        ytr,
                        rules=True,
                        coef_range=POINTS,
                        time_limit=time_limit,
                        **settings(Xtr, ytr),
                    )
                    seconds, cpu = time.perf_counter() - t0, cpu_seconds() - cpu0
                    test_pred, train_pred = (
                        np.asarray(card.predict(Xte)),
                        np.asarray(card.predict(Xtr)),
                    )
                used = [n for n, p in card.points.items() if p]
                kept = not sw.check_card(
                    card, sw.prepare_data(card.rules.transform(Xtr, warn=False), ytr), card.spec
                )
                rows.append(
                    {
                        "data": name,
                        "n": len(X),
                        "setting": label,
                        "test_error": float(np.mean(test_pred != yte.to_numpy())),
                        "train_error": float(np.mean(train_pred != ytr.to_numpy())),
                        "rules": len(used),
                        "variables": len({card.rules.variable_of(n) for n in used}),
                        "kept": kept,
                        "optimal": card.status == "optimal",
                        "seconds": seconds,
                        "cpu": cpu,
                    }
                )
                print(
                    f"{name} fold {fold + 1} {label}: test error "
                    f"{100 * rows[-1]['test_error']:.1f} %",
                    file=sys.stderr,
                    flush=True,
                )
    return pd.DataFrame(rows)


def table(frame: pd.DataFrame) -> str:
    def pm(values):
        return f"{100 * values.mean():.1f} ± {100 * values.std(ddof=1):.1f}"

    rows = [
        [
            name,
            str(g["n"].iloc[0]),
            setting,
            pm(g.test_error),
            pm(g.train_error),
            f"{g.rules.mean():.1f}",
            f"{g.variables.mean():.1f}",
            f"{int(g.kept.sum())}/{len(g)}",
            f"{int(g.optimal.sum())}/{len(g)}",
            f"{g.seconds.mean():.1f}",
            f"{g.cpu.mean():.1f}",
        ]
        for (name, setting), g in frame.groupby(["data", "setting"], sort=False)
    ]
    return markdown_table(
        [
            "data",
            "rows",
            "setting",
            "test error %",
            "train error %",
            "rules",
            "variables",
            "settings kept",
            "proven",
            "s / fit",
            "CPU s / fit",
        ],
        rows,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["diabetes", "penguins"])
    parser.add_argument("--folds", type=int, default=3)
    parser.add_argument("--time-limit", type=float, default=10.0)
    args = parser.parse_args()
    print(table(run(args.datasets, args.folds, args.time_limit)))


if __name__ == "__main__":
    main()
