"""Brute-force enumeration of every card in a small coefficient box (the test oracle).

Written independently of the formulation: it knows only the definitions. With the
total t = intercept + x . points, under ``spec.zero_score``:

* ``"positive"`` (the default): a card predicts positive iff t >= 0, and a row is an
  error iff that prediction is wrong; FPR caps count the negatives predicted positive.
* ``"error"`` (the paper's): a row is an error when y * t <= 0 (a zero total is an error
  for either class); FPR caps count negatives with t >= 0, TPR counts positives with t > 0.

The specialized models of sec. 7 are read from the spec just as directly: no value
beyond the last tier, at most ``max_rules_per_group`` members of a group in use, one
sign per group (reversed members flipped), and :func:`penalty` prices each card with
its tier costs and its group and rule penalties.
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
    if spec.tiers:
        vals = [v for v in vals if abs(v) <= spec.tiers[-1][0]]
    return vals


def enumerate_cards(X, y, names, spec, weights=None, groups=None):
    """Every feasible card with its loss, size, L1, TPR and FPR (paper definitions).

    Returns a dict of arrays over all (points, intercept) combinations that meet the
    spec's constraints. ``groups`` (one label per row) is the sensitive column of the
    group settings (``max_fpr_by_group``, ``min_tpr_by_group``, ``max_fpr_gap``,
    ``max_tpr_gap``), read by :func:`group_ok`.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    w = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=float)
    grid = np.array(list(itertools.product(*[allowed_values(spec, n) for n in names])), dtype=float)
    if spec.intercept_range is not None:
        intercepts = np.arange(spec.intercept_range[0], spec.intercept_range[1] + 1, dtype=float)
    else:  # every intercept that changes a prediction, from the scores of the whole grid
        scores = X @ grid.T
        intercepts = np.arange(np.floor(-scores.max()) - 2, np.ceil(-scores.min()) + 3, dtype=float)
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
    for members in spec.groups.values():
        idx = [names.index(f) for f in members]
        if spec.max_rules_per_group is not None:
            keep &= used[:, idx].sum(axis=1) <= spec.max_rules_per_group
        if spec.group_signs_agree:
            flip = np.array([-1.0 if f in spec.group_reversed else 1.0 for f in members])
            oriented = grid[:, idx] * flip
            keep &= ~((oriented > 0).any(axis=1) & (oriented < 0).any(axis=1))
    for row in getattr(spec, "linear", ()):  # the user's own rows on points and use
        value = np.zeros(len(grid))
        for kind, feature, coef in row.terms:
            column = grid[:, names.index(feature)]
            value += coef * (column if kind == "points" else (column != 0))
        if row.lower is not None:
            keep &= value >= row.lower - 1e-9
        if row.upper is not None:
            keep &= value <= row.upper + 1e-9
    keep &= variables_ok(spec, names, grid)
    grid, used = grid[keep], used[keep]
    scores = X @ grid.T  # rows x cards
    total = scores[:, :, None] + intercepts[None, None, :]  # rows x cards x intercepts
    err = row_errors(total, y[:, None, None], spec.zero_score)
    pos, neg = y == 1, y == -1
    wpos, wneg = w[pos].sum(), w[neg].sum()
    fp_paper = (w[neg, None, None] * err[neg]).sum(axis=0) / wneg
    tp = (w[pos, None, None] * ~err[pos]).sum(axis=0) / wpos
    loss = (w[:, None, None] * err).sum(axis=0) / w.sum()
    ok = np.ones(loss.shape, dtype=bool)
    if spec.max_fpr is not None:
        ok &= fp_paper <= spec.max_fpr + 1e-12
    if spec.min_tpr is not None:
        ok &= tp >= spec.min_tpr - 1e-12
    if groups is not None:
        ok &= group_ok(err, y, w, np.asarray([str(g) for g in groups]), spec)
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


def _cut_of(rule: str) -> float:
    """The cut a threshold rule's name states: ``age >= 50`` -> 50.0."""
    return float(rule.rsplit(" ", 1)[1])


def _interval(rule: str, kind) -> tuple:
    """The values ``[lo, hi)`` a rule holds on (None: open), from its kind's edges when it has
    them (``("band", 2, 4)``), else from the cut its name states."""
    if isinstance(kind, tuple):
        return {"ge": (kind[1], None), "lt": (None, kind[1])}.get(kind[0], kind[1:])
    return (_cut_of(rule), None) if kind == "ge" else (None, _cut_of(rule))


