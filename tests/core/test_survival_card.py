"""The time-to-event card on its own: risk by horizon, step functions, default horizons, words."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from sksurv.util import Surv

import slimwidgets as sw
from slimwidgets.core.survival_card import ScoreRisk, SurvivalCard, default_horizons, risk_by_score
from slimwidgets.core.survival_text import card_html, card_text, points_data, status_words
from slimwidgets.export.card import MISSING_NOTE, VARIABLES_TOTAL


def _card(**changes):
    base = dict(
        feature_names=("<script>alert(1)</script>", "chf"),
        points=(2, 1),
        multiplier=2.0,
        baseline_times=np.array([1.0, 3.0, 6.0]),
        baseline_hazard=np.array([0.1, 0.3, 0.5]),
        horizons=(3.0, 6.0),
        status="optimal",
        objective=1.5,
        bound=1.5,
        names=("died", "days"),
    )
    return SurvivalCard(**{**base, **changes})


def test_risk_by_a_horizon_is_one_minus_the_survival_function():
    card = _card()
    X = np.array([[1, 0], [1, 1], [0, 0]])
    for row, fn in zip(X, card.predict_survival_function(X)):
        total = float(row @ np.array(card.points))
        assert card.risk_at(total, 3.0) == pytest.approx(1 - fn(3.0)[0])
        assert card.risk_at(total, 6.0) == pytest.approx(1 - math.exp(-0.5 * math.exp(total / 2.0)))
    arrays = card.predict_survival_function(X, return_array=True)
    assert arrays.shape == (3, 3) and np.all(np.diff(arrays, axis=1) <= 0)


def test_the_table_holds_kaplan_meier_per_score():
    card = _card()
    totals = np.array([0, 0, 0, 2, 2, 2])
    time = np.array([1.0, 4.0, 7.0, 1.0, 2.0, 8.0])
    event = np.array([True, False, True, True, True, False])
    rows = risk_by_score(card, totals, time, event)
    assert [r.score for r in rows] == [0, 2]
    assert rows[0].observed[0] == pytest.approx(1 / 3) and rows[1].observed[0] == pytest.approx(
        2 / 3
    )
    assert all(isinstance(r, ScoreRisk) and r.lower[0] <= r.observed[0] <= r.upper[0] for r in rows)


def test_the_observed_risk_is_unknown_beyond_the_follow_up():
    card = _card(horizons=(5.0, 50.0))
    rows = risk_by_score(
        card, np.zeros(3), np.array([1.0, 2.0, 9.0]), np.array([True, False, False])
    )
    assert rows[0].observed[1] is None and "–" in card_text(
        SurvivalCard(**{**card.__dict__, "table": rows})
    )


def test_default_horizons_are_the_follow_up_s_quartiles_rounded():
    assert default_horizons(np.array([1.0, 2.0, 3.0, 4.0, 5.0])) == (2.0, 3.0, 4.0)
    assert default_horizons(np.array([123.0, 456.0, 789.0, 1234.0])) == (
        370.0,
        620.0,
        900.0,
    )  # 3 quartiles: 369.75, 622.5, 900.25


def test_names_from_the_data_are_escaped_in_html():
    page = card_html(_card())
    assert "<script>" not in page and "&lt;script&gt;" in page


def test_the_status_says_what_is_proven():
    assert status_words(_card()).startswith("proven best: no card within these limits")
    limited = _card(status="time_limit", bound=1.2)
    assert "every card is at least 1.2" in status_words(limited) and limited.gap == pytest.approx(
        0.2
    )
    assert "no floor proven" in status_words(_card(status="time_limit", bound=None))


def test_cards_compare_by_identity_and_survive_pickling():
    import pickle

    card = _card()
    copy = pickle.loads(pickle.dumps(card))
    assert card == card and card != copy  # no element-wise comparison of the arrays
    assert copy.risk_at(2, 6.0) == card.risk_at(2, 6.0)


HOSTILE = "<b>age</b>\nx"


def _raw_table_card():
    """A card fitted on a raw table of a number and a category (names hostile): rules by
    variable, proven on 60 rows whose hazard rises with age and with the "b" level."""
    rng = np.random.default_rng(3)
    age = rng.integers(30, 90, 60).astype(float)
    level = rng.choice(["a", "b", "c"], 60)
    hazard = np.exp((age - 60) / 15 + (level == "b"))
    time = np.ceil(rng.exponential(10 / hazard))
    event = rng.random(60) < 0.8
    X = pd.DataFrame({HOSTILE: age, "kind": level})
    y = Surv.from_arrays(event=event, time=time, name_event="died", name_time="days")
    return sw.fit(X, y, rules=True, max_size=3, C0=0.0, horizons=(3, 6), time_limit=60)


@pytest.fixture(scope="module")
def raw_card():
    return _raw_table_card()


def _bands(card) -> dict[str, list[tuple[str, int]]]:
    return {variable: list(bands) for variable, bands in card.rules.points_table(card.card_points)}


def test_the_text_is_a_points_table_by_variable_then_the_risk_by_horizon(raw_card):
    card, text = raw_card, card_text(raw_card)
    lines = text.splitlines()
    bands = _bands(card)
    assert len(bands) == 2, card.card_points  # both variables on the card: age and kind
    escaped = HOSTILE.replace("\n", "\\n")  # the newline a visible escape, on one line
    width = len(escaped)
    for variable, pairs in bands.items():
        shown = escaped if variable == HOSTILE else variable
        line = shown.ljust(width) + "   " + " · ".join(f"{b}: {p}" for b, p in pairs)
        assert line in lines, (line, text)
    total = lines.index(" " * width + f"   {VARIABLES_TOTAL} = SCORE")
    assert lines[total + 1] == MISSING_NOTE and lines[1] == "SCORE FOR THE RISK OF DIED"
    head = lines.index("RISK OF THE EVENT BY days (predicted | Kaplan–Meier observed, 95 % CI)")
    assert head > total and "by 3" in lines[head + 1] and "by 6" in lines[head + 1]
    rows = [line.split() for line in lines[head + 2 :]]
    assert [int(r[0]) for r in rows] == [row.score for row in card.table]
    for r, row in zip(rows, card.table):  # each total's predicted risk by each horizon
        assert r[3] == f"{100 * row.predicted[0]:.1f}" and row.predicted[0] == pytest.approx(
            card.risk_at(row.score, 3.0)
        )


def test_every_total_on_the_risk_table_is_a_sum_of_one_band_per_variable(raw_card):
    sums = {0}
    for pairs in _bands(raw_card).values():
        sums = {s + p for s in sums for p in [0, *(p for _, p in pairs)]}
    assert {row.score for row in raw_card.table} <= sums


def test_the_html_draws_the_points_by_variable_as_the_other_cards_do(raw_card):
    page = card_html(raw_card)
    assert "<b>age</b>" not in page and "&lt;b&gt;age&lt;/b&gt;" in page
    for variable, pairs in _bands(raw_card).items():
        cells = " &middot; ".join(f"{b}: {p}" for b, p in pairs).replace("<", "&lt;")
        name = variable.replace("<", "&lt;").replace(">", "&gt;")
        assert f">{name}</td>" in page and cells in page, (variable, cells)
    assert f"{VARIABLES_TOTAL} = SCORE" in page and MISSING_NOTE in page
    assert page.index(VARIABLES_TOTAL) < page.index("Risk of the event")
    body = page[page.index("Risk of the event") :]
    assert body.count("<tr><td>") == len(raw_card.table)
    for row in raw_card.table:
        assert f"<tr><td>{row.score}</td><td>{row.n_rows:g}</td>" in body


def test_points_data_holds_the_rules_and_the_baseline_by_horizon(raw_card):
    data = points_data(raw_card)
    assert data.variables == tuple(raw_card.rules.points_table(raw_card.card_points))
    assert [column for column, _, _ in data.rule_defs] == [
        raw_card.rules.variable_of(name) for name in raw_card.card_points
    ]
    assert data.horizons == tuple((h, raw_card.baseline_at(h)) for h in (3.0, 6.0))
    assert data.notes == () and data.multiplier == raw_card.multiplier


def test_a_card_without_rules_lists_numbered_rows_of_points():
    text = card_text(_card(table=()))
    assert "1.  <script>alert(1)</script>   2 points    ....." in text
    assert "2.  chf                          1 point  + ....." in text
    assert "    ADD POINTS FROM ROWS 1–2              = SCORE" in text
