"""A primal heuristic for the exact SLIM objective: local search over the integer box.

It gives a feasible card in milliseconds (shown at once, then improved by the
MIP), a warm start for the solver, and a card to return when a time limit hits
before the solver finds one.

Moves are exact per coordinate: for one feature every allowed value is scored
in one vectorised pass over the distinct rows, each with its best integer
intercept (a weighted sweep over the intercept range). Swap moves (drop one
used feature, add another) escape the local optima of single moves; kicks
(new points on 1-3 random features of one of the best local optima found,
then a new descent) use the time that is left. Starts:
the empty card, the caller's warm start, and rounded, scaled linear
classifiers (logistic regression, linear SVM). Constraints (boxes, signs,
values, locks, requires, size, variables in use, FPR/TPR caps, logical constraints, rules per
group, sign agreement within a group) hold inside the search: violations carry a penalty larger than
any objective, and only a card with none is returned. The objective is the
formulation's, term for term: PILM tier costs are a cost per value, TILM group
and rule penalties a cost per support.
"""

from __future__ import annotations

import math
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..core.by_variable import most_rules, support_constraints
from ..core.formulation import Formulation
from . import _kernels
from .base import exiting

__all__ = ["local_search", "SearchResult", "SearchProblem", "warm_up"]


def warm_up(progress: Callable[..., None] | None = None) -> None:
    """What a process pays once, before any clock starts: compiling (or loading) the search
    kernels, announced when it compiles, and importing scikit-learn's linear models (about
    1 s, 2-3 s on a loaded machine), whose fits seed the local search. ``progress(done, total,
    share=, kept=)`` is told after each kernel compiled (not loaded from numba's cache): see
    ``_kernels.ensure_compiled``."""
    _kernels.ensure_compiled(progress)
    import sklearn.linear_model  # noqa: F401
    import sklearn.svm  # noqa: F401


@dataclass(frozen=True)
class SearchResult:
    coefficients: np.ndarray  # int, per feature
    intercept: int
    objective: float  # paper units, exact
    feasible: bool
    elapsed: float
    starts: int
    all_starts: bool  # every start was descended from (False when time ran out first)


