"""Large tables (fitting/large.py): few patterns fit as before; many are searched on a sample and
every figure of the card is that of all rows; the objective on all rows is the formulation's;
the time limit holds in every phase (fake clocks, never wall-clock speed)."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.core.formulation import build_formulation
from slimwidgets.core.patterns import patterns_of
from slimwidgets.fitting import driver, large


def planted(n_rows, n_rules=8, seed=0, noise=0.1):
    """0/1 rules, label from a planted card (3 r0 + 2 r1 + 2 r2 + r3 - 2 r4 >= 5) with noise."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        (rng.random((n_rows, n_rules)) < 0.5).astype(np.uint8),
        columns=[f"r{j}" for j in range(n_rules)],
    )
    y = pd.Series(
        ((planted_score(X) >= 5) ^ (rng.random(n_rows) < noise)).astype(int), name="event"
    )
    return X, y


def planted_score(X):
    v = X.astype(int)  # uint8 columns: 0 - 2 would wrap
    return 3 * v.r0 + 2 * v.r1 + 2 * v.r2 + v.r3 - 2 * v.r4


@pytest.fixture
def sampled(monkeypatch):
    """Thresholds small enough that a table of a few thousand rows is searched on a sample."""
    monkeypatch.setattr(large, "LARGE_ROWS", 1_000)
    monkeypatch.setattr(large, "SAMPLE_ABOVE", 200)
    monkeypatch.setattr(large, "SAMPLE_CELLS", 8_000)
    monkeypatch.setattr(large, "MIN_SAMPLE", 400)


SPECS = [
    dict(max_size=3),
    dict(max_size=3, max_fpr=0.1),
    dict(min_tpr=0.8),
    dict(class_weights="balanced"),
    dict(zero_score="error", C0=0.01),
    dict(intercept_range=(-2, 1), signs={"r4": "-"}),
]


@pytest.mark.parametrize("options", SPECS)
def test_the_objective_on_all_rows_is_the_formulations(options):
    """AllRows scores a card with its best intercept without building the program: the same
    value as the formulation built on all rows, minimised over every intercept by brute force."""
    X, y = planted(600, 5, seed=1)
    spec = sw.make_spec(**options)
    rows = large.AllRows(patterns_of(X, y), spec)
    form = build_formulation(
        prepare_data(X, y), spec.replace(C0=rows.costs.C0_default if spec.C0 is None else spec.C0)
    )
    lo, hi = form.intercept_box
    rng = np.random.default_rng(2)
    for _ in range(12):
        coefs = rng.integers(-3, 4, 5) * (rng.random(5) < 0.6)
        if options.get("signs"):
            coefs[4] = -abs(coefs[4])
        values = [form.objective_of(coefs, b) for b in range(lo, hi + 1)]
        feasible = [
            v
            for b, v in zip(range(lo, hi + 1), values)
            if form.wrong_rows is not None and _caps_hold(form, coefs, b)
        ]
        intercept, value = rows.best_intercept(coefs)
        if not feasible:
            assert value == math.inf
            continue
        assert value == pytest.approx(min(feasible), abs=1e-12)
        assert form.objective_of(coefs, intercept) == pytest.approx(
            value, abs=1e-12
        ) and _caps_hold(form, coefs, intercept)
        assert rows.cell_floor() <= value + 1e-12


def _caps_hold(form, coefs, intercept):
    wrong = form.wrong_rows(coefs, intercept)
    return all(
        form.data.weight[(form.data.y == cls) & wrong].sum() <= budget + 1e-9
        for cls, budget in form.caps
    )


def test_few_patterns_fit_exactly_as_before(monkeypatch):
    """A large table with few distinct patterns is the usual fit, on the same Dataset: same
    card, same proof."""
    X, y = planted(3_000, 6, seed=4)
    monkeypatch.setattr(large, "LARGE_ROWS", 1_000)
    card = sw.fit(X, y, max_size=3)
    before = driver.fit_dataset(prepare_data(X, y), sw.make_spec(max_size=3))
    assert card.details["n_samples"] == 3_000 and "sample" not in card.details
    assert (card.points, card.intercept, card.status, card.objective) == (
        before.points,
        before.intercept,
        "optimal",
        before.objective,
    )


@pytest.mark.parametrize("options", [dict(max_size=5), dict(max_size=4, max_fpr=0.05)])
@pytest.mark.slow
def test_a_card_searched_on_a_sample_carries_the_figures_of_all_rows(sampled, options):
    X, y = planted(6_000, 10, seed=5)
    seen = []
    card = sw.fit(X, y, time_limit=4, on_incumbent=seen.append, **options)
    sample = card.details["sample"]
    assert sample["rows"] < 6_000 and sample["of"] == card.details["n_samples"] == 6_000
    assert card.train_metrics == card.metrics(X, y)  # every figure is all rows'
    assert sw.check_card(card, prepare_data(X, y), card.spec) == []  # caps hold on all rows
    spec = card.spec.replace(C0=large.AllRows(patterns_of(X, y), card.spec).costs.C0_default)
    form = build_formulation(prepare_data(X, y), spec)
    assert card.objective == pytest.approx(
        form.objective_of(np.array(card.coefficients), card.intercept), abs=1e-12
    )
    assert (
        card.status == "time_limit" and card.bound <= card.objective
    )  # a floor proven on all rows, no more
    assert card.bound == pytest.approx(large.AllRows(patterns_of(X, y), card.spec).cell_floor())
    assert seen and seen[-1].objective == pytest.approx(
        card.objective
    )  # the last report is the card
    assert all(
        b.objective < a.objective for a, b in zip(seen, seen[1:])
    )  # reports improve on all rows
    assert "searched on a sample of" in sw.describe(card).headline
    assert sw.ScoringSystem.from_json(card.to_json()).details["sample"]["rows"] == sample["rows"]


