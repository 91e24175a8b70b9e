"""The fit driver of time-to-event cards (``y`` a ``Surv`` array, ``loss="cox"``).

:func:`slimwidgets.fit` hands a time-to-event ``y`` here. A raw table becomes 0/1 rules as for
the other cards (:func:`~slimwidgets.core.rules.rules_from_options`); the options are read by
:func:`~slimwidgets.core.spec.make_spec` (so every name and range is checked as for the other
cards) and those this family honours are :data:`SURVIVAL_OPTIONS`; any other one set is refused
with the reason. The proof by supports (the family's loss's ``scan``) finds the card and
proves it optimal, or states its floor when the time limit comes first. The card is re-checked
(points in their boxes, size, require, the settings by variable, objective recomputed) before
it is returned.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np
from threadpoolctl import threadpool_limits

from ..core.by_variable import monotone_rows, variable_problems
from ..core.cox_floor import warm_up
from ..core.rules import as_frame, rules_from_options
from ..core.spec import Spec, make_spec
from ..core.survival import breslow_baseline, harrell_c
from ..core.survival_card import SurvivalCard, default_horizons, risk_by_score
from ..core.survival_family import TIME_TO_EVENT
from ..core.survival_text import status_words
from .errors import NoSolutionError
from .progress import FitProgress, fit_progress

if TYPE_CHECKING:
    from ..solvers.cox_tree import CoxCard, CoxProblem, CoxProof

__all__ = [
    "fit_survival",
    "progress_words",
    "REFUSED_ARGUMENTS",
    "SURVIVAL_OPTIONS",
    "DEFAULT_SURVIVAL_MAX_SIZE",
    "DEFAULT_SURVIVAL_C0",
]

#: the options a time-to-event card honours (others are refused, naming them)
SURVIVAL_OPTIONS = frozenset(
    {
        "max_size",
        "C0",
        "coef_range",
        "coef_ranges",
        "exclude",
        "signs",
        "values",
        "lock",
        "penalties",
        "time_limit",
        "variables",  # the rules of each variable: the rule builder sets it
        "require",
        "max_variables",
        "monotone",
        "constraints",  # only "at least one of" these rules: what require of a variable makes
    }
)
#: arguments of fit that a time-to-event card does not take (yet): each must be None
REFUSED_ARGUMENTS = (
    "positive",
    "spec",
    "warm_start",
    "on_incumbent",
    "on_bound",
    "sensitive_features",
    "n_jobs",
)
#: without max_size a card has at most this many rules (the proof walks every support of this size)
DEFAULT_SURVIVAL_MAX_SIZE = 3
#: without C0: each rule used costs this much Cox loss per event
DEFAULT_SURVIVAL_C0 = 0.002


def fit_survival(
    X: Any,
    y: Any,
    *,
    sample_weight: Any = None,
    feature_names: Sequence[str] | None = None,
    rules: Any = None,
    cuts: Any = None,
    horizons: Sequence[float] | None = None,
    ties: str = "breslow",
    clock: Callable[[], float] = time.perf_counter,
    cancel: threading.Event | None = None,
    progress: bool | None = None,
    on_progress: Callable[[dict[str, int], str], None] | None = None,
    **options: Any,
) -> SurvivalCard:
    """A time-to-event card for ``X`` and the ``Surv`` array ``y`` (see :func:`slimwidgets.fit`).

    Parameters
    ----------
    X : a raw table or a 2-D array of features.
    y : a structured array of a bool field (the event) and a float field (the time).
    sample_weight : optional non-negative weights per row.
    feature_names : the names of an array's columns.
    rules, cuts : how a raw table becomes 0/1 rules, as for :func:`slimwidgets.fit`.
    horizons : the times the card states the risk by (default: :func:`default_horizons`).
    ties : events at one time by ``"breslow"`` or ``"efron"`` (the baseline hazard is Breslow's).
    clock : the clock the time limit is read on.
    cancel : setting this event stops the proof: the best card so far, status "interrupted",
        with its proven floor.
    progress : the bar of :mod:`.progress` (the best card so far, its C-index, the proven floor,
        the time left): None in a notebook or a terminal only, True always, False never. Ctrl-C
        returns the best card found so far, status "interrupted", no floor proven.
    on_progress : called on the proof's thread with the best card so far (its points by rule)
        and :func:`progress_words` (its C-index, objective and the floor proven) each time
        either changes: what a studio shows while the proof runs.
    **options : ``loss="cox"`` and the options of :data:`SURVIVAL_OPTIONS`; the other arguments of
        :func:`slimwidgets.fit` (:data:`REFUSED_ARGUMENTS`) are refused unless None.

    Returns
    -------
    SurvivalCard
        ``status`` "optimal" only when proven; else "time_limit" (or "interrupted" by ``cancel``)
        with the proven floor ``bound``.

    Examples
    --------
    >>> import numpy as np
    >>> events = [(True, 1.0), (True, 2.0), (False, 3.0), (True, 4.0), (False, 5.0), (True, 6.0)]
    >>> y = np.array(events + [(True, 7.0), (False, 8.0)], dtype=[("died", "?"), ("days", "<f8")])
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0], [1, 0], [0, 1], [1, 1], [0, 0]])
    >>> card = fit_survival(X, y, max_size=2, feature_names=["smoker", "old"])
    >>> card.card_points, card.status
    ({'smoker': 1}, 'optimal')
    """
    warm_up()  # the floors' one-off compile (once per process) is not charged to the limit
    started = clock()
    _refuse(
        {name: options.pop(name, None) for name in REFUSED_ARGUMENTS}, options.pop("loss", "cox")
    )
    target = TIME_TO_EVENT.target(y)
    X, builder, options = rules_from_options(X, {**options, "rules": rules, "cuts": cuts})
    names, values = _features(X, feature_names, target.time.size)
    spec = _spec(options)
    w = (
        np.ones(values.shape[0])
        if sample_weight is None
        else np.asarray(sample_weight, dtype=float)
    )
    rows = SimpleNamespace(
        X=values, time=target.time, event=target.event, weight=w, names=names, ties=ties
    )
    prob = TIME_TO_EVENT.loss.prepare(rows, spec)  # registered by solvers/cox_tree
    deadline = math.inf if spec.time_limit is None else started + spec.time_limit
    watch = fit_progress(progress, spec.time_limit, started)
    seen = _Seen(prob, watch, names, on_progress)
    card = None
    try:
        if watch is not None:
            watch.start()
        proof, stopped = _prove(prob, seen, deadline, clock, cancel)
        proof = _smallest_form(proof, prob)
        _check(proof, prob, spec, names)
        card = _card(proof, prob, names, target, builder, horizons, clock() - started, stopped)
    finally:  # also on an error: the bar stops, saying nothing it does not know
        if watch is not None:
            watch.finish(card, None if card is None else status_words(card))
    return card


class _Seen:
    """The best card and the proven floor of a Cox proof so far: what its bar says, and the card
    Ctrl-C returns (``watch``: the bar, or None)."""

    def __init__(
        self,
        prob: CoxProblem,
        watch: FitProgress | None,
        names: list[str],
        listener: Callable[[dict[str, int], str], None] | None,
    ):
        self.prob, self.watch, self.names, self.listener = prob, watch, names, listener
        self.card: CoxCard | None = None
        self.floor = -math.inf

    def on_card(self, card: CoxCard) -> None:
        self.card = card
        self._tell()

    def on_floor(self, floor: float) -> None:
        self.floor = max(self.floor, floor)
        self._tell()

    def _tell(self) -> None:
        if self.card is None:
            return
        card, floor, prob = self.card, self.floor, self.prob
        if self.watch is not None:
            self.watch.on_found(lambda: progress_words(prob, card, floor))
        if self.listener is not None:  # the card as it will be returned: its smallest form
            smallest = _smallest_card(card, prob).points
            points = {n: int(round(p)) for n, p in zip(self.names, smallest) if round(p)}
            self.listener(points, progress_words(prob, card, floor))


def progress_words(prob: CoxProblem, card: CoxCard, floor: float) -> str:
    """A card found while a time-to-event fit runs, in plain words: its rules, its C-index on the
    rows fitted, its objective per event, and the floor proven of every card's objective.

    Examples
    --------
    >>> from slimwidgets.solvers.cox_tree import CoxCard, CoxProblem
    >>> X = np.array([[1.0], [0.0], [1.0], [0.0]])
    >>> prob = CoxProblem(X, np.arange(1.0, 5.0), np.ones(4, dtype=bool), np.ones(4),
    ...                   [np.arange(-2, 3)], np.full(1, 0.01), 1, (1e-4, 2.0))
    >>> progress_words(prob, CoxCard(np.array([1.0]), 1.0, 0.9, 0.91), -math.inf)
    '1 rule, C-index 0.667, objective 0.91 per event (Cox loss 0.9); no floor proven yet'
    """
    points = np.round(card.points)
    concordance = harrell_c(prob.time, prob.event, prob.X @ points, prob.weight)
    rules = int(np.count_nonzero(points))
    proven = f"proven: no card below {floor:.4g}" if math.isfinite(floor) else "no floor proven yet"
    return (
        f"{rules} rule{'' if rules == 1 else 's'}, C-index {concordance:.3f}, objective "
        f"{card.objective:.4g} per event (Cox loss {card.loss:.4g}); {proven}"
    )


def _prove(
    prob: CoxProblem,
    seen: _Seen,
    deadline: float,
    clock: Callable[[], float],
    cancel: threading.Event | None,
) -> tuple[CoxProof, str]:
    """(the proof, the status it has when not complete): on Ctrl-C, the best card ``seen``,
    status "interrupted", no floor proven (Ctrl-C before any card goes on)."""
    try:
        with threadpool_limits(limits=1, user_api="blas"):  # tiny matrices: threads only wait
            proof = TIME_TO_EVENT.loss.scan(
                prob,
                deadline=deadline,
                clock=clock,
                cancel=cancel,
                on_card=seen.on_card,
                on_floor=seen.on_floor,
            )
    except KeyboardInterrupt:
        if seen.card is None:
            raise
        return prob.unproven(seen.card), "interrupted"
    stopped = "interrupted" if cancel is not None and cancel.is_set() else "time_limit"
    return proof, stopped


def _refuse(refused: dict, loss: str) -> None:
    if loss != TIME_TO_EVENT.loss_name:
        raise ValueError(f"a time-to-event y is fitted with loss='cox', not loss={loss!r}")
    given = sorted(name for name, value in refused.items() if value is not None)
    if given:
        raise ValueError(
            f"time-to-event cards do not take {', '.join(given)} yet: leave "
            f"{'it' if len(given) == 1 else 'them'} out"
        )


def _features(X: Any, feature_names: Sequence[str] | None, n: int) -> tuple[list[str], np.ndarray]:
    frame = as_frame(X)
    if feature_names is not None:
        frame.columns = list(feature_names)
    values = frame.to_numpy(dtype=float)
    if values.shape[0] != n:
        raise ValueError(f"X has {values.shape[0]} rows and y {n}: one time and event per row")
    if not np.isfinite(values).all():
        raise ValueError(
            "X has a missing or infinite value: give the raw table with rules=True "
            "to make rules of it"
        )
    return [str(c) for c in frame.columns], values


def _spec(options: dict) -> Spec:
    """The options checked by the options table, with this family's defaults; others refused."""
    spec = make_spec(**options)
    others = sorted(name for name, value in options.items() if name not in SURVIVAL_OPTIONS)
    if others:
        raise ValueError(
            f"time-to-event cards do not take {', '.join(others)} yet; they take "
            f"{', '.join(sorted(SURVIVAL_OPTIONS))}"
        )
    other = [c.describe() for c in spec.constraints if (c.kind, c.k) != ("at_least", 1)]
    if other:
        raise ValueError(
            f"time-to-event cards take no logical constraint but 'at least one of' (require of "
            f"a variable) yet: {'; '.join(other)}"
        )
    if monotone_rows(spec):
        raise ValueError(
            "monotone points of a variable whose rules share a cut point (band rules, or "
            "thresholds of both directions) are rows over several rules, which the proof of "
            "time-to-event cards does not hold yet: give one rule per cut (as fit makes them)"
        )
    return spec.replace(
        max_size=DEFAULT_SURVIVAL_MAX_SIZE if spec.max_size is None else spec.max_size,
        C0=DEFAULT_SURVIVAL_C0 if spec.C0 is None else spec.C0,
    )