class SearchProblem:
    """A formulation's data, boxes and penalties as the compiled kernels read them: shared by
    the local search, the walk (:mod:`.exhaustive`), the support scan and the proof by size."""

    def __init__(self, form: Formulation):
        d, spec = form.data, form.spec
        self.form = form
        self.X = d.X
        self.y = d.y
        self.n, self.P = d.X.shape
        self.w = form.row_weight
        # a positive row is right iff its total >= gamma_pos, a negative one iff it is <= -gamma_neg
        self.gamma_pos, self.gamma_neg = form.positive_margin, form.margin
        self.C0 = form.C0
        self.eps = form.epsilon
        self.l1_mask = form.col_lambda >= 0
        self.ilo, self.ihi = form.intercept_box
        self.R = self.ihi - self.ilo + 1
        self.allowed = form.allowed
        self.movable = np.array([len(v) > 1 for v in self.allowed])
        self.droppable = self.movable & np.array(
            [0 in v for v in self.allowed], dtype=bool
        )  # may go to 0 points
        self.fixed_nonzero = np.array([len(v) == 1 and v[0] != 0 for v in self.allowed], dtype=bool)
        pos = self.y == 1
        self.pos, self.neg = pos, ~pos
        self.wp, self.wn = np.ascontiguousarray(self.w[pos]), np.ascontiguousarray(self.w[~pos])
        self.dp, self.dn = (
            np.ascontiguousarray(d.weight[pos], dtype=float),
            np.ascontiguousarray(d.weight[~pos], dtype=float),
        )
        self.Wp, self.Dp = float(self.wp.sum()), float(self.dp.sum())
        Xp, Xn = self.X[pos], self.X[~pos]
        # rows (within each class) where each feature is non-zero, and the values there
        self.nz_pos = [(np.flatnonzero(Xp[:, j]), Xp[Xp[:, j] != 0, j]) for j in range(self.P)]
        self.nz_neg = [(np.flatnonzero(Xn[:, j]), Xn[Xn[:, j] != 0, j]) for j in range(self.P)]
        # Per column: its range, and whether it holds only integers (the walk codes small-integer
        # columns by offset, and its work estimate counts their values by the range).
        self.col_low, self.col_high = (
            self.X.min(axis=0, initial=0.0),
            self.X.max(axis=0, initial=0.0),
        )
        self.col_integer = np.all(self.X == np.round(self.X), axis=0)
        # Per feature: its one non-zero value when it has only one and that is an integer (a binary
        # rule). Points are integers, so a move then raises every moved row's score by the same
        # integer and the compiled coordinate move shifts whole histograms, whatever the other
        # columns hold (heart's two real-valued columns once turned this off for every feature).
        self.single = np.zeros(self.P)
        for j in range(self.P):
            nz = np.concatenate([self.nz_pos[j][1], self.nz_neg[j][1]])
            if nz.size and np.all(nz == nz[0]) and float(nz[0]).is_integer():
                self.single[j] = nz[0]
        # caps count data weights of margin errors, as the MIP's cap rows do
        self.pos_budget = next((float(b) for cls, b in form.caps if cls == 1), -1.0)  # -1: no cap
        self.neg_budget = next((float(b) for cls, b in form.caps if cls == -1), -1.0)
        # group caps and gaps: the compiled loops know only the class caps, so under
        # these rows a card's loss is computed over every intercept by the formulation itself
        self.rate_rows = form.rate_rows
        # the user's linear rows on points and use, priced like any broken constraint
        self.lin_points, self.lin_used, self.lin_lo, self.lin_hi = _linear_arrays(form)
        self.max_size = spec.max_size
        self.most_rules = most_rules(
            spec, d.feature_names
        )  # under max_variables: the most rules in use
        self.names = d.feature_names
        self.logic = []
        index = {n: j for j, n in enumerate(d.feature_names)}
        for c in support_constraints(spec):  # with max_cuts_per_variable's caps
            self.logic.append(
                (c.kind, [index[f] for f in c.features], [index[f] for f in c.targets], c.k)
            )
        # sec. 7: per-value costs (tiers) and groups
        self.value_cost = form.value_cost
        self.has_tiers = bool(form.tier_steps)
        self.groups = form.groups
        self.group_id = np.full(self.P, -1, dtype=np.int64)
        for g, members in enumerate(self.groups):
            self.group_id[members] = g
        self.orient = form.orientation if form.orientation is not None else np.ones(self.P)
        self.max_rules = form.max_rules
        self.signs_agree = form.signs_agree and bool(self.groups)
        family_max = sum(float(c.max()) for c in self.value_cost if c.size) + (
            form.group_cost(np.ones(self.P, bool)) if self.groups else 0.0
        )
        # A violation costs more than the worst objective (all rows wrong + every penalty + max L1).
        self.big = 10.0 * (float(self.w.sum()) + float(self.C0.sum()) + family_max + 1.0)
        self.best_seen = math.inf
        self.deadline = math.inf
        # work the search may still do, in rows x moves: each check of ``expired`` comes
        # before one move (a coordinate's best value over every row) and charges the rows
        self.work_left = math.inf
        self.cancel: threading.Event | None = None
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
        if self.max_rules is not None:
            for members in self.groups:
                v += max(0, int(np.count_nonzero(used[members])) - self.max_rules)
        if self.form.max_variables is not None:  # distinct variables in use
            v += max(0, np.unique(self.form.variable_id[used]).size - self.form.max_variables)
        return v * self.big

    def support_cost(self, used: np.ndarray) -> float:
        """Costs that depend only on which features are used: C0_j, group and rule penalties."""
        cost = float(self.C0[used].sum())
        if self.groups:
            cost += self.form.group_cost(used)
        return cost

    def sign_violations(self, lam: np.ndarray) -> int:
        """Groups whose (oriented) points have both signs."""
        if not self.signs_agree:
            return 0
        bad = 0
        for members in self.groups:
            o = self.orient[members] * lam[members]
            bad += bool((o > 0).any() and (o < 0).any())
        return bad

    def coef_cost(self, lam: np.ndarray) -> float:
        cost = self.support_cost(lam != 0) + self.eps * float(np.abs(lam[self.l1_mask]).sum())
        if self.has_tiers:
            cost += self.form.tier_cost(lam)
        return cost

    # Loss as a function of the intercept. A positive row is right iff b >= ceil(gamma_pos - s),
    # a negative row iff b <= floor(-gamma_neg - s); so each row falls in one bin of the intercept
    # range, and weighted histograms of the bins give the loss of every b in one scan.
    def base(self, s: np.ndarray) -> dict:
        """Bins and histograms of the current scores, reused by every coordinate
        move until one is taken."""
        s_pos, s_neg = np.ascontiguousarray(s[self.pos]), np.ascontiguousarray(s[self.neg])
        a, c, hp, hn, cp, cn = _kernels.histograms(
            s_pos,
            s_neg,
            self.wp,
            self.wn,
            self.dp,
            self.dn,
            self.gamma_pos,
            self.gamma_neg,
            self.ilo,
            self.R,
        )
        return {
            "s": s,
            "s_pos": s_pos,
            "s_neg": s_neg,
            "a": a,
            "c": c,
            "hp": hp,
            "hn": hn,
            "cp": cp,
            "cn": cn,
        }

    def linear_violation(self, lam: np.ndarray) -> float:
        """1 + by how much the user's linear rows break in all, or 0 when every row holds (so
        that a card breaking a row by a fraction still costs more than ``big``)."""
        if self.lin_points is None:
            return 0.0
        v = self.lin_points @ lam + self.lin_used @ (lam != 0)
        broken = float(
            np.maximum(v - self.lin_hi, 0.0).sum() + np.maximum(self.lin_lo - v, 0.0).sum()
        )
        return broken + 1.0 if broken > 0 else 0.0

    def _linear_by_value(self, lam: np.ndarray, j: int, vals: np.ndarray) -> np.ndarray:
        """:meth:`linear_violation` for each value of coefficient j (others fixed)."""
        rest = lam.copy()
        rest[j] = 0
        base = self.lin_points @ rest + self.lin_used @ (rest != 0)
        v = (
            base[:, None]
            + self.lin_points[:, j : j + 1] * vals[None, :]
            + self.lin_used[:, j : j + 1] * (vals[None, :] != 0)
        )
        broken = (
            np.maximum(v - self.lin_hi[:, None], 0.0) + np.maximum(self.lin_lo[:, None] - v, 0.0)
        ).sum(axis=0)
        return np.where(broken > 0, broken + 1.0, 0.0)

    def evaluate(self, lam: np.ndarray) -> tuple[float, int]:
        if self.rate_rows:
            return self._evaluate_with_rows(lam)
        base = self.base(self.X @ lam)
        b, loss = _kernels.best_intercept(
            base["hp"],
            base["hn"],
            base["cp"],
            base["cn"],
            self.Wp,
            self.Dp,
            self.ilo,
            self.R,
            self.pos_budget,
            self.neg_budget,
            self.big,
        )
        return float(loss) + self.coef_cost(lam) + self.support_penalty(lam != 0) + self.big * (
            self.sign_violations(lam) + self.linear_violation(lam)
        ), int(b)

    def _evaluate_with_rows(self, lam: np.ndarray) -> tuple[float, int]:
        """``evaluate`` under group rows: the best intercept that keeps every cap and row, or,
        when none does, a penalty that falls with the smallest total excess (so a descent can
        walk towards cards that meet them)."""
        excess: list = []
        b, loss = self.form.intercept_losses(lam, excess)
        extra = (
            self.coef_cost(lam)
            + self.support_penalty(lam != 0)
            + self.big * (self.sign_violations(lam) + self.linear_violation(lam))
        )
        if np.isfinite(loss).any():
            k = int(np.argmin(loss))
            return float(loss[k]) + extra, int(b[k])
        excess = excess[0]
        k = int(np.argmin(excess))
        return self.big * (1.0 + float(excess[k])) + extra, int(b[k])

    def _best_value_with_rows(
        self, lam: np.ndarray, vals: np.ndarray, lower: np.ndarray, j: int
    ) -> tuple[float, int, int]:
        """The exact best value of coefficient j under group rows: the compiled move's totals
        (which ignore the rows, so are lower limits) rank the values; each is evaluated
        exactly in that order until the next limit cannot beat the best exact total."""
        best = (math.inf, int(lam[j]), 0)
        trial = lam.copy()
        for k in np.argsort(lower, kind="stable"):
            if lower[k] >= best[0] - 1e-12 and best[0] < self.big:
                break
            trial[j] = vals[k]
            value, b = self.evaluate(trial)
            if value < best[0] - 1e-12:
                best = (value, int(vals[k]), b)
        return best

    # -- moves ----------------------------------------------------------------------------------
    def best_value(self, lam: np.ndarray, base: dict, j: int) -> tuple[float, int, int]:
        """Best allowed value of coefficient j (others fixed), each with its best intercept.

        Only rows where feature j is non-zero change bins; the rest is reused from ``base``.
        """
        vals = self.allowed[j]
        rp, xp = self.nz_pos[j]
        rn, xn = self.nz_neg[j]
        b, loss = _kernels.coordinate_losses(
            (vals - lam[j]).astype(np.float64),
            rp,
            xp,
            rn,
            xn,
            base["s_pos"],
            base["s_neg"],
            base["a"],
            base["c"],
            self.wp,
            self.wn,
            self.dp,
            self.dn,
            base["hp"],
            base["hn"],
            base["cp"],
            base["cn"],
            self.Wp,
            self.Dp,
            self.gamma_pos,
            self.gamma_neg,
            self.ilo,
            self.R,
            self.pos_budget,
            self.neg_budget,
            self.big,
            self.single[j],
        )
        used = lam != 0
        used[j] = False
        without = self.support_penalty(used) + self.support_cost(used)
        used[j] = True
        extra = np.where(vals != 0, self.support_penalty(used) + self.support_cost(used), without)
        l1_rest = float(np.abs(lam[self.l1_mask]).sum()) - (abs(lam[j]) if self.l1_mask[j] else 0)
        l1 = l1_rest + (np.abs(vals) if self.l1_mask[j] else 0)
        total = loss + extra + self.eps * l1
        if self.has_tiers:
            own = self.value_cost[j][np.searchsorted(vals, lam[j])] if lam[j] in vals else 0.0
            total = total + (self.form.tier_cost(lam) - own) + self.value_cost[j]
        if self.signs_agree:
            total = total + self.big * self._sign_violations_by_value(lam, j, vals)
        if self.lin_points is not None:
            total = total + self.big * self._linear_by_value(lam, j, vals)
        if self.rate_rows:
            return self._best_value_with_rows(lam, vals, total, j)
        best = int(np.argmin(total))
        return float(total[best]), int(vals[best]), int(b[best])

    def _sign_violations_by_value(self, lam: np.ndarray, j: int, vals: np.ndarray) -> np.ndarray:
        """Sign violations of the whole card for each value of coefficient j (others fixed)."""
        without = lam.copy()
        without[j] = 0
        rest = self.sign_violations(without)
        g = self.group_id[j]
        if g < 0:
            return np.full(len(vals), float(rest))
        others = self.groups[g][self.groups[g] != j]
        o = self.orient[others] * lam[others]
        up, down = bool((o > 0).any()), bool((o < 0).any())
        mine = self.orient[j] * vals
        mixed = ((mine > 0) | up) & ((mine < 0) | down)
        return rest - float(up and down) + mixed.astype(float)

    def expired(self) -> bool:
        """Out of work (counted, so the same at any load) or time, or cancelled by the
        caller; each call charges one move's rows to the work left."""
        self.work_left -= self.n
        return (
            self.work_left < 0
            or time.perf_counter() > self.deadline
            or exiting.is_set()
            or (self.cancel is not None and self.cancel.is_set())
        )

    def descend(self, lam: np.ndarray) -> tuple[np.ndarray, float, int]:
        lam = lam.copy()
        obj, b = self.evaluate(lam)
        self.offer(lam, obj, b)
        movable = np.flatnonzero(self.movable)
        improved = True
        while improved and not self.expired():
            improved = False
            base = self.base(self.X @ lam)
            swept: dict[int, float] = {}  # best value per feature, while lam is unchanged
            for j in movable:
                if self.expired():
                    break
                val, v, bj = self.best_value(lam, base, j)
                swept[int(j)] = val
                if val < obj - 1e-12 and v != lam[j]:
                    base = self.base(base["s"] + (v - lam[j]) * self.X[:, j])
                    lam[j] = v
                    obj, b, improved = val, bj, True
                    self.offer(lam, obj, b)
            if not improved:
                lam, obj, b, improved = self.swap(lam, obj, b, swept)
                if improved:
                    self.offer(lam, obj, b)
        return lam, obj, b

    def swap(self, lam, obj, b, swept: dict[int, float] | None = None):
        """Drop one used feature and re-optimize one unused one; first improvement wins.

        A full scan costs |used| x |unused| coordinate moves (0.14 s on spambase at 34
        features), so pairs are ranked by the sum of their separate effects (the feature
        added alone with the size cap lifted, the other dropped alone) and only the
        ``SWAP_PAIRS`` per feature most promising are tried. Kicks cover what this misses.
        ``swept``: best values of single moves from this very card (the sweep that found no
        improvement); with no size cap they are the effects of adding, so not computed again.
        """
        used = np.flatnonzero((lam != 0) & self.droppable).tolist()
        unused = np.flatnonzero((lam == 0) & self.movable).tolist()
        if not used or not unused:
            return lam, obj, b, False
        base = self.base(self.X @ lam)
        cap, self.max_size = self.max_size, None
        try:
            added = []
            known = swept if swept is not None and cap is None else {}
            for k in unused:
                if self.expired():
                    return lam, obj, b, False
                added.append(known[k] if k in known else self.best_value(lam, base, k)[0])
            added = np.array(added)
        finally:
            self.max_size = cap
        trials, dropped = [], np.empty(len(used))
        for i, j in enumerate(used):
            trial = lam.copy()
            trial[j] = 0
            trials.append(trial)
            dropped[i] = self.evaluate(trial)[0]
        promise = (dropped[:, None] - obj) + (added[None, :] - obj)
        bases: dict[int, dict] = {}
        for flat in np.argsort(promise, axis=None, kind="stable")[
            : SWAP_PAIRS * (len(used) + len(unused))
        ]:
            if self.expired():
                break
            i, kk = divmod(int(flat), len(unused))
            if i not in bases:
                bases[i] = self.base(self.X @ trials[i])
            val, v, bk = self.best_value(trials[i], bases[i], unused[kk])
            if val < obj - 1e-12 and v != 0:
                trial = trials[i].copy()
                trial[unused[kk]] = v
                return trial, val, bk, True
        return lam, obj, b, False


