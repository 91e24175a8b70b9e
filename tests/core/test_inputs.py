"""Bad inputs to ``slimwidgets.fit``: each must fail with an error that names the problem.

Every solve here is tiny (20 rows, three 0/1 features, points in -3..3).
"""

from __future__ import annotations

import copy
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw

SMALL = {"coef_range": (-3, 3)}


def make_xy() -> tuple[pd.DataFrame, pd.Series]:
    """20 rows, three binary features. Rows 0 and 10 are identical with opposite labels,
    so no card can have both FPR 0 and TPR 1 (the classes overlap)."""
    X = pd.DataFrame(
        {
            "age": [1, 1, 1, 1, 1, 0, 0, 0, 0, 0] * 2,
            "bmi": [1, 0, 1, 0, 1, 0, 1, 0, 1, 0] * 2,
            "smoker": [0, 0, 1, 1, 0, 0, 1, 1, 0, 1] * 2,
        },
        index=pd.RangeIndex(100, 120),
    )
    y = pd.Series(
        [1, 1, 1, 0, 1, 0, 1, 0, 0, 0] + [0, 1, 1, 0, 1, 0, 1, 0, 0, 1], index=X.index, name="sick"
    )
    return X, y


def fit(X=None, y=None, **options):
    X0, y0 = make_xy()
    X = X0 if X is None else X
    y = y0 if y is None else y
    opts = dict(SMALL)
    opts.update(options)
    return sw.fit(X, y, **opts)


def raises(exc, *fragments):
    """pytest.raises whose message must contain every fragment (literally)."""
    pattern = "".join(f"(?=.*{re.escape(f)})" for f in fragments)
    return pytest.raises(exc, match=re.compile(pattern, re.S))


def test_baseline_fit_works():
    card = fit()
    assert card.status == "optimal"
    assert set(card.feature_names) == {"age", "bmi", "smoker"}


# -- the data ------------------------------------------------------------------------------
def test_nan_in_X_names_the_column():
    X, y = make_xy()
    X = X.astype(float)
    X.iloc[4, 1] = np.nan
    with raises(ValueError, "bmi", "missing"):
        fit(X, y, rules=False)  # the default builds a rule "bmi missing" (tests/core/test_rules.py)


def test_inf_in_X_names_the_column():
    X, y = make_xy()
    X = X.astype(float)
    X.iloc[2, 2] = -np.inf
    with raises(ValueError, "smoker", "infinite"):
        fit(X, y)


def test_nullable_integer_NA_is_reported():
    X, y = make_xy()
    X = X.astype("Int64")
    X.iloc[0, 0] = pd.NA
    with raises(ValueError, "age", "missing"):
        fit(X, y, rules=False)


def test_string_column_names_the_column():
    X, y = make_xy()
    X["sex"] = ["m", "f"] * 10
    with raises(TypeError, "sex", "non-numeric"):
        fit(X, y, rules=False)  # the default makes a rule per level


def test_object_column_with_mixed_types_names_the_column():
    X, y = make_xy()
    X["mixed"] = pd.Series([1, "two", 3.0, None] * 5, index=X.index, dtype=object)
    with raises(TypeError, "mixed"):
        fit(X, y)


def test_categorical_column_is_rejected():
    X, y = make_xy()
    X["grade"] = pd.Categorical([1, 2] * 10)
    with raises(TypeError, "grade"):
        fit(X, y, rules=False)  # the default makes a rule per level


def test_complex_column_is_rejected_not_truncated():
    X, y = make_xy()
    X["z"] = X["age"] + 1j
    with raises(TypeError, "z", "complex"):
        fit(X, y)
    with raises(TypeError, "complex"):
        fit(X.to_numpy(), y.to_numpy())


def test_non_numeric_array():
    X, y = make_xy()
    with raises(TypeError, "numeric"):
        fit(X.astype(str).to_numpy(), y)
    with raises(TypeError, "text"):
        fit([["1", 0, 1]] * 20, y)


def test_empty_dataframe():
    with pytest.raises(ValueError, match="no rows|no columns|empty"):
        fit(pd.DataFrame(), pd.Series([], dtype=int))


def test_zero_rows():
    X, y = make_xy()
    with raises(ValueError, "no rows"):
        fit(X.iloc[:0], y.iloc[:0])


