"""Compiles without surprise: a family's compiled kernels are compiled (or loaded from numba's
cache) on a thread of their own, and a solve that waits for them says so, once on this computer,
and how far the compile has come; the solve's clock and time limit start when it ends.

The decision family's search kernels compile when its first solve is asked (the studio's first
card, on a computer whose numba cache is cold: 20-30 s); the risk family's as soon as the studio
shows its first card, so that the first switch to risk cards does not wait for them."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from ..core.family import family_of_loss
from .card_status import Status
from .scheduler import THREAD_PREFIX

if TYPE_CHECKING:
    from .studio_core import StudioCore

__all__ = [
    "KernelWarmup",
    "RiskWarmup",
    "SearchWarmup",
    "WARMING_TEXT",
    "WARMING_HEAD",
    "SEARCH_HEAD",
    "SEARCH_TEXT",
    "WarmupControls",
    "warming_text",
    "seconds_text",
]

#: how the status line of a risk solve that waits for the compile begins
WARMING_HEAD = "solving… · getting the risk search ready"
#: the status line of a risk solve that waits for the compile (before its first part is ready)
WARMING_TEXT = (
    WARMING_HEAD + " (once on this computer, about 15 s when it is not busy), then it solves"
)
#: how the status line of a decision solve that waits for the search's compile begins
SEARCH_HEAD = "solving… · getting the search ready"
#: the status line of a decision solve whose compile has begun (before a share of it is known)
SEARCH_TEXT = (
    SEARCH_HEAD + " (once on this computer, about 30 s when it is not busy), then it solves"
)
#: where numba keeps nothing on disk, the compile is paid again by every new Python process
EVERY_TIME = "each time Python starts here: numba has no folder to keep it in"


def seconds_text(left: float) -> str:
    """About how long, as said: whole seconds below 10, else to the nearest 5.

    >>> seconds_text(3.4), seconds_text(0.2), seconds_text(37.2)
    ('3 s', '1 s', '35 s')
    """
    return f"{max(round(left), 1) if left < 10 else 5 * round(left / 5)} s"


def warming_text(
    done: int,
    total: int,
    left: float | None = None,
    head: str = WARMING_HEAD,
    once: str = "once on this computer",
) -> str:
    """The status line of a solve waiting for a compile: ``done`` of its ``total`` parts
    (compiled kernels) ready, about ``left`` seconds to go (measured on the parts done so far).

    >>> warming_text(0, 5) == WARMING_TEXT
    True
    >>> warming_text(2, 5, left=37.2)  # doctest: +NORMALIZE_WHITESPACE
    'solving… · getting the risk search ready (once on this computer): 2 of 5 parts done, about 35 s
    left, then it solves'
    >>> warming_text(4, 5, left=3.4)  # doctest: +NORMALIZE_WHITESPACE
    'solving… · getting the risk search ready (once on this computer): 4 of 5 parts done, about 3 s
    left, then it solves'
    >>> warming_text(4, 6, left=14.0, head=SEARCH_HEAD)  # doctest: +NORMALIZE_WHITESPACE
    'solving… · getting the search ready (once on this computer): 4 of 6 parts done, about 15 s
    left, then it solves'
    """
    if done <= 0:
        return WARMING_TEXT if head == WARMING_HEAD else SEARCH_TEXT
    to_go = "" if left is None else f", about {seconds_text(left)} left"
    return f"{head} ({once}): {done} of {total} parts done{to_go}, then it solves"


class KernelWarmup:
    """Compiles a family's kernels in the background, once per process (numba caches them on
    disk, so a later process only loads them); ``on_progress(self)`` after each part.

    A subclass says what it compiles (:meth:`_compile`, telling :meth:`_step` after each part),
    how its line begins (``head``), and whether a solve waiting for it says so from the start
    (``announced``) or only once a part turned out to be compiled rather than loaded."""

    head = WARMING_HEAD
    thread_name = "warm-up"
    _done = threading.Event()  # per process and per subclass: compiled kernels serve every studio

    def __init__(self, on_progress: Callable[[KernelWarmup], None] | None = None) -> None:
        self.thread: threading.Thread | None = None
        self.progress = (0, 0)  # parts compiled, of how many
        self.share: float | None = (
            None  # the share of the usual compile time behind (None: parts alike)
        )
        self.announced = False  # whether a solve waiting for it says so
        self.once = "once on this computer"
        self._on_progress = on_progress
        self._started = time.monotonic()  # when the compile began (the time left is measured on it)

    def start(self) -> None:
        if self.thread is None and not self._done.is_set():
            self.thread = threading.Thread(
                target=self._run, name=THREAD_PREFIX + self.thread_name, daemon=True
            )
            self.thread.start()

    def _run(self) -> None:
        self._started = time.monotonic()
        try:
            self._compile()
        finally:
            type(self)._done.set()

    def _compile(self) -> None:  # pragma: no cover - each subclass has its own
        raise NotImplementedError

    def _step(self, done: int, total: int, share: float | None = None) -> None:
        self.progress, self.share = (done, total), share
        if self._on_progress is not None:
            self._on_progress(self)

    def text(self) -> str:
        """What a solve that waits for this compile says now: the parts done and, from how long
        they took (weighed by their usual shares when known), about how long the rest will take."""
        done, total = self.progress
        part = self.share if self.share is not None else (done / total if total else 0.0)
        left = (
            (time.monotonic() - self._started) * (1 - part) / part
            if done > 0 and part > 0
            else None
        )
        return warming_text(done, total, left, self.head, self.once)

    @property
    def busy(self) -> bool:
        """Whether the compile is running now (a solve started now would wait for it)."""
        return self.thread is not None and self.thread.is_alive()

    def join(self, timeout: float) -> bool:
        if self.thread is not None:
            self.thread.join(timeout)
        return not self.busy


class RiskWarmup(KernelWarmup):
    """The risk search's kernels: the loss's, then the proof by supports' (one count)."""

    head = WARMING_HEAD
    thread_name = "risk-warm-up"
    _done = threading.Event()

    def __init__(self, on_progress: Callable[[KernelWarmup], None] | None = None) -> None:
        super().__init__(on_progress)
        self.announced = (
            True  # said from the start (a load from numba's cache is said too: it is short)
        )

    def _compile(self) -> None:
        from .. import solvers  # noqa: F401  (its modules register the risk family's pieces)
        from ..core.family import RISK
        from ..core.losses import ensure_compiled

        ensure_compiled(lambda done, total: self._step(done, total + 1))
        RISK.loss.piece("scan").compile()  # the proof by supports' kernels
        self._step(*(2 * [self.progress[1]]))


