"""Sec. 3 of the paper: the rounding of Theorem 1's proof really keeps the 0-1
loss; counts and formulas."""

import itertools
import math

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

import slimwidgets as sw
from slimwidgets.toolbox.bounds import (
    farey_count,
    generalization_bound,
    hypothesis_count,
    resolution_bound,
    round_to_resolution,
)


def data(seed, n=40, p=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = np.where(X @ rng.normal(size=p) + rng.normal(0, 0.7, n) > 0, 1, -1)
    return X, y


def errors(X, y, coef, intercept=0.0):
    return int(np.sum(y * (X @ coef + intercept) <= 0))


@pytest.mark.seeds(8)
def test_theorem1_rounding_keeps_every_prediction(seed):
    X, y = data(seed)
    rho = LogisticRegression(fit_intercept=False).fit(X, y).coef_.ravel()
    r = resolution_bound(X, y, rho)
    assert r.Lambda > r.bound and r.max_extra_errors == 0
    assert r.baseline_errors == errors(X, y, rho)
    lam = round_to_resolution(rho, r.Lambda)
    assert np.abs(lam).max() <= r.Lambda
    assert errors(X, y, lam) <= errors(X, y, rho)
    assert (np.sign(X @ lam) == np.sign(X @ rho)).all()  # the proof's stronger statement


@pytest.mark.seeds(4)
def test_theorem1_with_intercept(seed):
    X, y = data(100 + seed)
    lr = LogisticRegression().fit(X, y)
    rho, b = lr.coef_.ravel(), float(lr.intercept_[0])
    r = resolution_bound(X, y, rho, intercept=b)
    assert r.n_features == 4  # the constant 1 counts as a coordinate
    lam = round_to_resolution(rho, r.Lambda, intercept=b)
    assert errors(X, y, lam[1:], lam[0]) <= errors(X, y, rho, b)


def test_too_coarse_a_resolution_can_lose_accuracy():
    """The check above can fail: well below the bound, rounding does change predictions."""
    changed = 0
    for seed in range(20):
        X, y = data(seed)
        rho = LogisticRegression(fit_intercept=False).fit(X, y).coef_.ravel()
        lam = round_to_resolution(rho, 1)
        changed += int((np.sign(X @ lam) != np.sign(X @ rho)).any())
    assert changed > 0


@pytest.mark.seeds(6)
def test_kth_margin_corollary(seed):
    X, y = data(200 + seed, n=60)
    rho = LogisticRegression(fit_intercept=False).fit(X, y).coef_.ravel()
    r1 = resolution_bound(X, y, rho)
    for k in (2, 3, 5):
        r = resolution_bound(X, y, rho, k=k)
        assert r.max_extra_errors <= k - 1
        assert (
            r.bound <= r1.bound * (1 + 1e-12) or r.x_norm > r1.x_norm
        )  # a larger margin, usually a smaller Λ
        lam = round_to_resolution(rho, r.Lambda)
        margins = np.abs(X @ rho) / np.linalg.norm(rho)
        kept = margins >= r.gamma
        assert (np.sign(X[kept] @ lam) == np.sign(X[kept] @ rho)).all()
        assert errors(X, y, lam) - errors(X, y, rho) <= k - 1


def test_resolution_bound_formula_by_hand():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    r = resolution_bound(X, [1, 0, 1], coef=[1.0, -0.5])
    # margins |rho.x| / ||rho|| = (1, .5, .5) / 1.1180; X_max = sqrt 2; P = 2
    assert r.gamma == pytest.approx(0.5 / math.sqrt(1.25))
    assert r.bound == pytest.approx(math.sqrt(2) * math.sqrt(2) / (2 * 0.5 / math.sqrt(1.25)))
    assert r.Lambda == 3 and r.baseline_errors == 0
    on_boundary = resolution_bound(X, [1, 0, 1], coef=[1.0, -1.0])
    assert math.isinf(on_boundary.bound) and on_boundary.Lambda is None
    with pytest.raises(ValueError, match="k"):
        resolution_bound(X, [1, 0, 1], [1.0, 0.5], k=0)
    with pytest.raises(ValueError, match="coef"):
        resolution_bound(X, [1, 0, 1], [1.0])


def test_hypothesis_and_farey_counts_by_enumeration():
    for P, L in [(1, 3), (2, 2), (3, 1), (2, 3)]:
        box = list(itertools.product(range(-L, L + 1), repeat=P))
        assert hypothesis_count(P, L) == len(box)
        for m in range(P + 1):
            assert hypothesis_count(P, L, max_size=m) == sum(
                1 for v in box if sum(c != 0 for c in v) <= m
            )
        farey = sum(
            1
            for q in range(1, L + 1)
            for lam in itertools.product(range(q), repeat=P)
            if math.gcd(q, *lam) == 1
        )
        assert farey_count(P, L) == farey


def test_generalization_bound_formulas():
    b = generalization_bound(n=1000, Lambda=10, n_features=5, train_error=0.1, delta=0.05)
    expected = math.sqrt((5 * math.log(21) - math.log(0.05)) / 2000)
    assert (
        b.theorem == "Theorem 2"
        and b.complexity == pytest.approx(expected)
        and b.bound == pytest.approx(0.1 + expected)
    )
    same = generalization_bound(n=1000, coef_set_size=21**5)
    assert same.complexity == pytest.approx(expected) and math.isnan(same.bound)
    sparse = generalization_bound(
        n=1000, Lambda=10, n_features=5, C0=0.3
    )  # floor(1/0.3) = 3 features
    h = 1 + 5 * 20 + 10 * 20**2 + 10 * 20**3
    assert sparse.theorem == "Theorem 3"
    assert sparse.log_class_size == pytest.approx(math.log(h))
    assert generalization_bound(3, n=1000, Lambda=10, n_features=5).log_class_size == pytest.approx(
        math.log(h)
    )
    cop = generalization_bound(n=1000, Lambda=10, n_features=5, coprime=True)
    assert cop.theorem == "Theorem 4" and cop.log_class_size == pytest.approx(
        math.log(farey_count(5, 10))
    )
    assert cop.complexity < b.complexity
    # more data, smaller bound; smaller delta, larger
    assert generalization_bound(n=4000, Lambda=10, n_features=5).complexity == pytest.approx(
        expected / 2
    )
    assert generalization_bound(n=1000, Lambda=10, n_features=5, delta=0.01).complexity > expected
    with pytest.raises(ValueError, match="delta"):
        generalization_bound(n=10, Lambda=1, n_features=1, delta=1.5)
    with pytest.raises(ValueError, match="n "):
        generalization_bound(Lambda=1, n_features=1)
    with pytest.raises(ValueError, match="Lambda and n_features"):
        generalization_bound(n=10)


def test_generalization_bound_from_a_card(paper_data):
    X, y = paper_data("bankruptcy")
    card = sw.fit(X, y, max_size=3, coef_range=(-5, 5), intercept_range=(-10, 10), time_limit=5)
    b = generalization_bound(card)
    h = 21 * sum(math.comb(6, s) * 10**s for s in range(4))
    assert b.theorem == "Theorem 3" and b.n == 250
    assert b.log_class_size == pytest.approx(math.log(h))
    assert b.bound == pytest.approx(
        card.train_metrics.error + math.sqrt((math.log(h) - math.log(0.05)) / 500)
    )
