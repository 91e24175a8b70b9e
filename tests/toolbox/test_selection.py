"""fit_cv (C0 / size chosen on held-out folds), GridSearchCV over
SLIMClassifier, balanced class weights.

Every solve here is small and untimed, so it is proven optimal and the choices are reproducible.
"""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import GridSearchCV, StratifiedKFold

import slimwidgets as sw
from slimwidgets.toolbox import validation
from slimwidgets.toolbox.selection import PAPER_C0, fit_cv


def noisy_two_feature_data():
    """80 rows, 4 binary features; y depends on a and b plus noise (max_size 2 generalizes best)."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 2, size=(80, 4)), columns=["a", "b", "c", "d"])
    y = ((X.a + X.b + rng.integers(0, 2, 80)) >= 2).astype(int)
    return X, y


def imbalanced_data():
    """150 rows, 19 positives: without weights the best card says "negative" for everyone."""
    rng = np.random.default_rng(1)
    y = (rng.random(150) < 0.15).astype(int)
    X = pd.DataFrame(
        {
            "a": (rng.random(150) < np.where(y == 1, 0.7, 0.3)).astype(int),
            "b": (rng.random(150) < np.where(y == 1, 0.6, 0.35)).astype(int),
            "c": rng.integers(0, 2, 150),
        }
    )
    return X, y


def balanced_error(card, X, y):
    m = card.metrics(X, y)
    return 0.5 * (1 - m.tpr) + 0.5 * m.fpr


@pytest.mark.slow
def test_each_candidate_carries_its_own_cross_validation_and_the_best_is_refit():
    X, y = noisy_two_feature_data()
    card = fit_cv(X, y, max_size=[3, 1, 2], cv=4, seed=0)
    cv = card.details["cv"]
    assert [c["max_size"] for c in cv["candidates"]] == [1, 2, 3]  # sparsest first
    for c in cv["candidates"]:
        direct = sw.cross_validate(X, y, folds=4, seed=0, max_size=c["max_size"])
        assert c["test_error"] == pytest.approx(direct.summary.loc["test_error", "mean"])
        assert c["test_error_std"] == pytest.approx(direct.summary.loc["test_error", "std"])
        assert c["train_error"] == pytest.approx(direct.summary.loc["train_error", "mean"])
        assert c["size"] == pytest.approx(direct.summary.loc["size", "mean"])
        assert c["optimal_folds"] == 4 and c["failed"] is None
    best = min(cv["candidates"], key=lambda c: c["test_error"])
    assert cv["chosen"] == {"max_size": best["max_size"]} == {"max_size": 2}
    assert cv["test_error"] == best["test_error"] and cv["folds"] == 4 and cv["error"] == "error"
    refit = sw.fit(X, y, max_size=2)
    assert (card.points, card.threshold, card.status) == (refit.points, refit.threshold, "optimal")


@pytest.mark.slow
def test_grid_search_over_the_estimator_agrees_with_fit_cv():
    X, y = noisy_two_feature_data()
    folds = StratifiedKFold(4, shuffle=True, random_state=0)
    search = GridSearchCV(sw.SLIMClassifier(), {"max_size": [1, 2, 3]}, cv=folds).fit(X, y)
    card = fit_cv(X, y, max_size=[1, 2, 3], cv=4, seed=0)
    errors = [c["test_error"] for c in card.details["cv"]["candidates"]]
    np.testing.assert_allclose(1 - search.cv_results_["mean_test_score"], errors)
    assert search.best_params_ == card.details["cv"]["chosen"]
    assert search.best_estimator_.scoring_system_.points == card.points


@pytest.mark.slow
def test_grid_search_over_C0_in_parallel():
    X, y = noisy_two_feature_data()
    grid = {"C0": [0.2, 0.05, None]}
    search = GridSearchCV(sw.SLIMClassifier(), grid, cv=3, n_jobs=2).fit(X, y)
    sizes = [sw.SLIMClassifier(C0=c).fit(X, y).scoring_system_.size for c in grid["C0"]]
    assert sizes[0] <= sizes[1] <= sizes[2]  # a larger C0 never buys a larger card
    assert search.best_params_["C0"] in grid["C0"]
    assert (
        search.best_estimator_.scoring_system_.size
        == sizes[grid["C0"].index(search.best_params_["C0"])]
    )


@pytest.mark.slow
def test_ties_go_to_the_sparser_setting_and_the_paper_grid_is_the_default():
    X = pd.DataFrame({"a": [1, 0] * 15, "b": [1, 1, 0] * 10, "c": [0, 1, 1, 0, 1] * 6})
    y = X.a.to_numpy()  # a alone predicts y perfectly: every setting has test error 0
    card = fit_cv(X, y, max_size=[3, 1, 2], cv=3)
    assert card.details["cv"]["chosen"] == {"max_size": 1}
    card = fit_cv(X, y, cv=3)
    cands = card.details["cv"]["candidates"]
    assert [c["C0"] for c in cands] == [0.075, 0.05, 0.025, 0.01, 0.001, None]
    assert set(PAPER_C0) == {c["C0"] for c in cands}
    assert all(c["test_error"] == 0 for c in cands)
    assert card.details["cv"]["chosen"] == {"C0": 0.075} and card.points == {
        "a": 1
    }  # "SCORE >= 1": the smallest form


@pytest.mark.slow
def test_the_cv_figures_show_on_the_card_and_survive_json(tmp_path):
    X, y = noisy_two_feature_data()
    card = fit_cv(X, y, C0=[0.05, None], cv=4)
    cv = card.details["cv"]
    line = (
        f"CV: test error {100 * cv['test_error']:.1f} % ± {100 * cv['test_error_std']:.1f} (4 "
        "folds), chosen C0 ="
    )
    for text in (
        card.to_text(),
        card.to_html(),
        card.to_markdown().replace("\\", ""),
        card.to_latex(),
    ):
        assert "CV: test error" in text and "(4 folds)" in text
    assert line in card.to_text()
    path = tmp_path / "card.json"
    card.to_json(path)
    back = sw.ScoringSystem.from_json(path)
    assert back.details["cv"] == json.loads(json.dumps(cv))
    assert back.to_text() == card.to_text()
    # the figures are covered by the checksum, and checked before they are shown
    d = json.loads(path.read_text())
    d["cross_validation"]["test_error"] = 0.0
    with pytest.raises(ValueError, match="checksum"):
        sw.ScoringSystem.from_dict(d)
    d["cross_validation"]["test_error"] = "<script>"
    with pytest.raises(ValueError, match="cross_validation"):
        sw.ScoringSystem.from_dict(d, verify=False)
    # a card without CV figures exports exactly as before
    assert "cross_validation" not in sw.fit(X, y, max_size=1).to_dict()


@pytest.mark.slow
def test_a_setting_that_fails_on_a_fold_is_skipped_and_all_failing_is_an_error():
    rng = np.random.default_rng(2)
    X = pd.DataFrame(rng.integers(0, 2, size=(60, 3)), columns=["a", "b", "c"])
    y = (X.a | X.b).to_numpy()  # no single feature catches every positive without a false one
    exact = {"max_fpr": 0.0, "min_tpr": 1.0}
    card = fit_cv(X, y, max_size=[1, 2], cv=3, **exact)
    failed, ok = card.details["cv"]["candidates"]
    assert (
        failed["max_size"] == 1
        and failed["failed"].startswith("3 of 3 folds")
        and failed["test_error"] is None
    )
    assert ok["failed"] is None and ok["test_error"] == 0.0
    assert card.details["cv"]["chosen"] == {"max_size": 2} and card.points.keys() == {"a", "b"}
    with pytest.raises(
        ValueError, match="no setting could be fit on every fold: max_size = 1: 3 of 3"
    ):
        fit_cv(X, y, max_size=[1], cv=3, **exact)


def test_bad_requests_fail_before_any_solve(monkeypatch):
    X, y = noisy_two_feature_data()
    monkeypatch.setattr(validation, "fit", lambda *a, **k: pytest.fail("must not solve"))
    with pytest.raises(ValueError, match="nothing to choose"):
        fit_cv(X, y, C0=0.01)
    with pytest.raises(ValueError, match="empty list"):
        fit_cv(X, y, max_size=[])
    with pytest.raises(ValueError, match="twice"):
        fit_cv(X, y, max_size=[1, 1])
    with pytest.raises(ValueError, match="C0"):
        fit_cv(X, y, C0=[0.01, -1])
    with pytest.raises(ValueError, match="max_fpr"):
        fit_cv(X, y, max_size=[1, 2], max_fpr=3)
    with pytest.raises(TypeError, match="spec"):
        fit_cv(X, y, max_size=[1, 2], spec=sw.make_spec())
    with pytest.raises(ValueError, match="folds"):
        fit_cv(X, y, max_size=[1, 2], cv=1)


@pytest.mark.slow
def test_balanced_class_weights_make_a_two_sided_card_and_are_selected_by_balanced_error():
    X, y = imbalanced_data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the one-class card may warn (issue 12, item 4)
        plain = sw.fit(X, y, C0=1e-6, max_size=2)
    balanced = sw.fit(X, y, C0=1e-6, max_size=2, class_weights="balanced")
    assert plain.status == balanced.status == "optimal"
    assert plain.predict(X).nunique() == 1  # "negative" for everyone: 87 % accurate
    assert balanced.predict(X).nunique() == 2
    # C0 * 2 features is below the smallest step of the balanced error, 1 / (2 * 19 * 131)
    assert balanced_error(balanced, X, y) <= balanced_error(plain, X, y)
    assert balanced_error(balanced, X, y) < 0.35 < balanced_error(plain, X, y)
    clf = sw.SLIMClassifier(C0=1e-6, max_size=2, class_weights="balanced").fit(X, y)
    assert clf.scoring_system_.points == balanced.points

    card = fit_cv(X, y, max_size=[1, 2], cv=3, C0=1e-6, class_weights="balanced")
    cv = card.details["cv"]
    assert cv["error"] == "balanced error" and "CV: test balanced error" in card.to_text()
    for c in cv["candidates"]:
        folds = sw.cross_validate(
            X, y, folds=3, seed=0, C0=1e-6, max_size=c["max_size"], class_weights="balanced"
        ).folds
        per_fold = 0.5 * (1 - folds["test_tpr"]) + 0.5 * folds["test_fpr"]
        assert c["test_error"] == pytest.approx(per_fold.mean())


@pytest.mark.slow
def test_parallel_folds_and_progress_bar_match_sequential(capsys):
    X, y = noisy_two_feature_data()
    seq = fit_cv(X, y, max_size=[1, 2], cv=3)
    for backend in ("threading", "loky"):
        par = fit_cv(X, y, max_size=[1, 2], cv=3, n_jobs=2, backend=backend, progress=True)
        assert par.details["cv"] == seq.details["cv"] and par.points == seq.points
    assert "fit_cv" in capsys.readouterr().err  # tqdm writes its bar to stderr


@pytest.fixture
def python_sigint_handler():
    """Python's own SIGINT handler for one test, the previous one restored after.

    interrupt_main() does nothing while SIGINT is ignored, as it is when the suite runs as a
    background job (``pytest &``); the handler makes the simulated Ctrl-C arrive there too.
    """
    import signal

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.usefixtures("python_sigint_handler")
def test_ctrl_c_stops_the_running_fit_and_closes_the_bar(monkeypatch):
    """Ctrl-C reaches the main thread while a fit runs: the fit is told to
    stop, nothing else runs."""
    import _thread

    X, y = noisy_two_feature_data()
    calls, stopped, bars = [], [], []
    real_bar = validation.progress_bar

    def fit_until_cancelled(*args, cancel=None, **kwargs):
        calls.append(1)
        _thread.interrupt_main()  # what Ctrl-C does
        stopped.append(cancel.wait(60))  # a real fit polls its cancel event the same way
        return sw.fit(*args, **kwargs)

    def recorded_bar(*args):
        bars.append(real_bar(*args))
        return bars[-1]

    monkeypatch.setattr(validation, "fit", fit_until_cancelled)
    monkeypatch.setattr(validation, "progress_bar", recorded_bar)
    with pytest.raises(KeyboardInterrupt):
        fit_cv(X, y, max_size=[1, 2], cv=3, progress=True)
    assert calls == [1] and stopped == [True]  # the fit saw the stop; no other fit started
    assert bars[0].disable  # tqdm sets disable when closed


def random_rules(seed):
    """60 rows of 4 random 0/1 rules; y follows two of them, with noise."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 2, size=(60, 4)), columns=["a", "b", "c", "d"])
    y = ((X.a + X.b + rng.integers(0, 2, 60)) >= 2).astype(int)
    return X, y


