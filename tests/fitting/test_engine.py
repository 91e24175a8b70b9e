"""Engine behaviour on the paper's data: constraints, honest status, anytime, cancel, solvers."""

from __future__ import annotations

import math
import threading

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.core.formulation import build_formulation
from slimwidgets.core.status import details_text
from slimwidgets.solvers.search import local_search

from brute import best_objective, enumerate_cards, row_errors
from tiny_problems import BOX, RULES, random_operational_spec, spec_or_skip, tiny_problem


@pytest.mark.slow
def test_sleep_apnea_style_spec_on_breastcancer(paper_data):
    """The paper's sec. 5 workflow: FPR <= 20 %, at most 5 features, sign constraints."""
    X, y = paper_data("breastcancer")  # label 1 = malignant, although the column says Benign
    signs = {c: "+" for c in X.columns}  # every cell measurement is a risk factor
    signs["Mitoses"] = "-"  # and one deliberately odd sign, which must be obeyed too
    card = sw.fit(X, y, max_fpr=0.2, max_size=5, signs=signs, time_limit=60)
    m = card.metrics(X, y)
    assert m.fpr <= 0.2
    assert card.size <= 5
    assert all(v > 0 for k, v in card.points.items() if k != "Mitoses")
    assert card.points.get("Mitoses", 0) <= 0
    assert sw.check_card(card, prepare_data(X, y), card.spec) == []
    assert card.status in ("optimal", "time_limit")
    assert m.tpr > 0.9  # a sensible card, not an empty one
    # the printed rule and predict() agree on every row
    assert ((card.score(X) >= card.threshold) == (card.predict(X) == 1)).all()


@pytest.mark.slow
def test_time_limit_returns_incumbent_with_honest_gap(paper_data):
    X, y = paper_data("heart")
    card = sw.fit(X, y, C0=0.01, time_limit=1.0)
    assert card.status == "time_limit"
    assert card.gap is not None and card.gap > 0
    assert card.bound <= card.objective
    status = sw.describe(card)  # honest: nothing claimed as best, the stop in the details
    assert not status.proven and "optimal" not in status.headline
    assert "time limit" in details_text(status)
    assert sw.check_card(card, prepare_data(X, y), card.spec) == []


def test_incumbents_stream_while_solving(paper_data):
    X, y = paper_data("mammo")
    seen = []
    card = sw.fit(X, y, C0=0.01, on_incumbent=seen.append)
    assert card.status == "optimal"
    assert seen, "no incumbent was reported"
    objs = [inc.objective for inc in seen]
    assert all(b <= a + 1e-12 for a, b in zip(objs, objs[1:])), objs
    assert card.objective <= objs[-1] + 1e-12
    assert card.objective == pytest.approx(0.2281, abs=1e-4)  # the best known value


@pytest.mark.parametrize("in_child", [False, True])
@pytest.mark.slow
def test_the_solver_streams_its_rising_bound(paper_data, in_child):
    from slimwidgets.solvers.backends.mip import solve_formulation

    X, y = paper_data("heart")
    form = build_formulation(prepare_data(X, y), sw.make_spec(C0=0.01))
    heard = []
    cancel = threading.Event() if in_child else None

    def hear(bound):  # the child is stopped once bounds stream: no wait on a loaded machine's clock
        heard.append(bound)
        if cancel is not None and len(heard) >= 3:
            cancel.set()

    # in process nothing but the clock stops HiGHS: a limit generous enough for a busy machine
    result = solve_formulation(
        form, time_limit=60.0 if in_child else 10.0, on_bound=hear, cancel=cancel
    )
    assert heard, "no bound was streamed"
    assert heard == sorted(heard) and all(math.isfinite(b) for b in heard)
    assert result.status in ("time_limit", "interrupted", "optimal")
    assert heard[-1] <= result.bound + 1e-9 <= result.objective + 1e-9


@pytest.mark.slow
def test_every_incumbent_carries_the_best_bound_seen(paper_data):
    """Cards from the search and the pools beside a time-limited MIP know no bound of their
    own; they are reported with the best bound the MIP has streamed so far."""
    X, y = paper_data("mushroom")
    seen = []
    card = sw.fit(X, y, max_size=7, time_limit=6.0, on_incumbent=seen.append)
    bounds = [inc.bound for inc in seen]
    assert all(b >= a for a, b in zip(bounds, bounds[1:])), bounds
    assert all(inc.bound <= inc.objective for inc in seen)
    assert card.bound >= bounds[-1] - 1e-12


