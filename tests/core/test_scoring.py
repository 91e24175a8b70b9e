"""ScoringSystem: the printed rule, predictions, metrics, editing, JSON, and
hostile feature names."""

from __future__ import annotations

import json
import os
import re
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.core.card_json import checksum
from slimwidgets.core.scoring import SCHEMA_VERSION, ScoringSystem
from slimwidgets.datasets import RULES_ATTR

SMALL = {"coef_range": (-3, 3)}
DATA = Path(__file__).resolve().parents[1] / "data"
RULE = re.compile(r"^PREDICT (.+) IF SCORE ≥ (-?\d+)$")


def make_xy() -> tuple[pd.DataFrame, pd.Series]:
    """24 rows with a count feature, a string-labelled outcome and a non-default index."""
    rng = np.random.default_rng(7)
    n = 24
    X = pd.DataFrame(
        {
            "age>=60": rng.integers(0, 2, n),
            "visits": rng.integers(0, 4, n),
            "smoker": rng.integers(0, 2, n),
            "female": rng.integers(0, 2, n),
        },
        index=[f"p{i:02d}" for i in range(n)],
    )
    raw = 2 * X["age>=60"] + X["visits"] - 2 * X["female"] + rng.integers(0, 2, n)
    y = pd.Series(np.where(raw >= 2, "sick", "well"), index=X.index, name="outcome")
    X.attrs[RULES_ATTR] = False  # features as the engine takes them: the count scores per visit
    return X, y


@pytest.fixture(scope="module")
def xy():
    return make_xy()


@pytest.fixture(scope="module")
def card(xy):
    X, y = xy
    return sw.fit(X, y, positive="sick", **SMALL)


def hand_score(card: ScoringSystem, X: pd.DataFrame) -> list[int]:
    return [sum(p * int(row[name]) for name, p in card.points.items()) for _, row in X.iterrows()]


# -- the rule as printed ------------------------------------------------------------------------
def test_fitted_card_is_not_trivial(card):
    assert card.status == "optimal"
    assert card.size >= 2  # otherwise the checks below prove little
    assert card.positive == "sick" and card.negative == "well"


def test_predict_score_and_decision_follow_the_printed_rule(card, xy):
    X, _ = xy
    title = str(card).splitlines()[0]
    m = RULE.match(title)
    assert m, title
    assert m.group(1) == "SICK"
    threshold = int(m.group(2))
    assert threshold == card.threshold == -card.intercept
    # every used feature is printed with its points
    text = str(card)
    for name, p in card.points.items():
        pts = re.escape(f"{p} point")
        assert re.search(f"{re.escape(name)}.*{pts}|{pts}s? × {re.escape(name)}", text), (name, p)
    expected_score = hand_score(card, X)
    assert card.score(X).tolist() == expected_score
    assert card.decision_function(X).tolist() == [s - threshold for s in expected_score]
    expected = ["sick" if s >= threshold else "well" for s in expected_score]
    assert card.predict(X).tolist() == expected
    # arrays give the same answers
    arr = X.to_numpy()
    assert np.asarray(card.score(arr)).tolist() == expected_score
    assert list(card.predict(arr)) == expected


def test_predict_returns_labels_as_series_with_the_index(card, xy):
    X, _ = xy
    pred = card.predict(X)
    assert isinstance(pred, pd.Series)
    assert pred.index.equals(X.index)
    assert set(pred) <= {"sick", "well"}
    score = card.score(X)
    assert isinstance(score, pd.Series) and score.index.equals(X.index)
    shuffled = X.sample(frac=1.0, random_state=3)
    assert card.predict(shuffled).index.equals(shuffled.index)
    assert card.predict(shuffled).equals(pred.loc[shuffled.index])
    # column order and extra columns do not matter; the names do
    reordered = X[X.columns[::-1]].assign(extra=5)
    assert card.predict(reordered).equals(pred)


