"""SLIMClassifier: scikit-learn conventions, and agreement with the engine's card."""

from __future__ import annotations

import doctest
import inspect
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import KBinsDiscretizer
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import parametrize_with_checks

import slimwidgets
import slimwidgets.toolbox.estimator as estimator_module
from slimwidgets.datasets import load_demo
from slimwidgets.fitting import driver as fitting
from slimwidgets.toolbox.estimator import SLIMClassifier

pytestmark = pytest.mark.filterwarnings("ignore::slimwidgets.DataWarning")


@pytest.fixture(scope="module")
def demo():
    return load_demo()


@pytest.fixture(scope="module")
def demo_fit(demo):
    X, y = demo
    return SLIMClassifier(max_size=3, time_limit=20).fit(X, y)


@pytest.fixture
def engine_calls(monkeypatch):
    """Record the keyword arguments and the card of every engine call the estimator makes."""
    calls = []
    real_fit = fitting.fit

    def spy(X, y, **kwargs):
        card = real_fit(X, y, **kwargs)
        calls.append((kwargs, card))
        return card

    monkeypatch.setattr(fitting, "fit", spy)
    return calls


def toy():
    X = pd.DataFrame({"fever": [1, 1, 0, 0, 1, 0, 1, 0], "cough": [0, 1, 0, 1, 1, 0, 0, 1]})
    y = np.array([1, 1, 0, 0, 1, 0, 1, 0])
    return X, y


# -- parameters ------------------------------------------------------------------------------
def test_init_signature_matches_the_documented_defaults():
    expected = dict(
        C0=None,
        max_size=None,
        max_fpr=None,
        min_tpr=None,
        signs=None,
        penalties=None,
        exclude=(),
        require=(),
        coef_range=(-10, 10),
        intercept_range=None,
        values=None,
        lock=None,
        constraints=(),
        class_weights=None,
        missing=None,
        margin=None,
        zero_score="positive",
        time_limit=30.0,
        gap=0.0,
        threads=1,
        solver="auto",
        warm_start=False,
        loss="zero_one",
        scale=True,
        rules=None,
        cuts=None,
        max_fpr_by_group=None,
        min_tpr_by_group=None,
        max_fpr_gap=None,
        max_tpr_gap=None,  # issue 22
        max_variables=None,
        max_cuts_per_variable=None,
        monotone=None,  # issue 19
    )
    params = inspect.signature(SLIMClassifier.__init__).parameters
    assert all(p.kind is p.POSITIONAL_OR_KEYWORD for name, p in params.items() if name != "self")
    assert {name: p.default for name, p in params.items() if name != "self"} == expected
    assert SLIMClassifier().get_params() == expected


def test_get_set_params_round_trip_and_clone_keep_values_unchanged():
    signs = {"fever": "+"}
    constraints = [slimwidgets.at_most(1, ["fever", "cough"])]
    clf = SLIMClassifier(
        max_size=2, signs=signs, constraints=constraints, coef_range={"fever": (0, 3)}
    )
    params = clf.get_params()
    assert params["signs"] is signs and params["constraints"] is constraints
    other = SLIMClassifier().set_params(**params)
    assert other.get_params() == params
    assert other.set_params(max_size=5) is other and other.max_size == 5
    cloned = clone(clf)
    assert cloned is not clf and cloned.get_params() == params
    assert not hasattr(cloned, "coef_")
    assert "max_size=2" in repr(clf)


def test_invalid_options_are_reported_at_fit_not_init():
    clf = SLIMClassifier(max_fpr=2.0, solver="nope")  # no error yet (sklearn convention)
    X, y = toy()
    with pytest.raises(ValueError, match="max_fpr"):
        clf.fit(X, y)
    with pytest.raises(KeyError, match="did you mean 'fever'"):
        SLIMClassifier(signs={"fevr": "+"}).fit(X, y)


# -- fit / predict on the demo data ------------------------------------------------------------
@pytest.mark.slow
def test_fit_predict_on_demo_agrees_with_the_card(demo, demo_fit):
    X, y = demo
    clf = demo_fit
    card = clf.scoring_system_
    assert isinstance(card, slimwidgets.ScoringSystem)
    assert clf.status_ == card.status == "optimal" and clf.gap_ == card.gap == 0
    assert clf.n_features_in_ == X.shape[1]
    assert list(clf.feature_names_in_) == list(X.columns) == list(card.feature_names)
    assert clf.classes_.tolist() == [False, True] and card.positive is True
    assert clf.coef_.shape == (1, X.shape[1]) and clf.coef_.dtype.kind == "i"
    assert clf.intercept_.shape == (1,) and clf.intercept_.dtype.kind == "i"
    assert clf.coef_[0].tolist() == list(card.coefficients) and clf.intercept_[0] == card.intercept
    assert 1 <= card.size <= 3

    pred = clf.predict(X)
    assert isinstance(pred, np.ndarray) and pred.shape == (len(X),)
    np.testing.assert_array_equal(pred, np.asarray(card.predict(X)))
    decision = clf.decision_function(X)
    assert decision.shape == (len(X),)
    total = X.to_numpy() @ clf.coef_[0] + clf.intercept_[0]
    np.testing.assert_array_equal(total, np.asarray(card.decision_function(X)))
    np.testing.assert_array_equal(decision, np.where(total >= 0, total + 0.5, total - 0.5))
    np.testing.assert_array_equal(decision > 0, pred == clf.classes_[1])
    assert clf.score(X, y) == pytest.approx(card.train_metrics.accuracy)
    assert clf.score(X, y) > 0.85


