"""The studio's undo/redo state: the settled states a user can walk back and forth, and the
log of every card shown (:attr:`UndoHistory.entries`, the controller's ``history``)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..core.scoring import Metrics, ScoringSystem
from ..core.spec import Spec
from .card_status import Status

if TYPE_CHECKING:
    from collections.abc import Callable

    from .studio_core import StudioCore

__all__ = ["HistoryEntry", "Settled", "UndoHistory", "UndoRedo"]


@dataclass(frozen=True)
class HistoryEntry:
    """One settled card as shown: the card (None when infeasible), its spec, how it came."""

    card: ScoringSystem | None
    spec: Spec
    action: str  # solve | cache | edit | lock | undo | redo | load | promote
    status: Status
    base: ScoringSystem | None = None  # for an edited card: the solved card it was edited from
    time: float = field(default_factory=time.time)

    @property
    def train_metrics(self) -> Metrics | None:
        return None if self.card is None else self.card.train_metrics

    @property
    def validation_metrics(self) -> Metrics | None:
        """The card's metrics on the held-out rows (None without validation data)."""
        return None if self.card is None else self.card.validation_metrics

    def __repr__(self) -> str:
        card = "no card" if self.card is None else repr(self.card)
        held_out = (
            "" if self.validation_metrics is None else f"; validation: {self.validation_metrics}"
        )
        return f"HistoryEntry({self.action}: {card}; {self.status.text}{held_out})"


@dataclass
class Settled:
    """An undo/redo state: the settings, the card shown for them, its status line."""

    spec: Spec
    card: ScoringSystem | None
    status: Status
    base: ScoringSystem | None = None
    table: Any = None  # the rules' table of a studio from a raw table (widgets/cuts.py), else None
    group: str | None = None  # the studio's group column (widgets/groups.py)
    apart: tuple[str, ...] = ()  # the rules the group column keeps off the card (widgets/groups.py)


class UndoHistory:
    """Settled states in order, a cursor on the one shown, and the log of every card shown.

    A new state drops the redo tail; walking back and forth logs the state reached.

    Examples
    --------
    >>> from slimwidgets.core.spec import Spec
    >>> h = UndoHistory()
    >>> for n in (1, 2, 3):
    ...     _ = h.push(Spec(max_size=n), None, Status("optimal", f"card {n}"), "solve")
    >>> h.go(h.cursor - 1, "undo").status.text, h.can_redo
    ('card 2', True)
    >>> _ = h.push(Spec(max_size=4), None, Status("optimal", "card 4"), "solve")
    >>> h.can_redo, [e.action for e in h.entries]
    (False, ['solve', 'solve', 'solve', 'undo', 'solve'])
    """

    def __init__(self) -> None:
        self.entries: list[HistoryEntry] = []
        self.states: list[Settled] = []
        self.cursor = -1
        self.group: str | None = None  # the group column new states are settled under
        self.apart: tuple[str, ...] = ()  # and the rules it keeps off the card

    def push(
        self,
        card: ScoringSystem | None,
        spec: Spec,
        status: Status,
        action: str,
        base: ScoringSystem | None = None,
        table: Any = None,
    ) -> Settled:
        """A new state after the one shown (the redo tail is dropped); logged."""
        self.drop_redo()
        state = Settled(spec, card, status, base, table, self.group, self.apart)
        self.states.append(state)
        self.cursor = len(self.states) - 1
        self.entries.append(HistoryEntry(card, spec, action, status, base))
        return state

    def log(
        self,
        card: ScoringSystem | None,
        spec: Spec,
        status: Status,
        action: str,
        base: ScoringSystem | None = None,
    ) -> None:
        """Log a card shown without a new state (a failed solve: the previous state stays)."""
        self.entries.append(HistoryEntry(card, spec, action, status, base))

    def drop_redo(self) -> None:
        del self.states[self.cursor + 1 :]

    @property
    def current(self) -> Settled | None:
        return self.states[self.cursor] if self.cursor >= 0 else None

    def can_undo(self, solving: bool) -> bool:
        """While a solve is pending, undo abandons it: the last settled state is a step back."""
        return self.cursor > 0 or (self.cursor == 0 and solving)

    @property
    def can_redo(self) -> bool:
        return self.cursor < len(self.states) - 1

    def go(self, index: int, action: str) -> Settled:
        """Move the cursor to ``index`` and log the state found there."""
        state = self.states[index]
        self.cursor = index
        self.log(state.card, state.spec, state.status, action, state.base)
        return state


class UndoRedo:
    """Undo and redo of the studio (a feature object: it walks the undo history of the
    studio's core; the controller puts the state reached on screen).

    Parameters
    ----------
    core : the studio's core.
    jump : puts the settled state of an index on screen, for an action ("undo", "redo"): the
        controller's :meth:`~slimwidgets.widgets.controller.Controller.jump_to`.
    around_jump : runs a jump with the rows of the state reached (the group column's
        :meth:`~slimwidgets.widgets.groups.GroupControls.around_jump`).
    plan_background : follows the state reached with the background work, then tells the
        views what else changed.
    """

    def __init__(
        self,
        core: StudioCore,
        jump: Callable[[int, str], None],
        around_jump: Callable[[Callable[[], None]], None],
        plan_background: Callable[..., None],
    ) -> None:
        self._core, self._jump = core, jump
        self._around_jump, self._plan_background = around_jump, plan_background

    @property
    def can_undo(self) -> bool:
        return self._core.undo.can_undo(self._core.status.state == "solving")

    @property
    def can_redo(self) -> bool:
        return self._core.undo.can_redo

    @property
    def _cursor(self) -> int:
        return self._core.undo.cursor

    def undo(self) -> bool:
        with self._core.lock:
            if not self.can_undo:
                return False
            # while a solve is pending, undo abandons it and shows the last settled card
            target = self._cursor if self._core.status.state == "solving" else self._cursor - 1
            self._goto(target, "undo")
        self.after_jump()
        return True

    def redo(self) -> bool:
        with self._core.lock:
            if not self.can_redo:
                return False
            self._goto(self._cursor + 1, "redo")
        self.after_jump()
        return True

    def _goto(self, index: int, action: str) -> None:
        self._around_jump(lambda: self._jump(index, action))

    def after_jump(self) -> None:
        self._plan_background(also=("spec", "card", "notice"))
