"""What every solver hands back to the fit driver: a result, its incumbents, its errors.

Status words of :class:`SolveResult`:

``optimal``      proven optimal (within the requested gap, which defaults to 0)
``time_limit``   stopped by the time limit; the incumbent is returned with its bound and gap
``interrupted``  stopped by ``cancel``; likewise
``solver_stopped`` the solver's process was lost (killed, e.g. when memory ran out); likewise,
                 with the last card and bound it reported (see :class:`FitStop`)
``infeasible``   no card satisfies the constraints
``no_solution``  stopped before any card was found
"""

from __future__ import annotations

import atexit
import math
import threading
from dataclasses import dataclass

import numpy as np

__all__ = ["SolverError", "Incumbent", "SolveResult", "relative_gap", "exiting", "FitStop"]

#: set when the interpreter starts to exit: searches still running in daemon threads (a fit
#: abandoned by its caller) stop at their next look at the clock, so the exit is not held up
exiting = threading.Event()
atexit.register(exiting.set)


class SolverError(RuntimeError):
    """The solver failed (crashed, or returned something unusable)."""


class FitStop:
    """A fit's stop flag: set when the caller's ``cancel`` is, or when a solver process of the
    fit was lost (:meth:`lose`). Passed as ``cancel`` to every phase of the fit, so that losing
    one process stops them all at once and the fit returns its best card so far.

    Examples
    --------
    >>> import threading
    >>> stop = FitStop(threading.Event())
    >>> stop.is_set(), stop.lost
    (False, None)
    >>> stop.lose("lost the HiGHS process (killed by signal 9)")
    >>> stop.is_set(), stop.cancelled, stop.lost
    (True, False, 'lost the HiGHS process (killed by signal 9)')
    """

    def __init__(self, cancel: threading.Event | None):
        self.cancel = cancel
        self.lost: str | None = None  # why the fit lost a solver process, if it did

    @property
    def cancelled(self) -> bool:
        """Whether the caller asked to stop."""
        return self.cancel is not None and self.cancel.is_set()

    def is_set(self) -> bool:
        return self.lost is not None or self.cancelled

    def lose(self, why: str) -> None:
        """Record that a solver process is gone (the first reason is kept)."""
        if self.lost is None:
            self.lost = why


@dataclass(frozen=True)
class Incumbent:
    """An improving card found while a solve runs (paper-unit objective and bound).

    Parameters
    ----------
    coefficients : ndarray of int
        The points of each feature.
    intercept : int
        Minus the threshold.
    objective : float
        The card's objective (loss + C0 per feature), in the paper's units.
    bound : float
        The lower bound proven so far on the objective of any card.
    elapsed : float
        Seconds since the solve started.
    limits : dict, optional
        How the bound reads in the user's units (proven TPR / FPR / error limit).
    multiplier : float, optional
        A risk card's multiplier; None for decision cards.
    """

    coefficients: np.ndarray
    intercept: int
    objective: float
    bound: float
    elapsed: float
    # How the bound reads in the user's units (a LimitScale dict, see core/status.py): put it
    # in a card's details["limits"] and describe() states the proven TPR / FPR / error limit.
    limits: dict | None = None
    # A risk card's multiplier (its risk is sigmoid((score + intercept) / multiplier)); None
    # for decision cards. With it a view shows a passing risk card as a risk card.
    multiplier: float | None = None

    @property
    def gap(self) -> float:
        """The relative gap between the objective and the bound (inf without a bound)."""
        return relative_gap(self.objective, self.bound)


@dataclass(frozen=True)
class SolveResult:
    status: str
    coefficients: np.ndarray | None
    intercept: int | None
    objective: float | None  # recomputed exactly from the card, paper units
    bound: float  # proven lower bound, paper units
    gap: float
    solve_time: float
    solver: str
    nodes: int = 0
    message: str = ""
    # every card with at most this many movable features was settled (walked, or ruled out by
    # a floor): a proof by model size that follows need not walk them again (-1: none known)
    settled: int = -1
    # the part of ``bound`` proven by steps that end on counted work, never on seconds (the
    # support scan given up at its work limits): the same at any load (-inf: none)
    work_bound: float = -math.inf

    @classmethod
    def no_card(cls, solver: str, seconds: float = 0.0, message: str = "") -> SolveResult:
        """A solve that found no card and proved nothing (bound −∞, gap ∞).

        Parameters
        ----------
        solver : str
            Who answered.
        seconds : float, default 0.0
            How long it ran.
        message : str, default ""
            Why there is no card, when it is worth saying.

        Returns
        -------
        SolveResult
            Status ``"no_solution"``.

        Examples
        --------
        >>> SolveResult.no_card("highs").status
        'no_solution'
        """
        return cls(
            "no_solution", None, None, None, -math.inf, math.inf, seconds, solver, message=message
        )


def relative_gap(objective: float | None, bound: float) -> float:
    if objective is None or not math.isfinite(bound):
        return math.inf
    diff = max(objective - bound, 0.0)
    if diff <= 1e-12:
        return 0.0
    return diff / max(abs(objective), 1e-12)


_scheduler_threads: list[int] = []
