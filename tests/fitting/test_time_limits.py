"""The time limit of ``fit`` on tables searched whole (fitting/driver.py), phase by phase: rule
building, reading, the first search, the solvers and the polish each get only the time left
(fake clocks: never wall-clock speed or machine load). The sampled path's phases are tested
in test_large.py, the Dask reduction's in tests/core/test_dask_rows.py."""

import math
import time as real_time

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.core.formulation import build_formulation
from slimwidgets.core.patterns import patterns_of
from slimwidgets.fitting import driver, large
from slimwidgets.solvers import polish as polish_module


class FakeClock:
    """``time`` for fitting/driver.py: each look at perf_counter moves it on by ``step``
    seconds; ``jump`` moves it on at once (a phase that took that long)."""

    def __init__(self, step):
        self.now, self.step = 1000.0, step

    def perf_counter(self):
        self.now += self.step
        return self.now

    def jump(self, seconds):
        self.now += seconds


def table(n_rows=400, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        (rng.random((n_rows, 7)) < 0.5).astype(np.uint8), columns=[f"r{j}" for j in range(7)]
    )
    score = 3 * X.r0 + 2 * X.r1 - 2 * X.r2 + X.r3.astype(int)
    y = ((score >= 3) ^ (rng.random(n_rows) < 0.15)).astype(int)
    return X, y


def watch_phases(monkeypatch, clock):
    """Record (phase, fake time at its start, the seconds it was given) for the first search,
    the solvers and the polish; each really runs at most 0.2 s (the test's own pace)."""
    phases = []
    real_search, real_prove, real_polish = driver.local_search, driver._prove, driver.polish

    def search(form, *, time_budget, **kwargs):
        phases.append(("search", clock.now, time_budget))
        return real_search(form, time_budget=min(time_budget, 0.2), **kwargs)

    def prove(form, spec, upper, start, time_left, *args):
        phases.append(("solvers", clock.now, time_left))
        # the solvers run on the real clock (their own looks at it would otherwise each cost
        # ``step`` and leave them nothing); the fake clock then moves on by what they took
        budget = None if time_left is None else min(time_left, 0.2)
        monkeypatch.setattr(driver, "time", real_time)
        began = real_time.perf_counter()
        try:
            return real_prove(form, spec, upper, start, budget, *args)
        finally:
            monkeypatch.setattr(driver, "time", clock)
            clock.jump(min(real_time.perf_counter() - began, budget or 0.2))

    def polish(form, coefficients, intercept, *, deadline=math.inf, **kwargs):
        phases.append(("polish", clock.now, deadline - clock.now))
        return real_polish(
            form,
            coefficients,
            intercept,
            deadline=-math.inf if deadline <= clock.now else math.inf,
            **kwargs,
        )

    monkeypatch.setattr(driver, "local_search", search)
    monkeypatch.setattr(driver, "_prove", prove)
    monkeypatch.setattr(driver, "polish", polish)
    return phases


@pytest.mark.parametrize("step", [0.001, 0.05, 0.5])
@pytest.mark.slow
def test_each_phase_is_given_only_the_time_left(monkeypatch, step):
    """Whatever each look at the clock costs, every phase ends by the time limit when it keeps
    to what it is given (the polish leaves room for the card's figures and checks)."""
    clock = FakeClock(step)
    monkeypatch.setattr(driver, "time", clock)
    phases = watch_phases(monkeypatch, clock)
    X, y = table()
    limit = 5.0
    started = clock.now
    card = sw.fit(X, y, max_size=4, C0=0.001, time_limit=limit)
    assert [p[0] for p in phases] == ["search", "solvers", "polish"]
    for phase, at, seconds in phases:  # the first search may run its floor past the limit
        assert (
            at + seconds
            <= started + limit + 2 * step + (phase == "search") * driver.HEURISTIC_SECONDS
        ), phase
    assert card.solve_time <= limit + 10 * step  # the card's clock reads the same fake time
    assert "skipped" not in card.details
    assert sw.check_card(card, prepare_data(X, y), card.spec) == []


