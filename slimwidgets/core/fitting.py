"""``fit``: data + options -> an exactly optimized, re-checked scoring system."""

from __future__ import annotations

import math
import threading
import time
from dataclasses import replace
from typing import Any, Callable, Sequence

import numpy as np

from ..solvers import _kernels
from .data import Dataset, prepare_data
from .formulation import Formulation, build_formulation
from .scoring import FAMILIES, ScoringSystem
from ..solvers.decomposition import size_split, solve_by_size
from ..solvers.exhaustive import solve_by_enumeration, work_by_size
from ..solvers.pools import pool_search
from ..solvers.search import local_search
from ..solvers.base import Incumbent, SolveResult, relative_gap
from ..solvers.mip import solve_formulation
from .spec import DEFAULT_COEF_RANGE, DEFAULT_INTERCEPT_RANGE, Spec, make_spec

__all__ = ["fit", "fit_dataset", "InfeasibleError", "NoSolutionError", "check_card", "find_conflicts"]


HEURISTIC_SECONDS = 0.3
# solver="auto" walks every card instead of calling the MIP solver when that takes at most
# about this many elementary steps (~0.1-0.5 s with the compiled kernel).
ENUMERATION_WORK = 2e8


class InfeasibleError(ValueError):
    """No scoring system satisfies the constraints; ``conflicts`` names a clashing subset."""

    def __init__(self, conflicts: list[str]):
        self.conflicts = conflicts
        listed = "; ".join(conflicts) if conflicts else "the coefficient boxes themselves"
        super().__init__(f"no scoring system satisfies these constraints together: {listed}. Relax one of them.")


class NoSolutionError(RuntimeError):
    """The solver stopped (time limit or cancel) before finding any card."""


def fit(
    X: Any,
    y: Any,
    *,
    positive: Any = None,
    sample_weight: Any = None,
    feature_names: Sequence[str] | None = None,
    spec: Spec | None = None,
    warm_start: ScoringSystem | None = None,
    on_incumbent: Callable[[Incumbent], None] | None = None,
    cancel: threading.Event | None = None,
    **options: Any,
) -> ScoringSystem:
    """Learn a SLIM scoring system from ``X, y`` under operational constraints.

    Parameters
    ----------
    X : DataFrame of numeric/bool columns, or a 2-D array (with ``feature_names``)
    y : labels with exactly two values; ``positive`` picks the predicted class
        (default: the larger label, e.g. 1 or True).
    sample_weight : optional non-negative weights per row.
    spec : a ready :class:`Spec` instead of keyword options.
        ``loss="logistic"`` fits a risk card instead of a decision card: see
        :func:`slimwidgets.make_spec` and :meth:`ScoringSystem.predict_proba`.
    warm_start : a previous card to start the solver from.
    on_incumbent : called with every improving card while the solver runs.
    cancel : a ``threading.Event``; setting it stops the solve (status "interrupted").
    **options : the spec's options, see :func:`slimwidgets.make_spec`:
        ``C0, max_size, max_fpr, min_tpr, signs, penalties, exclude, require,
        coef_range, intercept_range, values, lock, constraints, class_weights,
        missing, margin, time_limit, gap, threads, solver``, and those of the
        paper's specialized models (sec. 7): ``tiers, groups, group_penalty,
        rule_penalty, max_rules_per_group, group_signs_agree, group_reversed``
        (see :mod:`slimwidgets.toolbox.families` for PILM, M-of-N tables and TILM).

    Returns
    -------
    ScoringSystem
        With ``status`` "optimal" only when proven; a time-limited solve
        returns its best card with ``bound`` and ``gap``.

    Raises
    ------
    InfeasibleError
        When no card meets the constraints; its message names a clashing subset.

    Examples
    --------
    >>> import pandas as pd, slimwidgets as sw
    >>> X = pd.DataFrame({"a": [1, 1, 0, 0, 1, 0], "b": [0, 1, 0, 1, 1, 0]})
    >>> card = sw.fit(X, [1, 1, 0, 0, 1, 0], max_size=1)
    >>> card.points, card.threshold, card.status
    ({'a': 2}, 1, 'optimal')

    A zero total counts as an error, as in the paper, so binary data often gets
    even points and an odd threshold (the paper's own cards look like this).
    """
    if spec is not None and options:
        raise TypeError(f"give either spec= or keyword options, not both (got {sorted(options)})")
    data = prepare_data(X, y, positive=positive, sample_weight=sample_weight, feature_names=feature_names)
    spec = spec if spec is not None else make_spec(**options)
    return fit_dataset(data, spec, warm_start=warm_start, on_incumbent=on_incumbent, cancel=cancel)


