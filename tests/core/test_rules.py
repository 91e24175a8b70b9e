"""RuleBuilder: round cut points, levels, missing values, checked against plain pandas/numpy."""

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import make_pipeline

import slimwidgets as sw
from slimwidgets.core.data import DataWarning
from slimwidgets.core.rules import (
    MAX_SHIFT,
    RuleBuilder,
    build_rules,
    human_cut,
    needs_rules,
    options_by_variable,
    significant_digits,
)
from slimwidgets.datasets import RULES_ATTR


def raw_table(n=200, seed=0):
    rng = np.random.default_rng(seed)
    bmi = np.round(rng.normal(28, 5, n), 1)
    bmi[rng.random(n) < 0.1] = np.nan
    sex = rng.choice(["F", "M"], n).astype(object)
    sex[:3] = "X"  # a rare level
    return pd.DataFrame(
        {
            "age": rng.integers(30, 85, n),
            "bmi": bmi,
            "sex": sex,
            "smoker": rng.random(n) < 0.3,
            "s5": rng.normal(4.6, 0.5, n),
        }
    )


def is_round(cut):
    """A multiple of 1, 2, 2.5 or 5 times a power of ten."""
    for exponent in range(-6, 6):
        for mult in (1, 2, 2.5, 5):
            step = mult * 10.0**exponent
            if abs(cut / step - round(cut / step)) < 1e-9 and abs(round(cut / step)) < 1000:
                return True
    return False


def test_cut_points_are_round_and_near_the_quantiles():
    X = raw_table()
    b = RuleBuilder(n_cuts=3, tolerance=0.02).fit(X)
    for column in ("age", "bmi", "s5"):
        values = X[column].dropna().to_numpy(dtype=float)
        cuts = [r.value for r in b.rules_ if r.column == column and r.kind == "ge"]
        assert 1 <= len(cuts) <= 3, column
        for cut in cuts:
            assert is_round(cut), (column, cut)
            assert values.min() < cut <= values.max()
        # every cut holds for a share of rows within the tolerance of a quantile's share
        shares = [float((values >= np.quantile(values, q)).mean()) for q in (0.25, 0.5, 0.75)]
        tol = max(0.02, 1 / len(values))
        for cut in cuts:
            assert min(abs(float((values >= cut).mean()) - s) for s in shares) <= tol + 1e-12, (
                column,
                cut,
            )
    assert all(
        float(r.value).is_integer() for r in b.rules_ if r.column == "age" and r.kind == "ge"
    )


def test_human_cut_prefers_coarse_steps():
    values = np.sort(np.arange(18, 91, dtype=float))
    assert human_cut(values, 49.7, 0.02) == 50.0
    assert human_cut(values, 59.3, 0.05) == 60.0
    tiny = np.sort(np.array([0.0112, 0.0131, 0.0154, 0.0187, 0.0203, 0.0251]))
    assert is_round(human_cut(tiny, 0.0154, 0.2))


def real_columns() -> dict[str, pd.Series]:
    """Measurements as people record them, from data sets that ship inside installed packages:
    glucose, total cholesterol, BMI and age (scikit-learn's diabetes data, unscaled), body
    weight in grams (palmerpenguins), household income (statsmodels' Engel data)."""
    import statsmodels.api as sm
    from palmerpenguins import load_penguins
    from sklearn.datasets import load_diabetes

    diabetes = load_diabetes(as_frame=True, scaled=False).frame
    return {
        "glucose": diabetes["s6"],
        "cholesterol": diabetes["s1"],
        "bmi": diabetes["bmi"],
        "age": diabetes["age"],
        "weight": load_penguins()["body_mass_g"],
        "income": sm.datasets.engel.load_pandas().data["income"],
    }


def written_by_a_person(cut: float) -> bool:
    digits = f"{cut:.10g}".replace(".", "").replace("-", "").lstrip("0").rstrip("0")
    return len(digits) <= 2 or (len(digits) == 3 and digits[-1] == "5")


