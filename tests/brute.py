"""Brute-force enumeration of every card in a small coefficient box (the test oracle).

Written independently of the formulation: it knows only the paper's definitions.
A row is an error when y * (intercept + x . points) <= 0 (a zero score is an error,
as in the paper); FPR caps count negatives with a score >= 0.
"""

from __future__ import annotations

import itertools
import math

import numpy as np


def allowed_values(spec, name):
    if name in spec.exclude:
        return [0]
    if name in spec.lock:
        return [spec.lock[name]]
    lo, hi = spec.coef_ranges.get(name, spec.coef_range)
    vals = list(range(lo, hi + 1))
    if name in spec.values:
        vals = [v for v in vals if v in spec.values[name]]
    sign = spec.signs.get(name)
    if sign == "+":
        vals = [v for v in vals if v >= 0]
    if sign == "-":
        vals = [v for v in vals if v <= 0]
    if name in spec.require:
        vals = [v for v in vals if v != 0]
    return vals


def enumerate_cards(X, y, names, spec, weights=None):
    """Every feasible card with its loss, size, L1, TPR and FPR (paper definitions).

    Returns a dict of arrays over all (points, intercept) combinations that meet the
    spec's constraints.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    w = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=float)
    grid = np.array(list(itertools.product(*[allowed_values(spec, n) for n in names])), dtype=float)
    intercepts = np.arange(spec.intercept_range[0], spec.intercept_range[1] + 1, dtype=float)
    used = grid != 0
    keep = np.ones(len(grid), dtype=bool)
    if spec.max_size is not None:
        keep &= used.sum(axis=1) <= spec.max_size
    for c in spec.constraints:
        idx = [names.index(f) for f in c.features]
        if c.kind == "needs":
            tgt = [names.index(f) for f in c.targets]
            keep &= ~used[:, idx].any(axis=1) | used[:, tgt].all(axis=1)
        elif c.kind == "at_most":
            keep &= used[:, idx].sum(axis=1) <= c.k
        else:
            keep &= used[:, idx].sum(axis=1) >= c.k
    grid, used = grid[keep], used[keep]
    scores = X @ grid.T  # rows x cards
    total = scores[:, :, None] + intercepts[None, None, :]  # rows x cards x intercepts
    margin = y[:, None, None] * total
    err = margin <= 0
    pos, neg = y == 1, y == -1
    wpos, wneg = w[pos].sum(), w[neg].sum()
    fp_paper = (w[neg, None, None] * (total[neg] >= 0)).sum(axis=0) / wneg
    tp = (w[pos, None, None] * (total[pos] > 0)).sum(axis=0) / wpos
    loss = (w[:, None, None] * err).sum(axis=0) / w.sum()
    ok = np.ones(loss.shape, dtype=bool)
    if spec.max_fpr is not None:
        ok &= fp_paper <= spec.max_fpr + 1e-12
    if spec.min_tpr is not None:
        ok &= tp >= spec.min_tpr - 1e-12
    K, B = loss.shape
    ci, bi = np.nonzero(ok)
    return {
        "points": grid[ci],
        "intercept": intercepts[bi],
        "loss": loss[ci, bi],
        "size": used[ci].sum(axis=1),
        "l1": np.abs(grid[ci]).sum(axis=1),
        "tpr": tp[ci, bi],
        "fpr_paper": fp_paper[ci, bi],
    }


def best_objective(cards, C0):
    """min over feasible cards of loss + C0 * size (the part eps must never trade)."""
    if len(cards["loss"]) == 0:
        return math.inf
    return float((cards["loss"] + C0 * cards["size"]).min())
