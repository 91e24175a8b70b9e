"""Survival data and Cox's partial likelihood, checked against scikit-survival on its bundled
sets."""

from __future__ import annotations

import numpy as np
import pytest

sksurv = pytest.importorskip("sksurv")
from sksurv.datasets import load_veterans_lung_cancer, load_whas500  # noqa: E402
from sksurv.linear_model import CoxPHSurvivalAnalysis  # noqa: E402
from sksurv.linear_model.coxph import BreslowEstimator  # noqa: E402
from sksurv.metrics import concordance_index_censored  # noqa: E402
from sksurv.nonparametric import kaplan_meier_estimator  # noqa: E402
from sksurv.util import Surv  # noqa: E402

from slimwidgets.core.survival import (  # noqa: E402
    CoxCells,
    StepFunction,
    breslow_baseline,
    harrell_c,
    is_survival_target,
    kaplan_meier,
    survival_target,
)


@pytest.fixture(scope="module")
def whas():
    X, y = load_whas500()
    columns = ["age", "hr", "bmi", "chf", "sho"]
    values = X[columns].astype(float).to_numpy()
    values = (values - values.mean(axis=0)) / values.std(axis=0)
    return values, y


def test_surv_arrays_are_read_and_others_refused():
    y = Surv.from_arrays(event=[True, False, True], time=[3.0, 1.0, 2.0])
    target = survival_target(y)
    assert is_survival_target(y) and target.event.tolist() == [True, False, True]
    assert target.time.tolist() == [3.0, 1.0, 2.0]
    assert not is_survival_target(np.array([1, 0, 1]))
    with pytest.raises(ValueError, match="no row has an event"):
        survival_target(Surv.from_arrays(event=[False, False], time=[1.0, 2.0]))
    with pytest.raises(ValueError, match="non-negative"):
        survival_target(Surv.from_arrays(event=[True, False], time=[-1.0, 2.0]))
    with pytest.raises(ValueError, match="structured array"):
        survival_target(np.array([0, 1]))


def _newton(cells: CoxCells, k: int) -> np.ndarray:
    v = np.zeros(k)
    for _ in range(50):
        _, g, h = cells.value_gradient_hessian(v)
        v = v - np.linalg.solve(h, g)
    return v


def test_the_least_cox_loss_is_scikit_survival_s_breslow_fit(whas):
    """The loss's minimiser is scikit-survival's unpenalised Cox fit with Breslow's ties."""
    X, y = whas
    event, time = y["fstat"], y["lenfol"]
    ours = _newton(CoxCells(X, time, event), X.shape[1])
    theirs = CoxPHSurvivalAnalysis(alpha=0.0, ties="breslow").fit(X, y).coef_
    np.testing.assert_allclose(ours, theirs, atol=1e-6)


def test_breslow_s_baseline_hazard_is_scikit_survival_s(whas):
    X, y = whas
    event, time = y["fstat"], y["lenfol"]
    eta = X @ np.array([0.5, 0.2, -0.3, 0.4, 0.1])
    times, H0 = breslow_baseline(eta, time, event)
    theirs = BreslowEstimator().fit(eta, event, time).cum_baseline_hazard_
    np.testing.assert_allclose(H0, theirs(times), rtol=1e-10)


@pytest.mark.parametrize("load", [load_whas500, load_veterans_lung_cancer])
def test_kaplan_meier_and_its_interval_are_scikit_survival_s(load):
    _, y = load()
    event_name, time_name = y.dtype.names
    event, time = y[event_name], y[time_name]
    times, survival, lower, upper = kaplan_meier(time, event)
    their_times, their_survival, (their_lower, their_upper) = kaplan_meier_estimator(
        event, time, conf_type="log-log"
    )
    at = np.searchsorted(their_times, times)
    np.testing.assert_allclose(survival, their_survival[at], rtol=1e-12)
    inside = survival > 0
    np.testing.assert_allclose(lower[inside], their_lower[at][inside], rtol=1e-9)
    np.testing.assert_allclose(upper[inside], their_upper[at][inside], rtol=1e-9)


@pytest.mark.seeds(5)
def test_harrell_s_c_is_scikit_survival_s(seed):
    rng = np.random.default_rng(seed)
    time = rng.integers(1, 20, 60).astype(float)  # ties in time
    event = rng.random(60) < 0.6
    risk = rng.integers(0, 6, 60).astype(float)  # ties in risk
    theirs = concordance_index_censored(event, time, risk)[0]
    assert harrell_c(time, event, risk) == pytest.approx(theirs, abs=1e-12)


def test_step_functions_read_as_scikit_survival_s():
    f = StepFunction(np.array([2.0, 5.0]), np.array([0.8, 0.4]))
    assert f(np.array([0.0, 1.99, 2.0, 4.0, 5.0])).tolist() == [1.0, 1.0, 0.8, 0.8, 0.4]
    with pytest.raises(ValueError, match="outside the domain"):
        f(6.0)


@pytest.mark.seeds(8)
def test_efron_s_ties_are_the_row_by_row_loss(seed):
    from brute_cox import efron_loss, tiny_survival

    X, time, event, w = tiny_survival(seed)
    v = np.random.default_rng(seed).normal(0, 1, X.shape[1])
    cells = CoxCells(X, time, event, w, ties="efron")
    assert cells.value(v) == pytest.approx(efron_loss(X, time, event, w, v, 1.0), abs=1e-12)
    assert cells.value(v) != pytest.approx(CoxCells(X, time, event, w).value(v), abs=1e-9)  # ties


def test_the_least_efron_loss_is_scikit_survival_s_efron_fit(whas):
    X, y = whas
    ours = _newton(CoxCells(X, y["lenfol"], y["fstat"], ties="efron"), X.shape[1])
    theirs = CoxPHSurvivalAnalysis(alpha=0.0, ties="efron").fit(X, y).coef_
    np.testing.assert_allclose(ours, theirs, atol=1e-6)


@pytest.mark.seeds(8)
def test_the_gradient_and_curvature_are_the_row_by_row_loss_s_derivatives(seed):
    """Each feature's slope and second derivative, against central differences of the loss
    written row by row from its definition (weights, tied times, censoring)."""
    from brute_cox import cox_loss, tiny_survival

    from slimwidgets.core.survival import CoxRows

    X, time, event, w = tiny_survival(seed, n_features=4, binary=seed % 2 == 0)
    v = np.random.default_rng(seed).normal(0, 0.7, X.shape[1])
    gradient, curvature = CoxRows(X, time, event, w).gradient_curvature(v)
    h = 1e-4
    for j in range(X.shape[1]):
        step = np.eye(X.shape[1])[j] * h
        up, mid, down = (cox_loss(X, time, event, w, v + s, 1.0) for s in (step, 0 * step, -step))
        assert gradient[j] == pytest.approx((up - down) / (2 * h), abs=1e-7)
        assert curvature[j] == pytest.approx((up - 2 * mid + down) / h**2, abs=1e-5)
