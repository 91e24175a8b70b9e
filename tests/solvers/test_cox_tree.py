"""The proof for time-to-event cards against brute force on many tiny problems."""

from __future__ import annotations

import math

import numpy as np
import pytest
from brute_cox import T_RANGE, best_t, brute_optimum, cards, cox_loss, efron_loss, tiny_survival

from slimwidgets.core.cox_floor import best_scale_of, node_floor
from slimwidgets.core.survival import CoxCells
from slimwidgets.solvers.cox_tree import CoxProblem, empty_card, prove_cox


def _problem(seed, box=(-2, 2), max_size=2, C0=0.01, binary=True, ties="breslow"):
    X, time, event, w = tiny_survival(seed, binary=binary)
    allowed = [np.arange(box[0], box[1] + 1)] * X.shape[1]
    C0 = np.full(X.shape[1], C0)
    return CoxProblem(X, time, event, w, allowed, C0, max_size, T_RANGE, ties)


@pytest.mark.seeds(12)
def test_the_cells_loss_is_the_row_by_row_loss(seed):
    X, time, event, w = tiny_survival(seed)
    v = np.random.default_rng(seed).normal(0, 1, X.shape[1])
    assert CoxCells(X, time, event, w).value(v) == pytest.approx(
        cox_loss(X, time, event, w, v, 1.0), abs=1e-12
    )


@pytest.mark.seeds(6)
def test_the_gradient_and_hessian_are_the_loss_s_derivatives(seed):
    X, time, event, w = tiny_survival(seed)
    cells, v, h = CoxCells(X, time, event, w), np.random.default_rng(seed).normal(0, 1, 3), 1e-6
    _, g, H = cells.value_gradient_hessian(v)
    for k in range(3):
        step = np.eye(3)[k] * h
        assert g[k] == pytest.approx(
            (cells.value(v + step) - cells.value(v - step)) / (2 * h), abs=1e-7
        )
        g_up, g_down = (
            cells.value_gradient_hessian(v + step)[1],
            cells.value_gradient_hessian(v - step)[1],
        )
        assert H[:, k] == pytest.approx((g_up - g_down) / (2 * h), abs=1e-6)


@pytest.mark.seeds(8)
def test_a_card_s_multiplier_is_the_best_one_and_its_floor_holds(seed):
    X, time, event, w = tiny_survival(seed)
    points = np.random.default_rng(seed).integers(-3, 4, 3).astype(float)
    cells = CoxCells(X, time, event, w)
    t, loss, floor = best_scale_of(cells, cells.values @ points, T_RANGE)
    brute_t, brute_loss = best_t(X, time, event, w, points)
    assert loss == pytest.approx(brute_loss, abs=1e-9) and loss <= brute_loss + 1e-12
    assert floor <= brute_loss + 1e-12


@pytest.mark.seeds(8)
def test_node_floors_are_below_every_card_of_the_node(seed):
    """The relaxation's floor of random sub-boxes never exceeds any card inside them."""
    X, time, event, w = tiny_survival(seed)
    rng = np.random.default_rng(100 + seed)
    lo = rng.integers(-3, 1, 3)
    hi = lo + rng.integers(0, 3, 3)
    floor, _ = node_floor(CoxCells(X, time, event, w), lo.astype(float), hi.astype(float), T_RANGE)
    least = min(
        best_t(X, time, event, w, p)[1]
        for p in cards([np.arange(a, b + 1) for a, b in zip(lo, hi)], 3)
    )
    assert floor <= least + 1e-10
    assert floor >= least - 0.05  # and useful: close to the least card (loose only by rounding)


@pytest.mark.seeds(16)
@pytest.mark.parametrize("max_size,C0", [(1, 0.0), (2, 0.01), (3, 0.05)])
def test_the_proof_finds_the_brute_force_optimum(seed, max_size, C0):
    prob = _problem(seed, max_size=max_size, C0=C0, binary=seed % 4 != 3)
    proof = prove_cox(prob)
    best, points = brute_optimum(
        prob.X, prob.time, prob.event, prob.weight, prob.allowed, prob.C0, max_size
    )
    assert proof.complete
    assert proof.card.objective == pytest.approx(best, abs=1e-8)
    assert proof.floor <= best + 1e-9 and proof.floor >= proof.card.objective - 1e-8
    assert np.count_nonzero(proof.card.points) <= max_size
    loss = cox_loss(prob.X, prob.time, prob.event, prob.weight, proof.card.points, proof.card.t)
    assert proof.card.loss == pytest.approx(loss, abs=1e-12)  # the card is what it says it is


