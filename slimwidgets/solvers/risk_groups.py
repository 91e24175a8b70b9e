"""Per-group caps and gaps for risk cards: the check, the intercepts, the master's rows.

A risk card decides as a decision card does: positive where its risk is at least 50 %, i.e.
where its total ``intercept + x . points`` is ``>= 0`` (``> 0`` under ``zero_score="error"``).
The group settings of :mod:`slimwidgets.core.groups` (``max_fpr_by_group``,
``min_tpr_by_group``, ``max_fpr_gap``, ``max_tpr_gap``) hold for those predictions on the
training rows, weighted by the sample weights, exactly as the global caps do
(:mod:`slimwidgets.solvers.risk_rules`). Three users read them:

* the search and the walk ask :meth:`GroupCaps.ok` of every card (or of many at once);
* the search asks :meth:`GroupCaps.runs` where to put a card's intercept: a group cap is
  monotone in the intercept (raising it predicts more rows positive), a gap is not, so the
  intercepts that meet them form runs, found over the few intercepts at which a prediction
  flips;
* the cutting-plane master (:mod:`slimwidgets.solvers.risk_bound`) gets them as rows
  (:func:`add_group_rows`): one binary per row, 1 exactly where the card predicts positive,
  and the rows of :func:`slimwidgets.core.groups.rate_rows` on them. With integer points
  (``scale=False``) on data whose totals move in steps they are exact; otherwise a
  relaxation, so the bound stays valid.

Examples
--------
>>> import numpy as np
>>> from slimwidgets.core.data import prepare_data
>>> from slimwidgets.core.spec import make_spec
>>> data = prepare_data(np.array([[2.0], [0.0], [1.0], [0.0]]), [1, 0, 1, 0],
...                     sensitive_features=["F", "F", "M", "M"], warn=False)
>>> caps = group_caps(data, make_spec(loss="logistic", max_tpr_gap=0.0), strict=False)
>>> caps.runs(data.X @ np.array([1.0]), -4, 3)  # TPR 1 in both groups, or 0 in both: not at -2
[(-4, -3), (-1, 3)]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..core.groups import has_group_options, rate_rows

__all__ = ["GroupCaps", "group_caps", "add_group_rows"]

#: the slack of :func:`slimwidgets.core.groups.group_problems`, so search and re-check agree
RATE_SLACK = 1e-12


class GroupCaps:
    """The group settings of a spec, read for a data set (rows in the data's order)."""

    def __init__(self, data: Any, spec: Any, strict: bool):
        self.strict = strict
        self.labels = tuple(data.sensitive_levels)
        w = np.asarray(data.weight, dtype=float)
        # one row per (class, group): the share of that class in that group each data row carries
        shares, self.kinds = [], []
        for cls in (-1, 1):
            for g in range(len(self.labels)):
                members = (np.asarray(data.sensitive) == g) & (np.asarray(data.y) == cls)
                total = float(w[members].sum())
                shares.append(np.where(members, w, 0.0) / total if total > 0 else np.zeros(w.size))
                self.kinds.append((cls, g, total > 0))
        self.share = np.array(shares)  # (2 G, n): FPR rows first, then TPR rows
        self.fpr_caps = self._caps(spec.max_fpr_by_group)
        self.tpr_floors = self._caps(spec.min_tpr_by_group)
        self.fpr_gap, self.tpr_gap = spec.max_fpr_gap, spec.max_tpr_gap
        self.spec = spec
        self.y = np.asarray(data.y, dtype=float)
        self.rate_rows = rate_rows(data, spec)  # the same settings as rows over the rows' errors

    def _caps(self, option: float | Mapping[str, float] | None) -> np.ndarray:
        """Per group the bound (nan: none, or a group without rows of that class)."""
        out = np.full(len(self.labels), np.nan)
        if option is None:
            return out
        for g, label in enumerate(self.labels):
            value = option.get(label) if isinstance(option, Mapping) else option
            if value is not None:
                out[g] = float(value)
        return out

    def describe(self) -> str:
        """The settings in the user's words, for messages."""
        parts = []
        for name in ("max_fpr_by_group", "min_tpr_by_group", "max_fpr_gap", "max_tpr_gap"):
            value = getattr(self.spec, name)
            if value is not None:
                parts.append(
                    f"{name}={value!r}" if isinstance(value, Mapping) else f"{name}={value:g}"
                )
        return " and ".join(parts)

    # -- the check -----------------------------------------------------------------------------
    def ok_rates(self, rates: np.ndarray) -> np.ndarray:
        """Whether the settings hold, per column of ``rates`` (2 G rows: FPR by group, then TPR)."""
        G = len(self.labels)
        fpr, tpr = rates[:G], rates[G:]
        present = np.array([k[2] for k in self.kinds])
        has_neg, has_pos = present[:G], present[G:]
        ok = np.ones(rates.shape[1], dtype=bool)
        caps = ~np.isnan(self.fpr_caps) & has_neg
        if caps.any():
            ok &= (fpr[caps] <= self.fpr_caps[caps, None] + RATE_SLACK).all(axis=0)
        floors = ~np.isnan(self.tpr_floors) & has_pos
        if floors.any():
            ok &= (tpr[floors] >= self.tpr_floors[floors, None] - RATE_SLACK).all(axis=0)
        for gap, values, present_ in ((self.fpr_gap, fpr, has_neg), (self.tpr_gap, tpr, has_pos)):
            if gap is not None and present_.sum() > 1:
                chosen = values[present_]
                ok &= chosen.max(axis=0) - chosen.min(axis=0) <= gap + RATE_SLACK
        return ok

    def ok(self, positive: np.ndarray) -> np.ndarray | bool:
        """Whether the settings hold for cards whose predictions on the rows are ``positive``
        (one card: a vector; several: one column per card)."""
        columns = positive.reshape(positive.shape[0], -1).astype(float)
        ok = self.ok_rates(self.share @ columns)
        return bool(ok[0]) if positive.ndim == 1 else ok

    # -- the intercepts ----------------------------------------------------------------------------
    def runs(self, scores: np.ndarray, low: int, high: int) -> list[tuple[int, int]]:
        """The intercepts in ``low..high`` at which a card with row scores ``scores`` (without
        the intercept) meets the settings, as runs ``(first, last)`` in increasing order.

        Predictions change only where some row's total crosses zero, so the rates are read at
        those intercepts (and one either side, against rounding) and are constant between."""
        if low > high:
            return []
        values, where = np.unique(scores, return_inverse=True)
        flips = np.ceil(-values)
        cands = np.unique(np.concatenate([[low], flips - 1, flips, flips + 1]))
        cands = cands[(cands >= low) & (cands <= high)]
        totals = values[:, None] + cands[None, :]  # the same sums caps_ok makes on each row
        predicted = totals > 0 if self.strict else totals >= 0
        merged = np.zeros((self.share.shape[0], values.size))
        np.add.at(merged.T, where, self.share.T)
        feasible = self.ok_rates(merged @ predicted.astype(float))
        ends = np.append(cands[1:] - 1, high)
        out: list[tuple[int, int]] = []
        for first, last, good in zip(
            cands.astype(int).tolist(), ends.astype(int).tolist(), feasible.tolist()
        ):
            if not good:
                continue
            if out and out[-1][1] == first - 1:
                out[-1] = (out[-1][0], last)
            else:
                out.append((first, last))
        return out


def nearest_run(runs: list[tuple[int, int]], near: int | None) -> tuple[int, int] | None:
    """The run holding ``near`` or nearest to it; without ``near``, the longest run."""
    if not runs:
        return None
    if near is None:
        return max(runs, key=lambda r: r[1] - r[0])
    return min(
        runs, key=lambda r: 0 if r[0] <= near <= r[1] else min(abs(near - r[0]), abs(near - r[1]))
    )


def group_caps(data: Any, spec: Any, strict: bool) -> GroupCaps | None:
    """The spec's group settings on ``data``, or None when it sets none."""
    if getattr(data, "sensitive", None) is None or not has_group_options(spec):
        return None
    return GroupCaps(data, spec, strict)


def add_group_rows(h: Any, prob: Any, reach: np.ndarray, intercept_reach: float) -> None:
    """The group settings as rows of the cutting-plane master ``h`` (HiGHS; columns: points
    ``0..d-1``, intercept ``d``).

    A binary ``p_i`` per row that a setting counts, tied to the row's total ``T_i`` both ways
    (``M_i``: the largest |total| in the box; ``s``: the data's step with integer points, else 0):
    ``p_i = 0 => T_i <= -s`` and ``p_i = 1 => T_i >= 0`` (under ``zero_score="error"``:
    ``T_i <= 0`` and ``T_i >= s``). A row's error is ``p_i`` for a negative and ``1 - p_i``
    for a positive, and each rate row of :func:`~slimwidgets.core.groups.rate_rows` caps a
    weighted sum of errors. With ``s`` the data's step the binaries are exactly the card's
    predictions; with ``s = 0`` (a real multiplier, or no step) every card still satisfies
    the rows, so the master stays a relaxation."""
    import highspy

    rules, d = prob.rules, prob.n_features
    rows = rules.by_group.rate_rows
    if not rows:
        return
    X, y = rules.X, rules.by_group.y
    step = rules.step if not prob.scale and rules.step is not None else 0.0
    below, above = (
        (0.0, step) if rules.strict else (step, 0.0)
    )  # p = 0: T <= -below; p = 1: T >= above
    counted = np.flatnonzero(np.any([r.coef != 0 for r in rows], axis=0))
    big = np.abs(X) @ reach + intercept_reach + 1.0
    first = h.getNumCol()
    h.addVars(counted.size, np.zeros(counted.size), np.ones(counted.size))
    h.changeColsIntegrality(
        counted.size,
        np.arange(first, first + counted.size, dtype=np.int32),
        np.ones(counted.size, dtype=np.uint8),
    )
    inf = highspy.kHighsInf
    cols = np.append(np.arange(d + 1), 0).astype(np.int32)
    for k, i in enumerate(counted.tolist()):
        cols[-1] = first + k
        h.addRow(
            -inf, -below, d + 2, cols, np.append(X[i], [1.0, -(big[i] + below)])
        )  # T - (M + b) p <= -b
        h.addRow(
            -big[i], inf, d + 2, cols, np.append(X[i], [1.0, -(big[i] + above)])
        )  # T - (M + a) p >= -M
    picks = np.arange(first, first + counted.size, dtype=np.int32)
    sign = np.where(y[counted] > 0, -1.0, 1.0)  # error = p (negative) or 1 - p (positive)
    for r in rows:
        c = r.coef[counted]
        fixed = float(c[y[counted] > 0].sum())
        slack = 1e-9 * float(np.abs(c).sum())  # a hair looser than the check: still a relaxation
        h.addRow(-inf, r.upper - fixed + slack, counted.size, picks, sign * c)