def test_fit_cv_cuts_the_folds_that_fit_cuts_for_its_size():
    """sw.cross_validate and sw.fit_cv fold the rows as fit's size choice does (one function)."""
    from slimwidgets.fitting import size_cv

    X, y = random_rules(3)
    folds = validation.make_folds(X, y, 5, size_cv.SEED, None, None)
    for (train, test), (train_fit, test_fit) in zip(folds.splits, size_cv._fold_rows(y, 5)):
        assert train.tolist() == train_fit.tolist() and test.tolist() == test_fit.tolist()


@pytest.mark.slow
@pytest.mark.seeds(6)
def test_fit_cv_and_fit_choose_the_same_size(seed):
    """The same data and seed: fit's size_cv and fit_cv over the same sizes pick one size, from
    the same held-out errors (every fold fit is proven optimal, so both see the same cards'
    errors), by the same rule."""
    X, y = random_rules(seed)
    card = sw.fit(X, y, size_cv=4, max_size=3)
    by_fit = card.details["size_cv"]
    chosen = fit_cv(X, y, max_size=[1, 2, 3], cv=4, seed=by_fit["seed"])
    by_fit_cv = chosen.details["cv"]
    assert by_fit_cv["chosen"] == {"max_size": by_fit["chosen"]}
    assert card.size <= by_fit["chosen"] and chosen.points == card.points
    proven = all(r["optimal_folds"] == 4 for r in by_fit["candidates"] + by_fit_cv["candidates"])
    if proven:  # ties among optimal fold cards may differ in held-out error; none here
        for a, b in zip(by_fit["candidates"], by_fit_cv["candidates"]):
            assert a["test_error"] == pytest.approx(b["test_error"])