@pytest.mark.slow
def test_cancel_stops_a_running_solve(paper_data):
    X, y = paper_data("heart")
    cancel = threading.Event()
    out = {}
    t = threading.Thread(
        target=lambda: out.setdefault("card", sw.fit(X, y, C0=0.01, cancel=cancel))
    )
    t.start()
    t.join(1.0)
    assert t.is_alive(), "heart at C0=0.01 should still be solving after 1 s"
    cancel.set()
    t.join(30)
    assert not t.is_alive(), "the solve ignored the cancel request"
    card = out["card"]
    assert card.status == "interrupted"
    assert math.isfinite(card.objective) and card.bound <= card.objective


def test_warm_start_keeps_the_optimum(paper_data):
    X, y = paper_data("bankruptcy")
    first = sw.fit(X, y, C0=0.01)
    again = sw.fit(X, y, C0=0.01, warm_start=first)
    assert again.status == "optimal"
    assert again.objective == pytest.approx(first.objective, abs=1e-12)


@pytest.mark.seeds(4)
def test_cbc_and_highs_agree(seed):
    X, y, names = tiny_problem(7000 + seed)
    spec = sw.make_spec(C0=0.02, **BOX)
    a = sw.fit(X, y, feature_names=names, spec=spec)
    b = sw.fit(X, y, feature_names=names, spec=spec.replace(solver="cbc"))
    assert a.objective == pytest.approx(b.objective, abs=1e-9)
    assert b.solver == "cbc" and b.status == "optimal"


def test_pulp_model_is_the_same_program(paper_data):
    """Formulation.to_pulp, solved by PuLP's own HiGHS interface, reaches the same optimum."""
    import pulp

    X, y = paper_data("bankruptcy")
    data = prepare_data(X, y)
    form = build_formulation(data, sw.make_spec(C0=0.01))
    prob, cols = form.to_pulp()
    prob.solve(pulp.HiGHS(msg=False))
    assert prob.sol_status == pulp.LpSolutionOptimal
    card = sw.fit(X, y, C0=0.01)
    assert pulp.value(prob.objective) / form.scale + form.constant == pytest.approx(
        card.objective, abs=1e-9
    )


def test_thread_count_can_change_between_solves():
    X, y, names = tiny_problem(42)
    a = sw.fit(X, y, feature_names=names, threads=2, **BOX)
    b = sw.fit(X, y, feature_names=names, threads=1, **BOX)
    assert a.objective == pytest.approx(b.objective) and a.status == b.status == "optimal"


@pytest.mark.parametrize("zero_score", RULES)
@pytest.mark.seeds(25)
def test_local_search_cards_are_feasible_and_never_beat_the_optimum(seed, zero_score):
    rng = np.random.default_rng(9000 + seed)
    X, y, names = tiny_problem(9000 + seed)
    spec = spec_or_skip(zero_score=zero_score, **random_operational_spec(rng, names))
    data = prepare_data(X, y, feature_names=names, warn=False)
    form = build_formulation(data, spec)
    found = local_search(form, time_budget=0.2)
    cards = enumerate_cards(X, y, names, spec)
    if not found.feasible:
        return  # allowed to fail to find a card; never allowed to return a bad one
    lam, b = found.coefficients, found.intercept
    card = sw.ScoringSystem(
        tuple(names), tuple(int(v) for v in lam), b, positive=1, negative=-1, zero_score=zero_score
    )
    assert sw.check_card(card, data, spec) == []
    total = X @ lam + b
    value = np.mean(row_errors(total, y, zero_score)) + spec.C0 * int(np.count_nonzero(lam))
    assert value >= best_objective(cards, spec.C0) - 1e-12
    # the objective it reports is the card's, by the brute-force oracle's rule (eps * L1 aside)
    free = form.col_lambda >= 0
    locked = int(
        np.count_nonzero(~free & (form.fixed_lambda != 0))
    )  # fixed points: their C0 is a constant
    assert found.objective - form.epsilon * np.abs(lam[free]).sum() == pytest.approx(
        value - spec.C0 * locked, abs=1e-9
    )


