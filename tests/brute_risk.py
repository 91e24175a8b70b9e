"""Brute-force oracle for risk cards (the logistic family), written from the definitions only.

The objective of a card (points λ, intercept λ0, multiplier m >= 1/2, or m = 1 without scale):

    sum_i w_i log(1 + exp(-y_i (λ0 + x_i . λ) / m)) / sum_i w_i  +  sum_{j: λ_j != 0} C0_j

Every points vector of the box meeting the spec is listed with :func:`tests.brute.allowed_values`
and the spec's logical constraints; every intercept of the range is tried; the multiplier is
found by scipy's bounded scalar minimizer (not the package's bisection).
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.optimize import minimize_scalar

from brute import allowed_values


def risk_loss(X, y, w, coefs, intercept, t) -> float:
    z = -np.asarray(y, float) * (intercept + np.asarray(X, float) @ np.asarray(coefs, float)) * t
    return float(np.sum(w * np.logaddexp(0.0, z)) / np.sum(w))


def best_t(X, y, w, coefs, intercept) -> tuple[float, float]:
    """Least loss over t = 1/m in [1e-4, 2]: the ends, and scipy's bounded minimizer between."""
    f = lambda t: risk_loss(X, y, w, coefs, intercept, t)  # noqa: E731
    inner = minimize_scalar(f, bounds=(1e-4, 2.0), method="bounded", options={"xatol": 1e-10})
    return min([(f(1e-4), 1e-4), (f(2.0), 2.0), (float(inner.fun), float(inner.x))])[::-1]


def support_ok(spec, names, coefs) -> bool:
    used = {n for n, c in zip(names, coefs) if c != 0}
    if spec.max_size is not None and len(used) > spec.max_size:
        return False
    for c in spec.constraints:
        if c.kind == "needs" and used & set(c.features) and not set(c.targets) <= used:
            return False
        if c.kind == "at_most" and len(used & set(c.features)) > c.k:
            return False
        if c.kind == "at_least" and len(used & set(c.features)) < c.k:
            return False
    return True


def best_risk_card(X, y, names, spec, weights=None, C0=1e-6):
    """(objective, coefs, intercept, t) of the best card; y in {-1, +1}."""
    w = np.ones(len(y)) if weights is None else np.asarray(weights, float)
    c0 = np.array([spec.penalties.get(n, C0 if spec.C0 is None else spec.C0) for n in names])
    best = None
    for coefs in itertools.product(*[allowed_values(spec, n) for n in names]):
        if not support_ok(spec, names, coefs):
            continue
        penalty = float(c0[np.array(coefs) != 0].sum())
        for b in range(spec.intercept_range[0], spec.intercept_range[1] + 1):
            t, loss = best_t(X, y, w, coefs, b) if spec.scale else (1.0, risk_loss(X, y, w, coefs, b, 1.0))
            if best is None or loss + penalty < best[0]:
                best = (loss + penalty, coefs, b, t)
    return best
