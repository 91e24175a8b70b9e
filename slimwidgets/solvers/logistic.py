"""Risk cards: find (and for small boxes prove) the card of least logistic loss + C0 * size.

The model: integer points ``λ``, an integer intercept ``λ0`` and a real multiplier ``m >= 1/2``
(``m = 1`` when the spec says ``scale=False``, RiskSLIM's model); the risk of a row is
``1 / (1 + exp(-(λ0 + x . λ) / m))``.

The search (:func:`search_risk`) is anytime and has three stages:

1. **Supports, continuously.** A beam over supports: each support of the beam is grown by the
   features whose loss gradient is steepest (within their allowed sign), every child is
   fitted by projected Newton steps (on the rows merged by the support's values when its
   features are binary) inside the box of the points' logits, ``[lowest, highest allowed
   points] / (smallest
   m)``, and the best ``beam`` children by loss survive to the next size. A child with a point so
   small beside the others that it rounds to 0 on every multiplier is a smaller support in disguise
   (a feature measured in large units, say): it takes no place in the beam.
2. **Points, on a ladder of multipliers.** For a continuous fit ``β`` and each ``m`` on a
   geometric ladder from 1/2 to where ``m β`` leaves the box, ``round(m β)`` starts an integer
   coordinate descent that scans every allowed value of each point and the intercept with
   the multiplier fixed (:meth:`~slimwidgets.core.losses.LogisticLoss.scan`), then lets the
   multiplier move to its best value (a convex 1-D problem) and descends again.
3. **Swaps.** Each feature of the best card is traded for each steep feature outside it;
   the trades are fitted continuously and rounded best fit first, and a trade that lowers
   the objective is kept. It runs while time remains.

The walk (:func:`walk_risk`) scores every card of a small box, each with its best multiplier,
and is the only path here that reports ``optimal``.

Caps, group signs and the costs of tiers and groups come from
:class:`~slimwidgets.solvers.risk_rules.RiskRules`: the search rounds each card's intercept
into the interval that meets the caps and takes only moves that keep every rule; the walk
skips intercepts that break a cap.
"""

from __future__ import annotations

import itertools
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from ..core.by_variable import support_constraints, variable_ids
from ..core.data import Dataset
from ..core.losses import (
    MAX_INVERSE_MULTIPLIER,
    MIN_INVERSE_MULTIPLIER,
    LogisticLoss,
    box_newton_fit,
    sigmoid,
    softplus,
)
from ..core.risk_family import RISK
from ..core.spec import Spec
from .risk_rules import RiskRules

__all__ = [
    "RiskProblem",
    "RiskCard",
    "BoxWalk",
    "search_risk",
    "walk_risk",
    "walk_work",
    "DEFAULT_RISK_C0",
]

#: RiskSLIM's default cost of a feature: a tie-breaker that prefers the smaller of two cards
#: with the same loss; cap the size with ``max_size`` for sparse cards.
DEFAULT_RISK_C0 = 1e-6
BEAM = 10  # supports kept per size (FasterRisk's paper uses beams of about this width)
CHILDREN = 10  # steepest features tried as the next member of each support
LADDER = 16  # multipliers tried per continuous fit
POLISHED = 3  # of those, how many (the best after plain rounding) get the integer descent
CHILD_STEPS = 6  # Newton steps of a child's fit from its parent's (enough to rank the children)


@dataclass
class RiskCard:
    """An integer risk card: points, intercept, inverse multiplier ``t = 1/m`` and objective."""

    coefficients: np.ndarray
    intercept: int
    t: float
    loss: float
    objective: float

    @property
    def multiplier(self) -> float:
        return 1.0 / self.t