def test_predict_on_array_returns_array(card, xy):
    X, _ = xy
    pred = card.predict(X.to_numpy())
    assert isinstance(pred, np.ndarray) and pred.shape == (len(X),)


def test_predict_input_errors(card, xy):
    X, _ = xy
    used = next(iter(card.points))
    with pytest.raises(KeyError, match=re.escape(used)):
        card.predict(X.drop(columns=[used]))
    with pytest.raises(ValueError, match="3 columns.*4 features"):
        card.predict(X.to_numpy()[:, :3])
    bad = X.astype(float)
    bad.iloc[0, list(X.columns).index(used)] = np.nan
    with pytest.raises(ValueError, match=re.escape(used)):
        card.predict(bad)


def test_threshold_is_inclusive_by_hand():
    card = ScoringSystem(("a", "b"), (2, -1), -1, positive="yes", negative="no")
    assert card.threshold == 1 and card.zero_score == "positive"
    assert str(card).splitlines()[0] == "PREDICT YES IF SCORE ≥ 1"
    X = pd.DataFrame({"a": [1, 1, 0, 0], "b": [0, 1, 0, 1]})
    assert card.score(X).tolist() == [2, 1, 0, -1]
    assert card.decision_function(X).tolist() == [1, 0, -1, -2]
    assert card.predict(X).tolist() == ["yes", "yes", "no", "no"]  # a score equal to T is positive


def test_threshold_is_strict_under_the_papers_rule():
    card = ScoringSystem(("a", "b"), (2, -1), -1, positive="yes", negative="no", zero_score="error")
    assert str(card).splitlines()[0] == "PREDICT YES IF SCORE > 1"
    X = pd.DataFrame({"a": [1, 1, 0, 0], "b": [0, 1, 0, 1]})
    assert card.predict(X).tolist() == ["yes", "no", "no", "no"]  # a score equal to T is negative
    assert card.with_points({"b": -2}).zero_score == "error"  # an edit keeps the rule
    with pytest.raises(ValueError, match="zero_score"):
        ScoringSystem(("a",), (1,), 0, zero_score="maybe")


def test_hand_built_card_validation():
    with pytest.raises(TypeError, match="integers"):
        ScoringSystem(("a",), (1.5,), 0)
    with pytest.raises(TypeError, match="intercept"):
        ScoringSystem(("a",), (1,), 0.5)
    with pytest.raises(ValueError, match="2 features but 1"):
        ScoringSystem(("a", "b"), (1,), 0)
    with pytest.raises(ValueError, match="duplicate.*'a'"):
        ScoringSystem(("a", "a"), (1, 2), 0)


def test_integer_column_names_predict_on_the_training_frame():
    X, y = make_xy()
    X.columns = range(X.shape[1])
    card = sw.fit(X, y, positive="sick", **SMALL)
    assert card.size >= 1
    assert card.predict(X).tolist() == card.predict(X.to_numpy()).tolist()


# -- metrics ---------------------------------------------------------------------------------------
def test_metrics_match_hand_computation(card, xy):
    X, y = xy
    pred = card.predict(X)
    tp = int(((pred == "sick") & (y == "sick")).sum())
    fp = int(((pred == "sick") & (y == "well")).sum())
    tn = int(((pred == "well") & (y == "well")).sum())
    fn = int(((pred == "well") & (y == "sick")).sum())
    m = card.metrics(X, y)
    assert (m.tp, m.fp, m.tn, m.fn, m.n) == (tp, fp, tn, fn, len(y))
    assert m.error == pytest.approx((fp + fn) / len(y))
    assert m.accuracy == pytest.approx(1 - (fp + fn) / len(y))
    assert m.tpr == pytest.approx(tp / (tp + fn))
    assert m.fpr == pytest.approx(fp / (fp + tn))
    assert m.size == card.size
    assert m.confusion.loc["positive", "positive"] == tp
    assert m.confusion.loc["positive", "negative"] == fn
    assert m.confusion.loc["negative", "positive"] == fp
    assert m.confusion.loc["negative", "negative"] == tn
    assert card.train_metrics == m  # what fit reports is what the card does