def test_zero_columns():
    X, y = make_xy()
    with raises(ValueError, "no columns"):
        fit(X[[]], y)


def test_y_with_one_class():
    X, _ = make_xy()
    with raises(ValueError, "one class", "(1)"):
        fit(X, pd.Series([1] * 20))


@pytest.mark.parametrize(
    "labels, fragments",
    [
        (
            [0, 1, 2] * 6 + [0, 1],
            (
                "y has 3 classes (0, 1, 2)",
                "a card separates two classes",
                "one class against the rest",
            ),
        ),
        (
            ["a", "b", "c", "d"] * 5,
            ("y has 4 classes ('a', 'b', 'c', ...)", "merge the classes into two"),
        ),
        (
            list(np.linspace(0.5, 20.1, 20)),
            (
                "20 distinct numbers such as 0.5, 1.53158",
                "a continuous outcome",
                "give a yes/no y",
                "cut-off",
            ),
        ),
    ],
)
def test_y_that_is_not_two_classes_says_what_to_do(labels, fragments):
    X, _ = make_xy()
    with raises(ValueError, *fragments):
        fit(X, labels)


@pytest.mark.parametrize("missing", [np.nan, None])
def test_y_with_missing_labels(missing):
    X, y = make_xy()
    y = y.astype(object)
    y.iloc[3] = missing
    with raises(ValueError, "y has 1 missing value;", "labelled rows only", "drop those rows"):
        fit(X, y)


def time_to_event(n: int) -> np.ndarray:
    """(event, time) pairs as scikit-survival's ``Surv.from_arrays`` makes them."""
    return np.array(
        [(i % 2 == 0, 1.0 + i) for i in range(n)], dtype=[("event", "?"), ("time", "<f8")]
    )


def test_time_to_event_y_gets_a_sentence_not_numpys_error():
    """The estimator of two classes says where a time-to-event y goes (sw.fit takes it)."""
    X, _ = make_xy()
    with raises(
        ValueError,
        "structured array with fields ['event', 'time']",
        "time-to-event outcome",
        "sw.fit(X, y) makes a time-to-event card",
    ):
        sw.SLIMClassifier(max_size=1).fit(X, time_to_event(20))


def test_y_with_mixed_label_types():
    X, _ = make_xy()
    with raises(ValueError, "y mixes", "'a'"):
        fit(X, pd.Series([0, "a"] * 10, dtype=object))


def test_y_two_dimensional():
    X, _ = make_xy()
    with raises(ValueError, "one-dimensional"):
        fit(X, np.zeros((20, 2)))


@pytest.mark.parametrize("n", [15, 25])
def test_length_mismatch(n):
    X, _ = make_xy()
    y = [0, 1] * (n // 2) + [0] * (n % 2)
    with raises(ValueError, "20 rows", f"{n} labels"):
        fit(X, y)


def test_duplicate_column_names():
    X, y = make_xy()
    X.columns = ["age", "bmi", "age"]
    with raises(ValueError, "duplicate", "age"):
        fit(X, y)


def test_feature_names_with_array():
    X, y = make_xy()
    with raises(ValueError, "2 feature names", "3 columns"):
        fit(X.to_numpy(), y, feature_names=["a", "b"])
    with raises(ValueError, "duplicate", "a"):
        fit(X.to_numpy(), y, feature_names=["a", "b", "a"])


def test_constant_column_warns_and_fit_still_works():
    X, y = make_xy()
    X["flag"] = 1
    with pytest.warns(sw.DataWarning, match="constant.*flag"):
        card = fit(X, y)
    assert card.status == "optimal"
    assert "flag" not in card.points


def test_duplicate_column_content_warns():
    X, y = make_xy()
    X["age_copy"] = X["age"]
    with pytest.warns(sw.DataWarning, match="identical.*age_copy"):
        card = fit(X, y)
    assert card.status == "optimal"


def test_clean_data_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error", sw.DataWarning)
        fit()


# -- sample weights ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "weights, fragments",
    [
        ([-1.0] + [1.0] * 19, ("sample_weight", "non-negative")),
        ([np.nan] + [1.0] * 19, ("sample_weight", "finite")),
        ([1.0] * 19, ("sample_weight", "19 values", "20 rows")),
    ],
    ids=["negative", "nan", "length"],
)
def test_bad_sample_weights(weights, fragments):
    with raises(ValueError, *fragments):
        fit(sample_weight=weights)