@dataclass
class RiskProblem:
    """The spec read for the logistic family: allowed values, costs and support rules."""

    loss: LogisticLoss
    allowed: list[np.ndarray]  # sorted allowed points of each feature
    C0: np.ndarray
    intercepts: tuple[int, int]
    max_size: int
    scale: bool
    constraints: list[tuple[str, frozenset, frozenset, int]] = field(default_factory=list)
    rules: RiskRules | None = None  # caps, group signs and costs beyond C0 (None: none)
    # max_variables: per feature the number of its variable, and the cap (None: no cap)
    variable_id: np.ndarray | None = None
    max_variables: int | None = None

    @classmethod
    def from_spec(cls, data: Dataset, spec: Spec) -> RiskProblem:
        names = list(data.feature_names)
        # the first tier's cost is the cost of using a feature (the others come from rules)
        c0 = spec.tiers[0][1] if spec.tiers else DEFAULT_RISK_C0 if spec.C0 is None else spec.C0
        allowed = [np.array(_allowed_values(spec, n), dtype=float) for n in names]
        index = {n: j for j, n in enumerate(names)}
        constraints = [
            (
                c.kind,
                frozenset(index[f] for f in c.features),
                frozenset(index[f] for f in c.targets),
                c.k,
            )
            for c in support_constraints(spec)
        ]  # with max_cuts_per_variable's caps
        if spec.max_rules_per_group is not None:  # a cap per group is an "at most" rule on supports
            constraints += [
                (
                    "at_most",
                    frozenset(index[f] for f in members),
                    frozenset(),
                    spec.max_rules_per_group,
                )
                for members in spec.groups.values()
            ]
        return cls(
            loss=RISK.loss.value(data, spec.class_weights),  # the family holds its loss
            allowed=allowed,
            C0=np.array([spec.penalties.get(n, c0) for n in names], dtype=float),
            intercepts=_intercept_box(data, spec, allowed),
            max_size=len(names) if spec.max_size is None else spec.max_size,
            scale=spec.scale,
            constraints=constraints,
            rules=RiskRules(data, spec),
            variable_id=None if spec.max_variables is None else variable_ids(spec, names),
            max_variables=spec.max_variables,
        )

    @property
    def n_features(self) -> int:
        return len(self.allowed)

    def t_max(self) -> float:
        """The largest inverse multiplier ``1/m`` of a card (1 without ``scale``)."""
        return MAX_INVERSE_MULTIPLIER if self.scale else 1.0

    def partial_ok(self, support: frozenset) -> bool:
        """No feature added later can repair a support that breaks this (size, at-most caps)."""
        if len(support) > self.max_size:
            return False
        if (
            self.max_variables is not None
            and np.unique(self.variable_id[list(support)]).size > self.max_variables
        ):
            return False
        return all(len(support & f) <= k for kind, f, _, k in self.constraints if kind == "at_most")

    def __post_init__(self) -> None:
        self.required = frozenset(j for j, a in enumerate(self.allowed) if 0.0 not in a)

    def complete_ok(self, support: frozenset) -> bool:
        """Every rule on supports holds (with the points: zero not allowed means required)."""
        if not self.partial_ok(support) or not self.required <= support:
            return False
        for kind, feats, targets, k in self.constraints:
            if kind == "needs" and (support & feats) and not targets <= support:
                return False
            if kind == "at_least" and len(support & feats) < k:
                return False
        return True

    def penalty(self, coefficients: np.ndarray) -> float:
        """What the points cost: C0 per used feature, plus tiers and groups when set."""
        extra = 0.0 if self.rules is None else self.rules.extra_cost(coefficients)
        return float(self.C0[coefficients != 0].sum()) + extra

    def objective(self, coefficients: np.ndarray, loss: float) -> float:
        return loss + self.penalty(coefficients)

    def card(
        self, coefficients: np.ndarray, intercept: int, t: float = 1.0, loss: float | None = None
    ) -> RiskCard:
        """The card of these points, intercept and inverse multiplier ``t``, its ``loss``
        (measured on the rows when None) and objective."""
        if loss is None:
            loss = self.loss.of_margins(self.loss.margins(coefficients, intercept), t)
        return RiskCard(coefficients, intercept, t, loss, self.objective(coefficients, loss))

    def card_ok(self, coefficients: np.ndarray, intercept: int) -> bool:
        """Every rule holds for this card: support rules, group signs and caps."""
        if not self.complete_ok(frozenset(np.flatnonzero(coefficients).tolist())):
            return False
        if self.rules is None or not self.rules.points_ok(coefficients):
            return self.rules is None
        return not self.rules.has_caps or bool(
            self.rules.caps_ok(intercept + self.loss.X @ coefficients)
        )

    def feasible_moves(
        self, coefs: np.ndarray, u: np.ndarray, j: int, deltas: np.ndarray
    ) -> np.ndarray:
        """Which moves of the descent keep group signs and caps: ``delta`` points added to
        feature ``j`` (``j = -1``: the intercept) of the card with margins ``u``."""
        ok = np.ones(deltas.size, dtype=bool)
        if self.rules is None:
            return ok
        if j >= 0 and self.rules.signs_agree:
            for k, delta in enumerate(deltas):
                moved = coefs.copy()
                moved[j] += delta
                ok[k] = self.rules.points_ok(moved)
        if self.rules.has_caps:
            column = np.ones(u.size) if j < 0 else self.loss.X[:, j]
            totals = (self.loss.y * u)[:, None] + column[:, None] * deltas[None, :]
            ok &= self.rules.caps_ok(totals)
        return ok

    def fit_intercept(self, coefs: np.ndarray, intercept: int) -> int | None:
        """``intercept`` moved to the nearest one (in its box) at which the caps hold for
        these points; None when none does."""
        low, high = self.intercepts
        if self.rules is None or not self.rules.has_caps:
            return int(min(max(intercept, low), high))
        span = self.rules.intercepts(self.loss.X @ coefs, low, high, near=intercept)
        return None if span is None else int(min(max(intercept, span[0]), span[1]))


