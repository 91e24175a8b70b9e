"""Waiting for a studio's solves and closing it: the controller's worker threads, stopped together.

:class:`WaitAndClose` is a part of :class:`~slimwidgets.widgets.controller.Controller` (a mixin,
as the other features are); it reads the controller's scheduler, sweeps, alternatives and
warm-up, and its lock.
"""

from __future__ import annotations

import threading
import time

__all__ = ["WaitAndClose"]


class WaitAndClose:
    """``wait``, ``wait_background``, ``threads``, ``close`` and ``closed`` of the controller."""

    def wait(self, timeout: float | None = 60.0) -> bool:
        """Block until the current spec is settled (tests, scripts); False on timeout."""
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            if not self._scheduler.busy and self.status.state != "solving":
                return True
            if end is not None and time.monotonic() > end:
                return False
            time.sleep(0.01)

    def wait_background(self, timeout: float | None = 120.0) -> bool:
        return self.sweeps.queue.wait_idle(timeout)

    def threads(self) -> list[threading.Thread]:
        """This controller's live worker threads."""
        workers = (
            self._scheduler.thread,
            self.sweeps.queue.thread,
            self.alts.queue.thread,
            self.advice.queue.thread,
            self.starting_size.thread,
            self._warmup.thread,
            self._search_warmup.thread,
        )
        return [t for t in workers if t is not None and t.is_alive()]

    def close(self, timeout: float = 10.0) -> bool:
        """Stop both workers (interrupting running solves); True when no thread is left."""
        with self._lock:
            self._closed = True
            self._gen += 1
        a = self._scheduler.close(timeout)
        b = self.sweeps.queue.close(timeout)
        warm = self._warmup.join(timeout) and self._search_warmup.join(timeout)
        advice = self.advice.close(timeout) and self.starting_size.join(timeout)
        return self.alts.close(timeout) and warm and a and b and advice

    @property
    def closed(self) -> bool:
        return self._closed

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("the studio is closed")

    def __del__(self) -> None:
        try:
            self._scheduler.close(0)
            self.sweeps.queue.close(0)
            self.alts.close(0)
            self.advice.close(0)
        except Exception:
            pass
