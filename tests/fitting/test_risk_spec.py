"""Risk cards on the whole Spec: caps, sec. 7 options, gap and zero_score, against brute force."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.core.spec import RISK_REFUSALS, refused_options, set_options
from slimwidgets.solvers.logistic import RiskProblem, search_risk
from slimwidgets.solvers.risk_bound import risk_lower_bound

from brute_risk import best_risk_card, caps_ok
from tiny_problems import tiny_risk_problem as tiny

BOX = dict(loss="logistic", coef_range=(-2, 2), intercept_range=(-3, 3))
# every option a risk card gained, alone and together with others
OPTIONS = [
    {"max_fpr": 0.2},
    {"min_tpr": 0.8},
    {"max_fpr": 0.3, "min_tpr": 0.6, "class_weights": "balanced"},
    {"max_fpr": 0.25, "zero_score": "error", "signs": {"f0": "+"}},
    {"min_tpr": 0.7, "zero_score": "error", "max_size": 2},
    {"tiers": [(1, 0.01), (2, 0.03)], "penalties": {"f1": 0.02}},
    {"groups": {"g": ["f0", "f1"]}, "group_penalty": 0.02, "rule_penalty": 0.01, "C0": 0.001},
    {"groups": {"g": ["f0", "f1", "f2"]}, "max_rules_per_group": 1, "max_fpr": 0.3},
    {"groups": {"g": ["f0", "f1", "f2"]}, "group_signs_agree": True, "group_reversed": ["f1"]},
]


def _oracle(X, y, names, spec, sample_weight=None):
    ysign = np.where(np.asarray(y) == 1, 1, -1)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    if spec.class_weights == "balanced":
        pos = ysign == 1
        w = w * np.where(pos, w.sum() / (2 * w[pos].sum()), w.sum() / (2 * w[~pos].sum()))
    return best_risk_card(X.to_numpy(), ysign, names, spec, weights=w, sample_weight=sample_weight)


def _meets_caps(card, X, y, spec, sample_weight=None) -> bool:
    ysign = np.where(np.asarray(y) == 1, 1, -1)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    return caps_ok(X.to_numpy(), ysign, w, card.coefficients, card.intercept, spec)


def _fit_or_clash(X, y, spec, **kw):
    """The card, or None when fit proves that no card meets the spec (naming the clash)."""
    try:
        return sw.fit(X, y, spec=spec, **kw)
    except sw.InfeasibleError as exc:
        assert exc.conflicts, "a clash must be named"
        return None


@pytest.mark.filterwarnings("ignore::slimwidgets.DegenerateCardWarning")
@pytest.mark.parametrize("scale", [True, False])
@pytest.mark.parametrize("case", range(len(OPTIONS)))
@pytest.mark.slow
def test_walk_under_every_option_matches_brute_force(case, scale):
    X, y, names = tiny(case + 20)
    weights = (
        np.arange(len(y)) % 3 + 1.0 if case % 2 else None
    )  # sample weights count in caps and loss
    spec = sw.make_spec(**BOX, **OPTIONS[case], scale=scale, solver="enumerate")
    best = _oracle(X, y, names, spec, weights)
    card = _fit_or_clash(X, y, spec, sample_weight=weights)
    assert (card is None) == (best is None)
    if card is None:
        return
    assert card.status == "optimal" and card.objective == pytest.approx(best[0], abs=1e-7)
    assert _meets_caps(card, X, y, spec, weights)
    assert sw.check_card(card, prepare_data(X, y, sample_weight=weights), spec) == []


@pytest.mark.filterwarnings("ignore::slimwidgets.DegenerateCardWarning")
@pytest.mark.parametrize("case", range(len(OPTIONS)))
def test_cutting_planes_prove_every_option_without_scale(case):
    X, y, names = tiny(case + 40)
    spec = sw.make_spec(
        **BOX, **OPTIONS[case], scale=False, solver="highs"
    )  # no walk, no limit: until proven
    best = _oracle(X, y, names, spec)
    card = _fit_or_clash(X, y, spec)
    assert (card is None) == (best is None)
    if card is None:
        return
    assert card.status == "optimal" and card.solver == "logistic search + cutting planes"
    assert card.objective == pytest.approx(best[0], abs=1e-7) and card.gap == 0.0
    assert _meets_caps(card, X, y, spec)


@pytest.mark.parametrize("case", range(len(OPTIONS)))
@pytest.mark.slow
def test_cutting_plane_bound_with_a_multiplier_stays_below_the_optimum(case):
    X, y, names = tiny(case + 60)
    spec = sw.make_spec(**BOX, **OPTIONS[case])
    best = _oracle(X, y, names, spec)
    prob = RiskProblem.from_spec(prepare_data(X, y), spec)
    bound, exact = risk_lower_bound(prob, [np.zeros(len(names) + 1)], time_limit=0.5)
    assert exact is None  # with a real multiplier the master never claims a card
    assert bound <= (math.inf if best is None else best[0] + 1e-9)


@pytest.mark.filterwarnings("ignore::slimwidgets.DegenerateCardWarning")
@pytest.mark.parametrize("case", range(len(OPTIONS)))
@pytest.mark.slow
def test_the_search_returns_only_cards_that_meet_every_rule(case):
    X, y, names = tiny(case + 80, n=40, d=4)
    spec = (
        sw.make_spec(**BOX, **OPTIONS[case], max_size=3)
        if "max_size" not in OPTIONS[case]
        else sw.make_spec(**BOX, **OPTIONS[case])
    )
    best = _oracle(X, y, names, spec)
    data = prepare_data(X, y)
    prob = RiskProblem.from_spec(data, spec)
    found = search_risk(prob)  # no time limit: deterministic
    assert (found is None) == (best is None)
    if found is None:
        return
    assert (
        best[0] - 1e-7 <= found.objective <= best[0] + 0.02
    )  # never better than optimal, and close
    assert prob.card_ok(found.coefficients, found.intercept)
    card = sw.ScoringSystem(
        names,
        tuple(int(v) for v in found.coefficients),
        int(found.intercept),
        family="risk",
        multiplier=found.multiplier,
        zero_score=spec.zero_score,
    )
    assert _meets_caps(card, X, y, spec)
    assert sw.check_card(card, data, spec) == []


@pytest.mark.slow
def test_capped_risk_cards_on_real_data_keep_the_cap(paper_data):
    X, y = paper_data("heart")
    for cap in ({"max_fpr": 0.1}, {"min_tpr": 0.9}):
        card = sw.fit(X, y, loss="logistic", max_size=4, coef_range=(-5, 5), time_limit=3, **cap)
        predicted = np.asarray(card.predict_proba(X))[:, 1] >= 0.5  # the risk card's decision
        if "max_fpr" in cap:
            assert predicted[y == 0].mean() <= 0.1 + 1e-12
        else:
            assert predicted[y == 1].mean() >= 0.9 - 1e-12
        assert (
            card.status in ("optimal", "heuristic")
            and sw.check_card(card, prepare_data(X, y), card.spec) == []
        )
        if card.bound is not None:
            assert card.bound <= card.objective + 1e-9


def test_the_status_of_a_capped_risk_card_gives_its_rates():
    X, y, _ = tiny(3, n=60)
    card = sw.fit(X, y, **BOX, max_fpr=0.25)
    m = card.metrics(X, y)
    headline = sw.describe(card).headline
    assert f"TPR {100 * m.tpr:.1f} %" in headline and f"FPR {100 * m.fpr:.1f} %" in headline
    assert (
        "at risk ≥ 50 %" in headline
        and "proven lowest train log-loss" in headline
        and headline.endswith("under the caps")
    )


def test_caps_that_no_card_can_meet_are_named():
    X, y, _ = tiny(3, n=40)
    with pytest.raises(sw.InfeasibleError, match="max_fpr=0; min_tpr=1"):
        sw.fit(X, y, **BOX, max_fpr=0.0, min_tpr=1.0, max_size=1)


def test_on_real_valued_data_an_unmet_cap_is_said_without_a_false_proof():
    rng = np.random.default_rng(5)
    X = pd.DataFrame(
        rng.normal(size=(30, 2)), columns=["a", "b"]
    )  # no score step: no exact clash test
    y = rng.integers(0, 2, size=30)
    y[:2] = [0, 1]
    with pytest.raises(sw.NoSolutionError, match="max_fpr=0 and min_tpr=1"):
        sw.fit(X, y, **BOX, max_fpr=0.0, min_tpr=1.0, rules=False)


@pytest.mark.parametrize("case", [0, 1, 3, 4])
def test_caps_in_the_master_are_exact_on_data_with_decimals(case):
    X, y, names = tiny(case + 120)
    X = X / 2  # totals move in steps of 0.5: the indicator rows use the data's step (0.1)
    spec = sw.make_spec(**BOX, **OPTIONS[case], scale=False, solver="highs")
    best = _oracle(X, y, names, spec)
    card = _fit_or_clash(X, y, spec)
    assert (card is None) == (best is None)
    if card is not None:
        assert card.status == "optimal" and card.objective == pytest.approx(best[0], abs=1e-7)


def test_a_decision_card_under_the_same_rules_is_a_feasible_start():
    from slimwidgets.fitting.risk_driver import _feasible_start

    X, y, names = tiny(7, n=40, d=4)
    spec = sw.make_spec(**BOX, max_fpr=0.2, constraints=[sw.at_most(2, names)])
    data = prepare_data(X, y)
    prob = RiskProblem.from_spec(data, spec)
    start = _feasible_start(data, spec, prob, None, None)
    assert prob.card_ok(start.coefficients, start.intercept)
    assert start.objective >= _oracle(X, y, names, spec)[0] - 1e-9


def test_gap_stops_the_cutting_planes_with_an_honest_bound():
    X, y, names = tiny(11, n=40, d=4)
    spec = sw.make_spec(**BOX, scale=False, solver="highs", gap=0.5, max_fpr=0.4)
    best = _oracle(X, y, names, spec)[0]
    card = sw.fit(X, y, spec=spec)  # no time limit: the planes run until the gap is reached
    assert card.status == "optimal" and card.gap <= 0.5
    assert card.bound <= best + 1e-9 <= card.objective + 2e-9


def test_zero_score_error_makes_a_risk_card_decide_above_half():
    X, y, _ = tiny(2, n=60)
    card = sw.fit(X, y, **BOX, zero_score="error", max_fpr=0.3)
    assert card.zero_score == "error" and card.rule == ">"
    proba = np.asarray(card.predict_proba(X))[:, 1]
    np.testing.assert_array_equal(np.asarray(card.predict(X)) == 1, proba > 0.5)


def test_options_without_meaning_for_risk_cards_are_refused_with_the_reason():
    for bad, name in (
        ({"margin": 0.5}, "margin"),
        ({"missing": {"a": 2}}, "missing"),
        ({"solver": "cbc"}, "solver='cbc'"),
        ({"solver": "scan"}, "solver='scan'"),
    ):
        with pytest.raises(ValueError, match="have no use for") as info:
            sw.make_spec(loss="logistic", **bad)
        assert RISK_REFUSALS[name] in str(info.value)
    # one list per family for every caller (the studio greys these out), whatever the spec sets
    spec = sw.make_spec(
        loss="logistic",
        max_fpr=0.2,
        min_tpr=0.5,
        gap=0.1,
        tiers=[(3, 0.01)],
        groups={"g": ["a"]},
        max_rules_per_group=1,
    )
    assert (
        refused_options(spec) == list(RISK_REFUSALS)
        and set_options(spec, refused_options(spec)) == {}
    )
    decision = sw.make_spec(margin=0.5, missing={"a": 1}, solver="cbc")
    assert refused_options(decision) == ["scale"] and set_options(decision, ["scale"]) == {}