def fit_dataset(
    data: Dataset,
    spec: Spec,
    *,
    warm_start: ScoringSystem | None = None,
    on_incumbent: Callable[[Incumbent], None] | None = None,
    cancel: threading.Event | None = None,
    family: str = "slim",
) -> ScoringSystem:
    """:func:`fit` on an already prepared :class:`Dataset`.

    ``family`` labels the card (``"slim"``, or one of the sec. 7 models built by
    :mod:`slimwidgets.toolbox.families`); :func:`check_card` verifies its extra rules.
    """
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")
    spec.check_data(data.feature_names, data.n_samples)
    if spec.loss == "logistic":  # risk cards have their own driver (the loss seam)
        from .risk_fitting import fit_risk

        return fit_risk(data, spec, warm_start=warm_start, on_incumbent=on_incumbent, cancel=cancel)
    _kernels.ensure_compiled()  # once per process, before the clock starts
    t0 = time.perf_counter()
    form = build_formulation(data, spec)
    warm = None
    if warm_start is not None:
        by_name = dict(zip(warm_start.feature_names, warm_start.coefficients))
        warm = np.array([by_name.get(n, 0) for n in data.feature_names], dtype=float)
    # A fast local search gives a feasible card first (shown at once, warm start
    # for the MIP, and the answer if the time limit hits before the MIP finds one).
    budget = HEURISTIC_SECONDS if spec.time_limit is None else min(HEURISTIC_SECONDS, spec.time_limit / 4)
    report = note_bound = None
    if on_incumbent is not None:
        user_callback, best, bound, lock = on_incumbent, [math.inf], [-math.inf], threading.Lock()

        def on_incumbent(inc: Incumbent) -> None:  # only ever better cards reach the caller
            with lock:  # the MIP and the search report from different threads
                # Every bound reported holds for the whole problem, and stays valid: a card
                # from the search carries the best one seen, not the -inf it was sent with.
                bound[0] = max(bound[0], inc.bound)
                if inc.objective < best[0] - 1e-12:
                    best[0] = inc.objective
                    user_callback(replace(inc, bound=min(bound[0], inc.objective)))

        def note_bound(value: float) -> None:
            with lock:
                bound[0] = max(bound[0], value)

        def report(points, intercept, objective):
            on_incumbent(Incumbent(points, intercept, objective, -math.inf, time.perf_counter() - t0))
    found = local_search(form, time_budget=budget, warm=warm, on_improve=report, cancel=cancel)
    start = (found.coefficients.astype(float), found.intercept) if found.feasible else None
    time_left = None if spec.time_limit is None else max(spec.time_limit - (time.perf_counter() - t0), 0.01)
    upper = found.objective if found.feasible else math.inf
    result = _prove(form, spec, upper, start, time_left, on_incumbent, report, cancel, not found.all_starts,
                    note_bound)
    if result.status == "infeasible":
        if found.feasible:
            raise RuntimeError("internal error: the solver calls a spec infeasible that the local search satisfied")
        raise InfeasibleError(find_conflicts(data, spec, cancel=cancel))
    if found.feasible and (result.coefficients is None or found.objective < result.objective - 1e-12):
        # The solver stopped without beating the local search: return that card, honestly labelled.
        status = result.status if result.status != "no_solution" else ("interrupted" if cancel is not None and cancel.is_set() else "time_limit")
        bound = min(result.bound, found.objective)
        result = SolveResult(status, found.coefficients, found.intercept, found.objective, bound,
                             relative_gap(found.objective, bound), result.solve_time, result.solver, result.nodes)
    if result.coefficients is None:
        raise NoSolutionError(f"the solver stopped ({result.status}) after {result.solve_time:.2f} s before finding any card")
    result = replace(result, solve_time=time.perf_counter() - t0)
    card = card_from_result(data, spec, form, result, family=family)
    problems = check_card(card, data, spec)
    if problems:  # a bug, never a user error: refuse to hand out a card that breaks the spec
        raise RuntimeError(f"internal error: the solver's card breaks {problems}")
    return card