def _allowed_values(spec: Spec, name: str) -> list[int]:
    lo, hi = spec.feature_box(name)
    values = [v for v in spec.values.get(name, range(lo, hi + 1)) if lo <= v <= hi]
    if name in spec.require:
        values = [v for v in values if v != 0]
    return values


# -- stage 1: supports, continuously ----------------------------------------------------------
def _continuous_fit(
    prob: RiskProblem, support: list[int], beta: np.ndarray, b0: float, steps: int = 50
) -> tuple[np.ndarray, float, float]:
    """The least-loss real points on the support (and intercept), each inside its box
    stretched by the largest ``1/m``; starts from ``beta`` and ``b0``."""
    L = prob.loss
    beta = beta.copy()
    sub = beta[support].astype(float)
    stretch = prob.t_max()  # a point's logit is points / m: at most t_max times the points
    lo = np.array([prob.allowed[j][0] for j in support], dtype=float) * stretch
    hi = np.array([prob.allowed[j][-1] for j in support], dtype=float) * stretch
    columns, y, w = L.on_support(support)
    b0, loss = box_newton_fit(columns, y, w, sub, float(b0), lo, hi, steps)
    beta[support] = sub
    return beta, b0, loss


def _steepest(
    prob: RiskProblem, beta: np.ndarray, b0: float, support: list[int], count: int
) -> list[int]:
    """Features outside ``support`` whose loss falls fastest when their points leave 0 in an
    allowed direction."""
    L = prob.loss
    u = L.y * (b0 + L.X[:, support] @ beta[support]) if support else L.y * b0
    grad = -L.column_dots(L.w * sigmoid(-u))  # d loss / d beta_j
    gain = np.zeros(prob.n_features)
    for j in range(prob.n_features):
        if j in support:
            continue
        lo, hi = prob.allowed[j][0], prob.allowed[j][-1]
        gain[j] = max(-grad[j] if hi > 0 else 0.0, grad[j] if lo < 0 else 0.0)
    order = [int(j) for j in np.argsort(-gain) if gain[j] > 0 and j not in support]
    return order[:count]


def _seed_support(prob: RiskProblem) -> list[int]:
    return [j for j in range(prob.n_features) if 0.0 not in prob.allowed[j]]


def beam_supports(
    prob: RiskProblem, beam: int, children: int, deadline: float, stop
) -> list[tuple[float, list[int], np.ndarray, float]]:
    """Continuous fits (loss, support, beta, intercept) of every support
    the beam kept, all sizes."""
    start = _seed_support(prob)
    beta0 = np.zeros(prob.n_features)
    for j in start:  # a required or locked feature starts at its allowed value nearest 0
        beta0[j] = prob.allowed[j][np.argmin(np.abs(prob.allowed[j]))]
    beta, b0, loss = _continuous_fit(prob, start, beta0, 0.0)
    level = [(loss, start, beta, b0)]
    kept = list(level)
    seen = {frozenset(start)}
    while (
        level and len(level[0][1]) < prob.max_size and time.perf_counter() < deadline and not stop()
    ):
        grown = []
        for _loss, support, beta, b0 in level:
            if grown and stop():
                break
            for j in _steepest(prob, beta, b0, support, children):
                key = frozenset(support + [j])
                if key in seen or not prob.partial_ok(key):
                    continue
                seen.add(key)
                child = _continuous_fit(prob, support + [j], beta, b0, steps=CHILD_STEPS)
                if not _rounds_away(prob, support + [j], child[0]):
                    grown.append(child[::-1] + (support + [j],))
        if not grown:
            break
        grown.sort(key=lambda g: g[0])
        level = [(g[0], g[3], g[2], g[1]) for g in grown[:beam]]
        kept += level
    return kept


