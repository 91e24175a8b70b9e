"""A proof for time-to-event cards: a floor for each support, then branch and bound on its points.

A card's log hazard ratio is ``t (x . points)`` with integer points in their boxes and a real
``t = 1/m`` in ``[t_min, t_max]``; its objective is the Cox loss
(:class:`~slimwidgets.core.survival.CoxCells`) plus ``C0`` per point used. Every card of at
most ``K`` features uses a subset of a support of exactly ``K`` features, so the least
objective over all cards is the least over those supports of the least inside each one.

* **Floors** of a node (a box of points on one support, any ``t``) and of one card are the
  family's loss's ``cone`` and ``floor`` pieces (:data:`~slimwidgets.core.family.TIME_TO_EVENT`,
  registered by :mod:`slimwidgets.core.cox_floor`): valid however inexact its fits.
* **Branch and bound.** Supports are taken least floor first; inside one, best first, a node
  splits on the point whose relaxed value lies farthest from an allowed one, and is cut when
  its floor (plus ``C0`` for every point whose box leaves out 0) reaches the best card found.
  The card is optimal when every support is settled; when the deadline comes first, the least
  open floor is a proven floor of every card.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from threading import Event
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.by_variable import variable_ids
from ..core.family import TIME_TO_EVENT
from ..core.losses import MAX_INVERSE_MULTIPLIER, MIN_INVERSE_MULTIPLIER
from ..core.survival import CoxCells
from .best_first import walk_boxes

if TYPE_CHECKING:
    from ..core.spec import Spec

__all__ = [
    "CoxProblem",
    "CoxCard",
    "CoxProof",
    "prove_cox",
    "empty_card",
    "rounded_start",
    "MAX_COX_SUPPORTS",
]

#: more supports than this and the proof states the floor over the whole box, with the best card
#: of the support its relaxation points to
MAX_COX_SUPPORTS = 200_000
SLACK = 1e-10  # a floor within this of the incumbent reaches it (floats)
#: the whole box's floor is computed first when the supports' floors are more than this many
#: times its counted work (supports x event times x cells, against rows x features + event
#: times x features^2), so that a proof stopped among the supports still states a floor. Counted,
#: not timed: a proof gives the same card and status at any load.
WHOLE_BOX_SHARE = 10.0
#: golden-section steps on t of the whole box's floor (looser, sooner)
WHOLE_BOX_STEPS = 4


@dataclass(frozen=True)
class CoxProblem:
    """Rows (``X`` n x p), times, events and weights; the allowed points of each feature
    (sorted, integers), ``C0`` per feature, at most ``max_size`` features, ``t`` in ``t_range``;
    ties by Breslow or Efron. ``require``: groups of features, each to have at least one feature
    with points (a group of one: that feature); ``variables`` (one id per feature) with
    ``max_variables``: at most that many distinct ids among the features with points."""

    X: np.ndarray
    time: np.ndarray
    event: np.ndarray
    weight: np.ndarray
    allowed: Sequence[np.ndarray]
    C0: np.ndarray
    max_size: int
    t_range: tuple[float, float]
    ties: str = "breslow"
    require: tuple[tuple[int, ...], ...] = ()
    variables: tuple[int, ...] | None = None
    max_variables: int | None = None

    @classmethod
    def from_spec(cls, data: Any, spec: Spec) -> CoxProblem:
        """The problem of fitting ``spec`` (its options checked, its defaults set) on ``data``.

        Parameters
        ----------
        data : the rows, any object with ``X`` (n x p floats, one column per name), ``time``,
            ``event``, ``weight`` (one each per row), ``names`` (of the columns) and ``ties``
            (``"breslow"`` or ``"efron"``).
        spec : the fit's options; ``max_size`` and ``C0`` set.

        Returns
        -------
        CoxProblem
            Each feature's allowed points (its box, or its ``values``, within the box), its
            ``C0`` (its penalty, or the spec's), the groups a card must use (``require``, rules
            locked at points other than 0, "at least one of" constraints) and each feature's
            variable.

        Examples
        --------
        >>> from types import SimpleNamespace
        >>> from slimwidgets.core.spec import make_spec
        >>> rows = SimpleNamespace(X=np.eye(2), time=np.array([1.0, 2.0]), event=np.ones(2, bool),
        ...                        weight=np.ones(2), names=["a", "b"], ties="breslow")
        >>> spec = make_spec(max_size=1, C0=0.01, coef_range=(-2, 2), require=["b"])
        >>> prob = CoxProblem.from_spec(rows, spec)
        >>> prob.allowed[0].tolist(), prob.require
        ([-2.0, -1.0, 0.0, 1.0, 2.0], ((1,),))
        """
        names = list(data.names)
        spec.check_names(names)
        allowed = []
        for name in names:
            lo, hi = spec.feature_box(name)
            values = spec.values.get(name, range(lo, hi + 1))
            allowed.append(np.array([v for v in values if lo <= v <= hi], dtype=float))
        return cls(
            data.X,
            data.time,
            data.event,
            data.weight,
            allowed,
            np.array([spec.penalties.get(n, spec.C0) for n in names], dtype=float),
            spec.max_size,
            (MIN_INVERSE_MULTIPLIER, MAX_INVERSE_MULTIPLIER),
            data.ties,
            require=_required_groups(spec, names),
            variables=tuple(int(v) for v in variable_ids(spec, names)),
            max_variables=spec.max_variables,
        )

    def cells(self, support: Sequence[int]) -> CoxCells:
        X = self.X[:, list(support)]
        return TIME_TO_EVENT.loss.value(X, self.time, self.event, self.weight, self.ties)

    def unproven(self, card: CoxCard) -> CoxProof:
        """The proof of a fit stopped before its proof answered (Ctrl-C): ``card``, no floor
        proven, no support looked at."""
        return CoxProof(card, -math.inf, False, 0, 0)


def _required_groups(spec: Spec, names: list[str]) -> tuple[tuple[int, ...], ...]:
    """``require``, the rules locked at points other than 0 and the "at least one of"
    constraints as groups of feature indices, each of which a card must use (the solver's boxes
    always hold 0: a lock alone would let the rule drop off the card)."""
    index = {name: j for j, name in enumerate(names)}
    locked = [(name,) for name, v in spec.lock.items() if v != 0]
    groups = [(name,) for name in spec.require] + locked + [c.features for c in spec.constraints]
    return tuple(tuple(sorted(index[name] for name in group)) for group in groups)


@dataclass(frozen=True)
class CoxCard:
    """Points per feature, ``t = 1/m``, the Cox loss and the objective (loss plus costs)."""

    points: np.ndarray
    t: float
    loss: float
    objective: float


@dataclass(frozen=True)
class CoxProof:
    """The best card, a proven floor of every card's objective, whether the proof settled every
    support (``card`` is then optimal), and how many supports and nodes it looked at."""

    card: CoxCard
    floor: float
    complete: bool
    supports: int
    nodes: int


class _Support:
    """One support's cells, allowed values and costs, for the branch and bound; the features of
    ``required`` never take 0 points."""

    def __init__(self, prob: CoxProblem, support: Sequence[int], required: frozenset = frozenset()):
        self.prob, self.support = prob, list(support)
        self.cells = prob.cells(support)
        self.values = [
            np.asarray([v for v in prob.allowed[j] if v != 0 or j not in required], dtype=float)
            for j in support
        ]
        self.C0 = prob.C0[self.support]

    def bounds(self, low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return (
            np.array([v[i] for v, i in zip(self.values, low)]),
            np.array([v[i] for v, i in zip(self.values, high)]),
        )

    def leaf(self, points: np.ndarray) -> tuple[CoxCard, float]:
        """(the card with these points at its best t, a floor of its objective at every t)."""
        t, loss, floor = TIME_TO_EVENT.loss.floor(
            self.cells, self.cells.values @ points, self.prob.t_range
        )
        cost = float(self.C0[points != 0].sum())
        full = np.zeros(self.prob.X.shape[1])
        full[self.support] = points
        return CoxCard(full, t, loss, loss + cost), floor + cost

    def node(
        self, low: np.ndarray, high: np.ndarray, stop: Callable[[], bool]
    ) -> tuple[float, np.ndarray]:
        lo, hi = self.bounds(low, high)
        floor, relaxed = TIME_TO_EVENT.loss.cone(self.cells, lo, hi, self.prob.t_range, stop=stop)
        return floor + float(self.C0[(lo > 0) | (hi < 0)].sum()), relaxed

    def rounded(self, relaxed: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        return np.array(
            [
                v[a : b + 1][np.argmin(np.abs(v[a : b + 1] - r))]
                for v, r, a, b in zip(self.values, relaxed, low, high)
            ]
        )

    def split(
        self, relaxed: np.ndarray, low: np.ndarray, high: np.ndarray
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """Two children, split on the point farthest from an allowed value (the widest box when
        every relaxed point is allowed), between the values around its relaxed value."""
        gaps = np.array(
            [
                np.min(np.abs(v[a : b + 1] - r)) if b > a else -1.0
                for v, r, a, b in zip(self.values, relaxed, low, high)
            ]
        )
        k = int(np.argmax(gaps))
        if gaps[k] <= 1e-9:
            k = int(np.argmax(high - low))
        cut = int(np.searchsorted(self.values[k], relaxed[k] + 1e-9, side="right")) - 1
        cut = min(max(cut, int(low[k])), int(high[k]) - 1)
        left_high, right_low = high.copy(), low.copy()
        left_high[k], right_low[k] = cut, cut + 1
        return [(low, left_high), (right_low, high)]


class _Best:
    """The best card so far; the least floor of a card settled just below it (rounding in t)."""

    def __init__(self, card: CoxCard, on_card: Callable[[CoxCard], None] | None = None):
        self.card, self.loose, self.nodes, self.on_card = card, math.inf, 0, on_card
        if on_card is not None:
            on_card(card)  # the starting card is the first told: it may already be the best

    def cuts(self, floor: float) -> bool:
        return floor >= self.card.objective - SLACK

    def offer(self, card: CoxCard, floor: float) -> None:
        if card.objective < self.card.objective - SLACK:
            self.card = card
            if self.on_card is not None:
                self.on_card(card)
        if floor < self.card.objective - SLACK:
            self.loose = min(self.loose, floor)


def _branch(tree: _Support, best: _Best, stop: Callable[[], bool]) -> float | None:
    """Best-first branch and bound over one support's points, improving ``best``; the least open
    floor when stopped, else None (the support is settled)."""

    def look(low: np.ndarray, high: np.ndarray) -> tuple[float, np.ndarray] | None:
        best.nodes += 1
        if (low == high).all():
            best.offer(*tree.leaf(tree.bounds(low, high)[0]))
            return None
        floor, relaxed = tree.node(low, high, stop)
        if best.cuts(floor):
            return None
        best.offer(*tree.leaf(tree.rounded(relaxed, low, high)))  # a card near the relaxation
        return floor, relaxed

    root = (
        np.zeros(len(tree.support), dtype=np.int64),
        np.array([v.size - 1 for v in tree.values]),
    )
    return walk_boxes(root, look, tree.split, best.cuts, stop)


def _supports(prob: CoxProblem) -> list[tuple[tuple[int, ...], frozenset]] | None:
    """(support, its required features): every card of the problem is a card of one of them;
    None when there are more than :data:`MAX_COX_SUPPORTS` supports.

    Each group of ``require`` names one of its features as required (every choice); a support
    holds the required features and as many more usable ones as ``K`` lets (a feature whose
    only value is 0 never counts). Under ``max_variables`` the features come from that many
    variables (those of the required features among them): every card reads at most that many,
    so its features lie in such a pool, and in one of the pool's supports."""
    usable = [j for j, a in enumerate(prob.allowed) if (np.asarray(a) != 0).any()]
    ids = list(range(len(prob.allowed))) if prob.variables is None else list(prob.variables)
    out: dict[tuple[int, ...], set[frozenset]] = {}
    for choice in itertools.product(*prob.require):
        required = frozenset(choice)
        if len(required) > prob.max_size:
            continue
        for pool in _pools(usable, ids, required, prob.max_variables):
            optional = [j for j in pool if j not in required]
            size = min(prob.max_size, len(pool)) - len(required)
            for more in itertools.combinations(optional, max(size, 0)):
                out.setdefault(tuple(sorted(required.union(more))), set()).add(required)
                if len(out) > MAX_COX_SUPPORTS:
                    return None
    return [(s, r) for s, rs in out.items() for r in _least(rs)]


