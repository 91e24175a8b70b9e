"""A proof for risk cards by supports: a floor for each support, then
branch and bound on its points.

Every card of at most ``K`` features uses a subset of some support of exactly ``K`` features
(``K = min(max_size, usable features)``), so the least objective over all cards is the least,
over those supports, of the least objective of the cards inside each one.

* **A floor per support.** The logistic loss is convex: over the box of real points (and the
  intercept box) its least value is at least ``L(x) + min over the box of grad L(x) . (v - x)``
  for *any* ``x`` (the linear model under-estimates a convex function). ``x`` is the
  box-constrained Newton fit, so the floor is within rounding of the continuous optimum, and it
  stays valid however inexact that fit is. With ``scale=True`` the box is stretched by the
  largest ``1/m``: every card's logits ``t λ`` lie in it, so the floor is valid (and loose).
* **Branch and bound on integer points.** Supports are taken least floor first; inside one, a
  node is a box of allowed values per point, its floor the same bound over that box (plus
  ``C0`` for every point whose box leaves out 0); the node splits on the point whose relaxed
  value lies farthest from an allowed one. A node of single values is a card. With
  ``scale=False`` its best integer intercept is exact (the loss is convex in the intercept, so
  it is next to the real minimiser). With a free multiplier a node's floor is that of its cone
  ``{t (λ0, λ)}`` (a convex relaxation in the logits and ``t``), and a card's intercept and
  multiplier come from a walk over intercepts that quasiconvexity makes exact
  (:mod:`slimwidgets.solvers.risk_cone`). A support is done when every node's floor reaches
  the best card found; the card is optimal when every support is done.

* **Cell floors first, on 0/1 rules.** When every usable feature is 0/1 and a support has at
  most :data:`MAX_CELL_RULES` of them, each support's first floor is that of a free logit per
  cell (:mod:`slimwidgets.solvers.risk_cells`), one pass over the rows and no fit; only the
  supports it leaves below the incumbent are branched, and the count of supports is then bounded
  by counted work (:data:`CELL_WORK`, supports times rows) instead of :data:`MAX_SUPPORTS`.

Used only on problems whose rules are the boxes and ``max_size`` (no caps, support rules, group
signs or costs beyond ``C0``: :func:`tree_applies`); the cutting planes serve the rest.
"""

from __future__ import annotations

import itertools
import math
import threading
import time
from dataclasses import dataclass

import numpy as np

from .._jit import njit
from ..core.losses import MIN_INVERSE_MULTIPLIER, box_newton_fit
from ..core.risk_family import RISK
from .best_first import walk_boxes
from .logistic import RiskCard, RiskProblem
from .risk_cells import ensure_cells_compiled, supports_at
from .risk_cone import ensure_cone_compiled, leaf_walk
from .risk_rows import MAX_TABLE_FEATURES, support_rows, value_ranks

__all__ = [
    "TreeResult",
    "SupportTree",
    "tree_applies",
    "tree_covers",
    "tree_declines",
    "cells_decline",
    "support_count",
    "prove_by_supports",
    "dense_floor",
    "ensure_tree_compiled",
    "MAX_SUPPORTS",
    "MAX_CELL_RULES",
    "CELL_WORK",
]

#: more supports than this and the enumeration is not tried (C(32, 5) = 201,376: heart's)
MAX_SUPPORTS = 250_000
#: supports of at most this many 0/1 rules get cell floors (2^8 = 256 cells each)
MAX_CELL_RULES = 8
#: the cell floors are computed when supports times rows is at most this (one pass over the rows
#: per support, about 5 ns a row on a busy 2-core machine: 2.5 s); a choice on counted work, so
#: the same call makes it at any machine load
CELL_WORK = 5e8
NEWTON_STEPS = 60
QUICK_STEPS = (
    3  # Newton steps of a first, rough floor per support (most supports are settled by it)
)
CHUNK = 2000  # supports per call of the compiled floors (the clock is read between calls)
#: floats: a floor within this of the incumbent counts as reaching it
SLACK = 1e-12
#: a free multiplier's node floor is searched until within this of its relaxation (or decided)
NODE_TOLERANCE = 1e-10


