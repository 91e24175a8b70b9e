"""Risk cards (``loss="logistic"``) against FasterRisk, in one run.

5-fold stratified CV (seed 0) on the paper's 8 data sets and scikit-learn's bundled
breast-cancer set (its 30 measurements binarized at 3 quantile cut points each, once, with
:func:`slimwidgets.binarize`, the same columns for both methods). Both methods fit cards of at
most 5 features with points in -5..5, an integer intercept and a real multiplier. Per set:
mean test AUC, Brier score and log-loss, mean training log-loss, mean seconds per fit and,
for slimwidgets, the mean CPU seconds per fit (all its threads; the wall-clock figures swell with
the machine's load) and the mean seconds to the first card. The last columns count the folds where
slimwidgets' training log-loss is lower (win), equal within 1e-6 (tie) or higher.

FasterRisk is a benchmark-only dependency, never one of slimwidgets::

    pip install --no-deps fasterrisk==0.1.10 requests

Its ``rounding.py`` calls ``ndarray.tostring()``, removed in numpy 2; this script re-executes
that module with ``tobytes()`` (the same bytes) instead of editing the installed file.

Run: ``PYTHONPATH=$PWD SLIMWIDGETS_DATA=/work/shared/data python benchmarks/risk_cards.py``
(``--sets heart,mammo`` for a subset, ``--seconds 2`` for slimwidgets' time limit).
"""

from __future__ import annotations

import argparse
import inspect
import os
import subprocess
import sys
import time
from datetime import datetime, timezone

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import brier_score_loss, log_loss, roc_auc_score
from sklearn.model_selection import StratifiedKFold

sys.path.insert(0, os.path.dirname(__file__))
from common import ORDER, load, markdown_table  # noqa: E402

import slimwidgets as sw  # noqa: E402

K, LO, HI, FOLDS = 5, -5, 5, 5


def _fasterrisk():
    """FasterRisk's optimizer, with its rounding module made to run under numpy 2."""
    import fasterrisk.fasterrisk as ff
    import fasterrisk.rounding as rounding

    source = inspect.getsource(rounding).replace(".tostring()", ".tobytes()")
    exec(compile(source, rounding.__file__, "exec"), rounding.__dict__)
    for name, value in rounding.__dict__.items():  # rebind what fasterrisk imported by name
        if name in ff.__dict__ and (inspect.isclass(value) or inspect.isfunction(value)):
            ff.__dict__[name] = value
    return ff.RiskScoreOptimizer


def sklearn_breast_cancer() -> tuple[pd.DataFrame, pd.Series]:
    raw = load_breast_cancer(as_frame=True)
    X = sw.binarize(raw.data, n_thresholds=3)
    y = pd.Series((raw.target == 0).astype(int), name="malignant")  # 0 marks malignant in sklearn
    return X.astype(float), y


def _metrics(y: np.ndarray, p: np.ndarray) -> dict:
    p = np.clip(p, 1e-15, 1 - 1e-15)
    return {
        "auc": roc_auc_score(y, p),
        "brier": brier_score_loss(y, p),
        "logloss": log_loss(y, p, labels=[0, 1]),
    }


def _ours(Xtr, ytr, Xte, yte, seconds: float) -> dict:
    first = []
    t0, cpu0 = time.perf_counter(), time.process_time()
    card = sw.fit(
        Xtr,
        ytr,
        loss="logistic",
        max_size=K,
        coef_range=(LO, HI),
        time_limit=seconds,
        on_incumbent=lambda inc: first.append(inc.elapsed),
    )
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    out = _metrics(yte, card.predict_proba(Xte).to_numpy()[:, 1])
    out["train"] = log_loss(
        ytr, np.clip(card.predict_proba(Xtr).to_numpy()[:, 1], 1e-15, 1 - 1e-15), labels=[0, 1]
    )
    out.update(time=elapsed, cpu=cpu, first=first[0] if first else elapsed, status=card.status)
    return out


