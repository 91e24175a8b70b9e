"""The threshold floor of supports with a column that is not 0/1 (solvers/scan.py's
ThresholdFloor) against brute force: below every card on the support, never below the cell
floor, and the scan that uses it still proves the brute-force optimum."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.core.formulation import build_formulation
from slimwidgets.fitting import driver as fitting
from slimwidgets.solvers import scan as scan_module
from slimwidgets.solvers.lattice_walk import LatticeWalk
from slimwidgets.solvers.lexicographic import weighted_errors
from slimwidgets.solvers.scan import ScanLimits, ThresholdFloor, solve_by_scan, support_floors
from slimwidgets.solvers.search import SearchProblem

from brute import enumerate_cards, row_errors


def real_valued_problem(seed: int, zero_score: str = "positive", fractional: bool = False):
    """A tiny problem with one column of many real values (as heart's heart-rate ratio), one
    0/1 column and one small-integer or 0/1 column; options that change the floor's
    directions (signs, value sets) or switch it off (a locked point), sometimes weights."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(7, 15))
    ratio = np.round(rng.normal(0.2, 0.3, size=n), 2)
    ratio[rng.integers(0, n)] = ratio[0]  # a tie: a threshold never splits equal values
    X = np.column_stack(
        [ratio, rng.integers(0, 2, size=n), rng.integers(0, int(rng.choice([1, 3])) + 1, size=n)]
    )
    if fractional:  # a second column of values that are not whole numbers
        X[:, 2] = np.round(rng.normal(1.0, 1.0, size=n), 1)
    y = rng.choice([-1, 1], size=n)
    y[0], y[1] = 1, -1
    names = ["ratio", "flag", "count"]
    opts = dict(coef_range=(-3, 3), intercept_range=(-8, 8), C0=float(rng.choice([0.0, 0.02])))
    kind = int(rng.integers(0, 5))
    if kind == 0:
        opts["signs"] = {"ratio": str(rng.choice(["+", "-"]))}
    elif kind == 1:
        opts["values"] = {"ratio": [-3, 0, 1, 2]}
    elif kind == 2:
        opts["lock"] = {"flag": int(rng.choice([-2, 1]))}
    weights = rng.integers(1, 4, size=n) if rng.random() < 0.3 else None
    spec = sw.make_spec(**opts, zero_score=zero_score)
    data = prepare_data(X, y, feature_names=names, sample_weight=weights, warn=False)
    return build_formulation(data, spec), enumerate_cards(X, y, names, spec, weights)


@pytest.mark.seeds(40)
def test_the_threshold_floor_is_below_every_card_on_its_support(seed):
    """For every support with the real-valued column: the floor is at most the weighted loss
    of every brute-force card whose features lie in it, and at least its cell floor."""
    form, cards = real_valued_problem(seed)
    floor = ThresholdFloor(SearchProblem(form))
    losses = np.array(
        [
            weighted_errors(form, form.row_weight, p, b)
            for p, b in zip(cards["points"], cards["intercept"])
        ]
    )
    cell = {tuple(s): f for extra in (1, 2, 3) for s, f in zip(*support_floors(form, extra))}
    checked = 0
    for size in (1, 2, 3):
        for support in itertools.combinations(range(3), size):
            if 0 not in support or not floor.helps(list(support)):
                continue
            inside = ~np.any(
                (cards["points"] != 0)[:, [j not in support for j in range(3)]], axis=1
            )
            value = floor.loss(list(support))
            if inside.any():
                assert value <= losses[inside].min() + 1e-12, (support, value)
                checked += 1
            if support in cell:
                assert value >= cell[support] - 1e-12
    assert checked > 0 or not floor.applies


@pytest.mark.seeds(30)
def test_the_scan_with_threshold_floors_proves_the_brute_force_optimum(seed):
    """From the empty card, the scan (threshold floors raised on its survivors) ends optimal at
    the brute-force optimum."""
    form, cards = real_valued_problem(100 + seed)
    if not len(cards["loss"]):
        return
    b, loss = form.intercept_losses(np.zeros(len(form.allowed)))
    start = (np.zeros(len(form.allowed)), int(b[np.argmin(loss)]))
    if not np.isfinite(loss).any() or form.full_solution(*start) is None:
        start, upper = None, math.inf
    else:
        upper = form.objective_of(*start)
    result = solve_by_scan(form, upper, start)
    best = min(form.objective_of(p, b) for p, b in zip(cards["points"], cards["intercept"]))
    assert result.status == "optimal" and result.objective == pytest.approx(best, abs=1e-12)


def _card_losses(form, cards) -> np.ndarray:
    return np.array(
        [
            weighted_errors(form, form.row_weight, p, b)
            for p, b in zip(cards["points"], cards["intercept"])
        ]
    )


@pytest.mark.seeds(40)
def test_the_lattice_floor_is_below_every_card_with_the_column(seed):
    """For every support with the real-valued column: the lattice floor is at most the weighted
    loss of every brute-force card whose points on the fixed columns (the fractional ones) are
    not 0 and whose other features lie in the support, and at least the threshold floor; under
    either rule for a zero total (the margins move the lattice), with one or two fractional
    columns."""
    form, cards = real_valued_problem(
        seed, zero_score=("positive", "error")[seed % 2], fractional=seed % 3 == 0
    )
    floor = ThresholdFloor(SearchProblem(form))
    losses = _card_losses(form, cards)
    checked = 0
    for size in (1, 2, 3):
        for support in itertools.combinations(range(3), size):
            value = floor.lattice_loss(list(support))
            if 0 not in support or value is None:
                continue
            fixed = floor.lattice_columns(list(support))
            assert 0 in fixed
            outside = [j not in support for j in range(3)]
            held = np.all(cards["points"][:, fixed] != 0, axis=1) & ~np.any(
                (cards["points"] != 0)[:, outside], axis=1
            )
            if held.any():
                assert value <= losses[held].min() + 1e-12, (support, value)
                checked += 1
            assert value >= floor.loss(list(support)) - 1e-12
    assert checked > 0 or not floor.applies


@pytest.mark.seeds(40)
def test_the_lattice_walk_finds_the_best_card_of_every_support(seed):
    """For every support: the lattice walk's card has the least objective of the brute-force
    cards whose non-zero points are exactly that support (or it says it does not hold: locked
    points), and it never returns a card at or above the bound."""
    form, cards = real_valued_problem(
        200 + seed, zero_score=("positive", "error")[seed % 2], fractional=seed % 3 == 0
    )
    prob = SearchProblem(form)
    walk = LatticeWalk(prob, ThresholdFloor(prob))
    objective = np.array(
        [form.objective_of(p, b) for p, b in zip(cards["points"], cards["intercept"])]
    )
    used = cards["points"] != 0
    for size in (1, 2, 3):
        for support in itertools.combinations(range(3), size):
            found = walk.best(list(support), math.inf)
            if found is None:
                assert np.any(prob.fixed_nonzero) or not walk.floor.helps(list(support))
                continue
            exact = np.all(used == [j in support for j in range(3)], axis=1)
            best = objective[exact].min() if exact.any() else math.inf
            assert found[0] == pytest.approx(best, abs=1e-12), support
            if math.isfinite(best):
                assert set(np.flatnonzero(found[1])) == set(support)
                assert form.objective_of(found[1], found[2]) == pytest.approx(best, abs=1e-12)
                assert walk.best(list(support), best)[0] == math.inf


def test_the_lattice_floor_sees_what_a_free_threshold_cannot():
    """With points in -1..1 the ratio (values in 0..1) moves a total by less than 1, so a whole
    number K cannot put a threshold between its values: one label for all, 3 errors of 6,
    where a free threshold ("ratio >= 0.35") leaves none."""
    X = np.array([[0.1], [0.2], [0.3], [0.4], [0.5], [0.6]])
    y = [-1, -1, -1, 1, 1, 1]
    spec = sw.make_spec(coef_range=(-1, 1))
    form = build_formulation(prepare_data(X, y, warn=False), spec)
    floor = ThresholdFloor(SearchProblem(form))
    assert floor.loss([0]) == 0.0
    assert floor.lattice_loss([0]) == pytest.approx(3 * form.row_weight[0])
    wide = build_formulation(prepare_data(X, y, warn=False), sw.make_spec(coef_range=(-20, 20)))
    assert ThresholdFloor(SearchProblem(wide)).lattice_loss([0]) == 0.0  # 20 * 0.35 = 7


def test_the_lattice_floor_fixes_every_fractional_column_while_few():
    """Both columns with values that are not whole numbers get their points fixed; a box too
    wide for that (100 x 100 combinations) leaves the threshold floor alone."""
    X = np.array([[0.1, 0.5], [0.2, 1.5], [0.3, 0.5], [0.4, 2.5]])
    data = prepare_data(X, [1, -1, 1, -1], warn=False)
    floor = ThresholdFloor(SearchProblem(build_formulation(data, sw.make_spec())))
    assert floor.lattice_columns([0, 1]) == [0, 1] and floor.lattice_columns([1]) == [1]
    assert floor.lattice_points([0, 1]).shape == (400, 2)
    wide = ThresholdFloor(
        SearchProblem(build_formulation(data, sw.make_spec(coef_range=(-50, 50))))
    )
    assert wide.lattice_columns([0, 1]) is None and wide.lattice_loss([0, 1]) is None
    assert wide.lattice_columns([0]) == [0]


def test_the_threshold_floor_sees_what_the_cell_floor_cannot():
    """Every row its own cell (cell floor 0), yet no threshold on the ratio, one per value of
    the flag, gets the alternating labels right: the floor counts the errors that must stay."""
    X = np.array([[0.1, 0], [0.2, 0], [0.3, 0], [0.4, 0], [0.5, 1], [0.6, 1]])
    y = [1, -1, 1, -1, 1, 1]
    form = build_formulation(prepare_data(X, y, warn=False), sw.make_spec())
    floor = ThresholdFloor(SearchProblem(form))
    assert support_floors(form, 2)[1][0] == 0.0
    unit = form.row_weight[0]
    assert floor.loss([0, 1]) == pytest.approx(1 * unit)  # "ratio >= 0.3" errs once at best


class _BusyClock:
    """A clock that runs 50 s per reading: a machine so loaded that any choice made on
    seconds would change."""

    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 50.0
        return self.now


@pytest.mark.seeds(3)
@pytest.mark.slow
def test_auto_on_real_valued_columns_chooses_the_same_under_any_load(seed, monkeypatch):
    """ "auto" through the scan with threshold floors, without a time limit: with every clock of
    ``time`` running 50 s per reading, the same card, status and solver as with the real one
    (every strategy choice is made on counted work), and that card is the brute-force optimum."""
    rng = np.random.default_rng(seed)
    n = 40
    X = np.column_stack([np.round(rng.normal(0.2, 0.3, size=n), 2), rng.integers(0, 2, (n, 3))])
    y = np.where(X[:, 0] + X[:, 1] - X[:, 2] > 0.3, 1, -1)
    y[rng.integers(0, n, size=6)] *= -1
    names = ["ratio", "a", "b", "c"]
    spec = sw.make_spec(C0=0.02, coef_range=(-2, 2), intercept_range=(-5, 5), time_limit=None)
    monkeypatch.setattr(fitting, "ENUMERATION_WORK", -1.0)  # no walk of the whole box
    monkeypatch.setattr(fitting, "SIZE_MIPS_FIRST", -1)  # no proof by size first
    quiet = sw.fit(X, y, feature_names=names, spec=spec)
    assert quiet.solver == "scan" and quiet.status == "optimal"
    import time

    for name in ("perf_counter", "monotonic", "process_time", "thread_time"):
        monkeypatch.setattr(time, name, _BusyClock())
    busy = sw.fit(X, y, feature_names=names, spec=spec)
    monkeypatch.undo()
    assert (busy.solver, busy.status, busy.coefficients, busy.intercept) == (
        quiet.solver,
        quiet.status,
        quiet.coefficients,
        quiet.intercept,
    )
    cards = enumerate_cards(X, y, names, spec)
    brute = (cards["loss"] + 0.02 * cards["size"]).min()
    total = X @ np.array(quiet.coefficients, dtype=float) + quiet.intercept
    got = np.mean(row_errors(total, y, spec.zero_score)) + 0.02 * quiet.size
    assert got == pytest.approx(brute, abs=1e-12)


class _ScanSpy:
    """What the scan's decline rule read at each size (survivors, walk work left, refinement
    work per survivor) and the sizes of the supports whose floors it raised."""

    def __init__(self, monkeypatch):
        self.sizes: list[dict] = []
        self.refined: list[int] = []
        bits_scan, proof_scan = scan_module._Bitsets.scan, scan_module._ScanProof.scan
        lattice = ThresholdFloor.lattice_loss

        def count_survivors(bits, extra, *args):
            found = bits_scan(bits, extra, *args)
            if found is not None:
                self.sizes[-1]["survivors"] = len(found[0])
            return found

        def read_rule(proof, extra):
            self.sizes.append(dict(extra=extra, left=proof.walk_left, rate=proof.refine_rate))
            return proof_scan(proof, extra)

        def note_refined(floor, support, budget=math.inf):
            self.refined.append(len(support))
            return lattice(floor, support, budget)

        monkeypatch.setattr(scan_module._Bitsets, "scan", count_survivors)
        monkeypatch.setattr(scan_module._ScanProof, "scan", read_rule)
        monkeypatch.setattr(ThresholdFloor, "lattice_loss", note_refined)


@pytest.mark.seeds(30)
def test_the_scan_declines_a_size_whose_refinement_exceeds_the_walk_work_left(seed, monkeypatch):
    """Counted work, no clock (each support's floor costs 1,000 passes over the rows): with
    less walk work left than a size's survivors x the size before's refinement work per
    survivor, the scan declines before raising any floor of that size, its bound below the
    brute-force optimum; with twice that work left, it refines them."""
    form, cards = real_valued_problem(300 + seed, fractional=True)
    if not len(cards["loss"]) or not ThresholdFloor(SearchProblem(form)).applies:
        return
    monkeypatch.setattr(ThresholdFloor, "passes", lambda floor, support: 1000)
    best = min(form.objective_of(p, b) for p, b in zip(cards["points"], cards["intercept"]))
    unlimited = 1e12  # finite: the rule reads what is left of it
    spy = _ScanSpy(monkeypatch)
    full = solve_by_scan(form, math.inf, None, limits=ScanLimits(math.inf, unlimited))
    assert full.status == "optimal" and full.objective == pytest.approx(best, abs=1e-12)
    costly = [s for s in spy.sizes if s.get("survivors", 0) * s["rate"] > 0]
    if not costly:  # no size after a refined one has survivors
        return
    size = costly[-1]
    spent, predicted = unlimited - size["left"], size["survivors"] * size["rate"]
    for share, declines in ((0.5, True), (2.0, False)):
        spy = _ScanSpy(monkeypatch)
        limits = ScanLimits(math.inf, spent + share * predicted)
        result = solve_by_scan(form, math.inf, None, limits=limits)
        assert result.bound <= best + 1e-12 <= result.objective + 2e-12
        width = size["extra"]  # no required features: a support's size is its extra
        assert (width in spy.refined) is not declines, (share, spy.refined)
        if declines:
            assert result.status == "declined" and result.settled == width - 1
