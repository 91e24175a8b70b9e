"""Compiled box fits of Cox's partial likelihood over one support's cells (numba).

A support of ``k`` 0/1 rules splits the rows into at most ``2^k`` cells; the loss needs per
event time only each cell's weight at risk (:class:`~slimwidgets.core.survival.CoxCells`). A
node's floor (:func:`~slimwidgets.core.cox_floor.node_floor`) asks for a few dozen projected
Newton fits of that loss over a box, each of a handful of steps on ``k`` numbers: compiled, one
fit costs (steps x event times x cells x ``k^2``) arithmetic and no Python calls.

:func:`box_fit` is the same projected Newton with backtracking as the floor's Python fit (which
still serves the row-by-row loss of many features): any point's tangent gives a valid floor, so
the two may differ in the last digits and both floors stay proven.
"""

from __future__ import annotations

import math

import numpy as np

from .._jit import njit

__all__ = [
    "box_fit",
    "loss_gradient_hessian",
    "node_floor",
    "scale_slope",
    "least_over_cone",
    "combined_floor",
    "warm_up",
    "FIT_STEPS",
]

FIT_STEPS = 40  # projected Newton steps of one box fit
LINE_STEPS = 40  # halvings of one backtracking line search
GOLDEN = 0.5 * (math.sqrt(5.0) - 1.0)


@njit(nogil=True)
def _loss(at_risk, deaths, events, values, total, v):
    """The loss alone at log hazard ratios ``v``."""
    n_times, n_cells = at_risk.shape
    eta = values @ v
    top = eta.max() if n_cells else 0.0
    e = np.exp(eta - top)
    out = 0.0
    for tau in range(n_times):
        s0 = 0.0
        for c in range(n_cells):
            s0 += at_risk[tau, c] * e[c]
        out += deaths[tau] * (math.log(s0) + top)
    for c in range(n_cells):
        out -= events[c] * eta[c]
    return out / total


@njit(nogil=True)
def loss_gradient_hessian(at_risk, deaths, events, values, total, v):
    """(loss, gradient, Hessian) in ``v`` of the cells' loss. Per event time the risk set's
    sums ``S0 = sum w e^eta`` and ``S1 = sum w e^eta x`` over the cells; the Hessian's
    ``sum_tau d_tau S2_tau / S0_tau`` is ``sum_c hazard_c x_c x_c'`` with each cell's
    ``hazard_c = e^eta_c sum_tau d_tau w_tau,c / S0_tau``: (times x cells x k) in all, not
    (times x cells x k^2)."""
    n_times, n_cells = at_risk.shape
    k = v.size
    eta = values @ v
    top = eta.max() if n_cells else 0.0
    e = np.exp(eta - top)
    loss, g, h = 0.0, np.zeros(k), np.zeros((k, k))
    s1, hazard = np.zeros(k), np.zeros(n_cells)
    for tau in range(n_times):
        s0 = 0.0
        s1[:] = 0.0
        for c in range(n_cells):
            r = at_risk[tau, c] * e[c]
            s0 += r
            for j in range(k):
                s1[j] += r * values[c, j]
        d = deaths[tau]
        loss += d * (math.log(s0) + top)
        for c in range(n_cells):
            hazard[c] += d * at_risk[tau, c] / s0
        for j in range(k):
            g[j] += d * s1[j] / s0
            for m in range(k):
                h[j, m] -= d * s1[j] * s1[m] / (s0 * s0)
    for c in range(n_cells):
        loss -= events[c] * eta[c]
        a = hazard[c] * e[c]
        for j in range(k):
            g[j] -= events[c] * values[c, j]
            for m in range(k):
                h[j, m] += a * values[c, j] * values[c, m]
    return loss / total, g / total, h / total


