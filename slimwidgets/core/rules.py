"""Variables in, 0/1 rules out: the one place that knows a variable from a rule.

A user thinks in variables (age, BMI, sex); the engine works on 0/1 rules (``age >= 60``,
``bmi missing``, ``sex = F``). :class:`RuleBuilder` learns the rules on training rows, turns
any raw table into them (``transform``), travels inside the card, and tells the card how to
print its points by variable (:meth:`RuleBuilder.points_table`).

What a rule counts for is the same in pandas, in the Python export and in the SQL export:

* a threshold rule (``age >= 50``) holds when the value is present and at or above the cut;
* a level rule (``sex = F``) holds when the value equals the level; the ``other`` rule of a
  variable holds for every present value that is not one of its kept levels, so levels
  pooled for being rare *and* levels never seen in training count as ``other``;
* a missing value satisfies only its variable's ``missing`` rule (so, without one, it scores
  0 points for that variable).
"""

from __future__ import annotations

import inspect
import math
import numbers
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ..datasets import RULES_ATTR
from .constraints import at_least
from .data import DataWarning
from .formatting import plain
from .variables import LEVEL_TYPES, cut_text, variable_bands

__all__ = [
    "Rule",
    "RuleBuilder",
    "KINDS",
    "needs_rules",
    "human_cut",
    "significant_digits",
    "MAX_SHIFT",
    "SMALL_SCALE",
    "rule_values",
    "build_rules",
    "options_by_variable",
    "rules_from_options",
    "read_rule",
    "as_frame",
    "is_binary",
]

#: What each kind of rule tests; ``pass`` copies a column as it is (a 0/1 or count feature).
KINDS = ("ge", "lt", "eq", "other", "is", "missing", "pass")
#: Steps of a human cut point: 1, 2, 2.5 or 5 times a power of ten (coarsest tried first).
_STEPS = (5.0, 2.5, 2.0, 1.0)
#: The most a rounded cut may move its rule's share of rows (from the quantile's), when no round
#: number lies within the builder's ``tolerance``: a cut with none that close is left out.
MAX_SHIFT = 0.05
#: Whole numbers spanning at most this many consecutive values form a scale (a 0-10 or 1-10
#: rating, a count of 0-10, a grade of 1-4): their cut points are the scale's own values.
SMALL_SCALE = 11


class Rule(NamedTuple):
    """One 0/1 rule: its name on the card, the column (variable) it reads, its kind, its value
    (the cut, the level, the kept levels of ``other``; None for ``is``/``missing``/``pass``)."""

    name: str
    column: str
    kind: str
    value: Any


def needs_rules(X: Any) -> bool:
    """True when ``X`` is a DataFrame of variables, not of 0/1 rules: a column with values other
    than 0/1 (measurements, counts, scales, 1/2 codes, text, categories, dates) or a missing
    value. False for a 2-D array (features as given, as scikit-learn pipelines pass them) and for
    a frame whose ``attrs[RULES_ATTR]`` is False: the paper's processed tables carry that
    (:func:`slimwidgets.datasets.load`), so fits on them keep the paper's raw-number cards.

    >>> needs_rules(pd.DataFrame({"a": [0, 1]})), needs_rules(pd.DataFrame({"a": [0, None]}))
    (False, True)
    >>> needs_rules(pd.DataFrame({"glucose": [91.0, 128.0, 142.0]}))
    True
    """
    if not isinstance(X, pd.DataFrame) or X.attrs.get(RULES_ATTR, True) is False or not len(X):
        return False
    return not all(is_binary(X[c]) and not X[c].isna().any() for c in X.columns)


def _share_at_or_above(ordered: np.ndarray, cut: float) -> float:
    return float(len(ordered) - np.searchsorted(ordered, cut, side="left")) / len(ordered)


def significant_digits(x: float) -> str:
    """The significant digits of ``x`` as written in decimal (``1250.0`` -> ``"125"``).

    >>> significant_digits(1250.0), significant_digits(0.3), significant_digits(137.5)
    ('125', '3', '1375')
    """
    mantissa = f"{abs(x):.12e}".split("e")[0].replace(".", "")
    return mantissa.rstrip("0") or "0"


def _written_by_a_person(x: float, third: bool) -> bool:
    """At most two significant digits (140, 25, 0.3, 1200); with ``third``, a third that is a 5
    (135, 1250; 137.5 has four)."""
    digits = significant_digits(x)
    return len(digits) <= 2 or (third and len(digits) == 3 and digits[-1] == "5")


