"""SLIM is an optimizer: on tiny problems its cards must match brute-force enumeration."""

from __future__ import annotations

import math

import numpy as np
import pytest

import slimwidgets as sw
from slimwidgets.data import prepare_data
from slimwidgets.fitting import fit_dataset

from brute import best_objective, enumerate_cards

BOX = dict(coef_range=(-3, 3), intercept_range=(-8, 8))
# every proof path gets the brute-force tests: the MIP and the exhaustive walk
SOLVERS = ["highs", "enumerate"]


def tiny_problem(seed: int, n_features: int | None = None):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 15))
    p = n_features or int(rng.integers(2, 4))
    top = int(rng.choice([1, 2]))  # binary or small integer features
    X = rng.integers(0, top + 1, size=(n, p))
    y = rng.choice([-1, 1], size=n)
    y[0], y[1] = 1, -1
    names = [f"f{j}" for j in range(p)]
    return X, y, names


def gcd_all(values):
    return math.gcd(*[abs(int(v)) for v in values]) if any(values) else 0


def assert_exact(card, X, y, names, spec, C0, weights=None):
    cards = enumerate_cards(X, y, names, spec, weights)
    best = best_objective(cards, C0)
    got = cards_value(card, X, y, names, C0, weights)
    assert got == pytest.approx(best, abs=1e-12), (card.points, card.intercept)
    # eps only breaks ties, towards the smallest L1 norm, hence coprime points
    ties = np.isclose(cards["loss"] + C0 * cards["size"], best, rtol=0, atol=1e-12)
    assert sum(abs(c) for c in card.coefficients) == cards["l1"][ties].min()
    assert gcd_all(list(card.coefficients) + [card.intercept]) == 1
    assert card.status == "optimal" and card.gap == 0
    assert card.solver == {"highs": "highs", "enumerate": "enumeration"}.get(spec.solver, card.solver)
    assert sw.check_card(card, prepare_data(X, y, feature_names=names, warn=False), spec) == []


def cards_value(card, X, y, names, C0, weights=None):
    w = np.ones(len(y)) if weights is None else np.asarray(weights, float)
    total = np.asarray(X, float) @ np.array(card.coefficients, float) + card.intercept
    loss = (w * (y * total <= 0)).sum() / w.sum()
    return loss + C0 * card.size


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("seed", range(20))
def test_plain_slim_matches_brute_force(seed, solver):
    X, y, names = tiny_problem(seed)
    C0 = [0.0, 0.01, 0.05, 0.2][seed % 4]
    spec = sw.make_spec(C0=C0, solver=solver, **BOX)
    card = sw.fit(X, y, feature_names=names, spec=spec)
    assert_exact(card, X, y, names, spec, C0)


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("seed", range(12))
def test_default_C0_loses_no_accuracy(seed, solver):
    X, y, names = tiny_problem(100 + seed)
    card = sw.fit(X, y, feature_names=names, solver=solver, **BOX)
    cards = enumerate_cards(X, y, names, sw.make_spec(**BOX))
    # Remark 2: the default C0 picks the most accurate card, then the sparsest of those
    assert cards_value(card, X, y, names, 0.0) == pytest.approx(cards["loss"].min(), abs=1e-12)
    best_loss = np.isclose(cards["loss"], cards["loss"].min(), atol=1e-12)
    assert card.size == cards["size"][best_loss].min()


def random_operational_spec(rng, names):
    opts = dict(BOX, C0=float(rng.choice([0.01, 0.05])))
    free = list(names)
    rng.shuffle(free)
    kind = rng.integers(0, 6, size=2)
    for k in kind:
        if not free:
            break
        f = free.pop()
        if k == 0:
            opts.setdefault("signs", {})[f] = str(rng.choice(["+", "-"]))
        elif k == 1:
            opts.setdefault("exclude", []).append(f)
        elif k == 2:
            opts.setdefault("require", []).append(f)
        elif k == 3:
            opts.setdefault("lock", {})[f] = int(rng.choice([-2, 1, 3]))
        elif k == 4:
            opts.setdefault("values", {})[f] = sorted({int(v) for v in rng.choice([-3, -1, 0, 2, 3], size=3)})
        else:
            opts["max_size"] = int(rng.integers(1, len(names)))
    if rng.random() < 0.4 and len(names) >= 2:
        a, b = rng.choice(names, size=2, replace=False)
        opts["constraints"] = [sw.needs(str(a), str(b)) if rng.random() < 0.5 else sw.at_most(1, [str(a), str(b)])]
    return opts


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("seed", range(30))
def test_operational_constraints_match_brute_force(seed, solver):
    rng = np.random.default_rng(1000 + seed)
    X, y, names = tiny_problem(1000 + seed)
    opts = random_operational_spec(rng, names)
    opts["solver"] = solver
    try:
        spec = sw.make_spec(**opts)
    except ValueError:
        pytest.skip("contradictory options are rejected up front (tested elsewhere)")
    cards = enumerate_cards(X, y, names, spec)
    if len(cards["loss"]) == 0:
        with pytest.raises(sw.InfeasibleError):
            sw.fit(X, y, feature_names=names, spec=spec)
        return
    card = sw.fit(X, y, feature_names=names, spec=spec)
    assert_exact(card, X, y, names, spec, spec.C0)


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("seed", range(16))
def test_fpr_cap_gives_the_most_sensitive_card(seed, solver):
    X, y, names = tiny_problem(2000 + seed, n_features=3)
    cap = [0.0, 0.2, 0.34, 0.5][seed % 4]
    size = [None, 1, 2][seed % 3]
    spec = sw.make_spec(max_fpr=cap, max_size=size, solver=solver, **BOX)
    card = sw.fit(X, y, feature_names=names, spec=spec)
    cards = enumerate_cards(X, y, names, spec)
    m = card.metrics(X, y)
    assert m.tpr == pytest.approx(cards["tpr"].max(), abs=1e-12)
    assert m.fpr <= cap + 1e-12
    if size is not None:
        assert card.size <= size


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("seed", range(8))
def test_tpr_floor_gives_the_most_specific_card(seed, solver):
    X, y, names = tiny_problem(3000 + seed, n_features=3)
    floor = [0.5, 0.8, 1.0, 0.3][seed % 4]
    spec = sw.make_spec(min_tpr=floor, solver=solver, **BOX)
    card = sw.fit(X, y, feature_names=names, spec=spec)
    cards = enumerate_cards(X, y, names, spec)
    total = np.asarray(X, float) @ np.array(card.coefficients, float) + card.intercept
    fpr_paper = np.mean(total[y == -1] >= 0)
    assert fpr_paper == pytest.approx(cards["fpr_paper"].min(), abs=1e-12)
    assert card.metrics(X, y).tpr >= floor - 1e-12