def test_sample_weights_zero_for_one_class():
    _, y = make_xy()
    with raises(ValueError, "sample_weight", "one class"):
        fit(sample_weight=np.where(y == 1, 0.0, 1.0))


# -- feature names in options ----------------------------------------------------------------
UNKNOWN_NAME_OPTIONS = [
    ("signs", lambda n: {"signs": {n: "+"}}),
    ("penalties", lambda n: {"penalties": {n: 0.01}}),
    ("exclude", lambda n: {"exclude": [n]}),
    ("require", lambda n: {"require": [n]}),
    ("coef_range", lambda n: {"coef_range": {n: (-2, 2)}}),
    ("coef_range", lambda n: {"coef_ranges": {n: (-2, 2)}}),
    ("values", lambda n: {"values": {n: [0, 1, 2]}}),
    ("lock", lambda n: {"lock": {n: 1}}),
    ("missing", lambda n: {"missing": {n: 1}}),
    ("constraints[0]", lambda n: {"constraints": [sw.needs(n, "bmi")]}),
    ("constraints[0]", lambda n: {"constraints": [sw.needs("bmi", n)]}),
    ("constraints[0]", lambda n: {"constraints": [sw.at_most(1, ["bmi", n])]}),
    ("constraints[0]", lambda n: {"constraints": [sw.at_least(1, [n, "bmi"])]}),
    ("constraints[0]", lambda n: {"constraints": [sw.hierarchy(n, ["bmi"])]}),
]


@pytest.mark.parametrize(
    "option, build",
    UNKNOWN_NAME_OPTIONS,
    ids=[
        "signs",
        "penalties",
        "exclude",
        "require",
        "coef_range",
        "coef_ranges",
        "values",
        "lock",
        "missing",
        "needs-source",
        "needs-target",
        "at_most",
        "at_least",
        "hierarchy",
    ],
)
def test_unknown_feature_in_option_with_hint(option, build):
    opts = build("smokr")
    with raises(KeyError, option, "'smokr'", "did you mean 'smoker'?"):
        fit(**opts)


@pytest.mark.parametrize(
    "option, build",
    UNKNOWN_NAME_OPTIONS[:9],
    ids=[
        "signs",
        "penalties",
        "exclude",
        "require",
        "coef_range",
        "coef_ranges",
        "values",
        "lock",
        "missing",
    ],
)
def test_unknown_feature_far_from_any_name_has_no_hint(option, build):
    with pytest.raises(KeyError) as info:
        fit(**build("zzz_unrelated"))
    message = str(info.value)
    assert option in message and "'zzz_unrelated'" in message
    assert "did you mean" not in message


def test_unknown_name_with_array_input_uses_feature_names():
    X, y = make_xy()
    with raises(KeyError, "require", "'agee'", "did you mean 'age'?"):
        fit(X.to_numpy(), y, feature_names=list(X.columns), require=["agee"])


def test_unknown_option_is_named():
    with raises(TypeError, "max_fp"):
        fit(max_fp=0.1)


