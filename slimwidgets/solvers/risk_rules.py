"""What a risk card must meet beyond its points boxes and support rules, and what it costs.

The search, the walk and the cutting-plane bound of :mod:`slimwidgets.solvers.logistic` ask
one :class:`RiskRules` object:

* **Caps** (``max_fpr``, ``min_tpr``). A risk card predicts the positive class where its
  risk is at least 50 %, i.e. where its total ``intercept + x . points`` is ``>= 0`` (``> 0``
  under ``zero_score="error"``), exactly the rule of :meth:`ScoringSystem.predict
  <slimwidgets.ScoringSystem.predict>`; the multiplier never changes a prediction. The caps
  constrain those predictions on the training rows, weighted by the sample weights (class
  weights scale a whole class and leave its rates alone).
* **Caps and gaps between groups** (``max_fpr_by_group``, ..., ``max_tpr_gap``): the same
  predictions in each group of the data's ``sensitive_features``
  (:mod:`slimwidgets.solvers.risk_groups`); a gap is not monotone in the intercept, so under one
  the intercepts that meet every cap may form several runs.
* **Group signs** (``group_signs_agree``): within each group the oriented points share a sign.
* **Costs beyond C0**: PILM's tiers (a value beyond the first tier costs its tier's price) and
  TILM's group and rule penalties.

For a fixed points vector both caps are monotone in the intercept (raising it predicts more
rows positive): ``max_fpr`` holds up to some intercept, ``min_tpr`` from some intercept on, so
the intercepts meeting both form an interval, found by bisection (:meth:`RiskRules.intercepts`).
"""

from __future__ import annotations

import numpy as np

from ..core.data import Dataset
from ..core.spec import Spec
from .risk_groups import group_caps, nearest_run

__all__ = ["RiskRules"]

#: the same slack as :func:`slimwidgets.fitting.checks.check_card`, so search and re-check agree
CAP_SLACK = 1e-12


class RiskRules:
    """The caps, group-sign rules and extra costs of a spec, read for a data set."""

    def __init__(self, data: Dataset, spec: Spec):
        names = list(data.feature_names)
        index = {n: j for j, n in enumerate(names)}
        self.X = np.asarray(data.X, dtype=float)
        self.strict = spec.zero_score == "error"
        self.step = data.score_step()  # every total is a multiple of it (None: no such step)
        pos = data.y == 1
        w = np.asarray(data.weight, dtype=float)
        self.w_pos, self.w_neg = np.where(pos, w, 0.0), np.where(pos, 0.0, w)
        self.max_fpr, self.min_tpr = spec.max_fpr, spec.min_tpr
        self.total_pos, self.total_neg = float(self.w_pos.sum()), float(self.w_neg.sum())
        self.tiers = tuple(spec.tiers)
        self.groups = [np.array([index[n] for n in members]) for members in spec.groups.values()]
        self.orient = [
            np.array([-1.0 if n in spec.group_reversed else 1.0 for n in members])
            for members in spec.groups.values()
        ]
        self.group_penalty, self.rule_penalty = spec.group_penalty, spec.rule_penalty
        self.signs_agree = spec.group_signs_agree
        self.by_group = group_caps(data, spec, self.strict)  # caps and gaps between groups

    @property
    def has_caps(self) -> bool:
        return self.max_fpr is not None or self.min_tpr is not None or self.by_group is not None

    @property
    def has_extra_costs(self) -> bool:
        return len(self.tiers) > 1 or (
            bool(self.groups) and bool(self.group_penalty or self.rule_penalty)
        )

    def describe_caps(self) -> str:
        """The caps in the user's words, for messages."""
        parts = [f"max_fpr={self.max_fpr:g}"] if self.max_fpr is not None else []
        parts += [f"min_tpr={self.min_tpr:g}"] if self.min_tpr is not None else []
        parts += [self.by_group.describe()] if self.by_group is not None else []
        return " and ".join(parts)

    # -- caps ------------------------------------------------------------------------------
    def caps_ok(self, totals: np.ndarray) -> np.ndarray | bool:
        """Whether the caps hold for cards whose totals on the rows are ``totals`` (one card:
        a vector; several: one column per card)."""
        if not self.has_caps:
            return True if totals.ndim == 1 else np.ones(totals.shape[1], dtype=bool)
        positive = totals > 0 if self.strict else totals >= 0
        ok = np.ones(positive.shape[1:], dtype=bool)
        if self.max_fpr is not None:
            ok &= (self.w_neg @ positive) / self.total_neg <= self.max_fpr + CAP_SLACK
        if self.min_tpr is not None:
            ok &= (self.w_pos @ positive) / self.total_pos >= self.min_tpr - CAP_SLACK
        if self.by_group is not None:
            ok &= self.by_group.ok(positive)
        return bool(ok) if totals.ndim == 1 else ok

    def intercepts(
        self, scores: np.ndarray, low: int, high: int, near: int | None = None
    ) -> tuple[int, int] | None:
        """The intercepts in ``low..high`` at which a card with row scores ``scores`` (without
        the intercept) meets the caps, as an interval; None when there is none. Under a gap
        between groups they may form several runs: the one nearest ``near`` (else the longest)."""
        if not self.has_caps:
            return low, high

        def fpr_ok(b: int) -> bool:
            return (
                self.max_fpr is None
                or self._rate(scores + b, self.w_neg, self.total_neg) <= self.max_fpr + CAP_SLACK
            )

        def tpr_ok(b: int) -> bool:
            return (
                self.min_tpr is None
                or self._rate(scores + b, self.w_pos, self.total_pos) >= self.min_tpr - CAP_SLACK
            )

        if not (fpr_ok(low) and tpr_ok(high)):
            return None
        top = _last_true(fpr_ok, low, high)  # FPR rises with the intercept
        bottom = _first_true(tpr_ok, low, high)  # and so does TPR
        if bottom > top:
            return None
        return (
            (bottom, top)
            if self.by_group is None
            else nearest_run(self.by_group.runs(scores, bottom, top), near)
        )

    def _rate(self, totals: np.ndarray, w: np.ndarray, total: float) -> float:
        positive = totals > 0 if self.strict else totals >= 0
        return float(w @ positive) / total

    # -- points ----------------------------------------------------------------------------
    def points_ok(self, coefs: np.ndarray) -> bool:
        """Group signs agree (when asked): no group mixes oriented points of both signs."""
        if not self.signs_agree:
            return True
        for idx, orient in zip(self.groups, self.orient):
            oriented = coefs[idx] * orient
            if (oriented > 0).any() and (oriented < 0).any():
                return False
        return True

    def extra_cost(self, coefs: np.ndarray) -> float:
        """What the points cost beyond C0 per used feature: tiers above the first, groups."""
        cost = 0.0
        if len(self.tiers) > 1:
            first = self.tiers[0][1]
            for v in np.abs(coefs[coefs != 0]):
                cost += next(c for b, c in self.tiers if v <= b) - first
        for idx in self.groups:
            used = int(np.count_nonzero(coefs[idx]))
            if used:
                cost += self.group_penalty + self.rule_penalty * (used - 1)
        return cost


def _last_true(ok, low: int, high: int) -> int:
    """The largest b in low..high with ok(b), for ok true at low and false from some b on."""
    while low < high:
        mid = (low + high + 1) // 2
        if ok(mid):
            low = mid
        else:
            high = mid - 1
    return low


def _first_true(ok, low: int, high: int) -> int:
    """The smallest b in low..high with ok(b), for ok true at high and false below some b."""
    while low < high:
        mid = (low + high) // 2
        if ok(mid):
            high = mid
        else:
            low = mid + 1
    return high
