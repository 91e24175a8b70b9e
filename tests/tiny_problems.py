"""Tiny random problems the tests share: small enough for brute force (:mod:`brute`,
:mod:`brute_risk`) to enumerate every card of their box.

- :func:`tiny_problem` (with ``BOX``, ``RULES`` and random operational options): decision
  cards against the brute force, used across fitting, solvers and toolbox tests;
  :func:`ill_scaled_problem`: the same on three-decimal columns in the thousands (big-M over
  the margin past 10^6, as on spambase);
- :func:`tiny_risk_problem`: risk cards (``loss="logistic"``), and :func:`empty_risk_card`, a
  poor incumbent for their proofs;
- :func:`tiny_roc_problem` (with ``SMALL``): the ROC frontier and the size path.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.datasets import RULES_ATTR

# -- decision cards against brute force ------------------------------------------------------------
BOX = dict(coef_range=(-3, 3), intercept_range=(-8, 8))
# both rules for a total exactly at the threshold: "positive" (the default, score >= threshold)
# and the paper's "error" (a zero total is an error, score > threshold)
RULES = ["positive", "error"]


def tiny_problem(seed: int, n_features: int | None = None):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 15))
    p = n_features or int(rng.integers(2, 4))
    top = int(rng.choice([1, 2]))  # binary or small integer features
    X = rng.integers(0, top + 1, size=(n, p))
    y = rng.choice([-1, 1], size=n)
    y[0], y[1] = 1, -1
    names = [f"f{j}" for j in range(p)]
    return X, y, names


def ill_scaled_problem(seed: int):
    """Spambase in miniature: three-decimal columns (multiples of 1/8, so every total is exact in
    floating point), one of them reaching the thousands, so a loss row's big-M over the margin
    (0.001) passes 10^6; small enough for brute force with points in -2..2."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 11))
    small = rng.integers(0, 41, size=n) / 8  # 0 .. 5, e.g. 1.625
    large = rng.integers(0, 2000, size=n) + rng.integers(0, 8, size=n) / 8  # e.g. 1843.375
    mid = rng.integers(0, 161, size=n) / 8  # 0 .. 20
    X = np.column_stack([small, large, mid])
    y = rng.choice([-1, 1], size=n)
    y[0], y[1] = 1, -1
    return X, y, ["small", "large", "mid"]


def force_proof_by_size(monkeypatch, walked: int) -> None:
    """Make the fit's "auto" take the proof by model size on tiny problems: walk the cards of up
    to ``walked`` features, give every larger size its own MIP (no walk of
    the whole box, no scan)."""
    from slimwidgets.fitting import driver
    from slimwidgets.solvers import decomposition

    def forced(form, upper, works=None, settled=-1):
        if not math.isfinite(upper):
            return None
        K = decomposition.support_size_limit(decomposition.SearchProblem(form), upper, None)
        return min(walked, K), K

    monkeypatch.setattr(driver, "ENUMERATION_WORK", -1.0)
    monkeypatch.setattr(driver, "_scan_fits", lambda form, spec, start: False)
    monkeypatch.setattr(driver, "size_split", forced)


def gcd_all(values):
    return math.gcd(*[abs(int(v)) for v in values]) if any(values) else 0


def spec_or_skip(**opts):
    """The spec, or a skipped test when the random options contradict each other (make_spec
    rejects those up front; that is tested elsewhere)."""
    try:
        return sw.make_spec(**opts)
    except ValueError:
        pytest.skip("contradictory options are rejected up front (tested elsewhere)")


def random_operational_spec(rng, names):
    opts = dict(BOX, C0=float(rng.choice([0.01, 0.05])))
    free = list(names)
    rng.shuffle(free)
    kind = rng.integers(0, 6, size=2)
    for k in kind:
        if not free:
            break
        f = free.pop()
        if k == 0:
            opts.setdefault("signs", {})[f] = str(rng.choice(["+", "-"]))
        elif k == 1:
            opts.setdefault("exclude", []).append(f)
        elif k == 2:
            opts.setdefault("require", []).append(f)
        elif k == 3:
            opts.setdefault("lock", {})[f] = int(rng.choice([-2, 1, 3]))
        elif k == 4:
            opts.setdefault("values", {})[f] = sorted(
                {int(v) for v in rng.choice([-3, -1, 0, 2, 3], size=3)}
            )
        else:
            opts["max_size"] = int(rng.integers(1, len(names)))
    if rng.random() < 0.4 and len(names) >= 2:
        a, b = rng.choice(names, size=2, replace=False)
        opts["constraints"] = [
            sw.needs(str(a), str(b)) if rng.random() < 0.5 else sw.at_most(1, [str(a), str(b)])
        ]
    return opts


# -- settings by variable (issue 19) ---------------------------------------------------------------
VARIABLE_CUTS = {"a": [1, 2, 3], "b": [1, 2]}


