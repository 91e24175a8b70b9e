"""Lower bounds on the best risk card: a cutting-plane master MIP (RiskSLIM's idea) in HiGHS.

The logistic loss ``L`` is convex, so every tangent plane lies below it:
``L(x) >= L(p) + g(p) . (x - p)``. The master problem minimizes ``θ + Σ C0_j z_j`` over the
points (and intercept) ``x``, feature indicators ``z`` and ``θ``, subject to the spec's rules
on features and ``θ >=`` every tangent plane collected so far. Its optimum (or HiGHS's proven
bound on it) is a lower bound on the best card; its solution ``x*`` gets the next tangent
plane. HiGHS has no lazy-constraint callback, so each round re-solves the master (the
cutting-plane loop, not RiskSLIM's single branch-and-bound tree).

With ``scale=False`` the master's points are integers and the loop converges to the optimum:
when the master's ``θ*`` equals ``L(x*)`` the bound equals a card's objective, a proof. With a
real multiplier (``scale=True``) the master relaxes ``λ / m`` to real values in the points'
box stretched by the largest ``1/m`` (every such card lies in it since ``m >= 1/2``): the bound
stays valid, but is rarely tight.

Rules the master leaves out only widen its feasible set, and costs it prices lower only lower
its objective, so its optimum stays a valid lower bound (a relaxation). With a real
multiplier the master prices every value at its first tier's cost (PILM's tiers: the tier of
``λ`` is unknown when it sees only ``λ / m``); with integer points the tiers are priced
exactly. TILM's group costs, ``max_rules_per_group`` and ``group_signs_agree`` are exact in
both. The caps ``max_fpr`` / ``min_tpr`` are indicator rows (:func:`_cap_rows`), exact with
integer points on data whose totals move in steps (integer features, or at most 3 decimals).
The caps and gaps between groups get one binary per counted row tied to its total both ways
(:func:`~slimwidgets.solvers.risk_groups.add_group_rows`), exact in the same cases.
A master solution is returned as a proven card only when it meets every rule of the problem
and its exact objective equals the bound.
"""

from __future__ import annotations

import math
import threading
import time

import numpy as np

from ..core.losses import sigmoid
from ..core.risk_family import RISK
from .logistic import RiskProblem
from .risk_groups import add_group_rows

__all__ = ["risk_lower_bound"]


def _tangent(prob: RiskProblem, x: np.ndarray) -> tuple[np.ndarray, float]:
    """(gradient, value) of the mean loss at ``x = (points..., intercept)`` (real values)."""
    L = prob.loss
    u = L.margins(x[:-1], x[-1])
    p = L.w * sigmoid(-u)
    return np.append(-L.column_dots(p), -(L.y @ p)), L.of_margins(u)


