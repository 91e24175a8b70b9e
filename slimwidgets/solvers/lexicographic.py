"""Under one cap the objective is lexicographic: prove its first part (best TPR) first.

With ``max_fpr`` alone, one false negative costs more than everything else in the objective
(the formulation scales the positive rows' weights so), so the optimum has the best TPR the
cap allows, then the fewest false positives, then the fewest points. Users need the first part
("no card under this cap has a higher TPR") long before the rest is settled, so it gets its own
proof: the same program with only the dominant class's errors in the objective, plus one row
per *conflict* (:func:`conflict_sets`: rows no card gets all right, such as two positives whose
features add up to two negatives'), which the big-M rows' relaxation cannot see. Its optimum is
the least weight of dominant errors any card can have; it is a floor on the full objective too,
so it raises the proven bound of the whole solve. Before any solve, :func:`knapsack_floor` gives
what any classifier must get wrong under the cap (shown at once as the first TPR limit; a card
that meets it is proven on the spot, as on breastcancer, where TPR 100 % fits every cap). With
``min_tpr`` alone the roles swap (the dominant class is the negatives: the best FPR under the
floor on TPR).

:func:`class_limits` turns a bound on the full objective into what it proves in the user's
units: ``tpr_max`` (no card under the cap reaches a higher TPR) and ``tpr_proven`` (this card's
TPR is that best), or ``fpr_min`` / ``fpr_proven`` under ``min_tpr``.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, replace

import numpy as np

from ..core.decision_family import DECISION
from ..core.formulation import Formulation
from .backends.mip import solve_formulation

__all__ = [
    "DominantProof",
    "prove_dominant",
    "dominant_floor",
    "class_limits",
    "knapsack_floor",
    "weighted_errors",
    "conflict_sets",
]

#: pairs of rows of one class times features at most, when looking for conflicts of four rows
MAX_PAIR_VALUES = 2_000_000  # ~32 MB of pair sums at most
#: conflict rows added to the program at most
MAX_CONFLICTS = 20_000


@dataclass(frozen=True)
class DominantProof:
    """The first part of a lexicographic objective: ``floor`` is a proven lower bound on the
    weight (paper units) of the dominant class's errors of any card; ``proven`` says that the
    card (``coefficients``, ``intercept``) attains it."""

    coefficients: np.ndarray | None
    intercept: int | None
    floor: float
    proven: bool
    elapsed: float


def _dominant(form: Formulation) -> np.ndarray:
    """Rows of the class whose errors come first (positives under max_fpr)."""
    return form.data.y == (1 if form.lexicographic == "tpr" else -1)


def _step(form: Formulation) -> float | None:
    """The weight of one dominant error step: the dominant rows' weights are their data weights
    times one factor, so every weight of dominant errors is a multiple of factor * gcd(data
    weights), and the formulation makes that step cost more than all the rest of the objective.
    None when that cannot be read off exactly (non-integer data weights):
    then nothing is claimed."""
    dom = _dominant(form)
    d, w = form.data.weight[dom].astype(float), form.row_weight[dom]
    if not d.size or np.any(d <= 0) or np.any(d != np.round(d)):
        return None
    factor = w / d
    if not np.allclose(factor, factor[0], rtol=1e-12, atol=0.0):
        return None
    step = float(factor[0]) * math.gcd(*d.astype(np.int64).tolist())
    if float(form.row_weight[~dom].sum()) + float(form.C0.sum()) >= step:
        return None  # not the scaled objective this module reads
    return step


def weighted_errors(
    form: Formulation, weights: np.ndarray, coefficients: np.ndarray, intercept: int
) -> float:
    """Sum of ``weights`` over the rows the card gets wrong, by the formulation's own rule
    (its objective with these row weights and no penalties)."""
    bare = replace(
        form, row_weight=weights, C0=np.zeros_like(form.C0), epsilon=0.0, tier_steps=(), groups=[]
    )
    return bare.objective_of(coefficients, intercept)


def dominant_loss(form: Formulation, coefficients: np.ndarray, intercept: int) -> float:
    """Weight (paper units) of the card's errors in the dominant class."""
    return weighted_errors(
        form, np.where(_dominant(form), form.row_weight, 0.0), coefficients, intercept
    )


def dominant_floor(form: Formulation, bound: float) -> float:
    """The least weight of dominant errors of a card whose objective is at least ``bound``.

    The objective is (dominant errors) + (the rest), the rest below one dominant step and the
    dominant errors a multiple of it; so they are at least the largest multiple of the step
    not above the bound.
    """
    step = None if form.lexicographic is None else _step(form)
    if step is None or not math.isfinite(bound) or bound <= 0:
        return 0.0
    return step * math.floor(bound / step + 1e-9)


