"""A stronger proven floor under group rows: Lagrangian bounds.

Each group row of the program (:func:`slimwidgets.core.groups.rate_rows`) reads
``coef . z <= upper`` over the rows' error indicators z. For multipliers lambda_r >= 0,
every card c that meets the rows has

    objective(c) >= objective(c) + sum_r lambda_r (coef_r . z(c) - upper_r) / scale_r
                 >= min over all cards of the same expression          (weak duality)

and that minimum is an ordinary weighted problem *without* group rows: the penalty only
re-weights the rows (a row's error costs ``row_weight_i + sum_r lambda_r coef_ri / scale_r``)
and adds the constant ``-sum_r lambda_r upper_r / scale_r``. The driver's fast proofs (walk,
support scan, proof by size) prove it, and any proven bound on it, even one from a solve
stopped by the clock, is a floor on the grouped problem. A weight that the penalty drives
below zero is counted as 0 and its (negative) weight goes into the constant: a row's error
costs at least its weight then, so the floor stays one.

``scale_r`` (the sum of the row's positive coefficients) makes lambda a price per unit of
rate: for a gap row it is the product of the two groups' class weights, so that
``(coef . z - upper) / scale`` is the rates' difference minus the allowed gap.

The multipliers move along one direction, the rows that the best card without group rows
breaks, times a step t >= 0; the penalized optimum's own excess over those rows (a
subgradient of the concave dual in t) says whether t is too small (still broken) or too large
(met with room), and t is bisected. When a penalized optimum meets every row and its
objective equals the floor, it is the grouped problem's optimum, proven.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from ..core.family import family_of_loss
from ..core.formulation import Formulation
from ..core.groups import GROUP_OPTIONS, RateRow
from ..core.objective import loss_unit
from ..core.scoring import ScoringSystem
from ..solvers.base import SolveResult

__all__ = ["Deadline", "DualProbe", "DualResult", "dual_floor", "next_step", "penalized_problem"]

#: most penalized problems solved in one search over the step t
MAX_PROBES = 6
#: share of the time left that one penalized solve may take (what it leaves goes to the next step)
PROBE_SHARE = 1.0
#: share of the time left that the first look (the largest step, for a card
#: that holds the rows) takes
SCOUT_SHARE = 0.15
#: the first step at most this share of the step where a row's cost reaches 0 (the
#: others at most that step)
PROBE_CAP = 0.5
#: the penalized rows' costs are rounded down to 1/GRID of the problem's loss unit
GRID = 64


class Deadline:
    """A stop flag for an inner fit: set when the caller's ``cancel`` is, or at ``at``
    (perf_counter seconds; None: never). Every phase of a fit looks at its flag, so an inner
    fit ends at the deadline with its best card and its bound so far, whatever its own
    phases' estimates of their time were.

    >>> import time
    >>> Deadline(time.perf_counter() - 1, None).is_set(), Deadline(None, None).is_set()
    (True, False)
    """

    def __init__(self, at: float | None, cancel) -> None:
        self.at, self.cancel = at, cancel

    def is_set(self) -> bool:
        return (self.cancel is not None and self.cancel.is_set()) or (
            self.at is not None and time.perf_counter() >= self.at
        )


@dataclass(frozen=True)
class DualProbe:
    """One penalized solve: the step ``t``, the floor it proves on the grouped problem, the
    excess of its card over the direction's rows (> 0: still broken), the card's points and
    intercept and whether the card meets every group row."""

    t: float
    floor: float
    excess: float
    points: np.ndarray | None
    intercept: int | None
    meets: bool


def _scale(row: RateRow) -> float:
    return float(np.maximum(row.coef, 0.0).sum()) or 1.0


def _excess(form: Formulation, rows: list[RateRow], wrong: np.ndarray) -> np.ndarray:
    """Per row, ``(coef . z - upper) / scale`` of a card whose errors are
    ``wrong`` (data weights)."""
    z = wrong.astype(float)
    return np.array([(float(r.coef @ z) - r.upper) / _scale(r) for r in rows])


def dual_applies(form: Formulation) -> bool:
    """Whether the penalized problem is the same objective re-weighted: there are group rows,
    and no class cap (whose dominant-class pricing the re-weighting would undo)."""
    spec = form.spec
    return (
        bool(form.rate_rows)
        and form.lexicographic is None
        and not form.caps
        and spec.max_fpr is None
        and spec.min_tpr is None
    )


def penalized_problem(form: Formulation, multipliers: np.ndarray, time_limit: float | None):
    """(data, spec, constant, epsilon excess) of the problem ``objective + sum_r
    multipliers_r (coef_r . z - upper_r) / scale_r`` without group rows, or None when its
    program would not be the same one re-weighted (another C0, box or intercept box).

    Its rows cost ``form.row_weight`` plus the penalty (clipped at 0); ``constant`` is what
    the floor adds to its proven bound (the multipliers' share of the uppers, the clipped
    weights), minus what a larger epsilon may add to its objective."""
    data, spec = form.data, form.spec
    extra = np.zeros(data.n_rows)
    constant = 0.0
    for lam, row in zip(multipliers.tolist(), form.rate_rows):
        if lam > 0:
            extra += lam * row.coef / _scale(row)
            constant -= lam * row.upper / _scale(row)
    cost = form.row_weight + extra
    constant += float(np.minimum(cost, 0.0).sum())
    # down to a grid of GRID steps per loss unit: a cheaper error only lowers the minimum (the
    # floor stays one), and whole multiples of one step keep the scan's weight bits few
    step = loss_unit(form.row_weight) / GRID
    cost = np.floor(np.maximum(cost, 0.0) / step + 1e-9) * step
    total = data.total_weight
    weight = (
        cost * total
    )  # so that weight / (its sum) * class weight = cost, with the class weight below
    c = float(weight.sum()) / total
    if not c > 0:
        return None
    penal_data = replace(
        data, weight=weight, sensitive=None, sensitive_levels=(), sensitive_name=None
    )
    penal_spec = spec.replace(
        **{k: None for k in GROUP_OPTIONS},
        linear=[],
        class_weights=(c, c),
        C0=form.extra["C0_default"] if spec.C0 is None else spec.C0,
        time_limit=time_limit,
    )
    check = family_of_loss(penal_spec.loss).loss.problem(penal_data, penal_spec)
    same = (
        np.allclose(check.C0, form.C0, rtol=1e-12, atol=0)
        and np.allclose(check.row_weight, cost, rtol=1e-9, atol=1e-15)
        and np.array_equal(check.extra["lo"], form.extra["lo"])
        and np.array_equal(check.extra["hi"], form.extra["hi"])
        and check.lower[check.col_intercept] <= form.lower[form.col_intercept]
        and check.upper[check.col_intercept] >= form.upper[form.col_intercept]
    )
    if not same:
        return None
    l1_max = float(np.maximum(np.abs(form.extra["lo"]), np.abs(form.extra["hi"])).sum())
    constant -= (
        max(check.epsilon - form.epsilon, 0.0) * l1_max + 1e-12
    )  # and float rounding's share
    return penal_data, penal_spec, constant


def _probe(
    form: Formulation,
    direction: np.ndarray,
    t: float,
    time_limit: float | None,
    cancel,
    fit_dataset: Callable,
    warm: ScoringSystem,
) -> tuple[DualProbe, ScoringSystem] | None:
    problem = penalized_problem(form, t * direction, time_limit)
    if problem is None:
        return None
    penal_data, penal_spec, constant = problem
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # notes on a re-weighted problem are not the user's
            card = fit_dataset(penal_data, penal_spec, cancel=cancel, warm_start=warm)
    except Exception:  # noqa: BLE001 - no floor from this step; the others stand
        return None
    floor = -math.inf if card.bound is None else float(card.bound) + constant
    by_name = dict(zip(card.feature_names, card.coefficients))
    points = np.array([by_name.get(n, 0) for n in form.data.feature_names], dtype=float)
    wrong = form.wrong_rows(points, int(card.intercept))
    excess = _excess(form, form.rate_rows, wrong)
    meets = (
        bool(np.all(excess <= 1e-12))
        and form.linear_rows_hold(points)
        and _in_box(form, points, card.intercept)
    )
    return DualProbe(
        t, floor, float(excess[direction > 0].sum()), points, int(card.intercept), meets
    ), card


def _zero_step(form: Formulation, direction: np.ndarray) -> float:
    """The least step t at which the penalty along ``direction`` brings a row's cost to 0."""
    slope = sum(
        lam * row.coef / _scale(row)
        for lam, row in zip(direction.tolist(), form.rate_rows)
        if lam > 0
    )
    falling = (slope < 0) & (form.row_weight > 0)
    return float(np.min(form.row_weight[falling] / -slope[falling])) if falling.any() else math.inf


