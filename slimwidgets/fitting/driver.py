"""``fit``: data + options -> an exactly optimized, re-checked scoring system."""

from __future__ import annotations

import functools
import math
import threading
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import numpy as np

from ..core.card_family import CardFamily
from ..core.data import Dataset, group_column_apart, outcome_values, prepare_data
from ..core.family import DECISION, RISK, TIME_TO_EVENT, family_for, family_of_loss
from ..core.formulation import Formulation
from ..core.groups import check_group_settings
from ..core.patterns import Patterns
from ..core.rules import rules_from_options
from ..core.scoring import FAMILIES, ScoringSystem
from ..core.spec import Spec, make_spec
from ..core.status import DegenerateCardWarning, degeneracy
from ..solvers.backends.mip import solve_formulation
from ..solvers.base import FitStop, Incumbent, SolveResult, relative_gap
from ..solvers.decomposition import size_split, solve_by_size
from ..solvers.exhaustive import solve_by_enumeration, work_by_size
from ..solvers.lexicographic import prove_dominant
from ..solvers.polish import polish
from ..solvers.scan import ScanLimits, scan_applicable
from ..solvers.search import local_search, warm_up
from . import size_cv
from .cards import (
    card_from_result,
    limits_in_user_units,
    not_binary_columns,
    scan_declined,
    smallest_form,
)
from .checks import box_limits, check_card
from .conflicts import find_conflicts
from .errors import BoxWarning, InfeasibleError, NoSolutionError
from .group_floor import group_free_floor
from .large import cluster_sample_card, fit_on_a_sample, is_dask, read_large, searched_on_a_sample
from .progress import fit_progress, say_first_card
from .risk_groups import fit_risk_by_group
from .side_search import SideSearch
from .size_cv import choose_cuts_and_size, choose_size
from .survival_driver import fit_survival

__all__ = [
    "fit",
    "fit_dataset",
    "InfeasibleError",
    "NoSolutionError",
    "BoxWarning",
    "check_card",
    "find_conflicts",
    "box_limits",
]


HEURISTIC_SECONDS = 0.3
# the first local search ends on counted work: about this many sweeps of every rule over every
# row (its card then rarely moves: benchmarks/README.md), and at most FIRST_SEARCH_MOST rows x
# moves (about 1 s on a quiet core) on a large table; its seconds are only a safety net
FIRST_SEARCH_SWEEPS, FIRST_SEARCH_MOST = 50, 5e7
# a table of more rows or variables than these gets a first card before its size choice
FIRST_CARD_ROWS, FIRST_CARD_VARIABLES = 1000, 10
# seconds the solvers get at least when the time limit has passed before them
MIN_SECONDS = 0.01
# kept from the time limit for building and checking the card after the solvers stop
# (0.05-0.3 s on the paper's data sets, more on a loaded machine)
FINISH_SHARE, FINISH_SECONDS = 0.1, 0.5
# seconds below which the search beside the solver is not started (building it alone takes that)
SIDE_SEARCH_MIN = 0.2
# seconds a search over a wider intercept box may take to show that the user's box limits the card
PROBE_SECONDS = 0.2
# solver="auto" walks every card instead of calling the MIP solver when that takes at most
# about this many elementary steps (~0.1-0.5 s with the compiled kernel).
ENUMERATION_WORK = 2e8
# Among cards with the returned card's objective, return the one whose score separates the
# classes most widely (solvers/polish.py): never changes the objective, the status or the bound.
POLISH_TIES = True
# solver="auto" then tries the support scan (solvers/scan.py), and gives it up for the proof by
# size or the MIP once its counted work passes these (~3-5 s of scanning and ~3 s of walking
# on a quiet machine; counts, so the choice is the same at any load).
SCAN_LIMITS = ScanLimits(scan_work=1.5e9, walk_work=1.5e10)
# ... unless the walk covers all but this many sizes, each then its own MIP
# (solvers/decomposition.py), and some column is not 0/1: the scan declines on such data
# (breastcancer's 1-10 columns) after walking what the walk walks; on 0/1 rules its cell floors
# discard most supports at once
SIZE_MIPS_FIRST = 2
# Folds of the size chosen by cross-validation: the default for a raw table given
# no size (fit's docstring)
DEFAULT_SIZE_CV = 5

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class LabelsDriver:
    """The driver of a family whose cards are fitted from labels: ``fit`` reads the table (rules,
    the size by CV, the rows) as for every such family, then ``solve`` fits the prepared table.

    Parameters
    ----------
    fit : ``fit(X, y, **options)``, the reading shared by the label families.
    solve : ``solve(data, spec, *, warm_start, on_incumbent, cancel, family, on_bound,
        _started)``, this family's solve of a prepared :class:`Dataset`.

    Examples
    --------
    >>> DECISION.driver.solve.__name__, RISK.driver.solve.__name__
    ('_solve_decisions', '_solve_risk')
    """

    fit: Callable[..., ScoringSystem]
    solve: Callable[..., ScoringSystem]

    def __call__(self, X: Any, y: Any, **options: Any) -> ScoringSystem:
        return self.fit(X, y, **options)


def _asks_the_family(labels_fit: F) -> F:
    """``fit`` that hands every fit to the driver of the family its ``y`` and options read as
    (:meth:`~slimwidgets.core.card_family.CardFamily.fit`): the one way into ``fit``, with
    ``labels_fit``'s name, signature and docstring (the label families' reading)."""

    @functools.wraps(labels_fit)
    def fit(X: Any, y: Any, **options: Any) -> Any:
        return _family_of_fit(y, options).fit(X, y, **options)

    return fit  # type: ignore[return-value]


