"""Risk cards done when done (issue 23, item 3): time to the card, time to its proof (or the final
gap), and training log-loss against FasterRisk, on all training rows (no CV).

Three tables:

1. ``--fixed``: RiskSLIM's objective (``scale=False``), at most 5 rules, points -5..5,
   ``time_limit=60`` on the paper's small sets; the target is "optimal" on bankruptcy, mammo,
   haberman and breastcancer within 60 s, and on heart a floor within 5 % of the card.
2. ``--free``: the default model (a real multiplier ``m >= 1/2``, FasterRisk's), same boxes,
   ``time_limit=10``: how soon each fit stops, and what it proves; the target is "optimal" on
   bankruptcy, mammo, haberman and breastcancer in about a second each (quiet machine), and on
   heart a proof or a floor within a few %. A line after the table says which were met.
3. ``--large``: synthetic 0/1 data, 30,000 rows x 200 rules, 10-rule cards (a planted 10-rule
   model, every 4th rule a 70 % copy of its neighbour), ``time_limit`` = half FasterRisk's wall
   time on the same data; the target is a training log-loss no worse than FasterRisk's with a
   proven floor stated in words.

FasterRisk 0.1.10 is a benchmark-only dependency (see ``risk_cards.py``). Wall-clock figures
swell with the machine's load: the script prints ``uptime`` before and after.

Run: ``PYTHONPATH=$PWD SLIMWIDGETS_DATA=/work/shared/data python benchmarks/risk_proofs.py``
(``--fixed``, ``--free`` or ``--large`` for one table; ``--sets`` to choose the sets).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import pandas as pd
from sklearn.metrics import log_loss

sys.path.insert(0, os.path.dirname(__file__))
from common import load, load_line, markdown_table  # noqa: E402
from risk_cards import _fasterrisk, sklearn_breast_cancer  # noqa: E402

import slimwidgets as sw  # noqa: E402

SMALL_SETS = ("bankruptcy", "mammo", "haberman", "breastcancer", "heart")
HEADER = [
    "data set",
    "rows x rules",
    "s to first card",
    "s to settle",
    "status",
    "objective",
    "proven floor",
    "gap",
    "train log-loss (sw / FR)",
    "FR s",
    "what is proven",
]


def _train_loss(y: pd.Series, p: np.ndarray) -> float:
    return log_loss(y, np.clip(p, 1e-15, 1 - 1e-15), labels=[0, 1])


def _ours(X, y, **options) -> dict:
    first = []
    t0 = time.perf_counter()
    card = sw.fit(
        X,
        y,
        loss="logistic",
        coef_range=(-5, 5),
        on_incumbent=lambda inc: first.append(inc.elapsed),
        **options,
    )
    settle = time.perf_counter() - t0
    return {
        "card": card,
        "first": first[0] if first else settle,
        "settle": settle,
        "train": _train_loss(y, card.predict_proba(X).to_numpy()[:, 1]),
    }


def _theirs(Optimizer, X, y, k: int) -> dict:
    t0 = time.perf_counter()
    opt = Optimizer(X.to_numpy(float), np.where(y.to_numpy() == 1, 1.0, -1.0), k=k, lb=-5, ub=5)
    opt.optimize()
    m, b0, betas = opt.get_models(model_index=0)
    p = 1.0 / (1.0 + np.exp(-(b0 + X.to_numpy(float) @ betas) / m))
    return {"time": time.perf_counter() - t0, "train": _train_loss(y, p)}


def _row(name: str, X, ours: dict, theirs: dict | None) -> list[str]:
    card = ours["card"]
    floor = "–" if card.bound is None else f"{card.bound:.5f}"
    gap = "–" if card.gap is None else f"{100 * card.gap:.2f} %"
    fr = ("–", "–") if theirs is None else (f"{theirs['train']:.4f}", f"{theirs['time']:.2f}")
    words = card.status_line().split(" · ", 2)[-1]  # what the status line says is proven
    return [
        name,
        f"{X.shape[0]:,} x {X.shape[1]}",
        f"{ours['first']:.3f}",
        f"{ours['settle']:.2f}",
        f"{card.status} ({card.solver})",
        f"{card.objective:.5f}",
        floor,
        gap,
        f"{ours['train']:.4f} / {fr[0]}",
        fr[1],
        words,
    ]


def small_table(names: list[str], scale: bool, seconds: float, Optimizer) -> None:
    rows = []
    for name in names:
        X, y = sklearn_breast_cancer() if name == "sklearn-breast-cancer" else load(name)
        y = pd.Series(np.asarray(y).astype(int), index=X.index)
        ours = _ours(X, y, max_size=5, scale=scale, time_limit=seconds)
        theirs = _theirs(Optimizer, X, y, 5) if Optimizer is not None else None
        rows.append(_row(name, X, ours, theirs))
        print("row: | " + " | ".join(rows[-1]) + " |", file=sys.stderr, flush=True)
    model = "scale=False (RiskSLIM's objective)" if not scale else "a real multiplier (the default)"
    print(
        f"\n{model}, at most 5 rules, points -5..5, time_limit={seconds:g} s; FasterRisk: k=5, "
        "its multiplier\n"
    )
    print(markdown_table(HEADER, rows))
    if scale:
        print("\ntargets: " + "; ".join(_free_target(row) for row in rows))


def _free_target(row: list[str]) -> str:
    """Whether a row of the --free table meets its target (proven optimal in about a second;
    heart: proven, or a gap within 5 %)."""
    name, settle, status, gap = row[0], float(row[3]), row[4], row[7]
    if name == "heart":
        ok = status.startswith("optimal") or (gap != "–" and float(gap.rstrip(" %")) <= 5.0)
    elif name in SMALL_SETS:
        ok = status.startswith("optimal") and settle <= 1.5
    else:
        return f"{name}: no target"
    return f"{name} {'met' if ok else 'missed'}"


def synthetic(
    n: int = 30_000, d: int = 200, k: int = 10, seed: int = 0
) -> tuple[pd.DataFrame, pd.Series]:
    """0/1 rules with a planted k-rule logistic model; every 4th rule copies 70
    % of the previous one."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < rng.uniform(0.05, 0.5, d)).astype(np.int8)
    for j in range(1, d, 4):
        keep = rng.random(n) < 0.7
        X[keep, j] = X[keep, j - 1]
    idx = rng.choice(d, k, replace=False)
    points = rng.choice([-3, -2, -1, 1, 2, 3], k)
    logit = 0.8 * X[:, idx] @ points - 0.3 * points.clip(0).sum()
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return pd.DataFrame(X, columns=[f"rule{j}" for j in range(d)]), pd.Series(y)