# -- contradictory and out-of-range options --------------------------------------------------
CONTRADICTIONS = [
    (
        "exclude+require",
        dict(exclude=["age"], require=["age"]),
        ValueError,
        ("excluded and required", "age"),
    ),
    ("sign+ lock-", dict(signs={"age": "+"}, lock={"age": -1}), ValueError, ("age", "'+'", "-1")),
    ("sign- lock+", dict(signs={"bmi": "-"}, lock={"bmi": 2}), ValueError, ("bmi", "'-'", "2")),
    (
        "exclude, range without 0",
        dict(exclude=["age"], coef_range={"age": (1, 3)}),
        ValueError,
        ("age", "excluded", "1..3"),
    ),
    (
        "exclude, values without 0",
        dict(exclude=["age"], values={"age": [1, 2]}),
        ValueError,
        ("age", "excluded", "[1, 2]"),
    ),
    (
        "exclude, lock nonzero",
        dict(exclude=["age"], lock={"age": 1}),
        ValueError,
        ("age", "excluded", "locked"),
    ),
    (
        "require, values only 0",
        dict(require=["age"], values={"age": [0]}),
        ValueError,
        ("age", "required", "only 0"),
    ),
    (
        "require, range 0..0",
        dict(require=["bmi"], coef_range={"bmi": (0, 0)}),
        ValueError,
        ("bmi", "required"),
    ),
    (
        "require, sign vs range",
        dict(require=["bmi"], signs={"bmi": "+"}, coef_range={"bmi": (-3, 0)}),
        ValueError,
        ("bmi", "required"),
    ),
    (
        "require, lock 0",
        dict(require=["age"], lock={"age": 0}),
        ValueError,
        ("age", "required", "locked at 0"),
    ),
    (
        "no allowed value",
        dict(signs={"age": "+"}, values={"age": [-2, -1]}),
        ValueError,
        ("age", "no allowed"),
    ),
    ("lock outside range", dict(lock={"age": 5}), ValueError, ("age", "locked at 5", "-3..3")),
    (
        "lock outside own range",
        dict(lock={"age": 2}, coef_range={"age": (-1, 1)}),
        ValueError,
        ("age", "locked at 2", "-1..1"),
    ),
    (
        "lock not in values",
        dict(lock={"age": 2}, values={"age": [0, 1, 3]}),
        ValueError,
        ("age", "locked at 2", "[0, 1, 3]"),
    ),
    (
        "max_size < required",
        dict(require=["age", "bmi"], max_size=1),
        ValueError,
        ("max_size=1", "2"),
    ),
    ("max_fpr 1.5", dict(max_fpr=1.5), ValueError, ("max_fpr", "1.5")),
    ("max_fpr nan", dict(max_fpr=float("nan")), ValueError, ("max_fpr",)),
    ("min_tpr -0.1", dict(min_tpr=-0.1), ValueError, ("min_tpr", "-0.1")),
    ("max_size -1", dict(max_size=-1), ValueError, ("max_size", "-1")),
    ("max_size 2.5", dict(max_size=2.5), TypeError, ("max_size", "2.5")),
    ("C0 -1", dict(C0=-1), ValueError, ("C0", "-1")),
    ("C0 inf", dict(C0=float("inf")), ValueError, ("C0",)),
    ("penalty negative", dict(penalties={"age": -0.5}), ValueError, ("penalties['age']", "-0.5")),
    ("bad sign string", dict(signs={"age": "up"}), ValueError, ("signs['age']", "'up'")),
    ("non-integer coef_range", dict(coef_range=(-2.5, 3)), TypeError, ("coef_range", "integers")),
    (
        "non-integer per-feature range",
        dict(coef_range={"age": (0, 1.5)}),
        TypeError,
        ("coef_range['age']",),
    ),
    ("empty coef_range", dict(coef_range=(3, -3)), ValueError, ("coef_range", "empty")),
    (
        "empty intercept_range",
        dict(intercept_range=(5, 1)),
        ValueError,
        ("intercept_range", "empty"),
    ),
    ("non-integer lock", dict(lock={"age": 1.5}), TypeError, ("lock['age']", "1.5")),
    ("non-integer values", dict(values={"age": [0, 0.5]}), TypeError, ("values['age']", "0.5")),
    ("empty values", dict(values={"age": []}), ValueError, ("values['age']", "empty")),
    ("missing negative", dict(missing={"age": -1}), ValueError, ("missing",)),
    (
        "missing > rows",
        dict(missing={"age": 100}),
        ValueError,
        ("missing['age']", "100", "20 rows"),
    ),
    ("gap 2", dict(gap=2), ValueError, ("gap",)),
    ("threads 0", dict(threads=0), ValueError, ("threads",)),
    ("solver", dict(solver="gurobi"), ValueError, ("solver", "gurobi")),
    ("margin 0", dict(margin=0), ValueError, ("margin",)),
    ("class_weights", dict(class_weights="heavy"), ValueError, ("class_weights", "heavy")),
    ("signs not a mapping", dict(signs=["age"]), TypeError, ("signs", "mapping")),
]


