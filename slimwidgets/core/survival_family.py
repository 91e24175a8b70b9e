"""The time-to-event card family as one object: what the driver, the proof and the card ask of it.

The family reads ``y`` (a ``Surv`` array), holds the loss (Cox's partial likelihood over a
support's cells, its value, gradient and Hessian) and the pieces built from it, each registered
by the module that defines it (its floors of a node's cone and of one card by
:mod:`~slimwidgets.core.cox_floor`; the problem, the rounded-Cox start and the proof by supports
by :mod:`slimwidgets.solvers.cox_tree`), its figures and its card's words. Code outside it asks
the object; it does not compare family names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from .card_family import CardFamily
from .survival import (
    CoxCells,
    CoxLoss,
    CoxRows,
    SurvivalTarget,
    harrell_c,
    is_survival_target,
    survival_target,
)
from .survival_metrics import dynamic_auc, integrated_brier, uno_c
from .survival_text import card_html, card_text, status_words

if TYPE_CHECKING:
    from .survival_card import SurvivalCard

__all__ = ["TimeToEventFamily", "TIME_TO_EVENT"]


class TimeToEventFamily(CardFamily):
    """Time-to-event cards: integer points and a multiplier for Cox's partial likelihood.

    Examples
    --------
    >>> y = np.array([(True, 2.0), (False, 5.0)], dtype=[("event", "?"), ("time", "<f8")])
    >>> reads = TIME_TO_EVENT.reads
    >>> reads(y, {}), reads([0, 1], {}), reads([0, 1], {"loss": "cox"})
    (True, False, True)
    """

    name = "time_to_event"
    #: the loss option that asks for this family (``loss="cox"``)
    loss_name = "cox"
    card_labels = ("time_to_event",)
    objective = "partial likelihood"

    def reads(self, y: Any, options: Mapping[str, Any]) -> bool:
        """Whether a fit of ``y`` under ``options`` is this family's: a ``Surv`` y, or
        ``loss="cox"``."""
        return is_survival_target(y) or options.get("loss") == self.loss_name

    def target(self, y: Any) -> SurvivalTarget:
        """The events and times of ``y``, checked
        (:func:`~slimwidgets.core.survival.survival_target`)."""
        return survival_target(y)

    def row_loss(
        self,
        X: np.ndarray,
        time: np.ndarray,
        event: np.ndarray,
        weight: np.ndarray,
        ties: str = "breslow",
    ) -> CoxLoss:
        """The loss of the rows ``X`` with many features: row by row for Breslow's ties
        (:class:`~slimwidgets.core.survival.CoxRows`), in cells for Efron's."""
        if ties == "breslow":
            return CoxRows(X, time, event, weight)
        return CoxCells(X, time, event, weight, ties)

    def figures(
        self,
        card: SurvivalCard,
        X: Any,
        y: Any,
        train: tuple[np.ndarray, np.ndarray] | None = None,
        grid: np.ndarray | None = None,
    ) -> dict[str, float]:
        """The card's figures on ``X, y``: Harrell's C; with ``train`` (its rows' times and
        events, for the censoring weights) or ``grid`` also Uno's C up to the last horizon, the
        time-dependent AUC at each horizon and their mean, and the Brier score integrated over
        ``grid`` (:mod:`~slimwidgets.core.survival_metrics`)."""
        target = survival_target(y)
        time, event, risk = target.time, target.event, card.predict(X)
        out = {"Harrell's C": harrell_c(time, event, risk)}
        if train is None and grid is None:
            return out
        train = (time, event) if train is None else train
        out["Uno's C"] = uno_c(time, event, risk, train, tau=max(card.horizons))
        aucs, mean = dynamic_auc(time, event, risk, card.horizons, train)
        out.update({f"AUC by {h:g}": float(a) for h, a in zip(card.horizons, aucs)})
        out["mean AUC"] = mean
        if grid is not None:
            survival = card.predict_survival_function(X, return_array=True)
            at = np.searchsorted(card.unique_times_, grid, side="right") - 1
            values = np.where(at >= 0, survival[:, np.maximum(at, 0)], 1.0)
            out["integrated Brier score"] = integrated_brier(time, event, values, grid, train)
        return out

    def card_text(self, card: SurvivalCard) -> str:
        """The card as plain text (:func:`~slimwidgets.core.survival_text.card_text`)."""
        return card_text(card)

    def card_html(self, card: SurvivalCard) -> str:
        """The card as an HTML fragment, names escaped
        (:func:`~slimwidgets.core.survival_text.card_html`)."""
        return card_html(card)

    def status_words(self, card: SurvivalCard) -> str:
        """What the card's proof says, in the loss's unit
        (:func:`~slimwidgets.core.survival_text.status_words`)."""
        return status_words(card)

    def details_words(self, card: SurvivalCard) -> str:
        """The solver that ended and its seconds."""
        return f"{card.solver}, {card.solve_time:.2f} s"

    def degeneracy(self, card: SurvivalCard) -> str | None:
        """None: a time-to-event card orders rows by risk; no class is predicted."""
        return None


#: the one time-to-event family object
TIME_TO_EVENT = TimeToEventFamily()
# the loss of the rows X (a support's columns) given time, event, weight and ties, merged into cells
TIME_TO_EVENT.loss.holds(value=CoxCells)