def large_table(Optimizer) -> None:
    X, y = synthetic()
    theirs = _theirs(Optimizer, X, y, 10)
    limit = theirs["time"] / 2
    ours = _ours(X, y, max_size=10, time_limit=limit)
    print(
        "\nsynthetic 30,000 x 200, 10-rule cards; slimwidgets' time_limit = half FasterRisk's "
        f"wall time ({limit:.1f} s)\n"
    )
    print(markdown_table(HEADER, [_row("synthetic", X, ours, theirs)]))
    ok = ours["train"] <= theirs["train"] + 1e-6 and ours["settle"] <= theirs["time"] / 2 + 1.0
    print(
        "\ntarget (log-loss no worse in half FasterRisk's time, floor stated): "
        f"{'met' if ok else 'missed'}; status line: {ours['card'].status_line()}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fixed", action="store_true")
    parser.add_argument("--free", action="store_true")
    parser.add_argument("--large", action="store_true")
    parser.add_argument("--sets", default=",".join(SMALL_SETS))
    parser.add_argument("--no-fasterrisk", action="store_true", help="our figures only")
    args = parser.parse_args()
    every = not (args.fixed or args.free or args.large)
    Optimizer = None if args.no_fasterrisk else _fasterrisk()
    sw.fit(
        pd.DataFrame({"a": [0, 1, 1, 0]}), [0, 1, 1, 1], loss="logistic"
    )  # compile the kernels first
    print(f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC; before: {load_line()}")
    sets = args.sets.split(",")
    if every or args.fixed:
        small_table(sets, False, 60.0, Optimizer)
    if every or args.free:
        small_table(sets + ["sklearn-breast-cancer"], True, 10.0, Optimizer)
    if (every or args.large) and Optimizer is not None:
        large_table(Optimizer)
    print(f"\nafter: {load_line()}")
