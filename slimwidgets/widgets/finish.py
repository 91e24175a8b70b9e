"""The studio's time limit covers a solve as the user sees it: from the request (a click, a slider
come to rest) to the card drawn.

A solve is given the limit less the time already gone since the request (the debounce, a
solve being stopped, never a one-off compile said on screen) and less a reserve for what
comes after the fit: the card's held-out figures, the cache, and the views drawing the card.
That reserve is measured in this studio: the last settled card of the same family, from its
fit's end to the views told, with room to spare (the machine's load varies); before any card
of a family has settled, a share of the limit stands in for it.
"""

from __future__ import annotations

import time

from ..core.family import family_of_loss
from ..core.spec import Spec

__all__ = [
    "FinishClock",
    "RESERVE_FACTOR",
    "FIRST_RESERVE_SHARE",
    "MAX_RESERVE_SHARE",
    "MIN_SOLVE_SECONDS",
]

#: the reserve is this many times the last finish measured
RESERVE_FACTOR = 1.5
#: before a card of the family has been drawn in this studio: this share of the limit
FIRST_RESERVE_SHARE = 0.1
#: the reserve never takes more than this share of the limit from the solve
MAX_RESERVE_SHARE = 0.25
#: a solve always gets at least this long (a request kept waiting past its limit still gets a card)
MIN_SOLVE_SECONDS = 0.1


class FinishClock:
    """How long this studio takes, per card family, from a card found to the card drawn; and the
    seconds a solve requested at a given time may take.

    Examples
    --------
    >>> from slimwidgets.core.spec import make_spec
    >>> clock = FinishClock()
    >>> spec = make_spec(loss="logistic", time_limit=5.0)
    >>> clock.reserve(spec)  # no risk card settled yet: a tenth of the limit
    0.5
    >>> clock.record("risk", 0.2)
    >>> round(clock.reserve(spec), 3)
    0.3
    >>> clock.seconds(spec, requested=clock.now() - 60.0)  # a request kept waiting past its limit
    0.1
    """

    def __init__(self) -> None:
        self._seconds: dict[str, float] = {}

    @staticmethod
    def now() -> float:
        return time.perf_counter()

    @staticmethod
    def family(spec: Spec) -> str:
        return family_of_loss(spec.loss).name

    def record(self, family: str, seconds: float) -> None:
        """A card of ``family`` went from its fit's end to the views in ``seconds``."""
        self._seconds[family] = max(float(seconds), 0.0)

    def reserve(self, spec: Spec) -> float:
        """The seconds kept back from a solve of ``spec`` for what comes after it."""
        limit = spec.time_limit
        if limit is None:
            return 0.0
        seen = self._seconds.get(self.family(spec))
        guess = FIRST_RESERVE_SHARE * limit if seen is None else RESERVE_FACTOR * seen
        return min(guess, MAX_RESERVE_SHARE * limit)

    def seconds(self, spec: Spec, requested: float) -> float | None:
        """The time limit of a solve of ``spec`` requested at ``requested`` (this clock's
        :meth:`now`); None without a limit."""
        if spec.time_limit is None:
            return None
        left = spec.time_limit - (self.now() - requested) - self.reserve(spec)
        return max(left, MIN_SOLVE_SECONDS)
