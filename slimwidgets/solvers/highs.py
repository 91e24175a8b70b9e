"""HiGHS in this process, through highspy: one ``passModel`` call, a previous card as the
starting incumbent, every improving card and rising bound reported while it runs, and a stop
from another thread (HiGHS obeys it only at some points; see :mod:`.worker`)."""

from __future__ import annotations

import math
import os
import sys
import threading
import time

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
    import highspy

    h = new_highs(threads)
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    h.setOptionValue("mip_rel_gap", float(gap))
    # Absolute gap well below eps (in scaled units) so "optimal" means exactly optimal.
    h.setOptionValue("mip_abs_gap", float(min(1e-6, 0.1 * form.epsilon * form.scale)))
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
    t0 = time.perf_counter()
    if on_incumbent is not None:
        def report(e):
            x = np.asarray(e.data_out.mip_solution)
            coefs, b = card_from_columns(form, x)
            obj = form.objective_of(coefs, b)
            bound = e.data_out.mip_dual_bound / form.scale + form.constant
            on_incumbent(Incumbent(coefs, b, obj, min(bound, obj), time.perf_counter() - t0))
        h.cbMipImprovingSolution.subscribe(report)
    if on_bound is not None:
        shown = [-math.inf]

        def rise(e):  # HiGHS calls this ~100 times a second during the tree search
            bound = e.data_out.mip_dual_bound
            if math.isfinite(bound):
                bound = bound / form.scale + form.constant
                if bound > shown[0] + 1e-12:
                    shown[0] = bound
                    on_bound(bound)
        h.cbMipInterrupt.subscribe(rise)
    watcher = None
    if cancel is not None:
        h.HandleUserInterrupt = True
        done = threading.Event()

        def watch():
            while not done.wait(0.02):
                if cancel.is_set():
                    h.cancelSolve()
                    return
        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
    try:
        h.run()
    finally:
        if watcher is not None:
            done.set()
    elapsed = time.perf_counter() - t0
    model_status = h.getModelStatus()
    info = h.getInfo()
    S = highspy.HighsModelStatus
    has_solution = info.primal_solution_status == 2  # kSolutionStatusFeasible
    nodes = int(getattr(info, "mip_node_count", 0) or 0)
    if model_status in (S.kInfeasible, S.kUnboundedOrInfeasible):
        return SolveResult("infeasible", None, None, None, math.inf, math.inf, elapsed, "highs", nodes)
    if model_status == S.kOptimal:
        word = "optimal"
    elif model_status == S.kTimeLimit:
        word = "time_limit"
    elif model_status == S.kInterrupt:
        word = "interrupted"
    elif model_status == S.kSolutionLimit:
        word = "solution_limit"
    else:
        word = "error"
    if not has_solution:
        if word == "error":
            raise SolverError(f"HiGHS stopped with status {h.modelStatusToString(model_status)!r} and no card")
        bound = info.mip_dual_bound / form.scale + form.constant if math.isfinite(info.mip_dual_bound) else -math.inf
        return SolveResult("no_solution", None, None, None, bound, math.inf, elapsed, "highs", nodes)
    x = np.asarray(h.getSolution().col_value)
    coefs, intercept = card_from_columns(form, x)
    objective = form.objective_of(coefs, intercept)
    solver_obj = info.objective_function_value / form.scale + form.constant
    bound = info.mip_dual_bound / form.scale + form.constant if math.isfinite(info.mip_dual_bound) else -math.inf
    if feasibility_only:
        return SolveResult("feasible", coefs, intercept, objective, -math.inf, math.inf, elapsed, "highs", nodes)
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

