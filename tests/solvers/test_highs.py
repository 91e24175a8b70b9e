"""HiGHS on badly scaled programs: its tolerances come from the program's big-M over its margin,
and a claim the exact re-evaluation does not confirm is never called a proof."""

from __future__ import annotations

import numpy as np
import pytest

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.core.formulation import build_formulation
from slimwidgets.solvers.backends import highs
from slimwidgets.solvers.backends.highs import LEAST_TOLERANCE, row_tolerance, solve_highs

from brute import best_objective, enumerate_cards
from tiny_problems import RULES, ill_scaled_problem


def _ill_scaled(seed: int, zero_score: str):
    X, y, names = ill_scaled_problem(15000 + seed)
    spec = sw.make_spec(C0=0.01, coef_range=(-2, 2), zero_score=zero_score)
    form = build_formulation(prepare_data(X, y, feature_names=names, warn=False), spec)
    return X, y, names, spec, form


def _solve(form):
    return solve_highs(
        form,
        time_limit=None,
        gap=0.0,
        threads=1,
        warm_start=None,
        on_incumbent=None,
        cancel=None,
        feasibility_only=False,
    )


def _exact_best(X, y, names, spec, form) -> float:
    """Brute force's optimum of the program's objective (loss + C0 size + eps L1)."""
    cards = enumerate_cards(X, y, names, spec)
    return (
        best_objective(cards, 0.01)
        + form.epsilon
        * cards["l1"][
            np.isclose(
                cards["loss"] + 0.01 * cards["size"],
                best_objective(cards, 0.01),
                rtol=0,
                atol=1e-12,
            )
        ].min()
    )


@pytest.mark.seeds(6)
def test_the_tolerances_leave_no_row_switched_off(seed):
    """delta + M tau stays below half the margin: a z_i HiGHS takes as 0 cannot
    make a wrong row right."""
    _, _, _, _, form = _ill_scaled(seed, "positive")
    tau = row_tolerance(form)
    big_m = form.value[form.extra["big_m"][3]].max()
    assert tau is not None and tau * (big_m + 1) <= 0.5 * form.margin * (1 + 1e-12)
    assert tau >= LEAST_TOLERANCE


def test_the_defaults_stay_where_they_suffice_and_the_least_tolerance_is_a_floor():
    X = np.array([[1.0, 5.0], [2.0, 1.0], [3.0, 4.0]])  # integer data: margin 1, M ~ 100
    form = build_formulation(prepare_data(X, np.array([1, -1, 1]), warn=False), sw.make_spec())
    assert row_tolerance(form) is None
    X = np.array(
        [[0.001, 9e7], [2.5, 1.0], [3.25, 4e7]]
    )  # M / margin ~ 10^12: past what HiGHS takes
    form = build_formulation(prepare_data(X, np.array([1, -1, 1]), warn=False), sw.make_spec())
    assert row_tolerance(form) == LEAST_TOLERANCE


def test_rows_of_weights_do_not_count_as_big_m():
    """A cap row's coefficients on the loss columns are the rows' weights (here up to 10^6), and a
    size's cut-off row carries their prices: neither is a big-M (neither holds the intercept), so
    integer data keep HiGHS's defaults."""
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, size=(40, 3)).astype(float)
    y = np.where(X[:, 0] + rng.integers(0, 2, size=40) >= 2, 1, -1)
    w = rng.choice([1.0, 1e6], size=40)
    form = build_formulation(
        prepare_data(X, y, sample_weight=w, warn=False), sw.make_spec(C0=0.01, max_fpr=0.2)
    )
    sub = form.restricted(2, 1.0)
    for program in (
        form,
        sub,
    ):  # weights past 10^6 on the loss columns: defaults' slack 1 over a margin 1
        assert (
            np.abs(
                program.value[np.isin(program.index, program.col_loss[program.col_loss >= 0])]
            ).max()
            >= 1e6
        )
        assert row_tolerance(program) is None


@pytest.mark.parametrize("zero_score", RULES)
@pytest.mark.seeds(8)
@pytest.mark.slow
def test_highs_proves_ill_scaled_programs_exactly(seed, zero_score):
    X, y, names, spec, form = _ill_scaled(seed, zero_score)
    result = _solve(form)
    best = _exact_best(X, y, names, spec, form)
    assert result.status == "optimal"
    assert form.objective_of(result.coefficients, result.intercept) == pytest.approx(
        best, abs=1e-12
    )
    assert result.bound <= best + 1e-12


@pytest.mark.parametrize("zero_score", RULES)
@pytest.mark.seeds(8)
def test_with_loose_tolerances_a_false_claim_is_refused_and_the_bound_stays_below(
    seed, zero_score, monkeypatch
):
    """HiGHS's defaults on the same programs: it takes z_i ~ margin / M as 0 and "proves" too good
    a value; the exact re-evaluation refuses the claim ("feasible"), and what is kept as the bound
    never passes brute force's optimum. A proof it does keep is brute force's optimum."""
    monkeypatch.setattr(highs, "row_tolerance", lambda form: None)
    X, y, names, spec, form = _ill_scaled(seed, zero_score)
    result = _solve(form)
    best = _exact_best(X, y, names, spec, form)
    assert result.status in ("optimal", "feasible")
    assert result.bound <= best + 1e-12
    if result.status == "optimal":
        assert result.objective == pytest.approx(best, abs=1e-12)


def test_the_loose_tolerances_do_mislead_highs_here(monkeypatch):
    """The test above is not vacuous: on this program HiGHS's defaults claim a value below the
    optimum, and the claim is refused."""
    monkeypatch.setattr(highs, "row_tolerance", lambda form: None)
    X, y, names, spec, form = _ill_scaled(1, "positive")
    result = _solve(form)
    assert result.status == "feasible" and result.bound < _exact_best(X, y, names, spec, form) - 0.1


_PULP_FIRST = """
import numpy as np, pulp
import slimwidgets as sw
prob = pulp.LpProblem("other_library", pulp.LpMinimize)
x = pulp.LpVariable("x", 0, 1, cat="Integer")
prob += x
prob += x >= 1
prob.solve(pulp.HiGHS(msg=False))  # another library sizes HiGHS's scheduler first
from slimwidgets.core.data import prepare_data
from slimwidgets.core.formulation import build_formulation
from slimwidgets.solvers.backends.highs import solve_highs
X = np.array([[1, 0], [1, 1], [0, 1], [0, 0], [1, 0], [0, 1]])
form = build_formulation(prepare_data(X, [1, 1, -1, -1, 1, -1]), sw.make_spec())
run = solve_highs(
    form, time_limit=30, gap=0.0, threads=1, warm_start=None, on_incumbent=None,
    cancel=None, feasibility_only=False,
)
print(run.status)
"""


@pytest.mark.slow
def test_a_scheduler_sized_by_another_library_does_not_stop_the_first_run():
    """PuLP's HiGHS run first sizes the shared scheduler to its own thread count; the
    package's first run resets it rather than failing with status "Not Set"."""
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-c", _PULP_FIRST], capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split()[-1] == "optimal"
