"""sw.formulate: the program's variables in PuLP, the user's rows in it (issue
22), against brute force."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pulp
import pytest

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.core.formulation import build_formulation
from slimwidgets.solvers.search import local_search

from brute import best_objective, enumerate_cards

BOX = dict(coef_range=(-3, 3), intercept_range=(-8, 8), C0=0.01)


def tiny(seed: int):
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(8, 15)), 3
    X = pd.DataFrame(rng.integers(0, 2, size=(n, p)), columns=[f"f{j}" for j in range(p)])
    y = rng.choice([0, 1], size=n)
    y[0], y[1] = 1, 0
    return X, y


def random_rows(prog, seed: int):
    """Rows a user might write: sums of points, a difference, a use count, an equality."""
    pts, used = prog.points, prog.used
    kind = seed % 4
    if kind == 0:
        return [pts["f0"] + pts["f1"] <= 1]
    if kind == 1:
        return [pts["f0"] - pts["f2"] >= 1]
    if kind == 2:
        return [used["f0"] + used["f1"] + used["f2"] <= 1, pts["f1"] >= -1]
    return [pts["f0"] == 2 * pts["f1"]]


def value(card, X, y):
    total = X.to_numpy(float) @ np.array(card.coefficients, float) + card.intercept
    return float(((total >= 0) != (y == 1)).mean() + 0.01 * card.size)


@pytest.mark.parametrize("solver", ["auto", "highs", "cbc"])
@pytest.mark.seeds(12)
def test_user_rows_match_brute_force(seed, solver):
    X, y = tiny(100 + seed)
    prog = sw.formulate(X, y, solver=solver, **BOX)
    extended = prog.with_rows(random_rows(prog, seed))
    cards = enumerate_cards(X.to_numpy(), np.where(y == 1, 1, -1), list(X.columns), extended.spec)
    best = best_objective(cards, 0.01)
    card = prog.fit(extra=random_rows(prog, seed))
    assert card.status == "optimal" and value(card, X, y) == pytest.approx(best, abs=1e-12)
    for row in extended.spec.linear:
        assert row.holds(card.points)
    assert sw.check_card(card, prepare_data(X, y, warn=False), extended.spec) == []


@pytest.mark.seeds(12)
def test_the_search_holds_user_rows(seed):
    X, y = tiny(200 + seed)
    prog = sw.formulate(X, y, **BOX).with_rows([])
    extended = prog.with_rows(random_rows(prog, seed))
    found = local_search(build_formulation(extended.data, extended.spec), time_budget=2.0)
    cards = enumerate_cards(X.to_numpy(), np.where(y == 1, 1, -1), list(X.columns), extended.spec)
    if found.feasible:
        match = np.all(cards["points"] == found.coefficients, axis=1) & (
            cards["intercept"] == found.intercept
        )
        assert match.any()
    else:
        assert len(cards["loss"]) == 0


def test_pulp_solvers_give_the_same_card_and_the_program_writes(tmp_path):
    X, y = tiny(7)
    prog = sw.formulate(X, y, **BOX)
    extra = [prog.points["f0"] + prog.points["f1"] <= 1]
    ours = prog.fit(extra=extra)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # PuLP 3 deprecates its bundled CBC
        solvers = (pulp.HiGHS(msg=False), pulp.PULP_CBC_CMD(msg=False))
    for solver in solvers:
        theirs = prog.solve(solver, extra=extra)
        assert value(theirs, X, y) == pytest.approx(value(ours, X, y), abs=1e-12)
        assert theirs.status == "optimal" and theirs.solver.startswith("pulp:")
    lp = prog.write(str(tmp_path / "slim.lp"), extra=extra)
    text = open(lp).read()
    assert "points_f0_" in text and "used_f1_" in text
    mps = prog.write(str(tmp_path / "slim.mps"), extra=extra)
    _, back = pulp.LpProblem.fromMPS(mps)
    assert len(back.constraints) == len(prog.with_rows(extra).problem.constraints)


def test_rows_are_named_in_the_solved_for_line_and_survive_json():
    X, y = tiny(8)
    prog = sw.formulate(X, y, **BOX)
    card = prog.fit(extra=[prog.points["f0"] + prog.points["f1"] <= 1])
    back = sw.ScoringSystem.from_dict(card.to_dict())
    assert back.spec.linear == card.spec.linear
    from slimwidgets.core.wording import describe_spec

    assert "points[f0] + points[f1] \u2264 1" in describe_spec(card.spec)


def test_bad_rows_are_refused_with_the_reason():
    X, y = tiny(9)
    prog = sw.formulate(X, y, **BOX)
    with pytest.raises(TypeError, match="PuLP constraint"):
        prog.fit(extra=["f0 <= 1"])
    stray = pulp.LpProblem("other").add_variable("mine")
    with pytest.raises(ValueError, match="no points or used variable"):
        prog.fit(extra=[prog.points["f0"] + stray <= 1])
    with pytest.raises(KeyError, match="unknown features"):
        sw.fit(X, y, linear=[{"terms": {"points:nope": 1}, "upper": 1}])
    with pytest.raises(ValueError, match="cannot hold"):
        sw.fit(X, y, linear=[{"terms": {"points:f0": 1}, "upper": 1}], solver="scan")


def test_a_clash_names_the_users_row():
    X, y = tiny(10)
    prog = sw.formulate(X, y, **BOX)
    clash = prog.used["f0"] + prog.used["f1"] >= 2
    with pytest.raises(sw.InfeasibleError) as info:
        prog.fit(extra=[clash, prog.points["f0"] + prog.points["f1"] <= -7])
    message = str(info.value)
    # minimal: the sum cannot go below -6 in the box -3..3, whatever the use row says
    assert "points[f0] + points[f1] \u2264 -7" in message and "points range -3..3" in message
    assert "used[" not in message


def test_the_search_never_calls_a_card_that_breaks_a_row_by_a_fraction_feasible():
    """A row broken by less than one unit (fractional coefficients) still
    makes a card infeasible."""
    X, y = tiny(11)
    prog = sw.formulate(X, y, **BOX)
    extended = prog.with_rows(
        [
            0.5 * prog.points["f0"] + 0.5 * prog.points["f1"] <= 0.25,
            0.5 * prog.points["f0"] + 0.5 * prog.points["f1"] >= 0.1,
        ]
    )
    found = local_search(build_formulation(extended.data, extended.spec), time_budget=1.0)
    assert not found.feasible  # points are integers: half their sum is never in [0.1, 0.25]
