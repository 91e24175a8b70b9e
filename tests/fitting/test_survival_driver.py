"""Time-to-event cards from ``sw.fit``: the whole path (rules, proof, card) on scikit-survival's
bundled sets and on tiny problems against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sksurv")
from brute_cox import best_t, brute_optimum, tiny_survival  # noqa: E402
from sksurv.datasets import load_whas500  # noqa: E402
from sksurv.linear_model.coxph import BreslowEstimator  # noqa: E402
from sksurv.metrics import concordance_index_censored  # noqa: E402
from sksurv.util import Surv  # noqa: E402

import slimwidgets as sw  # noqa: E402
from slimwidgets.fitting.survival_driver import fit_survival  # noqa: E402


@pytest.fixture(scope="module")
def whas():
    X, y = load_whas500()
    return X[["age", "chf", "sho", "hr", "gender"]], y


@pytest.fixture(scope="module")
def whas_card(whas):
    X, y = whas
    return sw.fit(X, y, rules=True, max_size=2)


def test_a_raw_table_gives_a_proven_card_of_rules(whas_card):
    card = whas_card
    assert card.status == "optimal" and card.bound == card.objective
    assert 1 <= len(card.card_points) <= 2
    assert all(
        card.rules.variable_of(name) is not None for name in card.card_points
    )  # rules of variables
    assert card.multiplier > 0 and card.names == ("fstat", "lenfol")


def test_score_is_scikit_survival_s_harrell_c(whas, whas_card):
    X, y = whas
    theirs = concordance_index_censored(y["fstat"], y["lenfol"], whas_card.predict(X))[0]
    assert whas_card.score(X, y) == pytest.approx(theirs, abs=1e-12)
    assert whas_card.score(X, y) > 0.6  # age and heart failure rank who dies first


def test_survival_and_hazard_functions_are_breslow_s_as_scikit_survival_computes_them(
    whas, whas_card
):
    X, y = whas
    eta = whas_card.predict(X)
    theirs = BreslowEstimator().fit(eta, y["fstat"], y["lenfol"])
    times = whas_card.unique_times_
    ours = whas_card.predict_survival_function(X.iloc[:5])
    for fn, their_fn in zip(ours, theirs.get_survival_function(eta[:5])):
        np.testing.assert_allclose(fn(times), their_fn(times), rtol=1e-10)
    hazards = whas_card.predict_cumulative_hazard_function(X.iloc[:5], return_array=True)
    for row, their_fn in zip(hazards, theirs.get_cumulative_hazard_function(eta[:5])):
        np.testing.assert_allclose(row, their_fn(times), rtol=1e-10)


def test_the_risk_table_matches_the_survival_function_and_kaplan_meier(whas, whas_card):
    from sksurv.nonparametric import kaplan_meier_estimator

    X, y = whas
    totals = whas_card.scores(X)
    assert [row.score for row in whas_card.table] == sorted(set(totals.astype(int)))
    for row in whas_card.table:
        mine = totals == row.score
        for i, horizon in enumerate(whas_card.horizons):
            one = X[mine].iloc[:1]
            assert row.predicted[i] == pytest.approx(
                1 - whas_card.predict_survival_function(one)[0](horizon)[0]
            )
            times, survival = kaplan_meier_estimator(y["fstat"][mine], y["lenfol"][mine])
            assert row.observed[i] == pytest.approx(
                1 - survival[np.searchsorted(times, horizon, "right") - 1]
            )
            assert row.lower[i] <= row.observed[i] <= row.upper[i]


def test_raw_rows_and_rule_rows_score_alike(whas, whas_card):
    X, _ = whas
    rules = whas_card.rules.transform(X)
    np.testing.assert_array_equal(whas_card.predict(X), whas_card.predict(rules))


@pytest.mark.seeds(6)
def test_fit_finds_the_brute_force_optimum(seed):
    X, time, event, w = tiny_survival(seed)
    y = Surv.from_arrays(event=event, time=time)
    card = sw.fit(X, y, sample_weight=w, max_size=2, coef_range=(-2, 2), C0=0.01, rules=False)
    best, _ = brute_optimum(X, time, event, w, [np.arange(-2, 3)] * 3, np.full(3, 0.01), 2)
    assert card.status == "optimal" and card.objective == pytest.approx(best, abs=1e-8)


@pytest.mark.seeds(4)
def test_on_progress_reports_each_better_card_down_to_the_one_returned(seed):
    """Each card reported while the proof runs meets the settings and is no worse than the one
    before; the last is as good as the card returned (brute force recomputes each objective)."""
    X, time, event, w = tiny_survival(seed)
    y = Surv.from_arrays(event=event, time=time)
    seen = []
    card = sw.fit(
        X, y, sample_weight=w, max_size=2, coef_range=(-2, 2), C0=0.01, rules=False,
        on_progress=lambda points, words: seen.append((points, words)),
    )  # fmt: skip
    assert seen and all("C-index" in words and "per event" in words for _, words in seen)
    objectives = []
    for points, _ in seen:
        vector = np.array([points.get(f"x{j}", 0) for j in range(3)], dtype=float)
        assert len(points) <= 2 and all(-2 <= p <= 2 for p in points.values())
        loss = best_t(X, time, event, w, vector)[1]
        objectives.append(loss + 0.01 * len(points))
    assert all(b <= a + 1e-9 for a, b in zip(objectives, objectives[1:]))
    assert objectives[-1] == pytest.approx(card.objective, abs=1e-7)


@pytest.mark.seeds(6)
def test_a_locked_rule_keeps_its_points_and_the_rest_is_the_brute_force_optimum(seed):
    """A lock fixes the points (it does not only cap them): the locked rule is on the card with
    those points, even where the card would be better without it."""
    X, time, event, w = tiny_survival(seed)
    y = Surv.from_arrays(event=event, time=time)
    for locked in (-2, 1):
        card = sw.fit(
            X, y, sample_weight=w, max_size=2, coef_range=(-2, 2), C0=0.01, rules=False,
            lock={"x1": locked},
        )  # fmt: skip
        allowed = [np.arange(-2, 3), np.array([locked]), np.arange(-2, 3)]
        best, _ = brute_optimum(X, time, event, w, allowed, np.full(3, 0.01), 2)
        assert card.card_points["x1"] == locked and card.status == "optimal"
        assert card.objective == pytest.approx(best, abs=1e-8)


def test_a_time_limit_states_a_proven_floor():
    """A fake clock that runs out during the proof: no claim of optimality, a floor below the
    optimum."""
    X, time, event, w = tiny_survival(5)
    y = Surv.from_arrays(event=event, time=time)
    best, _ = brute_optimum(X, time, event, w, [np.arange(-3, 4)] * 3, np.full(3, 0.0), 3)
    floors = []
    for limit in (3, 10, 30, 100, 300):  # clock readings: the deadline in each stage of the proof
        ticks = iter(range(10**6))
        card = fit_survival(
            X,
            y,
            sample_weight=w,
            max_size=3,
            coef_range=(-3, 3),
            C0=0.0,
            time_limit=limit,
            clock=lambda ticks=ticks: next(ticks),
        )
        assert best <= card.objective + 1e-9  # the optimum, when found early, within rounding
        if card.status == "time_limit" and card.bound is not None:
            assert card.bound <= best + 1e-9 and "every card is at least" in str(card)
            floors.append(card.bound)
    assert floors  # some deadline fell where a floor was proven
    ticks = itertools.chain([0], itertools.count(5))  # out of time at once: no floor, said so
    card = fit_survival(
        X, y, max_size=3, coef_range=(-3, 3), time_limit=1, clock=lambda: next(ticks)
    )
    assert card.status == "time_limit" and card.bound is None and "no floor proven" in str(card)


def test_loss_cox_is_implied_and_checked():
    X, time, event, _ = tiny_survival(1)
    y = Surv.from_arrays(event=event, time=time)
    assert sw.fit(X, y, loss="cox", max_size=1, rules=False).status == "optimal"
    with pytest.raises(ValueError, match="structured array"):
        sw.fit(X, event.astype(int), loss="cox")
    with pytest.raises(ValueError, match="loss='cox', not loss='logistic'"):
        sw.fit(X, y, loss="logistic")
    with pytest.raises(ValueError, match="do not take positive"):
        sw.fit(X, y, positive=True)
    with pytest.raises(ValueError, match="do not take max_fpr"):
        sw.fit(X, y, max_fpr=0.2)
    with pytest.raises(ValueError, match="X has 3 rows and y"):
        sw.fit(X[:3], y)


def test_the_card_reads_for_a_clinician():
    X, time, event, _ = tiny_survival(2)
    frame = pd.DataFrame(X, columns=["age", "chf", "sho"])
    y = Surv.from_arrays(event=event, time=time, name_event="died", name_time="days")
    card = sw.fit(frame, y, max_size=2, rules=False, horizons=(2, 4))
    text, page = str(card), card._repr_html_()
    assert card.horizons == (2.0, 4.0)
    assert "died over days" in text and "by 2" in text and "by 4" in text
    assert "SCORE FOR THE RISK OF DIED" in text and "= SCORE" in text
    assert "observed (95 % CI)" in page and page.count("<tr>") >= len(card.table) + 2
    for name in card.card_points:
        assert name in text and name in page


def test_exclusions_and_signs_name_variables_of_a_raw_table(whas):
    X, y = whas
    card = sw.fit(X, y, rules=True, max_size=2, exclude=["age"], signs={"hr": "-"})
    assert card.status == "optimal" and card.card_points
    assert all(card.rules.variable_of(name) != "age" for name in card.card_points)
    assert all(
        p <= 0 for name, p in card.card_points.items() if card.rules.variable_of(name) == "hr"
    )


def test_efron_s_ties_are_asked_for_by_name():
    X, time, event, w = tiny_survival(4)
    y = Surv.from_arrays(event=event, time=time)
    card = sw.fit(X, y, sample_weight=w, max_size=2, rules=False, ties="efron")
    assert card.status == "optimal" and card.details["ties"] == "efron" and "Efron" in card.solver
    with pytest.raises(ValueError, match="ties must be 'breslow' or 'efron'"):
        sw.fit(X, y, ties="exact")


def test_a_cancel_returns_the_best_card_so_far_interrupted():
    """``cancel`` set during the proof: the best card so far, status "interrupted", its floor
    below the optimum (sw.fit hands cancel through)."""
    import threading

    X, time, event, w = tiny_survival(5)
    y = Surv.from_arrays(event=event, time=time)
    best, _ = brute_optimum(X, time, event, w, [np.arange(-3, 4)] * 3, np.full(3, 0.0), 3)
    cancel, readings = threading.Event(), itertools.count()

    def clock() -> float:  # the user presses Ctrl-C at the 3rd reading (a floor is one call)
        if next(readings) == 2:
            cancel.set()
        return 0.0

    options = dict(max_size=3, coef_range=(-3, 3), C0=0.0, clock=clock, cancel=cancel)
    card = sw.fit(X, y, sample_weight=w, **options)
    assert card.status == "interrupted" and card.objective >= best - 1e-9
    assert card.bound is None or card.bound <= best + 1e-9
    assert "interrupted" in str(card)
    card = sw.fit(X, y, sample_weight=w, **{**options, "cancel": threading.Event()})
    assert card.status == "optimal" and card.objective == pytest.approx(best, abs=1e-8)


def test_the_proof_runs_on_one_blas_thread():
    """The proof's matrices are tiny (cells x rules): BLAS's threads would only wait on a busy
    machine, so the proof runs on one; the caller's setting is back afterwards."""
    from threadpoolctl import threadpool_info

    from slimwidgets.core.family import TIME_TO_EVENT

    seen = []
    prove = TIME_TO_EVENT.loss.piece("scan")

    def watched(*args, **kwargs):
        seen.extend(pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas")
        return prove(*args, **kwargs)

    X, time, event, w = tiny_survival(2)
    before = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
    TIME_TO_EVENT.loss.holds(scan=watched)  # the family's proof, watched
    try:
        fit_survival(X, Surv.from_arrays(event=event, time=time), max_size=2)
    finally:
        TIME_TO_EVENT.loss.holds(scan=prove)
    assert seen and set(seen) == {1}
    assert [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"] == before
