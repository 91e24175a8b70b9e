"""SLIM is an optimizer: on tiny problems its cards must match brute-force enumeration."""

from __future__ import annotations

import math

import numpy as np
import pytest

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.fitting import fit_dataset

from brute import best_objective, enumerate_cards, row_errors
from tiny_problems import (
    BOX,
    RULES,
    force_proof_by_size,
    gcd_all,
    ill_scaled_problem,
    random_operational_spec,
    spec_or_skip,
    tiny_problem,
)

# every proof path gets the brute-force tests: the MIP, the exhaustive walk, the proof by
# model size (walk the small cards, one cut-off MIP per larger size), which "auto" picks on
# larger problems and is forced here (see ``by_size``), and the support scan
SOLVERS = ["highs", "enumerate", "by_size", "scan"]
EXPECTED_SOLVER = {"highs": "highs", "enumerate": "enumeration", "scan": "scan"}
FORCED = {"by_size": False}  # set while a "by_size" test runs


def spec_solver(solver: str) -> str:
    return "auto" if solver == "by_size" else solver


@pytest.fixture(autouse=True)
def by_size(request, monkeypatch):
    """For solver "by_size": make "auto" take the proof by model size on these tiny problems,
    walking cards of up to 0 or 1 features (by seed) and giving every larger size a MIP."""
    params = getattr(request.node, "callspec", None)
    if params is None or params.params.get("solver") != "by_size":
        return
    force_proof_by_size(monkeypatch, params.params.get("seed", 0) % 2)
    monkeypatch.setitem(FORCED, "by_size", True)


def assert_exact(card, X, y, names, spec, C0, weights=None):
    cards = enumerate_cards(X, y, names, spec, weights)
    best = best_objective(cards, C0)
    got = cards_value(card, X, y, names, C0, weights, spec.zero_score)
    assert got == pytest.approx(best, abs=1e-12), (card.points, card.intercept)
    # eps only breaks ties, towards the smallest L1 norm, hence coprime points
    ties = np.isclose(cards["loss"] + C0 * cards["size"], best, rtol=0, atol=1e-12)
    assert sum(abs(c) for c in card.coefficients) == cards["l1"][ties].min()
    assert gcd_all(list(card.coefficients) + [card.intercept]) == 1
    assert card.status == "optimal" and card.gap == 0
    expected = (
        "enumeration+highs" if FORCED["by_size"] else EXPECTED_SOLVER.get(spec.solver, card.solver)
    )
    assert card.solver == expected
    assert card.zero_score == spec.zero_score
    assert sw.check_card(card, prepare_data(X, y, feature_names=names, warn=False), spec) == []
    # the card's own predictions are the rule it was trained with: its errors are the oracle's
    predicted = np.asarray(card.predict(X)) == card.positive
    total = np.asarray(X, float) @ np.array(card.coefficients, float) + card.intercept
    wrong = row_errors(total, y, spec.zero_score)
    if spec.zero_score == "positive":
        assert np.array_equal(wrong, predicted != (y == 1))
    else:
        assert np.array_equal(wrong, (predicted != (y == 1)) | (total == 0))


def cards_value(card, X, y, names, C0, weights=None, zero_score="positive"):
    w = np.ones(len(y)) if weights is None else np.asarray(weights, float)
    total = np.asarray(X, float) @ np.array(card.coefficients, float) + card.intercept
    loss = (w * row_errors(total, y, zero_score)).sum() / w.sum()
    return loss + C0 * card.size


@pytest.mark.parametrize("zero_score", RULES)
@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.seeds(20)
def test_plain_slim_matches_brute_force(seed, solver, zero_score):
    X, y, names = tiny_problem(seed)
    C0 = [0.0, 0.01, 0.05, 0.2][seed % 4]
    spec = sw.make_spec(C0=C0, solver=spec_solver(solver), zero_score=zero_score, **BOX)
    card = sw.fit(X, y, feature_names=names, spec=spec)
    assert_exact(card, X, y, names, spec, C0)


@pytest.mark.parametrize("zero_score", RULES)
@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.seeds(12)
def test_default_C0_loses_no_accuracy(seed, solver, zero_score):
    X, y, names = tiny_problem(100 + seed)
    card = sw.fit(
        X, y, feature_names=names, solver=spec_solver(solver), zero_score=zero_score, **BOX
    )
    cards = enumerate_cards(X, y, names, sw.make_spec(zero_score=zero_score, **BOX))
    # Remark 2: the default C0 picks the most accurate card, then the sparsest of those
    assert cards_value(card, X, y, names, 0.0, zero_score=zero_score) == pytest.approx(
        cards["loss"].min(), abs=1e-12
    )
    best_loss = np.isclose(cards["loss"], cards["loss"].min(), atol=1e-12)
    assert card.size == cards["size"][best_loss].min()


