"""A time-to-event card's exports: SQL (run in SQLite) and Python (run) compute each row's score
and its risk by each horizon from the raw columns as the card does; Markdown, LaTeX, HTML and
JSON carry the card; names from the data stay inert in every one."""

from __future__ import annotations

import html
import json
import math
import re
import sqlite3

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.core.survival_card import SurvivalCard

# a column name that would end a SQL string, drop a table, open a tag and break a line
HOSTILE = 'x"); DROP TABLE patients; --\n<script>'
LEVELS = ("I", "II", "III'; --")
# new rows hold a missing stage and a level never seen, on purpose: the card says so once
pytestmark = [
    pytest.mark.slow,  # fits on raw tables: python -m pytest --all runs them
    pytest.mark.filterwarnings("ignore::slimwidgets.core.data.DataWarning"),
]


def survival_table(seed: int = 0, n: int = 160) -> tuple[pd.DataFrame, np.ndarray]:
    """Raw rows (age with missing values, a stage under a hostile name) and a ``Surv`` y."""
    rng = np.random.default_rng(seed)
    age = rng.integers(30, 85, n).astype(float)
    stage = rng.choice(LEVELS, n, p=[0.4, 0.35, 0.25])
    hazard = np.exp((age - 55) / 15 + 2.0 * (stage == LEVELS[2]) + 0.5 * (stage == LEVELS[1]))
    time = np.round(rng.exponential(8 / hazard), 2) + 0.01
    X = pd.DataFrame({"age": age, HOSTILE: stage})
    X.loc[::9, "age"] = np.nan
    y = np.array(list(zip(rng.random(n) < 0.75, time)), dtype=[("died", "?"), ("months", "<f8")])
    return X, y


@pytest.fixture(scope="module")
def card() -> SurvivalCard:
    X, y = survival_table()
    fitted = sw.fit(X, y, rules=True, max_size=4, time_limit=30)
    assert HOSTILE in {r.column for r in fitted.rules.rules_ if r.name in fitted.card_points}
    return fitted


@pytest.fixture(scope="module")
def new_rows() -> pd.DataFrame:
    """Rows the card was not fit on: missing values, a level never seen, every seen level."""
    X, _ = survival_table(seed=1, n=40)
    X.loc[0, HOSTILE] = "IV (never seen)"
    X.loc[1, HOSTILE] = None
    X.loc[2, "age"] = None
    return X


def expected_risks(card: SurvivalCard, X: pd.DataFrame) -> np.ndarray:
    """1 - S(h | x) from the card's survival functions, one column per horizon."""
    return np.array(
        [[1.0 - float(f(h)[0]) for h in card.horizons] for f in card.predict_survival_function(X)]
    )


def test_sql_in_sqlite_scores_raw_rows_and_risk_by_each_horizon(card, new_rows):
    con = sqlite3.connect(":memory:")
    new_rows.to_sql("patients", con, index=False)
    query = con.execute(card.to_sql())
    columns = [d[0] for d in query.description]
    out = pd.DataFrame(query.fetchall(), columns=columns)
    assert out["score"].tolist() == card.scores(new_rows).tolist()
    risks = out[[f"risk by {h:g}" for h in card.horizons]].to_numpy(dtype=float)
    np.testing.assert_allclose(risks, expected_risks(card, new_rows), rtol=1e-12, atol=1e-14)
    assert 0 < risks.min() and risks.max() < 1
    tables = con.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    assert tables == [("patients",)]  # the hostile name dropped nothing


def test_sql_quotes_a_hostile_table_name(card, new_rows):
    con = sqlite3.connect(":memory:")
    new_rows.to_sql('t"; DROP TABLE x; --', con, index=False)
    rows = con.execute(card.to_sql(table='t"; DROP TABLE x; --')).fetchall()
    assert len(rows) == len(new_rows)