@pytest.mark.parametrize("zero_score", RULES)
@pytest.mark.seeds(20)
def test_kicks_from_the_elite_give_valid_cards_that_never_beat_the_optimum(seed, zero_score):
    """The iterated search (kicks of 1-3 features from one of the best distinct local optima)
    with no deadline stops after a count of fruitless kicks, so what it returns depends on no
    clock: every card it reports obeys the spec and never beats the brute-force optimum, the
    reports only improve, and a seed gives the same card again."""
    rng = np.random.default_rng(9500 + seed)
    X, y, names = tiny_problem(9500 + seed)
    spec = spec_or_skip(zero_score=zero_score, **random_operational_spec(rng, names))
    data = prepare_data(X, y, feature_names=names, warn=False)
    form = build_formulation(data, spec)
    heard = []
    found = local_search(
        form,
        time_budget=math.inf,
        kicks=40,
        seed=seed,
        on_improve=lambda lam, b, obj: heard.append((lam, b, obj)),
    )
    again = local_search(form, time_budget=math.inf, kicks=40, seed=seed)
    assert (found.objective, found.intercept, found.coefficients.tolist()) == (
        again.objective,
        again.intercept,
        again.coefficients.tolist(),
    )
    if not found.feasible:
        assert not heard
        return
    optimum = best_objective(enumerate_cards(X, y, names, spec), spec.C0)
    free = form.col_lambda >= 0
    locked = int(
        np.count_nonzero(~free & (form.fixed_lambda != 0))
    )  # fixed points: their C0 is a constant
    assert [o for _, _, o in heard] == sorted((o for _, _, o in heard), reverse=True)
    assert found.objective == pytest.approx(heard[-1][2], abs=1e-9)
    for lam, b, obj in heard + [(found.coefficients, found.intercept, found.objective)]:
        card = sw.ScoringSystem(
            tuple(names),
            tuple(int(v) for v in lam),
            int(b),
            positive=1,
            negative=-1,
            zero_score=zero_score,
        )
        assert sw.check_card(card, data, spec) == []
        assert obj == pytest.approx(form.objective_of(lam, b), abs=1e-9)
        value = np.mean(row_errors(X @ lam + b, y, zero_score)) + spec.C0 * int(
            np.count_nonzero(lam)
        )
        assert value >= optimum - 1e-12
        assert obj - form.epsilon * np.abs(lam[free]).sum() == pytest.approx(
            value - spec.C0 * locked, abs=1e-9
        )


@pytest.mark.seeds(12)
def test_linear_starts_stay_in_the_box_and_under_the_size_cap(seed):
    """Rounded classifier starts use allowed points only and at most max_size features
    (required ones kept), whatever the scale."""
    from slimwidgets.solvers.search import SearchProblem, _starts

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(60, 6)) * rng.choice([0.1, 1, 100], size=6)
    y = (X[:, 0] + X[:, 1] / 10 + rng.normal(size=60) > 0).astype(int)
    names = [f"f{j}" for j in range(6)]
    spec = sw.make_spec(
        max_size=int(rng.integers(1, 4)),
        require=["f5"] if seed % 2 else [],
        signs={"f0": "-"} if seed % 3 == 0 else {},
        values={"f1": [0, 2, 7]},
    )
    prob = SearchProblem(
        build_formulation(prepare_data(X, y, feature_names=names, warn=False), spec)
    )
    prob.deadline = math.inf
    starts = list(_starts(prob, None, zero=False))
    again = list(_starts(prob, None, zero=False))
    assert starts and [a.tolist() for a in starts] == [a.tolist() for a in again]  # deterministic
    for lam in starts:
        assert all(v in allowed for v, allowed in zip(lam, prob.allowed))
        assert np.count_nonzero(lam) <= spec.max_size
        if spec.require:
            assert lam[5] != 0


def test_swap_trades_a_feature_for_a_better_one_at_the_size_cap():
    """At max_size no single move can add a feature; the ranked swap must still find the
    one trade that improves the card."""
    from slimwidgets.solvers.search import SearchProblem

    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, size=(200, 8)).astype(float)
    y = np.where(X[:, 6] == 1, 1, 0)
    y[:20] = X[:20, 2]  # column 2 agrees with the label on 110 rows or so, column 6 on 180
    prob = SearchProblem(
        build_formulation(prepare_data(X, y, warn=False), sw.make_spec(max_size=1))
    )
    prob.deadline = math.inf
    lam = np.zeros(8, dtype=np.int64)
    lam[2] = 2
    obj, b = prob.evaluate(lam)
    swapped, val, _, improved = prob.swap(lam, obj, b)
    assert improved and val < obj and np.flatnonzero(swapped).tolist() == [6]


