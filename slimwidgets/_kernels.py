"""Compiled inner loops of the local search (numba).

They release the GIL, so a search can run on one core while HiGHS (which also
releases it) runs on the other, and the kernel's main thread stays responsive.

``coordinate_losses`` is the hot spot: for one coefficient it tries every
allowed value, moving only the rows where that feature is non-zero between
intercept-histogram bins, and scans the intercept range for the best loss.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _scan(hp, hn, cp, cn, Wp, Dp, R, pos_budget, neg_budget, big):
    """Best intercept index and its loss (+ cap penalty) from the four histograms."""
    cum_hp = 0.0
    cum_hn = 0.0
    cum_cp = 0.0
    cum_cn = 0.0
    best = 0
    best_loss = math.inf
    for b in range(R):
        cum_hp += hp[b]
        cum_hn += hn[b]
        cum_cp += cp[b]
        cum_cn += cn[b]
        loss = (Wp - cum_hp) + cum_hn
        if pos_budget >= 0.0:
            excess = (Dp - cum_cp) - pos_budget
            if excess > 1e-9:
                loss += big * (1.0 + excess)
        if neg_budget >= 0.0:
            excess = cum_cn - neg_budget
            if excess > 1e-9:
                loss += big * (1.0 + excess)
        if loss < best_loss:
            best_loss = loss
            best = b
    return best, best_loss


@njit(cache=True, nogil=True)
def _pos_bin(score, gamma, ilo, R):
    v = math.ceil(gamma - score - 1e-9) - ilo
    return 0 if v < 0 else (R if v > R else int(v))


@njit(cache=True, nogil=True)
def _neg_bin(score, gamma, ilo, R):
    v = math.floor(-gamma - score + 1e-9) - ilo + 1
    return 0 if v < 0 else (R if v > R else int(v))


@njit(cache=True, nogil=True)
def histograms(s_pos, s_neg, w_pos, w_neg, d_pos, d_neg, gamma, ilo, R):
    """Bins of every row for the scores s, and the four weighted histograms."""
    a = np.empty(s_pos.size, np.int64)
    c = np.empty(s_neg.size, np.int64)
    hp = np.zeros(R + 1)
    hn = np.zeros(R + 1)
    cp = np.zeros(R + 1)
    cn = np.zeros(R + 1)
    for i in range(s_pos.size):
        a[i] = _pos_bin(s_pos[i], gamma, ilo, R)
        hp[a[i]] += w_pos[i]
        cp[a[i]] += d_pos[i]
    for i in range(s_neg.size):
        c[i] = _neg_bin(s_neg[i], gamma, ilo, R)
        hn[c[i]] += w_neg[i]
        cn[c[i]] += d_neg[i]
    return a, c, hp, hn, cp, cn


@njit(cache=True, nogil=True)
def best_intercept(hp, hn, cp, cn, Wp, Dp, ilo, R, pos_budget, neg_budget, big):
    b, loss = _scan(hp, hn, cp, cn, Wp, Dp, R, pos_budget, neg_budget, big)
    return b + ilo, loss


@njit(cache=True, nogil=True)
def coordinate_losses(deltas, rp, xp, rn, xn, s_pos, s_neg, a, c, w_pos, w_neg, d_pos, d_neg,
                      hp0, hn0, cp0, cn0, Wp, Dp, gamma, ilo, R, pos_budget, neg_budget, big):
    """For each delta: best intercept and loss after adding delta * x_j to every score."""
    k = deltas.size
    out_b = np.empty(k, np.int64)
    out_loss = np.empty(k)
    hp = np.empty(R + 1)
    hn = np.empty(R + 1)
    cp = np.empty(R + 1)
    cn = np.empty(R + 1)
    for t in range(k):
        d = deltas[t]
        hp[:] = hp0
        hn[:] = hn0
        cp[:] = cp0
        cn[:] = cn0
        if d != 0.0:
            for q in range(rp.size):
                i = rp[q]
                new = _pos_bin(s_pos[i] + d * xp[q], gamma, ilo, R)
                old = a[i]
                if new != old:
                    hp[old] -= w_pos[i]
                    hp[new] += w_pos[i]
                    cp[old] -= d_pos[i]
                    cp[new] += d_pos[i]
            for q in range(rn.size):
                i = rn[q]
                new = _neg_bin(s_neg[i] + d * xn[q], gamma, ilo, R)
                old = c[i]
                if new != old:
                    hn[old] -= w_neg[i]
                    hn[new] += w_neg[i]
                    cn[old] -= d_neg[i]
                    cn[new] += d_neg[i]
        b, loss = _scan(hp, hn, cp, cn, Wp, Dp, R, pos_budget, neg_budget, big)
        out_b[t] = b + ilo
        out_loss[t] = loss
    return out_b, out_loss


@njit(cache=True, nogil=True)
def walk_support(X_pos, X_neg, vals, nvals, s0_pos, s0_neg, w_pos, w_neg, d_pos, d_neg,
                 Wp, Dp, gamma, ilo, R, pos_budget, neg_budget, big, eps, l1_mask, vcost):
    """Best card on one support: every combination of the allowed non-zero values.

    X_pos/X_neg hold the support's columns (rows of each class), vals[t, :nvals[t]] the
    allowed non-zero values of coordinate t, s0_* the scores of the fixed (locked)
    points. The first k-1 coordinates run through all combinations (an odometer);
    the last one is scored for all its values at once, as in ``coordinate_losses``.
    vcost[t, q] is a cost of value q of coordinate t (PILM tiers; zeros otherwise).
    Returns (best loss + eps * L1 + value costs, value index per coordinate, intercept).
    """
    k = X_pos.shape[1]
    idx = np.zeros(k, np.int64)
    best_total = math.inf
    best_idx = np.zeros(k, np.int64)
    best_b = 0
    n_p = s0_pos.size
    n_n = s0_neg.size
    s_pos = np.empty(n_p)
    s_neg = np.empty(n_n)
    last = k - 1
    rp = np.flatnonzero(X_pos[:, last])
    rn = np.flatnonzero(X_neg[:, last])
    xp = X_pos[rp, last].copy()
    xn = X_neg[rn, last].copy()
    deltas = vals[last, :nvals[last]].astype(np.float64)
    while True:
        l1_head = 0.0
        cost_head = 0.0
        for i in range(n_p):
            s_pos[i] = s0_pos[i]
        for i in range(n_n):
            s_neg[i] = s0_neg[i]
        for t in range(last):
            v = vals[t, idx[t]]
            if l1_mask[t]:
                l1_head += abs(v)
            cost_head += vcost[t, idx[t]]
            for i in range(n_p):
                s_pos[i] += v * X_pos[i, t]
            for i in range(n_n):
                s_neg[i] += v * X_neg[i, t]
        a, c, hp0, hn0, cp0, cn0 = histograms(s_pos, s_neg, w_pos, w_neg, d_pos, d_neg, gamma, ilo, R)
        bs, losses = coordinate_losses(deltas, rp, xp, rn, xn, s_pos, s_neg, a, c,
                                       w_pos, w_neg, d_pos, d_neg, hp0, hn0, cp0, cn0, Wp, Dp, gamma, ilo, R,
                                       pos_budget, neg_budget, big)
        for q in range(nvals[last]):
            total = losses[q] + eps * (l1_head + (abs(deltas[q]) if l1_mask[last] else 0.0)) + (cost_head + vcost[last, q])
            if total < best_total - 1e-12:
                best_total = total
                for t in range(last):
                    best_idx[t] = idx[t]
                best_idx[last] = q
                best_b = bs[q]
        # advance the odometer over the first k-1 coordinates
        t = 0
        while t < last:
            idx[t] += 1
            if idx[t] < nvals[t]:
                break
            idx[t] = 0
            t += 1
        if t == last:
            break
    return best_total, best_idx, best_b


_compiled = False


def ensure_compiled() -> None:
    """Compile (or load from numba's cache) every kernel now, so that the first
    solve's time limit is spent solving, not compiling (several seconds when cold)."""
    global _compiled
    if _compiled:
        return
    z = np.zeros(1)
    i = np.zeros(1, np.int64)
    a, c, hp, hn, cp, cn = histograms(z, z, z, z, z, z, 1.0, 0, 2)
    best_intercept(hp, hn, cp, cn, 0.0, 0.0, 0, 2, -1.0, -1.0, 1.0)
    coordinate_losses(z, i, z, i, z, z, z, a, c, z, z, z, z, hp, hn, cp, cn, 0.0, 0.0, 1.0, 0, 2, -1.0, -1.0, 1.0)
    m = np.ones((1, 1))
    walk_support(m, m, m, np.ones(1, np.int64), z, z, z, z, z, z, 0.0, 0.0, 1.0, 0, 2, -1.0, -1.0, 1.0, 0.0,
                 np.ones(1, np.bool_), np.zeros((1, 1)))
    _compiled = True
