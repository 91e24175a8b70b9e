"""The proven floor under group rows (fitting/group_floor.py, fitting/group_dual.py): the floor
without the rows raised by Lagrangian bounds, checked against brute force on tiny problems, and
its phases' time kept inside the share they are given (fake clocks, never wall-clock speed)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.core.formulation import build_formulation
from slimwidgets.fitting import driver, group_dual, group_floor
from slimwidgets.fitting.group_dual import dual_floor, penalized_problem

from brute import enumerate_cards

BOX = dict(coef_range=(-3, 3), intercept_range=(-8, 8))
C0 = 0.01


def gapped_problem(seed: int):
    """Two groups whose rates differ, most of the time, under the best card without a gap."""
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(12, 20)), int(rng.integers(2, 4))
    X = rng.integers(0, 2, size=(n, p))
    groups = np.where(rng.random(n) < 0.5, "A", "B")
    y = np.where(rng.random(n) < 0.4 + 0.3 * (X[:, 0] == 1), 1, -1)
    for g, label in enumerate("AB"):  # every group holds both classes
        y[2 * g], y[2 * g + 1], groups[2 * g], groups[2 * g + 1] = 1, -1, label, label
    return X, y, [f"f{j}" for j in range(p)], groups


def settings(seed: int) -> dict:
    kind = seed % 4
    if kind == 3:
        return {"max_fpr_gap": 0.1, "max_tpr_gap": 0.3}
    return {["max_tpr_gap", "max_fpr_gap", "max_tpr_gap"][kind]: [0.0, 0.1, 0.2][seed % 3]}


def brute_best(X, y, names, spec, groups, epsilon):
    """The grouped problem's optimum in the program's units (loss + C0 size + eps L1), and the
    optimum without the group rows."""

    def best(cards):
        values = cards["loss"] + C0 * cards["size"] + epsilon * cards["l1"]
        return float(values.min()) if values.size else math.inf

    free = spec.replace(max_tpr_gap=None, max_fpr_gap=None)
    return best(enumerate_cards(X, y, names, spec, groups=groups)), best(
        enumerate_cards(X, y, names, free)
    )


def grouped_form(seed: int):
    X, y, names, groups = gapped_problem(9000 + seed)
    spec = sw.make_spec(C0=C0, **settings(seed), **BOX)
    data = prepare_data(X, y, feature_names=names, warn=False, sensitive_features=groups)
    return X, y, names, groups, spec, build_formulation(data, spec)


def meets_rows(form, points, intercept) -> bool:
    wrong = form.wrong_rows(points, intercept).astype(float)
    return all(float(row.coef @ wrong) <= row.upper + 1e-9 for row in form.rate_rows)


@pytest.mark.seeds(24)
def test_floor_never_passes_the_brute_force_optimum(seed):
    """The floor (without the rows, raised by the Lagrangian bounds) is at most the grouped
    optimum; a proven answer is that optimum; a card met on the way meets the rows."""
    X, y, names, groups, spec, form = grouped_form(seed)
    best, free = brute_best(X, y, names, spec, groups, form.epsilon)
    floor, answer, better = group_floor.group_free_floor(form, None, None, driver.fit_dataset)
    if not math.isfinite(best):
        assert answer is None and floor <= math.inf
        return
    assert free - 1e-12 <= floor <= best + 1e-12
    if answer is not None:
        assert answer.status == "optimal" and answer.objective == pytest.approx(best, abs=1e-12)
        assert meets_rows(form, answer.coefficients, answer.intercept)
    if better is not None:
        assert meets_rows(form, better[0], better[1]) and better[2] >= best - 1e-12
        assert better[2] == pytest.approx(form.objective_of(better[0], better[1]), abs=1e-15)


@pytest.mark.filterwarnings("ignore::slimwidgets.DegenerateCardWarning")
@pytest.mark.slow
def test_the_lagrangian_bounds_raise_the_floor_and_prove_optima():
    """Over the tiny problems whose best card without the rows breaks them, the Lagrangian
    bounds raise the floor above the optimum without the rows on some, and close on some
    (a penalized optimum that meets the rows at the floor: proven optimal)."""
    raised = closed = broken = 0
    for seed in range(40):
        X, y, names, groups, spec, form = grouped_form(seed)
        best, free = brute_best(X, y, names, spec, groups, form.epsilon)
        free_card = sw.fit(
            X, y, feature_names=names, spec=spec.replace(max_tpr_gap=None, max_fpr_gap=None)
        )
        points = np.array(free_card.coefficients, dtype=float)
        if not math.isfinite(best) or meets_rows(form, points, free_card.intercept):
            continue
        broken += 1
        result = dual_floor(form, free_card, free, None, None, None, driver.fit_dataset)
        assert result.floor <= best + 1e-12
        raised += result.floor > free + 1e-9
        if result.answer is not None:
            closed += 1
            assert result.answer.objective == pytest.approx(best, abs=1e-12)
        for probe in result.probes:
            assert probe.floor <= best + 1e-12 and probe.t > 0
    assert broken >= 10 and raised >= 3 and closed >= 1, (broken, raised, closed)


@pytest.mark.seeds(8)
@pytest.mark.slow
def test_the_penalized_problem_is_a_floor_card_by_card(seed):
    """For any multipliers, every card's penalized objective plus the constant is at most its
    objective plus the multipliers times its rows' excess (weak duality card by card), and the
    smallest of these is at most the grouped optimum."""
    X, y, names, groups, spec, form = grouped_form(seed)
    rng = np.random.default_rng(seed)
    multipliers = rng.random(len(form.rate_rows)) * rng.choice([0.1, 1.0, 5.0])
    penal_data, penal_spec, constant = penalized_problem(form, multipliers, None)
    penal_form = build_formulation(penal_data, penal_spec)
    cards = enumerate_cards(X, y, names, spec.replace(max_tpr_gap=None, max_fpr_gap=None))
    lowest = math.inf
    for points, intercept in zip(cards["points"], cards["intercept"]):
        wrong = form.wrong_rows(points, int(intercept)).astype(float)
        excess = sum(
            lam * (float(row.coef @ wrong) - row.upper) / float(np.maximum(row.coef, 0).sum())
            for lam, row in zip(multipliers, form.rate_rows)
        )
        value = penal_form.objective_of(points, int(intercept)) + constant
        assert value <= form.objective_of(points, int(intercept)) + excess + 1e-12
        lowest = min(lowest, value)
    best, _ = brute_best(X, y, names, spec, groups, form.epsilon)
    assert lowest <= best + 1e-12


class FakeClock:
    """``time`` for fitting/group_floor.py and group_dual.py: each look moves it on by ``step``."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 1000.0, step

    def perf_counter(self) -> float:
        self.now += self.step
        return self.now


