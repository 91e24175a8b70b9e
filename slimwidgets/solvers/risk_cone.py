"""Floors and exact leaves for risk cards with a free multiplier (``scale=True``, the default).

A card's logits are ``t (λ0, λ)`` with integer points ``λ``, an integer intercept ``λ0`` and
``t = 1/m`` in ``[t_min, t_max]``. In the variables ``(v, t) = (t (λ0, λ), t)`` a node's box
``lo <= λ <= hi``, ``ilo <= λ0 <= ihi`` becomes the linear rows ``t lo <= v <= t hi`` (and the
same for the intercept), ``t_min <= t <= t_max``: a polytope ``P``. The loss depends on ``v``
alone and is convex, so the least loss over ``P`` (the node's relaxation) is a convex problem,
and for any point ``x`` of it with gradient ``g`` the tangent plane gives a floor
``L(x) - g . x + min over P of g . v``. That minimum is ``min(t_min c, t_max c)`` with
``c = sum_k min(g_k lo_k, g_k hi_k)``: a linear function over ``P`` is least at an end of ``t``.
Any convex combination of such tangents is a tangent too (a valid under-estimate), so two
tangents on either side of the best ``t`` are combined, which keeps the floor tight although
``t`` is found only approximately.

:func:`cone_floor` solves the relaxation: for a fixed ``t`` the least loss ``V(t)`` over the box
``t B`` is a projected Newton fit, ``V`` is convex in ``t`` and its slope is ``c`` at the fit, so
``t`` is found by a safeguarded secant on ``c`` in ``log t``.

:func:`leaf_walk` settles a node whose points are single values exactly. With the points
fixed, ``φ(k) = min over t of L(t (k, λ))`` is *quasiconvex* in the intercept ``k`` (the set
``{(λ0, λ) : min_t L(t (λ0, λ)) <= c}`` is convex: a convex combination of ``t1 a`` and ``t2 b``
is ``T`` times a convex combination of ``a`` and ``b`` with ``T`` between ``t1`` and ``t2``), but
not convex, and it may be flat. So the walk starts at the relaxation's real intercept rounded,
and steps outward on each side; at each intercept ``j`` it computes the best ``t`` (a convex
1-D problem) and a lower bound ``LB(j)`` on ``φ(j)`` (the tangent in ``t``). Once
``LB(j) > U`` (``U``: the best card's value already seen, on the other side of ``j``),
quasiconvexity gives ``φ(j') >= φ(j)`` for every ``j'`` beyond ``j``, so that side is done.
Flat stretches are walked to their end (or the intercept box's): never guessed over.
"""

from __future__ import annotations

import math

import numpy as np

from .._jit import njit
from ..core.losses import best_scale
from ..core.risk_family import RISK

__all__ = ["cone_floor", "leaf_walk", "ensure_cone_compiled"]

#: secant steps on the slope of V(t) per relaxation (it usually stops after a few)
T_STEPS = 30
#: Newton steps of a fit at one t (warm-started from the previous t's)
FIT_STEPS = 30
#: golden-section steps on the weight that combines two tangents
THETA_STEPS = 40


@njit(nogil=True)
def _softplus(z):
    return z + math.log1p(math.exp(-z)) if z > 0 else math.log1p(math.exp(z))


@njit(nogil=True)
def _sigmoid(z):
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


@njit(nogil=True)
def _loss_gradient(columns, y, w, v):  # pragma: no cover - compiled
    """(loss, gradient, Hessian) at logits ``v`` (intercept first, then one per column)."""
    n, k = columns.shape
    g = np.zeros(k + 1)
    h = np.zeros((k + 1, k + 1))
    a = np.empty(k + 1)
    loss = 0.0
    for i in range(n):
        a[0] = y[i]
        a[1:] = columns[i]
        z = a @ v
        loss += w[i] * _softplus(-z)
        p = _sigmoid(-z)
        for r in range(k + 1):
            g[r] -= w[i] * a[r] * p
            for c in range(r + 1):
                h[r, c] += w[i] * a[r] * a[c] * p * (1.0 - p)
    for r in range(k + 1):
        for c in range(r):
            h[c, r] = h[r, c]
    return loss, g, h


@njit(nogil=True)
def _loss_at(columns, y, w, v):  # pragma: no cover - compiled
    total = 0.0
    for i in range(columns.shape[0]):
        z = y[i] * v[0]
        for c in range(columns.shape[1]):
            z += columns[i, c] * v[c + 1]
        total += w[i] * _softplus(-z)
    return total


@njit(nogil=True)
def _line_search(
    columns, y, w, v, vlo, vhi, loss, g, direction, alpha
):  # pragma: no cover - compiled
    """(point, loss) of the first halving of ``alpha`` whose projected step lowers the loss
    enough (Armijo), or of none (loss returned unchanged)."""
    for _ in range(60):
        trial_v = np.minimum(np.maximum(v + alpha * direction, vlo), vhi)
        trial = _loss_at(columns, y, w, trial_v)
        if trial < loss and trial <= loss + 1e-4 * (g @ (trial_v - v)):
            return trial_v, trial
        alpha *= 0.5
    return v, loss


