"""Exact solve by enumeration, for problems whose box is small enough to walk.

Every card with at most ``K`` features is scored, where ``K`` is the largest
support whose penalties alone stay below the incumbent's objective (a card
with more features cannot win, since the loss is never negative). Cards are
walked support by support: all values of the support's first coordinates are
fixed in turn, and the compiled coordinate move scores every value of the last
coordinate at once, each with its best intercept. Walking every candidate is
itself the proof of optimality.

The sec. 7 options fit the same walk: rules per group is a filter on supports,
group and rule penalties a cost per support, tier costs a cost per value (added
inside the compiled walk), and sign agreement splits a support's walk into one
walk per sign of each group it touches (the mixed-sign cards are never walked).
"""

from __future__ import annotations

import itertools
import math
import threading
import time
from dataclasses import dataclass

import numpy as np

from ..core.formulation import Formulation
from . import _kernels
from .cell_search import MAX_RULES, CellSearch
from .search import SearchProblem

__all__ = [
    "work_by_size",
    "steps_per_support",
    "solve_by_enumeration",
    "EnumerationResult",
    "SupportWalker",
    "use_costs",
    "support_size_limit",
]


@dataclass(frozen=True)
class EnumerationResult:
    coefficients: np.ndarray
    intercept: int
    objective: float
    cards: int  # how many (support, values) combinations were scored
    elapsed: float


def use_costs(prob: SearchProblem, free: list[int]) -> np.ndarray:
    """A lower bound on what using each free feature adds to a card's penalty.

    C0_j, plus its cheapest non-zero value's tier cost, plus for a group member
    the smaller of the group and rule penalties (a group with k members in use
    costs C_f + C_t (k - 1) >= k min(C_f, C_t)).
    """
    costs = prob.C0[free].astype(float).copy()
    for t, j in enumerate(free):
        nonzero = prob.allowed[j] != 0
        if prob.has_tiers and nonzero.any():
            costs[t] += float(prob.value_cost[j][nonzero].min())
        if prob.group_id[j] >= 0:
            costs[t] += min(prob.form.group_penalty, prob.form.rule_penalty)
    return costs


def _max_support(
    prob: SearchProblem, free: list[int], upper_bound: float, fixed_cost: float
) -> int:
    """Largest number of free features a card can use and still beat ``upper_bound``."""
    costs = np.sort(use_costs(prob, free))
    total, k = fixed_cost, 0
    for c in costs:
        if total + c > upper_bound + 1e-12:
            break
        total += c
        k += 1
    if prob.max_size is not None:
        k = min(k, prob.max_size - int(np.count_nonzero(prob.fixed_nonzero)))
    if prob.most_rules is not None:  # max_variables bounds the size too
        k = min(k, prob.most_rules - int(np.count_nonzero(prob.fixed_nonzero)))
    return max(k, 0)


def _supports(prob: SearchProblem, K: int):
    """Every support (list of movable features) of size <= K that meets the support constraints."""
    free = [j for j in range(prob.P) if len(prob.allowed[j]) > 1]
    required = [j for j in free if 0 not in prob.allowed[j]]
    optional = [j for j in free if j not in required]
    for extra in range(0, K - len(required) + 1):
        for chosen in itertools.combinations(optional, extra):
            support = required + list(chosen)
            used = prob.fixed_nonzero.copy()
            used[support] = True
            if prob.support_penalty(used) == 0:
                yield support


def value_lists(prob: SearchProblem, support: list[int], base_lam: np.ndarray):
    """(non-zero values, their tier costs) per support coordinate; with sign agreement, one
    such pair of lists per choice of sign for every group the support could mix.

    Parameters
    ----------
    prob : SearchProblem
        The problem.
    support : list of int
        The support's features.
    base_lam : numpy.ndarray
        The locked points (0 elsewhere): they fix a group's sign.

    Yields
    ------
    tuple of (list of numpy.ndarray, list of numpy.ndarray)
        The allowed non-zero points of each feature of ``support`` and their tier costs.
    """
    nonzero = [prob.allowed[j] != 0 for j in support]
    values = [prob.allowed[j][m] for j, m in zip(support, nonzero)]
    costs = [prob.value_cost[j][m] for j, m in zip(support, nonzero)]
    if not prob.signs_agree:
        yield values, costs
        return
    choices: list[list[tuple[int, int]]] = []  # per group touched: (group, sign) options
    for g in sorted({int(prob.group_id[j]) for j in support if prob.group_id[j] >= 0}):
        members = prob.groups[g]
        fixed = prob.orient[members] * base_lam[members]
        signs = set(np.sign(fixed[fixed != 0]).astype(int).tolist())
        if len(signs) > 1:
            return  # locked members disagree: no card on this support
        in_support = sum(1 for j in support if prob.group_id[j] == g)
        if signs:
            choices.append([(g, signs.pop())])
        elif in_support >= 2:
            choices.append([(g, 1), (g, -1)])
    for pattern in itertools.product(*choices):
        sign_of = dict(pattern)
        v_out, c_out = [], []
        for j, v, c in zip(support, values, costs):
            s = sign_of.get(int(prob.group_id[j]))
            if s is not None:
                keep = prob.orient[j] * v * s > 0
                v, c = v[keep], c[keep]
            if not len(v):
                break
            v_out.append(v)
            c_out.append(c)
        else:
            yield v_out, c_out