@pytest.mark.parametrize("zero_score", RULES)
@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.seeds(30)
def test_operational_constraints_match_brute_force(seed, solver, zero_score):
    rng = np.random.default_rng(1000 + seed)
    X, y, names = tiny_problem(1000 + seed)
    opts = random_operational_spec(rng, names)
    opts["solver"] = spec_solver(solver)
    opts["zero_score"] = zero_score
    spec = spec_or_skip(**opts)
    cards = enumerate_cards(X, y, names, spec)
    if len(cards["loss"]) == 0:
        with pytest.raises(sw.InfeasibleError):
            sw.fit(X, y, feature_names=names, spec=spec)
        return
    card = sw.fit(X, y, feature_names=names, spec=spec)
    assert_exact(card, X, y, names, spec, spec.C0)


@pytest.mark.parametrize("zero_score", RULES)
@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.seeds(16)
def test_fpr_cap_gives_the_most_sensitive_card(seed, solver, zero_score):
    X, y, names = tiny_problem(2000 + seed, n_features=3)
    cap = [0.0, 0.2, 0.34, 0.5][seed % 4]
    size = [None, 1, 2][seed % 3]
    spec = sw.make_spec(
        max_fpr=cap, max_size=size, solver=spec_solver(solver), zero_score=zero_score, **BOX
    )
    card = sw.fit(X, y, feature_names=names, spec=spec)
    cards = enumerate_cards(X, y, names, spec)
    m = card.metrics(X, y)
    assert m.tpr == pytest.approx(cards["tpr"].max(), abs=1e-12)
    assert m.fpr <= cap + 1e-12
    if size is not None:
        assert card.size <= size


@pytest.mark.parametrize("zero_score", RULES)
@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.seeds(8)
def test_tpr_floor_gives_the_most_specific_card(seed, solver, zero_score):
    X, y, names = tiny_problem(3000 + seed, n_features=3)
    floor = [0.5, 0.8, 1.0, 0.3][seed % 4]
    spec = sw.make_spec(min_tpr=floor, solver=spec_solver(solver), zero_score=zero_score, **BOX)
    card = sw.fit(X, y, feature_names=names, spec=spec)
    cards = enumerate_cards(X, y, names, spec)
    total = np.asarray(X, float) @ np.array(card.coefficients, float) + card.intercept
    fpr_paper = np.mean(row_errors(total, y, zero_score)[y == -1])
    assert fpr_paper == pytest.approx(cards["fpr_paper"].min(), abs=1e-12)
    assert card.metrics(X, y).tpr >= floor - 1e-12


@pytest.mark.parametrize("zero_score", RULES)
@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.seeds(12)
def test_default_C0_under_a_size_cap_loses_no_accuracy(seed, solver, zero_score):
    """With max_size the default C0 counts only the features a card can use (a larger C0,
    still below one error for all of them): the most accurate card of that
    size, then the sparsest."""
    X, y, names = tiny_problem(150 + seed, n_features=3)
    spec = sw.make_spec(
        max_size=1 + seed % 2, solver=spec_solver(solver), zero_score=zero_score, **BOX
    )
    card = sw.fit(X, y, feature_names=names, spec=spec)
    cards = enumerate_cards(X, y, names, spec)
    assert cards_value(card, X, y, names, 0.0, zero_score=zero_score) == pytest.approx(
        cards["loss"].min(), abs=1e-12
    )
    best_loss = np.isclose(cards["loss"], cards["loss"].min(), atol=1e-12)
    assert card.size == cards["size"][best_loss].min() and card.size <= spec.max_size


@pytest.mark.parametrize("solver", SOLVERS)
def test_eps_never_trades_an_error_for_a_feature(solver):
    """Remark 1's eps < min(1/N, C0) / max L1 is not enough: here one error less for one
    feature more gains 1/12 - 0.05 = 0.033, less than that eps times the card's L1 (0.045),
    and the paper's eps made the empty card win. eps now stays below the gcd (1/60)."""
    X = np.array([[2], [2], [1], [2], [1], [2], [2], [2], [2], [1], [1], [1]])
    y = np.array([1, -1, -1, 1, 1, -1, 1, 1, 1, 1, -1, -1])
    spec = sw.make_spec(
        C0=0.05, values={"f0": [0, 2]}, solver=spec_solver(solver), zero_score="error", **BOX
    )
    card = sw.fit(X, y, feature_names=["f0"], spec=spec)
    assert card.points == {"f0": 2}
    assert_exact(card, X, y, ["f0"], spec, 0.05)


