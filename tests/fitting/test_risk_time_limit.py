"""The time limit of a risk fit (fitting/risk_driver.py) covers the card's figures and checks after
the walk, the search and the proof: they end early by what those take on the problem, timed on
the card without points.
Fake clocks: each phase "takes" the time it is given; nothing depends on the machine's speed."""

from __future__ import annotations

import math

import pytest

from slimwidgets.core.data import prepare_data
from slimwidgets.core.family import RISK
from slimwidgets.core.spec import make_spec
from slimwidgets.datasets import load_demo
from slimwidgets.fitting import check_card, risk_driver

from fake_clock import FakeClock

LIMIT = 10.0


@pytest.fixture(scope="module")
def problem():
    X, y = load_demo(n_features=8)
    return prepare_data(X, y), make_spec(loss="logistic", max_fpr=0.3, time_limit=LIMIT)


@pytest.mark.parametrize("figures", [0.0, 0.7, 2.0])
def test_the_checked_risk_card_is_back_by_the_time_limit(monkeypatch, problem, figures):
    """The search and the proof each take all they are given and the card's figures take
    ``figures`` seconds: the card, checked, is still back by the limit."""
    clock = FakeClock()
    monkeypatch.setattr(risk_driver, "time", clock)
    real_search, real_card = RISK.loss.piece("search"), risk_driver._card
    proof_given = []

    def search(prob, *, time_limit, **kwargs):  # really 0.2 s at most
        card = real_search(prob, time_limit=min(time_limit, 0.2), **kwargs)
        clock.jump(time_limit)
        return card

    def prove(prob, spec, card, deadline, cancel):
        proof_given.append(deadline - clock.now)
        clock.now = max(clock.now, deadline)  # the proof runs to its deadline and proves nothing
        return None, card, "logistic search", "", False

    def figures_of(*args, **kwargs):
        clock.jump(figures)
        return real_card(*args, **kwargs)

    monkeypatch.setattr(RISK.loss, "search", search)
    monkeypatch.setattr(risk_driver, "_prove", prove)
    monkeypatch.setattr(risk_driver, "_card", figures_of)
    data, spec = problem
    risk_driver.ensure_compiled()
    RISK.loss.piece("scan").compile()
    started = clock.now
    card = risk_driver.fit_risk(data, spec)
    assert clock.now - started <= LIMIT
    assert proof_given and proof_given[0] > 0  # the proof still got its share
    assert card.status == "heuristic" and check_card(card, data, spec) == []


@pytest.mark.slow
def test_the_floor_of_the_whole_box_stops_at_the_proofs_deadline(monkeypatch, problem):
    """Where the tree by supports does not go (caps), the relaxation's floor is given the
    proof's own deadline, not a second past it, and is not started once that has passed (its
    first step alone can take seconds on many rows)."""
    data, spec = problem
    given = []
    real = RISK.loss.piece("floor")

    def floor(prob, deadline=math.inf, **kwargs):
        given.append(deadline)
        return real(prob, deadline=deadline, **kwargs)

    monkeypatch.setattr(RISK.loss, "floor", floor)
    monkeypatch.setattr(
        risk_driver, "_bound", lambda prob, spec, card, time_left, cancel: (None, card)
    )
    prob = RISK.loss.prepare(data, spec)
    card = RISK.loss.search(prob, time_limit=0.2)
    passed = risk_driver.time.perf_counter() - 1.0
    bound, found, _, _, _ = risk_driver._prove(prob, spec, card, passed, None)
    assert given == [] and bound is None and found is card  # no floor claimed, the card kept
    ahead = risk_driver.time.perf_counter() + 5.0
    bound, found, _, _, _ = risk_driver._prove(prob, spec, card, ahead, None)
    assert given == [ahead]
    assert bound is not None and bound <= found.objective + 1e-9
