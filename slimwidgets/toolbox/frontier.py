"""Sweeps of SLIM fits: the ROC frontier (best TPR per FPR cap) and the size path.

Each point of a sweep is one exact :func:`slimwidgets.fit`. Sequential sweeps
warm-start every solve from its neighbour's card (a card that is feasible for
the next, looser constraint), parallel sweeps run through :mod:`joblib` (so
any joblib backend, e.g. Dask or Ray set with ``joblib.parallel_config``, can
run them), and every result is kept in an in-memory cache keyed by the data's
fingerprint and the spec's canonical key, so a repeated sweep is instant.

A point whose constraints cannot be met becomes a row with status
``"infeasible"``; a point whose solve stops before any card is found becomes a
row with status ``"no_solution"``. Neither raises.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections import OrderedDict
from collections.abc import Iterable, MutableMapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from ..core.dask_rows import weighted_table
from ..core.data import Dataset, group_column_apart, prepare_data
from ..core.rules import rules_from_options
from ..core.scoring import ScoringSystem
from ..core.spec import Spec, make_spec
from ..core.status import proven_limit
from ..fitting import InfeasibleError, NoSolutionError, fit_dataset
from ..fitting.jobs import check_n_jobs, progress_bar
from ..fitting.large import is_dask

# base_spec, fraction_list, proven_value and sweep_specs are shared with toolbox/fairness.py
__all__ = ["roc_frontier", "size_path", "clear_cache", "data_fingerprint", "DEFAULT_FPRS"]

#: The default FPR caps of :func:`roc_frontier`: 5 %, 10 %, ..., 95 % (19 points).
DEFAULT_FPRS: tuple[float, ...] = tuple(round(0.05 * k, 2) for k in range(1, 20))

_CACHE_MAX = 4096


class _LRUCache(MutableMapping):
    """A small thread-safe LRU mapping used as the default sweep cache."""

    def __init__(self, maxsize: int = _CACHE_MAX) -> None:
        self._d: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        self.maxsize = maxsize

    def __getitem__(self, key):
        with self._lock:
            value = self._d[key]
            self._d.move_to_end(key)
            return value

    def __setitem__(self, key, value) -> None:
        with self._lock:
            self._d[key] = value
            self._d.move_to_end(key)
            while len(self._d) > self.maxsize:
                self._d.popitem(last=False)

    def __delitem__(self, key) -> None:
        with self._lock:
            del self._d[key]

    def __iter__(self):
        return iter(list(self._d))

    def __len__(self) -> int:
        return len(self._d)


_DEFAULT_CACHE = _LRUCache()


def clear_cache() -> None:
    """Empty the default in-memory cache shared by :func:`roc_frontier` and :func:`size_path`."""
    _DEFAULT_CACHE.clear()


def data_fingerprint(data: Dataset) -> str:
    """A sha256 of everything in a prepared data set that a fit depends on.

    Examples
    --------
    >>> import pandas as pd
    >>> from slimwidgets import prepare_data
    >>> a = prepare_data(pd.DataFrame({"x": [0, 1, 1]}), [0, 1, 1])
    >>> b = prepare_data(pd.DataFrame({"x": [1, 0, 1]}), [1, 0, 1])
    >>> data_fingerprint(a) == data_fingerprint(b)   # same rows, other order
    True
    """
    h = hashlib.sha256()
    h.update(
        repr(
            (data.feature_names, data.positive, data.negative, data.outcome, data.n_samples)
        ).encode()
    )
    arrays = [data.X, data.y, data.weight]
    if data.sensitive is not None:  # group fairness: the groups are part of the data
        h.update(repr(data.sensitive_levels).encode())
        arrays.append(data.sensitive)
    for arr in arrays:
        a = np.ascontiguousarray(arr, dtype=np.float64)
        h.update(str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()


# -- one point ------------------------------------------------------------------------------------
def _solve_point(data: Dataset, spec: Spec, warm: ScoringSystem | None) -> dict:
    """Fit one point; never raises for infeasible or unsolved points (a row instead)."""
    try:
        card = fit_dataset(data, spec, warm_start=warm)
    except InfeasibleError as exc:
        return {"status": "infeasible", "card": None, "message": str(exc)}
    except NoSolutionError as exc:
        return {"status": "no_solution", "card": None, "message": str(exc)}
    return {"status": card.status, "card": card, "message": ""}


def _row(outcome: dict, data: Dataset) -> dict:
    card = outcome["card"]
    row = {
        "tpr": math.nan,
        "fpr": math.nan,
        "error": math.nan,
        "size": pd.NA,
        "status": outcome["status"],
        "gap": math.nan,
        "objective": math.nan,
        "bound": math.nan,
        "solve_time": math.nan,
        "card": card,
        "message": outcome["message"],
    }
    if card is not None:
        m = card.train_metrics
        if m is None:  # cards from fit_dataset always carry metrics; be defensive
            labels = np.where(data.y == 1, data.positive, data.negative)
            m = card.metrics(data.X, labels, sample_weight=data.weight)
        row.update(
            tpr=m.tpr,
            fpr=m.fpr,
            error=m.error,
            size=card.size,
            gap=math.nan if card.gap is None else card.gap,
            objective=math.nan if card.objective is None else card.objective,
            bound=math.nan if card.bound is None else card.bound,
            solve_time=math.nan if card.solve_time is None else card.solve_time,
        )
    return row


# -- the sweep engine -----------------------------------------------------------------------------
def _resolve_cache(cache: Any) -> MutableMapping | None:
    if cache is None or cache is True:
        return _DEFAULT_CACHE
    if cache is False:
        return None
    if isinstance(cache, MutableMapping):
        return cache
    raise TypeError(
        "cache must be None/True (shared cache), False (no cache) or a dict-like, got "
        f"{type(cache).__name__}"
    )


def sweep_specs(
    data: Dataset,
    specs: list[Spec],
    *,
    n_jobs: int | None,
    backend: str | None,
    progress: bool | None,
    cache: Any,
    warm_start: ScoringSystem | None,
    desc: str,
) -> list[dict]:
    """Fit every spec (in the given order, which must make each card feasible for the next)."""
    store = _resolve_cache(cache)
    fp = data_fingerprint(data)
    keys = [(fp, s.key()) for s in specs]
    outcomes: list[dict | None] = [None] * len(specs)
    cached = [False] * len(specs)
    if store is not None:
        for k, key in enumerate(keys):
            try:
                outcomes[k] = store[key]
                cached[k] = True
            except KeyError:
                pass
    todo = [k for k in range(len(specs)) if outcomes[k] is None]
    bar = progress_bar(progress, len(todo), desc)
    try:
        if n_jobs is None or n_jobs == 1 or len(todo) <= 1:
            warm = warm_start
            for k in range(len(specs)):
                if outcomes[k] is None:
                    outcomes[k] = _solve_point(data, specs[k], warm)
                    if store is not None:
                        store[keys[k]] = outcomes[k]
                    if bar is not None:
                        bar.update(1)
                card = outcomes[k]["card"]
                if card is not None:
                    warm = card
        else:
            from joblib import Parallel, delayed

            parallel = Parallel(n_jobs=n_jobs, backend=backend, return_as="generator_unordered")
            for k, outcome in parallel(
                delayed(_indexed_solve)(k, data, specs[k], warm_start) for k in todo
            ):
                outcomes[k] = outcome
                if store is not None:
                    store[keys[k]] = outcome
                if bar is not None:
                    bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    rows = []
    for k, outcome in enumerate(outcomes):
        assert outcome is not None
        row = _row(outcome, data)
        row["cached"] = cached[k]
        rows.append(row)
    return rows


def _indexed_solve(
    k: int, data: Dataset, spec: Spec, warm: ScoringSystem | None
) -> tuple[int, dict]:
    return k, _solve_point(data, spec, warm)


def base_spec(spec_options: dict, forbidden: Sequence[str], func: str) -> Spec:
    clash = [k for k in forbidden if k in spec_options]
    if clash:
        raise TypeError(
            f"{func} sets {clash[0]!r} itself for every point; do not pass it as an option"
        )
    return make_spec(**spec_options)


def fraction_list(values: Iterable[Any], what: str) -> list[float]:
    try:
        out = [float(v) for v in values]
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be a list of numbers in [0, 1]") from None
    if not out:
        raise ValueError(f"{what} is empty")
    bad = [v for v in out if not 0.0 <= v <= 1.0 or math.isnan(v)]
    if bad:
        raise ValueError(f"{what} must lie in [0, 1]; got {bad[:5]}")
    return sorted(set(out))


_COLUMNS_TAIL = [
    "tpr",
    "fpr",
    "error",
    "size",
    "status",
    "gap",
    "objective",
    "bound",
    "solve_time",
    "cached",
    "message",
    "card",
]


def roc_frontier(
    X: Any,
    y: Any,
    fprs: Iterable[float] = DEFAULT_FPRS,
    *,
    n_jobs: int | None = None,
    backend: str | None = None,
    progress: bool | None = None,
    cache: Any = None,
    positive: Any = None,
    sample_weight: Any = None,
    warm_start: ScoringSystem | None = None,
    sensitive_features: Any = None,
    **spec_options: Any,
) -> pd.DataFrame:
    """The most sensitive scoring system under each false-positive-rate cap.

    One exact fit per cap with ``max_fpr=cap`` (the paper's loss-constrained
    program of sec. 2.3: each card has the highest training TPR among cards
    whose training FPR is at most the cap, counting a zero total as a false
    positive).

    Parameters
    ----------
    X, y : training data, as for :func:`slimwidgets.fit`.
    fprs : FPR caps in [0, 1]; duplicates are dropped and rows come out in
        increasing order. Default: 5 %, 10 %, ..., 95 %.
    n_jobs : None (sequential, each solve warm-started from the previous
        cap's card) or the number of parallel joblib workers (-1: all cores).
    backend : a joblib backend name (``"loky"``, ``"threading"``, ...); None
        uses the backend active in ``joblib.parallel_config`` (local
        processes by default), so a Dask or Ray cluster registered with
        joblib runs the sweep unchanged.
    progress : True / False, or None to show a tqdm bar only in a terminal or
        notebook when at least 4 solves are needed.
    cache : None/True for the shared in-memory cache (see :func:`clear_cache`),
        False for none, or your own dict.
    positive, sample_weight : as for :func:`slimwidgets.fit`.
    warm_start : a card to start the first (smallest-cap) solve from.
    sensitive_features : as for :func:`slimwidgets.fit` (groups: ``max_tpr_gap``).
    **spec_options : any other :func:`slimwidgets.make_spec` option
        (``time_limit`` is per point). ``max_fpr`` is set by the sweep.

    Returns
    -------
    DataFrame
        One row per cap: ``max_fpr, tpr, tpr_max, fpr, error, size, status, gap,
        objective, bound, solve_time, cached, message, card`` (``card`` is the
        :class:`ScoringSystem`, None when the cap is infeasible). Training
        metrics. ``status`` is the card's ("optimal" only with a proof) or
        "infeasible" / "no_solution". ``tpr_max`` is the highest TPR any card
        under the cap can have by the solver's proven bound: ``tpr == tpr_max``
        means the TPR is optimal even when a time limit left a ``gap`` in the
        (lexicographic) objective, e.g. in its FPR tie-break.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"a": [1, 1, 0, 0, 1, 0, 1, 0], "b": [0, 1, 0, 1, 1, 0, 0, 1]})
    >>> y = [1, 1, 0, 0, 1, 0, 0, 1]
    >>> front = roc_frontier(X, y, fprs=[0.0, 0.25, 0.5], progress=False, cache=False)
    >>> print(front[["max_fpr", "tpr", "fpr", "status"]].to_string(index=False))
     max_fpr  tpr  fpr  status
        0.00 0.50 0.00 optimal
        0.25 0.75 0.25 optimal
        0.50 1.00 0.50 optimal
    """
    check_n_jobs(n_jobs)
    caps = fraction_list(fprs, "fprs")
    data, builder, spec_options = _raw_table(
        X, y, positive, sample_weight, spec_options, sensitive_features
    )
    base = base_spec(spec_options, ("max_fpr",), "roc_frontier")
    specs = [base.replace(max_fpr=c) for c in caps]
    rows = _with_rules(
        sweep_specs(
            data,
            specs,
            n_jobs=n_jobs,
            backend=backend,
            progress=progress,
            cache=cache,
            warm_start=warm_start,
            desc="ROC frontier",
        ),
        builder,
    )
    for row in rows:
        row["tpr_max"] = proven_value(row, "tpr", 1.0)
    frame = pd.DataFrame(rows)
    frame.insert(0, "max_fpr", caps)
    cols = ["max_fpr"] + _COLUMNS_TAIL
    cols.insert(cols.index("tpr") + 1, "tpr_max")
    return frame[cols]


def proven_value(row: dict, kind: str, unbounded: float) -> float:
    """What the solver's bound proves about every card of this point (read by
    :func:`slimwidgets.core.status.proven_limit`): the highest TPR (``kind="tpr"``) or the
    lowest error (``"error"``) any card can have; ``unbounded`` without a bound, NaN when the
    bound says nothing about it (e.g. class weights) or there is no card."""
    card = row["card"]
    if card is None:
        return math.nan
    if card.bound is None or not math.isfinite(card.bound):
        return unbounded
    limit = proven_limit(card)
    return limit[1] if limit is not None and limit[0] == kind else math.nan


def size_path(
    X: Any,
    y: Any,
    sizes: Iterable[int] | None = None,
    C0s: Iterable[float] | None = None,
    *,
    n_jobs: int | None = None,
    backend: str | None = None,
    progress: bool | None = None,
    cache: Any = None,
    positive: Any = None,
    sample_weight: Any = None,
    warm_start: ScoringSystem | None = None,
    sensitive_features: Any = None,
    **spec_options: Any,
) -> pd.DataFrame:
    """Training error against model size: one exact fit per ``max_size`` or per ``C0``.

    Give ``sizes`` (fits with ``max_size=s``: the most accurate card with at
    most ``s`` features) or ``C0s`` (fits with ``C0=c``: the paper's
    accuracy/sparsity trade-off, sec. 2), not both. Default: sizes
    0, 1, ..., min(P, 10).

    Sequential runs go from the sparsest point to the densest, each solve
    warm-started from the previous card. ``n_jobs``, ``backend``,
    ``progress``, ``cache``, ``positive``, ``sample_weight``,
    ``sensitive_features`` and ``warm_start`` work as in :func:`roc_frontier`.

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_samples, n_features)
        Training features.
    y : array-like of shape (n_samples,)
        Two-class labels.
    sizes : iterable of int, optional
        The values of ``max_size`` to fit.
    C0s : iterable of float, optional
        The values of ``C0`` to fit (instead of ``sizes``).
    n_jobs : int, optional
        Fits run at once, as in :func:`roc_frontier`.
    backend : str, optional
        Where the parallel fits run, as in :func:`roc_frontier`.
    progress : bool, optional
        Whether to show a progress bar, as in :func:`roc_frontier`.
    cache : optional
        A cache of solved cards, as in :func:`roc_frontier`.
    positive : label value, optional
        Which label is the positive class.
    sample_weight : array-like of shape (n_samples,), optional
        Row weights.
    warm_start : ScoringSystem, optional
        A card to start the first solve from.
    sensitive_features : str or array-like, optional
        The group of each row, for group options.
    **spec_options
        Other options of :func:`slimwidgets.make_spec`, the same for every fit.

    Returns
    -------
    DataFrame
        One row per point, with the swept parameter first (``max_size`` or
        ``C0``), then ``tpr, fpr, error, error_min, size, status, gap, objective,
        bound, solve_time, cached, message, card``. ``error_min`` is the lowest
        training error any card of the point can have by the solver's proven
        bound (``error == error_min``: proven lowest, even when a time limit left
        a ``gap``; NaN under class weights).

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"a": [1, 1, 0, 0, 1, 0, 1, 0], "b": [0, 1, 0, 1, 1, 0, 0, 1]})
    >>> y = [1, 1, 0, 0, 1, 0, 0, 1]
    >>> path = size_path(X, y, sizes=[0, 1, 2], progress=False, cache=False)
    >>> print(path[["max_size", "size", "error"]].to_string(index=False))
     max_size  size  error
            0     0   0.50
            1     1   0.25
            2     1   0.25
    """
    check_n_jobs(n_jobs)
    if sizes is not None and C0s is not None:
        raise TypeError("give sizes= or C0s=, not both")
    data, builder, spec_options = _raw_table(
        X, y, positive, sample_weight, spec_options, sensitive_features
    )
    if C0s is not None:
        param, values = "C0", _C0_values(C0s)
    else:
        param, values = "max_size", _size_values(sizes, data.n_features)
    base = base_spec(spec_options, (param,), "size_path")
    specs = [base.replace(**{param: v}) for v in values]
    rows = _with_rules(
        sweep_specs(
            data,
            specs,
            n_jobs=n_jobs,
            backend=backend,
            progress=progress,
            cache=cache,
            warm_start=warm_start,
            desc="size path",
        ),
        builder,
    )
    for row in rows:
        row["error_min"] = proven_value(row, "error", 0.0)
    frame = pd.DataFrame(rows)
    frame.insert(0, param, values)
    cols = [param] + _COLUMNS_TAIL
    cols.insert(cols.index("error") + 1, "error_min")
    return frame[cols]


def _raw_table(
    X: Any, y: Any, positive: Any, sample_weight: Any, options: dict, sensitive_features: Any = None
):
    """A raw table's rules (``rules``/``cuts`` options as in fit), the data over them (with its
    groups), and the other options with variables standing for their rules. A Dask DataFrame of
    0/1 rules is reduced on its cluster to its distinct (rules, label) rows and their weights
    (:func:`~slimwidgets.core.dask_rows.weighted_table`): every point's fit
    is the one on its rows."""
    if is_dask(X):
        if sensitive_features is not None:
            raise ValueError(
                "sensitive_features with a Dask DataFrame: group rows must not merge; compute "
                "the frame first"
            )
        X, y, sample_weight, _, n_rows = weighted_table(X, y, sample_weight=sample_weight)
        data = prepare_data(X, y, positive=positive, sample_weight=sample_weight)
        return replace(data, n_samples=n_rows), None, dict(options)
    X, groups = group_column_apart(X, sensitive_features)
    X, builder, options = rules_from_options(X, options)
    data = prepare_data(
        X, y, positive=positive, sample_weight=sample_weight, sensitive_features=groups
    )
    return data, builder, options


def _with_rules(rows: list[dict], builder: Any) -> list[dict]:
    """Every card of a sweep on a raw table carries its rules (and so scores raw rows)."""
    if builder is not None:
        for row in rows:
            if row.get("card") is not None:
                row["card"] = replace(row["card"], rules=builder)
    return rows


def _C0_values(C0s: Iterable[Any]) -> list[float]:
    """The distinct C0s, checked, sparsest (largest) first."""
    try:
        values = [float(c) for c in C0s]
    except (TypeError, ValueError):
        raise TypeError("C0s must be a list of non-negative numbers") from None
    if not values:
        raise ValueError("C0s is empty")
    if any(not math.isfinite(c) or c < 0 for c in values):
        raise ValueError(f"C0s must be finite and >= 0, got {values}")
    return sorted(set(values), reverse=True)


def _size_values(sizes: Iterable[Any] | None, n_features: int) -> list[int]:
    """The distinct sizes, checked, smallest first (default 0, 1, ..., min(P, 10))."""
    if sizes is None:
        return list(range(0, min(n_features, 10) + 1))
    try:
        values = sorted({int(s) for s in sizes})
    except (TypeError, ValueError):
        raise TypeError("sizes must be a list of non-negative integers") from None
    if not values:
        raise ValueError("sizes is empty")
    if values[0] < 0:
        raise ValueError(f"sizes must be >= 0, got {values[0]}")
    return values
