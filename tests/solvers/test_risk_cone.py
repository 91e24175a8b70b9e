"""The proof of risk cards with a free multiplier (solvers/risk_cone.py, through
risk_branch_and_bound.py)
against brute force (tests/brute_risk.py finds each card's multiplier with scipy): node floors
never pass the best card in their box, the walk over intercepts is exact wherever it starts
(flat stretches too), the proof finds the optimum and claims it only when the brute force
agrees, on random and adversarial problems (weights, ties, a rare class, separable rows,
narrow boxes, flat directions), and a fit stops as soon as its card is proven."""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
import slimwidgets.fitting.risk_driver as risk_driver
from slimwidgets.core.data import prepare_data
from slimwidgets.core.losses import MIN_INVERSE_MULTIPLIER
from slimwidgets.core.status import NO_BOUND, describe
from slimwidgets.solvers.logistic import RiskProblem
from slimwidgets.solvers.risk_branch_and_bound import prove_by_supports
from slimwidgets.solvers.risk_cone import cone_floor, leaf_walk

from brute_risk import best_risk_card, best_t, risk_loss
from tiny_problems import empty_risk_card
from tiny_problems import tiny_risk_problem as tiny

BOX = dict(loss="logistic", coef_range=(-2, 2), intercept_range=(-3, 3))
T_MAX = 2.0


def _adversarial(kind: str, seed: int):
    """(X, y, sample weights or None, spec options): small problems built to trip a proof."""
    rng = np.random.default_rng(seed)
    X, y, names = tiny(seed, n=18, d=3)
    weights, options = None, {"max_size": 2 + seed % 2}
    if kind == "weights":  # row weights (integers and fractions) and balanced classes
        weights = rng.choice([0.5, 1.0, 2.0, 3.0], size=len(y))
        options["class_weights"] = "balanced" if seed % 2 else None
    elif kind == "ties":  # every row twice, once with each label on some of them
        X = pd.concat([X, X], ignore_index=True)
        y = np.concatenate([y, np.where(rng.random(len(y)) < 0.5, y, 1 - y)])
    elif kind == "rare":  # one positive among many negatives
        y = np.zeros(len(y), dtype=int)
        y[int(rng.integers(len(y)))] = 1
    elif kind == "separable":  # a rule splits the classes: the loss falls as far as t allows
        y = (X["f0"].to_numpy() > 0).astype(int)
        y[:2] = [0, 1]
        X.loc[0, "f0"], X.loc[1, "f0"] = 0.0, 1.0
    elif kind == "narrow":  # boxes that bind: intercepts 0..1, values with gaps, a required feature
        options.update(intercept_range=(0, 1), values={"f0": [0, 2]}, require=["f1"])
    elif kind == "signs":
        options.update(signs={"f0": "+", "f2": "-"}, C0=0.01)
    elif (
        kind == "flat"
    ):  # a feature that is never on, another on everywhere: flat directions of the loss
        X["f1"], X["f2"] = 0.0, 1.0
    return X, y, weights, options


KINDS = ["random", "weights", "ties", "rare", "separable", "narrow", "signs", "flat"]
CASES = [(kind, seed) for kind in KINDS for seed in range(3)]


def _setup(kind: str, seed: int):
    X, y, weights, options = _adversarial(kind, 2000 + 10 * KINDS.index(kind) + seed)
    spec = sw.make_spec(**{**BOX, **options})
    data = prepare_data(X, y, sample_weight=weights, warn=False)
    prob = RiskProblem.from_spec(data, spec)
    ysign = np.where(np.asarray(y) == 1, 1, -1)
    w = np.ones(len(y)) if weights is None else np.asarray(weights, float)
    if spec.class_weights == "balanced":
        pos = ysign == 1
        w = w * np.where(pos, w.sum() / (2 * w[pos].sum()), w.sum() / (2 * w[~pos].sum()))
    best = best_risk_card(X.to_numpy(), ysign, list(X.columns), spec, weights=w)
    return prob, best, (X.to_numpy(float), ysign, w)


@pytest.mark.filterwarnings("ignore::slimwidgets.DataWarning")
@pytest.mark.parametrize("kind,seed", CASES)
@pytest.mark.slow
def test_the_proof_with_a_free_multiplier_finds_the_brute_force_optimum(kind, seed):
    prob, best, (X, ysign, w) = _setup(kind, seed)
    assert prob.scale and best is not None
    result = prove_by_supports(prob, empty_risk_card(prob))
    assert result.complete  # no deadline: it runs to the proof
    assert result.floor <= best[0] + 1e-9  # never above the optimum
    assert result.card.objective == pytest.approx(
        best[0], abs=1e-9
    )  # "optimal" only where brute force agrees
    # the card is what it says: its objective on every row at its own multiplier, inside every box
    card = result.card
    assert prob.card_ok(card.coefficients, card.intercept)
    assert MIN_INVERSE_MULTIPLIER <= card.t <= T_MAX
    assert risk_loss(X, ysign, w, card.coefficients, card.intercept, card.t) == pytest.approx(
        card.loss, abs=1e-12
    )


def _cards_in(values: list[np.ndarray], ilo: int, ihi: int):
    for points in itertools.product(*values):
        for b in range(ilo, ihi + 1):
            yield np.array(points, float), b