@pytest.mark.parametrize(
    "options, exc, fragments", [c[1:] for c in CONTRADICTIONS], ids=[c[0] for c in CONTRADICTIONS]
)
def test_contradictory_or_invalid_options(options, exc, fragments):
    with raises(exc, *fragments):
        fit(**options)


def test_constraint_constructors_validate():
    with raises(ValueError, "itself", "age"):
        sw.needs("age", ["age", "bmi"])
    with raises(ValueError, "at_least 3 of 2"):
        sw.at_least(3, ["age", "bmi"])
    with raises(ValueError, "at_most", "-1"):
        sw.at_most(-1, ["age"])
    with raises(TypeError, "features"):
        sw.at_most(["age", "bmi"], 1)  # arguments swapped


def test_spec_and_options_together_are_refused():
    with raises(TypeError, "spec=", "max_size"):
        X, y = make_xy()
        sw.fit(X, y, spec=sw.make_spec(**SMALL), max_size=2)


# -- a failed call loses nothing ---------------------------------------------------------------
FAILING_CALLS = [
    dict(max_fpr=1.5),
    dict(require=["agee"]),
    dict(exclude=["age"], require=["age"]),
    dict(signs={"age": "+"}, lock={"age": -1}),
    dict(sample_weight=[-1.0] * 20),
    dict(positive=7),
    dict(max_fpr=0.0, min_tpr=1.0),  # reaches the solver: infeasible
]


@pytest.mark.parametrize("options", FAILING_CALLS, ids=lambda o: ",".join(o))
def test_failed_call_leaves_inputs_unchanged(options):
    X, y = make_xy()
    X = X.astype({"bmi": float})
    X_before, y_before = X.copy(deep=True), y.copy(deep=True)
    options_before = copy.deepcopy(options)
    with pytest.raises((ValueError, TypeError, KeyError)):
        fit(X, y, **options)
    pd.testing.assert_frame_equal(X, X_before)
    pd.testing.assert_series_equal(y, y_before)
    assert options == options_before
    # and the same objects still fit
    assert fit(X, y).status == "optimal"


def test_failed_call_with_nan_leaves_inputs_unchanged():
    X, y = make_xy()
    X = X.astype(float)
    X.iloc[0, 0] = np.nan
    X_before, y_before = X.copy(deep=True), y.copy(deep=True)
    with pytest.raises(ValueError):
        fit(X, y, rules=False)
    pd.testing.assert_frame_equal(X, X_before)
    fit(X, y, max_size=1)  # the default turns the table into rules, on a copy
    pd.testing.assert_frame_equal(X, X_before)
    pd.testing.assert_series_equal(y, y_before)


def test_successful_call_leaves_inputs_unchanged():
    X, y = make_xy()
    X_before, y_before = X.copy(deep=True), y.copy(deep=True)
    fit(X, y, signs={"age": "+"}, max_size=2)
    pd.testing.assert_frame_equal(X, X_before)
    pd.testing.assert_series_equal(y, y_before)


# -- infeasible specs name the clashing constraints -------------------------------------------
def test_infeasible_rates_name_exactly_the_two_rates():
    with pytest.raises(sw.InfeasibleError) as info:
        fit(max_fpr=0.0, min_tpr=1.0)
    conflicts = info.value.conflicts
    assert len(conflicts) == 2, conflicts
    assert any("max_fpr" in c for c in conflicts) and any("min_tpr" in c for c in conflicts)
    assert "max_fpr" in str(info.value) and "min_tpr" in str(info.value)
    assert isinstance(info.value, ValueError)  # catchable as a plain bad-input error


def test_each_rate_alone_is_feasible():
    assert fit(max_fpr=0.0).train_metrics.fpr == 0.0
    assert fit(min_tpr=1.0).train_metrics.tpr == 1.0


NEEDS_CASE = dict(
    constraints=[sw.needs("age", "bmi")],
    exclude=["bmi"],
    require=["age"],
    # unrelated options that must not be blamed:
    max_size=3,
    signs={"smoker": "+"},
    penalties={"smoker": 0.01},
)


