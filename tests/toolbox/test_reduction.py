"""Data reduction (paper sec. 4): the reduced problem has the full problem's optimum;
removed rows are fixed."""

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.core.formulation import build_formulation
from slimwidgets.datasets import RULES_ATTR
from slimwidgets.toolbox.reduction import ReductionResult, reduce_data

OPTS = dict(C0=0.001, coef_range=(-3, 3), intercept_range=(-5, 5))


def small(seed, n=60, p=3):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 3, size=(n, p)), columns=[f"x{j}" for j in range(p)])
    X.attrs[RULES_ATTR] = (
        False  # the paper's sec. 4 reduces the engine's features, counts as they are
    )
    score = X.to_numpy() @ rng.integers(-2, 3, size=p) + rng.normal(0, 0.3, n)
    y = pd.Series((score > np.median(score)).astype(int), name="event")
    return X, y


def sides_of(card, X, y):
    """Each row's side under the card's rule: under the paper's, a zero total is
    wrong for both classes."""
    total = card.score(X).to_numpy() - card.threshold
    right = card.predicts_positive(total) == (y.to_numpy() == 1)
    if card.zero_score == "error":
        right &= total != 0
    return np.where(right, "correct", "wrong")


@pytest.mark.parametrize(
    "seed, zero_score, removes",
    [
        (0, "error", False),
        (1, "error", True),
        (3, "error", False),
        (4, "error", True),
        (0, "positive", True),
        (1, "positive", True),
        (3, "positive", True),
        (4, "positive", True),
    ],
)
def test_reduced_optimum_is_the_full_optimum(seed, zero_score, removes):
    X, y = small(seed)
    opts = dict(OPTS, zero_score=zero_score)
    full = sw.fit(X, y, **opts)
    assert full.status == "optimal"
    red = reduce_data(X, y, width=full, **opts)  # epsilon_min: the tightest safe width
    assert isinstance(red, ReductionResult)
    assert len(red.removed) + len(red.kept) == len(X) and len(red.X) == len(red.kept)
    assert (red.fraction_removed > 0.1) == removes
    # the level-set claim itself: the optimal card puts every removed row on its recorded side
    if len(red.removed):
        got = sides_of(full, X.loc[red.removed], y.loc[red.removed])
        assert list(got) == list(red.removed_side)
    card = red.fit()
    assert card.status == "optimal"
    assert card.objective == pytest.approx(full.objective, abs=1e-12)
    assert card.train_metrics.error == pytest.approx(full.train_metrics.error)
    # plain fit on the reduced rows, with the trade-off rescaled
    if len(red.X) == 0 or red.y.nunique() < 2:
        return  # everything (or a whole class) fixed: the optimum is determined by the sides alone
    plain = sw.fit(red.X, red.y, sample_weight=red.sample_weight, **red.fit_options)
    if red.respects(plain):
        form = build_formulation(sw.prepare_data(X, y), sw.make_spec(**opts))
        objective = form.objective_of(np.array(plain.coefficients, dtype=float), plain.intercept)
        assert objective == pytest.approx(full.objective, abs=1e-12)


@pytest.mark.slow
def test_some_rows_are_removed_and_wider_sets_remove_fewer(paper_data):
    X, y = paper_data("bankruptcy")
    opts = dict(C0=0.01, intercept_range=(-10, 10))
    full = sw.fit(X, y, **opts)
    tight = reduce_data(X, y, width=full, **opts)
    heur = reduce_data(X, y, width="heuristic", **opts)
    loose = reduce_data(X, y, width="trivial", **opts)
    assert tight.width <= heur.width <= loose.width
    assert tight.fraction_removed >= heur.fraction_removed >= loose.fraction_removed
    assert tight.fraction_removed > 0.15
    assert tight.lp_objective <= full.objective <= tight.level + 1e-12
    assert set(tight.removed_side) <= {"correct", "wrong"}
    card = tight.fit()
    assert card.objective == pytest.approx(full.objective, abs=1e-12)
    assert "removed" in repr(tight)


def test_weights_and_original_index_are_kept():
    X, y = small(11, n=30)
    X.index = [f"r{i}" for i in range(30)]
    y.index = X.index
    w = np.linspace(1, 3, 30)
    full = sw.fit(X, y, sample_weight=w, **OPTS)
    red = reduce_data(X, y, width=full, sample_weight=w, **OPTS)
    assert set(red.kept) | set(red.removed) == set(X.index)
    assert np.allclose(red.sample_weight, w[[X.index.get_loc(k) for k in red.kept]])
    assert red.fit().objective == pytest.approx(full.objective, abs=1e-12)


def test_validation():
    X, y = small(1)
    with pytest.raises(ValueError, match="max_fpr"):
        reduce_data(X, y, max_fpr=0.2)
    with pytest.raises(ValueError, match="width"):
        reduce_data(X, y, width="huge")
    with pytest.raises(ValueError, match="width"):
        reduce_data(X, y, width=-1.0)
    with pytest.raises(ValueError, match="all-zero card"):
        reduce_data(X, y, width="trivial", require=["x0"], **OPTS)
    red = reduce_data(X, y, width=0.5, **OPTS)
    with pytest.raises(TypeError, match="time_limit"):
        red.fit(C0=3)


def test_removed_rows_are_not_undone_by_card_simplification():
    """Regression: (2, 0) / -1 is optimal with the removed rows on their sides, while the
    data-only simplification to (1, 0) breaks them; the reduced fit must keep the sides."""
    X = pd.DataFrame({"a": [1, 1, 1, 0, 0, 0, 1, 0], "b": [1, 0, 1, 0, 1, 0, 0, 1]})
    y = pd.Series([1, 1, 1, 0, 0, 0, 0, 1])
    opts = dict(C0=0.01, coef_range=(-3, 3), intercept_range=(-3, 3))
    full = sw.fit(X, y, **opts)
    red = reduce_data(X, y, width=full, **opts)
    assert len(red.removed) > 0
    card = red.fit()
    assert red.respects(card) and card.status == "optimal"
    assert card.objective == pytest.approx(full.objective, abs=1e-12)


def test_the_options_it_refuses_are_a_column_of_the_options_table():
    """reduce_data refuses exactly the table's rows marked not reducible, each by its name, with its
    example value; the rows are the ones whose budget or cost changes with removed rows."""
    from slimwidgets.core.options import OPTIONS

    refused = [row for row in OPTIONS if not row.reducible]
    assert sorted(row.name for row in refused) == sorted(
        [
            "max_fpr",
            "min_tpr",
            "class_weights",
            "missing",
            "tiers",
            "groups",
            "group_penalty",
            "rule_penalty",
        ]
    )
    X, y = small(1)
    for row in refused:
        with pytest.raises(ValueError, match=f"does not support {row.name}:"):
            reduce_data(X, y, **{row.name: row.example})
