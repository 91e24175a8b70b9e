"""Waiting for a studio's solves and closing it: the controller's worker threads, stopped together.

:class:`WaitAndClose` is a part of :class:`~slimwidgets.widgets.controller.Controller` (a feature
object, as the others are); it reads the controller's scheduler, sweeps, alternatives and
warm-up, and its lock.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .controller import Controller

__all__ = ["WaitAndClose"]


class WaitAndClose:
    """``wait``, ``wait_background``, ``threads``, ``close`` and ``closed`` of the controller."""

    def __init__(self, controller: Controller) -> None:
        self._c, self._core = controller, controller.core
        self.closed = False  # once closed, every change is refused

    def wait(self, timeout: float | None = 60.0) -> bool:
        """Block until the current spec is settled (tests, scripts); False on timeout."""
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            if not self._core.scheduler.busy and self._c.status.state != "solving":
                return True
            if end is not None and time.monotonic() > end:
                return False
            time.sleep(0.01)

    def wait_background(self, timeout: float | None = 120.0) -> bool:
        return self._c.sweeps.queue.wait_idle(timeout)

    def threads(self) -> list[threading.Thread]:
        """This controller's live worker threads."""
        workers = (
            self._core.scheduler.thread,
            self._c.sweeps.queue.thread,
            self._c.alts.queue.thread,
            self._c.advice.queue.thread,
            self._c.starting_size.thread,
            self._c.warming.risk.thread,
            self._c.warming.search.thread,
        )
        return [t for t in workers if t is not None and t.is_alive()]

    def close(self, timeout: float = 10.0) -> bool:
        """Stop both workers (interrupting running solves); True when no thread is left."""
        with self._core.lock:
            self.closed = True
            self._core.advance()  # a running solve's result is never shown
        a = self._core.scheduler.close(timeout)
        b = self._c.sweeps.queue.close(timeout)
        warm = self._c.warming.risk.join(timeout) and self._c.warming.search.join(timeout)
        advice = self._c.advice.close(timeout) and self._c.starting_size.join(timeout)
        return self._c.alts.close(timeout) and warm and a and b and advice

    def check_open(self) -> None:
        """Refuse a change once the studio is closed."""
        if self.closed:
            raise RuntimeError("the studio is closed")

    def stop_now(self) -> None:
        """Stop the workers without waiting (the controller is being collected)."""
        try:
            self._core.scheduler.close(0)
            self._c.sweeps.queue.close(0)
            self._c.alts.close(0)
            self._c.advice.close(0)
        except Exception:
            pass
