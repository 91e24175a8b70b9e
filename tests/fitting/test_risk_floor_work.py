"""Outside the cell path, whether a risk fit's proof by supports floors every support or states
the floor over the whole box is a choice on counted work (supports x rows against the time
limit's share), never on the pace of the clock: the same table gives the same card, status and
floor on a machine 50 times slower or faster, and when a burst of load stalls the first floors
(fake clocks; no test here depends on the real speed)."""

from __future__ import annotations

import time

import numpy as np

import slimwidgets as sw
from slimwidgets.fitting import risk_driver
from slimwidgets.solvers import risk_branch_and_bound

#: Seconds of the fits here: far above what the work takes even on the 50x slow clock.
LIMIT = 120.0


class Clock:
    """``time.perf_counter`` as a machine ``rate`` times slower would see it, plus ``stalled``
    seconds that a burst of load took from the fit."""

    def __init__(self, rate: float) -> None:
        self.rate, self.real, self.stalled = rate, time.perf_counter, 0.0
        self.start = self.real()

    def __call__(self) -> float:
        return self.start + self.rate * (self.real() - self.start) + self.stalled


def counts_table() -> tuple[np.ndarray, np.ndarray]:
    """120 rows of 15 counts 0-2 (not 0/1, so the supports are not floored over cells): 3,003
    supports of 5, more than one chunk of the compiled floors."""
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, size=(120, 15))
    score = X[:, 0] - X[:, 1] + 2 * X[:, 2] - 2
    return X, (score + rng.normal(0, 1.5, 120) > 0).astype(int)


def fitted_on(monkeypatch, clock: Clock) -> sw.ScoringSystem:
    """A 5-rule risk card of :func:`counts_table` as seen by ``clock``."""
    X, y = counts_table()
    with monkeypatch.context() as patch:
        patch.setattr(time, "perf_counter", clock)
        return sw.fit(
            X, y, loss="logistic", max_size=5, coef_range=(-3, 3), time_limit=LIMIT, rules=False
        )


def outcome(card: sw.ScoringSystem) -> tuple:
    """What must not depend on the clock: the card, its status, its floor and how it was had."""
    return dict(card.points), card.intercept, card.multiplier, card.status, card.bound, card.solver


def test_the_floors_and_the_card_are_the_same_on_a_50x_slow_and_a_fast_clock(monkeypatch):
    slow = fitted_on(monkeypatch, Clock(50.0))
    fast = fitted_on(monkeypatch, Clock(1 / 50))
    assert outcome(slow) == outcome(fast)
    assert slow.status == "optimal" and "branch and bound" in slow.solver
    assert slow.details["support_proof"] == fast.details["support_proof"]
    assert slow.details["support_proof"].startswith("not over cells: a usable feature")


def test_a_burst_of_load_in_the_first_floors_does_not_give_them_up(monkeypatch):
    """The first chunk of floors reads as 100 s on a 120 s limit: at that pace the rest would
    not be done in time, but the floors are a choice on work; they go on and prove the card."""
    calm = fitted_on(monkeypatch, Clock(1.0))
    stressed, floors = Clock(1.0), risk_branch_and_bound.support_floors
    chunks = []

    def stalled_floors(*args):
        supports = args[6].shape[0]
        if supports > 1:  # a chunk of the proof's floors (not the kernels' compile)
            stressed.stalled += 0.0 if chunks else 100.0
            chunks.append(supports)
        return floors(*args)

    monkeypatch.setattr(risk_branch_and_bound, "support_floors", stalled_floors)
    burst = fitted_on(monkeypatch, stressed)
    assert len(chunks) > 1  # the burst fell on the first of several chunks
    assert outcome(burst) == outcome(calm)
    assert burst.status == "optimal"


def test_too_much_floor_work_gives_the_whole_box_floor_on_any_clock(monkeypatch):
    """3,003 supports x 120 rows is more than the limit's share once the rate is 1 per second:
    the floor is over the whole box, the same on both clocks."""
    monkeypatch.setattr(risk_driver, "FLOOR_WORK_PER_SECOND", 1.0)
    slow = fitted_on(monkeypatch, Clock(50.0))
    fast = fitted_on(monkeypatch, Clock(1 / 50))
    assert outcome(slow) == outcome(fast)
    assert "3,003 supports times 120 rows is more work" in slow.details["support_proof"]
    assert slow.bound is not None and slow.bound <= slow.objective