# -- stage 2: points on a ladder of multipliers ---------------------------------------------
def _nearest(values: np.ndarray, x: float) -> float:
    return float(values[np.argmin(np.abs(values - x))])


def _descend(
    prob: RiskProblem,
    coefs: np.ndarray,
    b0: int,
    t: float,
    capped: Callable[[], bool] | None = None,
):
    """Integer coordinate descent at fixed ``t``. The loss is convex along each coordinate, so
    each point steps to a neighbouring allowed value (or to 0, when the support rules allow
    dropping it) and keeps stepping that way while the objective falls; likewise the
    intercept by +-1. Ends at a card no single such move improves (with ``capped``, the
    search's stop test, also no move of :func:`_capped_moves`)."""
    L = prob.loss
    coefs = coefs.copy()
    u = L.margins(coefs, b0)
    penalty = prob.penalty(coefs)
    best = L.of_margins(u, t) + penalty
    ilo, ihi = prob.intercepts
    for _ in range(50):
        improved = False
        for j in [-1] + [int(j) for j in np.flatnonzero(coefs)]:
            while True:  # a line search along coordinate j
                if j < 0:
                    targets = np.array(
                        [v for v in (b0 - 1, b0 + 1) if ilo <= v <= ihi], dtype=float
                    )
                    current = float(b0)
                else:
                    targets = _neighbours(prob, coefs, j)
                    current = coefs[j]
                if targets.size == 0:
                    break
                deltas = targets - current
                extra = (
                    np.zeros(targets.size)
                    if j < 0
                    else _move_costs(prob, coefs, j, targets) - penalty
                )
                values = L.scan(u, j, deltas, t) + penalty + extra
                values[~prob.feasible_moves(coefs, u, j, deltas)] = np.inf
                k = int(np.argmin(values))
                if values[k] >= best - 1e-12:
                    break
                best, penalty = float(values[k]), penalty + float(extra[k])
                u = u + deltas[k] * (L.y if j < 0 else L.yX[:, j])
                improved = True
                if j < 0:
                    b0 = int(targets[k])
                else:
                    coefs[j] = targets[k]
                    if coefs[j] == 0:
                        break
        if not improved and capped is not None and prob.rules is not None and prob.rules.has_caps:
            found = _capped_moves(
                prob, coefs, b0, t, best, capped
            )  # moves the caps hid from the line searches
            if found is not None:
                coefs, b0, best = found
                u, penalty, improved = L.margins(coefs, b0), prob.penalty(coefs), True
        if not improved:
            break
    return coefs, b0, best, u


def _capped_moves(
    prob: RiskProblem, coefs: np.ndarray, b0: int, t: float, best: float, stop: Callable[[], bool]
):
    """Under caps, the best single-point move of any feature (in or out of the support) with
    the intercept moved with it to its best value among those that keep the caps, or None
    when none beats ``best`` (or ``stop()`` came first). A cap often blocks a point's move at the
    current intercept and allows it with another, and a feature outside the card can
    make room under a cap."""
    L, low, high = prob.loss, *prob.intercepts
    used = frozenset(np.flatnonzero(coefs).tolist())
    winner = None
    for j in range(prob.n_features):
        if stop():
            break
        if j not in used and not prob.partial_ok(used | {j}):
            continue
        for v in _neighbours(prob, coefs, j):
            moved = coefs.copy()
            moved[j] = v
            if not (
                prob.complete_ok(frozenset(np.flatnonzero(moved).tolist()))
                and prob.rules.points_ok(moved)
            ):
                continue
            scores = L.X @ moved
            span = prob.rules.intercepts(scores, low, high)
            if span is None:
                continue
            b, value = _best_intercept(L, scores, span, min(max(b0, span[0]), span[1]), t)
            value += prob.penalty(moved)
            if value < best - 1e-12:
                winner, best = (moved, b, value), value
    return winner


