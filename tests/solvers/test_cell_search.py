"""The search over cells (solvers/cell_search.py) against brute force.

Its tables are checked against known counts of threshold functions and an independent
enumeration; its best card per support against every card of the box with that support
(tests/brute.py), with signs, caps, group caps and gaps, both rules for a zero total and
nested rules; the support scan's proof under group rows and linear rows on use; and whole
fits that go through it against the brute-force optimum.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.core.formulation import build_formulation
from slimwidgets.fitting.cards import SCAN_UNDER_CAPS_ON_VALUES, SCAN_UNDER_POINT_ROWS
from slimwidgets.solvers.cell_search import CellSearch, table_rows
from slimwidgets.solvers.exhaustive import SupportWalker
from slimwidgets.solvers.scan import keeps_rows, solve_by_scan
from slimwidgets.solvers.search import SearchProblem

from brute import enumerate_cards, row_errors

#: positive threshold functions of k inputs, constants included (OEIS A000617)
POSITIVE_THRESHOLD_FUNCTIONS = {1: 3, 2: 6, 3: 20, 4: 150, 5: 3287}


@pytest.mark.parametrize("k", sorted(POSITIVE_THRESHOLD_FUNCTIONS))
def test_a_table_holds_every_positive_threshold_function(k):
    assert table_rows(k, tuple(range(1, 11)), 1) == POSITIVE_THRESHOLD_FUNCTIONS[k]


def labellings(k: int, mags: tuple[int, ...], g: int) -> dict:
    """Every (P, N) pair of cell sets the magnitudes make, with the least L1: a plain loop."""
    cells = list(itertools.product([0, 1], repeat=k))
    out: dict = {}
    for mu in itertools.product(mags, repeat=k):
        scores = [sum(m * b for m, b in zip(mu, cell)) for cell in cells]
        for t in range(-2, sum(mu) + g + 3):
            pair = (
                frozenset(c for c, s in zip(cells, scores) if s >= t),
                frozenset(c for c, s in zip(cells, scores) if s <= t - g),
            )
            out[pair] = min(out.get(pair, np.inf), sum(mu))
    return out


@pytest.mark.parametrize("k, mags, g", [(2, (1, 2, 3), 1), (3, (1, 2), 2), (3, (2, 3), 3)])
def test_a_table_is_every_labelling_with_its_least_l1(k, mags, g):
    from slimwidgets.solvers.cell_search import _table

    P, N, l1, _, _ = _table(k, mags, g)
    cells = list(itertools.product([0, 1], repeat=k))

    def as_set(mask):  # cell c is bit sum(c_j 2^j)
        return frozenset(
            c for c in cells if (int(mask) >> sum(b << j for j, b in enumerate(c))) & 1
        )

    got = {(as_set(p), as_set(n)): int(c) for p, n, c in zip(P, N, l1)}
    assert got == labellings(k, mags, g)


def binary_problem(seed: int):
    """0/1 rules (one of them sometimes nested in another), a spec whose box the search over
    cells settles, with signs, caps and either rule for a zero total drawn at random."""
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(6, 18)), int(rng.integers(2, 5))
    X = rng.integers(0, 2, size=(n, p))
    if p >= 3 and rng.random() < 0.5:  # "age >= 60" within "age >= 50"
        X[:, 2] &= X[:, 1]
    y = rng.choice([-1, 1], size=n)
    y[0], y[1] = 1, -1
    weights = rng.integers(1, 4, size=n) if rng.random() < 0.3 else None
    names = [f"r{j}" for j in range(p)]
    top = int(rng.choice([2, 3]))
    opts = dict(
        coef_range=(-top, top),
        intercept_range=(-(top * p + 3), top * p + 3),
        zero_score=str(rng.choice(["positive", "error"])),
        C0=float(rng.choice([0.0, 0.01, 0.05])),
    )
    if rng.random() < 0.3:
        opts["signs"] = {"r0": "+", "r1": "-"}
    if rng.random() < 0.3:
        opts["max_fpr"] = float(rng.choice([0.2, 0.4]))
    elif rng.random() < 0.3:
        opts["min_tpr"] = float(rng.choice([0.6, 0.8]))
    return X, y, names, weights, sw.make_spec(**opts)


@pytest.mark.seeds(40)
def test_the_best_card_on_each_support_is_the_brute_force_best(seed):
    X, y, names, weights, spec = binary_problem(seed)
    form = build_formulation(prepare_data(X, y, sample_weight=weights, feature_names=names), spec)
    prob = SearchProblem(form)
    walker = SupportWalker(prob)
    cards = enumerate_cards(X, y, names, spec, weights)
    used = cards["points"] != 0
    for k in range(1, len(names) + 1):
        for support in itertools.combinations(range(len(names)), k):
            values = [prob.allowed[j][prob.allowed[j] != 0] for j in support]
            assert walker.over_cells.fits(list(support), values) is not None
            obj, lam, b = walker.best(list(support))
            on = (used == np.isin(np.arange(len(names)), support)).all(axis=1)
            if not on.any():
                assert not np.isfinite(obj)
                continue
            value = formulation_values(form, {key: v[on] for key, v in cards.items()}, spec.C0)
            assert obj == pytest.approx(value.min(), abs=1e-9), (support, lam, b)
            # the card returned is what it says, and keeps every constraint
            assert form.objective_of(lam, b) == pytest.approx(obj, abs=1e-9)
            same = on & (cards["points"] == lam).all(axis=1) & (cards["intercept"] == b)
            assert same.any(), "the card breaks a constraint or leaves the box"


def formulation_values(form, cards, C0) -> np.ndarray:
    """The formulation's objective of every brute-force card (under a cap, its rows weigh one
    class: the best TPR or FPR first)."""
    data = form.data  # duplicate rows collapsed into weights
    total = data.X @ cards["points"].T + cards["intercept"]
    wrong = row_errors(total, data.y[:, None], form.spec.zero_score)
    return form.row_weight @ wrong + C0 * cards["size"] + form.epsilon * cards["l1"]


@pytest.mark.seeds(20)
def test_fits_that_search_over_cells_are_optimal(seed):
    X, y, names, weights, spec = binary_problem(500 + seed)
    cards = enumerate_cards(X, y, names, spec, weights)
    for solver in ("scan", "enumerate"):
        spec_s = spec.replace(solver=solver)
        card = sw.fit(X, y, feature_names=names, sample_weight=weights, spec=spec_s)
        points = np.array(card.coefficients, float)
        mine = (cards["points"] == points).all(axis=1) & (cards["intercept"] == card.intercept)
        assert mine.any(), "the card breaks a constraint"
        assert card.status == "optimal"
        form = build_formulation(
            prepare_data(X, y, sample_weight=weights, feature_names=names), spec_s
        )
        values = formulation_values(form, cards, spec.C0)
        assert form.objective_of(points, card.intercept) == pytest.approx(values.min(), abs=1e-9)


def test_what_it_does_not_settle_goes_to_the_walk():
    """Integer columns, locked points and a narrow intercept box are the walk's."""
    X = np.array([[0, 1, 2], [1, 0, 1], [1, 1, 0], [0, 0, 2]])
    y = [1, -1, 1, -1]
    wide = dict(coef_range=(-2, 2), intercept_range=(-9, 9))
    for spec, support, fits in (
        (sw.make_spec(**wide), [0, 1], True),
        (sw.make_spec(**wide), [0, 2], False),  # column 2 is not 0/1
        (sw.make_spec(lock={"x0": 1}, **wide), [1], False),
        (sw.make_spec(coef_range=(-2, 2), intercept_range=(-3, 3)), [0, 1], False),
    ):
        form = build_formulation(
            prepare_data(X, y, feature_names=["x0", "x1", "x2"], warn=False), spec
        )
        prob = SearchProblem(form)
        values = [prob.allowed[j][prob.allowed[j] != 0] for j in support]
        assert (CellSearch(prob).fits(support, values) is not None) == fits