def _family_of_fit(y: Any, options: Mapping[str, Any]) -> CardFamily:
    """The family of a fit: of its ``spec``'s loss when one is given, else of ``y`` and its
    options. An unknown loss goes to the decision cards' driver, whose ``make_spec`` refuses it
    naming the known ones."""
    spec = options.get("spec")
    try:
        return family_for(y, {"loss": spec.loss} if spec is not None else options)
    except ValueError:
        return DECISION


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
    on_bound: Callable[[float], None] | None = None,
    sensitive_features: Any = None,
    rules: Any = None,
    n_jobs: int | None = None,
    progress: bool | None = None,
    cuts: Mapping[str, Sequence[float]] | None = None,
    **options: Any,
) -> ScoringSystem:
    """Learn a SLIM scoring system from ``X, y`` under operational constraints.

    Parameters
    ----------
    X : a raw table (numbers, text, categories, missing values), a 2-D array (``feature_names``),
        or a Dask DataFrame of 0/1 columns (``y`` a Dask Series partitioned like it); many 0/1
        rows: :mod:`.large`.
    y : labels with two values, or a ``Surv`` array (event, time): a time-to-event card
        (:func:`.survival_driver.fit_survival`).
    positive : the label the card predicts (default the larger, 1 or True).
    sample_weight : optional non-negative weights per row.
    feature_names : the column names when ``X`` is an array.
    spec : a ready :class:`Spec` instead of keyword options. ``loss="logistic"`` fits a risk
        card instead of a decision card (see :meth:`ScoringSystem.predict_proba`): it takes every
        option but ``margin``, ``missing`` and ``solver="cbc"`` / ``"scan"`` (refused with the
        reason); its caps hold for its decision, positive where the predicted risk is >= 50 %.
    warm_start, on_incumbent : a card to start the solver from; called with each better card.
    cancel : a ``threading.Event``; setting it stops the solve (status "interrupted").
    on_bound : called with the proven lower bound on the objective each time it rises (needs
        ``on_incumbent``).
    sensitive_features : a column name of ``X`` or one group label per row: the groups of
        ``max_fpr_by_group``, ``min_tpr_by_group``, ``max_fpr_gap``, ``max_tpr_gap``
        (:mod:`~slimwidgets.core.groups`).
    rules : how a table becomes 0/1 rules (:class:`slimwidgets.RuleBuilder`): None when a
        DataFrame has a column not 0/1, a missing value or ``cuts`` (not an array, nor the paper's
        tables of :func:`slimwidgets.datasets.load`); True always; False never; a ``RuleBuilder``
        its settings. The card applies them to raw rows; ``exclude``, ``signs``, ``penalties`` may
        name a variable.
    n_jobs, progress : ``size_cv`` fits through joblib (None: in turn); tqdm bars of the CV and,
        past 2 s, of the fit (:mod:`.progress`): None in a notebook or terminal only, True always.
        On a table of more than 1,000 rows or 10 variables, a first card is said before the size
        choice; Ctrl-C during the choice returns it (status "interrupted").
    cuts : your own cut points, ``{"age": [40, 50, 60]}``, kept exactly (others: round ones).
    **options : the spec's options (``max_fpr``, ``max_size``, ``signs``, ...): every parameter of
        :func:`slimwidgets.make_spec` (the sec. 7 models: :mod:`slimwidgets.toolbox.paper_models`).
        ``time_limit``: 30 s unless given, CV included (None: until proven), then the best card.
        ``size_cv=K``: the size is chosen among 1 to ``max_size`` (or 5) by K-fold CV, then
        solved exactly (:mod:`~slimwidgets.fitting.size_cv`); K is 5 by default when ``fit``
        builds rules given no ``max_size`` nor ``C0``.

    Returns
    -------
    ScoringSystem
        With ``status`` "optimal" only when proven; a time-limited solve returns its best card
        with ``bound`` and ``gap``. Of the cards with its objective, the one whose score separates
        the classes most widely (:mod:`slimwidgets.solvers.polish`): never another objective.

    Raises
    ------
    InfeasibleError
        When no card meets the constraints; its message names a clashing subset.
    NoSolutionError
        When the solver stops before finding any card (and, for a risk card on data with
        non-integer features, when none meeting the rules was found nor shown not to exist).

    Warns
    -----
    DegenerateCardWarning
        When the card predicts one class for every training row (the message says what to change).

    Examples
    --------
    >>> import pandas as pd, slimwidgets as sw
    >>> X = pd.DataFrame({"a": [1, 1, 0, 0, 1, 0], "b": [0, 1, 0, 1, 1, 0]})
    >>> card = sw.fit(X, [1, 1, 0, 0, 1, 0], max_size=1)
    >>> card.points, card.threshold, card.status
    ({'a': 1}, 1, 'optimal')
    """
    if spec is not None and options:
        raise TypeError(f"give either spec= or keyword options, not both (got {sorted(options)})")
    warm_up()
    started = time.perf_counter()  # the time limit covers reading the data too
    X, groups = group_column_apart(X, sensitive_features)
    X, builder, options, own_rules = _rules(X, options, rules, cuts, spec is None)
    clock = (
        started,
        time.perf_counter() - started,
        (X, builder, options),
    )  # for the CV: its start, the rules
    spec = spec if spec is not None else make_spec(**_default_size_cv(options, builder, y))
    how = dict(
        positive=positive,
        sample_weight=sample_weight,
        feature_names=feature_names,
        sensitive_features=groups,
    )
    first = _first_card(X, y, spec, how, progress, own_rules) if spec.size_cv else None
    try:
        X, builder, spec, how, choice = _size_by_cv(
            X, y, spec, how, n_jobs, progress, builder, own_rules, clock
        )
    except KeyboardInterrupt:  # Ctrl-C during the choice: the first card, said so
        if first is None:
            raise
        return _finished(first, builder, None)
    solve = dict(warm_start=warm_start, on_incumbent=on_incumbent, cancel=cancel, on_bound=on_bound)
    card = _fit_watched(
        _read_table(X, y, **how, time_limit=spec.time_limit, started=started),
        spec,
        started,
        progress,
        solve,
    )
    return _finished(card, builder, choice)


