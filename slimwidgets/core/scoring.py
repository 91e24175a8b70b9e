"""The scoring system: points, a threshold rule, scores, predictions and metrics (its words and
exports are in :mod:`.card_render`, its JSON in :mod:`.card_json`)."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .. import export as render
from .card_json import FAMILIES, SCHEMA_VERSION, CardJSON
from .card_render import CardRendering
from .data import labels_to_sign, prepare_features
from .family import DECISION, RISK, family_of_card
from .metrics import Metrics, score_auc
from .spec import ZERO_SCORES, Spec

__all__ = ["ScoringSystem", "Metrics", "SCHEMA_VERSION", "FAMILIES"]


@dataclass(frozen=True, eq=False)
class ScoringSystem(CardRendering, CardJSON):
    """A scoring system: integer points per feature and a threshold rule.

    The score adds ``points[j] * x[j]`` over the features, ``threshold =
    -intercept``, and the card predicts the positive class when
    ``score(x) >= threshold`` (``zero_score="positive"``, the default), or, for
    cards made under the paper's convention (``zero_score="error"``, and every
    card read from a version-1 JSON file), when ``score(x) > threshold``.
    Returned by :func:`slimwidgets.fit`; you rarely build one by hand.

    Parameters
    ----------
    feature_names : tuple of str
        The features, in the order of the columns the card reads.
    coefficients : tuple of int
        The points of each feature (0 for a feature the card does not use).
    intercept : int
        Minus the threshold: a row is scored ``points · x + intercept`` against 0.
    positive, negative : label value, default 1 and 0
        The labels the card predicts for the positive and the negative class.
    status : str, default "heuristic"
        How the card was found: one of ``"optimal"`` (proven best), ``"feasible"``,
        ``"time_limit"``, ``"interrupted"``, ``"solver_stopped"``, ``"edited"``,
        ``"heuristic"``, ``"recalibrated"``.
    objective : float, optional
        The training objective of the card (loss + C0 per feature), in the paper's units.
    bound : float, optional
        The proven lower bound on the objective of any card under the same spec.
    gap : float, optional
        The relative gap between ``objective`` and ``bound`` (0 when proven optimal).
    solve_time : float, optional
        Seconds the solve took.
    solver : str, optional
        What found the card (e.g. ``"highs"``, ``"enumerate"``).
    spec : Spec, optional
        The problem the card was solved for.
    train_metrics : Metrics, optional
        The card's figures on the training rows.
    binary : tuple of bool, optional
        Which features are 0/1 (the card prints them as yes/no rules).
    positive_name : str, optional
        How the card names the positive class (e.g. the outcome column), when it is not the label.
    details : dict, default {}
        Solver figures for a details view (proven limits in the user's units, history, ...).
    family : str, default "slim"
        The model family: ``"slim"``, ``"pilm"``, ``"m_of_n"``, ``"tilm"`` or ``"risk"``.
    risk : tuple of tuple of float, optional
        Observed event rate per total score on the training data: (score, rows, events, rate,
        lower, upper) with a Wilson 95 % interval.
    validation_metrics : Metrics, optional
        The card's figures on held-out rows, when there are any.
    zero_score : str, default "positive"
        What a total exactly at the threshold predicts: ``"positive"`` (score >= threshold) or
        ``"error"`` (the paper's rule: score > threshold).
    multiplier : float, optional
        Risk cards only: the predicted risk is ``1 / (1 + exp(-(score + intercept) / multiplier))``.
    rules : RuleBuilder, optional
        The fitted rule builder when the card was fit on a raw table (the card then reads raw rows).

    Examples
    --------
    >>> card = ScoringSystem(("age>=60", "snoring"), (2, 1), -2, positive="OSA", negative="no OSA")
    >>> card.points, card.threshold
    ({'age>=60': 2, 'snoring': 1}, 2)
    >>> card.predict([[1, 0], [0, 1]]).tolist()
    ['OSA', 'no OSA']
    """

    feature_names: tuple[str, ...]
    coefficients: tuple[int, ...]
    intercept: int
    positive: Any = 1
    negative: Any = 0
    status: str = "heuristic"
    objective: float | None = None
    bound: float | None = None
    gap: float | None = None
    solve_time: float | None = None
    solver: str | None = None
    spec: Spec | None = None
    train_metrics: Metrics | None = None
    binary: tuple[bool, ...] | None = None
    positive_name: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    family: str = "slim"
    # Observed event rate per total score on the training data: (score, rows, events, rate,
    # lower, upper) with a Wilson 95 % interval; printed under the card and kept in its JSON.
    risk: tuple[tuple[float, float, float, float, float, float], ...] | None = None
    # Metrics on held-out rows (the studio's validation set), when there are any.
    validation_metrics: Metrics | None = None
    # What a total exactly at the threshold predicts: "positive" (score >= threshold) or
    # "error" (the paper's rule: score > threshold). See :data:`slimwidgets.core.spec.ZERO_SCORES`.
    zero_score: str = "positive"
    # Risk cards only: the predicted risk is 1 / (1 + exp(-(score + intercept) / multiplier)).
    multiplier: float | None = None
    # The fitted rule builder (slimwidgets.core.rules.RuleBuilder) when the card was fit on a raw
    # table: its features are rules of the user's variables, and it applies itself to raw rows.
    rules: Any = None

    def __post_init__(self) -> None:
        if self.zero_score not in ZERO_SCORES:
            raise ValueError(f"zero_score must be one of {ZERO_SCORES}, got {self.zero_score!r}")
        if self.family not in FAMILIES:
            raise ValueError(f"unknown model family {self.family!r}; expected one of {FAMILIES}")
        if family_of_card(self).predicts_risk != (self.multiplier is not None):
            raise ValueError(
                "a risk card (family 'risk') needs a multiplier, and only a risk card has one"
            )
        if self.multiplier is not None:
            m = self.multiplier
            if (
                isinstance(m, bool)
                or not isinstance(m, numbers.Real)
                or not math.isfinite(m)
                or m <= 0
            ):
                raise ValueError(f"the multiplier must be a finite number > 0, got {m!r}")
            object.__setattr__(self, "multiplier", float(m))
        names = tuple(str(n) for n in self.feature_names)
        if len(set(names)) != len(names):
            raise ValueError(
                f"duplicate feature names: {sorted({n for n in names if names.count(n) > 1})}"
            )
        if len(names) != len(self.coefficients):
            raise ValueError(f"{len(names)} features but {len(self.coefficients)} coefficients")
        coefs = []
        for c in self.coefficients:
            if isinstance(c, bool) or not isinstance(c, numbers.Real) or c != int(c):
                raise TypeError(f"points must be integers, got {c!r}")
            coefs.append(int(c))
        if (
            isinstance(self.intercept, bool)
            or not isinstance(self.intercept, numbers.Real)
            or self.intercept != int(self.intercept)
        ):
            raise TypeError(f"the intercept must be an integer, got {self.intercept!r}")
        object.__setattr__(self, "feature_names", names)
        object.__setattr__(self, "coefficients", tuple(coefs))
        object.__setattr__(self, "intercept", int(self.intercept))
        if self.binary is not None:
            object.__setattr__(self, "binary", tuple(bool(b) for b in self.binary))

    # -- the card ----------------------------------------------------------------------------
    @property
    def points(self) -> dict[str, int]:
        """Feature -> points, for the features the card uses, largest absolute points first."""
        used = [(n, c) for n, c in zip(self.feature_names, self.coefficients) if c != 0]
        return dict(sorted(used, key=lambda nc: -abs(nc[1])))

    @property
    def threshold(self) -> int:
        """The score at which the card predicts positive: ``-intercept``.

        The card predicts positive iff score >= threshold (score > threshold when
        ``zero_score == "error"``, the paper's convention).
        """
        return -self.intercept

    @property
    def rule(self) -> str:
        """The comparison of score and threshold that predicts positive: ``">="`` or ``">"``."""
        return ">=" if self.zero_score == "positive" else ">"

    def predicts_positive(self, decision: Any) -> np.ndarray:
        """Which values of ``score - threshold`` the card calls positive (its rule, exactly).

        >>> ScoringSystem(("a",), (1,), -1).predicts_positive([-1, 0, 1]).tolist()
        [False, True, True]

        Parameters
        ----------
        decision : array-like of float
            Values of ``score - threshold``.
        """
        decision = np.asarray(decision)
        return decision >= 0 if self.zero_score == "positive" else decision > 0

    @property
    def size(self) -> int:
        """The number of features with nonzero points."""
        return sum(1 for c in self.coefficients if c != 0)

    @property
    def m_of_n(self) -> tuple[int, int] | None:
        """(M, N) when the card reads as an M-of-N rule table, else None.

        An M-of-N rule table predicts the positive class iff at least M of its N rules hold.
        None unless every used feature carries the same positive points (any card of family
        ``"m_of_n"`` does).
        """
        pts = set(self.points.values())
        if len(pts) > 1 or any(p <= 0 for p in pts):
            return None
        p = pts.pop() if pts else 1
        return render.m_of_n_count(self.threshold, p, self.rule), self.size

    # -- scoring -----------------------------------------------------------------------------
    def _matrix(self, X: Any) -> np.ndarray:
        if self.rules is not None and self._raw(X):
            X = self.rules.transform(X)  # raw variables -> the card's rules, exactly as in training
        if isinstance(X, pd.DataFrame):
            # Cards name features by str(column), so a column 0 is feature "0".
            lookup = {str(c): c for c in X.columns}
            lookup.update({c: c for c in X.columns if isinstance(c, str)})
            missing = [
                n
                for n, c in zip(self.feature_names, self.coefficients)
                if c != 0 and n not in lookup
            ]
            if missing:
                raise KeyError(f"X lacks columns the card uses: {missing}")
            used = [n for n, c in zip(self.feature_names, self.coefficients) if c != 0]
            matrix, _ = (
                prepare_features(X[[lookup[n] for n in used]])
                if used
                else (np.zeros((len(X), 0)), ())
            )
            full = np.zeros((len(X), len(self.feature_names)))
            for k, n in enumerate(used):
                full[:, self.feature_names.index(n)] = matrix[:, k]
            return full
        matrix, _ = prepare_features(X)
        if matrix.shape[1] != len(self.feature_names):
            raise ValueError(
                f"X has {matrix.shape[1]} columns; the card was built on "
                f"{len(self.feature_names)} features"
            )
        return matrix

    def _raw(self, X: Any) -> bool:
        """Whether ``X`` holds the user's variables (to be turned into rules)
        rather than the rules."""
        if isinstance(X, pd.DataFrame):
            columns = {str(c) for c in X.columns}
            used = [n for n, c in zip(self.feature_names, self.coefficients) if c != 0]
            if not used:
                return set(self.rules.feature_names_in_) <= columns
            return not set(used) <= columns or {self.rules.variable_of(n) for n in used} <= columns
        shape = np.shape(X)
        return len(shape) == 2 and shape[1] == self.rules.n_features_in_ != len(self.feature_names)

    def score(self, X: Any) -> pd.Series | np.ndarray:
        """Total points of each row (without the intercept).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_rows, n_features)
            Rows with the card's features (raw rows for a card with ``rules``).
        """
        values = self._matrix(X) @ np.asarray(self.coefficients, dtype=float)
        values = values.astype(np.int64) if np.all(values == np.round(values)) else values
        return (
            pd.Series(values, index=X.index, name="score")
            if isinstance(X, pd.DataFrame)
            else values
        )

    def decision_function(self, X: Any) -> np.ndarray:
        """Each row's score minus the threshold.

        The card predicts the positive class where this is >= 0 (> 0 when
        ``zero_score == "error"``).

        Parameters
        ----------
        X : DataFrame or array
            The rows to score, with the card's feature columns.
        """
        return np.asarray(self.score(X)) - self.threshold

    def predict(self, X: Any) -> pd.Series | np.ndarray:
        """The predicted labels (the original label values).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_rows, n_features)
            Rows with the card's features (raw rows for a card with ``rules``).
        """
        positive = self.predicts_positive(self.decision_function(X))
        labels = np.where(
            positive, np.array(self.positive, dtype=object), np.array(self.negative, dtype=object)
        )
        try:
            labels = labels.astype(np.result_type(type(self.positive), type(self.negative)))
        except TypeError:
            pass
        return (
            pd.Series(labels, index=X.index, name="prediction")
            if isinstance(X, pd.DataFrame)
            else labels
        )

    def predict_proba(self, X: Any) -> pd.DataFrame | np.ndarray:
        """Predicted risk of each row, ``1 / (1 + exp(-(score + intercept) / multiplier))``.

        Risk cards only (``loss="logistic"``): a decision card has no risk model (its observed
        rate per score is in :attr:`risk` and :func:`slimwidgets.risk_table`). Columns are the
        negative and the positive label, as in scikit-learn; a DataFrame in gives one out.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_rows, n_features)
            Rows with the card's features (raw rows for a card with ``rules``).

        Examples
        --------
        >>> card = ScoringSystem(("a",), (2,), -1, family="risk", multiplier=2.0)
        >>> card.predict_proba([[0], [1]])[:, 1].round(3).tolist()
        [0.378, 0.622]
        """
        if self.multiplier is None:
            raise AttributeError(
                "predict_proba needs a risk card (fit with loss='logistic'); "
                "for a decision card see its observed risk table (card.risk, sw.risk_table)"
            )
        from .losses import sigmoid

        risk = np.atleast_1d(
            sigmoid((np.asarray(self.score(X), dtype=float) + self.intercept) / self.multiplier)
        )
        both = np.column_stack([1.0 - risk, risk])
        if isinstance(X, pd.DataFrame):
            return pd.DataFrame(
                both, index=X.index, columns=pd.Index([self.negative, self.positive])
            )
        return both

    def predicted_risk(self, scores: Any) -> np.ndarray:
        """Predicted risk at each total score (risk cards), the column beside the observed rates.

        Parameters
        ----------
        scores : array-like of float
            Total scores (points summed, without the intercept).
        """
        from .losses import sigmoid

        if self.multiplier is None:
            raise AttributeError("only a risk card (loss='logistic') predicts a risk per score")
        return np.atleast_1d(
            sigmoid((np.asarray(scores, dtype=float) + self.intercept) / self.multiplier)
        )

    def metrics(self, X: Any, y: Any, sample_weight: Any = None) -> Metrics:
        """Error, TPR, FPR, size and confusion counts on ``X, y``.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_rows, n_features)
            Rows with the card's features (raw rows for a card with ``rules``).
        y : array-like of shape (n_rows,)
            The true labels.
        sample_weight : array-like of shape (n_rows,), optional
            Row weights (default: one per row).
        """
        foreign = [
            v
            for v in pd.unique(np.asarray(y, dtype=object).ravel())
            if not pd.isna(v) and not (v == self.positive or v == self.negative)
        ]
        if foreign:
            raise ValueError(
                f"y has labels {foreign[:6]} that are neither of the card's labels "
                f"{self.positive!r} (positive) and {self.negative!r} (negative)"
            )
        signs, _, _ = (
            labels_to_sign(y, self.positive) if _has_both(y) else _one_class_signs(y, self.positive)
        )
        predicted = self.predicts_positive(self.decision_function(X))
        if len(signs) != len(predicted):
            raise ValueError(f"X has {len(predicted)} rows but y has {len(signs)} labels")
        w = (
            np.ones(len(signs))
            if sample_weight is None
            else np.asarray(sample_weight, dtype=float).ravel()
        )
        if w.shape != signs.shape:
            raise ValueError(f"sample_weight has {w.size} values for {len(signs)} rows")
        pos = signs == 1
        return Metrics(
            n=float(w.sum()),
            tp=float(w[pos & predicted].sum()),
            fn=float(w[pos & ~predicted].sum()),
            fp=float(w[~pos & predicted].sum()),
            tn=float(w[~pos & ~predicted].sum()),
            size=self.size,
            **self._risk_figures(X, pos, w),
        )

    def _risk_figures(self, X: Any, pos: np.ndarray, w: np.ndarray) -> dict:
        """AUC and log-loss for a risk card (an empty dict for a decision card)."""
        if self.multiplier is None:
            return {}
        scores = np.atleast_1d(np.asarray(self.score(X), dtype=float))
        margin = (scores + self.intercept) / self.multiplier
        # -log(risk) for events, -log(1 - risk) otherwise, without overflow at extreme totals
        loss = np.logaddexp(0.0, np.where(pos, -margin, margin))
        total = float(w.sum())
        return {
            "auc": score_auc(scores, pos, w),
            "log_loss": float(np.sum(w * loss) / total) if total else math.nan,
        }

    def with_points(
        self, points: Mapping[str, int] | None = None, intercept: int | None = None
    ) -> ScoringSystem:
        """A copy with some points (or the intercept) edited by hand: status "edited".

        Parameters
        ----------
        points : dict of str to int, optional
            Feature -> its new points; features not named keep theirs.
        intercept : int, optional
            The new intercept (minus the threshold); None keeps it.
        """
        coefs = list(self.coefficients)
        for name, value in (points or {}).items():
            if name not in self.feature_names:
                raise KeyError(f"unknown feature {name!r}")
            coefs[self.feature_names.index(name)] = value
        return ScoringSystem(
            self.feature_names,
            tuple(coefs),
            self.intercept if intercept is None else intercept,
            positive=self.positive,
            negative=self.negative,
            status="edited",
            spec=self.spec,
            binary=self.binary,
            positive_name=self.positive_name,
            solver=None,
            family=self.family,
            zero_score=self.zero_score,
            multiplier=self.multiplier,
            rules=self.rules,
        )

    def recalibrate(self, X: Any, y: Any, *, label: str | None = None) -> ScoringSystem:
        """A copy refitted for a new site on its rows ``X, y``, points unchanged.

        A decision card gets the threshold that best meets its own settings on the new rows
        (the highest TPR under its ``max_fpr``, the lowest FPR over its ``min_tpr``, else the
        least error); a risk card gets the intercept and multiplier of its logistic link
        refitted by maximum likelihood (see :mod:`slimwidgets.core.recalibration`). The new
        card has status ``"recalibrated"``, no training figures (its points were fitted
        elsewhere), and a history entry saying what changed, shown on the card and kept in
        its JSON. ``label`` names the site in that entry.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_rows, n_features)
            The new site's rows.
        y : array-like of shape (n_rows,)
            Their labels.
        label : str, optional
            A name for the new site, kept in the history entry.

        Examples
        --------
        >>> card = ScoringSystem(("a", "b"), (2, 1), -3, positive=1, negative=0, status="optimal")
        >>> X_b, y_b = [[0, 0], [0, 1], [1, 0], [1, 1], [1, 1]], [0, 1, 1, 1, 1]
        >>> new = card.recalibrate(X_b, y_b, label="site B")
        >>> new.points == card.points, new.threshold, new.status
        (True, 1, 'recalibrated')
        >>> new.history[-1]["note"]
        'recalibrated for site B on 5 rows (4 events): threshold 3 → 1; points unchanged'
        """
        from .recalibration import refit_link, refit_threshold

        scores = np.asarray(self.score(X), dtype=float).ravel()
        values = np.asarray(y.to_numpy() if isinstance(y, pd.Series) else y, dtype=object).ravel()
        if len(values) != len(scores):
            raise ValueError(f"X has {len(scores)} rows but y has {len(values)} labels")
        foreign = [v for v in pd.unique(values) if not (v == self.positive or v == self.negative)]
        if foreign or pd.isna(values).any():
            raise ValueError(
                f"y must hold only the card's labels {self.positive!r} and {self.negative!r}"
            )
        events = (values == self.positive).astype(float)
        site = f" for {label}" if label else ""
        where = f"recalibrated{site} on {len(events)} rows ({int(events.sum())} events)"
        if self.multiplier is None:
            intercept = -refit_threshold(scores, events, self.spec, self.rule, self.threshold)
            multiplier, change = None, f"threshold {self.threshold} → {-intercept}"
        else:
            intercept, multiplier, _ = refit_link(scores, events)
            change = (
                f"risk link: intercept {self.intercept} → {intercept}, "
                f"multiplier {self.multiplier:.3g} → {multiplier:.3g}"
            )
        entry = {
            "event": "recalibrated",
            "label": label,
            "rows": len(events),
            "events": int(events.sum()),
            "intercept": [self.intercept, intercept],
            "multiplier": [self.multiplier, multiplier],
            "note": f"{where}: {change}; points unchanged",
        }
        return ScoringSystem(
            self.feature_names,
            self.coefficients,
            intercept,
            positive=self.positive,
            negative=self.negative,
            status="recalibrated",
            spec=self.spec,
            binary=self.binary,
            positive_name=self.positive_name,
            solver=self.solver,
            family=self.family,
            zero_score=self.zero_score,
            multiplier=multiplier,
            details={"history": (*self.history, entry)},
            rules=self.rules,
        )

    @property
    def history(self) -> tuple[dict, ...]:
        """What happened to the card after its fit (recalibrations), oldest first."""
        return tuple(self.details.get("history", ()))

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        pts = ", ".join(f"{n!r}: {c}" for n, c in self.points.items())
        return (
            f"ScoringSystem({{{pts}}}, score {self.rule} {self.threshold}, status={self.status!r})"
        )

    def _repr_html_(self) -> str:
        return self.to_html(document=False)


# each family reads its card files through its card class
DECISION.cards_are(ScoringSystem)
RISK.cards_are(ScoringSystem)


def _has_both(y: Any) -> bool:
    values = y.to_numpy() if isinstance(y, pd.Series) else np.asarray(y)
    return len(pd.unique(values.ravel())) == 2


def _one_class_signs(y: Any, positive: Any):
    """Test sets may hold a single class; still map labels against the card's positive."""
    values = y.to_numpy() if isinstance(y, pd.Series) else np.asarray(y)
    values = values.ravel()
    if pd.isna(values).any():
        raise ValueError("y has missing labels")
    return np.where(values == positive, 1, -1).astype(np.int8), positive, None
