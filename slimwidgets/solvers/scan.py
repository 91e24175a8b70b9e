"""Proof by support scan: discard whole supports with a floor on their loss, walk the rest.

Rows that agree on a card's support (and on its locked points) share one score, so they are
all predicted alike: in each such *cell* either every positive row or every negative row is
an error (no score makes both right while the margin is positive). Any card on a support S
therefore makes at least ``floor(S) = sum over the cells of min(positive, negative weight)``
weighted errors, whatever its points, signs, value sets or caps. With an incumbent of
objective UB, a card on S can only win when ``floor(S) + cost(S) < UB``, where cost(S) is
the least its penalties can be (C0_j, tier, group and L1 costs of its features).

The scan computes floor(S) for every support of every size that can still win: cells are
bitsets of rows, refined feature by feature depth-first (:mod:`._scan_kernels`), so a support
costs a few popcounts per word of its mixed cells. On binary data most supports are
discarded wholesale (mushroom at C0 = 0.01: every support of sizes 3 and 4). The survivors
are settled exactly by the walk (:class:`.exhaustive.SupportWalker`), cheapest floor first;
walking every survivor is the proof of optimality.

On integer-valued data (breastcancer) the cells are many and small, the floors weak and the
survivors many: ``max_work`` lets the fit driver give the scan up after measuring its work.
"""

from __future__ import annotations

import itertools
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..core.decision_family import DECISION
from ..core.formulation import Formulation
from ..core.linear import LinearRow
from ..core.objective import loss_unit
from . import _scan_kernels
from .base import Incumbent, SolveResult, relative_gap
from .exhaustive import (
    SupportWalker,
    steps_per_support,
    support_size_limit,
    use_costs,
    value_lists,
)
from .lattice_walk import LatticeWalk
from .search import SearchProblem

__all__ = [
    "solve_by_scan",
    "scan_applicable",
    "ScanLimits",
    "support_floors",
    "surviving_supports",
    "support_caps",
    "ThresholdFloor",
    "rows_per_support",
    "reads_points",
    "keeps_rows",
]

#: a column with more distinct values is treated as splitting every row apart (floor 0)
MAX_LEVELS = 64
#: integer row weights are kept below this (coarser weights are rounded down: still a floor)
MAX_WEIGHT = 2**20
#: the lattice floor fixes the points of at most this many combinations of columns (20 x 20:
#: two fractional columns in the default box)
MAX_LATTICE_POINTS = 4096
#: walk steps per second, on the fast side (0.7-5e9 measured here): only for the time limit,
#: which must not start a support's walk (it cannot be interrupted) that cannot end in time
WALK_RATE = 5e9


@dataclass(frozen=True)
class ScanLimits:
    """When the fit driver gives the scan up (it then proves another way): more than
    ``scan_work`` word-ops predicted for the scan, or more than ``walk_work`` steps walking
    survivors. The walk's work is counted support by support as it goes (each walked support
    adds :func:`.exhaustive.steps_per_support` of its size), not predicted for all survivors at
    once: a better card found early often prunes most of them. Raising the survivors' floors
    (threshold and lattice floors) counts as walk work too, but it is done for every survivor
    of a size: the scan declines before it when the survivors times the work per survivor of
    the size before exceed what is left. All are counts of work, never seconds, so the same
    call makes the same choice at any machine load."""

    scan_work: float
    walk_work: float


def scan_applicable(form: Formulation) -> bool:
    """Whether the cell floor holds: no score may make a positive and a negative row right at
    once (a positive margin), the loss being the 0-1 loss of :attr:`Formulation.row_weight`."""
    return form.margin > 0


def _integer_weights(w: np.ndarray) -> tuple[float, np.ndarray]:
    """(unit, integers m) with m * unit <= w row by row: exact for weights that are multiples
    of one unit (counts of duplicate rows), rounded down otherwise (still a floor)."""
    if not w.size or not np.any(w > 0):
        return 1.0, np.zeros(w.size, dtype=np.int64)
    unit = loss_unit(w)
    m = np.floor(w / unit + 1e-6)
    if m.max() > MAX_WEIGHT:
        unit = float(w.max()) / MAX_WEIGHT
        m = np.floor(w / unit)
    held = m > 0
    if held.any():  # the largest unit that keeps m * unit <= w for every row
        unit = float(np.min(w[held] / m[held])) * (1 - 1e-12)
    return unit, m.astype(np.int64)


def _pack(positions: np.ndarray, n_words: int) -> np.ndarray:
    """Bitset (uint64 words) with the given bit positions set."""
    flags = np.zeros(n_words * 64, dtype=bool)
    flags[positions] = True
    return np.packbits(flags, bitorder="little").view("<u8").astype(np.uint64)