def test_numpy_input_names_features_x0_and_sets_no_feature_names(demo):
    X, y = demo
    clf = SLIMClassifier(max_size=1, exclude=["x0"], time_limit=20).fit(X.to_numpy(), y.to_numpy())
    assert not hasattr(clf, "feature_names_in_")
    assert clf.scoring_system_.feature_names == tuple(f"x{j}" for j in range(X.shape[1]))
    assert clf.coef_[0, 0] == 0 and clf.scoring_system_.size == 1
    with pytest.raises(ValueError, match="features"):
        clf.predict(X.to_numpy()[:, :3])


def test_dataframe_column_checks_on_predict(demo_fit, demo):
    X, _ = demo
    with pytest.raises(ValueError, match="feature names"):
        demo_fit.predict(X[X.columns[::-1]])
    with pytest.warns(UserWarning, match="feature names"):
        demo_fit.predict(X.to_numpy())


@pytest.mark.parametrize(
    "labels",
    [("no", "yes"), (False, True), (2, 5), (-1, 1)],
    ids=["strings", "bools", "ints", "signs"],
)
def test_labels_positive_is_the_larger_class(labels, engine_calls):
    X, y01 = toy()
    neg, pos = labels
    y = np.array([pos if v else neg for v in y01], dtype=object if isinstance(neg, str) else None)
    clf = SLIMClassifier(max_size=1).fit(X, y)
    assert clf.classes_.tolist() == [neg, pos]
    assert engine_calls[-1][0]["positive"] == pos and clf.scoring_system_.positive == pos
    pred = clf.predict(X)
    assert set(pred.tolist()) <= {neg, pos}
    assert pred.tolist() == [pos if v else neg for v in y01]  # fever alone separates the toy data
    if isinstance(neg, bool):
        assert pred.dtype == bool
    np.testing.assert_array_equal(pred, np.asarray(clf.scoring_system_.predict(X)))
    np.testing.assert_array_equal(clf.decision_function(X) > 0, pred == pos)


def test_label_order_in_y_does_not_matter():
    X, y01 = toy()
    y = np.where(y01 == 1, "yes", "no")
    a = SLIMClassifier(max_size=1).fit(X, y)
    b = SLIMClassifier(max_size=1).fit(X.iloc[::-1], y[::-1])
    assert a.classes_.tolist() == b.classes_.tolist() == ["no", "yes"]
    np.testing.assert_array_equal(a.coef_, b.coef_)


