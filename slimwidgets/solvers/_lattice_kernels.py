"""Compiled loops of the lattice walk (numba): a support with one column of fractional values,
its rows grouped by the rest, each group's errors a step function of a whole number.

See :mod:`.lattice_walk`: a group's errors are a step function of the whole number the rest
of the card adds (:func:`group_tables`).
"""

from __future__ import annotations

import numpy as np

from .._jit import njit  # numba's, cached where a cache folder is writable
from ._scan_kernels import LATTICE_SLACK, combo_floors, fractional_scores


@njit(nogil=True)
def group_tables(u, group, n_groups, w, pos, m_pos, m_neg):
    """(tables, Klo): ``tables[g, K - Klo]`` the weighted errors of group g when its rows'
    totals are ``K + u`` (K a whole number), for K in ``Klo..Khi``; constant beyond both ends.

    A positive row is right for K at or above ``ceil(m_pos - u)`` and a negative one at or
    below ``floor(-m_neg - u)`` (each within :data:`LATTICE_SLACK`, so the table is never above
    the true errors): histograms of those bounds per group, summed from both ends.
    """
    n = u.size
    key = np.empty(n, np.int64)
    lo = 0
    hi = 0
    for r in range(n):
        if pos[r]:  # right at K >= key; K = key - 1 still wrong
            key[r] = np.int64(np.ceil(m_pos - u[r] - LATTICE_SLACK))
            a, b = key[r] - 1, key[r]
        else:  # right at K <= key; K = key + 1 wrong
            key[r] = np.int64(np.floor(-m_neg - u[r] + LATTICE_SLACK))
            a, b = key[r], key[r] + 1
        lo = a if r == 0 else min(lo, a)
        hi = b if r == 0 else max(hi, b)
    width = hi - lo + 1
    wrong_pos = np.zeros((n_groups, width))  # weight of positives whose bound is this K
    wrong_neg = np.zeros((n_groups, width))
    for r in range(n):
        if pos[r]:
            wrong_pos[group[r], key[r] - lo] += w[r]
        else:
            wrong_neg[group[r], key[r] - lo] += w[r]
    tables = np.empty((n_groups, width))
    for g in range(n_groups):
        above = 0.0  # positives whose bound is above K
        for i in range(width):
            above += wrong_pos[g, i]
        below = 0.0  # negatives whose bound is below K
        for i in range(width):
            above -= wrong_pos[g, i]
            tables[g, i] = above + below
            below += wrong_neg[g, i]
    return tables, lo


@njit(nogil=True)
def _least_costs(vals, nvals, vcost, l1, eps):
    """Per coordinate, the least cost of one of its values (tier cost + eps |value|)."""
    k = nvals.size
    out = np.zeros(k)
    for t in range(k):
        least = np.inf
        for q in range(nvals[t]):
            cost = vcost[t, q] + (eps * abs(vals[t, q]) if l1[t] else 0.0)
            least = min(least, cost)
        out[t] = least
    return out


@njit(nogil=True)
def _best_intercept(tables, lo, s, head, ilo, ihi, best):
    """(least total, its intercept) over the intercepts in ``ilo..ihi`` for group offsets ``s``
    (the others' points times the group's values), or (``best``, 0) when none is below it."""
    n_groups, width = tables.shape
    smin = s.min()
    smax = s.max()
    b_lo = max(ilo, min(lo - smax, ihi))  # beyond, every group's table is flat
    b_hi = min(ihi, max(lo + width - 1 - smin, ilo))
    found = best
    at = 0
    for b in range(b_lo, b_hi + 1):
        total = head
        for g in range(n_groups):
            i = min(max(b + s[g] - lo, 0), width - 1)
            total += tables[g, i]
            if total >= found - 1e-12:
                break
        if total < found - 1e-12:
            found = total
            at = b
    return found, at, (b_hi - b_lo + 1) * n_groups


@njit(nogil=True)
def _class_floor(tables, lo, s, members, starts, n_classes, head, best):
    """``head`` + the least errors when the groups of each class (``members[starts[h]:
    starts[h + 1]]``) share one whole number K and group g adds ``s[g]`` to it: a floor of every
    card whose unassigned points are equal within a class. Stops once it reaches ``best``."""
    width = tables.shape[1]
    total = head
    for h in range(n_classes):
        a, b = starts[h], starts[h + 1]
        smin = s[members[a]]
        smax = smin
        for q in range(a, b):
            smin = min(smin, s[members[q]])
            smax = max(smax, s[members[q]])
        least = np.inf
        for K in range(lo - smax, lo + width - smin):
            here = 0.0
            for q in range(a, b):
                g = members[q]
                here += tables[g, min(max(K + s[g] - lo, 0), width - 1)]
            least = min(least, here)
        total += least
        if total >= best - 1e-12:
            break
    return total


