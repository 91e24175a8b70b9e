"""A teaching baseline: L1-regularized logistic regression, scaled and rounded to points.

Rounding a real-valued model is how many scoring systems were made by hand.
:func:`rounded_logistic` does it in the simplest reasonable way so that one can
put its card next to SLIM's and see what rounding loses (accuracy, or
sparsity, or both) compared with optimizing over integer points directly.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..core.data import Dataset, prepare_data
from ..core.scoring import ScoringSystem
from ..core.spec import DEFAULT_COEF_RANGE, DEFAULT_INTERCEPT_RANGE
from ..core.validators import int_pair

__all__ = ["rounded_logistic"]


def rounded_logistic(
    X: Any,
    y: Any,
    C: float = 1.0,
    scale: float = 10,
    *,
    coef_range: Any = DEFAULT_COEF_RANGE,
    intercept_range: Any = DEFAULT_INTERCEPT_RANGE,
    positive: Any = None,
    sample_weight: Any = None,
    class_weight: Any = None,
) -> ScoringSystem:
    """Fit L1 logistic regression, then scale and round its coefficients to integer points.

    The coefficients ρ and intercept b of an L1-penalized logistic regression
    (scikit-learn, liblinear, inverse penalty strength ``C``) are multiplied
    by ``scale / max_j |ρ_j|`` (so the largest coefficient becomes ``scale``
    points), rounded to the nearest integers and clipped into ``coef_range``
    and ``intercept_range`` (a ``RuntimeWarning`` names what was clipped). The card predicts the
    positive class when ``points·x + intercept > 0``, as every :class:`ScoringSystem` does.

    Parameters
    ----------
    X, y : training data, as for :func:`slimwidgets.fit` (duplicate rows are
        collapsed into weights first, which gives the same regression).
    C : inverse L1 penalty of the regression (smaller: sparser).
    scale : points given to the largest coefficient (> 0).
    coef_range, intercept_range : the integer boxes, as in :func:`slimwidgets.fit`.
    positive, sample_weight : as in :func:`slimwidgets.fit`.
    class_weight : passed to scikit-learn (e.g. ``"balanced"``).

    Returns
    -------
    ScoringSystem
        With ``status="heuristic"``, its training metrics, and in ``details``
        the raw coefficients, intercept and the scale factor used.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"a": [1, 1, 0, 0, 1, 0, 1, 0], "b": [0, 1, 0, 1, 1, 0, 0, 1]})
    >>> card = rounded_logistic(X, [1, 1, 0, 0, 1, 0, 0, 1], C=10, scale=5)
    >>> card.status, max(abs(v) for v in card.points.values())
    ('heuristic', 5)
    """
    if isinstance(C, bool) or not isinstance(C, (int, float)) or not C > 0:
        raise ValueError(f"C must be a number > 0, got {C!r}")
    if (
        isinstance(scale, bool)
        or not isinstance(scale, (int, float))
        or not scale > 0
        or not np.isfinite(scale)
    ):
        raise ValueError(f"scale must be a finite number > 0, got {scale!r}")
    coef_box = int_pair(coef_range, "coef_range")
    # no range given: no clip (like fit's derived box, which never binds)
    intercept_box = (
        (-np.inf, np.inf)
        if intercept_range is None
        else int_pair(intercept_range, "intercept_range")
    )
    data = prepare_data(X, y, positive=positive, sample_weight=sample_weight)
    rho, b = _l1_logistic(data, float(C), class_weight)
    factor, points, intercept = _scale_and_round(
        rho, b, float(scale), coef_box, intercept_box, data.feature_names
    )
    card = ScoringSystem(
        data.feature_names,
        tuple(int(v) for v in points),
        intercept,
        positive=data.positive,
        negative=data.negative,
        status="heuristic",
        binary=tuple(data.binary),
        positive_name=data.positive_name,
        solver="rounded L1 logistic regression",
        details={
            "C": float(C),
            "scale": float(scale),
            "factor": factor,
            "raw_coefficients": rho.tolist(),
            "raw_intercept": b,
            "n_samples": data.n_samples,
        },
    )
    labels = np.where(data.y == 1, data.positive, data.negative)
    object.__setattr__(
        card, "train_metrics", card.metrics(data.X, labels, sample_weight=data.weight)
    )
    return card


def _l1_logistic(data: Dataset, C: float, class_weight: Any) -> tuple[np.ndarray, float]:
    """Coefficients and intercept of L1 logistic regression (liblinear) on the distinct rows."""
    import sklearn
    from sklearn.linear_model import LogisticRegression

    # scikit-learn >= 1.8 spells the L1 penalty l1_ratio=1; older releases need penalty="l1"
    # (they ignore l1_ratio and would silently fit an L2 model). liblinear shuffles: fix its seed.
    major, minor = (int(part) for part in sklearn.__version__.split(".")[:2])
    l1 = {"l1_ratio": 1.0} if (major, minor) >= (1, 8) else {"penalty": "l1"}
    model = LogisticRegression(
        C=C,
        solver="liblinear",
        intercept_scaling=100.0,
        class_weight=class_weight,
        max_iter=10_000,
        random_state=0,
        **l1,
    )
    model.fit(data.X, data.y, sample_weight=data.weight)
    return model.coef_.ravel().astype(float), float(model.intercept_[0])


def _scale_and_round(
    rho: np.ndarray,
    b: float,
    scale: float,
    coef_box: tuple[int, int],
    intercept_box: tuple[float, float],
    names: Any,
) -> tuple[float, np.ndarray, int]:
    """The factor that gives the largest coefficient ``scale`` points, and
    the rounded, clipped card.

    Warns (``RuntimeWarning``) naming every value that clipping changed.
    """
    biggest = float(np.abs(rho).max())
    if biggest == 0.0:
        # the constant model: predict the favoured class
        return (
            0.0,
            np.zeros(len(rho), dtype=np.int64),
            int(np.clip(1 if b > 0 else -1, *intercept_box)),
        )
    factor = scale / biggest
    raw_points, raw_intercept = np.rint(rho * factor), float(np.rint(b * factor))
    points = np.clip(raw_points, *coef_box).astype(np.int64)
    intercept = int(np.clip(raw_intercept, *intercept_box))
    clipped = [n for n, r, p in zip(names, raw_points, points) if r != p]
    if raw_intercept != intercept:
        clipped.append("(intercept)")
    if clipped:
        warnings.warn(
            f"rounded values fell outside the box and were clipped: {clipped}; "
            "the card may be much worse than the regression (that is part of what rounding loses)",
            RuntimeWarning,
            stacklevel=3,  # the caller of rounded_logistic
        )
    return factor, points, intercept
