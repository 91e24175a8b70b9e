"""Test C-index and time-dependent AUC of time-to-event cards on raw public survival tables.

K-fold cross-validation (5 folds by default, shuffled, seed 0) on five raw tables that ship
with scikit-survival: whas500, gbsg2, veterans (lung cancer), flchain (without ``chapter``,
the cause of death, known only after it) and aids (without ``txgrp``, a copy of ``tx``). In
every fold three methods are fitted on the training part only and scored on the test part:

- ``slimwidgets``: :func:`slimwidgets.fit` of the raw table and the ``Surv`` y with
  ``rules=True``, at most ``k`` rules from at most ``v`` variables and a time limit (by
  default 9 rules from 3 variables, the rounded pipeline's own shape: up to three quartile
  cuts of each of three variables; 10 s), the exact Cox card;
- ``rounded Cox``: an AutoScore-Survival-style pipeline: each numeric variable cut at its
  training quartiles (plus a "missing" level), categories as levels; Cox-lasso
  (``CoxnetSurvivalAnalysis``) selects, on its path, the most variables not above the card's
  number of variables; an unpenalised Cox model on their levels; its coefficients divided by
  the smallest in size and rounded to integers (the points);
- ``Cox``: ``CoxPHSurvivalAnalysis`` on the same number of variables chosen by Cox-lasso on
  the raw (standardised, median-imputed, one-hot) columns, unrounded: the ceiling.

Each is compared at the number of variables the card uses in that fold. Reported per set:
mean ± sd over folds of Harrell's C (``concordance_index_censored``) and the mean
time-dependent AUC (``cumulative_dynamic_auc`` at the training quartiles of time, test rows
within the training follow-up), the variables, and the seconds per fit. Targets (issue
"time-to-event cards"): test C no worse than the rounded pipeline on at least 4 of 5 sets,
within 0.02 of the unrounded Cox, each fit within 10 s on 2 cores. Usage::

    python benchmarks/survival.py                          # 5 sets, 5 folds, 9 rules, 3 var., 10 s
    python benchmarks/survival.py --datasets veterans --folds 3 --size 3 --time-limit 5
    python benchmarks/survival.py --size 5 --variables 3   # 5 rules from at most 3 variables

Wall-clock seconds depend on the machine's load: note ``uptime`` with the figures.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import KFold
from sksurv.datasets import (
    load_aids,
    load_flchain,
    load_gbsg2,
    load_veterans_lung_cancer,
    load_whas500,
)
from sksurv.linear_model import CoxnetSurvivalAnalysis, CoxPHSurvivalAnalysis
from sksurv.metrics import concordance_index_censored, cumulative_dynamic_auc

import slimwidgets as sw
from slimwidgets.core.cox_floor import warm_up

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import load_line, markdown_table  # noqa: E402

DATASETS = {
    "whas500": (load_whas500, ()),
    "gbsg2": (load_gbsg2, ()),
    "veterans": (load_veterans_lung_cancer, ()),
    "flchain": (load_flchain, ("chapter",)),
    "aids": (load_aids, ("txgrp",)),
}
METHODS = ("slimwidgets", "rounded Cox", "Cox")


def load_set(name: str) -> tuple[pd.DataFrame, np.ndarray]:
    """A raw table and its ``Surv`` array, without the columns that leak the outcome."""
    loader, drop = DATASETS[name]
    X, y = loader()
    return X.drop(columns=list(drop)), y


def quantile_levels(train: pd.DataFrame, test: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Each variable as 0/1 levels: numbers cut at the training quartiles, categories as they
    are, a missing value its own level; the first level of each variable left out."""
    parts_train, parts_test = [], []
    for column in train.columns:
        a, b = train[column], test[column]
        if pd.api.types.is_numeric_dtype(a):
            cuts = np.unique(np.nanquantile(a.to_numpy(dtype=float), [0.25, 0.5, 0.75]))
            a = pd.Series(np.searchsorted(cuts, a, side="right"), index=a.index).where(a.notna())
            b = pd.Series(np.searchsorted(cuts, b, side="right"), index=b.index).where(b.notna())
        a, b = a.astype(str).fillna("missing"), b.astype(str).fillna("missing")
        levels = sorted(a.unique())[1:]
        parts_train.append(pd.DataFrame({f"{column}={v}": a == v for v in levels}))
        parts_test.append(pd.DataFrame({f"{column}={v}": b == v for v in levels}))
    return pd.concat(parts_train, axis=1).astype(float), pd.concat(parts_test, axis=1).astype(float)


