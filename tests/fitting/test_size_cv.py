"""The card's size chosen by cross-validation (``size_cv``): the default for a
raw table given no size."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import StratifiedKFold

import slimwidgets as sw
from slimwidgets.core.rules import RuleBuilder
from slimwidgets.core.wording import describe_spec
from slimwidgets.fitting import size_cv

pytestmark = pytest.mark.slow  # cross-validated fits: python -m pytest --all runs them


def raw_table(n: int = 90, seed: int = 3) -> tuple[pd.DataFrame, pd.Series]:
    """A small clinical-looking table: real-valued measurements, a text column, missing values."""
    rng = np.random.default_rng(seed)
    age = rng.normal(58, 12, n).round(1)
    bmi = rng.normal(27, 4, n).round(2)
    sex = rng.choice(["F", "M"], n)
    bmi[rng.random(n) < 0.1] = np.nan
    risk = (
        (age - 58) / 12
        + 0.6 * np.nan_to_num((bmi - 27) / 4)
        + 0.5 * (sex == "M")
        + rng.normal(0, 1.0, n)
    )
    return pd.DataFrame({"age": age, "bmi": bmi, "sex": sex}), pd.Series(
        (risk > 0.3).astype(int), name="event"
    )


def is_round(cut: float) -> bool:
    """A multiple of 1, 2, 2.5 or 5 times a power of ten (10^-3 at the finest)."""
    for exponent in range(-3, 8):
        q = cut / 10.0**exponent
        if any(abs(q / m - round(q / m)) < 1e-9 for m in (1, 2, 2.5, 5)):
            return True
    return False


#: seconds for the fits that must be proven (a cap, never reached on a quiet machine)
LIMIT = 600


@pytest.fixture(scope="module")
def default_card():
    """Few enough rules that every fold fit is proven (a generous limit: proofs end long before
    it, whatever the machine's load): the choice is then the table's alone."""
    X, y = raw_table()
    X = X[["age", "sex"]]
    card = sw.fit(X, y, coef_range=(-3, 3), time_limit=LIMIT)
    assert all(r["optimal_folds"] == 5 for r in card.details["size_cv"]["candidates"])
    return X, y, card


def test_a_raw_table_given_no_size_gets_its_size_by_5_fold_cv_and_says_so(default_card):
    X, y, card = default_card
    chosen = card.details["size_cv"]
    assert (
        card.spec.size_cv == 5 and chosen["folds"] == 5 and chosen["chosen"] == card.spec.max_size
    )
    assert card.size <= card.spec.max_size <= size_cv.LARGEST_SIZE
    line = describe_spec(card.spec)
    assert f"size \u2264 {card.spec.max_size}" in line and "size chosen by 5-fold CV" in line
    rows = chosen["candidates"]
    assert [r["max_size"] for r in rows] == list(range(1, len(rows) + 1))
    best = min(r["test_error"] for r in rows)
    # the smallest size with the lowest mean held-out error
    assert chosen["chosen"] == min(r["max_size"] for r in rows if r["test_error"] <= best + 1e-12)


def test_the_held_out_errors_are_those_of_folds_fit_on_their_own(default_card):
    """Recomputed outside: the same stratified folds (seed 0), the same rules, one exact fit per
    fold and size (each proven optimal, so its start does not matter),
    scored on the held-out rows."""
    X, y, card = default_card
    rules = RuleBuilder(n_cuts=card.details["size_cv"]["n_cuts"]).fit_transform(X)
    folds = list(StratifiedKFold(5, shuffle=True, random_state=size_cv.SEED).split(rules, y))
    for row in card.details["size_cv"]["candidates"]:
        errors = []
        for train, test in folds:
            fold_card = sw.fit(
                rules.iloc[train],
                y.iloc[train],
                max_size=row["max_size"],
                coef_range=(-3, 3),
                time_limit=LIMIT,
            )
            assert fold_card.status == "optimal"
            errors.append(
                np.mean(fold_card.predict(rules.iloc[test]).to_numpy() != y.iloc[test].to_numpy())
            )
        assert row["test_error"] == pytest.approx(np.mean(errors), abs=1e-12)
        assert row["test_error_std"] == pytest.approx(np.std(errors, ddof=1), abs=1e-12)


def test_fits_own_rules_get_their_cut_points_chosen_by_the_same_folds(default_card):
    """3 or 9 candidate cut points per numeric column: the fewest whose best size's mean held-out
    error is within one standard error (over folds) of the lowest, and the card's rules are
    that builder's."""
    X, y, card = default_card
    chosen = card.details["size_cv"]
    tried = chosen["by_n_cuts"]
    assert sorted(tried) == sorted(str(n) for n in size_cv.CUT_GRID)
    lowest = min(tried.values())
    rows = {
        str(n): sw.fit(
            X, y, coef_range=(-3, 3), time_limit=LIMIT, rules=RuleBuilder(n_cuts=n), size_cv=5
        )
        for n in size_cv.CUT_GRID
    }  # each table's own size choice, on the same folds
    assert {
        n: min(r["test_error"] for r in c.details["size_cv"]["candidates"]) for n, c in rows.items()
    } == pytest.approx(tried, abs=1e-12)
    best = next(
        c.details["size_cv"]
        for c in rows.values()
        if min(r["test_error"] for r in c.details["size_cv"]["candidates"]) <= lowest + 1e-12
    )
    row = next(r for r in best["candidates"] if r["max_size"] == best["chosen"])
    assert chosen["within"] == pytest.approx(row["test_error_std"] / math.sqrt(5), abs=1e-12)
    assert chosen["n_cuts"] == min(
        n for n in size_cv.CUT_GRID if tried[str(n)] <= lowest + chosen["within"] + 1e-12
    )
    assert tried[str(chosen["n_cuts"])] == min(r["test_error"] for r in chosen["candidates"])
    assert card.rules.n_cuts == chosen["n_cuts"]
    assert (
        card.rules.get_feature_names_out().tolist()
        == RuleBuilder(n_cuts=chosen["n_cuts"]).fit(X).get_feature_names_out().tolist()
    )


def test_a_rule_builder_you_give_keeps_its_cut_points():
    X, y = raw_table()
    card = sw.fit(
        X[["age", "sex"]], y, coef_range=(-3, 3), rules=RuleBuilder(n_cuts=2), time_limit=5
    )
    assert (
        card.spec.size_cv == 5
        and "n_cuts" not in card.details["size_cv"]
        and card.rules.n_cuts == 2
    )


def test_your_cuts_on_every_numeric_column_leave_one_table_to_choose_from():
    X, y = raw_table()
    card = sw.fit(X[["age", "sex"]], y, coef_range=(-3, 3), cuts={"age": [50, 60]}, time_limit=5)
    assert list(card.details["size_cv"]["by_n_cuts"]) == ["3"]
    assert {r.value for r in card.rules.rules_ if r.kind == "ge"} <= {50.0, 60.0}


def test_the_card_is_the_exact_card_of_the_chosen_size(default_card):
    X, y, card = default_card
    at_size = sw.fit(
        X,
        y,
        max_size=card.spec.max_size,
        coef_range=(-3, 3),
        time_limit=LIMIT,
        rules=RuleBuilder(n_cuts=card.details["size_cv"]["n_cuts"]),
    )
    assert card.status == at_size.status == "optimal"
    assert card.objective == pytest.approx(at_size.objective, abs=1e-12)
    assert card.rules is not None and card.predict(X).shape == (len(X),)  # it still scores raw rows


def test_every_cut_point_of_the_default_card_is_round(default_card):
    X, y, card = default_card
    used = [r for r in card.rules.rules_ if r.kind == "ge" and card.points.get(r.name)]
    assert used and all(is_round(r.value) for r in used)


@pytest.mark.parametrize("setting", [{"max_size": 2}, {"C0": 0.01}, {"size_cv": None}])
def test_a_size_or_c0_you_give_overrides_the_default(setting):
    X, y = raw_table()
    card = sw.fit(X, y, coef_range=(-3, 3), **setting)
    assert card.spec.size_cv is None and "size_cv" not in card.details
    assert "size chosen by" not in describe_spec(card.spec)
    if "max_size" in setting:
        assert card.spec.max_size == 2 and card.size <= 2


def test_a_table_of_rules_already_keeps_the_old_default():
    """(A risk card's size is chosen as a decision card's: tests/fitting/test_risk_size_cv.py.)"""
    X, y = raw_table()
    rules = RuleBuilder().fit_transform(X)
    plain = sw.fit(
        rules, y, coef_range=(-2, 2), time_limit=5
    )  # no size given, but no rules built by fit
    assert plain.spec.size_cv is None and "size_cv" not in plain.details


def test_size_cv_asked_for_on_a_table_of_rules_tries_1_to_max_size():
    X, y = raw_table()
    rules = RuleBuilder().fit_transform(X)
    card = sw.fit(rules, y, coef_range=(-3, 3), size_cv=3, max_size=2)
    chosen = card.details["size_cv"]
    assert chosen["folds"] == 3 and [r["max_size"] for r in chosen["candidates"]] == [1, 2]
    assert card.spec.max_size == chosen["chosen"] and card.spec.size_cv == 3


def test_the_same_table_gives_the_same_choice_and_card_also_through_joblib(default_card):
    """The folds are shuffled with a fixed seed; with every fold fit proven, the choice is the
    table's alone, run here or in joblib's workers."""
    X, y, card = default_card
    again = sw.fit(X, y, coef_range=(-3, 3), n_jobs=2, time_limit=LIMIT)

    assert again.details["size_cv"] == card.details["size_cv"]
    assert again.points == card.points and again.threshold == card.threshold


def test_the_fold_fits_say_their_work_and_the_final_fit_keeps_the_limit():
    """Each fold fit ends on FOLD_WORK (its seconds are only a safety net): the choice says it."""
    X, y = raw_table()
    card = sw.fit(X, y, coef_range=(-3, 3), time_limit=10)
    assert card.details["size_cv"]["work_per_fit"] == {
        "search_sweeps": size_cv.FOLD_WORK.search_sweeps,
        "scan": {
            "scan_work": size_cv.FOLD_WORK.scan.scan_work,
            "walk_work": size_cv.FOLD_WORK.scan.walk_work,
        },
        "search_rounds": size_cv.FOLD_WORK.search_rounds,  # a risk card's fold fit's
        "tree_nodes": size_cv.FOLD_WORK.tree_nodes,
    }
    assert len(card.details["size_cv"]["by_n_cuts"]) == len(size_cv.CUT_GRID)
    assert card.spec.time_limit == 10


def test_the_default_limit_chooses_as_a_fit_without_limit_where_every_fold_is_proven(
    default_card,
):
    X, y, card = default_card
    for limit in ({}, {"time_limit": None}):  # fit's default limit, and none at all
        other = sw.fit(X, y, coef_range=(-3, 3), **limit)
        assert other.details["size_cv"]["chosen"] == card.details["size_cv"]["chosen"]
        assert other.details["size_cv"]["n_cuts"] == card.details["size_cv"]["n_cuts"]
        assert other.points == card.points and other.threshold == card.threshold
        assert other.status == "optimal"


def test_the_fold_fits_end_on_work_and_choose_as_when_they_ended_on_seconds():
    """Measured on main at 1200ae7, whose fold fits ended on seconds (each proven): 9 cut points,
    5 rules, this card. Ending on counted work (size_cv.FOLD_WORK) proves every fold fit too."""
    X, y = raw_table()
    card = sw.fit(X, y, coef_range=(-3, 3), time_limit=LIMIT)
    got = card.details["size_cv"]
    assert all(r["optimal_folds"] == 5 for r in got["candidates"]), got["candidates"]
    assert (got["chosen"], got["n_cuts"], card.threshold, card.status) == (5, 9, 3, "optimal")
    assert card.points == {
        "age >= 55": 1,
        "age >= 65": 1,
        "age >= 67": 1,
        "bmi >= 26": 1,
        "bmi >= 28": 1,
    }
    assert got["candidates"][2]["test_error"] == pytest.approx(0.1333333333333333)


def test_the_progress_bar_says_the_time_goes_to_choosing_the_size(capsys):
    X, y = raw_table()
    card = sw.fit(X, y, time_limit=None, progress=True)
    shown = capsys.readouterr().err
    top = max(r["max_size"] for r in card.details["size_cv"]["candidates"])
    for n in size_cv.CUT_GRID:  # one bar per table of cut points, one step per fold
        said = (
            f"choosing the size (1 to {top} rules) by CV on held-out error, {n} cut points per "
            "numeric variable"
        )
        assert said in shown, shown[-500:]
    assert "5/5 [" in shown and ("fold/s" in shown or "s/fold" in shown), shown[-500:]


def test_too_few_rows_of_a_class_for_the_folds():
    """Asked for, it is refused with the reason; by default, such a table is solved as before."""
    X, y = raw_table(n=40)
    y = pd.Series([1] * 3 + [0] * 37)
    with pytest.raises(ValueError, match="size_cv=5 needs at least 5 rows of each class"):
        sw.fit(X, y, size_cv=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        card = sw.fit(X, y, coef_range=(-2, 2), time_limit=5)
    assert card.spec.size_cv is None and "size chosen by" not in describe_spec(card.spec)


def test_a_size_no_fold_can_fit_is_left_out_with_the_reason():
    X, y = raw_table()
    card = sw.fit(X, y, coef_range=(-3, 3), require=["sex = M", "age >= 66"])
    rows = card.details["size_cv"]["candidates"]
    assert (
        rows[0]["max_size"] == 2 and card.spec.max_size >= 2
    )  # a card of one rule cannot hold both
    assert all(not math.isnan(r["test_error"]) for r in rows if "failed" not in r)
    # a number of cut points is tried only when its rules hold both named rules
    for n in card.details["size_cv"]["by_n_cuts"]:
        assert "age >= 66" in RuleBuilder(n_cuts=int(n)).fit(X).get_feature_names_out().tolist()
