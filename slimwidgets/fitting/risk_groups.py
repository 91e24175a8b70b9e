"""Risk cards under caps and gaps between groups: a proven floor from the spec without them.

The group settings only remove cards, so the best risk card without them bounds the best card
with them from below, and when that card already meets them it is the answer, proven: the
groups cost nothing. The problem without them has the cheaper proofs (the cutting-plane master
without one binary per counted row, the walk over a box whose every card needs no group
check), so with ``solver="auto"`` :func:`fit_risk_by_group` solves it first, in a share of the
time, and then the whole problem (:func:`slimwidgets.fitting.risk_driver.fit_risk`, whose
search, walk and master hold the group rows) in the rest; the better of the two proven floors
goes on the card.
"""

from __future__ import annotations

import math
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from ..core.data import Dataset
from ..core.groups import GROUP_OPTIONS, group_problems, has_group_options
from ..core.scoring import ScoringSystem
from ..core.spec import Spec
from ..solvers.base import Incumbent, relative_gap
from .risk_driver import fit_risk

__all__ = ["fit_risk_by_group"]

#: share of the time limit the spec without group settings may take
FLOOR_SHARE = 0.4


def fit_risk_by_group(
    data: Dataset,
    spec: Spec,
    *,
    warm_start: ScoringSystem | None = None,
    on_incumbent: Callable[[Incumbent], None] | None = None,
    cancel: threading.Event | None = None,
    started: float | None = None,
) -> ScoringSystem:
    """:func:`~slimwidgets.fitting.risk_driver.fit_risk`, with the floor from the spec without
    its group settings when ``spec`` sets them and ``solver="auto"`` (else ``fit_risk`` alone);
    the time limit counts from ``started`` (the fit's call)."""
    if (
        data.sensitive is None
        or not has_group_options(spec)
        or spec.solver != "auto"
        or spec.gap != 0
    ):
        return fit_risk(
            data,
            spec,
            warm_start=warm_start,
            on_incumbent=on_incumbent,
            cancel=cancel,
            started=started,
        )
    t0 = time.perf_counter() if started is None else started
    share = (
        None
        if spec.time_limit is None
        else max(
            min(FLOOR_SHARE * spec.time_limit, spec.time_limit - (time.perf_counter() - t0)), 0.1
        )
    )
    free = _without_groups(data, spec, share, cancel)
    if free is not None and free.status == "optimal" and not group_problems(free, data, spec):
        elapsed = time.perf_counter() - t0
        if on_incumbent is not None:
            on_incumbent(
                Incumbent(
                    np.asarray(free.coefficients, dtype=float),
                    free.intercept,
                    free.objective,
                    free.objective,
                    elapsed,
                    multiplier=float(free.multiplier),
                )
            )
        return replace(
            free, spec=spec, solve_time=elapsed, solver=f"{free.solver} (no group setting binds)"
        )
    rest = (
        None if spec.time_limit is None else max(spec.time_limit - (time.perf_counter() - t0), 0.1)
    )
    card = fit_risk(
        data,
        spec.replace(time_limit=rest),
        warm_start=warm_start,
        on_incumbent=on_incumbent,
        cancel=cancel,
    )
    floor = None if free is None or free.bound is None else float(free.bound)
    card = replace(card, spec=spec, solve_time=time.perf_counter() - t0)
    if (
        floor is None
        or (card.bound is not None and card.bound >= floor)
        or not math.isfinite(floor)
    ):
        return card
    floor = min(floor, card.objective)
    proven = floor >= card.objective - 1e-9
    return replace(
        card,
        bound=floor,
        gap=relative_gap(card.objective, floor),
        status="optimal" if proven else card.status,
        solver=card.solver + " + floor without the group settings" if proven else card.solver,
    )


def _without_groups(
    data: Dataset, spec: Spec, seconds: float | None, cancel
) -> ScoringSystem | None:
    """The best risk card of ``spec`` without its group settings (None: none found)."""
    relaxed = spec.replace(**{k: None for k in GROUP_OPTIONS}, time_limit=seconds)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # its notes are not about the user's card
            return fit_risk(data, relaxed, cancel=cancel)
    except Exception:  # noqa: BLE001 - no floor is a valid answer; the grouped fit goes on
        return None
