"""Break ties between equally good cards toward the one with the larger margin.

Many cards share the optimal training objective: the intercept can often move
within a range, and points can sometimes move between features, without
changing a single training prediction's cost, the features used or the L1
norm. Among those the engine prefers the card whose integer score separates
the classes more widely, measured by the logistic loss of the score (the score
read as log-odds, as RiskSLIM does), centred on the card's decision boundary:

    sum_i d_i log(1 + exp(-y_i (total_i - c)))

with d_i the data weights and c halfway between the totals the rule needs for
each class (-margin/2 under "score >= threshold", 0 under the paper's rule).

The polish is a greedy walk over cards with *exactly the same objective*:
intercept shifts, and moves of one point from one used feature to another
(signs, support and L1 norm kept), or one feature's points negated. Every candidate is checked with
the formulation's own objective and caps, so the objective, the status and the
proof never change; only which of the optimal cards is returned.

Examples
--------
>>> import numpy as np, slimwidgets as sw
>>> from slimwidgets.core.data import prepare_data
>>> from slimwidgets.core.formulation import build_formulation
>>> X = np.array([[1], [1], [1], [0], [0], [0]])
>>> form = build_formulation(prepare_data(X, [1, 1, 1, 0, 0, 0]), sw.make_spec(coef_range=(0, 3)))
>>> lam, b = polish(form, np.array([3]), -1)  # right on every row, but only just: total 2 or -1
>>> lam.tolist(), b, form.objective_of(lam, b) == form.objective_of(np.array([3]), -1)
([3], -2, True)
"""

from __future__ import annotations

import math
import time

import numpy as np

from ..core.formulation import Formulation

__all__ = ["polish", "logistic_loss", "POLISH_ROUNDS", "TRANSFER_WORK"]

#: at most this many improving moves are taken (each scans every move once)
POLISH_ROUNDS = 50
#: moves of points are tried only when (used features)^2 x rows stays below this (a bound on
#: the work of one round, so that the polish stays a small fraction of a solve; else only the
#: intercept moves)
TRANSFER_WORK = 2e6


def logistic_loss(
    form: Formulation, coefficients: np.ndarray, intercept: int | np.ndarray
) -> np.ndarray | float:
    """The data-weighted logistic loss of a card's integer score, centred on its decision
    boundary; ``intercept`` may be an array (one loss per intercept)."""
    data = form.data
    centre = 0.5 * (form.positive_margin - form.margin)
    scores = data.X @ np.asarray(coefficients, dtype=float) - centre
    b = np.atleast_1d(np.asarray(intercept, dtype=float))
    margins = data.y[:, None] * (scores[:, None] + b[None, :])
    loss = data.weight @ np.logaddexp(0.0, -margins)
    return float(loss[0]) if np.ndim(intercept) == 0 else loss


def _value(form: Formulation, coefficients: np.ndarray, intercept: int, keep_l1: bool) -> float:
    """The objective, or without its eps * L1 tie-breaker (loss +
    penalties) when not ``keep_l1``."""
    value = form.objective_of(coefficients, intercept)
    if not keep_l1:
        value -= form.epsilon * float(
            np.abs(np.asarray(coefficients, dtype=float)[form.col_lambda >= 0]).sum()
        )
    return value


def _tied_intercepts(
    form: Formulation, coefficients: np.ndarray, target: float, coprime: bool, keep_l1: bool
) -> np.ndarray:
    """Intercepts at which the card's value (see ``_value``) is ``target`` (caps met), coprime
    with the points when ``coprime``."""
    b, loss = form.intercept_losses(coefficients)
    finite = np.flatnonzero(np.isfinite(loss))
    if not finite.size:
        return b[:0]
    k = finite[0]
    rest = (
        _value(form, coefficients, int(b[k]), keep_l1) - loss[k]
    )  # the penalties: the same at every intercept
    ties = b[np.isfinite(loss) & (np.abs(loss + rest - target) <= 1e-12)]
    if coprime and ties.size:
        g = int(np.gcd.reduce(np.abs(np.asarray(coefficients, dtype=np.int64))))
        ties = ties[np.gcd(ties, g) == 1]
    return ties


