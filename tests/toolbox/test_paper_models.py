"""The specialized models of the paper's sec. 7 (PILM, M-of-N rule tables, TILM).

Each family is proven against brute-force enumeration on tiny problems, on both
proof paths (the MIP and the exhaustive walk), as plain SLIM is in
test_exactness.py. Costs in the random tests sit on a grid of half an error
(k / 2N), so that every difference between two cards' objectives is a multiple
of the smallest cost and Remark 1's epsilon provably only breaks ties.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.core.formulation import build_formulation
from slimwidgets.core.scoring import ScoringSystem
from slimwidgets.solvers.search import local_search
from slimwidgets.toolbox.binarize import binarize
from slimwidgets.toolbox.paper_models import fit_m_of_n, fit_pilm, fit_tilm, threshold_groups

from brute import card_value, enumerate_cards, penalty
from tiny_problems import gcd_all, tiny_problem

SOLVERS = ["highs", "enumerate"]


def assert_family_exact(card, X, y, names, spec, C0=0.0):
    """The card attains the brute-force minimum, with the smallest L1 among ties, and checks out."""
    cards = enumerate_cards(X, y, names, spec)
    values = cards["loss"] + penalty(cards["points"], names, spec, C0)
    best = values.min()
    got = card_value(card, X, y, names, spec, C0)
    assert got == pytest.approx(best, abs=1e-12), (card.points, card.intercept, got, best)
    ties = np.isclose(values, best, rtol=0, atol=1e-12)
    assert sum(abs(c) for c in card.coefficients) == cards["l1"][ties].min()
    if (
        card.size or card.family != "m_of_n"
    ):  # an empty table's threshold is 0: "every case is positive"
        assert gcd_all(list(card.coefficients) + [card.intercept]) == 1
    assert card.status == "optimal" and card.gap == 0
    assert card.solver == {"highs": "highs", "enumerate": "enumeration"}[spec.solver]
    data = prepare_data(X, y, feature_names=names, warn=False)
    assert sw.check_card(card, data, spec) == []
    # the engine's own objective is the same quantity (+ eps * L1), term for term
    form = build_formulation(data, spec)
    assert form.objective_of(np.array(card.coefficients, float), card.intercept) == pytest.approx(
        got + form.epsilon * sum(abs(c) for c in card.coefficients), abs=1e-9
    )


def half_errors(n, *ks):
    return [k / (2 * n) for k in ks]


# -- PILM ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.seeds(8)
def test_pilm_matches_brute_force(seed, solver):
    X, y, names = tiny_problem(7000 + seed)
    rng = np.random.default_rng(seed)
    n = len(y)
    c1, c2, c3 = sorted(half_errors(n, *rng.choice([0, 1, 2, 3, 5], size=3)))
    tiers = [(1, c1), (2, c2), (4, c3)] if seed % 2 else [(2, c1), (4, c3)]
    opts = dict(tiers=tiers, coef_range=(-4, 4), intercept_range=(-8, 8), solver=solver)
    if seed % 4 == 3:
        opts["penalties"] = {names[0]: half_errors(n, 4)[0]}  # this feature's first tier costs more
    spec = sw.make_spec(**opts)
    card = sw.fit(X, y, feature_names=names, spec=spec)
    assert_family_exact(card, X, y, names, spec)


def pilm_data():
    """Label = x1 OR (x2 AND x3): exact only with points (4, 2, 2) and threshold 3 under the
    paper's rule (a zero total is an error); (2, 1, 1) and score >= 2 under the default."""
    rows = np.array(list(itertools.product([0, 1], repeat=3)))
    y = np.where(rows[:, 0] | (rows[:, 1] & rows[:, 2]), 1, -1)
    return rows, y, ["x1", "x2", "x3"]


