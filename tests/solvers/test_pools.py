"""Feature-pool MIPs: the best card on a pool is the brute-force best among cards that use
only the pool's features, priced as in the whole problem; the pool search only ever
improves a card and obeys every constraint."""

from __future__ import annotations

import math

import numpy as np
import pytest

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.core.formulation import build_formulation
from slimwidgets.fitting import check_card
from slimwidgets.solvers import pools
from slimwidgets.solvers.pools import feature_ranking, pool_search, solve_pool

from brute import best_objective, enumerate_cards
from tiny_problems import BOX, RULES, random_operational_spec, spec_or_skip, tiny_problem


def _pool_optimum(X, y, names, spec, pool, C0):
    """Brute-force best loss + C0 * size over cards whose other features have 0 points."""
    cards = enumerate_cards(X, y, names, spec)
    outside = [j for j in range(len(names)) if j not in pool]
    inside = ~(cards["points"][:, outside] != 0).any(axis=1)
    return best_objective({k: v[inside] for k, v in cards.items()}, C0)


@pytest.mark.parametrize("zero_score", RULES)
@pytest.mark.seeds(30)
def test_a_pool_gives_the_brute_force_best_card_on_its_features(seed, zero_score):
    rng = np.random.default_rng(4000 + seed)
    X, y, names = tiny_problem(4000 + seed, n_features=int(rng.integers(3, 5)))
    opts = random_operational_spec(rng, names)
    if seed % 3 == 0:
        opts.pop(
            "C0"
        )  # the default C0 depends on the free features: the pool must keep the whole one
    spec = spec_or_skip(zero_score=zero_score, **opts)
    data = prepare_data(X, y, feature_names=names, warn=False)
    form = build_formulation(data, spec)
    pool = sorted(
        rng.choice(len(names), size=int(rng.integers(1, len(names))), replace=False).tolist()
    )
    forced = [
        j
        for j, n in enumerate(names)
        if n in spec.require
        or spec.lock.get(n, 0) != 0
        or (n in spec.values and 0 not in spec.values[n])
    ]
    C0 = float(form.C0[0]) if spec.C0 is None else spec.C0
    expected = _pool_optimum(X, y, names, spec, set(pool) | set(forced), C0)
    found = solve_pool(form, pool)
    if not math.isfinite(expected):
        assert found is None
        return
    assert found is not None and found.status == "optimal"
    lam = found.coefficients
    assert set(np.flatnonzero(lam)) <= set(pool) | set(forced)
    card = sw.ScoringSystem(
        tuple(names),
        tuple(int(v) for v in lam),
        found.intercept,
        positive=1,
        negative=-1,
        zero_score=zero_score,
    )
    assert check_card(card, data, spec) == []
    # same objective as the whole problem prices it; eps * L1 is below every loss step, and
    # the program leaves out the constant C0 of locked features
    assert found.objective == pytest.approx(form.objective_of(lam, found.intercept), abs=1e-12)
    free = form.col_lambda >= 0
    locked = sum(1 for n, v in spec.lock.items() if v != 0)
    assert found.objective - form.epsilon * np.abs(lam[free]).sum() == pytest.approx(
        expected - C0 * locked, abs=1e-9
    )


def test_rows_merge_on_the_pool_features():
    rng = np.random.default_rng(7)
    X = rng.integers(0, 2, size=(400, 10)).astype(float)
    y = (X[:, 0] + X[:, 1] - X[:, 2] > 0).astype(int)
    form = build_formulation(prepare_data(X, y, warn=False), sw.make_spec(max_size=3))
    found = solve_pool(form, [0, 1, 2])
    assert found.rows <= 2 * 2**3  # at most one row per (pattern, label)
    assert np.flatnonzero(found.coefficients).tolist() == [0, 1, 2]


def test_the_ranking_puts_the_informative_features_first():
    rng = np.random.default_rng(8)
    X = rng.integers(0, 2, size=(500, 30)).astype(float)
    y = (X[:, 4] + X[:, 17] + X[:, 23] >= 2).astype(int)
    form = build_formulation(prepare_data(X, y, warn=False), sw.make_spec(max_size=3))
    assert set(feature_ranking(form)[:3]) == {4, 17, 23}


