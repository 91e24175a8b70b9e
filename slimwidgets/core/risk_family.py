"""Risk cards (RiskSLIM's logistic loss, FasterRisk's multiplier) as one family object.

A risk card's integer score maps to a predicted risk, ``1 / (1 + exp(-s / m))``; its loss on
the training rows is :class:`~slimwidgets.core.losses.LogisticLoss` (value and the scan of one
coefficient's values); its solvers are :mod:`slimwidgets.solvers.logistic` and the
branch and bound by supports.
"""

from __future__ import annotations

from typing import Any

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

    def figures(self, card: Any, X: Any, y: Any) -> dict[str, float]:
        """The card's log-loss and the AUC of its score on ``X, y``."""
        m = card.metrics(X, y)
        return {"log-loss": float(m.log_loss), "AUC": float(m.auc)}


#: the one risk-card family object
RISK = RiskFamily()
# the loss of a card on the rows of a Dataset: the weighted mean logistic loss
RISK.loss.holds(value=LogisticLoss)