@njit(nogil=True)
def _newton_direction(g, h, free):
    """``-(H_ff + ridge I)^-1 g_f`` on the free coordinates (0 elsewhere), by Gaussian
    elimination with partial pivoting."""
    idx = np.flatnonzero(free)
    n = idx.size
    a = np.empty((n, n + 1))
    scale = 0.0
    for i in range(n):
        for j in range(n):
            a[i, j] = h[idx[i], idx[j]]
            scale = max(scale, abs(a[i, j]))
        a[i, n] = -g[idx[i]]
    ridge = 1e-10 * (1.0 + scale)
    for i in range(n):
        a[i, i] += ridge
    for col in range(n):
        pivot = col + np.argmax(np.abs(a[col:, col]))
        for j in range(n + 1):
            a[col, j], a[pivot, j] = a[pivot, j], a[col, j]
        for row in range(col + 1, n):
            f = a[row, col] / a[col, col]
            a[row, col:] -= f * a[col, col:]
    out = np.zeros(g.size)
    for i in range(n - 1, -1, -1):
        s = a[i, n]
        for j in range(i + 1, n):
            s -= a[i, j] * out[idx[j]]
        out[idx[i]] = s / a[i, i]
    return out


@njit(nogil=True)
def box_fit(at_risk, deaths, events, values, total, v, lo, hi):
    """(v, loss, gradient): projected Newton with backtracking on the cells' loss over
    ``lo <= v <= hi``, from ``v`` (clipped into the box)."""
    v = np.minimum(np.maximum(v, lo), hi)
    loss, g, h = loss_gradient_hessian(at_risk, deaths, events, values, total, v)
    for _ in range(FIT_STEPS):
        free = ~(((v <= lo) & (g > 0)) | ((v >= hi) & (g < 0)))
        if not free.any() or np.max(np.abs(g[free])) < 1e-12:
            break
        direction = _newton_direction(g, h, free)
        alpha, moved, trial, trial_v = 1.0, False, loss, v
        for _ in range(LINE_STEPS):
            trial_v = np.minimum(np.maximum(v + alpha * direction, lo), hi)
            trial = _loss(at_risk, deaths, events, values, total, trial_v)
            if trial < loss and trial <= loss + 1e-4 * float(g @ (trial_v - v)):
                moved = True
                break
            alpha *= 0.5
        if not moved:
            break
        done = loss - trial <= 1e-14 * max(abs(loss), 1e-300)
        v = trial_v
        loss, g, h = loss_gradient_hessian(at_risk, deaths, events, values, total, v)
        if done:
            break
    return v, loss, g


@njit(nogil=True)
def scale_slope(at_risk, deaths, events, total, scores, t):
    """(loss, first and second derivative in ``t``) at ``eta = t scores`` (cells' scores)."""
    n_times, n_cells = at_risk.shape
    eta = t * scores
    top = eta.max()
    e = np.exp(eta - top)
    loss, d1, d2 = 0.0, 0.0, 0.0
    for tau in range(n_times):
        s0, s1, s2 = 0.0, 0.0, 0.0
        for c in range(n_cells):
            r = at_risk[tau, c] * e[c]
            s0 += r
            s1 += r * scores[c]
            s2 += r * scores[c] * scores[c]
        d = deaths[tau]
        mean = s1 / s0
        loss += d * (math.log(s0) + top)
        d1 += d * mean
        d2 += d * (s2 / s0 - mean * mean)
    for c in range(n_cells):
        loss -= events[c] * eta[c]
        d1 -= events[c] * scores[c]
    return loss / total, d1 / total, d2 / total


@njit(nogil=True)
def least_over_cone(g, lo, hi, t_low, t_high):
    """(min over ``t lo <= v <= t hi``, ``t`` in ``[t_low, t_high]``, of ``g . v``; ``c``)."""
    c = np.minimum(g * lo, g * hi).sum()
    return min(t_low * c, t_high * c), c