@dataclass
class TreeResult:
    """``floor``: a proven lower bound on every card's objective (-inf: none); ``card``: the
    best card (the incumbent, or better); ``complete``: every support was settled, so ``card``
    is optimal (or within the gap); ``supports``: how many supports had their floor;
    ``branched``: how many of them the cell floors left below the incumbent (None: no cell
    floors); ``note``: how the supports were floored, in words, for the card's details;
    ``nodes``: the boxes of points the branch and bound looked at (its counted work)."""

    floor: float
    card: RiskCard
    complete: bool
    supports: int
    branched: int | None = None
    note: str = ""
    nodes: int = 0


def tree_applies(prob: RiskProblem) -> bool:
    """Whether the problem's rules are only the boxes and ``max_size`` (what the tree handles);
    ``max_variables`` goes to the cutting planes, whose master holds it."""
    rules = prob.rules
    plain = rules is None or not (rules.has_caps or rules.signs_agree or rules.has_extra_costs)
    return plain and not prob.constraints and prob.max_variables is None


def _pool(prob: RiskProblem) -> tuple[list[int], list[int], int]:
    """(optional features, required features, K): features whose only value is 0 never count."""
    usable = [j for j, a in enumerate(prob.allowed) if (a != 0).any()]
    required = sorted(prob.required)
    optional = [j for j in usable if j not in prob.required]
    size = min(prob.max_size, len(usable))
    return optional, required, size


def cells_decline(prob: RiskProblem) -> str | None:
    """Why the supports' first floors are not the cell floors (None: they are), in words."""
    optional, required, size = _pool(prob)
    usable = optional + required
    if not prob.loss.binary[usable].all():
        return "a usable feature is not 0/1, so rows do not fall into cells of bits"
    if size > MAX_CELL_RULES:
        return f"supports of {size} rules: more than {MAX_CELL_RULES}, too many cells"
    work = support_count(prob) * prob.loss.X.shape[0]
    if work > CELL_WORK:
        return (
            f"{support_count(prob):,} supports times {prob.loss.X.shape[0]:,} rows "
            f"is more work than {CELL_WORK:.0e}"
        )
    return None


def tree_declines(prob: RiskProblem) -> str | None:
    """Why :func:`prove_by_supports` does not take the problem, in words (None: it does):
    rules the tree leaves out, no support, or more than :data:`MAX_SUPPORTS` supports that
    cannot be floored over cells."""
    if not tree_applies(prob):
        return "caps, logical constraints, group signs, tiers or max_variables (cutting planes)"
    count = support_count(prob)
    if count == 0:
        return "no support of usable features"
    declined = None if count <= MAX_SUPPORTS else cells_decline(prob)
    if declined is None:
        return None
    return f"{count:,} supports, more than {MAX_SUPPORTS:,}, and not over cells: {declined}"


def tree_covers(prob: RiskProblem) -> bool:
    """Whether :func:`prove_by_supports` takes the problem (:func:`tree_declines`)."""
    return tree_declines(prob) is None


def support_count(prob: RiskProblem) -> int:
    """How many supports of exactly ``K`` features the proof walks (0: no card at all)."""
    optional, required, size = _pool(prob)
    if size < len(required):
        return 0
    return math.comb(len(optional), size - len(required))


@njit(nogil=True)
def linear_floor(columns, y, w, beta, b0, lo, hi, ilo, ihi):  # pragma: no cover - compiled
    """``L(x) + min over the box of grad L(x) . (v - x)``: a lower bound on the loss over the
    box ``lo <= points <= hi``, ``ilo <= intercept <= ihi`` (convexity), at ``x = (b0, beta)``."""
    n, k = columns.shape
    loss = 0.0
    g = np.zeros(k + 1)
    for i in range(n):
        z = y[i] * b0
        for c in range(k):
            z += beta[c] * columns[i, c]
        if z > 0:
            loss += w[i] * (math.log1p(math.exp(-z)))
            p = math.exp(-z) / (1.0 + math.exp(-z))
        else:
            loss += w[i] * (-z + math.log1p(math.exp(z)))
            p = 1.0 / (1.0 + math.exp(z))
        g[0] -= w[i] * y[i] * p
        for c in range(k):
            g[c + 1] -= w[i] * columns[i, c] * p
    floor = loss + min(g[0] * (ilo - b0), g[0] * (ihi - b0))
    for c in range(k):
        floor += min(g[c + 1] * (lo[c] - beta[c]), g[c + 1] * (hi[c] - beta[c]))
    return floor


