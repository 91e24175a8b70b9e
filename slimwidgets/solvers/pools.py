"""Feature-pool MIPs: a primal heuristic that solves SLIM exactly on a few features.

With every feature outside a pool held at 0 points, rows that agree on the pool's
features merge into one weighted row, so on binary data the pool's program is tiny
(mushroom: 8124 rows become 83 on an 18-feature pool) and HiGHS solves it in well
under a second, where the whole program is hopeless in seconds. A card found this
way is a card of the whole problem, with the same loss and penalties, so it can
replace the incumbent; it proves nothing about the whole problem.

Pools are the incumbent's support plus the features in the order an L1-penalized
logistic regression lets them in as its penalty weakens (cheap liblinear fits),
grown while time remains and the merged rows stay few. This is what finds
mushroom's zero-error card with 7 features within the 5 s of a max-accuracy run
(the local search stops at 4 errors, the whole MIP needs ~30 s).

Examples
--------
>>> import numpy as np, slimwidgets as sw
>>> from slimwidgets.core.data import prepare_data
>>> from slimwidgets.core.formulation import build_formulation
>>> from slimwidgets.solvers.pools import solve_pool
>>> rng = np.random.default_rng(0)
>>> X = rng.integers(0, 2, size=(300, 12)).astype(float)
>>> y = ((X[:, 0] + X[:, 1] + X[:, 2]) >= 2).astype(int)
>>> form = build_formulation(prepare_data(X, y), sw.make_spec(max_size=3))
>>> found = solve_pool(form, [0, 1, 2, 3], time_limit=10)
>>> found.objective < 0.01, np.flatnonzero(found.coefficients).tolist()
(True, [0, 1, 2])
"""

from __future__ import annotations

import math
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..core.data import Dataset
from ..core.family import family_of_loss
from ..core.formulation import Formulation
from .backends.mip import solve_formulation

__all__ = ["PoolCard", "solve_pool", "pool_search", "feature_ranking"]

#: a pool's program is worth a MIP when its rows merge to at most this many
POOL_ROWS = 600
#: ... and merges them to at most this share of the data's distinct rows: a pool that merges
#: few rows is nearly the whole program (heart: 303 rows stay 303), which HiGHS does not solve
#: in seconds either, while the local search it delays finds better cards
POOL_MERGE = 0.5
#: a pool with more than this share of the movable features is left to the whole solve
POOL_SHARE = 2 / 3
#: pool sizes tried, beyond the incumbent's support (grown while rows stay few)
POOL_SIZES = (12, 18, 27, 40, 60)
#: L1-logistic penalties (liblinear C), weakest last, that rank the features
RANKING_C = (0.01, 0.03, 0.1, 0.3, 1.0)
#: row-feature passes (rows x features x liblinear iterations) after which the ranking stops:
#: adult's first fit (32,561 x 36 x 19 = 22 million) ends it, mushroom's (12 million) does not
SLOW_FIT_WORK = 20_000_000


@dataclass(frozen=True)
class PoolCard:
    coefficients: np.ndarray  # int, per feature of the whole problem
    intercept: int
    objective: float  # of the whole problem, paper units
    status: str  # the pool MIP's status: "optimal" on the pool, "time_limit", ...
    rows: int  # merged rows of the pool's program


def _pool_mask(form: Formulation, pool: Sequence[int] | np.ndarray) -> np.ndarray:
    """The pool's features (indices) and those every card uses, as a boolean mask."""
    mask = _forced(form)
    mask[np.asarray(pool, dtype=np.int64)] = True
    return mask


def _merged_data(form: Formulation, mask: np.ndarray) -> Dataset:
    """The data with every feature outside ``mask`` at 0 and rows that then agree merged."""
    data = form.data
    grouped = data.sensitive is not None  # rows of different groups never merge (group rows)
    keyed = np.column_stack([data.X[:, mask]] + ([data.sensitive] if grouped else []) + [data.y])
    merged, inverse = np.unique(keyed, axis=0, return_inverse=True)
    X = np.zeros((merged.shape[0], data.n_features))
    X[:, mask] = merged[:, :-2] if grouped else merged[:, :-1]
    return replace(
        data,
        X=X,
        y=merged[:, -1].astype(np.int8),
        sensitive=merged[:, -2].astype(np.int64) if grouped else None,
        weight=np.bincount(inverse.ravel(), weights=data.weight, minlength=merged.shape[0]),
    )


def _solve_merged(
    form: Formulation,
    mask: np.ndarray,
    pool_data: Dataset,
    *,
    time_limit: float | None,
    warm_start: tuple[np.ndarray, int] | None,
    cancel,
) -> PoolCard | None:
    """The program with every feature outside ``mask`` held at 0, on ``pool_data``; None when
    the spec cannot exclude the others, the program has no card or the solve found none."""
    spec = form.spec
    outside = [n for n, inside in zip(form.data.feature_names, mask) if not inside]
    pins = {
        "margin": form.margin
    }  # the margin and C0 default depend on the data; keep the whole problem's
    if spec.C0 is None and not spec.tiers:
        pins["C0"] = float(form.extra["C0_default"])
    try:
        pool_spec = spec.replace(exclude=sorted(set(spec.exclude) | set(outside)), **pins)
    except ValueError:  # e.g. a lock or a values set that forbids 0 outside the pool
        return None
    if warm_start is not None and np.any(np.asarray(warm_start[0])[~mask] != 0):
        warm_start = None
    result = solve_formulation(
        family_of_loss(pool_spec.loss).loss.problem(pool_data, pool_spec),
        time_limit=time_limit,
        warm_start=warm_start,
        cancel=cancel,
    )
    if result.coefficients is None:
        return None
    points, intercept = form.canonical(np.asarray(result.coefficients), int(result.intercept))
    return PoolCard(
        points,
        int(intercept),
        form.objective_of(points, intercept),
        result.status,
        pool_data.n_rows,
    )


