"""The proof by supports (solvers/risk_branch_and_bound.py) against brute force: floors never pass
the
optimum, the branch and bound finds it and claims "complete" only when it is, the gap is
honoured, and fit stops as soon as its card is proven (a free multiplier's proof in depth:
test_risk_cone.py)."""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
import slimwidgets.fitting.risk_driver as risk_driver
import slimwidgets.solvers.risk_branch_and_bound as risk_branch_and_bound
import slimwidgets.solvers.risk_rows as risk_rows
from slimwidgets.core.data import prepare_data
from slimwidgets.solvers.logistic import RiskProblem
from slimwidgets.solvers.risk_branch_and_bound import (
    cells_decline,
    dense_floor,
    prove_by_supports,
    support_count,
    tree_applies,
)

from brute_risk import best_risk_objective
from tiny_problems import empty_risk_card
from tiny_problems import tiny_risk_problem as tiny

BOX = dict(loss="logistic", coef_range=(-2, 2), intercept_range=(-3, 3))
# the options the tree handles: boxes (signs, values, locks, exclude, require), costs per
# feature, max_size and class weights
PLAIN = [
    {},
    {"max_size": 2},
    {"max_size": 1, "C0": 0.01},
    {"signs": {"f0": "+"}, "exclude": ["f2"], "max_size": 2},
    {"require": ["f1"], "penalties": {"f0": 0.02}, "max_size": 2},
    {"values": {"f0": [0, 2]}, "lock": {"f3": -1}, "max_size": 3},
    {"coef_ranges": {"f1": (0, 1)}, "class_weights": "balanced", "max_size": 3},
]


def _problem(case: int, seed: int, **extra):
    X, y, names = tiny(seed, d=4)
    spec = sw.make_spec(**BOX, **PLAIN[case], **extra)
    return X, y, names, spec, RiskProblem.from_spec(prepare_data(X, y, warn=False), spec)


@pytest.mark.filterwarnings("ignore::slimwidgets.DataWarning")
@pytest.mark.parametrize("case", range(len(PLAIN)))
def test_branch_and_bound_finds_and_proves_the_optimum_without_scale(case):
    X, y, names, spec, prob = _problem(case, case + 300, scale=False)
    assert tree_applies(prob) and support_count(prob) >= 1
    best = best_risk_objective(X, y, names, spec)
    result = prove_by_supports(prob, empty_risk_card(prob))
    assert result.complete
    assert result.card.objective == pytest.approx(best, abs=1e-9)
    assert result.floor == pytest.approx(best, abs=1e-9)
    # the card's objective is its own, on every row, and it meets the spec
    coefs, b = result.card.coefficients, result.card.intercept
    assert prob.card_ok(coefs, b)
    assert result.card.objective == pytest.approx(
        prob.objective(coefs, prob.loss.evaluate(coefs, b)), abs=1e-12
    )


@pytest.mark.filterwarnings("ignore::slimwidgets.DataWarning")
@pytest.mark.parametrize("gap", [0.02, 0.1])
@pytest.mark.parametrize("case", [0, 3, 6])
def test_a_requested_gap_is_honoured_and_its_floor_stays_below_the_optimum(case, gap):
    X, y, names, spec, prob = _problem(case, case + 400, scale=False)
    best = best_risk_objective(X, y, names, spec)
    result = prove_by_supports(prob, empty_risk_card(prob), gap=gap)
    assert result.complete
    assert result.floor <= best + 1e-9 <= result.card.objective + 2e-9
    assert result.card.objective - result.floor <= gap * abs(result.card.objective) + 1e-9


@pytest.mark.filterwarnings("ignore::slimwidgets.DataWarning")
@pytest.mark.parametrize("case", range(len(PLAIN)))
@pytest.mark.slow
def test_with_a_multiplier_the_support_floor_never_passes_the_optimum(case):
    X, y, names = tiny(case + 500, d=3)
    spec = sw.make_spec(**BOX, **PLAIN[case] if case not in (5, 6) else {})
    prob = RiskProblem.from_spec(prepare_data(X, y, warn=False), spec)
    best = best_risk_objective(X, y, names, spec)
    result = prove_by_supports(prob, empty_risk_card(prob))
    assert math.isfinite(result.floor) and result.floor <= best + 1e-9
    assert result.complete == (result.floor >= result.card.objective - 1e-12)