def _pools(
    usable: list[int], ids: list[int], required: frozenset, max_variables: int | None
) -> list[list[int]]:
    """The usable features of each set of ``max_variables`` variables holding the required
    features' (all of them without a cap)."""
    if max_variables is None:
        return [usable]
    must = {ids[j] for j in required}
    others = sorted({ids[j] for j in usable} - must)
    free = min(max_variables - len(must), len(others))
    if free < 0:
        return []
    return [
        [j for j in usable if ids[j] in must.union(chosen)]
        for chosen in itertools.combinations(others, free)
    ]


def _least(sets: set[frozenset]) -> list[frozenset]:
    """The sets none of the others is inside: a support's cards under a larger required set are
    among those under a smaller one."""
    return [r for r in sets if not any(o < r for o in sets)]


def _promising_first(prob: CoxProblem, supports: list | None) -> list | None:
    """The supports by their features' first-order gains, largest first (stable): each
    feature's least tangent of the loss at no points over its box, ``-min(g lo, g hi)``. A
    proof stopped among the supports' floors has then seen the promising ones (their rounded
    relaxations are its cards), not the first in column order; the order changes no floor."""
    if supports is None or len(supports) < 2:
        return supports
    rows = TIME_TO_EVENT.row_loss(prob.X, prob.time, prob.event, prob.weight, prob.ties)
    _, g, _ = rows.value_gradient_hessian(np.zeros(prob.X.shape[1]))
    lo = np.array([np.min(a) for a in prob.allowed], dtype=float)
    hi = np.array([np.max(a) for a in prob.allowed], dtype=float)
    gain = -np.minimum(g * lo, g * hi)
    keys = [-float(gain[list(support)].sum()) for support, _ in supports]
    return [supports[i] for i in np.argsort(keys, kind="stable")]