def _fit_watched(
    table: Any, spec: Spec, started: float, progress: bool | None, how: dict
) -> ScoringSystem:
    """:func:`_fit_table` with the bar of :mod:`.progress` (the best card so far, what is proven,
    the time left) where ``progress`` asks for one; ``how``: its keyword arguments."""
    watch = fit_progress(progress, spec.time_limit, started)
    if watch is None:
        return _fit_table(table, spec, started, **how)
    watch.reading(table, spec)
    how["on_incumbent"], how["on_bound"] = watch.chain(how["on_incumbent"], how["on_bound"])
    card = None
    watch.start()
    try:
        card = _fit_table(table, spec, started, **how)
    finally:  # also on Ctrl-C or an error: the bar stops, saying nothing it does not know
        watch.finish(card)
    return card


def _size_by_cv(
    X: Any,
    y: Any,
    spec: Spec,
    how: dict,
    n_jobs: int | None,
    progress: bool | None,
    builder: Any,
    own_rules: tuple | None,
    clock: tuple = (None, 0.0, None),
):
    """With ``spec.size_cv`` set: the size chosen by cross-validation (:func:`.size_cv.choose_size`)
    put into the spec as its ``max_size``; with rules ``fit`` made itself (``own_rules``: the raw
    table, the options and cuts they were made of), their number of candidate cut points too
    (:func:`.size_cv.choose_cuts_and_size`). ``clock``: (the fit's start, the seconds its rules
    took, the (table, builder, options) they made, used with ``own_rules``): the CV ends
    :data:`.size_cv.SHARE` of the time limit after the start; when it had no time to choose, the
    spec claims no CV (the choice says what was skipped). Returns
    ``(X, builder, spec, how the table is read, the choice or None)``."""
    if spec.size_cv is None:
        return X, builder, spec, how, None
    started, rules_seconds, made = clock
    deadline = (
        None
        if spec.time_limit is None or started is None
        else started + size_cv.SHARE * spec.time_limit
    )
    kw = dict(
        positive=how["positive"],
        sample_weight=how["sample_weight"],
        groups=how["sensitive_features"],
        n_jobs=n_jobs,
        progress=progress,
        deadline=deadline,
    )
    if own_rules is not None and builder is not None:
        raw, options, cuts = own_rules
        X, builder, spec, choice = choose_cuts_and_size(
            fit, raw, y, options, cuts, spec, made=made, rules_seconds=rules_seconds, **kw
        )
    else:
        X = _named_frame(X, how["feature_names"])
        size, choice = choose_size(fit, X, y, spec, **kw)
        spec = replace(spec, max_size=size)
    if choice.get("skipped"):  # no size was chosen by CV: the "solved for" line must not say so
        spec = replace(spec, size_cv=None)
    return X, builder, spec, {**how, "feature_names": None}, choice


def _first_card(
    X: Any, y: Any, spec: Spec, how: dict, progress: bool | None, own_rules: tuple | None
) -> ScoringSystem | None:
    """On a larger table (:data:`FIRST_CARD_ROWS` rows or :data:`FIRST_CARD_VARIABLES`
    variables, up to :data:`.size_cv.CV_ROWS` rows), before the size choice: the first local
    search's card at the largest size tried (its work bounded, about 1 s on a quiet core),
    checked and said on screen, with status "interrupted": the card ``fit`` returns when Ctrl-C
    stops the choice. None on a smaller table, or when the search finds no card."""
    t0 = time.perf_counter()
    variables = (own_rules[0] if own_rules is not None else X).shape[1]
    rows = len(X)
    if is_dask(X) or rows > size_cv.CV_ROWS:
        return None
    loss = family_of_loss(spec.loss).loss
    if (rows <= FIRST_CARD_ROWS and variables <= FIRST_CARD_VARIABLES) or not loss.has("problem"):
        return None  # a small table's choice is quick; a family without a program has no search
    data = prepare_data(X, y, **how)
    cap = size_cv.size_candidates(spec, data.n_features)[-1]
    first_spec = replace(spec, max_size=cap, size_cv=None)
    form = loss.problem(data, first_spec)
    found = local_search(form, time_budget=10 * HEURISTIC_SECONDS, max_work=first_search_work(form))
    if not found.feasible:
        return None
    seconds = time.perf_counter() - t0
    result = SolveResult(
        "interrupted",
        found.coefficients,
        found.intercept,
        found.objective,
        -math.inf,
        math.inf,
        seconds,
        "local search",
        message="Ctrl-C stopped the size choice: the first search's card",
    )
    card = card_from_result(data, first_spec, form, result)
    if check_card(card, data, first_spec):  # never: the search keeps to the spec
        return None
    say_first_card(progress, card, seconds)
    return card


def _finished(card: ScoringSystem, builder: Any, choice: Any) -> ScoringSystem:
    """The card with its rules (it applies them to raw rows from now on) and how its size was
    chosen, warned about when degenerate."""
    if builder is not None:
        card = replace(card, rules=builder)
    if choice is not None:
        card = replace(card, details={**card.details, "size_cv": dict(choice)})
    _warn_if_degenerate(card)
    return card


def _rules(
    X: Any, options: dict, rules: Any, cuts: Any, own: bool = True
) -> tuple[Any, Any, dict, Any]:
    """A raw table made into 0/1 rules (:func:`~slimwidgets.core.rules.rules_from_options`); a Dask
    DataFrame is taken as 0/1 rules already (building rules would read it whole). Last comes what
    the rules were made of, ``(raw table, options, cuts)``, when ``fit`` made them with its own
    settings (``rules`` None or True) and ``own`` (no spec given): the size choice may then choose
    their cut points too; else None."""
    if is_dask(X):
        return X, None, dict(options), None
    made = (X, options, cuts) if own and (rules is None or rules is True) else None
    return *rules_from_options(X, {**options, "rules": rules, "cuts": cuts}), made


