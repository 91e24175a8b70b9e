"""What the studio's feature objects share, and all they are given of it: the lock, the
subscribers, the solves with their cache, the judge of better cards, the undo states, the
scheduler of the solve the user waits for, and the generation counter (read-only to them)."""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable
from typing import TYPE_CHECKING

from .history import UndoHistory

if TYPE_CHECKING:
    from ..core.scoring import ScoringSystem
    from .best_known import BestKnown
    from .scheduler import SolveScheduler
    from .solving import Failure, SolveCache

__all__ = ["StudioCore"]


class StudioCore:
    """The small core of the studio: what every feature object may use, and nothing else.

    Parameters
    ----------
    solver : the solves of the rows in use and their cache (replaced with the rows).
    best : the judge of better cards on those rows (replaced with them).

    Attributes
    ----------
    lock : held while the studio's state changes (re-entrant).
    undo : the settled states, for undo and redo.
    scheduler : runs the solve the user waits for (set by the controller, which owns the job).

    Examples
    --------
    >>> from slimwidgets.widgets.studio_core import StudioCore
    >>> core = StudioCore(solver=None, best=None)
    >>> seen = []
    >>> core.subscribe(seen.append)
    >>> core.emit("card", "notice")
    >>> sorted(seen[0]), core.advance(), core.generation
    (['card', 'notice'], 1, 1)
    """

    def __init__(self, solver: SolveCache | None, best: BestKnown | None) -> None:
        self.lock = threading.RLock()
        self.solver, self.best = solver, best
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
    def cache(self) -> dict[str, ScoringSystem | Failure]:
        """The settled results of the rows in use, by spec key."""
        assert self.solver is not None
        return self.solver.results

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
