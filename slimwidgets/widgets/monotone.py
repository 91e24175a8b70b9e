"""Numeric variables whose bands' points go up and down, pointed out beside the card, without
Jupyter.

A clinician reads ``weight < 110: 0 · 110–121: −5 · 122–149: −1 · ≥ 150: −5`` as noise: risk
rarely falls, rises and falls again with a body measure. For each such variable of the card on
screen, :class:`MonotoneAdvice` names the monotone setting that would fix it (the direction the
bands mostly go) and solves the card under it on a worker of its own, through the controller's
cache: the pointer then says what the setting costs in the user's units (error, TPR, FPR
against the card shown, proven or not), and a click on it (:meth:`Controller.set_monotone`, one
undo step) shows that card from the cache at once.
"""

from __future__ import annotations

import json
import threading
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..core.family import family_of_loss
from ..core.scoring import ScoringSystem
from ..core.spec import Spec
from ..core.variables import variable_entries
from .card_status import change_text
from .scheduler import BackgroundQueue

if TYPE_CHECKING:
    from collections.abc import Callable

    from .studio_core import StudioCore

__all__ = ["MonotoneAdvice", "bumpy_variables", "DIRECTION_WORDS"]

#: The words of each direction, as the variable settings panel shows them.
DIRECTION_WORDS = {"+": "increasing", "-": "decreasing"}


def bumpy_variables(card: ScoringSystem | None, spec: Spec) -> list[tuple[str, list[int], str]]:
    """The card's numeric variables whose bands' points both rise and fall from low to high
    values, and that no monotone setting binds yet: ``(variable, band points, direction)``, the
    direction (``"+"`` or ``"-"``) the one its steps mostly take (the larger sum of steps; rising
    on a tie).

    Parameters
    ----------
    card : ScoringSystem or None
        The card on screen (one with rules from a raw table; else there is nothing to point out).
    spec : Spec
        The settings in force.

    Returns
    -------
    list of tuple
        One entry per such variable, in the columns' order.

    Examples
    --------
    >>> import pandas as pd
    >>> from slimwidgets.core.rules import RuleBuilder
    >>> from slimwidgets.core.spec import make_spec
    >>> b = RuleBuilder(cuts={"w": [110, 150]}).fit(pd.DataFrame({"w": [100, 120, 160]}))
    >>> card = ScoringSystem(["w >= 110", "w >= 150"], [-5, 4], 0, rules=b)
    >>> bumpy_variables(card, make_spec())
    [('w', [0, -5, -1], '-')]
    """
    if card is None or card.rules is None or not hasattr(card.rules, "rules_"):
        return []
    points = dict(zip(card.feature_names, (int(c) for c in card.coefficients)))
    out = []
    for variable in dict.fromkeys(r.column for r in card.rules.rules_):
        if variable in spec.monotone:
            continue
        mine = [r for r in card.rules.rules_ if r.column == variable]
        bands = [
            p
            for _, p, _, kind in variable_entries(
                mine, points, card.rules.integer_.get(variable, False), []
            )
            if kind == "band"
        ]
        steps = [b - a for a, b in zip(bands, bands[1:])]
        rises, falls = sum(s for s in steps if s > 0), -sum(s for s in steps if s < 0)
        if rises and falls:
            out.append((variable, bands, "+" if rises >= falls else "-"))
    return out


class MonotoneAdvice:
    """The monotone pointers of the studio's card, each with its cost once solved.

    Parameters
    ----------
    core : StudioCore
        The studio's core: its card, spec, cache and events.
    solve : callable
        Solves a spec on the rows in use, ``solve(spec, cancel)`` (None: interrupted).
    store : callable
        Caches ``store(spec, result)`` with the rows it was solved on.
    """

    def __init__(
        self,
        core: StudioCore,
        solve: Callable[..., Any],
        store: Callable[[Spec, Any], None],
    ):
        self._core, self._solve, self._store = core, solve, store
        self._lock = threading.Lock()
        self._pointers: list[tuple[str, list[int], str, str]] = []  # (+ the setting's spec key)
        self.queue = BackgroundQueue(self._job, name="monotone")
        core.subscribe(self._on_event)

    def _on_event(self, events: set[str]) -> None:
        if "card" in events or "spec" in events:
            self.plan()

    def plan(self) -> None:
        """Follow the card on screen: once it is solved (not while a solve runs, nor an edit),
        point out its bumpy variables and solve each monotone setting in the background."""
        c = self._core
        with c.lock:
            card, spec = c.card, c.spec
            settled = (
                not c.solving and card is not None and card.status != "edited" and not c.closed
            )
            if settled and card.rules is None and c.rules is not None:
                card = replace(card, rules=c.rules)  # a loaded card: the studio's rules are its
            found = (
                bumpy_variables(card, spec)
                if settled and family_of_loss(spec.loss).holds_band_rows
                else []
            )
            pointers = []
            for variable, bands, direction in found:
                try:
                    key = spec.replace(monotone={**spec.monotone, variable: direction}).key()
                except (ValueError, TypeError):  # the variable's locks or signs forbid it
                    continue
                pointers.append((variable, bands, direction, key))
        with self._lock:
            changed = pointers != self._pointers
            self._pointers = pointers
        self.queue.set_plan([p[3] for p in pointers], done=lambda key: key in c.cache)
        if changed:
            c.emit("advice")

    def _job(self, key: str, cancel: threading.Event) -> None:
        c = self._core
        if key in c.cache:
            return
        spec = Spec.from_dict(json.loads(key))
        result = self._solve(spec, cancel)
        if result is None:
            return
        self._store(spec, result)
        c.emit("advice")

    def view(self) -> list[dict[str, Any]]:
        """The pointers as the card view draws them: ``{"variable", "choice", "text", "cost",
        "ready"}`` each (``choice``: the panel's word for the setting; ``cost``: what it changes,
        or that it is being solved)."""
        c = self._core
        with self._lock:
            pointers = list(self._pointers)
        now = c.card
        out = []
        for variable, bands, direction, key in pointers:
            words = DIRECTION_WORDS[direction]
            shown = " · ".join(str(p).replace("-", "\u2212") for p in bands)
            result = c.cache.get(key)
            out.append(
                {
                    "variable": variable,
                    "choice": words,
                    "text": f"{variable}'s points go up and down ({shown})",
                    "action": f"make {variable} {words}",
                    "cost": _cost_text(result, now),
                    "ready": isinstance(result, ScoringSystem),
                }
            )
        return out

    def close(self, timeout: float) -> bool:
        return self.queue.close(timeout)


def _cost_text(result: Any, now: ScoringSystem | None) -> str:
    """What the monotone card changes against the card shown, in percentage points."""
    if result is None:
        return "its cost is being solved\u2026"
    if not isinstance(result, ScoringSystem):
        return "no card meets these settings with it"
    if now is None or now.train_metrics is None or result.train_metrics is None:
        return ""
    m, n = result.train_metrics, now.train_metrics
    figures = " · ".join(
        f"{label} {change_text(getattr(m, k) - getattr(n, k))}"
        for k, label in (("error", "error"), ("tpr", "TPR"), ("fpr", "FPR"))
    )
    how = (
        "proven best under it"
        if result.status == "optimal"
        else "best found in its time limit, not proven"
    )
    return f"cost: {figures} ({how})"
