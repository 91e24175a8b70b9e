"""Fair by construction: per-group rate caps and gaps between groups.

The column that splits the rows into groups (sex, age band, site: fairlearn calls it
``sensitive_features``) lives in the :class:`~slimwidgets.core.data.Dataset`, like the
sample weights; the :class:`~slimwidgets.core.spec.Spec` holds only the bounds, so it
stays JSON and independent of the data:

``max_fpr_by_group``
    a number (the FPR of every group at most this) or ``{group: number}``.
``min_tpr_by_group``
    likewise for the TPR (at least).
``max_fpr_gap``, ``max_tpr_gap``
    the largest difference between any two groups' FPR (TPR).

Every one of them is linear in the program's per-row error indicators z_i (weighted
counts of one class's errors in a group), so each becomes a row of the integer program
and is proven like the global caps. A cap on group g is ``sum_{i in g} d_i z_i <= f D_g``
(D_g the group's weight of that class). The gap between groups a and b,
``E_a / D_a - E_b / D_b <= G``, is written times ``D_a D_b`` so that, with whole-number
weights, both sides are integers and the row is exact:
``D_b E_a - D_a E_b <= floor(G D_a D_b)``. It is the same for TPR and FPR (a TPR is one
minus the positives' error rate), one row per ordered pair.

A gap row counts some errors negatively, so a program whose z_i only had to be at least
the error indicator could claim errors it does not make to close a gap: for the rows of
the gapped class the program also gets ``z_i = 1 => row i is wrong`` (exact when every
total is a multiple of a known step, see :meth:`Dataset.score_step`).

Examples
--------
>>> import pandas as pd, slimwidgets as sw
>>> X = pd.DataFrame({"a": [1, 1, 0, 0, 1, 0, 1, 0], "b": [0, 1, 0, 1, 1, 0, 0, 1]})
>>> y = [1, 1, 0, 0, 1, 0, 0, 1]
>>> sex = pd.Series(["F", "F", "F", "F", "M", "M", "M", "M"], name="sex")
>>> card = sw.fit(X, y, sensitive_features=sex, max_tpr_gap=0.0, C0=0.01)
>>> rates = sw.group_rates(card, X, y, sex)
>>> float(rates["TPR"].max() - rates["TPR"].min())
0.0
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .data import labels_to_sign, sensitive_codes

__all__ = [
    "GROUP_OPTIONS",
    "RateRow",
    "check_group_settings",
    "rate_rows",
    "add_rate_rows",
    "group_rates",
    "group_problems",
    "dataset_rates",
    "per_group_caps",
]

#: the spec's group options (rows of the options table, core/options.py), all off (None) by
#: default and serialized only when set
GROUP_OPTIONS: tuple[str, ...] = (
    "max_fpr_by_group",
    "min_tpr_by_group",
    "max_fpr_gap",
    "max_tpr_gap",
)


def has_group_options(spec: Any) -> bool:
    return any(getattr(spec, k, None) is not None for k in GROUP_OPTIONS)


# -- the group column (core/data.py reads it: sensitive_codes) --------------------------------
def check_group_settings(data: Any, spec: Any) -> None:
    """Group options need a group column, and name only groups that exist."""
    if not has_group_options(spec):
        return
    if data.sensitive is None:
        set_ = [k for k in GROUP_OPTIONS if getattr(spec, k) is not None]
        raise ValueError(
            f"{', '.join(set_)} need sensitive_features= (the column that holds each row's group)"
        )
    import difflib

    for option in ("max_fpr_by_group", "min_tpr_by_group"):
        value = getattr(spec, option)
        if isinstance(value, Mapping):
            for g in value:
                if g not in data.sensitive_levels:
                    close = [
                        x for x in data.sensitive_levels if x.lower() == g.lower()
                    ] or difflib.get_close_matches(g, list(data.sensitive_levels), n=1)
                    raise KeyError(
                        f"{option} names the group {g!r}, which {data.sensitive_name!r} does not "
                        "hold"
                        + (f" (did you mean {close[0]!r}?)" if close else "")
                        + f"; its groups are {list(data.sensitive_levels)}"
                    )


# -- rows of the program --------------------------------------------------------------------------
@dataclass(frozen=True)
class RateRow:
    """``coef . wrong <= upper`` over the data rows' error indicators (data weights)."""

    coef: np.ndarray  # per data row; 0 for rows outside it
    upper: float
    what: str  # the setting and the groups, in words
    two_sided: bool  # some coefficient is negative


def _budget(value: float, integral: bool) -> float:
    return float(math.floor(value + 1e-9)) if integral else float(value)


def _cap_of(option: Any, label: str) -> float | None:
    if option is None:
        return None
    return option.get(label) if isinstance(option, Mapping) else float(option)