@pytest.mark.slow
def test_the_sampled_search_finds_the_planted_card(sampled):
    X, y = planted(6_000, 10, seed=6)
    card = sw.fit(X, y, max_size=5, time_limit=4)
    assert card.train_metrics.error <= float(np.mean((planted_score(X) >= 5) != (y == 1))) + 0.005


class FakeClock:
    """perf_counter for fitting/large.py: each look moves it on by ``step`` seconds."""

    def __init__(self, step):
        self.now, self.step = 1000.0, step

    def perf_counter(self):
        self.now += self.step
        return self.now


@pytest.mark.parametrize("step", [0.001, 0.05, 3.0])
@pytest.mark.slow
def test_every_phase_gets_only_the_time_left(sampled, monkeypatch, step):
    """Whatever the phases cost (each look at a fake clock costs ``step`` seconds, the deadline
    passes before the search when it is 3 s), each search on a sample is given only what is
    left before the deadline, and the card comes back."""
    clock = FakeClock(step)
    monkeypatch.setattr(large, "time", clock)
    budgets = []
    real_side, real_search = large.SideSearch, large.local_search

    def side(form, start, upper, time_left, *args):
        budgets.append(("side search", clock.now, time_left))
        return real_side(form, start, upper, min(time_left, 0.2), *args)

    def search(form, *, time_budget, **kwargs):
        budgets.append(("search", clock.now, time_budget))
        return real_search(form, time_budget=min(time_budget, 0.2), **kwargs)

    monkeypatch.setattr(large, "SideSearch", side)
    monkeypatch.setattr(large, "local_search", search)
    X, y = planted(4_000, 10, seed=7)
    started = clock.perf_counter()
    limit = 10.0
    card = large.fit_on_a_sample(
        patterns_of(X, y), sw.make_spec(max_size=4, time_limit=limit), started=started
    )
    for phase, at, budget in budgets:  # the deadline watcher looks at the clock too: 1 s of slack
        assert at + budget <= started + limit + 1.0 or step > 1, (phase, at - started, budget)
    assert card.status == "time_limit" and card.train_metrics == card.metrics(X, y)


def test_the_polish_on_all_rows_stops_at_its_deadline(monkeypatch):
    X, y = planted(2_000, 6, seed=8)
    rows = large.AllRows(patterns_of(X, y), sw.make_spec(max_size=5))
    start = np.array([1, 1, 1, 1, -3, 0])
    monkeypatch.setattr(large, "time", FakeClock(1.0))
    coefs, intercept, value = rows.polish(start, deadline=0.0)  # already past
    assert coefs.tolist() == start.tolist() and value == rows.best_intercept(start)[1]
    monkeypatch.undo()
    coefs, _, better = rows.polish(start, deadline=math.inf)
    assert better < value and np.all(np.sign(coefs) == np.sign(start))  # same rules, better points
    assert coefs.tolist() == [3, 2, 2, 1, -2, 0]  # here: the planted card


def test_rows_by_score_give_the_same_figures(sampled):
    X, y = planted(3_000, 7, seed=9)
    fit = large._SampledFit(patterns_of(X, y), sw.make_spec(max_size=5), 0.0, None, None)
    for coefs in itertools.islice(itertools.product([-1, 0, 2], repeat=7), 0, 2000, 97):
        card = sw.ScoringSystem(tuple(X.columns), coefs, -1)
        by_score = fit._rows_by_score(np.array(coefs))
        labels = np.where(by_score.y == 1, 1, 0)
        assert card.metrics(by_score.X, labels, sample_weight=by_score.weight) == card.metrics(X, y)


def test_a_busy_machine_searches_a_smaller_sample(sampled, monkeypatch):
    """The sample's program is built at the pace the first card's smaller one was: when that
    would take more than BUILD_SHARE of the time left, the sample is cut down to what fits
    (never below MIN_SAMPLE). A decision on a measured pace, here a fake one."""
    clock = FakeClock(0.0)
    monkeypatch.setattr(large, "time", clock)
    X, y = planted(4_000, 10, seed=3)
    fit = large._SampledFit(
        patterns_of(X, y), sw.make_spec(max_size=4, time_limit=10), clock.now, None, None
    )
    assert fit.n_sample == 800  # 8,000 rule values of 10 rules
    fit.pace = (1e-4, 80)  # 0.08 s for 800 rows: well inside 15 % of the 9.7 s left
    assert fit._affordable_sample() == 800
    fit.pace = (0.0025, 80)  # 2 s: cut to the 1.46 s that 15 % of the time left allows
    assert 570 <= fit._affordable_sample() <= 590
    fit.pace = (0.01, 80)  # 8 s: cut to MIN_SAMPLE
    assert fit._affordable_sample() == 400