@pytest.mark.parametrize("zero_score", RULES)
@pytest.mark.seeds(8)
def test_collapsing_duplicate_rows_keeps_the_optimum(seed, zero_score):
    X, y, names = tiny_problem(4000 + seed)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(y), size=3 * len(y))  # heavy duplication
    Xd, yd = X[idx], y[idx]
    if len(set(yd)) < 2:
        pytest.skip("resample hit one class")
    spec = sw.make_spec(C0=0.02, zero_score=zero_score, **BOX)
    collapsed = prepare_data(Xd, yd, feature_names=names, warn=False)
    full = prepare_data(Xd, yd, feature_names=names, warn=False, collapse=False)
    assert collapsed.n_rows < full.n_rows
    a, b = fit_dataset(collapsed, spec), fit_dataset(full, spec)
    assert a.objective == pytest.approx(b.objective, abs=1e-12)
    assert_exact(a, Xd, yd, names, spec, 0.02)


@pytest.mark.parametrize("zero_score", RULES)
@pytest.mark.seeds(6)
def test_integer_sample_weights_equal_repeated_rows(seed, zero_score):
    X, y, names = tiny_problem(5000 + seed)
    w = np.random.default_rng(seed).integers(1, 4, size=len(y))
    spec = sw.make_spec(C0=0.02, zero_score=zero_score, **BOX)
    weighted = sw.fit(X, y, feature_names=names, sample_weight=w, spec=spec)
    repeated = sw.fit(np.repeat(X, w, axis=0), np.repeat(y, w), feature_names=names, spec=spec)
    assert weighted.objective == pytest.approx(repeated.objective, abs=1e-12)
    assert_exact(weighted, X, y, names, spec, 0.02, weights=w)


@pytest.mark.parametrize("zero_score", RULES)
@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.seeds(8)
def test_preference_penalties_and_missing_counts_match_brute_force(seed, solver, zero_score):
    """Per-feature C0_j (the paper's preferences), and C0_j = C0 + M/N for imputed features."""
    X, y, names = tiny_problem(6000 + seed, n_features=3)
    rng = np.random.default_rng(seed)
    penalties = {names[0]: float(rng.choice([0.0, 0.05, 0.3]))}
    missing = {names[1]: int(rng.integers(0, len(y)))}
    spec = sw.make_spec(
        C0=0.03,
        penalties=penalties,
        missing=missing,
        solver=spec_solver(solver),
        zero_score=zero_score,
        **BOX,
    )
    card = sw.fit(X, y, feature_names=names, spec=spec)
    C0 = np.array([penalties[names[0]], 0.03 + missing[names[1]] / len(y), 0.03])
    cards = enumerate_cards(X, y, names, spec)
    values = cards["loss"] + (cards["points"] != 0) @ C0
    total = X @ np.array(card.coefficients, float) + card.intercept
    got = np.mean(row_errors(total, y, zero_score)) + (np.array(card.coefficients) != 0) @ C0
    assert got == pytest.approx(values.min(), abs=1e-12)


@pytest.mark.parametrize("zero_score", RULES)
@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.seeds(8)
def test_class_weights_match_brute_force(seed, solver, zero_score):
    X, y, names = tiny_problem(6500 + seed, n_features=3)
    weights = [(1.0, 3.0), (2.0, 1.0), "balanced"][seed % 3]
    spec = sw.make_spec(
        C0=0.02, class_weights=weights, solver=spec_solver(solver), zero_score=zero_score, **BOX
    )
    card = sw.fit(X, y, feature_names=names, spec=spec)
    if weights == "balanced":  # the paper's W+ = N-/N, W- = N+/N
        weights = (np.mean(y == 1), np.mean(y == -1))
    w = np.where(y == 1, weights[1], weights[0])
    cards = enumerate_cards(X, y, names, spec, weights=w)
    # enumerate_cards normalises by the total weight; the engine by N (paper units)
    scale = w.sum() / len(y)
    best = (cards["loss"] * scale + 0.02 * cards["size"]).min()
    total = X @ np.array(card.coefficients, float) + card.intercept
    got = (w * row_errors(total, y, zero_score)).sum() / len(y) + 0.02 * card.size
    assert got == pytest.approx(best, abs=1e-12)


