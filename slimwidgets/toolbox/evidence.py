"""The statistics of a validation report, on plain arrays: discrimination (AUC with DeLong's
interval), proportions at a threshold (Wilson), calibration (logistic recalibration fits, Brier,
Hosmer–Lemeshow) and net benefit (the decision curve).

Every function takes 0/1 ``events`` (1: the card's positive class) and returns plain numbers or
DataFrames; :func:`slimwidgets.validate` puts them together for a card. The tests compare each
figure with scikit-learn, SciPy and statsmodels.
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .risk import wilson_interval

__all__ = [
    "delong_auc",
    "proportion",
    "logistic_fit",
    "calibration_in_the_large",
    "calibration_slope",
    "brier_score",
    "hosmer_lemeshow",
    "net_benefit",
    "decision_curve",
    "logit",
]


def _z(confidence: float) -> float:
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def _events(events: Any) -> np.ndarray:
    e = np.asarray(events, dtype=float).ravel()
    if not np.isin(e, (0.0, 1.0)).all():
        raise ValueError("events must be 0/1 (1: the card's positive class)")
    return e


def delong_auc(
    scores: Any, events: Any, confidence: float = 0.95
) -> tuple[float, float, float, float]:
    """Area under the ROC curve of ``scores`` with DeLong's standard error and a normal interval.

    Ties count half (integer scores tie a lot). The variance is DeLong, DeLong &
    Clarke-Pearson's (1988): from each row's placement value (the share of the other class it
    outranks), computed through midranks in O(n log n).

    Returns
    -------
    (auc, lower, upper, standard error); NaN without rows of both classes. The interval is
    clipped to [0, 1].

    Examples
    --------
    >>> auc, lo, hi, se = delong_auc([0, 1, 1, 2, 3, 3], [0, 0, 1, 0, 1, 1])
    >>> round(auc, 4), round(se, 4)
    (0.8333, 0.1925)
    """
    s = np.asarray(scores, dtype=float).ravel()
    e = _events(events)
    pos, neg = s[e == 1], s[e == 0]
    m, n = pos.size, neg.size
    if m == 0 or n == 0:
        return math.nan, math.nan, math.nan, math.nan
    ranks = stats.rankdata(np.concatenate([pos, neg]))  # midranks over both classes
    v10 = (
        ranks[:m] - stats.rankdata(pos)
    ) / n  # per positive: share of negatives below (ties half)
    v01 = 1.0 - (ranks[m:] - stats.rankdata(neg)) / m  # per negative: share of positives above
    auc = float(v10.mean())
    var = (v10.var(ddof=1) / m if m > 1 else 0.0) + (v01.var(ddof=1) / n if n > 1 else 0.0)
    se = math.sqrt(var)
    z = _z(confidence)
    return auc, max(0.0, auc - z * se), min(1.0, auc + z * se), se


def proportion(k: float, n: float, confidence: float = 0.95) -> tuple[float, float, float]:
    """``(k / n, lower, upper)`` with the Wilson interval; NaNs when ``n`` is 0.

    >>> [round(v, 4) for v in proportion(3, 10)]
    [0.3, 0.1078, 0.6032]
    """
    if n <= 0:
        return math.nan, math.nan, math.nan
    lo, hi = wilson_interval(k, n, confidence)
    return k / n, float(lo), float(hi)


def logit(p: Any) -> np.ndarray:
    """log(p / (1 - p)), with p kept a hair inside (0, 1) so that 0 and 1 stay finite."""
    p = np.clip(np.asarray(p, dtype=float), 1e-12, 1 - 1e-12)
    return np.log(p) - np.log1p(-p)


def logistic_fit(
    events: Any, x: Any = None, offset: Any = None, max_iter: int = 100
) -> tuple[np.ndarray, np.ndarray]:
    """Maximum-likelihood logistic regression of ``events`` on an intercept (and ``x``), with
    an optional ``offset`` (a term whose coefficient is fixed at 1), by Newton's method.

    Returns
    -------
    (coefficients, standard errors): ``[intercept]`` or ``[intercept, slope]``; NaNs when the
    fit does not converge (e.g. ``x`` separates the classes) or one class is missing.

    Examples
    --------
    >>> coef, se = logistic_fit([0, 0, 1, 0, 1, 1], x=[0, 1, 1, 2, 2, 3])
    >>> [round(float(c), 3) for c in coef]
    [-2.079, 1.386]
    """
    e = _events(events)
    design = (
        np.ones((e.size, 1))
        if x is None
        else np.column_stack([np.ones(e.size), np.asarray(x, dtype=float)])
    )
    off = np.zeros(e.size) if offset is None else np.asarray(offset, dtype=float).ravel()
    nan = np.full(design.shape[1], math.nan)
    if e.min(initial=1) == e.max(initial=0):
        return nan, nan.copy()
    beta = np.zeros(design.shape[1])
    for _ in range(max_iter):
        p = 1.0 / (1.0 + np.exp(-(design @ beta + off)))
        info = design.T @ (design * (p * (1 - p))[:, None])
        try:
            step = np.linalg.solve(info, design.T @ (e - p))
        except np.linalg.LinAlgError:
            return nan, nan.copy()
        beta = beta + step
        if np.max(np.abs(step)) < 1e-10:
            p = 1.0 / (1.0 + np.exp(-(design @ beta + off)))
            cov = np.linalg.inv(design.T @ (design * (p * (1 - p))[:, None]))
            return beta, np.sqrt(np.diag(cov))
    return nan, nan.copy()  # no convergence: the likelihood has no finite maximum


def _wald(estimate: float, se: float, confidence: float) -> tuple[float, float, float]:
    z = _z(confidence)
    return float(estimate), float(estimate - z * se), float(estimate + z * se)


def calibration_in_the_large(
    risk: Any, events: Any, confidence: float = 0.95
) -> tuple[float, float, float]:
    """The intercept ``a`` of ``logit P(event) = a + logit(risk)`` (slope fixed at 1), with a
    Wald interval: 0 when the risks are right on average, > 0 when they are too low.

    >>> [round(v, 3) for v in calibration_in_the_large([0.2, 0.2, 0.5, 0.5], [0, 1, 1, 1])]
    [1.913, -0.445, 4.27]
    """
    coef, se = logistic_fit(events, offset=logit(risk))
    return _wald(coef[0], se[0], confidence)


def calibration_slope(
    risk: Any, events: Any, confidence: float = 0.95
) -> tuple[float, float, float]:
    """The slope ``b`` of ``logit P(event) = a + b logit(risk)``, with a Wald interval: 1 when
    the risks spread as the outcomes do, < 1 when they are too extreme (overfitting).

    >>> [round(v, 3) for v in calibration_slope([0.1, 0.2, 0.4, 0.6, 0.8, 0.9], [0, 0, 1, 0, 1, 1])]
    [1.427, -0.673, 3.528]
    """
    coef, se = logistic_fit(events, x=logit(risk))
    return _wald(coef[1], se[1], confidence)


def brier_score(risk: Any, events: Any) -> float:
    """Mean squared difference between predicted risk and outcome (0 is perfect).

    >>> round(brier_score([0.1, 0.9], [0, 1]), 6)
    0.01
    """
    return float(np.mean((np.asarray(risk, dtype=float).ravel() - _events(events)) ** 2))


def hosmer_lemeshow(
    risk: Any, events: Any, groups: int = 10
) -> tuple[float, int, float, pd.DataFrame]:
    """The Hosmer–Lemeshow goodness-of-fit test over groups of predicted risk.

    Rows are grouped by deciles of risk (``groups`` quantile bins; equal risks always share a
    group, so a card with few totals gets one group per total). The statistic
    ``sum (O - E)^2 / (E (1 - E / n))`` over groups is referred to a chi-squared law with
    ``groups - 2`` degrees of freedom.

    Returns
    -------
    (statistic, degrees of freedom, p-value, table of the groups: rows, observed, expected);
    NaN statistic and p-value with fewer than 3 groups.

    Examples
    --------
    >>> risk = [0.1] * 10 + [0.5] * 10 + [0.9] * 10
    >>> events = [0] * 9 + [1] + [0] * 5 + [1] * 5 + [1] * 9 + [0]
    >>> stat, df, p, table = hosmer_lemeshow(risk, events)
    >>> round(stat, 6), df, round(p, 3)
    (0.0, 1, 1.0)
    """
    p = np.asarray(risk, dtype=float).ravel()
    e = _events(events)
    distinct = np.unique(p)
    if distinct.size <= groups:
        bins = pd.Categorical(p, categories=distinct)
    else:
        bins = pd.qcut(p, groups, duplicates="drop")
    table = (
        pd.DataFrame({"group": bins, "rows": 1.0, "observed": e, "expected": p})
        .groupby("group", observed=True)[["rows", "observed", "expected"]]
        .sum()
    )
    g = len(table)
    if g < 3:
        return math.nan, max(g - 2, 0), math.nan, table
    n, obs, exp = (
        table["rows"].to_numpy(),
        table["observed"].to_numpy(),
        table["expected"].to_numpy(),
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = (obs - exp) ** 2 / (exp * (1 - exp / n))
    statistic = float(np.nansum(terms))
    return statistic, g - 2, float(stats.chi2.sf(statistic, g - 2)), table


def net_benefit(treat: Any, events: Any, threshold: float) -> float:
    """Net benefit of treating the rows where ``treat`` holds, at risk threshold ``threshold``:
    ``TP / n - FP / n * threshold / (1 - threshold)`` (Vickers & Elkin, 2006).

    >>> round(net_benefit([1, 1, 0, 0], [1, 0, 0, 1], 0.2), 4)
    0.1875
    """
    t = np.asarray(treat, dtype=bool).ravel()
    e = _events(events)
    n = e.size
    return float(np.sum(t & (e == 1)) / n - np.sum(t & (e == 0)) / n * threshold / (1 - threshold))


def decision_curve(
    events: Any, thresholds: Any, *, risk: Any = None, treat: Any = None
) -> pd.DataFrame:
    """Net benefit over ``thresholds`` of the card (treat where ``risk >= threshold``, or where
    ``treat`` holds for a decision card, whose decision does not move), of treating everyone
    and of treating no one (always 0).

    Examples
    --------
    >>> curve = decision_curve([1, 0, 0, 1], [0.1, 0.5], risk=[0.8, 0.3, 0.1, 0.6])
    >>> curve.round(4)  # doctest: +NORMALIZE_WHITESPACE
               card  treat all  treat none
    threshold
    0.1        0.4444     0.4444         0.0
    0.5        0.5000     0.0000         0.0
    """
    e = _events(events)
    if (risk is None) == (treat is None):
        raise ValueError("give either risk (a risk card) or treat (a decision card's decision)")
    rows = []
    for pt in np.asarray(thresholds, dtype=float):
        chosen = np.asarray(risk, dtype=float) >= pt if risk is not None else treat
        rows.append((pt, net_benefit(chosen, e, pt), net_benefit(np.ones(e.size), e, pt), 0.0))
    return pd.DataFrame(rows, columns=["threshold", "card", "treat all", "treat none"]).set_index(
        "threshold"
    )
