"""The support scan (solvers/scan.py) against brute force: its floors, what it discards, its bounds.

The whole-fit exactness of ``solver="scan"`` is in test_exactness.py (it is one of its SOLVERS);
here each piece of the proof is checked on its own, on tiny random problems with every option.
"""

from __future__ import annotations

import math
import threading

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.core.formulation import build_formulation
from slimwidgets.fitting import driver as fitting
from slimwidgets.solvers import scan
from slimwidgets.solvers.lexicographic import weighted_errors
from slimwidgets.solvers.scan import ScanLimits, solve_by_scan, support_floors, surviving_supports

from brute import enumerate_cards, row_errors

BOX = dict(coef_range=(-3, 3), intercept_range=(-8, 8))


def tiny(seed: int, p: int = 3):
    """A tiny problem: binary or small-integer features, sometimes with sample weights."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 16))
    X = rng.integers(0, int(rng.choice([1, 2])) + 1, size=(n, p))
    y = rng.choice([-1, 1], size=n)
    y[0], y[1] = 1, -1
    weights = rng.integers(1, 4, size=n) if rng.random() < 0.3 else None
    return X, y, [f"f{j}" for j in range(p)], weights, rng


def random_options(rng, names) -> dict:
    """Every kind of option the scan must respect, a few at a time."""
    opts = dict(BOX, C0=float(rng.choice([0.0, 0.01, 0.05, 0.12])))
    free = list(names)
    rng.shuffle(free)
    for kind in rng.integers(0, 9, size=2):
        f = free.pop() if free else None
        if kind == 0 and f:
            opts.setdefault("signs", {})[f] = str(rng.choice(["+", "-"]))
        elif kind == 1 and f:
            opts.setdefault("exclude", []).append(f)
        elif kind == 2 and f:
            opts.setdefault("require", []).append(f)
        elif kind == 3 and f:
            opts.setdefault("lock", {})[f] = int(rng.choice([-2, 1, 3]))
        elif kind == 4 and f:
            opts.setdefault("values", {})[f] = sorted(
                {int(v) for v in rng.choice([-3, -1, 0, 2, 3], size=3)}
            )
        elif kind == 5:
            opts["max_size"] = int(rng.integers(1, len(names)))
        elif kind == 6 and f:
            opts["penalties"] = {f: float(rng.choice([0.0, 0.03, 0.3]))}
        elif kind == 7:
            opts["class_weights"] = [(1.0, 3.0), (2.0, 1.0), "balanced"][int(rng.integers(0, 3))]
        elif kind == 8:
            opts["max_fpr"] = float(rng.choice([0.0, 0.25, 0.5]))
    if rng.random() < 0.25:
        opts.update(
            groups={"g": names[:2]},
            group_penalty=0.02,
            rule_penalty=0.04,
            max_rules_per_group=int(rng.integers(1, 3)),
        )
    return opts


def setup(seed: int):
    X, y, names, weights, rng = tiny(seed)
    try:
        spec = sw.make_spec(**random_options(rng, names))
    except ValueError:
        pytest.skip("contradictory options are rejected up front (tested elsewhere)")
    data = prepare_data(X, y, feature_names=names, sample_weight=weights, warn=False)
    form = build_formulation(data, spec)
    cards = enumerate_cards(X, y, names, spec, weights)
    return form, cards


def engine_losses(form, cards) -> np.ndarray:
    """The engine's weighted loss (row_weight units) of every brute-force card."""
    return np.array(
        [
            weighted_errors(form, form.row_weight, p, b)
            for p, b in zip(cards["points"], cards["intercept"])
        ]
    )


def free_support(form, points: np.ndarray) -> tuple[int, ...]:
    movable = np.array([len(v) > 1 for v in form.allowed])
    return tuple(np.flatnonzero((points != 0) & movable).tolist())


