"""Harrell's bootstrap: how much a card's training figures flatter it, and the figures corrected.

Each bootstrap sample (rows drawn with replacement) is fitted again with the card's own settings
(its spec, under a short time limit); the refitted card is scored on its sample (apparent) and on
the original rows (test). The mean of apparent minus test is the optimism; the card's own figure
minus the optimism is the optimism-corrected estimate (Harrell, Lee & Mark 1996).
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import numpy as np
import pandas as pd

from ..core.family import family_of_card
from ..core.risk import card_events
from ..core.scoring import ScoringSystem
from ..fitting import InfeasibleError, NoSolutionError, fit
from ..fitting.jobs import check_n_jobs, progress_bar, run_jobs
from .validate import card_figures

__all__ = ["optimism"]


def _figures(card: ScoringSystem, X: pd.DataFrame, events: np.ndarray) -> dict[str, float]:
    frame = card_figures(card, X, events)
    names = ["AUC"] + (["calibration slope"] if family_of_card(card).predicts_risk else [])
    return {name: float(frame.loc[name, "estimate"]) for name in names}


def _one_bootstrap(
    card: ScoringSystem,
    X: pd.DataFrame,
    y: np.ndarray,
    events: np.ndarray,
    seed: int,
    time_limit: float,
) -> dict[str, float] | None:
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, len(X), len(X))
    if events[rows].min() == events[rows].max():
        return None  # a sample of one class cannot be fitted
    spec = dataclasses.replace(card.spec, time_limit=time_limit)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a degenerate refit is still a sample of the method
            refit = fit(X.iloc[rows], y[rows], positive=card.positive, spec=spec)
    except (
        InfeasibleError,
        NoSolutionError,
    ):  # no card under the caps on this sample: skipped, counted
        return None
    apparent, test = _figures(refit, X.iloc[rows], events[rows]), _figures(refit, X, events)
    return {name: apparent[name] - test[name] for name in apparent}


def optimism(
    card: ScoringSystem,
    X: pd.DataFrame,
    y: Any,
    *,
    n_boot: int = 20,
    time_limit: float = 2.0,
    n_jobs: int | None = None,
    random_state: int = 0,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Optimism-corrected AUC (and calibration slope, risk cards) by Harrell's bootstrap.

    Parameters
    ----------
    card : a card from :func:`slimwidgets.fit` (it needs its ``spec``).
    X, y : the card's training rows (every feature it was fitted on).
    n_boot : bootstrap samples; each is one fit of ``time_limit`` seconds at most.
    time_limit : seconds of each bootstrap fit, at most.
    n_jobs : fits in parallel through joblib (None: one after another).
    random_state : seed of the samples.
    progress : a progress bar (None: in a terminal or notebook only).

    Returns
    -------
    DataFrame
        Index: figure; columns ``apparent`` (the card on its training rows), ``optimism``
        (mean over the samples), ``corrected`` and ``samples`` (the samples that could be
        fitted; one of a single class or without a card under the caps is skipped).

    Examples
    --------
    >>> import slimwidgets as sw
    >>> from slimwidgets.datasets import load_demo
    >>> X, y = load_demo()
    >>> card = sw.fit(X, y, max_size=3, time_limit=2)
    >>> table = sw.optimism(card, X, y, n_boot=3, time_limit=1, progress=False)
    >>> bool(table.loc["AUC", "corrected"] <= table.loc["AUC", "apparent"] + 0.05)
    True
    """
    if card.spec is None:
        raise ValueError(
            "the bootstrap refits the card with its settings: this card carries no spec"
        )
    if n_boot < 1:
        raise ValueError(f"n_boot must be at least 1, got {n_boot}")
    check_n_jobs(n_jobs)
    missing = [n for n in card.feature_names if n not in map(str, X.columns)]
    if missing:
        raise KeyError(f"X lacks features the card was fitted on: {missing[:6]}")
    X = X[[c for c in X.columns if str(c) in card.feature_names]]
    labels = np.asarray(y.to_numpy() if isinstance(y, pd.Series) else y, dtype=object).ravel()
    events = card_events(card, labels, len(X))
    seeds = np.random.SeedSequence(random_state).generate_state(n_boot)
    jobs = [(card, X, labels, events, int(seed), time_limit) for seed in seeds]
    bar = progress_bar(progress, n_boot, "bootstrap")
    results = run_jobs(_one_bootstrap, jobs, n_jobs, bar)
    done = pd.DataFrame([r for r in results if r is not None])
    apparent = _figures(card, X, events)
    table = pd.DataFrame({"apparent": apparent})
    table["optimism"] = [done[name].mean() if name in done else np.nan for name in table.index]
    table["corrected"] = table["apparent"] - table["optimism"]
    table["samples"] = len(done)
    table.index.name = "figure"
    return table