class _Either:
    """Set when either of two events is (an Event-like for the search's stop check)."""

    def __init__(self, a: threading.Event, b: threading.Event | None):
        self.a, self.b = a, b

    def is_set(self) -> bool:
        return self.a.is_set() or (self.b is not None and self.b.is_set())


class _SideSearch:
    """Primal heuristics on a second thread beside a time-limited solve (both release the
    GIL): the solver works on the bound, this thread on the card. It solves feature-pool
    MIPs (:mod:`slimwidgets.solvers.pools`) for up to half the time, then runs the local search.
    ``best`` is its latest card as (points, intercept, objective)."""

    def __init__(self, form: Formulation, start, upper: float, time_left: float, report, cancel,
                 linear_starts: bool):
        self.best: tuple[np.ndarray, int, float] | None = None
        self._done = threading.Event()

        def on_improve(points, intercept, objective):
            self.best = (points, int(intercept), objective)
            if report is not None:
                report(points, intercept, objective)
        def run():
            stop = _Either(self._done, cancel)
            t0 = time.perf_counter()
            # pool MIPs first (they find what the search's moves cannot reach), then the search
            pooled = pool_search(form, (start[0], start[1], upper),
                                 deadline=t0 + time_left / 2, cancel=stop, on_improve=on_improve)
            warm = start[0] if pooled is None else pooled[0]
            local_search(form, time_budget=time_left - (time.perf_counter() - t0), warm=warm, kicks=10**6,
                         seed=1, on_improve=on_improve, cancel=stop, zero_start=False, linear_starts=linear_starts)
        self._thread = threading.Thread(target=run, name="slimwidgets-search", daemon=True)
        self._thread.start()

    def stop(self) -> tuple[np.ndarray, int, float] | None:
        self._done.set()
        self._thread.join()
        return self.best


def _prove(form: Formulation, spec: Spec, upper: float, start, time_left: float | None,
           on_incumbent, report, cancel, more_starts: bool = False, on_bound=None) -> SolveResult:
    """Find and prove the optimum: walk every card when the box is small; walk the small
    cards and run one MIP per larger size when only a few sizes can beat the incumbent
    (:mod:`slimwidgets.solvers.decomposition`); else run one MIP over the whole box. A
    time-limited solve has the local search beside it (``_SideSearch``); the better card
    is kept, with the solver's bound. ``more_starts``: the first search ran out of time
    before trying every start, so the side search tries them. ``on_bound`` hears every rise
    of the proven bound on the whole problem.
    """
    works = work_by_size(form, upper) if spec.solver == "auto" else None
    if spec.solver == "enumerate" or (works is not None and works[-1] <= ENUMERATION_WORK):
        return _walk(form, upper, time_left, cancel)
    split = None
    if works is not None and spec.gap == 0 and start is not None:
        split = size_split(form, upper, works)
    side = None
    if time_left is not None and spec.solver != "cbc" and start is not None:
        side = _SideSearch(form, start, upper, time_left, report, cancel, more_starts)
    try:
        if split is not None:
            result = solve_by_size(form, upper, start, split, time_left=time_left, threads=spec.threads,
                                   cancel=cancel, on_incumbent=on_incumbent, on_bound=on_bound,
                                   latest=None if side is None else (lambda: side.best))
        else:
            result = solve_formulation(
                form, time_limit=time_left, gap=spec.gap, threads=spec.threads,
                solver="cbc" if spec.solver == "cbc" else "highs",
                warm_start=start, on_incumbent=on_incumbent, cancel=cancel,
                on_bound=None if spec.solver == "cbc" else on_bound,
            )
    finally:
        found = None if side is None else side.stop()
    if found is not None and result.status != "optimal" and (
            result.coefficients is None or found[2] < result.objective - 1e-12):
        bound = min(result.bound, found[2])
        status = result.status if result.status != "no_solution" else (
            "interrupted" if cancel is not None and cancel.is_set() else "time_limit")
        result = SolveResult(status, found[0], found[1], found[2], bound, relative_gap(found[2], bound),
                             result.solve_time, result.solver, result.nodes)
    return result