def _best_intercept(
    L: LogisticLoss, scores: np.ndarray, span: tuple[int, int], b: int, t: float
) -> tuple[int, float]:
    """From ``b``, the intercept in ``span`` of least loss at ``t`` (the loss is convex in it)."""
    value = L.of_margins(L.y * (b + scores), t)
    for step in (-1, 1):
        while span[0] <= b + step <= span[1]:
            trial = L.of_margins(L.y * (b + step + scores), t)
            if trial >= value:
                break
            b, value = b + step, trial
    return b, value


def _move_costs(prob: RiskProblem, coefs: np.ndarray, j: int, targets: np.ndarray) -> np.ndarray:
    """The points' cost after setting point ``j`` to each of ``targets``."""
    if prob.rules is None or not prob.rules.has_extra_costs:  # C0 alone: the one term that changes
        rest = prob.penalty(coefs) - (prob.C0[j] if coefs[j] != 0 else 0.0)
        return rest + np.where(targets != 0, prob.C0[j], 0.0)
    out = np.empty(targets.size)
    for k, v in enumerate(targets):
        moved = coefs.copy()
        moved[j] = v
        out[k] = prob.penalty(moved)
    return out


def _neighbours(prob: RiskProblem, coefs: np.ndarray, j: int) -> np.ndarray:
    """The allowed values next to point j's value, across 0 too, and 0 itself when dropping
    feature j keeps the support rules."""
    values = prob.allowed[j]
    k = int(np.searchsorted(values, coefs[j]))
    out = set()
    for step in (-1, 1):
        i = k + step
        while 0 <= i < values.size:
            out.add(float(values[i]))
            if values[i] != 0:
                break
            i += step  # a neighbour at 0 is a drop: also try the value beyond it
    if 0.0 in out and not prob.complete_ok(frozenset(np.flatnonzero(coefs).tolist()) - {j}):
        out.discard(0.0)
    if (
        0.0 in values
        and 0.0 not in out
        and prob.complete_ok(frozenset(np.flatnonzero(coefs).tolist()) - {j})
    ):
        out.add(0.0)
    return np.array(sorted(out))


def _ladder_top(prob: RiskProblem, support: list[int], beta: np.ndarray) -> float:
    """The largest multiplier that keeps every ``m * beta_j`` inside its box (at least the
    smallest multiplier a card may have)."""
    room = [
        prob.allowed[j][-1] / beta[j] if beta[j] > 0 else prob.allowed[j][0] / beta[j]
        for j in support
        if abs(beta[j]) > 1e-9
    ]
    return max(1.0 / prob.t_max(), min([r for r in room if r > 0], default=1.0))


def _ladder(prob: RiskProblem, support: list[int], beta: np.ndarray, rungs: int) -> np.ndarray:
    """Multipliers from the smallest a card may have to the ladder's top, geometrically; up to
    1 at least, rounding to the box's ends the points of a fit that lies past them (as when a
    feature would take the largest logit the box allows, and more)."""
    if not (prob.scale and support):
        return np.array([1.0])
    return np.unique(
        np.geomspace(1.0 / prob.t_max(), max(_ladder_top(prob, support, beta), 1.0), rungs)
    )


def _rounds_away(prob: RiskProblem, support: list[int], beta: np.ndarray) -> bool:
    """Whether some point of the fit rounds to 0 even at the ladder's top (where every point
    is largest): no rung of the ladder then keeps the whole support. The top is the ladder's
    own (:func:`_ladder`: at least 1, points past the box rounding to its ends)."""
    top = max(_ladder_top(prob, support, beta), 1.0) if prob.scale else 1.0
    return any(_nearest(prob.allowed[j], top * beta[j]) == 0 for j in support)


