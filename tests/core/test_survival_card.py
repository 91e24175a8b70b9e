"""The time-to-event card on its own: risk by horizon, step functions, default horizons, words."""

from __future__ import annotations

import math

import numpy as np
import pytest

from slimwidgets.core.survival_card import ScoreRisk, SurvivalCard, default_horizons, risk_by_score
from slimwidgets.core.survival_text import card_html, card_text, status_words


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