@pytest.mark.parametrize("step", [0.001, 0.2])
def test_the_floors_end_by_their_share_of_the_time(monkeypatch, step):
    """Inner fits that would run long past their own limits (they stop only at their stop
    flag) still leave the floors' phases done by the time they may take, the MIP's share kept."""
    clock = FakeClock(step)
    monkeypatch.setattr(group_floor, "time", clock)
    monkeypatch.setattr(group_dual, "time", clock)
    seen = []

    def slow_fit(data, spec, *, cancel=None, warm_start=None):
        card = driver.fit_dataset(data, spec.replace(time_limit=None), warm_start=warm_start)
        seen.append((clock.now, spec.time_limit))
        for _ in range(10_000):  # a fit overrunning its limit: only its flag stops it
            if cancel is not None and cancel.is_set():
                break
            clock.now += 0.5
        return card

    time_left = 20.0
    for seed in range(6):
        X, y, names, groups, spec, form = grouped_form(seed)
        group_floor._PROVEN.clear()
        started = clock.now
        group_floor.group_free_floor(form, time_left, None, slow_fit)
        done = started + (1 - group_floor.MIP_SHARE) * time_left
        assert clock.now <= done + 0.5 + 2 * step
        assert all(at <= done and limit is not None and limit <= time_left for at, limit in seen)
