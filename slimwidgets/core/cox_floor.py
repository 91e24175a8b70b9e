"""Floors of Cox's partial likelihood for time-to-event cards: over a node's cone, and of one card.

A card's log hazard ratios are ``v = t points`` with integer points in a box ``[lo, hi]`` and
``t = 1/m`` in ``[t_min, t_max]``: the polytope ``P = {(v, t): t lo <= v <= t hi}``. The loss
(:class:`~slimwidgets.core.survival.CoxCells`) is convex in ``v``, so for any ``x`` with
gradient ``g`` the tangent ``L(x) + g . (v - x)`` lies below it, and its least value over ``P``
is ``L(x) - g . x + min(t_min c, t_max c)`` with ``c = sum_k min(g_k lo_k, g_k hi_k)``.
:func:`node_floor` takes ``x`` at the box fits of a golden-section search on ``t`` (the least
loss over ``t B`` is convex in ``t``) and combines the two tangents around the best ``t``;
valid however inexact the fits. :func:`best_scale_of` settles one card: its loss is convex in
``t`` alone.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from . import _cox_kernels
from ._cox_kernels import FIT_STEPS, GOLDEN, combined_floor, least_over_cone
from .survival import CoxCells, CoxLoss
from .survival_family import TIME_TO_EVENT

__all__ = ["node_floor", "best_scale_of", "warm_up", "FIT_STEPS", "T_STEPS"]

T_STEPS = 14  # golden-section steps on t per node


def _never() -> bool:
    return False


def _box_fit(
    cells: CoxLoss,
    v: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    stop: Callable[[], bool] = _never,
) -> tuple[np.ndarray, float, np.ndarray]:
    """Projected Newton with backtracking on the loss over ``lo <= v <= hi``:
    (v, loss, gradient); ``stop`` is asked before every step (any point's tangent is valid).
    The rows of many features (the whole box's floor); a support's cells are fitted by the
    compiled :func:`~slimwidgets.core._cox_kernels.box_fit`."""
    v = np.clip(v, lo, hi)
    loss, g, h = cells.value_gradient_hessian(v)
    for _ in range(FIT_STEPS):
        if stop():
            break
        free = ~(((v <= lo) & (g > 0)) | ((v >= hi) & (g < 0)))
        if not free.any() or np.max(np.abs(g[free])) < 1e-12:
            break
        direction = np.zeros_like(v)
        sub = h[np.ix_(free, free)]
        ridge = 1e-10 * (1.0 + np.max(np.abs(sub)))
        direction[free] = -np.linalg.solve(sub + ridge * np.eye(int(free.sum())), g[free])
        alpha, moved = 1.0, False
        for _ in range(40):
            trial_v = np.clip(v + alpha * direction, lo, hi)
            trial = cells.value(trial_v)
            if trial < loss and trial <= loss + 1e-4 * float(g @ (trial_v - v)):
                moved = True
                break
            alpha *= 0.5
        if not moved:
            break
        done = loss - trial <= 1e-14 * max(abs(loss), 1e-300)
        v = trial_v
        loss, g, h = cells.value_gradient_hessian(v)
        if done:
            break
    return v, loss, g


def node_floor(
    cells: CoxLoss,
    lo: np.ndarray,
    hi: np.ndarray,
    t_range: tuple[float, float],
    steps: int = T_STEPS,
    stop: Callable[[], bool] = _never,
) -> tuple[float, np.ndarray]:
    """(a floor of the loss of every card with points in ``[lo, hi]`` and ``t`` in ``t_range``,
    the relaxed points ``v / t`` at the best fit found): see the module's docstring. ``steps``
    golden-section steps on ``t``: fewer give a valid, looser floor sooner. When ``stop`` says
    so, the fits end early and the floor is that of the tangents found so far (valid, looser).
    A support's cells (:class:`~slimwidgets.core.survival.CoxCells`) are floored by the compiled
    :func:`~slimwidgets.core._cox_kernels.node_floor` at once (a few milliseconds: ``stop`` waits
    for its end); the rows of many features here, step by step."""
    if isinstance(cells, CoxCells):
        c = cells
        return _cox_kernels.node_floor(
            c.at_risk, c.deaths, c.events, c.values, c.total, lo, hi, *t_range, steps
        )
    fits: dict[
        float, tuple[float, np.ndarray, float, np.ndarray]
    ] = {}  # log t -> (loss, v, const, c)
    start = [np.zeros(lo.size)]  # the last fit's points: each fit starts from them (fewer steps)

    def fit(x: float) -> float:
        t = math.exp(x)
        v, loss, g = _box_fit(cells, start[0] * t, t * lo, t * hi, stop)
        fits[x] = (loss, v, loss - float(g @ v), g)
        start[0] = v / t
        return loss

    a, b = math.log(t_range[0]), math.log(t_range[1])
    x1, x2 = b - GOLDEN * (b - a), a + GOLDEN * (b - a)
    f1, f2 = fit(x1), fit(x2)
    for _ in range(steps):  # V(t) is convex in t, so unimodal in log t
        if stop():
            break
        if f1 < f2:
            b, x2, f2 = x2, x1, f1
            x1 = b - GOLDEN * (b - a)
            f1 = fit(x1)
        else:
            a, x1, f1 = x1, x2, f2
            x2 = a + GOLDEN * (b - a)
            f2 = fit(x2)
    if not stop():
        fit(math.log(t_range[0]))
        fit(math.log(t_range[1]))
    cones = {x: least_over_cone(g, lo, hi, *t_range) for x, (_, _, _, g) in fits.items()}
    floor = max(fits[x][2] + least for x, (least, _) in cones.items())
    below = [x for x, (_, c) in cones.items() if c <= 0]
    above = [x for x, (_, c) in cones.items() if c > 0]
    if below and above:  # the tangents on either side of the best t, combined
        a_, b_ = fits[max(below)], fits[min(above)]
        floor = max(floor, combined_floor(a_[2], a_[3], b_[2], b_[3], lo, hi, *t_range))
    best_x = min(fits, key=lambda x: fits[x][0])
    return floor, fits[best_x][1] / math.exp(best_x)


def best_scale_of(
    cells: CoxCells, scores: np.ndarray, t_range: tuple[float, float]
) -> tuple[float, float, float]:
    """(t, loss, floor) of the cells' integer ``scores`` at the best ``t`` in ``t_range``: the
    loss is convex in ``t``; Newton steps kept in a shrinking bracket, then the tangent at the
    ``t`` found bounds the loss at every ``t`` of the range."""
    lo, hi = t_range
    d_lo, d_hi = cells.scale_slope(scores, lo)[1], cells.scale_slope(scores, hi)[1]
    if d_hi <= 0:
        t = hi
    elif d_lo >= 0:
        t = lo
    else:
        t = 0.5 * (lo + hi)
        for _ in range(100):
            _, d1, d2 = cells.scale_slope(scores, t)
            lo, hi = (t, hi) if d1 < 0 else (lo, t)
            step = t - d1 / d2 if d2 > 0 else 0.5 * (lo + hi)
            new = step if lo < step < hi else 0.5 * (lo + hi)
            if abs(new - t) <= 1e-14 * t or hi - lo <= 1e-15:
                t = new
                break
            t = new
    loss, d1, _ = cells.scale_slope(scores, t)
    return t, loss, loss + min(d1 * (t_range[0] - t), d1 * (t_range[1] - t))


def warm_up() -> None:
    """Compile (or load from numba's cache) the floors over a support's cells, so that a
    proof's time limit is spent proving.

    Examples
    --------
    >>> warm_up()
    """
    _cox_kernels.warm_up()


# a node's floor (its box of points, t over its range) and one card's floor at its best t
TIME_TO_EVENT.loss.holds(cone=node_floor, floor=best_scale_of)
