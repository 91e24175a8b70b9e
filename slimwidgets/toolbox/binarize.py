"""Turn numeric and categorical columns into readable 0/1 threshold rules (the classic binarizer).

:class:`slimwidgets.RuleBuilder` is the fuller form (round cut points, missing values, rare
levels pooled, carried inside the card); this one keeps its cut methods and directions and
applies its rules through the same definitions (:func:`slimwidgets.core.rules.rule_values`).

Scoring systems read best when every feature is a yes/no rule such as
``age >= 60``. :class:`Binarizer` learns cut points on training data (so the
very same rules apply to test data); :func:`binarize` is the one-shot form.
Columns that are already 0/1 pass through unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin

from ..core.rules import Rule, as_frame, rule_values
from ..core.variables import cut_text

__all__ = ["Binarizer", "binarize"]

_METHODS = ("quantile", "uniform")
_DIRECTIONS = ("ge", "lt", "auto", "both")


def _is_binary(col: pd.Series) -> bool:
    values = pd.unique(col.dropna())
    if pd.api.types.is_bool_dtype(col):
        return True
    if not pd.api.types.is_numeric_dtype(col):
        return False
    return len(values) > 0 and set(np.asarray(values, dtype=float).tolist()) <= {0.0, 1.0}


def _is_categorical(col: pd.Series) -> bool:
    return not (pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col))


class Binarizer(TransformerMixin, BaseEstimator):
    """Learn threshold rules per numeric column; one-hot rules per categorical column.

    Parameters
    ----------
    columns : column names to binarize; None: every column that is not already
        0/1. Columns not listed pass through unchanged.
    method : ``"quantile"`` (cut points at the 1/(k+1), ..., k/(k+1)
        quantiles, snapped to observed values) or ``"uniform"`` (k cut points
        evenly spaced between the minimum and maximum, rounded to 3
        significant digits).
    n_thresholds : k, the number of cut points per column, or ``"all"``:
        every observed value above the minimum (every rule the data can tell
        apart; fine for integer scores such as 1..10).
    direction : how each rule reads. ``"ge"``: ``x >= t`` (1 when at or above
        the cut); ``"lt"``: ``x < t``; ``"auto"``: ``x < t`` for cuts below the
        median and ``x >= t`` otherwise, so every rule flags the rarer, more
        extreme side; ``"both"``: both rules for every cut (a rule and its
        complement, for use with sign constraints).

    Attributes
    ----------
    thresholds_ : dict column -> list of cut points (numeric columns)
    categories_ : dict column -> list of categories (categorical columns)
    rules_ : list of :class:`slimwidgets.core.rules.Rule` (output name, column, kind, value)
        with kind one of ``"ge"``, ``"lt"``, ``"eq"``, ``"pass"``
    feature_names_in_, n_features_in_ : as in scikit-learn

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"age": [35, 47, 52, 61, 68, 74], "smoker": [0, 1, 0, 1, 1, 0]})
    >>> b = Binarizer(n_thresholds=2).fit(X)
    >>> b.get_feature_names_out().tolist()
    ['age >= 52', 'age >= 61', 'smoker']
    >>> b.transform(pd.DataFrame({"age": [50, 70], "smoker": [1, 0]})).to_numpy().tolist()
    [[0, 0, 1], [1, 1, 0]]
    """

    def __init__(
        self,
        columns: Sequence[str] | None = None,
        method: str = "quantile",
        n_thresholds: int | str = 3,
        direction: str = "ge",
    ) -> None:
        self.columns = columns
        self.method = method
        self.n_thresholds = n_thresholds
        self.direction = direction

    # -- fitting ---------------------------------------------------------------------------
    def _check_params(self) -> None:
        if self.method not in _METHODS:
            raise ValueError(f"method must be one of {_METHODS}, got {self.method!r}")
        if self.direction not in _DIRECTIONS:
            raise ValueError(f"direction must be one of {_DIRECTIONS}, got {self.direction!r}")
        k = self.n_thresholds
        if k != "all" and (isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1):
            raise ValueError(f"n_thresholds must be a positive integer or 'all', got {k!r}")

    def fit(self, X: pd.DataFrame, y: Any = None) -> Binarizer:
        """Learn the cut points (and categories) from ``X``; ``y`` is ignored.

        Parameters
        ----------
        X : DataFrame
            The training table.
        y : array-like, optional
            Ignored.
        """
        self._check_params()
        X = as_frame(X)
        self.feature_names_in_ = np.asarray([str(c) for c in X.columns], dtype=object)
        self.n_features_in_ = X.shape[1]
        if self.columns is None:
            chosen = [c for c in X.columns if not _is_binary(X[c])]
        else:
            cols = [self.columns] if isinstance(self.columns, str) else list(self.columns)
            missing = [c for c in cols if c not in X.columns]
            if missing:
                raise KeyError(f"columns not in X: {missing}")
            chosen = cols
        chosen_set = set(chosen)
        nan_cols = [str(c) for c in chosen if X[c].isna().any()]
        if nan_cols:
            raise ValueError(
                f"columns {nan_cols} have missing values; impute them (or add a 0/1 'missing' "
                "column) first"
            )
        self.thresholds_: dict[str, list[float]] = {}
        self.categories_: dict[str, list[Any]] = {}
        rules: list[tuple[str, Any, str, Any]] = []
        for c in X.columns:
            if c not in chosen_set:
                rules.append(Rule(str(c), c, "pass", None))
                continue
            col = X[c]
            if _is_categorical(col):
                cats = sorted(pd.unique(col), key=str)
                self.categories_[str(c)] = list(cats)
                rules += [Rule(f"{c} = {v}", c, "eq", v) for v in cats]
                continue
            values = col.to_numpy(dtype=float)
            if not np.isfinite(values).all():
                raise ValueError(f"column {c!r} has infinite values")
            cuts = self._cuts(values)
            self.thresholds_[str(c)] = cuts
            median = float(np.median(values))
            for t in cuts:
                kinds = {
                    "ge": ["ge"],
                    "lt": ["lt"],
                    "both": ["ge", "lt"],
                    "auto": ["lt" if t <= median else "ge"],
                }[self.direction]
                for kind in kinds:
                    op = ">=" if kind == "ge" else "<"
                    rules.append(Rule(f"{c} {op} {cut_text(t)}", c, kind, t))
        names = [r[0] for r in rules]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"binarized names clash: {dupes}; rename the columns involved")
        self.rules_ = rules
        return self

    def _cuts(self, values: np.ndarray) -> list[float]:
        distinct = np.unique(values)
        if distinct.size < 2:
            return []  # a constant column carries no rule
        if self.n_thresholds == "all":
            return [float(v) for v in distinct[1:]]
        k = int(self.n_thresholds)
        if self.method == "quantile":
            qs = np.quantile(values, [(i + 1) / (k + 1) for i in range(k)], method="nearest")
            # snap to observed values; a cut at the minimum would make a constant rule
            cuts = sorted({float(q) for q in qs if q > distinct[0]})
            if not cuts:
                cuts = [float(distinct[1])]
            return cuts
        lo, hi = float(distinct[0]), float(distinct[-1])
        raw = [lo + (hi - lo) * (i + 1) / (k + 1) for i in range(k)]
        cuts = sorted({_round_sig(v, 3) for v in raw})
        return [t for t in cuts if lo < t <= hi]

    # -- transforming ----------------------------------------------------------------------
    def transform(self, X: pd.DataFrame) -> pd.DataFrame:
        """Apply the learned rules: a DataFrame of 0/1 (int8) columns, same index as ``X``.

        Parameters
        ----------
        X : DataFrame
            Rows with the columns the binarizer was fitted on.
        """
        if not hasattr(self, "rules_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError("this Binarizer is not fitted yet; call fit first")
        X = as_frame(X)
        needed = list(dict.fromkeys(r[1] for r in self.rules_))
        missing = [str(c) for c in needed if c not in X.columns]
        if missing:
            raise KeyError(f"X lacks columns the binarizer was fit on: {missing}")
        out = {}
        for rule in self.rules_:
            col = X[rule.column]
            if (
                rule.kind in ("ge", "lt") and col.isna().any()
            ):  # sw.RuleBuilder gives them a rule of their own
                raise ValueError(f"column {rule.column!r} has missing values")
            out[rule.name] = rule_values(rule, col)
        return pd.DataFrame(out, index=X.index)

    def get_feature_names_out(self, input_features: Iterable[str] | None = None) -> np.ndarray:
        """Names of the output columns, in order.

        Parameters
        ----------
        input_features : iterable of str, optional
            Accepted for scikit-learn's interface and not used.
        """
        if not hasattr(self, "rules_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError("this Binarizer is not fitted yet; call fit first")
        return np.asarray([r[0] for r in self.rules_], dtype=object)


def _round_sig(v: float, digits: int) -> float:
    if v == 0:
        return 0.0
    return float(round(v, digits - 1 - int(math.floor(math.log10(abs(v))))))


def binarize(
    X: Any,
    columns: Sequence[str] | None = None,
    method: str = "quantile",
    n_thresholds: int | str = 3,
    direction: str = "ge",
) -> pd.DataFrame:
    """Binarize ``X`` in one step (see :class:`Binarizer` for the options).

    Use :class:`Binarizer` instead when test data must get the same cut points.

    Parameters
    ----------
    X : DataFrame
        The table to binarize.
    columns : sequence of str, optional
        The columns to binarize, as for :class:`Binarizer`.
    method : str, default "quantile"
        How cut points are placed, as for :class:`Binarizer`.
    n_thresholds : int or "all", default 3
        Cut points per column, as for :class:`Binarizer`.
    direction : str, default "ge"
        How each rule reads, as for :class:`Binarizer`.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"age": [35, 47, 52, 61, 68, 74], "sex": ["F", "M", "F", "M", "F", "F"]})
    >>> binarize(X, n_thresholds=1).columns.tolist()
    ['age >= 52', 'sex = F', 'sex = M']
    >>> binarize(X, columns=["age"], n_thresholds="all", direction="auto").columns.tolist()[:3]
    ['age < 47', 'age < 52', 'age >= 61']
    """
    return Binarizer(
        columns=columns, method=method, n_thresholds=n_thresholds, direction=direction
    ).fit_transform(X)
