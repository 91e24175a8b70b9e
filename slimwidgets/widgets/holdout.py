"""The studio's held-out rows: splitting them off, preparing them like the training rows,
and measuring a card on both (its metrics, a risk card's observed rates per score)."""

from __future__ import annotations

import numbers
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pandas as pd

from ..core.data import Dataset, prepare_data
from ..core.family import family_of_card
from ..core.rules import rules_from_options
from ..core.scoring import Metrics, ScoringSystem

if TYPE_CHECKING:
    from .studio_core import StudioCore

__all__ = [
    "train_metrics",
    "split_holdout",
    "prepare_validation",
    "studio_data",
    "risk_frame",
    "calibration_bands",
    "RiskTables",
    "RawRows",
    "measure_card",
]


class RawRows(NamedTuple):
    """The raw rows a studio's rules were fit on (training) and applied to (held-out), kept so
    that the rules can be fit again with other cut points (:mod:`~slimwidgets.widgets.cuts`)."""

    X: pd.DataFrame
    y: Any
    sample_weight: Any
    positive: Any
    X_val: Any = None  # None: no held-out rows
    y_val: Any = None
    w_val: Any = None


def labels_of(data: Dataset) -> np.ndarray:
    """The class labels of ``data``'s collapsed rows, as the user named them."""
    return np.where(data.y == 1, data.positive, data.negative)


def train_metrics(card: ScoringSystem, data: Dataset) -> Metrics:
    """Weighted metrics of ``card`` on the collapsed rows of ``data`` (for the training
    rows, what ``fit`` reports; the same for held-out rows)."""
    return card.metrics(data.X, labels_of(data), sample_weight=data.weight)


def split_holdout(
    X: Any, y: Any, fraction: Any, *, sample_weight: Any = None, random_state: Any = None
) -> tuple[Any, Any, Any, Any, Any, Any]:
    """A stratified split: (X_train, y_train, w_train, X_val, y_val, w_val).

    ``fraction`` of the rows of each class are held out (scikit-learn's
    ``train_test_split`` with ``stratify=y``); weights (or None) follow their rows.

    Examples
    --------
    >>> parts = split_holdout([[0], [1]] * 4, [0, 1] * 4, 0.25, random_state=0)
    >>> X_tr, y_tr, _, X_va, y_va, _ = parts
    >>> len(y_tr), sorted(y_va)
    (6, [0, 1])
    """
    if isinstance(fraction, bool) or not isinstance(fraction, numbers.Real) or not 0 < fraction < 1:
        raise ValueError(
            f"holdout must be a fraction between 0 and 1 (e.g. 0.25), got {fraction!r}"
        )
    from sklearn.model_selection import train_test_split

    labels = y.to_numpy() if isinstance(y, pd.Series) else np.asarray(y)
    parts = [X, y] + ([] if sample_weight is None else [np.asarray(sample_weight, dtype=float)])
    try:
        split = train_test_split(
            *parts, test_size=float(fraction), stratify=labels, random_state=random_state
        )
    except ValueError as exc:
        raise ValueError(
            f"holdout={fraction:g} cannot hold out rows of both classes: {exc}"
        ) from None
    w_train, w_val = (split[4], split[5]) if sample_weight is not None else (None, None)
    return split[0], split[2], w_train, split[1], split[3], w_val


def prepare_validation(X: Any, y: Any, train: Dataset, *, sample_weight: Any = None) -> Dataset:
    """Check held-out rows against the training data and prepare them like it.

    ``X`` must have the training columns (a DataFrame may list them in another
    order) and ``y`` only the training labels; both classes must be present.
    """
    names = train.feature_names
    if isinstance(X, pd.DataFrame):
        by_name = {str(c): c for c in X.columns}
        missing = [n for n in names if n not in by_name]
        extra = [c for c in by_name if c not in names]
        if missing or extra:
            raise ValueError(
                f"validation X must have the training columns: missing {missing}, not in "
                f"training {extra}"
            )
        X = X[[by_name[n] for n in names]]
    values = y.to_numpy() if isinstance(y, (pd.Series, pd.Index)) else np.asarray(y, dtype=object)
    foreign = [
        v
        for v in pd.unique(values.ravel())
        if not pd.isna(v) and not (v == train.positive or v == train.negative)
    ]
    if foreign:
        raise ValueError(
            f"validation y has labels {foreign[:6]} that are not the training labels "
            f"{train.positive!r} and {train.negative!r}"
        )
    try:
        return prepare_data(
            X,
            y,
            positive=train.positive,
            sample_weight=sample_weight,
            feature_names=None if isinstance(X, pd.DataFrame) else names,
            warn=False,
        )
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"validation data: {exc.args[0] if exc.args else exc}") from None


