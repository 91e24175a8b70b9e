"""Wilson intervals against hand-computed values; risk_table counts against a direct tabulation."""

import math

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.toolbox.risk import risk_table, wilson_interval


@pytest.mark.parametrize(
    "k, n, conf, lo, hi",
    [
        # worked by hand: z = 1.959964, p = .3, centre = .49207/1.38415 = .355506,
        # half = 1.416002 * sqrt(.021 + .0096036) = .247716
        (3, 10, 0.95, 0.10779, 0.60322),
        # k = 0: centre = half = (z^2/10)/(1 + z^2/5) = .217241
        (0, 5, 0.95, 0.0, 0.434482),
        # k = n = 4: mirror image of 0/4, whose upper end is 2 * .244945
        (4, 4, 0.95, 0.510109, 1.0),
        # 90 %: z = 1.644854, p = .25, centre = .317639/1.135277 = .279790, half = .152413
        (5, 20, 0.90, 0.127377, 0.432203),
    ],
)
def test_wilson_hand_computed(k, n, conf, lo, hi):
    got_lo, got_hi = wilson_interval(k, n, conf)
    assert float(got_lo) == pytest.approx(lo, abs=2e-5)
    assert float(got_hi) == pytest.approx(hi, abs=2e-5)


def test_wilson_vectorised_and_errors():
    lo, hi = wilson_interval([0, 3, 0], [5, 10, 0])
    assert lo[1] == pytest.approx(0.10779, abs=2e-5) and math.isnan(lo[2]) and math.isnan(hi[2])
    # the ends are exact: 0 events -> lower 0, all events -> upper 1, for any n
    k = np.arange(1, 200)
    assert (wilson_interval(k, k)[1] == 1.0).all() and (wilson_interval(0 * k, k)[0] == 0.0).all()
    # narrower at lower confidence, contains p
    lo90, hi90 = wilson_interval(30, 100, 0.90)
    lo99, hi99 = wilson_interval(30, 100, 0.99)
    assert lo99 < lo90 < 0.3 < hi90 < hi99
    with pytest.raises(ValueError, match="confidence"):
        wilson_interval(1, 2, 95)
    with pytest.raises(ValueError, match="events"):
        wilson_interval(3, 2)


def test_risk_table_hand_example():
    card = sw.ScoringSystem(("a", "b"), (2, 1), -1, positive="sick", negative="well")
    X = pd.DataFrame({"a": [0, 0, 1, 1, 1, 0, 0, 1], "b": [0, 1, 0, 1, 1, 0, 0, 1]})
    y = ["well", "well", "sick", "sick", "well", "sick", "well", "sick"]
    t = risk_table(card, X, y)
    # scores per row: (0,0)=0, (0,1)=1, (1,0)=2, (1,1)=3, 3, 0, 0, 3
    assert t.index.tolist() == [0, 1, 2, 3]
    assert t["count"].tolist() == [3, 1, 1, 3]
    assert t["events"].tolist() == [1, 0, 1, 2]
    assert t["rate"].tolist() == pytest.approx([1 / 3, 0.0, 1.0, 2 / 3])
    assert t["predicted"].tolist() == [False, True, True, True]  # score >= 1
    strict = sw.ScoringSystem(
        ("a", "b"), (2, 1), -1, positive="sick", negative="well", zero_score="error"
    )
    assert risk_table(strict, X, y)["predicted"].tolist() == [False, False, True, True]  # score > 1
    lo, hi = wilson_interval(1, 3)
    assert (t.loc[0, "lower"], t.loc[0, "upper"]) == (
        pytest.approx(float(lo)),
        pytest.approx(float(hi)),
    )
    # 1/3 at 95 %: z^2 = 3.841459, centre = (1/3 + .640243)/2.280486 = .426916,
    # half = .859450 * sqrt(.074074 + .106707) = .365430 (hand rounding: 5e-5)
    assert t.loc[0, "lower"] == pytest.approx(0.061486, abs=5e-5)
    assert t.loc[0, "upper"] == pytest.approx(0.792346, abs=5e-5)


def test_risk_table_weights_and_errors():
    card = sw.ScoringSystem(("a",), (1,), 0)
    X = pd.DataFrame({"a": [0, 1, 1]})
    t = risk_table(card, X, [0, 1, 0], sample_weight=[2.0, 3.0, 1.0])
    assert t["count"].tolist() == [2.0, 4.0] and t["events"].tolist() == [0.0, 3.0]
    with pytest.raises(ValueError, match="neither"):
        risk_table(card, X, [0, 1, 2])
    with pytest.raises(ValueError, match="rows"):
        risk_table(card, X, [0, 1])
    with pytest.raises(TypeError, match="ScoringSystem"):
        risk_table({"a": 1}, X, [0, 1, 0])


def test_risk_rises_with_score_on_breastcancer(paper_data):
    X, y = paper_data("breastcancer")
    card = sw.fit(X, y, max_size=3, coef_range=(0, 5), time_limit=3)
    t = risk_table(card, X, y)
    assert t["count"].sum() == len(y) and t["events"].sum() == y.sum()
    assert ((t["lower"] <= t["rate"]) & (t["rate"] <= t["upper"])).all()
    low, high = t[~t.predicted], t[t.predicted]
    assert (
        low["events"].sum() / low["count"].sum()
        < 0.1
        < 0.9
        < high["events"].sum() / high["count"].sum()
    )
