"""Issue 22's target: on adult (sex as the group, at most 5 features, the sex columns excluded), a
card whose TPR gap between the groups is at most 2 points, proven optimal or with its proven limit
in words, within 60 s.

Per allowed gap: the card's training error, its TPR gap, the proven floor on its error, status,
the wall-clock and CPU seconds of the fit (CPU time is what the machine's load does not inflate),
and the status line in words. The first row (no gap) is the blind card for comparison.

Run: ``PYTHONPATH=$PWD SLIMWIDGETS_DATA=/work/shared/data python benchmarks/fairness.py``
(``--seconds 60`` per fit, ``--gaps 0.02,0.05``; ``--risk``: risk cards under the same gaps too;
``--dual``: the Lagrangian floor of each gap without a time limit, step by step).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from datetime import datetime, timezone

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from common import load, load_line, markdown_table  # noqa: E402

import slimwidgets as sw  # noqa: E402


def timed_fit(X, y, sex, gap: float | None, **options):
    """(card, wall s, CPU s, TPR gap between the sexes, its status words) of one fit."""
    if gap is not None:
        options.update(sensitive_features=sex, max_tpr_gap=gap)
    wall, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        card = sw.fit(X, y, exclude=["Male", "Female"], max_size=5, **options)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    rates = sw.group_rates(card, X, y, sex)
    return card, wall, cpu, rates["TPR"].max() - rates["TPR"].min(), sw.describe(card)


def one_fit(X, y, sex, seconds: float, gap: float | None) -> list[str]:
    card, wall, cpu, tpr_gap, status = timed_fit(X, y, sex, gap, time_limit=seconds)
    limit = status.details.get("limit")
    return [
        "none" if gap is None else f"{100 * gap:g} pt",
        f"{100 * card.train_metrics.error:.1f} %",
        f"{100 * tpr_gap:.1f} pt",
        "–" if limit is None else f"{100 * limit:.1f} %",
        card.status,
        f"{wall:.1f}",
        f"{cpu:.1f}",
        status.headline,
    ]


def one_risk_fit(X, y, sex, seconds: float, gap: float | None) -> list[str]:
    """A risk card (loss="logistic", points -5..5) under the same gap: its log-loss and
    proven floor on it, its decision's error and TPR gap (at risk >= 50 %)."""
    card, wall, cpu, tpr_gap, status = timed_fit(
        X, y, sex, gap, loss="logistic", coef_range=(-5, 5), time_limit=seconds
    )
    limit = status.details.get("limit")
    return [
        "none" if gap is None else f"{100 * gap:g} pt",
        f"{card.details['log_loss']:.4f}",
        "–" if limit is None else f"{limit:.4f}",
        f"{100 * card.train_metrics.error:.1f} %",
        f"{100 * tpr_gap:.1f} pt",
        card.status,
        f"{wall:.1f}",
        f"{cpu:.1f}",
    ]


def dual_rows(X, y, sex, gap: float) -> list[list[str]]:
    """The Lagrangian floor (fitting/group_dual.py) of one gap without a time limit: per step t,
    the floor it proves on the error, its card's TPR excess over the gap and whether it holds
    the gap, with the wall and CPU seconds of each step (the free proof's first)."""
    from slimwidgets.core.data import prepare_data
    from slimwidgets.core.formulation import build_formulation
    from slimwidgets.fitting import driver, group_dual

    data = prepare_data(X.drop(columns=["Male", "Female"]), y, sensitive_features=sex, warn=False)
    form = build_formulation(data, sw.make_spec(max_size=5, max_tpr_gap=gap))
    clocks = [(time.perf_counter(), time.process_time())]

    def timed(*args, **kwargs):
        card = driver.fit_dataset(*args, **kwargs)
        clocks.append((time.perf_counter(), time.process_time()))
        return card

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        free = timed(data, sw.make_spec(max_size=5))
        result = group_dual.dual_floor(form, free, float(free.bound), None, None, None, timed)
    seconds = [f"{w1 - w0:.1f} / {c1 - c0:.1f}" for (w0, c0), (w1, c1) in zip(clocks, clocks[1:])]
    rows = [
        [
            f"{100 * gap:g} pt",
            "0 (no group rows)",
            f"{100 * free.bound:.2f} %",
            "–",
            "–",
            seconds[0],
        ]
    ]
    for probe, spent in zip(result.probes, seconds[1:]):
        rows.append(
            [
                f"{100 * gap:g} pt",
                f"{probe.t:.4f}",
                f"{100 * probe.floor:.2f} %",
                f"{100 * probe.excess:+.1f} pt",
                "yes" if probe.meets else "no",
                spent,
            ]
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--gaps", default="0.02")
    parser.add_argument("--risk", action="store_true", help="also risk cards under the same gaps")
    parser.add_argument(
        "--dual", action="store_true", help="only the Lagrangian floors, without a time limit"
    )
    args = parser.parse_args()
    X, y = load("adult")
    sex = np.where(X["Male"] == 1, "male", "female")
    sw.fit(
        X.iloc[:200], y.iloc[:200], max_size=2, time_limit=5
    )  # compile and import outside the clock
    print(
        f"adult, sex as the group, at most 5 features, {args.seconds:g} s per fit; "
        f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC"
    )
    print(f"before: {load_line()}")
    if args.dual:
        rows = [row for g in args.gaps.split(",") for row in dual_rows(X, y, sex, float(g))]
        print(
            markdown_table(
                [
                    "allowed TPR gap",
                    "step t",
                    "proven floor (objective)",
                    "TPR excess of its card",
                    "holds the gap",
                    "wall / CPU s",
                ],
                rows,
            )
        )
        print(f"after: {load_line()}")
        return
    rows = [one_fit(X, y, sex, args.seconds, None)]
    rows += [one_fit(X, y, sex, args.seconds, float(g)) for g in args.gaps.split(",")]
    print(
        markdown_table(
            [
                "allowed TPR gap",
                "train error",
                "TPR gap",
                "proven floor (error)",
                "status",
                "wall s",
                "CPU s",
                "status line",
            ],
            rows,
        )
    )
    if args.risk:
        risk = [one_risk_fit(X, y, sex, args.seconds, None)]
        risk += [one_risk_fit(X, y, sex, args.seconds, float(g)) for g in args.gaps.split(",")]
        print(
            markdown_table(
                [
                    "allowed TPR gap",
                    "log-loss",
                    "proven floor (log-loss)",
                    "error at risk ≥ 50 %",
                    "TPR gap",
                    "status",
                    "wall s",
                    "CPU s",
                ],
                risk,
            )
        )
    print(f"after: {load_line()}")


if __name__ == "__main__":
    main()