def _round_candidates(lo: float, hi: float, q: float, whole: bool) -> list[float]:
    """Cut points near ``q`` a person writes, roundest first: multiples of 5, 2.5, 2 and 1 times
    a power of ten, from the data's scale down to the third significant digit of ``q``; the two
    multiples of each step around ``q``, nearer first. Every one lies in ``(lo, hi]``."""
    top = math.floor(math.log10(max(hi - lo, abs(q), 1e-12)))
    lowest = math.floor(math.log10(max(abs(q), (hi - lo) * 1e-3, 1e-12))) - 2
    out: list[float] = []
    for exponent in range(top, (max(0, lowest) if whole else lowest) - 1, -1):
        for mult in _STEPS:
            step = mult * 10.0**exponent
            for n in sorted(
                {math.floor(q / step), math.ceil(q / step)}, key=lambda n: abs(n * step - q)
            ):
                cut = float(round(n * step, max(0, -exponent + 1)))
                if lo < cut <= hi and not (whole and not cut.is_integer()) and cut not in out:
                    out.append(cut)
    return out


def human_cut(
    ordered: np.ndarray, q: float, tolerance: float, max_shift: float = MAX_SHIFT
) -> float | None:
    """The roundest cut near ``q`` a person writes: at most two significant digits (140, 25, 0.3,
    1200) whose rule ``x >= cut`` holds for a share of ``ordered`` (sorted, non-missing values)
    within ``tolerance`` of the share ``x >= q`` holds for; else a third significant digit of 5
    (135, 1250) within ``tolerance``; else the one of these that moves the share least, if by
    at most ``max_shift``; else None (no round cut near ``q``). Whole-number data get whole cuts.

    >>> v = np.sort(np.array([31.2, 38.9, 44.1, 47.5, 49.6, 51.3, 58.8, 61.7, 66.4, 72.0]))
    >>> human_cut(v, 49.6, 0.02)
    48.0
    """
    lo, hi = float(ordered[0]), float(ordered[-1])
    target = _share_at_or_above(ordered, q)
    whole = bool(
        np.all(ordered == np.round(ordered))
    )  # whole numbers (ages, counts) get whole cuts
    candidates = _round_candidates(lo, hi, q, whole)
    shift = {c: abs(_share_at_or_above(ordered, c) - target) for c in candidates}
    for third in (False, True):
        for cut in candidates:
            if _written_by_a_person(cut, third) and shift[cut] <= tolerance:
                return cut
    bound = max(max_shift, tolerance)
    allowed = [c for c in candidates if _written_by_a_person(c, True) and shift[c] <= bound]
    return min(allowed, key=lambda c: (shift[c], abs(c - q))) if allowed else None


def _is_small_scale(ordered: np.ndarray) -> bool:
    """Whole numbers spanning at most :data:`SMALL_SCALE` consecutive values (ages 34-80 do not)."""
    return bool(ordered[-1] - ordered[0] < SMALL_SCALE and np.all(ordered == np.round(ordered)))


def _scale_cuts(ordered: np.ndarray, levels: Sequence[float]) -> list[float]:
    """Cut points of a small scale: its values above the lowest, every one when there are no more
    than ``levels``, else for each quantile level the value whose rule ``x >= value`` holds for
    the share of rows nearest ``1 - level`` (each value of a scale holds many rows: rounding
    across values would move a rule by a whole step).

    >>> _scale_cuts(np.sort(np.array([0, 0, 1, 1, 2, 3] * 5, dtype=float)), [0.25, 0.5, 0.75])
    [1.0, 2.0, 3.0]
    >>> _scale_cuts(np.arange(1.0, 11.0).repeat(3), [0.25, 0.5, 0.75])
    [3.0, 6.0, 8.0]
    """
    values = np.unique(ordered)[1:]
    if len(values) <= len(levels):
        return [float(v) for v in values]
    shares = np.array([_share_at_or_above(ordered, v) for v in values])
    return sorted({float(values[np.argmin(np.abs(shares - (1 - level)))]) for level in levels})


def is_binary(values: pd.Series) -> bool:
    """Non-missing values all 0/1 (or booleans)."""
    present = values.dropna()
    if pd.api.types.is_bool_dtype(values) or (
        len(present) and all(isinstance(v, (bool, np.bool_)) for v in present)
    ):
        return True
    if not pd.api.types.is_numeric_dtype(present):
        return False
    return len(present) > 0 and set(np.asarray(pd.unique(present), dtype=float).tolist()) <= {
        0.0,
        1.0,
    }