def _chooses_size_by_cv(y: Any, options: dict) -> bool:
    try:
        return family_for(y, options).chooses_size_by_cv
    except ValueError:  # an unknown loss: make_spec refuses it with the known ones
        return False


def _default_size_cv(options: dict, builder: Any, y: Any) -> dict:
    """``options`` with ``size_cv`` set to :data:`DEFAULT_SIZE_CV` folds when the default applies:
    ``fit`` made rules of a raw table, the card's family chooses its size so (decision and risk
    cards: :attr:`~slimwidgets.core.card_family.CardFamily.chooses_size_by_cv`), the caller set
    none of ``max_size``, ``C0`` and ``size_cv`` (an exact card at a size the caller gives stays
    exact at it), and each class has a row for every fold (a smaller table is solved as before,
    and the "solved for" line names no CV)."""
    if (
        builder is None
        or not _chooses_size_by_cv(y, options)
        or any(name in options for name in ("max_size", "C0", "size_cv"))
    ):
        return options
    import pandas as pd

    counts = pd.Series(outcome_values(y)).value_counts()
    if len(counts) != 2 or counts.min() < DEFAULT_SIZE_CV:
        return options
    return {**options, "size_cv": DEFAULT_SIZE_CV}


def _named_frame(X: Any, feature_names: Sequence[str] | None) -> Any:
    """The table the size is chosen on, as a DataFrame with the names the card will use
    (``feature_names`` name an array's columns)."""
    import pandas as pd

    if is_dask(X):
        raise ValueError("size_cv needs the rows in memory; give max_size for a Dask table")
    if isinstance(X, pd.DataFrame):
        return X
    values = np.asarray(X)
    names = (
        list(feature_names)
        if feature_names is not None
        else [f"x{j}" for j in range(values.shape[1])]
    )
    return pd.DataFrame(values, columns=names)


def _warn_if_degenerate(card: ScoringSystem) -> None:
    """Warn (at fit's caller) when the card predicts one class for every training row; sweeps
    call fit_dataset instead: a cap of 0 % may rightly say "no" to all."""
    problem = degeneracy(card)
    if problem is not None:
        warnings.warn(problem, DegenerateCardWarning, stacklevel=3)


def _read_table(
    X: Any,
    y: Any,
    *,
    sensitive_features: Any = None,
    time_limit: float | None = None,
    started: float | None = None,
    **how: Any,
) -> Dataset | Patterns:
    """The rows to fit: the weighted distinct patterns of a large table of 0/1 rules or of a Dask
    DataFrame (:func:`.large.read_large`, a Dask frame's partitions read within the time
    limit; not with groups, whose rows must not merge), else the prepared :class:`Dataset`."""
    patterns = (
        None
        if sensitive_features is not None
        else read_large(X, y, time_limit=time_limit, started=started, **how)
    )
    return (
        patterns
        if patterns is not None
        else prepare_data(X, y, sensitive_features=sensitive_features, **how)
    )


def _fit_table(table: Dataset | Patterns, spec: Spec, started: float, **how: Any) -> ScoringSystem:
    """:func:`fit_dataset` on a prepared table; weighted patterns are fitted as the same Dataset
    when they are few, else searched on a sample and re-scored on all rows (:mod:`.large`)."""
    if isinstance(table, Dataset):
        return fit_dataset(table, spec, _started=started, **how)
    if searched_on_a_sample(table, spec):
        card = fit_on_a_sample(table, spec, started=started, **how)
    else:
        card = fit_dataset(table.dataset(), spec, _started=started, **how)
    return cluster_sample_card(card, table)


def fit_dataset(
    data: Dataset,
    spec: Spec,
    *,
    warm_start: ScoringSystem | None = None,
    on_incumbent: Callable[[Incumbent], None] | None = None,
    cancel: threading.Event | None = None,
    family: str = "slim",
    on_bound: Callable[[float], None] | None = None,
    _started: float | None = None,
) -> ScoringSystem:
    """:func:`fit` on an already prepared :class:`Dataset`.

    ``family`` labels the card (``"slim"``, or one of the sec. 7 models built by
    :mod:`slimwidgets.toolbox.paper_models`); :func:`check_card` verifies its extra rules.
    """
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")
    cards = family_of_loss(spec.loss)
    solve = getattr(cards.driver, "solve", None)
    if solve is None:
        raise TypeError(f"{cards.name} cards are fitted from X and y by fit, not from a Dataset")
    spec.check_data(data.feature_names, data.n_samples)
    check_group_settings(
        data, spec
    )  # the group caps need the data's groups, and name only groups it holds
    how = dict(warm_start=warm_start, on_incumbent=on_incumbent, cancel=cancel, on_bound=on_bound)
    return solve(data, spec, family=family, _started=_started, **how)


def _solve_risk(
    data: Dataset, spec: Spec, *, family: str, on_bound: Any, _started: float | None, **how: Any
) -> ScoringSystem:
    """A risk card of a prepared table (:func:`.risk_groups.fit_risk_by_group`); it labels its
    cards itself and tells no bound as it rises."""
    return fit_risk_by_group(data, spec, started=_started, **how)


