"""The proof for time-to-event cards under ``require`` (a feature, or one of a group) and
``max_variables``, against brute force on many tiny problems: every card of the box listed, those
that break the option dropped, the least objective kept."""

from __future__ import annotations

import numpy as np
import pytest
from brute_cox import T_RANGE, brute_optimum, cox_loss, tiny_survival

from slimwidgets.solvers.cox_tree import CoxProblem, prove_cox, rounded_start

VARIABLES = (0, 0, 1, 1, 2)  # five rules of three variables


def _problem(seed, max_size, require=(), max_variables=None, C0=0.01):
    X, time, event, w = tiny_survival(seed, n_features=5)
    allowed = [np.arange(-1, 3)] * 5
    return CoxProblem(
        X,
        time,
        event,
        w,
        allowed,
        np.full(5, C0),
        max_size,
        T_RANGE,
        require=require,
        variables=VARIABLES if max_variables is not None else None,
        max_variables=max_variables,
    )


def _check(prob, keep):
    proof = prove_cox(prob)
    best, _ = brute_optimum(
        prob.X, prob.time, prob.event, prob.weight, prob.allowed, prob.C0, prob.max_size, keep=keep
    )
    assert proof.complete
    assert proof.card.objective == pytest.approx(best, abs=1e-8)
    assert proof.floor <= best + 1e-9
    assert keep(proof.card.points) and np.count_nonzero(proof.card.points) <= prob.max_size
    loss = cox_loss(prob.X, prob.time, prob.event, prob.weight, proof.card.points, proof.card.t)
    assert proof.card.loss == pytest.approx(loss, abs=1e-12)
    return proof


def _in_use(points) -> set[int]:
    return {VARIABLES[j] for j in np.flatnonzero(points)}


@pytest.mark.seeds(8)
@pytest.mark.parametrize("max_size", [1, 2])
def test_a_required_feature_is_on_every_card(seed, max_size):
    j = seed % 5
    _check(_problem(seed, max_size, require=((j,),), C0=0.05), lambda p: p[j] != 0)


@pytest.mark.seeds(8)
def test_a_required_group_has_a_feature_on_the_card(seed):
    group = (seed % 5, (seed + 2) % 5)
    prob = _problem(seed, 2, require=(group,), C0=0.05)
    _check(prob, lambda p: any(p[j] != 0 for j in group))


@pytest.mark.seeds(8)
@pytest.mark.parametrize("max_variables", [1, 2])
def test_max_variables_caps_the_variables_in_use(seed, max_variables):
    prob = _problem(seed, 3, max_variables=max_variables, C0=0.0)
    _check(prob, lambda p: len(_in_use(p)) <= max_variables)


@pytest.mark.seeds(6)
def test_require_and_max_variables_together(seed):
    group = (0, 4)  # variable 0 or variable 2
    prob = _problem(seed, 3, require=((2,), group), max_variables=2, C0=0.0)
    _check(prob, lambda p: p[2] != 0 and (p[0] != 0 or p[4] != 0) and len(_in_use(p)) <= 2)


@pytest.mark.seeds(12)
@pytest.mark.parametrize("max_size,max_variables", [(1, None), (3, 1), (3, 2), (5, None)])
def test_the_rounded_start_is_a_card_of_the_problem_at_its_stated_cost(
    seed, max_size, max_variables
):
    """The proof's starting card keeps the box (points in -1..2), the size and the variables,
    and its objective is its Cox loss at its multiplier plus C0 per rule: what it says."""
    prob = _problem(seed, max_size, max_variables=max_variables, C0=0.01)
    start = rounded_start(prob, lambda: False)
    assert start is not None
    points = start.points
    assert np.count_nonzero(points) <= max_size and set(points.tolist()) <= {-1, 0, 1, 2}
    assert max_variables is None or len(_in_use(points)) <= max_variables
    loss = cox_loss(prob.X, prob.time, prob.event, prob.weight, points, start.t)
    assert start.loss == pytest.approx(loss, abs=1e-12)
    assert start.objective == pytest.approx(loss + 0.01 * np.count_nonzero(points), abs=1e-12)
    keep = lambda p: max_variables is None or len(_in_use(p)) <= max_variables  # noqa: E731
    best, _ = brute_optimum(
        prob.X, prob.time, prob.event, prob.weight, prob.allowed, prob.C0, max_size, keep=keep
    )
    assert start.objective >= best - 1e-9


def test_the_rounded_start_stops_when_told():
    prob = _problem(0, 3)
    assert rounded_start(prob, lambda: True) is None