def _empty_card(form):
    """The card with no points and its best intercept: a poor but feasible start."""
    b, loss = form.intercept_losses(np.zeros(len(form.allowed)))
    start = (np.zeros(len(form.allowed)), int(b[np.argmin(loss)]))
    return start, form.objective_of(*start)


@pytest.mark.parametrize("zero_score", RULES)
@pytest.mark.seeds(24)
def test_proof_by_size_finds_the_optimum_from_a_poor_start(seed, zero_score):
    """Every size above the walked ones must be searched by its own MIP: starting from the empty
    card, the optimum (which uses features) can only come from the walk or those MIPs."""
    from slimwidgets.core.formulation import build_formulation
    from slimwidgets.fitting import card_from_result
    from slimwidgets.solvers.decomposition import solve_by_size
    from slimwidgets.solvers.exhaustive import support_size_limit
    from slimwidgets.solvers.search import SearchProblem, local_search

    rng = np.random.default_rng(7000 + seed)
    X, y, names = tiny_problem(7000 + seed, n_features=3)
    opts = (
        random_operational_spec(rng, names)
        if seed % 3 == 0
        else dict(BOX, C0=float(rng.choice([0.0, 0.01, 0.05])))
    )
    spec = spec_or_skip(zero_score=zero_score, **opts)
    data = prepare_data(X, y, feature_names=names, warn=False)
    form = build_formulation(data, spec)
    cards = enumerate_cards(X, y, names, spec)
    if len(cards["loss"]) == 0:
        pytest.skip("no card meets these constraints")
    if seed % 3:  # no locks or required features: the empty card is feasible
        start, upper = _empty_card(form)
    else:  # a quick feasible card
        found = local_search(form, time_budget=0.01)
        start, upper = (found.coefficients, found.intercept), found.objective
    K = support_size_limit(SearchProblem(form), upper, None)
    walked = min(seed % 3, K)  # walk up to 0, 1 or 2 features, MIPs for the rest
    result = solve_by_size(form, upper, start, (walked, K))
    assert result.status == "optimal" and result.gap == 0
    assert result.solver == "enumeration+highs"
    total = X @ result.coefficients + result.intercept
    got = np.mean(row_errors(total, y, zero_score)) + spec.C0 * np.count_nonzero(
        result.coefficients
    )
    assert got == pytest.approx(best_objective(cards, spec.C0), abs=1e-12)
    assert form.objective_of(result.coefficients, result.intercept) == pytest.approx(
        result.objective, abs=1e-12
    )
    card = card_from_result(data, spec, form, result)
    assert sw.check_card(card, data, spec) == []


@pytest.mark.parametrize("zero_score", RULES)
@pytest.mark.seeds(8)
def test_what_a_proof_by_size_reports_while_its_walk_runs_is_a_valid_bound(seed, zero_score):
    """The walk of the small sizes runs beside the first size's MIP: every bound told on the way
    (incumbents and bound rises) is at most the brute-force optimum, and the walk's card joins."""
    from slimwidgets.core.formulation import build_formulation
    from slimwidgets.solvers.decomposition import solve_by_size
    from slimwidgets.solvers.exhaustive import support_size_limit
    from slimwidgets.solvers.search import SearchProblem

    X, y, names = tiny_problem(7700 + seed, n_features=3)
    spec = sw.make_spec(C0=0.01, zero_score=zero_score, **BOX)
    form = build_formulation(prepare_data(X, y, feature_names=names, warn=False), spec)
    start, upper = _empty_card(form)
    K = support_size_limit(SearchProblem(form), upper, None)
    told = []
    result = solve_by_size(
        form,
        upper,
        start,
        (min(1 + seed % 2, K), K),
        on_bound=told.append,
        on_incumbent=lambda inc: told.append(inc.bound),
    )
    best = best_objective(enumerate_cards(X, y, names, spec), 0.01)
    assert result.status == "optimal"
    total = X @ result.coefficients + result.intercept
    assert np.mean(row_errors(total, y, zero_score)) + 0.01 * np.count_nonzero(
        result.coefficients
    ) == pytest.approx(best, abs=1e-12)
    # the objective adds a tie-break below one loss step (epsilon per
    # point): bounds are in its units
    assert all(b <= result.objective + 1e-12 for b in told)