@pytest.mark.seeds(40)
def test_floor_is_below_the_loss_of_every_card_on_the_support(seed):
    """floor(S) <= the loss of any card whose features lie in S, whatever its points."""
    form, cards = setup(seed)
    if not len(cards["loss"]):
        return
    losses = engine_losses(form, cards)
    supports = [set(free_support(form, p)) for p in cards["points"]]
    n_opt = sum(1 for v in form.allowed if len(v) > 1 and 0 in v)
    checked = 0
    for extra in range(0, n_opt + 1):
        for support, floor in zip(*support_floors(form, extra)):
            inside = np.array([s <= set(support) for s in supports])
            if inside.any():
                assert floor <= losses[inside].min() + 1e-12, (support, floor)
                checked += 1
    assert checked > 0


@pytest.mark.seeds(60)
def test_a_discarded_support_never_holds_a_better_card(seed):
    """Against an incumbent picked among the brute-force cards: every card on a support the scan
    discards is no better than it, and a survivor's least objective is a true floor."""
    form, cards = setup(100 + seed)
    if not len(cards["loss"]):
        return
    objective = np.array(
        [form.objective_of(p, b) for p, b in zip(cards["points"], cards["intercept"])]
    )
    rng = np.random.default_rng(seed)
    upper = float(np.quantile(objective, float(rng.choice([0.0, 0.05, 0.3, 1.0]))))
    kept = {tuple(sorted(s)): least for least, s in surviving_supports(form, upper)}
    for support in {free_support(form, p) for p in cards["points"]}:
        on = np.array([free_support(form, p) == support for p in cards["points"]])
        best = objective[on].min()
        if tuple(support) in kept:
            assert kept[tuple(support)] <= best + 1e-12
        else:
            assert best >= upper - 1e-12, (support, best, upper)


def brute_optimum(form, cards) -> float:
    return min(form.objective_of(p, b) for p, b in zip(cards["points"], cards["intercept"]))


def empty_start(form):
    b, loss = form.intercept_losses(np.zeros(len(form.allowed)))
    if not np.isfinite(loss).any():
        return None, math.inf
    start = (np.zeros(len(form.allowed)), int(b[np.argmin(loss)]))
    if form.full_solution(*start) is None:  # a feature that must be used, or a locked one
        return None, math.inf
    return start, form.objective_of(*start)


@pytest.mark.seeds(30)
def test_the_scan_proves_the_optimum_from_a_poor_start(seed):
    """From the empty card (or none), every incumbent it reports carries a valid bound, and
    what it calls optimal is the brute-force optimum."""
    form, cards = setup(300 + seed)
    start, upper = empty_start(form)
    if start is None or not math.isfinite(upper) or upper >= 1e6:  # the empty card breaks a cap
        start, upper = None, math.inf
    seen = []
    result = solve_by_scan(form, upper, start, on_incumbent=seen.append)
    if not len(cards["loss"]):
        assert result.status == "infeasible"
        return
    best = brute_optimum(form, cards)
    assert result.status == "optimal" and result.objective == pytest.approx(best, abs=1e-12)
    assert all(inc.bound <= best + 1e-12 and inc.objective >= best - 1e-12 for inc in seen)


@pytest.mark.seeds(20)
def test_a_stopped_scan_reports_a_valid_bound(seed):
    """Cancelled at its first improving card (or before it starts): the bound still holds."""
    form, cards = setup(500 + seed)
    start, upper = empty_start(form)
    if not len(cards["loss"]) or start is None or upper >= 1e6:
        return
    cancel = threading.Event()
    if seed % 2:
        cancel.set()
    result = solve_by_scan(form, upper, start, cancel=cancel, on_incumbent=lambda inc: cancel.set())
    best = brute_optimum(form, cards)
    assert result.status in ("optimal", "interrupted")
    assert result.bound <= best + 1e-12 <= result.objective + 2e-12


