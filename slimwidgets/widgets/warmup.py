"""The risk family without surprise: the risk search's compiled kernels are compiled (or loaded
from numba's cache) on a thread of their own as soon as the studio shows its first card, so that
the first switch to risk cards does not wait for a compile; while it runs, a risk solve says so,
and how far the compile has come."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from typing import Callable

from .scheduler import THREAD_PREFIX

__all__ = ["RiskWarmup", "WARMING_TEXT", "WARMING_HEAD", "WarmupControls", "warming_text"]

#: how the status line of a risk solve that waits for the compile begins
WARMING_HEAD = "solving… · getting the risk search ready"
#: the status line of a risk solve that waits for the compile (before its first part is ready)
WARMING_TEXT = WARMING_HEAD + " (once on this computer, about 15 s when it is not busy), then it solves"


def warming_text(done: int, total: int, left: float | None = None) -> str:
    """The status line of a risk solve waiting for the compile: ``done`` of its ``total`` parts
    (compiled kernels) ready, about ``left`` seconds to go (measured on the parts done so far).

    >>> warming_text(0, 5) == WARMING_TEXT
    True
    >>> warming_text(2, 5, left=37.2)
    'solving… · getting the risk search ready (once on this computer): 2 of 5 parts done, about 35 s left, then it solves'
    >>> warming_text(4, 5, left=3.4)
    'solving… · getting the risk search ready (once on this computer): 4 of 5 parts done, about 3 s left, then it solves'
    """
    if done <= 0:
        return WARMING_TEXT
    to_go = "" if left is None else f", about {max(round(left), 1) if left < 10 else 5 * round(left / 5)} s left"
    return f"{WARMING_HEAD} (once on this computer): {done} of {total} parts done{to_go}, then it solves"


class RiskWarmup:
    """Compiles the risk kernels in the background, once per process (numba caches them on
    disk, so a later process only loads them); ``on_progress(done, total)`` after each kernel."""

    _done = threading.Event()  # per process: compiled kernels serve every studio

    def __init__(self, on_progress: Callable[[int, int], None] | None = None) -> None:
        self.thread: threading.Thread | None = None
        self.progress = (0, 0)  # kernels compiled, of how many
        self._on_progress = on_progress
        self._started = time.monotonic()  # when the compile began (the time left is measured on it)

    def start(self) -> None:
        if self.thread is None and not self._done.is_set():
            self.thread = threading.Thread(target=self._run, name=THREAD_PREFIX + "risk-warm-up", daemon=True)
            self.thread.start()

    def _run(self) -> None:
        self._started = time.monotonic()
        from ..core.losses import ensure_compiled
        from ..solvers.risk_tree import ensure_tree_compiled

        try:
            # the loss's kernels, then the proof by supports' (which every risk fit runs): one count
            ensure_compiled(lambda done, total: self._step(done, total + 1))
            ensure_tree_compiled()
            self._step(*(2 * [self.progress[1]]))
        finally:
            RiskWarmup._done.set()

    def _step(self, done: int, total: int) -> None:
        self.progress = (done, total)
        if self._on_progress is not None:
            self._on_progress(done, total)

    def text(self) -> str:
        """What a risk solve that waits for this compile says now: the parts done and, from
        how long they took, about how long the rest will take."""
        done, total = self.progress
        left = (time.monotonic() - self._started) / done * (total - done) if done > 0 else None
        return warming_text(done, total, left)

    @property
    def busy(self) -> bool:
        """Whether the compile is running now (a risk solve started now would wait for it)."""
        return self.thread is not None and self.thread.is_alive()

    def join(self, timeout: float) -> bool:
        if self.thread is not None:
            self.thread.join(timeout)
        return not self.busy


class WarmupControls:
    """The compile's progress on the status line of :class:`~slimwidgets.widgets.controller.Controller`
    (a mixin: its ``_warmup`` reports here)."""

    def _warming_progress(self, done: int, total: int) -> None:
        """A kernel compiled: a risk solve waiting for the compile says how far it has come."""
        with self._lock:
            if self._closed or self.status.state != "solving" or not self.status.text.startswith(WARMING_HEAD):
                return
            self.status = replace(self.status, text=self._warmup.text())
        self._emit("card")