def _solve_decisions(
    data: Dataset,
    spec: Spec,
    *,
    warm_start: ScoringSystem | None,
    on_incumbent: Callable[[Incumbent], None] | None,
    cancel: threading.Event | None,
    family: str,
    on_bound: Callable[[float], None] | None,
    _started: float | None,
) -> ScoringSystem:
    """A decision card of a checked, prepared table: the local search, the solvers that prove
    it, the card re-checked (:func:`fit_dataset`'s parameters)."""
    warm_up()
    t0 = time.perf_counter() if _started is None else _started
    # every phase stops when the caller cancels or when a solver process of this fit is lost;
    # a time-limited fit also gets one, so that its MIPs run in a child process that is killed
    # at its deadline (HiGHS in this process looks at its clock only now and then)
    cancel = None if cancel is None and spec.time_limit is None else FitStop(cancel)  # type: ignore[assignment]
    built = time.perf_counter()
    form = family_of_loss(spec.loss).loss.problem(data, spec)
    # a measure of this machine's pace on these rows now: polishing, building and checking the
    # card each take about as long as building the program did
    build_seconds = time.perf_counter() - built
    warm = None
    if warm_start is not None:
        by_name = dict(zip(warm_start.feature_names, warm_start.coefficients))
        warm = np.array([by_name.get(n, 0) for n in data.feature_names], dtype=float)
    # A fast local search gives a feasible card first (shown at once, warm start
    # for the MIP, and the answer if the time limit hits before the MIP finds one).
    # the solvers stop early enough to leave the card's own checks and figures inside the limit
    finish = (
        None
        if spec.time_limit is None
        else min(FINISH_SHARE * spec.time_limit, FINISH_SECONDS) + build_seconds
    )
    on_incumbent, report, note_bound = _reporters(form, on_incumbent, on_bound, t0)
    found = local_search(
        form,
        time_budget=_first_search_seconds(spec, finish, t0),
        warm=warm,
        on_improve=report,
        cancel=cancel,
        max_work=first_search_work(form, size_cv.fold_work()),
    )
    start = (found.coefficients.astype(float), found.intercept) if found.feasible else None
    time_left = (
        None
        if spec.time_limit is None
        else max(spec.time_limit - finish - (time.perf_counter() - t0), MIN_SECONDS)
    )
    upper = found.objective if found.feasible else math.inf
    result = (
        _prove(
            form,
            spec,
            upper,
            start,
            time_left,
            on_incumbent,
            report,
            cancel,
            not found.all_starts,
            note_bound,
            _settled_by(warm_start, spec),
        )
        if _time_for_solvers(time_left)
        else _no_time_left()
    )
    if result.status == "infeasible":
        if found.feasible:
            raise RuntimeError(
                "internal error: the solver calls a spec infeasible that the local search satisfied"
            )
        raise InfeasibleError(find_conflicts(data, spec, cancel=cancel))
    if found.feasible and (
        result.coefficients is None or found.objective < result.objective - 1e-12
    ):
        result = _search_card(result, found, cancel)
    result = _said_lost(result, cancel)  # type: ignore[arg-type]  # the FitStop made above
    if result.coefficients is None:
        raise NoSolutionError(
            f"the solver stopped ({result.message or result.status}) after "
            f"{result.solve_time:.2f} s before finding any card"
        )
    card = _card(
        data,
        spec,
        form,
        result,
        family,
        cancel,
        t0,
        build_seconds,
        () if _time_for_solvers(time_left) else ("the solvers",),
    )
    problems = check_card(card, data, spec)
    if problems:  # a bug, never a user error: refuse to hand out a card that breaks the spec
        raise RuntimeError(f"internal error: the solver's card breaks {problems}")
    for note in card.details["box_limits"]:
        warnings.warn(note, BoxWarning, stacklevel=3)
    return card


def first_search_work(form: Formulation, fold: size_cv.FoldWork | None = None) -> float:
    """The work the first local search of a fit may do, in rows x moves: it ends on this count,
    so its card is the same at any machine load.

    Parameters
    ----------
    form : Formulation
        The program the search walks.
    fold : FoldWork, optional
        A fold fit's work (:func:`.size_cv.fold_work`): its sweeps instead.

    Returns
    -------
    float
        :data:`FIRST_SEARCH_SWEEPS` (or the fold's) sweeps of every feature over every row, at
        most :data:`FIRST_SEARCH_MOST`.

    Examples
    --------
    >>> import numpy as np, slimwidgets as sw
    >>> from slimwidgets.core.data import prepare_data
    >>> from slimwidgets.core.formulation import build_formulation
    >>> data = prepare_data(np.eye(4, dtype=int), [1, -1, 1, -1], warn=False)
    >>> first_search_work(build_formulation(data, sw.make_spec()))
    800.0
    """
    n, p = form.data.X.shape
    sweeps = FIRST_SEARCH_SWEEPS if fold is None else fold.search_sweeps
    return float(min(sweeps * n * p, FIRST_SEARCH_MOST))


def _first_search_seconds(spec: Spec, finish: float | None, t0: float) -> float:
    """The first search's safety net in seconds (its work ends it first): the time left to the
    solvers, but at least a tenth of the limit (at most :data:`HEURISTIC_SECONDS`): a card at
    all is worth that much beyond a limit that reading the table took."""
    if spec.time_limit is None or finish is None:
        return 10 * HEURISTIC_SECONDS
    left = spec.time_limit - finish - (time.perf_counter() - t0)
    return max(left, min(HEURISTIC_SECONDS, spec.time_limit / 10))


def _settled_by(warm: ScoringSystem | None, spec: Spec) -> int:
    """In a fold fit (:func:`.size_cv.fold_work`, whose warm start is the card of the size before
    on the same rows), the size up to which that card is proven best under the same spec but
    its size: the first search starts from it, so no card of at most that many features beats
    the search's card. Else -1 (nothing known)."""
    if (
        warm is None
        or size_cv.fold_work() is None
        or warm.status != "optimal"
        or warm.spec.max_size is None
        or replace(warm.spec, max_size=spec.max_size) != spec
    ):
        return -1
    return warm.spec.max_size