def _column_type(name: str, col: pd.Series) -> str:
    """``"binary"``, ``"number"`` or ``"category"``; a clear error for dates, complex numbers,
    mixed text and numbers and other objects, naming the column."""
    if pd.api.types.is_datetime64_any_dtype(col) or pd.api.types.is_timedelta64_dtype(col):
        raise TypeError(
            f"column {name!r} holds dates or times; turn it into a number first "
            "(e.g. age in years, days since admission) or drop it"
        )
    if pd.api.types.is_complex_dtype(col):
        raise TypeError(f"column {name!r} holds complex numbers; scoring systems need real values")
    if is_binary(col):
        return "binary"
    if isinstance(col.dtype, pd.CategoricalDtype):
        return "category"
    if pd.api.types.is_numeric_dtype(col):
        return "number"
    # pandas reads the values' kinds in C: all text, or all numbers, needs no look at each value
    inferred = pd.api.types.infer_dtype(col, skipna=True)
    if inferred == "string":
        return "category"
    if inferred in ("integer", "floating", "mixed-integer-float"):
        return "number"
    example: dict[str, Any] = {}  # the first value of each kind, for the message
    for v in col.dropna():
        example.setdefault(_value_kind(v), v)
    kinds = set(example)
    if kinds <= {"number"}:
        return "number"
    if kinds <= {"text"}:
        return "category"
    if any(k in kinds for k in ("Timestamp", "datetime", "date", "time", "Timedelta")):
        raise TypeError(
            f"column {name!r} holds dates or times; turn it into a number first or drop it"
        )
    shown = ", ".join(repr(example[k]) for k in sorted(kinds)[:3])
    raise TypeError(
        f"column {name!r} mixes values of different types ({', '.join(sorted(kinds))}; "
        f"e.g. {shown}); make it all numbers or all text"
    )


def _value_kind(v: Any) -> str:
    if isinstance(v, str):
        return "text"
    if isinstance(v, (bool, np.bool_)):
        return "bool"
    return "number" if isinstance(v, numbers.Real) else type(v).__name__


