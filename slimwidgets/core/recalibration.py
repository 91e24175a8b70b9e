"""Refitting a card's threshold or its score-to-risk link for a new site, points unchanged.

A card moved to another hospital keeps its points (they are what people learned and print), but
the base rate and the spread of outcomes there may differ. :meth:`ScoringSystem.recalibrate
<slimwidgets.core.scoring.ScoringSystem.recalibrate>` calls these functions:

* a decision card gets the threshold that best meets its own settings on the new rows (the
  highest TPR under its ``max_fpr``, the lowest FPR over its ``min_tpr``, else the least
  (class-weighted) error);
* a risk card gets the intercept and the multiplier of its logistic link
  ``risk = 1 / (1 + exp(-(score + intercept) / multiplier))`` fitted by maximum likelihood on the
  new rows. The intercept stays an integer, as on every risk card, so the card still predicts
  the event where the risk is at least 50 % and every export (SQL, Python, LaTeX) holds as it is.
* a time-to-event card gets Breslow's baseline hazard re-estimated on the new rows, each row's
  log hazard ratio ``total / multiplier`` a fixed offset; optionally the multiplier first, by
  Cox's partial likelihood of the totals (:func:`refit_baseline`).
"""

from __future__ import annotations

import math

import numpy as np

from .cox_floor import best_scale_of
from .losses import MAX_INVERSE_MULTIPLIER, MIN_INVERSE_MULTIPLIER, best_scale, softplus
from .spec import Spec
from .survival import CoxCells, breslow_baseline

__all__ = ["refit_threshold", "refit_link", "refit_baseline"]


def _class_weights(events: np.ndarray, spec: Spec | None) -> tuple[float, float]:
    """(negative, positive) weight per row, as the card's settings weigh errors."""
    cw = None if spec is None else spec.class_weights
    if cw is None:
        return 1.0, 1.0
    if cw == "balanced":
        pos = max(float(events.sum()), 1.0)
        return events.size / (2 * max(events.size - pos, 1.0)), events.size / (2 * pos)
    return float(cw[0]), float(cw[1])


def refit_threshold(
    scores: np.ndarray, events: np.ndarray, spec: Spec | None, rule: str, old: int
) -> int:
    """The threshold that best meets the card's settings on new rows (ties: nearest ``old``).

    Examples
    --------
    >>> refit_threshold(np.array([0, 1, 2, 3, 4]), np.array([0, 0, 1, 1, 1]), None, ">=", 4)
    2
    """
    candidates = np.arange(int(scores.min()) - 1, int(scores.max()) + 2)
    pos, neg = events == 1, events == 0
    w_neg, w_pos = _class_weights(events, spec)
    best, best_key = None, None
    for t in candidates:
        called = scores >= t if rule == ">=" else scores > t
        tpr = called[pos].mean() if pos.any() else math.nan
        fpr = called[neg].mean() if neg.any() else math.nan
        if spec is not None and spec.max_fpr is not None and not fpr <= spec.max_fpr + 1e-12:
            continue
        if spec is not None and spec.min_tpr is not None and not tpr >= spec.min_tpr - 1e-12:
            continue
        error = w_pos * np.sum(pos & ~called) + w_neg * np.sum(neg & called)
        if spec is not None and spec.max_fpr is not None and spec.min_tpr is None:
            goal = (-tpr, fpr)  # the card was the most sensitive under its FPR cap
        elif spec is not None and spec.min_tpr is not None and spec.max_fpr is None:
            goal = (fpr, -tpr)
        else:
            goal = (error, 0.0)
        key = (*goal, abs(int(t) - old))
        if best_key is None or key < best_key:
            best, best_key = int(t), key
    if best is None:
        caps = [
            f"{name} = {value:g}"
            for name, value in (("max_fpr", spec.max_fpr), ("min_tpr", spec.min_tpr))
            if value is not None
        ]
        raise ValueError(f"no threshold meets the card's {' and '.join(caps)} on the new rows")
    return best


def refit_link(scores: np.ndarray, events: np.ndarray) -> tuple[int, float, float]:
    """The integer intercept and the multiplier of least mean log-loss on new rows.

    For each integer intercept in a range that covers the scores, the best multiplier is a
    one-dimensional convex problem (the same Newton search the fit uses, ``m >= 1/2``).

    Returns
    -------
    (intercept, multiplier, mean log-loss)

    Examples
    --------
    >>> c, m, loss = refit_link(np.array([0, 1, 2, 3, 4, 5]), np.array([0, 0, 1, 0, 1, 1]))
    >>> c, round(m, 3)
    (-3, 0.906)
    """
    if events.min() == events.max():
        raise ValueError("recalibrating a risk card needs rows of both classes")
    sign = np.where(events == 1, 1.0, -1.0)
    w = np.full(events.size, 1.0 / events.size)
    lo, hi = int(scores.min()), int(scores.max())
    best = None
    for c in range(-hi - 3, -lo + 4):
        margins = sign * (scores + c)
        t = best_scale(margins, w, MIN_INVERSE_MULTIPLIER, MAX_INVERSE_MULTIPLIER)
        loss = float(w @ softplus(-t * margins))
        if best is None or loss < best[2] - 1e-12:
            best = (c, 1.0 / t, loss)
    return best


def refit_baseline(
    totals: np.ndarray,
    time: np.ndarray,
    event: np.ndarray,
    multiplier: float | None,
    ties: str = "breslow",
) -> tuple[float, np.ndarray, np.ndarray]:
    """(multiplier, event times, Breslow's cumulative baseline hazard at each) on new rows.

    Each row's log hazard ratio ``total / multiplier`` is a fixed offset. With ``multiplier``
    None it is refitted first: the ``1 / multiplier`` in the fit's range that maximizes Cox's
    partial likelihood of ``totals`` (ties by ``ties``), a convex problem in one variable.

    Parameters
    ----------
    totals : ndarray
        Each new row's total score under the card's points.
    time, event : ndarray
        Each new row's follow-up time and whether its event happened.
    multiplier : float or None
        The card's multiplier to keep, or None to refit it.
    ties : str, default="breslow"
        ``"breslow"`` or ``"efron"``: the partial likelihood's ties when the multiplier is refit.

    Examples
    --------
    >>> totals, time = np.array([0.0, 1.0, 2.0, 2.0]), np.array([4.0, 3.0, 1.0, 2.0])
    >>> m, times, hazard = refit_baseline(totals, time, np.array([True, True, True, False]), 1.0)
    >>> m, times.tolist(), hazard.round(3).tolist()
    (1.0, [1.0, 3.0, 4.0], [0.054, 0.323, 1.323])
    """
    totals = np.asarray(totals, dtype=float)
    if multiplier is None and np.ptp(totals) > 0:
        cells = CoxCells(totals[:, None], time, event, None, ties)
        t_range = (MIN_INVERSE_MULTIPLIER, MAX_INVERSE_MULTIPLIER)
        multiplier = 1.0 / best_scale_of(cells, cells.values[:, 0], t_range)[0]
    elif multiplier is None:
        raise ValueError("every new row has the same total: the multiplier cannot be refitted")
    times, hazard = breslow_baseline(totals / multiplier, time, event)
    return float(multiplier), times, hazard
