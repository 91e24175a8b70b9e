"""A card's figures on a data set, with 95 % intervals: what a reviewer asks of a prediction model
on its development data, a held-out part, or another site's rows (external validation).

:func:`validate` returns a :class:`Validation`: DataFrames of the figures (overall and by group),
the observed rate per score (and the predicted risk beside it for risk cards), the
Hosmer–Lemeshow groups and the decision curve. :func:`slimwidgets.report` puts several of them
into one document.
"""

from __future__ import annotations

import html
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..core.card_family import CardFamily
from ..core.family import DECISION, RISK, family_of_card
from ..core.risk import card_events, risk_table
from ..core.scoring import ScoringSystem
from . import evidence as ev
from . import survival_validation  # noqa: F401  (registers the time-to-event family's)

__all__ = ["validate", "Validation", "FIGURES"]

#: The figures in :attr:`Validation.figures`, in order, and what each one is.
FIGURES = {
    "rows": "rows with every variable the card uses",
    "event rate": "share of rows with the event (Wilson interval)",
    "AUC": "area under the ROC curve of the score (DeLong interval; ties count half)",
    "TPR": "sensitivity at the card's threshold (Wilson)",
    "FPR": "1 - specificity at the card's threshold (Wilson)",
    "PPV": "positive predictive value at the threshold (Wilson)",
    "NPV": "negative predictive value at the threshold (Wilson)",
    "calibration-in-the-large": (
        "intercept of logit P(event) = a + logit(risk); 0 is right on average (Wald)"
    ),
    "calibration slope": (
        "slope b of logit P(event) = a + b logit(risk); 1 is ideal, < 1 too extreme (Wald)"
    ),
    "observed / expected": "events divided by the sum of predicted risks",
    "Brier score": "mean squared error of the predicted risk (0 is perfect)",
    "Hosmer-Lemeshow": "chi-squared over groups of predicted risk; detail gives df and p",
}

#: Risk thresholds of the decision curve: 1 % to 99 %.
THRESHOLDS = np.round(np.arange(0.01, 1.0, 0.01), 2)


@dataclass(frozen=True)
class Validation:
    """A card's figures on one data set; see :func:`validate`.

    Attributes
    ----------
    label : str
        What the data are ("training", "held-out", "external", ...).
    rows, events, dropped : int
        Rows used, events among them, rows left out for a missing value in a variable the card uses.
    figures : DataFrame
        Index: figure (see :data:`FIGURES`); columns ``estimate, lower, upper, detail``.
    calibration : DataFrame
        Per total score: ``rows, events, observed, lower, upper, called positive`` and, for risk
        cards, ``predicted risk``.
    hosmer_lemeshow : DataFrame or None
        The groups of the Hosmer–Lemeshow test (risk cards).
    decision_curve : DataFrame
        Net benefit of the card, of treating all and of treating none, per risk threshold.
    by_group : DataFrame or None
        The figures per group: index ``(group, figure)``, the columns of ``figures``.
    """

    label: str
    rows: int
    events: int
    dropped: int
    figures: pd.DataFrame
    calibration: pd.DataFrame
    hosmer_lemeshow: pd.DataFrame | None
    decision_curve: pd.DataFrame
    by_group: pd.DataFrame | None = None

    def summary(self) -> pd.DataFrame:
        """The figures as text, ``"0.912 (0.874–0.950)"``, one column per group (and "all")."""
        columns = {"all": self.figures}
        if self.by_group is not None:
            for group in self.by_group.index.get_level_values(0).unique():
                columns[group] = self.by_group.loc[group]
        return pd.DataFrame(
            {name: frame.apply(format_figure, axis=1) for name, frame in columns.items()}
        )

    def __repr__(self) -> str:
        auc = format_figure(self.figures.loc["AUC"])
        groups = (
            ""
            if self.by_group is None
            else f", {self.by_group.index.get_level_values(0).nunique()} groups"
        )
        return (
            f"Validation({self.label!r}: {self.rows} rows, {self.events} events, AUC {auc}{groups})"
        )

    def _repr_html_(self) -> str:
        head = (
            f"<p><b>{html.escape(self.label)}</b>: {self.rows} rows, {self.events} events"
            + (f", {self.dropped} rows left out (missing values)" if self.dropped else "")
            + "</p>"
        )
        return head + self.summary().to_html(escape=True)