class RuleBuilder:
    """Learn readable 0/1 rules from a raw table; apply them to new rows (scikit-learn style).

    Numbers get threshold rules ``x >= cut`` at cut points a person writes, near the quantiles:
    at most two significant digits (140, 25, 0.3, 1200), a third only when it is a 5 and no
    two-digit number is close enough (135, 1250; never 137.5), whole for whole-number data
    (:func:`human_cut`). Rounding moves a rule's share of rows by at most ``tolerance`` where
    such a number exists, else by at most :data:`MAX_SHIFT` (5 %); a quantile with no round
    number that close gives no cut. The user's own ``cuts`` are kept exactly. Text, categorical and
    boolean columns get one rule per level, levels seen fewer than ``min_count`` times pooled
    into one named ``other`` rule (which also takes levels first seen at predict time). Every
    column with a missing value gets a rule ``"<column> missing"``. Columns of 0/1 values stay
    one rule each, named by the column.

    Parameters
    ----------
    cuts : dict column -> list of cut points, used as given (rules ``x >= cut``).
    n_cuts : how many candidate cut points per numeric column (at the 1/(k+1) ... k/(k+1)
        quantiles, before rounding); fewer when rounding merges some.
    min_count : levels seen fewer times are pooled into ``other``.
    tolerance : how far (a share of rows) rounding may move a rule before a third significant
        digit or a larger move (up to :data:`MAX_SHIFT`) is tried; at least 1/n.
    missing : ``"rule"`` (a missing-value rule per column that has any) or ``"error"``.

    Attributes
    ----------
    rules_ : list of :class:`Rule`, the output columns in order
    feature_names_in_, n_features_in_ : as in scikit-learn
    integer_ : dict column -> whether every value seen was a whole number (for printing bands)
    pooled_ : dict column -> levels pooled into ``other``

    Examples
    --------
    >>> X = pd.DataFrame({"age": [34, 41, 47, 52, 58, 63, 66, 71, 76, 80],
    ...                   "sex": ["F", "M", "F", "M", "F", "F", "M", "F", "M", "F"],
    ...                   "bmi": [22.1, None, 31.4, 27.0, 24.8, None, 29.3, 33.9, 26.2, 21.7]})
    >>> b = RuleBuilder(n_cuts=2, min_count=2).fit(X)
    >>> b.get_feature_names_out().tolist()
    ['age >= 50', 'age >= 60', 'sex = F', 'sex = M', 'bmi >= 25', 'bmi >= 30', 'bmi missing']
    >>> b.transform(pd.DataFrame({"age": [55], "sex": ["M"], "bmi": [None]})).iloc[0].tolist()
    [1, 0, 0, 1, 0, 0, 1]
    """

    def __init__(
        self,
        cuts: Mapping[str, Sequence[float]] | None = None,
        n_cuts: int = 3,
        min_count: int = 5,
        tolerance: float = 0.02,
        missing: str = "rule",
    ) -> None:
        self.cuts = cuts
        self.n_cuts = n_cuts
        self.min_count = min_count
        self.tolerance = tolerance
        self.missing = missing

    # scikit-learn's clone and Pipeline read and set the parameters through these
    def get_params(self, deep: bool = True) -> dict:
        """The settings, as scikit-learn's ``get_params`` (``deep`` is accepted and unused).

        Parameters
        ----------
        deep : bool, default True
            Accepted for scikit-learn's interface; the builder holds no
            estimators, so it changes nothing.
        """
        return {
            k: getattr(self, k) for k in ("cuts", "n_cuts", "min_count", "tolerance", "missing")
        }

    def set_params(self, **params: Any) -> RuleBuilder:
        """Change settings by name, as scikit-learn's ``set_params``; returns the builder.

        Parameters
        ----------
        **params
            Settings by name (``cuts``, ``n_cuts``, ``min_count``, ``tolerance``,
            ``missing``); another name raises ``ValueError``.
        """
        for k, v in params.items():
            if k not in self.get_params():
                raise ValueError(f"RuleBuilder has no parameter {k!r}")
            setattr(self, k, v)
        return self

    def __sklearn_tags__(self):
        """A transformer that takes missing values, text and categories (scikit-learn >= 1.6)."""
        from sklearn.utils import InputTags, Tags, TargetTags, TransformerTags

        return Tags(
            estimator_type=None,
            target_tags=TargetTags(required=False),
            transformer_tags=TransformerTags(),
            input_tags=InputTags(allow_nan=True, string=True, categorical=True),
        )

    def __repr__(self) -> str:
        # the defaults of this class's own signature, so a preset prints its own settings
        defaults = {k: p.default for k, p in inspect.signature(type(self)).parameters.items()}
        changed = {k: v for k, v in self.get_params().items() if v != defaults.get(k)}
        settings = ", ".join(f"{k}={v!r}" for k, v in changed.items())
        return f"{type(self).__name__}({settings})"

    def _check_params(self, columns: Sequence[str]) -> dict[str, list[float]]:
        k = self.n_cuts
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"n_cuts must be a whole number >= 1, got {k!r}")
        if (
            isinstance(self.min_count, bool)
            or not isinstance(self.min_count, (int, np.integer))
            or self.min_count < 1
        ):
            raise ValueError(f"min_count must be a whole number >= 1, got {self.min_count!r}")
        if not 0 <= self.tolerance < 0.5:
            raise ValueError(
                f"tolerance must be a share of rows in [0, 0.5), got {self.tolerance!r}"
            )
        if self.missing not in ("rule", "error"):
            raise ValueError(f"missing must be 'rule' or 'error', got {self.missing!r}")
        cuts: dict[str, list[float]] = {}
        for name, values in (self.cuts or {}).items():
            if str(name) not in columns:
                raise KeyError(f"cuts names column {name!r}, which is not in X")
            values = [values] if isinstance(values, numbers.Real) else list(values)  # type: ignore[list-item]
            if not values or not all(
                isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v)
                for v in values
            ):
                raise ValueError(
                    f"cuts for {name!r} must be a list of finite numbers, got {values!r}"
                )
            cuts[str(name)] = sorted({float(v) for v in values})
        return cuts

    # -- fitting ---------------------------------------------------------------------------
    def fit(self, X: Any, y: Any = None) -> RuleBuilder:
        """Learn the rules from the training rows ``X`` (``y`` is ignored).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_rows, n_columns)
            The raw training table: numeric, text, boolean and missing values.
        y : array-like, optional
            Ignored (the rules do not depend on the outcome).
        """
        X = as_frame(X)
        columns = [str(c) for c in X.columns]
        if len(set(columns)) != len(columns):
            raise ValueError(
                f"duplicate column names: {sorted({c for c in columns if columns.count(c) > 1})}"
            )
        cuts = self._check_params(columns)
        self.feature_names_in_ = np.asarray(columns, dtype=object)
        self.n_features_in_ = len(columns)
        self.integer_: dict[str, bool] = {}
        self.pooled_: dict[str, list] = {}
        rules: list[Rule] = []
        for name, c in zip(columns, X.columns):
            rules += self._column_rules(name, X[c], cuts.get(name))
        names = [r.name for r in rules]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"rule names clash: {dupes}; rename the columns involved")
        self.rules_ = rules
        return self

    def _column_rules(self, name: str, col: pd.Series, cuts: list[float] | None) -> list[Rule]:
        n_missing = int(col.isna().sum())
        if n_missing == len(col):
            warnings.warn(
                f"column {name!r} is missing in every row: it gives no rule",
                DataWarning,
                stacklevel=4,
            )
            return []
        if n_missing and self.missing == "error":
            raise ValueError(f"column {name!r} has {n_missing} missing values (missing='error')")
        kind = "number" if cuts is not None else _column_type(name, col)
        if cuts is not None and not (
            pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)
        ):
            raise TypeError(f"cuts are given for column {name!r}, which is not numeric")
        if kind == "binary":
            present = col.dropna().astype(float)
            rules = [Rule(name, name, "is", None)] if present.nunique() == 2 else []
        elif kind == "number":
            rules = self._threshold_rules(name, col, cuts)
        else:
            rules = self._level_rules(name, col)
        if not rules and not n_missing and col.nunique() <= 1:
            warnings.warn(
                f"column {name!r} has a single value: it gives no rule", DataWarning, stacklevel=4
            )
        if n_missing:
            rules.append(Rule(f"{name} missing", name, "missing", None))
        return rules

    def _threshold_rules(self, name: str, col: pd.Series, cuts: list[float] | None) -> list[Rule]:
        values = pd.to_numeric(col, errors="raise").dropna().to_numpy(dtype=float)
        if not np.isfinite(values).all():
            raise ValueError(f"column {name!r} has infinite values; cap them or set them missing")
        ordered = np.sort(values)
        self.integer_[name] = bool(np.all(ordered == np.round(ordered)))
        if cuts is None:
            cuts = self._human_cuts(ordered)
            if not cuts and ordered[0] < ordered[-1]:
                warnings.warn(
                    f"column {name!r} has no round cut point that moves a quantile's share of "
                    f"rows by at most {MAX_SHIFT:.0%}: it gives no rule; give its cut points "
                    "(cuts=)",
                    DataWarning,
                    stacklevel=5,
                )
        else:
            outside = [c for c in cuts if not ordered[0] < c <= ordered[-1]]
            if outside:
                warnings.warn(
                    f"cuts {[cut_text(c) for c in outside]} for {name!r} lie outside its "
                    f"training values ({cut_text(ordered[0])} to {cut_text(ordered[-1])}): their "
                    "rules would be constant and are left out",
                    DataWarning,
                    stacklevel=5,
                )
            cuts = [c for c in cuts if c not in outside]
        self.integer_[name] = self.integer_[name] and all(float(c).is_integer() for c in cuts)
        return [Rule(f"{name} >= {cut_text(c)}", name, "ge", float(c)) for c in cuts]

    def _human_cuts(self, ordered: np.ndarray) -> list[float]:
        if ordered[0] == ordered[-1]:
            return []
        k = int(self.n_cuts)
        levels = [(i + 1) / (k + 1) for i in range(k)]
        if _is_small_scale(ordered):
            return _scale_cuts(ordered, levels)
        tolerance = max(float(self.tolerance), 1.0 / len(ordered))
        qs = np.quantile(ordered, levels)
        return sorted({human_cut(ordered, float(q), tolerance) for q in qs} - {None})

    def _level_rules(self, name: str, col: pd.Series) -> list[Rule]:
        # counted first, then made plain: one call per level, not per row
        counts = {plain(v): int(k) for v, k in col.dropna().value_counts(sort=False).items()}
        levels = sorted(
            counts, key=lambda v: (str(type(v)), v) if not isinstance(v, str) else ("", v)
        )
        kept = [v for v in levels if counts[v] >= self.min_count]
        pooled = [v for v in levels if counts[v] < self.min_count]
        rules = [Rule(f"{name} = {v}", name, "eq", plain(v)) for v in kept]
        if pooled:
            self.pooled_[name] = [plain(v) for v in pooled]
            label = (
                f"{name} = other" if "other" not in [str(v) for v in kept] else f"{name} = (other)"
            )
            rules.append(Rule(label, name, "other", tuple(plain(v) for v in kept)))
        if len(kept) == 1 and not pooled:
            return []  # one level and nothing else: a constant
        return rules

    # -- applying --------------------------------------------------------------------------
    def _check_fitted(self) -> None:
        if not hasattr(self, "rules_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit first")

    def transform(self, X: Any, warn: bool = True) -> pd.DataFrame:
        """The rules on the rows of ``X``: a DataFrame of 0/1 (int8) columns, same index.

        ``warn``: a :class:`~slimwidgets.DataWarning` names the columns whose missing values
        or new levels no rule covers (they score 0 points for their variable).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_rows, n_columns)
            Raw rows with the columns the builder was fitted on.
        warn : bool, default True
            Whether to warn about values no rule covers.
        """
        self._check_fitted()
        X = as_frame(X)
        lookup = {str(c): c for c in X.columns}
        needed = list(dict.fromkeys(r.column for r in self.rules_))
        absent = [c for c in needed if c not in lookup]
        if absent:
            raise KeyError(f"X lacks columns the rules were fit on: {absent}")
        memos: dict[
            str, dict
        ] = {}  # per column: its missing values, numbers and levels, found once
        out = {
            r.name: rule_values(r, X[lookup[r.column]], memos.setdefault(r.column, {}))
            for r in self.rules_
        }
        if warn:
            self._warn_uncovered(X, lookup)
        frame = pd.DataFrame(out, index=X.index)
        return frame if out else pd.DataFrame(index=X.index)

    def _warn_uncovered(self, X: pd.DataFrame, lookup: dict) -> None:
        for column in dict.fromkeys(r.column for r in self.rules_):
            mine = [r for r in self.rules_ if r.column == column]
            col = X[lookup[column]]
            if col.isna().any() and not any(r.kind == "missing" for r in mine):
                warnings.warn(
                    f"column {column!r} has {int(col.isna().sum())} missing values and training "
                    f"had none: they score 0 points for {column!r}",
                    DataWarning,
                    stacklevel=4,
                )
            levels = [r.value for r in mine if r.kind == "eq"]
            if levels and not any(r.kind == "other" for r in mine):
                new = sorted(
                    {
                        str(v)
                        for v in pd.unique(col.dropna())
                        if not any(v == level for level in levels)
                    }
                )
                if new:
                    warnings.warn(
                        f"column {column!r} has levels not seen in training {new[:5]}: "
                        f"they score 0 points for {column!r}",
                        DataWarning,
                        stacklevel=4,
                    )

    def fit_transform(self, X: Any, y: Any = None) -> pd.DataFrame:
        """Fit on ``X`` and return its 0/1 rule columns.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_rows, n_columns)
            The raw training table.
        y : array-like, optional
            Ignored (the rules do not depend on the outcome).
        """
        return self.fit(X, y).transform(X, warn=False)

    def get_feature_names_out(self, input_features: Iterable[str] | None = None) -> np.ndarray:
        """Names of the output columns (the rules), in order.

        Parameters
        ----------
        input_features : iterable of str, optional
            Accepted for scikit-learn's interface and not used: the names
            come from the fitted rules.
        """
        self._check_fitted()
        return np.asarray([r.name for r in self.rules_], dtype=object)

    def set_output(self, *, transform: str | None = None) -> RuleBuilder:
        """Output is always a DataFrame (accepted for scikit-learn's ``set_output``).

        Parameters
        ----------
        transform : str, optional
            Accepted for scikit-learn's interface (``"pandas"``, ``"default"``); the
            output stays a DataFrame.
        """
        return self

    # -- by variable -----------------------------------------------------------------------
    def variable_of(self, rule_name: str) -> str | None:
        """The column a rule reads (None for a name that is not one of the rules).

        Parameters
        ----------
        rule_name : str
            The name of a rule (an output column).
        """
        return next((r.column for r in getattr(self, "rules_", ()) if r.name == rule_name), None)

    def rules_of(self, variable: str) -> list[str]:
        """The names of a variable's rules, in order.

        Parameters
        ----------
        variable : str
            A column of the raw table.
        """
        return [r.name for r in getattr(self, "rules_", ()) if r.column == variable]

    def points_table(
        self, points: Mapping[str, int]
    ) -> list[tuple[str, tuple[tuple[str, int], ...]]]:
        """The card by variable, for the variables whose rules carry points.

        ``[(variable, ((band or level, points), ...)), ...]``, in the order of the columns.

        Parameters
        ----------
        points : mapping of str to int
            The points of each rule, by rule name.

        Examples
        --------
        >>> b = RuleBuilder(cuts={"age": [50, 60]}).fit(pd.DataFrame({"age": [40, 55, 70, 65]}))
        >>> b.points_table({"age >= 50": 1, "age >= 60": 2})
        [('age', (('< 50', 0), ('50–59', 1), ('≥ 60', 3)))]
        """
        out = []
        for column in dict.fromkeys(r.column for r in self.rules_):
            mine = [r for r in self.rules_ if r.column == column]
            if any(points.get(r.name, 0) for r in mine):
                out.append(
                    (
                        column,
                        variable_bands(
                            mine,
                            points,
                            self.integer_.get(column, False),
                            self.pooled_.get(column, []),
                        ),
                    )
                )
        return out

    # -- JSON ------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        """The fitted rules as JSON-ready data (the card keeps them: see :meth:`from_dict`)."""
        self._check_fitted()
        return {
            "params": {
                **self.get_params(),
                "cuts": None
                if self.cuts is None
                else {
                    str(k): [float(v) for v in ([vs] if isinstance(vs, numbers.Real) else vs)]
                    for k, vs in self.cuts.items()
                },
            },
            "columns": list(self.feature_names_in_),
            "rules": [
                [r.name, r.column, r.kind, list(r.value) if isinstance(r.value, tuple) else r.value]
                for r in self.rules_
            ],
            "integer": dict(self.integer_),
            "pooled": {k: list(v) for k, v in self.pooled_.items()},
        }

    @classmethod
    def from_dict(cls, d: Any) -> RuleBuilder:
        """A fitted builder from :meth:`to_dict`'s output; ``ValueError`` naming what is wrong.

        Parameters
        ----------
        d : dict
            The JSON object :meth:`to_dict` returned.
        """
        if (
            not isinstance(d, dict)
            or not isinstance(d.get("rules"), list)
            or not isinstance(d.get("columns"), list)
        ):
            raise ValueError("rules must be an object with 'columns' and 'rules' lists")
        params = d.get("params") or {}
        if not isinstance(params, dict) or set(params) - set(cls().get_params()):
            raise ValueError("rules.params must be an object of RuleBuilder parameters")
        builder = cls(**params)
        if not all(isinstance(c, str) for c in d["columns"]):
            raise ValueError("rules.columns must be a list of strings")
        builder.feature_names_in_ = np.asarray(d["columns"], dtype=object)
        builder.n_features_in_ = len(d["columns"])
        builder.rules_ = [read_rule(r, d["columns"]) for r in d["rules"]]
        integer, pooled = d.get("integer") or {}, d.get("pooled") or {}
        if not isinstance(integer, dict) or not all(isinstance(v, bool) for v in integer.values()):
            raise ValueError("rules.integer must map columns to true/false")
        if not isinstance(pooled, dict) or not all(isinstance(v, list) for v in pooled.values()):
            raise ValueError("rules.pooled must map columns to lists of levels")
        builder.integer_, builder.pooled_ = dict(integer), {k: list(v) for k, v in pooled.items()}
        return builder


