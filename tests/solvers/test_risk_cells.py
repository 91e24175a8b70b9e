"""Risk cards' floors over cells (solvers/risk_cells.py) and the proof by supports that starts
from them (solvers/risk_branch_and_bound.py) against definitions and brute force: each floor is
the entropy sum of its support's cells, never above any card on that support at any multiplier,
and the proof over cells finds and proves the brute-force optimum."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
import slimwidgets.fitting.risk_driver as risk_driver
import slimwidgets.solvers.risk_branch_and_bound as risk_branch_and_bound
from slimwidgets.core.data import prepare_data
from slimwidgets.datasets import RULES_ATTR
from slimwidgets.solvers.logistic import RiskProblem
from slimwidgets.solvers.risk_branch_and_bound import cells_decline, prove_by_supports, tree_covers
from slimwidgets.solvers.risk_cells import ROUNDING, cell_floors, supports_at

from brute_risk import best_risk_objective
from tiny_problems import empty_risk_card

BOX = dict(loss="logistic", coef_range=(-2, 2), intercept_range=(-3, 3))
# options the proof by supports handles, over cells as elsewhere
OPTIONS = [
    {},
    {"max_size": 2},
    {"max_size": 1, "C0": 0.01},
    {"require": ["f1"], "penalties": {"f0": 0.02}, "max_size": 2},
    {"signs": {"f0": "+"}, "exclude": ["f2"], "max_size": 2},
    {"coef_ranges": {"f1": (0, 1)}, "class_weights": "balanced", "max_size": 3},
]


def _rules_table(seed: int, n: int = 24, d: int = 4) -> tuple[pd.DataFrame, np.ndarray, list[str]]:
    """A tiny table of 0/1 rules whose labels follow a noisy additive risk."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, d)).astype(float)
    logit = X @ rng.normal(0, 1.5, size=d) + rng.normal(0, 0.5)
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    y[:2] = [0, 1]
    names = [f"f{j}" for j in range(d)]
    frame = pd.DataFrame(X, columns=names)
    frame.attrs[RULES_ATTR] = False  # the engine's own features, as brute force reads them
    return frame, y, names


def _entropy_floor(bits: np.ndarray, positive: np.ndarray, negative: np.ndarray) -> float:
    """The least loss of a free logit per cell, from its definition: per distinct row of bits,
    the positives' and negatives' weight at the cell's own log-odds."""
    total = 0.0
    for pattern in {tuple(row) for row in bits}:
        inside = (bits == pattern).all(axis=1)
        p, q = positive[inside].sum(), negative[inside].sum()
        if p > 0 and q > 0:
            s = np.log(p / q)
            total += p * np.logaddexp(0.0, -s) + q * np.logaddexp(0.0, s)
    return total


@pytest.mark.seeds(8)
def test_each_floor_is_the_entropy_of_its_supports_cells_in_combination_order(seed):
    rng = np.random.default_rng(seed)
    n, d = 30, 6
    bits = rng.integers(0, 2, size=(n, d)).astype(np.uint8)
    bits[:, 5] = bits[:, 4] & bits[:, 3]  # a nested rule: fewer cells than 2^k
    w = rng.random(n) * rng.integers(0, 3, size=n)  # some rows of weight 0
    label = rng.random(n) < 0.5
    positive, negative = np.where(label, w, 0.0), np.where(label, 0.0, w)
    required = np.array([seed % d] if seed % 2 else [], dtype=np.int64)
    optional = np.array([j for j in range(d) if j not in required], dtype=np.int64)
    size = 3 + seed % 2
    floors = cell_floors(bits, positive, negative, required, optional, size)
    combos = list(itertools.combinations(optional.tolist(), size - required.size))
    assert floors.size == len(combos)
    supports = supports_at(optional, required, size, np.arange(floors.size))
    for s, combo in enumerate(combos):
        support = required.tolist() + list(combo)
        assert supports[s].tolist() == support
        exact = _entropy_floor(bits[:, support], positive, negative)
        assert floors[s] <= exact - 0.5 * ROUNDING * (1 + exact)  # lowered: rounding is covered
        assert floors[s] == pytest.approx(exact, rel=1e-11)