def _best_on(
    form: Formulation, coefficients: np.ndarray, target: float, coprime: bool, keep_l1: bool
) -> tuple[float, int] | None:
    """(logistic loss, intercept) of the best tied intercept for these points, or None."""
    ties = _tied_intercepts(form, coefficients, target, coprime, keep_l1)
    if not ties.size:
        return None
    losses = logistic_loss(form, coefficients, ties)
    k = int(np.argmin(losses))
    return float(losses[k]), int(ties[k])


def _signs_agree(form: Formulation, lam: np.ndarray) -> bool:
    """No group that must agree in sign mixes signs (the one constraint a move can break that
    the objective does not see: support, size and the logical constraints stay as they were)."""
    if not form.signs_agree:
        return True
    for members in form.groups:
        oriented = form.orientation[members] * lam[members]
        if (oriented > 0).any() and (oriented < 0).any():
            return False
    return True


def _moves(form: Formulation, lam: np.ndarray, keep_l1: bool):
    """Cards with the same support and L1 norm: one used feature's points negated, or one point
    moved from one used feature to another (signs kept); without ``keep_l1`` also one used
    feature's points one larger or smaller (sign kept)."""
    used = [j for j in np.flatnonzero(lam) if form.col_lambda[j] >= 0]
    if not keep_l1:
        for j in used:
            for step in (-1, 1):
                trial = lam.copy()
                trial[j] += step
                if (
                    trial[j] != 0
                    and np.sign(trial[j]) == np.sign(lam[j])
                    and trial[j] in form.allowed[j]
                ):
                    yield trial
    for j in used:
        if -lam[j] in form.allowed[j]:
            trial = lam.copy()
            trial[j] = -lam[j]
            yield trial
    for j in used:
        for k in used:
            if j == k or abs(lam[j]) < 2:
                continue
            trial = lam.copy()
            trial[j] -= np.sign(lam[j])  # |lambda_j| - 1 (stays non-zero) ...
            trial[k] += np.sign(lam[k])  # ... |lambda_k| + 1
            if trial[j] in form.allowed[j] and trial[k] in form.allowed[k]:
                yield trial


def polish(
    form: Formulation,
    coefficients: np.ndarray,
    intercept: int,
    *,
    keep_l1: bool = True,
    deadline: float = math.inf,
) -> tuple[np.ndarray, int]:
    """The card with the same objective as ``(coefficients, intercept)`` and the lowest logistic
    loss that the greedy walk reaches (the card itself when none is better).

    ``keep_l1=False`` (for measurements; ``fit`` never uses it) lets the walk trade the
    objective's eps * L1 tie-breaker (smallest points) for margin: it keeps only the training
    loss and the penalties equal, so the card may come out with larger points and an objective
    larger by a multiple of eps, no longer the optimum the solver proved.

    The walk stops when ``time.perf_counter()`` passes ``deadline`` (checked before each move
    it tries) with the best card it has reached: every card it visits has the same objective.
    """
    lam = np.asarray(coefficients).astype(np.int64)
    b = int(intercept)
    target = _value(form, lam, b, keep_l1)
    if not math.isfinite(target):
        return lam, b
    coprime = math.gcd(*[abs(int(v)) for v in lam], abs(b)) == 1
    best = (logistic_loss(form, lam, b), b)
    movable = np.count_nonzero(lam) ** 2 * form.data.n_rows <= TRANSFER_WORK
    for _ in range(POLISH_ROUNDS):
        if time.perf_counter() >= deadline:
            break
        improved = None
        here = _best_on(form, lam, target, coprime, keep_l1)
        if here is not None and here[0] < best[0] - 1e-12:
            improved = (here, lam)
        for trial in _moves(form, lam, keep_l1) if movable else ():
            if time.perf_counter() >= deadline:
                break
            if not _signs_agree(form, trial) or not form.linear_rows_hold(trial):
                continue
            found = _best_on(form, trial, target, coprime, keep_l1)
            if found is not None and found[0] < (improved[0][0] if improved else best[0]) - 1e-12:
                improved = (found, trial)
        if improved is None:
            break
        best, lam = improved
        b = best[1]
    # the walk only visits cards of the same objective; keep the start if rounding says otherwise
    if abs(_value(form, lam, b, keep_l1) - target) > 1e-12:
        return np.asarray(coefficients).astype(np.int64), int(intercept)
    return lam, b