def _round_on_ladder(
    prob: RiskProblem,
    support: list[int],
    beta: np.ndarray,
    b0: float,
    rungs: int,
    stop=lambda: False,
    capped: bool = False,
) -> RiskCard | None:
    """The best integer card found from ``beta`` over a ladder of multipliers: every rung is
    rounded and scored at its best multiplier, the best ``POLISHED`` get the integer descent
    (every rung when the support's rows merge into a few, which makes the descent cheap; not
    under caps, whose checks read every training row)."""
    capped_rows = prob.rules is not None and prob.rules.has_caps
    L = prob.loss if capped_rows else prob.loss.merged(support)
    polished = POLISHED if L is prob.loss else rungs
    prob = replace(prob, loss=L)
    rounded = []
    for m in _ladder(prob, support, beta, rungs):
        coefs = np.zeros(prob.n_features)
        for j in support:
            coefs[j] = _nearest(prob.allowed[j], m * beta[j])
        icpt = prob.fit_intercept(coefs, round(m * b0))
        if icpt is None or not prob.card_ok(coefs, icpt):
            continue
        u = L.margins(coefs, icpt)
        t, loss = (
            L.best_inverse_multiplier(u, prob.t_max()) if prob.scale else (1.0, L.of_margins(u))
        )
        rounded.append((prob.objective(coefs, loss), coefs, icpt, t))
    rounded.sort(key=lambda r: r[0])
    best: RiskCard | None = None
    for _, coefs, icpt, t in rounded[:polished]:
        card = _polish(prob, coefs, icpt, t, stop if capped else None)
        if best is None or card.objective < best.objective - 1e-12:
            best = card
        if stop():
            break
    return best


# -- the anytime search -----------------------------------------------------------------------
class _Stop:
    """The search's stop test: ``cancel``, the ``deadline`` passed, or its counted work done
    (``max_rounds`` supports rounded on a ladder: :meth:`rounding` counts one)."""

    def __init__(self, cancel: threading.Event | None, deadline: float, max_rounds: float):
        self.cancel, self.deadline, self.max_rounds, self.rounds = cancel, deadline, max_rounds, 0

    def __call__(self) -> bool:
        if self.cancel is not None and self.cancel.is_set():
            return True
        return self.rounds >= self.max_rounds or time.perf_counter() > self.deadline

    def rounding(self) -> None:
        """One more support rounded on a ladder."""
        self.rounds += 1


def search_risk(
    prob: RiskProblem,
    *,
    time_limit: float | None = None,
    on_improve: Callable[[RiskCard], None] | None = None,
    cancel: threading.Event | None = None,
    warm: np.ndarray | None = None,
    max_rounds: float = math.inf,
) -> RiskCard | None:
    """The best risk card the search finds within ``time_limit`` seconds (None: run to the end)
    and ``max_rounds`` supports rounded on a ladder (its counted work: with a finite count and
    no ``cancel`` the card is the same at any machine load, the seconds only a safety net).

    A first card comes from a greedy pass (a beam of one, a short ladder), then the full beam,
    the full ladder and swaps improve it; every improvement goes to ``on_improve``.
    Returns None only when no support meeting the spec's rules was found.
    """
    t0 = time.perf_counter()
    stop = _Stop(cancel, math.inf if time_limit is None else t0 + time_limit, max_rounds)
    deadline = stop.deadline
    best: list[RiskCard | None] = [None]

    def offer(card: RiskCard | None) -> None:
        if card is not None and (best[0] is None or card.objective < best[0].objective - 1e-12):
            best[0] = card
            if on_improve is not None:
                on_improve(card)

    if warm is not None and prob.complete_ok(frozenset(np.flatnonzero(warm).tolist())):
        support = [int(j) for j in np.flatnonzero(warm)]
        beta, b0, _ = _continuous_fit(prob, support, warm.astype(float), 0.0)
        offer(_round_on_ladder(prob, support, beta, b0, 4))
    for beam, children, rungs in ((1, 1, 4), (BEAM, CHILDREN, LADDER)):
        fits = beam_supports(prob, beam, children, deadline, stop)
        fits = [f for f in fits if prob.complete_ok(frozenset(f[1]))]
        # the best fit of each size (largest first), then the rest of the largest size's beam
        by_size: dict[int, tuple] = {}
        for f in sorted(fits, key=lambda f: f[0]):
            by_size.setdefault(len(f[1]), f)
        top = max(by_size, default=0)
        order = sorted(by_size.values(), key=lambda f: -len(f[1])) + sorted(
            (f for f in fits if len(f[1]) == top), key=lambda f: f[0]
        )
        main = len(order)
        if beam > 1:  # then the rest of the beam, only while no card meets the rules (caps)
            order += [f for f in sorted(fits, key=lambda f: f[0]) if len(f[1]) != top]
        done = set()
        for i, (_loss, support, beta, b0) in enumerate(order):
            key = frozenset(support)
            if key in done:
                continue
            if i >= main and best[0] is not None:
                break
            done.add(key)
            stop.rounding()
            # the greedy pass stays plain, so the first card comes at once
            offer(_round_on_ladder(prob, support, beta, b0, rungs, stop, capped=beam > 1))
            if stop() and best[0] is not None:
                return best[0]
    if best[0] is not None:
        _swaps(prob, best[0], offer, stop)
    if best[0] is not None and prob.rules is not None and prob.rules.has_caps and not stop():
        offer(_cap_polish(prob, best[0], stop))
    return best[0]