@njit(nogil=True)
def walk_groups(
    XF,
    combos,
    heads,
    group,
    n_groups,
    w,
    pos,
    pattern,
    vals,
    nvals,
    vcost,
    l1,
    eps,
    m_pos,
    m_neg,
    ilo,
    ihi,
    budget,
    members,
    starts,
    n_classes,
):
    """The least weighted errors + value costs below ``budget`` of the cards whose points on
    the fractional columns ``XF`` are a row of ``combos`` (costing ``heads``), whose points on
    the other columns are among ``vals[t, :nvals[t]]`` (group g's value on column t:
    ``pattern[g, t]``) and whose intercept lies in ``ilo..ihi``: (total or inf, combination,
    value index per other column, intercept, work).

    Branch and bound over the other columns' points, in column order: with the first t
    chosen, groups that agree on the columns from t on (class ``members[t, starts[t, h]:
    starts[t, h + 1]]``, ``n_classes[t]`` of them) get the same whole number from the rest, so
    :func:`_class_floor` plus the least costs left bounds every completion; a branch that
    cannot beat the best is cut whole. Each complete choice takes its best intercept.
    """
    k = nvals.size
    least = _least_costs(vals, nvals, vcost, l1, eps)
    rest_after = np.zeros(k + 1)  # least costs of the columns from t on
    for t in range(k - 1, -1, -1):
        rest_after[t] = rest_after[t + 1] + least[t]
    best = budget
    best_m = -1
    best_idx = np.zeros(k, np.int64)
    best_b = 0
    work = 0.0
    idx = np.zeros(k, np.int64)
    s_at = np.zeros((k + 1, n_groups), np.int64)
    head_at = np.zeros(k + 1)
    floors = combo_floors(
        XF, combos, group, n_groups, w, pos, m_pos, m_neg, budget - heads - rest_after[0]
    )
    work += XF.shape[0] * (1 + XF.shape[1]) * combos.shape[0]
    for m in np.argsort(floors + heads):  # the most promising first: the best is met early
        if floors[m] + heads[m] + rest_after[0] >= best - 1e-12:
            continue
        u = fractional_scores(XF, combos[m])
        tables, lo = group_tables(u, group, n_groups, w, pos, m_pos, m_neg)
        work += u.size * (1 + XF.shape[1]) + tables.size
        if k == 0:
            found, b, used = _best_intercept(tables, lo, s_at[0], heads[m], ilo, ihi, best)
            work += used
            if found < best - 1e-12:
                best, best_b, best_m = found, b, m
            continue
        head_at[0] = heads[m]
        t = 0
        idx[0] = -1
        while t >= 0:
            idx[t] += 1
            if idx[t] >= nvals[t]:
                t -= 1
                continue
            v = vals[t, idx[t]]
            head = head_at[t] + vcost[t, idx[t]] + (eps * abs(v) if l1[t] else 0.0)
            for g in range(n_groups):
                s_at[t + 1, g] = s_at[t, g] + np.int64(v * pattern[g, t])
            if head + rest_after[t + 1] >= best - 1e-12:
                continue
            if t + 1 == k:
                found, b, used = _best_intercept(tables, lo, s_at[k], head, ilo, ihi, best)
                work += used
                if found < best - 1e-12:
                    best, best_b, best_m = found, b, m
                    best_idx[:] = idx
                continue
            work += n_groups * tables.shape[1]
            floor = _class_floor(
                tables,
                lo,
                s_at[t + 1],
                members[t + 1],
                starts[t + 1],
                n_classes[t + 1],
                head + rest_after[t + 1],
                best,
            )
            if floor >= best - 1e-12:
                continue
            head_at[t + 1] = head
            t += 1
            idx[t] = -1
    if best_m < 0:
        return np.inf, -1, best_idx, 0, work
    return best, best_m, best_idx, best_b, work


def warm_up() -> None:
    """Compile (or load from numba's cache) the lattice walk's kernels."""
    walk_groups(
        np.zeros((1, 1)),
        np.ones((1, 1)),
        np.zeros(1),
        np.zeros(1, np.int64),
        1,
        np.ones(1),
        np.ones(1, np.bool_),
        np.zeros((1, 0)),
        np.ones((0, 1)),
        np.ones(0, np.int64),
        np.zeros((0, 1)),
        np.ones(0, np.bool_),
        0.0,
        0.0,
        1.0,
        -1,
        1,
        np.inf,
        np.zeros((1, 1), np.int64),
        np.array([[0, 1]]),
        np.ones(1, np.int64),
    )
