"""Observed risk per total score, with Wilson score intervals.

A SLIM card is a classifier, but clinicians also ask "what fraction of
patients with a score of 4 had the event?". :func:`risk_table` answers from
data: for each observed total score, the count, the number of events, the
observed event rate and a Wilson score interval for it.
"""

from __future__ import annotations

from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

from .scoring import ScoringSystem

__all__ = ["risk_table", "wilson_interval"]


def wilson_interval(events: Any, n: Any, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """The Wilson score interval for a binomial proportion ``events / n``.

    With ``p = k/n`` and ``z`` the two-sided normal quantile of ``confidence``::

        centre = (p + z²/(2n)) / (1 + z²/n)
        half   = z / (1 + z²/n) * sqrt(p(1-p)/n + z²/(4n²))

    and the interval is ``[centre - half, centre + half]`` (clipped to [0, 1]
    against rounding). Unlike the normal ("Wald") interval it stays inside
    [0, 1] and is not degenerate when ``k`` is 0 or ``n``. Works elementwise;
    ``n = 0`` gives NaN.

    Parameters
    ----------
    events : array-like of float
        The events ``k`` (weighted counts allowed).
    n : array-like of float
        The rows ``n``, of the same shape.
    confidence : float, default 0.95
        The interval's coverage.

    Examples
    --------
    >>> lo, hi = wilson_interval(3, 10)
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.1078, 0.6032)
    """
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, (int, float))
        or not 0 < confidence < 1
    ):
        raise ValueError(
            f"confidence must be a number strictly between 0 and 1, got {confidence!r}"
        )
    k = np.asarray(events, dtype=float)
    n = np.asarray(n, dtype=float)
    if np.any(k < 0) or np.any(n < 0) or np.any(k > n):
        raise ValueError("need 0 <= events <= n")
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z / denom * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        # exact ends: k = 0 gives lower 0 and k = n upper 1 (rounding must not move them)
        lo = np.where(k == 0, 0.0, np.clip(centre - half, 0.0, 1.0))
        hi = np.where(k == n, 1.0, np.clip(centre + half, 0.0, 1.0))
    lo = np.where(n > 0, lo, np.nan)
    hi = np.where(n > 0, hi, np.nan)
    return lo, hi


def card_events(card: ScoringSystem, y: Any, n: int) -> np.ndarray:
    """1.0 where ``y`` is the card's positive label, else 0.0; refuses a length other than ``n``,
    missing labels and labels that are neither of the card's two."""
    values = y.to_numpy() if isinstance(y, (pd.Series, pd.Index)) else np.asarray(y)
    values = values.ravel()
    if len(values) != n:
        raise ValueError(f"X has {n} rows but y has {len(values)} labels")
    if pd.isna(values).any():
        raise ValueError("y has missing labels")
    foreign = [v for v in pd.unique(values) if not (v == card.positive or v == card.negative)]
    if foreign:
        raise ValueError(
            f"y has labels {foreign[:6]} that are neither {card.positive!r} nor {card.negative!r}"
        )
    return (values == card.positive).astype(float)


def risk_table(
    card: ScoringSystem,
    X: Any,
    y: Any,
    confidence: float = 0.95,
    *,
    sample_weight: Any = None,
) -> pd.DataFrame:
    """Observed event rate for each total score of ``card`` on ``X, y``.

    An "event" is a row whose label is the card's positive class.

    Parameters
    ----------
    card : a :class:`ScoringSystem`.
    X, y : data to tabulate (typically held-out data).
    confidence : level of the Wilson interval (default 95 %).
    sample_weight : optional frequency weights (counts); the interval then
        treats the weighted count as the number of trials.

    Returns
    -------
    DataFrame
        Indexed by ``score`` (every total seen in ``X``, ascending), with
        columns ``count, events, rate, lower, upper, predicted`` (``predicted``:
        the card predicts the positive class at this score: score >= threshold, or
        score > threshold for cards under the paper's rule).

    Examples
    --------
    >>> import pandas as pd
    >>> card = ScoringSystem(("a", "b"), (2, 1), -1)
    >>> X = pd.DataFrame({"a": [0, 0, 1, 1, 1, 0], "b": [0, 1, 0, 1, 1, 0]})
    >>> table = risk_table(card, X, [0, 0, 1, 1, 0, 1])
    >>> table[["count", "events", "rate", "predicted"]]  # doctest: +NORMALIZE_WHITESPACE
           count  events  rate  predicted
    score
    0          2       1   0.5      False
    1          1       0   0.0       True
    2          1       1   1.0       True
    3          2       1   0.5       True
    """
    if not isinstance(card, ScoringSystem):
        raise TypeError(f"card must be a ScoringSystem, got {type(card).__name__}")
    scores = np.asarray(card.score(X))
    events = card_events(card, y, len(scores))
    w = (
        np.ones(len(events))
        if sample_weight is None
        else np.asarray(sample_weight, dtype=float).ravel()
    )
    if w.shape != events.shape or not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("sample_weight must be finite, non-negative, one per row")
    table = (
        pd.DataFrame({"score": scores, "count": w, "events": w * events})
        .groupby("score", sort=True)[["count", "events"]]
        .sum()
    )
    table = table[table["count"] > 0]
    if sample_weight is None:
        table = table.astype(np.int64)
    table["rate"] = table["events"] / table["count"]
    lo, hi = wilson_interval(table["events"].to_numpy(), table["count"].to_numpy(), confidence)
    table["lower"] = lo
    table["upper"] = hi
    table["predicted"] = card.predicts_positive(table.index.to_numpy() - card.threshold)
    return table
