"""A primal heuristic for the exact SLIM objective: local search over the integer box.

It gives a feasible card in milliseconds (shown at once, then improved by the
MIP), a warm start for the solver, and a card to return when a time limit hits
before the solver finds one.

Moves are exact per coordinate: for one feature every allowed value is scored
in one vectorised pass over the distinct rows, each with its best integer
intercept (a weighted sweep over the intercept range). Swap moves (drop one
used feature, add another) escape the local optima of single moves. Starts:
the empty card, the caller's warm start, and rounded, scaled logistic
regression solutions. Constraints (boxes, signs, values, locks, requires, size,
FPR/TPR caps, logical constraints) hold inside the search: violations carry a
penalty larger than any objective, and only a card with none is returned.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .formulation import Formulation

__all__ = ["local_search", "SearchResult"]


@dataclass(frozen=True)
class SearchResult:
    coefficients: np.ndarray  # int, per feature
    intercept: int
    objective: float  # paper units, exact
    feasible: bool
    elapsed: float
    starts: int


class _Problem:
    def __init__(self, form: Formulation):
        d, spec = form.data, form.spec
        self.form = form
        self.X = d.X
        self.y = d.y
        self.n, self.P = d.X.shape
        self.w = form.row_weight
        self.gamma = form.margin
        self.C0 = form.C0
        self.eps = form.epsilon
        self.l1_mask = form.col_lambda >= 0
        self.ilo, self.ihi = spec.intercept_range
        self.R = self.ihi - self.ilo + 1
        self.allowed = form.allowed
        self.movable = np.array([len(v) > 1 for v in self.allowed])
        pos = self.y == 1
        self.pos, self.neg = pos, ~pos
        # caps count data weights of margin errors, as the MIP's cap rows do
        self.caps = form.caps
        self.data_weight = d.weight
        self.max_size = spec.max_size
        self.names = d.feature_names
        self.logic = []
        index = {n: j for j, n in enumerate(d.feature_names)}
        for c in spec.constraints:
            self.logic.append((c.kind, [index[f] for f in c.features], [index[f] for f in c.targets], c.k))
        # A violation costs more than the worst objective (all rows wrong + every C0 + max L1).
        self.big = 10.0 * (float(self.w.sum()) + float(self.C0.sum()) + 1.0)
        self.best_seen = math.inf
        self.on_improve: Callable[[np.ndarray, int, float], None] | None = None

    def offer(self, lam: np.ndarray, obj: float, b: int) -> None:
        """Report a card the moment it beats every feasible card seen so far."""
        if obj < self.big and obj < self.best_seen - 1e-12:
            self.best_seen = obj
            if self.on_improve is not None:
                self.on_improve(lam.copy(), int(b), obj)

    # -- pieces of the objective ---------------------------------------------------------------
    def support_penalty(self, used: np.ndarray) -> float:
        v = 0.0
        if self.max_size is not None:
            v += max(0, int(used.sum()) - self.max_size)
        for kind, feats, targets, k in self.logic:
            if kind == "needs":
                if used[feats].any():
                    v += int((~used[targets]).sum())
            elif kind == "at_most":
                v += max(0, int(used[feats].sum()) - k)
            else:
                v += max(0, k - int(used[feats].sum()))
        return v * self.big

    def coef_cost(self, lam: np.ndarray) -> float:
        return float(self.C0[lam != 0].sum()) + self.eps * float(np.abs(lam[self.l1_mask]).sum())

    def best_intercepts(self, S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each row of scores S (k x n): the best intercept and its loss (+ cap penalty)."""
        k = S.shape[0]
        R = self.R
        offs = (np.arange(k) * (R + 1))[:, None]
        # positive row correct iff b >= ceil(gamma - s); negative iff b <= floor(-gamma - s)
        a = np.clip(np.ceil(self.gamma - S[:, self.pos] - 1e-9) - self.ilo, 0, R).astype(np.int64)
        c = np.clip(np.floor(-self.gamma - S[:, self.neg] + 1e-9) - self.ilo + 1, 0, R).astype(np.int64)

        def err_by_b(idx, weights, wrong_below):
            counts = np.bincount((idx + offs).ravel(), weights=np.broadcast_to(weights, idx.shape).ravel(), minlength=k * (R + 1))
            cum = np.cumsum(counts.reshape(k, R + 1), axis=1)[:, :R]
            return (weights.sum() - cum) if wrong_below else cum

        loss = err_by_b(a, self.w[self.pos], True) + err_by_b(c, self.w[self.neg], False)
        for cls, budget in self.caps:
            if cls == 1:
                cnt = err_by_b(a, self.data_weight[self.pos], True)
            else:
                cnt = err_by_b(c, self.data_weight[self.neg], False)
            excess = cnt - budget
            loss = loss + np.where(excess > 1e-9, self.big * (1.0 + excess), 0.0)
        best = np.argmin(loss, axis=1)
        return best + self.ilo, loss[np.arange(k), best]

    def evaluate(self, lam: np.ndarray) -> tuple[float, int]:
        s = self.X @ lam
        b, loss = self.best_intercepts(s[None, :])
        return float(loss[0]) + self.coef_cost(lam) + self.support_penalty(lam != 0), int(b[0])

    # -- moves ----------------------------------------------------------------------------------
    def best_value(self, lam: np.ndarray, s: np.ndarray, j: int) -> tuple[float, int, int]:
        vals = self.allowed[j]
        delta = (vals - lam[j]).astype(float)
        S = s[None, :] + delta[:, None] * self.X[:, j][None, :]
        b, loss = self.best_intercepts(S)
        used = lam != 0
        extra = np.empty(len(vals))
        for flag in (False, True):
            used[j] = flag
            extra[(vals != 0) == flag] = self.support_penalty(used) + float(self.C0[used].sum())
        used[j] = lam[j] != 0
        l1_rest = float(np.abs(lam[self.l1_mask]).sum()) - (abs(lam[j]) if self.l1_mask[j] else 0)
        l1 = l1_rest + (np.abs(vals) if self.l1_mask[j] else 0)
        total = loss + extra + self.eps * l1
        k = int(np.argmin(total))
        return float(total[k]), int(vals[k]), int(b[k])

    def descend(self, lam: np.ndarray, deadline: float) -> tuple[np.ndarray, float, int]:
        lam = lam.copy()
        obj, b = self.evaluate(lam)
        self.offer(lam, obj, b)
        movable = np.flatnonzero(self.movable)
        improved = True
        while improved and time.perf_counter() < deadline:
            improved = False
            s = self.X @ lam
            for j in movable:
                if time.perf_counter() > deadline:
                    break
                val, v, bj = self.best_value(lam, s, j)
                if val < obj - 1e-12 and v != lam[j]:
                    s = s + (v - lam[j]) * self.X[:, j]
                    lam[j] = v
                    obj, b, improved = val, bj, True
                    self.offer(lam, obj, b)
            if not improved:
                lam, obj, b, improved = self.swap(lam, obj, b, deadline)
                if improved:
                    self.offer(lam, obj, b)
        return lam, obj, b

    def swap(self, lam, obj, b, deadline):
        """Drop one used feature and re-optimize one unused one; first improvement wins."""
        used = [j for j in np.flatnonzero(lam != 0) if self.movable[j] and 0 in self.allowed[j]]
        unused = [j for j in np.flatnonzero(lam == 0) if self.movable[j]]
        for j in used:
            trial = lam.copy()
            trial[j] = 0
            s = self.X @ trial
            for k in unused:
                if time.perf_counter() > deadline:
                    return lam, obj, b, False
                val, v, bk = self.best_value(trial, s, k)
                if val < obj - 1e-12 and v != 0:
                    trial[k] = v
                    return trial, val, bk, True
        return lam, obj, b, False