def studio_data(
    X: Any,
    y: Any,
    data: Dataset | None,
    *,
    positive: Any = None,
    sample_weight: Any = None,
    validation: Any = None,
    holdout: Any = None,
    random_state: Any = None,
    options: dict | None = None,
) -> tuple[Dataset, Dataset | None, Any, dict, RawRows | None]:
    """The studio's (training rows, held-out rows or None, rules or None, the other options,
    the raw rows behind the rules or None) from what the user gave: ``X, y`` or a prepared ``data``;
    held-out rows as ``validation=(X_val, y_val)`` or as a ``holdout`` fraction of ``X, y``. A raw
    table becomes rules fit on the training rows alone (the rule options are taken out of
    ``options``); the held-out rows go through the same rules."""
    options = dict(options or {})
    if validation is not None and holdout is not None:
        raise TypeError("give validation=(X_val, y_val) or holdout=fraction, not both")
    if holdout is not None:
        if data is not None or X is None or y is None:
            raise TypeError("holdout= splits X and y: give them (not a prepared data=)")
        X, y, sample_weight, X_val, y_val, w_val = split_holdout(
            X, y, holdout, sample_weight=sample_weight, random_state=random_state
        )
    rules, raw_X = None, X
    if data is None:
        if X is None or y is None:
            raise TypeError("give X and y (or a prepared data=)")
        X, rules, options = rules_from_options(X, options)
        data = prepare_data(X, y, positive=positive, sample_weight=sample_weight)
    as_rules = (lambda rows: rows) if rules is None else rules.transform
    if validation is not None:
        if not isinstance(validation, (tuple, list)) or len(validation) != 2:
            raise TypeError("validation must be a pair (X_val, y_val)")
        X_val, y_val, w_val = validation[0], validation[1], None
    held = holdout is not None or validation is not None
    raw = (
        None
        if rules is None
        else RawRows(raw_X, y, sample_weight, positive, *((X_val, y_val, w_val) if held else ()))
    )
    if held:
        return (
            data,
            prepare_validation(as_rules(X_val), y_val, data, sample_weight=w_val),
            rules,
            options,
            raw,
        )
    return data, None, rules, options, raw


def measure_card(
    card: ScoringSystem, data: Dataset, validation: Dataset | None, rules: Any
) -> ScoringSystem:
    """``card`` with its training metrics on ``data`` and, with held-out rows, its validation
    metrics (and, from a raw table, its ``rules``, so that it scores and exports raw rows)."""
    changes: dict[str, Any] = {}
    if rules is not None and card.rules is None:
        changes["rules"] = rules
    if card.train_metrics is None:
        changes["train_metrics"] = train_metrics(card, data)
    if validation is not None and card.validation_metrics is None:
        changes["validation_metrics"] = train_metrics(card, validation)
    return replace(card, **changes) if changes else card


def _observed(card: ScoringSystem, data: Dataset) -> pd.DataFrame:
    """Rows, events, observed rate and its 95 % Wilson interval per total score on ``data``."""
    from ..toolbox.risk import risk_table

    table = risk_table(card, data.X, labels_of(data), sample_weight=data.weight)
    return table[["count", "events", "rate", "lower", "upper"]]


def risk_frame(card: ScoringSystem, train: Dataset, held_out: Dataset | None) -> pd.DataFrame:
    """A risk card's table: per total score, its predicted risk beside the observed rate with
    its Wilson interval on the training rows (``train_*``) and, with held-out rows, on them
    (``val_*``)."""
    frame = _observed(card, train).add_prefix("train_")
    if held_out is not None:
        frame = frame.join(_observed(card, held_out).add_prefix("val_"), how="outer")
    frame.insert(0, "predicted", card.predicted_risk(frame.index.to_numpy()))
    return frame.rename_axis("score").reset_index()


#: a calibration band holds at least this many training rows (and this share of them)
BAND_ROWS, BAND_SHARE = 20, 0.05


