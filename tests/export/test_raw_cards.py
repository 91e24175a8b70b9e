"""A card fit on a raw table applies itself to raw rows, identically in
predict, SQL, Python and JSON."""

import json
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.core.rules import RuleBuilder
from slimwidgets.export.card import MISSING_NOTE

pytestmark = pytest.mark.slow  # fits on raw tables: python -m pytest --all runs them

DATA = Path(__file__).resolve().parents[1] / "data"


def raw(n=240, seed=0, names=("age", "bmi", "sex", "smoker")):
    rng = np.random.default_rng(seed)
    age = rng.integers(30, 85, n)
    bmi = np.round(rng.normal(28, 5, n), 1)
    missing = rng.random(n) < 0.15
    sex = rng.choice(["F", "M"], n).astype(object)
    sex[:4] = "X"  # rare: pooled into 'other'
    smoker = rng.random(n) < 0.3
    risk = 0.08 * (age - 55) + 0.2 * (bmi - 28) + 1.0 * (sex == "M") + 1.2 * missing + 0.8 * smoker
    y = (rng.random(n) < 1 / (1 + np.exp(-risk))).astype(int)
    bmi[missing] = np.nan
    X = pd.DataFrame(dict(zip(names, [age, bmi, sex, smoker])))
    return X, pd.Series(y, name="event")


def held_out(names=("age", "bmi", "sex", "smoker")):
    """New rows with missing values everywhere and levels never seen in training."""
    X, _ = raw(40, seed=7, names=names)
    age, bmi, sex, smoker = names
    X = X.astype({age: float, smoker: object})
    X.loc[X.index[:3], sex] = ["never seen", None, "X"]
    X.loc[X.index[3], age] = np.nan
    X.loc[X.index[4], smoker] = None
    X.loc[X.index[5:8], bmi] = np.nan
    return X


@pytest.fixture(scope="module")
def card():
    X, y = raw()
    return sw.fit(X, y, max_size=4, coef_range=(-3, 3), time_limit=60)


def sqlite_scores(card, X, table="patients"):
    con = sqlite3.connect(":memory:")
    X.reset_index(drop=True).to_sql(table, con, index=False)
    rows = con.execute(card.to_sql(table=table)).fetchall()
    cols = [d[0] for d in con.execute(card.to_sql(table=table)).description]
    con.close()
    out = pd.DataFrame(rows, columns=cols)
    return out["score"].to_numpy(), out["prediction"].to_numpy()


def python_scores(card, X):
    namespace = {}
    exec(card.to_python(), namespace)
    rows = [row for _, row in X.iterrows()]
    return np.array([namespace["score"](r) for r in rows]), np.array(
        [namespace["predict"](r) for r in rows]
    )


def test_fit_on_a_raw_table_builds_rules_and_keeps_them(card):
    X, y = raw()
    assert isinstance(card.rules, RuleBuilder)
    assert "bmi missing" in card.feature_names and "sex = other" in card.feature_names
    # exactly the card that the same rules give when binarized by hand
    by_hand = sw.fit(
        RuleBuilder().fit_transform(X), y, max_size=4, coef_range=(-3, 3), time_limit=60
    )
    assert by_hand.status == card.status == "optimal"
    assert by_hand.objective == pytest.approx(card.objective) and by_hand.points == card.points
    assert card.score(X).tolist() == by_hand.score(RuleBuilder().fit_transform(X)).tolist()


def test_sql_and_python_exports_equal_predict_on_raw_rows(card):
    X = held_out()
    with pytest.warns(sw.DataWarning):  # smoker was never missing in training: named, scores 0
        expected_score, expected = card.score(X).to_numpy(), card.predict(X).to_numpy()
    sql_score, sql_pred = sqlite_scores(card, X)
    assert sql_score.tolist() == expected_score.tolist()
    assert sql_pred.tolist() == expected.tolist()
    py_score, py_pred = python_scores(card, X)
    assert py_score.tolist() == expected_score.tolist() and py_pred.tolist() == expected.tolist()
    # and on the training rows
    train, _ = raw()
    assert (
        sqlite_scores(card, train)[0].tolist()
        == card.score(train).tolist()
        == python_scores(card, train)[0].tolist()
    )


def test_every_kind_of_rule_scores_alike_in_sql_python_and_predict(card):
    # points on every rule (thresholds, levels, 'other', booleans, missing): each kind is exercised
    every = card.with_points(
        {name: (-1) ** k * (k % 3 + 1) for k, name in enumerate(card.feature_names)}
    )
    kinds = {r.kind for r in every.rules.rules_}
    assert kinds == {"ge", "eq", "other", "is", "missing"}
    X = held_out()
    with pytest.warns(sw.DataWarning):
        expected = every.score(X).tolist()
    assert sqlite_scores(every, X)[0].tolist() == expected == python_scores(every, X)[0].tolist()
    assert "other (X) or unseen" in every.to_text() and "missing: " in every.to_text()


def test_risk_card_exports_carry_the_rules_too():
    X, y = raw(120)
    risk = sw.fit(X, y, loss="logistic", max_size=2, coef_range=(-3, 3), time_limit=5)
    test = held_out()
    namespace = {}
    exec(risk.to_python(), namespace)
    with pytest.warns(sw.DataWarning):
        expected = risk.predict_proba(test)[1].to_numpy()
    assert [namespace["risk"](row) for _, row in test.iterrows()] == pytest.approx(expected)