@pytest.mark.filterwarnings(
    "ignore::slimwidgets.DegenerateCardWarning"
)  # 0.01 s of search may give one
@pytest.mark.parametrize("slow", ["_rules", "_read_table"])
def test_building_rules_and_reading_the_table_count_against_the_limit(monkeypatch, slow):
    """When building the rules or reading the table takes the whole limit, the first search
    gets a tenth of the limit at most 0.3 s (a card at all), the solvers and the polish are not
    started, and a checked card still comes back, saying why nothing else ran."""
    clock = FakeClock(0.0)
    monkeypatch.setattr(driver, "time", clock)
    phases = watch_phases(monkeypatch, clock)
    real = getattr(driver, slow)

    def phase_that_takes_the_limit(*args, **kwargs):
        out = real(*args, **kwargs)
        clock.jump(12.0)
        return out

    monkeypatch.setattr(driver, slow, phase_that_takes_the_limit)
    X, y = table(seed=1)
    card = sw.fit(X, y, max_size=4, time_limit=10)
    given = {phase: seconds for phase, _, seconds in phases}
    assert given == {
        "search": min(driver.HEURISTIC_SECONDS, 10 / 10)
    }  # no solver, no polish: no time
    assert card.status == "time_limit" and card.solver == "local search"
    assert card.details["skipped"] == ("the solvers", "the polish of ties")  # said, not silent
    assert sw.check_card(card, prepare_data(X, y), card.spec) == []


def test_the_polish_stops_at_its_deadline_with_the_same_objective():
    """The polish returns the card it has reached when its deadline passes: at once, the card
    it was given; every card on its way has the same objective."""
    X = np.array([[1], [1], [1], [0], [0], [0]])
    form = build_formulation(prepare_data(X, [1, 1, 1, 0, 0, 0]), sw.make_spec(coef_range=(0, 3)))
    lam, b = polish_module.polish(form, np.array([3]), -1, deadline=-math.inf)
    assert (lam.tolist(), b) == ([3], -1)
    lam, b = polish_module.polish(form, np.array([3]), -1)
    assert (lam.tolist(), b) == ([3], -2) and form.objective_of(lam, b) == form.objective_of(
        np.array([3]), -1
    )


def test_a_short_limit_on_many_patterns_searches_a_sample():
    """Patterns too many for the limit to build and prove the program on all of them (rule
    values per second of the limit) are searched on a sample; with a longer limit, or no
    limit, the same patterns are fitted whole. A decision on sizes, never on a clock."""
    X, y = table(n_rows=12_000, seed=2)
    X = X.assign(
        **{
            f"s{j}": (np.random.default_rng(j).random(len(X)) < 0.5).astype(np.uint8)
            for j in range(20)
        }
    )
    patterns = large.read_large(X, y)
    values = patterns.n_cells * len(patterns.feature_names)
    at = values / large.FULL_VALUES_PER_SECOND
    assert patterns.n_cells <= large.SAMPLE_ABOVE  # not too many for a fit on all rows in itself
    assert large.searched_on_a_sample(patterns, sw.make_spec(time_limit=at / 2))
    assert not large.searched_on_a_sample(patterns, sw.make_spec(time_limit=2 * at))
    assert not large.searched_on_a_sample(patterns, sw.make_spec())
    assert not large.searched_on_a_sample(
        patterns, sw.make_spec(time_limit=at / 2, loss="logistic")
    )