def test_a_deadline_leaves_a_floor_below_the_optimum(monkeypatch):
    """Stopped after a few clock readings: optimal only when settled, and the floor still proven."""
    import slimwidgets.solvers.cox_tree as cox_tree

    prob = _problem(3, box=(-3, 3), max_size=2, C0=0.0)
    best, _ = brute_optimum(prob.X, prob.time, prob.event, prob.weight, prob.allowed, prob.C0, 2)
    settled = []
    for readings in (1, 3, 10, 30, 100, 300, 1000, 3000, 10**4, 10**5):
        ticks = iter(range(10**6))
        proof = prove_cox(prob, deadline=readings, clock=lambda: next(ticks))
        assert proof.floor <= best + 1e-9  # -inf when stopped before any floor was in
        assert proof.card.objective >= best - 1e-9
        if proof.complete:
            assert proof.card.objective == pytest.approx(best, abs=1e-8)
        settled.append(proof.complete)
    assert not settled[0] and settled[-1]  # stopped at first, settled with time
    monkeypatch.setattr(cox_tree, "WHOLE_BOX_SHARE", 0.0)  # supports' floors of "much" work
    ticks = iter(range(10**6))  # the whole box's floor first: a floor though stopped at once
    proof = prove_cox(
        _problem(3, box=(-3, 3), max_size=2, C0=0.0), deadline=3, clock=lambda: next(ticks)
    )
    assert not proof.complete and math.isfinite(proof.floor) and proof.floor <= best + 1e-9


@pytest.mark.seeds(6)
def test_too_many_supports_leave_the_whole_box_s_floor_and_a_card(monkeypatch, seed):
    """Past the supports' cap the floor over the whole box (every feature free) is stated, with
    the best card of the support its relaxation points to: a card with points, not the empty
    one, never better than the optimum."""
    import slimwidgets.solvers.cox_tree as cox_tree

    prob = _problem(seed, max_size=2, C0=0.0)
    best, _ = brute_optimum(prob.X, prob.time, prob.event, prob.weight, prob.allowed, prob.C0, 2)
    monkeypatch.setattr(cox_tree, "MAX_COX_SUPPORTS", 1)
    proof = prove_cox(prob)
    assert not proof.complete and proof.supports == 0
    assert math.isfinite(proof.floor) and proof.floor <= best + 1e-9
    assert best - 1e-9 <= proof.card.objective <= cox_tree.empty_card(prob).objective
    assert 0 < np.count_nonzero(proof.card.points) <= 2
    loss = cox_loss(prob.X, prob.time, prob.event, prob.weight, proof.card.points, proof.card.t)
    assert proof.card.loss == pytest.approx(loss, abs=1e-12)


@pytest.mark.seeds(8)
def test_efron_s_ties_are_proven_as_breslow_s(seed):
    prob = _problem(seed, max_size=2, C0=0.01, ties="efron")
    proof = prove_cox(prob)
    best, _ = brute_optimum(
        prob.X, prob.time, prob.event, prob.weight, prob.allowed, prob.C0, 2, efron_loss
    )
    assert proof.complete and proof.card.objective == pytest.approx(best, abs=1e-8)
    loss = efron_loss(prob.X, prob.time, prob.event, prob.weight, proof.card.points, proof.card.t)
    assert proof.card.loss == pytest.approx(loss, abs=1e-12)


@pytest.mark.seeds(4)
def test_a_proof_stopped_early_has_looked_at_the_strongest_feature_first(seed):
    """Stopped after its first support, a proof's card uses the feature that moves the hazard
    most, though it is the last column: supports are floored by first-order gain, not by
    column order."""
    rng = np.random.default_rng(seed)
    n = 60
    X = rng.integers(0, 2, (n, 4)).astype(float)
    time = np.ceil(rng.exponential(20.0 / np.exp(2.5 * X[:, 3])))
    event = rng.random(n) < 0.8
    allowed, C0 = [np.arange(-3, 4)] * 4, np.zeros(4)
    prob = CoxProblem(X, time, event, np.ones(n), allowed, C0, 1, T_RANGE)
    ticks = iter(range(10**6))
    start = empty_card(prob)  # no rounded start: the first support's card is the proof's
    proof = prove_cox(prob, deadline=0, clock=lambda: next(ticks), incumbent=start)
    assert not proof.complete and proof.supports == 1
    assert np.flatnonzero(proof.card.points).tolist() == [3]