def test_weighted_metrics(card, xy):
    X, y = xy
    w = np.arange(1, len(y) + 1, dtype=float)
    pred = card.predict(X).to_numpy()
    wrong = pred != y.to_numpy()
    m = card.metrics(X, y, sample_weight=w)
    assert m.n == w.sum()
    assert m.error == pytest.approx(w[wrong].sum() / w.sum())
    pos = y.to_numpy() == "sick"
    assert m.tpr == pytest.approx(w[pos & (pred == "sick")].sum() / w[pos].sum())
    with pytest.raises(ValueError, match="sample_weight"):
        card.metrics(X, y, sample_weight=w[:-1])


def test_metrics_on_one_class_test_set(card, xy):
    X, y = xy
    sick = y == "sick"
    m = card.metrics(X[sick], y[sick])
    assert m.fp == 0 and m.tn == 0 and m.tp + m.fn == sick.sum()
    assert np.isnan(m.fpr)


def test_metrics_reject_foreign_labels(card, xy):
    X, y = xy
    with pytest.raises(ValueError, match="healthy"):
        card.metrics(X, y.replace("well", "healthy"))
    with pytest.raises(ValueError, match="other"):
        card.metrics(X, pd.Series(["other"] * len(X), index=X.index))
    with pytest.raises(ValueError, match="rows"):
        card.metrics(X, y.iloc[:-1])


# -- editing ---------------------------------------------------------------------------------------
def test_with_points_is_edited(card, xy):
    X, _ = xy
    name = next(iter(card.points))
    edited = card.with_points({name: card.points[name] + 1}, intercept=card.intercept - 1)
    assert edited.status == "edited"
    assert edited.points[name] == card.points[name] + 1
    assert edited.threshold == card.threshold + 1
    assert {k: v for k, v in edited.points.items() if k != name} == {
        k: v for k, v in card.points.items() if k != name
    }
    assert card.status == "optimal"  # the original is untouched
    assert edited.score(X).tolist() == hand_score(edited, X)
    assert "edited" in str(edited)
    with pytest.raises(KeyError, match="nope"):
        card.with_points({"nope": 1})
    with pytest.raises(TypeError, match="integers"):
        card.with_points({name: 0.5})


# -- JSON ------------------------------------------------------------------------------------------
def assert_same_card(a: ScoringSystem, b: ScoringSystem, X) -> None:
    assert b.feature_names == a.feature_names
    assert b.coefficients == a.coefficients and b.intercept == a.intercept
    assert (b.positive, b.negative, b.status) == (a.positive, a.negative, a.status)
    assert b.predict(X).tolist() == a.predict(X).tolist()


def test_json_round_trip(card, xy):
    X, _ = xy
    text = card.to_json()
    doc = json.loads(text)
    assert doc["schema_version"] == SCHEMA_VERSION
    assert doc["package"] == "slimwidgets" and doc["package_version"] == sw.__version__
    assert doc["status"] == "optimal"
    assert doc["spec"]["coef_range"] == [-3, 3]
    assert doc["train_metrics"]["tp"] == card.train_metrics.tp
    back = ScoringSystem.from_json(text)
    assert_same_card(card, back, X)
    assert back.spec.key() == card.spec.key()
    assert back.train_metrics == card.train_metrics
    assert back.to_json() == text  # a second round trip changes nothing


def test_json_round_trip_through_a_file(card, xy, tmp_path):
    X, _ = xy
    path = tmp_path / "card.json"
    text = card.to_json(str(path))
    assert path.read_text(encoding="utf-8") == text
    assert_same_card(card, ScoringSystem.from_json(str(path)), X)
    assert_same_card(card, ScoringSystem.from_json(path), X)  # a pathlib.Path works too


