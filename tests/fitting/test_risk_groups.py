"""Risk cards under caps and gaps between groups (issue 22), every path against brute force.

The paths: the walk (``solver="enumerate"``, and ``"auto"`` on a small box), the cutting-plane
master until proven (``solver="highs"``, ``scale=False``), the search alone (every card it
returns meets every setting), the master's bound with a real multiplier (never above the
optimum), and a clash (``InfeasibleError`` naming the groups and settings).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.datasets import RULES_ATTR
from slimwidgets.solvers.logistic import RiskProblem, search_risk
from slimwidgets.solvers.risk_bound import risk_lower_bound
from slimwidgets.solvers.risk_groups import group_caps

from brute_risk import best_risk_card, groups_ok

BOX = dict(loss="logistic", coef_range=(-2, 2), intercept_range=(-3, 3))
RULES = ["positive", "error"]


def grouped_risk_problem(seed: int, n: int = 18, d: int = 2):
    """A tiny problem with 2 or 3 groups, each holding both classes; features 0/1 (a count
    feature every third seed)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, d)).astype(float)
    if seed % 3 == 0:
        X[:, -1] = rng.integers(0, 3, size=n)
    logit = X @ rng.normal(0, 1.5, size=d) + rng.normal(0, 0.5)
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-logit)), 1, -1)
    k = 2 + seed % 2
    groups = np.array(["A", "B", "C"][:k])[rng.integers(0, k, size=n)]
    for g in range(k):  # both classes in every group, so every rate exists
        y[2 * g], y[2 * g + 1], groups[2 * g], groups[2 * g + 1] = 1, -1, "ABC"[g], "ABC"[g]
    names = [f"f{j}" for j in range(d)]
    frame = pd.DataFrame(X, columns=names)
    frame.attrs[RULES_ATTR] = (
        False  # the engine's own features (a count among them), as brute force reads them
    )
    return frame, y, names, groups


def group_settings(seed: int) -> dict:
    kind = seed % 6
    if kind == 0:
        return {"max_tpr_gap": [0.0, 0.1, 0.3][seed % 3]}
    if kind == 1:
        return {"max_fpr_gap": [0.0, 0.15, 0.3][seed % 3]}
    if kind == 2:
        return {"max_fpr_by_group": [0.0, 0.25, 0.5][seed % 3]}
    if kind == 3:
        return {"min_tpr_by_group": {"A": 0.6, "B": 1.0}}
    if kind == 4:
        return {"max_tpr_gap": 0.2, "max_fpr_by_group": {"B": 0.5}, "max_fpr": 0.6}
    return {"max_fpr_gap": 0.2, "max_tpr_gap": 0.25, "min_tpr": 0.5}


def _fit_or_clash(X, y, groups, spec, **kw):
    try:
        return sw.fit(X, y, spec=spec, sensitive_features=groups, **kw)
    except sw.InfeasibleError as exc:
        assert exc.conflicts, "a clash must be named"
        return None


def _holds(card, X, y, groups, spec, weights=None) -> bool:
    w = np.ones(len(y)) if weights is None else np.asarray(weights, float)
    return groups_ok(X.to_numpy(), y, w, card.coefficients, card.intercept, spec, groups)


@pytest.mark.filterwarnings("ignore::slimwidgets.DegenerateCardWarning")
@pytest.mark.parametrize("zero_score", RULES)
@pytest.mark.parametrize("scale", [True, False])
@pytest.mark.seeds(12)
def test_the_walk_under_group_settings_matches_brute_force(seed, scale, zero_score):
    X, y, names, groups = grouped_risk_problem(100 + seed)
    weights = (
        np.arange(len(y)) % 3 + 1.0 if seed % 4 == 1 else None
    )  # sample weights count in the rates
    spec = sw.make_spec(
        **BOX, **group_settings(seed), scale=scale, zero_score=zero_score, solver="enumerate"
    )
    best = best_risk_card(
        X.to_numpy(), y, names, spec, weights=weights, sample_weight=weights, sensitive=groups
    )
    card = _fit_or_clash(X, y, groups, spec, sample_weight=weights)
    assert (card is None) == (best is None)
    if card is None:
        return
    assert card.status == "optimal" and card.objective == pytest.approx(best[0], abs=1e-7)
    assert _holds(card, X, y, groups, spec, weights)
    data = prepare_data(X, y, sample_weight=weights, sensitive_features=groups, warn=False)
    assert sw.check_card(card, data, spec) == []