class _Bitsets:
    """The problem's rows as bitsets: per scanned feature and level, per weight bit, and the
    cells of depth 0 (rows grouped by their required features and locked points)."""

    def __init__(self, prob: SearchProblem, base_lam: np.ndarray):
        self.prob = prob
        free = [j for j in range(prob.P) if len(prob.allowed[j]) > 1]
        self.required = [j for j in free if 0 not in prob.allowed[j]]
        self.optional = [j for j in free if j not in self.required]
        n_pos, n_neg = int(prob.pos.sum()), int(prob.neg.sum())
        self.Wp = -(-n_pos // 64)
        W = self.Wp + -(-n_neg // 64)
        bit = np.empty(prob.n, dtype=np.int64)
        bit[prob.pos] = np.arange(n_pos)
        bit[prob.neg] = self.Wp * 64 + np.arange(n_neg)
        self.u_pos, m_pos = _integer_weights(prob.w[prob.pos])
        self.u_neg, m_neg = _integer_weights(prob.w[prob.neg])
        weight = np.empty(prob.n, dtype=np.int64)
        weight[prob.pos], weight[prob.neg] = m_pos, m_neg
        self.K = 0 if np.all(weight == 1) else int(weight.max()).bit_length()
        self.slices = np.array(
            [_pack(bit[(weight >> k) & 1 == 1], W) for k in range(max(self.K, 1))]
        )
        present = weight > 0  # rows of weight 0 (rounded down) are left out of every cell
        levels = [np.unique(prob.X[present, j]) for j in self.optional]
        self.nlev = np.array(
            [len(v) if len(v) <= MAX_LEVELS else 0 for v in levels], dtype=np.int64
        )
        self.bits = np.zeros(
            (len(self.optional), max(int(self.nlev.max(initial=1)), 1), W), dtype=np.uint64
        )
        for t, j in enumerate(self.optional):
            for v in range(self.nlev[t]):
                self.bits[t, v] = _pack(bit[present & (prob.X[:, j] == levels[t][v])], W)
        self.cells0 = self._first_cells(bit, weight, base_lam, present, W)
        self.caps = support_caps(prob, self.required, self.optional)

    def _first_cells(self, bit, weight, base_lam, present, W):
        """Mixed cells of rows that agree on the locked points' score and the required features:
        (word index, mask) pairs, cell starts, and the positive and negative weight of each."""
        prob = self.prob
        keys = np.column_stack([prob.X @ base_lam] + [prob.X[:, j] for j in self.required])
        _, cell = np.unique(keys, axis=0, return_inverse=True)
        cell = cell.ravel()
        n_cells = int(cell.max()) + 1 if cell.size else 0
        wp = np.bincount(
            cell[prob.pos & present], weights=weight[prob.pos & present], minlength=n_cells
        )
        wn = np.bincount(
            cell[prob.neg & present], weights=weight[prob.neg & present], minlength=n_cells
        )
        mixed = (wp > 0) & (wn > 0)
        rows = np.flatnonzero(present & mixed[cell])
        order = np.lexsort((bit[rows] >> 6, cell[rows]))
        rows = rows[order]
        pair = cell[rows] * W + (bit[rows] >> 6)  # one (cell, word) per run
        first = (
            np.flatnonzero(np.r_[True, pair[1:] != pair[:-1]])
            if rows.size
            else np.zeros(0, np.int64)
        )
        masks = np.left_shift(np.uint64(1), (bit[rows] & 63).astype(np.uint64))
        mask = np.bitwise_or.reduceat(masks, first) if rows.size else np.zeros(0, np.uint64)
        word = bit[rows][first] >> 6
        cell_of = cell[rows][first]
        kept = np.flatnonzero(mixed)
        start = np.searchsorted(cell_of, kept, side="left")
        start = np.r_[start, len(first)].astype(np.int64)
        return (
            word.astype(np.int64),
            mask.astype(np.uint64),
            start,
            wp[kept].astype(np.int64),
            wn[kept].astype(np.int64),
        )

    def floor0(self) -> float:
        """Floor of the supports with no optional feature."""
        *_, wp, wn = self.cells0
        return float(np.minimum(wp * self.u_pos, wn * self.u_neg).sum())

    def scan(
        self, extra: int, budget0: float, cost: np.ndarray, deadline: float, cancel
    ) -> tuple | None:
        """Supports of ``extra`` optional features (as positions in ``optional``) whose floor stays
        below ``budget0 - cost`` of their features: (supports, floors, supports scanned, word-ops);
        None when the deadline passes or ``cancel`` is set first."""
        word, mask, start, wp, wn = self.cells0
        # a (cell, word) pair holds a row at least, and a mixed cell two: room for every depth
        depth, rows = max(extra, 1), max(self.prob.n, 1)
        idx = np.zeros((depth, rows), np.int64)
        msk = np.zeros((depth, rows), np.uint64)
        st = np.zeros((depth, rows // 2 + 2), np.int64)
        cp = np.zeros((depth, rows // 2 + 1), np.int64)
        cn = np.zeros_like(cp)
        nc = np.zeros(depth + 1, np.int64)
        order = np.zeros_like(cp)
        order[0, : len(wp)] = np.argsort(
            -np.minimum(wp * self.u_pos, wn * self.u_neg), kind="stable"
        )
        idx[0, : len(word)], msk[0, : len(word)], st[0, : len(start)] = word, mask, start
        cp[0, : len(wp)], cn[0, : len(wn)], nc[0] = wp, wn, len(wp)
        out_sup, out_floor = [], []
        scanned = ops = 0
        room = 1024
        P = len(self.optional)
        first = 0
        while first <= P - extra:
            if time.perf_counter() > deadline or (cancel is not None and cancel.is_set()):
                return None
            sup = np.zeros((room, extra), np.int64)
            flo = np.zeros(room)
            found, seen, used = _scan_kernels.scan_supports(
                extra,
                first,
                first + 1,
                self.bits,
                self.nlev,
                cost,
                budget0,
                self.Wp,
                self.slices,
                self.K,
                self.u_pos,
                self.u_neg,
                idx,
                msk,
                st,
                cp,
                cn,
                nc,
                order,
                sup,
                flo,
                *self.caps,
            )
            if found > room:  # more survivors than room: again, with room for all
                room = 2 * found
                continue
            out_sup.append(sup[:found])
            out_floor.append(flo[:found])
            scanned += seen
            ops += used
            first += 1
        sups = np.concatenate(out_sup) if out_sup else np.zeros((0, extra), np.int64)
        floors = np.concatenate(out_floor) if out_floor else np.zeros(0)
        return sups, floors, scanned, ops


class ThresholdFloor:
    """A floor for supports with a column that is not 0/1, far above the cell floor's.

    Without locked points, a card's score on a support S is ``lam_c * x_c`` plus a number
    fixed by the row's values on the rest of S. So among rows that agree on the rest of S
    (a group), the rows a card calls positive are those with ``x_c`` at or above one
    threshold (``lam_c > 0``) or below one (``lam_c < 0``), the direction shared by every
    group; a row it calls neither (within the margin) is an error either way. The least
    errors of such labellings (:func:`._scan_kernels.threshold_floor`, ``c`` the column with
    the most values) is a floor on the loss of every card on S. It is never below the cell
    floor, which lets each (group, value) be labelled freely; on a column of many values
    (heart's heart-rate ratio: 281) the cell floor is near 0 and this one is not.

    Parameters
    ----------
    prob : SearchProblem
        The problem (no locked points: :attr:`applies` is False otherwise).

    Examples
    --------
    >>> import numpy as np, slimwidgets as sw
    >>> from slimwidgets.core.data import prepare_data
    >>> from slimwidgets.core.formulation import build_formulation
    >>> X = np.array([[0.1, 0], [0.2, 0], [0.3, 0], [0.4, 1]])
    >>> data = prepare_data(X, [1, -1, 1, -1], warn=False)
    >>> prob = SearchProblem(build_formulation(data, sw.make_spec()))
    >>> floor = ThresholdFloor(prob)
    >>> bool(np.isclose(floor.loss([0, 1]), prob.w[0]))  # 4 cells, 1 threshold: 1 error
    True
    """

    def __init__(self, prob: SearchProblem):
        self.prob = prob
        self.applies = not np.any(prob.fixed_nonzero)
        X = prob.X
        self.binary = np.all((X == 0) | (X == 1), axis=0)
        self.codes = np.empty(X.shape, dtype=np.int64)
        self.levels = np.empty(X.shape[1], dtype=np.int64)
        for j in range(X.shape[1]):
            values, code = np.unique(X[:, j], return_inverse=True)
            self.codes[:, j], self.levels[j] = code.ravel(), len(values)
        self.order = np.argsort(X, axis=0, kind="stable")
        self.w = np.ascontiguousarray(prob.w, dtype=float)
        self.pos = np.ascontiguousarray(prob.pos)
        self.whole_points = np.array([np.all(v == np.round(v)) for v in prob.allowed])
        self.n_points = np.array([np.count_nonzero(v) for v in prob.allowed])
        self.points: dict[tuple[int, ...], np.ndarray] = {}  # lattice_points, by columns

    def helps(self, support: list[int]) -> bool:
        """Whether ``support`` has a column that is not 0/1 (the floor is the cell floor
        otherwise) and the floor holds (no locked points).

        Parameters
        ----------
        support : list of int
            The support's features.
        """
        return self.applies and not all(self.binary[j] for j in support)

    def lattice_columns(self, support: list[int]) -> list[int] | None:
        """The columns of ``support`` whose points the lattice floor (:meth:`lattice_loss`)
        fixes: those with values that are not whole numbers (else the one with the most
        values); None where it does not hold: locked points, points that are not whole
        numbers, or more than :data:`MAX_LATTICE_POINTS` combinations of their points.

        Parameters
        ----------
        support : list of int
            The support's features.
        """
        if not self.applies or not self.whole_points[support].all():
            return None
        fixed = [j for j in support if not self.prob.col_integer[j]]
        fixed = fixed or [max(support, key=lambda j: int(self.levels[j]))]
        combos = 1
        for j in fixed:
            combos *= int(self.n_points[j])
        return fixed if combos <= MAX_LATTICE_POINTS else None

    def lattice_loss(self, support: list[int], budget: float = math.inf) -> float | None:
        """The least weighted errors of any card on ``support`` whose points on its
        :meth:`lattice_columns` F are not 0, or None where that floor does not hold.

        The rest of the support and the intercept add a whole number K to a row's total
        (whole values, whole points), fixed within each group of rows that agree on the rest.
        With F's points fixed, u = F's part of a row's total, a group's positive rows are right
        for K at or above ``ceil(margin+ - u)`` and its negative rows for K at or below
        ``floor(-margin- - u)``: the group's errors are a step function of a whole number, not
        of a free threshold, and the margins' gap counts. The floor takes the best K per group
        and the best points of F among the allowed non-zero ones
        (:func:`._scan_kernels.lattice_floor`). A card with a point of 0 on F is a card of a
        smaller support, settled with it.

        Parameters
        ----------
        support : list of int
            The support's features (at least one).
        budget : float, default inf
            Errors at which the support cannot win: a floor at or above it may be answered
            as ``budget`` itself (the work stops there).
        """
        fixed = self.lattice_columns(support)
        if fixed is None:
            return None
        prob = self.prob
        group, n_groups = self.groups([j for j in support if j not in fixed])
        return float(
            _scan_kernels.lattice_floor(
                np.ascontiguousarray(prob.X[:, fixed], dtype=float),
                self.lattice_points(fixed),
                group,
                n_groups,
                self.w,
                self.pos,
                float(prob.gamma_pos),
                float(prob.gamma_neg),
                budget,
            )
        )

    def passes(self, support: list[int]) -> int:
        """The passes over the rows that raising ``support``'s floor takes: one per column to
        group the rows, and one per combination of the lattice floor's points
        (:meth:`lattice_columns`) or one for the threshold floor where that does not hold.

        Parameters
        ----------
        support : list of int
            The support's features (at least one).

        Examples
        --------
        >>> import numpy as np, slimwidgets as sw
        >>> from slimwidgets.core.data import prepare_data
        >>> from slimwidgets.core.formulation import build_formulation
        >>> X = np.array([[0.5, 0], [1.5, 0], [2.5, 1], [3.5, 1]])
        >>> data = prepare_data(X, [1, -1, 1, -1], warn=False)
        >>> spec = sw.make_spec(coef_range=(-2, 2))
        >>> ThresholdFloor(SearchProblem(build_formulation(data, spec))).passes([0, 1])
        6
        """
        fixed = self.lattice_columns(support)
        return len(support) + (1 if fixed is None else len(self.lattice_points(fixed)))

    def lattice_points(self, fixed: list[int]) -> np.ndarray:
        """Every combination of the allowed non-zero points of the columns ``fixed``, one per row.

        Parameters
        ----------
        fixed : list of int
            The columns (:meth:`lattice_columns`).
        """
        key = tuple(fixed)
        if key not in self.points:
            values = [self.prob.allowed[j][self.prob.allowed[j] != 0] for j in fixed]
            self.points[key] = np.array(list(itertools.product(*values)), dtype=float).reshape(
                -1, len(fixed)
            )
        return self.points[key]

    def groups(self, columns: list[int]) -> tuple[np.ndarray, int]:
        """Each row's group (its values on ``columns`` as one number) and the number of groups
        numbered: the patterns' mixed-radix codes while there are at most 4 n of them, else
        renumbered first (the codes stay below 4 n times a column's values: no overflow).

        Parameters
        ----------
        columns : list of int
            The columns whose values make a group.
        """
        n = self.prob.n
        group = np.zeros(n, dtype=np.int64)
        size = 1
        for j in columns:
            if size * int(self.levels[j]) > 4 * n:
                _, group = np.unique(group, return_inverse=True)
                group, size = group.ravel(), int(group.max()) + 1
            group = group * self.levels[j] + self.codes[:, j]
            size *= int(self.levels[j])
        if size > 4 * n:  # the kernel keeps a few numbers per group: no more groups than rows
            _, group = np.unique(group, return_inverse=True)
            group, size = group.ravel(), int(group.max()) + 1
        return group, size

    def loss(self, support: list[int]) -> float:
        """The least weighted errors of any card on ``support`` by the threshold argument.

        Parameters
        ----------
        support : list of int
            The support's features (at least one).
        """
        prob = self.prob
        c = max(support, key=lambda j: int(self.levels[j]))
        group, n_groups = self.groups([j for j in support if j != c])
        signs = np.sign(prob.allowed[c][prob.allowed[c] != 0])
        return float(
            _scan_kernels.threshold_floor(
                self.order[:, c],
                prob.X[:, c],
                group,
                n_groups,
                self.w,
                self.pos,
                bool(np.any(signs > 0)),
                bool(np.any(signs < 0)),
            )
        )


def support_caps(prob: SearchProblem, required: list[int], optional: list[int]) -> tuple:
    """The hard caps on supports that only grow as features are added, for the scan to cut
    whole branches (:func:`._scan_kernels.scan_supports`): ``(var, var_room, member, cap_room)``.

    ``var`` numbers each optional feature's variable under ``max_variables`` (-1: it adds no
    variable, its variable being in use by a locked or required feature, or there is no cap),
    ``var_room`` how many more variables a card may use; ``member[c]`` marks the optional
    features of each ``at_most`` constraint (``max_cuts_per_variable``'s among them) and
    ``cap_room[c]`` how many of them a card may still use.
    """
    used = prob.fixed_nonzero.copy()
    used[required] = True
    var = np.full(len(optional), -1, dtype=np.int64)
    var_room = len(optional)
    if prob.form.max_variables is not None:
        ids = prob.form.variable_id
        in_use = set(np.unique(ids[used]).tolist())
        var_room = prob.form.max_variables - len(in_use)
        var = np.array([-1 if ids[j] in in_use else ids[j] for j in optional], dtype=np.int64)
    position = {j: t for t, j in enumerate(optional)}
    caps = [(feats, k) for kind, feats, _, k in prob.logic if kind == "at_most"]
    member = np.zeros((len(caps), len(optional)), dtype=np.int64)
    cap_room = np.zeros(len(caps), dtype=np.int64)
    for c, (feats, k) in enumerate(caps):
        member[c, [position[j] for j in feats if j in position]] = 1
        cap_room[c] = k - int(used[feats].sum())
    return var, max(var_room, -1), member, cap_room


def supports_within_caps(caps: tuple, extra: int) -> int:
    """How many sets of ``extra`` optional features use at most ``var_room`` new variables
    (``caps`` from :func:`support_caps`; the ``at_most`` caps are not counted: an upper count).

    >>> var = np.array([0, 0, 1, 1, -1])  # two variables of two features each, and a free one
    >>> supports_within_caps((var, 1, None, None), 2), math.comb(5, 2)
    (6, 10)
    """
    var, var_room = caps[0], caps[1]
    if var_room < 0:
        return 0
    # ways[m, v]: sets of m features using v new variables, over the variables counted so far
    ways = np.zeros((extra + 1, var_room + 1), dtype=object)
    ways[0, 0] = 1
    for m in range(1, extra + 1):
        ways[m, 0] = math.comb(int(np.count_nonzero(var < 0)), m)
    for v in np.unique(var[var >= 0]):
        size = int(np.count_nonzero(var == v))
        grown = ways.copy()
        for m in range(extra + 1):
            for u in range(var_room):
                for take in range(1, min(size, extra - m) + 1):
                    grown[m + take, u + 1] += ways[m, u] * math.comb(size, take)
        ways = grown
    return int(ways[extra].sum())


def _feature_costs(prob: SearchProblem, feats: list[int]) -> np.ndarray:
    """The least each feature adds to a card's objective when used: C0_j, its group's least
    share (see :func:`.exhaustive.use_costs`), and its eps and tier floors."""
    costs = use_costs(prob, feats)
    if prob.has_tiers:  # use_costs holds the tier floor already
        costs -= np.array(
            [
                float(prob.value_cost[j][prob.allowed[j] != 0].min())
                if (prob.allowed[j] != 0).any()
                else 0.0
                for j in feats
            ]
        )
    return costs + _value_floors(prob, feats)


def support_floors(form: Formulation, extra: int) -> tuple[list[list[int]], np.ndarray]:
    """Every support with ``extra`` optional features beside the required ones, and the floor
    on the weighted loss (:attr:`Formulation.row_weight` units) of any card on it.

    >>> import numpy as np, slimwidgets as sw
    >>> from slimwidgets.core.data import prepare_data
    >>> from slimwidgets.core.formulation import build_formulation
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]])
    >>> form = build_formulation(prepare_data(X, [1, -1, 1, -1], warn=False), sw.make_spec())
    >>> support_floors(form, 1)  # alone, each feature leaves one error in each of its two cells
    ([[0], [1]], array([0.5, 0.5]))
    """
    prob = SearchProblem(form)
    bits = _Bitsets(prob, SupportWalker(prob).base_lam)
    if extra == 0:
        return [list(bits.required)], np.array([bits.floor0()])
    sups, floors, _, _ = bits.scan(extra, math.inf, np.zeros(len(bits.optional)), math.inf, None)
    return [bits.required + [bits.optional[t] for t in s] for s in sups], floors


def surviving_supports(form: Formulation, upper: float) -> list[tuple[float, list[int]]]:
    """Every support, of every size, on which a card could beat ``upper``: (the least objective
    of a card on it, the support); the scan discards every other support."""
    proof = _ScanProof(form, upper, None, None, None, None)
    proof.best = (None, 0, upper)
    extra = 0
    while extra <= len(proof.bits.optional) and extra + len(
        proof.bits.required
    ) <= support_size_limit(proof.prob, upper, None):
        proof.scan(extra)
        extra += 1
    return sorted(proof.pool, key=lambda s: s[0])


def solve_by_scan(
    form: Formulation,
    upper: float,
    start: tuple[np.ndarray, int] | None,
    *,
    time_left: float | None = None,
    cancel: threading.Event | None = None,
    on_incumbent: Callable[[Incumbent], None] | None = None,
    limits: ScanLimits | None = None,
    settled: int = -1,
    cost: dict | None = None,
) -> SolveResult:
    """The optimal card by scanning every support that could beat ``upper`` (the objective of
    ``start``, a feasible card) and walking the survivors (see the module).

    Sizes are settled in increasing order (scan, then walk the survivors, cheapest floor
    first), so a better card found among small supports tightens the scan of larger ones.
    Returns ``optimal`` when every size was settled, else ``time_limit`` / ``interrupted``
    with a proven bound: the least floor + cost of what was not settled. With ``limits``, the
    status is "declined" (with the best card so far and that bound) as soon as the measured
    work says the scan would exceed them: the caller then proves another way.

    ``settled``: no card of at most this many features beats ``upper`` (the caller proved it:
    a fold fit warm-started from the proven best card of the size before): those sizes are not
    scanned again. ``cost``: the scan's measured work (``ops``, ``per_support``) carried from
    such a scan of the smaller sizes, read to predict the first size scanned and updated.

    Examples
    --------
    >>> import numpy as np, slimwidgets as sw
    >>> from slimwidgets.core.data import prepare_data
    >>> from slimwidgets.core.formulation import build_formulation
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0], [1, 0]])
    >>> data = prepare_data(X, [1, 1, -1, -1, 1], warn=False)
    >>> form = build_formulation(data, sw.make_spec(C0=0.05))
    >>> result = solve_by_scan(form, np.inf, None)
    >>> result.status, result.coefficients.tolist()
    ('optimal', [1, 0])
    """
    proof = _ScanProof(form, upper, start, time_left, cancel, on_incumbent)
    return proof.run(limits, settled, {} if cost is None else cost)


class _ScanProof:
    """The state of one proof by support scan: the incumbent, the survivors not yet walked."""

    def __init__(self, form, upper, start, time_left, cancel, on_incumbent):
        self.t0 = time.perf_counter()
        self.form, self.cancel, self.on_incumbent = form, cancel, on_incumbent
        self.deadline = math.inf if time_left is None else self.t0 + time_left
        self.prob = prob = SearchProblem(form)
        self.walker = SupportWalker(prob)
        self.bits = _Bitsets(prob, self.walker.base_lam)
        held = start is not None and keeps_rows(form, np.asarray(start[0]), int(start[1]))
        self.best = (np.asarray(start[0]), int(start[1]), upper) if held else (None, 0, math.inf)
        self.locked_l1 = prob.eps * float(np.abs(self.walker.base_lam[prob.l1_mask]).sum())
        # what every card pays (locked points, required features), and each
        # optional feature's least cost
        self.fixed = float(prob.C0[prob.fixed_nonzero].sum()) + self.locked_l1
        self.fixed += float(_feature_costs(prob, self.bits.required).sum())
        self.cost = _feature_costs(prob, self.bits.optional)
        self.pool: list[
            tuple[float, list[int]]
        ] = []  # (floor + least penalties, support), unwalked
        self.scanned = self.walked = 0
        self.settled = -1  # every card with at most this many movable features is settled
        self.steps: dict[int, float] = {}  # steps_per_support by size, computed on first use
        self.threshold = ThresholdFloor(prob)
        self.lattice = LatticeWalk(prob, self.threshold)
        self.value_floor = _value_floors(prob, list(range(prob.P)))  # by feature, for refine
        self.walk_left = math.inf  # steps the walk may still take (run sets its limit)
        # the refinement's counted work per survivor, by the last size refined (predicts the next)
        self.refine_rate = 0.0
        self.refined: set[tuple[int, ...]] = set()  # supports whose floor is the threshold floor

    def expired(self) -> bool:
        return time.perf_counter() > self.deadline or (
            self.cancel is not None and self.cancel.is_set()
        )

    def walk_steps(self, size: int) -> float:
        """The work of walking one support of ``size`` features, in the walk's own unit
        (:func:`.exhaustive.steps_per_support`; 1-6x the steps really taken on binary data)."""
        if size not in self.steps:
            self.steps[size] = steps_per_support(self.form, size)
        return self.steps[size]

    def least(self, extra: int) -> float:
        """The least objective of a card with ``extra`` optional features,
        by its penalties alone."""
        return self.fixed + float(np.sort(self.cost)[:extra].sum())

    def beyond(self, extra: int) -> float:
        """The least objective of a card with more than ``extra`` optional features that could
        still beat the incumbent: inf when no larger card can (``max_size``, or its penalties)."""
        size = extra + 1 + len(self.bits.required)
        if extra + 1 > len(self.bits.optional) or size > support_size_limit(
            self.prob, self.best[2], None
        ):
            return math.inf
        return self.least(extra + 1)

    def run(self, limits: ScanLimits | None, settled: int, cost: dict) -> SolveResult:
        bits, prob = self.bits, self.prob
        if not rows_per_support(self.form):  # a row on points the walk does not price
            return self.result(self.least(0), "declined")
        self.walk_left = math.inf if limits is None else limits.walk_work  # steps
        # sizes up to ``settled`` hold no better card: start above them, with their measured cost
        extra = max(0, settled + 1 - len(bits.required)) if cost.get("per_support") else 0
        self.settled = extra - 1 + len(bits.required) if extra > 0 else -1
        ops, per_support = (cost.get("ops", 0.0), cost.get("per_support", 0.0)) if extra else (0, 0)
        while extra <= len(bits.optional) and extra + len(bits.required) <= support_size_limit(
            prob, self.best[2], None
        ):
            n_supports = supports_within_caps(bits.caps, extra)
            if (
                limits is not None
                and extra >= 2
                and ops + per_support * n_supports > limits.scan_work
            ):
                return self.result(min([self.least(extra)] + [f for f, _ in self.pool]), "declined")
            found = self.scan(extra)
            if found is None or found == "declined":
                return self.result(
                    min([self.least(extra)] + [f for f, _ in self.pool]),
                    None if found is None else "declined",
                )
            scanned, used = found
            ops += used
            per_support = max(per_support, used / max(scanned, 1))
            cost.update(ops=ops, per_support=per_support)
            walked = self.walk(extra)
            if walked != "done":
                return self.result(
                    min([self.beyond(extra)] + [f for f, _ in self.pool]),
                    "declined" if walked == "declined" else None,
                )
            self.settled = extra + len(bits.required)
            extra += 1
        return self.result(None)

    def scan(self, extra: int) -> tuple[int, float] | str | None:
        """Add the survivors with ``extra`` optional features to the pool: (supports scanned,
        word-ops), None when stopped, or "declined" when refining its survivors would take
        more counted work than the walk has left (:meth:`refine`: every survivor is refined,
        whatever the incumbent, so its work is predicted from the size before, not counted
        as it goes)."""
        budget0 = self.best[2] - self.fixed - 1e-12
        if extra == 0:
            floor = self.bits.floor0()
            sups, floors = np.zeros((1 if floor < budget0 else 0, 0), np.int64), np.array([floor])
            found = (sups, floors[: len(sups)], 1, 1)
        else:
            found = self.bits.scan(extra, budget0, self.cost, self.deadline, self.cancel)
        if found is None:
            return None
        sups, floors, scanned, used = found
        self.scanned += scanned
        if len(sups) and len(sups) * self.refine_rate > self.walk_left:
            return "declined"
        kept = _keep_survivors(
            self.prob,
            self.bits,
            sups,
            floors,
            self.locked_l1,
            self.best[2],
            self.pool,
            self.expired,
        )
        if not kept:  # the time is up: this size is bounded by its penalties (see run)
            return None
        self.refine()
        return scanned, used

    def walk(self, extra: int) -> str:
        """Walk the pool (supports of up to ``extra`` optional features), cheapest floor first,
        until none in it can beat the incumbent: "done", or "stopped" (time, cancel) or
        "declined" (the work allowed for walking ran out) first, the pool
        then holding what is left."""
        self.pool.sort(key=lambda s: s[0], reverse=True)
        while self.pool and self.pool[-1][0] < self.best[2] - 1e-12:
            if self.expired():
                return "stopped"
            if self.walk_left <= 0:
                return "declined"
            floor, support = self.pool[-1]
            if self.prob.rate_rows and not self.over_cells(support):
                return "declined"  # the walk's loops do not price group rows: the MIP proves
            done = self.lattice.work
            found = self.lattice.best(support, self.best[2])
            steps = self.lattice.work - done  # the group look-ups it took
            if found is None:
                steps = self.walk_steps(len(support))
                if steps > self.walk_left:
                    return "declined"
                if steps / WALK_RATE > self.deadline - time.perf_counter():
                    return "stopped"
                found = self.walker.best(support)
            self.pool.pop()
            self.walked += 1
            obj, lam, b = found
            self.walk_left -= steps
            if obj < self.best[2] - 1e-12:
                lam, b = self.form.canonical(lam, b)
                self.best = (lam, int(b), self.form.objective_of(lam, b))
                if self.on_incumbent is not None:
                    bound = min(
                        [self.best[2], floor, self.beyond(extra)] + [f for f, _ in self.pool]
                    )
                    self.on_incumbent(
                        Incumbent(
                            self.best[0],
                            self.best[1],
                            self.best[2],
                            bound,
                            time.perf_counter() - self.t0,
                        )
                    )
        self.pool.clear()
        return "done"

    def over_cells(self, support: list[int]) -> bool:
        """Whether the search over cells (:class:`.cell_search.CellSearch`, which holds group
        caps and gaps) settles every list of points the walk tries on ``support`` (the empty
        support is priced by the formulation itself)."""
        search = self.walker.over_cells
        return not support or all(
            search.fits(support, values) is not None
            for values, _ in value_lists(self.prob, support, self.walker.base_lam)
        )

    def refine(self) -> None:
        """Raise the floor of each support in the pool that has a column that is not 0/1 to
        the threshold floor (:class:`ThresholdFloor`), and drop those that can no longer beat
        the incumbent; each pass over a support's rows counts as walk work (the lattice
        floor makes one per combination of points, :meth:`ThresholdFloor.passes`). Stops
        early (the rest keep their cell floors, still floors) when the time is up."""
        kept, before, count = [], self.walk_left, len(self.pool)
        for t, (floor, support) in enumerate(self.pool):
            key = tuple(support)
            if key in self.refined or not self.threshold.helps(support):
                kept.append((floor, support))
                continue
            if t % 256 == 0 and self.expired():
                kept.extend(self.pool[t:])
                break
            self.refined.add(key)
            self.walk_left -= float(self.prob.n * self.threshold.passes(support))
            used = self.prob.fixed_nonzero.copy()
            used[support] = True
            least = self.prob.support_cost(used) + self.locked_l1 + self.value_floor[support].sum()
            loss = self.threshold.lattice_loss(support, self.best[2] - least)
            if loss is None:
                loss = self.threshold.loss(support)
            floor = max(floor, least + loss)
            if floor < self.best[2] - 1e-12:
                kept.append((floor, support))
        self.pool = kept
        if count:
            self.refine_rate = (before - self.walk_left) / count

    def result(self, bound: float | None, word: str | None = None) -> SolveResult:
        """The result: proven optimal (``bound`` None), else stopped with ``bound`` (status
        ``word``, by default "time_limit" or "interrupted")."""
        elapsed = time.perf_counter() - self.t0
        lam, b, obj = self.best
        note = f"{self.scanned} supports scanned, {self.walked} walked"
        if bound is None:
            if lam is None:
                return SolveResult(
                    "infeasible",
                    None,
                    None,
                    None,
                    math.inf,
                    math.inf,
                    elapsed,
                    "scan",
                    message=note,
                )
            return SolveResult("optimal", lam, b, obj, obj, 0.0, elapsed, "scan", message=note)
        status = word or (
            "interrupted" if self.cancel is not None and self.cancel.is_set() else "time_limit"
        )
        if lam is None:  # declined stays declined: the caller proves another way
            return SolveResult(
                "declined" if word == "declined" else "no_solution",
                None,
                None,
                None,
                bound,
                math.inf,
                elapsed,
                "scan",
                message=note,
            )
        bound = min(bound, obj)
        return SolveResult(
            status,
            lam,
            b,
            obj,
            bound,
            relative_gap(obj, bound),
            elapsed,
            "scan",
            message=note,
            settled=self.settled,
        )


def _keep_survivors(prob, bits, sups, floors, locked_l1, upper, out, expired=None) -> bool:
    """Add the supports that meet the support constraints and can still beat ``upper`` with
    their exact penalties (the scan's budget took group penalties at their per-member least).
    False when ``expired()`` says the time is up first (checked every 4,096 supports: heart at
    C0 = 0.01 has 200,000 survivors of 6 features), some then left out."""
    for t, (s, floor) in enumerate(zip(sups, floors)):
        if expired is not None and t % 4096 == 4095 and expired():
            return False
        support = bits.required + [bits.optional[t] for t in s]
        used = prob.fixed_nonzero.copy()
        used[support] = True
        if prob.support_penalty(used) > 0 or not _use_rows_hold(prob, used):
            continue
        least = float(floor) + _least_cost(prob, support, locked_l1)
        if least < upper - 1e-12:
            out.append((least, support))
    return True


def rows_per_support(form: Formulation) -> bool:
    """Whether every linear row of ``form`` (the user's ``linear``, ``monotone``'s between
    bands) reads only which features are used: a card on a support uses exactly its features,
    so such a row keeps or breaks the whole support. A row on points is a check on each point
    vector, which the search over cells (least L1 per labelling) does not make.

    Parameters
    ----------
    form : Formulation
        The program.

    Examples
    --------
    >>> import numpy as np, slimwidgets as sw
    >>> from slimwidgets.core.data import prepare_data
    >>> from slimwidgets.core.formulation import build_formulation
    >>> data = prepare_data(np.eye(3), [1, -1, 1], feature_names=["a", "b", "c"], warn=False)
    >>> use = {"terms": {"used:a": 1, "used:b": 1}, "upper": 1}
    >>> rows_per_support(build_formulation(data, sw.make_spec(linear=[use])))
    True
    >>> on_points = {"terms": {"points:a": 1}, "upper": 2}
    >>> rows_per_support(build_formulation(data, sw.make_spec(linear=[on_points])))
    False
    """
    return not any(reads_points(row) for row in form.linear_rows)


def reads_points(row: LinearRow) -> bool:
    """Whether the linear row has a term on points (not only on use).

    Parameters
    ----------
    row : LinearRow
        One of the program's linear rows.

    Examples
    --------
    >>> from slimwidgets.core.linear import LinearRow
    >>> reads_points(LinearRow((("used", "a", 1.0), ("points", "b", 2.0)), upper=3))
    True
    """
    return any(kind == "points" for kind, _, _ in row.terms)


def keeps_rows(form: Formulation, points: np.ndarray, intercept: int) -> bool:
    """Whether the card meets ``form``'s linear rows and its caps and group rows (every card
    does when it has none of them).

    Parameters
    ----------
    form : Formulation
        The program.
    points : numpy.ndarray
        The card's points.
    intercept : int
        Its intercept.
    """
    if not form.special_rows:
        return True
    b, loss = form.intercept_losses(np.asarray(points, dtype=np.int64))
    here = loss[b == intercept]
    return form.linear_rows_hold(points) and bool(here.size) and bool(np.isfinite(here[0]))


def _use_rows_hold(prob: SearchProblem, used: np.ndarray) -> bool:
    """Whether the linear rows on use hold for the cards that use exactly ``used``."""
    if not prob.form.linear_rows:
        return True
    return prob.form.linear_rows_hold(used.astype(np.int64))


def _least_cost(prob: SearchProblem, support: list[int], locked_l1: float) -> float:
    """The least penalties of a card on ``support``: its features' C0, tier and group costs,
    the locked points' L1 and the least L1 of its points."""
    used = prob.fixed_nonzero.copy()
    used[support] = True
    return prob.support_cost(used) + locked_l1 + float(_value_floors(prob, support).sum())


def _value_floors(prob: SearchProblem, feats: list[int]) -> np.ndarray:
    """Per feature, the least its points add beyond C0_j: the cheapest non-zero value's tier
    cost plus eps times the smallest non-zero |points|."""
    out = np.zeros(len(feats))
    for t, j in enumerate(feats):
        nonzero = prob.allowed[j] != 0
        if not nonzero.any():
            continue
        if prob.has_tiers:
            out[t] += float(prob.value_cost[j][nonzero].min())
        if prob.l1_mask[j]:
            out[t] += prob.eps * float(np.abs(prob.allowed[j][nonzero]).min())
    return out


# a decision fit's proof by a scan of the supports, asked of the family by the driver
DECISION.loss.holds(scan=solve_by_scan)