@pytest.mark.seeds(6)
def test_a_cell_floor_never_passes_any_card_on_its_support_at_any_multiplier(seed):
    """Every card of the box on each support of two rules, every intercept, on a grid of
    inverse multipliers and at scale 1: its loss is at least the support's floor."""
    X, y, names = _rules_table(seed + 40, d=4)
    data = prepare_data(X, y, warn=False)
    prob = RiskProblem.from_spec(data, sw.make_spec(**BOX, max_size=2))
    L = prob.loss
    positive = np.where(L.y > 0, L.w, 0.0)
    optional = np.arange(4, dtype=np.int64)
    floors = cell_floors(L.X.astype(np.uint8), positive, L.w - positive, optional[:0], optional, 2)
    ts = np.concatenate([[1e-4, 1.0, 2.0], np.random.default_rng(seed).uniform(0.01, 2.0, 8)])
    for floor, support in zip(floors, itertools.combinations(range(4), 2)):
        points = np.array(list(itertools.product(range(-2, 3), repeat=2)), dtype=float)
        totals = points @ L.X[:, support].T  # cards by rows
        least = np.inf
        for b in range(-3, 4):
            margins = L.y * (totals + b)
            for t in ts:
                least = min(least, float((np.logaddexp(0.0, -t * margins) @ L.w).min()))
        assert floor <= least


def _tiny_problem(seed: int, options: dict, **extra):
    X, y, names = _rules_table(seed)
    spec = sw.make_spec(**BOX, **options, **extra)
    return X, y, names, spec, RiskProblem.from_spec(prepare_data(X, y, warn=False), spec)


def _assert_proven_over_cells(prob, spec, best):
    assert cells_decline(prob) is None
    result = prove_by_supports(prob, empty_risk_card(prob))
    assert result.branched is not None and result.branched <= result.supports
    assert result.note.startswith("over cells:")
    assert result.complete
    assert result.card.objective == pytest.approx(best, abs=1e-9)
    assert result.floor <= best + 1e-9
    coefs, b = result.card.coefficients, result.card.intercept
    assert prob.card_ok(coefs, b)
    loss = prob.loss.evaluate(coefs, b, multiplier=float(result.card.multiplier))
    assert result.card.objective == pytest.approx(prob.objective(coefs, loss), abs=1e-12)


@pytest.mark.filterwarnings("ignore::slimwidgets.DataWarning")
@pytest.mark.seeds(len(OPTIONS))
def test_the_proof_over_cells_finds_and_proves_the_optimum_without_scale(seed):
    X, y, names, spec, prob = _tiny_problem(seed + 100, OPTIONS[seed], scale=False)
    _assert_proven_over_cells(prob, spec, best_risk_objective(X, y, names, spec))


@pytest.mark.filterwarnings("ignore::slimwidgets.DataWarning")
@pytest.mark.seeds(len(OPTIONS))
@pytest.mark.slow
def test_the_proof_over_cells_finds_and_proves_the_optimum_with_a_multiplier(seed):
    X, y, names = _rules_table(seed + 200, d=3)
    options = {k: v for k, v in OPTIONS[seed].items() if k not in ("exclude", "coef_ranges")}
    spec = sw.make_spec(**BOX, **options)
    prob = RiskProblem.from_spec(prepare_data(X, y, warn=False), spec)
    _assert_proven_over_cells(prob, spec, best_risk_objective(X, y, names, spec))


@pytest.mark.filterwarnings("ignore::slimwidgets.DataWarning")
@pytest.mark.slow
def test_cells_take_more_supports_than_the_tree_fits_and_the_card_says_how(monkeypatch):
    """With MAX_SUPPORTS at 0 only the cells let the tree run: the card is proven and its
    details say its supports were floored over cells."""
    monkeypatch.setattr(risk_driver, "RISK_WALK_WORK", 0)
    monkeypatch.setattr(risk_branch_and_bound, "MAX_SUPPORTS", 0)
    X, y, names, spec, prob = _tiny_problem(300, {"max_size": 2}, scale=False, time_limit=3600)
    assert tree_covers(prob)
    card = sw.fit(X, y, spec=spec)
    assert card.status == "optimal" and card.solver == "logistic search + branch and bound"
    assert card.objective == pytest.approx(best_risk_objective(X, y, names, spec), abs=1e-9)
    assert card.details["support_proof"].startswith("over cells: 6 supports of 2 rules")


@pytest.mark.filterwarnings("ignore::slimwidgets.DataWarning")
@pytest.mark.slow
def test_where_the_cells_do_not_apply_the_card_says_why(monkeypatch):
    monkeypatch.setattr(risk_driver, "RISK_WALK_WORK", 0)
    X, y, names = _rules_table(301)
    X["f3"] = np.arange(len(y)) % 4.0  # a count: its rows do not fall into cells of bits
    spec = sw.make_spec(**BOX, max_size=2, scale=False, time_limit=3600)
    card = sw.fit(X, y, spec=spec)
    assert card.status == "optimal"
    assert card.details["support_proof"] == (
        "not over cells: a usable feature is not 0/1, so rows do not fall into cells of bits"
    )
    # and with neither the cells nor few enough supports, the tree does not run, in words
    monkeypatch.setattr(risk_branch_and_bound, "MAX_SUPPORTS", 0)
    card = sw.fit(X, y, spec=spec)
    assert card.details["support_proof"].startswith(
        "not by supports: 6 supports, more than 0, and not over cells: a usable feature"
    )
