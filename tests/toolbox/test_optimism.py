"""Harrell's bootstrap (sw.optimism) against the same loop written out with scikit-learn's AUC."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

import slimwidgets as sw
from slimwidgets.datasets import load_demo


@pytest.fixture(scope="module")
def small():
    X, y = load_demo(n_features=5)
    return X[:200], y[:200]


def _by_hand(card, X, y, n_boot, seed):
    """Refit on each bootstrap sample; optimism = mean(AUC on the sample - AUC
    on the original rows)."""
    gaps = []
    for s in np.random.SeedSequence(seed).generate_state(n_boot):
        rows = np.random.default_rng(int(s)).integers(0, len(X), len(X))
        spec = dataclasses.replace(card.spec, time_limit=30)
        refit = sw.fit(X.iloc[rows], y.iloc[rows], spec=spec)
        gaps.append(
            roc_auc_score(y.iloc[rows], refit.score(X.iloc[rows]))
            - roc_auc_score(y, refit.score(X))
        )
    return float(np.mean(gaps))


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_optimism_is_harrells_bootstrap(small, n_jobs):
    X, y = small
    card = sw.fit(X, y, max_size=2, time_limit=30)
    assert card.status == "optimal"  # every refit below is proven too, so the loop is deterministic
    table = sw.optimism(
        card, X, y, n_boot=4, time_limit=30, n_jobs=n_jobs, random_state=3, progress=False
    )
    apparent = roc_auc_score(y, card.score(X))
    assert table.loc["AUC", "apparent"] == pytest.approx(apparent)
    assert table.loc["AUC", "optimism"] == pytest.approx(_by_hand(card, X, y, 4, 3))
    assert table.loc["AUC", "corrected"] == pytest.approx(apparent - table.loc["AUC", "optimism"])
    assert table.loc["AUC", "samples"] == 4


def test_optimism_of_a_risk_card_includes_the_calibration_slope(small):
    X, y = small
    card = sw.fit(X, y, loss="logistic", max_size=2, time_limit=5)
    table = sw.optimism(card, X, y, n_boot=2, time_limit=2, progress=False)
    assert list(table.index) == ["AUC", "calibration slope"]
    assert table.loc["calibration slope", "apparent"] == pytest.approx(
        1.0, abs=0.05
    )  # fitted on these rows


def test_optimism_needs_the_cards_spec_and_features(small):
    X, y = small
    with pytest.raises(ValueError, match="spec"):
        sw.optimism(
            sw.ScoringSystem(
                tuple(X.columns), (1,) * X.shape[1], -1, positive=True, negative=False
            ),
            X,
            y,
        )
    card = sw.fit(X, y, max_size=1, time_limit=5)
    with pytest.raises(KeyError, match="lacks"):
        sw.optimism(card, X.iloc[:, 1:], y)
    with pytest.raises(ValueError, match="n_jobs must be None, a positive integer or -1"):
        sw.optimism(card, X, y, n_boot=2, n_jobs=0)
