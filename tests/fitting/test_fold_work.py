"""The size choice's fold fits and every fit's first search end on counted work, not seconds:
the same table gives the same choice, card and status on a machine 50 times slower or faster
(a fake clock; no test here depends on the real speed)."""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.core.formulation import build_formulation
from slimwidgets.fitting import driver, size_cv
from slimwidgets.solvers.scan import ScanLimits
from slimwidgets.solvers.search import local_search

#: A work budget small enough that some fold fits end on it unproven: the cards then depend on
#: the work done, which must not depend on the clock.
TIGHT = size_cv.FoldWork(search_sweeps=1, scan=ScanLimits(scan_work=2e4, walk_work=2e5))
#: Seconds of the fits here: far above what the work takes even on the 50x slow clock.
LIMIT = 1e5


def raw_table(n: int = 120, seed: int = 5) -> tuple[pd.DataFrame, pd.Series]:
    """Four noisy measurements and a text column: a few dozen rules."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(50, 10, (n, 4)).round(1), columns=["a", "b", "c", "d"])
    X["sex"] = rng.choice(["F", "M"], n)
    risk = (X.a - 50) / 10 - 0.5 * (X.b - 50) / 10 + 0.7 * (X.sex == "M") + rng.normal(0, 1, n)
    return X, pd.Series((risk > 0.3).astype(int), name="event")


class Clock:
    """``time.perf_counter`` as a machine ``rate`` times slower would see it: every real second
    of work reads as ``rate`` seconds."""

    def __init__(self, rate: float) -> None:
        self.rate, self.real = rate, time.perf_counter
        self.start = self.real()

    def __call__(self) -> float:
        return self.start + self.rate * (self.real() - self.start)


def fitted_on(monkeypatch, rate: float, **options):
    """``sw.fit`` on :func:`raw_table` with the clock of a machine ``rate`` times slower."""
    X, y = raw_table()
    with monkeypatch.context() as patch:
        patch.setattr(time, "perf_counter", Clock(rate))
        return sw.fit(X, y, coef_range=(-3, 3), time_limit=LIMIT, **options)


@pytest.mark.slow
def test_the_choice_and_the_card_are_the_same_on_a_50x_slow_and_a_fast_clock(monkeypatch):
    monkeypatch.setattr(size_cv, "FOLD_WORK", TIGHT)
    slow = fitted_on(monkeypatch, 50.0)
    fast = fitted_on(monkeypatch, 1 / 50)
    candidates = slow.details["size_cv"]["candidates"]
    # the work, not a proof, ended some fold fits: their cards are what the work found
    assert any(r["optimal_folds"] < 5 for r in candidates), candidates
    assert slow.details["size_cv"] == fast.details["size_cv"]
    assert (slow.points, slow.threshold, slow.status) == (fast.points, fast.threshold, fast.status)
    assert slow.details["size_cv"]["work_per_fit"]["scan"]["walk_work"] == 2e5


#: A risk card's fold work small enough that the work, not a proof, ends some fold fits.
RISK_TIGHT = size_cv.FoldWork(
    search_sweeps=1, scan=ScanLimits(scan_work=2e4, walk_work=2e5), search_rounds=2, tree_nodes=3
)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::slimwidgets.DegenerateCardWarning")  # a fold's size-1 card
def test_a_risk_cards_choice_and_card_are_the_same_on_a_50x_slow_and_a_fast_clock(monkeypatch):
    monkeypatch.setattr(size_cv, "FOLD_WORK", RISK_TIGHT)
    slow = fitted_on(monkeypatch, 50.0, loss="logistic")
    fast = fitted_on(monkeypatch, 1 / 50, loss="logistic")
    choice = slow.details["size_cv"]
    assert choice["measure"] == "log-loss" and not choice.get("skipped")
    # the work, not a proof, ended some fold fits: their cards are what the work found
    assert any(r["optimal_folds"] < 5 for r in choice["candidates"]), choice
    assert choice == fast.details["size_cv"]
    assert (slow.points, slow.intercept, slow.multiplier, slow.status) == (
        fast.points,
        fast.intercept,
        fast.multiplier,
        fast.status,
    )
    assert choice["work_per_fit"]["tree_nodes"] == 3


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::slimwidgets.DegenerateCardWarning")
def test_a_risk_fold_fit_the_seconds_end_is_left_out_of_the_choice(monkeypatch):
    """The safety net in seconds, not the work, ended the proof of every fold fit: no fold is
    part of the choice, which says it had no time, and the card is fit at the largest size."""
    from slimwidgets.solvers.risk_branch_and_bound import SupportTree, prove_by_supports

    def out_of_time(prob, card, **how):
        return prove_by_supports(prob, card, **{**how, "deadline": -math.inf})

    # the risk family's proof by supports, as the fit asks it of the family's loss
    monkeypatch.setattr(SupportTree, "__call__", staticmethod(out_of_time))
    X, y = raw_table()
    card = sw.fit(X, y, loss="logistic", coef_range=(-3, 3), time_limit=LIMIT)
    choice = card.details["size_cv"]
    assert "no time for the size CV" in choice["skipped"] and choice["candidates"] == []


def small_form():
    X, y = raw_table()
    rules = sw.RuleBuilder(n_cuts=9).fit_transform(X)
    data = prepare_data(rules, np.where(y == 1, 1, -1), warn=False)
    return build_formulation(data, sw.make_spec(max_size=4, coef_range=(-3, 3)))


def test_the_first_search_ends_on_its_work_at_any_clock_rate(monkeypatch):
    form = small_form()
    found = []
    for rate in (50.0, 1 / 50):
        with monkeypatch.context() as patch:
            patch.setattr(time, "perf_counter", Clock(rate))
            found.append(local_search(form, time_budget=LIMIT, max_work=2e5))
    (a, b) = found
    assert not a.all_starts  # the work ran out before every start was tried
    assert (a.coefficients.tolist(), a.intercept, a.starts) == (
        b.coefficients.tolist(),
        b.intercept,
        b.starts,
    )


def test_a_risk_search_ends_on_its_rounds_at_any_clock_rate(monkeypatch):
    """A risk card's search given a count of supports to round stops on it, before its own end,
    with the same card on a 50x slow and a fast clock."""
    from slimwidgets.solvers import logistic

    X, y = raw_table()
    rules = sw.RuleBuilder(n_cuts=9).fit_transform(X)
    spec = sw.make_spec(loss="logistic", max_size=4, coef_range=(-3, 3))
    prob = logistic.RiskProblem.from_spec(prepare_data(rules, y.to_numpy(), warn=False), spec)
    stops: list = []
    counted = logistic._Stop

    def watched(*args):
        stops.append(counted(*args))
        return stops[-1]

    monkeypatch.setattr(logistic, "_Stop", watched)
    logistic.search_risk(prob)
    natural = stops[-1].rounds
    found = []
    for rate in (50.0, 1 / 50):
        with monkeypatch.context() as patch:
            patch.setattr(time, "perf_counter", Clock(rate))
            found.append(logistic.search_risk(prob, time_limit=LIMIT, max_rounds=3))
        assert stops[-1].rounds == 3 < natural
    (a, b) = found
    assert (a.coefficients.tolist(), a.intercept, a.t) == (
        b.coefficients.tolist(),
        b.intercept,
        b.t,
    )


def test_the_first_search_of_a_fit_is_given_sweeps_of_its_rows_not_a_share_of_the_limit():
    form = small_form()
    n, p = form.data.X.shape
    assert driver.first_search_work(form) == driver.FIRST_SEARCH_SWEEPS * n * p
    assert driver.first_search_work(form, size_cv.FOLD_WORK) == (
        size_cv.FOLD_WORK.search_sweeps * n * p
    )
    limit = sw.make_spec(time_limit=10)
    # the seconds are a safety net: all the time left, not a quarter of the limit
    assert driver._first_search_seconds(limit, 1.0, time.perf_counter()) > 10 / 4


@pytest.mark.seeds(30)
def test_a_fold_fit_scans_only_above_the_size_its_warm_start_proved(seed):
    """Warm-started from the proven best card of k - 1 rules on the same rows, a fold fit's scan
    starts at k rules (its cost carried over): its card is still the brute-force best of at
    most k rules."""
    from brute import enumerate_cards

    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(8, 15)), int(rng.integers(3, 5))
    X = pd.DataFrame(rng.integers(0, 2, (n, p)), columns=[f"f{j}" for j in range(p)])
    y = rng.choice([-1, 1], n)
    y[0], y[1] = 1, -1
    k = int(rng.integers(2, p + 1))
    box = dict(coef_range=(-2, 2), intercept_range=(-6, 6), solver="scan")
    box["C0"] = float(rng.choice([0.0, 0.02, 0.08]))
    budget = size_cv.FoldWork(search_sweeps=1, scan=ScanLimits(math.inf, math.inf))
    cost: dict = {}
    with size_cv._counted_work(budget, cost):
        smaller = sw.fit(X, y, max_size=k - 1, **box)
        assert smaller.status == "optimal" and cost["per_support"] > 0
        card = sw.fit(X, y, max_size=k, warm_start=smaller, **box)
    spec = sw.make_spec(max_size=k, **box)
    form = build_formulation(prepare_data(X, y, warn=False), spec)
    cards = enumerate_cards(X.to_numpy(), y, list(X.columns), spec)
    best = min(form.objective_of(q, b) for q, b in zip(cards["points"], cards["intercept"]))
    assert card.status == "optimal"
    assert card.objective == pytest.approx(best, abs=1e-9)
