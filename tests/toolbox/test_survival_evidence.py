"""Calibration at each horizon and Kaplan–Meier curves by score band, overall and by group:
every figure against scikit-survival's estimators on the same rows and predictions."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sksurv")
from sksurv.datasets import load_gbsg2  # noqa: E402
from sksurv.metrics import concordance_index_censored, cumulative_dynamic_auc  # noqa: E402
from sksurv.nonparametric import kaplan_meier_estimator  # noqa: E402

import slimwidgets as sw  # noqa: E402
from slimwidgets.core.survival_card import risk_by_score  # noqa: E402
from slimwidgets.toolbox.survival_evidence import calibration_at_horizons, score_bands  # noqa: E402
from slimwidgets.toolbox.survival_validation import validate_survival  # noqa: E402


@pytest.fixture(scope="module")
def checked():  # a fit and bootstrap intervals on 686 rows: its tests are slow
    X, y = load_gbsg2()
    X = X[["pnodes", "progrec", "tgrade", "menostat"]]
    card = sw.fit(X[["pnodes", "progrec", "tgrade"]], y, rules=True, max_size=3, time_limit=60)
    v = validate_survival(card, X, y, groups="menostat", n_bootstrap=40)
    return card, X, y, v


def _km(y, at):
    """scikit-survival's Kaplan–Meier survival and log-log interval at the times ``at``."""
    times, survival, interval = kaplan_meier_estimator(y["cens"], y["time"], conf_type="log-log")
    index = np.searchsorted(times, at, side="right") - 1
    return survival[index], interval[0][index], interval[1][index]


def _bands(card, X):
    return score_bands(card.scores(X), 5).to_numpy()


@pytest.mark.slow
def test_observed_risk_by_horizon_is_scikit_survival_s_kaplan_meier(checked):
    card, X, y, v = checked
    bands, t = _bands(card, X), v.calibration
    assert set(t.index.get_level_values("horizon")) == set(card.horizons)
    for (horizon, band), row in t.iterrows():
        mine = bands == band
        s, lo, hi = _km(y[mine], [horizon])
        assert row["rows"] == mine.sum()
        assert row["observed risk"] == pytest.approx(1 - s[0])
        assert (row["lower"], row["upper"]) == pytest.approx((1 - hi[0], 1 - lo[0]))
        # the band's mean predicted risk from the card's own survival functions
        survival = np.array([fn(horizon)[0] for fn in card.predict_survival_function(X[mine])])
        assert row["predicted risk"] == pytest.approx(np.mean(1 - survival))
        late = (y["time"][mine] <= horizon) & y["cens"][mine]
        assert row["events by horizon"] == late.sum()


@pytest.mark.slow
def test_kaplan_meier_curves_by_band_are_scikit_survival_s(checked):
    card, X, y, v = checked
    bands, curves = _bands(card, X), v.km_curves
    assert list(curves["score band"].unique()) == list(v.calibration.loc[card.horizons[0]].index)
    for band, curve in curves.groupby("score band", observed=True):
        mine = bands == band
        assert curve["time"].iloc[0] == 0 and curve["survival"].iloc[0] == 1
        s, lo, hi = _km(y[mine], curve["time"].to_numpy()[1:])
        np.testing.assert_allclose(curve["survival"].to_numpy()[1:], s)
        np.testing.assert_allclose(curve["lower"].to_numpy()[1:], lo, atol=1e-12)
        np.testing.assert_allclose(curve["upper"].to_numpy()[1:], hi, atol=1e-12)
        at_risk = (y["time"][mine][None, :] >= curve["time"].to_numpy()[1:, None]).sum(axis=1)
        np.testing.assert_array_equal(curve["at risk"].to_numpy()[1:], at_risk)


@pytest.mark.slow
def test_the_bands_are_contiguous_runs_of_scores_from_low_to_high(checked):
    card, X, _, v = checked
    totals, bands = card.scores(X), _bands(card, X)
    names = list(v.calibration.loc[card.horizons[0]].index)
    assert 2 <= len(names) <= 5
    tops = [totals[bands == n].max() for n in names]
    lows = [totals[bands == n].min() for n in names]
    assert all(hi < lo for hi, lo in zip(tops, lows[1:]))  # ordered, no score in two bands
    # each band's observed risk is higher than the last at the last horizon on these data
    late = v.calibration.loc[card.horizons[-1], "observed risk"].to_numpy()
    assert (np.diff(late) > 0).all()