def _walk(form: Formulation, upper: float, time_left: float | None, cancel) -> SolveResult:
    t0 = time.perf_counter()
    deadline = None if time_left is None else t0 + time_left
    walked = solve_by_enumeration(form, upper, deadline=deadline, cancel=cancel)
    if walked is None:
        return SolveResult("no_solution", None, None, None, -math.inf, math.inf, time.perf_counter() - t0, "enumeration")
    if not math.isfinite(walked.objective):
        return SolveResult("infeasible", None, None, None, math.inf, math.inf, walked.elapsed, "enumeration")
    return SolveResult("optimal", walked.coefficients, walked.intercept, walked.objective,
                       walked.objective, 0.0, walked.elapsed, "enumeration")


def card_from_result(data: Dataset, spec: Spec, form: Formulation, result: SolveResult,
                     family: str = "slim") -> ScoringSystem:
    card = ScoringSystem(
        data.feature_names, tuple(int(c) for c in result.coefficients), int(result.intercept),
        positive=data.positive, negative=data.negative, status=result.status,
        objective=result.objective, bound=result.bound, gap=result.gap,
        solve_time=result.solve_time, solver=result.solver, spec=spec, binary=tuple(data.binary),
        positive_name=data.positive_name, family=family,
        details={"margin": form.margin, "epsilon": form.epsilon, "C0": form.C0.tolist(), "nodes": result.nodes,
                 "n_rows": data.n_rows, "n_samples": data.n_samples, "lexicographic": form.lexicographic},
    )
    labels = np.where(data.y == 1, data.positive, data.negative)
    metrics = card.metrics(data.X, labels, sample_weight=data.weight)
    object.__setattr__(card, "train_metrics", metrics)
    object.__setattr__(card, "risk", _risk_rows(card, data, labels))
    return card


RISK_MAX_SCORES = 30  # a risk table is printed when the card has at most this many distinct totals


def _risk_rows(card: ScoringSystem, data: Dataset, labels: np.ndarray) -> tuple | None:
    """Observed event rate per total score on the training rows (None for too many scores)."""
    from ..toolbox.risk import risk_table

    if len(np.unique(data.X @ np.asarray(card.coefficients, dtype=float))) > RISK_MAX_SCORES:
        return None
    table = risk_table(card, data.X, labels, sample_weight=data.weight)
    return tuple((float(score), float(r["count"]), float(r["events"]), float(r["rate"]), float(r["lower"]), float(r["upper"]))
                 for score, r in table.iterrows())