@njit(nogil=True)
def box_floor(columns, y, w, lo, hi, ilo, ihi, steps):  # pragma: no cover - compiled
    """(floor, relaxed points, relaxed intercept) of the loss over a box (:func:`linear_floor`
    at the box-constrained Newton fit)."""
    beta = np.minimum(np.maximum(np.zeros(lo.size), lo), hi)
    b0, _ = box_newton_fit(columns, y, w, beta, 0.0, lo, hi, steps)
    return linear_floor(columns, y, w, beta, b0, lo, hi, ilo, ihi), beta, b0


@njit(nogil=True)
def support_floors(
    X, ranks, sizes, y, w, binary, supports, lo, hi, ilo, ihi, steps, cutoff
):  # pragma: no cover - compiled
    """A floor of every support (one row of feature indices each, :func:`one_support_floor`)
    on the rows merged by the support (:func:`~slimwidgets.solvers.risk_rows.support_rows`)."""
    out = np.empty(supports.shape[0])
    for s in range(supports.shape[0]):
        idx = supports[s]
        columns, cy, cw = support_rows(X, ranks, sizes, y, w, binary, idx)
        out[s] = one_support_floor(columns, cy, cw, lo[idx], hi[idx], ilo, ihi, steps, cutoff)
    return out


@njit(nogil=True)
def one_support_floor(
    columns, cy, cw, low, high, ilo, ihi, steps, cutoff
):  # pragma: no cover - compiled
    """:func:`linear_floor` after ``QUICK_STEPS`` Newton steps, then after each further round
    of steps (1, 2, 4, ..., up to ``steps`` in all) while it is below ``cutoff`` and the fit
    still moves (a support whose floor reaches the cutoff is settled: most stop after a few)."""
    beta = np.minimum(np.maximum(np.zeros(low.size), low), high)
    b0, loss = box_newton_fit(columns, cy, cw, beta, 0.0, low, high, QUICK_STEPS)
    floor = linear_floor(columns, cy, cw, beta, b0, low, high, ilo, ihi)
    done, round_steps = QUICK_STEPS, 1
    while floor < cutoff and done < QUICK_STEPS + steps:
        b0, moved = box_newton_fit(columns, cy, cw, beta, b0, low, high, round_steps)
        floor = max(floor, linear_floor(columns, cy, cw, beta, b0, low, high, ilo, ihi))
        if moved >= loss - 1e-15 * max(loss, 1e-300):  # converged: no more steps help
            break
        loss, done, round_steps = moved, done + round_steps, 2 * round_steps
    return floor


@njit(nogil=True)
def best_integer_intercept(s, y, w, ilo, ihi):  # pragma: no cover - compiled
    """(intercept, loss) of least loss ``sum w softplus(-(s + y b))`` over integers ``ilo..ihi``
    (convex in ``b``: the best integer is next to the real minimiser, found by Newton)."""
    b = 0.0
    for _ in range(100):
        d1 = 0.0
        d2 = 0.0
        for i in range(s.size):
            z = s[i] + y[i] * b
            p = 1.0 / (1.0 + math.exp(z)) if z > -700 else 1.0
            d1 -= w[i] * y[i] * p
            d2 += w[i] * p * (1.0 - p)
        if d2 <= 1e-300:
            break
        step = d1 / d2
        b = min(max(b - max(min(step, 50.0), -50.0), ilo - 1.0), ihi + 1.0)
        if abs(step) < 1e-10:
            break
    best_b, best = ilo, np.inf
    for cand in range(int(math.floor(b)) - 1, int(math.floor(b)) + 3):
        c = min(max(cand, ilo), ihi)
        total = 0.0
        for i in range(s.size):
            z = s[i] + y[i] * c
            total += w[i] * (math.log1p(math.exp(-z)) if z > 0 else -z + math.log1p(math.exp(z)))
        if total < best:
            best_b, best = c, total
    return best_b, best