@pytest.mark.parametrize("seed", range(30))
def test_a_declined_scan_reports_a_valid_bound(seed):
    """Given up after a few walk steps (at any point of the proof, under every option and
    max_size): its bound, and every incumbent's, still holds; a card beyond max_size or too
    costly to win is not counted as left to settle."""
    form, cards = setup(900 + seed)
    start, upper = empty_start(form)
    if not len(cards["loss"]) or start is None or upper >= 1e6:
        return
    best = brute_optimum(form, cards)
    bounds = []
    for walk_work in (0.0, 1e3, 1e5, 1e7):
        result = solve_by_scan(
            form,
            upper,
            start,
            limits=ScanLimits(scan_work=math.inf, walk_work=walk_work),
            on_incumbent=lambda inc: bounds.append(inc.bound),
        )
        assert result.status in ("optimal", "declined")
        assert result.bound <= best + 1e-12 <= result.objective + 2e-12
    assert all(bound <= best + 1e-12 for bound in bounds)


def test_a_scan_declined_at_max_size_bounds_by_its_floors(monkeypatch):
    """Declined while walking the largest size max_size allows, the bound is the least floor
    left (no larger card exists), far above the penalties alone, and below the optimum."""
    # a support of 2 costs more than every one of size 1 together (the walk's count, when it is
    # not the search over cells): half of one is more than the small walks leave unspent
    monkeypatch.setattr(scan, "steps_per_support", lambda form, size: 10.0**size)
    X, y, names = separable_problem(1, flips=12)
    spec = sw.make_spec(C0=0.001, max_size=2, coef_range=(-2, 2), intercept_range=(-5, 5))
    form = build_formulation(prepare_data(X, y, feature_names=names, warn=False), spec)
    best = brute_optimum(form, enumerate_cards(X, y, names, spec))
    start, upper = empty_start(form)
    small = [support for _, support in surviving_supports(form, upper) if len(support) < 2]
    # steps for every survivor of sizes 0 and 1, and half of one of size 2: declined at size 2
    work = (
        sum(scan.steps_per_support(form, len(support)) for support in small)
        + scan.steps_per_support(form, 2) / 2
    )
    declined = solve_by_scan(
        form, upper, start, limits=ScanLimits(scan_work=math.inf, walk_work=work)
    )
    assert declined.status == "declined" and declined.settled == 1
    assert 0.1 < declined.bound <= best + 1e-12  # errors, not 2 * C0 = 0.002 of penalties


