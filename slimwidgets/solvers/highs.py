"""HiGHS in this process, through highspy: one ``passModel`` call, a previous card as the
starting incumbent, every improving card and rising bound reported while it runs, and a stop
from another thread (HiGHS obeys it only at some points; see :mod:`.worker`)."""

from __future__ import annotations

import math
import os
import sys
import threading
import time
from typing import Callable

import numpy as np

from ..core.formulation import Formulation
from .base import Incumbent, SolveResult, SolverError, relative_gap

__all__ = ["new_highs", "solve_highs", "card_from_columns"]

# HiGHS keeps one thread scheduler per process (see new_highs); its first Highs() prints a banner.
_scheduler_threads: list[int] = []
_scheduler_lock = threading.Lock()
_banner_lock = threading.Lock()
_banner_done = False


def card_from_columns(form: Formulation, x: np.ndarray) -> tuple[np.ndarray, int]:
    coefs = form.fixed_lambda.copy()
    free = form.col_lambda >= 0
    coefs[free] = np.round(x[form.col_lambda[free]])
    return form.canonical(coefs, int(round(x[form.col_intercept])))


def new_highs(threads: int = 1):
    """A quiet ``highspy.Highs`` set to ``threads``, for every HiGHS run in the package.

    HiGHS keeps one thread scheduler per process, sized by its first run; a run
    with another ``threads`` value fails with status "Not Set" unless the
    scheduler is reset first, so all runs go through this bookkeeping.
    """
    import highspy

    h = _quiet_highs()
    h.setOptionValue("output_flag", False)
    with _scheduler_lock:
        if _scheduler_threads and _scheduler_threads[-1] != threads:
            highspy.Highs.resetGlobalScheduler(True)
        _scheduler_threads[:] = [threads]
    h.setOptionValue("threads", int(threads))
    h.setOptionValue("random_seed", 0)
    return h


def _quiet_highs():
    """A Highs object; the first one in a process prints a banner to fd 1, which we swallow."""
    import highspy

    global _banner_done
    with _banner_lock:
        if not _banner_done:
            _banner_done = True
            try:
                sys.stdout.flush()
                saved = os.dup(1)
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, 1)
                try:
                    return highspy.Highs()
                finally:
                    os.dup2(saved, 1)
                    os.close(saved)
                    os.close(devnull)
            except OSError:
                pass
    return highspy.Highs()


def solve_highs(form, *, time_limit, gap, threads, warm_start, on_incumbent, cancel, feasibility_only,
                on_bound=None) -> SolveResult:
    """Run HiGHS on ``form`` in this process; see :mod:`slimwidgets.solvers.mip` for the status
    words. ``on_incumbent`` hears every improving card, ``on_bound`` every rise of the bound
    (paper units), and a set ``cancel`` asks HiGHS to stop."""
    h = _load(form, time_limit=time_limit, gap=gap, threads=threads, warm_start=warm_start,
              feasibility_only=feasibility_only)
    t0 = time.perf_counter()
    _subscribe(h, form, on_incumbent, on_bound, t0)
    stop_watching = _watch(h, cancel)
    try:
        h.run()
    finally:
        stop_watching()
    return _result(h, form, gap, feasibility_only, time.perf_counter() - t0)


def _load(form: Formulation, *, time_limit, gap, threads, warm_start, feasibility_only):
    """A Highs object holding the program, its options and the warm start."""
    import highspy

    h = new_highs(threads)
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    h.setOptionValue("mip_rel_gap", float(gap))
    # Absolute gap well below eps (in scaled units) so "optimal" means exactly optimal.
    h.setOptionValue("mip_abs_gap", float(min(1e-6, 0.1 * form.epsilon * form.scale)))
    if form.objective_step > 0:  # a gap below one step leaves only the incumbent's value possible
        h.setOptionValue("mip_abs_gap", float(0.99 * form.objective_step * form.scale))
    cost = np.zeros_like(form.cost) if feasibility_only else form.cost
    if feasibility_only:
        h.setOptionValue("mip_max_improving_sols", 1)
    integrality = form.integer.astype(np.int32)
    status = h.passModel(
        form.n_cols, form.n_rows, form.nnz, 2, 1, 0.0,
        cost, form.lower, form.upper, form.row_lower, form.row_upper,
        form.start, form.index, form.value, integrality,
    )
    if status == highspy.HighsStatus.kError:
        raise SolverError("HiGHS rejected the model")
    if warm_start is not None:
        x0 = form.full_solution(*warm_start)
        if x0 is not None:
            h.setSolution(_solution(highspy, x0))
    return h


