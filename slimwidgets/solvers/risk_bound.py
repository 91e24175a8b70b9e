"""Lower bounds on the best risk card: a cutting-plane master MIP (RiskSLIM's idea) in HiGHS.

The logistic loss ``L`` is convex, so every tangent plane lies below it:
``L(x) >= L(p) + g(p) . (x - p)``. The master problem minimizes ``θ + Σ C0_j z_j`` over the
points (and intercept) ``x``, feature indicators ``z`` and ``θ``, subject to the spec's rules
on features and ``θ >=`` every tangent plane collected so far. Its optimum (or HiGHS's proven
bound on it) is a lower bound on the best card; its solution ``x*`` gets the next tangent
plane. HiGHS has no lazy-constraint callback, so each round re-solves the master (the
cutting-plane loop, not RiskSLIM's single branch-and-bound tree).

With ``scale=False`` the master's points are integers and the loop converges to the optimum:
when the master's ``θ*`` equals ``L(x*)`` the bound equals a card's objective, a proof. With a
real multiplier (``scale=True``) the master relaxes ``λ / m`` to real values in the points'
box stretched by the largest ``1/m`` (every such card lies in it since ``m >= 1/2``): the bound
stays valid, but is rarely tight.
"""

from __future__ import annotations

import math
import threading
import time

import numpy as np

from ..core.losses import sigmoid
from .logistic import RiskProblem

__all__ = ["risk_lower_bound"]


def _tangent(prob: RiskProblem, x: np.ndarray) -> tuple[np.ndarray, float]:
    """(gradient, value) of the mean loss at ``x = (points..., intercept)`` (real values)."""
    L = prob.loss
    u = L.margins(x[:-1], x[-1])
    p = L.w * sigmoid(-u)
    return np.append(-L.column_dots(p), -(L.y @ p)), L.of_margins(u)


def _master(prob: RiskProblem, threads: int):
    """The master MIP without cuts; columns: points 0..d-1, intercept d, z d+1..2d, θ 2d+1."""
    from .highs import new_highs
    import highspy

    d = prob.n_features
    h = new_highs(threads)
    inf = highspy.kHighsInf
    stretch = prob.t_max()  # a point's logit is points / m, so at most t_max times the points
    lo = np.array([min(a[0], 0.0) for a in prob.allowed]) * stretch
    hi = np.array([max(a[-1], 0.0) for a in prob.allowed]) * stretch
    ilo, ihi = prob.intercepts
    zlo = np.array([0.0 if 0.0 in a else 1.0 for a in prob.allowed])
    zhi = np.array([0.0 if (a == 0).all() else 1.0 for a in prob.allowed])
    if prob.scale:  # points / m with m >= 1/2: anywhere between 0 and the stretched box's ends
        ilo, ihi = min(ilo, 0) * stretch, max(ihi, 0) * stretch
    col_lo = np.concatenate([lo, [ilo], zlo, [0.0]])
    col_hi = np.concatenate([hi, [ihi], zhi, [inf]])
    h.addVars(2 * d + 2, col_lo, col_hi)
    h.changeColsCost(2 * d + 2, np.arange(2 * d + 2, dtype=np.int32),
                     np.concatenate([np.zeros(d + 1), prob.C0, [1.0]]))
    kinds = np.ones(2 * d + 2, dtype=np.uint8) if not prob.scale else np.concatenate(
        [np.zeros(d + 1), np.ones(d), [0]]).astype(np.uint8)
    kinds[-1] = 0
    h.changeColsIntegrality(2 * d + 2, np.arange(2 * d + 2, dtype=np.int32), kinds)

    def row(lower, upper, cols, vals):
        h.addRow(lower, upper, len(cols), np.asarray(cols, dtype=np.int32), np.asarray(vals, dtype=float))

    for j in range(d):  # points only on used features: lo z <= x <= hi z
        row(-inf, 0.0, [j, d + 1 + j], [1.0, -hi[j]])
        row(0.0, inf, [j, d + 1 + j], [1.0, -lo[j]])
    if not prob.scale:  # integer points: x_j is one of its allowed values, and non-zero iff z_j = 1
        for j, values in enumerate(prob.allowed):
            nonzero = values[values != 0]
            if nonzero.size == 0:
                continue
            first = h.getNumCol()  # one binary per non-zero value, summing to z_j; x_j = its value
            h.addVars(nonzero.size, np.zeros(nonzero.size), np.ones(nonzero.size))
            h.changeColsIntegrality(nonzero.size, np.arange(first, first + nonzero.size, dtype=np.int32),
                                    np.ones(nonzero.size, dtype=np.uint8))
            picks = list(range(first, first + nonzero.size))
            row(0.0, 0.0, [j] + picks, np.concatenate([[1.0], -nonzero]))
            row(0.0, 0.0, [d + 1 + j] + picks, np.concatenate([[1.0], -np.ones(nonzero.size)]))
    if prob.max_size < d:
        row(-inf, prob.max_size, [d + 1 + j for j in range(d)], np.ones(d))
    for kind, feats, targets, k in prob.constraints:
        zs = [d + 1 + j for j in sorted(feats)]
        if kind == "at_most":
            row(-inf, k, zs, np.ones(len(zs)))
        elif kind == "at_least":
            row(k, inf, zs, np.ones(len(zs)))
        else:
            for f in feats:
                for t in targets:
                    row(-inf, 0.0, [d + 1 + f, d + 1 + t], [1.0, -1.0])
    return h


