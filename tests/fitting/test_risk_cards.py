"""Risk cards (loss="logistic"): exact against brute force, constraints kept, risk everywhere."""

from __future__ import annotations

import json
import math
import sqlite3

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.solvers.logistic import RiskProblem, search_risk

from brute_risk import best_risk_card, risk_loss
from tiny_problems import tiny_risk_problem as tiny

SPECS = [
    {},
    {"signs": {"f0": "+"}, "max_size": 2},
    {"exclude": ["f1"], "C0": 0.02},
    {"require": ["f2"], "penalties": {"f0": 0.05}},
    {"values": {"f0": [0, 2]}, "lock": {"f1": -1}},
    {"constraints": [sw.needs("f0", "f1")], "coef_range": {"f2": (0, 1)}},
    {"constraints": [sw.at_most(1, ["f0", "f1", "f2"])]},
    {"constraints": [sw.at_least(2, ["f0", "f1", "f2"])], "class_weights": "balanced"},
]


def _oracle(X, y, names, spec, data):
    ysign = np.where(np.asarray(y) == 1, 1, -1)
    w = None
    if spec.class_weights == "balanced":
        pos = ysign == 1
        w = np.where(pos, len(y) / (2 * pos.sum()), len(y) / (2 * (~pos).sum()))
    return best_risk_card(X.to_numpy(), ysign, names, spec, weights=w)


@pytest.mark.parametrize("scale", [True, False])
@pytest.mark.seeds(8)
@pytest.mark.slow
def test_walk_matches_brute_force(seed, scale):
    X, y, names = tiny(seed)
    options = dict(
        SPECS[seed % len(SPECS)],
        loss="logistic",
        scale=scale,
        coef_range=(-2, 2),
        intercept_range=(-3, 3),
    )
    if isinstance(options.get("coef_range"), dict):
        options["coef_range"] = (-2, 2)
    spec = sw.make_spec(**options)
    best, _, _, _ = _oracle(X, y, names, spec, None)
    card = sw.fit(X, y, spec=spec.replace(solver="enumerate"))
    assert card.status == "optimal" and card.family == "risk"
    assert card.objective == pytest.approx(best, abs=1e-7)
    # the card's own figures are honest: its objective recomputed from its points
    ysign = np.where(y == 1, 1, -1)
    w = None
    if spec.class_weights == "balanced":
        pos = ysign == 1
        w = np.where(pos, len(y) / (2 * pos.sum()), len(y) / (2 * (~pos).sum()))
    loss = risk_loss(
        X.to_numpy(),
        ysign,
        np.ones(len(y)) if w is None else w,
        card.coefficients,
        card.intercept,
        1 / card.multiplier,
    )
    c0 = 1e-6 if spec.C0 is None else spec.C0
    penalty = sum(spec.penalties.get(n, c0) for n, v in zip(names, card.coefficients) if v)
    assert loss + penalty == pytest.approx(card.objective, abs=1e-9)
    assert (card.multiplier == 1.0) if not scale else card.multiplier >= 0.5
    assert sw.check_card(card, prepare_data(X, y), spec) == []


@pytest.mark.seeds(8)
@pytest.mark.slow
def test_search_is_never_better_than_the_optimum_and_usually_reaches_it(seed):
    X, y, names = tiny(seed + 100, n=40, d=4)
    spec = sw.make_spec(loss="logistic", coef_range=(-2, 2), intercept_range=(-3, 3), max_size=3)
    best = _oracle(X, y, names, spec, None)[0]
    prob = RiskProblem.from_spec(prepare_data(X, y), spec)
    found = search_risk(prob)  # no time limit: deterministic
    assert found.objective >= best - 1e-7
    assert found.objective <= best + 0.02  # within 0.02 of the optimal mean log-loss on these
    # auto picks the walk for a box this small, and proves it
    card = sw.fit(X, y, spec=spec)
    assert card.status == "optimal" and card.objective == pytest.approx(best, abs=1e-7)