def test_json_round_trip_of_a_rich_spec(xy):
    X, y = xy
    card = sw.fit(
        X,
        y,
        positive="sick",
        signs={"age>=60": "+"},
        values={"visits": [0, 1, 2]},
        constraints=[sw.at_most(2, ["smoker", "female", "visits"])],
        max_size=3,
        **SMALL,
    )
    back = ScoringSystem.from_json(card.to_json())
    assert back.spec == card.spec
    assert_same_card(card, back, X)


def test_json_of_edited_and_bool_cards(card, xy):
    X, y = xy
    edited = card.with_points(intercept=card.intercept + 1)
    assert_same_card(edited, ScoringSystem.from_json(edited.to_json()), X)
    bool_card = sw.fit(X, y == "sick", **SMALL)
    back = ScoringSystem.from_json(bool_card.to_json())
    assert back.positive is True and back.negative is False
    assert_same_card(bool_card, back, X)


def test_a_schema_1_file_loads_and_predicts_as_it_did(xy):
    """tests/data/card_schema_v1.json was written by slimwidgets before cards carried
    ``zero_score``; its threshold meant "score > threshold" (the paper's rule)."""
    X, _ = xy
    old = ScoringSystem.from_json(str(DATA / "card_schema_v1.json"))
    assert old.zero_score == "error" and old.spec.zero_score == "error"
    assert old.points == {"age>=60": 2, "visits": 2, "female": -2} and old.threshold == 3
    hand = ["sick" if s > 3 else "well" for s in hand_score(old, X)]
    assert old.predict(X).tolist() == hand
    assert str(old).splitlines()[0] == "PREDICT SICK IF SCORE > 3"
    again = ScoringSystem.from_json(old.to_json())  # written back as the current schema, rule kept
    assert json.loads(old.to_json())["schema_version"] == SCHEMA_VERSION
    assert again.zero_score == "error" and again.predict(X).tolist() == hand
    # refitting from its spec solves the problem that made it (the paper's rule)
    refit = sw.fit(X, xy[1], positive="sick", spec=old.spec)
    assert refit.objective == pytest.approx(old.objective, abs=1e-12)


@pytest.mark.parametrize("zero_score", ["positive", "error"])
def test_json_carries_the_rule(xy, zero_score):
    X, y = xy
    card = sw.fit(X, y, positive="sick", zero_score=zero_score, **SMALL)
    doc = json.loads(card.to_json())
    assert doc["zero_score"] == zero_score == doc["spec"]["zero_score"]
    back = ScoringSystem.from_json(card.to_json())
    assert back.zero_score == zero_score
    assert_same_card(card, back, X)


def test_malformed_json(card):
    text = card.to_json()
    with pytest.raises(ValueError, match="malformed JSON"):
        ScoringSystem.from_json(text[: len(text) // 2])


def test_wrong_schema_version(card):
    doc = card.to_dict()
    for version in (SCHEMA_VERSION + 1, "1", True, None):
        doc["schema_version"] = version
        doc["checksum"] = checksum({k: v for k, v in doc.items() if k != "checksum"})
        with pytest.raises(ValueError, match="schema_version"):
            ScoringSystem.from_json(json.dumps(doc))


def test_not_a_slimwidgets_document():
    with pytest.raises(ValueError, match="not a slimwidgets"):
        ScoringSystem.from_json('{"feature_names": ["a"], "coefficients": [1]}')


@pytest.mark.parametrize("text", ["[1, 2]", '"card"'])
def test_non_object_document(text):
    with pytest.raises(ValueError, match="must be an object"):
        ScoringSystem.from_json(text)


def test_missing_file():
    with pytest.raises(ValueError, match="not JSON and not a readable file"):
        ScoringSystem.from_json("/nonexistent/dir/card.json")


def test_not_text_at_all():
    with pytest.raises(TypeError, match="JSON text or a file path"):
        ScoringSystem.from_json(42)


def test_non_integer_point(card):
    doc = card.to_dict()
    doc["coefficients"][0] = 1.5
    # the checksum catches it first ...
    with pytest.raises(ValueError, match="checksum"):
        ScoringSystem.from_json(json.dumps(doc))
    # ... and without the checksum the type check still does
    with pytest.raises(ValueError, match="coefficients must be a list of integers"):
        ScoringSystem.from_json(json.dumps(doc), verify=False)
    doc["checksum"] = checksum({k: v for k, v in doc.items() if k != "checksum"})
    with pytest.raises(ValueError, match="coefficients must be a list of integers"):
        ScoringSystem.from_json(json.dumps(doc))


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("intercept", "3", "intercept"),
        ("feature_names", ["a", 1], "feature_names"),
        ("status", "perfect", "status"),
        ("positive", {"x": 1}, "positive"),
    ],
)
def test_bad_field_types(card, field, value, message):
    doc = card.to_dict()
    doc[field] = value
    with pytest.raises(ValueError, match=message):
        ScoringSystem.from_dict(doc, verify=False)