@pytest.mark.parametrize("solver", SOLVERS)
def test_pilm_pays_for_a_big_coefficient_only_when_it_gains_more_than_its_tier(solver):
    X, y, names = pilm_data()
    # Points up to 2 cost 0.01. With them the best card is "x1" alone (2 points),
    # wrong on the row (0, 1, 1): 1 error in 8. The exact card needs 4 points on x1,
    # which moves x1 to the second tier: worth it iff 1/8 > C_2 + C_1 (the exact card
    # also uses x2 and x3 at 0.01 each, against the one feature of "x1 alone").
    # (Under the paper's rule, where the exact card needs twice the points.)
    cheap = fit_pilm(
        X, y, feature_names=names, tiers=[(2, 0.01), (4, 0.05)], solver=solver, zero_score="error"
    )
    assert cheap.points == {"x1": 4, "x2": 2, "x3": 2} and cheap.threshold == 3
    assert cheap.metrics(X, y).error == 0
    dear = fit_pilm(
        X, y, feature_names=names, tiers=[(2, 0.01), (4, 0.2)], solver=solver, zero_score="error"
    )
    assert dear.points == {"x1": 2} and dear.metrics(X, y).error == pytest.approx(1 / 8)
    for card in (cheap, dear):
        assert card.family == "pilm" and card.status == "optimal"
        assert_family_exact(card, X, y, names, card.spec)
    # the objectives say why: 0 + 0.05 + 0.02 against 1/8 + 0.01 (each + eps * L1)
    assert cheap.objective - cheap.details["epsilon"] * 8 == pytest.approx(0.07)
    assert dear.objective - dear.details["epsilon"] * 2 == pytest.approx(0.125 + 0.01)
    # under the default rule the exact card fits in the cheap tier: no trade-off to make
    small = fit_pilm(X, y, feature_names=names, tiers=[(2, 0.01), (4, 0.2)], solver=solver)
    assert small.points == {"x1": 2, "x2": 1, "x3": 1} and small.threshold == 2
    assert small.metrics(X, y).error == 0
    assert_family_exact(small, X, y, names, small.spec)


def test_pilm_tier_steps_and_epsilon_in_the_formulation():
    X, y, names = pilm_data()
    spec = sw.make_spec(
        tiers=[(2, 0.01), (4, 0.05), (9, 0.06)], coef_range=(-9, 9), zero_score="error"
    )
    form = build_formulation(prepare_data(X, y, feature_names=names, warn=False), spec)
    # epsilon * (largest L1) stays below the smallest cost step (0.06 - 0.05)
    assert form.epsilon * 27 < 0.01 + 1e-15
    assert [a for a, _ in form.tier_steps] == [2, 4]
    assert [c for _, c in form.tier_steps] == pytest.approx([0.04, 0.01])
    lam = np.array([3.0, -5.0, 0.0])
    loss = np.mean(y * (X @ lam) <= 0)
    # 0.01 per feature used, + 0.04 for |3| > 2, + 0.04 + 0.01 for |-5| > 4
    assert form.objective_of(lam, 0) - loss - form.epsilon * 8 == pytest.approx(0.02 + 0.04 + 0.05)
    # the local search prices cards the same way as the formulation
    found = local_search(form, time_budget=0.2)
    assert found.objective == pytest.approx(form.objective_of(found.coefficients, found.intercept))


# -- M-of-N rule tables ----------------------------------------------------------------------------
def m_of_n_brute(X, y, C0):
    """min over rule subsets S and M of: error of "at least M of S" + C0 |S|."""
    X = np.asarray(X)
    best = np.inf
    for k in range(X.shape[1] + 1):
        for S in itertools.combinations(range(X.shape[1]), k):
            count = X[:, list(S)].sum(axis=1)
            for M in range(0, k + 2):
                pred = np.where(count >= M, 1, -1)
                best = min(best, np.mean(pred != y) + C0 * k)
    return best


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.seeds(8)
@pytest.mark.parametrize("zero_score", ["positive", "error"])
def test_m_of_n_matches_brute_force(seed, solver, zero_score):
    rng = np.random.default_rng(8000 + seed)
    n, p = int(rng.integers(8, 16)), int(rng.integers(3, 6))
    X = rng.integers(0, 2, size=(n, p))
    y = np.where(X[:, : p - 1].sum(axis=1) + rng.integers(-1, 2, size=n) >= 2, 1, -1)
    y[0], y[1] = 1, -1
    names = [f"rule{j}" for j in range(p)]
    C0 = half_errors(n, int(rng.choice([0, 1, 3])))[0]
    card = fit_m_of_n(X, y, C0=C0, feature_names=names, solver=solver, zero_score=zero_score)
    assert card.family == "m_of_n" and card.status == "optimal"
    assert set(card.points.values()) <= {1 if zero_score == "positive" else 2}
    M, N = card.m_of_n
    # the table's own reading, straight from its rules
    count = X[:, [names.index(r) for r in card.points]].sum(axis=1) if N else np.zeros(n)
    pred = np.where(count >= M, 1, -1)
    assert (pred == np.where(card.predict(X) == 1, 1, -1)).all()
    assert np.mean(pred != y) + C0 * N == pytest.approx(m_of_n_brute(X, y, C0), abs=1e-12)
    # and the engine's spec is solved exactly, as every spec is
    assert_family_exact(card, X, y, names, card.spec, C0)