@pytest.mark.slow
def test_heuristic_cards_say_so_and_keep_every_constraint(paper_data):
    X, y = paper_data("heart")
    first = []
    rules = dict(
        loss="logistic",
        max_size=4,
        coef_range=(-5, 5),
        signs={"Age_geq_60": "+"},
        exclude=["Male"],
        require=["Age_geq_60"],
        values={"ChestPain_eq_asymptomatic": [0, 2, 4]},
        constraints=[sw.at_most(1, ["Thal_eq_Normal", "Thal_eq_ReversableDefect"])],
        time_limit=3,
    )
    card = sw.fit(X, y, on_incumbent=first.append, **rules)
    assert card.status == "heuristic" and "heuristic" in card.status_line()
    if card.bound is not None:  # the cutting planes' bound, a relaxation with a real multiplier
        # the bound in the user's terms on the status line; the solver's gap only in its details
        floor = card.bound - card.size * max(
            card.details["C0"]
        )  # log-loss of every card this size or smaller
        assert card.bound < card.objective and "gap" not in card.status_line()
        # how far the planes get in 3 s depends on the machine's load: a floor that rounds to
        # nothing is not a limit worth stating, any other is stated in the user's terms
        if round(floor, 4) > 0:
            assert f"train log-loss ≥ {floor:.4f}" in card.status_line()
        else:
            assert "no proven limit yet" in card.status_line()
    assert card.size <= 4 and card.points.get("Age_geq_60", 0) > 0 and "Male" not in card.points
    assert card.points.get("ChestPain_eq_asymptomatic", 0) in (0, 2, 4)
    assert sum(n in card.points for n in ("Thal_eq_Normal", "Thal_eq_ReversableDefect")) <= 1
    assert sw.check_card(card, prepare_data(X, y), card.spec) == []
    assert first and all(b.objective < a.objective for a, b in zip(first, first[1:]))
    assert first[-1].objective == pytest.approx(card.objective)
    # a lock turns an edit into a constraint
    locked = sw.fit(X, y, **dict(rules, lock={"Age_geq_60": 1}))
    assert locked.points["Age_geq_60"] == 1


def test_options_a_risk_card_cannot_honour_are_refused():
    for bad in ({"margin": 0.5}, {"solver": "cbc"}, {"solver": "scan"}, {"missing": {"a": 1}}):
        with pytest.raises(ValueError, match="risk cards .* have no use for"):
            sw.make_spec(loss="logistic", **bad)
    with pytest.raises(ValueError, match="loss must be one of"):
        sw.make_spec(loss="hinge")
    with pytest.raises(ValueError, match="risk cards only"):
        sw.make_spec(scale=False)
    assert "loss" not in sw.make_spec().to_dict()  # decision specs serialize as before
    spec = sw.make_spec(loss="logistic", scale=False, max_size=2)
    assert (
        sw.Spec.from_dict(json.loads(spec.key())) == spec
        or sw.Spec.from_dict(json.loads(spec.key())).key() == spec.key()
    )


def _risk_card():
    X, y, names = tiny(3, n=60)
    return sw.fit(X, y, loss="logistic", coef_range=(-3, 3), intercept_range=(-4, 4)), X, y


