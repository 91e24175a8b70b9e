"""A time-to-event card recalibrated for a new site: Breslow's baseline hazard (and optionally the
multiplier) re-estimated on the new rows, the points kept; cross-checked against scikit-survival
(its Breslow estimator with the card's log hazard ratio as a fixed offset, and its Cox model of
the totals for the multiplier)."""

from __future__ import annotations

import numpy as np
import pytest
from sksurv.linear_model import CoxPHSurvivalAnalysis
from sksurv.linear_model.coxph import BreslowEstimator

import slimwidgets as sw
from slimwidgets.core.survival import CoxCells
from slimwidgets.core.survival_card import SurvivalCard

pytestmark = pytest.mark.slow  # each fits a card first


def site(seed: int, n: int, strength: float, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """Three 0/1 features; times rounded (ties) and a fifth of the rows censored."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n, 3))
    hazard = np.exp(strength * (X[:, 0] + 0.5 * X[:, 1]))
    time = np.ceil(rng.exponential(scale / hazard) * 4) / 4
    event = rng.random(n) < 0.8
    return X, np.array(list(zip(event, time)), dtype=[("event", "?"), ("time", "<f8")])


@pytest.fixture(scope="module")
def card() -> SurvivalCard:
    X, y = site(0, 150, 1.0, 10.0)
    return sw.fit(X, y, max_size=3, feature_names=["a", "b", "c"], time_limit=30)


def test_the_baseline_is_sksurvs_breslow_with_the_score_as_offset(card):
    X, y = site(1, 120, 0.6, 3.0)  # a new site: weaker effects, events sooner
    new = card.recalibrate(X, y, label="site B")
    assert new.points == card.points and new.multiplier == card.multiplier
    eta = card.predict(X)
    breslow = BreslowEstimator().fit(eta, y["event"], y["time"])
    expected = breslow.cum_baseline_hazard_  # a step at every time, censored ones too
    ours = [new.baseline_at(t) for t in expected.x]
    np.testing.assert_allclose(ours, expected.y, rtol=1e-10, atol=1e-12)
    assert set(new.baseline_times) == set(y["time"][y["event"]])
    at = expected.x[expected.x <= new.last_time]
    ours = np.array([f(at) for f in new.predict_survival_function(X)])
    theirs = np.array([f(at) for f in breslow.get_survival_function(eta)])
    np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("ties", ["breslow", "efron"])
def test_the_refitted_multiplier_is_sksurvs_cox_coefficient_of_the_totals(ties):
    X, y = site(0, 150, 1.0, 10.0)
    fitted = sw.fit(X, y, max_size=3, feature_names=["a", "b", "c"], ties=ties, time_limit=30)
    X_new, y_new = site(2, 140, 0.5, 5.0)
    new = fitted.recalibrate(X_new, y_new, multiplier=True)
    totals = fitted.scores(X_new)
    cox = CoxPHSurvivalAnalysis(alpha=0.0, ties=ties, tol=1e-12, n_iter=200)
    cox.fit(totals[:, None].astype(float), y_new)
    assert 1.0 / new.multiplier == pytest.approx(float(cox.coef_[0]), rel=1e-6)
    assert new.points == fitted.points and new.multiplier != fitted.multiplier
    breslow = BreslowEstimator().fit(totals / new.multiplier, y_new["event"], y_new["time"])
    np.testing.assert_allclose(
        new.baseline_hazard, breslow.cum_baseline_hazard_(new.baseline_times), rtol=1e-10
    )


def test_the_refitted_multiplier_is_the_best_on_a_grid(card):
    X, y = site(3, 100, 1.5, 4.0)
    new = card.recalibrate(X, y, multiplier=True)
    cells = CoxCells(card.scores(X)[:, None], y["time"], y["event"])
    best = cells.value(np.array([1.0 / new.multiplier]))
    grid = np.linspace(0.25, 4.0, 301) / new.multiplier
    assert all(best <= cells.value(np.array([t])) + 1e-12 for t in grid)


def test_the_card_says_what_changed_and_keeps_it(card, tmp_path):
    X, y = site(1, 120, 0.6, 3.0)
    new = card.recalibrate(X, y, multiplier=True, label="site <B>")
    note = new.details["history"][-1]["note"]
    assert note.startswith("recalibrated for site <B> on 120 rows (")
    assert "Breslow's baseline hazard re-estimated; points unchanged" in note
    assert new.status == "recalibrated" and new.objective is None
    assert note in str(new) and "site &lt;B&gt;" in new.to_html()
    assert sum(row.n_rows for row in new.table) == 120  # the table is on the new rows
    new.to_json(tmp_path / "card.json")
    loaded = SurvivalCard.from_json(str(tmp_path / "card.json"))
    assert loaded.details["history"] == [dict(e) for e in new.details["history"]]
    np.testing.assert_array_equal(loaded.baseline_hazard, new.baseline_hazard)
    again = loaded.recalibrate(X, y, label="site C")
    assert len(again.details["history"]) == 2


def test_bad_new_rows_are_refused(card):
    X, y = site(1, 120, 0.6, 3.0)
    with pytest.raises(ValueError, match="X has 119 rows and y 120"):
        card.recalibrate(X[:-1], y)
    flat = np.zeros_like(X)
    with pytest.raises(ValueError, match="same total"):
        card.recalibrate(flat, y, multiplier=True)
