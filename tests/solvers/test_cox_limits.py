"""The proof of time-to-event cards under its time limit: stopped on counted work, its strategy
chosen on counted work (the same card at any load), the whole box's loss row by row."""

from __future__ import annotations

import functools
import itertools
import math
import threading

import numpy as np
import pytest
from brute_cox import T_RANGE, brute_optimum, tiny_survival

import slimwidgets.solvers.cox_tree as cox_tree
from slimwidgets.core.cox_floor import node_floor
from slimwidgets.core.survival import CoxCells, CoxRows
from slimwidgets.solvers.cox_tree import CoxProblem, prove_cox


def _problem(seed: int, n: int = 40, p: int = 6, max_size: int = 2) -> CoxProblem:
    """A small problem with more features than the tiny ones: many supports, many cells."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, p)).astype(float)
    time = np.ceil(rng.exponential(5.0 / np.exp(X @ rng.normal(0, 0.7, p)))).clip(1, 20)
    event = rng.random(n) < 0.7
    event[0] = True
    allowed = [np.arange(-2, 3)] * p
    return CoxProblem(X, time, event, np.ones(n), allowed, np.full(p, 0.005), max_size, T_RANGE)


@functools.cache
def _optimum(seed: int, p: int = 6, max_size: int = 2) -> float:
    prob = _problem(seed, p=p)
    return brute_optimum(
        prob.X, prob.time, prob.event, prob.weight, prob.allowed, prob.C0, max_size
    )[0]


class _WorkClock:
    """A clock that reads the work done: one tick per loss evaluation with its derivatives."""

    def __init__(self, monkeypatch):
        self.evaluations = 0
        for cls in (CoxCells, CoxRows):
            original = cls.value_gradient_hessian

            def counted(loss, v, original=original):
                self.evaluations += 1
                return original(loss, v)

            monkeypatch.setattr(cls, "value_gradient_hessian", counted)

    def __call__(self) -> float:
        return float(self.evaluations)


@pytest.mark.seeds(4)
def test_the_rows_loss_is_the_cells_loss(seed):
    X, time, event, w = tiny_survival(seed, n_features=3)
    v = np.random.default_rng(seed).normal(0, 1, 3)
    cells, rows = CoxCells(X, time, event, w), CoxRows(X, time, event, w)
    assert rows.value(v) == pytest.approx(cells.value(v), abs=1e-12)
    for a, b in zip(rows.value_gradient_hessian(v), cells.value_gradient_hessian(v)):
        assert np.allclose(a, b, atol=1e-12)


@pytest.mark.parametrize("whole_box_share", [math.inf, 0.0])
@pytest.mark.parametrize("cap", [cox_tree.MAX_COX_SUPPORTS, 1])
def test_the_proof_stops_within_a_few_evaluations_of_its_deadline(
    monkeypatch, whole_box_share, cap
):
    """Whatever stage the deadline falls in (the whole box's floor, the supports' floors, the
    branch and bound), the proof returns within a few loss evaluations of it, with a valid
    floor."""
    monkeypatch.setattr(cox_tree, "WHOLE_BOX_SHARE", whole_box_share)
    monkeypatch.setattr(cox_tree, "MAX_COX_SUPPORTS", cap)
    prob, best = _problem(1), _optimum(1)
    for deadline in (0, 1, 2, 5, 10, 30, 100):
        clock = _WorkClock(monkeypatch)
        proof = prove_cox(prob, deadline=deadline, clock=clock)
        assert clock.evaluations <= deadline + 4
        assert proof.floor <= best + 1e-9 <= proof.card.objective + 2e-9


def test_a_stopped_node_floor_is_still_a_floor():
    """Cut short after k evaluations, the box's floor is looser but never above a card in it."""
    prob = _problem(2, p=3)
    cells = CoxCells(prob.X, prob.time, prob.event, prob.weight)
    lo, hi = np.full(3, -2.0), np.full(3, 2.0)
    best, _ = brute_optimum(
        prob.X, prob.time, prob.event, prob.weight, prob.allowed, 0 * prob.C0, 3
    )
    floors = []
    for k in (0, 1, 3, 10, 10**6):
        readings = itertools.count()
        floors.append(node_floor(cells, lo, hi, T_RANGE, stop=lambda: next(readings) >= k)[0])
        assert floors[-1] <= best + 1e-10
    assert floors[-1] >= max(floors) - 1e-12  # the full floor is the tightest


def _stalling_clock(stall: float):
    """A clock of a nanosecond a reading that jumps ``stall`` seconds at its fifth reading."""
    readings = itertools.count()

    def clock() -> float:
        k = next(readings)
        return k * 1e-9 + (stall if k >= 5 else 0.0)

    return clock


@pytest.mark.parametrize("whole_box_share", [math.inf, 0.0])
def test_the_strategy_is_chosen_on_counted_work_not_the_clock(monkeypatch, whole_box_share):
    """A proof that finishes within its limit does the same work, and gives the same card,
    floor and status, on an idle machine and on one whose load stalls the first support's floor
    (a pace read from the clock would then say the supports cannot all be in by the deadline)."""
    monkeypatch.setattr(cox_tree, "WHOLE_BOX_SHARE", whole_box_share)
    calls = []
    whole_box_floor = cox_tree._whole_box_floor
    monkeypatch.setattr(
        cox_tree, "_whole_box_floor", lambda *a: calls.append(1) or whole_box_floor(*a)
    )
    prob, results = _problem(3), []
    for stall in (0.0, 1e6):  # seconds lost to other work after the fifth reading
        proof = prove_cox(prob, deadline=5e6, clock=_stalling_clock(stall))
        results.append((proof.card.points.tolist(), proof.card.objective, proof.floor))
        results[-1] += (proof.complete, proof.supports, proof.nodes, len(calls))
        calls.clear()
    assert results[0] == results[1]
    assert results[0][3] and results[0][-1] == (whole_box_share == 0.0)


def test_a_cancel_stops_the_proof_with_its_best_card():
    """Setting ``cancel`` stops the proof at its next check: not complete, a valid floor. (A
    support's floor is one compiled call: the proof checks between supports and nodes.)"""
    prob, best = _problem(4), _optimum(4)
    cancel, readings = threading.Event(), itertools.count()

    def clock() -> float:
        if next(readings) == 5:
            cancel.set()
        return 0.0

    proof = prove_cox(prob, clock=clock, cancel=cancel)
    assert not proof.complete and next(readings) <= 8
    assert proof.floor <= best + 1e-9 <= proof.card.objective + 2e-9
