"""Floors of risk cards over the cells of each support of 0/1 rules.

Under a support of ``k`` rules that are all 0/1, a row is seen only through its ``k`` bits, so
the rows fall into at most ``2^k`` cells ``c``, each with the weight ``P_c`` of its positives and
``N_c`` of its negatives. Every card on the support (points ``λ``, intercept ``λ0``, any
multiplier ``m``) gives all rows of a cell one logit ``s_c = (λ0 + c . λ) / m``, so its loss is
``sum_c P_c softplus(-s_c) + N_c softplus(s_c)``. Each term is least at ``s_c = log(P_c / N_c)``,
where it is ``P_c log(T_c / P_c) + N_c log(T_c / N_c)`` (``T_c = P_c + N_c``; 0 for a cell of one
class): the weight of the cell times the binary entropy of its share of positives. The sum of
these minima is the loss of a free logit per cell, so it is at most the loss of every card on
the support, whatever its points, intercept, boxes and multiplier: a floor, computed in one
pass over the rows. A card of fewer rules lies on a support of ``k`` rules too, so the floors of
every support of ``k`` rules bound every card of at most ``k`` rules.

:func:`cell_floors` computes the floor of every support of ``K`` rules, the required ones in
each, walking the supports in the order of :func:`itertools.combinations` and extending each
row's cell number by one bit per rule added (``O(rows)`` per support); :func:`supports_at`
rebuilds the supports of chosen positions in that order (so only the supports that pass a floor
test are ever stored).

Examples
--------
>>> import numpy as np
>>> bits = np.array([[1, 0], [1, 1], [0, 1], [0, 0]], dtype=np.uint8)
>>> positive = np.array([0.25, 0.25, 0.0, 0.0])
>>> negative = np.array([0.0, 0.0, 0.25, 0.25])
>>> floors = cell_floors(bits, positive, negative, np.zeros(0, np.int64), np.arange(2), 1)
>>> [round(float(f), 4) + 0.0 for f in floors]  # rule 0 splits the classes; rule 1: log 2
[0.0, 0.6931]
>>> supports_at(np.arange(2), np.zeros(0, np.int64), 1, np.array([1]))
array([[1]])
"""

from __future__ import annotations

import math

import numpy as np

from .._jit import njit
from ..core.risk_family import RISK

__all__ = ["cell_floors", "supports_at", "cell_entropy", "ensure_cells_compiled", "ROUNDING"]

#: every floor is lowered by this share of (1 + itself): a sum of a few hundred logarithms is
#: exact to far less, so the floor never passes the least loss it bounds by rounding
ROUNDING = 1e-12


@njit(nogil=True)
def cell_entropy(positive, negative):  # pragma: no cover - compiled
    """``sum_c P_c log(T_c / P_c) + N_c log(T_c / N_c)`` over the cells (``T_c = P_c + N_c``):
    the least loss of a free logit per cell."""
    total = 0.0
    for c in range(positive.size):
        p, q = positive[c], negative[c]
        if p > 0.0 and q > 0.0:
            t = p + q
            total += p * math.log(t / p) + q * math.log(t / q)
    return total


@njit(nogil=True)
def _choose(n, k):  # pragma: no cover - compiled
    """``n`` choose ``k`` (0 outside ``0 <= k <= n``), exact in int64 for the sizes used here."""
    if k < 0 or k > n:
        return 0
    k = min(k, n - k)
    out = 1
    for i in range(k):
        out = out * (n - i) // (i + 1)
    return out


@njit(nogil=True)
def _extend(keys, bits, level, rule, shift):  # pragma: no cover - compiled
    """Cell numbers one rule deeper: ``keys[level + 1] = keys[level] | bit << shift``."""
    for i in range(keys.shape[1]):
        keys[level + 1, i] = keys[level, i] | (np.int64(bits[i, rule]) << shift)


@njit(nogil=True)
def _leaf_floor(key, positive, negative, cells_p, cells_n):  # pragma: no cover - compiled
    cells_p[:] = 0.0
    cells_n[:] = 0.0
    for i in range(key.size):
        cells_p[key[i]] += positive[i]
        cells_n[key[i]] += negative[i]
    total = cell_entropy(cells_p, cells_n)
    return total - ROUNDING * (1.0 + total)


@njit(nogil=True)
def cell_floors(bits, positive, negative, required, optional, size):  # pragma: no cover - compiled
    """The cell floor (module docstring) of every support of ``size`` rules made of the
    ``required`` rules and ``size - len(required)`` of the ``optional`` ones, in the order of
    ``itertools.combinations(optional, size - len(required))``.

    ``bits``: the rows' 0/1 rules (uint8, rows by rules); ``positive``, ``negative``: each row's
    weight as a positive and as a negative (one of them 0 for a row of one label)."""
    n, r = bits.shape[0], required.size
    extra, p = size - r, optional.size
    count = _choose(p, extra)
    floors = np.empty(count)
    if count == 0:
        return floors
    keys = np.zeros((extra + 1, n), dtype=np.int64)
    for level in range(r):  # the required rules' bits first: shared by every support
        for i in range(n):
            keys[0, i] |= np.int64(bits[i, required[level]]) << level
    cells_p, cells_n = np.zeros(2**size), np.zeros(2**size)
    chosen = np.arange(extra)
    changed = 0  # the first level whose rule changed since the last support
    for s in range(count):
        for level in range(changed, extra):
            _extend(keys, bits, level, optional[chosen[level]], r + level)
        floors[s] = _leaf_floor(keys[extra], positive, negative, cells_p, cells_n)
        i = extra - 1  # the next combination: the last position that can still move right
        while i >= 0 and chosen[i] == p - extra + i:
            i -= 1
        if i < 0:
            break
        chosen[i] += 1
        for j in range(i + 1, extra):
            chosen[j] = chosen[j - 1] + 1
        changed = i
    return floors


@njit(nogil=True)
def _unrank(p, extra, rank, out):  # pragma: no cover - compiled
    """The ``rank``-th combination of ``extra`` of ``range(p)`` in lexicographic order."""
    x = 0
    for i in range(extra):
        while _choose(p - x - 1, extra - i - 1) <= rank:
            rank -= _choose(p - x - 1, extra - i - 1)
            x += 1
        out[i] = x
        x += 1


@njit(nogil=True)
def supports_at(optional, required, size, ranks):  # pragma: no cover - compiled
    """The supports (rows of rule indices, the required rules first) at positions ``ranks`` of
    :func:`cell_floors`' order."""
    r = required.size
    extra = size - r
    out = np.empty((ranks.size, size), dtype=np.int64)
    chosen = np.empty(extra, dtype=np.int64)
    for s in range(ranks.size):
        _unrank(optional.size, extra, ranks[s], chosen)
        out[s, :r] = required
        for i in range(extra):
            out[s, r + i] = optional[chosen[i]]
    return out


def ensure_cells_compiled() -> None:
    """Compile (or load from the cache) the kernels, so no fit's clock counts it."""
    bits = np.zeros((2, 2), dtype=np.uint8)
    one = np.ones(2)
    cell_floors(bits, one, one, np.zeros(1, np.int64), np.ones(1, np.int64), 2)
    supports_at(np.ones(1, np.int64), np.zeros(1, np.int64), 2, np.zeros(1, np.int64))


# the risk family's floor of every support over its cells (the proof by supports asks for it)
RISK.loss.holds(cells=cell_floors)
