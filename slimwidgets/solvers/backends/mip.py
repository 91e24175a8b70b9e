"""Solve a :class:`~slimwidgets.core.formulation.Formulation`, honestly.

HiGHS is driven through highspy directly: the arrays go in with one
``passModel`` call, a previous card can be set as the starting incumbent,
every improving incumbent can be reported while the solve runs, and another
thread can stop it. CBC runs through PuLP. Status words:

``optimal``      proven optimal (within the requested gap, which defaults to 0)
``time_limit``   stopped by the time limit; the incumbent is returned with its bound and gap
``interrupted``  stopped by ``cancel``; likewise (a solve that may be cancelled runs in a
                 child process, see :mod:`slimwidgets.solvers.backends.worker`)
``infeasible``   no card satisfies the constraints
``no_solution``  stopped before any card was found
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

from ...core.formulation import Formulation
from ..base import Incumbent, SolverError, SolveResult, relative_gap
from .cbc import solve_cbc, solve_pulp
from .highs import new_highs, solve_highs

__all__ = [
    "SolveResult",
    "Incumbent",
    "solve_formulation",
    "SolverError",
    "new_highs",
    "relative_gap",
]


def solve_formulation(
    form: Formulation,
    *,
    time_limit: float | None = None,
    gap: float = 0.0,
    threads: int = 1,
    solver: str = "highs",
    warm_start: tuple[np.ndarray, int] | None = None,
    on_incumbent: Callable[[Incumbent], None] | None = None,
    cancel: threading.Event | None = None,
    feasibility_only: bool = False,
    on_bound: Callable[[float], None] | None = None,
) -> SolveResult:
    """Solve the program; see the module docstring for the status words.

    ``on_bound(bound)`` hears HiGHS's proven lower bound (paper units) each time it rises.
    """
    if solver == "cbc":
        return solve_cbc(
            form, time_limit=time_limit, gap=gap, threads=threads, feasibility_only=feasibility_only
        )
    if solver == "pulp":  # any solver PuLP has, named by the spec's pulp_solver
        return solve_pulp(
            form, time_limit=time_limit, gap=gap, threads=threads, feasibility_only=feasibility_only
        )
    # the child process and the in-process solve take the same options
    options = dict(
        time_limit=time_limit,
        gap=gap,
        threads=threads,
        warm_start=warm_start,
        on_incumbent=on_incumbent,
        cancel=cancel,
        feasibility_only=feasibility_only,
        on_bound=on_bound,
    )
    if cancel is not None:
        from . import worker  # loaded on first use: it is also the child's entry point (-m)

        if worker.available():  # a cancellable solve runs where it can be killed at once
            result = worker.solve_in_child(form, **options)
            if result is not None:
                return result
    return solve_highs(form, **options)
