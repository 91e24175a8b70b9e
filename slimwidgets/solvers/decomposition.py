"""Proofs by model size: walk the small cards exactly, give each larger size its own MIP.

A card that uses s features pays at least the s smallest penalties, so with an incumbent of
objective UB only sizes up to some K can win. When the compiled walk covers every card of up to
k features cheaply and only a few sizes k+1..K remain, each of those sizes is one MIP with its
size fixed (sum of alpha = s) and the objective cut off just below the incumbent. Such a MIP is
far easier for HiGHS than the whole program: the size row removes the LP's freedom to spread
small fractions over many features, and the cutoff leaves little loss to spend. "infeasible"
proves that no card of that size beats the incumbent; a card it finds becomes the incumbent and
tightens the cutoff of the sizes after it. Walking all sizes and finding every remaining size
empty is a proof of optimality for the best card seen. The walk runs on a thread of its own
beside the first size's MIP (both release the GIL): that MIP's cutoff is the start's objective,
which the walk's card can only lower, so its "infeasible" holds for the walk's card too, and
until the walk is in, nothing it reports claims the small sizes.

On breastcancer at C0 = 0.01 (9 features): cards of up to 3 features are walked in about 2 s,
size 4 is infeasible after about 17 s and size 5 after 2 s, where one MIP over the whole box
still had a gap of 74-91 % after 60 s.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from ..core.formulation import Formulation
from .backends.mip import solve_formulation
from .base import Incumbent, SolveResult, relative_gap
from .exhaustive import solve_by_enumeration, support_size_limit, use_costs, work_by_size
from .search import SearchProblem

__all__ = ["solve_by_size", "size_split"]

#: at most this many sizes get a MIP of their own; beyond it one MIP over the box is used
MAX_SIZE_MIPS = 4
#: elementary steps (see ``work_by_size``) the walk of the small sizes may take (~2-4 s)
WALK_WORK = 3e9


def size_split(
    form: Formulation, upper: float, works: list[float] | None = None, settled: int = -1
) -> tuple[int, int] | None:
    """``(k, K)``: walk cards of up to k movable features, one MIP for each size k+1..K;
    None when more than ``MAX_SIZE_MIPS`` sizes would be left for MIPs. ``works`` is
    ``work_by_size(form, upper)`` when the caller has it already; cards of up to ``settled``
    features are settled already (by the support scan) and need no walk."""
    if not math.isfinite(upper):
        return None
    if works is None:
        works = work_by_size(form, upper)
    K = support_size_limit(SearchProblem(form), upper, None)
    k = max(min(settled, K), 0)
    while k < min(K, len(works) - 1) and works[k + 1] <= WALK_WORK:
        k += 1
    if K - k > MAX_SIZE_MIPS:
        return None
    return k, K


def _size_floor(prob: SearchProblem, size: int) -> float:
    """A lower bound on the objective of any card with ``size`` movable features: its
    cheapest penalties (the loss is never negative)."""
    free = [j for j in range(prob.P) if len(prob.allowed[j]) > 1]
    costs = np.sort(use_costs(prob, free))
    return float(prob.C0[prob.fixed_nonzero].sum()) + float(costs[:size].sum())


def solve_by_size(
    form: Formulation,
    upper: float,
    start: tuple[np.ndarray, int],
    split: tuple[int, int],
    *,
    time_left: float | None = None,
    threads: int = 1,
    cancel: threading.Event | None = None,
    on_incumbent: Callable[[Incumbent], None] | None = None,
    latest: Callable[[], tuple[np.ndarray, int, float] | None] | None = None,
    on_bound: Callable[[float], None] | None = None,
    settled: int = -1,
) -> SolveResult:
    """Solve by walking sizes <= k and one cut-off MIP per size k+1..K (see the module).

    ``upper`` is the objective of ``start``, a feasible card. The result is
    ``optimal`` when every size was settled, else ``time_limit`` / ``interrupted`` with a
    bound that is the smallest of: the stopped size's MIP bound and the cheapest penalties
    of each size not reached. ``latest`` returns the newest card of a search running
    beside (points, intercept, objective), if any: each size's cutoff uses the best card so far.
    ``on_bound`` hears the bound on the whole problem as a size's MIP raises it. Cards of up
    to ``settled`` features were settled before (by the support scan, from ``start``): when
    that covers k, nothing is walked.
    """
    t0 = time.perf_counter()
    deadline = None if time_left is None else t0 + time_left
    k, _ = split
    prob = SearchProblem(form)
    best = (np.asarray(start[0]), int(start[1]), upper)

    def stopped() -> str:
        return "interrupted" if cancel is not None and cancel.is_set() else "time_limit"

    def result(status: str, bound: float) -> SolveResult:
        obj = best[2]
        bound = obj if status == "optimal" else min(bound, obj)
        return SolveResult(
            status,
            best[0],
            best[1],
            obj,
            bound,
            relative_gap(obj, bound),
            time.perf_counter() - t0,
            "enumeration+highs",
        )

    # the walk runs beside the first size's MIP (another core), whose cutoff is the start's
    walk = _WalkBeside(form, upper, k, deadline) if k > settled else None
    try:
        size = max(k + 1, form.always_used())  # no card has fewer features than it always uses
        while True:
            if walk is not None and size > k + 1:
                walked, walk = walk.join(), None
                if walked is None:
                    return result(stopped(), -math.inf)
                best = _walked_in(walked, best, on_incumbent, _size_floor(prob, size), t0)
            best = _better(best, None if latest is None else latest())
            n_free = size - form.always_used()
            if size > support_size_limit(prob, best[2], None) or n_free > int(
                np.count_nonzero(form.col_alpha >= 0)
            ):
                if walk is None:
                    break  # no card of this size (nor larger) can beat the best
                size += 1  # the walk's card joins first
                continue
            # while the walk runs, what the MIP reports is capped by the cheapest card it may find
            floor_after = _size_floor(prob, size + 1 if walk is None else max(settled + 1, 0))
            # its own big-M rows: seconds on 10^4 rows of a busy machine
            sub = None if _stop_now(deadline, cancel) else form.restricted(size, best[2])
            left = None if deadline is None else deadline - time.perf_counter()
            if sub is None or left is not None and left <= 0.0:
                return result(stopped(), -math.inf if walk is not None else _size_floor(prob, size))
            part = _solve_size(
                sub,
                floor_after,
                left,
                threads,
                cancel,
                on_incumbent,
                on_bound if walk is None else None,
                t0,
            )
            best = _better(
                best,
                None
                if part.coefficients is None
                else (part.coefficients, part.intercept, part.objective),
            )
            if (
                part.status not in ("optimal", "infeasible")
                or cancel is not None
                and cancel.is_set()
            ):
                # a proof HiGHS gives as it is being stopped is not taken: only the size's penalties
                part = (
                    part
                    if part.status not in ("optimal", "infeasible")
                    else replace(part, bound=-math.inf)
                )
                if (
                    walk is not None and walk.finished() and walk.join() is not None
                ):  # the small sizes are in
                    best = _walked_in(walk.join(), best, on_incumbent, _size_floor(prob, size), t0)
                    floor_after, walk = _size_floor(prob, size + 1), None
                # a MIP stopped before its first bound still has its size's cheapest penalties
                return result(stopped(), min(max(part.bound, _size_floor(prob, size)), floor_after))
            size += 1
    finally:
        if walk is not None:
            walk.halt()
    return result("optimal", math.inf)


def _stop_now(deadline: float | None, cancel) -> bool:
    """Whether the time is up or the solve was cancelled."""
    return (
        deadline is not None
        and deadline <= time.perf_counter()
        or cancel is not None
        and cancel.is_set()
    )


def _better(best: tuple, other: tuple | None) -> tuple:
    """``best`` (points, intercept, objective), or ``other`` (a card found beside) when better."""
    if other is None or other[2] >= best[2] - 1e-12:
        return best
    return np.asarray(other[0]), int(other[1]), other[2]


def _walked_in(walked, best: tuple, on_incumbent, floor: float, t0: float) -> tuple:
    """``best`` (points, intercept, objective), or the walk's card when that is better (told
    to ``on_incumbent`` with ``floor``, the cheapest card of the sizes not yet settled)."""
    if walked.objective >= best[2] - 1e-12:
        return best
    if on_incumbent is not None:
        on_incumbent(
            Incumbent(
                walked.coefficients,
                walked.intercept,
                walked.objective,
                min(walked.objective, floor),
                time.perf_counter() - t0,
            )
        )
    return walked.coefficients, walked.intercept, walked.objective


class _WalkBeside:
    """The walk of every card of up to ``k`` movable features that could beat ``upper``
    (:func:`.exhaustive.solve_by_enumeration`, compiled code that releases the GIL) on a
    thread, beside the first size's MIP; :meth:`join` waits for its result (None: it ran out
    of time or was halted)."""

    def __init__(self, form: Formulation, upper: float, k: int, deadline: float | None):
        self._halt = threading.Event()
        self._result = None

        def run() -> None:
            self._result = solve_by_enumeration(
                form, upper, deadline=deadline, cancel=self._halt, max_features=k
            )

        self._thread = threading.Thread(target=run, name="slimwidgets-walk", daemon=True)
        self._thread.start()

    def join(self):
        self._thread.join()
        return self._result

    def finished(self) -> bool:
        return not self._thread.is_alive()

    def halt(self) -> None:
        """Stop the walk (its result is dropped) and wait for its thread."""
        self._halt.set()
        self._thread.join()


def _solve_size(
    sub: Formulation,
    floor_after: float,
    left: float | None,
    threads: int,
    cancel,
    on_incumbent,
    on_bound,
    t0: float,
) -> SolveResult:
    """One size's cut-off MIP ``sub``; what it reports carries a bound on the whole problem:
    its own bound covers its size only, so it is capped by ``floor_after``, the cheapest
    penalties of the larger sizes."""

    def report(inc: Incumbent) -> None:
        if on_incumbent is not None:
            on_incumbent(
                Incumbent(
                    inc.coefficients,
                    inc.intercept,
                    inc.objective,
                    min(inc.bound, floor_after),
                    time.perf_counter() - t0,
                )
            )

    rise = None if on_bound is None else (lambda b: on_bound(min(b, floor_after)))
    return solve_formulation(
        sub, time_limit=left, threads=threads, on_incumbent=report, cancel=cancel, on_bound=rise
    )