def solve_pool(
    form: Formulation,
    pool: Sequence[int] | np.ndarray,
    *,
    time_limit: float | None = None,
    warm_start: tuple[np.ndarray, int] | None = None,
    cancel: threading.Event | None = None,
) -> PoolCard | None:
    """The best card (within ``time_limit``) that uses only the features in ``pool``
    (indices); None when the pool's program has no card or the solve found none."""
    mask = _pool_mask(form, pool)
    return _solve_merged(
        form,
        mask,
        _merged_data(form, mask),
        time_limit=time_limit,
        warm_start=warm_start,
        cancel=cancel,
    )


def _forced(form: Formulation) -> np.ndarray:
    """Features every card uses (locked to non-zero points, or 0 not allowed)."""
    return np.array(
        [0 not in vals or fixed != 0 for vals, fixed in zip(form.allowed, form.fixed_lambda)],
        dtype=bool,
    )


def feature_ranking(form: Formulation, deadline: float = math.inf, cancel=None) -> list[int]:
    """Movable features in the order an L1-penalized logistic regression takes them in as
    its penalty weakens (ties: larger coefficient first); unranked ones are left out.

    A fit cannot be interrupted and weaker penalties fit slower (adult: 0.2 s at the
    strongest, over 1 s at the weakest), so under a ``deadline`` the path stops after a fit
    whose counted work (rows x features x iterations) exceeds ``SLOW_FIT_WORK`` once it has
    ranked some features. Work is counted, not timed, so the ranking does not depend on how
    busy the machine is; only the ``deadline`` itself is read from the clock."""
    from sklearn.linear_model import LogisticRegression

    data = form.data
    movable = np.array([len(v) > 1 for v in form.allowed])
    weight = form.row_weight / form.row_weight.mean()
    order: list[int] = []
    for C in RANKING_C:
        if (
            time.perf_counter() > deadline
            or len(order) == int(movable.sum())
            or (cancel is not None and cancel.is_set())
        ):
            break
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fit = LogisticRegression(penalty="l1", C=C, solver="liblinear", max_iter=100)
                fit.fit(data.X, data.y, sample_weight=weight)
        except ValueError:
            break
        coef = np.abs(fit.coef_.ravel())
        fresh = [
            j
            for j in np.argsort(-coef, kind="stable")
            if coef[j] > 0 and movable[j] and j not in order
        ]
        order += [int(j) for j in fresh]
        if order and deadline < math.inf and _fit_work(data.X, fit) > SLOW_FIT_WORK:
            break
    return order


def _fit_work(X, fit) -> int:
    """Row-feature passes a liblinear fit made: rows x features x iterations."""
    n_rows, n_features = X.shape
    return int(n_rows) * int(n_features) * int(np.max(fit.n_iter_))


def pool_search(
    form: Formulation,
    incumbent: tuple[np.ndarray, int, float] | None,
    *,
    deadline: float,
    cancel=None,
    on_improve: Callable[[np.ndarray, int, float], None] | None = None,
) -> tuple[np.ndarray, int, float] | None:
    """Solve growing pools until ``deadline`` (or ``cancel``); the best card found, as
    (points, intercept, objective), if it beats ``incumbent``. ``on_improve`` hears each
    improvement at once."""
    best = incumbent
    movable = {j for j, vals in enumerate(form.allowed) if len(vals) > 1}
    ranking = feature_ranking(form, deadline, cancel)
    support = set() if incumbent is None else set(np.flatnonzero(incumbent[0]).tolist())
    tried: set[frozenset] = set()
    for size in POOL_SIZES:
        pool = frozenset(support | set(ranking[:size]))
        if len(pool) > POOL_SHARE * len(movable):
            break  # (nearly) the whole problem, which the caller's solve has
        if pool in tried or not pool:
            continue
        tried.add(pool)
        left = deadline - time.perf_counter()
        if left <= 0.05 or (cancel is not None and cancel.is_set()):
            break
        mask = _pool_mask(form, sorted(pool))
        pool_data = _merged_data(form, mask)
        if pool_data.n_rows > min(POOL_ROWS, POOL_MERGE * form.data.n_rows):
            break  # bigger pools only merge fewer rows
        warm = None if best is None else (best[0], best[1])
        # half of what is left: a pool that cannot be solved in time leaves room for the next
        found = _solve_merged(
            form, mask, pool_data, time_limit=left / 2, warm_start=warm, cancel=cancel
        )
        if found is not None and (best is None or found.objective < best[2] - 1e-12):
            best = (found.coefficients, found.intercept, found.objective)
            if on_improve is not None:
                on_improve(best[0].copy(), best[1], best[2])
        if size >= len(ranking):
            break
    return best if best is not incumbent else None
