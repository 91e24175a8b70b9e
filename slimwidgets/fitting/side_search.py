"""The search beside a time-limited solve: primal heuristics on a second thread.

Shared by the fit driver (beside its proof) and by the search of a large table's sample
(:mod:`.large`, where it runs alone until the sample's deadline).
"""

from __future__ import annotations

import threading
import time

import numpy as np

from ..core.formulation import Formulation
from ..solvers.pools import pool_search
from ..solvers.search import local_search

__all__ = ["SideSearch"]


class _Either:
    """Set when either of two events is (an Event-like for the search's stop check)."""

    def __init__(self, a: threading.Event, b: threading.Event | None):
        self.a, self.b = a, b

    def is_set(self) -> bool:
        return self.a.is_set() or (self.b is not None and self.b.is_set())

    def lose(self, why: str) -> None:
        """A solver process of the side search is gone: the whole fit is told (a FitStop)."""
        lose = getattr(self.b, "lose", None)
        if lose is not None:
            lose(why)


class SideSearch:
    """Primal heuristics on a second thread beside a time-limited solve (both release the
    GIL): the solver works on the bound, this thread on the card. It solves feature-pool
    MIPs (:mod:`slimwidgets.solvers.pools`) for up to half the time, then runs the local search.
    ``best`` is its latest card as (points, intercept, objective)."""

    def __init__(
        self,
        form: Formulation,
        start,
        upper: float,
        time_left: float,
        report,
        cancel,
        linear_starts: bool,
    ):
        self.best: tuple[np.ndarray, int, float] | None = None
        self._done = threading.Event()

        def on_improve(points, intercept, objective):
            self.best = (points, int(intercept), objective)
            if report is not None:
                report(points, intercept, objective)

        def run():
            stop = _Either(self._done, cancel)
            t0 = time.perf_counter()
            # pool MIPs first (they find what the search's moves cannot reach), then the search
            pooled = pool_search(
                form,
                (start[0], start[1], upper),
                deadline=t0 + time_left / 2,
                cancel=stop,
                on_improve=on_improve,
            )
            warm = start[0] if pooled is None else pooled[0]
            local_search(
                form,
                time_budget=time_left - (time.perf_counter() - t0),
                warm=warm,
                kicks=10**6,
                seed=1,
                on_improve=on_improve,
                cancel=stop,  # type: ignore[arg-type]  # has is_set
                zero_start=False,
                linear_starts=linear_starts,
            )

        self._thread = threading.Thread(target=run, name="slimwidgets-search", daemon=True)
        self._thread.start()

    def running(self) -> bool:
        """Whether the search is still at work (it ends by itself when its time is up)."""
        return self._thread.is_alive()

    def stop(self) -> tuple[np.ndarray, int, float] | None:
        """Stop the search, wait for its thread, and give its best card (None if it found none)."""
        self._done.set()
        self._thread.join()
        return self.best
