"""The fit driver of risk cards (``loss="logistic"``): search, walk when small, bound, re-check.

:func:`slimwidgets.fitting.driver.fit_dataset` hands a spec with ``loss="logistic"`` here. A box
small enough to walk (or ``solver="enumerate"``) is walked and the card is ``optimal``.
Otherwise the anytime search finds the card, and then a proof runs until it has proven what it
can (or the time is up; ``time_limit=None`` gives the search and the proof
``RISK_SEARCH_SECONDS``):

* ``solver="auto"`` on a problem whose rules are the boxes and ``max_size``, with supports of
  ``max_size`` features the tree takes (floored over cells on 0/1 rules, else at most
  :data:`~slimwidgets.solvers.risk_branch_and_bound.MAX_SUPPORTS` of them, floored when the
  supports times the rows are at most :data:`FLOOR_WORK_PER_SECOND` per second of the time
  limit, else the floor is over the whole box): the tree by supports
  (:mod:`slimwidgets.solvers.risk_branch_and_bound`). Its branch and bound proves the optimum
  (or the requested ``gap``) and the fit stops there, with ``scale=False`` and with a free
  multiplier alike (:mod:`slimwidgets.solvers.risk_cone`). The card's
  ``details["support_proof"]`` says whether its supports were floored over cells, and if not,
  why.
* else the cutting-plane master (:mod:`slimwidgets.solvers.risk_bound`) in the time left.
  ``solver="highs"`` always takes this path and skips the walk; without a time limit and with
  ``scale=False`` it runs until it proves the optimum (or reaches ``gap``).

The card is ``optimal`` when the floor reaches its objective (or comes within ``gap``: then
``optimal`` within that gap, with the floor), else ``heuristic`` with the floor and the gap.
When the search finds no card meeting the rules (the caps, most often), the decision
family's MIP under the same rules settles it: a decision card meets them too and becomes the
card, or its infeasibility names the clash.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from ..core.card_family import FamilyLoss
from ..core.data import Dataset
from ..core.family import family_of_loss
from ..core.losses import MIN_INVERSE_MULTIPLIER, ensure_compiled
from ..core.risk_family import RISK
from ..core.scoring import ScoringSystem
from ..core.spec import Spec
from ..core.status import risk_limit_scale
from ..solvers.backends.mip import solve_formulation
from ..solvers.base import Incumbent, relative_gap
from . import size_cv
from .cards import risk_rows
from .checks import check_card
from .conflicts import find_conflicts
from .errors import InfeasibleError, NoSolutionError

if TYPE_CHECKING:
    from ..solvers.logistic import RiskCard, RiskProblem

__all__ = ["fit_risk", "risk_card_of", "RISK_SEARCH_SECONDS", "RISK_WALK_WORK"]

#: the search's budget when the spec sets no time limit (it usually ends well before)
RISK_SEARCH_SECONDS = 2.0
#: the search's share of the time when the proof by supports does not apply (too many supports, or
#: rules it leaves out): the rest goes to the floor of the relaxation over the whole box
SEARCH_SHARE = 0.8
#: solver="auto" walks the whole box when it takes at most this many elementary steps
RISK_WALK_WORK = 2e7
#: the walk, the search and the proof end this many times the card's figures and checks (timed on
#: the problem) before the time limit, so that the checked card is back by the limit
FINISH_FACTOR = 2.0
#: and a margin for the steps between the phases (a share of the limit, at most MARGIN_SECONDS)
MARGIN_SHARE, MARGIN_SECONDS = 0.02, 0.25
#: outside the cell path the proof by supports floors every support when the supports times the
#: rows are at most this many per second of the time limit (the floors' pace is about 1.2e7 a
#: second at load 2 on 2 cores, 4.3e6 at load 6); heart's 201,376 supports x 303 rows are tried
#: from a 7.6 s limit, proven at 10 s in 6-7 s at load 2. More, and the floor is over the whole
#: box: a choice on counted work, not on the clock
FLOOR_WORK_PER_SECOND = 8e6
#: kept, out of the proof by supports' time, for the floor over the whole box when that proof
#: stops unfinished (L-BFGS-B's floor is valid wherever it stops; it gets a
#: share, at most DENSE_SECONDS)
DENSE_SHARE, DENSE_SECONDS = 0.05, 1.0


def fit_risk(
    data: Dataset,
    spec: Spec,
    *,
    warm_start: ScoringSystem | None = None,
    on_incumbent: Callable[[Incumbent], None] | None = None,
    cancel: threading.Event | None = None,
    started: float | None = None,
) -> ScoringSystem:
    """A risk card for ``data`` under ``spec`` (see :func:`slimwidgets.fit`, ``loss="logistic"``);
    the time limit counts from ``started`` (the fit's call, so reading the data counts), less
    the one-off compile of the kernels."""
    pieces = _pieces(spec)
    compiling = time.perf_counter()
    ensure_compiled()  # once per process, not charged to the time limit
    pieces.piece("scan").compile()
    t0 = time.perf_counter() if started is None else started + (time.perf_counter() - compiling)
    prob = pieces.prepare(data, spec)
    budget = _budget(data, spec, prob)
    end = t0 + budget  # every phase ends by it: the rest is the card's figures and checks
    walk = spec.solver == "enumerate" or (
        spec.solver == "auto" and pieces.piece("walk").work(prob) <= RISK_WALK_WORK
    )
    status, solver, note = "heuristic", "logistic search", ""
    if walk:
        card = pieces.walk(
            prob, deadline=end if spec.time_limit is not None else math.inf, cancel=cancel
        )
        status, solver = "optimal", "enumeration"
        if card is None:  # stopped before the end: fall back on the search, claim nothing
            status, solver = (
                "interrupted" if cancel is not None and cancel.is_set() else "time_limit",
                "logistic search",
            )
    bound = card.objective if status == "optimal" else None
    if not walk or card is None:

        def report(found: RiskCard) -> None:
            if on_incumbent is not None:
                on_incumbent(
                    Incumbent(
                        found.coefficients.copy(),
                        found.intercept,
                        found.objective,
                        -math.inf,
                        time.perf_counter() - t0,
                        multiplier=float(found.multiplier),
                    )
                )

        fold = size_cv.fold_work()
        card = pieces.search(
            prob,
            time_limit=_search_seconds(pieces, prob, end, t0),
            max_rounds=math.inf if fold is None else fold.search_rounds,
            on_improve=report,
            cancel=cancel,
            warm=_warm(warm_start, data),
        )
        if card is not None and not (cancel is not None and cancel.is_set()):
            bound, proven, method, note, timed_out = _prove(prob, spec, card, end, cancel)
            if proven is not card:  # the proof met a better card on its way
                card = proven
                report(card)
            if bound is not None and bound >= card.objective - 1e-9:
                status, solver, bound = "optimal", method, card.objective
            elif (
                bound is not None and relative_gap(card.objective, bound) <= spec.gap
            ):  # optimal within gap
                status, solver = "optimal", method
            elif timed_out:  # a fold fit's card the safety net, not its work, ended
                status = "time_limit"
    if card is None:
        time_left = None if spec.time_limit is None else max(end - time.perf_counter(), 0.1)
        card = _feasible_start(data, spec, prob, time_left, cancel)
    if (
        solver == "enumeration" and on_incumbent is not None
    ):  # the walk reports its card once, proven
        on_incumbent(
            Incumbent(
                card.coefficients.copy(),
                card.intercept,
                card.objective,
                card.objective,
                time.perf_counter() - t0,
                multiplier=float(card.multiplier),
            )
        )
    result = _card(data, spec, prob, card, status, solver, time.perf_counter() - t0, bound)
    if note:
        result.details["support_proof"] = note
    problems = check_card(result, data, spec)
    if problems:  # a bug, never a user error: refuse to hand out a card that breaks the spec
        raise RuntimeError(f"internal error: the risk card breaks {problems}")
    return result


def _pieces(spec: Spec) -> FamilyLoss:
    """The loss pieces of the family of ``spec`` (the risk family's: its problem as its solvers
    read it, search, walk, scan and floors, registered by the solvers that define them)."""
    return family_of_loss(spec.loss).loss


def _budget(data: Dataset, spec: Spec, prob: RiskProblem) -> float:
    """The seconds the walk, the search and the proof share: the time limit less room for the
    steps after them (the card's figures, risk table and checks), timed on this problem now on
    the card without points; at least half the limit."""
    if spec.time_limit is None:
        return RISK_SEARCH_SECONDS
    started = time.perf_counter()
    blank = prob.card(np.zeros(prob.n_features), 0)
    check_card(_card(data, spec, prob, blank, "heuristic", "", 0.0, None), data, spec)
    finish = FINISH_FACTOR * (time.perf_counter() - started) + min(
        MARGIN_SHARE * spec.time_limit, MARGIN_SECONDS
    )
    return max(spec.time_limit - finish, 0.5 * spec.time_limit)


def _search_seconds(pieces: FamilyLoss, prob: RiskProblem, end: float, t0: float) -> float:
    """The search's seconds: where the tree will not go, the relaxation's floor gets the last
    share of the time. A fold fit's search (:func:`.size_cv.fold_work`) ends on its rounds,
    the same at any load; all the time to ``end`` is then only its safety net."""
    covered = pieces.piece("scan").declines(prob) is None
    share = 1.0 if covered or size_cv.fold_work() is not None else SEARCH_SHARE
    return max(share * (end - t0) - (time.perf_counter() - t0), 0.05)


def _feasible_start(
    data: Dataset, spec: Spec, prob: RiskProblem, time_left: float | None, cancel
) -> RiskCard:
    """When the search found no card: a decision card under the same rules, whose points and
    intercept meet them too (a risk card predicts as a decision card does, at total >= 0), as
    a start for the search; or the clash that leaves no card at all.

    A decision card is held to its margin (a negative is right when its total is <= -margin),
    at least as strict as a risk card's total < 0, so a decision card meets the risk card's
    caps; where every total is a multiple of the margin (integer features, or at most three
    decimals: :meth:`Dataset.score_step`) the two rules agree, and the decision MIP's
    "infeasible" proves that no risk card exists either."""
    rules = "the rules on features (require / at_least / needs / group signs)"
    if prob.rules is not None and prob.rules.has_caps:
        rules += f" and {prob.rules.describe_caps()}"
    decision = spec.replace(loss="zero_one", scale=True, solver="auto", gap=0.0)
    form = family_of_loss(decision.loss).loss.problem(data, decision)
    # time-limited: a stop flag puts HiGHS in a child process, killed at its deadline
    stop = cancel if cancel is not None or time_left is None else threading.Event()
    result = solve_formulation(
        form, time_limit=time_left, threads=spec.threads, feasibility_only=True, cancel=stop
    )
    if result.status == "infeasible" and data.score_step() is not None:
        raise InfeasibleError(find_conflicts(data, decision, cancel=cancel))
    if result.coefficients is None or not prob.card_ok(
        np.asarray(result.coefficients, float), result.intercept
    ):
        raise NoSolutionError(
            f"no risk card found that meets {rules}; relax them, or use solver='enumerate' "
            "on a small box to settle whether one exists"
        )
    coefs = np.asarray(result.coefficients, dtype=float)
    u = prob.loss.margins(coefs, result.intercept)
    t, loss = prob.loss.best_inverse_multiplier(u) if prob.scale else (1.0, prob.loss.of_margins(u))
    return prob.card(coefs, int(result.intercept), t, loss)


def _prove(
    prob: RiskProblem, spec: Spec, card: RiskCard, deadline: float, cancel
) -> tuple[float | None, RiskCard, str, str, bool]:
    """(floor, best card, the proof's words, how the supports were floored or why not by
    supports, whether a fold fit's tree was stopped by the clock before its work): with
    ``solver="auto"`` the tree by supports where it applies
    (:mod:`slimwidgets.solvers.risk_branch_and_bound`; it ends as soon as it has proven what it
    can), else (and with ``solver="highs"``) the cutting planes in the time left.

    A fold fit (:func:`.size_cv.fold_work`) ends on counted work: the tree on its
    :attr:`~.size_cv.FoldWork.tree_nodes`, and no cutting planes (HiGHS stops on seconds, and
    the card it may find would then depend on the load); the floor over the whole box stops on
    its iterations."""
    fold = size_cv.fold_work()
    # the tree stops early enough to leave the floor over the whole box its share of the time
    dense = min(DENSE_SHARE * max(deadline - time.perf_counter(), 0.0), DENSE_SECONDS)
    tree = (
        _pieces(spec).scan(
            prob,
            card,
            gap=spec.gap,
            cancel=cancel,
            deadline=deadline - dense,
            max_nodes=math.inf if fold is None else fold.tree_nodes,
            floor_work=_floor_work(spec) if fold is None else math.inf,
        )
        if spec.solver == "auto"
        else None
    )
    if tree is None:  # too many supports, or rules the tree leaves out
        note = f"not by supports: {_why_no_tree(prob, spec)}"
        floor = _dense_floor_in_time(prob, spec, deadline)
        capped = prob.rules is not None and prob.rules.has_caps
        if (
            prob.scale and not capped
        ) or fold is not None:  # planes creep with a free multiplier; a fold's end on seconds
            words = "logistic search + relaxation"
            return (floor if math.isfinite(floor) else None), card, words, note, False
        bound, card = _bound(prob, spec, card, deadline - time.perf_counter(), cancel)
        bound = max(floor, -math.inf if bound is None else bound)
        words = "logistic search + cutting planes"
        return (bound if math.isfinite(bound) else None), card, words, note, False
    # on the points, and with a free multiplier on its cone too
    words = "logistic search + branch and bound"
    timed_out = fold is not None and not tree.complete and tree.nodes < fold.tree_nodes
    if not math.isfinite(
        tree.floor
    ):  # not every support's floor in time: the whole box's, in the time left
        floor = _dense_floor_in_time(prob, spec, deadline)
        return (floor if math.isfinite(floor) else None), tree.card, words, tree.note, timed_out
    return tree.floor, tree.card, words, tree.note, timed_out


def _floor_work(spec: Spec) -> float:
    """The supports times rows the proof by supports may floor outside the cell path: a share
    of the time limit counted in work (:data:`FLOOR_WORK_PER_SECOND`)."""
    seconds = RISK_SEARCH_SECONDS if spec.time_limit is None else spec.time_limit
    return FLOOR_WORK_PER_SECOND * seconds


def _why_no_tree(prob: RiskProblem, spec: Spec) -> str:
    """Why the proof by supports did not run, in words."""
    if spec.solver != "auto":
        return f'solver="{spec.solver}"'
    return _pieces(spec).piece("scan").declines(prob) or "it stopped"


def _dense_floor_in_time(prob: RiskProblem, spec: Spec, deadline: float) -> float:
    """The floor over the whole box by ``deadline`` (it starts no pass over the rows after it,
    valid wherever it stops); none (-inf) when the deadline has passed already: its first pass
    alone can take a second or more on many rows, all of it past the limit."""
    if time.perf_counter() >= deadline:
        return -math.inf
    return _pieces(spec).floor(prob, deadline=deadline)


def _bound(
    prob: RiskProblem, spec: Spec, card: RiskCard, time_left: float, cancel
) -> tuple[float | None, RiskCard]:
    """The cutting planes' lower bound on every card's objective in the time left (None: no
    time), and the better of ``card`` and the optimal card the planes found, if they did."""
    until_proven = spec.solver == "highs" and spec.time_limit is None and not spec.scale
    if not until_proven and time_left < 0.05:
        return None, card
    start = np.append(card.coefficients, card.intercept) * card.t
    bound, exact = _pieces(spec).bound(
        prob,
        [start, np.zeros(prob.n_features + 1)],
        time_limit=math.inf if until_proven else time_left,
        upper=card.objective - spec.gap * abs(card.objective),
        threads=spec.threads,
        cancel=cancel,
    )
    if exact is not None:
        found = prob.card(*exact)
        if found.objective < card.objective:
            card = found
    return (bound if math.isfinite(bound) else None), card


def _warm(card: ScoringSystem | None, data: Dataset) -> np.ndarray | None:
    if card is None:
        return None
    by_name = dict(zip(card.feature_names, card.coefficients))
    return np.array([by_name.get(n, 0) for n in data.feature_names], dtype=float)


def _card(
    data: Dataset,
    spec: Spec,
    prob: RiskProblem,
    found: RiskCard,
    status: str,
    solver: str,
    elapsed: float,
    bound: float | None,
) -> ScoringSystem:
    card = ScoringSystem(
        data.feature_names,
        tuple(int(c) for c in found.coefficients),
        int(found.intercept),
        positive=data.positive,
        negative=data.negative,
        status=status,
        objective=found.objective,
        bound=bound,
        gap=None if bound is None else relative_gap(found.objective, bound),
        solve_time=elapsed,
        solver=solver,
        spec=spec,
        binary=tuple(data.binary),
        positive_name=data.positive_name,
        family="risk",
        multiplier=float(found.multiplier),
        zero_score=spec.zero_score,
        details={
            "C0": prob.C0.tolist(),
            "log_loss": found.loss,
            "n_rows": data.n_rows,
            "n_samples": data.n_samples,
            # how the bound reads as a log-loss floor (kept in JSON, so the status survives it)
            "limits": risk_limit_scale(
                prob.C0, int(np.count_nonzero(found.coefficients))
            ).to_dict(),
        },
    )
    labels = np.where(data.y == 1, data.positive, data.negative)
    object.__setattr__(
        card, "train_metrics", card.metrics(data.X, labels, sample_weight=data.weight)
    )
    object.__setattr__(card, "risk", risk_rows(card, data, labels))
    return card


def risk_card_of(
    data: Dataset, spec: Spec, card: ScoringSystem, *, elapsed: float = 0.0
) -> ScoringSystem | None:
    """``card``'s points, intercept and multiplier as a risk card of ``spec``, its objective (mean
    log-loss plus what its points cost) measured under ``spec``, status ``"heuristic"`` and no
    bound; None when it breaks a rule of ``spec`` (supports, signs, caps, the multiplier's range).

    The studio uses it to judge a risk card found by background work against the card shown.

    Examples
    --------
    >>> from slimwidgets.core.data import prepare_data
    >>> from slimwidgets.core.spec import make_spec
    >>> data = prepare_data(np.array([[1, 0], [0, 1], [1, 1], [0, 0]]), np.array([1, 0, 1, 0]))
    >>> spec = make_spec(loss="logistic", coef_range=(-3, 3))
    >>> found = ScoringSystem(data.feature_names, (2, 0), -1, family="risk", multiplier=1.0)
    >>> card = risk_card_of(data, spec, found)
    >>> card.status, round(card.objective - card.details["log_loss"], 6) > 0
    ('heuristic', True)
    """
    prob = _pieces(spec).prepare(data, spec)
    coefs = np.array(
        [dict(zip(card.feature_names, card.coefficients)).get(n, 0) for n in data.feature_names],
        dtype=float,
    )
    t = 1.0 / card.multiplier if card.multiplier else math.nan
    in_range = MIN_INVERSE_MULTIPLIER <= t <= prob.t_max() if prob.scale else t == 1.0
    if not RISK.makes(card) or not in_range or not prob.card_ok(coefs, int(card.intercept)):
        return None
    found = prob.card(coefs, int(card.intercept), t)
    return _card(
        data, spec, prob, found, "heuristic", card.solver or "logistic search", elapsed, None
    )
