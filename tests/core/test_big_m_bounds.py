"""The loss rows' big-M and the derived intercept box (slimwidgets.core.big_m_bounds), against every
card of tiny boxes: no card whose intercept is near the rows' totals is ever wrong by more than
its row's M, however M is computed (row by row, or feature by feature from the columns' ends)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from slimwidgets.core import big_m_bounds as reach_module
from slimwidgets.core.big_m_bounds import RowReach, score_range


def tiny(seed: int):
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(4, 9)), 3
    low = int(rng.choice([-2, 0, 1]))
    X = rng.integers(low, low + 4, size=(n, p)).astype(float)
    if seed % 3 == 0:
        X[:, 0] += 0.5  # a decimal column
    y = rng.choice([-1, 1], size=n)
    lo = rng.integers(-3, 1, size=p)
    hi = rng.integers(0, 4, size=p)
    if seed % 4 == 0:
        lo[1] = hi[1] = 2  # a locked feature
    return X, y, lo, hi, float(rng.choice([1.0, 0.5])), int(rng.integers(1, 4))


def cards(lo, hi, most):
    for lam in itertools.product(*[range(a, b + 1) for a, b in zip(lo, hi)]):
        lam = np.array(lam, dtype=float)
        if np.count_nonzero(lam) <= most:
            yield lam


def wrongness(X, y, lam, b, need):
    total = X @ lam + b
    return np.where(y == 1, need - total, need + total)


@pytest.mark.parametrize("by_feature", [False, True])
@pytest.mark.seeds(30)
def test_no_card_near_the_totals_is_wrong_by_more_than_its_row_m(seed, by_feature, monkeypatch):
    if by_feature:
        monkeypatch.setattr(reach_module, "EXACT_WORK", -1.0)
    X, y, lo, hi, margin, most = tiny(seed)
    most = max(most, int(np.count_nonzero((lo > 0) | (hi < 0))))
    need = np.where(y == 1, 0.0 if seed % 2 else margin, margin)
    rows = np.arange(len(y))
    reach = RowReach(X, y, lo, hi, margin)
    exact = not by_feature
    big = reach.big_m(rows, need, most, exact=exact)
    s_min, s_max = score_range(X, lo, hi, most=most)
    anchors = rows[:2]
    anchored = reach.anchored_m(rows, anchors, most)
    for lam in cards(lo, hi, most):
        totals = X @ lam
        assert s_min - 1e-9 <= totals.min() and totals.max() <= s_max + 1e-9
        # every intercept that changes a prediction (the clip range of core/big_m_bounds.py)
        for b in range(
            math.floor(-totals.max() - margin), math.ceil(-totals.min() + need.min()) + 1
        ):
            wrong = wrongness(X, y, lam, b, need)
            assert np.all(wrong <= big + 1e-9), (lam, b)
            if np.all(wrong[anchors] <= 0):  # the anchors are right: their class's rows are bounded
                assert np.all(wrong <= anchored + 1e-9), (lam, b)


@pytest.mark.seeds(6)
def test_the_score_range_read_in_blocks_of_rows_is_the_whole_tables(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    X = rng.normal(0, 50, size=(101, 7)).round(2)
    lo, hi = rng.integers(-5, 1, size=7), rng.integers(0, 6, size=7)
    most = [None, 1, 3][seed % 3]
    whole = score_range(X, lo, hi, most=most)
    monkeypatch.setattr(
        reach_module, "_CHUNK", 7.0 * 4
    )  # four rows at a time: 26 blocks, the last short
    assert score_range(X, lo, hi, most=most) == whole
    monkeypatch.setattr(reach_module, "_CHUNK", 1.0)  # a row at a time
    assert score_range(X, lo, hi, most=most) == whole
    assert score_range(X[:0], lo, hi, most=most) == (0.0, 0.0)