def _in_box(form: Formulation, points: np.ndarray, intercept: int) -> bool:
    b, loss = form.intercept_losses(points)
    return bool(np.isfinite(loss[b == intercept]).all() and (b == intercept).any())


def next_step(lines: list[tuple[float, float]], last: float) -> tuple[float, float]:
    """(t, ceiling): where the cards seen so far let the dual be largest, and that largest value.

    Every card c gives a line ``objective(c) + t * excess(c)`` that lies above the dual
    L(t) = min over cards; the lowest of the lines is a ceiling on L, and its peak is the
    next step to probe (Kelley's cutting planes, in one dimension). With no line falling
    (no card that meets the rows known), the step doubles.

    >>> next_step([(0.17, 0.1), (0.19, -0.1)], 0.5)  # the lines cross at t = 0.1
    (0.1, 0.18)
    """
    if not any(ex < 0 for _, ex in lines):
        return 2 * last, math.inf
    cands = [0.0] + [
        (o2 - o1) / (e1 - e2) for o1, e1 in lines for o2, e2 in lines if e1 > e2 and o2 >= o1
    ]
    values = [min(o + t * ex for o, ex in lines) for t in cands]
    k = int(np.argmax(values))
    return round(cands[k], 12), round(values[k], 12)


@dataclass(frozen=True)
class DualResult:
    """What :func:`dual_floor` proved and found: the floor, a proven optimal result (or None),
    the best card met on the way that meets every group row (points, intercept, objective; or
    None), and the probes."""

    floor: float
    answer: SolveResult | None
    start: tuple[np.ndarray, int, float] | None
    probes: list[DualProbe]


