"""Under one cap the best TPR (or FPR) is proven first: checked against brute force."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.core.formulation import build_formulation
from slimwidgets.fitting import driver as fitting
from slimwidgets.solvers.lexicographic import (
    class_limits,
    conflict_sets,
    dominant_loss,
    knapsack_floor,
    prove_dominant,
)

from brute import enumerate_cards, row_errors

BOX = dict(coef_range=(-3, 3), intercept_range=(-8, 8))


def capped_problem(seed: int):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 16))
    X = rng.integers(0, int(rng.choice([1, 2])) + 1, size=(n, 3))
    y = rng.choice([-1, 1], size=n)
    y[0], y[1] = 1, -1
    weights = rng.integers(1, 4, size=n) if seed % 3 == 0 else None
    names = ["a", "b", "c"]
    if seed % 2:
        opts = dict(BOX, max_fpr=float(rng.choice([0.0, 0.2, 0.34, 0.5])))
    else:
        opts = dict(BOX, min_tpr=float(rng.choice([0.5, 0.8, 1.0])))
    if seed % 4 == 1:
        opts["max_size"] = 1
    if seed % 5 == 2:
        opts["signs"] = {"a": "+"}
    return X, y, names, weights, sw.make_spec(**opts)


def brute_best(X, y, names, weights, spec):
    """The best TPR under max_fpr, or the best FPR under min_tpr (None: no card)."""
    cards = enumerate_cards(X, y, names, spec, weights)
    if not len(cards["tpr"]):
        return None
    if spec.max_fpr is not None:
        return cards["tpr"].max()
    return cards["fpr_paper"].min()


def user_rate(card, X, y, weights, spec) -> float:
    w = np.ones(len(y)) if weights is None else np.asarray(weights, float)
    total = X @ np.array(card.coefficients, float) + card.intercept
    wrong = row_errors(total, y, spec.zero_score)
    if spec.max_fpr is not None:
        return float((w * ((y == 1) & ~wrong)).sum() / w[y == 1].sum())
    return float((w * ((y == -1) & wrong)).sum() / w[y == -1].sum())


def solved(seed: int):
    """(best rate, formulation, every feasible card) of
    ``capped_problem(seed)``; best None: no card."""
    X, y, names, weights, spec = capped_problem(seed)
    best = brute_best(X, y, names, weights, spec)
    data = prepare_data(X, y, feature_names=names, sample_weight=weights, warn=False)
    return best, build_formulation(data, spec), enumerate_cards(X, y, names, spec, weights)


@pytest.mark.seeds(30)
def test_the_dominant_proof_matches_brute_force(seed):
    """prove_dominant's floor is the least weight of dominant errors, and its card attains it."""
    best, form, cards = solved(seed)
    if best is None:
        return
    losses = [dominant_loss(form, p, b) for p, b in zip(cards["points"], cards["intercept"])]
    assert knapsack_floor(form) <= min(losses) + 1e-12  # any classifier's least errors: a floor
    start = (cards["points"][-1], int(cards["intercept"][-1]))  # any feasible card
    proof = prove_dominant(form, start)
    assert proof.proven
    assert proof.floor == pytest.approx(min(losses), abs=1e-9)
    assert dominant_loss(form, proof.coefficients, proof.intercept) == pytest.approx(
        min(losses), abs=1e-9
    )
    cancel = threading.Event()
    cancel.set()
    stopped = prove_dominant(form, start, cancel=cancel)
    assert stopped.floor <= min(losses) + 1e-9


