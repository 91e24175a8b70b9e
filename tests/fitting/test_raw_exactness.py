"""Exactness from raw tables: the card fit on a raw table is the best card over its
rules, by brute force."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.core.rules import RuleBuilder

from brute import best_objective, enumerate_cards, row_errors


def tiny_raw(seed: int, n: int = 24) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(50, 10, n), 1)
    x[rng.random(n) < 0.2] = np.nan
    level = rng.choice(["a", "b"], n).astype(object)
    y = np.where(rng.random(n) < 0.5, 1, -1)
    y[0], y[1] = 1, -1
    return pd.DataFrame({"x": x, "level": level}), y


@pytest.mark.seeds(6)
def test_raw_fit_matches_brute_force_over_its_rules(seed):
    X, y = tiny_raw(8100 + seed)
    builder = RuleBuilder(n_cuts=1).fit(X)
    B = builder.transform(X, warn=False)
    spec = sw.make_spec(C0=0.02, coef_range=(-2, 2), intercept_range=(-4, 4))
    card = sw.fit(X, y, spec=spec, rules=RuleBuilder(n_cuts=1))  # fit afresh, same settings
    assert card.status == "optimal" and list(card.feature_names) == list(B.columns)
    cards = enumerate_cards(B.to_numpy(float), y, list(B.columns), spec)
    total = B.to_numpy(float) @ np.asarray(card.coefficients, float) + card.intercept
    got = np.mean(row_errors(total, y)) + spec.C0 * card.size
    assert got == pytest.approx(best_objective(cards, spec.C0), abs=1e-12)
    assert card.score(X).tolist() == (B.to_numpy() @ np.asarray(card.coefficients)).tolist()