class _SlowClock:
    """A clock that jumps an hour at every reading, as on a machine far busier than this."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 3600.0
        return self.now


def _ranking_problem():
    rng = np.random.default_rng(8)
    X = rng.integers(0, 2, size=(500, 30)).astype(float)
    y = (X[:, 4] + X[:, 17] + X[:, 23] + X[:, 9] * X[:, 2] >= 2).astype(int)
    return build_formulation(prepare_data(X, y, warn=False), sw.make_spec(max_size=3))


def test_the_ranking_under_a_deadline_does_not_depend_on_the_clock(monkeypatch):
    form = _ranking_problem()
    far = 1e15  # a deadline the slow clock does not reach in five fits
    steady = pools.feature_ranking(form, deadline=far)
    monkeypatch.setattr(pools.time, "perf_counter", _SlowClock())
    assert pools.feature_ranking(form, deadline=far) == steady
    assert len(steady) > 3  # the weaker penalties ranked more than the first fit's features


def test_the_ranking_stops_after_a_fit_whose_counted_work_is_too_much(monkeypatch):
    form = _ranking_problem()
    whole = pools.feature_ranking(form, deadline=1e15)
    monkeypatch.setattr(pools, "SLOW_FIT_WORK", 0)
    first = pools.feature_ranking(form, deadline=1e15)
    assert first and len(first) < len(whole)
    assert whole[: len(first)] == first
    assert pools.feature_ranking(form) == whole  # no deadline: the whole path


def test_pool_search_improves_a_poor_card_and_reports_it():
    rng = np.random.default_rng(9)
    X = rng.integers(0, 2, size=(600, 40)).astype(float)
    y = ((X[:, 3] + X[:, 11] + X[:, 30] - X[:, 7]) >= 2).astype(int)
    data = prepare_data(X, y, warn=False)
    spec = sw.make_spec(max_size=4)
    form = build_formulation(data, spec)
    poor = np.zeros(40)
    poor[0] = 1
    start = (poor, -1, form.objective_of(poor, -1))
    heard = []
    best = pool_search(
        form, start, deadline=math.inf, on_improve=lambda lam, b, obj: heard.append(obj)
    )
    assert best is not None and best[2] < start[2] and heard[-1] == best[2]
    assert heard == sorted(heard, reverse=True)
    card = sw.ScoringSystem(
        data.feature_names, tuple(int(v) for v in best[0]), best[1], positive=1, negative=0
    )
    assert check_card(card, data, spec) == []
    assert card.metrics(X, y).error == 0  # the four-feature rule is in the first pool


def test_pool_search_returns_none_when_it_cannot_improve():
    rng = np.random.default_rng(10)
    X = rng.integers(0, 2, size=(300, 20)).astype(float)
    y = ((X[:, 3] + X[:, 5] + (rng.random(300) < 0.1)) >= 1).astype(int)
    spec = sw.make_spec(C0=0.01, max_size=2)
    best = sw.fit(X, y, spec=spec)
    assert best.status == "optimal"
    form = build_formulation(prepare_data(X, y, warn=False), spec)
    lam = np.array(best.coefficients, dtype=float)
    assert pool_search(form, (lam, best.intercept, best.objective), deadline=math.inf) is None


def test_a_pool_of_every_feature_is_left_to_the_whole_solve():
    """On a few features the first pool is the whole problem: the caller's MIP has it."""
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]] * 5, dtype=float)
    y = np.array([1, 0, 1, 0] * 5)
    form = build_formulation(prepare_data(X, y, warn=False), sw.make_spec(C0=0.01, **BOX))
    poor = (np.zeros(2), 1, form.objective_of(np.zeros(2), 1))
    assert pool_search(form, poor, deadline=math.inf) is None
    assert solve_pool(form, [0, 1]).objective < poor[2]  # although the pool would improve it


@pytest.mark.slow
def test_mushroom_max_accuracy_card_is_found_by_a_pool(paper_data):
    """The case the pools exist for: 7 features, zero training errors (the local search stops
    at a few errors; the whole MIP needs ~30 s). No deadline: what is found must not depend
    on the machine's load."""
    X, y = paper_data("mushroom")
    data = prepare_data(X, y, warn=False)
    form = build_formulation(data, sw.make_spec(max_size=7))
    best = pool_search(form, None, deadline=math.inf)
    card = sw.ScoringSystem(
        data.feature_names,
        tuple(int(v) for v in best[0]),
        best[1],
        positive=data.positive,
        negative=data.negative,
    )
    assert card.size <= 7 and card.metrics(X, y).error == 0
