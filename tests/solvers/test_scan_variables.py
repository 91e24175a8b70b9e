"""The support scan under ``max_variables`` and ``max_cuts_per_variable`` (issue 19) against brute
force: the scan cuts every branch of supports that breaks a cap (solvers/_scan_kernels.py's
``_within_caps``), so it must list exactly the supports that keep them, discard no better card,
and prove the brute-force optimum. A cap made one tighter than the spec's is caught (the
sabotage tests below), so these tests can fail.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from slimwidgets.core.data import prepare_data
from slimwidgets.core.formulation import build_formulation
from slimwidgets.solvers import scan
from slimwidgets.solvers.scan import (
    solve_by_scan,
    support_floors,
    supports_within_caps,
    surviving_supports,
)

from brute import enumerate_cards, variables_ok
from tiny_problems import BOX, random_variable_options, spec_or_skip, tiny_variable_problem


def variable_setup(seed: int):
    """A tiny raw-table problem with a cap on variables (and often on cut points per variable)."""
    rng = np.random.default_rng(900 + seed)
    X, y, names, variables = tiny_variable_problem(900 + seed)
    opts = random_variable_options(rng, variables)
    opts.setdefault("max_variables", int(rng.integers(1, 3)))
    spec = spec_or_skip(**opts, C0=float(rng.choice([0.0, 0.01, 0.05])), **BOX)
    form = build_formulation(prepare_data(X, y, feature_names=names, warn=False), spec)
    return form, enumerate_cards(X, y, names, spec), names, spec


def listed_supports(form) -> set[tuple[int, ...]]:
    """Every support (of one or more optional features) the scan lists, with the required ones."""
    n_opt = sum(1 for v in form.allowed if len(v) > 1 and 0 in v)
    return {
        tuple(sorted(s)) for extra in range(1, n_opt + 1) for s in support_floors(form, extra)[0]
    }


def supports_keeping_caps(form, names, spec) -> set[tuple[int, ...]]:
    """The same, by brute force: every set of optional features that, with the required and
    locked ones, keeps max_variables and max_cuts_per_variable (read by tests/brute.py)."""
    movable = [j for j, v in enumerate(form.allowed) if len(v) > 1]
    required = [j for j in movable if 0 not in form.allowed[j]]
    optional = [j for j in movable if j not in required]
    base = np.array(
        [
            1.0 if (j in required or (len(v) == 1 and v[0] != 0)) else 0.0
            for j, v in enumerate(form.allowed)
        ]
    )
    caps_only = spec.replace(monotone={})  # which supports, not which points
    out = set()
    for extra in range(1, len(optional) + 1):
        for chosen in itertools.combinations(optional, extra):
            used = base.copy()
            used[list(chosen)] = 1.0
            if variables_ok(caps_only, names, [used])[0]:
                out.add(tuple(sorted(required + list(chosen))))
    return out


def mismatches(seed: int) -> list[str]:
    """What the scan gets wrong on one problem against brute force (empty: nothing)."""
    form, cards, names, spec = variable_setup(seed)
    wrong = []
    listed, expected = listed_supports(form), supports_keeping_caps(form, names, spec)
    if listed != expected:
        wrong.append(f"supports listed {sorted(listed ^ expected)} differ")
    if not len(cards["loss"]):
        return wrong
    objective = np.array(
        [form.objective_of(p, b) for p, b in zip(cards["points"], cards["intercept"])]
    )
    result = solve_by_scan(form, math.inf, None)
    if result.status != "optimal" or abs(result.objective - objective.min()) > 1e-12:
        wrong.append(f"scan {result.status} {result.objective} vs brute force {objective.min()}")
    upper = float(np.quantile(objective, 0.3))
    kept = {tuple(sorted(s)) for _, s in surviving_supports(form, upper)}
    movable = np.array([len(v) > 1 for v in form.allowed])
    for p, value in zip(cards["points"], objective):
        support = tuple(np.flatnonzero((p != 0) & movable).tolist())
        if value < upper - 1e-12 and support not in kept and len(support):
            wrong.append(f"support {support} discarded with a card of {value} < {upper}")
            break
    return wrong


@pytest.mark.seeds(40)
@pytest.mark.slow
def test_the_scan_under_caps_on_variables_matches_brute_force(seed):
    assert mismatches(seed) == []


def tightened(which: str):
    """support_caps with one cap made one tighter than the spec's (a sabotage)."""
    honest = scan.support_caps

    def caps(prob, required, optional):
        var, var_room, member, cap_room = honest(prob, required, optional)
        if which == "variables":
            return var, var_room - 1, member, cap_room
        return var, var_room, member, cap_room - 1

    return caps


@pytest.mark.parametrize("which", ["variables", "cuts"])
@pytest.mark.slow
def test_a_cap_one_too_tight_is_caught(which, monkeypatch):
    """The brute-force checks above fail when the scan cuts with a cap tighter than the spec's."""
    monkeypatch.setattr(scan, "support_caps", tightened(which))
    for seed in range(40):
        try:
            if mismatches(seed):
                return
        except pytest.skip.Exception:
            continue
    pytest.fail(f"no problem caught the {which} cap made one too tight")


@pytest.mark.seeds(20)
def test_supports_within_caps_counts_them(seed):
    """The count the scan's work estimate uses, against itertools."""
    rng = np.random.default_rng(seed)
    var = rng.integers(-1, 4, size=int(rng.integers(1, 9)))
    room = int(rng.integers(0, 4))
    for extra in range(len(var) + 1):
        brute = sum(
            1
            for c in itertools.combinations(range(len(var)), extra)
            if len({int(var[t]) for t in c if var[t] >= 0}) <= room
        )
        assert supports_within_caps((var, room, None, None), extra) == brute
