"""The compiled coordinate move: its fast paths give the losses of the plain one."""

from __future__ import annotations

import numpy as np
import pytest

from slimwidgets.solvers import _kernels as K


def random_case(rng, value, real=False):
    """A coordinate move's arguments; ``real``: the other features' scores are not integers
    (a real-valued column with points), as on heart."""
    n_p, n_n = int(rng.integers(70, 200)), int(rng.integers(70, 200))
    R = int(rng.integers(5, 60))
    ilo = -R // 2
    s_pos = rng.integers(-30, 30, n_p).astype(float)
    s_neg = rng.integers(-30, 30, n_n).astype(float)
    if real:
        s_pos += 3 * rng.choice([0.0, 0.1, 0.5, rng.random()], n_p)
        s_neg += 3 * rng.choice([0.0, 0.1, 0.5, rng.random()], n_n)
    w_pos, w_neg = rng.random(n_p), rng.random(n_n)
    d_pos, d_neg = rng.integers(1, 3, n_p).astype(float), rng.integers(1, 3, n_n).astype(float)
    gamma_pos = float(
        rng.choice([0.0, 1.0])
    )  # "score >= threshold", or the paper's zero-is-an-error rule
    a, c, hp, hn, cp, cn = K.histograms(
        s_pos, s_neg, w_pos, w_neg, d_pos, d_neg, gamma_pos, 1.0, ilo, R
    )
    rp = np.sort(rng.choice(n_p, int(rng.integers(40, n_p)), replace=False)).astype(np.int64)
    rn = np.sort(rng.choice(n_n, int(rng.integers(40, n_n)), replace=False)).astype(np.int64)
    pos_budget = float(rng.choice([-1.0, float(rng.integers(0, 40))]))
    neg_budget = float(rng.choice([-1.0, float(rng.integers(0, 40))]))
    return (
        rp,
        np.full(rp.size, value),
        rn,
        np.full(rn.size, value),
        s_pos,
        s_neg,
        a,
        c,
        w_pos,
        w_neg,
        d_pos,
        d_neg,
        hp,
        hn,
        cp,
        cn,
        w_pos.sum(),
        d_pos.sum(),
        gamma_pos,
        1.0,
        ilo,
        R,
        pos_budget,
        neg_budget,
        1e6,
    )


@pytest.mark.parametrize("real", [False, True])
@pytest.mark.seeds(60)
def test_shifting_a_binary_rule_gives_the_losses_of_moving_each_row(seed, real):
    rng = np.random.default_rng(seed)
    value = float(rng.choice([1, 2, -1, 3]))
    case = random_case(rng, value, real)
    deltas = rng.integers(-10, 11, 21).astype(float)
    plain_b, plain = K.coordinate_losses(deltas, *case, 0.0)
    shifted_b, shifted = K.coordinate_losses(deltas, *case, value)
    assert np.allclose(shifted, plain, rtol=0, atol=1e-9)
    # the shifted path did run (unless the moved rows' bins span too wide a range)
    rp, _, rn, _, s_pos, s_neg, a, c, w_pos, w_neg, d_pos, d_neg, hp, hn, cp, cn, *rest = case
    direct_b, direct = K._shifted_losses(
        deltas, value, rp, rn, s_pos, s_neg, a, c, w_pos, w_neg, d_pos, d_neg, hp, hn, cp, cn, *rest
    )
    if direct.size:
        assert np.allclose(direct, plain, rtol=0, atol=1e-9)
    # each reported intercept attains the reported loss under the plain move
    for t, d in enumerate(deltas):
        b_plain, loss_plain = K.coordinate_losses(np.array([d]), *case, 0.0)
        assert loss_plain[0] == pytest.approx(shifted[t], abs=1e-9)


def test_the_shifted_path_runs_on_typical_binary_data():
    runs = 0
    for seed in range(60):
        rng = np.random.default_rng(seed)
        case = random_case(rng, 1.0)
        rp, _, rn, _, s_pos, s_neg, a, c, w_pos, w_neg, d_pos, d_neg, hp, hn, cp, cn, *rest = case
        b, loss = K._shifted_losses(
            np.arange(-3.0, 4.0),
            1.0,
            rp,
            rn,
            s_pos,
            s_neg,
            a,
            c,
            w_pos,
            w_neg,
            d_pos,
            d_neg,
            hp,
            hn,
            cp,
            cn,
            *rest,
        )
        runs += loss.size > 0
    assert runs >= 40


def test_coordinate_moves_on_heart_are_those_of_the_plain_kernel(paper_data):
    """heart has two real-valued columns: with points on them the scores are not integers, and
    the binary rules' moves still take the shifted path; every move (value, intercept, total up
    to the order of a sum) is the plain kernel's, on cards that use the
    real-valued columns or not."""
    import slimwidgets as sw
    from slimwidgets.core.data import prepare_data
    from slimwidgets.core.formulation import build_formulation
    from slimwidgets.solvers.search import SearchProblem

    X, y = paper_data("heart")
    data = prepare_data(X, y, warn=False)
    shifted = SearchProblem(build_formulation(data, sw.make_spec(C0=0.005)))
    plain = SearchProblem(build_formulation(data, sw.make_spec(C0=0.005)))
    plain.single = np.zeros(plain.P)
    assert (
        np.count_nonzero(shifted.single) == 29 and not shifted.col_integer.all()
    )  # every 0/1 column
    rng = np.random.default_rng(3)
    for _ in range(6):
        lam = np.where(rng.random(shifted.P) < 0.3, rng.integers(-5, 6, shifted.P), 0)
        base_s, base_p = shifted.base(shifted.X @ lam), plain.base(plain.X @ lam)
        for j in range(shifted.P):
            total, value, intercept = shifted.best_value(lam, base_s, j)
            expected = plain.best_value(lam, base_p, j)
            assert (value, intercept) == expected[1:] and total == pytest.approx(
                expected[0], abs=1e-12
            )
