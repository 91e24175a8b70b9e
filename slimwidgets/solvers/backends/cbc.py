"""MIP solvers through PuLP: CBC, the fallback (``solver="cbc"``), and any solver PuLP has
(``solver="pulp"``, named by ``pulp_solver``). No incumbents streamed; PuLP reports no bound."""

from __future__ import annotations

import math
import time
import warnings

import numpy as np

from ..base import SolverError, SolveResult, relative_gap
from .highs import card_from_columns

__all__ = ["solve_cbc", "solve_pulp", "pulp_solver"]


def solve_cbc(form, *, time_limit, gap, threads, feasibility_only) -> SolveResult:
    import pulp

    options = dict(msg=False, timeLimit=time_limit, gapRel=gap if gap > 0 else 0.0, threads=threads)
    cmd = pulp.COIN_CMD(**options)
    if not cmd.available():
        with warnings.catch_warnings():
            # the CBC bundled with PuLP 3 is deprecated, but it is what most installs have
            warnings.simplefilter("ignore", DeprecationWarning)
            cmd = pulp.PULP_CBC_CMD(**options)
    return _solve_with(
        form, cmd, "cbc", time_limit=time_limit, gap=gap, feasibility_only=feasibility_only
    )


def pulp_solver(name: str | None, *, time_limit=None, gap=0.0, threads=1):
    """The PuLP solver called ``name`` (as ``pulp.listSolvers()`` spells it), quiet, with the
    time limit, gap and threads; None: PuLP's HiGHS when it is available, else its CBC. A
    name PuLP does not know, or a solver not installed, is a ``ValueError``
    naming those that are."""
    import pulp

    options = dict(msg=False, timeLimit=time_limit, gapRel=gap if gap > 0 else 0.0, threads=threads)
    if name is None:
        name = "HiGHS" if pulp.HiGHS(msg=False).available() else "PULP_CBC_CMD"
    available = pulp.listSolvers(onlyAvailable=True)
    if name not in available:
        known = "knows no solver" if name not in pulp.listSolvers() else "cannot run the solver"
        raise ValueError(
            f"pulp_solver={name!r}: PuLP {known} of that name here; available: {available}"
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # PuLP 3 deprecates its bundled CBC
        return pulp.getSolver(name, **options)


def solve_pulp(form, *, time_limit, gap, threads, feasibility_only) -> SolveResult:
    """The program through the PuLP solver its spec names (``pulp_solver``)."""
    name = getattr(form.spec, "pulp_solver", None)
    cmd = pulp_solver(name, time_limit=time_limit, gap=gap, threads=threads)
    return _solve_with(
        form,
        cmd,
        f"pulp:{cmd.name}",
        time_limit=time_limit,
        gap=gap,
        feasibility_only=feasibility_only,
    )


def _solve_with(form, cmd, label: str, *, time_limit, gap, feasibility_only) -> SolveResult:
    """Solve ``form`` with the PuLP solver ``cmd``; the result in the program's units."""
    import pulp

    prob, cols = form.to_pulp()
    if feasibility_only:
        prob.setObjective(pulp.LpAffineExpression())
    t0 = time.perf_counter()
    try:
        prob.solve(cmd)
    except pulp.PulpSolverError as exc:
        raise SolverError(f"{label} failed: {exc}. Try solver='highs'.") from None
    elapsed = time.perf_counter() - t0
    status = prob.status
    sol_status = prob.sol_status
    if status == pulp.LpStatusInfeasible:
        return SolveResult("infeasible", None, None, None, math.inf, math.inf, elapsed, label)
    if sol_status not in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible):
        if status == pulp.LpStatusNotSolved and time_limit is not None:
            return SolveResult.no_card(label, elapsed)
        raise SolverError(
            f"{label} returned status {pulp.LpStatus.get(status, status)!r} with no card"
        )
    x = np.array([v.varValue if v.varValue is not None else 0.0 for v in cols])
    coefs, intercept = card_from_columns(form, x)
    objective = form.objective_of(coefs, intercept)
    if feasibility_only:
        return SolveResult(
            "feasible", coefs, intercept, objective, -math.inf, math.inf, elapsed, label
        )
    if sol_status == pulp.LpSolutionOptimal:
        # PuLP reports no bound; optimal means the solver's gap test passed.
        word, bound = "optimal", objective * (1 - gap)
    else:
        word = "time_limit"
        bound = -math.inf
    return SolveResult(
        word, coefs, intercept, objective, bound, relative_gap(objective, bound), elapsed, label
    )