def _reporters(form: Formulation, on_incumbent, on_bound, t0: float):
    """What the solvers report through, given the caller's callbacks: (on_incumbent, report,
    note_bound), each None when the caller passed no ``on_incumbent``. The caller hears better
    cards, or the best one with a better bound, each with the bound proven on the whole problem
    so far and its limits in the user's units; ``report`` takes a search's card,
    ``note_bound`` a bound proven on the side (passed on to ``on_bound`` when it rises)."""
    if on_incumbent is None:
        return None, None, None
    user_callback, best, bound, lock = on_incumbent, [math.inf], [-math.inf], threading.Lock()
    limits = limits_in_user_units(form)
    shown = [-math.inf]

    def on_incumbent(inc: Incumbent) -> None:  # type: ignore[no-redef]  # the caller's is user_callback
        with lock:  # the MIP and the search report from different threads
            # Every bound reported holds for the whole problem, and stays valid: a card
            # from the search carries the best one seen, not the -inf it was sent with.
            bound[0] = max(bound[0], inc.bound)
            better = inc.objective < best[0] - 1e-12
            if better or (
                inc.objective <= best[0] + 1e-12 and min(bound[0], inc.objective) > shown[0] + 1e-12
            ):
                best[0] = min(best[0], inc.objective)
                shown[0] = min(bound[0], inc.objective)
                user_callback(replace(inc, bound=shown[0], limits=limits))

    def note_bound(value: float) -> None:
        with lock:
            rose = value > bound[0]
            bound[0] = max(bound[0], value)
        if rose and on_bound is not None:
            on_bound(value)

    def report(points, intercept, objective):
        on_incumbent(Incumbent(points, intercept, objective, -math.inf, time.perf_counter() - t0))

    return on_incumbent, report, note_bound


def _time_for_solvers(time_left: float | None) -> bool:
    """Whether the solvers are started at all: not when reading the table, building the program
    and the first search took the time limit (each solver pays a start of its own, a program to
    build or a process to reach, that no deadline can cut short)."""
    return time_left is None or time_left > MIN_SECONDS


def _no_time_left() -> SolveResult:
    """The solvers' result when there was no time for them: no card of theirs and no bound (the
    first search's card answers, with status "time_limit")."""
    return SolveResult.no_card(
        "local search", message="no time left for the solvers after the first search"
    )


def _search_card(result: SolveResult, found, cancel) -> SolveResult:
    """The solver stopped without beating the first local search's card ``found``: that card,
    honestly labelled, with the solver's bound."""
    status = (
        result.status
        if result.status != "no_solution"
        else ("interrupted" if cancel is not None and cancel.is_set() else "time_limit")
    )
    bound = min(result.bound, found.objective)
    return SolveResult(
        status,
        found.coefficients,
        found.intercept,
        found.objective,
        bound,
        relative_gap(found.objective, bound),
        result.solve_time,
        result.solver,
        result.nodes,
        work_bound=result.work_bound,
    )


def _card(
    data: Dataset,
    spec: Spec,
    form: Formulation,
    result: SolveResult,
    family: str,
    cancel,
    t0: float,
    build_seconds: float = 0.0,
    skipped: tuple = (),
) -> ScoringSystem:
    """The solver's result as a card: ties polished, the user's intercept box probed, figures
    measured. Within a time limit, the polish stops early enough to leave the card's figures and
    checks (each about ``build_seconds``, the time its program took to build) inside it, and the
    probe (which builds a program first) runs only where that still leaves them the time. What
    the time limit left out (``skipped`` before, the polish and the probe here) is named in the
    card's ``details["skipped"]``."""
    end = math.inf if spec.time_limit is None else t0 + spec.time_limit
    if (
        POLISH_TIES and time.perf_counter() < end - 2 * build_seconds
    ):  # none at all once its deadline passed
        points, intercept = polish(
            form, result.coefficients, result.intercept, deadline=end - 2 * build_seconds
        )
        result = replace(result, coefficients=points, intercept=intercept)
    elif POLISH_TIES:
        skipped += ("the polish of ties",)
    result = smallest_form(form, result)  # a text variable with every level scored: one at 0
    result = replace(result, solve_time=time.perf_counter() - t0)
    probe = None
    if family in ("slim", "tilm") and not (cancel is not None and cancel.is_set()):
        left = (
            PROBE_SECONDS
            if spec.time_limit is None
            else end - time.perf_counter() - 3 * build_seconds - 0.1
        )
        probe = _wider_intercept_probe(form, result, min(PROBE_SECONDS, left))
        if left < 0.05 and spec.intercept_range is not None:
            skipped += ("the probe of a wider intercept range",)
    card = card_from_result(data, spec, form, result, family=family, probe=probe)
    return replace(card, details={**card.details, "skipped": skipped}) if skipped else card


