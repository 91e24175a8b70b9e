"""A fit's progress bar: the best card so far, what is proven, the time left.

``fit`` shows it when it outlives :data:`SHOW_AFTER` seconds in a notebook or a terminal
(``progress=None``), always with ``progress=True``, never with ``progress=False`` (nor, by
default, in a script whose output goes to a file or a pipe). The solver threads report cards
and bounds through :meth:`FitProgress.on_incumbent` and :meth:`FitProgress.on_bound`; a timer
thread redraws the bar twice a second, so the time left moves while nothing better is found.
At the end the bar says how the fit ended, in the card's own words.
"""

from __future__ import annotations

import math
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from ..core.data import Dataset
from ..core.family import family_of_loss
from ..core.spec import Spec
from ..core.status import describe
from ..solvers.base import Incumbent
from .cards import card_from_incumbent, limits_in_user_units
from .jobs import interactive

__all__ = ["FitProgress", "SHOW_AFTER", "describe_incumbent", "fit_progress", "say_first_card"]

#: Seconds a fit runs before its bar appears: a quick fit prints nothing but its card.
SHOW_AFTER = 2.0
#: Seconds between redraws of the bar (its time left), at most.
REDRAW_EVERY = 0.5


def describe_incumbent(
    data: Dataset, spec: Spec, inc: Incumbent, bound: float, seconds: float
) -> str:
    """The headline of a card found while a fit runs (its error or TPR, and what is proven
    about it), in the same words as the returned card's."""
    limits, loss = None, family_of_loss(spec.loss).loss
    # an incumbent not reported by fit carries no limits; a family whose loss has a MIP/LP
    # (decision cards) says them in the user's units from it
    if inc.limits is None and loss.has("problem"):
        limits = limits_in_user_units(loss.problem(data, spec))
    card = card_from_incumbent(data, spec, inc, bound=bound, solve_time=seconds, limits=limits)
    return describe(card).headline


def fit_progress(
    progress: bool | None, time_limit: float | None, started: float
) -> FitProgress | None:
    """The bar of a fit that started at ``started`` (``time.perf_counter``), or None: ``progress``
    None shows it in a notebook or a terminal only, True always, False never."""
    if progress is False or (progress is None and not interactive()):
        return None
    if progress not in (None, True):
        raise TypeError(f"progress must be True, False or None (auto), got {progress!r}")
    return FitProgress(time_limit, started)


def say_first_card(
    progress: bool | None, card: Any, seconds: float, stream: Any = None
) -> str | None:
    """Say a larger table's first card on screen before its size choice starts (where
    ``progress`` shows bars: None in a notebook or terminal only, True always, False never),
    and that Ctrl-C during the choice returns it.

    Parameters
    ----------
    progress : bool or None
        ``fit``'s ``progress``.
    card : ScoringSystem
        The first search's card.
    seconds : float
        The time it took.
    stream : file, optional
        Where to write (default: standard error).

    Returns
    -------
    str or None
        The line written, or None when nothing was.

    Examples
    --------
    >>> import io, slimwidgets as sw
    >>> card = sw.ScoringSystem(("a",), (1,), -1)
    >>> say_first_card(True, card, 0.25, io.StringIO())[:22]
    'first card in 0.25 s: '
    >>> say_first_card(False, card, 0.25) is None
    True
    """
    if progress is False or (progress is None and not interactive()):
        return None
    line = (
        f"first card in {seconds:.2f} s: {describe(card).headline}; choosing the size by CV "
        "next (Ctrl-C returns this card)"
    )
    print(line, file=stream or sys.stderr, flush=True)
    return line