@pytest.mark.parametrize("seed", range(8))
def test_collapsing_duplicate_rows_keeps_the_optimum(seed):
    X, y, names = tiny_problem(4000 + seed)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(y), size=3 * len(y))  # heavy duplication
    Xd, yd = X[idx], y[idx]
    if len(set(yd)) < 2:
        pytest.skip("resample hit one class")
    spec = sw.make_spec(C0=0.02, **BOX)
    collapsed = prepare_data(Xd, yd, feature_names=names, warn=False)
    full = prepare_data(Xd, yd, feature_names=names, warn=False, collapse=False)
    assert collapsed.n_rows < full.n_rows
    a, b = fit_dataset(collapsed, spec), fit_dataset(full, spec)
    assert a.objective == pytest.approx(b.objective, abs=1e-12)
    assert_exact(a, Xd, yd, names, spec, 0.02)


@pytest.mark.parametrize("seed", range(6))
def test_integer_sample_weights_equal_repeated_rows(seed):
    X, y, names = tiny_problem(5000 + seed)
    w = np.random.default_rng(seed).integers(1, 4, size=len(y))
    spec = sw.make_spec(C0=0.02, **BOX)
    weighted = sw.fit(X, y, feature_names=names, sample_weight=w, spec=spec)
    repeated = sw.fit(np.repeat(X, w, axis=0), np.repeat(y, w), feature_names=names, spec=spec)
    assert weighted.objective == pytest.approx(repeated.objective, abs=1e-12)
    assert_exact(weighted, X, y, names, spec, 0.02, weights=w)


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("seed", range(8))
def test_preference_penalties_and_missing_counts_match_brute_force(seed, solver):
    """Per-feature C0_j (the paper's preferences), and C0_j = C0 + M/N for imputed features."""
    X, y, names = tiny_problem(6000 + seed, n_features=3)
    rng = np.random.default_rng(seed)
    penalties = {names[0]: float(rng.choice([0.0, 0.05, 0.3]))}
    missing = {names[1]: int(rng.integers(0, len(y)))}
    spec = sw.make_spec(C0=0.03, penalties=penalties, missing=missing, solver=solver, **BOX)
    card = sw.fit(X, y, feature_names=names, spec=spec)
    C0 = np.array([penalties[names[0]], 0.03 + missing[names[1]] / len(y), 0.03])
    cards = enumerate_cards(X, y, names, spec)
    values = cards["loss"] + (cards["points"] != 0) @ C0
    total = X @ np.array(card.coefficients, float) + card.intercept
    got = np.mean(y * total <= 0) + (np.array(card.coefficients) != 0) @ C0
    assert got == pytest.approx(values.min(), abs=1e-12)


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("seed", range(8))
def test_class_weights_match_brute_force(seed, solver):
    X, y, names = tiny_problem(6500 + seed, n_features=3)
    weights = [(1.0, 3.0), (2.0, 1.0), "balanced"][seed % 3]
    spec = sw.make_spec(C0=0.02, class_weights=weights, solver=solver, **BOX)
    card = sw.fit(X, y, feature_names=names, spec=spec)
    if weights == "balanced":  # the paper's W+ = N-/N, W- = N+/N
        weights = (np.mean(y == 1), np.mean(y == -1))
    w = np.where(y == 1, weights[1], weights[0])
    cards = enumerate_cards(X, y, names, spec, weights=w)
    # enumerate_cards normalises by the total weight; the engine by N (paper units)
    scale = w.sum() / len(y)
    best = (cards["loss"] * scale + 0.02 * cards["size"]).min()
    total = X @ np.array(card.coefficients, float) + card.intercept
    got = (w * (y * total <= 0)).sum() / len(y) + 0.02 * card.size
    assert got == pytest.approx(best, abs=1e-12)