def test_missing_field(card):
    doc = card.to_dict()
    del doc["intercept"]
    with pytest.raises(ValueError, match="missing fields.*intercept"):
        ScoringSystem.from_dict(doc, verify=False)


def test_tampered_spec_is_an_error(card):
    doc = card.to_dict()
    doc["spec"]["max_fpr"] = 3
    with pytest.raises(ValueError, match="max_fpr"):
        ScoringSystem.from_dict(doc, verify=False)


def test_edited_point_fails_the_checksum(card, xy):
    X, _ = xy
    doc = json.loads(card.to_json())
    j = next(i for i, c in enumerate(doc["coefficients"]) if c != 0)
    doc["coefficients"][j] += 1
    tampered = json.dumps(doc)
    with pytest.raises(ValueError, match="checksum"):
        ScoringSystem.from_json(tampered)
    loaded = ScoringSystem.from_json(tampered, verify=False)
    assert loaded.coefficients[j] == card.coefficients[j] + 1
    assert loaded.score(X).tolist() == hand_score(loaded, X)


def test_edited_label_fails_the_checksum(card):
    doc = card.to_dict()
    doc["positive"] = "well"
    with pytest.raises(ValueError, match="checksum"):
        ScoringSystem.from_dict(doc)


# -- hostile feature names, end to end -----------------------------------------------------------
PWNED = "/tmp/slimwidgets_pwned"
HOSTILE = [
    "x\"); __import__('os').system('touch /tmp/slimwidgets_pwned')#",
    "</td><script>alert(1)</script>",
    "$\\input{/etc/passwd}$ & 100%",
    '"; DROP TABLE patients; --',
]


@pytest.fixture(scope="module")
def hostile():
    rng = np.random.default_rng(11)
    n = 30
    X = pd.DataFrame(rng.integers(0, 2, (n, 4)), columns=HOSTILE)
    X[HOSTILE[2]] = rng.integers(0, 3, n)  # a count feature too
    raw = X[HOSTILE[0]] + X[HOSTILE[2]] - X[HOSTILE[3]] + rng.integers(0, 2, n)
    y = pd.Series(np.where(raw >= 2, "yes", "no"), name="<b>outcome</b>")
    card = sw.fit(
        X, y, positive="yes", require=HOSTILE, rules=False, **SMALL
    )  # every name on the card
    return X, y, card


def test_hostile_names_are_all_on_the_card(hostile):
    _, _, card = hostile
    assert set(card.points) == set(HOSTILE)