def test_a_fit_under_caps_or_group_rows_on_0_1_columns_scans_without_a_note():
    """Under max_fpr or a group gap on 0/1 rules "auto" may scan: the card has no note."""
    X, y, names, weights, spec = binary_problem(7)
    capped = sw.fit(X, y, feature_names=names, spec=spec.replace(max_fpr=0.4, min_tpr=None))
    assert "support_scan" not in capped.details and capped.status == "optimal"
    groups = np.arange(len(y)) % 2
    gapped = sw.fit(
        X,
        y,
        feature_names=names,
        sensitive_features=groups,
        spec=spec.replace(max_fpr=None, min_tpr=None, max_fpr_gap=0.5),
    )
    assert "support_scan" not in gapped.details and gapped.status == "optimal"


@pytest.mark.parametrize("cap", [{"max_fpr": 0.4}, {"min_tpr": 0.6}])
@pytest.mark.filterwarnings("ignore::slimwidgets.BoxWarning")  # the tiny box's ends
def test_a_capped_fit_on_columns_not_0_1_says_why_it_proves_without_the_scan(monkeypatch, cap):
    """Under max_fpr / min_tpr "auto" scans 0/1 columns only: on a table with a count column
    it does not try the scan, and the card's details and status details say why (naming the
    column); the same table without the cap, and 0/1 columns with it, say nothing."""
    from slimwidgets.core.status import describe, details_text
    from slimwidgets.fitting import driver

    scanned = []
    real_scan = driver._scan
    monkeypatch.setattr(driver, "ENUMERATION_WORK", -1.0)  # no walk of the whole box first
    monkeypatch.setattr(driver, "_scan", lambda *a, **k: scanned.append(a) or real_scan(*a, **k))
    X, y, names, _, spec = binary_problem(3)
    X = np.column_stack([X, np.arange(len(y)) % 4])  # a count, 0 to 3
    names = [*names, "visits"]
    spec = spec.replace(**{"max_fpr": None, "min_tpr": None, "signs": {}, **cap})
    card = sw.fit(X, y, feature_names=names, spec=spec)
    why = SCAN_UNDER_CAPS_ON_VALUES.format(column="'visits'")
    assert card.details["support_scan"] == why and not scanned
    assert details_text(describe(card)).endswith(why)
    walked = sw.fit(X, y, feature_names=names, spec=spec.replace(solver="enumerate"))
    assert card.status == walked.status == "optimal" and card.objective == walked.objective
    free = sw.fit(X, y, feature_names=names, spec=spec.replace(max_fpr=None, min_tpr=None))
    assert "support_scan" not in free.details
    binary = sw.fit(X[:, :-1], y, feature_names=names[:-1], spec=spec)
    assert "support_scan" not in binary.details and scanned