def test_bad_targets_raise_value_errors_naming_the_problem():
    X, y = toy()
    with pytest.raises(ValueError, match="Only binary classification is supported.*3 classes"):
        SLIMClassifier().fit(X, np.arange(len(X)) % 3)
    with pytest.raises(ValueError, match="only one class"):
        SLIMClassifier().fit(X, np.ones(len(X), dtype=int))
    with pytest.raises(ValueError, match="Unknown label type"):
        SLIMClassifier().fit(X, np.linspace(0, 1, len(X)))
    bad = X.astype(float)
    bad.iloc[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        SLIMClassifier(rules=False).fit(
            bad, y
        )  # by default a raw DataFrame gets a rule "fever missing"
    with pytest.raises(ValueError, match="NaN"):
        SLIMClassifier().fit(bad.to_numpy(), y)  # arrays are never turned into rules


def test_no_predict_proba_and_unfitted_errors():
    clf = SLIMClassifier()
    assert not hasattr(clf, "predict_proba")
    assert "predict_proba" in SLIMClassifier.__doc__  # the reason is documented
    with pytest.raises(NotFittedError):
        clf.predict([[0, 1]])
    with pytest.raises(NotFittedError):
        clf.decision_function([[0, 1]])


def test_predict_proba_belongs_to_the_family_that_predicts_a_risk():
    """Only a loss whose family predicts a risk offers predict_proba; an unknown loss offers
    none (hasattr is False, not an error)."""
    assert hasattr(SLIMClassifier(loss="logistic"), "predict_proba")
    assert not hasattr(SLIMClassifier(loss="zero_one"), "predict_proba")
    assert not hasattr(SLIMClassifier(loss="no such loss"), "predict_proba")


def test_tags():
    tags = get_tags(SLIMClassifier())
    assert tags.estimator_type == "classifier"
    assert tags.classifier_tags.multi_class is False
    assert tags.input_tags.allow_nan is False and tags.input_tags.sparse is False
    assert tags.target_tags.required is True


# -- options handed to the engine ---------------------------------------------------------------
def test_options_reach_the_engine(engine_calls):
    X, y = toy()
    clf = SLIMClassifier(
        max_size=2, signs={"cough": "-"}, coef_range=(-4, 4), time_limit=30, gap=0.0, threads=1
    )
    clf.fit(X, y, sample_weight=np.arange(1, len(X) + 1))
    kwargs, card = engine_calls[-1]
    assert kwargs["feature_names"] == ["fever", "cough"]
    assert (
        kwargs["max_size"] == 2
        and kwargs["signs"] == {"cough": "-"}
        and kwargs["coef_range"] == (-4, 4)
    )
    np.testing.assert_array_equal(kwargs["sample_weight"], np.arange(1, len(X) + 1))
    assert kwargs["warm_start"] is None
    assert (
        card.spec.max_size == 2 and card.spec.signs == {"cough": "-"} and card.spec.time_limit == 30
    )
    assert clf.coef_[0, 1] <= 0


def test_class_weights_keyed_by_label(engine_calls):
    X, y01 = toy()
    y = np.where(y01 == 1, "yes", "no")
    SLIMClassifier(max_size=1, class_weights={"yes": 3.0}).fit(X, y)
    assert engine_calls[-1][1].spec.class_weights == (1.0, 3.0)
    SLIMClassifier(max_size=1, class_weights={"negative": 2.0, "positive": 1.0}).fit(X, y)
    assert engine_calls[-1][1].spec.class_weights == (2.0, 1.0)
    SLIMClassifier(max_size=1, class_weights="balanced").fit(X, y)
    assert engine_calls[-1][1].spec.class_weights == "balanced"
    with pytest.raises(ValueError, match="not in y"):
        SLIMClassifier(class_weights={"maybe": 2.0}).fit(X, y)


def test_warm_start_reuses_the_previous_card(engine_calls):
    X, y = load_demo(n_features=6)
    clf = SLIMClassifier(max_size=1, time_limit=20, warm_start=True).fit(X, y)
    first = clf.scoring_system_
    assert engine_calls[-1][0]["warm_start"] is None
    clf.set_params(max_size=2).fit(X, y)
    assert engine_calls[-1][0]["warm_start"] is first
    cold = SLIMClassifier(max_size=2, time_limit=20).fit(X, y)
    assert clf.status_ == cold.status_ == "optimal"
    assert clf.scoring_system_.objective == pytest.approx(cold.scoring_system_.objective)
    # without warm_start a refit starts cold
    Xt, yt = toy()
    SLIMClassifier(max_size=1).fit(Xt, yt).fit(Xt, yt)
    assert engine_calls[-1][0]["warm_start"] is None


def test_infeasible_constraints_raise_the_engine_error():
    X, y = toy()
    with pytest.raises(slimwidgets.InfeasibleError):
        SLIMClassifier(exclude=["fever", "cough"], max_fpr=0.0, min_tpr=1.0).fit(X, y)


def test_pickle_round_trip(demo_fit, demo):
    X, _ = demo
    again = pickle.loads(pickle.dumps(demo_fit))
    np.testing.assert_array_equal(again.predict(X), demo_fit.predict(X))
    assert again.scoring_system_.points == demo_fit.scoring_system_.points


# -- inside scikit-learn tools --------------------------------------------------------------------
def test_cross_val_score_and_grid_search():
    X, y = load_demo(n_features=6)
    scores = cross_val_score(SLIMClassifier(max_size=2, time_limit=20), X, y, cv=3)
    assert scores.shape == (3,) and scores.min() > 0.75
    grid = GridSearchCV(SLIMClassifier(time_limit=20), {"max_size": [1, 2]}, cv=2).fit(X, y)
    assert grid.best_params_["max_size"] in (1, 2)
    assert grid.best_estimator_.scoring_system_.size <= grid.best_params_["max_size"]


def test_inside_a_pipeline_with_a_binarizing_step():
    raw = load_breast_cancer(as_frame=True)
    X = raw.data.iloc[:, :4]
    y = np.where(raw.target == 0, "malignant", "benign")
    pipe = make_pipeline(
        KBinsDiscretizer(n_bins=3, encode="ordinal", strategy="uniform"),
        SLIMClassifier(max_size=2, coef_range=(-3, 3), time_limit=20),
    ).set_output(transform="pandas")
    scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.min() > 0.75
    pipe.fit(X, y)
    slim = pipe[-1]
    assert slim.classes_.tolist() == ["benign", "malignant"]
    assert list(slim.feature_names_in_) == list(X.columns)  # names flow through set_output
    # the bins 0-2 of each column are a small scale: its rules cut at the bins ("mean area >= 1")
    assert {slim.rules_.variable_of(rule) for rule in slim.scoring_system_.points} <= set(X.columns)
    np.testing.assert_array_equal(
        pipe.predict(X), slim.scoring_system_.predict(pipe[0].transform(X)).to_numpy()
    )


def test_docstring_examples_run():
    result = doctest.testmod(estimator_module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


# -- scikit-learn's estimator checks ---------------------------------------------------------------
# The checks fit on small random real-valued data (up to 300 rows, 10 features),
# often pure noise, where proving a SLIM card optimal can take long: with the
# default box (-10..10) a noise set of 56 rows x 10 features runs into any
# time limit. max_size=1, points in -2..2 and an intercept in -10..10 keep
# every solve well under a second, so each check sees a proven optimum; the
# time limit is only a safety net, and the `check_solves` fixture asserts it
# never binds (a solve cut by the clock would make refits irreproducible,
# which several checks test). One feature still classifies the checks' blobs
# well enough for check_classifiers_train's accuracy bar.
CHECKED = SLIMClassifier(max_size=1, coef_range=(-2, 2), intercept_range=(-10, 10), time_limit=10)

# Nothing is excluded: every check that scikit-learn 1.9 runs on this estimator
# passes. The multi-class checks are not run because the estimator's
# `multi_class` tag is False (scikit-learn runs check_classifier_not_supporting_multiclass
# instead), and the predict_proba checks are no-ops without that method.
EXPECTED_FAILED_CHECKS: dict[str, str] = {}


@pytest.fixture
def check_solves(engine_calls):
    yield
    unfinished = [
        card.status for _, card in engine_calls if card.status in ("time_limit", "interrupted")
    ]
    assert not unfinished, f"a solve hit the time limit during the check: {unfinished}"


@pytest.mark.usefixtures("check_solves")
@parametrize_with_checks(
    [CHECKED], expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS, xfail_strict=True
)
@pytest.mark.slow
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", slimwidgets.DataWarning)
        check(estimator)


@pytest.mark.parametrize("zero_score", ["positive", "error"])
def test_zero_score_reaches_the_card_and_the_sign_convention_holds(zero_score):
    X, y01 = toy()
    clf = SLIMClassifier(max_size=1, zero_score=zero_score).fit(X, y01)
    card = clf.scoring_system_
    assert card.zero_score == card.spec.zero_score == zero_score
    assert clone(clf).get_params()["zero_score"] == zero_score
    total = np.asarray(card.decision_function(X), dtype=float)
    if zero_score == "error":
        np.testing.assert_array_equal(clf.decision_function(X), total)
    np.testing.assert_array_equal(clf.decision_function(X) > 0, clf.predict(X) == clf.classes_[1])
    # the default rule gives the smallest card: a lone rule scores 1 point
    if zero_score == "positive":
        assert set(card.points.values()) == {1}


def test_settings_by_variable_as_parameters_on_a_raw_table():
    rng = np.random.default_rng(3)
    n = 120
    raw = pd.DataFrame(
        {
            "age": rng.integers(30, 85, n),
            "bmi": np.round(rng.normal(28, 5, n), 1),
            "sex": rng.choice(["F", "M"], n),
        }
    )
    y = ((raw.age > 60) | (raw.bmi > 32)).astype(int).to_numpy().copy()
    y[rng.random(n) < 0.1] ^= 1
    clf = slimwidgets.SLIMClassifier(
        cuts={"age": [40, 50, 60, 70], "bmi": [25, 30, 35]},
        max_variables=1,
        max_cuts_per_variable=2,
        monotone={"age": "-"},
        C0=0.001,
        time_limit=20,
    )
    clf = clone(clf).fit(raw, y)
    card = clf.scoring_system_
    used = [name for name, p in card.points.items() if p]
    assert len({card.rules.variable_of(name) for name in used}) == 1
    ages = [card.points.get(name, 0) for name in card.rules.rules_of("age")]
    assert all(p <= 0 for p in ages) and sum(1 for p in ages if p) <= 2
    assert (
        slimwidgets.check_card(
            card, slimwidgets.prepare_data(card.rules.transform(raw), y), card.spec
        )
        == []
    )