class SearchWarmup(KernelWarmup):
    """The decision family's search kernels (:func:`slimwidgets.solvers.search.warm_up`): said
    only when they compile, which the first part tells (loaded from numba's cache they take about
    a second, and nothing is said)."""

    head = SEARCH_HEAD
    thread_name = "search-warm-up"
    _done = threading.Event()

    def _compile(self) -> None:
        from ..solvers.search import warm_up

        warm_up(self._compiled_part)

    def _compiled_part(self, done: int, total: int, *, share: float, kept: bool) -> None:
        self.announced = True
        self.once = "once on this computer" if kept else EVERY_TIME
        self._step(done, total, share)


class WarmupControls:
    """The compiles' progress on the status line of
    :class:`~slimwidgets.widgets.controller.Controller`
    (a feature object: the controller's risk and decision-search compiles report here).

    Parameters
    ----------
    core : the studio's core, whose status line says how far a compile has come.
    pause : holds (True) or lets go (False) the background solves while a solve waits for a
        compile.

    Attributes
    ----------
    risk : the risk kernels' compile, started once a card is on screen.
    search : the decision search's compile, started on its first solve.
    """

    def __init__(self, core: StudioCore, pause: Callable[[bool], None]) -> None:
        self._core, self._pause = core, pause
        # the risk kernels, once a card is on screen; the decision search's, on its first solve
        self.risk = RiskWarmup(self.warming_progress)
        self.search = SearchWarmup(self.warming_progress)

    def warmup_for(self, spec) -> KernelWarmup:
        """The compile a solve of ``spec`` needs."""
        return self.risk if family_of_loss(spec.loss).predicts_risk else self.search

    def solving_text(self, spec) -> str:
        """What the status line says when a solve of ``spec`` is asked: the compile it waits for,
        when one is running and said, else "solving…"."""
        warm = self.warmup_for(spec)
        warm.start()  # (once per process: nothing when its kernels are ready)
        return warm.text() if warm.busy and warm.announced else "solving…"

    def warming_progress(self, warm: KernelWarmup) -> None:
        """A part compiled: the solve waiting for this compile says how far it has come."""
        with self._core.lock:
            if (
                self._core.closed
                or self._core.status.state != "solving"
                or self.warmup_for(self._core.spec) is not warm
            ):
                return
            if not warm.announced or not (
                self._core.status.text == "solving…" or self._core.status.text.startswith(warm.head)
            ):
                return
            self._core.status = replace(self._core.status, text=warm.text())
        self._core.emit("card")

    def wait_for_warmup(self, spec, gen: int, cancel: threading.Event) -> bool:
        """Let the compile ``spec`` needs end (False when the solve was stopped meanwhile); once
        it has, the status line says "solving…" with its clock started now: the compile, said on
        screen, was not the solve's time."""
        warm = self.warmup_for(spec)
        if not warm.busy:
            return True
        self._pause(True)  # the compile has the machine: no background solve starts meanwhile
        try:
            while not warm.join(0.1):
                if cancel.is_set() or gen != self._core.generation:
                    return False
        finally:
            self._pause(False)
        with self._core.lock:
            if gen != self._core.generation or self._core.status.state != "solving":
                return True
            self._core.status = Status("solving", "solving…", started=time.time())
        self._core.emit("card")
        return True
