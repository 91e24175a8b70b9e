"""What a card may be and what it costs: each feature's box of points and the objective's
prices on the data (row weights, C0, epsilon, the paper's sec. 7 tiers and groups, the loss step).

Both the integer program (:mod:`~.formulation`) and :mod:`slimwidgets.fitting.large`, which
prices cards on every row of a large table without building the program, read them here, so the
two charge a card the same.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import reduce

import numpy as np

from .data import Dataset
from .spec import Spec

__all__ = [
    "FeatureBoxes",
    "ObjectiveCosts",
    "feature_boxes",
    "objective_costs",
    "loss_unit",
    "value_step",
]


def _gcd_fraction(values: np.ndarray) -> Fraction:
    fracs = [Fraction(float(v)).limit_denominator(10**6) for v in np.unique(values) if v > 0]
    if not fracs:
        return Fraction(1)
    num = reduce(math.gcd, (f.numerator for f in fracs))
    den = reduce(lambda a, b: a * b // math.gcd(a, b), (f.denominator for f in fracs))
    return Fraction(num, den)


def loss_unit(weights: np.ndarray) -> float:
    """Smallest positive difference between two weighted losses (gcd of the row weights)."""
    weights = np.asarray(weights, dtype=float)
    g = float(_gcd_fraction(weights))
    positive = weights[weights > 0]
    floor = float(positive.min()) * 1e-6 if positive.size else 1.0
    return max(g, floor)


def value_step(unit: float, costs: list[float]) -> float:
    """Smallest positive difference between two values of (loss + penalties), whose
    values are integer combinations of the loss step ``unit`` and the ``costs``: their
    gcd, ``unit / q`` with q the lcm of the denominators of cost / unit. A ratio that is
    no fraction with a denominator up to 10^6 gets the floor ``unit * 1e-6``, as
    :func:`loss_unit` does.

    >>> value_step(1 / 12, [0.05])  # 0.05 = (3/5) / 12, so every value is a multiple of 1/60
    0.016666666666666666
    """
    q = 1
    for c in costs:
        ratio = c / unit
        f = Fraction(ratio).limit_denominator(10**6)
        if abs(float(f) - ratio) > 1e-9 * max(1.0, ratio):
            return unit * 1e-6
        q = q * f.denominator // math.gcd(q, f.denominator)
        if q > 10**6:
            return unit * 1e-6
    return unit / q


@dataclass(eq=False)
class FeatureBoxes:
    """Per feature: the box [lo, hi] of its points after every option, which points are
    fixed (lo == hi) or required (0 not allowed), the allowed values, and the values sets
    that are no plain interval (they need binaries)."""

    lo: np.ndarray
    hi: np.ndarray
    required: np.ndarray
    fixed: np.ndarray
    free: np.ndarray
    allowed: list[np.ndarray]
    fixed_value: np.ndarray
    value_sets: dict[int, list[int]]

    @property
    def always_used(self) -> np.ndarray:
        """Features every card uses: a box that excludes 0, or a fixed non-zero value."""
        return (self.free & ((self.lo > 0) | (self.hi < 0))) | (
            self.fixed & (self.fixed_value != 0)
        )


def feature_boxes(data: Dataset, spec: Spec) -> FeatureBoxes:
    """Each feature's box of points under ``spec`` (also read by :mod:`slimwidgets.fitting.large`,
    which prices cards on all rows of a large table without building the program)."""
    names = data.feature_names
    box = np.array([spec.feature_box(name) for name in names], dtype=np.int64).reshape(
        len(names), 2
    )
    lo, hi = box[:, 0], box[:, 1]
    required = np.array([n in spec.require for n in names])
    # A required feature with a known sign just loses 0 from its box.
    lo = np.where(required & (lo >= 0), np.maximum(lo, 1), lo)
    hi = np.where(required & (hi <= 0), np.minimum(hi, -1), hi)
    fixed = lo == hi
    allowed = []
    for j, name in enumerate(names):
        vals = np.arange(lo[j], hi[j] + 1)
        if name in spec.values:
            vals = vals[np.isin(vals, spec.values[name])]
        if required[j]:
            vals = vals[vals != 0]
        allowed.append(vals.astype(np.int64))
    # Values sets that are not a plain interval around their own range need binaries.
    value_sets: dict[int, list[int]] = {}
    for name, values in spec.values.items():
        j = names.index(name)
        if fixed[j]:
            continue
        inside = [v for v in values if lo[j] <= v <= hi[j]]
        if inside != list(range(lo[j], hi[j] + 1)):
            value_sets[j] = inside
    return FeatureBoxes(
        lo, hi, required, fixed, ~fixed, allowed, np.where(fixed, lo, 0), value_sets
    )


@dataclass(eq=False)
class ObjectiveCosts:
    """The objective's prices in paper units (an unweighted error costs 1/N) and the scale
    HiGHS sees them in."""

    row_weight: np.ndarray
    unit: float  # smallest loss step
    lexicographic: str | None
    C0: np.ndarray
    C0_default: float
    tier_steps: tuple[tuple[int, float], ...]
    value_cost: list[np.ndarray]
    groups: list[np.ndarray]
    orientation: np.ndarray
    epsilon: float
    scale: float


def _row_weights(data: Dataset, spec: Spec) -> tuple[np.ndarray, str | None, np.ndarray]:
    """(weight of each row's error, "tpr"/"fpr" when one cap makes a class dominate, the
    weights of the rows whose loss steps set the unit)."""
    y, N = data.y, data.total_weight
    w = data.weight.astype(float) / N
    if spec.class_weights == "balanced":
        cw_neg, cw_pos = data.class_weight_total(1) / N, data.class_weight_total(-1) / N
    elif spec.class_weights is not None:
        cw_neg, cw_pos = spec.class_weights
    else:
        cw_neg, cw_pos = 1.0, 1.0
    lexicographic = None
    if spec.class_weights is None and (spec.max_fpr is None) != (spec.min_tpr is None):
        lexicographic = "tpr" if spec.max_fpr is not None else "fpr"
    row_weight = w * np.where(y == 1, cw_pos, cw_neg)
    if lexicographic == "tpr":
        return row_weight, lexicographic, row_weight[y == -1]
    if lexicographic == "fpr":
        return row_weight, lexicographic, row_weight[y == 1]
    return row_weight, lexicographic, row_weight


def _default_C0(spec: Spec, unit: float, n_free: int) -> float:
    if spec.C0 is not None:
        return spec.C0
    if spec.tiers:
        return spec.tiers[0][1]  # the first tier's cost is the cost of using a feature
    # Remark 2: C0 times the most features a card can use stays below one error, so no
    # accuracy is traded for sparsity; 1/(m+1) of the loss step, rather than any smaller
    # fraction, keeps eps (below) as large as it can be
    most = n_free if spec.max_size is None else min(n_free, spec.max_size)
    return unit / (most + 1)


def objective_costs(data: Dataset, spec: Spec, box: FeatureBoxes) -> ObjectiveCosts:
    """The objective's prices on ``data`` (row weights, C0, epsilon, tiers, groups), as the
    program and :mod:`slimwidgets.fitting.large` both charge them."""
    names, free = data.feature_names, box.free
    row_weight, lexicographic, base = _row_weights(data, spec)
    unit = loss_unit(base)
    C0_default = _default_C0(spec, unit, int(free.sum()))
    C0 = np.array(
        [spec.penalties.get(n, C0_default) + spec.missing.get(n, 0) / data.n_samples for n in names]
    )
    C0[~free] = 0.0
    # PILM: a value in tier r >= 2 pays the steps C_r - C_{r-1} on top of C0_j.
    tier_steps = tuple(
        (int(spec.tiers[r - 1][0]), float(spec.tiers[r][1] - spec.tiers[r - 1][1]))
        for r in range(1, len(spec.tiers))
        if spec.tiers[r][1] > spec.tiers[r - 1][1]
    )
    value_cost = []
    for j, vals in enumerate(box.allowed):
        size = np.abs(vals) if free[j] else np.zeros(len(vals), dtype=np.int64)
        value_cost.append(
            np.array(
                [sum(step for above, step in tier_steps if m > above) for m in size.tolist()],
                dtype=float,
            )
        )
    index = {n: j for j, n in enumerate(names)}
    groups = [
        np.array([index[n] for n in members], dtype=np.int64) for members in spec.groups.values()
    ]
    orientation = np.ones(len(names))
    for n in spec.group_reversed:
        orientation[index[n]] = -1.0
    l1_max = float(np.maximum(np.abs(box.lo), np.abs(box.hi))[free].sum()) or 1.0
    # Remark 1, made true: eps * (largest L1) stays below the smallest positive difference
    # between two values of loss + penalties. Remark 1's min(1/N, C0) is not enough: with
    # N = 12 and C0 = 0.05, one error less for one feature more gains 1/12 - 0.05 = 0.033,
    # less than its eps * L1 can be, and the paper's eps would trade that accuracy away.
    costs = C0[free & (C0 > 0)].tolist() + [step for _, step in tier_steps]
    if groups:
        costs += [c for c in (spec.group_penalty, spec.rule_penalty) if c > 0]
    epsilon = 0.9 * value_step(unit, costs) / l1_max
    if lexicographic is not None:
        # One error in the capped-for class must cost more than everything else.
        dominant = (data.y == 1) if lexicographic == "tpr" else (data.y == -1)
        rest = float(base.sum()) + float(C0.sum()) + epsilon * l1_max
        rest += sum(float(c.max()) for c in value_cost if c.size)
        rest += sum(spec.group_penalty + spec.rule_penalty * max(len(m) - 1, 0) for m in groups)
        step = loss_unit(row_weight[dominant])
        row_weight = np.where(dominant, row_weight * (rest + unit) / step, row_weight)
    return ObjectiveCosts(
        row_weight,
        unit,
        lexicographic,
        C0,
        C0_default,
        tier_steps,
        value_cost,
        groups,
        orientation,
        epsilon,
        1.0 / unit,
    )
