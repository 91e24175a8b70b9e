"""Near-optimal cards with different features: the Rashomon view of one problem.

Many cards are almost as good as the best one, and a user may prefer one whose features are
cheaper to collect or easier to defend. :func:`alternatives` lists them: it fits the best card,
then forbids its feature set (an ``at_most(size - 1, features)`` constraint: never all of
these together) and fits again, until ``k`` cards are found or the next one is worse than the
first by more than ``within``. Each card is an ordinary fit under the spec plus those
exclusions, so it keeps every constraint and says how it was obtained (``optimal`` then
means: optimal among the cards that do not reuse an earlier card's whole feature set).
"""

from __future__ import annotations

import threading
from typing import Any

from ..core.data import prepare_data
from ..core.fitting import InfeasibleError, NoSolutionError, fit_dataset
from ..core.scoring import ScoringSystem
from ..core.spec import at_most, make_spec

__all__ = ["alternatives"]


def alternatives(X: Any, y: Any, *, k: int = 10, within: float = 0.02, positive: Any = None,
                 sample_weight: Any = None, cancel: threading.Event | None = None,
                 **options: Any) -> list[ScoringSystem]:
    """Up to ``k`` near-optimal cards, each using a feature set no earlier card used whole.

    Parameters
    ----------
    X, y, positive, sample_weight : as in :func:`slimwidgets.fit`.
    k : most cards to return.
    within : keep cards whose objective exceeds the first card's by at most this much, in
        the objective's units: training error (a share of rows, so 0.02 is 2 points of
        error) for decision cards, mean log-loss for risk cards (``loss="logistic"``).
    cancel : a ``threading.Event``; setting it returns the cards found so far.
    **options : the spec, as for :func:`slimwidgets.fit` (both loss families).

    Returns
    -------
    list of ScoringSystem
        Best first; each carries its ``train_metrics`` (and risk table).

    Examples
    --------
    >>> import pandas as pd, slimwidgets as sw
    >>> X = pd.DataFrame({"a": [1, 1, 0, 0, 1, 0], "b": [1, 1, 0, 0, 1, 1]})
    >>> cards = sw.alternatives(X, [1, 1, 0, 0, 1, 0], k=3, within=0.2, max_size=1)
    >>> [(list(c.points), round(c.train_metrics.error, 3)) for c in cards]
    [(['a'], 0.0), (['b'], 0.167)]
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a whole number >= 1, got {k!r}")
    if not 0 <= within:
        raise ValueError(f"within must be >= 0, got {within!r}")
    data = prepare_data(X, y, positive=positive, sample_weight=sample_weight)
    spec = make_spec(**options)
    cards: list[ScoringSystem] = []
    while len(cards) < k and not (cancel is not None and cancel.is_set()):
        try:
            card = fit_dataset(data, spec, cancel=cancel)
        except (InfeasibleError, NoSolutionError):
            break  # every feature set is used up (or nothing else meets the spec)
        if cards and card.objective > cards[0].objective + within:
            break
        cards.append(card)
        used = list(card.points)
        if not used:
            break  # the empty card: nothing left to forbid
        spec = spec.replace(constraints=list(spec.constraints) + [at_most(len(used) - 1, used)])
    return cards