@njit(nogil=True)
def _fit_in_box(columns, y, w, v, vlo, vhi, steps):  # pragma: no cover - compiled
    """Projected Newton steps (with backtracking) on the loss over the box ``vlo <= v <= vhi``
    (every coordinate, the intercept's too); ``v`` is moved in place. Returns (loss, gradient)."""
    loss, g, h = _loss_gradient(columns, y, w, v)
    for _ in range(steps):
        # Bertsekas' projected Newton: a coordinate within eps of a bound that the gradient
        # presses it against stays there this step (eps shrinks with the projected gradient)
        eps = min(1e-6, np.sqrt(np.sum((v - np.minimum(np.maximum(v - g, vlo), vhi)) ** 2)))
        free = np.ones(v.size, dtype=np.bool_)
        for c in range(v.size):
            free[c] = not (
                (v[c] <= vlo[c] + eps and g[c] > 0) or (v[c] >= vhi[c] - eps and g[c] < 0)
            )
        idx = np.flatnonzero(free)
        if idx.size == 0 or np.max(np.abs(g[idx])) < 1e-13:
            break
        direction = np.zeros(v.size)
        sub = h[idx][:, idx]
        ridge = 1e-12 * (
            1.0 + np.max(np.abs(sub))
        )  # relative, so that no pivot of a PSD matrix is 0
        direction[idx] = -np.linalg.solve(sub + ridge * np.eye(idx.size), g[idx])
        if -(g @ direction) <= 1e-16 * max(
            loss, 1e-300
        ):  # Newton's decrement: nothing left to gain
            break
        trial_v, trial = _line_search(columns, y, w, v, vlo, vhi, loss, g, direction, 1.0)
        if trial >= loss:  # saturated rows leave the Hessian near 0: a projected gradient step then
            direction = np.zeros(v.size)
            direction[idx] = -g[idx]
            trial_v, trial = _line_search(
                columns,
                y,
                w,
                v,
                vlo,
                vhi,
                loss,
                g,
                direction,
                np.max(vhi - vlo) / np.max(np.abs(g[idx])),
            )
            if trial >= loss:
                break
        v[:] = trial_v
        done = loss - trial <= 1e-15 * max(loss, 1e-300)
        loss, g, h = _loss_gradient(columns, y, w, v)
        if done:
            break
    return loss, g


@njit(nogil=True)
def _least_linear(g, blo, bhi, tmin, tmax):  # pragma: no cover - compiled
    """min over the polytope ``t blo <= v <= t bhi``, ``tmin <= t <= tmax`` of ``g . v``."""
    c = 0.0
    for r in range(g.size):
        c += min(g[r] * blo[r], g[r] * bhi[r])
    return min(tmin * c, tmax * c), c


@njit(nogil=True)
def _combined(const_a, g_a, const_b, g_b, blo, bhi, tmin, tmax):  # pragma: no cover - compiled
    """The best floor from convex combinations of two tangents (concave in the
    weight: golden section)."""

    def at(theta):
        g = theta * g_a + (1.0 - theta) * g_b
        return theta * const_a + (1.0 - theta) * const_b + _least_linear(g, blo, bhi, tmin, tmax)[0]

    lo, hi = 0.0, 1.0
    best = max(at(0.0), at(1.0))
    ratio = 0.5 * (math.sqrt(5.0) - 1.0)
    x1, x2 = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    f1, f2 = at(x1), at(x2)
    for _ in range(THETA_STEPS):
        if f1 < f2:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + ratio * (hi - lo)
            f2 = at(x2)
        else:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - ratio * (hi - lo)
            f1 = at(x1)
    return max(best, f1, f2)