class FitProgress:
    """The bar of one fit, drawn after :data:`SHOW_AFTER` seconds (``clock`` and ``make_bar``
    replace ``time.perf_counter`` and tqdm in tests)."""

    def __init__(
        self,
        time_limit: float | None,
        started: float,
        *,
        clock: Callable[[], float] = time.perf_counter,
        make_bar: Callable[..., Any] | None = None,
        stream: Any = None,
    ) -> None:
        self.time_limit, self.started, self.clock = time_limit, started, clock
        self.make_bar, self.stream = make_bar, stream
        self.lock = threading.Lock()
        self.best: Incumbent | None = None
        self.said: Callable[[], str] | None = None
        self.bound, self.fresh, self.words = -math.inf, False, "searching"
        self.table: tuple[Dataset, Spec] | None = None
        self.bar: Any = None
        self.stopped = threading.Event()

    # -- what the fit tells it ------------------------------------------------------------------
    def chain(
        self, on_incumbent: Callable | None, on_bound: Callable | None
    ) -> tuple[Callable, Callable]:
        """Callbacks for the fit that feed the bar and call the caller's own ones."""

        def incumbent(inc: Incumbent) -> None:
            self.on_incumbent(inc)
            if on_incumbent is not None:
                on_incumbent(inc)

        def bound(value: float) -> None:
            self.on_bound(value)
            if on_bound is not None:
                on_bound(value)

        return incumbent, bound

    def reading(self, table: Any, spec: Spec) -> None:
        """The rows and spec the cards so far are measured on (a table of weighted patterns is
        described by its objective only)."""
        self.table = (table, spec) if isinstance(table, Dataset) else None
        self.words = "searching for a first card"

    def on_incumbent(self, inc: Incumbent) -> None:
        with self.lock:
            self.best, self.bound, self.fresh = inc, max(self.bound, inc.bound), True

    def on_found(self, words: Callable[[], str]) -> None:
        """A card or a floor found by a fit whose cards are not solver incumbents (time-to-event):
        ``words()`` says the best card so far and what is proven, called at the next draw."""
        with self.lock:
            self.said, self.fresh = words, True

    def on_bound(self, value: float) -> None:
        with self.lock:
            if value > self.bound:
                self.bound, self.fresh = value, True

    # -- drawing --------------------------------------------------------------------------------
    def start(self) -> FitProgress:
        """Redraw on a timer thread until :meth:`finish`."""

        def loop() -> None:
            while not self.stopped.wait(REDRAW_EVERY):
                self.tick()

        threading.Thread(target=loop, name="slimwidgets-fit-progress", daemon=True).start()
        return self

    def tick(self) -> None:
        """Draw the bar once the fit is :data:`SHOW_AFTER` seconds old: the best card so far,
        what is proven, the time left."""
        elapsed = self.clock() - self.started
        if elapsed < SHOW_AFTER:
            return
        with self.lock:
            fresh, inc, bound, self.fresh = self.fresh, self.best, self.bound, False
        if fresh and self.said is not None:
            self.words = self._say(self.said)
        elif fresh and inc is not None:
            try:
                self.words = self._describe(inc, bound, elapsed)
            except Exception:  # noqa: BLE001 - a bar must never break the fit it watches
                self.words = f"best so far: objective {inc.objective:.4g}"
        bar = self._bar()
        bar.n = min(elapsed, self.time_limit) if self.time_limit is not None else elapsed
        left = (
            ""
            if self.time_limit is None
            else f" · {max(self.time_limit - elapsed, 0.0):.0f} s left"
        )
        bar.set_postfix_str(f"{self.words}{left}", refresh=False)
        bar.refresh()

    def finish(self, card: Any = None, headline: str | None = None) -> None:
        """Stop redrawing; a bar that was drawn ends with how the fit ended (``card``: the card
        returned; None: the fit raised or was interrupted; ``headline``: the card in its family's
        words, by default :func:`~slimwidgets.core.status.describe`'s)."""
        self.stopped.set()
        if (
            self.bar is None and card is not None
        ):  # a fit past SHOW_AFTER ends on a bar, however it timed
            self.tick()
        if self.bar is None:
            return
        if card is not None:
            self.bar.set_description_str("done", refresh=False)
            self.bar.set_postfix_str(
                f"{headline or describe(card).headline} · status {card.status}", refresh=False
            )
        self.bar.close()

    @staticmethod
    def _say(words: Callable[[], str]) -> str:
        try:
            return "best so far: " + words()
        except Exception:  # noqa: BLE001 - a bar must never break the fit it watches
            return "searching"

    def _describe(self, inc: Incumbent, bound: float, elapsed: float) -> str:
        if self.table is None:
            proven = "" if not math.isfinite(bound) else f", proven ≥ {bound:.4g}"
            return f"best so far: objective {inc.objective:.4g}{proven}"
        data, spec = self.table
        return "best so far: " + describe_incumbent(data, spec, inc, bound, elapsed)

    def _bar(self) -> Any:
        if self.bar is None:
            make = self.make_bar
            if make is None:
                from tqdm.auto import tqdm

                make = tqdm
            total = None if self.time_limit is None else float(self.time_limit)
            self.bar = make(
                total=total,
                desc="fit",
                unit="s",
                file=self.stream or sys.stderr,
                leave=True,
                bar_format="{desc}: {bar} {n:.0f}/{total:.0f} s{postfix}"
                if total
                else "{desc}: {n:.0f} s{postfix}",
            )
        return self.bar