def rule_values(rule: Rule, col: pd.Series, memo: dict | None = None) -> pd.Series:
    """Where ``rule`` holds on the raw column ``col`` (0/1, int8): the one definition that the
    Python and SQL exports repeat. ``memo`` (a dict per column, empty at first) keeps what every
    rule of the column reads (its missing values, numbers, levels) for the next rule.

    Level rules test each distinct value once (:func:`pandas.factorize`), not each row: the same
    answers, in C over the rows."""
    memo = {} if memo is None else memo
    if "missing" not in memo:
        memo["missing"] = col.isna().to_numpy()
    missing = memo["missing"]
    if rule.kind == "missing":
        held = missing
    elif rule.kind == "pass":
        if missing.any():
            raise ValueError(f"column {rule.column!r} has missing values")
        return col
    elif rule.kind in ("ge", "lt"):
        values = memo.get("numbers")
        if values is None:
            values = memo["numbers"] = pd.to_numeric(
                col.where(~col.isna(), np.nan), errors="coerce"
            ).to_numpy(dtype=float)
        bad = ~missing & np.isnan(values)
        if bad.any():
            raise ValueError(
                f"column {rule.column!r} has values that are not numbers, e.g. {col[bad].iloc[0]!r}"
            )
        with np.errstate(invalid="ignore"):
            held = (values >= rule.value) if rule.kind == "ge" else (values < rule.value)
        held = held & ~missing
    else:
        if "levels" not in memo:
            memo["levels"] = pd.factorize(col)  # a missing value gets code -1
        codes, uniques = memo["levels"]
        held = np.append(np.array([_level_holds(rule, v) for v in uniques], dtype=bool), False)[
            codes
        ]
        held = held & ~missing
    return pd.Series(held.astype(np.int8), index=col.index)