def test_python_scores_raw_rows_and_risk_by_each_horizon(card, new_rows):
    namespace: dict = {}
    exec(card.to_python(), namespace)
    rows = [row for _, row in new_rows.iterrows()]
    assert [namespace["score"](row) for row in rows] == card.scores(new_rows).tolist()
    risks = np.array([[namespace["risk"](row, h) for h in card.horizons] for row in rows])
    np.testing.assert_allclose(risks, expected_risks(card, new_rows), rtol=1e-12, atol=1e-14)
    plain = {k: (None if pd.isna(v) else v) for k, v in new_rows.iloc[1].to_dict().items()}
    assert namespace["risks"](plain) == pytest.approx(dict(zip(card.horizons, risks[1])))


def test_python_keeps_names_in_literals(card, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    source = card.to_python()
    assert repr(HOSTILE) in source and HOSTILE not in source.replace(repr(HOSTILE), "")
    compile(source, "card.py", "exec")  # one valid module, whatever the names hold


def test_html_document_carries_the_horizon_table_with_names_escaped(card):
    doc = card.to_html()
    tags = set(re.findall(r"<([A-Za-z][\w-]*)", doc))  # every start tag, as a browser reads it
    assert tags <= {"html", "head", "meta", "title", "style", "body", "main", "div", "table"} | {
        "caption",
        "tbody",
        "tfoot",
        "tr",
        "td",
        "th",
        "details",
        "summary",
    }
    text = html.unescape(re.sub(r"<[^>]*>", "", doc))
    assert "SCORE FOR THE RISK OF DIED" in text and "III'; --" in text
    for h in card.horizons:
        assert f"by {h:g}: predicted" in text
    for row in card.table:
        assert f"{100 * row.predicted[0]:.1f} %" in text
    assert doc.startswith("<!DOCTYPE html>") and "<script" not in doc


def test_markdown_carries_points_and_risk_by_horizon(card):
    text = card.to_markdown()
    assert re.search(r"(?<!\\)<", text) is None and "\\<script\\>" in text
    assert "**SCORE FOR THE RISK OF DIED**" in text
    lines = [line for line in text.splitlines() if line.startswith("| ")]
    table = [line for line in lines if line.split(" | ")[0] == "| " + str(card.table[0].score)]
    first = card.table[0]
    assert table and f"{100 * first.predicted[-1]:.1f} %" in table[-1]


def test_json_round_trip_and_checksum(card, new_rows, tmp_path):
    path = tmp_path / "card.json"
    card.to_json(path)
    loaded = SurvivalCard.from_json(str(path))
    assert loaded.card_points == card.card_points and loaded.horizons == card.horizons
    np.testing.assert_array_equal(loaded.predict(new_rows), card.predict(new_rows))
    assert loaded.table == card.table and loaded.to_sql() == card.to_sql()
    data = json.loads(path.read_text(encoding="utf-8"))
    data["points"][data["points"].index(max(data["points"]))] += 1
    with pytest.raises(ValueError, match="checksum"):
        SurvivalCard.from_dict(data)
    data["multiplier"] = -1.0
    with pytest.raises(ValueError, match="multiplier"):
        SurvivalCard.from_dict(data, verify=False)


def test_a_card_without_rules_exports_its_columns(new_rows):
    X, y = survival_table()
    binary = pd.DataFrame({"old": (X["age"] >= 60).astype(int), "late": (X[HOSTILE] == LEVELS[2])})
    fitted = sw.fit(binary.astype(int), y, max_size=2, time_limit=30)
    con = sqlite3.connect(":memory:")
    binary.astype(int).to_sql("patients", con, index=False)
    out = con.execute(fitted.to_sql()).fetchall()
    risks = np.array([row[-len(fitted.horizons) :] for row in out])
    np.testing.assert_allclose(risks, expected_risks(fitted, binary.astype(int)), rtol=1e-12)
    assert math.isclose(
        fitted.risk_at(0, fitted.horizons[0]), 1 - math.exp(-fitted.baseline_at(fitted.horizons[0]))
    )


def test_text_keeps_every_name_on_its_line(card):
    text = card.to_text()
    assert text == str(card)
    variables = {card.rules.variable_of(name) for name in card.card_points}
    lines = text.splitlines()
    shown = [v.replace("\n", "\\n") for v in variables]  # a newline a visible escape
    assert all(any(line.startswith(v + " ") for line in lines) for v in shown), text
    assert HOSTILE not in text