def support_size_limit(prob: SearchProblem, upper_bound: float, max_features: int | None) -> int:
    """The most features a card can use and still beat ``upper_bound`` (at most
    ``max_features``)."""
    free = [j for j in range(prob.P) if len(prob.allowed[j]) > 1]
    K = _max_support(prob, free, upper_bound, float(prob.C0[prob.fixed_nonzero].sum()))
    return K if max_features is None else min(K, max_features)


def work_by_size(form: Formulation, upper_bound: float) -> list[float]:
    """Rough count of elementary steps to walk every support of size <= k, for k = 0, 1, ..., K
    (cumulative; the list stops early once it passes 1e13).

    Per support: every value of its first k-1 coordinates, times one pass over the rows (or
    the cells of rows that agree on the support, see ``_Cells``) and one histogram scan over
    the intercepts its scores can reach (``_intercept_window``) per value of the last one.
    """
    prob = SearchProblem(form)
    steps = _StepsPerSupport(prob)
    work, out = 0.0, []
    for k in range(0, support_size_limit(prob, upper_bound, None) + 1):
        work += math.comb(len(steps.free), k) * steps(k)
        out.append(work)
        if work > 1e13:
            break
    return out


def steps_per_support(form: Formulation, size: int) -> float:
    """Rough count of elementary steps to walk one support of ``size`` features (the unit of
    :func:`work_by_size`, whose list stops at 1e13 in all: this one answers for every size)."""
    return _StepsPerSupport(SearchProblem(form))(size)


class _StepsPerSupport:
    """What one support's walk costs by its size (see :func:`work_by_size`)."""

    def __init__(self, prob: SearchProblem):
        self.prob = prob
        self.free = free = [j for j in range(prob.P) if len(prob.allowed[j]) > 1]
        # values per coordinate: 21 for the usual box (kept as the floor), more for wide PILM boxes
        self.width = max([21.0] + [float(len(prob.allowed[j])) for j in free])
        self.cells = not np.any(prob.fixed_nonzero)
        low, high = prob.col_low[free], prob.col_high[free]
        # distinct values per column, counted cheaply (small integers: the
        # range; else assume all differ)
        n = prob.n
        self.levels = sorted(
            np.where(_small_integers(prob)[free], np.minimum(high - low + 1, n), n).tolist(),
            reverse=True,
        )
        top_points = np.array([float(np.abs(prob.allowed[j]).max()) for j in free])
        self.reach = sorted(
            (top_points * np.maximum(np.abs(low), np.abs(high))).tolist(), reverse=True
        )
        self.over_cells = CellSearch(prob)
        self.binary = bool(np.all(self.over_cells.binary[free])) if free else False

    def _cell_steps(self, k: int) -> float | None:
        """A support's steps when the search over cells settles supports of ``k`` rules (every
        free column 0/1; the first ``k`` stand for all), else None."""
        if not self.binary or not 1 <= k <= min(MAX_RULES, len(self.free)):
            return None
        support = self.free[:k]
        values = [self.prob.allowed[j][self.prob.allowed[j] != 0] for j in support]
        mags = self.over_cells.fits(support, values)
        return None if mags is None else self.over_cells.work(k, mags)

    def __call__(self, k: int) -> float:
        over_cells = self._cell_steps(k)
        if over_cells is not None:
            return over_cells
        prob, n, width = self.prob, self.prob.n, self.width
        rows = float(n)
        if self.cells:
            rows = min(rows, float(np.prod(self.levels[:k])))
        bins = min(
            float(prob.R),
            2.0 * (sum(self.reach[:k]) + max(abs(prob.gamma_pos), abs(prob.gamma_neg)) + 2) + 1,
        )
        combos = float(np.prod([width] * max(k - 1, 0)))  # values of the first k-1 coordinates
        return (4.0 * k * n if self.cells else 0.0) + combos * (
            k * rows + width * (rows + 5.0 * bins)
        )