def _prove(
    form: Formulation,
    spec: Spec,
    upper: float,
    start,
    time_left: float | None,
    on_incumbent,
    report,
    cancel,
    more_starts: bool = False,
    on_bound=None,
    warm_settled: int = -1,
) -> SolveResult:
    """Find and prove the optimum. When walking every card is not cheap: under one cap, prove
    the best TPR first (:mod:`slimwidgets.solvers.lexicographic`), reported as soon as it is
    proven; with a plain objective, try the support scan (:mod:`slimwidgets.solvers.scan`),
    which gives up when its measured work passes ``SCAN_LIMITS``. Then :func:`_prove_all`. The
    floors these prove join the final bound. ``warm_settled``: no card of at most this many
    features beats ``start`` (:func:`_settled_by`): the scan starts above them."""
    floor, settled, better, by_work = -math.inf, -1, None, -math.inf
    # group and linear rows: the walk of the whole box and the proof by size do not hold them
    grouped = form.special_rows
    if (
        grouped and spec.solver == "auto" and spec.gap == 0
    ):  # ... and the spec without them gives a floor
        t = time.perf_counter()
        floor, answer, better = group_free_floor(form, time_left, cancel, fit_dataset, start)
        if answer is not None:
            return answer
        if (
            better is not None and better[2] < upper - 1e-12
        ):  # a card the Lagrangian bounds met on the way
            start, upper = (better[0], better[1]), better[2]
            if report is not None:
                report(*better)
        if on_bound is not None and math.isfinite(floor):
            on_bound(floor)
        time_left = None if time_left is None else max(time_left - (time.perf_counter() - t), 0.01)
    works = work_by_size(form, upper) if spec.solver == "auto" and not grouped else None
    cheap = works is not None and works[-1] <= ENUMERATION_WORK  # _prove_all walks it
    # a walk and at most SIZE_MIPS_FIRST size programs left: the proof by size goes first
    split = (
        None if works is None or spec.gap != 0 or start is None else size_split(form, upper, works)
    )
    # ... except under max_variables: the scan cuts whole branches that break the
    # cap, the size MIPs do not
    by_size = (
        split is not None
        and split[1] - split[0] <= SIZE_MIPS_FIRST
        and form.max_variables is None
        and bool(not_binary_columns(form))
    )
    if (
        spec.solver == "auto"
        and not cheap
        and not grouped
        and form.lexicographic is not None
        and spec.gap == 0
        and start is not None
    ):
        t = time.perf_counter()
        # what any classifier must get wrong: shown at once
        known = min(family_of_loss(spec.loss).loss.floor(form), upper)
        if on_incumbent is not None:
            on_incumbent(Incumbent(start[0], start[1], upper, known, time.perf_counter() - t))
        share = (
            None if time_left is None else time_left / 2
        )  # the rest of the objective needs time too
        proof = prove_dominant(
            form, start, time_left=share, threads=spec.threads, cancel=cancel, known=known
        )
        if (
            proof.coefficients is not None
            and form.objective_of(proof.coefficients, proof.intercept) < upper - 1e-12
        ):
            start = (np.asarray(proof.coefficients, dtype=float), proof.intercept)
            upper = form.objective_of(*start)
        floor = min(proof.floor, upper)
        if on_bound is not None:
            on_bound(floor)
        if on_incumbent is not None:
            on_incumbent(Incumbent(start[0], start[1], upper, floor, time.perf_counter() - t))
        time_left = None if time_left is None else max(time_left - (time.perf_counter() - t), 0.01)
    if spec.solver == "scan" or (
        spec.solver == "auto" and not cheap and not by_size and _scan_fits(form, spec, start)
    ):
        t = time.perf_counter()
        scanned = _scan(
            form,
            spec,
            upper,
            start,
            time_left,
            (on_incumbent, report, cancel),
            more_starts,
            warm_settled,
        )
        if scanned.status != "declined":
            return _with_floor(scanned, floor)
        # a fold fit ends on its counted work with its best card so far (when it has one)
        if size_cv.fold_work() is not None and scanned.coefficients is not None:
            return _with_floor(replace(scanned, status="feasible"), floor)
        # declined: keep its card and its bound (what it settled), and prove another way
        if scanned.objective is not None and scanned.objective < upper - 1e-12:
            start, upper = (
                (np.asarray(scanned.coefficients, dtype=float), scanned.intercept),
                scanned.objective,
            )
        floor, settled = (
            max(floor, scanned.bound),
            scanned.settled,
        )  # the sizes it settled are not walked again
        by_work = scanned.bound  # declined on counted work: the same at any load
        if on_bound is not None:
            on_bound(floor)
        time_left = None if time_left is None else max(time_left - (time.perf_counter() - t), 0.01)
    result = _prove_all(
        form,
        spec,
        upper,
        start,
        time_left,
        on_incumbent,
        report,
        cancel,
        more_starts,
        on_bound,
        settled,
    )
    kept = _keep_better(result, better, cancel)  # the MIP may stop before it reads its start
    return replace(_with_floor(kept, floor), work_bound=by_work)


def _scan(
    form: Formulation,
    spec: Spec,
    upper: float,
    start,
    time_left: float | None,
    callbacks: tuple,
    more_starts: bool,
    settled: int = -1,
) -> SolveResult:
    """The support scan (status "declined" when auto gives it up), with the search beside it
    when time is limited: the scan works on one core, the search on the other. A fold fit
    (:func:`.size_cv.fold_work`) scans alone within its work: a search beside it would make
    its card depend on how the two threads were scheduled. ``callbacks``: (on_incumbent, report,
    cancel); ``settled``: the sizes no card of which beats ``start``."""
    on_incumbent, report, cancel = callbacks
    fold = size_cv.fold_work()
    limits = None if spec.solver == "scan" else (SCAN_LIMITS if fold is None else fold.scan)
    side = None
    if time_left is not None and start is not None and fold is None:
        side = SideSearch(form, start, upper, time_left, report, cancel, more_starts)
    try:
        scanned = family_of_loss(spec.loss).loss.scan(
            form,
            upper,
            start,
            time_left=time_left,
            cancel=cancel,
            on_incumbent=on_incumbent,
            limits=limits,
            settled=settled,
            cost=size_cv.fold_scan_cost(),
        )
    finally:
        found = None if side is None else side.stop()
    return _keep_better(scanned, found, cancel)


def _keep_better(result: SolveResult, found, cancel) -> SolveResult:
    """``result``, or the side search's card ``found`` (points, intercept, objective) with
    the result's bound when that card is better and the result is not proven optimal."""
    if (
        found is None
        or result.status == "optimal"
        or (result.coefficients is not None and found[2] >= result.objective - 1e-12)
    ):
        return result
    bound = min(result.bound, found[2])
    status = (
        result.status
        if result.status != "no_solution"
        else ("interrupted" if cancel is not None and cancel.is_set() else "time_limit")
    )
    return SolveResult(
        status,
        found[0],
        found[1],
        found[2],
        bound,
        relative_gap(found[2], bound),
        result.solve_time,
        result.solver,
        result.nodes,
    )


def _said_lost(result: SolveResult, stop: FitStop | None) -> SolveResult:
    """A fit that lost a solver process (and was not cancelled) returns its best card so far
    with status "solver_stopped" and why; a result proven before the loss keeps its status."""
    if (
        stop is None
        or stop.lost is None
        or stop.cancelled
        or result.status in ("optimal", "infeasible")
    ):
        return result
    return replace(result, status="solver_stopped", message=stop.lost)