def test_the_first_size_program_beside_the_walk_claims_nothing_of_the_small_sizes(monkeypatch):
    """While the walk runs, the first size's MIP hears no bound rise to pass on and caps what it
    reports at the cheapest card of any size; the sizes after it, the walk being in, are capped
    at the cheapest card of the next size."""
    from slimwidgets.core.formulation import build_formulation
    from slimwidgets.solvers import decomposition
    from slimwidgets.solvers.base import SolveResult
    from slimwidgets.solvers.search import SearchProblem

    X, y, names = tiny_problem(7800, n_features=3)
    form = build_formulation(
        prepare_data(X, y, feature_names=names, warn=False), sw.make_spec(C0=0.001, **BOX)
    )
    calls = []

    def settled(sub, floor_after, left, threads, cancel, on_incumbent, on_bound, t0):
        calls.append((floor_after, on_bound))
        return SolveResult("infeasible", None, None, None, math.inf, math.inf, 0.0, "highs")

    monkeypatch.setattr(decomposition, "_solve_size", settled)
    start, upper = _empty_card(form)
    result = decomposition.solve_by_size(form, upper, start, (1, 3), on_bound=lambda b: None)
    assert result.status == "optimal" and len(calls) == 2
    prob = SearchProblem(form)
    assert calls[0] == (decomposition._size_floor(prob, 0), None)
    assert calls[1][0] == decomposition._size_floor(prob, 4) and calls[1][1] is not None


class _CancelAfter:
    """An Event-like that reads as set from its ``calls``-th check on (a deterministic stop)."""

    def __init__(self, calls: int):
        self.left = calls

    def is_set(self) -> bool:
        self.left -= 1
        return self.left < 0

    def set(self) -> None:
        self.left = -1


@pytest.mark.parametrize("zero_score", RULES)
@pytest.mark.seeds(12)
def test_a_stopped_proof_by_size_reports_a_valid_bound(seed, zero_score):
    """Stopped at any point (in the walk, between sizes, or out of time), the bound still holds
    for every card and the card is the start or better."""
    from slimwidgets.core.formulation import build_formulation
    from slimwidgets.solvers.decomposition import solve_by_size
    from slimwidgets.solvers.exhaustive import support_size_limit
    from slimwidgets.solvers.search import SearchProblem

    X, y, names = tiny_problem(7500 + seed, n_features=3)
    spec = sw.make_spec(C0=0.02, zero_score=zero_score, **BOX)
    form = build_formulation(prepare_data(X, y, feature_names=names, warn=False), spec)
    start, upper = _empty_card(form)
    K = support_size_limit(SearchProblem(form), upper, None)
    if seed % 4 == 3:
        result = solve_by_size(form, upper, start, (0, K), time_left=0.0)
    else:
        # the walk of cards with up to one feature checks once per support (4 here): stop inside
        # it, just after it, or one check later
        result = solve_by_size(
            form, upper, start, (min(1, K), K), cancel=_CancelAfter([0, 4, 5][seed % 4])
        )
    best = best_objective(enumerate_cards(X, y, names, spec), 0.02)
    assert result.bound <= best + 1e-12
    assert best - 1e-12 <= result.objective <= upper + 1e-12
    if result.status == "optimal":
        assert result.objective == pytest.approx(best, abs=1e-12)
    else:
        assert result.status == ("time_limit" if seed % 4 == 3 else "interrupted")
        assert result.bound > -math.inf or seed % 4 in (
            0,
            3,
        )  # stopped inside the walk: nothing proven


@pytest.mark.parametrize("zero_score", RULES)
@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.seeds(6)
def test_decimal_features_match_brute_force(seed, solver, zero_score):
    """Real-valued columns on a decimal grid: the margin (here 0.1) makes "total < 0" and, under
    the paper's rule, "total > 0" exact, so the optimum is brute force's under both rules."""
    X, y, names = tiny_problem(12000 + seed)
    X = X * 0.5 + (np.arange(len(y))[:, None] % 2) * 0.3  # values like 0.3, 0.5, 0.8: one decimal
    spec = sw.make_spec(C0=0.01, solver=spec_solver(solver), zero_score=zero_score, **BOX)
    card = sw.fit(X, y, feature_names=names, spec=spec)
    assert card.details["margin"] == pytest.approx(0.1)
    assert_exact(card, X, y, names, spec, 0.01)