def test_a_size_program_built_past_the_deadline_is_not_solved(monkeypatch):
    """The proof by size builds each size's program (its own big-M rows) before its MIP: when
    the deadline passes while it is built, the MIP is not started with the time that was left
    before (the fit stops there, with the floor of the sizes not settled)."""
    from slimwidgets.core.formulation import Formulation
    from slimwidgets.solvers import decomposition

    clock = FakeClock(0.0)
    monkeypatch.setattr(decomposition, "time", clock)
    real = Formulation.restricted

    def slow_build(self, *args, **kwargs):
        out = real(self, *args, **kwargs)
        clock.jump(100.0)
        return out

    monkeypatch.setattr(Formulation, "restricted", slow_build)
    solved = []
    monkeypatch.setattr(decomposition, "_solve_size", lambda *args: solved.append(args))
    X, y = table(seed=3)
    form = build_formulation(prepare_data(X, y), sw.make_spec(max_size=4, C0=0.001))
    start = (np.zeros(7), 0)
    upper = form.objective_of(np.zeros(7), 0)
    result = decomposition.solve_by_size(form, upper, start, (1, 4), time_left=10.0)
    assert solved == [] and result.status == "time_limit" and result.bound <= result.objective


@pytest.mark.parametrize("slow_search", [False, True])
def test_each_risk_phase_ends_by_the_limit_less_the_card_s_reserve(monkeypatch, slow_search):
    """A risk fit's search and its floor over the whole box end by the time limit less the
    reserve for the card's figures and checks; a search that takes the whole limit leaves the
    floor no time (it is not started: its first iteration alone may take seconds), and the card
    is checked, with no floor claimed."""
    from slimwidgets.core.family import RISK
    from slimwidgets.fitting import risk_driver

    clock = FakeClock(0.01)
    monkeypatch.setattr(risk_driver, "time", clock)
    ends, real_search, real_floor = [], RISK.loss.piece("search"), RISK.loss.piece("floor")

    def search(prob, *, time_limit, **kwargs):
        ends.append(("search", clock.now + time_limit))
        found = real_search(prob, time_limit=min(time_limit, 0.2), **kwargs)
        clock.jump(100.0 if slow_search else 0.0)
        return found

    def floor(prob, *, deadline, **kwargs):
        ends.append(("floor", deadline))
        return real_floor(prob, deadline=-math.inf if deadline <= clock.now else math.inf, **kwargs)

    monkeypatch.setattr(RISK.loss, "search", search)
    monkeypatch.setattr(RISK.loss, "floor", floor)
    X, y = table(seed=4)
    data = prepare_data(X, y)
    started = clock.now
    card = risk_driver.fit_risk(
        data, sw.make_spec(loss="logistic", solver="highs", max_size=4, time_limit=10)
    )
    reserve = min(risk_driver.MARGIN_SHARE * 10, risk_driver.MARGIN_SECONDS)  # the least it keeps
    assert [phase for phase, _ in ends] == (["search"] if slow_search else ["search", "floor"])
    for phase, end in ends:
        assert end <= started + 10 - reserve, phase
    assert (card.bound is None) == slow_search and (
        slow_search or card.bound <= card.objective + 1e-9
    )
    assert sw.check_card(card, data, card.spec) == []


def raw_rows(n_rows=300, seed=5):
    """A small raw table (numbers with missing values, text): fit builds its rules and, given no
    size, chooses the size and the cut points by CV."""
    rng = np.random.default_rng(seed)
    age = rng.normal(58, 12, n_rows).round(1)
    bmi = rng.normal(27, 4, n_rows).round(1)
    bmi[rng.random(n_rows) < 0.1] = np.nan
    sex = rng.choice(["F", "M"], n_rows)
    risk = (age - 58) / 12 + 0.5 * (sex == "M") + rng.normal(0, 0.8, n_rows)
    return pd.DataFrame({"age": age, "bmi": bmi, "sex": sex}), (risk > 0.3).astype(int)