def _master(prob: RiskProblem, threads: int):
    """The master MIP without cuts; columns: points 0..d-1, intercept d, z d+1..2d, θ 2d+1."""
    import highspy

    from .backends.highs import new_highs

    d = prob.n_features
    h = new_highs(threads)
    inf = highspy.kHighsInf
    stretch = prob.t_max()  # a point's logit is points / m, so at most t_max times the points
    lo = np.array([min(a[0], 0.0) for a in prob.allowed]) * stretch
    hi = np.array([max(a[-1], 0.0) for a in prob.allowed]) * stretch
    ilo, ihi = prob.intercepts
    zlo = np.array([0.0 if 0.0 in a else 1.0 for a in prob.allowed])
    zhi = np.array([0.0 if (a == 0).all() else 1.0 for a in prob.allowed])
    if prob.scale:  # points / m with m >= 1/2: anywhere between 0 and the stretched box's ends
        ilo, ihi = min(ilo, 0) * stretch, max(ihi, 0) * stretch
    col_lo = np.concatenate([lo, [ilo], zlo, [0.0]])
    col_hi = np.concatenate([hi, [ihi], zhi, [inf]])
    h.addVars(2 * d + 2, col_lo, col_hi)
    h.changeColsCost(
        2 * d + 2,
        np.arange(2 * d + 2, dtype=np.int32),
        np.concatenate([np.zeros(d + 1), prob.C0, [1.0]]),
    )
    kinds = (
        np.ones(2 * d + 2, dtype=np.uint8)
        if not prob.scale
        else np.concatenate([np.zeros(d + 1), np.ones(d), [0]]).astype(np.uint8)
    )
    kinds[-1] = 0
    h.changeColsIntegrality(2 * d + 2, np.arange(2 * d + 2, dtype=np.int32), kinds)

    def row(lower, upper, cols, vals):
        h.addRow(
            lower, upper, len(cols), np.asarray(cols, dtype=np.int32), np.asarray(vals, dtype=float)
        )

    for j in range(d):  # points only on used features: lo z <= x <= hi z
        row(-inf, 0.0, [j, d + 1 + j], [1.0, -hi[j]])
        row(0.0, inf, [j, d + 1 + j], [1.0, -lo[j]])
    if not prob.scale:  # integer points: x_j is one of its allowed values, and non-zero iff z_j = 1
        for j, values in enumerate(prob.allowed):
            nonzero = values[values != 0]
            if nonzero.size == 0:
                continue
            first = h.getNumCol()  # one binary per non-zero value, summing to z_j; x_j = its value
            h.addVars(nonzero.size, np.zeros(nonzero.size), np.ones(nonzero.size))
            h.changeColsIntegrality(
                nonzero.size,
                np.arange(first, first + nonzero.size, dtype=np.int32),
                np.ones(nonzero.size, dtype=np.uint8),
            )
            picks = list(range(first, first + nonzero.size))
            if (
                prob.rules is not None and prob.rules.tiers
            ):  # a value beyond the first tier costs more
                h.changeColsCost(
                    nonzero.size,
                    np.asarray(picks, dtype=np.int32),
                    np.array([prob.rules.extra_cost(np.array([v])) for v in nonzero]),
                )
            row(0.0, 0.0, [j] + picks, np.concatenate([[1.0], -nonzero]))
            row(0.0, 0.0, [d + 1 + j] + picks, np.concatenate([[1.0], -np.ones(nonzero.size)]))
    if prob.max_size < d:
        row(-inf, prob.max_size, [d + 1 + j for j in range(d)], np.ones(d))
    if prob.max_variables is not None:
        _variable_rows(h, prob)
    if prob.rules is not None and prob.rules.groups:
        _group_columns(h, prob, np.maximum(np.abs(lo), np.abs(hi)))
    if prob.rules is not None and prob.rules.has_caps:
        _cap_rows(h, prob, np.maximum(np.abs(lo), np.abs(hi)), max(abs(ilo), abs(ihi)))
    if prob.rules is not None and prob.rules.by_group is not None:  # caps and gaps between groups
        add_group_rows(h, prob, np.maximum(np.abs(lo), np.abs(hi)), max(abs(ilo), abs(ihi)))
    for kind, feats, targets, k in prob.constraints:
        zs = [d + 1 + j for j in sorted(feats)]
        if kind == "at_most":
            row(-inf, k, zs, np.ones(len(zs)))
        elif kind == "at_least":
            row(k, inf, zs, np.ones(len(zs)))
        else:
            for f in feats:
                for t in targets:
                    row(-inf, 0.0, [d + 1 + f, d + 1 + t], [1.0, -1.0])
    return h


def _group_columns(h, prob: RiskProblem, reach: np.ndarray) -> None:
    """TILM's group costs, exactly: a binary g per group with z_j <= g <= sum of its z_j,
    costing ``group_penalty - rule_penalty``, while each used member pays ``rule_penalty``
    on top of C0 (k members in use: group_penalty + rule_penalty (k - 1))."""
    import highspy

    rules, d = prob.rules, prob.n_features
    for idx in rules.groups:
        g = h.getNumCol()
        h.addVar(0.0, 1.0)
        h.changeColsIntegrality(1, np.array([g], dtype=np.int32), np.array([1], dtype=np.uint8))
        h.changeColCost(g, rules.group_penalty - rules.rule_penalty)
        zs = (d + 1 + idx).astype(np.int32)
        for z in zs:
            h.changeColCost(int(z), float(prob.C0[z - d - 1]) + rules.rule_penalty)
            h.addRow(
                -highspy.kHighsInf, 0.0, 2, np.array([z, g], dtype=np.int32), np.array([1.0, -1.0])
            )
        h.addRow(
            -highspy.kHighsInf,
            0.0,
            zs.size + 1,
            np.append(zs, g).astype(np.int32),
            np.append(-np.ones(zs.size), 1.0),
        )
    if rules.signs_agree:
        _sign_rows(h, prob, reach)