@pytest.mark.filterwarnings("ignore::slimwidgets.DegenerateCardWarning")
@pytest.mark.parametrize("zero_score", RULES)
@pytest.mark.seeds(12)
def test_the_cutting_planes_prove_group_settings_without_scale(seed, zero_score):
    """No walk, no time limit: the master with the group rows runs until it proves the card."""
    X, y, names, groups = grouped_risk_problem(200 + seed)
    spec = sw.make_spec(
        **BOX, **group_settings(seed), scale=False, zero_score=zero_score, solver="highs"
    )
    best = best_risk_card(X.to_numpy(), y, names, spec, sensitive=groups)
    card = _fit_or_clash(X, y, groups, spec)
    assert (card is None) == (best is None)
    if card is None:
        return
    assert card.status == "optimal" and card.solver == "logistic search + cutting planes"
    assert card.objective == pytest.approx(best[0], abs=1e-7) and card.gap == 0.0
    assert _holds(card, X, y, groups, spec)


@pytest.mark.seeds(12)
@pytest.mark.slow
def test_the_master_bound_with_a_multiplier_stays_below_the_optimum(seed):
    X, y, names, groups = grouped_risk_problem(300 + seed)
    spec = sw.make_spec(**BOX, **group_settings(seed))
    best = best_risk_card(X.to_numpy(), y, names, spec, sensitive=groups)
    prob = RiskProblem.from_spec(prepare_data(X, y, sensitive_features=groups, warn=False), spec)
    bound, exact = risk_lower_bound(prob, [np.zeros(len(names) + 1)], time_limit=0.5)
    assert exact is None
    # The master's bound is HiGHS's dual bound, exact up to its feasibility tolerance (1e-6):
    # with more cutting planes in the 0.5 s (a quiet machine) it came 8e-7 above the optimum.
    assert bound <= (math.inf if best is None else best[0] + 1e-6 * max(1.0, abs(best[0])))


@pytest.mark.filterwarnings("ignore::slimwidgets.DegenerateCardWarning")
@pytest.mark.parametrize("zero_score", RULES)
@pytest.mark.seeds(12)
def test_the_search_returns_only_cards_that_meet_the_group_settings(seed, zero_score):
    X, y, names, groups = grouped_risk_problem(400 + seed, n=30, d=3)
    spec = sw.make_spec(**BOX, **group_settings(seed), zero_score=zero_score, max_size=2)
    best = best_risk_card(X.to_numpy(), y, names, spec, sensitive=groups)
    data = prepare_data(X, y, sensitive_features=groups, warn=False)
    prob = RiskProblem.from_spec(data, spec)
    found = search_risk(prob)
    if (
        found is None
    ):  # the search may miss a narrow feasible set; the fit then asks the decision MIP
        card = _fit_or_clash(X, y, groups, spec)
        assert (card is None) == (best is None)
        return
    assert best is not None and best[0] - 1e-7 <= found.objective
    assert prob.card_ok(found.coefficients, found.intercept)
    card = sw.ScoringSystem(
        names,
        tuple(int(v) for v in found.coefficients),
        int(found.intercept),
        family="risk",
        multiplier=found.multiplier,
        zero_score=spec.zero_score,
        positive=1,
        negative=-1,
    )
    assert _holds(card, X, y, groups, spec)
    assert sw.check_card(card, data, spec) == []


@pytest.mark.seeds(20)
def test_the_intercept_runs_are_exactly_the_intercepts_that_meet_the_settings(seed):
    X, y, names, groups = grouped_risk_problem(500 + seed, n=25, d=3)
    spec = sw.make_spec(**BOX, **group_settings(seed), zero_score=RULES[seed % 2])
    data = prepare_data(
        X, y, sensitive_features=groups, warn=False
    )  # may merge repeated rows into weights
    caps = group_caps(data, spec, seed % 2 == 1)
    coefs = np.random.default_rng(seed).integers(-2, 3, size=3).astype(float)
    scores = data.X @ coefs
    runs = caps.runs(scores, -6, 6)
    inside = {b for first, last in runs for b in range(first, last + 1)}
    truth = {
        b
        for b in range(-6, 7)
        if groups_ok(X.to_numpy(), y, np.ones(len(y)), coefs, b, spec, groups)
    }
    assert inside == truth
    assert all(a[1] + 1 < b[0] for a, b in zip(runs, runs[1:]))  # runs are apart and in order