@pytest.mark.slow
def test_figures_by_group_are_scikit_survival_s_on_each_group(checked):
    card, X, y, v = checked
    assert set(v.by_group.index.get_level_values("group")) == {"Post", "Pre"}
    for group in ("Post", "Pre"):
        mine = (X["menostat"] == group).to_numpy()
        risk, ys = card.predict(X[mine]), y[mine]
        est = v.by_group.loc[group, "estimate"]
        assert est["Harrell's C"] == pytest.approx(
            concordance_index_censored(ys["cens"], ys["time"], risk)[0]
        )
        aucs, mean = cumulative_dynamic_auc(ys, ys, risk, np.array(card.horizons))
        assert est["mean AUC"] == pytest.approx(mean)
        lows, highs = v.by_group.loc[group, "lower"], v.by_group.loc[group, "upper"]
        assert (lows < est).all() and (est < highs).all()
        t = v.calibration_by_group.loc[group]
        bands = _bands(card, X)[mine]
        for (horizon, band), row in t.iterrows():
            s, _, _ = _km(ys[bands == band], [horizon])
            assert row["observed risk"] == pytest.approx(1 - s[0])
        curves = v.km_by_group[v.km_by_group["group"] == group]
        assert curves.groupby("score band", observed=True)["at risk"].first().sum() == mine.sum()


@pytest.mark.slow
def test_groups_as_values_and_errors_said_plainly(checked):
    card, X, y, _ = checked
    v = sw.validate(card, X, y, groups=X["menostat"].to_numpy())  # sw.validate routes groups
    assert list(v.by_group.index.get_level_values(0).unique()) == ["Post", "Pre"]
    assert "Pre" in v._repr_html_() and "<th>all</th>" in v._repr_html_()
    with pytest.raises(KeyError, match="'site' is not a column"):
        sw.validate(card, X, y, groups="site")
    with pytest.raises(ValueError, match="3 values for 686 rows"):
        sw.validate(card, X, y, groups=["a", "b", "c"])


def test_a_band_whose_rows_all_had_the_event_before_the_horizon_has_observed_risk_one():
    times, hazard = np.array([1.0, 3.0, 30.0]), np.array([0.1, 0.3, 0.9])
    card = sw.SurvivalCard(("a",), (1,), 1.0, times, hazard, (5.0, 20.0))
    totals = np.array([0, 0, 0, 1, 1])
    time = np.array([3.0, 25.0, 30.0, 1.0, 2.0])
    event = np.array([True, False, True, True, True])
    t = calibration_at_horizons(card, totals, time, event, score_bands(totals))
    y = np.array(list(zip(event, time)), dtype=[("cens", "?"), ("time", "f8")])
    _, s, _ = _km(y[3:], [2.0])  # scikit-survival: the band's curve is 0 from its last event on
    assert s[0] == 0 and t.loc[(20.0, "1"), "observed risk"] == 1.0
    assert t.loc[(5.0, "0"), "observed risk"] == pytest.approx(1 - _km(y[:3], [5.0])[0][0])
    card_rows = risk_by_score(card, totals, time, event)  # the card's own table agrees
    assert card_rows[1].observed == (1.0, 1.0)


def test_a_band_censored_before_the_horizon_says_nothing_there():
    times, hazard = np.array([1.0, 3.0]), np.array([0.1, 0.3])
    card = sw.SurvivalCard(("a",), (1,), 1.0, times, hazard, (10.0,))
    totals, time = np.array([0, 0, 1, 1]), np.array([1.0, 4.0, 12.0, 15.0])
    event = np.array([True, False, True, False])
    t = calibration_at_horizons(card, totals, time, event, score_bands(totals))
    assert np.isnan(t.loc[(10.0, "0"), "observed risk"])
    assert risk_by_score(card, totals, time, event)[0].observed == (None,)
