"""HiGHS in this process, through highspy: one ``passModel`` call, a previous card as the
starting incumbent, every improving card and rising bound reported while it runs, and a stop
from another thread (HiGHS obeys it only at some points; see :mod:`.worker`)."""

from __future__ import annotations

import math
import os
import sys
import threading
import time
from collections.abc import Callable

import numpy as np

from ...core.formulation import Formulation
from ..base import Incumbent, SolverError, SolveResult, relative_gap

__all__ = ["new_highs", "solve_highs", "card_from_columns", "row_tolerance"]

#: HiGHS's defaults for the two tolerances :func:`row_tolerance` may tighten, and the least
#: value HiGHS accepts for either (1e-10 in highspy 1.16)
DEFAULT_TOLERANCES = {"mip_feasibility_tolerance": 1e-6, "primal_feasibility_tolerance": 1e-7}
LEAST_TOLERANCE = 1e-10

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


def row_tolerance(form: Formulation) -> float | None:
    """The feasibility and integrality tolerance under which no solution HiGHS accepts can
    switch a loss row off; None when HiGHS's defaults already do (or there is no loss row).

    A loss row reads ``y_i (b + x_i . lambda) + M_i z_i >= m_i``. HiGHS takes ``z_i <= tau``
    as 0 and lets the row fall short by ``delta``, so a row it counts as right has
    ``y_i total >= m_i - delta - M_i tau``. The totals are multiples of the margin g (the
    data's granularity), so with ``delta + M_i tau < g`` that is the exact rule. On
    spambase (M up to 275,572, g = 0.001) the defaults let ``z_i = 4e-9`` count as 0 and
    every row as right, so HiGHS "proved" the empty card at its root; ``tau = delta =
    g / (2 (M + 1))`` (1.8e-9) forbids that. Below HiGHS's least tolerance (1e-10) the
    least is used, and only the exact re-evaluation in :func:`solve_highs` stands guard.

    Examples
    --------
    >>> import slimwidgets as sw
    >>> import numpy as np
    >>> from slimwidgets.core.data import prepare_data
    >>> from slimwidgets.core.formulation import build_formulation
    >>> X = np.array([[0.001, 5000.0], [2.5, 1.0], [3.25, 4000.0]])
    >>> data = prepare_data(X, np.array([1, -1, 1]), warn=False)
    >>> row_tolerance(build_formulation(data, sw.make_spec()))  # M ~ 10^5 over g = 0.001
    9.99...e-09
    >>> X = np.array([[1.0, 5.0], [2.0, 1.0], [3.0, 4.0]])  # integer data: the defaults do
    >>> data = prepare_data(X, np.array([1, -1, 1]), warn=False)
    >>> row_tolerance(build_formulation(data, sw.make_spec())) is None
    True
    """
    big_m = _largest_big_m(form)
    if big_m is None or form.margin <= 0:
        return None
    slack = (
        DEFAULT_TOLERANCES["primal_feasibility_tolerance"]
        + big_m * DEFAULT_TOLERANCES["mip_feasibility_tolerance"]
    )
    if slack < 0.5 * form.margin:
        return None
    # tau (M + 1) = g / 2; never looser than a default, nor tighter than HiGHS takes
    tolerance = 0.5 * form.margin / (big_m + 1.0)
    return max(min(tolerance, min(DEFAULT_TOLERANCES.values())), LEAST_TOLERANCE)


def _largest_big_m(form: Formulation) -> float | None:
    """The largest coefficient of an indicator (an integer column other than the intercept and
    the points) in a row that holds the intercept: the loss rows' M_i, and the group rows' (None:
    no such row). The size and cap rows, whose coefficients are weights, do not hold the
    intercept and do not count."""
    row_of = np.repeat(np.arange(form.n_rows), np.diff(form.start))
    scored = np.zeros(form.n_rows, dtype=bool)
    scored[row_of[form.index == form.col_intercept]] = True
    indicator = form.integer.astype(bool).copy()
    indicator[form.col_intercept] = False
    indicator[form.col_lambda[form.col_lambda >= 0]] = False
    entries = scored[row_of] & indicator[form.index]
    if not entries.any():
        return None
    return float(np.abs(form.value[entries]).max())