def _whole_box_floor(prob: CoxProblem, stop: Callable[[], bool]) -> tuple[float, np.ndarray]:
    """(a floor of every card, with no size limit: the node floor of every feature's whole box,
    the relaxed points there); looser when ``stop`` cuts it short."""
    lo = np.array([np.min(a) for a in prob.allowed], dtype=float)
    hi = np.array([np.max(a) for a in prob.allowed], dtype=float)
    loss = TIME_TO_EVENT.row_loss(prob.X, prob.time, prob.event, prob.weight, prob.ties)
    floor, relaxed = TIME_TO_EVENT.loss.cone(
        loss, lo, hi, prob.t_range, steps=WHOLE_BOX_STEPS, stop=stop
    )
    return floor + float(prob.C0[(lo > 0) | (hi < 0)].sum()), relaxed


def _whole_box_first(prob: CoxProblem, supports: Sequence | None) -> bool:
    """Whether the supports' floors (supports x event times x cells, at most ``2^max_size``
    and at most one per row) are more than :data:`WHOLE_BOX_SHARE` times the whole box's
    evaluation (rows x features + event times x features^2): counted work, never the clock."""
    if supports is None:
        return True
    n, p = prob.X.shape
    n_times = np.unique(prob.time[prob.event]).size
    supports_work = float(len(supports)) * n_times * min(2.0**prob.max_size, n)
    return supports_work > WHOLE_BOX_SHARE * (n * p + n_times * p * p)


