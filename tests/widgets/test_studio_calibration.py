"""A risk card you can judge at a glance (issue 20 item 6): its calibration by score band,
train and held-out, with Wilson intervals (checked against statsmodels), drawn beside its ROC."""

from __future__ import annotations

import numpy as np
import pytest

from slimwidgets.datasets import load_demo
from slimwidgets.widgets.holdout import BAND_ROWS, BAND_SHARE, calibration_bands

pytestmark = pytest.mark.slow  # studio solves: python -m pytest --all runs them


@pytest.fixture(scope="module")
def risk_studio():
    from slimwidgets.widgets import Studio

    X, y = load_demo()
    st = Studio(
        X,
        y,
        loss="logistic",
        max_size=5,
        time_limit=3.0,
        frontier=False,
        alternatives=False,
        holdout=0.25,
        random_state=0,
    )
    assert st.controller.wait(300)
    yield st
    st.close()


def test_bands_group_sparse_scores_and_keep_every_row(risk_studio):
    from statsmodels.stats.proportion import proportion_confint

    c = risk_studio.controller
    table = c.risk_table()
    bands = calibration_bands(table)
    train, held = bands[bands.set == "train"], bands[bands.set == "validation"]
    assert train.rows.sum() == pytest.approx(table.train_count.sum())
    assert train.events.sum() == pytest.approx(table.train_events.sum())
    assert held.rows.sum() == pytest.approx(table.val_count.sum())
    need = max(BAND_ROWS, BAND_SHARE * table.train_count.sum())
    assert (train.rows >= need).all() and len(train) < len(table)  # sparse scores were grouped
    for _, b in bands.iterrows():
        lo, hi = proportion_confint(b.events, b.rows, alpha=0.05, method="wilson")
        assert b.lower == pytest.approx(lo, abs=1e-9) and b.upper == pytest.approx(hi, abs=1e-9)
        assert b.observed == pytest.approx(b.events / b.rows)
    # a band's predicted risk is the mean over its rows of the card's risk at their score
    first = train.iloc[0]
    scores = table.score[table.score <= float(first.band.replace("\u2212", "-").split("–")[-1])]
    part = table[table.score.isin(scores)]
    assert first.predicted == pytest.approx(np.average(part.predicted, weights=part.train_count))


def test_the_studio_draws_the_calibration_for_risk_cards_only(risk_studio):
    st = risk_studio
    assert st.calib_view.layout.display is None  # shown beside the ROC for a risk card
    rows = st.calib_view.datasets["calibration"]
    assert {r["set"] for r in rows} == {"train", "validation"}
    assert "calibration" in str(st.calib_view.spec) or "predicted risk" in str(st.calib_view.spec)
    st.controller.set_family("decision")
    assert st.controller.wait(300)
    assert st.calib_view.layout.display == "none" and st.calib_view.datasets["calibration"] == []
