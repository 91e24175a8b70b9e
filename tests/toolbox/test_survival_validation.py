"""``sw.validate`` of a time-to-event card: every figure against scikit-survival on the same
predictions, with bootstrap intervals around it."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sksurv")
from sksurv.datasets import load_gbsg2  # noqa: E402
from sksurv.metrics import (  # noqa: E402
    concordance_index_censored,
    concordance_index_ipcw,
    cumulative_dynamic_auc,
    integrated_brier_score,
)

import slimwidgets as sw  # noqa: E402
from slimwidgets.toolbox.survival_validation import brier_grid, validate_survival  # noqa: E402


@pytest.fixture(scope="module")
def split():
    X, y = load_gbsg2()
    X = X[["pnodes", "progrec", "tgrade", "tsize"]]
    order = np.random.default_rng(0).permutation(len(y))
    train, test = order[:450], order[450:]
    card = sw.fit(X.iloc[train], y[train], rules=True, max_size=2, time_limit=60)
    keep = y[test]["time"] < y[train]["time"].max()
    return card, X.iloc[train], y[train], X.iloc[test[keep]], y[test[keep]]


def test_every_figure_is_scikit_survival_s_on_the_same_predictions(split):
    card, _, y_train, X, y = split
    v = validate_survival(card, X, y, y_train=y_train, n_bootstrap=30)
    risk, est = card.predict(X), v.figures["estimate"]
    assert est["Harrell's C"] == pytest.approx(
        concordance_index_censored(y["cens"], y["time"], risk)[0]
    )
    tau = max(card.horizons)
    assert est["Uno's C"] == pytest.approx(concordance_index_ipcw(y_train, y, risk, tau=tau)[0])
    aucs, mean = cumulative_dynamic_auc(y_train, y, risk, np.array(card.horizons))
    for h, auc in zip(card.horizons, aucs):
        assert est[f"AUC by {h:g}"] == pytest.approx(auc)
    assert est["mean AUC"] == pytest.approx(mean)
    grid = brier_grid(y["time"], y["cens"], float(y_train["time"].max()))
    survival = np.vstack([fn(grid) for fn in card.predict_survival_function(X)])
    assert est["integrated Brier score"] == pytest.approx(
        integrated_brier_score(y_train, y, survival, grid)
    )


def test_intervals_hold_their_estimates_and_sw_validate_routes_a_surv_y(split):
    card, _, y_train, X, y = split
    v = sw.validate(card, X, y, label="held-out")
    assert v.label == "held-out" and v.rows == len(X) and v.resamples >= 190
    f = v.figures
    assert (f["lower"] <= f["estimate"] + 1e-12).all() and (
        f["estimate"] <= f["upper"] + 1e-12
    ).all()
    assert (f["upper"] - f["lower"] > 0).all()  # a real spread, not a point
    assert "Harrell's C" in repr(v) and "<b>held-out</b>" in v._repr_html_()


def test_training_figures_score_the_fit_better_than_chance(split):
    card, X_train, y_train, _, _ = split
    v = validate_survival(card, X_train, y_train, n_bootstrap=20, seed=1)
    assert v.figures.loc["Harrell's C", "lower"] > 0.55
    assert 0 < v.figures.loc["integrated Brier score", "estimate"] < 0.25