def variables_ok(spec, names, grid):
    """Which cards (rows of ``grid``, points per feature of ``names``) meet the settings by
    variable, from their meaning: at most ``max_variables`` distinct variables in use (a rule
    in no variable is one), at most ``max_cuts_per_variable`` threshold rules ("ge"/"lt") of
    any variable in use, and under ``monotone`` the points of the variable's bands (the sum of
    the rules that hold at a value, read at a value below every cut and at every cut) in order;
    a band rule (``["band", lo, hi]``) holds on ``lo <= x < hi``."""
    grid = np.atleast_2d(np.asarray(grid, dtype=float))
    used = grid != 0
    owner = {rule: var for var, kinds in getattr(spec, "variables", {}).items() for rule in kinds}
    keep = np.ones(len(grid), dtype=bool)
    if getattr(spec, "max_variables", None) is not None:
        labels = [owner.get(n, "feature " + n) for n in names]
        count = np.zeros(len(grid), dtype=int)
        for label in set(labels):
            count += used[:, [j for j, x in enumerate(labels) if x == label]].any(axis=1)
        keep &= count <= spec.max_variables
    for var, kinds in getattr(spec, "variables", {}).items():
        kind = {r: k[0] if isinstance(k, tuple) else k for r, k in kinds.items()}
        thresholds = [r for r in kinds if kind[r] in ("ge", "lt") and r in names]
        if getattr(spec, "max_cuts_per_variable", None) is not None and thresholds:
            keep &= (
                used[:, [names.index(r) for r in thresholds]].sum(axis=1)
                <= spec.max_cuts_per_variable
            )
        cuts = [r for r in kinds if kind[r] in ("ge", "lt", "band") and r in names]
        direction = getattr(spec, "monotone", {}).get(var)
        if direction is None or not cuts:
            continue
        spans = {r: _interval(r, kinds[r]) for r in cuts}
        edges = sorted({e for lo, hi in spans.values() for e in (lo, hi) if e is not None})
        band = []
        for value in [edges[0] - 1.0] + edges:  # every band, from low values to high
            holds = [
                (lo is None or value >= lo) and (hi is None or value < hi)
                for lo, hi in spans.values()
            ]
            band.append(grid[:, [names.index(r) for r in cuts]] @ np.array(holds, dtype=float))
        steps = np.diff(np.stack(band, axis=1), axis=1)
        keep &= (steps >= 0).all(axis=1) if direction == "+" else (steps <= 0).all(axis=1)
    return keep


def group_ok(err, y, w, groups, spec):
    """Which cards (of ``err``: rows x cards x intercepts) meet the spec's group settings:
    each group's FPR (negatives wrong) and TPR (positives right) against its cap, and the
    largest difference between two groups' rates against the gaps. A group without rows
    of a class has no rate of that class."""
    ok = np.ones(err.shape[1:], dtype=bool)
    fpr, tpr = {}, {}
    for g in np.unique(groups):
        neg, pos = (groups == g) & (y == -1), (groups == g) & (y == 1)
        if neg.any():
            fpr[g] = (w[neg, None, None] * err[neg]).sum(axis=0) / w[neg].sum()
        if pos.any():
            tpr[g] = (w[pos, None, None] * ~err[pos]).sum(axis=0) / w[pos].sum()
    for option, rates, sign in (("max_fpr_by_group", fpr, 1), ("min_tpr_by_group", tpr, -1)):
        value = getattr(spec, option)
        for g, rate in rates.items():
            cap = value.get(g) if isinstance(value, dict) else value
            if cap is not None:
                ok &= sign * (rate - cap) <= 1e-12
    for option, rates in (("max_fpr_gap", fpr), ("max_tpr_gap", tpr)):
        gap = getattr(spec, option)
        if gap is not None and len(rates) > 1:
            stack = np.stack(list(rates.values()))
            ok &= stack.max(axis=0) - stack.min(axis=0) <= gap + 1e-12
    return ok


def row_errors(total, y, zero_score="positive"):
    """Which rows a card with these totals (intercept + x . points) gets wrong."""
    if zero_score == "error":
        return y * total <= 0
    return (total >= 0) != (y == 1)


def best_objective(cards, C0):
    """min over feasible cards of loss + C0 * size (the part eps must never trade)."""
    if len(cards["loss"]) == 0:
        return math.inf
    return float((cards["loss"] + C0 * cards["size"]).min())


def penalty(points, names, spec, C0):
    """Per card (rows of ``points``): what its coefficients cost, by the paper's sec. 7.

    A non-zero value costs ``C0`` (a number, or one per feature), or with tiers the
    cost of its tier, where ``penalties[f]`` stands in for the first tier's cost of
    f; each group with k >= 1 members in use adds group_penalty + rule_penalty (k - 1).
    """
    points = np.atleast_2d(np.asarray(points, dtype=float))
    C0 = np.broadcast_to(np.asarray(C0, dtype=float), (len(names),))
    total = np.zeros(len(points))
    for j, name in enumerate(names):
        for k, v in enumerate(points[:, j]):
            if v == 0:
                continue
            if spec.tiers:
                cost = next(c for b, c in spec.tiers if abs(v) <= b)
                if name in spec.penalties:
                    cost += spec.penalties[name] - spec.tiers[0][1]
                total[k] += cost
            else:
                total[k] += C0[j]
    for members in spec.groups.values():
        idx = [names.index(f) for f in members]
        in_use = (points[:, idx] != 0).sum(axis=1)
        total += np.where(
            in_use > 0, spec.group_penalty + spec.rule_penalty * np.maximum(in_use - 1, 0), 0.0
        )
    return total


def card_value(card, X, y, names, spec, C0, weights=None):
    """Loss + :func:`penalty` of one card, computed from its own predictions."""
    w = np.ones(len(y)) if weights is None else np.asarray(weights, float)
    total = np.asarray(X, float) @ np.array(card.coefficients, float) + card.intercept
    loss = (w * row_errors(total, np.asarray(y), spec.zero_score)).sum() / w.sum()
    return loss + float(penalty([card.coefficients], names, spec, C0)[0])