def _boxes(prob: RiskProblem) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Each point's box and the intercept's, stretched to hold every logit ``t λ`` when the
    multiplier is free (``t`` between the smallest and largest ``1/m``)."""
    lo = np.array([a[0] for a in prob.allowed], dtype=float)
    hi = np.array([a[-1] for a in prob.allowed], dtype=float)
    ilo, ihi = (float(v) for v in prob.intercepts)
    if not prob.scale:
        return lo, hi, ilo, ihi
    ts = (MIN_INVERSE_MULTIPLIER, prob.t_max())
    stretch = lambda v, pick: pick([v * t for t in ts], axis=0)  # noqa: E731
    return (
        stretch(lo, np.min),
        stretch(hi, np.max),
        float(stretch(ilo, np.min)),
        float(stretch(ihi, np.max)),
    )


def _supports(prob: RiskProblem) -> np.ndarray:
    optional, required, size = _pool(prob)
    combos = itertools.combinations(optional, size - len(required))
    rows = [required + list(c) for c in combos]
    return np.array(rows, dtype=np.int64).reshape(len(rows), size)


def _floors(
    prob: RiskProblem,
    supports: np.ndarray,
    stop,
    cutoff: float = math.inf,
) -> np.ndarray | None:
    """The floor of every support (loss floor plus the required features' C0); None when
    ``stop()`` (the time limit, a cancel) came first. Floors at or above ``cutoff`` are rough
    (valid, and no higher than the exact one)."""
    L = prob.loss
    lo, hi, ilo, ihi = _boxes(prob)
    out = np.empty(supports.shape[0])
    if stop():
        return None
    if L.binary.all() and supports.shape[1] <= MAX_TABLE_FEATURES:  # merged by bits: no ranks read
        ranks, sizes = np.zeros((1, 1), dtype=np.int64), np.ones(L.X.shape[1], dtype=np.int64)
    else:  # a second or more on a million rows
        ranks, sizes = value_ranks(L.X)
    for start in range(0, supports.shape[0], CHUNK):
        if stop():
            return None
        chunk = supports[start : start + CHUNK]
        floors = support_floors(
            L.X, ranks, sizes, L.y, L.w, L.binary, chunk, lo, hi, ilo, ihi, NEWTON_STEPS, cutoff
        )
        out[start : start + chunk.shape[0]] = floors
    return out + float(prob.C0[sorted(prob.required)].sum())


class _Incumbent:
    """The best card so far and the gap the caller accepts: a floor within that gap of the
    card cuts a node (or support), and the least such floor is kept, since it is then the
    proof's floor rather than the card's objective."""

    def __init__(self, card: RiskCard, gap: float):
        self.card, self.gap, self.loose = card, gap, math.inf

    def cuts(self, floor: float) -> bool:
        objective = self.card.objective
        if floor >= objective - SLACK:
            return True
        if floor >= objective - self.gap * abs(objective) - SLACK:
            self.loose = min(self.loose, floor)
            return True
        return False

    def cuts_all(self, floors: np.ndarray) -> np.ndarray:
        """:meth:`cuts` of every floor at once (which of them are cut)."""
        cut = floors >= self.cutoff()
        within = cut & (floors < self.card.objective - SLACK)
        if within.any():
            self.loose = min(self.loose, float(floors[within].min()))
        return cut

    def cutoff(self) -> float:
        """The floor at which a node is cut (within the gap of the best card)."""
        objective = self.card.objective
        return objective - self.gap * abs(objective) - SLACK

    def offer(self, card: RiskCard) -> None:
        if card.objective < self.card.objective - SLACK:
            self.card = card

    def settle(self, floor: float) -> None:
        """A node settled exactly (a card) whose floor is still below the best card (by rounding
        in the multiplier's 1-D fit): that floor stays the proof's."""
        if floor < self.card.objective - SLACK:
            self.loose = min(self.loose, floor)


def prove_by_supports(
    prob: RiskProblem,
    incumbent: RiskCard,
    *,
    gap: float = 0.0,
    deadline: float = math.inf,
    cancel: threading.Event | None = None,
    max_nodes: float = math.inf,
    floor_work: float = math.inf,
) -> TreeResult | None:
    """The floor of every support, then branch and bound (on the cone of a free multiplier
    with ``scale=True``) inside the supports whose floor is below the incumbent (by more than the
    relative ``gap``), least floor first, until ``deadline`` or until it has looked at
    ``max_nodes`` boxes of points. None when the problem is not one the
    tree handles or has too many supports; a result with ``floor = -inf`` when the floors were not
    all computed by ``deadline``, or, outside the cell path, when the supports times the rows
    exceed ``floor_work`` (the caller then states a cheaper floor over the whole box).

    Whether the floors are computed is a choice on counted work (supports, rows), never on the
    clock's pace, so the same problem gives the same card and floor at any machine load;
    ``deadline`` is the time limit itself."""
    if not tree_covers(prob):
        return None
    nodes = [0]  # boxes looked at: the branch and bound's counted work

    def stop() -> bool:
        if cancel is not None and cancel.is_set():
            return True
        return nodes[0] >= max_nodes or time.perf_counter() > deadline

    best, open_floors = _Incumbent(incumbent, gap), []
    declined = cells_decline(prob)
    if declined is None:
        if stop():
            return TreeResult(-math.inf, incumbent, False, 0)
        supports, floors, count = _cell_survivors(prob, best)
        note = (
            f"over cells: {count:,} supports of {supports.shape[1]} rules floored by a free "
            f"risk per cell; {supports.shape[0]:,} below the card's objective, branched"
        )
    else:
        work = support_count(prob) * prob.loss.X.shape[0]
        if work > floor_work:
            note = f"not over cells: {declined}; {_work_words(prob, floor_work)}"
            return TreeResult(-math.inf, incumbent, False, 0, note=note)
        supports = _supports(prob)
        required_cost = float(prob.C0[sorted(prob.required)].sum())
        floors = _floors(prob, supports, stop, incumbent.objective - required_cost)
        if floors is None:
            return TreeResult(-math.inf, incumbent, False, 0, note=f"not over cells: {declined}")
        count, note = supports.shape[0], f"not over cells: {declined}"
    order = np.argsort(floors, kind="stable")
    for rank, s in enumerate(order):
        if best.cuts(float(floors[s])):
            continue
        left = _branch(
            _ConeSupport(prob, [int(j) for j in supports[s]])
            if prob.scale
            else _Support(prob, [int(j) for j in supports[s]]),
            best,
            stop,
            nodes,
        )
        if left is not None:  # stopped inside this support: it and every later one stay open
            open_floors = [left] + [float(floors[r]) for r in order[rank + 1 :]]
            break
    floor = min(open_floors + [best.loose, best.card.objective])
    branched = supports.shape[0] if declined is None else None
    return TreeResult(floor, best.card, not open_floors, count, branched, note, nodes[0])


def _work_words(prob: RiskProblem, floor_work: float) -> str:
    """Why the supports' floors were not computed outside the cell path, in words."""
    return (
        f"{support_count(prob):,} supports times {prob.loss.X.shape[0]:,} rows is more work "
        f"than the time limit's {floor_work:.1e}, so the floor is over the whole box"
    )


def _cell_survivors(prob: RiskProblem, best: _Incumbent) -> tuple[np.ndarray, np.ndarray, int]:
    """(the supports whose cell floor plus the required rules' C0 the incumbent does not cut,
    their floors, how many supports were floored)."""
    optional, required, size = _pool(prob)
    L = prob.loss
    positive = np.where(L.y > 0, L.w, 0.0)
    floors = RISK.loss.cells(  # the family's cell floors (risk_cells registers them)
        np.ascontiguousarray(L.X, dtype=np.uint8),
        positive,
        L.w - positive,
        np.array(required, dtype=np.int64),
        np.array(optional, dtype=np.int64),
        size,
    ) + float(prob.C0[required].sum())
    kept = np.flatnonzero(~best.cuts_all(floors))
    supports = supports_at(
        np.array(optional, dtype=np.int64), np.array(required, dtype=np.int64), size, kept
    )
    return supports, floors[kept], floors.size


class _Support:
    """One support's merged rows, allowed values and costs, for the branch and bound."""

    def __init__(self, prob: RiskProblem, support: list[int]):
        self.prob, self.support = prob, support
        self.columns, self.y, self.w = prob.loss.on_support(support)
        self.values = [prob.allowed[j] for j in support]
        self.C0 = prob.C0[support]
        self.ilo, self.ihi = (float(v) for v in prob.intercepts)

    def leaf(self, points: np.ndarray) -> tuple[RiskCard, float]:
        """(the card with these points and its best integer intercept, a floor of every such
        card): exact here, so the floor is the card's objective."""
        b, loss = best_integer_intercept(
            np.ascontiguousarray(self.columns @ points), self.y, self.w, self.ilo, self.ihi
        )
        card = self._card(points, int(b), 1.0, float(loss))
        return card, card.objective

    def _card(self, points: np.ndarray, intercept: int, t: float, loss: float) -> RiskCard:
        coefs = np.zeros(self.prob.n_features)
        coefs[self.support] = points
        return RiskCard(coefs, intercept, t, loss, loss + float(self.C0[points != 0].sum()))

    def node(
        self, low: np.ndarray, high: np.ndarray, cutoff: float = math.inf
    ) -> tuple[float, np.ndarray]:
        """(floor, relaxed points) of the node whose point k takes
        ``values[k][low[k]..high[k]]``."""
        lo = np.array([v[i] for v, i in zip(self.values, low)])
        hi = np.array([v[i] for v, i in zip(self.values, high)])
        floor, beta, _ = box_floor(
            self.columns, self.y, self.w, lo, hi, self.ilo, self.ihi, NEWTON_STEPS
        )
        return float(floor) + float(self.C0[(lo > 0) | (hi < 0)].sum()), beta

    def rounded(self, beta: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        return np.array(
            [
                v[lo_ : hi_ + 1][np.argmin(np.abs(v[lo_ : hi_ + 1] - b))]
                for v, b, lo_, hi_ in zip(self.values, beta, low, high)
            ]
        )

    def split(
        self, beta: np.ndarray, low: np.ndarray, high: np.ndarray
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """Two children: on the point farthest from an allowed value, split between the values
        around it; when every relaxed point is an allowed value, split the widest box at it."""
        gaps = np.array(
            [
                np.min(np.abs(v[lo_ : hi_ + 1] - b)) if hi_ > lo_ else -1.0
                for v, b, lo_, hi_ in zip(self.values, beta, low, high)
            ]
        )
        k = int(np.argmax(gaps))
        if gaps[k] <= 1e-9:
            k = int(np.argmax(high - low))
        v = self.values[k]
        cut = (
            int(np.searchsorted(v, beta[k] + 1e-9, side="right")) - 1
        )  # last value <= beta (its lower side)
        cut = min(max(cut, int(low[k])), int(high[k]) - 1)
        left_high, right_low = high.copy(), low.copy()
        left_high[k], right_low[k] = cut, cut + 1
        return [(low, left_high), (right_low, high)]


class _ConeSupport(_Support):
    """The same with a free multiplier: a node's floor is the cone relaxation's
    (:func:`~slimwidgets.solvers.risk_cone.cone_floor`), a card's intercept and multiplier come
    from the quasiconvex walk over intercepts (:func:`~slimwidgets.solvers.risk_cone.leaf_walk`)."""

    def __init__(self, prob: RiskProblem, support: list[int]):
        super().__init__(prob, support)
        self.tmin, self.tmax = MIN_INVERSE_MULTIPLIER, prob.t_max()

    def node(
        self, low: np.ndarray, high: np.ndarray, cutoff: float = math.inf
    ) -> tuple[float, np.ndarray]:
        lo = np.array([v[i] for v, i in zip(self.values, low)])
        hi = np.array([v[i] for v, i in zip(self.values, high)])
        cost = float(self.C0[(lo > 0) | (hi < 0)].sum())
        floor, relaxed, _ = RISK.loss.cone(  # the family's (risk_cone registers it)
            self.columns,
            self.y,
            self.w,
            lo,
            hi,
            self.ilo,
            self.ihi,
            self.tmin,
            self.tmax,
            cutoff - cost,
            NODE_TOLERANCE,
        )
        return float(floor) + cost, relaxed[1:]

    def leaf(self, points: np.ndarray) -> tuple[RiskCard, float]:
        """The card of least loss with these points (its intercept by the walk, started at the
        relaxation's intercept rounded) and the walk's floor of every card with these points."""
        scores = np.ascontiguousarray(self.columns @ points)
        one = np.ones(1)
        relaxed = RISK.loss.cone(
            scores[:, None].copy(),
            self.y,
            self.w,
            one,
            one,
            self.ilo,
            self.ihi,
            self.tmin,
            self.tmax,
            math.inf,
            1e-6,
        )[1]  # a start for the walk: rough will do
        start = float(np.round(relaxed[0])) if np.isfinite(relaxed[0]) else 0.0
        b, t, loss, floor = leaf_walk(
            scores, self.y, self.w, self.ilo, self.ihi, self.tmin, self.tmax, start
        )
        cost = float(self.C0[points != 0].sum())
        return self._card(points, int(b), float(t), float(loss)), float(floor) + cost


def _branch(tree: _Support, best: _Incumbent, stop, nodes: list[int]) -> float | None:
    """Best-first branch and bound over the points of one support, improving ``best``; the
    least open floor when stopped, else None (the support is settled). ``nodes[0]`` counts the
    boxes looked at."""

    def look(low: np.ndarray, high: np.ndarray) -> tuple[float, np.ndarray] | None:
        nodes[0] += 1
        if (low == high).all():  # a card
            card, floor = tree.leaf(np.array([v[i] for v, i in zip(tree.values, low)]))
            best.offer(card)
            best.settle(floor)
            return None
        floor, beta = tree.node(low, high, best.cutoff())
        if best.cuts(floor):
            return None
        best.offer(tree.leaf(tree.rounded(beta, low, high))[0])  # a card near the relaxation
        return floor, beta

    root = (
        np.zeros(len(tree.support), dtype=np.int64),
        np.array([v.size - 1 for v in tree.values], dtype=np.int64),
    )
    return walk_boxes(root, look, tree.split, best.cuts, stop)


def ensure_tree_compiled() -> None:
    """Compile (or load from the cache) the tree's kernels, so no fit's clock counts it."""
    one, idx = np.ones((1, 1)), np.zeros((1, 1), dtype=np.int64)
    v, two = np.ones(1), np.ones((2, 2))
    ranks, sizes = value_ranks(two)
    for binary in (True, False):
        support_floors(
            two,
            ranks,
            sizes,
            np.ones(2),
            np.ones(2),
            np.full(2, binary),
            idx,
            -v,
            v,
            -1.0,
            1.0,
            1,
            0.0,
        )
    box_floor(one, v, v, -v, v, -1.0, 1.0, 1)
    best_integer_intercept(v, v, v, -1.0, 1.0)
    ensure_cone_compiled()
    ensure_cells_compiled()


def dense_floor(prob: RiskProblem, max_iterations: int = 500, deadline: float = math.inf) -> float:
    """A floor for problems with too many supports to walk: the least loss over the whole box
    with every feature free (no ``max_size``, no rules but the boxes, stretched by the largest
    ``1/m`` when the multiplier is free), plus the required features' ``C0``. Every card lies
    in that box, so this is a relaxation; its value is bounded from below, as in
    :func:`linear_floor`, at each point L-BFGS-B evaluates (the loss is convex: its tangent at
    any point lies below it), and the highest of those bounds is the floor, so an inexact solve
    stays valid. Past ``deadline`` no further pass over the rows starts (one pass, not one
    iteration of several, may end after it: on many rows each takes a while)."""
    from scipy.optimize import minimize

    L = prob.loss
    lo, hi, ilo, ihi = _boxes(prob)
    low, high = np.concatenate([[ilo], lo]), np.concatenate([[ihi], hi])
    best = [-math.inf]  # the highest bound of the points evaluated so far

    class OutOfTime(Exception):
        """The deadline passed: no more passes over the rows."""

    def loss_and_gradient(v: np.ndarray) -> tuple[float, np.ndarray]:
        if math.isfinite(best[0]) and time.perf_counter() > deadline:
            raise OutOfTime
        u = L.y * (v[0] + L.X @ v[1:])  # every column: no copy of the used ones
        p = L.w / (1.0 + np.exp(np.clip(u, -700, 700)))  # w * sigmoid(-u)
        value, g = L.of_margins(u), -np.concatenate([[L.y @ p], L.column_dots(p)])
        best[0] = max(best[0], value + float(np.minimum(g * (low - v), g * (high - v)).sum()))
        return value, g

    try:
        minimize(
            loss_and_gradient,
            np.clip(np.zeros(low.size), low, high),
            jac=True,
            method="L-BFGS-B",
            bounds=list(zip(low, high)),
            options={"maxiter": max_iterations, "gtol": 1e-10, "ftol": 1e-15},
        )
    except OutOfTime:
        pass
    return best[0] - 1e-12 + float(prob.C0[sorted(prob.required)].sum())


class SupportTree:
    """The proof by supports as the risk family's ``scan`` piece: called, it proves
    (:func:`prove_by_supports`); before that a fit asks whether it :meth:`declines` the problem
    and has its kernels compiled (:meth:`compile`), so that no fit's clock counts them."""

    __call__ = staticmethod(prove_by_supports)

    def declines(self, prob: RiskProblem) -> str | None:
        """:func:`tree_declines`: why the proof does not take ``prob``, in words, or None."""
        return tree_declines(prob)

    def compile(self) -> None:
        """:func:`ensure_tree_compiled`."""
        ensure_tree_compiled()


# the risk family's scan (the proof by supports) and its floor over the whole box
RISK.loss.holds(scan=SupportTree(), floor=dense_floor)