def _level_holds(rule: Rule, v: Any) -> bool:
    """Whether an ``is``, ``eq`` or ``other`` rule holds for the value ``v``."""
    if _missing(v):
        return False
    if rule.kind == "is":
        return bool(v == 1)
    if rule.kind == "eq":
        return bool(v == rule.value)
    return not any(v == level for level in rule.value)  # other: none of the kept levels


def _missing(v: Any) -> bool:
    """None, NaN, NaT and pd.NA are missing (the Python export's test, exactly)."""
    if v is None:
        return True
    try:
        return bool(v != v)
    except TypeError:  # pd.NA refuses to be a truth value
        return True


def as_frame(X: Any) -> pd.DataFrame:
    """``X`` as a DataFrame: a Series becomes one column, an array gets columns ``x0, x1, ...``."""
    if isinstance(X, pd.DataFrame):
        return X
    if isinstance(X, pd.Series):
        return X.to_frame()
    arr = np.asarray(X)
    if arr.ndim != 2:
        raise ValueError(f"X must be 2-dimensional, got shape {arr.shape}")
    return pd.DataFrame(arr, columns=[f"x{j}" for j in range(arr.shape[1])])


def build_rules(
    X: Any, rules: Any = None, cuts: Mapping[str, Sequence[float]] | None = None
) -> tuple[Any, RuleBuilder | None]:
    """What ``fit`` and its kin do with a table: ``(X for the engine, fitted builder or None)``.

    ``rules=None`` builds rules when ``X`` is a DataFrame of variables (:func:`needs_rules`: a
    column with values other than 0/1, or a missing value; numeric columns become threshold
    rules, so a card reads as a points table by variable instead of "8 points × bmi") or when
    ``cuts`` are given; ``True`` always (an array too, or a paper table); ``False`` never (the
    engine takes ``X`` as it is, the paper's raw-number cards); a :class:`RuleBuilder` (fitted
    or not) gives the settings, fit afresh on ``X``.
    """
    if rules is False or (rules is None and cuts is None and not needs_rules(X)):
        if cuts is not None:
            raise ValueError("cuts= makes rules; it cannot go with rules=False")
        return X, None
    if isinstance(rules, RuleBuilder):
        if cuts is not None:
            raise ValueError("give cuts= or a RuleBuilder with its own cuts, not both")
        builder = RuleBuilder(**rules.get_params())
    elif rules is None or rules is True:
        builder = RuleBuilder(cuts=cuts)
    else:
        raise TypeError(
            f"rules must be None, True, False or a RuleBuilder, got {type(rules).__name__}"
        )
    return builder.fit_transform(X), builder