def calibration_bands(frame: pd.DataFrame) -> pd.DataFrame:
    """A risk card's calibration, by score band: sparse scores grouped so that each band holds
    at least ``BAND_ROWS`` training rows (and ``BAND_SHARE`` of them); per band its scores, the
    mean predicted risk of its training rows, and the observed rate with its 95 % Wilson
    interval on the training rows (``set="train"``) and, with held-out rows, on them
    (``set="validation"``, the same bands, the mean predicted risk of those rows).

    ``frame`` is :func:`risk_frame`'s table (one row per total score).

    Examples
    --------
    >>> frame = pd.DataFrame({"score": [0, 1, 2], "predicted": [0.1, 0.5, 0.9],
    ...                       "train_count": [30.0, 5.0, 25.0], "train_events": [3.0, 2.0, 22.0]})
    >>> calibration_bands(frame)[["band", "rows", "events"]].values.tolist()
    [['0', 30.0, 3.0], ['1–2', 30.0, 24.0]]
    """
    from ..toolbox.risk import wilson_interval

    counts = frame["train_count"].fillna(0).to_numpy(dtype=float)
    need = max(BAND_ROWS, BAND_SHARE * counts.sum())
    bands, current, held = [], [], 0.0
    for i, n in enumerate(counts):
        current.append(i)
        held += n
        if held >= need:
            bands.append(current)
            current, held = [], 0.0
    if current:  # a last band too small to stand alone joins the one before it
        if bands:
            bands[-1] += current
        else:
            bands.append(current)
    rows = []
    for prefix, which in (("train_", "train"), ("val_", "validation")):
        if prefix + "count" not in frame:
            continue
        for members in bands:
            part = frame.iloc[members]
            n = float(part[prefix + "count"].fillna(0).sum())
            if n <= 0:
                continue
            k = float(part[prefix + "events"].fillna(0).sum())
            lo, hi = wilson_interval(k, n)
            scores = part["score"].tolist()
            name = f"{scores[0]:g}" if len(scores) == 1 else f"{scores[0]:g}–{scores[-1]:g}"
            weights = part[prefix + "count"].fillna(0).to_numpy(dtype=float)
            rows.append(
                {
                    "band": name.replace("-", "\u2212"),
                    "set": which,
                    "rows": n,
                    "events": k,
                    "predicted": float(np.average(part["predicted"], weights=weights)),
                    "observed": k / n,
                    "lower": float(lo),
                    "upper": float(hi),
                }
            )
    return pd.DataFrame(
        rows, columns=["band", "set", "rows", "events", "predicted", "observed", "lower", "upper"]
    )


def measured_as_loaded(card: ScoringSystem, data: Dataset, validation: Dataset | None):
    """``card`` as a studio loads it: its training metrics (worked out on ``data`` when it carries
    none) and its held-out metrics measured on this studio's ``validation`` rows, whatever it
    carried.

    Parameters
    ----------
    card : the card loaded.
    data : the studio's training rows.
    validation : the studio's held-out rows, or None.
    """
    if card.train_metrics is None:
        card = replace(card, train_metrics=train_metrics(card, data))
    if validation is not None:
        card = replace(card, validation_metrics=train_metrics(card, validation))
    return card


class RiskTables:
    """A risk card's table and calibration in the studio (a feature object: it reads the card
    and rows of the studio's core, and keeps the last tables worked out).

    Parameters
    ----------
    core : the studio's core.
    """

    def __init__(self, core: StudioCore) -> None:
        self._core = core
        # the card's points and rows, its risk table, its calibration
        self._risk: tuple = (None, None, None)

    def risk_table(self) -> pd.DataFrame | None:
        """A risk card's table: per total score, its predicted risk beside the observed rate with
        its Wilson interval on the training rows (``train_*``) and, with held-out rows, on them
        (``val_*``); None for a decision card."""
        got = self._risk_tables()
        return None if got is None else got[0].copy()

    def risk_calibration(self) -> pd.DataFrame | None:
        """A risk card's calibration by score band (:func:`calibration_bands`
        of :meth:`risk_table`); None for a decision card."""
        got = self._risk_tables()
        return None if got is None else got[1].copy()

    def _risk_tables(self) -> tuple[pd.DataFrame, pd.DataFrame] | None:
        card = self._core.card
        if card is None or not family_of_card(card).predicts_risk:
            return None
        # once per card's points on these rows, not on every redraw: a settled card with the
        # points of the incumbent drawn before it is drawn without working them out again
        key = (
            tuple(card.feature_names),
            card.coefficients,
            card.intercept,
            card.multiplier,
            id(self._core.data),
            id(self._core.validation),
        )
        if self._risk[0] != key:
            frame = risk_frame(card, self._core.data, self._core.validation)
            self._risk = (key, frame, calibration_bands(frame))
        return self._risk[1], self._risk[2]