@pytest.mark.parametrize("n_cuts", [3, 5, 9])
@pytest.mark.parametrize("name", ["glucose", "cholesterol", "bmi", "age", "weight", "income"])
def test_cut_points_of_real_columns_are_written_as_a_person_writes_them(name, n_cuts):
    column = real_columns()[name]
    values = column.dropna().to_numpy(dtype=float)
    builder = RuleBuilder(n_cuts=n_cuts).fit(column.to_frame(name))
    cuts = [r.value for r in builder.rules_ if r.kind == "ge"]
    quantiles = np.quantile(values, [(i + 1) / (n_cuts + 1) for i in range(n_cuts)])
    assert len(cuts) >= min(n_cuts, len(set(quantiles))) - 2, cuts  # rounding merges a few at most
    for cut in cuts:
        assert written_by_a_person(cut), (name, cut)
        # the rule's share of rows is within MAX_SHIFT of some quantile's
        share = float((values >= cut).mean())
        assert (
            min(abs(share - float((values >= q).mean())) for q in quantiles) <= MAX_SHIFT + 1e-12
        ), (name, cut)


def test_two_significant_digits_before_a_third_that_is_a_5():
    assert [significant_digits(x) for x in (140.0, 25.0, 0.3, 1200.0, 1250.0, 137.5)] == [
        "14",
        "25",
        "3",
        "12",
        "125",
        "1375",
    ]
    weight = np.sort(
        np.arange(100.0, 200.0, 0.5)
    )  # evenly spread: each 1 of the range holds 1 % of rows
    assert human_cut(weight, 142.0, 0.02) == 140.0  # 142 is not what a person writes; 140 moves 2 %
    assert (
        human_cut(weight, 136.8, 0.02) == 135.0
    )  # 130 and 140 move the share too far: a 5 as third digit
    # within 0.5 % of rows is only 137.5 itself: the nearest a person
    # writes, 2.5 % away (< MAX_SHIFT)
    assert human_cut(weight, 137.5, 0.005) in (135.0, 140.0)
    income = np.sort(np.arange(1000.0, 1500.0))
    assert human_cut(income, 1252.0, 0.01) == 1250.0


def test_a_quantile_with_no_round_number_near_it_gives_no_cut():
    # every row between 136 and 139: 135 moves the share of x >= 137.5 (80 %) by 20 %, 140 by 80 %
    crowded = np.sort(
        np.r_[np.full(60, 137.5), np.linspace(136.0, 137.4, 20), np.linspace(137.6, 139.0, 20)]
    )
    assert human_cut(crowded, 137.5, 0.02) is None
    with pytest.warns(
        DataWarning, match="'w' has no round cut point .* 5%: it gives no rule; give its cut"
    ):
        assert RuleBuilder(n_cuts=1).fit(pd.DataFrame({"w": crowded})).rules_ == []


def test_your_own_cuts_are_kept_exactly():
    column = real_columns()["glucose"]
    builder = RuleBuilder(cuts={"glucose": [117.5, 92.25, 101]}).fit(column.to_frame("glucose"))
    assert [r.value for r in builder.rules_] == [92.25, 101.0, 117.5]
    assert builder.get_feature_names_out().tolist() == [
        "glucose >= 92.25",
        "glucose >= 101",
        "glucose >= 117.5",
    ]


def test_transform_matches_pandas_for_every_kind_of_rule():
    X = raw_table()
    b = RuleBuilder(min_count=5).fit(X)
    test = raw_table(60, seed=1)
    test.loc[test.index[:4], "sex"] = ["Q", None, np.nan, "F"]  # unseen, missing, missing, known
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        T = b.transform(test)
    # sex was never missing in training: named; the 'other' rule covers the unseen level: no word
    assert [str(w.message) for w in caught] == [
        "column 'sex' has 2 missing values and training had none: they score 0 points for 'sex'"
    ]
    assert list(T.columns) == list(b.get_feature_names_out())
    kept = [r.value for r in b.rules_ if r.column == "sex" and r.kind == "eq"]
    assert kept == ["F", "M"] and b.pooled_["sex"] == ["X"]
    for r in b.rules_:
        col = test[r.column]
        expected = {
            "ge": lambda: col.notna() & (pd.to_numeric(col) >= r.value),
            "eq": lambda: col == r.value,
            "other": lambda: col.notna() & ~col.isin(kept),
            "missing": lambda: col.isna(),
            "is": lambda: col.fillna(False).astype(bool),
        }[r.kind]()
        assert T[r.name].tolist() == expected.astype(int).tolist(), r.name
    assert "bmi missing" in T.columns and "sex = other" in T.columns
    assert T.loc[test.index[0], "sex = other"] == 1 and T.loc[test.index[1], "sex = other"] == 0