@pytest.mark.filterwarnings("ignore::slimwidgets.DataWarning")
def test_stopped_early_it_claims_nothing_beyond_its_floor():
    X, y, names, spec, prob = _problem(0, 600, scale=False)
    result = prove_by_supports(prob, empty_risk_card(prob), deadline=time.perf_counter() - 1.0)
    assert not result.complete and result.floor == -math.inf


@pytest.mark.filterwarnings("ignore::slimwidgets.DataWarning")
def test_rules_the_tree_does_not_handle_leave_it_to_the_cutting_planes():
    X, y, names = tiny(700, d=4)
    for options in (
        {"max_fpr": 0.3},
        {"constraints": [sw.at_most(1, ["f0", "f1"])]},
        {"tiers": [(1, 0.01), (2, 0.03)]},
    ):
        prob = RiskProblem.from_spec(prepare_data(X, y, warn=False), sw.make_spec(**BOX, **options))
        assert not tree_applies(prob) and prove_by_supports(prob, empty_risk_card(prob)) is None


@pytest.mark.filterwarnings(
    "ignore::slimwidgets.DataWarning", "ignore::slimwidgets.DegenerateCardWarning"
)
@pytest.mark.parametrize("case", [0, 1, 4])
def test_fit_stops_when_its_card_is_proven(case, monkeypatch):
    """With the walk out of the way, fit proves the optimum by the tree and returns: a time
    limit of an hour is not waited for (the test would hang), and the status says proven."""
    monkeypatch.setattr(risk_driver, "RISK_WALK_WORK", 0)
    X, y, names = tiny(case + 800, d=4)
    spec = sw.make_spec(**BOX, **PLAIN[case], scale=False, time_limit=3600)
    best = best_risk_objective(X, y, names, spec)
    card = sw.fit(X, y, spec=spec)
    assert card.status == "optimal" and card.solver == "logistic search + branch and bound"
    assert card.objective == pytest.approx(best, abs=1e-9) and card.gap == 0.0
    words = card.status_line()
    assert (
        "proven lowest train log-loss" in words or "proven best" in words
    ) and "no proven limit" not in words


@pytest.mark.filterwarnings("ignore::slimwidgets.DataWarning")
def test_fit_honours_the_gap_and_says_so(monkeypatch):
    monkeypatch.setattr(risk_driver, "RISK_WALK_WORK", 0)
    X, y, names = tiny(900, d=4)
    spec = sw.make_spec(**BOX, scale=False, gap=0.1, time_limit=3600)
    best = best_risk_objective(X, y, names, spec)
    card = sw.fit(X, y, spec=spec)
    assert card.status == "optimal" and card.gap <= 0.1
    assert card.bound <= best + 1e-9 <= card.objective + 1e-9
    if card.gap > 1e-9:  # stopped at the gap: the words say so, and not "optimal"
        words = card.status_line()
        assert "proven within the requested gap (10.0 %)" in words and "optimal" not in words


@pytest.mark.filterwarnings("ignore::slimwidgets.DataWarning")
@pytest.mark.slow
def test_fit_with_a_multiplier_proves_its_card_and_stops(monkeypatch):
    """The default model (a free multiplier) is proven too (tests/solvers/test_risk_cone.py
    checks that proof in depth)."""
    monkeypatch.setattr(risk_driver, "RISK_WALK_WORK", 0)
    X, y, names = tiny(901, d=3)
    spec = sw.make_spec(**BOX, time_limit=3600)
    best = best_risk_objective(X, y, names, spec)
    card = sw.fit(X, y, spec=spec)
    assert card.status == "optimal" and card.objective == pytest.approx(best, abs=1e-9)
    assert card.bound is not None and card.bound <= best + 1e-9


@pytest.mark.filterwarnings("ignore::slimwidgets.DataWarning")
@pytest.mark.parametrize("scale", [True, False])
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"max_size": 1, "require": ["f0"]},
        {"max_fpr": 0.3},
        {"constraints": [sw.at_least(2, ["f0", "f1", "f2"])]},
    ],
)
@pytest.mark.slow
def test_the_dense_floor_never_passes_the_optimum(options, scale):
    X, y, names = tiny(1000 + len(options), d=3)
    spec = sw.make_spec(**BOX, **options, scale=scale)
    prob = RiskProblem.from_spec(prepare_data(X, y, warn=False), spec)
    best = best_risk_objective(X, y, names, spec)
    assert dense_floor(prob) <= best + 1e-9
    # stopped at once, the floor is weaker and still valid
    assert dense_floor(prob, deadline=time.perf_counter() - 1.0) <= dense_floor(prob) + 1e-9


