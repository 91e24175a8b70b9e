"""The compiled Cox kernels over a support's cells against the Python losses and brute force."""

from __future__ import annotations

import numpy as np
import pytest
from brute_cox import T_RANGE, best_t, cards, cox_loss, efron_loss, tiny_survival

from slimwidgets.core import _cox_kernels
from slimwidgets.core.cox_floor import T_STEPS, node_floor
from slimwidgets.core.survival import CoxCells, CoxRows, _cells_of


def _kernel_args(cells: CoxCells) -> tuple:
    return cells.at_risk, cells.deaths, cells.events, cells.values, cells.total


@pytest.mark.seeds(10)
def test_the_compiled_derivatives_are_the_python_ones(seed):
    """Value, gradient and Hessian of the compiled loss are those of the rows' loss (Breslow)."""
    X, time, event, w = tiny_survival(seed, binary=seed % 2 == 0)
    v = np.random.default_rng(seed).normal(0, 1, X.shape[1])
    cells = CoxCells(X, time, event, w)
    loss, g, h = _cox_kernels.loss_gradient_hessian(*_kernel_args(cells), v)
    row_loss, row_g, row_h = CoxRows(X, time, event, w).value_gradient_hessian(v)
    assert loss == pytest.approx(row_loss, abs=1e-12)
    assert g == pytest.approx(row_g, abs=1e-12) and h == pytest.approx(row_h, abs=1e-12)


@pytest.mark.seeds(10)
def test_the_compiled_node_floor_is_the_rows_floor_and_below_every_card(seed):
    """The node floor over a support's cells (compiled, in one call) and over the rows (Python,
    step by step) are the same relaxation: equal floors; both below every card of the box."""
    X, time, event, w = tiny_survival(seed, binary=seed % 3 != 2)
    rng = np.random.default_rng(200 + seed)
    lo = rng.integers(-3, 1, 3).astype(float)
    hi = lo + rng.integers(0, 3, 3)
    compiled, relaxed = node_floor(CoxCells(X, time, event, w), lo, hi, T_RANGE)
    python, _ = node_floor(CoxRows(X, time, event, w), lo, hi, T_RANGE, T_STEPS)
    assert compiled == pytest.approx(python, abs=1e-7)
    assert ((relaxed >= lo - 1e-9) & (relaxed <= hi + 1e-9)).all()
    least = min(
        best_t(X, time, event, w, p)[1]
        for p in cards([np.arange(a, b + 1) for a, b in zip(lo, hi)], 3)
    )
    assert compiled <= least + 1e-10


@pytest.mark.seeds(8)
def test_the_compiled_slope_in_t_is_the_loss_s_derivative(seed):
    """(loss, d/dt, d2/dt2) of a card's compiled slope against the brute-force loss in ``t``."""
    X, time, event, w = tiny_survival(seed)
    ties, brute = ("efron", efron_loss) if seed % 2 else ("breslow", cox_loss)
    cells = CoxCells(X, time, event, w, ties=ties)
    points = np.random.default_rng(seed).integers(-3, 4, X.shape[1]).astype(float)
    scores, t, step = cells.values @ points, 0.7, 1e-5
    loss, d1, d2 = cells.scale_slope(scores, t)
    assert loss == pytest.approx(brute(X, time, event, w, points, t), abs=1e-12)
    up, down = cells.scale_slope(scores, t + step), cells.scale_slope(scores, t - step)
    assert d1 == pytest.approx((up[0] - down[0]) / (2 * step), abs=1e-7)
    assert d2 == pytest.approx((up[1] - down[1]) / (2 * step), abs=1e-6)


@pytest.mark.seeds(10)
def test_the_cells_of_rules_are_the_distinct_rows_in_order(seed):
    """Cells of 0/1 rules by integer codes: the distinct rows as ``np.unique`` sorts them, each
    row in its own; other values by the rows themselves."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2 if seed % 2 else 3, (int(rng.integers(1, 40)), int(rng.integers(1, 7))))
    values, cell = _cells_of(X.astype(float))
    expected, inverse = np.unique(X.astype(float), axis=0, return_inverse=True)
    assert (values == expected).all() and (cell == inverse.ravel()).all()
    assert (values[cell] == X).all()
