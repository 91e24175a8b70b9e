"""Group constraints (issue 22): per-group caps and gaps, exact against
brute force on every path."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.core.formulation import build_formulation
from slimwidgets.solvers.search import local_search

from brute import best_objective, enumerate_cards

BOX = dict(coef_range=(-3, 3), intercept_range=(-8, 8))
RULES = ["positive", "error"]
# the paths a group spec may take: "auto" (the search, then the MIP: no walk, scan or pools),
# HiGHS forced, and CBC through PuLP
SOLVERS = ["auto", "highs", "cbc"]


def grouped_problem(seed: int, n_groups: int = 2):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(10, 18))
    p = int(rng.integers(2, 4))
    X = rng.integers(0, int(rng.choice([1, 2])) + 1, size=(n, p))
    y = rng.choice([-1, 1], size=n)
    groups = np.array(["A", "B", "C"][:n_groups])[rng.integers(0, n_groups, size=n)]
    # every group holds both classes, so every rate exists
    for g in range(n_groups):
        y[2 * g], y[2 * g + 1], groups[2 * g], groups[2 * g + 1] = 1, -1, "ABC"[g], "ABC"[g]
    return X, y, [f"f{j}" for j in range(p)], groups


def group_settings(seed: int) -> dict:
    kind = seed % 5
    if kind == 0:
        return {"max_tpr_gap": [0.0, 0.1, 0.25][seed % 3]}
    if kind == 1:
        return {"max_fpr_gap": [0.0, 0.15, 0.3][seed % 3]}
    if kind == 2:
        return {"max_fpr_by_group": [0.0, 0.25, 0.5][seed % 3]}
    if kind == 3:
        return {"min_tpr_by_group": {"A": 0.5, "B": 1.0}}
    return {"max_tpr_gap": 0.2, "max_fpr_by_group": {"B": 0.5}}


def objective(card, X, y, C0, zero_score):
    total = np.asarray(X, float) @ np.array(card.coefficients, float) + card.intercept
    from brute import row_errors

    return row_errors(total, y, zero_score).mean() + C0 * card.size


@pytest.mark.parametrize("zero_score", RULES)
@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.seeds(15)
@pytest.mark.slow
def test_group_settings_match_brute_force(seed, solver, zero_score):
    X, y, names, groups = grouped_problem(7000 + seed, n_groups=2 + seed % 2)
    C0 = 0.01
    spec = sw.make_spec(
        C0=C0,
        solver=solver,
        zero_score=zero_score,
        max_size=[None, 2][seed % 2],
        **group_settings(seed),
        **BOX,
    )
    cards = enumerate_cards(X, y, names, spec, groups=groups)
    best = best_objective(cards, C0)
    if not np.isfinite(best):
        with pytest.raises(sw.InfeasibleError):
            sw.fit(X, y, feature_names=names, spec=spec, sensitive_features=groups)
        return
    card = sw.fit(X, y, feature_names=names, spec=spec, sensitive_features=groups)
    assert card.status == "optimal"
    assert objective(card, X, y, C0, zero_score) == pytest.approx(best, abs=1e-12)
    data = prepare_data(X, y, feature_names=names, warn=False, sensitive_features=groups)
    assert sw.check_card(card, data, spec) == []
    rates = sw.group_rates(card, pd.DataFrame(X, columns=names), y, groups)
    for option, column in (("max_tpr_gap", "TPR"), ("max_fpr_gap", "FPR")):
        if getattr(spec, option) is not None:
            assert rates[column].max() - rates[column].min() <= getattr(spec, option) + 1e-12


@pytest.mark.parametrize("zero_score", RULES)
@pytest.mark.seeds(20)
def test_local_search_returns_only_cards_that_meet_the_group_rows(seed, zero_score):
    """The fast search holds the group rows: whatever it returns is among brute force's
    feasible cards (and it finds one whenever there is one on these tiny boxes)."""
    X, y, names, groups = grouped_problem(8000 + seed, n_groups=2 + seed % 2)
    spec = sw.make_spec(C0=0.01, zero_score=zero_score, **group_settings(seed), **BOX)
    data = prepare_data(X, y, feature_names=names, warn=False, sensitive_features=groups)
    found = local_search(build_formulation(data, spec), time_budget=5.0)
    cards = enumerate_cards(X, y, names, spec, groups=groups)
    if not found.feasible:
        assert len(cards["loss"]) == 0
        return
    match = np.all(cards["points"] == found.coefficients, axis=1) & (
        cards["intercept"] == found.intercept
    )
    assert match.any(), (found.coefficients, found.intercept)


@pytest.mark.slow
def test_gap_rows_cannot_be_met_by_claiming_errors_a_card_does_not_make():
    """A gap row counts one group's errors negatively: without 'z = 1 => wrong' the program
    could close a gap with errors the card does not make. Brute force decides."""
    for seed in range(40):
        X, y, names, groups = grouped_problem(9000 + seed)
        spec = sw.make_spec(C0=0.001, max_tpr_gap=0.0, max_fpr_gap=0.0, solver="highs", **BOX)
        best = best_objective(enumerate_cards(X, y, names, spec, groups=groups), 0.001)
        if not np.isfinite(best):
            continue
        card = sw.fit(X, y, feature_names=names, spec=spec, sensitive_features=groups)
        assert objective(card, X, y, 0.001, "positive") == pytest.approx(best, abs=1e-12)


def test_a_clash_names_the_groups_and_settings():
    X = pd.DataFrame({"a": [1, 1, 0, 0, 1, 0, 1, 0], "b": [0, 1, 0, 1, 1, 0, 0, 1]})
    y = [1, 1, 0, 0, 1, 0, 0, 1]
    sex = pd.Series(["F", "F", "F", "F", "M", "M", "M", "M"], name="sex")
    with pytest.raises(sw.InfeasibleError) as info:
        sw.fit(
            X,
            y,
            sensitive_features=sex,
            min_tpr_by_group={"F": 1.0},
            max_fpr_by_group=0.0,
            exclude=["a"],
            coef_range=(0, 3),
        )
    message = str(info.value)
    assert "'F'" in message and "min_tpr=1 in group 'F'" in message


def test_group_settings_need_the_column_and_known_groups():
    X = pd.DataFrame({"a": [1, 0, 1, 0], "sex": ["F", "F", "M", "M"]})
    with pytest.raises(ValueError, match="need sensitive_features"):
        sw.fit(X[["a"]], [1, 0, 0, 1], max_tpr_gap=0.1)
    with pytest.raises(KeyError, match="did you mean 'F'"):
        sw.fit(X, [1, 0, 0, 1], sensitive_features="sex", max_fpr_by_group={"f": 0.1})
    with pytest.raises(ValueError, match="cannot hold group constraints"):
        sw.fit(X, [1, 0, 0, 1], sensitive_features="sex", max_tpr_gap=0.1, solver="enumerate")
    assert (
        sw.make_spec(loss="logistic", max_tpr_gap=0.1, solver="enumerate").max_tpr_gap == 0.1
    )  # the walk holds it
    with pytest.raises(ValueError, match="one group only"):
        sw.fit(X, [1, 0, 0, 1], sensitive_features=["F"] * 4)


@pytest.mark.slow
def test_a_text_column_is_the_group_only_and_a_numeric_one_stays_a_feature():
    X = pd.DataFrame({"a": [1, 0, 1, 0, 1, 0], "male": [1, 1, 1, 0, 0, 0], "sex": list("MMMFFF")})
    y = [1, 0, 1, 1, 0, 0]
    card = sw.fit(X, y, sensitive_features="sex", max_tpr_gap=0.5, C0=0.01)
    assert "sex" not in card.feature_names and "male" in card.feature_names
    card = sw.fit(
        X.drop(columns="sex"),
        y,
        sensitive_features="male",
        exclude=["male"],
        max_tpr_gap=0.5,
        C0=0.01,
    )
    assert card.points.get("male", 0) == 0


def test_the_solved_for_line_and_json_carry_the_group_settings():
    spec = sw.make_spec(max_tpr_gap=0.02, max_fpr_by_group={"F": 0.1})
    from slimwidgets.core.wording import describe_spec

    line = describe_spec(spec)
    assert "TPR gap between groups \u2264 2 %" in line and "max FPR in group F 10 %" in line
    assert sw.Spec.from_dict(spec.to_dict()) == spec
    assert "max_tpr_gap" not in sw.make_spec().to_dict()  # unchanged keys (caches) when unset


def test_rows_of_different_groups_are_not_collapsed():
    X = np.array([[1], [1], [0], [0]])
    data = prepare_data(X, [1, 1, 0, 0], sensitive_features=["F", "M", "F", "M"], warn=False)
    assert data.n_rows == 4 and sorted(data.sensitive.tolist()) == [0, 0, 1, 1]
    assert prepare_data(X, [1, 1, 0, 0], warn=False).n_rows == 2


def test_a_gap_that_does_not_bind_is_proven_by_the_spec_without_it():
    """Group rows only remove cards: the best card without them, when it meets them, is the
    answer (proven by the fast paths); a binding gap keeps that floor below its card."""
    X, y, names, groups = grouped_problem(7003)
    loose = sw.fit(
        X, y, feature_names=names, sensitive_features=groups, max_tpr_gap=1.0, C0=0.01, **BOX
    )
    assert loose.status == "optimal" and "no group row binds" in loose.solver
    plain = sw.fit(X, y, feature_names=names, C0=0.01, **BOX)
    assert loose.objective == pytest.approx(plain.objective, abs=1e-12)


@pytest.mark.seeds(10)
def test_pool_programs_keep_the_groups_apart(seed):
    """Feature-pool MIPs merge rows that agree on the pool; rows of different groups must stay
    apart, so a pool of the first two features gives brute force's optimum among the cards that
    use no other feature."""
    from slimwidgets.solvers.pools import solve_pool

    X, y, names, groups = grouped_problem(9500 + seed, n_groups=2 + seed % 2)
    spec = sw.make_spec(C0=0.01, **group_settings(seed), **BOX)
    form = build_formulation(
        prepare_data(X, y, feature_names=names, warn=False, sensitive_features=groups), spec
    )
    inside = spec.replace(exclude=names[2:])
    best = best_objective(enumerate_cards(X, y, names, inside, groups=groups), 0.01)
    found = solve_pool(form, [0, 1], time_limit=30)
    if not np.isfinite(best):
        assert found is None
        return
    assert found is not None and found.status == "optimal"
    card = sw.ScoringSystem(
        tuple(names), tuple(int(v) for v in found.coefficients), int(found.intercept)
    )
    assert objective(card, X, y, 0.01, "positive") == pytest.approx(best, abs=1e-12)


def test_a_text_group_column_of_a_raw_table_is_the_group_only():
    """A raw table (a number with gaps, the group as text) becomes rules without the group column,
    which still holds the gap, and the card scores raw rows."""
    rng = np.random.default_rng(3)
    n = 80
    raw = pd.DataFrame(
        {
            "age": rng.integers(30, 80, n).astype(float),
            "sex": np.where(rng.random(n) < 0.5, "F", "M"),
            "smoker": rng.random(n) < 0.4,
        }
    )
    raw.loc[rng.random(n) < 0.1, "age"] = np.nan
    y = ((raw["age"].fillna(50) > 55) | raw["smoker"]).astype(int)
    card = sw.fit(raw, y, sensitive_features="sex", max_tpr_gap=0.2, max_size=2, time_limit=20)
    assert card.rules is not None and not any("sex" in name for name in card.feature_names)
    rates = sw.group_rates(card, raw, y, "sex")
    assert rates["TPR"].max() - rates["TPR"].min() <= 0.2 + 1e-9
    assert len(card.predict(raw)) == n
