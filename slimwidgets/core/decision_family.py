"""Decision cards (SLIM, the 0-1 loss) as one family object.

A decision card predicts a class: positive when its integer score passes its threshold. Its
solvers (search, walk, the integer programs) work on :mod:`~slimwidgets.core.formulation`; its
loss on the training rows is :class:`~slimwidgets.core.losses.ZeroOneLoss`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .card_family import CardFamily
from .losses import ZeroOneLoss

__all__ = ["DecisionFamily", "DECISION"]


class DecisionFamily(CardFamily):
    """Decision cards: integer points, a threshold, a class per row (``loss="zero_one"``).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> DECISION.optimised_measure(SimpleNamespace(max_fpr=0.2, min_tpr=None))
    'tpr'
    >>> tilm, risk = SimpleNamespace(family="tilm"), SimpleNamespace(family="risk")
    >>> DECISION.makes(tilm), DECISION.makes(risk)
    (True, False)
    """

    name = "decision"
    loss_name = ZeroOneLoss.name
    card_labels = ("slim", "pilm", "m_of_n", "tilm")
    objective = "error"
    measures = ("error", "tpr", "fpr", "n")
    holds_band_rows = True
    chooses_size_by_cv = True
    chooses_cuts_by_cv = True
    held_out_measure = "error"
    samples_large_tables = True

    def optimised_measure(self, spec: Any) -> str:
        """``"tpr"`` under a max-FPR cap alone (the most sensitive card under the cap),
        ``"fpr"`` under a min-TPR floor alone, else ``"error"``."""
        if spec.max_fpr is not None and spec.min_tpr is None:
            return "tpr"
        if spec.min_tpr is not None and spec.max_fpr is None:
            return "fpr"
        return "error"

    def row_losses(self, card: Any, X: Any, y: Any) -> Any:
        """1 for each row the card labels wrongly, else 0: the held-out score is the error a
        decision card is fitted to lower."""
        return (np.asarray(card.predict(X)) != np.asarray(y)).astype(float)

    def held_out_words(self, value: float) -> str:
        """A held-out error as a percentage, one decimal."""
        return f"{100 * value:.1f} %"

    def figures(self, card: Any, X: Any, y: Any) -> dict[str, float]:
        """The card's error, TPR and FPR on ``X, y`` (shares of the weighted rows)."""
        m = card.metrics(X, y)
        return {"error": m.error, "TPR": m.tpr, "FPR": m.fpr}


#: the one decision-card family object
DECISION = DecisionFamily()
# the loss of a card on the rows of a Dataset: the weighted share misclassified; its MIP/LP, scan
# and floor are registered by the modules that define them (formulation, solvers)
DECISION.loss.holds(value=ZeroOneLoss)
