"""The risk family without surprise: the risk search's compiled kernels are compiled (or loaded
from numba's cache) on a thread of their own once the studio's first card is settled, so that
the first switch to risk cards does not wait for a compile; while it runs, a risk solve says so."""

from __future__ import annotations

import threading

from .scheduler import THREAD_PREFIX

__all__ = ["RiskWarmup", "WARMING_TEXT"]

#: the status line of a risk solve that waits for the compile
WARMING_TEXT = "solving… · getting the risk search ready: its kernels compile once (about 15 s), then it solves"


class RiskWarmup:
    """Compiles the risk kernels in the background, once per process (numba caches them on
    disk, so a later process only loads them)."""

    _done = threading.Event()  # per process: compiled kernels serve every studio

    def __init__(self) -> None:
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        if self.thread is None and not self._done.is_set():
            self.thread = threading.Thread(target=self._run, name=THREAD_PREFIX + "risk-warm-up", daemon=True)
            self.thread.start()

    def _run(self) -> None:
        from ..core.losses import ensure_compiled
        from ..solvers.risk_tree import ensure_tree_compiled

        try:
            ensure_compiled()
            ensure_tree_compiled()  # the proof by supports' kernels, which every risk fit runs
        finally:
            RiskWarmup._done.set()

    @property
    def busy(self) -> bool:
        """Whether the compile is running now (a risk solve started now would wait for it)."""
        return self.thread is not None and self.thread.is_alive()

    def join(self, timeout: float) -> bool:
        if self.thread is not None:
            self.thread.join(timeout)
        return not self.busy