def rate_rows(data: Any, spec: Any) -> list[RateRow]:
    """Every group setting of ``spec`` as rows over ``data``'s error indicators."""
    if data.sensitive is None or not has_group_options(spec):
        return []
    integral = bool(np.all(data.weight == np.round(data.weight)))
    rows: list[RateRow] = []
    labels = data.sensitive_levels
    for cls, option, what in (
        (-1, spec.max_fpr_by_group, "max FPR"),
        (1, spec.min_tpr_by_group, "min TPR"),
    ):
        for g, label in enumerate(labels):
            share = _cap_of(option, label)
            members = (data.sensitive == g) & (data.y == cls)
            total = float(data.weight[members].sum())
            if share is None or total == 0:
                continue
            allowed = share if cls == -1 else 1.0 - share
            coef = np.where(members, data.weight, 0.0)
            rows.append(
                RateRow(
                    coef,
                    _budget(allowed * total, integral),
                    f"{what} {100 * share:.4g} % in group {label!r}",
                    False,
                )
            )
    for cls, gap, what in ((-1, spec.max_fpr_gap, "FPR"), (1, spec.max_tpr_gap, "TPR")):
        if gap is None:
            continue
        totals = [
            float(data.weight[(data.sensitive == g) & (data.y == cls)].sum())
            for g in range(len(labels))
        ]
        for a in range(len(labels)):
            for b in range(len(labels)):
                if a == b or totals[a] == 0 or totals[b] == 0:
                    continue
                in_a = (data.sensitive == a) & (data.y == cls)
                in_b = (data.sensitive == b) & (data.y == cls)
                coef = np.where(in_a, totals[b] * data.weight, 0.0) - np.where(
                    in_b, totals[a] * data.weight, 0.0
                )
                rows.append(
                    RateRow(
                        coef,
                        _budget(gap * totals[a] * totals[b], integral),
                        f"{what} gap {100 * gap:.4g} % between groups {labels[a]!r} and "
                        f"{labels[b]!r}",
                        True,
                    )
                )
    return rows


def add_rate_rows(
    b: Any,
    form_rows: list[RateRow],
    data: Any,
    box: Any,
    col_intercept: int,
    col_lambda: np.ndarray,
    col_loss: np.ndarray,
    always_wrong: np.ndarray,
    need: np.ndarray,
) -> None:
    """Add ``form_rows`` to the program builder ``b`` (see :func:`rate_rows`), and for the rows
    whose indicator a gap counts negatively, ``z_i = 1 => row i is wrong``."""
    for row in form_rows:
        open_ = np.flatnonzero((col_loss >= 0) & (row.coef != 0))
        fixed = float(row.coef[always_wrong].sum())
        b.row(col_loss[open_].tolist(), row.coef[open_].tolist(), -math.inf, row.upper - fixed)
    signed = np.zeros(data.n_rows, dtype=bool)
    for row in form_rows:
        if row.two_sided:
            signed |= row.coef != 0
    signed &= col_loss >= 0
    if not signed.any():
        return
    step = data.score_step()
    if step is None:
        raise ValueError(
            "max_fpr_gap / max_tpr_gap need totals on a grid: features with whole-number values "
            "or at most three decimals (round or binarize the others first)"
        )
    _exact_indicator_rows(
        b, data, box, col_intercept, col_lambda, col_loss, np.flatnonzero(signed), need, step
    )


def _exact_indicator_rows(
    b: Any,
    data: Any,
    box: Any,
    col_intercept: int,
    col_lambda: np.ndarray,
    col_loss: np.ndarray,
    rows: np.ndarray,
    need: np.ndarray,
    step: float,
) -> None:
    """``y_i (b0 + x_i . lambda) <= u_i + M_i (1 - z_i)``: u_i the largest multiple of ``step``
    below the margin ``need_i`` (so z_i = 1 only on a wrong row), M_i its largest excess."""
    free, lo, hi = box.free, box.lo.astype(float), box.hi.astype(float)
    const = data.X[:, box.fixed] @ box.fixed_value[box.fixed].astype(float)
    ilo, ihi = b.lower[col_intercept], b.upper[col_intercept]
    for i in rows.tolist():
        y = float(data.y[i])
        yx = y * data.X[i, free]
        best = (
            float(np.maximum(yx * lo[free], yx * hi[free]).sum())
            + max(y * ilo, y * ihi)
            + y * const[i]
        )
        u = step * math.ceil(need[i] / step - 1e-9) - step
        big = best - u
        nz = np.flatnonzero(yx)
        cols = [col_intercept] + col_lambda[np.flatnonzero(free)][nz].tolist() + [int(col_loss[i])]
        vals = [y] + yx[nz].tolist() + [big]
        b.row(cols, vals, -math.inf, u + big - y * const[i])


