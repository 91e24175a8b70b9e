"""The part of a fit's bound proven by counted work (``card.details["bound_by_work"]``): the
support scan's floor when "auto" gives the scan up at its work limits and hands over to the MIP.
It is a valid floor (brute force) and the same whatever the clock says (a fake clock)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import slimwidgets as sw
from slimwidgets.fitting import driver as fitting
from slimwidgets.solvers import scan
from slimwidgets.solvers.base import SolveResult
from slimwidgets.solvers.scan import ScanLimits
from slimwidgets.solvers.search import SearchResult

from brute import enumerate_cards

SPEC = dict(C0=0.02, coef_range=(-2, 2), intercept_range=(-5, 5))


def near_separable(seed: int):
    """Binary features where three rules nearly separate the classes (8 labels flipped)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(60, 6))
    y = np.where(X[:, 0] + X[:, 1] - X[:, 2] >= 1, 1, -1)
    y[rng.integers(0, 60, size=8)] *= -1
    return X, y, [f"f{j}" for j in range(6)]


@pytest.fixture
def hand_over(monkeypatch):
    """ "auto" scans (no walk of every card, no proof by size first) and gives the scan up as soon
    as it has to walk a support: the MIP proves the rest."""
    monkeypatch.setattr(fitting, "ENUMERATION_WORK", -1.0)
    monkeypatch.setattr(fitting, "SIZE_MIPS_FIRST", -1)
    monkeypatch.setattr(fitting, "SCAN_LIMITS", ScanLimits(scan_work=1e9, walk_work=0.0))


class StressedClock:
    """A stand-in for the ``time`` module whose ``perf_counter`` moves ``step`` seconds at each
    call: a machine that many times slower (or frozen, with 0)."""

    def __init__(self, step: float):
        self.now, self.step = 0.0, step

    def perf_counter(self) -> float:
        self.now += self.step
        return self.now


@pytest.mark.seeds(3)
def test_the_bound_by_work_is_a_floor_of_the_optimum(seed, hand_over):
    X, y, names = near_separable(seed + 1)  # seed 0: the scan proves it before any walk
    spec = sw.make_spec(**SPEC)
    cards = enumerate_cards(X, y, names, spec)
    best = float((cards["loss"] + 0.02 * cards["size"]).min())
    card = sw.fit(X, y, feature_names=names, spec=spec)
    assert card.status == "optimal" and card.solver != "scan"  # handed over, then proven
    by_work = card.details["bound_by_work"]
    # more than the penalties of one feature: the scan settled the cards of 0 and 1 feature
    assert 0.02 < by_work <= best + 1e-9


@pytest.mark.seeds(3)
def test_the_bound_by_work_does_not_depend_on_the_clock(seed, hand_over, monkeypatch):
    """The same fit (no time limit, so no deadline to meet) under a frozen clock and under one
    running an hour per look: the same bound by work (the scan gives up on counted work only,
    whatever the seconds it measures)."""
    X, y, names = near_separable(seed + 1)  # seed 0: the scan proves it before any walk
    spec = sw.make_spec(**SPEC, time_limit=None)
    seen = []
    for step in (0.0, 3600.0):
        monkeypatch.setattr(scan, "time", StressedClock(step))
        seen.append(sw.fit(X, y, feature_names=names, spec=spec).details["bound_by_work"])
    assert seen[0] == seen[1]


def test_a_fit_that_is_not_handed_over_states_no_bound_by_work(monkeypatch):
    """A fit the scan proves alone has no hand-over: no part of its bound is said by work."""
    monkeypatch.setattr(fitting, "ENUMERATION_WORK", -1.0)
    monkeypatch.setattr(fitting, "SIZE_MIPS_FIRST", -1)
    X, y, names = near_separable(0)
    card = sw.fit(X, y, feature_names=names, spec=sw.make_spec(**SPEC))
    assert card.solver == "scan" and "bound_by_work" not in card.details


def test_the_first_search_card_keeps_the_bound_by_work():
    """When the MIP ends without beating the first search's card, that card is kept with the
    solver's bound and the part of it proven by work."""
    stopped = SolveResult(
        "no_solution", None, None, None, 0.05, math.inf, 1.0, "highs", work_bound=0.04
    )
    found = SearchResult(np.array([1]), 0, 0.2, True, 0.1, 1, True)
    kept = fitting._search_card(stopped, found, None)
    assert kept.objective == 0.2 and kept.bound == 0.05 and kept.work_bound == 0.04