def _pointed_support(prob: CoxProblem, relaxed: np.ndarray) -> list[int]:
    """The support the whole box's relaxation points to: its largest relaxed points, as many as
    ``max_size`` and ``max_variables`` let (features that can take points only)."""
    ids = list(range(len(prob.allowed))) if prob.variables is None else list(prob.variables)
    cap = math.inf if prob.max_variables is None else prob.max_variables
    chosen: list[int] = []
    for j in np.argsort(-np.abs(relaxed), kind="stable"):
        if len(chosen) == prob.max_size:
            break
        taken = {ids[k] for k in chosen} | {ids[j]}
        if (np.asarray(prob.allowed[j]) != 0).any() and len(taken) <= cap:
            chosen.append(int(j))
    return sorted(chosen)


def empty_card(prob: CoxProblem) -> CoxCard:
    """The card without points (every row the same hazard)."""
    loss = prob.cells([]).value(np.zeros(0))
    return CoxCard(np.zeros(prob.X.shape[1]), 1.0, loss, loss)


def _first_card(prob: CoxProblem) -> CoxCard:
    """The incumbent to start from: the card without points, or, when ``require`` rules it
    out, none yet (an infinite objective)."""
    if prob.require:
        return CoxCard(np.zeros(prob.X.shape[1]), 1.0, math.inf, math.inf)
    return empty_card(prob)


#: the starting card rounds each fit of the forward path with its largest point at most this
START_LARGEST = 10
#: Newton steps of each unrounded fit, and of each rounded card's t, of the starting card
START_NEWTON = 8


