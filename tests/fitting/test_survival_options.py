"""Options by variable on time-to-event cards fit from raw tables: ``monotone``, ``require`` of a
variable and ``max_variables``, each against brute force (every card of a small box on the
card's own rules, those that break the option dropped); the options the proof cannot hold are
refused with the reason."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from brute_cox import brute_optimum

import slimwidgets as sw
from slimwidgets.core.constraints import needs

pytestmark = pytest.mark.slow  # fits from raw tables: python -m pytest --all runs them
BOX = (-2, 2)
C0 = 0.01


def raw_table(seed: int, n: int = 28) -> tuple[pd.DataFrame, np.ndarray]:
    """Age (its hazard U-shaped: the best unconstrained points fall, then rise) and smoking."""
    rng = np.random.default_rng(seed)
    age = rng.choice([35.0, 50.0, 70.0], n)
    smoker = rng.integers(0, 2, n)
    hazard = np.exp(0.9 * (age == 35) + 1.2 * (age == 70) + 0.8 * smoker)
    time = np.ceil(rng.exponential(4 / hazard)).clip(1, 9)
    event = rng.random(n) < 0.8
    event[0] = True
    X = pd.DataFrame({"age": age, "smoker": smoker})
    return X, np.array(list(zip(event, time)), dtype=[("event", "?"), ("time", "<f8")])


def fit(X, y, **options):
    return sw.fit(
        X, y, cuts={"age": [45, 60]}, coef_range=BOX, C0=C0, max_size=3, time_limit=60, **options
    )


def brute(card, X, y, allowed=None, keep=None) -> float:
    """The least objective over every card of the box on ``card``'s rules."""
    rules = card.rules.transform(X)
    names = list(rules.columns)
    assert names == list(card.feature_names)
    box = np.arange(BOX[0], BOX[1] + 1)
    allowed = [(allowed or {}).get(name, box) for name in names]
    best, _ = brute_optimum(
        rules.to_numpy(float),
        y["time"],
        y["event"],
        np.ones(len(y)),
        allowed,
        np.full(len(names), C0),
        3,
        keep=None if keep is None else (lambda p: keep(dict(zip(names, p)))),
    )
    return best


@pytest.mark.seeds(6)
def test_monotone_points_rise_with_age_and_are_the_best_such_card(seed):
    X, y = raw_table(seed)
    card = fit(X, y, monotone={"age": "+"})
    assert card.status == "optimal"
    bands = dict(card.rules.points_table(card.card_points)).get("age", ())
    assert all(a[1] <= b[1] for a, b in zip(bands, bands[1:]))  # the band points never fall
    rising = {name: np.arange(0, BOX[1] + 1) for name in ("age >= 45", "age >= 60")}
    assert card.objective == pytest.approx(brute(card, X, y, allowed=rising), abs=1e-8)


@pytest.mark.seeds(6)
def test_require_of_a_variable_uses_one_of_its_rules(seed):
    X, y = raw_table(seed)
    X["noise"] = np.random.default_rng(seed + 100).choice([1.0, 2.0, 3.0], len(X))
    card = sw.fit(
        X,
        y,
        cuts={"age": [45, 60], "noise": [1.5, 2.5]},
        coef_range=BOX,
        C0=C0,
        max_size=2,
        require=["noise"],
        time_limit=60,
    )
    assert card.status == "optimal"
    assert any(name.startswith("noise") for name in card.card_points)
    rules = card.rules.transform(X)
    names = list(rules.columns)
    best, _ = brute_optimum(
        rules.to_numpy(float),
        y["time"],
        y["event"],
        np.ones(len(y)),
        [np.arange(BOX[0], BOX[1] + 1)] * len(names),
        np.full(len(names), C0),
        2,
        keep=lambda p: any(v != 0 for n, v in zip(names, p) if n.startswith("noise")),
    )
    assert card.objective == pytest.approx(best, abs=1e-8)


@pytest.mark.seeds(6)
def test_max_variables_keeps_the_best_card_of_one_variable(seed):
    X, y = raw_table(seed)
    card = fit(X, y, max_variables=1)
    assert card.status == "optimal"
    used = {name.split(" ")[0] for name in card.card_points}
    assert len(used) <= 1

    def one_variable(points: dict) -> bool:
        return len({n.split(" ")[0] for n, v in points.items() if v != 0}) <= 1

    assert card.objective == pytest.approx(brute(card, X, y, keep=one_variable), abs=1e-8)


def test_options_the_proof_cannot_hold_are_refused_with_the_reason():
    X, y = raw_table(0)
    with pytest.raises(ValueError, match="no logical constraint but 'at least one of'"):
        fit(X, y, constraints=[needs("smoker", "age >= 45")])
    with pytest.raises(ValueError, match="do not take max_fpr"):
        fit(X, y, max_fpr=0.2)
    bands = {"age": {"age >= 45": ["band", 45, 60], "age >= 60": ["ge", 60]}}
    with pytest.raises(ValueError, match="share a cut point"):
        sw.fit(
            pd.DataFrame({"age >= 45": [0, 1, 0, 1], "age >= 60": [0, 0, 1, 1]}),
            y[:4],
            variables=bands,
            monotone={"age": "+"},
        )
