"""Compiled loops of the search over cells (numba): threshold tables and their pass over cells.

A *cell* of a support of k 0/1 rules is one of the 2^k patterns of their bits, numbered by
``c = sum of bit_j * 2**j``; a set of cells is a mask of 2^k bits (k <= 5: one 64-bit word
holds both masks of a labelling, ``P | N << 2**k``).
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.typed import Dict

from .._jit import njit  # numba's, cached where a cache folder is writable


@njit(nogil=True)
def _grow(arr, size):
    """``arr`` copied into an array twice its length (at least ``size``)."""
    out = np.empty(max(2 * arr.size, size), arr.dtype)
    out[: arr.size] = arr
    return out


@njit(nogil=True)
def threshold_table(k, mags, g):
    """Every labelling of the 2^k cells that positive points make, with its cheapest maker.

    Points ``mu`` run over ``mags^k`` (positive magnitudes); a threshold t labels the cells
    ``P = {c : s(c) >= t}`` (right for positives) and ``N = {c : s(c) <= t - g}`` (right for
    negatives), ``s(c) = mu . c``. Only the thresholds where the pair changes are tried:
    ``min s`` and ``s(c) + 1``, ``s(c) + g`` for every cell. Returns, per distinct ``(P, N)``:
    the masks, the least ``sum(mu)`` that makes it, the index of that ``mu`` (digits of base
    ``len(mags)``, the first coordinate lowest) and its threshold.
    """
    ncell = 1 << k
    m = mags.size
    n_vec = m**k
    slot = Dict.empty(key_type=types.uint64, value_type=types.int64)
    cap = 256
    out_p = np.empty(cap, np.uint64)
    out_n = np.empty(cap, np.uint64)
    out_l1 = np.empty(cap, np.int64)
    out_v = np.empty(cap, np.int64)
    out_t = np.empty(cap, np.int64)
    n = 0
    mu = np.empty(k, np.int64)
    s = np.empty(ncell, np.int64)
    cand = np.empty(2 * ncell + 1, np.int64)
    for v in range(n_vec):
        r = v
        l1 = 0
        for j in range(k):
            mu[j] = mags[r % m]
            r //= m
            l1 += mu[j]
        s[0] = 0
        for c in range(1, ncell):
            j = 0
            while not (c >> j) & 1:
                j += 1
            s[c] = s[c ^ (1 << j)] + mu[j]
        cand[0] = 0  # every point is positive: the empty cell scores least
        for c in range(ncell):
            cand[1 + 2 * c] = s[c] + 1
            cand[2 + 2 * c] = s[c] + g
        for q in range(2 * ncell + 1):
            t = cand[q]
            p = np.uint64(0)
            nn = np.uint64(0)
            for c in range(ncell):
                if s[c] >= t:
                    p |= np.uint64(1) << np.uint64(c)
                if s[c] <= t - g:
                    nn |= np.uint64(1) << np.uint64(c)
            key = p | (nn << np.uint64(ncell)) if ncell < 64 else p
            if key in slot:
                i = slot[key]
                if l1 < out_l1[i]:
                    out_l1[i] = l1
                    out_v[i] = v
                    out_t[i] = t
                continue
            if n == out_p.size:
                out_p = _grow(out_p, n + 1)
                out_n = _grow(out_n, n + 1)
                out_l1 = _grow(out_l1, n + 1)
                out_v = _grow(out_v, n + 1)
                out_t = _grow(out_t, n + 1)
            slot[key] = n
            out_p[n] = p
            out_n[n] = nn
            out_l1[n] = l1
            out_v[n] = v
            out_t[n] = t
            n += 1
    return out_p[:n], out_n[:n], out_l1[:n], out_v[:n], out_t[:n]


@njit(nogil=True)
def _subset_sums(w, negmask, ncell, lut):
    """``lut[q, b]``: the sum of ``w[c ^ negmask]`` over the cells c = 8q + i with bit i of b."""
    for q in range((ncell + 7) // 8):
        lut[q, 0] = 0.0
        for b in range(1, 256):
            low = b & -b
            i = 0
            while (low >> i) != 1:
                i += 1
            c = 8 * q + i
            lut[q, b] = lut[q, b ^ low] + (w[c ^ negmask] if c < ncell else 0.0)


@njit(nogil=True)
def _mask_sum(lut, mask, chunks):
    total = 0.0
    for q in range(chunks):
        total += lut[q, (mask >> np.uint64(8 * q)) & np.uint64(255)]
    return total


@njit(nogil=True)
def best_labelling(P, N, l1, wp, wn, row_p, row_n, upper, negmasks, eps):
    """The cheapest table row and sign pattern on one support's cells that keeps every row.

    ``wp, wn`` are the cells' loss weights of positives and negatives. A row of the table
    under sign pattern ``negmask`` (the coordinates whose points are negative) is right for the
    positives of the cells c with ``c ^ negmask`` in P and for the negatives of those with
    ``c ^ negmask`` in N. Its cost is the weighted errors plus ``eps * l1``. ``row_p[r], row_n[r]``
    are constraint r's coefficients on each cell's wrong positives and wrong negatives (a class
    cap: the data weights of one class; a group cap or gap: its rows' coefficients summed per
    cell), ``upper[r]`` its bound: table rows that break one are skipped, as the walk prices
    them beyond any card. Returns (cost, row, negmask); row -1 when every row breaks one.
    """
    ncell = wp.size
    chunks = (ncell + 7) // 8
    Wp = wp.sum()
    Wn = wn.sum()
    n_rows = upper.size
    lp = np.empty((chunks, 256))
    ln = np.empty((chunks, 256))
    rp = np.empty((n_rows, chunks, 256))
    rn = np.empty((n_rows, chunks, 256))
    Rp = np.empty(n_rows)
    Rn = np.empty(n_rows)
    for r in range(n_rows):
        Rp[r] = row_p[r].sum()
        Rn[r] = row_n[r].sum()
    best = np.inf
    best_row = -1
    best_neg = 0
    for s in range(negmasks.size):
        neg = negmasks[s]
        _subset_sums(wp, neg, ncell, lp)
        _subset_sums(wn, neg, ncell, ln)
        for r in range(n_rows):
            _subset_sums(row_p[r], neg, ncell, rp[r])
            _subset_sums(row_n[r], neg, ncell, rn[r])
        for e in range(P.size):
            broken = False
            for r in range(n_rows):
                wrong = Rp[r] - _mask_sum(rp[r], P[e], chunks)
                wrong += Rn[r] - _mask_sum(rn[r], N[e], chunks)
                if wrong - upper[r] > 1e-9:
                    broken = True
                    break
            if broken:
                continue
            cost = (
                (Wp - _mask_sum(lp, P[e], chunks))
                + (Wn - _mask_sum(ln, N[e], chunks))
                + eps * l1[e]
            )
            if cost < best - 1e-12:
                best = cost
                best_row = e
                best_neg = neg
    return best, best_row, best_neg


def warm_up() -> None:
    """Compile (or load from numba's cache) the kernels of the search over cells."""
    P, N, l1, _, _ = threshold_table(1, np.array([1], np.int64), 1)
    w = np.ones(2)
    rows = np.ones((1, 2))
    best_labelling(P, N, l1, w, w, rows, rows, np.ones(1), np.array([0, 1], np.int64), 0.0)