def _theirs(Optimizer, Xtr, ytr, Xte, yte) -> dict:
    t0 = time.perf_counter()
    opt = Optimizer(
        Xtr.to_numpy(float), np.where(ytr.to_numpy() == 1, 1.0, -1.0), k=K, lb=LO, ub=HI
    )
    opt.optimize()
    m, b0, betas = opt.get_models(model_index=0)
    elapsed = time.perf_counter() - t0

    def proba(X):
        z = (b0 + X.to_numpy(float) @ betas) / m
        return 1.0 / (1.0 + np.exp(-z))

    out = _metrics(yte, proba(Xte))
    out["train"] = log_loss(ytr, np.clip(proba(Xtr), 1e-15, 1 - 1e-15), labels=[0, 1])
    out.update(time=elapsed)
    return out


def run(names: list[str], seconds: float) -> None:
    Optimizer = _fasterrisk()
    sw.fit(
        pd.DataFrame({"a": [0, 1, 1, 0]}), [0, 1, 1, 1], loss="logistic"
    )  # compile the kernels first
    rows, targets = [], {"auc": 0, "train": 0, "first": 0}
    for name in names:
        X, y = sklearn_breast_cancer() if name == "sklearn-breast-cancer" else load(name)
        y = pd.Series(np.asarray(y).astype(int), index=X.index)
        ours, theirs = [], []
        for tr, te in StratifiedKFold(FOLDS, shuffle=True, random_state=0).split(X, y):
            Xtr, Xte, ytr, yte = X.iloc[tr], X.iloc[te], y.iloc[tr], y.iloc[te]
            ours.append(_ours(Xtr, ytr, Xte, yte, seconds))
            theirs.append(_theirs(Optimizer, Xtr, ytr, Xte, yte))
        a, b = pd.DataFrame(ours), pd.DataFrame(theirs)
        diff = a["train"] - b["train"]
        win, tie = int((diff < -1e-6).sum()), int((diff.abs() <= 1e-6).sum())
        targets["auc"] += a["auc"].mean() >= b["auc"].mean() - 0.005
        targets["train"] += a["train"].mean() <= b["train"].mean() + 1e-6
        targets["first"] += a["first"].max() <= 0.1
        rows.append(
            [name]
            + [
                f"{a[c].mean():.4f} / {b[c].mean():.4f}"
                for c in ("auc", "brier", "logloss", "train")
            ]
            + [
                f"{a['time'].mean():.2f} / {b['time'].mean():.2f}",
                f"{a['cpu'].mean():.2f}",
                f"{a['first'].mean():.3f} (max {a['first'].max():.3f})",
                f"{win}/{tie}/{FOLDS - win - tie}",
                ",".join(sorted(set(a["status"]))),
            ]
        )
        print(
            "row: | " + " | ".join(rows[-1]) + " |", file=sys.stderr, flush=True
        )  # in case a later set stalls
    header = [
        "data set",
        "test AUC (sw / FR)",
        "test Brier",
        "test log-loss",
        "train log-loss",
        "s per fit",
        "CPU s per fit (sw)",
        "s to first card (sw)",
        "train log-loss folds W/T/L",
        "sw status",
    ]
    print(
        f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC; uptime: "
        f"{subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}"
    )
    print(
        f"{FOLDS}-fold CV, at most {K} features, points {LO}..{HI}; slimwidgets time limit "
        f"{seconds:g} s per fit\n"
    )
    print(markdown_table(header, rows))
    n = len(names)
    print(
        f"\nmean test AUC within 0.005 of FasterRisk's or better: {targets['auc']}/{n}; mean "
        f"train log-loss no worse: {targets['train']}/{n}; first card <= 0.1 s on every "
        f"fold: {targets['first']}/{n}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(ORDER + ("sklearn-breast-cancer",)))
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    run(args.sets.split(","), args.seconds)