def risk_lower_bound(prob: RiskProblem, points: list[np.ndarray], *, time_limit: float,
                     upper: float = math.inf, threads: int = 1,
                     cancel: threading.Event | None = None) -> tuple[float, tuple[np.ndarray, int] | None]:
    """A proven lower bound on the objective of every card of ``prob``; and, when the loop has
    converged with integer points (``scale=False``), the master's solution: an optimal card
    ``(points, intercept)``, whose objective equals the bound.

    ``points``: where to put the first tangent planes (e.g. the search's best card as
    ``(points / m, intercept / m)``). Stops at ``time_limit`` seconds, on ``cancel``, when the
    bound reaches ``upper`` (the incumbent: nothing more to prove), or when it is exact.
    """
    d = prob.n_features
    deadline = time.perf_counter() + time_limit
    h = _master(prob, threads)
    h.setOptionValue("mip_rel_gap", 1e-7)
    cols = np.arange(d + 1, dtype=np.int32)

    def add_cut(x: np.ndarray) -> None:
        g, value = _tangent(prob, x)  # g . x - θ <= g . p - L(p)
        idx = np.append(cols, 2 * d + 1).astype(np.int32)
        h.addRow(-np.inf, float(g @ x - value), d + 2, idx, np.append(g, -1.0))

    for x in points:
        add_cut(np.asarray(x, dtype=float))
    bound, exact = -math.inf, None
    while exact is None and time.perf_counter() < deadline and not (cancel is not None and cancel.is_set()):
        h.setOptionValue("time_limit", max(deadline - time.perf_counter(), 0.01))
        h.run()
        info = h.getInfo()
        solved = h.getModelStatus().name == "kOptimal"
        master = info.mip_dual_bound  # HiGHS's proof, valid whether or not it closed its gap
        if math.isfinite(master):
            bound = max(bound, float(master))
        if not solved or bound >= upper - 1e-9:
            break
        x = np.asarray(h.getSolution().col_value, dtype=float)
        g, value = _tangent(prob, x[: d + 1])
        if value <= x[2 * d + 1] + 1e-9:  # the planes are tight at the master's optimum
            if not prob.scale and prob.complete_ok(frozenset(np.flatnonzero(np.round(x[:d])).tolist())):
                exact = (np.round(x[:d]), int(round(x[d])))
            break
        add_cut(x[: d + 1])
    return bound, exact