def _polish(prob: RiskProblem, coefs: np.ndarray, b0: int, t: float, capped) -> RiskCard:
    """Integer descent from a card, alternating points at a fixed multiplier with the best
    multiplier for those points (``capped``: the stop test that also turns on the moves a
    cap hides from the plain descent, :func:`_capped_moves`)."""
    for _ in range(4):
        coefs, b0, _, u = _descend(prob, coefs, b0, t, capped)
        if not prob.scale:
            break
        t_new, _ = prob.loss.best_inverse_multiplier(u, prob.t_max())
        if abs(t_new - t) < 1e-9 * t:
            break
        t = t_new
    loss = prob.loss.of_margins(u, t)
    return RiskCard(coefs, b0, t, loss, prob.objective(coefs, loss))


def _cap_polish(prob: RiskProblem, card: RiskCard, stop: Callable[[], bool]) -> RiskCard:
    """The best card descended again with the moves a cap hides from the plain descent."""
    return _polish(prob, card.coefficients, card.intercept, card.t, stop)


def _swaps(prob: RiskProblem, card: RiskCard, offer, stop: _Stop) -> None:
    """Trade one feature of the best card for a steep one outside it, while that helps. The
    trades are fitted continuously first (cheap) and rounded best fit first, so a trade that
    helps is usually met early; a support is rounded once."""
    tried: set[frozenset] = set()
    improved = True
    while improved and not stop():
        improved = False
        for _, trial, beta, b0 in _trades(prob, card, tried, stop):
            if stop():
                return
            tried.add(frozenset(trial))
            stop.rounding()
            new = _round_on_ladder(prob, trial, beta, b0, LADDER, stop)
            if new is not None and new.objective < card.objective - 1e-9:
                offer(new)
                card, improved = new, True
                break


def _trades(
    prob: RiskProblem, card: RiskCard, tried: set, stop
) -> list[tuple[float, list[int], np.ndarray, float]]:
    """Continuous fits (loss, support, beta, intercept) of the untried supports one trade away
    from the card's, least loss first."""
    support = [int(j) for j in np.flatnonzero(card.coefficients)]
    beta_now, b0_now = card.coefficients * card.t, card.intercept * card.t  # the card's logits
    fits = []
    steepest = _steepest(prob, beta_now, b0_now, support, CHILDREN)  # the same for every trade
    for out in support:
        if 0.0 not in prob.allowed[out]:
            continue  # required or locked
        for inn in steepest:
            trial = [j for j in support if j != out] + [inn]
            if frozenset(trial) in tried or not prob.complete_ok(frozenset(trial)) or stop():
                continue
            beta = beta_now.copy()
            beta[out] = 0.0
            beta, b0, loss = _continuous_fit(prob, trial, beta, b0_now)
            if not _rounds_away(prob, trial, beta):
                fits.append((loss, trial, beta, b0))
    return sorted(fits, key=lambda f: f[0])


# -- the walk: every card of a small box ------------------------------------------------------
def _cards(prob: RiskProblem):
    """Every points vector of the box that meets the support rules."""
    for values in itertools.product(*prob.allowed):
        coefs = np.array(values, dtype=float)
        if prob.complete_ok(frozenset(np.flatnonzero(coefs).tolist())) and (
            prob.rules is None or prob.rules.points_ok(coefs)
        ):
            yield coefs