def test_json_round_trip_predicts_the_same_on_raw_rows(card, tmp_path):
    path = tmp_path / "card.json"
    card.to_json(str(path))
    again = sw.ScoringSystem.from_json(str(path))
    X = held_out()
    with pytest.warns(sw.DataWarning):
        assert again.score(X).tolist() == card.score(X).tolist()
    assert again.to_text() == card.to_text() and again.to_sql() == card.to_sql()
    tampered = json.loads(path.read_text())
    tampered["rules"]["rules"][0][3] = 1e9  # a moved cut point no longer matches the checksum
    with pytest.raises(ValueError, match="checksum"):
        sw.ScoringSystem.from_dict(tampered)
    tampered["rules"]["rules"][0][0] = "renamed"
    with pytest.raises(ValueError, match="rules do not match"):
        sw.ScoringSystem.from_dict(tampered, verify=False)


def test_a_card_saved_before_rules_still_loads_and_predicts():
    old = sw.ScoringSystem.from_json(str(DATA / "card_schema_v1.json"))
    assert old.rules is None
    X = pd.DataFrame({"age>=60": [1, 0], "visits": [2, 0], "smoker": [0, 1], "female": [0, 1]})
    assert old.score(X).tolist() == [6, -2]
    assert "×" in old.to_text() and "ADD POINTS FROM ROWS" in old.to_text()  # the old layout


def test_points_table_in_every_human_format(card):
    text = card.to_text()
    lines = text.splitlines()
    assert lines[0].startswith("PREDICT EVENT IF SCORE")
    age_line = next(line for line in lines if line.startswith("age "))
    assert "< " in age_line and "≥ " in age_line and " · " in age_line
    assert "ADD THE POINTS OF EACH VARIABLE = SCORE" in text
    assert MISSING_NOTE in text
    for output in (card.to_markdown(), card.to_html(), card.to_latex(), card._repr_html_()):
        assert "a missing value, or a level not listed (a level never seen in training" in output
        assert "ADD THE POINTS OF EACH VARIABLE" in output
    assert r"$\geq$" in card.to_latex() and "≥" not in card.to_latex().split("RISK BY SCORE")[0]
    for name, _bands in card.rules.points_table(card.points):
        assert name in text


HOSTILE = (
    'a"ge; DROP TABLE patients; --',
    "<script>alert(1)</script>",
    "s'e\nx $\\input{x}$",
    "sm|o`k*er",
)


def test_hostile_names_and_levels_are_escaped_everywhere():
    X, y = raw(names=HOSTILE)
    X[HOSTILE[2]] = X[HOSTILE[2]].map({"F": "F'); DROP TABLE t; --", "M": "<b>M</b>", "X": "X"})
    card = sw.fit(X, y, max_size=6, time_limit=20)
    assert card.size >= 3
    test = held_out(names=HOSTILE)
    test[HOSTILE[2]] = (
        test[HOSTILE[2]]
        .map({"F": "F'); DROP TABLE t; --", "M": "<b>M</b>", "X": "X"})
        .fillna(pd.Series([None] * len(test), index=test.index, dtype=object))
    )
    with pytest.warns(sw.DataWarning):
        expected = card.score(test).tolist()
    assert (
        sqlite_scores(card, test, table='t"; x')[0].tolist() == expected
    )  # identifiers and levels quoted
    assert python_scores(card, test)[0].tolist() == expected  # names only as literals
    html = card.to_html()
    assert "<script>" not in html and "<b>M</b>" not in html
    assert "\n" not in card.to_text().splitlines()[1] and "\\n" in card.to_text()
    latex = card.to_latex()
    assert r"\input{x}" not in latex and r"\textbackslash{}input\{x\}" in latex
    assert "\\<script\\>" in card.to_markdown() and "<script>" not in card.to_markdown()


def test_cuts_flow_through_fit_cv_and_the_estimator():
    X, y = raw(150)
    card = sw.fit_cv(X, y, max_size=[2, 3], cv=3, cuts={"age": [40, 50, 60]}, time_limit=10)
    assert card.rules is not None and card.rules.rules_of("age") == [
        "age >= 40",
        "age >= 50",
        "age >= 60",
    ]
    clf = sw.SLIMClassifier(max_size=3, cuts={"age": [50, 60]}, time_limit=10).fit(X, y)
    assert list(clf.feature_names_in_) == list(X.columns)
    assert clf.predict(X).tolist() == clf.scoring_system_.predict(X).tolist()
    signed = sw.fit(
        X, y, max_size=4, signs={"age": "-"}, time_limit=10
    )  # a variable name: all its rules
    assert all(p <= 0 for n, p in signed.points.items() if n.startswith("age"))


def test_card_data_checks_what_the_code_generators_write():
    from slimwidgets.export import CardData, render_python, render_sql

    rows = (("age >= 50", 2), ("sex = other", 1))
    defs = (("age", "ge", 50.0), ("sex", "other", ("F", "M")))
    card = CardData(
        rows,
        2,
        "yes",
        (True, True),
        variables=(("age", (("< 50", 0), ("≥ 50", 2))),),
        rule_defs=defs,
    )
    namespace = {}
    exec(render_python(card), namespace)
    assert (
        namespace["score"]({"age": 61, "sex": "X"}) == 3
        and namespace["score"]({"age": None, "sex": None}) == 0
    )
    assert """"sex" IS NOT NULL AND "sex" NOT IN ('F', 'M')""" in render_sql(card)

    class Sneaky(str):
        def __repr__(self):
            return "__import__('os').system('echo pwned')"

    for bad, error in (
        ((("age", "between", 1.0),), ValueError),
        ((("age", "ge", float("nan")),), ValueError),
        ((("sex", "eq", Sneaky("F")),), TypeError),
        ((("sex", "eq", ["F"]),), TypeError),
    ):
        with pytest.raises(error):
            CardData(rows[:1], 2, "yes", (True,), rule_defs=bad)