def dual_floor(
    form: Formulation,
    free_card,
    floor0: float,
    known: tuple | None,
    time_left: float | None,
    cancel,
    fit_dataset: Callable,
) -> DualResult:
    """The best Lagrangian floor found within ``time_left`` (never below ``floor0``, the
    floor without group rows), a proven optimal result when a penalized optimum meets the
    rows at the floor, the best card that meets the rows, and the probes made.

    ``free_card``: the best card without group rows (a ScoringSystem); the rows it breaks set
    the direction. Each penalized solve starts from the card seen so far that is cheapest at
    its step. ``known``: (points, intercept) of the best card known that meets the
    rows, or None (with the free card it sets the first step)."""
    if not dual_applies(form):
        return DualResult(floor0, None, None, [])
    by_name = dict(zip(free_card.feature_names, free_card.coefficients))
    free_points = np.array([by_name.get(n, 0) for n in form.data.feature_names], dtype=float)
    excess = _excess(form, form.rate_rows, form.wrong_rows(free_points, int(free_card.intercept)))
    direction = (excess > 1e-12).astype(float)
    if not direction.any() or not math.isfinite(floor0):
        return DualResult(floor0, None, None, [])
    # every card gives a line above the dual: the free card's and the known one's set the first step
    lines = [(form.objective_of(free_points, int(free_card.intercept)), float(excess @ direction))]
    cards = [
        (free_points, int(free_card.intercept))
    ]  # each line's card: the cheapest at t starts its probe
    start = None
    if known is not None:
        value, known_excess = (
            form.objective_of(*known),
            _excess(form, form.rate_rows, form.wrong_rows(*known)),
        )
        lines.append((value, float(known_excess @ direction)))
        cards.append((np.asarray(known[0], dtype=float), int(known[1])))
        if np.all(known_excess <= 1e-12):
            start = (known[0], known[1], value)
    deadline = None if time_left is None else time.perf_counter() + time_left
    best, probes, t = floor0, [], 0.0
    # past the step where a row's cost reaches 0 the clipped weights loosen
    # the floor: start below it
    zero = _zero_step(form, direction)
    # under a time limit, a short first look at the largest step finds a card that holds the rows
    # (a falling line: the next step is where it meets the free card's), and the time is the proof's
    scout = deadline is not None and math.isfinite(zero)
    for k in range(MAX_PROBES):
        last = t
        if k == 0 and scout:
            t, ceiling = zero, math.inf
        else:
            t, ceiling = next_step(lines, t if t > 0 else min(zero, 1.0))
            t = min(t, PROBE_CAP * zero if not probes else zero)
            t = PROBE_CAP * t if t == last else t  # the last step said nothing new: a smaller one
        left = None if deadline is None else deadline - time.perf_counter()
        tried = any(p.t == t for p in probes)
        if (
            ceiling <= best + 1e-9
            or t <= 0
            or tried
            or (left is not None and left <= 0.05)
            or (cancel is not None and cancel.is_set())
        ):
            break  # no step can raise the floor further (or the step was probed), or no time
        share = None if left is None else (SCOUT_SHARE if k == 0 and scout else PROBE_SHARE) * left
        stop = Deadline(None if deadline is None else time.perf_counter() + share, cancel)
        cheapest = cards[int(np.argmin([o + t * ex for o, ex in lines]))]
        warm = ScoringSystem(
            form.data.feature_names, tuple(int(v) for v in cheapest[0]), cheapest[1]
        )
        made = _probe(form, direction, t, share, stop, fit_dataset, warm)
        if made is None:
            break
        probe = made[0]
        cards.append((probe.points, probe.intercept))
        probes.append(probe)
        best = max(best, probe.floor)
        value = form.objective_of(probe.points, probe.intercept)
        lines.append(
            (
                value,
                float(
                    _excess(form, form.rate_rows, form.wrong_rows(probe.points, probe.intercept))
                    @ direction
                ),
            )
        )
        if probe.meets:
            if start is None or value < start[2]:
                start = (probe.points, probe.intercept, value)
            if value <= best + 1e-12:
                answer = SolveResult(
                    "optimal",
                    probe.points,
                    probe.intercept,
                    value,
                    value,
                    0.0,
                    0.0,
                    "Lagrangian bound (a penalized optimum meets the group rows)",
                )
                return DualResult(value, answer, start, probes)
    return DualResult(best, None, start, probes)