def _smallest_form(proof: CoxProof, prob: CoxProblem) -> CoxProof:
    """The proof with its card in its smallest form (:func:`_smallest_card`)."""
    return replace(proof, card=_smallest_card(proof.card, prob))


def _smallest_card(card: CoxCard, prob: CoxProblem) -> CoxCard:
    """The card with its points divided by their greatest common divisor and ``t`` multiplied by
    it, when that ``t`` stays in range: the same log hazard ratios, so the same loss, in fewer
    points."""
    points = card.points.astype(np.int64)
    divisor = int(np.gcd.reduce(np.abs(points))) if points.any() else 1
    t = card.t * divisor
    if divisor <= 1 or t > prob.t_range[1]:
        return card
    smaller = points // divisor
    if any(p != 0 and p not in prob.allowed[j] for j, p in enumerate(smaller)):
        return card
    return replace(card, points=smaller.astype(float), t=t)


def _check(proof: CoxProof, prob: CoxProblem, spec: Spec, names: list[str]) -> None:
    """Refuse to hand out a card that breaks its rules or misstates its objective (a bug)."""
    points = proof.card.points
    if not math.isfinite(proof.card.objective):
        raise NoSolutionError(
            "the time limit (or Ctrl-C) came before any card that meets require: give more time"
        )
    problems = variable_problems(spec, dict(zip(names, points.tolist())))
    used = {name for name, p in zip(names, points) if p != 0}
    groups = [[name] for name in spec.require] + [list(c.features) for c in spec.constraints]
    problems += [f"none of {group} used (require)" for group in groups if not used & set(group)]
    card = dict(zip(names, points.tolist()))
    problems += [f"{n} locked at {v} has {card[n]:g}" for n, v in spec.lock.items() if card[n] != v]
    if np.count_nonzero(points) > prob.max_size:
        problems.append(f"{np.count_nonzero(points)} rules > max_size {prob.max_size}")
    problems += [
        f"feature {j} has {p:g} points, outside its allowed values"
        for j, p in enumerate(points)
        if p != 0 and p not in prob.allowed[j]
    ]
    columns = np.flatnonzero(points)  # the card's columns only: as many cells as its rules make
    cells = TIME_TO_EVENT.loss.value(
        prob.X[:, columns], prob.time, prob.event, prob.weight, prob.ties
    )
    loss = cells.value(proof.card.t * points[columns])
    objective = loss + float(prob.C0[points != 0].sum())
    if not math.isclose(objective, proof.card.objective, rel_tol=1e-9, abs_tol=1e-9):
        problems.append(f"objective {proof.card.objective} recomputed as {objective}")
    if proof.floor > proof.card.objective + 1e-9:
        problems.append(f"floor {proof.floor} above the card's objective {proof.card.objective}")
    if problems:
        raise RuntimeError(f"internal error: the time-to-event card breaks {problems}")