def test_m_of_n_renders_as_a_rule_table():
    X = np.array(
        [[1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 1, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0]]
    )
    y = np.array([1, 1, 1, 1, 0, 0, 0, 0])
    names = ["Clump >= 3", "Bare <Nuclei> >= 3", "Mitoses >= 3"]
    card = fit_m_of_n(X, y, C0=0.01, feature_names=names, positive=1)
    assert card.m_of_n == (2, 3)
    text = card.to_text()
    lines = text.splitlines()
    assert lines[0] == "PREDICT 1 IF AT LEAST 2 OF THE FOLLOWING 3 RULES ARE TRUE"
    assert [line.split("  ", 1)[1] for line in lines[1:4]] == list(card.points)
    assert "point" not in text and "SCORE" not in text
    html = card.to_html()
    assert "PREDICT 1 IF AT LEAST 2 OF THE FOLLOWING 3 RULES ARE TRUE" in html
    assert "Bare &lt;Nuclei&gt; &gt;= 3" in html and "<Nuclei>" not in html
    assert "AT LEAST 2 OF THE FOLLOWING 3 RULES" in card.to_markdown()
    assert "AT LEAST 2 OF THE FOLLOWING 3 RULES" in card.to_latex()
    # the family survives JSON, and the table reads the same afterwards
    back = ScoringSystem.from_json(card.to_json())
    assert back.family == "m_of_n" and back.to_text() == text
    # a plain card's JSON has no family field, and a document without one is plain SLIM
    plain = sw.fit(X, y, feature_names=names, C0=0.01)
    assert (
        "family" not in plain.to_dict()
        and ScoringSystem.from_json(plain.to_json()).family == "slim"
    )
    # a hand edit that breaks the equal points falls back to the score card
    edited = card.with_points({names[0]: 3})
    assert edited.family == "m_of_n" and edited.m_of_n is None
    assert edited.to_text().startswith("PREDICT 1 IF SCORE ≥")
    assert sw.check_card(edited, prepare_data(X, y, feature_names=names, warn=False), card.spec)


def test_m_of_n_needs_binary_rules():
    X = np.array([[0, 2], [1, 0], [1, 1], [0, 0]])
    with pytest.raises(ValueError, match="0/1 rules"):
        fit_m_of_n(X, [1, 0, 1, 0], feature_names=["a", "b"])
    with pytest.raises(TypeError, match="coef_range"):
        fit_m_of_n(X[:, :1], [1, 0, 1, 0], coef_range=(0, 3))


# -- TILM and the group options --------------------------------------------------------------------
def random_group_spec(rng, names, n, solver):
    members = list(names)
    rng.shuffle(members)
    cut = int(rng.integers(2, len(members)))
    groups = {"g1": members[:cut], "g2": members[cut:]}
    opts = dict(
        coef_range=(-2, 2),
        intercept_range=(-6, 6),
        solver=solver,
        groups=groups,
        C0=half_errors(n, int(rng.choice([0, 0, 1])))[0],
        group_penalty=half_errors(n, int(rng.choice([0, 1, 2, 3])))[0],
        rule_penalty=half_errors(n, int(rng.choice([0, 1, 2])))[0],
        max_rules_per_group=[None, 1, 2][int(rng.integers(0, 3))],
        group_signs_agree=bool(rng.random() < 0.7),
    )
    if opts["group_signs_agree"]:
        opts["group_reversed"] = [m for m in members if rng.random() < 0.3]
    if rng.random() < 0.3:
        opts["tiers"], opts["C0"] = [(1, opts["C0"]), (2, opts["C0"] + half_errors(n, 1)[0])], None
    if rng.random() < 0.3:
        opts["signs"] = {members[0]: "+"}
    return opts


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.seeds(14)
def test_group_options_match_brute_force(seed, solver):
    rng = np.random.default_rng(9000 + seed)
    X, y, names = tiny_problem(9000 + seed, n_features=int(rng.integers(3, 5)))
    opts = random_group_spec(rng, names, len(y), solver)
    spec = sw.make_spec(**opts)
    card = sw.fit(X, y, feature_names=names, spec=spec)
    assert_family_exact(card, X, y, names, spec, spec.C0 or 0.0)


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.seeds(6)
def test_tilm_on_threshold_rules_matches_brute_force(seed, solver):
    rng = np.random.default_rng(9500 + seed)
    n = int(rng.integers(8, 14))
    age, nodes = rng.integers(20, 80, size=n), rng.integers(0, 6, size=n)
    X = np.column_stack([age >= 40, age >= 60, age < 30, nodes >= 2]).astype(int)
    names = ["age >= 40", "age >= 60", "age < 30", "nodes >= 2"]
    y = np.where((age >= 55) | (nodes >= 3) ^ (rng.random(n) < 0.2), 1, -1)
    y[0], y[1] = 1, -1
    C_f, C_t = half_errors(n, int(rng.choice([1, 2])), int(rng.choice([0, 1])))
    card = fit_tilm(
        X,
        y,
        feature_names=names,
        C_f=C_f,
        C_t=C_t,
        max_rules_per_feature=2,
        coef_range=(-3, 3),
        intercept_range=(-6, 6),
        solver=solver,
    )
    spec = card.spec
    assert dict(spec.groups) == {
        "age": ("age >= 40", "age >= 60", "age < 30"),
        "nodes": ("nodes >= 2",),
    }
    assert spec.group_reversed == ("age < 30",) and spec.C0 == 0
    assert card.family == "tilm"
    assert_family_exact(card, X, y, names, spec)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # binarize writes "x < t" rules too