@njit(nogil=True)
def combined_floor(const_a, g_a, const_b, g_b, lo, hi, t_low, t_high):
    """The best floor of the tangents ``theta a + (1 - theta) b`` (concave in theta: golden
    section)."""
    left, right = 0.0, 1.0
    best = -np.inf
    for theta in (0.0, 1.0):
        g = theta * g_a + (1.0 - theta) * g_b
        at = theta * const_a + (1.0 - theta) * const_b
        best = max(best, at + least_over_cone(g, lo, hi, t_low, t_high)[0])
    for _ in range(40):
        x1, x2 = right - GOLDEN * (right - left), left + GOLDEN * (right - left)
        g1, g2 = x1 * g_a + (1.0 - x1) * g_b, x2 * g_a + (1.0 - x2) * g_b
        f1 = x1 * const_a + (1.0 - x1) * const_b + least_over_cone(g1, lo, hi, t_low, t_high)[0]
        f2 = x2 * const_a + (1.0 - x2) * const_b + least_over_cone(g2, lo, hi, t_low, t_high)[0]
        best = max(best, f1, f2)
        if f1 < f2:
            left = x1
        else:
            right = x2
    return best


@njit(nogil=True)
def _fit_at(cells, x, start, i, fits):
    """The box fit at ``t = e^x`` from ``start`` (points, scaled by ``t``), stored as fit ``i``
    of ``fits`` (x, loss, tangent's constant, v, gradient); its loss."""
    at_risk, deaths, events, values, total, lo, hi = cells
    xs, losses, consts, vs, gs = fits
    t = math.exp(x)
    v, loss, g = box_fit(at_risk, deaths, events, values, total, start * t, t * lo, t * hi)
    xs[i], losses[i], consts[i] = x, loss, loss - g @ v
    vs[i], gs[i] = v, g
    start[:] = v / t
    return loss


@njit(nogil=True)
def node_floor(at_risk, deaths, events, values, total, lo, hi, t_low, t_high, steps):
    """(floor, relaxed points) of the cells' loss over every card with points in ``[lo, hi]``
    and ``t`` in ``[t_low, t_high]``: box fits at the points of a golden-section search on
    ``log t`` and at both ends, each fit's tangent bounded over the cone, and the two tangents
    on either side of the best ``t`` combined (:mod:`~slimwidgets.core.cox_floor`)."""
    done = steps + 4
    xs, losses, consts = np.zeros(done), np.zeros(done), np.zeros(done)
    fits = (xs, losses, consts, np.zeros((done, lo.size)), np.zeros((done, lo.size)))
    cells, start = (at_risk, deaths, events, values, total, lo, hi), np.zeros(lo.size)
    a, b = math.log(t_low), math.log(t_high)
    x1, x2 = b - GOLDEN * (b - a), a + GOLDEN * (b - a)
    f1, f2 = _fit_at(cells, x1, start, 0, fits), _fit_at(cells, x2, start, 1, fits)
    for i in range(2, steps + 2):  # V(t) is convex in t, so unimodal in log t
        if f1 < f2:
            b, x2, f2 = x2, x1, f1
            x1 = b - GOLDEN * (b - a)
            f1 = _fit_at(cells, x1, start, i, fits)
        else:
            a, x1, f1 = x1, x2, f2
            x2 = a + GOLDEN * (b - a)
            f2 = _fit_at(cells, x2, start, i, fits)
    _fit_at(cells, math.log(t_low), start, steps + 2, fits)
    _fit_at(cells, math.log(t_high), start, steps + 3, fits)
    xs, losses, consts, vs, gs = fits
    floor = -np.inf
    below, above = -1, -1
    for i in range(done):
        least, c = least_over_cone(gs[i], lo, hi, t_low, t_high)
        floor = max(floor, consts[i] + least)
        if c <= 0 and (below < 0 or xs[i] > xs[below]):
            below = i
        if c > 0 and (above < 0 or xs[i] < xs[above]):
            above = i
    if below >= 0 and above >= 0:  # the tangents on either side of the best t, combined
        floor = max(
            floor,
            combined_floor(
                consts[below], gs[below], consts[above], gs[above], lo, hi, t_low, t_high
            ),
        )
    best = np.argmin(losses[:done])
    return floor, vs[best] / math.exp(xs[best])


def warm_up() -> None:
    """Compile (or load from numba's cache) the node floor and the card's slope in ``t`` on a
    one-cell, one-time problem."""
    one, z = np.ones((1, 1)), np.ones(1)
    node_floor(one, z, z, one, 1.0, -z, z, 0.5, 2.0, 1)
    scale_slope(one, z, z, 1.0, z, 1.0)