def _paper_units(form: Formulation, solver_value: float) -> float:
    return solver_value / form.scale + form.constant


def _subscribe(h, form: Formulation, on_incumbent, on_bound, t0: float) -> None:
    """Report improving cards and rising bounds, in paper units, while HiGHS runs."""
    if on_incumbent is not None:
        def report(e):
            x = np.asarray(e.data_out.mip_solution)
            coefs, b = card_from_columns(form, x)
            obj = form.objective_of(coefs, b)
            bound = _paper_units(form, e.data_out.mip_dual_bound)
            on_incumbent(Incumbent(coefs, b, obj, min(bound, obj), time.perf_counter() - t0))
        h.cbMipImprovingSolution.subscribe(report)
    if on_bound is not None:
        shown = [-math.inf]

        def rise(e):  # HiGHS calls this ~100 times a second during the tree search
            bound = e.data_out.mip_dual_bound
            if math.isfinite(bound):
                bound = _paper_units(form, bound)
                if bound > shown[0] + 1e-12:
                    shown[0] = bound
                    on_bound(bound)
        h.cbMipInterrupt.subscribe(rise)


def _watch(h, cancel) -> Callable[[], None]:
    """Ask HiGHS to stop once ``cancel`` is set (a thread looks every 20 ms); returns the
    function that ends the watching."""
    if cancel is None:
        return lambda: None
    h.HandleUserInterrupt = True
    done = threading.Event()

    def watch():
        while not done.wait(0.02):
            if cancel.is_set():
                h.cancelSolve()
                return
    threading.Thread(target=watch, daemon=True).start()
    return done.set


_STATUS_WORDS = {"kOptimal": "optimal", "kTimeLimit": "time_limit", "kInterrupt": "interrupted",
                 "kSolutionLimit": "solution_limit"}


def _result(h, form: Formulation, gap: float, feasibility_only: bool, elapsed: float) -> SolveResult:
    """The finished run as a SolveResult: the card re-evaluated exactly, and "optimal" only
    when that exact value agrees with the solver's proof."""
    import highspy

    model_status, info = h.getModelStatus(), h.getInfo()
    S = highspy.HighsModelStatus
    nodes = int(getattr(info, "mip_node_count", 0) or 0)
    if model_status in (S.kInfeasible, S.kUnboundedOrInfeasible):
        return SolveResult("infeasible", None, None, None, math.inf, math.inf, elapsed, "highs", nodes)
    word = next((w for name, w in _STATUS_WORDS.items() if model_status == getattr(S, name)), "error")
    bound = _paper_units(form, info.mip_dual_bound) if math.isfinite(info.mip_dual_bound) else -math.inf
    if info.primal_solution_status != 2:  # no kSolutionStatusFeasible card
        if word == "error":
            raise SolverError(f"HiGHS stopped with status {h.modelStatusToString(model_status)!r} and no card")
        return SolveResult("no_solution", None, None, None, bound, math.inf, elapsed, "highs", nodes)
    coefs, intercept = card_from_columns(form, np.asarray(h.getSolution().col_value))
    objective = form.objective_of(coefs, intercept)
    if feasibility_only:
        return SolveResult("feasible", coefs, intercept, objective, -math.inf, math.inf, elapsed, "highs", nodes)
    solver_obj = _paper_units(form, info.objective_function_value)
    if word == "optimal":
        bound = max(bound, min(objective, solver_obj) - float(gap) * abs(objective))
    bound = min(bound, objective)
    g = relative_gap(objective, bound)
    if word == "optimal" and objective > solver_obj + 1e-9 * max(1.0, abs(objective)):
        # The exact re-evaluation disagrees with the solver (tolerances on badly
        # scaled data): do not claim a proof we do not have.
        word = "feasible"
    if word == "optimal" and gap == 0 and g > 1e-9:
        word = "feasible"
    return SolveResult(word, coefs, intercept, objective, bound, g, elapsed, "highs", nodes)


def _solution(highspy, x):
    sol = highspy.HighsSolution()
    sol.col_value = list(map(float, x))
    sol.value_valid = True
    return sol

