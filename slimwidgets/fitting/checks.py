"""Re-checks of a returned card: every constraint of its spec, and the boxes
it sits at the end of."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..core.big_m_bounds import intercept_box
from ..core.by_variable import variable_problems
from ..core.data import Dataset
from ..core.family import family_of_card, family_of_loss
from ..core.formatting import percent
from ..core.formulation import Formulation
from ..core.groups import group_problems
from ..core.linear import linear_problems
from ..core.scoring import ScoringSystem
from ..core.spec import DEFAULT_COEF_RANGE, Spec

__all__ = ["check_card", "box_limits"]


def box_limits(form: Formulation, coefficients, intercept: int) -> list[str]:
    """Boxes the card sits at the end of, where a wider box could give another card: the
    intercept box (the user's, or a derived one cut at its size limit) and the points
    ranges the user set. Empty for a card no box limits.

    A derived intercept box reaches every intercept that changes a prediction, so it
    never shows here unless it was cut.
    """
    notes: list[str] = []
    spec, (ilo, ihi) = form.spec, form.intercept_box
    free_lo, free_hi = intercept_box(
        replace(spec, intercept_range=None),
        form.data.X,
        form.extra["lo"],
        form.extra["hi"],
        form.margin,
        spec.max_size,
    )
    if (intercept == ilo and ilo > free_lo) or (intercept == ihi and ihi < free_hi):
        notes.append(
            f"the intercept is at the end of its range {ilo}..{ihi}: a wider intercept_range may "
            "give a better card"
        )
    user_set = (
        set(spec.coef_ranges)
        if tuple(spec.coef_range) == DEFAULT_COEF_RANGE
        else set(form.data.feature_names)
    )
    for name, v in zip(form.data.feature_names, np.asarray(coefficients).astype(int).tolist()):
        lo, hi = spec.feature_box(name)
        if (
            name in user_set
            and name not in spec.lock
            and ((v < 0 and v == lo) or (v > 0 and v == hi))
        ):
            notes.append(
                f"the points of {name!r} ({v}) are at the end of their range {lo}..{hi}: "
                "a wider range may give a better card"
            )
    return notes


def check_card(card: ScoringSystem, data: Dataset, spec: Spec) -> list[str]:
    """Every constraint of ``spec`` that ``card`` breaks on ``data``: "max FPR 20 % (FPR 27.7 %)".

    Parameters
    ----------
    card : ScoringSystem
        The card to check.
    data : Dataset
        The rows the constraints are measured on.
    spec : Spec
        The constraints.
    """
    problems: list[str] = []
    coefs = dict(zip(card.feature_names, card.coefficients))
    for name in data.feature_names:
        v = coefs.get(name, 0)
        lo, hi = spec.coef_ranges.get(name, spec.coef_range)
        if name in spec.lock:
            if v != spec.lock[name]:
                problems.append(f"lock {name!r}={spec.lock[name]} (got {v})")
            continue
        if not lo <= v <= hi:
            problems.append(f"points range of {name!r} ({v} not in {lo}..{hi})")
        if name in spec.exclude and v != 0:
            problems.append(f"exclude {name!r}")
        if name in spec.require and v == 0:
            problems.append(f"require {name!r}")
        sign = spec.signs.get(name)
        if (sign == "+" and v < 0) or (sign == "-" and v > 0):
            problems.append(f"sign {sign} on {name!r}")
        if name in spec.values and v not in spec.values[name]:
            problems.append(f"values of {name!r} ({v})")
        if spec.tiers and abs(v) > spec.tiers[-1][0]:
            problems.append(
                f"tiers: {name!r} has {v} points, beyond the last tier ({spec.tiers[-1][0]})"
            )
    if (
        spec.intercept_range is not None
        and not spec.intercept_range[0] <= card.intercept <= spec.intercept_range[1]
    ):
        problems.append(f"intercept_range ({card.intercept})")
    if spec.max_size is not None and card.size > spec.max_size:
        problems.append(f"at most {spec.max_size} features ({card.size} used)")
    labels = np.where(data.y == 1, data.positive, data.negative)
    m = card.metrics(data.X, labels, sample_weight=data.weight)
    if spec.max_fpr is not None and m.fpr > spec.max_fpr + 1e-12:
        problems.append(f"max FPR {100 * spec.max_fpr:.4g} % (FPR {percent(m.fpr, spec.max_fpr)})")
    if spec.min_tpr is not None and m.tpr < spec.min_tpr - 1e-12:
        problems.append(f"min TPR {100 * spec.min_tpr:.4g} % (TPR {percent(m.tpr, spec.min_tpr)})")
    problems += group_problems(card, data, spec)  # the caps and gaps between groups
    problems += linear_problems(coefs, spec.linear)  # the user's own rows
    problems += variable_problems(spec, coefs)  # max_variables, cut points per variable, monotone
    used = {n for n, v in coefs.items() if v != 0}
    for c in spec.constraints:
        if c.kind == "needs":
            ok = not (used & set(c.features)) or set(c.targets) <= used
        elif c.kind == "at_most":
            ok = len(used & set(c.features)) <= c.k
        else:
            ok = len(used & set(c.features)) >= c.k
        if not ok:
            problems.append(c.describe())
    reversed_ = set(spec.group_reversed)
    for g, members in spec.groups.items():
        in_use = [n for n in members if coefs.get(n, 0) != 0]
        if spec.max_rules_per_group is not None and len(in_use) > spec.max_rules_per_group:
            problems.append(
                f"max_rules_per_group={spec.max_rules_per_group} (group {g!r} uses {len(in_use)})"
            )
        if spec.group_signs_agree:
            oriented = [(-1 if n in reversed_ else 1) * coefs[n] for n in in_use]
            if any(v > 0 for v in oriented) and any(v < 0 for v in oriented):
                problems.append(f"group_signs_agree (group {g!r} mixes signs)")
    if family_of_card(card) is not family_of_loss(spec.loss):
        problems.append(f"loss={spec.loss!r} but the card is of family {card.family!r}")
    if card.family == "m_of_n":
        pts = [v for v in card.coefficients if v != 0]
        if len(set(pts)) > 1 or any(v < 0 for v in pts):
            problems.append(
                "m_of_n: every rule in the table must carry the same positive points (got "
                f"{sorted(set(pts))})"
            )
        non_binary = [
            n for n, b in zip(data.feature_names, data.binary) if not b and coefs.get(n, 0) != 0
        ]
        if non_binary:
            problems.append(f"m_of_n: rules must be 0/1 features, not {non_binary}")
    return problems