@pytest.mark.slow
def test_conflict_sets_hold_for_every_card_in_the_box():
    """No card gets every row of a conflict set right (brute force over each tiny problem's
    box, caps and size limits left out since the sets hold for any card); the sets found
    include those of three and four rows (equal feature sums), not only equal rows."""
    sizes = []
    for seed in range(30):
        X, y, names, weights, spec = capped_problem(seed)
        data = prepare_data(X, y, feature_names=names, sample_weight=weights, warn=False)
        form = build_formulation(data, spec)
        sets = conflict_sets(form)
        sizes += [len(s) for s in sets]
        free = sw.make_spec(**BOX, zero_score=spec.zero_score)
        cards = enumerate_cards(data.X, data.y, names, free)
        for points, intercept in zip(cards["points"], cards["intercept"]):
            wrong = form.wrong_rows(points, int(intercept))
            assert all(wrong[s].any() for s in sets), (seed, points, intercept)
    assert 2 in sizes and max(sizes) >= 3


def test_a_conflict_of_four_rows():
    """XOR: the two positives' features add up to the two negatives', so one of the four is
    wrong whatever the card; with max_fpr = 0 the best TPR is then 50 %."""
    X = np.array([[1, 0], [0, 1], [1, 1], [0, 0]])
    data = prepare_data(X, [1, 1, -1, -1], warn=False)
    form = build_formulation(data, sw.make_spec(max_fpr=0.0, **BOX))
    assert [sorted(s.tolist()) for s in conflict_sets(form)] == [[0, 1, 2, 3]]
    proof = prove_dominant(form, (np.zeros(2), -1))
    assert (
        proof.proven
        and class_limits(form, proof.floor, proof.coefficients, proof.intercept)["tpr_max"] == 0.5
    )


@pytest.mark.seeds(30)
def test_the_limit_read_from_any_valid_bound_holds(seed):
    """class_limits turns a bound into a TPR (FPR) limit: from the optimum's objective it is the
    best rate itself, from any lower bound a limit no card passes."""
    best, form, cards = solved(seed)
    if best is None:
        return
    objective = np.array(
        [form.objective_of(p, b) for p, b in zip(cards["points"], cards["intercept"])]
    )
    k = int(np.argmin(objective))
    key = "tpr" if form.lexicographic == "tpr" else "fpr"
    exact = class_limits(form, float(objective[k]), cards["points"][k], int(cards["intercept"][k]))
    assert exact[f"{key}_max" if key == "tpr" else "fpr_min"] == pytest.approx(best, abs=1e-12)
    assert exact[f"{key}_proven"]
    for frac in (0.0, 0.3, 0.9, 0.999):
        weak = class_limits(
            form, frac * float(objective[k]), cards["points"][k], int(cards["intercept"][k])
        )
        if key == "tpr":
            assert weak["tpr_max"] >= best - 1e-12
        else:
            assert weak["fpr_min"] <= best + 1e-12


@pytest.mark.seeds(24)
def test_fit_proves_the_best_rate_first_and_says_so(seed, monkeypatch):
    """With the walk ruled out, fit proves the dominant part first: the card's details carry the
    proven limit, every reported bound holds, and an optimal card has the brute-force best rate."""
    X, y, names, weights, spec = capped_problem(seed)
    best = brute_best(X, y, names, weights, spec)
    if best is None:
        return
    monkeypatch.setattr(fitting, "ENUMERATION_WORK", -1.0)
    seen = []
    card = sw.fit(
        X, y, feature_names=names, sample_weight=weights, spec=spec, on_incumbent=seen.append
    )
    assert card.status == "optimal"
    assert user_rate(card, X, y, weights, spec) == pytest.approx(best, abs=1e-12)
    if spec.max_fpr is not None:
        assert card.details["tpr_proven"] and card.details["tpr_max"] == pytest.approx(
            best, abs=1e-12
        )
    else:
        assert card.details["fpr_proven"] and card.details["fpr_min"] == pytest.approx(
            best, abs=1e-12
        )
    assert all(inc.bound <= card.objective + 1e-12 for inc in seen)


def test_a_plain_objective_claims_no_rate():
    X, y, names, weights, _ = capped_problem(0)
    card = sw.fit(X, y, feature_names=names, C0=0.01, **BOX)
    assert not {"tpr_max", "tpr_proven", "fpr_min", "fpr_proven"} & set(card.details)
