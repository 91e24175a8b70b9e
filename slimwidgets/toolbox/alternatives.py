"""Near-optimal cards with different features: the Rashomon view of one problem.

Many cards are almost as good as the best one, and a user may prefer one whose features are
cheaper to collect or easier to defend. :func:`alternatives` lists them: it fits the best card,
then forbids its feature set (an ``at_most(size - 1, features)`` constraint: never all of
these together) and fits again, until ``k`` cards are found or the next one is worse than the
first by more than ``within``. Each card is an ordinary fit under the spec plus those
exclusions, so it keeps every constraint; each is checked against the spec again before it
is returned.

What the list claims is exact only when every fit was proven optimal, and the list says so
(:attr:`Alternatives.complete`): then every card of the spec whose objective is within
``within`` of the best either uses one of the listed feature sets or all the features of one
of them and more. A card that merely adds features to a listed one is not listed: it is
the same card with something added, not an alternative to it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from ..core.data import Dataset, group_column_apart, prepare_data
from ..core.family import family_of_card
from ..core.losses import sigmoid
from ..core.rules import rules_from_options
from ..core.scoring import ScoringSystem, score_auc
from ..core.spec import Spec, at_most, make_spec
from ..core.status import LimitScale
from ..fitting import InfeasibleError, NoSolutionError, check_card, fit_dataset

__all__ = ["alternatives", "Alternatives", "risk_figures"]

#: why a search stopped, in words a user reads under the list
STOPS = {
    "margin": "the next card is more than the margin worse",
    "exhausted": "no other feature set meets the settings",
    "k": "the list is full",
    "unproven": "a fit stopped before it proved its card best",
    "cancelled": "the search was stopped",
    "empty": "the best card uses no feature",
}


class Alternatives(list):
    """The cards of :func:`alternatives`, best first, and how the search ended.

    Attributes
    ----------
    stopped : why the search ended: one of ``"margin"``, ``"exhausted"``, ``"k"``,
        ``"unproven"``, ``"cancelled"``, ``"empty"`` (see :data:`STOPS`).
    complete : True when the list is exhaustive: every fit was proven optimal and the search
        ended at the margin, or because no other feature set is feasible (or the best card is
        empty). Then no card within the margin is missing but those that add features to a
        listed card. False otherwise: other cards within the margin may exist.
    within : the margin asked for, in the figure named by ``measure``.
    measure : what ``within`` is measured on: ``"error"``, ``"tpr"``, ``"fpr"`` (shares),
        ``"log-loss"``, or ``"objective"`` (the objective's own units).
    margin : ``within`` in the objective's units (what the search compared).
    """

    stopped: str = "cancelled"
    within: float = 0.0
    measure: str = "objective"
    margin: float = 0.0

    @property
    def complete(self) -> bool:
        proven = all(c.status == "optimal" for c in self)
        return proven and self.stopped in ("margin", "exhausted", "empty")

    @property
    def reason(self) -> str:
        """Why the search ended, in words."""
        return STOPS[self.stopped]


def alternatives(
    X: Any,
    y: Any,
    *,
    k: int = 10,
    within: float = 0.02,
    positive: Any = None,
    sample_weight: Any = None,
    cancel: threading.Event | None = None,
    sensitive_features: Any = None,
    **options: Any,
) -> Alternatives:
    """Up to ``k`` near-optimal cards, each using a feature set no earlier card used whole.

    Parameters
    ----------
    X, y : as in :func:`slimwidgets.fit` (a raw table too; ``rules`` and ``cuts`` as there: the
        rules are built once and every card carries them).
    k : most cards to return.
    within : how much worse than the best card a card may be, in the figure the spec
        optimises: for decision cards the training error (a share of rows: 0.02 is 2 points
        of error), or under ``max_fpr`` the TPR (0.02: 2 points of TPR), under ``min_tpr``
        the FPR; for risk cards (``loss="logistic"``) the mean log-loss. The comparison is
        made on ``fit``'s objective, that figure's cost plus what the size costs (``C0`` per
        feature, and a tie-break smaller than one row that favours fewer points), so a card
        with more features needs a slightly better figure to stay in. When the scores have no
        common step (real-valued features) the objective has no such reading and ``within``
        is in the objective's own units (:attr:`Alternatives.measure` is then "objective").
    positive, sample_weight : as in :func:`slimwidgets.fit`.
    cancel : a ``threading.Event``; setting it returns the cards found so far.
    sensitive_features : the groups of the group options, as for :func:`slimwidgets.fit`.
    **options : the spec, as for :func:`slimwidgets.fit` (both loss families).

    Returns
    -------
    Alternatives
        A list of :class:`~slimwidgets.ScoringSystem`, best first; each carries its
        ``train_metrics`` (and risk table). ``status="optimal"`` on the n-th card means
        optimal among the cards that do not use all the features of an earlier one.
        ``.complete`` says whether the list is exhaustive (see :class:`Alternatives`);
        ``.stopped`` why the search ended.

    Examples
    --------
    >>> import pandas as pd, slimwidgets as sw
    >>> X = pd.DataFrame({"a": [1, 1, 0, 0, 1, 0], "b": [1, 1, 0, 0, 1, 1]})
    >>> cards = sw.alternatives(X, [1, 1, 0, 0, 1, 0], k=3, within=0.2, max_size=1)
    >>> [(list(c.points), round(c.train_metrics.error, 3)) for c in cards]
    [(['a'], 0.0), (['b'], 0.167)]
    >>> cards.complete, cards.reason
    (True, 'the next card is more than the margin worse')
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a whole number >= 1, got {k!r}")
    if not 0 <= within:
        raise ValueError(f"within must be >= 0, got {within!r}")
    X, groups = group_column_apart(X, sensitive_features)
    X, builder, options = rules_from_options(X, options)
    data = prepare_data(
        X, y, positive=positive, sample_weight=sample_weight, sensitive_features=groups
    )
    cards = search_alternatives(data, make_spec(**options), k=k, within=within, cancel=cancel)
    if builder is not None:  # every card applies the same rules to raw rows
        cards[:] = [replace(card, rules=builder) for card in cards]
    return cards


def search_alternatives(
    data: Dataset,
    spec: Spec,
    *,
    k: int = 10,
    within: float = 0.02,
    cancel: threading.Event | None = None,
    first: ScoringSystem | None = None,
    on_card: Callable[[ScoringSystem], None] | None = None,
) -> Alternatives:
    """:func:`alternatives` on a prepared :class:`Dataset` (the studio calls this).

    ``first`` is the best card of ``spec`` when the caller has it already (it is not fitted
    again); ``on_card`` receives each card as soon as it is found.
    """
    cards = Alternatives()
    cards.within = float(within)
    base, narrowed = spec, spec
    while len(cards) < k:
        if cancel is not None and cancel.is_set():
            cards.stopped = "cancelled"
            return cards
        card, why = _next_card(data, narrowed, cancel, first if not cards else None)
        if card is None:
            cards.stopped = why
            return cards
        if not cards:
            cards.margin, cards.measure = objective_margin(card, within)
        elif card.objective > cards[0].objective + cards.margin:
            # a better card within the margin may hide behind an unproven fit
            cards.stopped = "margin" if card.status == "optimal" else "unproven"
            return cards
        broken = check_card(card, data, base)
        if broken:  # a solver fault: never hand the user a card that breaks the settings
            raise RuntimeError("an alternative broke the settings: " + "; ".join(broken))
        cards.append(card)
        if on_card is not None:
            on_card(card)
        used = list(card.points)
        if not used:
            cards.stopped = "empty"  # nothing left to forbid
            return cards
        narrowed = narrowed.replace(
            constraints=list(narrowed.constraints) + [at_most(len(used) - 1, used)]
        )
    cards.stopped = "k"
    return cards


def _next_card(
    data: Dataset, spec: Spec, cancel: threading.Event | None, given: ScoringSystem | None
) -> tuple[ScoringSystem | None, str]:
    """The best card of ``spec`` (or ``given``), or None and why there is none."""
    if given is not None:
        return given, ""
    try:
        card = fit_dataset(data, spec, cancel=cancel)
    except InfeasibleError:
        return None, "exhausted"  # every feature set is used up (or nothing else meets the spec)
    except NoSolutionError:
        return None, "cancelled" if cancel is not None and cancel.is_set() else "unproven"
    if card.status == "interrupted" or (cancel is not None and cancel.is_set()):
        return None, "cancelled"
    return card, ""


def objective_margin(card: ScoringSystem, within: float) -> tuple[float, str]:
    """``within`` (in the figure the spec optimises) in ``card``'s objective units, and that
    figure's name. A decision card's objective charges ``per_error`` for each unit of counted
    weight (rows, positives or negatives; see :class:`~slimwidgets.core.status.LimitScale`),
    so a share ``within`` of that class costs ``within * total * per_error``."""
    family = family_of_card(card)
    if family.predicts_risk:
        return float(within), family.objective
    raw = (card.details or {}).get("limits")
    if raw is None:
        return float(within), "objective"
    scale = raw if isinstance(raw, LimitScale) else LimitScale.from_dict(raw)
    return float(within) * scale.total * scale.per_error, scale.kind


def risk_figures(card: ScoringSystem, data: Dataset) -> tuple[float, float]:
    """(mean log-loss, AUC) of ``card``'s predicted risk on ``data`` (weighted rows).

    AUC counts a tie between a positive and a negative as half a correct pair.

    Examples
    --------
    >>> import numpy as np, slimwidgets as sw
    >>> from slimwidgets.core.data import prepare_data
    >>> card = sw.ScoringSystem(("a",), (2,), -1, family="risk", multiplier=1.0)
    >>> loss, auc = risk_figures(card, prepare_data(np.array([[1], [0], [1], [0]]), [1, 0, 0, 0]))
    >>> round(loss, 4), auc
    (0.5633, 0.8333333333333334)
    """
    scores = data.X @ np.asarray(card.coefficients, dtype=float) + card.intercept
    p = sigmoid(scores / (card.multiplier or 1.0))
    pos, w = data.y == 1, data.weight
    eps = 1e-15  # a predicted risk of exactly 0 or 1 would make the loss infinite
    loss = -np.where(pos, np.log(np.clip(p, eps, 1)), np.log(np.clip(1 - p, eps, 1)))
    return float((w * loss).sum() / w.sum()), score_auc(scores, pos, w)


def as_alternative(card: ScoringSystem, spec: Spec, rank: int) -> ScoringSystem:
    """The ``rank``-th card (1 = the best) as a card of ``spec`` itself: the extra exclusions
    go, and a later card, optimal only among those that avoid earlier feature sets, is no
    longer called optimal, nor does it keep a bound that held only for that narrower problem."""
    if rank == 1:
        return card
    # its bound by work, like its bound, held for the narrower problem only
    details = {k: v for k, v in card.details.items() if k != "bound_by_work"}
    details["alternative"] = rank
    return replace(card, spec=spec, status="feasible", bound=None, gap=None, details=details)