def test_threshold_groups_reads_binarizer_names():
    groups, rev = threshold_groups(
        ["Age >= 45", "Age < 40", "x.y <= 1e-03", "sex = F", "Age", "n > 2"]
    )
    assert groups == {
        "Age": ["Age >= 45", "Age < 40", "Age"],
        "x.y": ["x.y <= 1e-03"],
        "sex = F": ["sex = F"],
        "n": ["n > 2"],
    }
    assert rev == ["Age < 40", "x.y <= 1e-03"]


@pytest.mark.slow
def test_tilm_on_haberman_keeps_rules_per_feature_and_signs(paper_data):
    X, y = paper_data("haberman")
    B = binarize(X, n_thresholds=5, direction="auto")
    groups, rev = threshold_groups(list(B.columns))
    assert set(groups) == set(X.columns) and rev  # "auto" writes both >= and < rules
    # small C_f and C_t: the model would like many rules, so the cap and the signs must hold it
    card = fit_tilm(B, y, C_f=0.002, C_t=0.001, max_rules_per_feature=2, time_limit=8)
    assert card.family == "tilm" and card.status in ("optimal", "time_limit")
    assert card.solve_time < 12
    used = card.points
    assert len(used) >= 2, "a card this small on haberman would be a poor model"
    for members in groups.values():
        oriented = [(-1 if m in rev else 1) * used[m] for m in members if m in used]
        assert len(oriented) <= 2
        assert all(s > 0 for s in oriented) or all(s < 0 for s in oriented)
    assert sw.check_card(card, prepare_data(B, y), card.spec) == []
    assert card.metrics(B, y).error < 0.265  # better than always predicting survival (26.5 % die)


# -- checks, validation, JSON ----------------------------------------------------------------------
def test_check_card_catches_every_new_violation():
    X = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 0]])
    y = np.array([1, 1, -1, -1])
    names = ["a >= 1", "a >= 2", "b"]
    data = prepare_data(X, y, feature_names=names, warn=False)
    spec = sw.make_spec(
        tiers=[(3, 0.01)],
        groups={"a": names[:2]},
        max_rules_per_group=1,
        group_signs_agree=True,
        coef_range=(-5, 5),
    )

    def card(*points):
        return ScoringSystem(tuple(names), points, -1, positive=1, negative=-1)

    assert sw.check_card(card(2, 0, 1), data, spec) == []
    problems = sw.check_card(card(2, -1, 4), data, spec)
    assert any("tiers" in p for p in problems)
    assert any("max_rules_per_group" in p for p in problems)
    assert any("group_signs_agree" in p for p in problems)
    reversed_spec = spec.replace(
        group_reversed=["a >= 2"], max_rules_per_group=None, tiers=None, C0=0.01
    )
    assert (
        sw.check_card(card(2, -1, 1), data, reversed_spec) == []
    )  # opposite rules agree in direction
    assert sw.check_card(card(2, 1, 1), data, reversed_spec) != []