def knapsack_floor(form: Formulation) -> float:
    """The least weight of dominant errors of *any* classifier under the cap (paper units).

    Rows that agree on every usable feature get one score, so a card predicts each such cell
    as a whole: positive (its negatives spend the FPR budget) or negative (its positives are
    false negatives). The best choice is a knapsack over the cells, solved exactly by dynamic
    programming on integer data weights, else by its fractional relaxation (still a floor).
    """
    cap = dict(form.caps)
    cls = -1 if form.lexicographic == "tpr" else 1  # the class whose errors the cap limits
    if cls not in cap:
        return 0.0
    dom = _dominant(form)
    usable = [j for j, v in enumerate(form.allowed) if np.any(v != 0)]
    cols = form.data.X[:, usable] if usable else np.zeros((form.data.n_rows, 1))
    _, cell = np.unique(cols, axis=0, return_inverse=True)
    cell = cell.ravel()
    gain = np.bincount(
        cell, weights=np.where(dom, form.row_weight, 0.0)
    )  # dominant weight made right
    spend = np.bincount(
        cell, weights=np.where(form.data.y == cls, form.data.weight, 0.0)
    )  # budget it costs
    budget, total = float(cap[cls]), float(gain.sum())
    free = spend <= 0
    got, gain, spend = float(gain[free].sum()), gain[~free], spend[~free]
    whole = np.all(spend == np.round(spend)) and budget == round(budget)
    if whole and budget * len(spend) <= 5e7:
        best = np.zeros(int(budget) + 1)
        for g, c in zip(gain, spend.astype(np.int64)):
            if c <= budget:
                best[c:] = np.maximum(best[c:], best[: len(best) - c] + g)
        got += float(best[-1])
    else:  # fractional: the best ratios first, the last one in part
        order = np.argsort(-gain / spend)
        room = budget
        for g, c in zip(gain[order], spend[order]):
            take = min(1.0, room / c)
            got += g * take
            room -= c * take
            if room <= 0:
                break
    return max(total - got, 0.0) * (1 - 1e-12)


def conflict_sets(form: Formulation) -> list[np.ndarray]:
    """Sets of data rows (indices into ``form.data``) of which every card gets one wrong at least.

    A positive row is right when its total is at least the positive margin (>= 0), a negative
    row when its total is at most -margin (< 0). So a positive and a negative row with the same
    features cannot both be right, nor can two positive rows whose features add up to those of
    two negative rows (a row may count twice): their totals would have one sum, >= 0 and < 0.
    Only rows some cards get right and others wrong (those with a loss column) are used; the
    sums only on integer-valued data, where they are exact.
    """
    if form.margin <= 0:
        return []
    open_ = np.flatnonzero(form.col_loss >= 0)
    pos, neg = open_[form.data.y[open_] == 1], open_[form.data.y[open_] != 1]
    X = form.data.X
    found = _equal_sums(X, pos[:, None], neg[:, None])
    exact = np.all(X == np.round(X)) and float(np.abs(X).max(initial=0)) < 2.0**40
    most = max(len(pos), len(neg))
    if exact and most * (most + 1) // 2 * X.shape[1] <= MAX_PAIR_VALUES:
        found += _equal_sums(X, _pairs(pos), _pairs(neg))
    sets = [np.unique(f) for f in found]
    width = max((len(f) for f in sets), default=0)
    padded = np.array([np.pad(f, (0, width - len(f)), constant_values=-1) for f in sets])
    unique = np.unique(padded, axis=0) if len(padded) else padded
    return [u[u >= 0] for u in unique[:MAX_CONFLICTS]]


def _pairs(rows: np.ndarray) -> np.ndarray:
    """Every pair (i, j), i <= j, of ``rows``: a row may be taken twice."""
    i, j = np.triu_indices(len(rows))
    return np.column_stack([rows[i], rows[j]])


def _equal_sums(X: np.ndarray, P: np.ndarray, N: np.ndarray) -> list[np.ndarray]:
    """Each (row tuple of ``P``) + (row tuple of ``N``) whose feature sums are equal."""
    if not len(P) or not len(N):
        return []
    _, key = np.unique(np.vstack([X[P].sum(axis=1), X[N].sum(axis=1)]), axis=0, return_inverse=True)
    key = key.ravel()
    kp, kn = key[: len(P)], key[len(P) :]
    order = np.argsort(kn, kind="stable")
    lo, hi = np.searchsorted(kn[order], kp, "left"), np.searchsorted(kn[order], kp, "right")
    out: list[np.ndarray] = []
    for a in np.flatnonzero(hi > lo):
        out += [np.concatenate([P[a], N[b]]) for b in order[lo[a] : hi[a]]]
        if len(out) >= 4 * MAX_CONFLICTS:  # enough: the rest would only slow the program down
            break
    return out


def _with_conflicts(form: Formulation) -> Formulation:
    """The program with a row "sum of the error indicators >= 1" per :func:`conflict_sets`.
    The big-M rows' relaxation does not see these: with them HiGHS proves mammo's best TPR
    at its root node (30-1,800 nodes without)."""
    sets = conflict_sets(form)
    if not sets:
        return form
    index = np.concatenate([form.col_loss[s] for s in sets]).astype(np.int32)
    start = form.start[-1] + np.cumsum([len(s) for s in sets])
    return replace(
        form,
        start=np.concatenate([form.start, start]).astype(np.int32),
        index=np.concatenate([form.index, index]),
        value=np.concatenate([form.value, np.ones(len(index))]),
        row_lower=np.concatenate([form.row_lower, np.ones(len(sets))]),
        row_upper=np.concatenate([form.row_upper, np.full(len(sets), np.inf)]),
    )