def test_user_cuts_are_used_as_given_and_outside_ones_named():
    X = raw_table()
    b = RuleBuilder(cuts={"age": [60, 40, 50]}).fit(X)
    assert b.rules_of("age") == ["age >= 40", "age >= 50", "age >= 60"]
    with pytest.warns(DataWarning, match=r"cuts \['200'\] for 'age'"):
        b = RuleBuilder(cuts={"age": [50, 200]}).fit(X)
    assert b.rules_of("age") == ["age >= 50"]
    with pytest.raises(KeyError, match="weight"):
        RuleBuilder(cuts={"weight": [50]}).fit(X)
    with pytest.raises(TypeError, match="'sex'.*not numeric"):
        RuleBuilder(cuts={"sex": [1]}).fit(X)
    with pytest.raises(ValueError, match="finite numbers"):
        RuleBuilder(cuts={"age": ["50"]}).fit(X)


def test_scikit_learn_conventions():
    X = raw_table()
    b = RuleBuilder(n_cuts=2)
    assert clone(b).get_params() == b.get_params()
    from sklearn.utils import get_tags

    assert get_tags(b).input_tags.allow_nan and get_tags(b).input_tags.string
    with pytest.raises(NotFittedError):
        b.transform(X)
    y = (X.age > 60).astype(int)
    pipe = make_pipeline(
        RuleBuilder(n_cuts=2), sw.SLIMClassifier(max_size=2, coef_range=(-3, 3), time_limit=5)
    )
    pipe.fit(X, y)
    assert (pipe.predict(X) == y).mean() > 0.9
    assert pipe[0].n_features_in_ == 5 and list(pipe[0].feature_names_in_) == list(X.columns)
    with pytest.raises(ValueError, match="n_cuts"):
        RuleBuilder(n_cuts=0).fit(X)


def test_json_round_trip_keeps_every_rule():
    X = raw_table()
    b = RuleBuilder().fit(X)
    again = RuleBuilder.from_dict(json.loads(json.dumps(b.to_dict())))
    assert again.rules_ == b.rules_
    pd.testing.assert_frame_equal(again.transform(X, warn=False), b.transform(X, warn=False))
    bad = b.to_dict()
    bad["rules"][0][2] = "between"
    with pytest.raises(ValueError, match="unknown kind"):
        RuleBuilder.from_dict(bad)


def test_bad_columns_get_clear_answers():
    X = raw_table(40)
    with pytest.warns(DataWarning, match="'empty' is missing in every row"):
        b = RuleBuilder().fit(X.assign(empty=np.nan))
    assert b.rules_of("empty") == []
    with pytest.warns(DataWarning, match="'flat' has a single value"):
        b = RuleBuilder().fit(X.assign(flat=7))
    assert b.rules_of("flat") == []
    b = RuleBuilder().fit(X.assign(flat=[7.0] * 39 + [np.nan]))
    assert b.rules_of("flat") == ["flat missing"]  # constant but sometimes missing: only that rule
    with pytest.raises(TypeError, match="'seen'.*dates"):
        RuleBuilder().fit(X.assign(seen=pd.date_range("2020-01-01", periods=40)))
    with pytest.raises(TypeError, match="'mixed' mixes values of different types"):
        RuleBuilder().fit(X.assign(mixed=["a", 1] * 20))
    with pytest.raises(ValueError, match="'s5' has infinite values"):
        RuleBuilder().fit(X.assign(s5=[np.inf] + [1.0] * 39))
    once = X.assign(grade=["A"] * 20 + ["B"] * 19 + ["C"])  # C seen once: pooled into other
    b = RuleBuilder(min_count=5).fit(once)
    assert b.rules_of("grade") == ["grade = A", "grade = B", "grade = other"] and b.pooled_[
        "grade"
    ] == ["C"]