# -- group caps and gaps, and linear rows on use: the scan holds them per support ------------
#: a row on use only: at most one of the first two rules (the scan holds it per support)
ONE_OF_TWO = {"terms": {"used:r0": 1, "used:r1": 1}, "upper": 1}


def grouped_problem(seed: int):
    """:func:`binary_problem` with a group column of two or three groups and group caps or
    gaps drawn at random (at least one), sometimes a linear row on use."""
    X, y, names, weights, spec = binary_problem(seed)
    rng = np.random.default_rng(10_000 + seed)
    groups = np.array(["F", "M", "X"])[rng.integers(0, int(rng.choice([2, 3])), size=len(y))]
    groups[0], groups[1] = "F", "M"
    options = {
        "max_fpr_by_group": float(rng.choice([0.3, 0.5])),
        "min_tpr_by_group": float(rng.choice([0.5, 0.7])),
        "max_fpr_gap": float(rng.choice([0.2, 0.4])),
        "max_tpr_gap": float(rng.choice([0.2, 0.4])),
    }
    drawn = [k for k in options if rng.random() < 0.4] or [str(rng.choice(list(options)))]
    extra = {k: options[k] for k in drawn}
    if rng.random() < 0.3:
        extra["linear"] = [ONE_OF_TWO]
    return X, y, names, weights, spec.replace(**extra), groups


def formulation_of(X, y, names, weights, spec, groups):
    data = prepare_data(
        X, y, sample_weight=weights, feature_names=names, sensitive_features=groups, warn=False
    )
    return build_formulation(data, spec)