def test_a_risk_card_clash_names_the_groups_and_settings():
    X = pd.DataFrame({"a": [1, 1, 0, 0, 1, 0, 1, 0], "b": [0, 1, 0, 1, 1, 0, 0, 1]})
    y = [1, 1, 0, 0, 1, 0, 0, 1]
    sex = pd.Series(["F", "F", "F", "F", "M", "M", "M", "M"], name="sex")
    with pytest.raises(sw.InfeasibleError) as info:
        sw.fit(
            X,
            y,
            loss="logistic",
            sensitive_features=sex,
            min_tpr_by_group={"F": 1.0},
            max_fpr_by_group=0.0,
            exclude=["a"],
            coef_range=(0, 3),
        )
    message = str(info.value)
    assert "'F'" in message and "min_tpr=1 in group 'F'" in message


@pytest.mark.filterwarnings("ignore::slimwidgets.DegenerateCardWarning")
@pytest.mark.slow
def test_a_risk_card_under_a_gap_on_real_data_keeps_it(paper_data):
    """The breast cancer data, a made-up two-level group: the gap holds on every row."""
    X, y = paper_data("breastcancer")
    X = X.iloc[:, :6]
    groups = np.where(np.arange(len(y)) % 3 == 0, "u", "v")
    card = sw.fit(
        X,
        y,
        loss="logistic",
        max_size=3,
        coef_range=(-5, 5),
        sensitive_features=groups,
        max_tpr_gap=0.02,
        time_limit=5,
    )
    rates = sw.group_rates(card, X, y, groups)
    assert rates["TPR"].max() - rates["TPR"].min() <= 0.02 + 1e-12
    assert card.spec.max_tpr_gap == 0.02 and card.family == "risk"


@pytest.mark.parametrize("name", ["calibration_by_group", "max_calibration_gap"])
def test_calibration_in_the_large_by_group_is_refused_with_the_reason(name):
    X, y, names, groups = grouped_risk_problem(600)
    with pytest.raises(ValueError, match="not linear in the program") as info:
        sw.fit(X, y, loss="logistic", sensitive_features=groups, **{name: 0.02})
    assert "sw.validate" in str(info.value) and name in str(info.value)


@pytest.mark.filterwarnings("ignore::slimwidgets.DegenerateCardWarning")
@pytest.mark.seeds(12)
def test_auto_with_the_floor_without_groups_matches_brute_force(seed):
    """solver="auto": the spec without its group settings first (its proven card is the answer
    when it meets them), then the whole spec; either way the optimum, and a floor never above it."""
    X, y, names, groups = grouped_risk_problem(700 + seed)
    spec = sw.make_spec(**BOX, **group_settings(seed), scale=seed % 2 == 0)
    best = best_risk_card(X.to_numpy(), y, names, spec, sensitive=groups)
    card = _fit_or_clash(X, y, groups, spec)
    assert (card is None) == (best is None)
    if card is None:
        return
    assert card.status == "optimal" and card.objective == pytest.approx(best[0], abs=1e-7)
    assert card.bound is not None and card.bound <= best[0] + 1e-9
    assert card.spec == spec and _holds(card, X, y, groups, spec)
    free = best_risk_card(X.to_numpy(), y, names, sw.make_spec(**BOX, scale=seed % 2 == 0))
    if free[0] == pytest.approx(best[0], abs=1e-9) and "no group setting binds" in card.solver:
        assert (
            sw.check_card(card, prepare_data(X, y, sensitive_features=groups, warn=False), spec)
            == []
        )


@pytest.mark.filterwarnings("ignore::slimwidgets.DegenerateCardWarning")
@pytest.mark.slow
def test_a_gap_that_does_not_bind_is_proven_by_the_risk_card_without_it():
    X, y, names, groups = grouped_risk_problem(800, n=30, d=3)
    spec = sw.make_spec(**BOX, max_tpr_gap=1.0, max_fpr_gap=1.0)
    card = sw.fit(X, y, spec=spec, sensitive_features=groups)
    assert card.status == "optimal" and card.solver.endswith("(no group setting binds)")
    best = best_risk_card(X.to_numpy(), y, names, spec, sensitive=groups)
    assert card.objective == pytest.approx(best[0], abs=1e-7) and card.spec == spec