def tiny_variable_problem(seed: int, n: int | None = None):
    """A raw table (a: 0..4, b: 0..3, c: 0/1) made into the rule builder's 0/1 rules at fixed cuts
    (a >= 1, a >= 2, a >= 3, b >= 1, b >= 2, c): ``(rules table, y in {-1, 1}, rule names,
    variables)``, where ``variables`` is what ``fit`` tells the spec (each
    rule's column and kind)."""
    from slimwidgets.core.rules import options_by_variable

    rng = np.random.default_rng(seed)
    n = n or int(rng.integers(8, 15))
    raw = pd.DataFrame(
        {"a": rng.integers(0, 5, n), "b": rng.integers(0, 4, n), "c": rng.integers(0, 2, n)}
    )
    raw.loc[:4, "a"], raw.loc[:3, "b"], raw.loc[:1, "c"] = (
        range(5),
        range(4),
        [0, 1],
    )  # every cut splits the rows
    builder = sw.RuleBuilder(cuts=VARIABLE_CUTS).fit(raw)
    X = builder.transform(raw)
    # labels from random weights on the rules (often not monotone in a or b), with noise
    logit = X.to_numpy(dtype=float) @ rng.normal(0, 1.5, X.shape[1]) + rng.normal(0, 0.7, n)
    y = np.where(logit > np.median(logit), 1, -1)
    y[0], y[1] = 1, -1
    return (
        X.to_numpy(dtype=float),
        y,
        list(X.columns),
        options_by_variable(builder, {})["variables"],
    )


def tiny_band_problem(seed: int, n: int | None = None):
    """A variable ``a`` (0..5) as rules of every shape that share cuts: ``a < 2``, ``2 <= a < 4``,
    ``a >= 4``, ``a >= 2`` (a band and thresholds of both directions), and a 0/1 rule ``c``:
    ``(rules table, y in {-1, 1}, rule names, variables with each rule's edges)``."""
    rng = np.random.default_rng(seed)
    n = n or int(rng.integers(8, 15))
    a, c = rng.integers(0, 6, n), rng.integers(0, 2, n)
    a[:6], c[:2] = range(6), [0, 1]  # every cut splits the rows
    kinds = {
        "a < 2": ["lt", 2],
        "2 <= a < 4": ["band", 2, 4],
        "a >= 4": ["ge", 4],
        "a >= 2": ["ge", 2],
    }
    names = list(kinds) + ["c"]
    X = np.column_stack([a < 2, (a >= 2) & (a < 4), a >= 4, a >= 2, c]).astype(float)
    logit = X @ rng.normal(0, 1.5, X.shape[1]) + rng.normal(0, 0.7, n)
    y = np.where(logit > np.median(logit), 1, -1)
    y[0], y[1] = 1, -1
    return X, y, names, {"a": kinds}


def random_variable_options(rng, variables) -> dict:
    """Random settings by variable for :func:`tiny_variable_problem`: a cap on variables, on cut
    points per variable, a direction for a or b, now and then a sign or a required rule."""
    opts: dict = {"variables": variables}
    if rng.random() < 0.6:
        opts["max_variables"] = int(rng.integers(1, 3))
    if rng.random() < 0.5:
        opts["max_cuts_per_variable"] = int(rng.integers(1, 3))
    for var in ("a", "b"):
        if rng.random() < 0.4:
            opts.setdefault("monotone", {})[var] = str(rng.choice(["+", "-"]))
    if rng.random() < 0.2:
        opts["signs"] = {"c": str(rng.choice(["+", "-"]))}
    if rng.random() < 0.2:
        opts["require"] = [str(rng.choice(["a >= 2", "b >= 1", "c"]))]
    return opts


# -- risk cards ------------------------------------------------------------------------------------
def tiny_risk_problem(seed: int, n: int = 24, d: int = 3):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, d)).astype(float)
    if seed % 3 == 0:  # a count feature as well as 0/1 ones
        X[:, -1] = rng.integers(0, 4, size=n)
    logit = X @ rng.normal(0, 1.5, size=d) + rng.normal(0, 0.5)
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    y[:2] = [0, 1]  # both classes
    names = [f"f{j}" for j in range(d)]
    frame = pd.DataFrame(X, columns=names)
    frame.attrs[RULES_ATTR] = (
        False  # the engine's own features (a count among them), as brute force reads them
    )
    return frame, y, names


def empty_risk_card(prob):
    """A poor incumbent for a proof of risk cards (no points, intercept 0 or the nearest
    allowed), so the proof must find the card itself."""
    from slimwidgets.solvers.logistic import RiskCard

    coefs = np.array([a[np.argmin(np.abs(a))] for a in prob.allowed])
    b = int(min(max(0, prob.intercepts[0]), prob.intercepts[1]))
    loss = prob.loss.evaluate(coefs, b)
    return RiskCard(coefs, b, 1.0, loss, prob.objective(coefs, loss))


# -- sweeps ----------------------------------------------------------------------------------------
SMALL = dict(coef_range=(-2, 2), intercept_range=(-4, 4))


def tiny_roc_problem(seed=0, n=24, p=3):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 2, size=(n, p)), columns=[f"f{j}" for j in range(p)])
    logit = X.to_numpy() @ np.array([2.0, -1.0, 1.0][:p]) - 0.8 + rng.normal(0, 0.8, n)
    y = (logit > 0).astype(int)
    y[:2] = [0, 1]  # both classes
    return X, pd.Series(y, name="event")
