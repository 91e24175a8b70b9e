"""The fit driver of risk cards (``loss="logistic"``): search, walk when small, re-check.

:func:`slimwidgets.core.fitting.fit_dataset` hands a spec with ``loss="logistic"`` here. A box
small enough to walk (or ``solver="enumerate"``) is walked and the card is ``optimal``;
otherwise the anytime search's card is returned as ``heuristic``, with no bound claimed.
"""

from __future__ import annotations

import math
import threading
import time
from typing import Callable

import numpy as np

from ..solvers.base import Incumbent
from ..solvers.logistic import RiskCard, RiskProblem, search_risk, walk_risk, walk_work
from .data import Dataset
from .losses import ensure_compiled
from .scoring import ScoringSystem
from .spec import Spec

__all__ = ["fit_risk", "RISK_SEARCH_SECONDS", "RISK_WALK_WORK"]

#: the search's budget when the spec sets no time limit (it usually ends well before)
RISK_SEARCH_SECONDS = 2.0
#: solver="auto" walks the whole box when it takes at most this many elementary steps
RISK_WALK_WORK = 2e7


def fit_risk(data: Dataset, spec: Spec, *, warm_start: ScoringSystem | None = None,
             on_incumbent: Callable[[Incumbent], None] | None = None,
             cancel: threading.Event | None = None) -> ScoringSystem:
    """A risk card for ``data`` under ``spec`` (see :func:`slimwidgets.fit`, ``loss="logistic"``)."""
    from .fitting import NoSolutionError, check_card

    ensure_compiled()  # once per process, before the clock starts
    t0 = time.perf_counter()
    prob = RiskProblem.from_spec(data, spec)
    budget = RISK_SEARCH_SECONDS if spec.time_limit is None else spec.time_limit
    walk = spec.solver == "enumerate" or (spec.solver == "auto" and walk_work(prob) <= RISK_WALK_WORK)
    status, solver = "heuristic", "logistic search"
    if walk:
        card = walk_risk(prob, deadline=t0 + budget if spec.time_limit is not None else math.inf, cancel=cancel)
        status, solver = "optimal", "enumeration"
        if card is None:  # stopped before the end: fall back on the search, claim nothing
            status, solver = "interrupted" if cancel is not None and cancel.is_set() else "time_limit", "logistic search"
    if not walk or card is None:
        def report(found: RiskCard) -> None:
            if on_incumbent is not None:
                on_incumbent(Incumbent(found.coefficients.copy(), found.intercept, found.objective, -math.inf,
                                       time.perf_counter() - t0))
        card = search_risk(prob, time_limit=max(budget - (time.perf_counter() - t0), 0.05), on_improve=report,
                           cancel=cancel, warm=_warm(warm_start, data))
    if card is None:
        raise NoSolutionError("the risk-card search found no card that meets the spec's rules on features "
                              "(require / at_least / needs); relax them or use solver='enumerate' on a small box")
    if status == "optimal" and on_incumbent is not None:
        on_incumbent(Incumbent(card.coefficients.copy(), card.intercept, card.objective, card.objective,
                               time.perf_counter() - t0))
    result = _card(data, spec, prob, card, status, solver, time.perf_counter() - t0)
    problems = check_card(result, data, spec)
    if problems:  # a bug, never a user error: refuse to hand out a card that breaks the spec
        raise RuntimeError(f"internal error: the risk card breaks {problems}")
    return result


def _warm(card: ScoringSystem | None, data: Dataset) -> np.ndarray | None:
    if card is None:
        return None
    by_name = dict(zip(card.feature_names, card.coefficients))
    return np.array([by_name.get(n, 0) for n in data.feature_names], dtype=float)


def _card(data: Dataset, spec: Spec, prob: RiskProblem, found: RiskCard, status: str, solver: str,
          elapsed: float) -> ScoringSystem:
    from .fitting import _risk_rows

    proven = status == "optimal"
    card = ScoringSystem(
        data.feature_names, tuple(int(c) for c in found.coefficients), int(found.intercept),
        positive=data.positive, negative=data.negative, status=status,
        objective=found.objective, bound=found.objective if proven else None, gap=0.0 if proven else None,
        solve_time=elapsed, solver=solver, spec=spec, binary=tuple(data.binary),
        positive_name=data.positive_name, family="risk", multiplier=float(found.multiplier),
        details={"C0": prob.C0.tolist(), "log_loss": found.loss, "n_rows": data.n_rows,
                 "n_samples": data.n_samples},
    )
    labels = np.where(data.y == 1, data.positive, data.negative)
    object.__setattr__(card, "train_metrics", card.metrics(data.X, labels, sample_weight=data.weight))
    object.__setattr__(card, "risk", _risk_rows(card, data, labels))
    return card