def _variable_rows(h, prob: RiskProblem) -> None:
    """``max_variables``: a binary u_v per variable of two or more features with
    ``z_j <= u_v`` for each, and ``sum u_v + sum z_j (variables of one feature) <= max_variables``
    (u_v costs nothing: the cap alone pushes it down)."""
    import highspy

    d, terms = prob.n_features, []
    for v in np.unique(prob.variable_id):
        members = np.flatnonzero(prob.variable_id == v)
        if members.size == 1:
            terms.append(d + 1 + int(members[0]))
            continue
        u = h.getNumCol()
        h.addVar(0.0, 1.0)
        h.changeColsIntegrality(1, np.array([u], dtype=np.int32), np.array([1], dtype=np.uint8))
        for j in members:
            h.addRow(
                -highspy.kHighsInf,
                0.0,
                2,
                np.array([d + 1 + j, u], dtype=np.int32),
                np.array([1.0, -1.0]),
            )
        terms.append(u)
    h.addRow(
        -highspy.kHighsInf,
        float(prob.max_variables),
        len(terms),
        np.array(terms, dtype=np.int32),
        np.ones(len(terms)),
    )


def _sign_rows(h, prob: RiskProblem, reach: np.ndarray) -> None:
    """``group_signs_agree``: a binary per group, 1 when its oriented points are all >= 0 and
    0 when all <= 0 (``R`` is a point's largest |value|): ``-R (1 - s) <= o_j x_j <= R s``."""
    import highspy

    rules = prob.rules
    for idx, orient in zip(rules.groups, rules.orient):
        s = h.getNumCol()
        h.addVar(0.0, 1.0)
        h.changeColsIntegrality(1, np.array([s], dtype=np.int32), np.array([1], dtype=np.uint8))
        for j, o in zip(idx, orient):
            cols = np.array([j, s], dtype=np.int32)
            h.addRow(-highspy.kHighsInf, 0.0, 2, cols, np.array([o, -reach[j]]))
            h.addRow(-reach[j], highspy.kHighsInf, 2, cols, np.array([o, -reach[j]]))


def _cap_rows(h, prob: RiskProblem, reach: np.ndarray, intercept_reach: float) -> None:
    """The caps as indicator rows: one binary per training row of the capped class, 1 where
    the card predicts positive, with a big-M row tying it to the row's total ``b + x . λ``
    (``M`` = the largest |total| in the box), and the weighted count of those binaries capped.

    A negative predicted negative has a total < 0 (<= 0 under ``zero_score="error"``), which
    the master relaxes to <= 0; a positive predicted positive has a total >= 0 (> 0, relaxed to
    >= 0). With integer points (``scale=False``) on data whose totals are multiples of a step
    (1 on integer data, 10^-k on data with k <= 3 decimals) the rows are exact: a negative
    predicted negative has a total <= -step (the default rule), a positive predicted positive
    >= step (``"error"``).
    """
    import highspy

    rules, d = prob.rules, prob.n_features
    X = rules.X
    exact_step = rules.step if not prob.scale and rules.step is not None else 0.0
    big = np.abs(X) @ reach + intercept_reach + 1.0
    for weights, total, cap, sign in (
        (rules.w_neg, rules.total_neg, rules.max_fpr, -1),
        (rules.w_pos, rules.total_pos, rules.min_tpr, 1),
    ):
        if cap is None:
            continue
        rows = np.flatnonzero(weights > 0)
        first = h.getNumCol()
        h.addVars(rows.size, np.zeros(rows.size), np.ones(rows.size))
        h.changeColsIntegrality(
            rows.size,
            np.arange(first, first + rows.size, dtype=np.int32),
            np.ones(rows.size, dtype=np.uint8),
        )
        # the strict side of the rule: a negative predicted negative (default rule) or a
        # positive predicted positive ("error" rule) needs total <= -step / >= step
        step = exact_step if (sign < 0) != rules.strict else 0.0
        cols = np.append(np.arange(d + 1), 0).astype(np.int32)
        for k, i in enumerate(rows):
            vals = np.append(X[i], [1.0, 0.0])
            cols[-1] = first + k
            if sign < 0:  # negatives: total <= -step + (M + step) p
                vals[-1] = -(big[i] + step)
                h.addRow(-highspy.kHighsInf, -step, d + 2, cols, vals)
            else:  # positives: total >= step - (M + step) (1 - q)
                vals[-1] = -(big[i] + step)
                h.addRow(-big[i], highspy.kHighsInf, d + 2, cols, vals)
        picks = np.arange(first, first + rows.size, dtype=np.int32)
        share = weights[rows] / total
        if sign < 0:
            h.addRow(-highspy.kHighsInf, cap + 1e-12, rows.size, picks, share)
        else:
            h.addRow(cap - 1e-12, highspy.kHighsInf, rows.size, picks, share)