@pytest.mark.filterwarnings("ignore::slimwidgets.DataWarning")
@pytest.mark.slow
def test_too_many_supports_a_multiplier_fit_states_the_relaxations_floor(monkeypatch):
    """Where the tree does not go, a fit with a free multiplier states the dense floor and stops."""
    monkeypatch.setattr(risk_driver, "RISK_WALK_WORK", 0)
    monkeypatch.setattr(risk_branch_and_bound, "MAX_SUPPORTS", 0)
    monkeypatch.setattr(risk_branch_and_bound, "CELL_WORK", 0)  # the cells would take it
    X, y, names = tiny(1100, d=4)
    spec = sw.make_spec(**BOX, max_size=2, time_limit=3600)
    best = best_risk_objective(X, y, names, spec)
    card = sw.fit(X, y, spec=spec)
    assert card.bound is not None and card.bound <= best + 1e-9
    assert card.status in ("heuristic", "optimal")
    if card.status == "heuristic" and card.bound > 0:
        assert "proven: every card with" in card.status_line()


class _SlowClock:
    """A clock that advances one second at every reading (a fake: no test reads the real one)."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self) -> float:
        self.now += 1.0
        return self.now


@pytest.mark.filterwarnings("ignore::slimwidgets.DataWarning")
def test_the_floors_are_given_up_on_their_work_not_on_the_pace_of_the_clock(monkeypatch):
    X, y, names, spec, prob = _problem(1, 1200, scale=False)  # max_size 2 of 4 features: 6 supports
    work = support_count(prob) * prob.loss.X.shape[0]
    assert cells_decline(prob) is not None and support_count(prob) == 6
    result = prove_by_supports(prob, empty_risk_card(prob), floor_work=work - 1)
    assert not result.complete and result.floor == -math.inf and result.supports == 0
    assert f"6 supports times {prob.loss.X.shape[0]} rows is more work" in result.note
    # with the work in budget, on a clock one second later at every reading, it proves the card
    monkeypatch.setattr(risk_branch_and_bound, "CHUNK", 1)
    clock = _SlowClock()
    monkeypatch.setattr(risk_branch_and_bound, "time", clock)
    best = best_risk_objective(X, y, names, spec)
    result = prove_by_supports(prob, empty_risk_card(prob), deadline=1e3, floor_work=work)
    assert result.complete and result.card.objective == pytest.approx(best, abs=1e-9)


@pytest.mark.parametrize("case", ["bits", "ranks", "many 0/1 features", "too many combinations"])
def test_the_rows_of_a_support_keep_every_cards_loss_and_fit_in_memory(case):
    """A support's rows are merged by bits (a table of 2^(k+1) cells: few 0/1 features), by
    ranks, or not at all (when the combinations of values overflow an int64 key): each way,
    every card on the support has its loss. A default risk fit on a raw table asked for one
    support of 43 rules, and the table of 2^44 cells failed with a MemoryError."""
    rng = np.random.default_rng(7)
    n, k = (
        60,
        {"bits": 3, "ranks": 3, "many 0/1 features": risk_rows.MAX_TABLE_FEATURES + 9}.get(case, 5),
    )
    X = rng.integers(0, 2, size=(n, k)).astype(float)
    if case == "ranks":
        X = rng.normal(size=(n, k)).round(3)
    if case == "too many combinations":  # 2^16 values a column: the key of ranks (1, 0, 0, 0, 0)
        X = np.repeat(np.arange(2.0**16)[:, None], k, axis=1)  # would wrap to row 0's key
        X, n = np.vstack([X, np.eye(1, k)]), 2**16 + 1
    y, w = rng.choice([-1.0, 1.0], size=n), rng.random(n)
    y[-1] = y[0]
    ranks, sizes = risk_rows.value_ranks(X)
    idx = np.arange(k, dtype=np.int64)
    binary = np.array([set(np.unique(X[:, j])) <= {0.0, 1.0} for j in range(k)])
    columns, cy, cw = risk_rows.support_rows(X, ranks, sizes, y, w, binary, idx)
    assert cw.sum() == pytest.approx(w.sum()) and columns.shape[0] <= n
    for _ in range(5):
        points, b = (
            rng.choice([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0], size=k),
            float(rng.integers(-3, 4)),
        )
        every_row = w @ np.logaddexp(0.0, -y * (b + X @ points))
        assert cw @ np.logaddexp(0.0, -(cy * b + columns @ points)) == pytest.approx(
            every_row, rel=1e-12
        )


def test_a_risk_fit_whose_one_support_has_more_rules_than_a_table_of_cells_holds_is_proven():
    """24 rules, one support of them all: its rows are merged by sorting, not in a table of
    2^25 cells (a default risk fit on a raw table asked for one support of 43 rules: 2^44)."""
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.integers(0, 2, size=(80, 24)), columns=[f"r{j}" for j in range(24)])
    y = np.where(X["r0"] + X["r1"] + rng.random(80) > 1.2, 1, -1)
    assert 24 > risk_rows.MAX_TABLE_FEATURES
    card = sw.fit(
        X, y, loss="logistic", max_size=24, coef_range=(-1, 1)
    )  # no time limit: to its proof
    assert card.status == "optimal" and card.bound == pytest.approx(card.objective, abs=1e-9)


@pytest.mark.seeds(5)
def test_rows_merged_by_their_values_keep_every_cards_loss(seed):
    """The support floors merge rows that agree on a support's values (any values, not only
    0/1) and the label: every card on the support has the same loss on the merged rows."""
    rng = np.random.default_rng(seed)
    n = 40
    X = np.column_stack(
        [
            rng.integers(0, 2, n),
            rng.integers(0, 4, n),
            rng.normal(size=n).round(1),
            rng.integers(0, 3, n),
        ]
    ).astype(float)
    y = rng.choice([-1.0, 1.0], size=n)
    w = rng.random(n)
    ranks, sizes = risk_rows.value_ranks(X)
    idx = np.array([0, 1, 2] if seed % 2 else [1, 3], dtype=np.int64)
    columns, cy, cw = risk_rows.merged_by_ranks(X, y, w, ranks, sizes, idx)
    assert cy.size < n or seed % 2  # the integer columns alone merge rows
    assert cw.sum() == pytest.approx(w.sum())
    for _ in range(5):
        points, b = rng.integers(-3, 4, size=idx.size).astype(float), float(rng.integers(-3, 4))
        every_row = w @ np.logaddexp(0.0, -y * (b + X[:, idx] @ points))
        merged = cw @ np.logaddexp(0.0, -(cy * b + columns @ points))
        assert merged == pytest.approx(every_row, rel=1e-12)


def test_the_ranks_of_values_are_numpys_unique_inverse_two_valued_columns_read_without_a_sort():
    rng = np.random.default_rng(0)
    X = np.column_stack(
        [
            rng.integers(0, 2, 50),
            np.full(50, 3.0),
            rng.integers(0, 5, 50),
            rng.choice([2.5, 7.0], 50),
            rng.normal(size=50),
        ]
    )
    ranks, sizes = risk_rows.value_ranks(X)
    for j in range(X.shape[1]):
        values, inverse = np.unique(X[:, j], return_inverse=True)
        assert (ranks[:, j] == inverse).all() and sizes[j] == values.size


@pytest.mark.filterwarnings("ignore::slimwidgets.DataWarning")
@pytest.mark.seeds(6)
def test_stopped_on_its_nodes_it_claims_only_a_floor_below_the_brute_force_optimum(seed):
    """A proof ended on counted work (``max_nodes``) looks at most that many boxes, claims
    "complete" only when it is, and states a floor no higher than the brute-force optimum; the
    same count gives the same card and floor, and with enough nodes it proves the optimum."""
    case = seed % len(PLAIN)
    X, y, names, spec, prob = _problem(case, seed + 1300, scale=bool(seed % 2))
    best = best_risk_objective(X, y, names, spec)
    full = prove_by_supports(prob, empty_risk_card(prob))
    assert full.complete and full.card.objective == pytest.approx(best, abs=1e-9)
    assert full.nodes > 2  # the empty card leaves boxes to look at
    stopped = 0
    for budget in (1, 3, full.nodes // 2):
        cut = prove_by_supports(prob, empty_risk_card(prob), max_nodes=budget)
        again = prove_by_supports(prob, empty_risk_card(prob), max_nodes=budget)
        # the count is read before a box splits: at most its two children past it
        assert cut.nodes <= budget + 2
        assert cut.floor <= best + 1e-9 and cut.card.objective >= best - 1e-9
        assert not cut.complete or cut.card.objective == pytest.approx(best, abs=1e-9)
        stopped += not cut.complete
        assert (cut.floor, cut.card.objective, cut.nodes) == (
            again.floor,
            again.card.objective,
            again.nodes,
        )
    assert stopped  # the count, not a proof, ended at least one of them
    assert prove_by_supports(prob, empty_risk_card(prob), max_nodes=full.nodes).complete
