"""What the studio's feature objects share, and all they are given of it: the lock, the
subscribers, the solves with their cache, the judge of better cards, the undo states, the
scheduler of the solve the user waits for, the generation counter (read-only to them), and the
studio's state: the rows in use (data, held-out rows, rules), the spec in force, the card shown
with its status, the notice and whether the studio is closed. The controller runs the state
machine that changes them; a feature reads them here and asks the controller's commands it was
handed in its constructor for anything more."""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..core.scoring import ScoringSystem
from .card_status import Status
from .history import UndoHistory
from .holdout import measure_card

if TYPE_CHECKING:
    from ..core.data import Dataset
    from ..core.spec import Spec
    from .best_known import BestKnown
    from .scheduler import SolveScheduler
    from .solving import Failure, SolveCache

__all__ = ["StudioCore"]


class StudioCore:
    """The small core of the studio: what every feature object may use, and nothing else.

    Parameters
    ----------
    data : the training rows in use.
    spec : the spec in force.
    validation : the held-out rows in use (None: none).
    rules : the rules that made ``data`` of a raw table (None: a 0/1 table).
    solver : the solves of the rows in use and their cache (replaced with the rows).
    best : the judge of better cards on those rows (replaced with them).

    Attributes
    ----------
    lock : held while the studio's state changes (re-entrant).
    undo : the settled states, for undo and redo.
    scheduler : runs the solve the user waits for (set by the controller, which owns the job).
    card : the card on screen (an incumbent while solving; None when there is none).
    base : for an edited card, the solved card it was edited from.
    status : what the status line says of the card.
    notice, notice_level : what the last action changed besides what was asked, or why it
        failed; info, warning or error.
    closed : once True, every change is refused (:meth:`check_open`).

    Examples
    --------
    >>> from slimwidgets.core.data import prepare_data
    >>> from slimwidgets.core.spec import make_spec
    >>> from slimwidgets.widgets.studio_core import StudioCore
    >>> core = StudioCore(prepare_data([[0, 1], [1, 0]], [0, 1]), make_spec())
    >>> seen = []
    >>> core.subscribe(seen.append)
    >>> core.say("kept the previous card")
    >>> core.emit("card", "notice")
    >>> sorted(seen[0]), core.advance(), core.generation, core.notice, core.status.state
    (['card', 'notice'], 1, 1, 'kept the previous card', 'idle')
    """

    def __init__(
        self,
        data: Dataset,
        spec: Spec,
        *,
        validation: Dataset | None = None,
        rules: Any = None,
        solver: SolveCache | None = None,
        best: BestKnown | None = None,
    ) -> None:
        self.lock = threading.RLock()
        self.data, self.validation, self.rules = data, validation, rules
        self.solver, self.best = solver, best
        self.spec = spec
        self.card: ScoringSystem | None = None
        self.base: ScoringSystem | None = None
        self.status = Status("idle", "no card yet")
        self.notice, self.notice_level = "", "info"
        self.closed = False
        self.undo = UndoHistory()
        self.scheduler: SolveScheduler | None = None
        self._listeners: list[Callable[[set], None]] = []
        self._generation = 0

    @property
    def generation(self) -> int:
        """How many times the studio's request changed: a solve of an older one is never shown."""
        return self._generation

    def advance(self) -> int:
        """A new request (under the lock): results of every older generation are dropped."""
        self._generation += 1
        return self._generation

    @property
    def solving(self) -> bool:
        """Whether the solve the user waits for is running."""
        return self.status.state == "solving"

    def check_open(self) -> None:
        """Refuse a change once the studio is closed."""
        if self.closed:
            raise RuntimeError("the studio is closed")

    def say(self, text: str, level: str = "info") -> None:
        """Set the notice (call under the lock; the caller emits "notice").

        Parameters
        ----------
        text : what to say ("" clears the notice).
        level : info, warning or error.
        """
        self.notice, self.notice_level = text, level

    def use_rows(self, data: Dataset, validation, rules, solver: SolveCache, best: BestKnown):
        """Solve on these rows from now on (under the lock): another group column's or other
        cut points' data, held-out rows, rules, cache and judge of better cards.

        Parameters
        ----------
        data : the training rows.
        validation : the held-out rows (None: none).
        rules : the rules that made ``data`` (None: a 0/1 table).
        solver : the solves of these rows and their cache.
        best : the judge of better cards on these rows.
        """
        self.data, self.validation, self.rules = data, validation, rules
        self.solver, self.best = solver, best

    def measured(self, card: ScoringSystem) -> ScoringSystem:
        """``card`` with its training metrics and, with held-out rows, its validation metrics
        (and, from a raw table, its rules, so that it scores and exports raw rows).

        Parameters
        ----------
        card : a card of the rows in use.
        """
        return measure_card(card, self.data, self.validation, self.rules)

    @property
    def cache(self) -> dict[str, ScoringSystem | Failure]:
        """The settled results of the rows in use, by spec key."""
        assert self.solver is not None
        return self.solver.results

    def settled_card(self, key: str) -> ScoringSystem | None:
        """The solved card of the spec with this key, if it has one yet.

        Parameters
        ----------
        key : a spec's key (:meth:`~slimwidgets.Spec.key`).
        """
        hit = self.cache.get(key)
        return hit if isinstance(hit, ScoringSystem) else None

    def subscribe(self, callback: Callable[[set], None]) -> None:
        """Call ``callback`` with the set of what changed, after every change.

        Parameters
        ----------
        callback : receives e.g. ``{"card", "notice"}``; it may run on a worker thread.
        """
        self._listeners.append(callback)

    def emit(self, *events: str) -> None:
        """Tell every subscriber what changed: "spec", "card", "frontier", "notice", ...

        Parameters
        ----------
        *events : the names of what changed.
        """
        for callback in list(self._listeners):
            try:
                callback(set(events))
            except Exception:  # a broken view must not kill the solver thread
                traceback.print_exc()
