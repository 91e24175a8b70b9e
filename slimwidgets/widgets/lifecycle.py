"""Waiting for a studio's solves and closing it: the controller's worker threads, stopped together.

:class:`WaitAndClose` is a part of :class:`~slimwidgets.widgets.controller.Controller` (a feature
object, as the others are); it is given the studio's core (its scheduler, lock and
``closed``) and the feature objects that run worker threads: the sweeps, the alternatives, the
monotone advice, the size choice and the warm-up.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .alternatives import AlternativesList
    from .monotone import MonotoneAdvice
    from .size_choice import StartingSize
    from .studio_core import StudioCore
    from .sweeps import Sweeps
    from .warmup import WarmupControls

__all__ = ["WaitAndClose"]


class WaitAndClose:
    """``wait``, ``wait_background``, ``threads``, ``close`` and ``closed`` of the controller.

    Parameters
    ----------
    core : the studio's core.
    sweeps, alts, advice, starting_size, warming : the feature objects with worker threads.
    """

    def __init__(
        self,
        core: StudioCore,
        *,
        sweeps: Sweeps,
        alts: AlternativesList,
        advice: MonotoneAdvice,
        starting_size: StartingSize,
        warming: WarmupControls,
    ) -> None:
        self._core, self._sweeps, self._alts = core, sweeps, alts
        self._advice, self._starting_size, self._warming = advice, starting_size, warming

    @property
    def closed(self) -> bool:
        """Whether the studio is closed: once it is, every change is refused."""
        return self._core.closed

    def wait(self, timeout: float | None = 60.0) -> bool:
        """Block until the current spec is settled (tests, scripts); False on timeout."""
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            if not self._core.scheduler.busy and self._core.status.state != "solving":
                return True
            if end is not None and time.monotonic() > end:
                return False
            time.sleep(0.01)

    def wait_background(self, timeout: float | None = 120.0) -> bool:
        return self._sweeps.queue.wait_idle(timeout)

    def threads(self) -> list[threading.Thread]:
        """This controller's live worker threads."""
        workers = (
            self._core.scheduler.thread,
            self._sweeps.queue.thread,
            self._alts.queue.thread,
            self._advice.queue.thread,
            self._starting_size.thread,
            self._warming.risk.thread,
            self._warming.search.thread,
        )
        return [t for t in workers if t is not None and t.is_alive()]

    def close(self, timeout: float = 10.0) -> bool:
        """Stop both workers (interrupting running solves); True when no thread is left."""
        with self._core.lock:
            self._core.closed = True
            self._core.advance()  # a running solve's result is never shown
        a = self._core.scheduler.close(timeout)
        b = self._sweeps.queue.close(timeout)
        warm = self._warming.risk.join(timeout) and self._warming.search.join(timeout)
        advice = self._advice.close(timeout) and self._starting_size.join(timeout)
        return self._alts.close(timeout) and warm and a and b and advice

    def stop_now(self) -> None:
        """Stop the workers without waiting (the controller is being collected)."""
        try:
            self._core.scheduler.close(0)
            self._sweeps.queue.close(0)
            self._alts.close(0)
            self._advice.close(0)
        except Exception:
            pass
