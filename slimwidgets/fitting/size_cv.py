"""The card's size chosen by cross-validation inside ``fit`` (the ``size_cv`` option).

An exact fit at a fixed size minimizes training error among cards of that size; on small
noisy tables the best card of 5 rules often scores worse on new rows than a card of 2 or 3.
With ``size_cv=K``, ``fit`` first splits the training rows into K stratified folds (shuffled
with :data:`SEED`, so the choice repeats), fits every size from 1 to the cap (``max_size``, or
:data:`LARGEST_SIZE`) on each fold's training part under the same settings (smallest first, each
started from the card of the size before: a card of k rules is a card of at most k + 1, so a
short time limit does not start a larger size from scratch), and keeps the size
with the lowest mean held-out score (ties go to the smaller size). The card is then solved
exactly at that size on all the rows; its "solved for" line says the size was chosen so.

The held-out score is the card family's
(:meth:`~slimwidgets.core.card_family.CardFamily.held_out_score`): a decision card's error, a
risk card's log-loss (the error would ask a risk card only on which side of 50 % each risk
falls), each row weighed as the fit weighs it. :func:`slimwidgets.fit_cv` compares the same
score with the same rule (:func:`smallest_best`). The rows keep the names ``test_error`` and
``train_error`` for either score; ``measure`` names it.

When ``fit`` makes the rules of a raw table itself, the same folds also choose how many
candidate cut points each numeric column gets (:data:`CUT_GRID`: 3 or 9, round values near
the quartiles or the deciles; :func:`choose_cuts_and_size`): few suit small noisy tables, more
suit tables whose signal sits at a precise cut, and which one a table is only its held-out
rows can tell (benchmarks/README.md, "Cards from raw tables"). More cut points must beat fewer
by more than one standard error over the folds: on noisy tables the larger table's lowest
held-out error is often luck.

Each of those fits is an ordinary exact fit, re-checked like any other; only the *choice* of
size uses held-out rows. They run through joblib (``n_jobs``) with a progress bar for long work.
Each ends on counted work, never on seconds: its first local search on rows x moves, its support
scan on :data:`FOLD_WORK` (word-ops and walk steps), with no search beside it (two threads' race
would decide its card). A risk card's fold fit ends on the supports its search rounds and the
boxes its branch and bound by supports looks at, with no cutting planes (HiGHS stops on
seconds). A fold fit not proven within that work keeps its best card (status "feasible", a risk
card's "heuristic"). So the same table gives the same fold cards, the same choice and the same
card at any machine load (:func:`fold_work`). Seconds are only a safety net far above that work:
one deadline, :data:`SHARE` of the limit counted from ``fit``'s call (building the rules counts;
with no limit, :data:`FOLD_SECONDS` per fold fit): no fold, no size and no further table of cut
points is started after it, and a fold fit it ended (status "time_limit": its card would be the
load's) leaves its fold out. A choice then rests on the folds whose every size was fit in time;
with fewer than :data:`MIN_FOLDS` of them there is no choice (the size is the cap, the cut
points the fewest) and the choice says so in ``skipped``, so the final solve keeps its time.

A table of more than :data:`CV_ROWS` rows is cross-validated on a class-stratified sample of
that many rows (drawn with :data:`SEED`; the choice says how many): the size of a card is
told apart on fifty thousand rows as well as on a million, and each fold fit's fixed cost stays
that of a modest table. The card itself is solved on all rows.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ..core.family import family_of_loss
from ..core.spec import Spec
from ..solvers.scan import ScanLimits
from .jobs import check_n_jobs, progress_bar, run_jobs

__all__ = [
    "choose_size",
    "choose_cuts_and_size",
    "stratified_folds",
    "smallest_best",
    "size_candidates",
    "SizeChoice",
    "LARGEST_SIZE",
    "SEED",
    "SHARE",
    "FOLD_SECONDS",
    "MIN_SECONDS",
    "CUT_GRID",
    "CV_ROWS",
    "MIN_FOLDS",
    "FOLD_WORK",
    "FoldWork",
    "fold_work",
]

#: The largest size tried when no ``max_size`` is given (clinical scores rarely use more).
LARGEST_SIZE = 5
#: The folds are shuffled with this seed: the same table gives the same folds and choice.
SEED = 0
#: The share of ``time_limit`` the fold fits may take at most (the final solve gets the rest).
SHARE = 0.6
#: Seconds each fold fit may take when the fit has no time limit: a safety net far above the
#: time its work (:data:`FOLD_WORK`) takes, which is what ends it.
FOLD_SECONDS = 10.0


#: The supports a risk card's fold fit's search may round on a ladder (its own end takes up to
#: 70 on the raw tables of benchmarks/README.md, most of them swaps): its greedy pass and the
#: start of its full beam. The branch and bound after it proves the best card from any start,
#: within its nodes; 8 rather than 25 rounds took a quarter to two thirds less CPU on those
#: tables, every fold fit still proven and the same sizes chosen.
SEARCH_ROUNDS = 8
#: The boxes of points a risk card's fold fit's branch and bound may look at (below a thousand
#: in the raw tables' fold fits).
TREE_NODES = 20_000


@dataclass(frozen=True)
class FoldWork:
    """The work a fold fit may do, counted, never timed, so that the same table gives the same
    fold cards at any machine load: its first local search's sweeps of every rule over every row
    (a warm start from the size before has done most of it), then its support scan's word-ops
    and walk steps (:class:`~slimwidgets.solvers.scan.ScanLimits`); a risk card's fold fit
    (``loss="logistic"``) rounds at most ``search_rounds`` supports on a ladder in its search
    (:func:`~slimwidgets.solvers.logistic.search_risk`), then its branch and bound by supports
    looks at most at ``tree_nodes`` boxes of points
    (:func:`~slimwidgets.solvers.risk_branch_and_bound.prove_by_supports`)."""

    search_sweeps: int
    scan: ScanLimits
    search_rounds: float = math.inf
    tree_nodes: float = math.inf


#: Each fold fit's work (~0.05-0.5 s on a quiet core; benchmarks/README.md).
FOLD_WORK = FoldWork(
    search_sweeps=5,
    scan=ScanLimits(scan_work=3e7, walk_work=5e8),
    search_rounds=SEARCH_ROUNDS,
    tree_nodes=TREE_NODES,
)
#: Candidate cut points per numeric column tried beside the sizes when ``fit`` makes the rules
#: itself: few (round values near the quartiles) suit small noisy tables, more (near the
#: deciles, still rounded) tables whose signal sits at a precise cut (benchmarks/README.md).
CUT_GRID = (3, 9)
#: Rows the folds are drawn from: a larger table is cross-validated on a class-stratified sample.
CV_ROWS = 50_000
#: Folds whose every size was fit within the time that a choice needs (fewer: no choice).
MIN_FOLDS = 2


_FOLD_WORK: ContextVar[FoldWork | None] = ContextVar("fold_work", default=None)
# one fold's support scan work measured so far, carried from each size to the next
_FOLD_SCAN_COST: ContextVar[dict | None] = ContextVar("fold_scan_cost", default=None)


def fold_work() -> FoldWork | None:
    """The work budget of the fold fit running in this context (:data:`FOLD_WORK`), or None
    outside the fold fits: the fit driver reads it to end the proof on counted work.

    Returns
    -------
    FoldWork or None
        The work a fold fit may do.

    Examples
    --------
    >>> fold_work() is None
    True
    >>> with _counted_work(FOLD_WORK):
    ...     fold_work() == FOLD_WORK
    True
    """
    return _FOLD_WORK.get()


def fold_scan_cost() -> dict | None:
    """One fold's support-scan work measured so far (``ops``, ``per_support``), carried from
    each size's fit to the next (:func:`slimwidgets.solvers.scan.solve_by_scan`'s ``cost``), or
    None outside the fold fits."""
    return _FOLD_SCAN_COST.get()


@contextmanager
def _counted_work(limits: FoldWork, cost: dict | None = None) -> Iterator[None]:
    """Fits in this block are fold fits that end on ``limits`` (:func:`fold_work`), sharing
    ``cost`` (:func:`fold_scan_cost`)."""
    token, measured = _FOLD_WORK.set(limits), _FOLD_SCAN_COST.set(cost)
    try:
        yield
    finally:
        _FOLD_WORK.reset(token)
        _FOLD_SCAN_COST.reset(measured)


def size_candidates(spec: Spec, n_features: int) -> list[int]:
    """The sizes tried: 1 to ``max_size`` (or :data:`LARGEST_SIZE`), at most the number of rules,
    and at least as many as ``require`` names (a smaller card cannot hold them)."""
    top = LARGEST_SIZE if spec.max_size is None else spec.max_size
    top = max(1, min(top, n_features))
    return list(range(max(1, len(spec.require)), top + 1))


class SizeChoice(dict):
    """What the choice found (kept in ``card.details["size_cv"]``): ``folds``, ``seed``,
    ``measure`` (the family's held-out score: ``"error"``, ``"log-loss"``), ``chosen``,
    ``work_per_fit`` (each fold fit's work, :data:`FOLD_WORK`), and ``candidates`` (per size:
    mean and std of the held-out score over folds, mean training score, how many fold fits were
    proven optimal, or ``failed`` with the reason); with the cut points chosen too, ``n_cuts``,
    ``by_n_cuts`` (each number tried -> its best mean held-out error) and ``within`` (the one
    standard error allowed). With every fold fit proven, the choice depends on the table alone."""


def _fold_rows(y: np.ndarray, folds: int) -> list[tuple[np.ndarray, np.ndarray]]:
    fewest = (
        int(np.bincount(np.unique(y, return_inverse=True)[1]).min())
        if len(np.unique(y)) == 2
        else 0
    )
    if fewest < folds:
        raise ValueError(
            f"size_cv={folds} needs at least {folds} rows of each class; the smaller class has "
            f"{fewest} (give max_size instead, or fewer folds)"
        )
    return stratified_folds(y, folds, SEED)


def stratified_folds(
    labels: np.ndarray, folds: int, seed: int | None
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The folds of every choice by cross-validation (``fit``'s ``size_cv``,
    :func:`slimwidgets.fit_cv`, :func:`slimwidgets.cross_validate`): stratified K-fold over the
    rows, shuffled with ``seed`` (None: in row order), as ``(training rows, held-out rows)``.

    Classes are told apart by their order of first appearance, so any two encodings of the same
    labels (0/1, -1/+1, text) give the same folds.

    Parameters
    ----------
    labels : numpy.ndarray
        One label per row.
    folds : int
        K, at most the rows of the smaller class.
    seed : int or None
        Shuffles the rows of each class before they are dealt out.

    Returns
    -------
    list of tuple of numpy.ndarray
        Per fold, its training rows and its held-out rows.

    Examples
    --------
    >>> y = np.array([0, 1] * 4)
    >>> [test.tolist() for _, test in stratified_folds(y, 2, None)]
    [[0, 1, 2, 3], [4, 5, 6, 7]]
    >>> a, b = stratified_folds(y, 2, 0), stratified_folds(np.where(y == 1, 1, -1), 2, 0)
    >>> all((t1 == t2).all() for (_, t1), (_, t2) in zip(a, b))
    True
    """
    from sklearn.model_selection import StratifiedKFold

    split = StratifiedKFold(n_splits=folds, shuffle=seed is not None, random_state=seed)
    return list(split.split(np.zeros(len(labels)), labels))


def smallest_best(rows: list[dict]) -> dict | None:
    """The rule of every choice by cross-validation: of the candidates (sparsest first) fit on
    every fold, the sparsest whose mean held-out score (``test_error``: an error or a log-loss)
    is the lowest (within 1e-12: errors are sums of 1/n steps); None when every candidate failed
    on some fold.

    Parameters
    ----------
    rows : list of dict
        Per candidate, sparsest first: its ``test_error``, and ``failed`` (the reason) when it
        could not be fit on some fold.

    Returns
    -------
    dict or None
        The chosen row.

    Examples
    --------
    >>> rows = [{"max_size": 1, "failed": "no card"}, {"max_size": 2, "test_error": 0.25},
    ...         {"max_size": 3, "test_error": 0.25}, {"max_size": 4, "test_error": 0.3}]
    >>> smallest_best(rows)["max_size"], smallest_best(rows[:1])
    (2, None)
    """
    usable = [r for r in rows if r.get("failed") is None]
    if not usable:
        return None
    best = min(r["test_error"] for r in usable)
    return next(r for r in usable if r["test_error"] <= best + 1e-12)


def _cv_rows(y: np.ndarray) -> np.ndarray | None:
    """The rows the folds are drawn from when ``y`` has more than :data:`CV_ROWS`: a sample of
    that many, each class keeping its share (seeded, sorted); None for all rows."""
    if len(y) <= CV_ROWS:
        return None
    rng = np.random.default_rng(SEED)
    picked = []
    for label in np.unique(y):
        rows = np.flatnonzero(y == label)
        picked.append(rng.choice(rows, max(1, round(CV_ROWS * len(rows) / len(y))), replace=False))
    return np.sort(np.concatenate(picked))


def _fold_path(
    fit: Callable,
    X: pd.DataFrame,
    y: np.ndarray,
    weight: np.ndarray | None,
    groups: Any,
    train: np.ndarray,
    test: np.ndarray,
    specs: list[Spec],
    positive: Any,
    deadline: float | None = None,
) -> list:
    """One fold, every size in turn (smallest first), each fit started from the card of the size
    before (a card of k rules is a card of at most k + 1): per size, the held-out and training
    error (weighted as the fit weighs rows) and whether the card was proven optimal, or why it
    could not be fit; None for a size not started because ``deadline`` had passed (its fit
    gets at most the time to it), or whose fit the seconds ended (status ``"time_limit"``)."""
    w_train = None if weight is None else weight[train]
    g_train = None if groups is None else np.asarray(groups)[train]
    out: list[str | tuple[float, float, bool] | None] = []
    warm, cost = None, {}  # the scan's measured cost, carried from each size to the next
    for spec in specs:
        left = math.inf if deadline is None else deadline - time.perf_counter()
        if left <= 0:
            out.append(None)
            continue
        if spec.time_limit is not None and left < spec.time_limit:
            spec = replace(spec, time_limit=max(left, MIN_SECONDS))
        try:
            with warnings.catch_warnings(), _counted_work(FOLD_WORK, cost):
                warnings.simplefilter(
                    "ignore"
                )  # a fold's degenerate card or box note is the fold's business
                card = fit(
                    X.iloc[train],
                    y[train],
                    positive=positive,
                    sample_weight=w_train,
                    spec=spec,
                    rules=False,
                    sensitive_features=g_train,
                    warm_start=warm,
                )
        except (
            ValueError,
            RuntimeError,
        ) as problem:  # InfeasibleError, NoSolutionError: the size fails here
            out.append(str(problem).splitlines()[0][:200])
            continue
        if card.status == "time_limit":  # the safety net, not the work, ended it: load decided
            out += [None] * (len(specs) - len(out))  # so this fold is not part of the choice
            break
        warm = card
        out.append(
            (
                _score(card, X, y, weight, test, spec),
                _score(card, X, y, weight, train, spec),
                card.status == "optimal",
            )
        )
    return out


def _score(
    card, X: pd.DataFrame, y: np.ndarray, weight: np.ndarray | None, rows: np.ndarray, spec: Spec
) -> float:
    """The card's score on ``rows`` as its family scores held-out rows (a decision card's error,
    a risk card's log-loss), each row weighed as the fit of ``spec`` weighs it."""
    return family_of_loss(spec.loss).held_out_score(
        card,
        X.iloc[rows],
        y[rows],
        None if weight is None else weight[rows],
        spec.class_weights,
    )


def choose_size(
    fit: Callable,
    X: pd.DataFrame,
    y: Any,
    spec: Spec,
    *,
    positive: Any = None,
    sample_weight: Any = None,
    groups: Any = None,
    n_jobs: int | None = None,
    progress: bool | None = None,
    deadline: float | None = None,
    said: str = "",
) -> tuple[int, SizeChoice]:
    """The size with the lowest mean held-out score (the family's: error, log-loss) over
    ``spec.size_cv`` folds of ``X`` (a 0/1 table of rules), and what was found. ``fit`` is
    :func:`slimwidgets.fit`, passed in (it calls this). ``positive`` must name the positive
    label; ``y`` holds the labels ``card.predict`` gives. With a time limit no fold fit starts
    after ``deadline`` (a ``time.perf_counter()`` value; by default :data:`SHARE` of the limit
    from now). ``said``: what the progress bar adds to its words (which table of rules these
    are)."""
    check_n_jobs(n_jobs)
    y = np.asarray(y)
    weight = None if sample_weight is None else np.asarray(sample_weight, dtype=float)
    n_rows, sample = len(y), _cv_rows(y)
    if sample is not None:  # a large table: its folds are drawn from a sample of its rows
        X, y = X.iloc[sample], y[sample]
        weight = None if weight is None else weight[sample]
        groups = None if groups is None else np.asarray(groups)[sample]
    splits = _fold_rows(y, spec.size_cv)
    sizes = size_candidates(spec, X.shape[1])
    k = len(splits)
    # each fold fit ends on its work (FOLD_WORK); its seconds are a safety net: the time to the
    # deadline, or FOLD_SECONDS with no limit
    per_fit = FOLD_SECONDS if spec.time_limit is None else SHARE * spec.time_limit
    specs = [replace(spec, max_size=s, size_cv=None, time_limit=per_fit) for s in sizes]
    if spec.time_limit is not None and deadline is None:
        deadline = time.perf_counter() + per_fit
    # what the time goes to, on screen: one step per fold, each fold fitting every size
    measure = family_of_loss(spec.loss).held_out_measure
    bar = progress_bar(
        progress,
        k,
        f"choosing the size (1 to {sizes[-1]} rules) by CV on held-out {measure}{said}",
        "fold",
    )
    paths = _run(fit, X, y, weight, groups, splits, specs, positive, n_jobs, bar, deadline)
    done = [path for path in paths if all(r is not None for r in path)]  # every size fit in time
    about: dict[str, Any] = dict(
        folds=k, seed=SEED, measure=measure, work_per_fit=asdict(FOLD_WORK)
    )
    if sample is not None:
        about["rows"] = {"used": len(y), "of": n_rows}
    if len(done) < min(MIN_FOLDS, k):
        return sizes[-1], SizeChoice(
            about,
            chosen=sizes[-1],
            candidates=[],
            skipped=(
                f"no time for the size CV within the time limit ({len(done)} of {k} folds fit in "
                f"time): the size is the largest tried, {sizes[-1]}"
            ),
        )
    if len(done) < k:
        about["folds_in_time"] = len(done)
    rows = [_size_row(s, [path[i] for path in done]) for i, s in enumerate(sizes)]
    best = smallest_best(rows)
    # with no size fit on every fold, the final fit at the cap says what is wrong, in its words
    chosen = sizes[-1] if best is None else best["max_size"]
    return chosen, SizeChoice(about, chosen=chosen, candidates=rows)


def choose_cuts_and_size(
    fit: Callable,
    raw: Any,
    y: Any,
    options: dict,
    cuts: Any,
    spec: Spec,
    *,
    positive: Any = None,
    sample_weight: Any = None,
    groups: Any = None,
    n_jobs: int | None = None,
    progress: bool | None = None,
    deadline: float | None = None,
    made: tuple | None = None,
    rules_seconds: float = 0.0,
) -> tuple:
    """The number of candidate cut points per numeric column (:data:`CUT_GRID`, or its first
    alone for a card family that does not choose them:
    :attr:`~slimwidgets.core.card_family.CardFamily.chooses_cuts_by_cv`) and the size,
    chosen together by the same folds: for each number, ``fit``'s own rules of ``raw`` with that
    many candidates and :func:`choose_size` on them (each gets a part of the time in proportion
    to its number of rules); the
    fewest cut points whose best mean held-out error is within one standard error of the lowest
    wins (``within``: that standard error, the fold std of the lowest over the root of the folds),
    with its best size. ``options`` are fit's keyword options before rules were made (variables'
    names standing for their rules), ``spec`` the spec made of them. Returns ``(0/1 table, fitted
    builder, spec with the chosen size, SizeChoice)``; the choice names ``n_cuts`` and keeps the
    best mean held-out error of each number tried in ``by_n_cuts`` (a number whose rules lack a
    rule the options name, such as ``require=["age >= 66"]``, is not tried).

    ``made``: the ``(table, builder, options)`` ``fit`` made already (its builder's number of cut
    points is not built again). With a time limit nothing starts after ``deadline``: a further
    table is built only when its rules (about ``rules_seconds``, what ``fit``'s took) end by it."""
    tables, seen, untried = [], set(), []
    grid = CUT_GRID if family_of_loss(spec.loss).chooses_cuts_by_cv else CUT_GRID[:1]
    for n in grid:
        if made is not None and made[1].n_cuts == n:
            X, builder, opts = made
            made_spec = _spec_of(opts, spec.size_cv, X)
        elif tables and deadline is not None and time.perf_counter() + rules_seconds > deadline:
            untried.append(n)  # no time to build its rules, let alone to fit its folds
            continue
        else:
            try:
                X, builder, opts = _rules_with(raw, options, cuts, n)
                made_spec = _spec_of(opts, spec.size_cv, X)
            except (ValueError, KeyError):  # the options name a rule these cut points do not make
                if n == CUT_GRID[0]:
                    # the builder's default: fit made these rules already, so this cannot happen
                    raise
                continue
        if tuple(X.columns) not in seen:  # the user's cuts on every column: one table, one choice
            seen.add(tuple(X.columns))
            tables.append((n, X, builder, made_spec))
    tried = _cv_each_table(
        fit,
        tables,
        y,
        spec,
        deadline,
        positive=positive,
        sample_weight=sample_weight,
        groups=groups,
        n_jobs=n_jobs,
        progress=progress,
    )
    (_, n, X, builder, chosen, choice), se = _fewest_cuts_within_one_se(tried)
    by_n = {str(t[1]): None if t[0] == math.inf else t[0] for t in tried}
    extra = {"untried": untried} if untried else {}
    return X, builder, chosen, SizeChoice(choice, n_cuts=n, by_n_cuts=by_n, within=se, **extra)


def _rules_with(raw: Any, options: dict, cuts: Any, n: int) -> tuple:
    """``fit``'s own rules of ``raw`` with ``n`` candidate cut points per numeric column."""
    from ..core.rules import RuleBuilder, rules_from_options

    return rules_from_options(raw, {**options, "rules": RuleBuilder(cuts=cuts, n_cuts=n)})


def _spec_of(options: dict, folds: int | None, X: pd.DataFrame) -> Spec:
    """The spec of ``options`` for the rules ``X`` (checked against them: a ``ValueError`` or
    ``KeyError`` when they name a rule ``X`` lacks)."""
    from ..core.spec import make_spec

    made = make_spec(**{**options, "size_cv": folds})
    made.check_data(list(X.columns), len(X))
    return made


def _cv_each_table(
    fit: Callable, tables: list, y: Any, spec: Spec, deadline: float | None, **how: Any
) -> list:
    """:func:`choose_size` on each table in turn: ``(best mean held-out error, n, X, builder, spec
    at the chosen size, choice)``. Every fold fit ends on the same counted work
    (:data:`FOLD_WORK`), so neither table's held-out error depends on the time it got; the one
    ``deadline`` (a safety net) holds for both."""
    tried = []
    for n, X, builder, spec_n in tables:
        said = f", {n} cut points per numeric variable" if len(tables) > 1 else ""
        size, choice = choose_size(
            fit,
            X,
            y,
            replace(spec_n, time_limit=spec.time_limit),
            deadline=deadline,
            said=said,
            **how,
        )
        best = min(
            (r["test_error"] for r in choice["candidates"] if "failed" not in r), default=math.inf
        )
        tried.append((best, n, X, builder, replace(spec_n, max_size=size), choice))
    return tried


def _fewest_cuts_within_one_se(tried: list[tuple]) -> tuple:
    """Of ``(best error, n_cuts, ...)`` in growing ``n_cuts``: the fewest cut points whose best
    mean held-out error is within one standard error (over folds) of the lowest, and that
    standard error: more cut points must earn their place by more than the folds' noise (the
    one-standard-error rule)."""
    lowest = min(tried, key=lambda t: round(t[0], 12))
    if lowest[0] == math.inf:
        return lowest, 0.0
    row = next(r for r in lowest[5]["candidates"] if r["max_size"] == lowest[5]["chosen"])
    se = (
        row["test_error_std"] / math.sqrt(lowest[5]["folds"])
        if math.isfinite(row["test_error_std"])
        else 0.0
    )
    return next(t for t in tried if t[0] <= lowest[0] + se + 1e-12), se


#: The least time a fold fit is given as its safety net.
MIN_SECONDS = 0.05


def _run(fit, X, y, weight, groups, splits, specs, positive, n_jobs, bar, deadline) -> list:
    """Every fold's fits (:func:`_fold_path`), in order, through joblib when ``n_jobs`` asks,
    moving ``bar`` (or None) one step per fold; no fit starts after ``deadline`` (or None)."""
    calls = (
        (fit, X, y, weight, groups, train, test, specs, positive, deadline)
        for train, test in splits
    )
    return run_jobs(_fold_path, calls, n_jobs, bar)


def _size_row(size: int, results: list) -> dict:
    failures = [r for r in results if isinstance(r, str)]
    if failures:
        return {
            "max_size": size,
            "failed": f"{len(failures)} of {len(results)} folds: {failures[0]}",
        }
    test = np.array([r[0] for r in results])
    return {
        "max_size": size,
        "test_error": float(test.mean()),
        "test_error_std": float(test.std(ddof=1)),
        "train_error": float(np.mean([r[1] for r in results])),
        "optimal_folds": sum(r[2] for r in results),
    }