SWAP_PAIRS = 2  # swap pairs tried per used-or-unused feature, most promising first


def _linear_arrays(form: Formulation):
    """The spec's linear rows as (points coefficients, use coefficients, lower, upper) over
    the features, or Nones without rows."""
    rows = form.linear_rows  # the user's and monotone's between bands
    if not rows:
        return None, None, None, None
    index = {n: j for j, n in enumerate(form.data.feature_names)}
    pts, use = np.zeros((len(rows), len(index))), np.zeros((len(rows), len(index)))
    for r, row in enumerate(rows):
        for kind, feature, coef in row.terms:
            (pts if kind == "points" else use)[r, index[feature]] += coef
    lo = np.array([-np.inf if row.lower is None else row.lower - 1e-9 for row in rows])
    hi = np.array([np.inf if row.upper is None else row.upper + 1e-9 for row in rows])
    return pts, use, lo, hi


def _starts(prob: SearchProblem, warm: np.ndarray | None, zero: bool = True, linear: bool = True):
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
    if zero and fresh(empty := snap(np.zeros(prob.P))):
        yield empty
    if linear:
        for lam in _linear_starts(prob, snap):
            if fresh(lam):
                yield lam


# Linear classifiers whose scaled, rounded coefficients start the search: liblinear fits of
# ~10-70 ms even on adult, so a stop request waits for at most one of them.
_LINEAR_FITS = (
    ("LogisticRegression", "l2", 0.1),
    ("LinearSVC", "l2", 1.0),
    ("LogisticRegression", "l1", 0.05),
)
_SCALES = 24  # scales tried per fit, from "largest coefficient = 1/2" to well past the box
_FIXED_SCALES = (1, 5, 2, 3, 10)  # first fit: these largest coefficients, sparse to dense