def test_hostile_to_python_is_harmless_and_works(hostile):
    X, _, card = hostile
    if os.path.exists(PWNED):
        os.remove(PWNED)
    source = card.to_python()
    namespace: dict = {}
    exec(compile(source, "<card>", "exec"), namespace)
    assert not os.path.exists(PWNED)
    expected = (card.predict(X) == card.positive).astype(int).tolist()
    rows = X.to_dict("records")
    assert [namespace["predict"](row) for row in rows] == expected
    assert [namespace["score"](row) for row in rows] == card.score(X).tolist()
    assert namespace["THRESHOLD"] == card.threshold
    assert namespace["POINTS"] == card.points
    assert not os.path.exists(PWNED)


def test_hostile_to_sql_matches_predict(hostile):
    X, _, card = hostile
    con = sqlite3.connect(":memory:")
    quoted = ['"%s"' % name.replace('"', '""') for name in HOSTILE]
    con.execute("CREATE TABLE patients (%s)" % ", ".join(q + " INTEGER" for q in quoted))
    con.executemany("INSERT INTO patients VALUES (?, ?, ?, ?)", X[HOSTILE].to_numpy().tolist())
    cursor = con.execute(card.to_sql())
    columns = [d[0] for d in cursor.description]
    rows = cursor.fetchall()
    assert columns[:4] == HOSTILE
    assert [r[columns.index("prediction")] for r in rows] == (
        card.predict(X) == card.positive
    ).astype(int).tolist()
    assert [r[columns.index("score")] for r in rows] == card.score(X).tolist()
    assert con.execute("SELECT COUNT(*) FROM patients").fetchone()[0] == len(X)  # nothing dropped


def test_hostile_html_latex_markdown_are_escaped(hostile):
    _, _, card = hostile
    for html in (card.to_html(), card._repr_html_()):
        assert "<script" not in html.lower()
        assert "&lt;/td&gt;&lt;script&gt;" in html
    latex = card.to_latex()
    assert "\\input{" not in latex and "100%" not in latex
    assert "\\&" in latex and "\\%" in latex and "\\$" in latex
    markdown = card.to_markdown()
    assert re.search(r"(?<!\\)<", markdown) is None  # every "<" is backslash-escaped: literal text
    assert "\\<script\\>" in markdown


def test_hostile_names_survive_json(hostile, tmp_path):
    X, _, card = hostile
    path = tmp_path / "hostile.json"
    card.to_json(str(path))
    back = ScoringSystem.from_json(str(path))
    assert back.feature_names == card.feature_names == tuple(HOSTILE)
    assert back.points == card.points
    assert back.predict(X).tolist() == card.predict(X).tolist()
    assert back.spec.require == tuple(HOSTILE)


@pytest.mark.slow
def test_cards_carry_their_risk_by_score_in_every_export():
    """The issue's 'risk per score ... on the card and in exports'."""
    from slimwidgets.datasets import load_demo

    X, y = load_demo()
    card = sw.fit(X, y, max_size=3, time_limit=20)
    table = sw.risk_table(card, X, y)
    assert card.risk is not None and len(card.risk) == len(table)
    for row, (score, expected) in zip(card.risk, table.iterrows()):
        assert row[0] == score and row[1] == expected["count"] and row[2] == expected["events"]
        assert row[3:] == pytest.approx((expected["rate"], expected["lower"], expected["upper"]))
    assert "RISK BY SCORE" in card.to_text() and "Risk by score" in card.to_markdown()
    assert 'class="sw-risk"' in card.to_html() and "RISK BY SCORE" in card.to_latex()
    again = sw.ScoringSystem.from_json(card.to_json())
    assert again.risk == card.risk and again.to_text() == card.to_text()
    edited = json.loads(card.to_json())
    edited["risk"][0][2] += 1  # a hand-edited risk table no longer matches the checksum
    with pytest.raises(ValueError, match="checksum"):
        sw.ScoringSystem.from_json(json.dumps(edited))
    edited["risk"] = [["a"]]
    with pytest.raises(ValueError, match="risk"):
        sw.ScoringSystem.from_dict(edited, verify=False)
    assert card.with_points({"perimeter >= 86.2": 5}).risk is None  # stale after an edit