def check_card(card: ScoringSystem, data: Dataset, spec: Spec) -> list[str]:
    """Every constraint of ``spec`` that ``card`` breaks on ``data`` (empty list: all hold)."""
    problems: list[str] = []
    coefs = dict(zip(card.feature_names, card.coefficients))
    for name in data.feature_names:
        v = coefs.get(name, 0)
        lo, hi = spec.coef_ranges.get(name, spec.coef_range)
        if name in spec.lock:
            if v != spec.lock[name]:
                problems.append(f"lock {name!r}={spec.lock[name]} (got {v})")
            continue
        if not lo <= v <= hi:
            problems.append(f"points range of {name!r} ({v} not in {lo}..{hi})")
        if name in spec.exclude and v != 0:
            problems.append(f"exclude {name!r}")
        if name in spec.require and v == 0:
            problems.append(f"require {name!r}")
        sign = spec.signs.get(name)
        if (sign == "+" and v < 0) or (sign == "-" and v > 0):
            problems.append(f"sign {sign} on {name!r}")
        if name in spec.values and v not in spec.values[name]:
            problems.append(f"values of {name!r} ({v})")
        if spec.tiers and abs(v) > spec.tiers[-1][0]:
            problems.append(f"tiers: {name!r} has {v} points, beyond the last tier ({spec.tiers[-1][0]})")
    if not spec.intercept_range[0] <= card.intercept <= spec.intercept_range[1]:
        problems.append(f"intercept_range ({card.intercept})")
    if spec.max_size is not None and card.size > spec.max_size:
        problems.append(f"max_size={spec.max_size} (size {card.size})")
    labels = np.where(data.y == 1, data.positive, data.negative)
    m = card.metrics(data.X, labels, sample_weight=data.weight)
    if spec.max_fpr is not None and m.fpr > spec.max_fpr + 1e-12:
        problems.append(f"max_fpr={spec.max_fpr} (FPR {m.fpr:.4f})")
    if spec.min_tpr is not None and m.tpr < spec.min_tpr - 1e-12:
        problems.append(f"min_tpr={spec.min_tpr} (TPR {m.tpr:.4f})")
    used = {n for n, v in coefs.items() if v != 0}
    for c in spec.constraints:
        if c.kind == "needs":
            ok = not (used & set(c.features)) or set(c.targets) <= used
        elif c.kind == "at_most":
            ok = len(used & set(c.features)) <= c.k
        else:
            ok = len(used & set(c.features)) >= c.k
        if not ok:
            problems.append(c.describe())
    reversed_ = set(spec.group_reversed)
    for g, members in spec.groups.items():
        in_use = [n for n in members if coefs.get(n, 0) != 0]
        if spec.max_rules_per_group is not None and len(in_use) > spec.max_rules_per_group:
            problems.append(f"max_rules_per_group={spec.max_rules_per_group} (group {g!r} uses {len(in_use)})")
        if spec.group_signs_agree:
            oriented = [(-1 if n in reversed_ else 1) * coefs[n] for n in in_use]
            if any(v > 0 for v in oriented) and any(v < 0 for v in oriented):
                problems.append(f"group_signs_agree (group {g!r} mixes signs)")
    if (card.family == "risk") != (spec.loss == "logistic"):
        problems.append(f"loss={spec.loss!r} but the card is of family {card.family!r}")
    if card.family == "m_of_n":
        pts = [v for v in card.coefficients if v != 0]
        if len(set(pts)) > 1 or any(v < 0 for v in pts):
            problems.append(f"m_of_n: every rule in the table must carry the same positive points (got {sorted(set(pts))})")
        non_binary = [n for n, b in zip(data.feature_names, data.binary) if not b and coefs.get(n, 0) != 0]
        if non_binary:
            problems.append(f"m_of_n: rules must be 0/1 features, not {non_binary}")
    return problems


