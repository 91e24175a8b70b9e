"""The time-to-event family's loss holds its pieces (core/survival_family.py; each registered by
the module that defines it: the cells by the family, the floors by core/cox_floor.py, the
problem, the rounded-Cox start and the proof by supports by solvers/cox_tree.py) and a fit asks
the family for them: every piece, wrapped so that it counts its calls, is the one a real fit
runs, and the card is still the brute-force optimum; a problem the family's ``prepare`` builds
differently is the one the fit solves; a proof stopped by Ctrl-C hands back its best card."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from brute_cox import brute_optimum, tiny_survival

import slimwidgets as sw
from slimwidgets.core import cox_floor
from slimwidgets.core.family import TIME_TO_EVENT
from slimwidgets.core.survival import CoxCells
from slimwidgets.solvers.cox_tree import CoxProblem, prove_cox, rounded_start

from counted import Counted

#: the pieces a time-to-event fit runs with
PIECES = ("value", "prepare", "search", "scan", "cone", "floor")
BOX = dict(max_size=2, C0=0.01, coef_range=(-2, 2))


@pytest.fixture
def real_pieces():
    """The family's registered pieces, registered back after the test whatever it replaced."""
    real = {name: TIME_TO_EVENT.loss.piece(name) for name in PIECES}
    yield real
    TIME_TO_EVENT.loss.holds(**real)


def _fit(seed: int, **options: Any):
    """(the card of a fit of a tiny problem, its rows, their names)."""
    X, time, event, w = tiny_survival(seed)
    y = np.array(list(zip(event, time)), dtype=[("event", "?"), ("time", "<f8")])
    names = [f"x{j}" for j in range(X.shape[1])]
    card = sw.fit(X, y, sample_weight=w, feature_names=names, progress=False, **options)
    return card, (X, time, event, w), names


def test_the_family_s_loss_holds_the_pieces_its_modules_define():
    assert TIME_TO_EVENT.loss.piece("value") is CoxCells
    assert TIME_TO_EVENT.loss.piece("cone") is cox_floor.node_floor
    assert TIME_TO_EVENT.loss.piece("floor") is cox_floor.best_scale_of
    assert TIME_TO_EVENT.loss.piece("prepare") == CoxProblem.from_spec
    assert TIME_TO_EVENT.loss.piece("search") is rounded_start
    assert TIME_TO_EVENT.loss.piece("scan") is prove_cox
    # no MIP/LP, no walk of a box, no cutting planes, no cells of 0/1 rules: asked, refused
    assert not any(TIME_TO_EVENT.loss.has(name) for name in ("problem", "walk", "bound", "cells"))


@pytest.mark.seeds(6)
def test_a_fit_runs_the_family_s_pieces_and_finds_the_optimum(real_pieces, seed):
    counted = {name: Counted(piece) for name, piece in real_pieces.items()}
    TIME_TO_EVENT.loss.holds(**counted)
    card, (X, time, event, w), names = _fit(seed, **BOX)
    calls = {name: piece.calls for name, piece in counted.items()}
    assert calls["prepare"] == calls["search"] == calls["scan"] == 1
    assert calls["cone"] >= 1 and calls["floor"] >= 1  # a floor for each support and each leaf
    assert calls["value"] >= 2  # each support's cells, and the card re-checked
    allowed = [np.arange(-2, 3)] * X.shape[1]
    best, _ = brute_optimum(X, time, event, w, allowed, np.full(X.shape[1], 0.01), 2)
    assert card.status == "optimal" and card.objective == pytest.approx(best, abs=1e-8)


def test_a_fit_solves_the_problem_the_family_prepares(real_pieces):
    """A ``prepare`` that leaves out the rule the card leans on most: the fit's card gives it no
    points, and its objective is no better (the card is re-checked inside the driver)."""
    card, _, names = _fit(0, **BOX)
    points = dict(zip(names, card.points))
    leaned_on = max(points, key=lambda name: abs(points[name]))
    assert points[leaned_on] != 0
    prepare, built = real_pieces["prepare"], []

    def narrow(data: Any, spec: Any) -> Any:
        built.append(spec)
        return prepare(data, replace(spec, exclude=(*spec.exclude, leaned_on)))

    TIME_TO_EVENT.loss.holds(prepare=narrow)
    narrowed, _, _ = _fit(0, **BOX)
    assert len(built) == 1 and leaned_on not in built[0].exclude
    assert dict(zip(names, narrowed.points))[leaned_on] == 0
    assert narrowed.status == "optimal" and narrowed.objective >= card.objective - 1e-12


def test_a_proof_stopped_by_ctrl_c_hands_back_its_best_card(real_pieces):
    """The family's proof, told of a first card, then stopped by Ctrl-C: the card found,
    "interrupted", with no floor stated."""
    scan = real_pieces["scan"]

    def interrupted(prob: Any, *, on_card: Any, **options: Any) -> Any:
        scan(prob, on_card=on_card, **options)  # the proof's cards reach the driver
        raise KeyboardInterrupt

    TIME_TO_EVENT.loss.holds(scan=interrupted)
    card, _, _ = _fit(0, **BOX)
    assert card.status == "interrupted" and card.bound is None
    assert np.isfinite(card.objective) and card.details["supports"] == 0