def _starts(prob: _Problem, warm: np.ndarray | None):
    """Starting cards, cheapest first (a generator: later ones are built only if time allows)."""

    def snap(target: np.ndarray) -> np.ndarray:
        lam = np.zeros(prob.P, dtype=np.int64)
        for j, vals in enumerate(prob.allowed):
            lam[j] = vals[np.argmin(np.abs(vals - target[j]) + 1e-6 * np.abs(vals))]
        return lam

    seen: set[bytes] = set()

    def fresh(lam: np.ndarray) -> bool:
        key = lam.tobytes()
        if key in seen:
            return False
        seen.add(key)
        return True

    if warm is not None and fresh(first := snap(np.asarray(warm, dtype=float))):
        yield first
    if fresh(zero := snap(np.zeros(prob.P))):
        yield zero
    if prob.n < 2 or len(np.unique(prob.y)) < 2:
        return
    from sklearn.linear_model import LogisticRegression  # imported late: it costs ~1 s at startup

    for C in (0.1, 1.0):
        # rounded, scaled logistic regression (lbfgs: fast on tens of thousands of rows)
        lr = LogisticRegression(C=C, max_iter=100)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a rough start is all we need
                lr.fit(prob.X, prob.y, sample_weight=prob.w / prob.w.mean())
        except ValueError:
            return
        coef = lr.coef_.ravel()
        top = float(np.abs(coef).max())
        if top <= 0:
            continue
        for scale in (1, 2, 3, 5, 10):
            if fresh(lam := snap(coef / top * scale)):
                yield lam


def local_search(form: Formulation, *, time_budget: float = 0.3, warm: np.ndarray | None = None,
                 kicks: int = 20, seed: int = 0,
                 on_improve: Callable[[np.ndarray, int, float], None] | None = None) -> SearchResult:
    """Best card found within ``time_budget`` seconds (deterministic for a seed).

    ``on_improve(points, intercept, objective)`` is called with every feasible
    card that beats all earlier ones, the first of them within milliseconds.
    """
    t0 = time.perf_counter()
    deadline = t0 + time_budget
    prob = _Problem(form)
    prob.on_improve = on_improve
    best: tuple[float, np.ndarray, int] | None = None
    n_starts = 0
    for lam in _starts(prob, warm):
        if best is not None and time.perf_counter() > deadline:
            break
        lam, obj, b = prob.descend(lam, deadline)
        n_starts += 1
        if best is None or obj < best[0] - 1e-12:
            best = (obj, lam, b)
    rng = np.random.default_rng(seed)
    movable = np.flatnonzero(prob.movable)
    stale = 0
    while movable.size and stale < kicks and time.perf_counter() < deadline:
        lam = best[1].copy()
        for j in rng.choice(movable, size=min(2, movable.size), replace=False):
            lam[j] = rng.choice(prob.allowed[j])
        lam, obj, b = prob.descend(lam, deadline)
        n_starts += 1
        if obj < best[0] - 1e-12:
            best, stale = (obj, lam, b), 0
        else:
            stale += 1
    obj, lam, b = best
    feasible = obj < prob.big
    if feasible:
        lam, b = form.canonical(lam, b)
    exact = form.objective_of(lam, b) if feasible else math.inf
    return SearchResult(lam, int(b), exact, feasible, time.perf_counter() - t0, n_starts)