@njit(nogil=True)
def cone_floor(
    columns, y, w, lo, hi, ilo, ihi, tmin, tmax, cutoff, tol
):  # pragma: no cover - compiled
    """(floor, relaxed (λ0, λ), t) of the loss over the node's polytope (see the module's
    docstring): every card with points in ``[lo, hi]``, intercept in ``[ilo, ihi]`` and
    ``t`` in ``[tmin, tmax]`` has a loss at least ``floor``; the relaxed values are the best
    fit's logits divided by its ``t``. The search for ``t`` ends once the floor is within
    ``tol`` of the best fit's loss, or reaches ``cutoff``, or that loss is below ``cutoff``
    (the node is then branched whatever its exact floor); an infinite ``cutoff`` decides nothing."""
    k = lo.size
    blo = np.empty(k + 1)
    bhi = np.empty(k + 1)
    blo[0], bhi[0] = ilo, ihi
    blo[1:], bhi[1:] = lo, hi
    # t = tmax first: where V still falls there (c <= 0) that is the best t
    v = np.minimum(np.maximum(np.zeros(k + 1), tmax * blo), tmax * bhi)
    loss, g = _fit_in_box(columns, y, w, v, tmax * blo, tmax * bhi, FIT_STEPS)
    best_loss, best_v, best_t = loss, v.copy(), tmax
    const_b, g_b = loss - g @ v, g.copy()
    low_b, c_b = _least_linear(g, blo, bhi, tmin, tmax)
    floor = const_b + low_b
    if c_b <= 0:
        return floor, best_v / best_t, best_t
    t_b = tmax
    v = best_v * (tmin / tmax)
    loss, g = _fit_in_box(columns, y, w, v, tmin * blo, tmin * bhi, FIT_STEPS)
    const_a, g_a, t_a = loss - g @ v, g.copy(), tmin
    low_a, c_a = _least_linear(g, blo, bhi, tmin, tmax)
    floor = max(floor, const_a + low_a)
    if loss < best_loss:
        best_loss, best_v, best_t = loss, v.copy(), tmin
    if c_a >= 0:
        return floor, best_v / best_t, best_t
    for step in range(T_STEPS):
        floor = max(floor, _combined(const_a, g_a, const_b, g_b, blo, bhi, tmin, tmax))
        if best_loss - floor <= tol or (
            math.isfinite(cutoff) and (floor >= cutoff or best_loss < cutoff - tol)
        ):
            break
        # secant on V'(t) = c in log t (the best t spans orders of magnitude: m from 1/2 to 10^4)
        x_a, x_b = math.log(t_a), math.log(t_b)
        x = x_a - c_a * (x_b - x_a) / (c_b - c_a)
        width = x_b - x_a
        if step % 3 == 2 or not x_a + 0.01 * width < x < x_b - 0.01 * width:
            x = 0.5 * (x_a + x_b)  # a bisection now and then keeps the bracket shrinking
        t = math.exp(x)
        v = np.minimum(np.maximum(best_v * (t / best_t), t * blo), t * bhi)
        loss, g = _fit_in_box(columns, y, w, v, t * blo, t * bhi, FIT_STEPS)
        c = _least_linear(g, blo, bhi, tmin, tmax)[1]
        if loss < best_loss:
            best_loss, best_v, best_t = loss, v.copy(), t
        if c > 0:
            const_b, g_b, t_b, c_b = loss - g @ v, g.copy(), t, c
        else:
            const_a, g_a, t_a, c_a = loss - g @ v, g.copy(), t, c
    return floor, best_v / best_t, best_t


@njit(nogil=True)
def _intercept_value(s, y, w, k, tmin, tmax):  # pragma: no cover - compiled
    """(loss, t, lower bound) of the card with scores ``s`` (``y x . λ``) and intercept ``k``
    at its best ``t``; the bound is the tangent in ``t`` at the ``t`` found,
    over ``[tmin, tmax]``."""
    u = s + y * k
    t = best_scale(u, w, tmin, tmax)
    loss, slope = 0.0, 0.0
    for i in range(u.size):
        loss += w[i] * _softplus(-t * u[i])
        slope -= w[i] * u[i] * _sigmoid(-t * u[i])
    return loss, t, loss + min(slope * (tmin - t), slope * (tmax - t))


@njit(nogil=True)
def leaf_walk(s, y, w, ilo, ihi, tmin, tmax, start):  # pragma: no cover - compiled
    """(intercept, t, loss, floor) of the best card with scores ``s = y x . λ`` (points fixed)
    over the integer intercepts ``ilo..ihi``, walking out from ``start`` (module docstring):
    every intercept's loss is at least ``floor``, and the card's is within rounding of it."""
    k0 = int(min(max(start, ilo), ihi))
    best, best_t, floor = _intercept_value(s, y, w, k0, tmin, tmax)
    best_k = k0
    for direction in (1, -1):
        j = k0 + direction
        while ilo <= j <= ihi:
            loss, t, low = _intercept_value(s, y, w, j, tmin, tmax)
            floor = min(floor, low)
            beyond = (
                low > best
            )  # φ(j) > the best seen on the other side: the rest of this side is no better
            if loss < best:
                best, best_t, best_k = loss, t, j
            if beyond:
                break
            j += direction
    return best_k, best_t, best, floor


def ensure_cone_compiled() -> None:
    """Compile (or load from the cache) the kernels, so no fit's clock counts it."""
    one = np.ones(1)
    cone_floor(
        np.ones((2, 1)),
        np.array([1.0, -1.0]),
        np.ones(2),
        -one,
        one,
        -1.0,
        1.0,
        1e-4,
        2.0,
        np.inf,
        1e-9,
    )
    leaf_walk(one, one, one, -1.0, 1.0, 1e-4, 2.0, 0.0)


# the risk family's floor of a node's cone (the proof by supports asks for it)
RISK.loss.holds(cone=cone_floor)
