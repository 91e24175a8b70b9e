"""The training rows merged per support, for the floors of risk cards' proof by supports
(:mod:`slimwidgets.solvers.risk_branch_and_bound`): every card that uses only a support's features
has
the same loss on the rows that agree on those features' values and the label merged into one
(weights added), and there are far fewer of them."""

from __future__ import annotations

import numpy as np

from .._jit import njit

__all__ = ["merged_rows", "merged_by_ranks", "support_rows", "value_ranks", "MAX_TABLE_FEATURES"]


@njit(nogil=True)
def merged_rows(X, y, w, idx):  # pragma: no cover - compiled
    """(y * x_j for j in idx, y, w) with the rows that agree on 0/1 features ``idx`` and the
    label merged into one cell (weights added): at most 2^(k+1) cells."""
    k = idx.size
    cells = np.zeros(2 ** (k + 1))
    for i in range(X.shape[0]):
        key = 1 if y[i] > 0 else 0
        for c in range(k):
            if X[i, idx[c]] != 0:
                key += 2 ** (c + 1)
        cells[key] += w[i]
    used = np.flatnonzero(cells)
    cy = np.where(used % 2 == 1, 1.0, -1.0)
    columns = np.empty((used.size, k))
    for r in range(used.size):
        for c in range(k):
            columns[r, c] = cy[r] * ((used[r] >> (c + 1)) & 1)
    return columns, cy, cells[used]


@njit(nogil=True)
def merged_by_ranks(X, y, w, ranks, sizes, idx):  # pragma: no cover - compiled
    """As :func:`merged_rows` for features of any values: rows that agree on the support's
    values (``ranks``: each value's rank in its column, ``sizes`` ranks per column) and the
    label merge into one (weights added); sorted by a key that numbers each combination."""
    n, k = X.shape[0], idx.size
    keys = np.empty(n, dtype=np.int64)
    for i in range(n):
        key = 0
        for c in range(k):
            key = key * sizes[idx[c]] + ranks[i, idx[c]]
        keys[i] = 2 * key + (1 if y[i] > 0 else 0)
    order = np.argsort(keys)
    first = np.ones(n, dtype=np.bool_)
    for r in range(1, n):
        first[r] = keys[order[r]] != keys[order[r - 1]]
    cells = np.cumsum(first) - 1
    m = cells[-1] + 1 if n else 0
    columns, cy, cw = np.zeros((m, k)), np.empty(m), np.zeros(m)
    for r in range(n):
        i, cell = order[r], cells[r]
        cw[cell] += w[i]
        cy[cell] = y[i]
        for c in range(k):
            columns[cell, c] = y[i] * X[i, idx[c]]
    return columns, cy, cw


#: supports of more 0/1 features than this are merged by sorting (merged_rows' table of
#: 2^(k+1) cells would not fit in memory: a default risk fit's one support of 43 rules asked 2^44)
MAX_TABLE_FEATURES = 20


@njit(nogil=True)
def support_rows(X, ranks, sizes, y, w, binary, idx):  # pragma: no cover - compiled
    """The rows a support's floor is computed on: merged by bits when its features are few and
    0/1, else by the ranks of their values when every combination has its own int64 key, else
    the rows as they are (each with its own cell: still exact, only slower)."""
    if binary[idx].all() and idx.size <= MAX_TABLE_FEATURES:
        return merged_rows(X, y, w, idx)
    combinations = 2.0
    for c in range(idx.size):
        combinations *= max(sizes[idx[c]], 1)
    if combinations < 2.0**62:
        return merged_by_ranks(X, y, w, ranks, sizes, idx)
    n, k = X.shape[0], idx.size
    columns, cy, cw = np.empty((n, k)), np.empty(n), np.empty(n)
    for i in range(n):
        cy[i], cw[i] = y[i], w[i]
        for c in range(k):
            columns[i, c] = y[i] * X[i, idx[c]]
    return columns, cy, cw


def value_ranks(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(each value's rank among its column's distinct values, distinct values per column)."""
    ranks = np.empty(X.shape, dtype=np.int64)
    sizes = np.empty(X.shape[1], dtype=np.int64)
    for j in range(X.shape[1]):
        column = X[:, j]
        low, high = (column.min(), column.max()) if column.size else (0.0, 0.0)
        if ((column == low) | (column == high)).all():  # two values at most (0/1 rules): no sort
            ranks[:, j], sizes[j] = column != low, 1 + (high != low)
        else:
            values, ranks[:, j] = np.unique(column, return_inverse=True)
            sizes[j] = values.size
    return ranks, sizes
