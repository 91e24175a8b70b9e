"""A proven floor for a spec with group rows or linear rows: the spec without them.

Group caps and gaps only remove cards, so the best objective without them is a lower
limit on the best objective with them. The problem without group rows has every fast
proof of the driver (walk, support scan, proof by size, the dominant-class proof), while
the whole program with the rows has only the MIP, whose bound on real data rises slowly
(adult, 5 features: 0.1 % after 60 s). When the best card without the rows already meets
them, it is the answer, proven: fairness cost nothing. Otherwise Lagrangian bounds
(:mod:`.group_dual`: the rows priced into the row weights, again a problem without group
rows) raise the floor in the time left, and may meet a better card that holds the rows.
"""

from __future__ import annotations

import math
import threading
import time
import warnings
import weakref
from collections.abc import Callable

import numpy as np

from ..core.by_variable import signs_only
from ..core.formulation import Formulation
from ..core.groups import GROUP_OPTIONS
from ..core.linear import linear_problems
from ..solvers.base import SolveResult
from .group_dual import Deadline, dual_floor

__all__ = ["group_free_floor"]

#: share of the time left that the proof without group rows may take
FLOOR_SHARE = 0.5
#: share of the time left that the MIP with the group rows keeps (it starts from the best card
#: the floors met, and its start-up alone takes seconds on adult)
MIP_SHARE = 0.15
#: share of the floors' time left after the proof without group rows that the Lagrangian
#: bounds may take
DUAL_SHARE = 1.0
# Proven optima of specs without their group and linear rows, per data set (kept while the
# Dataset lives): a sweep over gaps (fairness_frontier) proves the shared problem once.
_PROVEN: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_PROVEN_LOCK = threading.Lock()


def group_free_floor(
    form: Formulation,
    time_left: float | None,
    cancel,
    fit_dataset: Callable,
    start: tuple | None = None,
) -> tuple[float, SolveResult | None, tuple | None]:
    """(floor, answer, start): the proven floor from the spec without group rows, raised by
    Lagrangian bounds (:mod:`.group_dual`) in a share of the time left; a proven optimal
    result for the grouped problem when the card found without them meets them (or a
    penalized optimum meets them at the floor); and the best card met on the way that meets
    the group rows, as (points, intercept, objective), or None. ``start``: (points,
    intercept) of the best card known that meets the group rows, or None."""
    t0 = time.perf_counter()
    # the floors end by their deadline (inner fits are stopped there), leaving the MIP its share
    deadline = None if time_left is None else t0 + (1 - MIP_SHARE) * time_left
    floor, answer, card = _free_floor(form, time_left, Deadline(deadline, cancel), fit_dataset)
    if answer is not None or card is None or form.spec.linear:
        return floor, answer, None
    left = None if deadline is None else DUAL_SHARE * (deadline - time.perf_counter())
    if left is not None and left <= 0.1:
        return floor, None, None
    dual = dual_floor(form, card, floor, start, left, cancel, fit_dataset)
    return max(floor, dual.floor), dual.answer, dual.start


def _free_floor(form: Formulation, time_left: float | None, cancel, fit_dataset: Callable):
    """(floor, answer, the card) of the spec without group rows (see group_free_floor)."""
    spec = form.spec
    share = None if time_left is None else max(FLOOR_SHARE * time_left, 0.05)
    relaxed = signs_only(spec).replace(
        **{k: None for k in GROUP_OPTIONS},
        linear=[],  # monotone's rows go too
        time_limit=share if share is not None else spec.time_limit,
    )
    key = relaxed.replace(time_limit=None).key()
    with _PROVEN_LOCK:
        card = _PROVEN.get(form.data, {}).get(key)
    if card is None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter(
                    "ignore"
                )  # its degenerate-card and box notes are not the user's card
                card = fit_dataset(form.data, relaxed, cancel=cancel)
        except Exception:  # noqa: BLE001 - no floor is a valid answer; the grouped solve goes on
            return -math.inf, None, None
        if card.status == "optimal":
            with _PROVEN_LOCK:
                _PROVEN.setdefault(form.data, {})[key] = card
    floor = -math.inf if card.bound is None else float(card.bound)
    coefs = np.array(
        [
            dict(zip(card.feature_names, card.coefficients)).get(n, 0)
            for n in form.data.feature_names
        ],
        dtype=float,
    )
    b, loss = form.intercept_losses(coefs)
    meets = (
        np.isfinite(loss[b == card.intercept]).all()
        and (b == card.intercept).any()
        and not linear_problems(
            dict(zip(form.data.feature_names, coefs.tolist())), form.linear_rows
        )
    )
    if card.status == "optimal" and meets:
        value = form.objective_of(coefs, card.intercept)
        return (
            value,
            SolveResult(
                "optimal",
                coefs,
                int(card.intercept),
                value,
                value,
                0.0,
                card.solve_time or 0.0,
                f"{card.solver} (no group row binds)",
            ),
            card,
        )
    return floor, None, card