@pytest.mark.seeds(40)
def test_the_best_card_on_each_support_keeps_the_group_rows(seed):
    X, y, names, weights, spec, groups = grouped_problem(seed)
    spec = spec.replace(linear=[])  # a row on use is the scan's filter of supports
    form = formulation_of(X, y, names, weights, spec, groups)
    walker = SupportWalker(SearchProblem(form))
    cards = enumerate_cards(X, y, names, spec, weights, groups)
    used = cards["points"] != 0
    for k in range(1, len(names) + 1):
        for support in itertools.combinations(range(len(names)), k):
            obj, lam, b = walker.best(list(support))
            on = (used == np.isin(np.arange(len(names)), support)).all(axis=1)
            if not on.any():
                assert not np.isfinite(obj), support
                continue
            value = formulation_values(form, {key: v[on] for key, v in cards.items()}, spec.C0)
            assert obj == pytest.approx(value.min(), abs=1e-9), (support, lam, b)
            same = on & (cards["points"] == lam).all(axis=1) & (cards["intercept"] == b)
            assert same.any(), "the card breaks a group row or leaves the box"
            assert keeps_rows(form, lam, b)


@pytest.mark.seeds(40)
def test_the_scan_proves_the_brute_force_best_under_group_rows(seed):
    X, y, names, weights, spec, groups = grouped_problem(100 + seed)
    form = formulation_of(X, y, names, weights, spec, groups)
    cards = enumerate_cards(X, y, names, spec, weights, groups)
    result = solve_by_scan(form, np.inf, None)
    if not len(cards["loss"]):
        assert result.status == "infeasible"
        return
    assert result.status == "optimal", result.message
    values = formulation_values(form, cards, spec.C0)
    assert result.objective == pytest.approx(values.min(), abs=1e-9)
    points = np.asarray(result.coefficients)
    mine = (cards["points"] == points).all(axis=1) & (cards["intercept"] == result.intercept)
    assert mine.any(), "the card breaks a constraint"


@pytest.mark.seeds(30)
def test_auto_fits_under_group_rows_scan_and_are_optimal(seed, monkeypatch):
    """ "auto" goes through the scan (no walk of the whole box first) and its card is the
    brute-force best; an infeasible problem says so."""
    from slimwidgets.fitting import driver

    scanned = []
    real_scan = driver._scan
    monkeypatch.setattr(driver, "ENUMERATION_WORK", -1.0)
    monkeypatch.setattr(driver, "_scan", lambda *a, **k: scanned.append(a) or real_scan(*a, **k))
    X, y, names, weights, spec, groups = grouped_problem(200 + seed)
    cards = enumerate_cards(X, y, names, spec, weights, groups)
    fit = dict(feature_names=names, sample_weight=weights, sensitive_features=groups, spec=spec)
    if not len(cards["loss"]):
        with pytest.raises(sw.InfeasibleError, match="no scoring system satisfies"):
            sw.fit(X, y, **fit)
        return
    card = sw.fit(X, y, **fit)
    assert card.status == "optimal" and "support_scan" not in card.details and scanned
    points = np.array(card.coefficients, float)
    mine = (cards["points"] == points).all(axis=1) & (cards["intercept"] == card.intercept)
    assert mine.any(), "the card breaks a constraint"
    form = formulation_of(X, y, names, weights, spec, groups)
    assert form.objective_of(points, card.intercept) == pytest.approx(
        formulation_values(form, cards, spec.C0).min(), abs=1e-9
    )


@pytest.mark.seeds(20)
def test_auto_fits_under_a_row_on_use_alone_scan_and_are_optimal(seed, monkeypatch):
    """A linear row on use without group rows: "auto" scans, drops the supports that break
    it, and its card is the brute-force best."""
    from slimwidgets.fitting import driver

    scanned = []
    real_scan = driver._scan
    monkeypatch.setattr(driver, "ENUMERATION_WORK", -1.0)
    monkeypatch.setattr(driver, "_scan", lambda *a, **k: scanned.append(a) or real_scan(*a, **k))
    X, y, names, weights, spec = binary_problem(300 + seed)
    spec = spec.replace(linear=[ONE_OF_TWO, {"terms": {"used:r1": 1}, "lower": 1}])
    cards = enumerate_cards(X, y, names, spec, weights)
    card = sw.fit(X, y, feature_names=names, sample_weight=weights, spec=spec)
    assert card.status == "optimal" and "support_scan" not in card.details and scanned
    points = np.array(card.coefficients, float)
    assert points[0] == 0 and points[1] != 0  # r1 in use, so r0 not
    mine = (cards["points"] == points).all(axis=1) & (cards["intercept"] == card.intercept)
    assert mine.any(), "the card breaks a constraint"
    form = build_formulation(
        prepare_data(X, y, sample_weight=weights, feature_names=names, warn=False), spec
    )
    assert form.objective_of(points, card.intercept) == pytest.approx(
        formulation_values(form, cards, spec.C0).min(), abs=1e-9
    )