def test_new_missing_values_and_levels_at_predict_time_are_named():
    X = raw_table(100).drop(columns="bmi")
    b = RuleBuilder(min_count=1).fit(X)  # no rare level, so no 'other' rule; age never missing
    test = X.head(3).astype({"age": float}).copy()
    test.loc[test.index[0], "age"] = np.nan
    test.loc[test.index[1], "sex"] = "unknown"
    with pytest.warns(DataWarning) as caught:
        T = b.transform(test)
    messages = " ".join(str(w.message) for w in caught)
    assert "'age' has 1 missing values and training had none" in messages
    assert "'sex' has levels not seen in training ['unknown']" in messages
    assert T.loc[test.index[0], b.rules_of("age")].sum() == 0  # 0 points for age
    assert T.loc[test.index[1], b.rules_of("sex")].sum() == 0


def test_target_with_missing_values_is_refused():
    X = raw_table(30)
    y = pd.Series([0, 1] * 15, dtype=float)
    y[4] = np.nan
    with pytest.raises(ValueError, match="1 missing value; .*drop those rows"):
        sw.fit(X, y, max_size=1)


def test_when_rules_are_built_and_options_by_variable():
    numeric = pd.DataFrame({"a": [0, 1, 1, 0], "b": [1.5, 2.5, 3.5, 4.5]})
    assert needs_rules(numeric) and needs_rules(numeric.assign(c=["x", "y", "x", "y"]))
    zero_one = numeric[["a"]].assign(d=[True, False, True, True])
    assert not needs_rules(zero_one) and not needs_rules(numeric.to_numpy())
    assert needs_rules(zero_one.assign(a=[1, 2, 2, 1]))  # codes 1/2: a variable, not a rule
    same, builder = build_rules(zero_one)
    assert builder is None and same is zero_one
    for paper in (numeric.copy(), numeric.copy()):  # a frame that says so is taken as it is
        paper.attrs[RULES_ATTR] = False
        assert (
            not needs_rules(paper)
            and build_rules(paper)[1] is None
            and build_rules(paper.iloc[:2])[1] is None
        )
    assert build_rules(paper, rules=True)[1] is not None
    _, builder = build_rules(numeric)
    assert builder.rules_of("a") == ["a"] and all(
        n.startswith("b >= ") for n in builder.rules_of("b")
    )
    with pytest.raises(ValueError, match="cuts"):
        build_rules(numeric, rules=False, cuts={"b": [2]})
    expanded = options_by_variable(builder, {"signs": {"b": "+"}, "exclude": ["a"], "max_size": 2})
    assert expanded["signs"] == {n: "+" for n in builder.rules_of("b")}
    assert expanded["exclude"] == ["a"] and expanded["max_size"] == 2


def test_small_integer_scales_cut_at_their_own_values():
    rng = np.random.default_rng(3)
    X = pd.DataFrame(
        {
            "pain": rng.integers(1, 11, 300),  # a 1-10 rating
            "grade": rng.choice([1, 2, 3], 300, p=[0.7, 0.2, 0.1]),  # skewed: every step a cut
            "visits": rng.poisson(1.2, 300),  # a count
            "age": rng.integers(20, 90, 300),
        }
    )  # 70 values: a measurement, whole round cuts
    b = RuleBuilder(n_cuts=3).fit(X)
    cuts = {c: [r.value for r in b.rules_ if r.column == c] for c in X.columns}
    assert cuts["grade"] == [2.0, 3.0]
    for column in ("pain", "visits"):
        values = X[column].to_numpy(dtype=float)
        assert set(cuts[column]) <= set(np.unique(values)[1:]), column
        nearest = {
            min(np.unique(values)[1:], key=lambda v: abs((values >= v).mean() - level))
            for level in (0.75, 0.5, 0.25)
        }  # the value whose share is nearest each quantile's
        assert cuts[column] == sorted(nearest), column
    assert len(cuts["pain"]) == 3
    assert all(float(c).is_integer() for c in cuts["age"]) and len(cuts["age"]) == 3