def test_group_constraints_that_clash_are_diagnosed():
    X, y, names = tiny_problem(1)
    with pytest.raises(ValueError, match="max_rules_per_group"):
        sw.make_spec(groups={"g": names[:2]}, require=names[:2], max_rules_per_group=1)
    spec = sw.make_spec(
        groups={"g": names[:2]},
        require=names[:2],
        group_signs_agree=True,
        signs={names[0]: "+", names[1]: "-"},
        coef_range=(-3, 3),
        intercept_range=(-8, 8),
    )
    with pytest.raises(sw.InfeasibleError, match="group_signs_agree"):
        sw.fit(X, y, feature_names=names, spec=spec)


@pytest.mark.parametrize("solver", SOLVERS)
def test_a_needs_target_must_really_be_used(solver):
    """Regression: alpha_t = 1 with lambda_t = 0 met "f1 needs f2" in the MIP with a card that
    breaks it (found by a brute-force sweep mixing values without 0 and a needs constraint)."""
    X = np.array(
        [
            [2, 2, 2],
            [0, 0, 2],
            [1, 2, 0],
            [1, 2, 1],
            [2, 1, 0],
            [1, 1, 1],
            [2, 2, 1],
            [2, 1, 1],
            [0, 1, 0],
            [1, 2, 2],
            [1, 2, 2],
        ]
    )
    y = np.array([1, -1, 1, 1, -1, -1, -1, 1, 1, 1, 1])
    names = ["f0", "f1", "f2"]
    spec = sw.make_spec(
        coef_range=(-3, 3),
        intercept_range=(-8, 8),
        C0=1 / 22,
        values={"f1": [-1, 3]},
        signs={"f0": "-"},
        constraints=[sw.needs("f1", "f2")],
        solver=solver,
    )
    card = sw.fit(X, y, feature_names=names, spec=spec)
    assert card.points.get("f2", 0) != 0
    assert_family_exact(card, X, y, names, spec, 1 / 22)


@pytest.mark.parametrize(
    "bad, message",
    [
        (dict(tiers=[(5, 0.1), (3, 0.2)]), "increase"),
        (dict(tiers=[(5, 0.1), (9, 0.05)]), "not decrease"),
        (dict(tiers=[(0, 0.1)]), ">= 1"),
        (dict(tiers=[(5, 0.1)], C0=0.01), "C0 or tiers"),
        (dict(groups={"g": ["a"], "h": ["a", "b"]}), "disjoint"),
        (dict(group_penalty=0.1), "need groups"),
        (dict(groups={"g": ["a"]}, group_reversed=["b"]), "no group"),
        (dict(groups={"g": ["a"]}, max_rules_per_group=0), ">= 1"),
        (dict(lock={"a": 7}, tiers=[(5, 0.1)]), "beyond the last tier"),
    ],
)
def test_invalid_family_options(bad, message):
    with pytest.raises((ValueError, TypeError), match=message):
        sw.make_spec(**bad)


def test_new_spec_options_round_trip_through_json():
    spec = sw.make_spec(
        tiers=[(10, 0.01), (100, 0.05)],
        coef_range=(-100, 100),
        groups={"age": ["age >= 40", "age < 30"], "nodes": ["nodes >= 2"]},
        group_penalty=0.02,
        rule_penalty=0.01,
        max_rules_per_group=2,
        group_signs_agree=True,
        group_reversed=["age < 30"],
    )
    d = json.loads(json.dumps(spec.to_dict()))
    assert d["tiers"] == [[10, 0.01], [100, 0.05]] and d["groups"]["age"] == [
        "age >= 40",
        "age < 30",
    ]
    back = sw.Spec.from_dict(d)
    assert back == spec and back.key() == spec.key()
    assert back.tiers == ((10, 0.01), (100, 0.05)) and back.group_reversed == ("age < 30",)
    # the options survive a card's JSON too
    X = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 1], [0, 0, 0]])
    card = ScoringSystem(
        ("age >= 40", "age < 30", "nodes >= 2"), (2, 0, 1), -1, spec=spec, family="tilm"
    )
    again = ScoringSystem.from_json(card.to_json())
    assert again.spec.key() == spec.key() and again.family == "tilm"
    assert again.predict(X).tolist() == card.predict(X).tolist()
    # a plain spec serializes without any of the new keys (old readers,
    # caches and checksums unchanged)
    plain = sw.make_spec(max_size=3).to_dict()
    assert not {
        "tiers",
        "groups",
        "group_penalty",
        "rule_penalty",
        "max_rules_per_group",
        "group_signs_agree",
        "group_reversed",
    } & set(plain)
    with pytest.raises(ValueError, match="unknown model family"):
        ScoringSystem.from_dict({**card.to_dict(), "family": "deep net"}, verify=False)
