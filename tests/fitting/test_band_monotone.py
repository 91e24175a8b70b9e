"""``monotone`` on rules that share cuts (issue 19): band rules (``2 <= a < 4``) and threshold
rules of both directions (``a < 2``, ``a >= 4``), given with their edges. The points of the
variable's bands, read from low values to high, must never fall ("+") or never rise ("-"); at
each cut that is a linear row over the rules stepping in and out there, held by the MIP (HiGHS,
CBC) and the local search, and proven by "auto" through the MIP. Checked against brute force
that reads the bands from the rules' intervals, with a sabotage check that the test fails when
the rows are dropped."""

from __future__ import annotations

import json

import numpy as np
import pytest

import slimwidgets as sw
from slimwidgets.core import by_variable
from slimwidgets.core.by_variable import monotone_rows, monotone_steps
from slimwidgets.core.data import prepare_data
from slimwidgets.core.formulation import build_formulation
from slimwidgets.solvers.search import local_search

from brute import best_objective, enumerate_cards, row_errors, variables_ok
from tiny_problems import BOX, spec_or_skip, tiny_band_problem

SOLVERS = ["auto", "highs", "cbc"]


def _value(card, X, y, C0, zero_score):
    total = X @ np.array(card.coefficients, float) + card.intercept
    return row_errors(total, y, zero_score).mean() + C0 * card.size


def _options(rng, variables):
    opts = {
        "variables": variables,
        "monotone": {"a": str(rng.choice(["+", "-"]))},
        "C0": float(rng.choice([0.01, 0.05])),
        "zero_score": str(rng.choice(["positive", "error"])),
    }
    if rng.random() < 0.3:
        opts["max_variables"] = 1
    if rng.random() < 0.2:
        opts["signs"] = {"c": str(rng.choice(["+", "-"]))}
    return opts


def _check_against_brute_force(seed, solver):
    """(card value, brute-force best, whether the card meets monotone from its meaning)."""
    rng = np.random.default_rng(900 + seed)
    X, y, names, variables = tiny_band_problem(900 + seed)
    opts = _options(rng, variables)
    spec = spec_or_skip(**opts, solver=solver, **BOX)
    cards = enumerate_cards(X, y, names, spec)
    if len(cards["loss"]) == 0:
        pytest.raises(sw.InfeasibleError, sw.fit, X, y, feature_names=names, spec=spec)
        return None
    card = sw.fit(X, y, feature_names=names, spec=spec)
    assert card.status == "optimal" and card.gap == 0
    return (
        _value(card, X, y, opts["C0"], opts["zero_score"]),
        best_objective(cards, opts["C0"]),
        bool(variables_ok(spec, names, [card.coefficients])[0]),
        card,
        spec,
        X,
        y,
        names,
    )


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.seeds(16)
@pytest.mark.slow
def test_monotone_on_bands_matches_brute_force(seed, solver):
    if solver == "cbc":
        pytest.importorskip("pulp")
    got = _check_against_brute_force(seed, solver)
    if got is None:
        return
    value, best, meets, card, spec, X, y, names = got
    assert value == pytest.approx(best, abs=1e-12)
    assert meets
    assert sw.check_card(card, prepare_data(X, y, feature_names=names, warn=False), spec) == []


@pytest.mark.slow
def test_the_brute_force_sees_the_rows_dropped(monkeypatch):
    """Sabotage: without monotone's rows the fits return cards that break it (or beat the true
    optimum) on some of these problems, and the comparison above says so."""
    monkeypatch.setattr(by_variable, "monotone_rows", lambda spec: ())
    monkeypatch.setattr(
        by_variable, "variable_problems", lambda spec, points: []
    )  # the fit's own re-check too
    import slimwidgets.fitting.checks as checks

    monkeypatch.setattr(checks, "variable_problems", lambda spec, points: [])
    caught = 0
    for seed in range(16):
        got = _check_against_brute_force(seed, "highs")
        if got is not None:
            value, best, meets = got[:3]
            caught += (not meets) or value < best - 1e-12
    assert caught > 0


@pytest.mark.seeds(8)
def test_the_search_never_returns_a_card_that_breaks_it(seed):
    rng = np.random.default_rng(950 + seed)
    X, y, names, variables = tiny_band_problem(950 + seed, n=30)
    spec = spec_or_skip(**_options(rng, variables), **BOX)
    found = local_search(
        build_formulation(prepare_data(X, y, feature_names=names, warn=False), spec),
        time_budget=0.3,
    )
    if found.feasible:
        assert variables_ok(spec, names, [found.coefficients])[0]


def test_the_steps_and_rows_say_what_monotone_means():
    X, y, names, variables = tiny_band_problem(0)
    spec = sw.make_spec(variables=variables, monotone={"a": "+"})
    steps = monotone_steps(spec.variables["a"])
    assert steps == [
        (2.0, {"a < 2": -1, "2 <= a < 4": 1, "a >= 2": 1}),
        (4.0, {"2 <= a < 4": -1, "a >= 4": 1}),
    ]
    rows = monotone_rows(spec)
    assert [r.describe() for r in rows] == [
        "− points[a < 2] + points[2 <= a < 4] + points[a >= 2] ≥ 0",
        "− points[2 <= a < 4] + points[a >= 4] ≥ 0",
    ]
    assert (
        sw.make_spec(**json.loads(json.dumps(spec.to_dict()))).key() == spec.key()
    )  # edges survive JSON
    # a card whose bands fall at 4 is said to break it, in words
    data = prepare_data(X, y, feature_names=names, warn=False)
    card = sw.ScoringSystem(names, [0, 2, 0, 0, 0], -1, negative=-1)
    assert any("monotone + on 'a'" in p for p in sw.check_card(card, data, spec))
    # the rule builder's cumulative rules stay signs (every fast proof path holds those)
    plain = sw.make_spec(variables={"b": {"b >= 1": "ge", "b >= 2": "ge"}}, monotone={"b": "-"})
    assert monotone_rows(plain) == () and plain.feature_box("b >= 2") == (-10, 0)


def test_what_cannot_hold_is_refused_in_words():
    with pytest.raises(
        ValueError, match="monotone on 'a': its interval rules point both ways .* cut points"
    ):
        sw.make_spec(variables={"a": {"a < 2": "lt", "a >= 4": "ge"}}, monotone={"a": "+"})
    with pytest.raises(ValueError, match=r"band rule '2 <= a < 4' needs its edges"):
        sw.make_spec(variables={"a": {"2 <= a < 4": "band"}})
    with pytest.raises(ValueError, match=r"\['band', lo, hi\]"):
        sw.make_spec(variables={"a": {"2 <= a < 4": ["band", 4, 2]}})
    bands = tiny_band_problem(0)[3]
    with pytest.raises(ValueError, match="risk cards hold monotone only on rules of one direction"):
        sw.make_spec(variables=bands, monotone={"a": "+"}, loss="logistic")
    with pytest.raises(ValueError, match="cannot hold .* monotone across rules that share a cut"):
        sw.make_spec(variables=bands, monotone={"a": "+"}, solver="enumerate")