def test_predict_proba_json_and_every_export_carry_the_predicted_risk(tmp_path):
    card, X, y = _risk_card()
    proba = card.predict_proba(X)
    assert list(proba.columns) == [0, 1] and proba.index.equals(X.index)
    z = (card.score(X).to_numpy() + card.intercept) / card.multiplier
    np.testing.assert_allclose(proba[1].to_numpy(), 1 / (1 + np.exp(-z)), rtol=1e-12)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.array_equal(
        card.predict(X).to_numpy() == 1, proba[1].to_numpy() >= 0.5
    )  # total >= threshold
    # JSON round trip is exact
    again = sw.ScoringSystem.from_json(
        card.to_json(tmp_path / "card.json") and str(tmp_path / "card.json")
    )
    assert (
        again.multiplier == card.multiplier and again.family == "risk" and again.risk == card.risk
    )
    np.testing.assert_array_equal(again.predict_proba(X).to_numpy(), proba.to_numpy())
    # the risk table: observed rate with its interval beside the predicted
    # risk, in every document format
    scores = [row[0] for row in card.risk]
    predicted = card.predicted_risk(scores)
    for text in (card.to_text(), card.to_markdown(), card.to_html(), card.to_latex()):
        assert "predicted risk" in text
        for p in predicted:
            assert f"{100 * p:.1f}" in text
    # generated code computes the same probability
    namespace: dict = {}
    exec(card.to_python(), namespace)
    rows = X.to_dict("records")
    np.testing.assert_allclose(
        [namespace["risk"](r) for r in rows], proba[1].to_numpy(), rtol=1e-12
    )
    con = sqlite3.connect(":memory:")
    X.to_sql("patients", con, index=False)
    got = [
        r[0]
        for r in con.execute(
            card.to_sql().replace("SELECT *,", "SELECT risk FROM (SELECT *,").rstrip(";") + ")"
        )
    ]
    np.testing.assert_allclose(got, proba[1].to_numpy(), rtol=1e-9)


def test_exports_escape_untrusted_names_of_risk_cards():
    nasty = 'x"); DROP TABLE t; --\n<b>'
    X = pd.DataFrame({nasty: [0, 1, 1, 0, 1, 0, 1, 1], "b": [1, 0, 1, 0, 0, 1, 1, 0]})
    card = sw.fit(
        X, [0, 1, 1, 0, 1, 0, 0, 1], loss="logistic", coef_range=(-2, 2), intercept_range=(-3, 3)
    )
    assert nasty in card.feature_names
    namespace: dict = {}
    exec(card.to_python(), namespace)
    assert 0 < namespace["risk"]({nasty: 1, "b": 0}) < 1
    con = sqlite3.connect(":memory:")
    X.to_sql("patients", con, index=False)
    assert len(con.execute(card.to_sql()).fetchall()) == 8
    assert "<b>" not in card.to_html()


def test_decision_cards_have_no_predicted_risk_and_keep_their_exports():
    X = pd.DataFrame({"a": [1, 1, 0, 0, 1, 0], "b": [0, 1, 0, 1, 1, 0]})
    card = sw.fit(X, [1, 1, 0, 0, 1, 0], max_size=1)
    with pytest.raises(AttributeError, match="risk card"):
        card.predict_proba(X)
    assert "predicted risk" not in card.to_text() and "risk(" not in card.to_python()
    assert "multiplier" not in card.to_dict()
    with pytest.raises(ValueError, match="multiplier"):
        sw.ScoringSystem(("a",), (1,), 0, family="risk")


@pytest.mark.slow
def test_estimator_fits_risk_cards():
    from sklearn.model_selection import cross_val_score

    X, y, names = tiny(5, n=80)
    est = sw.SLIMClassifier(loss="logistic", coef_range=(-3, 3), intercept_range=(-4, 4)).fit(X, y)
    p = est.predict_proba(X)
    assert p.shape == (80, 2) and np.allclose(p.sum(axis=1), 1)
    np.testing.assert_allclose(p[:, 1], est.scoring_system_.predict_proba(X).to_numpy()[:, 1])
    assert not math.isnan(cross_val_score(est, X, y, cv=3, scoring="neg_log_loss").mean())
    with pytest.raises(AttributeError):
        sw.SLIMClassifier().fit(X, y).predict_proba(X)


