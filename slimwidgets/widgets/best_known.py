"""The best card known for the studio's settings: a card found by background work (the
alternatives, the frontier, the size path) that meets every setting and beats the card shown
on the settings' own objective becomes the card, with what was proven restated for it. Decision
cards are judged by their objective under the settings (error, or TPR under a cap, and the cost of
their points), risk cards by theirs (mean log-loss and the cost of their points)."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from ..core.data import Dataset
from ..core.family import family_of_card, family_of_loss
from ..core.formulation import Formulation
from ..core.scoring import ScoringSystem
from ..core.spec import Spec
from ..fitting import card_from_result, check_card
from ..fitting.risk_driver import risk_card_of
from ..solvers.base import SolveResult, relative_gap
from .card_status import cost_text, optimised_measure, status_of

if TYPE_CHECKING:
    from collections.abc import Callable

    from .studio_core import StudioCore

__all__ = ["BestKnown", "BestKnownControls", "PROMOTABLE"]

# a better card from background work replaces only a card the studio solved (not one the user
# edited, loaded or went back to)
PROMOTABLE = ("solve", "cache", "promote")
# objectives closer than this are ties: among cards with equal figures the one shown stays
TIE = 1e-9


class BestKnown:
    """Judges cards offered by background work against the card shown, for one data set."""

    def __init__(self, data: Dataset):
        self.data = data
        self._forms: dict[
            str, Formulation
        ] = {}  # spec key -> its formulation (built once, on demand)

    def _form(self, spec: Spec) -> Formulation:
        key = spec.key()
        if key not in self._forms:
            self._forms = {
                key: family_of_loss(spec.loss).loss.problem(self.data, spec)
            }  # only the current spec's is needed
        return self._forms[key]

    def better(
        self, spec: Spec, shown: ScoringSystem, candidate: ScoringSystem
    ) -> ScoringSystem | None:
        """``candidate`` as a card of ``spec`` when it meets every setting of ``spec`` and its
        objective under ``spec`` is lower than ``shown``'s (the solved card of ``spec``); else None.

        The bound proven for ``shown`` holds for every card of ``spec``, so the new card keeps
        it: "optimal" when the bound reaches the new card's objective, else "feasible" with the
        gap that is left. A risk card is judged the same way on its objective (mean log-loss and
        the cost of its points; its multiplier must be one ``spec`` allows).
        """
        if (
            shown.family != candidate.family
            or not (shown.family == "slim" or family_of_card(shown).predicts_risk)
            or shown.status == "optimal"
        ):
            return None
        if (
            candidate.coefficients == shown.coefficients
            and candidate.intercept == shown.intercept
            and candidate.multiplier == shown.multiplier
        ):
            return None
        if tuple(candidate.feature_names) != tuple(self.data.feature_names):
            return None  # found on the rules of other cut points
        if check_card(candidate, self.data, spec):
            return None
        if family_of_card(shown).predicts_risk:
            return self._better_risk(spec, shown, candidate)
        form = self._form(spec)
        now = form.objective_of(np.asarray(shown.coefficients, dtype=float), shown.intercept)
        new = form.objective_of(
            np.asarray(candidate.coefficients, dtype=float), candidate.intercept
        )
        if not new < now - TIE * max(1.0, abs(now)):
            return None
        bound = shown.bound if shown.bound is not None and math.isfinite(shown.bound) else -math.inf
        gap = relative_gap(new, bound)
        result = SolveResult(
            "optimal" if gap == 0.0 else "feasible",
            np.asarray(candidate.coefficients),
            int(candidate.intercept),
            new,
            min(bound, new),
            gap,
            shown.solve_time or 0.0,
            candidate.solver,
        )
        return card_from_result(self.data, spec, form, result)

    def _better_risk(
        self, spec: Spec, shown: ScoringSystem, candidate: ScoringSystem
    ) -> ScoringSystem | None:
        """A risk ``candidate`` as a card of ``spec`` when its objective beats ``shown``'s."""
        card = risk_card_of(self.data, spec, candidate, elapsed=shown.solve_time or 0.0)
        now = shown.objective
        if card is None or now is None or not card.objective < now - TIE * max(1.0, abs(now)):
            return None
        if shown.bound is None or not math.isfinite(shown.bound):
            return card
        bound = min(shown.bound, card.objective)
        gap = relative_gap(card.objective, bound)
        return replace(card, status="optimal" if gap == 0.0 else "heuristic", bound=bound, gap=gap)


class BestKnownControls:
    """The best card known, in the studio (a feature object: the judge of better cards of the
    studio's core decides, its undo history and cache take the new card).

    Parameters
    ----------
    core : the studio's core.
    push_card : shows a card settled for a spec as one undo step (the controller's
        :meth:`~slimwidgets.widgets.controller.Controller.push_card`).
    on_better : told ``(spec, card)`` of each better card shown (the frontier and the size path
        take it among their points).
    """

    def __init__(
        self,
        core: StudioCore,
        push_card: Callable[..., None],
        on_better: Callable[[Spec, ScoringSystem], None],
    ) -> None:
        self._core, self._push_card, self._on_better = core, push_card, on_better

    def offer(self, cards: list[ScoringSystem] | ScoringSystem | None, source: str) -> bool:
        """Cards found by background work (``source`` names it: "the alternatives search"...):
        the best of those that meet every setting and beat the card shown becomes the card, one
        undo step, said in one line, what was proven restated for it. True when it did."""
        cards = [
            c
            for c in (cards if isinstance(cards, list) else [cards])
            if isinstance(c, ScoringSystem)
        ]
        with self._core.lock:
            shown, spec, gen = self._core.card, self._core.spec, self._core.generation
            entries = self._core.undo.entries
            if (
                not cards
                or shown is None
                or self._core.closed
                or self._core.status.state == "solving"
                or not entries
                or entries[-1].action not in PROMOTABLE
                or shown.spec is None
                or shown.spec.key() != spec.key()
            ):
                return False
        found = [
            b for b in (self._core.best.better(spec, shown, c) for c in cards) if b is not None
        ]
        if not found:
            return False
        best = self._core.measured(min(found, key=lambda b: b.objective))
        with self._core.lock:
            if self._core.generation != gen or self._core.card is not shown:
                return False  # the screen moved on meanwhile
            self._core.solver.store(spec, best)
            self._push_card(best, spec, status_of(best), "promote", None)
            change = cost_text(best.train_metrics, shown.train_metrics, optimised_measure(spec))
            self._core.say(
                f"{source} found a better card for these settings ({change}): it is the card now "
                "· undo goes back"
            )
        self._on_better(spec, best)
        self._core.emit("card", "notice", "alternatives")
        return True

    def offer_cached(self) -> None:
        """After a solve settles: a card solved for other settings (a tighter cap, a smaller
        size) that meets these and beats the solved card becomes the card."""
        with self._core.lock:
            cards = [c for c in self._core.cache.values() if isinstance(c, ScoringSystem)]
        self.offer(cards, "background work (the frontier or the size path)")
