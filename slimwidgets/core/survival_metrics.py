"""Figures of a time-to-event card's predictions, in scikit-survival's definitions.

The censoring distribution ``G`` (Kaplan–Meier with censorings as events; at a time with both,
the events leave the risk set first) weighs each event by ``1 / G(time)`` (inverse probability
of censoring weights), estimated on the rows given as ``train`` (by default the rows scored).

* Uno's C: Harrell's pairs, each event's pairs weighed by ``1 / G(time)^2``, events after ``tau``
  left out as the earlier of a pair.
* Time-dependent AUC at a horizon ``h`` (cumulative cases, dynamic controls): among events by
  ``h`` (weighed by ``1 / G``) and rows still event-free after ``h``, the weighed share of pairs
  the risk score ranks right (ties one half); its mean over the horizons weighs each by the
  Kaplan–Meier drop in survival there.
* Brier score at ``t``: the squared error of the predicted survival, events by ``t`` weighed by
  ``1 / G(time)``, rows event-free after ``t`` by ``1 / G(t)``; integrated by the trapezoid rule
  over a grid of times and divided by its span.
"""

from __future__ import annotations

import numpy as np

from .survival import harrell_c, kaplan_meier

__all__ = ["censoring_survival", "uno_c", "dynamic_auc", "brier_scores", "integrated_brier"]


def censoring_survival(time: np.ndarray, event: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(times, ``G`` at each): Kaplan–Meier of the censoring, events leaving the risk set first.

    >>> times, G = censoring_survival(np.array([1.0, 2.0, 2.0, 3.0]), np.array([1, 0, 1, 0], bool))
    >>> times.tolist(), G.tolist()  # at 2: one censored of the two left once the event has left
    ([1.0, 2.0, 3.0], [1.0, 0.5, 0.0])
    """
    times, at_time = np.unique(time, return_inverse=True)
    at_time = at_time.ravel()
    leaving = np.bincount(at_time, minlength=times.size)
    events = np.bincount(at_time, weights=event.astype(float), minlength=times.size)
    censored = leaving - events
    at_risk = np.cumsum(leaving[::-1])[::-1] - events
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(censored > 0, censored / at_risk, 0.0)
    return times, np.cumprod(1.0 - ratio)


def _step(times: np.ndarray, values: np.ndarray, at: np.ndarray, before: float = 1.0) -> np.ndarray:
    """A right-continuous step function's values at ``at`` (``before`` ahead of the first time)."""
    index = np.searchsorted(times, at, side="right") - 1
    return np.where(index >= 0, values[np.maximum(index, 0)], before)


def _ipcw(time, event, train) -> np.ndarray:
    times, G = censoring_survival(*train)
    weights = np.zeros(time.size)
    g = _step(times, G, time[event])
    if (g <= 0).any():
        raise ValueError("the censoring survival is 0 at an event time: no inverse weight exists")
    weights[event] = 1.0 / g
    return weights


def uno_c(
    time: np.ndarray, event: np.ndarray, risk: np.ndarray, train=None, tau: float | None = None
) -> float:
    """Uno's concordance index (as scikit-survival's ``concordance_index_ipcw``).

    >>> time, event = np.array([1.0, 2.0, 3.0, 4.0]), np.array([True, False, True, False])
    >>> uno_c(time, event, np.array([4.0, 3.0, 2.0, 1.0]))
    1.0
    """
    train = (time, event) if train is None else train
    weights = _ipcw(time, event, train) ** 2
    if tau is not None:
        weights[time >= tau] = 0.0
    return harrell_c(time, event, risk, weights)


def dynamic_auc(
    time: np.ndarray, event: np.ndarray, risk: np.ndarray, horizons, train=None
) -> tuple[np.ndarray, float]:
    """(AUC at each horizon, their mean weighted by Kaplan–Meier's drops), as scikit-survival's
    ``cumulative_dynamic_auc`` with one risk score per row.

    >>> time, event = np.array([1.0, 2.0, 3.0, 4.0]), np.array([True, True, True, False])
    >>> dynamic_auc(time, event, np.array([3.0, 2.0, 1.0, 0.0]), [1.5, 2.5])[0].tolist()
    [1.0, 1.0]
    """
    train = (time, event) if train is None else train
    weights = _ipcw(time, event, train)
    horizons = np.asarray(horizons, dtype=float)
    scores = np.empty(horizons.size)
    for k, h in enumerate(horizons):
        cases, controls = (time <= h) & event, time > h
        if not cases.any() or not controls.any():
            raise ValueError(f"no case or no control at the horizon {h:g}")
        above = (risk[cases][:, None] > risk[controls][None, :]).sum(axis=1)
        ties = (risk[cases][:, None] == risk[controls][None, :]).sum(axis=1)
        w = weights[cases]
        scores[k] = float(w @ (above + 0.5 * ties)) / (w.sum() * controls.sum())
    if horizons.size == 1:
        return scores, float(scores[0])
    times, survival, _, _ = kaplan_meier(time, event)
    at = _step(times, survival, horizons)
    drops = -np.diff(np.r_[1.0, at])
    return scores, float(scores @ drops / (1.0 - at[-1]))


def brier_scores(
    time: np.ndarray, event: np.ndarray, survival: np.ndarray, grid, train=None
) -> np.ndarray:
    """The Brier score at each time of ``grid``; ``survival[i, k]``: row i's predicted survival
    at ``grid[k]`` (as scikit-survival's ``brier_score``)."""
    train = (time, event) if train is None else train
    times, G = censoring_survival(*train)
    grid = np.asarray(grid, dtype=float)
    g_time, g_grid = _step(times, G, time), _step(times, G, grid)
    g_time, g_grid = np.where(g_time == 0, np.inf, g_time), np.where(g_grid == 0, np.inf, g_grid)
    cases = (time[:, None] <= grid[None, :]) & event[:, None]
    controls = time[:, None] > grid[None, :]
    return np.mean(
        survival**2 * cases / g_time[:, None] + (1 - survival) ** 2 * controls / g_grid, axis=0
    )


def integrated_brier(
    time: np.ndarray, event: np.ndarray, survival: np.ndarray, grid, train=None
) -> float:
    """The Brier score integrated over ``grid`` (trapezoids) and divided by its span."""
    grid = np.asarray(grid, dtype=float)
    if grid.size < 2:
        raise ValueError("the integrated Brier score needs at least two times")
    return float(
        np.trapezoid(brier_scores(time, event, survival, grid, train), grid) / (grid[-1] - grid[0])
    )