@pytest.mark.parametrize("fit_seconds, folds_in_time", [(2.0, 1), (0.5, 4)])
@pytest.mark.slow
def test_the_size_cv_starts_no_fit_after_its_deadline(monkeypatch, fit_seconds, folds_in_time):
    """Each fold fit takes ``fit_seconds`` on a fake clock: none starts at or after the CV's
    deadline, each is given at most the time to it, and the choice rests on the folds whose every
    size was fit in time; with fewer than MIN_FOLDS of them there is no choice (the cap), and the
    choice says why."""
    from slimwidgets.fitting import size_cv

    clock = FakeClock(0.0)
    monkeypatch.setattr(size_cv, "time", clock)
    starts = []

    def slow_fit(X, y, **kwargs):
        starts.append((clock.now, kwargs["spec"].time_limit))
        card = sw.fit(X, y, **kwargs)
        clock.jump(fit_seconds)
        return card

    X, y = table(seed=6)
    deadline = clock.now + 6.0
    size, choice = size_cv.choose_size(
        slow_fit, X, y, sw.make_spec(size_cv=5, max_size=3, time_limit=10), deadline=deadline
    )
    assert starts and all(
        at < deadline and at + seconds <= deadline + 1e-9 for at, seconds in starts
    )
    assert len(starts) == min(
        5 * 3, math.ceil(6.0 / fit_seconds)
    )  # every size of a fold, folds in turn
    if folds_in_time < size_cv.MIN_FOLDS:
        assert (
            size == 3
            and choice["candidates"] == []
            and "no time for the size CV" in choice["skipped"]
        )
    else:
        assert "skipped" not in choice and choice["folds_in_time"] == folds_in_time
        assert [r["max_size"] for r in choice["candidates"]] == [1, 2, 3] and size == choice[
            "chosen"
        ]


@pytest.mark.filterwarnings("ignore::slimwidgets.DegenerateCardWarning")
def test_rules_that_take_the_limit_leave_no_time_for_the_size_cv(monkeypatch):
    """Building the rules of a raw table takes the whole limit (a fake clock): no fold fit is
    started and no further table of cut points is built; the card is fit at the largest size,
    its spec claims no CV, its details say what was skipped, and it is checked on all rows."""
    from slimwidgets.core.wording import describe_spec
    from slimwidgets.fitting import size_cv

    clock = FakeClock(0.0)
    for module in (driver, size_cv):
        monkeypatch.setattr(module, "time", clock)
    real_rules, real_fit, fold_fits = driver._rules, driver.fit, []

    def slow_rules(*args, **kwargs):
        out = real_rules(*args, **kwargs)
        clock.jump(12.0)
        return out

    monkeypatch.setattr(driver, "_rules", slow_rules)
    monkeypatch.setattr(
        driver, "fit", lambda *args, **kwargs: fold_fits.append(args) or real_fit(*args, **kwargs)
    )
    X, y = raw_rows()
    card = real_fit(X, y, time_limit=10)
    chosen = card.details["size_cv"]
    assert fold_fits == []
    assert "no time for the size CV" in chosen["skipped"] and chosen["untried"] == [9]
    assert card.spec.size_cv is None and "size chosen by" not in describe_spec(card.spec)
    assert card.spec.max_size == size_cv.LARGEST_SIZE and card.status == "time_limit"
    assert sw.check_card(card, prepare_data(card.rules.transform(X), y), card.spec) == []


@pytest.mark.slow
def test_a_large_table_is_cross_validated_on_a_stratified_sample(monkeypatch):
    """More rows than CV_ROWS: the folds are drawn from a seeded sample of that many rows, each
    class keeping its share; the choice says so. A decision on sizes, never on a clock."""
    from slimwidgets.fitting import size_cv

    monkeypatch.setattr(size_cv, "CV_ROWS", 200)
    seen = []

    def counting_fit(X, y, **kwargs):
        seen.append((len(X), np.bincount(np.asarray(y))))
        return sw.fit(X, y, **kwargs)

    X, y = table(n_rows=600, seed=7)
    y = np.asarray(y)
    size, choice = size_cv.choose_size(counting_fit, X, y, sw.make_spec(size_cv=4, max_size=2))
    assert choice["rows"] == {"used": 200, "of": 600}
    assert all(n == 150 for n, _ in seen)  # 3 of 4 folds of the 200 rows
    rows = size_cv._cv_rows(y)
    assert abs(y[rows].mean() - y.mean()) < 0.01 and np.array_equal(rows, size_cv._cv_rows(y))


