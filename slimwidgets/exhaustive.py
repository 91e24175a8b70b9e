"""Exact solve by enumeration, for problems whose box is small enough to walk.

Every card with at most ``K`` features is scored, where ``K`` is the largest
support whose penalties alone stay below the incumbent's objective (a card
with more features cannot win, since the loss is never negative). Cards are
walked support by support: all values of the support's first coordinates are
fixed in turn, and the compiled coordinate move scores every value of the last
coordinate at once, each with its best intercept. Walking every candidate is
itself the proof of optimality.
"""

from __future__ import annotations

import itertools
import math
import threading
import time
from dataclasses import dataclass

import numpy as np

from . import _kernels
from .formulation import Formulation
from .search import _Problem

__all__ = ["enumeration_work", "solve_by_enumeration", "EnumerationResult"]


@dataclass(frozen=True)
class EnumerationResult:
    coefficients: np.ndarray
    intercept: int
    objective: float
    cards: int  # how many (support, values) combinations were scored
    elapsed: float


def _max_support(prob: _Problem, free: list[int], upper_bound: float, fixed_cost: float) -> int:
    """Largest number of free features a card can use and still beat ``upper_bound``."""
    costs = np.sort(prob.C0[free])
    total, k = fixed_cost, 0
    for c in costs:
        if total + c > upper_bound + 1e-12:
            break
        total += c
        k += 1
    if prob.max_size is not None:
        k = min(k, prob.max_size - int(np.count_nonzero(prob.fixed_nonzero)))
    return max(k, 0)


def enumeration_work(form: Formulation, upper_bound: float) -> float:
    """Rough count of elementary steps a full enumeration would take (to decide whether to try)."""
    prob = _Problem(form)
    free = [j for j in range(prob.P) if len(prob.allowed[j]) > 1]
    K = _max_support(prob, free, upper_bound, _fixed_cost(prob))
    rows = prob.n + prob.R
    work = 0.0
    for k in range(0, K + 1):
        # every support of size k; all values of its first k-1 coordinates; one kernel call each
        per_support = 1.0
        for _ in range(max(k - 1, 0)):
            per_support *= 20.0
        work += math.comb(len(free), k) * per_support * rows * (21 if k else 1)
        if work > 1e12:
            break
    return work


def _fixed_cost(prob: _Problem) -> float:
    fixed = prob.fixed_nonzero
    return float(prob.C0[fixed].sum())


def solve_by_enumeration(form: Formulation, upper_bound: float = math.inf, deadline: float | None = None,
                         cancel: threading.Event | None = None) -> EnumerationResult | None:
    """The exact optimum of ``form`` by walking every card that could beat ``upper_bound``.

    Returns None when ``deadline`` (a ``time.perf_counter()`` value) passes or
    ``cancel`` is set first.
    """
    t0 = time.perf_counter()
    prob = _Problem(form)
    prob.deadline = math.inf if deadline is None else deadline
    prob.cancel = cancel
    free = [j for j in range(prob.P) if len(prob.allowed[j]) > 1]
    base_lam = np.array([prob.allowed[j][0] if len(prob.allowed[j]) == 1 else 0 for j in range(prob.P)], dtype=np.int64)
    required = [j for j in free if 0 not in prob.allowed[j]]
    K = _max_support(prob, free, upper_bound, _fixed_cost(prob))
    best = (math.inf, base_lam, 0)
    cards = 0
    optional = [j for j in free if j not in required]
    for extra in range(0, max(K - len(required), -1) + 1):
        for chosen in itertools.combinations(optional, extra):
            if prob.expired():
                return None
            support = list(required) + list(chosen)
            used = base_lam != 0
            used[support] = True
            if prob.support_penalty(used) > 0:
                continue  # breaks max_size or a logical constraint
            if not support:
                obj, b = prob.evaluate(base_lam)
                cards += 1
                if obj < best[0] - 1e-12:
                    best = (obj, base_lam.copy(), b)
                continue
            head, last = support[:-1], support[-1]
            nonzero = [prob.allowed[j][prob.allowed[j] != 0] for j in head]
            last_vals = prob.allowed[last][prob.allowed[last] != 0]
            fixed_cost = float(prob.C0[used].sum())
            l1_mask = prob.l1_mask
            for values in itertools.product(*nonzero):
                lam = base_lam.copy()
                lam[head] = values
                base = prob.base(prob.X @ lam)
                rp, xp = prob.nz_pos[last]
                rn, xn = prob.nz_neg[last]
                bs, losses = _kernels.coordinate_losses(
                    last_vals.astype(np.float64), rp, xp, rn, xn, base["s_pos"], base["s_neg"], base["a"], base["c"],
                    prob.wp, prob.wn, prob.dp, prob.dn, base["hp"], base["hn"], base["cp"], base["cn"],
                    prob.Wp, prob.Dp, prob.gamma, prob.ilo, prob.R, prob.pos_budget, prob.neg_budget, prob.big,
                )
                l1 = float(np.abs(lam[l1_mask]).sum()) + (np.abs(last_vals) if l1_mask[last] else 0)
                totals = losses + fixed_cost + prob.eps * l1
                cards += len(last_vals)
                k = int(np.argmin(totals))
                if totals[k] < best[0] - 1e-12:
                    lam[last] = last_vals[k]
                    best = (float(totals[k]), lam, int(bs[k]))
    obj, lam, b = best
    if not obj < prob.big:
        return EnumerationResult(lam, b, math.inf, cards, time.perf_counter() - t0)
    lam, b = form.canonical(lam, b)
    return EnumerationResult(lam, int(b), form.objective_of(lam, b), cards, time.perf_counter() - t0)