def _card(
    proof: CoxProof,
    prob: CoxProblem,
    names: list[str],
    target,
    builder: Any,
    horizons: Sequence[float] | None,
    elapsed: float,
    stopped: str,
) -> SurvivalCard:
    points = tuple(int(round(p)) for p in proof.card.points)
    totals = prob.X @ np.array(points, dtype=float)
    times, hazard = breslow_baseline(proof.card.t * totals, prob.time, prob.event, prob.weight)
    optimal = proof.complete
    card = SurvivalCard(
        tuple(names),
        points,
        1.0 / proof.card.t,
        times,
        hazard,
        tuple(
            float(h) for h in (horizons if horizons is not None else default_horizons(prob.time))
        ),
        status="optimal" if optimal else stopped,
        objective=proof.card.objective,
        bound=proof.card.objective
        if optimal
        else (proof.floor if math.isfinite(proof.floor) else None),
        solve_time=elapsed,
        solver=f"branch and bound on supports (Cox, {prob.ties.capitalize()} ties)",
        names=target.names,
        rules=builder,
        details={
            "C0": prob.C0.tolist(),
            "cox_loss": proof.card.loss,
            "ties": prob.ties,
            # how the points table reads a feature: "yes" for a 0/1 rule, "per unit" otherwise
            "binary": {
                n: bool(np.isin(prob.X[:, j], (0.0, 1.0)).all()) for j, n in enumerate(names)
            },
            "max_size": prob.max_size,
            "n_rows": int(prob.X.shape[0]),
            "n_events": int(prob.event.sum()),
            "supports": proof.supports,
            "nodes": proof.nodes,
        },
    )
    return replace(card, table=risk_by_score(card, totals, prob.time, prob.event, prob.weight))
