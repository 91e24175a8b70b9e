"""Compiled inner loops of the support scan (numba): cells of rows as bitsets.

Rows are bits: the positive rows fill words ``0 .. Wp-1``, the negative rows the words after
them, so every word holds rows of one class. A *cell* is a set of rows that agree on the
features chosen so far (and on the locked points), stored as its non-zero words only:
``(word index, mask)`` pairs, at most one per row. Only *mixed* cells (rows of both classes)
are kept, since a pure cell contributes nothing to the floor now or after any refinement.

Row weights are integers per class (in units ``u_pos``, ``u_neg``) given as bit slices:
``slices[k, w]`` marks the rows of word w whose weight has bit k set (``K = 0``: every
weight is 1, so a popcount is the weight).
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.extending import intrinsic

from .._jit import njit  # numba's, cached where a cache folder is writable


@intrinsic
def _popcount(typingctx, x):
    """Set bits of a uint64 (LLVM's ctpop: one instruction on CPUs with popcnt)."""

    def codegen(context, builder, signature, args):
        return builder.zext(builder.ctpop(args[0]), context.get_value_type(types.int64))

    return types.int64(types.uint64), codegen


@njit(nogil=True)
def _weight(mask, w, slices, K):
    """Integer weight of the rows in ``mask`` (word w)."""
    if K == 0:
        return _popcount(mask)
    total = 0
    for k in range(K):
        total += _popcount(mask & slices[k, w]) << k
    return total


@njit(nogil=True)
def _split_level(idx, mask, a, b, bits_v, Wp, slices, K):
    """Weights (positive, negative) of a cell's rows that are also in ``bits_v``. A cell's words
    are in increasing order, so its positive words come first."""
    p = 0
    n = 0
    q = a
    if K == 0:  # unit weights: branch-free popcounts
        while q < b and idx[q] < Wp:
            p += _popcount(mask[q] & bits_v[idx[q]])
            q += 1
        while q < b:
            n += _popcount(mask[q] & bits_v[idx[q]])
            q += 1
        return p, n
    while q < b and idx[q] < Wp:
        p += _weight(mask[q] & bits_v[idx[q]], idx[q], slices, K)
        q += 1
    while q < b:
        n += _weight(mask[q] & bits_v[idx[q]], idx[q], slices, K)
        q += 1
    return p, n


@njit(nogil=True)
def _leaf_floor(
    idx, mask, start, cp, cn, ncell, order, bits_j, nlev_j, Wp, slices, K, u_pos, u_neg, budget
):
    """Floor of the cells refined by one more feature: sum of min(positive, negative weight)
    per refined cell. Stops as soon as it reaches ``budget`` (the support is then discarded).
    Returns (floor, word-ops)."""
    floor = 0.0
    ops = 0
    if nlev_j == 0:  # a feature with too many levels: treated as splitting every row apart
        return 0.0, 0
    for r in range(ncell):  # the cells that can add most first: the budget is reached soonest
        c = order[r]
        a = start[c]
        b = start[c + 1]
        rest_p = cp[c]
        rest_n = cn[c]
        for v in range(1, nlev_j):  # level 0 by subtraction
            p, n = _split_level(idx, mask, a, b, bits_j[v], Wp, slices, K)
            ops += b - a
            floor += min(p * u_pos, n * u_neg)
            rest_p -= p
            rest_n -= n
        floor += min(rest_p * u_pos, rest_n * u_neg)
        if floor >= budget:
            break
    return floor, ops


@njit(nogil=True)
def _refine(d, idx, mask, start, cp, cn, nc, order, bits_j, nlev_j, Wp, slices, K, u_pos, u_neg):
    """Cells of depth d + 1: those of depth d split by one feature's levels; mixed ones kept.
    Returns the word-ops."""
    ops = 0
    out_q = 0
    out_c = 0
    start[d + 1, 0] = 0
    if nlev_j > 0:
        for c in range(nc[d]):
            a = start[d, c]
            b = start[d, c + 1]
            for v in range(nlev_j):
                q0 = out_q
                p = 0
                n = 0
                for q in range(a, b):
                    w = idx[d, q]
                    m = mask[d, q] & bits_j[v, w]
                    if m:
                        idx[d + 1, out_q] = w
                        mask[d + 1, out_q] = m
                        out_q += 1
                        if w < Wp:
                            p += _weight(m, w, slices, K)
                        else:
                            n += _weight(m, w, slices, K)
                ops += b - a
                if p > 0 and n > 0:
                    cp[d + 1, out_c] = p
                    cn[d + 1, out_c] = n
                    out_c += 1
                    start[d + 1, out_c] = out_q
                else:
                    out_q = q0  # a pure cell stays pure: drop it
    nc[d + 1] = out_c
    _order_cells(cp[d + 1], cn[d + 1], out_c, order[d + 1], u_pos, u_neg)
    return ops


@njit(nogil=True)
def _order_cells(cp, cn, ncell, order, u_pos, u_neg):
    """Cells by decreasing min(positive, negative weight), the most a cell can add to a floor."""
    key = np.empty(ncell)
    for c in range(ncell):
        key[c] = -min(cp[c] * u_pos, cn[c] * u_neg)
    order[:ncell] = np.argsort(key)


@njit(nogil=True)
def _within_caps(chosen, d, var, var_room, member, cap_room):
    """Whether the features ``chosen[0..d]`` keep the hard caps on supports: at most ``var_room``
    distinct variables among those with ``var >= 0`` (the others add none: no cap, or their
    variable is in use already), and at most ``cap_room[c]`` of the features in ``member[c]``
    (an ``at_most`` constraint, such as ``max_cuts_per_variable``). Both only grow as features
    are added, so a support that breaks one has no support above it that keeps it."""
    new = 0
    for t in range(d + 1):
        v = var[chosen[t]]
        if v < 0:
            continue
        seen = False
        for s in range(t):
            if var[chosen[s]] == v:
                seen = True
                break
        if not seen:
            new += 1
    if new > var_room:
        return False
    for c in range(member.shape[0]):
        used = 0
        for t in range(d + 1):
            used += member[c, chosen[t]]
        if used > cap_room[c]:
            return False
    return True


@njit(nogil=True)
def scan_supports(
    k,
    first_lo,
    first_hi,
    bits,
    nlev,
    cost,
    budget0,
    Wp,
    slices,
    K,
    u_pos,
    u_neg,
    idx,
    mask,
    start,
    cp,
    cn,
    nc,
    order,
    out_sup,
    out_floor,
    var,
    var_room,
    member,
    cap_room,
):
    """Every support of ``k`` scanned features whose first lies in [first_lo, first_hi) and that
    keeps the caps (:func:`_within_caps`; a branch that breaks them is cut whole): its
    floor (cells of depth 0, refined by each feature in turn) against the budget
    ``budget0 - sum of cost[j]``; a support whose floor reaches its budget is discarded.

    ``idx, mask, start, cp, cn, nc, order`` hold the cells per depth (``order``: the cells by
    decreasing min weight); depth 0 must be filled by the caller. Survivors go to ``out_sup`` /
    ``out_floor`` while they fit. Returns (survivors, supports scanned, word-ops); more survivors
    than rows of ``out_sup`` means the caller must run again with more room.
    """
    P = bits.shape[0]
    chosen = np.zeros(k, np.int64)
    spent = np.zeros(k + 1)
    found = 0
    scanned = 0
    ops = 0
    d = 0
    chosen[0] = first_lo - 1
    while d >= 0:
        chosen[d] += 1
        limit = P - (k - 1 - d)
        if d == 0 and first_hi < limit:
            limit = first_hi
        if chosen[d] >= limit:
            d -= 1
            continue
        j = chosen[d]
        if not _within_caps(chosen, d, var, var_room, member, cap_room):
            continue
        spent[d + 1] = spent[d] + cost[j]
        budget = budget0 - spent[d + 1]
        if budget <= 0.0:  # costs alone reach the incumbent (a floor is never negative)
            continue
        if d == k - 1:
            scanned += 1
            floor, used = _leaf_floor(
                idx[d],
                mask[d],
                start[d],
                cp[d],
                cn[d],
                nc[d],
                order[d],
                bits[j],
                nlev[j],
                Wp,
                slices,
                K,
                u_pos,
                u_neg,
                budget,
            )
            ops += used + 1
            if floor < budget:
                if found < out_sup.shape[0]:
                    for t in range(k):
                        out_sup[found, t] = chosen[t]
                    out_floor[found] = floor
                found += 1
            continue
        ops += _refine(
            d, idx, mask, start, cp, cn, nc, order, bits[j], nlev[j], Wp, slices, K, u_pos, u_neg
        )
        d += 1
        chosen[d] = j
    return found, scanned, ops


@njit(nogil=True)
def threshold_floor(order, x, group, n_groups, w, pos, up, down):
    """The least weighted errors of any labelling that, within each group of rows, is a
    threshold on ``x`` in one direction shared by every group: ``up`` (rows at or above the
    threshold called positive, a positive point on ``x``) or ``down`` (below it). ``order``
    lists the rows by increasing ``x``; a threshold never splits rows of equal ``x``.

    Per group, errors above-positive are N + (P_below - N_below) and below-positive
    P + (N_below - P_below), P and N the group's positive and negative weight: one pass
    over the rows in ``x`` order, keeping each group's least of the brackets at every
    change of value (and before the first row and after the last).
    """
    p = np.zeros(n_groups)
    q = np.zeros(n_groups)
    least_up = np.zeros(n_groups)
    least_down = np.zeros(n_groups)
    last = np.zeros(n_groups)
    seen = np.zeros(n_groups, np.bool_)
    for t in range(order.size):
        r = order[t]
        g = group[r]
        if seen[g] and x[r] != last[g]:
            least_up[g] = min(least_up[g], p[g] - q[g])
            least_down[g] = min(least_down[g], q[g] - p[g])
        seen[g] = True
        last[g] = x[r]
        if pos[r]:
            p[g] += w[r]
        else:
            q[g] += w[r]
    err_up = err_down = 0.0
    for g in range(n_groups):
        err_up += q[g] + min(least_up[g], p[g] - q[g])
        err_down += p[g] + min(least_down[g], q[g] - p[g])
    if up and down:
        return min(err_up, err_down)
    return err_up if up else err_down


#: a row counts as right this far short of its margin (the package allows 1e-9): a floor may
#: only be generous, so a total that rounding puts a hair below an integer still reaches it
LATTICE_SLACK = 1e-7


@njit(nogil=True)
def fractional_scores(XF, lamF):
    """Each row's total from the fractional columns ``XF`` with the points ``lamF``."""
    u = np.zeros(XF.shape[0])
    for r in range(XF.shape[0]):
        for f in range(XF.shape[1]):
            u[r] += lamF[f] * XF[r, f]
    return u


@njit(nogil=True)
def _group_least(rows, a, b, XF, lamF, w, pos, m_pos, m_neg, key, hist):
    """The least weighted errors of one group's rows ``rows[a:b]`` with totals ``K + XF . lamF``
    over the whole numbers K (one group's :func:`._lattice_kernels.group_tables`, not stored)."""
    lo = 0
    hi = 0
    for q in range(a, b):
        r = rows[q]
        u = 0.0
        for f in range(XF.shape[1]):
            u += lamF[f] * XF[r, f]
        if pos[r]:  # right at K >= key; K = key - 1 still wrong
            key[r] = np.int64(np.ceil(m_pos - u - LATTICE_SLACK))
            k_lo, k_hi = key[r] - 1, key[r]
        else:  # right at K <= key; K = key + 1 wrong
            key[r] = np.int64(np.floor(-m_neg - u + LATTICE_SLACK))
            k_lo, k_hi = key[r], key[r] + 1
        lo = k_lo if q == a else min(lo, k_lo)
        hi = k_hi if q == a else max(hi, k_hi)
    width = hi - lo + 1
    hist[: 2 * width] = 0.0
    above = 0.0
    for q in range(a, b):
        r = rows[q]
        if pos[r]:
            hist[2 * (key[r] - lo)] += w[r]
            above += w[r]
        else:
            hist[2 * (key[r] - lo) + 1] += w[r]
    least = above
    below = 0.0
    for i in range(width):
        above -= hist[2 * i]
        least = min(least, above + below)
        below += hist[2 * i + 1]
    return least


@njit(nogil=True)
def _rows_by_group(group, n_groups):
    """(rows, starts): the rows listed group by group, the largest groups first (they add most
    errors, so a sum that must reach a budget gets there soonest)."""
    n = group.size
    size = np.zeros(n_groups, np.int64)
    for r in range(n):
        size[group[r]] += 1
    by_size = np.argsort(-size)
    rank = np.empty(n_groups, np.int64)
    rank[by_size] = np.arange(n_groups)
    start = np.zeros(n_groups + 1, np.int64)
    for t in range(n_groups):
        start[t + 1] = start[t] + size[by_size[t]]
    fill = start[:n_groups].copy()
    rows = np.empty(n, np.int64)
    for r in range(n):
        rows[fill[rank[group[r]]]] = r
        fill[rank[group[r]]] += 1
    return rows, start


@njit(nogil=True)
def combo_floors(XF, combos, group, n_groups, w, pos, m_pos, m_neg, budgets):
    """Per row m of ``combos`` (points on the fractional columns ``XF``), the least weighted
    errors of totals ``K_g + XF . combos[m]`` with a whole number ``K_g`` per group of rows:
    the sum of each group's least errors (:func:`_group_least`), stopped once it reaches
    ``budgets[m]`` (the answer is then at least that: the combination cannot win)."""
    n = XF.shape[0]
    rows, start = _rows_by_group(group, n_groups)
    key = np.empty(n, np.int64)
    reach = 0.0  # every |XF . lamF| lies below reach / 2: a group's keys spread less
    for f in range(XF.shape[1]):
        top = 0.0
        for r in range(n):
            top = max(top, abs(XF[r, f]))
        for m in range(combos.shape[0]):
            reach = max(reach, 2 * top * abs(combos[m, f]) * XF.shape[1])
    hist = np.zeros(2 * (int(reach + m_pos + m_neg) + 8))
    out = np.zeros(combos.shape[0])
    for m in range(combos.shape[0]):
        errors = 0.0
        for t in range(n_groups):
            errors += _group_least(
                rows, start[t], start[t + 1], XF, combos[m], w, pos, m_pos, m_neg, key, hist
            )
            if errors >= budgets[m]:
                break
        out[m] = errors
    return out


@njit(nogil=True)
def lattice_floor(XF, combos, group, n_groups, w, pos, m_pos, m_neg, budget):
    """The least weighted errors of totals ``K_g + XF . lamF`` over the rows ``combos`` of
    points ``lamF`` (shared by every group) and a whole number ``K_g`` per group of rows
    (:func:`combo_floors`), or ``budget`` when none is below it."""
    floors = combo_floors(
        XF, combos, group, n_groups, w, pos, m_pos, m_neg, np.full(combos.shape[0], budget)
    )
    return min(budget, floors.min()) if floors.size else budget


def warm_up() -> None:
    """Compile (or load from numba's cache) the scan kernels."""
    one = np.zeros(1, np.int64)
    threshold_floor(one, np.zeros(1), one, 1, np.ones(1), np.ones(1, np.bool_), True, True)
    lattice_floor(
        np.zeros((1, 1)), np.ones((1, 1)), one, 1, np.ones(1), np.ones(1, np.bool_), 0.0, 1.0, 1.0
    )
    k, W = 1, 2
    bits = np.zeros((1, 2, W), np.uint64)
    idx = np.zeros((k + 1, 2), np.int64)
    mask = np.zeros((k + 1, 2), np.uint64)
    start = np.zeros((k + 1, 2), np.int64)
    cp = np.zeros((k + 1, 1), np.int64)
    scan_supports(
        k,
        0,
        1,
        bits,
        np.array([2]),
        np.zeros(1),
        1.0,
        1,
        np.zeros((1, W), np.uint64),
        0,
        1.0,
        1.0,
        idx,
        mask,
        start,
        cp,
        cp.copy(),
        np.zeros(k + 1, np.int64),
        np.zeros((k + 1, 1), np.int64),
        np.zeros((1, k), np.int64),
        np.zeros(1),
        np.zeros(1, np.int64),
        1,
        np.zeros((0, 1), np.int64),
        np.zeros(0, np.int64),
    )
