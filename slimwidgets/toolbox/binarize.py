"""The classic binarizer, kept as a preset of :class:`slimwidgets.RuleBuilder` (deprecated).

:class:`slimwidgets.RuleBuilder` is the rule builder ``fit`` uses (round cut points, missing
values, rare levels pooled, carried inside the card). :class:`Binarizer` is that builder with the
classic cut methods (quantiles snapped to observed values, or evenly spaced), rule directions
(``x < t`` as well as ``x >= t``) and pass-through of 0/1 columns; it fits, applies and names its
rules as the builder does. Both it and :func:`binarize` warn that they are deprecated.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..core.rules import Rule, RuleBuilder, as_frame, is_binary
from ..core.variables import cut_text

__all__ = ["Binarizer", "binarize"]

_METHODS = ("quantile", "uniform")
_DIRECTIONS = ("ge", "lt", "auto", "both")
#: what the deprecation warning says
DEPRECATED = (
    "sw.Binarizer and sw.binarize are deprecated: use sw.RuleBuilder, the rule builder sw.fit "
    "uses (RuleBuilder(n_cuts=3), or cuts={column: [...]} for cut points of your own)"
)


def _is_categorical(col: pd.Series) -> bool:
    return not (pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col))


class Binarizer(RuleBuilder):
    """Deprecated: :class:`slimwidgets.RuleBuilder` with the classic cuts and rule directions.

    Learns threshold rules per numeric column and one rule per category of a categorical
    column; 0/1 columns (and columns not in ``columns``) pass through unchanged. Fitting,
    applying and naming rules are :class:`~slimwidgets.RuleBuilder`'s; constructing one warns
    with a :class:`DeprecationWarning` naming it.

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
    >>> import warnings
    >>> import pandas as pd
    >>> X = pd.DataFrame({"age": [35, 47, 52, 61, 68, 74], "smoker": [0, 1, 0, 1, 1, 0]})
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", DeprecationWarning)
    ...     b = Binarizer(n_thresholds=2).fit(X)
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
        warnings.warn(DEPRECATED, DeprecationWarning, stacklevel=2)
        super().__init__(min_count=1, missing="error")
        self.columns = columns
        self.method = method
        self.n_thresholds = n_thresholds
        self.direction = direction

    def get_params(self, deep: bool = True) -> dict:
        """The settings, as scikit-learn's ``get_params``.

        Parameters
        ----------
        deep : bool, default True
            Accepted for scikit-learn's signature; there are no nested estimators.
        """
        return {k: getattr(self, k) for k in ("columns", "method", "n_thresholds", "direction")}

    # -- fitting ---------------------------------------------------------------------------
    def _check_classic_params(self) -> None:
        if self.method not in _METHODS:
            raise ValueError(f"method must be one of {_METHODS}, got {self.method!r}")
        if self.direction not in _DIRECTIONS:
            raise ValueError(f"direction must be one of {_DIRECTIONS}, got {self.direction!r}")
        k = self.n_thresholds
        if k != "all" and (isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1):
            raise ValueError(f"n_thresholds must be a positive integer or 'all', got {k!r}")

    def _chosen_columns(self, X: pd.DataFrame) -> list:
        if self.columns is None:
            return [c for c in X.columns if not is_binary(X[c])]
        cols = [self.columns] if isinstance(self.columns, str) else list(self.columns)
        missing = [c for c in cols if c not in X.columns]
        if missing:
            raise KeyError(f"columns not in X: {missing}")
        return cols

    def fit(self, X: Any, y: Any = None) -> Binarizer:
        """Learn the cut points (and categories) from ``X``.

        Parameters
        ----------
        X : DataFrame
            The training table.
        y : array-like, optional
            Ignored.
        """
        self._check_classic_params()
        X = as_frame(X)
        chosen = self._chosen_columns(X)
        nan_cols = [str(c) for c in chosen if X[c].isna().any()]
        if nan_cols:
            raise ValueError(
                f"columns {nan_cols} have missing values; impute them (or add a 0/1 'missing' "
                "column) first"
            )
        self._chosen = {str(c) for c in chosen}
        self.thresholds_: dict[str, list[float]] = {}
        self.categories_: dict[str, list[Any]] = {}
        super().fit(X, y)
        return self

    def _column_rules(self, name: str, col: pd.Series, cuts: list[float] | None) -> list[Rule]:
        """The classic rules of one column (the builder's own step, replaced in this preset)."""
        if name not in self._chosen:
            return [Rule(name, name, "pass", None)]
        if _is_categorical(col):
            cats = sorted(pd.unique(col), key=str)
            self.categories_[name] = list(cats)
            return [Rule(f"{name} = {v}", name, "eq", v) for v in cats]
        values = col.to_numpy(dtype=float)
        if not np.isfinite(values).all():
            raise ValueError(f"column {name!r} has infinite values")
        self.thresholds_[name] = cuts = self._cuts(values)
        median = float(np.median(values))
        kinds = {"ge": ["ge"], "lt": ["lt"], "both": ["ge", "lt"]}
        return [
            Rule(f"{name} {'>=' if kind == 'ge' else '<'} {cut_text(t)}", name, kind, t)
            for t in cuts
            for kind in kinds.get(self.direction, ["lt" if t <= median else "ge"])
        ]

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
    def transform(self, X: Any, warn: bool = True) -> pd.DataFrame:
        """Apply the learned rules: a DataFrame of 0/1 (int8) columns, same index as ``X``.

        0/1 columns pass through as they are; a missing value in a cut column is an error.

        Parameters
        ----------
        X : DataFrame
            The table to transform, with the training table's columns.
        warn : bool, default True
            Accepted for the builder's signature (nothing here is left to warn about).
        """
        self._check_fitted()
        X = as_frame(X)
        lookup = {str(c): c for c in X.columns}
        for rule in self.rules_:
            col = X[lookup[rule.column]] if rule.column in lookup else None
            if rule.kind in ("ge", "lt") and col is not None and col.isna().any():
                raise ValueError(f"column {rule.column!r} has missing values")
        return super().transform(X, warn=False)


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
    """Binarize ``X`` in one step (deprecated: see :class:`Binarizer` for the options).

    Use :class:`slimwidgets.RuleBuilder` instead: it is the rule builder ``fit`` uses, and it
    gives test data the same cut points.

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
    >>> import warnings
    >>> import pandas as pd
    >>> X = pd.DataFrame({"age": [35, 47, 52, 61, 68, 74], "sex": ["F", "M", "F", "M", "F", "F"]})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     B = binarize(X, n_thresholds=1)
    ...     auto = binarize(X, columns=["age"], n_thresholds="all", direction="auto")
    >>> B.columns.tolist(), auto.columns.tolist()[:3]
    (['age >= 52', 'sex = F', 'sex = M'], ['age < 47', 'age < 52', 'age >= 61'])
    >>> {w.category.__name__ for w in caught}
    {'DeprecationWarning'}
    """
    warnings.warn(DEPRECATED, DeprecationWarning, stacklevel=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # warned once, above
        binarizer = Binarizer(
            columns=columns, method=method, n_thresholds=n_thresholds, direction=direction
        )
    return binarizer.fit_transform(X)
