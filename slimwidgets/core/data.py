"""Validate a data set and compress it into the form the optimizer needs.

The integer program has one loss variable per *distinct* (x, y) row, so rows
that repeat are collapsed into a single row with a weight (binary medical data
has few distinct rows: the paper's mammo set goes from 961 rows to 146).
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "Dataset",
    "DataWarning",
    "prepare_data",
    "prepare_features",
    "labels_to_sign",
    "outcome_values",
    "refuse_time_to_event",
    "sensitive_codes",
    "group_column_apart",
]


class DataWarning(UserWarning):
    """Something in the data is suspicious but usable (constant or duplicate columns)."""


@dataclass(frozen=True, eq=False)
class Dataset:
    """A validated training set, with duplicate rows collapsed into weights.

    Attributes
    ----------
    feature_names : tuple of str
        Column names, in the order of ``X``.
    X : ndarray of shape (n_rows, n_features)
        The distinct rows (float64).
    y : ndarray of shape (n_rows,)
        +1 for the positive class, -1 for the negative class.
    weight : ndarray of shape (n_rows,)
        Total sample weight of each distinct row (a count when unweighted).
    n_samples : int
        Number of rows before collapsing.
    positive, negative : label values
        The original labels of the two classes.
    integer_valued, binary : ndarray of bool, per feature
        Whether each feature takes only integer values, and only 0 and 1.
    outcome : str, optional
        The name of the outcome (``y``'s name), used to word the positive class.
    sensitive : ndarray of int, optional
        Each distinct row's group code (None when no ``sensitive_features`` were given).
    sensitive_levels : tuple of str, default ()
        The groups' labels, in code order.
    sensitive_name : str, optional
        The name of the group column.
    """

    feature_names: tuple[str, ...]
    X: np.ndarray
    y: np.ndarray
    weight: np.ndarray
    n_samples: int
    positive: Any
    negative: Any
    integer_valued: np.ndarray = field(repr=False)
    binary: np.ndarray = field(repr=False)
    outcome: str | None = None
    # -- group fairness (core/groups.py): each distinct row's group code, the groups'
    #    labels and the column's name; None when no sensitive_features were given
    sensitive: np.ndarray | None = field(default=None, repr=False)
    sensitive_levels: tuple[str, ...] = ()
    sensitive_name: str | None = None

    @property
    def positive_name(self) -> str:
        """How the card names its predicted class.

        The label, or the outcome column's name when the labels are just 1/True (a Series
        named "malignant" gives "malignant").
        """
        if self.outcome is not None and self.positive in (1, True):
            return self.outcome
        return str(self.positive)

    @property
    def n_rows(self) -> int:
        """The number of rows of ``X`` (after collapsing)."""
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        """The number of feature columns."""
        return len(self.feature_names)

    @property
    def total_weight(self) -> float:
        """The sum of the row weights."""
        return float(self.weight.sum())

    def class_weight_total(self, sign: int) -> float:
        """The sum of the weights of the rows whose label is ``sign`` (+1 or -1).

        Parameters
        ----------
        sign : int
            +1 for the positive class, -1 for the negative class.
        """
        return float(self.weight[self.y == sign].sum())

    def default_margin(self) -> float:
        """The margin gamma of the loss constraints (paper, sec. 2.1).

        With integer-valued features every score is an integer, so gamma = 1
        makes "y * score >= gamma" exactly "y * score > 0". With values that
        have at most three decimals the scores are multiples of 10^-k and
        gamma = 10^-k is still exact. Otherwise we use the paper's 0.1.
        """
        step = self.score_step()
        return 0.1 if step is None else step

    def score_step(self) -> float | None:
        """The step every total score is a multiple of (1 or 10^-k), None when there is none.

        A margin in (0, step] makes the loss count exactly the misclassified rows, so a
        bound on the loss is a bound on errors (:mod:`slimwidgets.core.status` relies on it).
        """
        if bool(np.all(self.integer_valued)):
            return 1.0
        for k in (1, 2, 3):
            scaled = self.X * 10**k
            if np.all(np.abs(scaled - np.round(scaled)) < 1e-9 * np.maximum(1.0, np.abs(scaled))):
                return 10.0**-k
        return None


def feature_names_of(columns: Sequence[Any]) -> tuple[str, ...]:
    """Columns as feature names (strings), refused when two are the same."""
    names = tuple(str(c) for c in columns)
    dupes = sorted(n for n, k in Counter(names).items() if k > 1)
    if dupes:
        raise ValueError(f"duplicate feature names: {dupes}; every column needs its own name")
    return names


def prepare_features(
    X: Any, feature_names: Sequence[str] | None = None
) -> tuple[np.ndarray, tuple[str, ...]]:
    """Check that ``X`` is a non-empty, finite, numeric table; return (matrix, names)."""
    if isinstance(X, pd.DataFrame):
        if feature_names is not None and tuple(map(str, X.columns)) != tuple(
            map(str, feature_names)
        ):
            raise ValueError("feature_names given together with a DataFrame whose columns differ")
        names = feature_names_of(X.columns)
        bad = [
            str(c)
            for c in X.columns
            if not (pd.api.types.is_numeric_dtype(X[c]) or pd.api.types.is_bool_dtype(X[c]))
        ]
        complex_cols = [str(c) for c in X.columns if pd.api.types.is_complex_dtype(X[c])]
        if complex_cols:
            raise TypeError(
                f"complex-valued columns: {complex_cols}; scoring systems need real-valued features"
            )
        if bad:
            raise TypeError(
                f"non-numeric columns: {bad}; encode them as numbers first (e.g. one 0/1 column "
                "per category), or turn the table into rules with sw.RuleBuilder (sw.fit "
                "does so unless rules=False)"
            )
        try:
            matrix = X.to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"X could not be converted to numbers: {exc}") from None
    else:
        raw = np.asarray(X)
        if np.iscomplexobj(raw):
            raise TypeError("X holds complex numbers; scoring systems need real-valued features")
        if raw.dtype.kind in "USO" and any(isinstance(v, (str, bytes)) for v in raw.ravel()):
            raise TypeError(
                "X holds text; encode it as numbers first (numeric strings are not parsed)"
            )
        try:
            matrix = np.asarray(raw, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                "X must be numeric (a DataFrame of numeric/bool columns or a numeric array)"
            ) from None
        if matrix.ndim != 2:
            raise ValueError(f"X must be 2-dimensional, got shape {matrix.shape}")
        if feature_names is None:
            names = tuple(f"x{j}" for j in range(matrix.shape[1]))
        else:
            names = feature_names_of(feature_names)
            if len(names) != matrix.shape[1]:
                raise ValueError(f"{len(names)} feature names for {matrix.shape[1]} columns")
    if matrix.shape[0] == 0:
        raise ValueError("X has no rows")
    if matrix.shape[1] == 0:
        raise ValueError("X has no columns")
    finite = np.isfinite(matrix)
    if not finite.all():
        cols = [names[j] for j in np.flatnonzero(~finite.all(axis=0))]
        count = int((~finite).sum())
        raise ValueError(
            f"X has {count} missing or infinite values, in columns {cols}; impute or drop them "
            "first, or give missing values a rule of their own with sw.RuleBuilder (sw.fit "
            "does so unless rules=False)"
        )
    return matrix, names


def outcome_values(y: Any) -> np.ndarray:
    """``y`` as a 1-D array of two classes, or a ValueError whose one sentence says what is
    supported and what to do: for a time-to-event outcome (a structured array such as
    scikit-survival's ``Surv``), missing labels, a continuous outcome and more than two classes.

    >>> outcome_values([0, 1, 1]).tolist()
    [0, 1, 1]
    >>> outcome_values([0.2, 1.7, 3.1])  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ValueError: y holds 3 distinct numbers such as 0.2, 1.7, 3.1, a continuous outcome; a card
    predicts one of two classes: give a yes/no y, e.g. y >= a clinically meaningful cut-off
    """
    values = y.to_numpy() if isinstance(y, (pd.Series, pd.Index)) else np.asarray(y)
    refuse_time_to_event(values)
    if values.ndim == 2 and values.shape[1] == 1:
        values = values[:, 0]
    if values.ndim != 1:
        raise ValueError(f"y must be one-dimensional, got shape {values.shape}")
    if values.size == 0:
        raise ValueError("y is empty")
    missing = int(pd.isna(values).sum())
    if missing:
        raise ValueError(
            f"y has {missing} missing value{'s' if missing > 1 else ''}; a card learns from "
            "labelled rows only: drop those rows from X and y (e.g. keep = y.notna())"
        )
    classes = pd.unique(values)
    if len(classes) > 2:
        shown = ", ".join(_label_text(c) for c in classes[:3])
        if _continuous(values):
            raise ValueError(
                f"y holds {len(classes)} distinct numbers such as {shown}, a continuous outcome; a "
                "card predicts one of two classes: give a yes/no y, e.g. y >= a clinically "
                "meaningful cut-off"
            )
        raise ValueError(
            f"y has {len(classes)} classes ({shown}{', ...' if len(classes) > 3 else ''}); a card "
            "separates two classes: fit one class against the rest (e.g. y == 'A') or merge "
            "the classes into two"
        )
    return values


def refuse_time_to_event(values: np.ndarray) -> None:
    """A ValueError saying what to do when ``values`` is a structured array (a time-to-event
    outcome such as scikit-survival's ``Surv``) that reached a fit of two classes: numpy's own
    error there ("ufunc 'isnan' not supported") says nothing."""
    if values.dtype.names is not None:
        raise ValueError(
            f"y is a structured array with fields {list(values.dtype.names)}, a time-to-event "
            "outcome, which this fit of two classes does not take: sw.fit(X, y) makes a "
            "time-to-event card from it (loss='cox')"
        )


def _label_text(value: Any) -> str:
    value = python_scalar(value)
    return f"{value:g}" if isinstance(value, float) else repr(value)


def _continuous(values: np.ndarray) -> bool:
    """Numbers that are not all whole (a measurement, not class codes)."""
    return values.dtype.kind == "f" and not bool(np.all(values == np.round(values)))


def labels_to_sign(y: Any, positive: Any = None) -> tuple[np.ndarray, Any, Any]:
    """Map two-valued labels to +1/-1. Returns (signs, positive label, negative label).

    Without ``positive``, the larger of the two sorted labels is positive (1
    for 0/1 or -1/+1 labels, True for booleans), as scikit-learn does.
    """
    values = outcome_values(y)
    classes = [python_scalar(c) for c in pd.unique(values)]
    if len(classes) < 2:
        raise ValueError(
            f"y has only one class ({classes[0]!r}); a classifier needs examples of both classes"
        )
    if len({isinstance(c, str) for c in classes}) > 1:
        raise ValueError(
            f"y mixes text and non-text labels {classes}; give both classes the same type"
        )
    try:
        classes = sorted(classes)
    except TypeError:
        classes = sorted(classes, key=str)
    if positive is None:
        positive = classes[1]
    matches = [c for c in classes if c == positive]
    if not matches:
        raise ValueError(f"positive={positive!r} is not one of the labels {list(classes)}")
    positive = matches[0]
    negative = classes[0] if classes[1] == positive else classes[1]
    signs = np.where(values == positive, 1, -1).astype(np.int8)
    return signs, python_scalar(positive), python_scalar(negative)


def python_scalar(value: Any) -> Any:
    """numpy scalars -> Python scalars, so labels serialize to JSON."""
    return value.item() if isinstance(value, np.generic) else value


def prepare_data(
    X: Any,
    y: Any,
    *,
    positive: Any = None,
    sample_weight: Any = None,
    feature_names: Sequence[str] | None = None,
    warn: bool = True,
    collapse: bool = True,
    sensitive_features: Any = None,
) -> Dataset:
    """Validate ``X, y`` and collapse duplicate rows.

    Raises a ``ValueError``/``TypeError`` that names the problem for NaN/inf,
    non-numeric columns, empty data, one-class or multi-class labels and
    length mismatches; warns (``DataWarning``) about constant and duplicate
    columns, which are legal but never useful. ``collapse=False`` keeps every
    row as its own loss variable (slower, same optimum; for checking).

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_samples, n_features)
        Numeric features.
    y : array-like of shape (n_samples,)
        Two-class labels.
    positive : label value, optional
        Which label is the positive class (default: the larger of the two sorted labels).
    sample_weight : array-like of shape (n_samples,), optional
        Row weights (default: one per row).
    feature_names : sequence of str, optional
        Names for the columns of an array (default: a DataFrame's columns, or ``x0``, ``x1``, ...).
    warn : bool, default True
        Whether to warn about constant and duplicate columns.
    collapse : bool, default True
        Whether to merge identical rows into one weighted row.
    sensitive_features : str or array-like, optional
        The group of each row: a column name of ``X`` or one label per row.

    Examples
    --------
    >>> import pandas as pd
    >>> d = prepare_data(pd.DataFrame({"a": [1, 1, 0, 0]}), [1, 1, 0, 1])
    >>> d.n_samples, d.n_rows
    (4, 3)

    ``sensitive_features`` (a column name of ``X`` or one group label per row, see
    :mod:`slimwidgets.core.groups`) gives every row a group; rows of different groups are
    never collapsed together.
    """
    groups = None
    if sensitive_features is not None:
        X, codes, levels, group_name = sensitive_codes(X, sensitive_features)
        groups = codes
    matrix, names = prepare_features(X, feature_names)
    signs, pos, neg = labels_to_sign(y, positive)
    if len(signs) != matrix.shape[0]:
        raise ValueError(f"X has {matrix.shape[0]} rows but y has {len(signs)} labels")
    if sample_weight is None:
        weights = np.ones(len(signs))
    else:
        weights = np.asarray(sample_weight, dtype=np.float64).ravel()
        if weights.shape != signs.shape:
            raise ValueError(f"sample_weight has {weights.size} values for {len(signs)} rows")
        if not np.isfinite(weights).all() or (weights < 0).any():
            raise ValueError("sample_weight must be finite and non-negative")
        if weights[signs == 1].sum() <= 0 or weights[signs == -1].sum() <= 0:
            raise ValueError("sample_weight gives one class zero total weight")
    if warn:
        _warn_about_columns(matrix, names)
    # Collapse identical (x, y) rows: one loss variable each, weighted by count.
    keyed = np.column_stack([matrix, signs] if groups is None else [matrix, groups, signs])
    keep = weights > 0
    if collapse:
        uniq, summed = _distinct_rows(keyed[keep], weights[keep])
    else:
        uniq, summed = keyed[keep], weights[keep]
    n_keys = 1 if groups is None else 2
    Xd = np.ascontiguousarray(uniq[:, :-n_keys])
    integer = np.all(matrix == np.round(matrix), axis=0)
    binary = np.all((matrix == 0) | (matrix == 1), axis=0)
    return Dataset(
        feature_names=names,
        X=Xd,
        y=uniq[:, -1].astype(np.int8),
        weight=summed,
        n_samples=int(matrix.shape[0]),
        positive=pos,
        negative=neg,
        integer_valued=integer,
        binary=binary,
        outcome=None if getattr(y, "name", None) is None else str(y.name),
        sensitive=None if groups is None else uniq[:, -2].astype(np.int64),
        sensitive_levels=() if groups is None else levels,
        sensitive_name=None if groups is None else group_name,
    )


def _distinct_rows(keyed: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``keyed`` in ascending order (first column first), and the summed
    ``weights`` of each: ``np.unique(keyed, axis=0)`` and its weights, summed in the same order,
    from one stable sort by column instead of a sort of whole rows (mushroom's 8,124 rows of 113
    values: ~0.4 s down to a few hundredths).

    >>> _distinct_rows(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]), np.array([1.0, 2.0, 3.0]))
    (array([[0., 1.],
           [1., 0.]]), array([2., 4.]))
    """
    if keyed.shape[0] == 0:
        return keyed[:0], np.zeros(0)
    order = np.lexsort(keyed.T[::-1])  # the last key is the first column: rows in ascending order
    ordered = keyed[order]
    starts = np.ones(len(ordered), dtype=bool)
    starts[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
    group = np.cumsum(starts) - 1
    return ordered[starts], np.bincount(group, weights=weights[order], minlength=int(starts.sum()))


def _warn_about_columns(matrix: np.ndarray, names: tuple[str, ...]) -> None:
    constant = [names[j] for j in range(matrix.shape[1]) if np.all(matrix[:, j] == matrix[0, j])]
    if constant:
        warnings.warn(
            f"constant columns carry no information and will never be used: {constant}",
            DataWarning,
            stacklevel=3,
        )
    seen, dupes = set(), []
    for j in range(
        matrix.shape[1]
    ):  # a column's values as bytes (-0.0 read as 0.0), each looked up once
        key = (matrix[:, j] + 0.0).tobytes()
        if key in seen:
            dupes.append(names[j])
        seen.add(key)
    if dupes:
        warnings.warn(
            f"columns identical to an earlier column (only one of each can matter): {dupes}",
            DataWarning,
            stacklevel=3,
        )


def group_column_apart(X: Any, sensitive_features: Any) -> tuple[Any, Any]:
    """A group column named in ``X`` taken out before ``X`` becomes rules: (``X``, the column as a
    Series). A text column is the group only, not a feature, and leaves ``X``; a numeric one stays
    (``exclude`` can keep it off the card). Anything else comes back as it is.

    Examples
    --------
    >>> X = pd.DataFrame({"age": [50, 70], "sex": ["F", "M"]})
    >>> rest, groups = group_column_apart(X, "sex")
    >>> list(rest.columns), list(groups)
    (['age'], ['F', 'M'])
    """
    if not (
        isinstance(sensitive_features, str)
        and isinstance(X, pd.DataFrame)
        and sensitive_features in X.columns
    ):
        return X, sensitive_features
    column = X[sensitive_features]
    if not pd.api.types.is_numeric_dtype(column):
        X = X.drop(columns=[sensitive_features])
    return X, column


def sensitive_codes(
    X: Any, sensitive_features: Any
) -> tuple[Any, np.ndarray, tuple[str, ...], str]:
    """(X to use as features, group code per row, group labels, column name).

    ``sensitive_features`` is a column of ``X`` (kept as a feature when it is numeric, so
    ``exclude`` can keep the card from using it; dropped when it is text) or a Series /
    array with one label per row. Labels are compared as text.
    """
    name = "group"
    if isinstance(sensitive_features, str):
        if not isinstance(X, pd.DataFrame) or sensitive_features not in X.columns:
            raise KeyError(f"sensitive_features={sensitive_features!r} is not a column of X")
        name = sensitive_features
        column = X[sensitive_features]
        if not (pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column)):
            X = X.drop(columns=[sensitive_features])
        values = column.to_numpy()
    else:
        name = str(getattr(sensitive_features, "name", None) or "group")
        values = (
            sensitive_features.to_numpy()
            if isinstance(sensitive_features, (pd.Series, pd.Index))
            else np.asarray(sensitive_features)
        )
        if values.ndim != 1:
            raise ValueError(f"sensitive_features must be one column, got shape {values.shape}")
    n = len(X) if hasattr(X, "__len__") else np.asarray(X).shape[0]
    if len(values) != n:
        raise ValueError(f"sensitive_features has {len(values)} values for {n} rows")
    missing = pd.isna(values)
    if missing.any():
        raise ValueError(
            f"sensitive_features ({name!r}) has {int(missing.sum())} missing values; "
            "give them a group of their own (e.g. 'unknown') first"
        )
    text = np.array([str(v) for v in values], dtype=object)
    labels, codes = np.unique(text, return_inverse=True)
    if len(labels) < 2:
        raise ValueError(
            f"sensitive_features ({name!r}) has one group only ({labels[0]!r}); "
            "group constraints need at least two"
        )
    return X, codes.astype(np.int64).ravel(), tuple(str(v) for v in labels), name
