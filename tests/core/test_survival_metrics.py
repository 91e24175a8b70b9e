"""A time-to-event card's figures against scikit-survival's, on the same predictions."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sksurv")
from sksurv.datasets import load_gbsg2, load_veterans_lung_cancer, load_whas500  # noqa: E402
from sksurv.metrics import (  # noqa: E402
    brier_score,
    concordance_index_ipcw,
    cumulative_dynamic_auc,
    integrated_brier_score,
)
from sksurv.nonparametric import CensoringDistributionEstimator  # noqa: E402

from slimwidgets.core.survival_metrics import (  # noqa: E402
    brier_scores,
    censoring_survival,
    dynamic_auc,
    integrated_brier,
    uno_c,
)

LOADS = [load_whas500, load_veterans_lung_cancer, load_gbsg2]


def _data(load, seed=0):
    """A set's y, split in two halves (train, test), and an integer risk score with ties."""
    _, y = load()
    rng = np.random.default_rng(seed)
    event_name, time_name = y.dtype.names
    order = rng.permutation(len(y))
    train, test = y[order[: len(y) // 2]], y[order[len(y) // 2 :]]
    test = test[test[time_name] < train[time_name].max()]  # where the censoring is estimated
    # a score that knows something (earlier times score higher) and ties
    risk = np.round(-np.log1p(test[time_name]) + rng.normal(0, 1, len(test)))
    return train, test, risk, event_name, time_name


def _arrays(y, event_name, time_name):
    return y[time_name].astype(float), y[event_name].astype(bool)


@pytest.mark.parametrize("load", LOADS)
def test_the_censoring_distribution_is_scikit_survival_s(load):
    _, y = load()
    event_name, time_name = y.dtype.names
    times, G = censoring_survival(y[time_name], y[event_name])
    theirs = CensoringDistributionEstimator().fit(y).predict_proba(times)
    np.testing.assert_allclose(G, theirs, rtol=1e-12)


@pytest.mark.parametrize("load", LOADS)
def test_uno_s_c_is_scikit_survival_s(load):
    train, test, risk, e, t = _data(load)
    tau = float(np.quantile(test[t], 0.8))
    for limit in (None, tau):
        theirs = concordance_index_ipcw(train, test, risk, tau=limit)[0]
        ours = uno_c(*_arrays(test, e, t), risk, train=_arrays(train, e, t), tau=limit)
        assert ours == pytest.approx(theirs, abs=1e-10)


@pytest.mark.parametrize("load", LOADS)
def test_the_time_dependent_auc_is_scikit_survival_s(load):
    train, test, risk, e, t = _data(load)
    horizons = np.quantile(test[t][test[e]], [0.25, 0.5, 0.75])
    their_scores, their_mean = cumulative_dynamic_auc(train, test, risk, horizons)
    scores, mean = dynamic_auc(*_arrays(test, e, t), risk, horizons, train=_arrays(train, e, t))
    np.testing.assert_allclose(scores, their_scores, atol=1e-10)
    assert mean == pytest.approx(their_mean, abs=1e-10)


@pytest.mark.parametrize("load", LOADS)
def test_brier_scores_are_scikit_survival_s(load):
    train, test, risk, e, t = _data(load)
    grid = np.quantile(test[t], np.linspace(0.1, 0.8, 12))
    survival = np.exp(-np.outer(np.exp(risk / 3), grid / grid.max()))  # any predicted survival
    theirs = brier_score(train, test, survival, grid)[1]
    ours = brier_scores(*_arrays(test, e, t), survival, grid, train=_arrays(train, e, t))
    np.testing.assert_allclose(ours, theirs, rtol=1e-10)
    their_ibs = integrated_brier_score(train, test, survival, grid)
    ibs = integrated_brier(*_arrays(test, e, t), survival, grid, train=_arrays(train, e, t))
    assert ibs == pytest.approx(their_ibs, rel=1e-10)