def walk_work(prob: RiskProblem) -> float:
    """Elementary steps of the walk (rows x cards x intercepts, x 60 with a free multiplier)."""
    cards = math.prod(len(a) for a in prob.allowed)
    intercepts = prob.intercepts[1] - prob.intercepts[0] + 1
    return float(cards) * intercepts * prob.loss.X.shape[0] * (60 if prob.scale else 1)


def walk_risk(
    prob: RiskProblem, deadline: float = math.inf, cancel: threading.Event | None = None
) -> RiskCard | None:
    """The optimal card by scoring every card of the box, each intercept, each with its best
    multiplier (bisection on the convex 1-D loss). None when stopped early (nothing proven)."""
    L = prob.loss
    intercepts = np.arange(prob.intercepts[0], prob.intercepts[1] + 1, dtype=float)
    best: RiskCard | None = None
    for coefs in _cards(prob):
        if time.perf_counter() > deadline or (cancel is not None and cancel.is_set()):
            return None
        totals = intercepts[None, :] + (L.X @ coefs)[:, None]  # rows x intercepts
        u = L.y[:, None] * totals
        t = _best_t_columns(L.w, u, prob.t_max()) if prob.scale else np.ones(intercepts.size)
        losses = L.w @ softplus(-t[None, :] * u)
        if prob.rules is not None and prob.rules.has_caps:
            losses[~prob.rules.caps_ok(totals)] = np.inf
            if not np.isfinite(losses).any():
                continue
        k = int(np.argmin(losses))
        card = RiskCard(
            coefs,
            int(intercepts[k]),
            float(t[k]),
            float(losses[k]),
            prob.objective(coefs, float(losses[k])),
        )
        if best is None or card.objective < best.objective - 1e-12:
            best = card
    return best


class BoxWalk:
    """The walk as the risk family's ``walk`` piece: called, :func:`walk_risk`; its
    :meth:`work` is what the walk of a problem costs, which a fit asks before walking."""

    __call__ = staticmethod(walk_risk)

    def work(self, prob: RiskProblem) -> float:
        """:func:`walk_work`: the walk's elementary steps on ``prob``."""
        return walk_work(prob)


def _best_t_columns(w: np.ndarray, u: np.ndarray, t_max: float) -> np.ndarray:
    """Per column of margins, the t in [MIN_INVERSE_MULTIPLIER, t_max] of least loss (bisection)."""

    def slope(t):
        return -(w @ (u * sigmoid(-t[None, :] * u)))

    lo = np.full(u.shape[1], MIN_INVERSE_MULTIPLIER)
    hi = np.full(u.shape[1], t_max)
    at_top = slope(hi) <= 0
    at_bottom = slope(lo) >= 0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        up = slope(mid) > 0
        hi = np.where(up, mid, hi)
        lo = np.where(up, lo, mid)
    t = 0.5 * (lo + hi)
    return np.where(at_top, t_max, np.where(at_bottom, MIN_INVERSE_MULTIPLIER, t))


def _intercept_box(data: Dataset, spec: Spec, allowed: list[np.ndarray]) -> tuple[int, int]:
    """The user's intercept box, else the decision cards' derived one (every intercept that
    changes a prediction), never narrower than -100..100 (the log-odds of a risk card's total can
    sit past every row's score)."""
    from ..core.big_m_bounds import intercept_box

    if spec.intercept_range is not None:
        return int(spec.intercept_range[0]), int(spec.intercept_range[1])
    lo = np.array([a.min() if len(a) else 0 for a in allowed], dtype=np.int64)
    hi = np.array([a.max() if len(a) else 0 for a in allowed], dtype=np.int64)
    low, high = intercept_box(spec, data.X, lo, hi, 1.0)
    return min(low, -100), max(high, 100)


# the risk family's problem as its solvers read it, its search and its walk (its scan, floors
# and cutting planes are registered by the modules that define them: risk_branch_and_bound,
# risk_cells, risk_cone, risk_bound)
RISK.loss.holds(prepare=RiskProblem.from_spec, search=search_risk, walk=BoxWalk())
