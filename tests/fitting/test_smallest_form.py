"""A card whose text variable scores points on every value comes out in its smallest equivalent
form (one level at 0, the threshold moved with it): brute force over every card of a small box
on random tiny raw tables, checked on new rows (kept, pooled, unseen and missing levels)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.core.formulation import build_formulation
from slimwidgets.core.rules import RuleBuilder, rules_from_options
from slimwidgets.core.scoring import ScoringSystem
from slimwidgets.core.spec import make_spec
from slimwidgets.fitting.cards import smallest_form
from slimwidgets.solvers.base import SolveResult

# every kind of value a new row may hold: each kept level, a pooled one, one never seen, missing
PROBE = pd.DataFrame(
    {"race": ["white", "black", "asian", "martian", None], "age": [20, 60, 35, 45, 30]}
)


def _table(seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = 16
    race = rng.choice(["white", "white", "black"], n).astype(object)
    race[:2] = ["asian", None]  # one pooled level (too rare to keep) and one missing value
    X = pd.DataFrame({"race": race, "age": rng.integers(18, 70, n).astype(float)})
    y = rng.integers(0, 2, n)
    y[2:4] = [0, 1]
    return X, y


def _problem(seed: int, **options):
    X, y = _table(seed)
    rules = RuleBuilder(min_count=2, cuts={"age": [40]})
    rows, builder, opts = rules_from_options(X, {"rules": rules, **options})
    spec = make_spec(**opts, max_size=5, coef_range=(-3, 3))
    data = prepare_data(rows, y)
    return builder, spec, build_formulation(data, spec)


def _result(form, points: dict, intercept: int) -> SolveResult:
    coefs = np.array([points.get(n, 0) for n in form.data.feature_names], dtype=np.int64)
    return SolveResult(
        "heuristic", coefs, intercept, form.objective_of(coefs, intercept), 0.0, 1.0, 0.0, "test"
    )


def _card(form, builder, result: SolveResult) -> ScoringSystem:
    names = form.data.feature_names
    return ScoringSystem(
        names, tuple(int(c) for c in result.coefficients), int(result.intercept), rules=builder
    )


@pytest.mark.seeds(10)
def test_every_card_of_a_small_box_keeps_every_prediction(seed):
    builder, spec, form = _problem(seed)
    race = builder.rules_of("race")
    assert {r.kind for r in builder.rules_ if r.column == "race"} == {"eq", "other", "missing"}
    moved = 0
    for values in itertools.product([-2, -1, 1, 2], repeat=len(race)):
        for intercept in (-2, 0, 1):
            before = _result(form, {**dict(zip(race, values)), "age >= 40": 1}, intercept)
            after = smallest_form(form, before)
            old, new = _card(form, builder, before), _card(form, builder, after)
            probe = pd.concat([PROBE, _table(seed)[0]], ignore_index=True)
            np.testing.assert_array_equal(new.predict(probe), old.predict(probe))
            np.testing.assert_array_equal(
                new.score(probe) - new.threshold, old.score(probe) - old.threshold
            )
            assert after.objective <= before.objective + 1e-12
            if after is not before:
                moved += 1
                assert 0 in [new.points.get(n, 0) for n in race]  # one level is the reference
                assert len(new.points) < len(old.points)
    assert moved > 0  # the box holds cards that move (else the test proves nothing)


@pytest.mark.seeds(4)
def test_the_reference_is_the_level_most_rules_share_then_the_most_common(seed):
    builder, spec, form = _problem(seed)
    race = builder.rules_of("race")
    data = form.data  # (distinct rows, weighted by how often each was seen)
    counts = {n: data.weight[data.X[:, data.feature_names.index(n)] != 0].sum() for n in race}
    after = smallest_form(form, _result(form, {n: 1 for n in race}, 0))
    assert all(v == 0 for v in after.coefficients)  # all equal: every level goes to 0
    distinct = dict(zip(race, (1, 2, 3, -1)))
    new = _card(form, builder, smallest_form(form, _result(form, distinct, 0))).points
    common = max(race, key=lambda n: counts[n])
    assert common not in new and all(n in new for n in race if n != common)


def test_a_move_the_settings_forbid_is_not_made():
    builder, spec, form = _problem(0, signs={"race": "+"})  # every race rule >= 0
    race = builder.rules_of("race")
    before = _result(form, dict(zip(race, (1, 2, 3, 2))), 0)
    assert smallest_form(form, before) is before  # a move to 0 would make a level negative


def test_fit_returns_cards_in_their_smallest_form():
    X, y = _table(3)
    X = pd.concat([X] * 4, ignore_index=True)
    y = np.tile(y, 4)
    card = sw.fit(
        X, y, max_size=4, time_limit=5, rules=RuleBuilder(min_count=2, cuts={"age": [40]})
    )
    race = card.rules.rules_of("race")
    assert not all(card.points.get(n, 0) for n in race)
