"""Boxes that never bind by accident: any intercept box works, the default one is derived from
the data so that it never binds, and a box the user set that limits the card is said so."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.core.formulation import build_formulation
from slimwidgets.datasets import RULES_ATTR

from brute import best_objective, enumerate_cards, row_errors


def glucose_data(n: int = 300, seed: int = 0, cut: float = 140) -> tuple[pd.DataFrame, np.ndarray]:
    """Raw real-valued columns in their own units (mg/dl, kg/m2), as a user would pass them:
    the label flips at glucose ``cut``, beyond an intercept of 100 for 1 point per mg/dl."""
    rng = np.random.default_rng(seed)
    glucose = rng.normal(120, 30, n).round()
    bmi = rng.normal(30, 6, n).round(1)
    y = ((glucose > cut) ^ (rng.random(n) < 0.05)).astype(int)
    frame = pd.DataFrame({"glucose": glucose, "bmi": bmi})
    frame.attrs[RULES_ATTR] = False  # raw values: the boxes hold points x glucose, not rules of it
    return frame, y


@pytest.mark.parametrize("box", [(-1000, 1000), (-128, 127), (-5000, 3), (127, 1000)])
def test_any_intercept_box_works(box):
    """int8 labels times a bound past +-127 overflowed (NumPy 2); every box must build and solve."""
    X = pd.DataFrame({"a": [1, 1, 0, 0, 1, 0], "b": [0, 1, 0, 1, 1, 0]})
    y = [1, 1, 0, 0, 1, 0]
    card = sw.fit(X, y, max_size=1, intercept_range=box)
    assert card.status == "optimal"
    assert box[0] <= card.intercept <= box[1]
    assert card.details["intercept_range"] == box
    if box[0] <= 0 <= box[1]:
        assert (
            card.train_metrics.error == 0
        )  # 'a' alone separates the rows; the wide box changes nothing


def test_the_default_box_never_binds_on_raw_values():
    X, y = glucose_data()
    card = sw.fit(X, y, time_limit=20)
    lo, hi = card.details["intercept_range"]
    assert lo < card.intercept < hi
    # the derived box reaches past every score a card in the points box can give
    scores = np.abs(X.to_numpy()).sum(axis=1) * 10
    assert hi >= scores.max() and lo <= -scores.max()
    assert card.details["box_limits"] == ()
    # with glucose alone the card needs an intercept near -140 x its points: beyond the old box
    alone = sw.fit(X[["glucose"]], y, time_limit=20)
    assert alone.intercept / alone.points["glucose"] < -100
    assert alone.train_metrics.error < 0.1


def test_a_user_box_that_limits_the_card_is_said_so(tmp_path):
    X, y = glucose_data(cut=115)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        card = sw.fit(
            X[["glucose"]], y, intercept_range=(-100, 100), coef_range=(0, 1), time_limit=20
        )
    assert card.intercept == -100  # the box binds: glucose > 100 is the best it can say
    notes = card.details["box_limits"]
    assert len(notes) == 2 and "intercept" in notes[0] and "-100..100" in notes[0]
    assert "'glucose'" in notes[1] and "0..1" in notes[1]
    assert [str(w.message) for w in caught if w.category is sw.BoxWarning] == list(notes)
    assert notes[0] in card.to_text()
    # the note survives a JSON round trip, and a card no box limits carries none
    path = tmp_path / "card.json"
    card.to_json(str(path))
    assert sw.ScoringSystem.from_json(str(path)).details["box_limits"] == notes
    free = sw.fit(X[["glucose"]], y, time_limit=20)
    assert "box_limits" not in json.loads(free.to_json())


@pytest.mark.parametrize("solver", ["highs", "enumerate"])
@pytest.mark.seeds(6)
def test_the_derived_box_matches_brute_force(seed, solver):
    """Raw integer values up to 250 with no intercept_range: the optimum over every intercept
    (the oracle takes them from the scores of every card in its grid) is the card's."""
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(8, 14)), 2
    X = rng.integers(0, 251, size=(n, p)).astype(float)
    y = rng.choice([-1, 1], size=n)
    y[0], y[1] = 1, -1
    names = ["f0", "f1"]
    spec = sw.make_spec(C0=0.01, coef_range=(-2, 2), solver=solver)
    card = sw.fit(X, y, feature_names=names, spec=spec)
    cards = enumerate_cards(X, y, names, spec)
    total = X @ np.array(card.coefficients, float) + card.intercept
    got = float(np.mean(row_errors(total, y, spec.zero_score))) + 0.01 * card.size
    assert got == pytest.approx(best_objective(cards, 0.01), abs=1e-12)
    assert card.status == "optimal"
    assert not any(
        "intercept" in note for note in card.details["box_limits"]
    )  # the derived box never binds


def test_the_derived_box_is_wide_enough_for_every_row():
    X, y = glucose_data(50)
    form = build_formulation(prepare_data(X, y, warn=False), sw.make_spec(coef_range=(-3, 3)))
    lo, hi = form.intercept_box
    s = np.abs(X.to_numpy()).sum(axis=1) * 3
    assert lo <= -s.max() - form.margin and hi >= s.max() + form.margin


@pytest.mark.slow
def test_a_user_box_that_limits_the_card_without_touching_it_is_said_so(monkeypatch):
    """Raw amounts in the hundreds: within -100..100 the amount can hardly carry points, and
    the card's intercept sits inside the box; a search over the derived box shows a better
    card. The solver gets a tenth of the limit and the search the rest, so that the search
    ends by itself (its kicks run out) and the outcome depends on no clock."""
    from slimwidgets.fitting import driver as fitting

    monkeypatch.setattr(fitting, "PROBE_SECONDS", 300.0)
    monkeypatch.setattr(fitting, "FINISH_SHARE", 0.9)
    monkeypatch.setattr(fitting, "FINISH_SECONDS", 1e9)
    rng = np.random.default_rng(0)
    n = 300
    amount, age, months = (
        rng.gamma(2, 300, n).round(),
        rng.integers(19, 75, n),
        rng.integers(4, 72, n),
    )
    y = ((amount / 100 + months / 10 - age / 20 + rng.normal(0, 1, n)) > 3).astype(int)
    X = pd.DataFrame({"amount": amount, "age": age, "months": months})
    card = sw.fit(
        X, y, intercept_range=(-100, 100), time_limit=60, rules=False
    )  # points x raw amounts
    assert -100 < card.intercept < 100
    notes = [
        note
        for note in card.details["box_limits"]
        if note.startswith("intercept_range -100..100 limits the card")
    ]
    assert len(notes) == 1, card.details["box_limits"]
    better = float(notes[0].split("reaches error ")[1].split("%")[0]) / 100
    assert better < card.train_metrics.error
    assert (
        sw.fit(X, y, time_limit=5, rules=False).details["box_limits"] == ()
    )  # the derived box: nothing to say