# -- checks and figures ---------------------------------------------------------------------------
def _rates_from_predictions(
    pred: np.ndarray, y: np.ndarray, w: np.ndarray, codes: np.ndarray, labels: tuple[str, ...]
) -> pd.DataFrame:
    rows = []
    for g, label in enumerate(labels):
        m = codes == g
        pos, neg = m & (y == 1), m & (y == -1)
        P, N = float(w[pos].sum()), float(w[neg].sum())
        tp, fp = float(w[pos & pred].sum()), float(w[neg & pred].sum())
        rows.append(
            {
                "group": label,
                "n": float(w[m].sum()),
                "positives": P,
                "negatives": N,
                "TPR": tp / P if P else math.nan,
                "FPR": fp / N if N else math.nan,
                "error": ((P - tp) + fp) / (P + N) if P + N else math.nan,
            }
        )
    return pd.DataFrame(rows)


def dataset_rates(card: Any, data: Any) -> pd.DataFrame:
    pred = np.asarray(
        card.predict(
            data.X
            if card.feature_names == data.feature_names
            else pd.DataFrame(data.X, columns=data.feature_names)
        )
    )
    pred = pred == data.positive
    return _rates_from_predictions(pred, data.y, data.weight, data.sensitive, data.sensitive_levels)


def group_rates(
    card: Any, X: Any, y: Any, sensitive_features: Any, *, sample_weight: Any = None
) -> pd.DataFrame:
    """TPR, FPR, error and weight ``n`` of ``card`` in each group of ``sensitive_features``.

    ``sensitive_features`` is a column name of ``X`` or one label per row, as for
    :func:`slimwidgets.fit`. Rates use ``sample_weight`` (default: one per row).

    Parameters
    ----------
    card : ScoringSystem
        The card to measure.
    X : DataFrame or array-like of shape (n_samples, n_features)
        Rows with the card's features.
    y : array-like of shape (n_samples,)
        The true labels.
    sensitive_features : str or array-like
        The group of each row: a column name of ``X`` or one label per row.
    sample_weight : array-like of shape (n_samples,), optional
        Row weights (default: one per row).

    Examples
    --------
    >>> import pandas as pd, slimwidgets as sw
    >>> X = pd.DataFrame({"a": [1, 0, 1, 0]})
    >>> card = sw.ScoringSystem(("a",), (1,), -1)
    >>> sw.group_rates(card, X, [1, 0, 0, 1], ["F", "F", "M", "M"])[["group", "TPR", "FPR"]]
      group  TPR  FPR
    0     F  1.0  0.0
    1     M  0.0  1.0
    """
    X, codes, labels, _ = sensitive_codes(X, sensitive_features)
    signs, positive, _neg = labels_to_sign(y, getattr(card, "positive", None))
    w = np.ones(len(signs)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    pred = np.asarray(card.predict(X)) == positive
    return _rates_from_predictions(pred, signs, w, codes, labels)


def group_problems(card: Any, data: Any, spec: Any) -> list[str]:
    """Every group setting of ``spec`` that ``card`` breaks on ``data`` (for ``check_card``)."""
    if data.sensitive is None or not has_group_options(spec):
        return []
    rates = dataset_rates(card, data).set_index("group")
    problems: list[str] = []
    for option, column, sign in (("max_fpr_by_group", "FPR", 1), ("min_tpr_by_group", "TPR", -1)):
        for label in rates.index:
            share = _cap_of(getattr(spec, option), label)
            rate = rates.loc[label, column]
            if share is not None and not math.isnan(rate) and sign * (rate - share) > 1e-12:
                problems.append(
                    f"{option} in group {label!r} ({column} {rate:.4f}, allowed {share:g})"
                )
    for option, column in (("max_fpr_gap", "FPR"), ("max_tpr_gap", "TPR")):
        gap = getattr(spec, option)
        values = rates[column].dropna()
        if gap is not None and len(values) > 1 and values.max() - values.min() > gap + 1e-12:
            problems.append(
                f"{option}={gap:g} ({column} {values.min():.4f} in {values.idxmin()!r}, "
                f"{values.max():.4f} in {values.idxmax()!r})"
            )
    return problems


# -- conflict explanation --------------------------------------------------------------------------
def per_group_caps(spec: Any, levels: tuple[str, ...]) -> Any:
    """``spec`` with a cap given for every group as one number spelled out per group (the same
    program), so that conflict explanation can drop, and name, the cap of each group."""
    changes = {
        name: {g: getattr(spec, name) for g in levels}
        for name in ("max_fpr_by_group", "min_tpr_by_group")
        if getattr(spec, name) is not None and not isinstance(getattr(spec, name), Mapping)
    }
    return spec.replace(**changes) if changes and levels else spec