def test_a_start_that_breaks_a_group_row_is_not_the_scans_incumbent():
    """An incumbent handed to the scan that breaks a group row would prune the true best:
    the scan drops it and proves the best card that keeps the rows (on the first problems
    whose best card without the rows breaks them)."""
    checked = 0
    for seed in range(40):
        X, y, names, weights, spec, groups = grouped_problem(seed)
        form = formulation_of(X, y, names, weights, spec, groups)
        cards = enumerate_cards(X, y, names, spec, weights, groups)
        free = formulation_of(X, y, names, weights, spec.replace(**NO_GROUP_ROWS), groups)
        best_free = solve_by_scan(free, np.inf, None)
        start = (np.asarray(best_free.coefficients), int(best_free.intercept))
        if not len(cards["loss"]) or keeps_rows(form, *start):
            continue
        result = solve_by_scan(form, best_free.objective, start)
        values = formulation_values(form, cards, spec.C0)
        assert result.status == "optimal"
        assert result.objective == pytest.approx(values.min(), abs=1e-9)
        checked += 1
        if checked == 3:
            break
    assert checked == 3


def test_a_support_the_cells_cannot_settle_under_group_rows_declines_the_scan():
    """An intercept box too narrow for the search over cells leaves a support to the walk,
    whose loops do not price group rows: the scan then declines (it never answers from a
    walk that ignores them; it may still prove a card whose floors close every support
    before a walk), and "auto" proves the brute-force best another way."""
    declined = 0
    for seed in range(20):
        X, y, names, weights, spec, groups = grouped_problem(seed)
        spec = spec.replace(intercept_range=(-1, 1), linear=[])
        cards = enumerate_cards(X, y, names, spec, weights, groups)
        if not len(cards["loss"]):
            continue
        form = formulation_of(X, y, names, weights, spec, groups)
        best = formulation_values(form, cards, spec.C0).min()
        scanned = solve_by_scan(form, np.inf, None)
        assert scanned.status in ("declined", "optimal")
        if scanned.status == "optimal":
            assert scanned.objective == pytest.approx(best, abs=1e-9)
            continue
        declined += 1
        fit = dict(feature_names=names, sample_weight=weights, sensitive_features=groups)
        card = sw.fit(X, y, spec=spec, **fit)
        points = np.array(card.coefficients, float)
        mine = (cards["points"] == points).all(axis=1) & (cards["intercept"] == card.intercept)
        assert card.status == "optimal" and mine.any()
        assert form.objective_of(points, card.intercept) == pytest.approx(best, abs=1e-9)
    assert declined >= 3


NO_GROUP_ROWS = dict(
    max_fpr_by_group=None, min_tpr_by_group=None, max_fpr_gap=None, max_tpr_gap=None, linear=[]
)


def test_what_the_scan_does_not_hold_goes_to_the_mip_with_its_reason():
    """A linear row on points, or group caps on a column that is not 0/1: "auto" does not
    scan, says why, and the MIP's card is the brute-force best."""
    X, y, names, weights, spec, groups = grouped_problem(5)
    on_points = {"terms": {"points:r0": 1, "points:r1": 1}, "upper": 1}
    card = sw.fit(
        X,
        y,
        feature_names=names,
        sensitive_features=groups,
        spec=spec.replace(linear=[on_points]),
    )
    form = formulation_of(X, y, names, None, spec.replace(linear=[on_points]), groups)
    why = SCAN_UNDER_POINT_ROWS.format(row=repr(form.linear_rows[0].describe()))
    assert card.details["support_scan"] == why
    counted = np.column_stack([X, np.arange(len(y)) % 3])
    card = sw.fit(
        counted,
        y,
        feature_names=[*names, "visits"],
        sensitive_features=groups,
        spec=spec.replace(linear=[]),
    )
    assert card.details["support_scan"] == SCAN_UNDER_CAPS_ON_VALUES.format(column="'visits'")
