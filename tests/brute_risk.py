"""Brute-force oracle for risk cards (the logistic family), written from the definitions only.

The objective of a card (points λ, intercept λ0, multiplier m >= 1/2, or m = 1 without scale):

    sum_i w_i log(1 + exp(-y_i (λ0 + x_i . λ) / m)) / sum_i w_i  +  sum_{j: λ_j != 0} C0_j

Every points vector of the box meeting the spec is listed with :func:`tests.brute.allowed_values`
and the spec's logical constraints; every intercept of the range is tried; the multiplier is
found by scipy's bounded scalar minimizer (not the package's bisection). The points cost
:func:`tests.brute.penalty` (C0, or PILM's tiers, and TILM's groups).

Caps: a risk card predicts positive where its risk is at least 50 %, i.e. its total
``λ0 + x . λ`` is >= 0 (> 0 under ``zero_score="error"``); FPR and TPR are the shares of
negatives and positives (by sample weight) it predicts positive.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.optimize import minimize_scalar

from brute import allowed_values, penalty, variables_ok


def risk_loss(X, y, w, coefs, intercept, t) -> float:
    z = -np.asarray(y, float) * (intercept + np.asarray(X, float) @ np.asarray(coefs, float)) * t
    return float(np.sum(w * np.logaddexp(0.0, z)) / np.sum(w))


def best_t(X, y, w, coefs, intercept) -> tuple[float, float]:
    """Least loss over t = 1/m in [1e-4, 2]: the ends, and scipy's bounded minimizer between."""
    f = lambda t: risk_loss(X, y, w, coefs, intercept, t)  # noqa: E731
    inner = minimize_scalar(f, bounds=(1e-4, 2.0), method="bounded", options={"xatol": 1e-10})
    return min([(f(1e-4), 1e-4), (f(2.0), 2.0), (float(inner.fun), float(inner.x))])[::-1]


def support_ok(spec, names, coefs) -> bool:
    used = {n for n, c in zip(names, coefs) if c != 0}
    if spec.max_size is not None and len(used) > spec.max_size:
        return False
    for c in spec.constraints:
        if c.kind == "needs" and used & set(c.features) and not set(c.targets) <= used:
            return False
        if c.kind == "at_most" and len(used & set(c.features)) > c.k:
            return False
        if c.kind == "at_least" and len(used & set(c.features)) < c.k:
            return False
    if not variables_ok(spec, names, [coefs])[
        0
    ]:  # max_variables, cut points per variable, monotone
        return False
    value = dict(zip(names, coefs))
    for members in spec.groups.values():
        in_use = [f for f in members if value[f] != 0]
        if spec.max_rules_per_group is not None and len(in_use) > spec.max_rules_per_group:
            return False
        oriented = [-value[f] if f in spec.group_reversed else value[f] for f in in_use]
        if spec.group_signs_agree and min(oriented, default=0) < 0 < max(oriented, default=0):
            return False
    return True


def caps_ok(X, y, sample_weight, coefs, intercept, spec) -> bool:
    """max_fpr and min_tpr of the card's predictions (total >= 0, or > 0 under "error")."""
    total = intercept + np.asarray(X, float) @ np.asarray(coefs, float)
    predicted = total > 0 if spec.zero_score == "error" else total >= 0
    y = np.asarray(y)
    fpr = sample_weight[(y == -1) & predicted].sum() / sample_weight[y == -1].sum()
    tpr = sample_weight[(y == 1) & predicted].sum() / sample_weight[y == 1].sum()
    return (spec.max_fpr is None or fpr <= spec.max_fpr + 1e-12) and (
        spec.min_tpr is None or tpr >= spec.min_tpr - 1e-12
    )


def groups_ok(X, y, sample_weight, coefs, intercept, spec, sensitive) -> bool:
    """The group settings (issue 22) of the card's predictions, from the definitions: in each
    group (label of ``sensitive``) the FPR and TPR; caps per group, and the largest difference
    between two groups' rates (groups without rows of a class have no such rate)."""
    total = intercept + np.asarray(X, float) @ np.asarray(coefs, float)
    predicted = total > 0 if spec.zero_score == "error" else total >= 0
    y, sensitive = np.asarray(y), np.asarray(sensitive)
    fprs, tprs = {}, {}
    for g in np.unique(sensitive):
        neg, pos = (sensitive == g) & (y == -1), (sensitive == g) & (y == 1)
        if sample_weight[neg].sum() > 0:
            fprs[g] = sample_weight[neg & predicted].sum() / sample_weight[neg].sum()
        if sample_weight[pos].sum() > 0:
            tprs[g] = sample_weight[pos & predicted].sum() / sample_weight[pos].sum()

    def cap(option, g):
        return option.get(g) if isinstance(option, dict) else option

    for g, rate in fprs.items():
        c = cap(spec.max_fpr_by_group, g)
        if c is not None and rate > c + 1e-12:
            return False
    for g, rate in tprs.items():
        c = cap(spec.min_tpr_by_group, g)
        if c is not None and rate < c - 1e-12:
            return False
    for gap, rates in ((spec.max_fpr_gap, fprs), (spec.max_tpr_gap, tprs)):
        if (
            gap is not None
            and len(rates) > 1
            and max(rates.values()) - min(rates.values()) > gap + 1e-12
        ):
            return False
    return True


def best_risk_card(X, y, names, spec, weights=None, C0=1e-6, sample_weight=None, sensitive=None):
    """(objective, coefs, intercept, t) of the best card (None: no card meets the spec);
    y in {-1, +1}; ``weights`` weigh the loss, ``sample_weight`` the caps' rates;
    ``sensitive``: each row's group, for the group settings."""
    w = np.ones(len(y)) if weights is None else np.asarray(weights, float)
    sw = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    c0 = np.array([spec.penalties.get(n, C0 if spec.C0 is None else spec.C0) for n in names])
    best = None
    for coefs in itertools.product(*[allowed_values(spec, n) for n in names]):
        if not support_ok(spec, names, coefs):
            continue
        cost = float(penalty([coefs], names, spec, c0)[0])
        for b in range(spec.intercept_range[0], spec.intercept_range[1] + 1):
            if not caps_ok(X, y, sw, coefs, b, spec):
                continue
            if sensitive is not None and not groups_ok(X, y, sw, coefs, b, spec, sensitive):
                continue
            t, loss = (
                best_t(X, y, w, coefs, b)
                if spec.scale
                else (1.0, risk_loss(X, y, w, coefs, b, 1.0))
            )
            if best is None or loss + cost < best[0]:
                best = (loss + cost, coefs, b, t)
    return best


def best_risk_objective(frame, y, names, spec) -> float:
    """The least objective of :func:`best_risk_card` on a table and its 0/1 labels, with the
    row weights of ``spec.class_weights`` (None or "balanced": each class half the weight)."""
    ysign = np.where(np.asarray(y) == 1, 1, -1)
    w = np.ones(len(y))
    if spec.class_weights == "balanced":
        pos = ysign == 1
        w = w * np.where(pos, w.sum() / (2 * w[pos].sum()), w.sum() / (2 * w[~pos].sum()))
    return best_risk_card(frame.to_numpy(), ysign, names, spec, weights=w)[0]