def _with_floor(result: SolveResult, floor: float) -> SolveResult:
    """``result`` with its bound raised to ``floor``, a bound proven on the side."""
    if result.coefficients is None or floor <= result.bound:
        return result
    bound = min(floor, result.objective)
    return replace(result, bound=bound, gap=relative_gap(result.objective, bound))


def _prove_all(
    form: Formulation,
    spec: Spec,
    upper: float,
    start,
    time_left: float | None,
    on_incumbent,
    report,
    cancel,
    more_starts: bool = False,
    on_bound=None,
    settled: int = -1,
) -> SolveResult:
    """Find and prove the optimum: walk every card when the box is small; walk the small
    cards and run one MIP per larger size when only a few sizes can beat the incumbent
    (:mod:`slimwidgets.solvers.decomposition`); else run one MIP over the whole box. A
    time-limited solve has the local search beside it (:class:`.SideSearch`); the better card
    is kept, with the solver's bound. ``more_starts``: the first search ran out of time
    before trying every start, so the side search tries them. ``on_bound`` hears every rise
    of the proven bound on the whole problem.
    """
    if (
        time_left is not None and time_left <= 0.01
    ):  # the time is up: the first search's card answers
        return SolveResult(
            "no_solution", None, None, None, -math.inf, math.inf, 0.0, "local search"
        )
    works = work_by_size(form, upper) if spec.solver == "auto" and not form.special_rows else None
    if spec.solver == "enumerate" or (works is not None and works[-1] <= ENUMERATION_WORK):
        return _walk(form, upper, time_left, cancel)
    split = None
    if works is not None and spec.gap == 0 and start is not None:
        split = size_split(form, upper, works, settled)
    side = None
    if (
        time_left is not None
        and time_left > SIDE_SEARCH_MIN
        and spec.solver not in ("cbc", "pulp")
        and start is not None
    ):
        side = SideSearch(form, start, upper, time_left, report, cancel, more_starts)
    try:
        if split is not None:
            result = solve_by_size(
                form,
                upper,
                start,
                split,
                time_left=time_left,
                threads=spec.threads,
                cancel=cancel,
                on_incumbent=on_incumbent,
                on_bound=on_bound,
                latest=None if side is None else (lambda: side.best),
                settled=settled,
            )
        else:
            result = solve_formulation(
                form,
                time_limit=time_left,
                gap=spec.gap,
                threads=spec.threads,
                solver=spec.solver
                if spec.solver in ("cbc", "pulp")
                else "highs",  # through PuLP: no streams
                warm_start=start,
                on_incumbent=on_incumbent,
                cancel=cancel,
                on_bound=None if spec.solver in ("cbc", "pulp") else on_bound,
            )
    finally:
        found = None if side is None else side.stop()
    return _keep_better(result, found, cancel)


def _scan_fits(form: Formulation, spec: Spec, start) -> bool:
    """Whether "auto" tries the support scan: an exact proof with a card to beat, and nothing
    of the problem's own that keeps the scan out (:func:`.cards.scan_declined`: a linear row on
    points, which its best card per support does not check; under ``max_fpr`` / ``min_tpr`` or
    group caps and gaps a column that is not 0/1, where it cannot settle each support per
    labelling of its cells); the scan's work limits give it up when the floors are too weak."""
    return (
        spec.gap == 0
        and start is not None
        and scan_declined(form) is None
        and scan_applicable(form)
    )


def _walk(form: Formulation, upper: float, time_left: float | None, cancel) -> SolveResult:
    t0 = time.perf_counter()
    deadline = None if time_left is None else t0 + time_left
    walked = solve_by_enumeration(form, upper, deadline=deadline, cancel=cancel)
    if walked is None:
        return SolveResult.no_card("enumeration", time.perf_counter() - t0)
    if not math.isfinite(walked.objective):
        return SolveResult(
            "infeasible", None, None, None, math.inf, math.inf, walked.elapsed, "enumeration"
        )
    return SolveResult(
        "optimal",
        walked.coefficients,
        walked.intercept,
        walked.objective,
        walked.objective,
        0.0,
        walked.elapsed,
        "enumeration",
    )


def _wider_intercept_probe(form: Formulation, result: SolveResult, budget: float) -> str | None:
    """A user's intercept box can limit a card without the card's intercept at its end: raw
    columns need intercepts in the thousands to use their points at all. A short local
    search over the derived box (which never binds), started from the card, tells: a better
    card there is named, in the user's units. None when none was found (or no time)."""
    spec, (ilo, ihi) = form.spec, form.intercept_box
    if spec.intercept_range is None or budget < 0.05:
        return None
    wide = family_of_loss(spec.loss).loss.problem(form.data, replace(spec, intercept_range=None))
    if wide.intercept_box == (ilo, ihi) or result.intercept in (
        ilo,
        ihi,
    ):  # not narrower, or said already
        return None
    found = local_search(
        wide, time_budget=budget, warm=np.asarray(result.coefficients, dtype=float)
    )
    if not found.feasible or found.objective >= result.objective - 1e-12:
        return None
    data = form.data
    better = ScoringSystem(
        data.feature_names,
        tuple(int(c) for c in found.coefficients),
        int(found.intercept),
        positive=data.positive,
        negative=data.negative,
    )
    metrics = better.metrics(
        data.X, np.where(data.y == 1, data.positive, data.negative), sample_weight=data.weight
    )
    return (
        f"intercept_range {ilo}..{ihi} limits the card: with a wider range (intercept "
        f"{found.intercept}) a card reaches {metrics}"
    )


DECISION.fits_with(LabelsDriver(fit, _solve_decisions))
RISK.fits_with(LabelsDriver(fit, _solve_risk))
TIME_TO_EVENT.fits_with(fit_survival)
fit = _asks_the_family(fit)
