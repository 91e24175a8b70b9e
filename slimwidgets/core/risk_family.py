"""Risk cards (RiskSLIM's logistic loss, FasterRisk's multiplier) as one family object.

A risk card's integer score maps to a predicted risk, ``1 / (1 + exp(-s / m))``; its loss on
the training rows is :class:`~slimwidgets.core.losses.LogisticLoss` (value and the scan of one
coefficient's values); its solvers (:mod:`slimwidgets.solvers.logistic`, the branch and bound
by supports, the cutting planes) register themselves on its loss, which the driver asks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .card_family import CardFamily
from .losses import LogisticLoss

__all__ = ["RiskFamily", "RISK"]


class RiskFamily(CardFamily):
    """Risk cards: integer points and a multiplier, a predicted risk per score
    (``loss="logistic"``).

    Examples
    --------
    >>> RISK.objective, RISK.predicts_risk, RISK.measures
    ('log-loss', True, ('log_loss', 'auc', 'n'))
    """

    name = "risk"
    loss_name = LogisticLoss.name
    card_labels = ("risk",)
    objective = "log-loss"
    measures = ("log_loss", "auc", "n")
    predicts_risk = True
    search_holds_groups = True
    chooses_size_by_cv = True
    # on the fewest cut points only: a proof over risk cards grows with the rules' supports, and
    # fold cards left unproven in their share of the time would compare the time, not the cuts
    chooses_cuts_by_cv = False
    held_out_measure = "log-loss"

    def row_losses(self, card: Any, X: Any, y: Any) -> Any:
        """Each row's log-loss, ``-log`` of the risk the card gave its label.

        A risk card is judged on held-out rows by the log-loss, not by its error: its use is the
        risk it predicts, and the error only asks on which side of 50 % a risk falls (two cards
        that differ only in their risks below 50 % tie on error). The log-loss is also what its
        fit minimises, so a larger card is kept only where its risks hold on new rows.
        """
        positive = np.asarray(y, dtype=object) == card.positive
        margin = (np.asarray(card.score(X), dtype=float) + card.intercept) / card.multiplier
        # -log(risk) for events, -log(1 - risk) otherwise, without overflow at extreme totals
        return np.logaddexp(0.0, np.where(positive, -margin, margin))

    def figures(self, card: Any, X: Any, y: Any) -> dict[str, float]:
        """The card's log-loss and the AUC of its score on ``X, y``."""
        m = card.metrics(X, y)
        return {"log-loss": float(m.log_loss), "AUC": float(m.auc)}


#: the one risk-card family object
RISK = RiskFamily()
# the loss of a card on the rows of a Dataset: the weighted mean logistic loss; its problem,
# search, walk, scan and floors are registered by the solver modules that define them
RISK.loss.holds(value=LogisticLoss)
