"""The risk family's loss holds its pieces (core/risk_family.py; each registered by the solver
module that defines it) and a risk fit asks the family for them: every piece, wrapped so that it
counts its calls, is the one the fit runs, on each path (the walk; the search and the proof by
supports, over cells and over a free multiplier's cone; the floor of the whole box and the
cutting planes), and the card is still the brute-force optimum; a fourth family's own problem is
the one a fit of its loss solves."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

import slimwidgets as sw
import slimwidgets.fitting.risk_driver as risk_driver
from slimwidgets.core import family as families
from slimwidgets.core.data import prepare_data
from slimwidgets.core.family import FAMILIES, RISK
from slimwidgets.core.losses import LogisticLoss
from slimwidgets.fitting import fit_dataset
from slimwidgets.solvers.logistic import BoxWalk, RiskProblem, search_risk
from slimwidgets.solvers.risk_bound import risk_lower_bound
from slimwidgets.solvers.risk_branch_and_bound import SupportTree, dense_floor
from slimwidgets.solvers.risk_cells import cell_floors
from slimwidgets.solvers.risk_cone import cone_floor

from brute_risk import best_risk_objective
from counted import Counted
from tiny_problems import tiny_risk_problem

BOX = dict(loss="logistic", coef_range=(-2, 2), intercept_range=(-3, 3), max_size=2)
#: the pieces a risk fit solves with (the value is a class its problem reads the rows with)
SOLVING = ("prepare", "search", "walk", "scan", "floor", "bound", "cells", "cone")


@pytest.fixture
def counted():
    """Every solving piece of the risk family's loss registered anew, counting its calls; the
    real ones registered back afterwards."""
    real = {name: RISK.loss.piece(name) for name in SOLVING}
    wrapped = {name: Counted(piece) for name, piece in real.items()}
    RISK.loss.holds(**wrapped)
    yield wrapped
    RISK.loss.holds(**real)


def _calls(counted: dict[str, Counted]) -> dict[str, int]:
    return {name: piece.calls for name, piece in counted.items() if piece.calls}


def _tiny(seed: int):
    """A tiny table of 0/1 rules (the seeds whose last column would be a count are skipped)."""
    return tiny_risk_problem(3 * seed + 1, d=4)


def test_the_risk_family_s_loss_holds_the_pieces_its_solvers_define():
    assert RISK.loss.piece("value") is LogisticLoss
    assert RISK.loss.piece("prepare") == RiskProblem.from_spec
    assert not RISK.loss.has("problem")  # no MIP/LP of its own: code needing one asks has()
    assert RISK.loss.piece("search") is search_risk
    assert isinstance(RISK.loss.piece("walk"), BoxWalk)
    assert isinstance(RISK.loss.piece("scan"), SupportTree)
    assert RISK.loss.piece("floor") is dense_floor
    assert RISK.loss.piece("bound") is risk_lower_bound
    assert RISK.loss.piece("cells") is cell_floors
    assert RISK.loss.piece("cone") is cone_floor


@pytest.mark.filterwarnings("ignore::slimwidgets.DataWarning")
@pytest.mark.seeds(4)
def test_a_small_box_is_walked_by_the_family_s_walk(counted, seed):
    X, y, names = _tiny(seed)
    spec = sw.make_spec(**BOX, scale=False)
    card = sw.fit(X, y, spec=spec)
    assert _calls(counted) == {"prepare": 1, "walk": 1}
    assert card.status == "optimal" and card.solver == "enumeration"
    assert card.objective == pytest.approx(best_risk_objective(X, y, names, spec), abs=1e-9)


@pytest.mark.filterwarnings(
    "ignore::slimwidgets.DataWarning", "ignore::slimwidgets.DegenerateCardWarning"
)
@pytest.mark.seeds(4)
def test_the_search_and_the_proof_by_supports_are_the_family_s(counted, seed, monkeypatch):
    """Past the walk's reach, the family's search finds the card and its scan proves it; on 0/1
    rules the scan floors each support with the family's cells, and with a free multiplier it
    branches on the family's cone."""
    monkeypatch.setattr(risk_driver, "RISK_WALK_WORK", 0)
    X, y, names = _tiny(seed)
    spec = sw.make_spec(**BOX, scale=False)
    card = sw.fit(X, y, spec=spec)
    assert _calls(counted) == {"prepare": 1, "search": 1, "scan": 1, "cells": 1}
    assert card.status == "optimal" and card.solver == "logistic search + branch and bound"
    assert card.objective == pytest.approx(best_risk_objective(X, y, names, spec), abs=1e-9)
    assert "over cells" in card.details["support_proof"]
    free = sw.fit(X, y, spec=replace(spec, scale=True))
    assert free.status == "optimal" and free.multiplier != 1.0
    calls = _calls(counted)
    assert calls["search"] == calls["scan"] == calls["cells"] == 2 and calls["cone"] >= 1


@pytest.mark.filterwarnings("ignore::slimwidgets.DataWarning")
@pytest.mark.seeds(4)
def test_without_the_tree_the_floor_and_the_cutting_planes_are_the_family_s(counted, seed):
    """``solver="highs"`` skips the walk and the tree: the family's floor of the whole box, then
    its cutting planes, run until they prove the optimum (no time limit, ``scale=False``)."""
    X, y, names = _tiny(seed)
    spec = sw.make_spec(**BOX, scale=False, solver="highs", time_limit=None)
    card = sw.fit(X, y, spec=spec)
    assert _calls(counted) == {"prepare": 1, "search": 1, "floor": 1, "bound": 1}
    assert card.status == "optimal" and card.solver == "logistic search + cutting planes"
    assert card.objective == pytest.approx(best_risk_objective(X, y, names, spec), abs=1e-7)


class NarrowRisk(type(RISK)):  # type: ignore[misc]
    """A fourth family of risk cards whose problem leaves one named rule out; its other pieces
    are the risk family's."""

    name = "narrow risk"
    loss_name = "narrow_risk"

    def __init__(self, left_out: str) -> None:
        super().__init__()
        self.built: list[Any] = []

        def prepare(data: Any, spec: Any) -> Any:
            self.built.append(spec)
            return RISK.loss.prepare(data, replace(spec, exclude=(*spec.exclude, left_out)))

        self.loss.holds(prepare=prepare)
        self.loss.holds(**{name: RISK.loss.piece(name) for name in ("value", *SOLVING[1:])})
        self.fits_with(RISK.driver)
        self.says_with(RISK.words)


@pytest.mark.filterwarnings("ignore::slimwidgets.DataWarning")
def test_a_fit_solves_the_problem_of_its_own_family_s_loss(monkeypatch):
    """A fit of the fourth family's loss goes through the risk driver and solves the problem
    that loss built: the rule the risk card leans on most gets no points, the objective is no
    better, and the card is re-checked (``check_card`` inside the driver)."""
    X, y, names = _tiny(0)
    spec = sw.make_spec(**BOX, scale=False)
    risk = sw.fit(X, y, spec=spec)
    points = dict(zip(risk.feature_names, risk.coefficients))
    leaned_on = max(points, key=lambda name: abs(points[name]))
    assert points[leaned_on] != 0
    narrow = NarrowRisk(leaned_on)
    monkeypatch.setattr(families, "FAMILIES", (narrow, *FAMILIES))
    card = fit_dataset(prepare_data(X, y, warn=False), replace(spec, loss="narrow_risk"))
    assert len(narrow.built) == 1 and narrow.built[0].loss == "narrow_risk"
    assert dict(zip(card.feature_names, card.coefficients))[leaned_on] == 0
    assert card.status == "optimal" and card.objective >= risk.objective - 1e-12
