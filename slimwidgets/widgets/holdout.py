"""The studio's held-out rows: splitting them off, preparing them like the training rows,
and measuring a card on both (its metrics, a risk card's observed rates per score)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import pandas as pd

from ..core.data import Dataset, prepare_data
from ..core.scoring import Metrics, ScoringSystem

__all__ = ["train_metrics", "split_holdout", "prepare_validation", "studio_data", "risk_frame"]


def labels_of(data: Dataset) -> np.ndarray:
    """The class labels of ``data``'s collapsed rows, as the user named them."""
    return np.where(data.y == 1, data.positive, data.negative)


def train_metrics(card: ScoringSystem, data: Dataset) -> Metrics:
    """Weighted metrics of ``card`` on the collapsed rows of ``data`` (for the training
    rows, what ``fit`` reports; the same for held-out rows)."""
    return card.metrics(data.X, labels_of(data), sample_weight=data.weight)


def split_holdout(X: Any, y: Any, fraction: Any, *, sample_weight: Any = None,
                  random_state: Any = None) -> tuple[Any, Any, Any, Any, Any, Any]:
    """A stratified split: (X_train, y_train, w_train, X_val, y_val, w_val).

    ``fraction`` of the rows of each class are held out (scikit-learn's
    ``train_test_split`` with ``stratify=y``); weights (or None) follow their rows.

    Examples
    --------
    >>> X_tr, y_tr, _, X_va, y_va, _ = split_holdout([[0], [1]] * 4, [0, 1] * 4, 0.25, random_state=0)
    >>> len(y_tr), sorted(y_va)
    (6, [0, 1])
    """
    if isinstance(fraction, bool) or not isinstance(fraction, numbers.Real) or not 0 < fraction < 1:
        raise ValueError(f"holdout must be a fraction between 0 and 1 (e.g. 0.25), got {fraction!r}")
    from sklearn.model_selection import train_test_split

    labels = y.to_numpy() if isinstance(y, pd.Series) else np.asarray(y)
    parts = [X, y] + ([] if sample_weight is None else [np.asarray(sample_weight, dtype=float)])
    try:
        split = train_test_split(*parts, test_size=float(fraction), stratify=labels, random_state=random_state)
    except ValueError as exc:
        raise ValueError(f"holdout={fraction:g} cannot hold out rows of both classes: {exc}") from None
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
            raise ValueError(f"validation X must have the training columns: missing {missing}, not in training {extra}")
        X = X[[by_name[n] for n in names]]
    values = y.to_numpy() if isinstance(y, (pd.Series, pd.Index)) else np.asarray(y, dtype=object)
    foreign = [v for v in pd.unique(values.ravel()) if not pd.isna(v) and not (v == train.positive or v == train.negative)]
    if foreign:
        raise ValueError(f"validation y has labels {foreign[:6]} that are not the training labels "
                         f"{train.positive!r} and {train.negative!r}")
    try:
        return prepare_data(X, y, positive=train.positive, sample_weight=sample_weight,
                            feature_names=None if isinstance(X, pd.DataFrame) else names, warn=False)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"validation data: {exc.args[0] if exc.args else exc}") from None


def studio_data(X: Any, y: Any, data: Dataset | None, *, positive: Any = None, sample_weight: Any = None,
                validation: Any = None, holdout: Any = None,
                random_state: Any = None) -> tuple[Dataset, Dataset | None]:
    """The studio's (training rows, held-out rows or None) from what the user gave:
    ``X, y`` or a prepared ``data``; held-out rows as ``validation=(X_val, y_val)`` or as a
    ``holdout`` fraction of ``X, y``."""
    if validation is not None and holdout is not None:
        raise TypeError("give validation=(X_val, y_val) or holdout=fraction, not both")
    if holdout is not None:
        if data is not None or X is None or y is None:
            raise TypeError("holdout= splits X and y: give them (not a prepared data=)")
        X, y, sample_weight, X_val, y_val, w_val = split_holdout(X, y, holdout, sample_weight=sample_weight,
                                                                 random_state=random_state)
    if data is None:
        if X is None or y is None:
            raise TypeError("give X and y (or a prepared data=)")
        data = prepare_data(X, y, positive=positive, sample_weight=sample_weight)
    if holdout is not None:
        return data, prepare_validation(X_val, y_val, data, sample_weight=w_val)
    if validation is not None:
        if not isinstance(validation, (tuple, list)) or len(validation) != 2:
            raise TypeError("validation must be a pair (X_val, y_val)")
        return data, prepare_validation(*validation, data)
    return data, None


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