def format_figure(row: pd.Series) -> str:
    """One figure as text: the estimate, its interval when it has one, and its detail."""
    est, lo, hi, detail = row["estimate"], row["lower"], row["upper"], row["detail"]
    if pd.isna(est):
        return "–"
    if row.name == "rows":
        text = f"{est:.0f}"
    elif row.name in ("event rate", "TPR", "FPR", "PPV", "NPV"):
        text = f"{100 * est:.1f} %" + ("" if pd.isna(lo) else f" ({100 * lo:.1f}–{100 * hi:.1f} %)")
    else:  # "to", not a dash: these intervals often start below zero
        text = _three(est) + ("" if pd.isna(lo) else f" ({_three(lo)} to {_three(hi)})")
    return f"{text} {detail}".strip()


def _groups(X: pd.DataFrame, groups: Any) -> pd.Series | None:
    if groups is None:
        return None
    if isinstance(groups, str):
        if groups not in X.columns:
            raise KeyError(f"groups {groups!r} is not a column of X")
        values = X[groups]
    else:
        values = pd.Series(np.asarray(groups, dtype=object).ravel())
        if len(values) != len(X):
            raise ValueError(f"groups has {len(values)} values for {len(X)} rows")
    return (
        pd.Series(values.to_numpy(), index=X.index)
        .astype(object)
        .where(lambda s: s.notna(), "(missing)")
        .astype(str)
    )


def complete_rows(card: ScoringSystem, X: pd.DataFrame) -> np.ndarray:
    """Which rows have a value for every variable the card uses (the others cannot be scored)."""
    used = [c for c in X.columns if str(c) in card.points]
    return ~X[used].isna().any(axis=1).to_numpy() if used else np.ones(len(X), dtype=bool)


def validate(
    card: ScoringSystem,
    X: Any,
    y: Any,
    *,
    groups: Any = None,
    label: str = "data",
    confidence: float = 0.95,
    thresholds: Any = None,
) -> Validation:
    """The card's figures on ``X, y`` with ``confidence`` intervals, overall and by group.

    Discrimination (AUC of the score with DeLong's interval; TPR, FPR, PPV and NPV at the card's
    threshold with Wilson intervals), the observed rate per total score, the net benefit over
    risk thresholds (decision curve) and, for risk cards, calibration: calibration-in-the-large,
    calibration slope, observed/expected, Brier score and Hosmer–Lemeshow. Use it on held-out
    rows or on another site's rows (external validation). Every row counts once (no sample
    weights): these are the figures a reviewer recomputes.

    Parameters
    ----------
    card : a :class:`~slimwidgets.ScoringSystem`, or a card of another family, which its
        family measures (:meth:`~slimwidgets.core.card_family.CardFamily.validate`).
    X : DataFrame with the variables the card uses (and the ``groups`` column, if named).
    y : labels: the card's positive and negative labels only; a ``Surv`` array for a time-to-event
        card (:func:`~slimwidgets.toolbox.survival_validation.validate_survival`).
    groups : a column name of ``X``, or one value per row: figures per group as well.
    label : what the data are, e.g. ``"external: site B"``.
    confidence : level of every interval (default 95 %).
    thresholds : risk thresholds of the decision curve (default 1 % to 99 %); a family
        without one (time-to-event cards) refuses them.

    Returns
    -------
    Validation
        Rows with a missing value in a variable the card uses are left out (a warning says how
        many; ``Validation.dropped`` keeps the count). A time-to-event card's is its family's
        (:class:`~slimwidgets.toolbox.survival_validation.SurvivalValidation`).

    Examples
    --------
    >>> import pandas as pd, slimwidgets as sw
    >>> card = sw.ScoringSystem(("a", "b"), (2, 1), -2)
    >>> X = pd.DataFrame({"a": [0, 0, 1, 1, 0, 1, 0, 1], "b": [0, 1, 0, 1, 1, 1, 0, 0]})
    >>> v = sw.validate(card, X, [0, 0, 1, 1, 1, 1, 0, 0])
    >>> figures = v.figures.loc[["AUC", "TPR"], ["estimate", "lower", "upper"]]
    >>> figures.round(3)  # doctest: +NORMALIZE_WHITESPACE
         estimate  lower  upper
    figure
    AUC     0.875  0.630  1.000
    TPR     0.750  0.301  0.954
    """
    options = {"groups": groups, "label": label, "confidence": confidence}
    if thresholds is not None:  # a decision curve's: a family without one refuses it by name
        options["thresholds"] = thresholds
    return family_of_given_card(card).validate(card, X, y, **options)