def solve_by_enumeration(
    form: Formulation,
    upper_bound: float = math.inf,
    deadline: float | None = None,
    cancel: threading.Event | None = None,
    max_features: int | None = None,
) -> EnumerationResult | None:
    """The best card with at most ``max_features`` movable features (all, by default) that
    could beat ``upper_bound``, by walking every one; exact for that class of cards.

    Returns None when ``deadline`` (a ``time.perf_counter()`` value) passes or
    ``cancel`` is set first.
    """
    t0 = time.perf_counter()
    prob = SearchProblem(form)
    prob.deadline = math.inf if deadline is None else deadline
    prob.cancel = cancel
    walker = SupportWalker(prob)
    best = (math.inf, walker.base_lam, 0)
    for support in _supports(prob, support_size_limit(prob, upper_bound, max_features)):
        if prob.expired():
            return None
        found = walker.best(support)
        if found[0] < best[0] - 1e-12:
            best = found
    cards = walker.cards
    obj, lam, b = best
    if not obj < prob.big:
        return EnumerationResult(lam, b, math.inf, cards, time.perf_counter() - t0)
    lam, b = form.canonical(lam, b)
    return EnumerationResult(
        lam, int(b), form.objective_of(lam, b), cards, time.perf_counter() - t0
    )


class SupportWalker:
    """The best card on one support at a time: every combination of its allowed values,
    each with its best intercept (the walk's body; the support scan walks its survivors
    with it). ``cards`` counts the (support, values) combinations scored so far."""

    def __init__(self, prob: SearchProblem):
        self.prob = prob
        self.base_lam = np.array([v[0] if len(v) == 1 else 0 for v in prob.allowed], dtype=np.int64)
        s0 = prob.X @ self.base_lam
        self.s0_pos, self.s0_neg = (
            np.ascontiguousarray(s0[prob.pos]),
            np.ascontiguousarray(s0[prob.neg]),
        )
        self.Xp, self.Xn = prob.X[prob.pos], prob.X[prob.neg]
        # Without locked points every row's score depends only on its values on the support, so
        # rows that agree there can be walked as one weighted cell (few cells on binary data).
        self.cells = _Cells(prob) if not np.any(s0) else None
        self.over_cells = CellSearch(prob)  # supports of a few 0/1 rules: no walk of the box
        self.cards = 0

    def best(self, support: list[int]) -> tuple[float, np.ndarray, int]:
        """(objective, points, intercept) of the best card on ``support`` (objective inf: none)."""
        prob, base_lam = self.prob, self.base_lam
        used = prob.fixed_nonzero.copy()
        used[support] = True
        fixed_cost = prob.support_cost(used) + prob.eps * float(
            np.abs(base_lam[prob.l1_mask]).sum()
        )
        if not support:
            obj, b = prob.evaluate(base_lam)
            self.cards += 1
            return (obj, base_lam.copy(), b) if obj < prob.big else (math.inf, base_lam, 0)
        best = (math.inf, base_lam, 0)
        for nonzero, costs in value_lists(prob, support, base_lam):
            found = self.over_cells.best(support, nonzero)
            if found is not None:
                total, points, b = found
                self.cards += 1
                if total + fixed_cost < min(best[0], prob.big) - 1e-12:
                    lam = base_lam.copy()
                    lam[support] = points
                    best = (total + fixed_cost, lam, int(b))
                continue
            width = max(len(v) for v in nonzero)
            vals = np.zeros((len(support), width))
            vcost = np.zeros((len(support), width))
            for t, (v, c) in enumerate(zip(nonzero, costs)):
                vals[t, : len(v)] = v
                vcost[t, : len(c)] = c
            nvals = np.array([len(v) for v in nonzero], dtype=np.int64)
            rows = self.cells.project(support) if self.cells is not None else None
            if rows is None:
                rows = (
                    np.ascontiguousarray(self.Xp[:, support]),
                    np.ascontiguousarray(self.Xn[:, support]),
                    self.s0_pos,
                    self.s0_neg,
                    prob.wp,
                    prob.wn,
                    prob.dp,
                    prob.dn,
                )
            ilo, R = _intercept_window(prob, rows, vals)
            total, idx, b = _kernels.walk_support(
                rows[0],
                rows[1],
                vals,
                nvals,
                rows[2],
                rows[3],
                rows[4],
                rows[5],
                rows[6],
                rows[7],
                prob.Wp,
                prob.Dp,
                prob.gamma_pos,
                prob.gamma_neg,
                ilo,
                R,
                prob.pos_budget,
                prob.neg_budget,
                prob.big,
                prob.eps,
                prob.l1_mask[support].copy(),
                vcost,
                prob.single[support[-1]],
            )
            self.cards += int(np.prod(nvals))
            if total + fixed_cost < min(best[0], prob.big) - 1e-12:
                lam = base_lam.copy()
                lam[support] = [nonzero[t][idx[t]] for t in range(len(support))]
                best = (total + fixed_cost, lam, int(b))
        return best


