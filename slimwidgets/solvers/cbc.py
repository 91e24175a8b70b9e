"""CBC through PuLP: the fallback MIP solver (no incumbents streamed, no bound reported)."""

from __future__ import annotations

import math
import time
import warnings

import numpy as np

from .base import SolveResult, SolverError, relative_gap
from .highs import card_from_columns

__all__ = ["solve_cbc"]


def solve_cbc(form, *, time_limit, gap, threads, feasibility_only) -> SolveResult:
    import pulp

    prob, cols = form.to_pulp()
    if feasibility_only:
        prob.setObjective(pulp.LpAffineExpression())
    options = dict(msg=False, timeLimit=time_limit, gapRel=gap if gap > 0 else 0.0, threads=threads)
    cmd = pulp.COIN_CMD(**options)
    if not cmd.available():
        with warnings.catch_warnings():
            # the CBC bundled with PuLP 3 is deprecated, but it is what most installs have
            warnings.simplefilter("ignore", DeprecationWarning)
            cmd = pulp.PULP_CBC_CMD(**options)
    t0 = time.perf_counter()
    try:
        prob.solve(cmd)
    except pulp.PulpSolverError as exc:
        raise SolverError(f"CBC failed: {exc}. Try solver='highs'.") from None
    elapsed = time.perf_counter() - t0
    status = prob.status
    sol_status = prob.sol_status
    if status == pulp.LpStatusInfeasible:
        return SolveResult("infeasible", None, None, None, math.inf, math.inf, elapsed, "cbc")
    if sol_status not in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible):
        if status == pulp.LpStatusNotSolved and time_limit is not None:
            return SolveResult("no_solution", None, None, None, -math.inf, math.inf, elapsed, "cbc")
        raise SolverError(f"CBC returned status {pulp.LpStatus.get(status, status)!r} with no card")
    x = np.array([v.varValue if v.varValue is not None else 0.0 for v in cols])
    coefs, intercept = card_from_columns(form, x)
    objective = form.objective_of(coefs, intercept)
    if feasibility_only:
        return SolveResult("feasible", coefs, intercept, objective, -math.inf, math.inf, elapsed, "cbc")
    if sol_status == pulp.LpSolutionOptimal:
        # CBC through PuLP reports no bound; optimal means its gap test passed.
        word, bound = "optimal", objective * (1 - gap)
    else:
        word = "time_limit"
        bound = -math.inf
    return SolveResult(word, coefs, intercept, objective, bound, relative_gap(objective, bound), elapsed, "cbc")
