"""``solver="pulp"``: the program solved through PuLP with the solver ``pulp_solver`` names,
a real solve compared with brute force and with the HiGHS path on tiny problems."""

from __future__ import annotations

import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.solvers.backends.cbc import pulp_solver

from brute import best_objective, card_value, enumerate_cards
from tiny_problems import tiny_problem

BOX = dict(coef_range=(-3, 3), intercept_range=(-8, 8), C0=0.01)
PULP_SOLVERS = [None, "PULP_CBC_CMD", "HiGHS"]


@pytest.mark.filterwarnings("ignore::slimwidgets.DegenerateCardWarning")
@pytest.mark.parametrize("name", PULP_SOLVERS)
@pytest.mark.seeds(6)
def test_a_pulp_solve_is_the_optimum_and_agrees_with_highs(seed, name):
    X, y, names = tiny_problem(3100 + seed)
    options = dict(BOX, max_fpr=[None, 0.5][seed % 2], max_size=[None, 2][seed % 3 == 0])
    best = best_objective(enumerate_cards(X, y, names, sw.make_spec(**options)), 0.01)
    through_pulp = sw.fit(X, y, feature_names=names, solver="pulp", pulp_solver=name, **options)
    highs = sw.fit(X, y, feature_names=names, solver="highs", **options)
    assert through_pulp.status == "optimal" and through_pulp.solver.startswith("pulp:")
    spec = through_pulp.spec
    assert card_value(through_pulp, X, y, names, spec, 0.01) == pytest.approx(best, abs=1e-12)
    assert through_pulp.objective == pytest.approx(highs.objective, abs=1e-12)
    assert spec.solver == "pulp" and spec.pulp_solver == name


@pytest.mark.slow
def test_formulate_solves_through_pulp_with_the_user_s_rows_and_groups():
    X, y, names = tiny_problem(3200, n_features=3)
    X = pd.DataFrame(X, columns=names)
    groups = ["A", "B"] * (len(y) // 2) + ["A"] * (len(y) % 2)
    prog = sw.formulate(
        X,
        y,
        sensitive_features=groups,
        max_tpr_gap=0.5,
        solver="pulp",
        pulp_solver="PULP_CBC_CMD",
        **BOX,
    )
    extra = [prog.points["f0"] + prog.points["f1"] <= 1]
    card = prog.fit(extra=extra)
    same = sw.formulate(
        X, y, sensitive_features=groups, max_tpr_gap=0.5, solver="highs", **BOX
    ).fit(extra=extra)
    assert card.solver == "pulp:PULP_CBC_CMD" and card.status == "optimal"
    assert card.objective == pytest.approx(same.objective, abs=1e-12)
    points = dict(zip(card.feature_names, card.coefficients))
    assert points["f0"] + points["f1"] <= 1


def test_an_unknown_or_missing_pulp_solver_is_named_with_those_there_are():
    X, y, names = tiny_problem(3300)
    with pytest.raises(ValueError, match=r"pulp_solver=.NO_SUCH. is not a PuLP solver; PuLP knows"):
        sw.fit(X, y, feature_names=names, solver="pulp", pulp_solver="NO_SUCH", **BOX)
    import pulp

    absent = [n for n in pulp.listSolvers() if n not in pulp.listSolvers(onlyAvailable=True)]
    with pytest.raises(ValueError, match=r"cannot run the solver of that name here; available: \["):
        sw.fit(X, y, feature_names=names, solver="pulp", pulp_solver=absent[0], **BOX)
    with pytest.raises(ValueError, match="names the solver of solver='pulp'"):
        sw.make_spec(pulp_solver="HiGHS")
    with pytest.raises(ValueError, match="loss is not linear"):
        sw.make_spec(loss="logistic", solver="pulp")
    assert pulp_solver(None).name in (
        "HiGHS",
        "PULP_CBC_CMD",
    )  # PuLP's HiGHS when there, else its CBC


def test_the_spec_keeps_the_pulp_solver_in_json_and_leaves_older_specs_alone():
    spec = sw.make_spec(solver="pulp", pulp_solver="HiGHS")
    assert sw.Spec.from_dict(spec.to_dict()) == spec
    assert "pulp_solver" not in sw.make_spec().to_dict()
