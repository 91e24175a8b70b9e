"""Settings by variable (issue 19: max_variables, max_cuts_per_variable, monotone, require by
variable) against brute force on tiny problems, on every proof path of both card families."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.core.formulation import build_formulation
from slimwidgets.solvers.search import local_search

from brute import best_objective, enumerate_cards, row_errors, variables_ok
from brute_risk import best_risk_card
from tiny_problems import (
    BOX,
    VARIABLE_CUTS,
    force_proof_by_size,
    random_variable_options,
    spec_or_skip,
    tiny_variable_problem,
)

# the decision card's proof paths: the MIP, the walk, the scan, the proof by size (forced
# below, as in test_exactness) and CBC on the PuLP model
SOLVERS = ["highs", "enumerate", "scan", "by_size", "cbc"]


@pytest.fixture(autouse=True)
def by_size(request, monkeypatch):
    """For solver "by_size": "auto" walks cards of up to 0 or 1 features and gives every larger
    size its own MIP (:mod:`slimwidgets.solvers.decomposition`)."""
    params = getattr(request.node, "callspec", None)
    if params is None or params.params.get("solver") != "by_size":
        return
    force_proof_by_size(monkeypatch, params.params.get("seed", 0) % 2)


def _value(card, X, y, C0, zero_score):
    total = X @ np.array(card.coefficients, float) + card.intercept
    return row_errors(total, y, zero_score).mean() + C0 * card.size


def _solver(solver):
    if solver == "cbc":
        pytest.importorskip("pulp")
    return "auto" if solver == "by_size" else solver


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.seeds(20)
@pytest.mark.slow
def test_settings_by_variable_match_brute_force(seed, solver):
    rng = np.random.default_rng(500 + seed)
    X, y, names, variables = tiny_variable_problem(500 + seed)
    C0 = float(rng.choice([0.01, 0.05]))
    zero_score = ["positive", "error"][seed % 2]
    spec = spec_or_skip(
        **random_variable_options(rng, variables),
        C0=C0,
        zero_score=zero_score,
        solver=_solver(solver),
        **BOX,
    )
    cards = enumerate_cards(X, y, names, spec)
    if len(cards["loss"]) == 0:  # no card: the fit says which settings clash
        pytest.raises(sw.InfeasibleError, sw.fit, X, y, feature_names=names, spec=spec)
        return
    card = sw.fit(X, y, feature_names=names, spec=spec)
    assert card.status == "optimal" and card.gap == 0
    assert _value(card, X, y, C0, zero_score) == pytest.approx(best_objective(cards, C0), abs=1e-12)
    assert variables_ok(spec, names, [card.coefficients])[0]
    assert sw.check_card(card, prepare_data(X, y, feature_names=names, warn=False), spec) == []


@pytest.mark.seeds(10)
def test_the_search_never_returns_a_card_that_breaks_them(seed):
    rng = np.random.default_rng(700 + seed)
    X, y, names, variables = tiny_variable_problem(700 + seed, n=30)
    spec = spec_or_skip(**random_variable_options(rng, variables), C0=0.0, **BOX)
    found = local_search(
        build_formulation(prepare_data(X, y, feature_names=names, warn=False), spec),
        time_budget=0.3,
    )
    if found.feasible:
        assert variables_ok(spec, names, [found.coefficients])[0]
    # a fit stopped at once returns the search's card, checked (never one that breaks them)
    try:
        card = sw.fit(X, y, feature_names=names, spec=spec.replace(time_limit=0.05))
    except (sw.InfeasibleError, sw.NoSolutionError):
        return
    assert variables_ok(spec, names, [card.coefficients])[0]


def test_a_raw_table_gets_its_variables_and_the_settings_hold():
    X, y, names, variables = tiny_variable_problem(3, n=40)
    raw = pd.DataFrame({"a": X[:, :3].sum(axis=1), "b": X[:, 3:5].sum(axis=1), "c": X[:, 5]})
    card = sw.fit(
        raw, y, cuts=VARIABLE_CUTS, rules=True, max_variables=1, monotone={"a": "-"}, C0=0.01, **BOX
    )
    assert card.spec.variables == variables and card.status == "optimal"
    spec = card.spec
    cards = enumerate_cards(X, y, names, spec)
    assert _value(card, X, y, 0.01, "positive") == pytest.approx(
        best_objective(cards, 0.01), abs=1e-12
    )
    assert (
        len({name.split(" ")[0] for name, v in zip(card.feature_names, card.coefficients) if v})
        <= 1
    )


def test_require_by_variable_asks_for_one_of_its_rules():
    X, y, names, variables = tiny_variable_problem(4, n=40)
    raw = pd.DataFrame({"a": X[:, :3].sum(axis=1), "b": X[:, 3:5].sum(axis=1), "c": X[:, 5]})
    card = sw.fit(
        raw, y, cuts=VARIABLE_CUTS, rules=True, require=["b"], exclude=["a"], C0=0.2, **BOX
    )
    used = [n for n, v in zip(card.feature_names, card.coefficients) if v]
    assert any(n.startswith("b >=") for n in used) and not any(n.startswith("a >=") for n in used)
    assert card.spec.constraints[0].describe() == "at least 1 of b >= 1, b >= 2"


def test_clashes_are_explained():
    X, y, names, variables = tiny_variable_problem(5, n=20)
    spec = sw.make_spec(
        variables=variables, max_cuts_per_variable=1, require=["a >= 1", "a >= 2"], **BOX
    )
    with pytest.raises(sw.InfeasibleError) as info:
        sw.fit(X, y, feature_names=names, spec=spec)
    assert set(info.value.conflicts) == {
        "max_cuts_per_variable=1",
        "require 'a >= 1'",
        "require 'a >= 2'",
    }
    spec = sw.make_spec(
        variables=variables,
        max_variables=1,
        require=["b >= 1"],
        coef_ranges={"a >= 1": (1, 3)},
        **BOX,
    )
    with pytest.raises(sw.InfeasibleError) as info:
        sw.fit(X, y, feature_names=names, spec=spec)
    assert "max_variables=1" in info.value.conflicts and "require 'b >= 1'" in info.value.conflicts


def test_settings_that_cannot_hold_or_mean_nothing_are_refused_by_name():
    _, _, names, variables = tiny_variable_problem(6)
    with pytest.raises(ValueError, match="max_variables=1 clashes with 2 variables"):
        sw.make_spec(variables=variables, max_variables=1, require=["a >= 1", "b >= 2"])
    with pytest.raises(ValueError, match="monotone '\\+' on 'a' needs '\\+' points on 'a >= 2'"):
        sw.make_spec(variables=variables, monotone={"a": "+"}, lock={"a >= 2": -1})
    spec = sw.make_spec(variables=variables, monotone={"aa": "+"})
    with pytest.raises(KeyError, match="did you mean 'a'"):
        spec.check_data(names, 10)
    with pytest.raises(ValueError, match="'c': it has no threshold rules"):
        sw.make_spec(variables=variables, monotone={"c": "+"}).check_data(names, 10)
    with pytest.raises(ValueError, match="max_cuts_per_variable needs"):
        sw.make_spec(max_cuts_per_variable=1).check_data(["x"], 10)
    both = {"a": {"a >= 1": "ge", "a < 3": "lt"}}
    with pytest.raises(ValueError, match="point both ways"):
        sw.make_spec(variables=both, monotone={"a": "+"})


def test_without_variables_max_variables_is_max_size():
    X, y, names, _ = tiny_variable_problem(7, n=20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one = sw.fit(X, y, feature_names=names, max_variables=2, C0=0.0, **BOX)
        two = sw.fit(X, y, feature_names=names, max_size=2, C0=0.0, **BOX)
    assert one.objective == pytest.approx(two.objective, abs=1e-12)


# -- risk cards ------------------------------------------------------------------------------------
@pytest.mark.parametrize("solver", ["highs", "enumerate"])
@pytest.mark.seeds(10)
@pytest.mark.slow
def test_risk_cards_keep_them_and_match_brute_force(seed, solver):
    rng = np.random.default_rng(900 + seed)
    X, y, names, variables = tiny_variable_problem(900 + seed, n=20)
    X, names = (
        X[:, [0, 1, 3, 4]],
        [names[j] for j in (0, 1, 3, 4)],
    )  # a >= 1, a >= 2, b >= 1, b >= 2
    variables = {"a": {n: "ge" for n in names[:2]}, "b": {n: "ge" for n in names[2:]}}
    opts = random_variable_options(rng, variables)
    opts.pop("signs", None)
    if opts.get("require") and opts["require"][0] not in names:
        opts.pop("require")
    spec = spec_or_skip(
        **opts,
        loss="logistic",
        scale=False,
        C0=0.01,
        coef_range=(-2, 2),
        intercept_range=(-3, 3),
        solver=solver,
    )
    best = best_risk_card(X, y, names, spec, C0=0.01)
    if best is None:
        with pytest.raises(sw.InfeasibleError):
            sw.fit(pd.DataFrame(X, columns=names), (y == 1).astype(int), spec=spec)
        return
    card = sw.fit(pd.DataFrame(X, columns=names), (y == 1).astype(int), spec=spec)
    assert card.status == "optimal" and card.family == "risk"
    assert card.objective == pytest.approx(best[0], abs=1e-7)
    assert variables_ok(spec, names, [card.coefficients])[0]