def _small_integers(prob: SearchProblem) -> np.ndarray:
    """Columns of integers spanning fewer than 64 values (binary rules, small counts)."""
    return prob.col_integer & (prob.col_high - prob.col_low < 64)


class _Cells:
    """Rows grouped by their values on a support: one weighted cell per distinct pattern.

    Each column's values are coded 0..m_j-1 once; a support's pattern is then a mixed-radix
    number, and four weighted bincounts give the cells' weights in one vectorised pass.
    """

    def __init__(self, prob: SearchProblem):
        X = prob.X
        self.n = X.shape[0]
        self.levels, codes = [], np.empty(X.shape, dtype=np.int64)
        low, high, small = prob.col_low, prob.col_high, _small_integers(prob)
        for j in range(X.shape[1]):
            if small[j]:  # small integers (binary, counts) code as offsets: no sort needed
                levels, codes[:, j] = np.arange(low[j], high[j] + 1), X[:, j] - low[j]
            else:
                levels, codes[:, j] = np.unique(X[:, j], return_inverse=True)
            self.levels.append(levels)
        self.codes = codes
        pos = prob.pos
        self.weights = [
            np.where(pos, prob.w, 0.0),
            np.where(pos, 0.0, prob.w),
            np.where(pos, prob.form.data.weight, 0.0),
            np.where(pos, 0.0, prob.form.data.weight),
        ]

    def project(self, support: list[int]):
        """(X_pos, X_neg, s0_pos, s0_neg, w_pos, w_neg, d_pos, d_neg) of the cells, or None
        when grouping would not shrink the rows by much."""
        sizes = [len(self.levels[j]) for j in support]
        n_keys = int(np.prod(sizes, dtype=np.float64)) if sizes else 1
        if n_keys > self.n // 2:
            return None
        key = np.zeros(self.n, dtype=np.int64)
        for j, m in zip(support, sizes):
            key = key * m + self.codes[:, j]
        wp, wn, dp, dn = (np.bincount(key, weights=w, minlength=n_keys) for w in self.weights)
        out = []
        for has, w, d in ((wp + dp > 0, wp, dp), (wn + dn > 0, wn, dn)):
            k = np.flatnonzero(has)
            X = np.empty((k.size, len(support)))
            rest = k.copy()
            for t in range(len(support) - 1, -1, -1):
                X[:, t] = self.levels[support[t]][rest % sizes[t]]
                rest //= sizes[t]
            out.append((X, np.ascontiguousarray(w[k]), np.ascontiguousarray(d[k])))
        (Xp, wp, dp), (Xn, wn, dn) = out
        return Xp, Xn, np.zeros(len(Xp)), np.zeros(len(Xn)), wp, wn, dp, dn


def _intercept_window(prob: SearchProblem, rows, vals: np.ndarray) -> tuple[int, int]:
    """The part of the intercept range where the loss can change for this support.

    Every score lies within +-smax, so below ``-smax - margin`` every row is predicted
    negative and above ``smax + margin`` positive: the loss is flat outside, and the
    walk's histograms need only the bins in between (exact, and far fewer on small data).
    """
    Xp, Xn, s0p, s0n = rows[:4]
    width = np.abs(vals).max(axis=1) if vals.size else np.zeros(0)
    col_max = np.maximum(np.abs(Xp).max(axis=0, initial=0.0), np.abs(Xn).max(axis=0, initial=0.0))
    s0 = max(np.abs(s0p).max(initial=0.0), np.abs(s0n).max(initial=0.0))
    smax = s0 + float(width @ col_max) + max(abs(prob.gamma_pos), abs(prob.gamma_neg)) + 2
    lo = max(prob.ilo, int(math.floor(-smax)))
    hi = min(prob.ilo + prob.R - 1, int(math.ceil(smax)))
    if lo > hi:
        return prob.ilo, prob.R
    return lo, hi - lo + 1
