"""binarize / Binarizer: deprecated presets of sw.RuleBuilder; readable rules, same cuts on test
data, pass-through of 0/1 columns."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import make_pipeline

import slimwidgets as sw
from slimwidgets.toolbox.binarize import Binarizer, binarize

# every test but the first uses the deprecated classes on purpose
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def frame():
    return pd.DataFrame(
        {
            "age": [35, 47, 52, 61, 68, 74, 80, 41],
            "bmi": [22.5, 31.0, 27.2, 35.8, 24.1, 29.9, 26.0, 33.3],
            "smoker": [0, 1, 0, 1, 1, 0, 0, 1],
            "sex": ["F", "M", "F", "M", "F", "F", "M", "F"],
        },
        index=list("abcdefgh"),
    )


@pytest.mark.filterwarnings("default::DeprecationWarning")
def test_a_deprecated_preset_of_the_rule_builder():
    """Both warn once, at the caller's line, naming sw.RuleBuilder; a Binarizer is a RuleBuilder
    whose numeric rules are the builder's own for the same cut points."""
    with pytest.warns(DeprecationWarning, match=r"sw\.RuleBuilder") as caught:
        b = Binarizer(n_thresholds=2)
    assert len(caught) == 1 and caught[0].filename == __file__
    assert isinstance(b, sw.RuleBuilder) and repr(b) == "Binarizer(n_thresholds=2)"
    with pytest.warns(DeprecationWarning, match=r"sw\.RuleBuilder") as caught:
        B = binarize(frame(), n_thresholds=2)
    assert len(caught) == 1 and caught[0].filename == __file__
    b.fit(frame())
    numbers = frame()[["age", "bmi"]]
    builder = sw.RuleBuilder(cuts=b.thresholds_).fit(numbers)
    names = builder.get_feature_names_out().tolist()
    assert names == [n for n in B.columns if n.startswith(("age", "bmi"))]
    assert builder.transform(numbers).equals(B[names])


def test_rules_are_readable_and_correct():
    X = frame()
    B = binarize(X, n_thresholds=2)
    assert list(B.index) == list(X.index)
    assert B["smoker"].tolist() == X["smoker"].tolist()  # 0/1 column unchanged
    rules = [c for c in B.columns if c.startswith("age")]
    assert rules == ["age >= 47", "age >= 68"]  # sorted ages: 35 41 47 52 61 68 74 80
    for name in rules + [c for c in B.columns if c.startswith("bmi")]:
        col, op, t = name.split(" ")
        expected = (X[col] >= float(t)) if op == ">=" else (X[col] < float(t))
        assert B[name].tolist() == expected.astype(int).tolist(), name
    assert B["sex = F"].tolist() == (X.sex == "F").astype(int).tolist()
    assert set(np.unique(B.drop(columns="smoker").to_numpy())) <= {0, 1}
    assert all(B[c].dtype == np.int8 for c in B.columns if c != "smoker")


def test_quantile_cuts_are_observed_values_and_all_gives_every_split():
    X = frame()
    b = Binarizer(n_thresholds=3).fit(X)
    for col, cuts in b.thresholds_.items():
        assert set(cuts) <= set(X[col].astype(float))
        assert min(cuts) > X[col].min()  # no constant rule
    allb = Binarizer(columns=["age"], n_thresholds="all").fit(X)
    assert allb.thresholds_["age"] == sorted(X.age.unique().astype(float))[1:]
    assert allb.transform(X).shape[1] == 7 + 3  # 7 age rules + 3 passed-through columns


def test_same_cut_points_on_test_data_and_unseen_category():
    X = frame()
    b = Binarizer(n_thresholds=2).fit(X)
    test = pd.DataFrame({"age": [50, 90], "bmi": [30.0, 20.0], "smoker": [1, 0], "sex": ["M", "X"]})
    T = b.transform(test)
    assert list(T.columns) == list(b.get_feature_names_out())
    assert T["age >= 47"].tolist() == [1, 1] and T["age >= 68"].tolist() == [0, 1]
    assert T["sex = M"].tolist() == [1, 0] and T["sex = F"].tolist() == [0, 0]
    with pytest.raises(KeyError, match="bmi"):
        b.transform(test.drop(columns="bmi"))


def test_directions_and_uniform_method():
    X = frame()
    lt = binarize(X[["age"]], n_thresholds=1, direction="lt")
    assert lt.columns.tolist() == ["age < 61"]
    assert lt["age < 61"].tolist() == (X.age < 61).astype(int).tolist()
    both = binarize(X[["age"]], n_thresholds=1, direction="both")
    assert (both["age >= 61"] + both["age < 61"] == 1).all()
    auto = binarize(X[["age"]], n_thresholds="all", direction="auto")
    median = X.age.median()
    for name in auto.columns:
        _, op, t = name.split(" ")
        assert (op == "<") == (float(t) <= median)
    uni = Binarizer(method="uniform", n_thresholds=2, columns=["bmi"]).fit(X)
    assert uni.thresholds_["bmi"] == [26.9, 31.4]  # 22.5 + (35.8 - 22.5) * {1/3, 2/3}, 3 digits


def test_sklearn_conventions_and_errors():
    X = frame()
    b = Binarizer(n_thresholds=2)
    assert clone(b).get_params() == b.get_params()
    with pytest.raises(NotFittedError):
        b.transform(X)
    b.fit(X)
    assert b.n_features_in_ == 4 and list(b.feature_names_in_) == list(X.columns)
    with pytest.raises(ValueError, match="method"):
        Binarizer(method="kmeans").fit(X)
    with pytest.raises(ValueError, match="n_thresholds"):
        Binarizer(n_thresholds=0).fit(X)
    with pytest.raises(ValueError, match="missing values"):
        binarize(X.assign(age=[np.nan] + list(X.age[1:])))
    with pytest.raises(KeyError, match="nope"):
        binarize(X, columns=["nope"])
    # a pipeline: binarize, then a SLIM estimator on the rules
    y = [0, 1, 0, 1, 1, 0, 1, 1]
    pipe = make_pipeline(
        Binarizer(n_thresholds=2, columns=["age", "bmi"]),
        sw.SLIMClassifier(max_size=2, coef_range=(-3, 3)),
    )
    pipe.fit(X.drop(columns="sex"), y)
    assert len(pipe.predict(X.drop(columns="sex"))) == 8


@pytest.mark.slow
def test_breastcancer_rules_feed_fit(paper_data):
    X, y = paper_data("breastcancer")
    B = binarize(X, n_thresholds=2)
    assert B.shape[0] == X.shape[0] and all(" >= " in c for c in B.columns)
    card = sw.fit(B, y, max_size=3, time_limit=3)
    assert card.train_metrics.error < 0.1