# -- infeasibility diagnosis -------------------------------------------------------------------
def _relaxable(spec: Spec) -> list[tuple[str, Any, str]]:
    """(field, key, description) of every constraint a user could drop."""
    items: list[tuple[str, Any, str]] = []
    if spec.max_fpr is not None:
        items.append(("max_fpr", None, f"max_fpr={spec.max_fpr:g}"))
    if spec.min_tpr is not None:
        items.append(("min_tpr", None, f"min_tpr={spec.min_tpr:g}"))
    if spec.max_size is not None:
        items.append(("max_size", None, f"max_size={spec.max_size}"))
    items += [("require", f, f"require {f!r}") for f in spec.require]
    items += [("exclude", f, f"exclude {f!r}") for f in spec.exclude]
    items += [("lock", f, f"lock {f!r}={v}") for f, v in spec.lock.items()]
    items += [("signs", f, f"sign {s!r} on {f!r}") for f, s in spec.signs.items()]
    items += [("values", f, f"values of {f!r} in {list(v)}") for f, v in spec.values.items()]
    items += [("coef_ranges", f, f"points range of {f!r} {lo}..{hi}") for f, (lo, hi) in spec.coef_ranges.items()]
    items += [("constraints", i, c.describe()) for i, c in enumerate(spec.constraints)]
    if spec.max_rules_per_group is not None:
        items.append(("max_rules_per_group", None, f"max_rules_per_group={spec.max_rules_per_group}"))
    if spec.group_signs_agree:
        items.append(("group_signs_agree", None, "group_signs_agree"))
    if tuple(spec.coef_range) != DEFAULT_COEF_RANGE:
        items.append(("coef_range", None, f"points range {spec.coef_range[0]}..{spec.coef_range[1]}"))
    if tuple(spec.intercept_range) != DEFAULT_INTERCEPT_RANGE:
        items.append(("intercept_range", None, f"intercept_range {spec.intercept_range[0]}..{spec.intercept_range[1]}"))
    return items


def _without(spec: Spec, dropped: list[tuple[str, Any, str]]) -> Spec:
    d = spec.to_dict()
    constraints = list(spec.constraints)
    drop_idx = set()
    for field_name, key, _ in dropped:
        if field_name in ("max_fpr", "min_tpr", "max_size", "max_rules_per_group"):
            d[field_name] = None
        elif field_name == "group_signs_agree":
            d[field_name] = False
        elif field_name == "coef_range":
            d[field_name] = list(DEFAULT_COEF_RANGE)
        elif field_name == "intercept_range":
            d[field_name] = list(DEFAULT_INTERCEPT_RANGE)
        elif field_name in ("require", "exclude"):
            d[field_name] = [f for f in d[field_name] if f != key]
        elif field_name == "constraints":
            drop_idx.add(key)
        else:
            d[field_name] = {k: v for k, v in d[field_name].items() if k != key}
    d["constraints"] = [c for i, c in enumerate(constraints) if i not in drop_idx]
    return make_spec(**d)


def _feasible(data: Dataset, spec: Spec, time_limit: float, cancel: threading.Event | None) -> bool:
    try:
        spec.check_data(data.feature_names, data.n_samples)
    except ValueError:
        return False
    form = build_formulation(data, spec)
    result = solve_formulation(form, time_limit=time_limit, threads=spec.threads, feasibility_only=True, cancel=cancel)
    return result.status != "infeasible"


def find_conflicts(data: Dataset, spec: Spec, time_limit: float = 10.0,
                   cancel: threading.Event | None = None) -> list[str]:
    """A minimal set of constraints that cannot hold together (deletion filter).

    Drop each constraint in turn; if the rest is still infeasible the dropped
    one is not needed for the clash and stays out. What remains is irreducible:
    removing any one of its members makes the problem feasible. If ``cancel``
    is set midway, the set found so far is returned: it still clashes, but may
    not be minimal.
    """
    items = _relaxable(spec)
    keep = list(items)
    for item in items:
        if cancel is not None and cancel.is_set():
            break
        trial = [k for k in keep if k is not item]
        dropped = [k for k in items if k not in trial]
        if not _feasible(data, _without(spec, dropped), time_limit, cancel):
            keep = trial
    return [desc for _, _, desc in keep]
