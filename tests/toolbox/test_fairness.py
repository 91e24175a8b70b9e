"""Group constraints through the tools built on fit (issue 22), and the price-of-fairness sweep."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.core.groups import dataset_rates

from brute import best_objective, enumerate_cards


def problem(seed: int = 3, n: int = 40):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 2, size=(n, 3)), columns=["a", "b", "c"])
    sex = np.where(rng.random(n) < 0.5, "F", "M")
    # the label leans on "a" for F and on "b" for M: one card cannot serve both groups equally
    y = np.where(sex == "F", X["a"], X["b"]) ^ (rng.random(n) < 0.1)
    return X, y.astype(int), sex


def tpr_gap(card, X, y, sex):
    rates = sw.group_rates(card, X, y, sex)
    return float(rates["TPR"].max() - rates["TPR"].min())


@pytest.mark.slow
def test_fairness_frontier_matches_brute_force_at_every_gap():
    X, y, sex = problem()
    box = dict(coef_range=(-2, 2), intercept_range=(-4, 4), C0=0.001)
    front = sw.fairness_frontier(
        X, y, sex, gaps=[0.0, 0.1, 0.3, 1.0], progress=False, cache=False, **box
    )
    assert list(front["max_gap"]) == [0.0, 0.1, 0.3, 1.0]
    for _, row in front.iterrows():
        spec = sw.make_spec(max_tpr_gap=row["max_gap"], **box)
        cards = enumerate_cards(
            X.to_numpy(), np.where(y == 1, 1, -1), list(X.columns), spec, groups=sex
        )
        best = best_objective(cards, 0.001)
        assert row["status"] == "optimal"
        assert row["error"] + 0.001 * row["size"] == pytest.approx(best, abs=1e-9)
        assert row["gap_reached"] <= row["max_gap"] + 1e-12
        assert row["gap_reached"] == pytest.approx(tpr_gap(row["card"], X, y, sex), abs=1e-12)
    # a looser gap never costs accuracy: the price of fairness falls
    assert np.all(np.diff(front["error"].to_numpy()) <= 1e-12)


@pytest.mark.slow
def test_fairness_frontier_runs_in_parallel_and_draws():
    X, y, sex = problem(5)
    front = sw.fairness_frontier(
        X,
        y,
        sex,
        gaps=[0.0, 1.0],
        n_jobs=2,
        progress=False,
        cache=False,
        C0=0.01,
        coef_range=(-2, 2),
    )
    assert front["status"].tolist() == ["optimal", "optimal"]
    spec = sw.fairness_chart(front).to_dict()
    assert [layer["mark"]["type"] for layer in spec["layer"]] == ["line", "point", "tick"]
    with pytest.raises(ValueError, match="rate must be"):
        sw.fairness_frontier(X, y, sex, rate="error")


def test_the_sweeps_cache_tells_group_columns_apart():
    X, y, sex = problem(6)
    other = np.where(sex == "F", "M", "F")[::-1]
    a = sw.roc_frontier(
        X, y, fprs=[0.3], sensitive_features=sex, max_tpr_gap=0.0, progress=False, C0=0.01
    )
    b = sw.roc_frontier(
        X, y, fprs=[0.3], sensitive_features=other, max_tpr_gap=0.0, progress=False, C0=0.01
    )
    assert not bool(b["cached"].iloc[0])
    for frame, groups in ((a, sex), (b, other)):
        card = frame["card"].iloc[0]
        assert tpr_gap(card, X, y, groups) <= 1e-12 and card.metrics(X, y).fpr <= 0.3 + 1e-12


@pytest.mark.slow
def test_size_path_cross_validation_alternatives_and_estimator_hold_the_gap():
    X, y, sex = problem(7, n=60)
    path = sw.size_path(
        X, y, sizes=[1, 2], sensitive_features=sex, max_tpr_gap=0.05, progress=False, cache=False
    )
    for card in path["card"]:
        assert tpr_gap(card, X, y, sex) <= 0.05 + 1e-12
    cv = sw.cross_validate(
        X, y, folds=3, sensitive_features=sex, max_tpr_gap=0.05, C0=0.01, progress=False
    )
    assert len(cv.folds) == 3
    cards = sw.alternatives(
        X, y, k=3, within=0.1, sensitive_features=sex, max_tpr_gap=0.05, C0=0.01
    )
    data = prepare_data(X, y, sensitive_features=sex, warn=False)
    for card in cards:
        rates = dataset_rates(card, data)["TPR"]
        assert rates.max() - rates.min() <= 0.05 + 1e-12
    clf = sw.SLIMClassifier(max_tpr_gap=0.05, C0=0.01).fit(X, y, sensitive_features=sex)
    assert tpr_gap(clf.scoring_system_, X, y, sex) <= 0.05 + 1e-12
    with_name = sw.SLIMClassifier(max_tpr_gap=0.05, C0=0.01, exclude=["c"]).fit(
        X.assign(g=(sex == "F").astype(int)), y, sensitive_features="g"
    )
    assert with_name.scoring_system_.points.get("c", 0) == 0


@pytest.mark.slow
def test_fit_cv_holds_the_gap_in_every_fold_and_in_the_refit_card():
    X, y, sex = problem(7, n=60)
    card = sw.fit_cv(
        X, y, max_size=[1, 2], cv=3, sensitive_features=sex, max_tpr_gap=0.05, progress=False
    )
    assert tpr_gap(card, X, y, sex) <= 0.05 + 1e-12
    alone = sw.fit(X, y, sensitive_features=sex, max_tpr_gap=0.05, **card.details["cv"]["chosen"])
    assert card.objective == pytest.approx(
        alone.objective
    )  # the refit is fit's own card under the gap
    free = sw.fit_cv(X, y, max_size=[1, 2], cv=3, progress=False)
    assert (
        tpr_gap(free, X, y, sex) > 0.05
    )  # without the groups the gap is broken: the option did the work