def family_of_given_card(card: Any) -> CardFamily:
    """The family of a card handed to :func:`validate` or :func:`slimwidgets.report`.

    Parameters
    ----------
    card : what the user handed in as a card.

    Returns
    -------
    CardFamily
        Its family (``TypeError`` naming the card classes when no family makes it).

    Examples
    --------
    >>> family_of_given_card({})
    Traceback (most recent call last):
    ...
    TypeError: card must be a ScoringSystem or SurvivalCard, got dict
    """
    try:
        return family_of_card(card)
    except ValueError:
        raise TypeError(
            f"card must be a ScoringSystem or SurvivalCard, got {type(card).__name__}"
        ) from None


def validate_labels(
    card: ScoringSystem,
    X: Any,
    y: Any,
    *,
    groups: Any = None,
    label: str = "data",
    confidence: float = 0.95,
    thresholds: Any = None,
) -> Validation:
    """The figures of a decision or risk card on ``X, y``: what :func:`validate` gives for
    them, registered with their families.

    Parameters
    ----------
    card : a decision or risk card.
    X, y, groups, label, confidence, thresholds : as for :func:`validate`.

    Returns
    -------
    Validation

    Examples
    --------
    >>> import slimwidgets as sw
    >>> card = sw.ScoringSystem(("a",), (1,), -1)
    >>> validate_labels(card, [[1], [0], [1], [0]], [1, 0, 1, 1]).rows
    4
    """
    if not isinstance(card, ScoringSystem):
        raise TypeError(f"card must be a ScoringSystem, got {type(card).__name__}")
    X = (
        X
        if isinstance(X, pd.DataFrame)
        else pd.DataFrame(np.asarray(X), columns=list(card.feature_names))
    )
    events = card_events(card, y, len(X))
    group = _groups(X, groups)
    keep = complete_rows(card, X)
    if not keep.all():
        warnings.warn(
            f"{int((~keep).sum())} of {len(X)} rows have a missing value in a variable the card "
            "uses; they are left out of every figure",
            stacklevel=2,
        )
    X, events = X[keep], events[keep]
    thresholds = THRESHOLDS if thresholds is None else np.asarray(thresholds, dtype=float)
    figures = card_figures(card, X, events, confidence)
    by_group = None
    if group is not None:
        group = group[keep]
        parts = {
            g: card_figures(
                card, X[(group == g).to_numpy()], events[(group == g).to_numpy()], confidence
            )
            for g in sorted(group.unique())
        }
        by_group = pd.concat(parts, names=["group", "figure"])
    return Validation(
        label=label,
        rows=len(X),
        events=int(events.sum()),
        dropped=int((~keep).sum()),
        figures=figures,
        calibration=_per_score(card, X, events, confidence),
        hosmer_lemeshow=None
        if not family_of_card(card).predicts_risk
        else ev.hosmer_lemeshow(_risk(card, X), events)[3],
        decision_curve=_decision_curve(card, X, events, thresholds),
        by_group=by_group,
    )