def options_by_variable(builder: RuleBuilder, options: dict) -> dict:
    """``exclude``, ``signs`` and ``penalties`` may name a variable: it stands for all its rules
    (``signs={"age": "+"}`` makes the points rise with age). ``require`` of a variable asks that
    the card use it: its one rule, or at least one of its rules (an ``at_least`` constraint).
    Names of rules pass unchanged. The spec learns the variables (``variables``: each rule's
    column and kind), which ``max_variables``, ``max_cuts_per_variable`` and ``monotone`` read.

    >>> b = RuleBuilder(cuts={"age": [50, 60]}).fit(pd.DataFrame({"age": [40, 55, 70, 65]}))
    >>> opts = options_by_variable(b, {"require": ["age"], "monotone": {"age": "+"}})
    >>> opts["constraints"][0].describe(), opts["variables"]
    ('at least 1 of age >= 50, age >= 60', {'age': {'age >= 50': 'ge', 'age >= 60': 'ge'}})
    """
    rule_names = {r.name for r in builder.rules_}
    variables = {str(c) for c in builder.feature_names_in_}

    def is_variable(name: str) -> bool:
        return name not in rule_names and name in variables

    def expand(name: str) -> list[str]:
        return builder.rules_of(name) if is_variable(name) else [name]

    out = dict(options)
    if out.get("exclude"):
        names = [out["exclude"]] if isinstance(out["exclude"], str) else list(out["exclude"])
        out["exclude"] = [r for n in names for r in expand(n)]
    for key in ("signs", "penalties"):
        if isinstance(out.get(key), Mapping):
            out[key] = {r: v for n, v in out[key].items() for r in expand(n)}
    if out.get("require"):
        names = [out["require"]] if isinstance(out["require"], str) else list(out["require"])
        several = [n for n in names if is_variable(n) and len(expand(n)) > 1]
        out["require"] = [r for n in names if n not in several for r in expand(n)]
        if several:
            out["constraints"] = list(out.get("constraints") or ()) + [
                at_least(1, expand(n)) for n in several
            ]
    if builder.rules_:  # the rules just built are the truth about their variables
        out["variables"] = {
            column: {r.name: r.kind for r in builder.rules_ if r.column == column}
            for column in dict.fromkeys(r.column for r in builder.rules_)
        }
    return out