def new_highs(threads: int = 1):
    """A quiet ``highspy.Highs`` set to ``threads``, for every HiGHS run in the package.

    HiGHS keeps one thread scheduler per process, sized by its first run; a run
    with another ``threads`` value fails with status "Not Set" unless the
    scheduler is reset first, so all runs go through this bookkeeping. Before the
    package's first run the scheduler is reset too: another library (PuLP's HiGHS,
    say) may have sized it already.
    """
    import highspy

    h = _quiet_highs()
    h.setOptionValue("output_flag", False)
    with _scheduler_lock:
        if _scheduler_threads != [threads]:
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


def solve_highs(
    form,
    *,
    time_limit,
    gap,
    threads,
    warm_start,
    on_incumbent,
    cancel,
    feasibility_only,
    on_bound=None,
) -> SolveResult:
    """Run HiGHS on ``form`` in this process; see :mod:`slimwidgets.solvers.backends.mip` for the
    status
    words. ``on_incumbent`` hears every improving card, ``on_bound`` every rise of the bound
    (paper units), and a set ``cancel`` asks HiGHS to stop."""
    h = _load(
        form,
        time_limit=time_limit,
        gap=gap,
        threads=threads,
        warm_start=warm_start,
        feasibility_only=feasibility_only,
    )
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
    tolerance = row_tolerance(form)
    if tolerance is not None:  # a z_i within HiGHS's tolerance of 0 must not switch its row off
        for name in DEFAULT_TOLERANCES:
            h.setOptionValue(name, tolerance)
    cost = np.zeros_like(form.cost) if feasibility_only else form.cost
    if feasibility_only:
        h.setOptionValue("mip_max_improving_sols", 1)
    integrality = form.integer.astype(np.int32)
    status = h.passModel(
        form.n_cols,
        form.n_rows,
        form.nnz,
        2,
        1,
        0.0,
        cost,
        form.lower,
        form.upper,
        form.row_lower,
        form.row_upper,
        form.start,
        form.index,
        form.value,
        integrality,
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


_STATUS_WORDS = {
    "kOptimal": "optimal",
    "kTimeLimit": "time_limit",
    "kInterrupt": "interrupted",
    "kSolutionLimit": "solution_limit",
}


def _result(
    h, form: Formulation, gap: float, feasibility_only: bool, elapsed: float
) -> SolveResult:
    """The finished run as a SolveResult: the card re-evaluated exactly, and "optimal" only
    when that exact value agrees with the solver's proof."""
    import highspy

    model_status, info = h.getModelStatus(), h.getInfo()
    S = highspy.HighsModelStatus
    nodes = int(getattr(info, "mip_node_count", 0) or 0)
    if model_status in (S.kInfeasible, S.kUnboundedOrInfeasible):
        return SolveResult(
            "infeasible", None, None, None, math.inf, math.inf, elapsed, "highs", nodes
        )
    word = next(
        (w for name, w in _STATUS_WORDS.items() if model_status == getattr(S, name)), "error"
    )
    bound = (
        _paper_units(form, info.mip_dual_bound) if math.isfinite(info.mip_dual_bound) else -math.inf
    )
    if info.primal_solution_status != 2:  # no kSolutionStatusFeasible card
        if word == "error":
            raise SolverError(
                f"HiGHS stopped with status {h.modelStatusToString(model_status)!r} and no card"
            )
        return SolveResult(
            "no_solution", None, None, None, bound, math.inf, elapsed, "highs", nodes
        )
    coefs, intercept = card_from_columns(form, np.asarray(h.getSolution().col_value))
    objective = form.objective_of(coefs, intercept)
    if feasibility_only:
        return SolveResult(
            "feasible", coefs, intercept, objective, -math.inf, math.inf, elapsed, "highs", nodes
        )
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
