"""rounded_logistic: the rounding is what it says, and SLIM never does
worse on its own objective."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

import slimwidgets as sw
from slimwidgets.toolbox.baselines import rounded_logistic


def test_points_are_the_scaled_rounded_regression(paper_data):
    X, y = paper_data("mammo")
    card = rounded_logistic(X, y, C=0.1, scale=10)
    assert card.status == "heuristic" and isinstance(card, sw.ScoringSystem)
    lr = LogisticRegression(
        C=0.1,
        l1_ratio=1.0,
        solver="liblinear",
        intercept_scaling=100.0,
        max_iter=10_000,
        random_state=0,
    ).fit(X, y)
    rho = lr.coef_.ravel()
    factor = 10 / np.abs(rho).max()
    assert card.details["factor"] == pytest.approx(factor, rel=1e-3)
    assert np.array_equal(
        np.array(card.coefficients),
        np.rint(np.array(card.details["raw_coefficients"]) * card.details["factor"]),
    )
    assert max(abs(v) for v in card.coefficients) == 10
    assert card.intercept == int(np.rint(card.details["raw_intercept"] * card.details["factor"]))
    # duplicates collapsed into weights give (nearly) the same regression as the raw rows
    assert np.allclose(card.details["raw_coefficients"], rho, atol=5e-3)
    m = card.metrics(X, y)
    assert card.train_metrics.error == pytest.approx(m.error)
    assert card.positive == 1 and card.positive_name == "Malignant"


def test_slim_is_never_worse_than_rounding_on_its_own_objective(paper_data):
    X, y = paper_data("bankruptcy")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for C in (0.05, 0.3):
            rounded = rounded_logistic(X, y, C=C, scale=5)
            slim = sw.fit(X, y, max_size=max(rounded.size, 1), coef_range=(-5, 5), time_limit=10)
            assert slim.status == "optimal"
            total = rounded.decision_function(X)
            sign = np.where(y == 1, 1, -1)
            paper_loss = np.mean(sign * total <= 0)  # a zero total is an error, as in the paper
            assert slim.train_metrics.error <= paper_loss + 1e-12


def test_box_clipping_warns_and_holds():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.integers(0, 2, 200), "b": rng.integers(0, 2, 200)})
    y = (X.a + 0.2 * rng.normal(size=200) > 0.5).astype(int)
    with pytest.warns(RuntimeWarning, match="clipped"):
        card = rounded_logistic(X, y, C=100, scale=20, coef_range=(-3, 3), intercept_range=(-2, 2))
    assert all(-3 <= v <= 3 for v in card.coefficients) and -2 <= card.intercept <= 2


def test_constant_model_and_validation():
    X = pd.DataFrame({"a": [0, 1, 0, 1, 0, 1], "b": [1, 1, 0, 0, 1, 0]})
    y = ["no", "no", "yes", "no", "no", "no"]
    card = rounded_logistic(X, y, C=1e-4, positive="yes")
    assert card.size == 0 and card.intercept == -1 and (card.predict(X) == "no").all()
    with pytest.raises(ValueError, match="C must"):
        rounded_logistic(X, y, C=0)
    with pytest.raises(ValueError, match="scale"):
        rounded_logistic(X, y, scale=-1)
    with pytest.raises(ValueError, match="coef_range"):
        rounded_logistic(X, y, coef_range=(3, -3))