def _refine(h) -> bool:
    """HiGHS's absolute gap and feasibility tolerance from 1e-6 (the size of the default C0,
    too coarse to prove which of two cards is best) to 1e-9. They slow every solve, so the
    loop uses them only once it has converged without them."""
    h.setOptionValue("mip_abs_gap", 1e-9)
    h.setOptionValue("mip_feasibility_tolerance", 1e-9)
    return True


def _proven_card(
    prob: RiskProblem, x: np.ndarray, value: float, bound: float
) -> tuple[np.ndarray, int] | None:
    """The master's optimal card when it is a card of the problem whose objective the bound
    reaches; None when the master's relaxations (rules it leaves out, costs it prices at C0
    only) let it pick a card that breaks a rule or costs more."""
    d = prob.n_features
    coefs, intercept = np.round(x[:d]), int(round(x[d]))
    if not prob.card_ok(coefs, intercept) or value + prob.penalty(coefs) > bound + 1e-9:
        return None
    return coefs, intercept


def risk_lower_bound(
    prob: RiskProblem,
    points: list[np.ndarray],
    *,
    time_limit: float,
    upper: float = math.inf,
    threads: int = 1,
    cancel: threading.Event | None = None,
) -> tuple[float, tuple[np.ndarray, int] | None]:
    """A proven lower bound on the objective of every card of ``prob``; and, when the loop has
    converged with integer points (``scale=False``), the master's solution: an optimal card
    ``(points, intercept)``, whose objective equals the bound.

    ``points``: where to put the first tangent planes (e.g. the search's best card as
    ``(points / m, intercept / m)``). Stops at ``time_limit`` seconds, on ``cancel``, when the
    bound reaches ``upper`` (the incumbent: nothing more to prove), or when it is exact.
    """
    d = prob.n_features
    deadline = time.perf_counter() + time_limit
    h = _master(prob, threads)
    h.setOptionValue("mip_rel_gap", 1e-7)
    fine = False  # HiGHS's finer tolerances, once the loop has converged with its default ones
    cols = np.arange(d + 1, dtype=np.int32)

    def add_cut(x: np.ndarray) -> None:
        g, value = _tangent(prob, x)  # g . x - θ <= g . p - L(p)
        idx = np.append(cols, 2 * d + 1).astype(np.int32)
        h.addRow(-np.inf, float(g @ x - value), d + 2, idx, np.append(g, -1.0))

    for x in points:
        add_cut(np.asarray(x, dtype=float))
    bound, exact = -math.inf, None
    while (
        exact is None
        and time.perf_counter() < deadline
        and not (cancel is not None and cancel.is_set())
    ):
        h.setOptionValue("time_limit", max(deadline - time.perf_counter(), 0.01))
        h.run()
        info = h.getInfo()
        solved = h.getModelStatus().name == "kOptimal"
        master = info.mip_dual_bound  # HiGHS's proof, valid whether or not it closed its gap
        if math.isfinite(master):
            bound = max(bound, float(master))
        if not solved or bound >= upper - 1e-9:
            break
        x = np.asarray(h.getSolution().col_value, dtype=float)
        g, value = _tangent(prob, x[: d + 1])
        if value <= x[2 * d + 1] + 1e-9:  # the planes are tight at the master's optimum
            if not prob.scale and not fine:  # a proof needs finer tolerances: solve again with them
                fine = _refine(h)
                continue
            if not prob.scale:
                exact = _proven_card(prob, x, value, bound)
            break
        add_cut(x[: d + 1])
    return bound, exact


# the risk family's floor from cutting planes
RISK.loss.holds(bound=risk_lower_bound)