def test_points_table_by_variable():
    X = pd.DataFrame(
        {
            "age": [35, 45, 55, 65, 75] * 4,
            "bmi": [22.0, 27.5, None, 31.0, 24.0] * 4,
            "sex": ["F", "M"] * 10,
        }
    )
    b = RuleBuilder(cuts={"age": [50, 60], "bmi": [25, 30]}, min_count=1).fit(X)
    table = dict(
        b.points_table(
            {"age >= 50": 1, "age >= 60": 2, "bmi >= 30": 2, "bmi missing": 1, "sex = M": 1}
        )
    )
    assert table == {
        "age": (("< 50", 0), ("50–59", 1), ("≥ 60", 3)),
        "bmi": (("< 30", 0), ("≥ 30", 2), ("missing", 1)),
        "sex": (("M", 1),),
    }
    # a band's points equal the sum of the rules holding there, on every row (checked by pandas)
    T = b.transform(X, warn=False)
    points = {"bmi >= 25": 1, "bmi >= 30": -1}
    bands = dict(b.points_table(points))["bmi"]
    assert bands == (("< 25", 0), ("25 to < 30", 1), ("≥ 30", 0))
    total = sum(T[n] * p for n, p in points.items())
    assert (
        total[X.bmi.between(25, 30, inclusive="left")].eq(1).all()
        and total[X.bmi >= 30].eq(0).all()
    )
    assert math.isclose(total[X.bmi < 25].sum(), 0)


def test_level_rules_read_each_distinct_value_as_each_row_would():
    """Level rules test each distinct value once (pandas.factorize): on a column mixing text,
    numbers, booleans and every kind of missing value, each rule holds exactly where the
    row-by-row definition (present, and equal to the level / to none of the kept levels) says."""
    import math

    from slimwidgets.core.rules import Rule, rule_values

    col = pd.Series(
        ["a", None, 1, 1.0, True, "1", math.nan, pd.NA, "b", 0, False, "a"], dtype=object
    )

    def present(v):
        return not (v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)))

    rules = [
        Rule("c = a", "c", "eq", "a"),
        Rule("c = 1", "c", "eq", 1),
        Rule("c = '1'", "c", "eq", "1"),
        Rule("c = other", "c", "other", ("a", 1)),
        Rule("c", "c", "is", None),
    ]
    for rule in rules:
        if rule.kind == "eq":
            expected = [present(v) and bool(v == rule.value) for v in col]
        elif rule.kind == "other":
            expected = [present(v) and not any(v == level for level in rule.value) for v in col]
        else:
            expected = [present(v) and bool(v == 1) for v in col]
        memo = {}
        assert rule_values(rule, col, memo).astype(bool).tolist() == expected, rule.name
        assert rule_values(rule, col, memo).astype(bool).tolist() == expected, (
            rule.name
        )  # from the memo


def test_the_paper_tables_keep_their_raw_number_cards(paper_data):
    X, y = paper_data("haberman")  # three numeric columns (age, year, nodes), none 0/1
    assert X.attrs[RULES_ATTR] is False and needs_rules(X.iloc[:100]) is False
    card = sw.fit(X, y, max_size=2, C0=0.01, coef_range=(-3, 3), time_limit=None)
    assert card.rules is None and set(card.points) <= set(
        X.columns
    )  # points x raw numbers, as the paper
    by_variable = sw.fit(X, y, max_size=2, C0=0.01, coef_range=(-3, 3), time_limit=None, rules=True)
    assert by_variable.rules is not None and all(" >= " in rule for rule in by_variable.points)
