"""Ties broken toward the larger margin: the polish returns a card with exactly the returned
card's objective (so the optimum, the status and the proof stand) and, among the cards it can
reach, the lowest logistic loss of the integer score; checked against brute force."""

from __future__ import annotations

import numpy as np
import pytest

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.core.formulation import build_formulation
from slimwidgets.fitting import driver as fitting
from slimwidgets.solvers.polish import logistic_loss, polish

from brute import enumerate_cards
from tiny_problems import BOX, RULES, random_operational_spec, spec_or_skip, tiny_problem


def tied_cards(form, X, y, names, spec):
    """Every card in the box with the optimal objective (brute force), and its logistic loss."""
    cards = enumerate_cards(X, y, names, spec)
    obj = np.array(
        [form.objective_of(p, int(b)) for p, b in zip(cards["points"], cards["intercept"])]
    )
    ties = np.flatnonzero(np.abs(obj - obj.min()) <= 1e-12)
    points, intercepts = cards["points"][ties], cards["intercept"][ties].astype(int)
    losses = np.array([logistic_loss(form, p, int(b)) for p, b in zip(points, intercepts)])
    return points, intercepts, losses, float(obj.min())


@pytest.mark.parametrize("zero_score", RULES)
@pytest.mark.seeds(16)
def test_the_polish_never_changes_the_objective_the_status_or_the_bound(
    seed, zero_score, monkeypatch
):
    rng = np.random.default_rng(11000 + seed)
    X, y, names = tiny_problem(11000 + seed)
    opts = (
        random_operational_spec(rng, names)
        if seed % 2
        else dict(BOX, C0=float(rng.choice([0.0, 0.01])))
    )
    spec = spec_or_skip(zero_score=zero_score, **opts)
    if len(enumerate_cards(X, y, names, spec)["loss"]) == 0:
        pytest.skip("no card meets these constraints")
    data = prepare_data(X, y, feature_names=names, warn=False)
    monkeypatch.setattr(fitting, "POLISH_TIES", False)
    plain = fitting.fit_dataset(data, spec)
    monkeypatch.setattr(fitting, "POLISH_TIES", True)
    polished = fitting.fit_dataset(data, spec)
    assert (polished.status, polished.objective, polished.bound, polished.gap) == (
        plain.status,
        plain.objective,
        plain.bound,
        plain.gap,
    )
    form = build_formulation(data, spec)
    assert form.objective_of(np.array(polished.coefficients), polished.intercept) == pytest.approx(
        plain.objective, abs=1e-12
    )
    assert sw.check_card(polished, data, spec) == []
    before = logistic_loss(form, np.array(plain.coefficients), plain.intercept)
    after = logistic_loss(form, np.array(polished.coefficients), polished.intercept)
    assert after <= before + 1e-12
    # it is one of the brute-force optimal cards
    points, intercepts, losses, best = tied_cards(form, X, y, names, spec)
    assert plain.objective == pytest.approx(best, abs=1e-12)
    assert any(
        np.array_equal(p, polished.coefficients) and b == polished.intercept
        for p, b in zip(points, intercepts)
    )
    assert after >= losses.min() - 1e-12


def test_the_polish_picks_the_lower_loss_tie():
    """Two cards share the optimum here: (-1, 1, 1) with threshold 0 and (1, 1, 1) with threshold 4
    (same errors, features and L1). The second separates the classes more widely; from either
    start the polish returns it."""
    X = np.array(
        [
            [1, 2, 1],
            [1, 1, 1],
            [2, 0, 1],
            [1, 2, 2],
            [0, 2, 2],
            [1, 0, 1],
            [0, 2, 2],
            [2, 0, 2],
            [2, 1, 2],
            [2, 2, 0],
        ]
    )
    y = np.array([1, -1, -1, 1, 1, 1, -1, 1, 1, 1])
    names = ["f0", "f1", "f2"]
    spec = sw.make_spec(C0=0.01, **BOX)
    form = build_formulation(prepare_data(X, y, feature_names=names, warn=False), spec)
    points, intercepts, losses, best = tied_cards(form, X, y, names, spec)
    assert len(losses) == 2 and losses.max() - losses.min() > 1.0
    winner = int(np.argmin(losses))
    assert points[winner].tolist() == [1, 1, 1] and intercepts[winner] == -4
    for p, b in zip(points, intercepts):
        lam, b2 = polish(form, p, int(b))
        assert lam.tolist() == [1, 1, 1] and b2 == -4
        assert form.objective_of(lam, b2) == pytest.approx(best, abs=1e-12)
    card = sw.fit(X, y, feature_names=names, spec=spec)
    assert (
        card.points == {"f0": 1, "f1": 1, "f2": 1}
        and card.threshold == 4
        and card.status == "optimal"
    )


def test_an_intercept_range_of_ties_gives_the_middle():
    """Points 3 on a rule that alone separates the classes: every threshold from 1 to 3 makes no
    error; the logistic loss picks the one that leaves both classes the same margin."""
    X = np.array([[1], [1], [1], [0], [0], [0]])
    form = build_formulation(prepare_data(X, [1, 1, 1, 0, 0, 0]), sw.make_spec(coef_range=(3, 3)))
    for start in (-1, -2, -3):
        lam, b = polish(form, np.array([3]), start)
        assert (
            lam.tolist() == [3] and b == -2
        )  # threshold 2: totals 1 and -2 around the boundary -1/2


def test_the_relaxed_polish_trades_the_smallest_points_for_margin_and_says_so():
    """keep_l1=False (measurements only) keeps the training loss and penalties, not eps * L1."""
    X = np.array([[1], [1], [1], [0], [0], [0]])
    form = build_formulation(prepare_data(X, [1, 1, 1, 0, 0, 0]), sw.make_spec(coef_range=(0, 3)))
    lam, b = polish(form, np.array([1]), -1)
    assert lam.tolist() == [1] and b == -1  # the one optimal card: nothing to polish
    lam, b = polish(form, np.array([1]), -1, keep_l1=False)
    assert lam.tolist() == [3] and b == -2
    gained = form.objective_of(lam, b) - form.objective_of(np.array([1]), -1)
    assert gained == pytest.approx(2 * form.epsilon)  # no error more, only the tie-breaker's price