def _linear_starts(prob: SearchProblem, snap):
    """Rounded, scaled linear classifiers: good supports, found in milliseconds.

    The scale matters more than the fit. The first fit is tried with its largest
    coefficient at a few fixed values (supports from sparse to dense: when features
    are costly the best basins start sparse). Then each fit's coefficients are scaled
    so that the largest is 1/2 ... 4x the box, rounded into the allowed values
    (clipping the largest), cut to ``max_size`` by size, and scored exactly; the best
    scale is a start. Clipping is what lets small coefficients of wide-ranged columns
    survive; these starts win when features are cheap (max-accuracy C0).
    """
    if prob.n < 2 or len(np.unique(prob.y)) < 2:
        return
    from sklearn.linear_model import LogisticRegression  # imported late: it costs ~1 s at startup
    from sklearn.svm import LinearSVC

    movable = prob.movable
    top = max((float(np.abs(v).max()) for v, m in zip(prob.allowed, movable) if m), default=0.0)
    if top == 0:
        return
    sample_weight = prob.w / prob.w.mean()
    first = True
    for kind, penalty, C in _LINEAR_FITS:
        if prob.expired():
            return
        if kind == "LogisticRegression":
            model = LogisticRegression(penalty=penalty, C=C, solver="liblinear", max_iter=100)
        else:
            model = LinearSVC(penalty=penalty, C=C, dual=False, max_iter=200)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a rough fit is all a start needs
                model.fit(prob.X, prob.y, sample_weight=sample_weight)
        except ValueError:
            return
        coef = np.where(movable, model.coef_.ravel(), 0.0)
        largest = float(np.abs(coef).max())
        if largest <= 0:
            continue
        if first:
            first = False
            for scale in _FIXED_SCALES:
                yield _cut_to_size(prob, snap(coef / largest * scale), coef)
        best = None
        for scale in np.geomspace(0.5, 4 * top, _SCALES) / largest:
            if prob.expired():  # each try is a full evaluation: seconds on large data
                return
            lam = _cut_to_size(prob, snap(coef * scale), coef)
            obj, _ = prob.evaluate(lam)
            if best is None or obj < best[0]:
                best = (obj, lam)
        yield best[1]