def test_the_dense_floor_starts_no_pass_over_the_rows_after_its_deadline(monkeypatch):
    """One pass over the rows takes 100 s on a fake clock: the floor over the whole box stops
    after the first pass (not at the end of an iteration of several), and the floor it states,
    the tangent bound at the point it evaluated, is valid: no higher than the converged one."""
    from slimwidgets.core.losses import LogisticLoss
    from slimwidgets.solvers import risk_branch_and_bound
    from slimwidgets.solvers.logistic import RiskProblem

    X, y = table(seed=8)
    prob = RiskProblem.from_spec(prepare_data(X, y), sw.make_spec(loss="logistic", max_size=3))
    converged = risk_branch_and_bound.dense_floor(prob)
    clock = FakeClock(0.0)
    monkeypatch.setattr(risk_branch_and_bound, "time", clock)
    passes, real = [], LogisticLoss.column_dots

    def slow_pass(self, p):
        passes.append(clock.now)
        clock.jump(100.0)
        return real(self, p)

    monkeypatch.setattr(LogisticLoss, "column_dots", slow_pass)
    floor = risk_branch_and_bound.dense_floor(prob, deadline=clock.now + 50.0)
    assert len(passes) == 1 and math.isfinite(floor) and floor <= converged + 1e-9


@pytest.mark.filterwarnings("ignore::slimwidgets.DegenerateCardWarning")
def test_a_sample_fit_whose_limit_passed_while_reading_keeps_its_first_search(monkeypatch):
    """Many patterns whose reading took the whole limit (a fake clock): the first card's search on
    a small sample still gets a tenth of the limit (at most FIRST_SECONDS: a card at all), the
    search on the full sample is not started (nor its program built), the card says so and is
    measured on all rows."""
    monkeypatch.setattr(large, "SAMPLE_CELLS", 8_000)
    monkeypatch.setattr(large, "MIN_SAMPLE", 400)
    clock = FakeClock(0.0)
    monkeypatch.setattr(large, "time", clock)
    budgets, sides, real_search = [], [], large.local_search
    monkeypatch.setattr(
        large,
        "local_search",
        lambda form, *, time_budget, **kw: (
            budgets.append(time_budget) or real_search(form, time_budget=time_budget, **kw)
        ),
    )
    monkeypatch.setattr(large, "SideSearch", lambda *args: sides.append(args))
    X, y = table(n_rows=4_000, seed=9)
    limit = 2.0
    card = large.fit_on_a_sample(
        patterns_of(X, y), sw.make_spec(max_size=4, time_limit=limit), started=clock.now - 3 * limit
    )
    assert budgets == [min(large.FIRST_SECONDS, limit / 10)] and sides == []
    assert (
        card.details["skipped"] == ("the search on the full sample",)
        and card.status == "time_limit"
    )
    assert card.train_metrics == card.metrics(X, y)


def test_fit_the_estimator_and_the_command_line_share_one_default_time_limit():
    import inspect

    from slimwidgets import cli
    from slimwidgets.core.options import DEFAULT_TIME_LIMIT

    X = pd.DataFrame({"a": [1, 1, 0, 0, 1, 0], "b": [0, 1, 0, 1, 1, 0]})
    card = sw.fit(X, [1, 1, 0, 0, 1, 0], max_size=1)
    estimator = inspect.signature(sw.SLIMClassifier).parameters["time_limit"].default
    assert (
        card.spec.time_limit == sw.make_spec().time_limit == estimator == DEFAULT_TIME_LIMIT == 30.0
    )
    assert cli.FIT_DEFAULTS["time_limit"] == cli.DEMO_DEFAULTS["time_limit"] == DEFAULT_TIME_LIMIT
    assert (
        sw.fit(X, [1, 1, 0, 0, 1, 0], max_size=1, time_limit=None).spec.time_limit is None
    )  # until proven
