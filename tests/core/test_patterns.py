"""Large tables of 0/1 rules as bit-packed weighted patterns (core/patterns.py): the same
Dataset and the same warnings as prepare_data, other tables left to prepare_data."""

import warnings

import numpy as np
import pandas as pd
import pytest

from slimwidgets.core.data import prepare_data
from slimwidgets.core.patterns import patterns_of


def random_rules(n_rows, n_rules, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        rng.integers(0, 2, (n_rows, n_rules)), columns=[f"rule {j}" for j in range(n_rules)]
    )
    X[X.columns[0]] = X[X.columns[0]].astype(bool)  # bool columns too
    X[X.columns[1]] = X[X.columns[1]].astype(np.uint8)
    X[X.columns[2]] = X[X.columns[2]].astype(float)
    return X, pd.Series(rng.choice(["no", "yes"], n_rows), name="outcome")


@pytest.mark.parametrize("n_rules", [3, 64, 130])  # one word, exactly one word, three words
@pytest.mark.parametrize("weighted", [False, True])
def test_patterns_give_the_dataset_prepare_data_gives(n_rules, weighted):
    X, y = random_rules(400, n_rules)
    X = pd.concat([X, X.iloc[:150]], ignore_index=True)  # repeated rows collapse
    y = pd.concat([y, y.iloc[:150]], ignore_index=True)
    w = np.random.default_rng(1).random(len(y)) if weighted else None
    ours, theirs = patterns_of(X, y, sample_weight=w).dataset(), prepare_data(X, y, sample_weight=w)
    assert ours.feature_names == theirs.feature_names and ours.n_samples == theirs.n_samples == 550
    assert np.array_equal(ours.X, theirs.X) and np.array_equal(ours.y, theirs.y)
    assert np.allclose(ours.weight, theirs.weight)
    assert (ours.positive, ours.negative, ours.outcome) == ("yes", "no", "outcome")


def test_pattern_weights_count_the_positive_and_negative_rows_of_each_pattern():
    X = pd.DataFrame({"a": [1, 1, 1, 0, 0], "b": [0, 0, 0, 1, 1]})
    p = patterns_of(X, [1, 1, 0, 0, 0])
    by_a = {int(p.column(0)[i]): (p.pos[i], p.neg[i]) for i in range(p.n_patterns)}
    assert by_a == {1: (2.0, 1.0), 0: (0.0, 2.0)} and p.n_cells == 3
    assert p.scores([2, -1]).tolist() == [2 if p.column(0)[i] else -1 for i in range(p.n_patterns)]


def test_tables_that_are_not_0_1_rules_are_left_to_prepare_data():
    X, y = random_rules(50, 4)
    assert patterns_of(X.assign(age=np.arange(50)), y) is None  # a numeric column
    assert (
        patterns_of(X.assign(c=np.where(np.arange(50) % 2, 1.0, np.nan)), y) is None
    )  # missing values
    assert patterns_of(X.assign(s="a"), y) is None  # text


def test_the_same_warnings_as_prepare_data():
    X, y = random_rules(300, 70)
    X["rule 3"], X["rule 66"] = 1, 0
    X["rule 10"], X["rule 69"] = X["rule 5"], X["rule 65"]

    def messages(call):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        return [str(w.message) for w in caught]

    expected = messages(lambda: prepare_data(X, y))
    assert (
        len(expected) == 2 and messages(lambda: patterns_of(X, y).warn_about_columns()) == expected
    )


def test_a_sample_keeps_each_class_share_and_draws_by_weight():
    X, y = random_rules(5000, 6)
    p = patterns_of(X, y)
    rows, pos, neg = p.sample(1000, seed=3)
    share = float((y == "yes").mean())
    assert abs(pos.sum() - 1000 * share) <= 1 and abs(pos.sum() + neg.sum() - 1000) <= 1
    assert np.all(pos[p.pos[rows] == 0] == 0) and np.all(
        neg[p.neg[rows] == 0] == 0
    )  # only rows that exist


@pytest.mark.parametrize("n_rules", [3, 64, 70])
def test_the_dataset_of_patterns_is_sorted_rule_by_rule_then_label(n_rules):
    """The Dataset of patterns holds each pattern's rules (read from its bits in one go) in the
    order prepare_data gives, by every rule (first rule first) then label, also past 64 rules
    (two sort keys)."""
    rng = np.random.default_rng(n_rules)
    X = pd.DataFrame(
        (rng.random((3000, n_rules)) < 0.2).astype(np.uint8),
        columns=[f"r{j}" for j in range(n_rules)],
    )
    y = rng.integers(0, 2, 3000)
    p = patterns_of(X, y)
    d = p.dataset()
    order = np.lexsort((d.y,) + tuple(d.X[:, j] for j in range(n_rules - 1, -1, -1)))
    assert np.array_equal(order, np.arange(d.n_rows))
    whole = prepare_data(X, y, warn=False)
    assert (
        np.array_equal(d.X, whole.X)
        and np.array_equal(d.y, whole.y)
        and np.array_equal(d.weight, whole.weight)
    )