def raw_numbers(train: pd.DataFrame, test: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Numbers median-imputed and standardised on the training part, categories one-hot."""
    a, b = pd.get_dummies(train, drop_first=True), pd.get_dummies(test, drop_first=True)
    b = b.reindex(columns=a.columns, fill_value=0)
    a, b = a.astype(float), b.astype(float)
    median, sd = a.median(), a.std().replace(0, 1)
    return (a.fillna(median) - a.mean()) / sd, (b.fillna(median) - a.mean()) / sd


def variable_of(column: str, variables: list[str]) -> str:
    """The raw variable a level or dummy column comes from."""
    return max((v for v in variables if column.startswith(v)), key=len)


def lasso_choice(Xd: pd.DataFrame, y: np.ndarray, variables: list[str], k: int) -> list[str]:
    """The variables of the Cox-lasso path's largest model with at most ``k`` variables."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path = CoxnetSurvivalAnalysis(l1_ratio=1.0, alpha_min_ratio=0.01, n_alphas=60).fit(Xd, y)
    owner = [variable_of(c, variables) for c in Xd.columns]
    best: list[str] = []
    for j in range(path.coef_.shape[1]):
        used = sorted({owner[i] for i in np.flatnonzero(path.coef_[:, j])})
        if len(used) <= k and len(used) >= len(best):
            best = used
    return best


def fit_cox(Xd: pd.DataFrame, y: np.ndarray) -> CoxPHSurvivalAnalysis:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return CoxPHSurvivalAnalysis(alpha=1e-4, n_iter=200).fit(Xd, y)


def rounded_cox(train, test, y_train, k) -> tuple[np.ndarray, int]:
    """(the test rows' integer scores, variables) of the AutoScore-style pipeline."""
    variables = list(train.columns)
    a, b = quantile_levels(train, test)
    chosen = lasso_choice(a, y_train, variables, k)
    if not chosen:
        return np.zeros(len(test)), 0
    columns = [c for c in a.columns if variable_of(c, variables) in chosen]
    coef = fit_cox(a[columns], y_train).coef_
    nonzero = np.abs(coef[np.abs(coef) > 1e-8])
    points = np.rint(coef / nonzero.min()) if nonzero.size else np.zeros_like(coef)
    return b[columns].to_numpy() @ points, len(chosen)


def full_cox(train, test, y_train, k) -> tuple[np.ndarray, int]:
    """(the test rows' linear predictor, variables) of Cox on the lasso's ``k`` variables."""
    variables = list(train.columns)
    a, b = raw_numbers(train, test)
    chosen = lasso_choice(a, y_train, variables, k)
    if not chosen:
        return np.zeros(len(test)), 0
    columns = [c for c in a.columns if variable_of(c, variables) in chosen]
    return fit_cox(a[columns], y_train).predict(b[columns]), len(chosen)


def card_variables(card) -> int:
    """How many raw variables the card's rules come from."""
    names = list(card.card_points)
    if card.rules is None:
        return len(names)
    return len({card.rules.variable_of(n) or n for n in names})


def test_figures(risk, y_train, y_test) -> tuple[float, float]:
    """(Harrell's C, mean time-dependent AUC) of a risk score on the test rows."""
    event, t = y_test.dtype.names
    c = concordance_index_censored(y_test[event], y_test[t], risk)[0]
    inside = y_test[t] < y_train[t].max()
    times = np.quantile(y_train[t], [0.25, 0.5, 0.75])
    times = times[(times > y_test[t][inside].min()) & (times < y_test[t][inside].max())]
    _, mean = cumulative_dynamic_auc(y_train, y_test[inside], risk[inside], times)
    return float(c), float(mean)


def one_fold(X, y, train, test, k, time_limit, variables=None) -> list[dict]:
    """Every method's figures on one fold."""
    rows = []
    start = time.perf_counter()
    card = sw.fit(
        X.iloc[train],
        y[train],
        rules=True,
        max_size=k,
        max_variables=variables,
        time_limit=time_limit,
    )
    seconds = time.perf_counter() - start
    v = card_variables(card)
    risk = card.predict(X.iloc[test])
    rows.append(_row("slimwidgets", risk, y, train, test, v, seconds, card.status))
    for name, method in (("rounded Cox", rounded_cox), ("Cox", full_cox)):
        start = time.perf_counter()
        risk, used = method(X.iloc[train], X.iloc[test], y[train], max(v, 1))
        rows.append(_row(name, risk, y, train, test, used, time.perf_counter() - start, ""))
    return rows


def _row(method, risk, y, train, test, variables, seconds, status) -> dict:
    c, auc = test_figures(np.asarray(risk, dtype=float), y[train], y[test])
    return {
        "method": method,
        "C": c,
        "AUC": auc,
        "variables": variables,
        "seconds": seconds,
        "status": status,
    }


def run(names, folds, k, time_limit, variables=None) -> pd.DataFrame:
    rows = []
    for name in names:
        X, y = load_set(name)
        for fold, (train, test) in enumerate(
            KFold(folds, shuffle=True, random_state=0).split(X), 1
        ):
            for row in one_fold(X, y, train, test, k, time_limit, variables):
                rows.append({"data": name, "fold": fold, **row})
                print(f"{name} fold {fold} {row['method']}: C {row['C']:.3f}", flush=True)
    return pd.DataFrame(rows)


def table(results: pd.DataFrame) -> str:
    """The mean ± sd over folds per set and method, and the targets met or missed."""
    out = []
    for name, part in results.groupby("data", sort=False):
        g = part.groupby("method")
        cells = [name]
        for method in METHODS:
            s = g.get_group(method)
            cells.append(f"{s['C'].mean():.3f} ± {s['C'].std():.3f}")
        for method in METHODS:
            cells.append(f"{g.get_group(method)['AUC'].mean():.3f}")
        card = g.get_group("slimwidgets")
        cells.append(f"{card['variables'].mean():.1f}")
        cells.append(f"{card['seconds'].mean():.1f} (max {card['seconds'].max():.1f})")
        proven = (card["status"] == "optimal").sum()
        cells.append(f"{proven} of {len(card)}")
        out.append(cells)
    header = ["data", *(f"C {m}" for m in METHODS), *(f"AUC {m}" for m in METHODS)]
    header += ["variables", "card s per fit", "proven"]
    return markdown_table(header, out) + "\n\n" + targets(results)


def targets(results: pd.DataFrame) -> str:
    means = results.groupby(["data", "method"])["C"].mean().unstack()
    better = (means["slimwidgets"] >= means["rounded Cox"] - 1e-12).sum()
    close = (means["slimwidgets"] >= means["Cox"] - 0.02).sum()
    card = results[results["method"] == "slimwidgets"]
    slow = (card["seconds"] > 10).sum()
    return (
        f"Test C no worse than the rounded pipeline: {better} of {len(means)} sets "
        "(target 4 of 5). "
        f"Within 0.02 of the unrounded Cox: {close} of {len(means)}. "
        f"Card fits over 10 s: {slow} of {len(card)}."
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--size", type=int, default=9, help="most rules of a card")
    parser.add_argument(
        "--variables", type=int, default=3, help="most variables of a card (max_variables)"
    )
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--csv", help="also write every fold's row there")
    args = parser.parse_args(argv)
    warm_up()  # the Cox floors compiled (or loaded) once, before any fit is timed
    print("before:", load_line())
    results = run(args.datasets, args.folds, args.size, args.time_limit, args.variables)
    print("after:", load_line())
    if args.csv:
        results.to_csv(args.csv, index=False)
    print(table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