def _risk(card: ScoringSystem, X: pd.DataFrame) -> np.ndarray:
    return card.predicted_risk(np.asarray(card.score(X), dtype=float))


def card_figures(
    card: ScoringSystem, X: pd.DataFrame, events: np.ndarray, confidence: float = 0.95
) -> pd.DataFrame:
    """The rows of :attr:`Validation.figures` for the card on ``X`` with 0/1 ``events``."""
    nan = float("nan")
    scores = np.asarray(card.score(X), dtype=float) if len(X) else np.zeros(0)
    called = card.predicts_positive(scores - card.threshold)
    pos, neg = events == 1, events == 0
    tp, fp = float(np.sum(called & pos)), float(np.sum(called & neg))
    fn, tn = float(np.sum(~called & pos)), float(np.sum(~called & neg))
    out = {
        "rows": (len(events), nan, nan, ""),
        "event rate": (*ev.proportion(pos.sum(), len(events), confidence), ""),
        "AUC": (*ev.delong_auc(scores, events, confidence)[:3], ""),
        "TPR": (*ev.proportion(tp, tp + fn, confidence), f"{tp:.0f}/{tp + fn:.0f}"),
        "FPR": (*ev.proportion(fp, fp + tn, confidence), f"{fp:.0f}/{fp + tn:.0f}"),
        "PPV": (*ev.proportion(tp, tp + fp, confidence), f"{tp:.0f}/{tp + fp:.0f}"),
        "NPV": (*ev.proportion(tn, tn + fn, confidence), f"{tn:.0f}/{tn + fn:.0f}"),
    }
    if family_of_card(card).predicts_risk and len(events):
        out.update(_calibration_figures(card.predicted_risk(scores), events, confidence))
    frame = pd.DataFrame.from_dict(
        out, orient="index", columns=["estimate", "lower", "upper", "detail"]
    )
    frame.index.name = "figure"
    return frame


def _calibration_figures(risk: np.ndarray, events: np.ndarray, confidence: float) -> dict:
    nan = float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # one-class groups give NaN, said as "–"
        stat, df, p, _ = ev.hosmer_lemeshow(risk, events)
        return {
            "calibration-in-the-large": (
                *ev.calibration_in_the_large(risk, events, confidence),
                "",
            ),
            "calibration slope": (*ev.calibration_slope(risk, events, confidence), ""),
            "observed / expected": (events.sum() / risk.sum(), nan, nan, ""),
            "Brier score": (ev.brier_score(risk, events), nan, nan, ""),
            "Hosmer-Lemeshow": (
                stat,
                nan,
                nan,
                "" if np.isnan(stat) else f"(df {df}, {_p_value(p)})",
            ),
        }


def _three(v: float) -> str:
    """Three decimals, without the sign of a value that rounds to zero."""
    return f"{0.0 if abs(v) < 5e-4 else v:.3f}"


def _p_value(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _per_score(
    card: ScoringSystem, X: pd.DataFrame, events: np.ndarray, confidence: float
) -> pd.DataFrame:
    labels = np.where(
        events == 1, np.array(card.positive, dtype=object), np.array(card.negative, dtype=object)
    )
    table = risk_table(card, X, labels, confidence)
    table = table.rename(
        columns={"count": "rows", "rate": "observed", "predicted": "called positive"}
    )
    if family_of_card(card).predicts_risk:
        table["predicted risk"] = card.predicted_risk(table.index.to_numpy())
    return table


def _decision_curve(
    card: ScoringSystem, X: pd.DataFrame, events: np.ndarray, thresholds: np.ndarray
) -> pd.DataFrame:
    if not len(events):
        return pd.DataFrame(columns=["card", "treat all", "treat none"])
    if family_of_card(card).predicts_risk:
        return ev.decision_curve(events, thresholds, risk=_risk(card, X))
    return ev.decision_curve(events, thresholds, treat=card.predict(X).to_numpy() == card.positive)


# the figures of label cards, asked of their families by validate
for _family in (DECISION, RISK):
    _family.validates_with(validate_labels)