@pytest.mark.parametrize("zero_score", RULES)
@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.seeds(8)
@pytest.mark.slow
def test_ill_scaled_decimal_data_match_brute_force(seed, solver, zero_score):
    """Spambase in miniature: three-decimal columns in the thousands, big-M over the margin past
    10^6. Every proof path proves brute force's optimum (HiGHS with the tolerances that keep a
    z_i near 0 from switching its row off,
    :func:`slimwidgets.solvers.backends.highs.row_tolerance`)."""
    from slimwidgets.core.formulation import build_formulation

    X, y, names = ill_scaled_problem(15000 + seed)
    spec = sw.make_spec(
        C0=0.01, coef_range=(-2, 2), solver=spec_solver(solver), zero_score=zero_score
    )
    form = build_formulation(prepare_data(X, y, feature_names=names, warn=False), spec)
    assert form.value[form.extra["big_m"][3]].max() / form.margin >= 1e6
    card = sw.fit(X, y, feature_names=names, spec=spec)
    assert_exact(card, X, y, names, spec, 0.01)


def shifted_problem(seed: int, n_features: int = 3):
    """Integer features 1..3 or -1..1 (so totals sit away from 0, as breastcancer's 1..10 do),
    duplicated rows (weights, so some rows are heavy enough to be anchors), both classes."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 12))
    low = int(rng.choice([-1, 1]))
    X = rng.integers(low, low + 3, size=(n, n_features))
    y = rng.choice([-1, 1], size=n)
    y[0], y[1] = 1, -1
    w = rng.integers(1, 6, size=n).astype(float)
    return X, y, [f"f{j}" for j in range(n_features)], w


@pytest.mark.parametrize("zero_score", RULES)
@pytest.mark.parametrize("solver", ["highs", "by_size"])
@pytest.mark.seeds(16)
def test_the_derived_box_and_the_rows_big_m_keep_the_optimum(seed, solver, zero_score):
    """No intercept_range: the derived box (narrowed by max_size) and the big-M of each loss row
    from the differences between rows (core/big_m_bounds.py) never exclude an optimal card."""
    X, y, names, w = shifted_problem(8000 + seed)
    C0 = [0.0, 0.01, 0.05, 0.1][seed % 4]
    max_size = [None, 1, 2][seed % 3]
    spec = sw.make_spec(
        C0=C0,
        coef_range=(-3, 3),
        max_size=max_size,
        solver=spec_solver(solver),
        zero_score=zero_score,
    )
    card = sw.fit(X, y, feature_names=names, sample_weight=w, spec=spec)
    cards = enumerate_cards(X, y, names, spec, w)
    got = cards_value(card, X, y, names, C0, w, zero_score)
    assert got == pytest.approx(best_objective(cards, C0), abs=1e-12), (card.points, card.intercept)
    assert card.status == "optimal"


@pytest.mark.parametrize("zero_score", RULES)
@pytest.mark.seeds(24)
def test_each_size_program_keeps_every_card_that_beats_its_cutoff(seed, zero_score):
    """``Formulation.restricted(size, below)``: each size's big-M, its narrowed intercept box and
    the rows fixed right (heavier than the loss a card below the cutoff may have) keep every
    card of at most that size (priced at that size) that beats ``below``: HiGHS finds the best
    of them, or proves none exists."""
    from slimwidgets.core.formulation import build_formulation
    from slimwidgets.solvers.backends.highs import solve_highs

    rng = np.random.default_rng(9000 + seed)
    X, y, names, w = shifted_problem(9000 + seed)
    C0 = float(rng.choice([0.01, 0.05]))
    spec = sw.make_spec(C0=C0, coef_range=(-3, 3), zero_score=zero_score)
    form = build_formulation(
        prepare_data(X, y, feature_names=names, sample_weight=w, warn=False), spec
    )
    cards = enumerate_cards(X, y, names, spec, w)
    size = int(rng.integers(1, 4))
    # the program's objective: a card of fewer features may fill the size with unused ones, paid for
    value = cards["loss"] + C0 * size + form.epsilon * cards["l1"]
    mine = value[cards["size"] <= size]
    # a cutoff just above the best card of this size, or just below it (then nothing beats it)
    below = float(mine.min()) + (1e-6 if seed % 2 else -1e-6)
    result = solve_highs(
        form.restricted(size, below),
        time_limit=None,
        gap=0.0,
        threads=1,
        warm_start=None,
        on_incumbent=None,
        cancel=None,
        feasibility_only=False,
    )
    if seed % 2:
        assert result.status == "optimal"
        filled = C0 * (size - np.count_nonzero(result.coefficients))
        assert form.objective_of(result.coefficients, result.intercept) + filled == pytest.approx(
            mine.min(), abs=1e-9
        )
    else:
        assert result.status == "infeasible"