def test_cli_fits_a_risk_card_and_refuses_what_it_cannot_honour(tmp_path, capsys):
    from slimwidgets.cli import main

    X, y, names = tiny(4, n=60)
    X.assign(Y=y).to_csv(tmp_path / "d.csv", index=False)
    code = main(
        [
            "fit",
            str(tmp_path / "d.csv"),
            "--target",
            "Y",
            "--loss",
            "logistic",
            "--coef-range",
            "-3:3",
            "--intercept-range",
            "-4:4",
            "--format",
            "python",
            "--json",
            str(tmp_path / "c.json"),
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    card = sw.ScoringSystem.from_json(str(tmp_path / "c.json"))
    assert card.family == "risk" and card.status == "optimal" and "def risk(row)" in out
    code = main(
        ["fit", str(tmp_path / "d.csv"), "--target", "Y", "--loss", "logistic", "--solver", "cbc"]
    )
    out, err = capsys.readouterr()
    assert code == 2 and "have no use for solver='cbc'" in err


@pytest.mark.parametrize("loss", ["zero_one", "logistic"])
def test_alternatives_are_distinct_near_optimal_and_match_brute_force(loss):
    X, y, names = tiny(7, n=40, d=3)
    options = dict(loss=loss, coef_range=(-2, 2), intercept_range=(-3, 3), max_size=2)
    cards = sw.alternatives(X, y, k=4, within=0.3, **options)
    assert 1 <= len(cards) <= 4
    supports = [frozenset(c.points) for c in cards]
    for i, s in enumerate(supports):  # no card reuses an earlier card's whole feature set
        assert not any(t <= s for t in supports[:i] if t)
    assert all(c.objective <= cards[0].objective + 0.3 + 1e-12 for c in cards)
    assert cards[0].objective == pytest.approx(sw.fit(X, y, **options).objective)
    if (
        loss == "logistic"
    ):  # the second card is the best one that does not use the first's features together
        first = sorted(supports[0])
        spec = sw.make_spec(**options, constraints=[sw.at_most(len(first) - 1, first)])
        best = _oracle(X, y, names, spec, None)[0]
        assert len(cards) > 1 and cards[1].objective == pytest.approx(best, abs=1e-7)


@pytest.mark.seeds(6)
@pytest.mark.slow
def test_cutting_planes_prove_the_optimum_without_scale_and_bound_it_with_scale(seed):
    X, y, names = tiny(seed + 50)
    options = dict(
        SPECS[seed % len(SPECS)], loss="logistic", coef_range=(-2, 2), intercept_range=(-3, 3)
    )
    if isinstance(options.get("coef_range"), dict):
        options["coef_range"] = (-2, 2)
    fixed = sw.make_spec(**options, scale=False, solver="highs")
    best = _oracle(X, y, names, fixed, None)[0]
    card = sw.fit(X, y, spec=fixed)  # no walk; no time limit: the planes run until they prove it
    assert card.status == "optimal" and card.solver == "logistic search + cutting planes"
    assert card.objective == pytest.approx(best, abs=1e-7) and card.gap == 0.0
    # with a real multiplier the master is a relaxation: its bound never passes the optimum
    from slimwidgets.solvers.logistic import RiskProblem
    from slimwidgets.solvers.risk_bound import risk_lower_bound

    scaled = fixed.replace(scale=True)
    best = _oracle(X, y, names, scaled, None)[0]
    bound, _ = risk_lower_bound(
        RiskProblem.from_spec(prepare_data(X, y), scaled),
        [np.zeros(len(names) + 1)],
        time_limit=0.5,
    )
    assert bound <= best + 1e-9


@pytest.mark.seeds(6)
def test_the_continuous_fit_reaches_the_box_constrained_optimum_on_merged_rows_too(seed):
    """The beam's fit (projected Newton) against scipy's L-BFGS-B on the same bounded problem,
    on the rows as they are and on the rows merged by support (binary features)."""
    from scipy.optimize import minimize

    from slimwidgets.core.losses import LogisticLoss, box_newton_fit

    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(200, 5)).astype(float)
    X[:, 4] = rng.normal(size=200) * (1 + 9 * (seed % 2))  # a real-valued column, sometimes wide
    y = (rng.random(200) < 1 / (1 + np.exp(-(X @ rng.normal(0, 2, size=5) - 0.5)))).astype(int)
    L = LogisticLoss(prepare_data(X, y))
    for support in ([0, 1, 2], [0, 3, 4], [2]):
        lo, hi = -np.full(len(support), 1.5), np.full(len(support), 1.5)

        def loss(v, s=support):
            return float(L.w @ np.logaddexp(0.0, -L.y * (v[0] + L.X[:, s] @ v[1:])))

        ref = minimize(
            loss,
            np.zeros(len(support) + 1),
            method="L-BFGS-B",
            bounds=[(None, None)] + [(-1.5, 1.5)] * len(support),
            options={"ftol": 1e-14, "gtol": 1e-10},
        )
        columns, yy, w = L.on_support(support)
        assert len(yy) <= (2 ** (len(support) + 1) if L.binary[support].all() else len(L.y))
        beta = np.zeros(len(support))
        b0, value = box_newton_fit(columns, yy, w, beta, 0.0, lo, hi, 100)
        assert value == pytest.approx(
            loss(np.append(b0, beta)), abs=1e-12
        )  # the merged rows' loss is the loss
        assert value <= ref.fun + 1e-9 and (np.abs(beta) <= 1.5).all()


def test_the_beam_keeps_no_support_whose_points_round_away():
    """A wide column (the strongest single feature here) gets a tiny continuous point beside
    binary ones, which rounds to 0 on every multiplier: a support with both is a smaller one
    in disguise and must not fill the beam (on spambase such supports crowded out the rest)."""
    from slimwidgets.solvers.logistic import _rounds_away, beam_supports

    rng = np.random.default_rng(0)
    n = 400
    B = rng.integers(0, 2, size=(n, 4)).astype(float)
    wide = rng.normal(size=n) * 1000
    y = (
        rng.random(n) < 1 / (1 + np.exp(-(B @ np.array([1.0, -1.0, 1.0, 1.0]) - 1.5 + wide / 300)))
    ).astype(int)
    X = pd.DataFrame(np.column_stack([wide, B]), columns=["wide"] + [f"b{j}" for j in range(4)])
    prob = RiskProblem.from_spec(
        prepare_data(X, y), sw.make_spec(loss="logistic", max_size=3, coef_range=(-5, 5))
    )
    fits = beam_supports(prob, 10, 10, math.inf, lambda: False)
    assert [0] in [f[1] for f in fits] and any(len(f[1]) == 3 for f in fits)
    assert not any(_rounds_away(prob, support, beta) for _, support, beta, _ in fits)
    card = search_risk(prob)
    assert (
        card.objective <= min(f[0] for f in fits if f[1] == [0]) + 0.05
    )  # the wide feature alone is good here


def test_the_merged_rows_give_every_card_on_the_support_its_exact_loss():
    """LogisticLoss.merged: the rows that agree on the support's (binary) features and the label
    become one, and every card using only those features keeps its loss, at any multiplier;
    a support with a non-binary feature merges nothing."""
    from slimwidgets.core.losses import LogisticLoss

    rng = np.random.default_rng(7)
    X = rng.integers(0, 2, size=(300, 5)).astype(float)
    X[:, 4] = rng.integers(0, 7, size=300)
    y = rng.integers(0, 2, size=300)
    w = rng.uniform(0.5, 2.0, size=300)
    full = LogisticLoss(prepare_data(X, y, sample_weight=w))
    merged = full.merged([0, 2, 3])
    assert merged is not full and merged.y.size <= 16 and merged.w.sum() == pytest.approx(1.0)
    for _ in range(20):
        coefs = np.zeros(5)
        coefs[[0, 2, 3]] = rng.integers(-5, 6, size=3)
        b0, m = int(rng.integers(-6, 7)), float(rng.uniform(0.5, 4.0))
        assert merged.evaluate(coefs, b0, m) == pytest.approx(
            full.evaluate(coefs, b0, m), abs=1e-12
        )
        u_full, u_merged = full.margins(coefs, b0), merged.margins(coefs, b0)
        deltas = np.array([-2.0, 1.0, 3.0])
        assert merged.scan(u_merged, 2, deltas, 1 / m) == pytest.approx(
            full.scan(u_full, 2, deltas, 1 / m), abs=1e-12
        )
    assert full.merged([0, 4]) is full