def rules_from_options(X: Any, options: Mapping[str, Any]) -> tuple[Any, RuleBuilder | None, dict]:
    """:func:`build_rules` with ``rules`` and ``cuts`` taken out of a function's keyword options;
    the other options come back with variables standing for their rules
    (:func:`options_by_variable`). Returns ``(X for the engine, builder or None, options)``."""
    options = dict(options)
    X, builder = build_rules(X, options.pop("rules", None), options.pop("cuts", None))
    return X, builder, options if builder is None else options_by_variable(builder, options)


def _level(v: Any) -> bool:
    return type(v) in LEVEL_TYPES and not (isinstance(v, float) and not math.isfinite(v))


def read_rule(row: Any, columns: Sequence[str]):
    """One rule from a card file, checked (names are text, kinds known, values plain)."""
    if not isinstance(row, list) or len(row) != 4:
        raise ValueError("each rule must be [name, column, kind, value]")
    name, column, kind, value = row
    if not isinstance(name, str) or column not in columns:
        raise ValueError(
            f"rule {name!r}: the name must be text and the column one of the rules' columns"
        )
    if kind not in KINDS:
        raise ValueError(f"rule {name!r}: unknown kind {kind!r}")
    if kind in ("ge", "lt"):
        ok = (
            isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)
        )
        value = float(value) if ok else value
    elif kind == "eq":
        ok = _level(value)
    elif kind == "other":
        ok = isinstance(value, list) and all(_level(v) for v in value)
        value = tuple(value) if ok else value
    else:
        ok = value is None
    if not ok:
        raise ValueError(f"rule {name!r} of kind {kind!r} has an invalid value {value!r}")
    return Rule(name, column, kind, value)