def _cut_to_size(prob: SearchProblem, lam: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """Keep the ``max_size`` features with the largest fitted coefficients (where 0 is allowed)."""
    if prob.max_size is None or np.count_nonzero(lam) <= prob.max_size:
        return lam
    droppable = np.flatnonzero((lam != 0) & prob.droppable)
    kept = np.count_nonzero(lam) - droppable.size  # fixed or required features stay
    room = max(prob.max_size - kept, 0)
    order = droppable[np.argsort(-np.abs(coef[droppable]), kind="stable")]
    lam = lam.copy()
    lam[order[room:]] = 0
    return lam


#: distinct local optima kept; each kick starts from one of them, drawn at random
ELITE = 5
#: a kick gives 1 to KICKED random features random allowed points
KICKED = 3


def _kick(
    prob: SearchProblem, best: tuple[float, np.ndarray, int], kicks: int, rng: np.random.Generator
) -> tuple[tuple[float, np.ndarray, int], int]:
    """Iterated local search: perturb a card, descend again, keep what improves; stop after
    ``kicks`` descents in a row that do not beat the best card, or when time is up.

    Kicking from one of the ``ELITE`` best distinct local optima rather than always the best
    keeps the search from circling one basin: on heart at C0 = 0.005 many optima lie within
    1e-4 of each other, and from the best alone the search often stays on that plateau
    (benchmarks/heart_search.py). Returns the best card and the number of descents.
    """
    movable = np.flatnonzero(prob.movable)
    elite = [best]
    stale = done = 0
    while movable.size and stale < kicks and not prob.expired():
        lam = elite[int(rng.integers(len(elite)))][1].copy()
        size = min(int(rng.integers(1, KICKED + 1)), movable.size)
        for j in rng.choice(movable, size=size, replace=False):
            lam[j] = rng.choice(prob.allowed[j])
        lam, obj, b = prob.descend(lam)
        found = (obj, lam, b)
        done += 1
        if all(abs(e[0] - found[0]) > 1e-12 for e in elite):
            elite = sorted(elite + [found], key=lambda e: e[0])[:ELITE]
        if found[0] < best[0] - 1e-12:
            best, stale = found, 0
        else:
            stale += 1
    return best, done


def local_search(
    form: Formulation,
    *,
    time_budget: float = 0.3,
    warm: np.ndarray | None = None,
    kicks: int = 20,
    seed: int = 0,
    on_improve: Callable[[np.ndarray, int, float], None] | None = None,
    cancel: threading.Event | None = None,
    zero_start: bool = True,
    linear_starts: bool = True,
    max_work: float = math.inf,
) -> SearchResult:
    """Best card found within ``time_budget`` seconds and ``max_work`` rows x moves
    (deterministic for a seed; ending on work alone, the same at any machine load).

    ``zero_start=False`` and ``linear_starts=False`` skip the empty card and the
    starts from linear classifiers (for a search that resumes from an earlier
    search's card after it has tried them).

    ``on_improve(points, intercept, objective)`` is called with every feasible
    card that beats all earlier ones, the first of them within milliseconds.
    """
    t0 = time.perf_counter()
    prob = SearchProblem(form)
    prob.deadline, prob.cancel, prob.work_left = t0 + time_budget, cancel, max_work
    prob.on_improve = on_improve
    best: tuple[float, np.ndarray, int] | None = None
    n_starts = 0
    for lam in _starts(prob, warm, zero_start, linear_starts):
        if best is not None and prob.expired():
            break
        lam, obj, b = prob.descend(lam)
        n_starts += 1
        if best is None or obj < best[0] - 1e-12:
            best = (obj, lam, b)
    all_starts = not prob.expired()  # the starts stop early (and quietly) when time is up
    if best is not None:
        best, kicked = _kick(prob, best, kicks, np.random.default_rng(seed))
        n_starts += kicked
    obj, lam, b = best
    feasible = obj < prob.big
    if feasible:
        lam, b = form.canonical(lam, b)
    exact = form.objective_of(lam, b) if feasible else math.inf
    return SearchResult(
        lam, int(b), exact, feasible, time.perf_counter() - t0, n_starts, all_starts
    )
