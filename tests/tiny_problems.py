"""Tiny random problems the tests share: small enough for brute force (:mod:`brute`,
:mod:`brute_risk`) to enumerate every card of their box.

- :func:`tiny_problem` (with ``BOX``, ``RULES`` and random operational options): decision
  cards against the brute force, used across fitting, solvers and toolbox tests;
- :func:`tiny_risk_problem`: risk cards (``loss="logistic"``);
- :func:`tiny_roc_problem` (with ``SMALL``): the ROC frontier and the size path.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw

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
            opts.setdefault("values", {})[f] = sorted({int(v) for v in rng.choice([-3, -1, 0, 2, 3], size=3)})
        else:
            opts["max_size"] = int(rng.integers(1, len(names)))
    if rng.random() < 0.4 and len(names) >= 2:
        a, b = rng.choice(names, size=2, replace=False)
        opts["constraints"] = [sw.needs(str(a), str(b)) if rng.random() < 0.5 else sw.at_most(1, [str(a), str(b)])]
    return opts


# -- risk cards ---------------------------------------------------------------------------------------
def tiny_risk_problem(seed: int, n: int = 24, d: int = 3):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, d)).astype(float)
    if seed % 3 == 0:  # a count feature as well as 0/1 ones
        X[:, -1] = rng.integers(0, 4, size=n)
    logit = X @ rng.normal(0, 1.5, size=d) + rng.normal(0, 0.5)
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    y[:2] = [0, 1]  # both classes
    names = [f"f{j}" for j in range(d)]
    return pd.DataFrame(X, columns=names), y, names


# -- sweeps ------------------------------------------------------------------------------------------
SMALL = dict(coef_range=(-2, 2), intercept_range=(-4, 4))


def tiny_roc_problem(seed=0, n=24, p=3):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 2, size=(n, p)), columns=[f"f{j}" for j in range(p)])
    logit = X.to_numpy() @ np.array([2.0, -1.0, 1.0][:p]) - 0.8 + rng.normal(0, 0.8, n)
    y = (logit > 0).astype(int)
    y[:2] = [0, 1]  # both classes
    return X, pd.Series(y, name="event")