def rounded_start(prob: CoxProblem, stop: Callable[[], bool]) -> CoxCard | None:
    """A card to start the proof from, made as a rounded Cox model is: features added one at a
    time by their score-test gain at the current unrounded fit (within ``max_size`` and
    ``max_variables``, in a direction their points allow), each set refitted unrounded, its
    log hazard ratios divided by a scale and rounded to allowed points; the card of least
    objective over every set and scale. A feasible card, so the proof's card is never worse
    on the training rows; None under ``require`` or when stopped before any."""
    if prob.require:
        return None
    stop = _latched(stop)
    rows = TIME_TO_EVENT.row_loss(prob.X, prob.time, prob.event, prob.weight, "breslow")
    best: tuple[float, np.ndarray] | None = None
    for chosen, beta in _forward_path(prob, rows, stop):
        sub = TIME_TO_EVENT.row_loss(prob.X[:, chosen], prob.time, prob.event, prob.weight)
        for points in _roundings(prob, chosen, beta):
            if stop():
                break
            loss = _best_t_loss(sub, points, prob.t_range, stop)
            objective = loss + prob.C0[chosen][points != 0].sum()
            if best is None or objective < best[0]:
                full = np.zeros(prob.X.shape[1])
                full[chosen] = points
                best = (objective, full)
    if best is None or not best[1].any():
        return None
    support = np.flatnonzero(best[1])
    return _Support(prob, support).leaf(best[1][support])[0]


def _latched(stop: Callable[[], bool]) -> Callable[[], bool]:
    """``stop`` that, once it has said stop, says so again without reading the clock."""
    said = False

    def latched() -> bool:
        nonlocal said
        said = said or stop()
        return said

    return latched


def _forward_path(prob: CoxProblem, rows, stop: Callable[[], bool]):
    """(features, their unrounded log hazard ratios) after each feature added by its
    score-test gain ``g^2 / h`` at the current fit."""
    ids = list(range(len(prob.allowed))) if prob.variables is None else list(prob.variables)
    cap = math.inf if prob.max_variables is None else prob.max_variables
    beta, chosen = np.zeros(prob.X.shape[1]), []
    while len(chosen) < prob.max_size and not stop():
        g, h = rows.gradient_curvature(beta)
        taken = {ids[k] for k in chosen}
        fits = [
            j
            for j in range(len(prob.allowed))
            if j not in chosen
            and len(taken | {ids[j]}) <= cap
            and (np.sign(-g[j]) * np.asarray(prob.allowed[j]) > 0).any()
        ]
        if not fits:
            return
        chosen.append(max(fits, key=lambda j: g[j] ** 2 / max(h[j], 1e-12)))
        beta[chosen] = _unrounded_fit(prob, chosen, beta[chosen], stop)
        yield list(chosen), beta[chosen].copy()


def _unrounded_fit(
    prob: CoxProblem, chosen: list[int], start: np.ndarray, stop: Callable[[], bool]
) -> np.ndarray:
    """Damped Newton steps on the chosen features' log hazard ratios, fewer when ``stop`` says
    so (a small ridge keeps a feature that splits the events perfectly finite)."""
    sub = TIME_TO_EVENT.row_loss(prob.X[:, chosen], prob.time, prob.event, prob.weight)
    beta = np.asarray(start, dtype=float)
    ridge = 1e-4 * np.eye(len(chosen))
    for _ in range(START_NEWTON):
        if stop():
            break
        value, g, H = sub.value_gradient_hessian(beta)
        step = np.linalg.solve(H + ridge, g + ridge @ beta)
        while sub.value(beta - step) > value and np.abs(step).max() > 1e-9:
            step = step / 2
        beta = beta - step
    return beta


def _roundings(prob: CoxProblem, chosen: list[int], beta: np.ndarray) -> list[np.ndarray]:
    """``beta`` divided by each scale that makes its largest entry 1, 2, ... points, each entry
    rounded to the nearest of its allowed points (or 0)."""
    top = float(np.abs(beta).max())
    if top <= 0:
        return []
    out = []
    for largest in range(1, START_LARGEST + 1):
        scaled = beta * (largest / top)
        points = []
        for j, b in zip(chosen, scaled):
            values = np.union1d(np.asarray(prob.allowed[j], dtype=float), [0.0])
            points.append(values[np.argmin(np.abs(values - b))])
        out.append(np.array(points))
    return out