def _dominant_program(form: Formulation, start: tuple[np.ndarray, int]) -> Formulation:
    """The same program with only the dominant class's errors in its objective, and the
    conflict rows of :func:`_with_conflicts`; HiGHS may stop once its gap is below one dominant
    error (the bound, rounded up to a whole error, then meets the card)."""
    cost = np.zeros_like(form.cost)
    cols = form.col_loss[np.flatnonzero(_dominant(form) & (form.col_loss >= 0))]
    cost[cols] = form.cost[cols]
    # rows outside the program (col_loss -1) are wrong for every card or for
    # none: the start tells which
    fixed = _dominant(form) & (form.col_loss < 0)
    constant = weighted_errors(form, np.where(fixed, form.row_weight, 0.0), *start)
    # its values are multiples of one dominant error's weight (the constant is one too)
    return _with_conflicts(
        replace(form, cost=cost, constant=constant, objective_step=_step(form) or 0.0)
    )


def prove_dominant(
    form: Formulation,
    start: tuple[np.ndarray, int],
    *,
    time_left: float | None = None,
    threads: int = 1,
    cancel: threading.Event | None = None,
    known: float | None = None,
) -> DominantProof:
    """Prove the least weight of dominant errors (the best TPR under ``max_fpr``) with HiGHS,
    from ``start`` (a feasible card); ``known`` is :func:`knapsack_floor`, if computed already.
    A start that meets the knapsack's floor is proven at once; a stopped solve returns the
    bound it reached.

    Examples
    --------
    >>> import numpy as np, slimwidgets as sw
    >>> from slimwidgets.core.data import prepare_data
    >>> from slimwidgets.core.formulation import build_formulation
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0], [1, 0], [0, 1]])
    >>> data = prepare_data(X, [1, 1, -1, -1, 1, 1], warn=False)
    >>> form = build_formulation(data, sw.make_spec(max_fpr=0.0))
    >>> proof = prove_dominant(form, (np.zeros(2), -1))  # from the card that says "no" to all
    >>> proof.proven, class_limits(form, proof.floor, proof.coefficients, proof.intercept)
    (True, {'tpr_max': 0.75, 'tpr_proven': True})
    """
    t0 = time.perf_counter()
    known = knapsack_floor(form) if known is None else known
    if dominant_loss(form, *start) <= known + 1e-9 * (_step(form) or 1.0):
        return DominantProof(
            np.asarray(start[0]), int(start[1]), known, True, time.perf_counter() - t0
        )
    program = _dominant_program(form, start)
    result = solve_formulation(
        program, time_limit=time_left, threads=threads, warm_start=start, cancel=cancel
    )
    if result.coefficients is None:
        return DominantProof(
            None, None, max(result.bound, known, 0.0), False, time.perf_counter() - t0
        )
    # The solver's bound is in the program's units (dominant errors), a multiple of the step
    # up to the solver's tolerances; its card is re-checked exactly.
    step = _step(form)
    floor = max(result.bound, known, 0.0) if math.isfinite(result.bound) else known
    if step is not None:
        floor = step * math.ceil(floor / step - 1e-6)
    loss = dominant_loss(form, result.coefficients, result.intercept)
    tol = 1e-9 * (step or 1.0)
    return DominantProof(
        result.coefficients,
        int(result.intercept),
        min(floor, loss),
        floor >= loss - tol,
        time.perf_counter() - t0,
    )


def class_limits(form: Formulation, bound: float, coefficients, intercept) -> dict:
    """What ``bound`` (on the full objective) proves in the user's units, for a card's details:
    ``tpr_max`` and ``tpr_proven`` under max_fpr, ``fpr_min`` and ``fpr_proven`` under min_tpr;
    nothing without a lexicographic objective."""
    step = None if form.lexicographic is None else _step(form)
    if step is None:
        return {}
    dom = _dominant(form)
    floor = dominant_floor(form, bound)
    # paper units -> data weight: the dominant rows' weights are the data weights times one factor
    d = form.data.weight[dom].astype(float)
    factor = float(form.row_weight[dom][0] / d[0])
    share = min(floor / factor / float(d.sum()), 1.0)
    proven = dominant_loss(form, coefficients, intercept) <= floor + 1e-9 * step
    if form.lexicographic == "tpr":
        return {"tpr_max": 1.0 - share, "tpr_proven": bool(proven)}
    return {"fpr_min": share, "fpr_proven": bool(proven)}


# the floor under a decision fit's objective that any classifier meets, asked of the family
DECISION.loss.holds(floor=knapsack_floor)
