"""The settings by variable in the core: the ``variables`` option, what each setting becomes for
the solvers, its words, and the program's rows (a card that keeps them is a
point of the program)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

import slimwidgets as sw
from slimwidgets.core.by_variable import (
    monotone_sign,
    support_constraints,
    variable_ids,
    variables_map,
)
from slimwidgets.core.data import prepare_data
from slimwidgets.core.formulation import build_formulation
from slimwidgets.core.wording import describe_spec

from brute import variables_ok
from tiny_problems import BOX, tiny_variable_problem


def test_variables_are_checked_and_put_in_normal_form():
    assert variables_map({"age": ["a1", "a2"]}, "variables") == {
        "age": {"a1": "rule", "a2": "rule"}
    }
    with pytest.raises(ValueError, match="rule 'a1' is in two variables"):
        variables_map({"age": ["a1"], "bmi": ["a1"]}, "variables")
    with pytest.raises(ValueError, match="unknown kind 'gt'"):
        variables_map({"age": {"a1": "gt"}}, "variables")
    with pytest.raises(ValueError, match="has no rules"):
        variables_map({"age": []}, "variables")


def test_each_setting_becomes_what_the_solvers_hold():
    variables = {
        "age": {"age >= 50": "ge", "age >= 60": "ge", "age < 40": "lt", "age missing": "missing"},
        "sex": {"sex = F": "eq"},
    }
    spec = sw.make_spec(variables=variables, max_cuts_per_variable=2, max_variables=1)
    assert [c.describe() for c in support_constraints(spec)] == [
        "at most 2 of age >= 50, age >= 60, age < 40"
    ]
    assert variable_ids(spec, ["sex = F", "age >= 60", "x", "age missing"]).tolist() == [0, 1, 2, 1]
    down = sw.make_spec(
        variables={"age": {"age >= 50": "ge", "age missing": "missing"}}, monotone={"age": "-"}
    )
    assert [monotone_sign(down, r) for r in ("age >= 50", "age missing", "other")] == [
        "-",
        None,
        None,
    ]
    assert down.feature_box("age >= 50") == (-10, 0) and down.feature_box("age missing") == (
        -10,
        10,
    )
    up = sw.make_spec(variables={"age": {"age < 40": "lt"}}, monotone={"age": "+"})
    assert up.feature_box("age < 40") == (
        -10,
        0,
    )  # a rule below a cut: rising age leaves its points


def test_the_solved_for_line_words_them():
    spec = sw.make_spec(
        variables={"age": {"age >= 50": "ge"}},
        max_variables=2,
        max_cuts_per_variable=1,
        monotone={"age": "+"},
    )
    line = describe_spec(spec)
    assert (
        "variables \u2264 2" in line
        and "cut points per variable \u2264 1" in line
        and "monotone" in line
    )


@pytest.mark.seeds(3)
def test_every_card_that_keeps_them_is_a_point_of_the_program(seed):
    """The rows are not too tight: each card of a small box that keeps the settings (by the brute
    force's reading), written as the program's columns (the warm start), meets every row."""
    X, y, names, variables = tiny_variable_problem(seed)
    spec = sw.make_spec(
        variables=variables,
        max_variables=2,
        max_cuts_per_variable=1,
        monotone={"a": "+"},
        coef_range=(-1, 1),
        intercept_range=BOX["intercept_range"],
    )
    form = build_formulation(prepare_data(X, y, feature_names=names, warn=False), spec)
    A = sp.csr_matrix((form.value, form.index, form.start), shape=(form.n_rows, form.n_cols))
    grid = np.array(list(itertools.product(*[range(-1, 2)] * len(names))), dtype=float)
    kept = grid[variables_ok(spec, names, grid)]
    assert 0 < len(kept) < len(grid)
    for points in kept:
        x = form.full_solution(points, 0)
        assert x is not None
        rows = A @ x
        assert np.all(rows >= form.row_lower - 1e-9) and np.all(rows <= form.row_upper + 1e-9)