def separable_problem(seed: int, flips: int = 4):
    """Binary features where a few rules nearly separate the classes, like mushroom (up to
    ``flips`` labels flipped)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(60, 6))
    y = np.where(X[:, 0] + X[:, 1] - X[:, 2] >= 1, 1, -1)
    y[rng.integers(0, 60, size=flips)] *= -1
    return X, y, [f"f{j}" for j in range(6)]


@pytest.mark.seeds(4)
@pytest.mark.slow
def test_auto_takes_the_scan_and_gives_it_up_by_measured_work(seed, monkeypatch):
    """With the walk ruled out, "auto" proves by the scan; with limits it cannot meet, it
    gives the scan up and proves another way. Both are the brute-force optimum."""
    X, y, names = separable_problem(seed)
    spec = sw.make_spec(C0=0.02, coef_range=(-2, 2), intercept_range=(-5, 5))
    cards = enumerate_cards(X, y, names, spec)
    best = (cards["loss"] + 0.02 * cards["size"]).min()
    monkeypatch.setattr(fitting, "ENUMERATION_WORK", -1.0)
    monkeypatch.setattr(
        fitting, "SIZE_MIPS_FIRST", -1
    )  # nor the proof by size first (tested below)
    card = sw.fit(X, y, feature_names=names, spec=spec)
    assert card.solver == "scan" and card.status == "optimal"
    total = X @ np.array(card.coefficients, float) + card.intercept
    assert np.mean(row_errors(total, y, spec.zero_score)) + 0.02 * card.size == pytest.approx(
        best, abs=1e-12
    )
    monkeypatch.setattr(fitting, "SCAN_LIMITS", ScanLimits(scan_work=0.0, walk_work=0.0))
    other = sw.fit(X, y, feature_names=names, spec=spec)
    assert other.solver != "scan" and other.status == "optimal"
    assert other.objective == pytest.approx(card.objective, abs=1e-12)


@pytest.mark.seeds(4)
def test_auto_proves_by_size_first_when_few_sizes_are_left_to_mips(seed, monkeypatch):
    """When the walk leaves at most SIZE_MIPS_FIRST sizes to MIPs and a column is not 0/1,
    "auto" skips the scan (which would walk the same cards before giving up on data like
    breastcancer's): the brute-force optimum, proven by size."""
    X, y, names = separable_problem(seed)
    X[:, 3] *= 2  # a column of 0 and 2: not 0/1 data
    spec = sw.make_spec(C0=0.02, coef_range=(-2, 2), intercept_range=(-5, 5))
    cards = enumerate_cards(X, y, names, spec)
    monkeypatch.setattr(fitting, "ENUMERATION_WORK", -1.0)
    monkeypatch.setattr(fitting, "SIZE_MIPS_FIRST", 10**6)
    card = sw.fit(X, y, feature_names=names, spec=spec)
    assert card.solver == "enumeration+highs" and card.status == "optimal"
    total = X @ np.array(card.coefficients, float) + card.intercept
    got = np.mean(row_errors(total, y, spec.zero_score)) + 0.02 * card.size
    assert got == pytest.approx((cards["loss"] + 0.02 * cards["size"]).min(), abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_auto_scans_0_1_rules_before_the_proof_by_size(seed, monkeypatch):
    """On 0/1 columns (rules) the cell floors discard most supports at once: "auto" proves by
    the scan even when few sizes are left to MIPs, and finds the brute-force optimum."""
    X, y, names = separable_problem(seed)
    spec = sw.make_spec(C0=0.02, coef_range=(-2, 2), intercept_range=(-5, 5))
    cards = enumerate_cards(X, y, names, spec)
    monkeypatch.setattr(fitting, "ENUMERATION_WORK", -1.0)
    monkeypatch.setattr(fitting, "SIZE_MIPS_FIRST", 10**6)
    card = sw.fit(X, y, feature_names=names, spec=spec)
    assert card.solver == "scan" and card.status == "optimal"
    total = X @ np.array(card.coefficients, float) + card.intercept
    got = np.mean(row_errors(total, y, spec.zero_score)) + 0.02 * card.size
    assert got == pytest.approx((cards["loss"] + 0.02 * cards["size"]).min(), abs=1e-12)


@pytest.mark.seeds(16)
def test_auto_scans_0_1_columns_under_max_fpr_or_min_tpr(seed, monkeypatch):
    """Under a class cap on 0/1 columns "auto" proves by the scan (after the best TPR or FPR),
    and its card is the brute-force optimum among the cards that keep the cap."""
    rng = np.random.default_rng(900 + seed)
    n = int(rng.integers(10, 20))
    X = rng.integers(0, 2, size=(n, 4))
    y = rng.choice([-1, 1], size=n)
    y[0], y[1] = 1, -1
    names = [f"f{j}" for j in range(4)]
    cap = (
        {"max_fpr": float(rng.choice([0.25, 0.5]))}
        if seed % 2
        else {"min_tpr": float(rng.choice([0.5, 0.75]))}
    )
    spec = sw.make_spec(C0=0.02, **BOX, **cap)
    form = build_formulation(prepare_data(X, y, feature_names=names, warn=False), spec)
    cards = enumerate_cards(X, y, names, spec)
    assert len(cards["loss"])  # the empty card's intercepts keep any one cap
    monkeypatch.setattr(fitting, "ENUMERATION_WORK", -1.0)
    monkeypatch.setattr(fitting, "SIZE_MIPS_FIRST", -1)
    card = sw.fit(X, y, feature_names=names, spec=spec)
    assert card.solver == "scan" and card.status == "optimal"
    assert "support_scan" not in card.details
    got = form.objective_of(np.array(card.coefficients, float), card.intercept)
    assert got == pytest.approx(brute_optimum(form, cards), abs=1e-12)


class _BusyClock:
    """A clock on a machine so loaded that every reading is 50 s after the last one."""

    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 50.0
        return self.now


@pytest.mark.parametrize("seed", range(3))
def test_the_scan_choice_is_the_same_under_any_load(seed, monkeypatch):
    """The scan is given up on counted work, never on seconds: with a CPU clock that runs 50 s
    per reading (a fake, loaded machine) and no time limit, "auto" gives the same card, status
    and solver as with the real clock."""
    X, y, names = separable_problem(seed, flips=12)  # noisy: the scan walks several supports
    spec = sw.make_spec(C0=0.02, coef_range=(-2, 2), intercept_range=(-5, 5))
    monkeypatch.setattr(fitting, "ENUMERATION_WORK", -1.0)
    monkeypatch.setattr(fitting, "SIZE_MIPS_FIRST", -1)
    quiet = sw.fit(X, y, feature_names=names, spec=spec)
    assert quiet.solver == "scan" and quiet.status == "optimal"
    import time

    for name in ("thread_time", "process_time"):
        monkeypatch.setattr(time, name, _BusyClock())
    busy = sw.fit(X, y, feature_names=names, spec=spec)
    assert (busy.solver, busy.status, busy.coefficients, busy.intercept) == (
        quiet.solver,
        quiet.status,
        quiet.coefficients,
        quiet.intercept,
    )


@pytest.mark.parametrize("seed", range(6))
def test_auto_proves_a_raw_table_with_nested_thresholds(seed, monkeypatch):
    """A raw table made into rules (nested thresholds of one number, levels of a text column):
    "auto" proves by the scan, and its card is the brute-force optimum over those rules, with
    signs on some rules; so is the scan's from the empty card."""
    rng = np.random.default_rng(seed)
    n = 24
    raw = pd.DataFrame(
        {"age": rng.integers(20, 80, size=n), "kind": rng.choice(["a", "b", "c"], size=n)}
    )
    y = np.where(((raw["age"] > 50) & (raw["kind"] != "c")) ^ (rng.random(n) < 0.1), 1, -1)
    builder = sw.RuleBuilder(cuts={"age": [40, 50, 60]}).fit(raw)
    rules = builder.transform(raw)
    names = list(rules.columns)
    signs = {names[0]: "+"} if seed % 2 else {}
    spec = sw.make_spec(
        C0=0.03, max_size=3, coef_range=(-3, 3), intercept_range=(-8, 8), signs=signs
    )
    cards = enumerate_cards(rules.to_numpy(), y, names, spec)
    monkeypatch.setattr(fitting, "ENUMERATION_WORK", -1.0)
    monkeypatch.setattr(fitting, "SIZE_MIPS_FIRST", 10**6)
    card = sw.fit(raw, y, rules=builder, spec=spec)
    assert card.solver == "scan" and card.status == "optimal"
    total = (
        rules.to_numpy()
        @ np.array(
            [dict(zip(card.feature_names, card.coefficients)).get(f, 0) for f in names], float
        )
        + card.intercept
    )
    got = np.mean(row_errors(total, y, spec.zero_score)) + 0.03 * card.size
    assert got == pytest.approx((cards["loss"] + 0.03 * cards["size"]).min(), abs=1e-12)
    form = build_formulation(
        prepare_data(rules.to_numpy(), y, feature_names=names, warn=False), spec
    )
    start, upper = empty_start(form)
    scanned = solve_by_scan(form, upper, start)
    assert scanned.status == "optimal"
    assert scanned.objective == pytest.approx(brute_optimum(form, cards), abs=1e-12)