@pytest.mark.filterwarnings("ignore::slimwidgets.DataWarning")
@pytest.mark.seeds(12)
def test_a_node_floor_never_passes_the_best_card_in_its_box(seed):
    """Random sub-boxes of one support, some leaving out 0 or the intercept's middle: the cone
    floor is at most the least loss of every integer card in the box, each at its best t."""
    rng = np.random.default_rng(seed)
    X, y, names = tiny(3000 + seed, n=16, d=3)
    ysign = np.where(np.asarray(y) == 1, 1.0, -1.0)
    Xf = X.to_numpy(float)
    columns, w = np.ascontiguousarray(Xf * ysign[:, None]), np.full(len(y), 1.0 / len(y))
    lo = rng.integers(-3, 2, size=3)
    hi = lo + rng.integers(0, 3, size=3)
    ilo = int(rng.integers(-4, 2))
    ihi = ilo + int(rng.integers(0, 4))
    floor, relaxed, t = cone_floor(
        columns,
        ysign,
        w,
        lo.astype(float),
        hi.astype(float),
        float(ilo),
        float(ihi),
        MIN_INVERSE_MULTIPLIER,
        T_MAX,
        math.inf,
        1e-10,
    )
    least = min(
        best_t(Xf, ysign, w, points, b)[1]
        for points, b in _cards_in([np.arange(a, b + 1) for a, b in zip(lo, hi)], ilo, ihi)
    )
    assert floor <= least + 1e-9
    assert lo.min() - 1e-9 <= relaxed[1:].min() and relaxed[1:].max() <= hi.max() + 1e-9
    assert MIN_INVERSE_MULTIPLIER <= t <= T_MAX


@pytest.mark.seeds(10)
def test_the_walk_over_intercepts_is_exact_from_any_start(seed):
    """With the points fixed, the best intercept and multiplier over ilo..ihi, from the
    relaxation's start or either end of the box; flat stretches (scores all 0) included."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 14))
    y = rng.choice([-1.0, 1.0], size=n)
    y[:2] = [1.0, -1.0]
    s = (
        np.zeros(n) if seed % 4 == 0 else y * rng.integers(-3, 4, size=n).astype(float)
    )  # s = y * (x . points)
    w = rng.choice([0.5, 1.0, 2.0], size=n)
    w = w / w.sum()
    ilo, ihi = -6, 6
    values = []
    for b in range(ilo, ihi + 1):
        f = lambda t, b=b: float(w @ np.logaddexp(0.0, -t * (s + y * b)))  # noqa: E731
        grid = np.geomspace(MIN_INVERSE_MULTIPLIER, T_MAX, 4001)
        values.append(
            min(f(t) for t in grid)
        )  # a fine grid: an upper value, no solver shared with the package
    least = min(values)
    for start in (0.0, float(ilo), float(ihi), float(rng.integers(ilo, ihi + 1))):
        k, t, loss, floor = leaf_walk(
            s, y, w, float(ilo), float(ihi), MIN_INVERSE_MULTIPLIER, T_MAX, start
        )
        assert ilo <= k <= ihi and MIN_INVERSE_MULTIPLIER <= t <= T_MAX
        assert loss == pytest.approx(float(w @ np.logaddexp(0.0, -t * (s + y * k))), abs=1e-14)
        assert loss <= least + 1e-12  # no worse than the best on the grid
        assert floor <= loss + 1e-12 and loss - floor <= 1e-9  # and proven within rounding


@pytest.mark.filterwarnings("ignore::slimwidgets.DataWarning")
@pytest.mark.parametrize("gap", [0.02, 0.1])
@pytest.mark.slow
def test_a_requested_gap_is_honoured_with_a_free_multiplier(gap):
    prob, best, _ = _setup("weights", 1)
    result = prove_by_supports(prob, empty_risk_card(prob), gap=gap)
    assert result.complete
    assert result.floor <= best[0] + 1e-9 <= result.card.objective + 2e-9
    assert result.card.objective - result.floor <= gap * abs(result.card.objective) + 1e-9


@pytest.mark.filterwarnings(
    "ignore::slimwidgets.DataWarning", "ignore::slimwidgets.DegenerateCardWarning"
)
@pytest.mark.parametrize("kind,seed", [("random", 0), ("weights", 2), ("narrow", 1)])
def test_fit_with_a_free_multiplier_stops_when_its_card_is_proven(kind, seed, monkeypatch):
    """The walk out of the way, the default model is proven by the tree and fit returns: a
    time limit of an hour is not waited for (the test would hang), and the words say proven."""
    monkeypatch.setattr(risk_driver, "RISK_WALK_WORK", 0)
    X, y, weights, options = _adversarial(kind, 2000 + 10 * KINDS.index(kind) + seed)
    spec = sw.make_spec(**{**BOX, **options}, time_limit=3600)
    _, best, _ = _setup(kind, seed)
    card = sw.fit(X, y, spec=spec, sample_weight=weights)
    assert card.status == "optimal" and card.solver == "logistic search + branch and bound"
    assert card.objective == pytest.approx(best[0], abs=1e-9) and card.gap == 0.0
    words = card.status_line()
    assert ("proven lowest" in words or "proven best" in words) and NO_BOUND not in words


@pytest.mark.filterwarnings(
    "ignore::slimwidgets.DataWarning", "ignore::slimwidgets.DegenerateCardWarning"
)
@pytest.mark.parametrize("bound", [1e-5, -0.3, 0.0])
def test_a_floor_that_says_nothing_reads_as_no_proven_limit(bound):
    """A floor at or below 0, or one that prints as 0.0000, is no limit worth stating."""
    X, y, names = tiny(3100, d=3)
    card = sw.fit(X, y, **BOX, solver="enumerate")
    loose = replace(card, status="heuristic", bound=bound)
    line = describe(loose).headline
    assert NO_BOUND in line and "≥ 0.0000" not in line and "≥ -" not in line
    stated = replace(card, status="heuristic", bound=0.9 * card.objective)
    assert "proven: every card with" in describe(stated).headline