def _best_t_loss(
    rows, points: np.ndarray, t_range: tuple[float, float], stop: Callable[[], bool]
) -> float:
    """The loss of ``points`` at (nearly) their best ``t``: Newton steps in ``t``, kept in range,
    fewer when ``stop`` says so."""
    if not points.any():
        return rows.value(0 * points)
    t = min(max(1.0, t_range[0]), t_range[1])
    for _ in range(START_NEWTON):
        if stop():
            break
        _, g, H = rows.value_gradient_hessian(t * points)
        slope, curve = float(g @ points), float(points @ H @ points)
        t = min(max(t - slope / curve if curve > 0 else t, t_range[0]), t_range[1])
    return rows.value(t * points)


def prove_cox(
    prob: CoxProblem,
    *,
    deadline: float = math.inf,
    clock: Callable[[], float] = time.perf_counter,
    incumbent: CoxCard | None = None,
    cancel: Event | None = None,
    on_card: Callable[[CoxCard], None] | None = None,
    on_floor: Callable[[float], None] | None = None,
) -> CoxProof:
    """The best card of ``prob`` and a proven floor: the floor of every support, then branch
    and bound inside those below the best card, least floor first, until ``deadline`` (read on
    ``clock``) or until ``cancel`` is set. When the supports' floors are much more counted
    work than the whole box's (:data:`WHOLE_BOX_SHARE`), the whole box's floor is computed
    first, and stated when the proof stops among the supports. With more than
    :data:`MAX_COX_SUPPORTS` supports the proof states that floor and the best card of the
    support the whole box's relaxation points to. ``on_card`` is told each better card as it is
    found, ``on_floor`` each proven floor of every card's objective as it rises (a progress bar's
    feed: neither changes the proof).

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> event = np.array([1, 1, 0, 1, 0, 1], dtype=bool)
    >>> prob = CoxProblem(X, np.arange(1.0, 7.0), event, np.ones(6), [np.arange(-2, 3)] * 2,
    ...                   np.full(2, 0.01), 1, (1e-4, 2.0))
    >>> proof = prove_cox(prob)
    >>> proof.complete, proof.card.points.tolist(), proof.floor >= proof.card.objective - 1e-9
    (True, [1.0, 0.0], True)
    """
    stop = lambda: clock() > deadline or (cancel is not None and cancel.is_set())  # noqa: E731
    best = _Best(_first_card(prob) if incumbent is None else incumbent, on_card)
    if incumbent is None:  # told after the first card: a Ctrl-C while it is made keeps that one
        start = TIME_TO_EVENT.loss.search(prob, stop)  # the rounded-Cox start, as registered
        if start is not None:
            best.offer(start, math.inf)
    tell = on_floor if on_floor is not None else lambda floor: None
    supports = _promising_first(prob, _supports(prob))
    whole = -math.inf
    if _whole_box_first(prob, supports):
        whole, relaxed = _whole_box_floor(prob, stop)
        tell(min(whole, best.card.objective))
        if supports is None:
            if not prob.require and not stop():
                _branch(_Support(prob, _pointed_support(prob, relaxed)), best, stop)
            return CoxProof(best.card, min(whole, best.card.objective), False, 0, best.nodes)
    trees, floors = [], []
    for done, (support, required) in enumerate(supports):
        if stop():  # the floor of the whole box, when the work asked for it
            return CoxProof(best.card, min(whole, best.card.objective), False, done, best.nodes)
        tree = _Support(prob, support, required)
        full = (np.zeros(len(support), dtype=np.int64), np.array([v.size - 1 for v in tree.values]))
        floor, relaxed = tree.node(*full, stop)
        best.offer(*tree.leaf(tree.rounded(relaxed, *full)))  # a card of every support, early
        trees.append(tree)
        floors.append(floor)
    open_floors: list[float] = []
    order = np.argsort(floors, kind="stable")
    for rank, s in enumerate(order):
        tell(min(floors[s], best.loose, best.card.objective))  # supports before s are settled
        if best.cuts(floors[s]):
            continue
        left = _branch(trees[s], best, stop)
        if left is not None:
            open_floors = [left] + [floors[r] for r in order[rank + 1 :]]
            break
    floor = min(open_floors + [best.loose, best.card.objective])
    return CoxProof(best.card, floor, not open_floors, len(supports), best.nodes)


# the rows and options read as a problem, the rounded-Cox start and the proof by supports
TIME_TO_EVENT.loss.holds(prepare=CoxProblem.from_spec, search=rounded_start, scan=prove_cox)