def test_pandas_in_and_out(paper_data):
    X, y = paper_data("bankruptcy")
    X = X.set_index(pd.Index([f"firm{i}" for i in range(len(X))]))
    card = sw.fit(X, y, C0=0.01)
    pred = card.predict(X)
    assert isinstance(pred, pd.Series) and (pred.index == X.index).all()
    assert isinstance(card.score(X), pd.Series)
    assert isinstance(card.metrics(X, y).confusion, pd.DataFrame)


def test_canonical_form_never_worsens_a_card():
    """Dividing by the gcd must come with the best intercept for the divided points."""
    data = prepare_data(pd.DataFrame({"a": [0, 0, 1, 1], "b": [1, 1, 0, 0]}), [0, 1, 0, 1])
    form = build_formulation(
        data, sw.make_spec(C0=0.02, coef_range=(-3, 3), intercept_range=(-3, 3))
    )
    before = form.objective_of(np.array([2, 0]), -1)
    points, intercept = form.canonical(np.array([2, 0]), -1)
    assert form.objective_of(points, intercept) <= before + 1e-12


def test_every_highs_run_shares_the_thread_bookkeeping(paper_data):
    """A HiGHS run elsewhere in the package must not break the next solve (scheduler size)."""
    from slimwidgets.solvers.backends.highs import new_highs
    from slimwidgets.solvers.backends.mip import solve_formulation

    X, y = paper_data("bankruptcy")
    form = build_formulation(prepare_data(X, y), sw.make_spec(C0=0.01))
    new_highs(threads=2).run()
    assert solve_formulation(form, threads=1).status == "optimal"


@pytest.mark.slow
def test_mammo_cannot_match_the_papers_train_error_at_its_size(paper_data):
    """The live-speed issue asks for the paper's 18.3 % train error with <= 9 features on
    mammo; the proven optimum on the full data is 177 errors of 961 (18.4 %): the paper's
    figure is a mean over CV folds, so this target has no card."""
    X, y = paper_data("mammo")
    card = sw.fit(X, y, max_size=9, time_limit=None)  # a proof, however long the machine takes
    assert card.status == "optimal" and card.gap == 0
    m = card.metrics(X, y)
    assert round(m.error * len(y)) == 177 and m.error > 0.183


@pytest.mark.slow
def test_time_limited_runs_search_beside_the_mip_and_leave_no_thread(paper_data):
    X, y = paper_data("mushroom")
    data = prepare_data(X, y, warn=False)
    spec = sw.make_spec(C0=0.01, time_limit=3.0)
    quick = local_search(build_formulation(data, spec), time_budget=0.3)
    card = sw.fit(X, y, spec=spec)
    assert card.objective <= quick.objective + 1e-12
    assert card.bound <= card.objective and card.status == "time_limit"
    assert not [t for t in threading.enumerate() if t.name == "slimwidgets-search"]
    assert sw.check_card(card, data, spec) == []


@pytest.mark.seeds(40)
def test_intercept_losses_match_the_definition_at_every_intercept(seed):
    """The sorted-threshold sweep gives, for every intercept, the weighted loss of its wrong rows
    (y (score + b) below the row's margin: 0 for positives under the default rule) and inf
    where an FPR / TPR cap breaks."""
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(5, 40)), int(rng.integers(1, 4))
    X = rng.integers(0, 3, size=(n, p)) if seed % 2 else rng.normal(size=(n, p)).round(2)
    y = rng.choice([0, 1], size=n)
    y[:2] = [0, 1]
    opts = dict(
        C0=0.01,
        coef_range=(-3, 3),
        intercept_range=(-8, 8),
        zero_score=RULES[seed % 2 - (seed % 7 == 0)],
    )
    if seed % 3 == 0:
        opts["max_fpr"] = 0.3
    if seed % 5 == 0:
        opts["min_tpr"] = 0.6
    form = build_formulation(prepare_data(X, y, warn=False), sw.make_spec(**opts))
    points = rng.integers(-3, 4, size=p).astype(float)
    b, loss = form.intercept_losses(points)
    assert list(b) == list(range(-8, 9))
    d = form.data
    for t, intercept in enumerate(b):
        margin = np.where(
            d.y == 1, 0.0 if form.spec.zero_score == "positive" else form.margin, form.margin
        )
        wrong = d.y * (d.X @ points + intercept) < margin - 1e-9
        expected = float(form.row_weight[wrong].sum())
        for cls, budget in form.caps:
            if d.weight[wrong & (d.y == cls)].sum() > budget + 1e-9:
                expected = math.inf
        assert loss[t] == pytest.approx(expected, abs=1e-12)