def test_needs_clash_does_not_blame_unrelated_options():
    with pytest.raises(sw.InfeasibleError) as info:
        fit(**NEEDS_CASE)
    conflicts = info.value.conflicts
    assert any("require" in c and "age" in c for c in conflicts), conflicts
    assert any("needs" in c and "bmi" in c for c in conflicts), conflicts
    for c in conflicts:
        assert "max_size" not in c and "smoker" not in c and "range" not in c, conflicts


def test_needs_clash_names_exactly_the_three_constraints():
    with pytest.raises(sw.InfeasibleError) as info:
        fit(**NEEDS_CASE)
    conflicts = info.value.conflicts
    assert len(conflicts) == 3, conflicts
    assert any("exclude" in c and "bmi" in c for c in conflicts), conflicts


def test_find_conflicts_is_irreducible():
    X, y = make_xy()
    data = sw.prepare_data(X, y)
    spec = sw.make_spec(max_fpr=0.0, min_tpr=1.0, max_size=2, signs={"age": "+"}, **SMALL)
    assert sorted(sw.find_conflicts(data, spec)) == ["max_fpr=0", "min_tpr=1"]


# -- label encodings ---------------------------------------------------------------------------
def test_label_encodings_give_the_same_card():
    X, y = make_xy()
    base = fit(X, y)
    for labels, pos, neg in [
        (y.astype(bool), True, False),
        (y * 2 - 1, 1, -1),
        (y.to_numpy(), 1, 0),
        (y.map({1: "sick", 0: "well"}), "sick", "well"),
    ]:
        kwargs = {"positive": "sick"} if pos == "sick" else {}
        card = fit(X, labels, **kwargs)
        assert card.points == base.points and card.threshold == base.threshold
        assert card.positive == pos and card.negative == neg
        assert type(card.positive) is type(pos)  # plain Python labels, JSON-ready
        predicted = card.predict(X)
        assert set(predicted.unique()) <= {pos, neg}
        expected = np.where(base.predict(X).to_numpy() == 1, pos, neg)
        assert predicted.tolist() == expected.tolist()


def test_default_positive_is_larger_label():
    X, y = make_xy()
    card = fit(X, y.map({1: "b", 0: "a"}))
    assert card.positive == "b" and card.negative == "a"


def test_positive_picks_the_class():
    X, y = make_xy()
    labels = y.map({1: "sick", 0: "well"})
    sick = fit(X, labels, positive="sick")
    well = fit(X, labels, positive="well")
    assert well.positive == "well" and well.negative == "sick"
    assert well.train_metrics.error == pytest.approx(sick.train_metrics.error)
    # same labels predicted row by row, whichever class is called positive
    assert (well.predict(X) == labels).sum() == (sick.predict(X) == labels).sum()


@pytest.mark.parametrize(
    "labels, positive",
    [
        (lambda y: y.map({1: "sick", 0: "well"}), "ill"),
        (lambda y: y, 5),
        (lambda y: y, "1"),
        (lambda y: y.astype(bool), "True"),
    ],
)
def test_positive_not_present(labels, positive):
    X, y = make_xy()
    with raises(ValueError, f"positive={positive!r}", "not one of the labels"):
        fit(X, labels(y), positive=positive)


@pytest.mark.parametrize("kind", ["binary", "integer", "decimal"])
def test_duplicate_rows_collapse_as_numpy_unique_collapses_them(kind):
    """prepare_data finds duplicate rows by one stable sort per column: the same distinct rows
    in the same order as ``np.unique(axis=0)``, each with the same summed weight (summed in the
    same order: equal to the last bit)."""
    from slimwidgets.core.data import _distinct_rows

    rng = np.random.default_rng(len(kind))
    values = {
        "binary": lambda: (rng.random((3000, 9)) < 0.5).astype(float),
        "integer": lambda: rng.integers(-2, 3, (3000, 4)).astype(float),
        "decimal": lambda: rng.normal(size=(3000, 2)).round(1),
    }[kind]()
    keyed = np.column_stack([values, rng.choice([-1.0, 1.0], 3000)])
    weights = rng.random(3000)
    uniq, inverse = np.unique(keyed, axis=0, return_inverse=True)
    rows, summed = _distinct_rows(keyed, weights)
    assert np.array_equal(rows, uniq)
    assert np.array_equal(
        summed, np.bincount(inverse.ravel(), weights=weights, minlength=len(uniq))
    )
