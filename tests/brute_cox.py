"""Brute-force oracle for time-to-event cards, written from the definitions only.

The objective of a card (integer points λ, t = 1/m in [1e-4, 2]):

    (1 / W) sum over rows i with an event of w_i [log(sum_{j: time_j >= time_i} w_j exp(t x_j . λ))
                                                  - t x_i . λ]  +  sum_{j: λ_j != 0} C0_j

(Breslow's ties: every row with an event at a time sees the same risk set; W is the weight of
the events). It loops over the rows one by one (no cells, no sorting); every points vector of
the box with at most ``max_size`` non-zero points is listed, and ``t`` comes from scipy's bounded
scalar minimizer and the two ends (the package uses its own Newton steps).
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.optimize import minimize_scalar

T_RANGE = (1e-4, 2.0)


def cox_loss(X, time, event, w, points, t) -> float:
    eta = t * (np.asarray(X, float) @ np.asarray(points, float))
    total = 0.0
    for i in range(len(time)):
        if event[i]:
            at_risk = time >= time[i]
            total += w[i] * (np.log(np.sum(w[at_risk] * np.exp(eta[at_risk]))) - eta[i])
    return total / np.sum(w[event])


def best_t(X, time, event, w, points, loss=None) -> tuple[float, float]:
    """(t, loss) of least loss over ``T_RANGE`` (``loss``: :func:`cox_loss`, the default, or
    :func:`efron_loss`)."""
    loss = cox_loss if loss is None else loss
    f = lambda t: loss(X, time, event, w, points, t)  # noqa: E731
    inner = minimize_scalar(f, bounds=T_RANGE, method="bounded", options={"xatol": 1e-11})
    return min(
        [
            (f(T_RANGE[0]), T_RANGE[0]),
            (f(T_RANGE[1]), T_RANGE[1]),
            (float(inner.fun), float(inner.x)),
        ]
    )[::-1]


def cards(allowed, max_size):
    """Every points vector of the boxes with at most ``max_size`` non-zero points."""
    for points in itertools.product(*allowed):
        if np.count_nonzero(points) <= max_size:
            yield np.array(points, dtype=float)


def brute_optimum(
    X, time, event, w, allowed, C0, max_size, loss=None, keep=None
) -> tuple[float, np.ndarray]:
    """(least objective, its points) over every card (``keep``: only the cards it says True of)."""
    best = (np.inf, None)
    for points in cards(allowed, max_size):
        if keep is not None and not keep(points):
            continue
        loss_value = best_t(X, time, event, w, points, loss)[1]
        objective = loss_value + float(np.sum(np.asarray(C0)[points != 0]))
        if objective < best[0]:
            best = (objective, points)
    return best


def tiny_survival(seed: int, n_features: int = 3, binary: bool = True):
    """A tiny random time-to-event problem: (X, time, event, weight); times with ties, censoring."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 16))
    X = rng.integers(0, 2 if binary else 3, size=(n, n_features)).astype(float)
    hazard = np.exp(X @ rng.normal(0, 1, n_features))
    time = np.ceil(rng.exponential(3.0 / hazard)).clip(1, 8)  # integer days: ties
    event = rng.random(n) < 0.7
    event[0] = True
    w = rng.integers(1, 3, n).astype(float)
    return X, time, event, w


def efron_loss(X, time, event, w, points, t) -> float:
    """The same loss with Efron's ties: at a time with m events D, the terms
    ``mean(w_D) log(S - k/m E)`` for k = 0..m-1, S the risk set's and E the events' weighted
    hazard."""
    eta = t * (np.asarray(X, float) @ np.asarray(points, float))
    total = 0.0
    for tau in np.unique(time[event]):
        dying = event & (time == tau)
        at_risk = time >= tau
        S = np.sum(w[at_risk] * np.exp(eta[at_risk]))
        E = np.sum(w[dying] * np.exp(eta[dying]))
        m = int(dying.sum())
        mean_w = np.sum(w[dying]) / m
        total += sum(mean_w * np.log(S - k / m * E) for k in range(m)) - np.sum(
            w[dying] * eta[dying]
        )
    return total / np.sum(w[event])
