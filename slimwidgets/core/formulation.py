"""The SLIM integer program of the paper (sec. 2.1 and 3), built as sparse arrays.

We build the constraint matrix with numpy in one pass (no per-row Python
expression objects): on mushroom this takes a few milliseconds, against
seconds for a naive PuLP build. The same arrays feed HiGHS directly
(:mod:`slimwidgets.solvers.backends.mip`) and, through :meth:`Formulation.to_pulp`, a PuLP
model for CBC or for users who want to inspect or extend the program.

Objective, in the paper's units (an unweighted error costs 1/N)::

    sum_i w_i z_i + sum_j C0_j alpha_j + eps * sum_j |lambda_j|
      + sum_j sum_r (C_r - C_{r-1}) t_{j,r}                  (PILM tiers, sec. 7.1)
      + sum_g (C_f nu_g + C_t tau_g)                          (TILM groups, sec. 7.2.2)

The sec. 7 parts are present only when the spec asks for them:

* tiers ``(b_1, C_1), ..., (b_R, C_R)``: alpha_j carries the first tier's cost
  (as C0_j) and, for r >= 2, a binary t_{j,r} with
  ``|lambda_j| <= b_{r-1} + (Lambda_j - b_{r-1}) t_{j,r}`` carries the step
  ``C_r - C_{r-1}``: it must be 1 exactly when |lambda_j| > b_{r-1}, so a
  value in tier r pays C_r in all.
* groups: nu_g >= alpha_j for each member (group in use), tau_g >= sum_j
  alpha_j - nu_g with tau_g >= 0 (members beyond the first),
  ``sum_j alpha_j <= R_max`` and, for sign agreement, a binary delta_g with
  ``o_j lambda_j <= U_j delta_g`` and ``o_j lambda_j >= L_j (1 - delta_g)``
  (o_j = -1 for reversed members, [L_j, U_j] the box of o_j lambda_j). The
  paper writes ``T_j nu_j = sum_t alpha_{j,t}``, ``tau_j = sum_t
  alpha_{j,t} - 1`` and ``tau_j <= R_max + 1``, which as printed would
  force every rule of a used feature on, make tau negative for an unused
  one and allow R_max + 2 rules; the rows above give the intended
  nu_j = 1[any rule used], tau_j = max(0, rules - 1) (their costs push
  both down to these values) and at most R_max rules.
* a "needs" target or an "at_least" member gets rows that make alpha_j = 1
  imply lambda_j != 0 (otherwise alpha_j = 1, lambda_j = 0 would satisfy
  the constraint with a card that breaks it).

HiGHS sees it multiplied by ``scale`` = 1 / (smallest loss increment) so that
its absolute gap tolerance sits well below eps.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np

from .big_m_bounds import RowReach, intercept_box
from .by_variable import linear_rows, support_constraints, variable_ids
from .data import Dataset
from .decision_family import DECISION
from .groups import RateRow, add_rate_rows, rate_rows
from .linear import add_linear_rows
from .objective import FeatureBoxes, ObjectiveCosts, feature_boxes, objective_costs
from .spec import Spec

__all__ = ["Formulation", "build_formulation"]


@dataclass(eq=False)
class Formulation:
    """A built SLIM integer program: ``min c.x  s.t.  row_lower <= A x <= row_upper``."""

    data: Dataset
    spec: Spec
    # columns
    cost: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    integer: np.ndarray
    names: list[str]
    # rows in CSR form
    start: np.ndarray
    index: np.ndarray
    value: np.ndarray
    row_lower: np.ndarray
    row_upper: np.ndarray
    # where things are
    col_intercept: int
    col_lambda: np.ndarray  # per feature, -1 if the coefficient is fixed
    col_alpha: np.ndarray  # per feature, -1 if alpha is fixed
    col_loss: np.ndarray  # per data row, -1 if its loss is fixed
    fixed_lambda: np.ndarray  # value of fixed coefficients (0 if free)
    # objective pieces, paper units
    row_weight: np.ndarray
    C0: np.ndarray  # per feature
    epsilon: float
    # a negative row is right iff its total <= -margin (and, under "error", a
    # positive one iff >= margin)
    margin: float
    # a positive row is right iff its total >= this: 0, or margin under zero_score="error"
    positive_margin: float
    constant: float  # loss of rows that are misclassified by every card in the box
    scale: float
    lexicographic: str | None  # "tpr" / "fpr" when a cap makes one class dominate
    extra: dict[str, Any] = field(default_factory=dict)
    caps: list[tuple[int, float]] = field(
        default_factory=list
    )  # (class, max weight of its margin errors)
    allowed: list[np.ndarray] = field(default_factory=list)  # allowed points per feature
    # sec. 7: extra cost of each allowed value over C0_j (PILM tiers), aligned with ``allowed``
    value_cost: list[np.ndarray] = field(default_factory=list)
    tier_steps: tuple[tuple[int, float], ...] = ()  # (|points| above which, extra cost)
    groups: list[np.ndarray] = field(default_factory=list)  # member feature indices per group
    group_penalty: float = 0.0
    rule_penalty: float = 0.0
    max_rules: int | None = None
    signs_agree: bool = False
    orientation: np.ndarray | None = None  # per feature: -1 for reversed group members, else 1
    # the program's optimal values lie this far apart (paper units) at least, when known (0: not
    # known): the solver may then stop as soon as its gap is below it
    objective_step: float = 0.0
    # group fairness (core/groups.py): per-group caps and gaps as rows over the error
    # indicators; the solvers whose loops know only the two class caps are not used when present
    rate_rows: list[RateRow] = field(default_factory=list)
    # max_variables (core/by_variable.py): per feature the number of its variable, and the cap
    variable_id: np.ndarray | None = None
    max_variables: int | None = None

    @cached_property
    def linear_rows(self) -> tuple:
        """The user's linear rows and those ``monotone`` needs between bands."""
        return linear_rows(self.spec)

    def linear_rows_hold(self, coefficients: np.ndarray) -> bool:
        """Whether the linear rows hold for these points."""
        points = dict(zip(self.data.feature_names, np.asarray(coefficients).tolist()))
        return all(row.holds(points) for row in self.linear_rows)

    @property
    def special_rows(self) -> bool:
        """Rows that only the local search and the MIP hold: group rows, linear rows (the user's,
        and monotone's between bands that share a cut)."""
        return bool(self.rate_rows) or bool(self.linear_rows)

    @property
    def row_margins(self) -> np.ndarray:
        """Per data row, the least ``y * total`` that counts as right: ``positive_margin``
        for positives, ``margin`` for negatives."""
        return np.where(self.data.y == 1, self.positive_margin, self.margin)

    def wrong_rows(self, coefficients: np.ndarray, intercept: int) -> np.ndarray:
        """Which data rows a card gets wrong, by the program's rule (one tolerance for all)."""
        totals = self.data.X @ np.asarray(coefficients, dtype=float) + intercept
        return self.data.y * totals < self.row_margins - 1e-9

    @property
    def n_cols(self) -> int:
        return len(self.cost)

    @property
    def n_rows(self) -> int:
        return len(self.row_lower)

    @property
    def nnz(self) -> int:
        return len(self.value)

    # -- points <-> columns -------------------------------------------------------------
    def full_solution(self, coefficients: np.ndarray, intercept: int) -> np.ndarray | None:
        """All column values for a card (for warm starts); None if it breaks a bound."""
        coefficients = np.asarray(coefficients, dtype=float)
        if np.any(coefficients != np.where(self.col_lambda >= 0, coefficients, self.fixed_lambda)):
            return None
        x = np.zeros(self.n_cols)
        # an intercept past every row's total predicts as the edge of the totals does: the loss
        # rows' big-M reach only that far (see core/big_m_bounds.py)
        totals = self.data.X @ coefficients
        if totals.size:
            intercept = min(
                max(intercept, math.floor(-totals.max() - self.margin)),
                math.ceil(-totals.min() + self.positive_margin),
            )
        x[self.col_intercept] = intercept
        free = self.col_lambda >= 0
        x[self.col_lambda[free]] = coefficients[free]
        has_alpha = self.col_alpha >= 0
        x[self.col_alpha[has_alpha]] = (coefficients[has_alpha] != 0).astype(float)
        for j, col in self.extra.get("beta", {}).items():
            x[col] = abs(coefficients[j])
        for j, col in self.extra.get("sign", {}).items():
            x[col] = float(coefficients[j] > 0)
        for j, cols in self.extra.get("value_cols", {}).items():
            for v, col in cols.items():
                x[col] = float(coefficients[j] == v)
        for j, cols in self.extra.get("tier_cols", {}).items():
            for above, col in cols:
                x[col] = float(abs(coefficients[j]) > above)
        used = coefficients != 0
        for g, cols in self.extra.get("group_cols", {}).items():
            members = self.groups[g]
            k = int(used[members].sum())
            if "nu" in cols:
                x[cols["nu"]] = float(k > 0)
            if "tau" in cols:
                x[cols["tau"]] = float(max(k - 1, 0))
            if "delta" in cols:
                x[cols["delta"]] = float(
                    not np.any(self.orientation[members] * coefficients[members] < 0)
                )
        for col, members in self.extra.get(
            "variable_cols", {}
        ).values():  # max_variables: u_v = variable in use
            x[col] = float(used[members].any())
        rows = self.col_loss >= 0
        x[self.col_loss[rows]] = self.wrong_rows(coefficients, intercept)[rows].astype(float)
        if np.any(x < self.lower - 1e-9) or np.any(x > self.upper + 1e-9):
            return None
        return x

    @property
    def intercept_box(self) -> tuple[int, int]:
        """The intercept's (low, high): the spec's, or the one derived from the data."""
        return int(self.lower[self.col_intercept]), int(self.upper[self.col_intercept])

    def intercept_losses(
        self, coefficients: np.ndarray, excess: list | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(intercepts, loss of each, inf where a cap breaks) over the whole intercept range.
        ``excess``: a list that receives, per intercept, by how much the caps and group rows
        break in all (each excess over its row's total weight), for searches under group rows."""
        lo, hi = self.intercept_box
        b = np.arange(lo, hi + 1, dtype=float)
        s = self.data.X @ np.asarray(coefficients, dtype=float)
        pos = self.data.y == 1
        # A row is wrong when y (s + b) < its margin: a positive row for b below m+ - s, a negative
        # one for b above -m - s. Sorted thresholds and cumulative weights give every b at once.
        above = self.positive_margin - 1e-9 - s[pos]  # positive rows are wrong for b < these
        below = -self.margin + 1e-9 - s[~pos]  # negative rows are wrong for b > these
        order_p, order_n = np.argsort(above), np.argsort(below)
        above, below = above[order_p], below[order_n]
        n_ok_p = np.searchsorted(above, b, side="right")  # positives with threshold <= b are right
        n_wrong_n = np.searchsorted(below, b, side="left")  # negatives with threshold < b are wrong

        def wrong_weight(w: np.ndarray) -> np.ndarray:
            cp = np.concatenate([[0.0], np.cumsum(w[pos][order_p])])
            cn = np.concatenate([[0.0], np.cumsum(w[~pos][order_n])])
            return (cp[-1] - cp[n_ok_p]) + cn[n_wrong_n]

        loss = wrong_weight(self.row_weight)
        over = np.zeros(len(b))
        for cls, budget in self.caps:
            d = np.where(self.data.y == cls, self.data.weight, 0.0)
            loss = np.where(wrong_weight(d) > budget + 1e-9, np.inf, loss)
            if excess is not None:
                over += np.maximum(wrong_weight(d) - budget, 0.0) / max(float(d.sum()), 1e-12)
        for row in self.rate_rows:  # group caps and gaps (signed weights sum the same way)
            loss = np.where(wrong_weight(row.coef) > row.upper + 1e-9, np.inf, loss)
            if excess is not None:
                over += np.maximum(wrong_weight(row.coef) - row.upper, 0.0) / max(
                    float(np.abs(row.coef).sum()), 1e-12
                )
        if excess is not None:
            excess.append(over)
        return b.astype(np.int64), loss

    def canonical(self, coefficients: np.ndarray, intercept: int) -> tuple[np.ndarray, int]:
        """The same card in its simplest form: divided by the gcd of its points when that
        changes nothing, and, among intercepts that are equally good, one that makes the
        points coprime, nearest the middle of the equally good range (the widest margin)."""
        coefs = np.asarray(coefficients).astype(np.int64)
        g = int(np.gcd.reduce(np.abs(coefs))) if coefs.size else 0
        if g > 1:
            cand = coefs // g
            if all(cand[j] in self.allowed[j] for j in range(len(cand))) and self.linear_rows_hold(
                cand
            ):
                b, loss = self.intercept_losses(cand)
                cand_b = int(b[np.argmin(loss)])
                if (
                    np.isfinite(loss).any()
                    and self.objective_of(cand, cand_b)
                    <= self.objective_of(coefs, intercept) + 1e-12
                ):
                    coefs, intercept, g = cand, cand_b, 1
        b, loss = self.intercept_losses(coefs)
        here = loss[b == intercept]
        if not here.size or not np.isfinite(here[0]):
            return coefs, int(intercept)
        ties = b[np.abs(loss - here[0]) <= 1e-12]
        if g != 1:  # g == 0: no points, so only an intercept of +-1 is coprime
            coprime = ties[np.gcd(ties, g) == 1]
            ties = coprime if coprime.size else ties
        middle = 0.5 * (ties.min() + ties.max())
        return coefs, int(ties[np.argmin(np.abs(ties - middle) + 1e-9 * np.abs(ties))])

    def objective_of(self, coefficients: np.ndarray, intercept: int) -> float:
        """The paper's objective of a card, computed exactly from its predictions."""
        coefficients = np.asarray(coefficients, dtype=float)
        loss = float(self.row_weight[self.wrong_rows(coefficients, intercept)].sum())
        used = coefficients != 0
        value = (
            loss
            + float(self.C0[used].sum())
            + self.epsilon * float(np.abs(coefficients[self.col_lambda >= 0]).sum())
        )
        if self.tier_steps:
            value += self.tier_cost(coefficients)
        if self.groups:
            value += self.group_cost(used)
        return value

    def tier_cost(self, coefficients: np.ndarray) -> float:
        """The tiers' extra cost (over C0_j) of the free coefficients' values."""
        size = np.abs(np.asarray(coefficients, dtype=float)[self.col_lambda >= 0])
        return float(sum(step * np.count_nonzero(size > above) for above, step in self.tier_steps))

    def group_cost(self, used: np.ndarray) -> float:
        """group_penalty per group in use + rule_penalty per member in use
        beyond a group's first."""
        total = 0.0
        for members in self.groups:
            k = int(np.count_nonzero(used[members]))
            if k:
                total += self.group_penalty + self.rule_penalty * (k - 1)
        return total

    # -- proofs by model size ------------------------------------------------------------
    def always_used(self) -> int:
        """How many movable features every card uses (their sign is forced, so no alpha column)."""
        return int(np.count_nonzero((self.col_lambda >= 0) & (self.col_alpha < 0)))

    def restricted(self, n_used: int, below: float) -> Formulation:
        """This program limited to cards that use exactly ``n_used`` movable features and
        whose objective (paper units) is below ``below``, for proofs by model size.

        The cutoff sits one HiGHS absolute gap below ``below`` (the tolerance that
        "optimal" has everywhere in this package), so "infeasible" means no such card
        beats ``below`` by more than that.
        """
        alpha = self.col_alpha[self.col_alpha >= 0].astype(np.int32)
        k = n_used - self.always_used()
        cut = (below - self.constant) * self.scale - min(1e-6, 0.1 * self.epsilon * self.scale)
        costly = np.flatnonzero(self.cost).astype(np.int32)
        offset = int(self.start[-1])
        start = np.concatenate(
            [self.start, [offset + alpha.size, offset + alpha.size + costly.size]]
        ).astype(np.int32)
        value, lower, upper = self._sized(n_used, below)
        return replace(
            self,
            lower=lower,
            upper=upper,
            start=start,
            index=np.concatenate([self.index, alpha, costly]).astype(np.int32),
            value=np.concatenate([value, np.ones(alpha.size), self.cost[costly]]),
            row_lower=np.concatenate([self.row_lower, [float(k), -math.inf]]),
            row_upper=np.concatenate([self.row_upper, [float(k), cut]]),
        )

    def _sized(self, n_used: int, below: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(values, column lower, column upper) for cards of ``n_used`` movable features that
        beat ``below``: each loss row's big-M and the derived intercept box narrowed to cards of
        that size, and the rows whose weight alone exceeds the loss such a card may have are
        right (their loss fixed at 0), which bounds every other row of their class
        (:mod:`~.big_m_bounds`)."""
        value, lower, upper = self.value, self.lower.copy(), self.upper.copy()
        big = self.extra.get("big_m")
        if big is None:
            return value, lower, upper
        reach, rows, need, at = big
        locked = int(np.count_nonzero((self.col_lambda < 0) & (self.fixed_lambda != 0)))
        most = n_used + locked  # every feature a card of this program uses
        value = value.copy()
        value[at] = np.minimum(value[at], reach.big_m(rows, need, most))
        if self.spec.intercept_range is None:
            low, high = intercept_box(
                self.spec, self.data.X, self.extra["lo"], self.extra["hi"], self.margin, most
            )
            i = self.col_intercept
            lower[i], upper[i] = max(lower[i], low), min(upper[i], high)
        # every penalty is >= 0: the loss of a card that beats `below` is under below - constant
        # - the cheapest C0 of its features (a row heavier than that cannot be wrong)
        alpha_costs = np.sort(self.cost[self.col_alpha[self.col_alpha >= 0]]) / self.scale
        k = max(n_used - self.always_used(), 0)
        budget = below - self.constant - float(alpha_costs[:k].sum())
        anchors = rows[self.row_weight[rows] > budget + 1e-12]
        if len(anchors):
            upper[self.col_loss[anchors]] = 0.0
            value[at] = np.minimum(value[at], reach.anchored_m(rows, anchors, most))
        return value, lower, upper

    # -- PuLP ---------------------------------------------------------------------------
    def to_pulp(self):
        """The same program as a ``pulp.LpProblem`` (objective in HiGHS's scaled units)."""
        import pulp

        prob = pulp.LpProblem("SLIM", pulp.LpMinimize)
        cols = [
            prob.add_variable(
                name,
                None if math.isinf(lo) else float(lo),
                None if math.isinf(hi) else float(hi),
                cat=pulp.LpInteger if is_int else pulp.LpContinuous,
            )
            for name, lo, hi, is_int in zip(self.names, self.lower, self.upper, self.integer)
        ]
        prob.setObjective(
            pulp.LpAffineExpression([(cols[k], c) for k, c in enumerate(self.cost) if c != 0])
        )
        for r in range(self.n_rows):
            a, b = self.start[r], self.start[r + 1]
            expr = pulp.LpAffineExpression(
                [(cols[k], v) for k, v in zip(self.index[a:b].tolist(), self.value[a:b].tolist())]
            )
            lo, hi = self.row_lower[r], self.row_upper[r]
            if lo == hi:
                prob.addConstraint(pulp.LpConstraint(expr, pulp.LpConstraintEQ, f"r{r}", hi))
            else:
                if not math.isinf(lo):
                    prob.addConstraint(pulp.LpConstraint(expr, pulp.LpConstraintGE, f"r{r}_lo", lo))
                if not math.isinf(hi):
                    prob.addConstraint(pulp.LpConstraint(expr, pulp.LpConstraintLE, f"r{r}_hi", hi))
        return prob, cols


class _Builder:
    """Accumulates columns and rows; rows are (indices, values, lower, upper) blocks."""

    def __init__(self) -> None:
        self.cost: list[float] = []
        self.lower: list[float] = []
        self.upper: list[float] = []
        self.integer: list[bool] = []
        self.names: list[str] = []
        self.row_blocks: list[
            tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
        ] = []

    def col(self, name: str, lo: float, hi: float, integer: bool, cost: float = 0.0) -> int:
        self.names.append(name)
        self.lower.append(lo)
        self.upper.append(hi)
        self.integer.append(integer)
        self.cost.append(cost)
        return len(self.names) - 1

    def row(self, cols: list[int], vals: list[float], lo: float, hi: float) -> None:
        self.rows(
            np.array([0, len(cols)]),
            np.asarray(cols, dtype=np.int32),
            np.asarray(vals, dtype=float),
            np.array([lo]),
            np.array([hi]),
        )

    def rows(self, start, index, value, lo, hi) -> None:
        self.row_blocks.append(
            (
                np.asarray(start),
                np.asarray(index, dtype=np.int32),
                np.asarray(value, dtype=float),
                np.asarray(lo, dtype=float),
                np.asarray(hi, dtype=float),
            )
        )

    def csr(self):
        starts, indices, values, los, his = [np.array([0])], [], [], [], []
        offset = 0
        for start, index, value, lo, hi in self.row_blocks:
            starts.append(start[1:] + offset)
            offset += int(start[-1])
            indices.append(index)
            values.append(value)
            los.append(lo)
            his.append(hi)
        cat = lambda parts, dt: np.concatenate(parts).astype(dt) if parts else np.zeros(0, dt)  # noqa: E731
        return (
            cat(starts, np.int32),
            cat(indices, np.int32),
            cat(values, float),
            cat(los, float),
            cat(his, float),
        )


@dataclass(eq=False)
class _Columns:
    """Where the builders put each variable (-1: none, the value is a constant)."""

    intercept: int
    col_lambda: np.ndarray
    col_alpha: np.ndarray
    betas: dict[int, int] = field(default_factory=dict)
    signs: dict[int, int] = field(default_factory=dict)
    value_cols: dict[int, dict[int, int]] = field(default_factory=dict)
    tier_cols: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    group_cols: dict[int, dict[str, int]] = field(default_factory=dict)
    variable_cols: dict[int, tuple[int, list[int]]] = field(
        default_factory=dict
    )  # u_v and its rules


def _coefficient_columns(
    b: _Builder, spec: Spec, box: FeatureBoxes, costs: ObjectiveCosts, intercept: tuple[int, int]
) -> _Columns:
    """The intercept, lambda_j, and per free feature alpha_j = 1[lambda_j != 0] (l0 rows),
    beta_j = |lambda_j| (l1 rows) and, for a required feature of either sign, its sign."""
    lo, hi, eps, scale = box.lo, box.hi, costs.epsilon, costs.scale
    cols = _Columns(
        b.col("intercept", intercept[0], intercept[1], True),
        np.full(len(lo), -1, dtype=np.int64),
        np.full(len(lo), -1, dtype=np.int64),
    )
    free = np.flatnonzero(box.free)
    for j in free:
        # |lambda_j| is linear when the sign is known: put eps on lambda itself.
        l1_cost = eps if lo[j] >= 0 else (-eps if hi[j] <= 0 else 0.0)
        cols.col_lambda[j] = b.col(f"lambda_{j}", float(lo[j]), float(hi[j]), True, l1_cost * scale)
    lam, alpha = cols.col_lambda, cols.col_alpha
    for j in free:
        if lo[j] > 0 or hi[j] < 0:
            continue  # always used: alpha_j = 1 is a constant
        alpha[j] = b.col(f"alpha_{j}", 0.0, 1.0, True, costs.C0[j] * scale)
        if hi[j] > 0:  # lambda_j <= hi * alpha_j
            b.row([lam[j], alpha[j]], [1.0, -float(hi[j])], -math.inf, 0.0)
        if lo[j] < 0:  # lambda_j >= lo * alpha_j
            b.row([lam[j], alpha[j]], [1.0, -float(lo[j])], 0.0, math.inf)
        if lo[j] < 0 < hi[j]:
            beta = cols.betas[j] = b.col(
                f"beta_{j}", 0.0, float(max(-lo[j], hi[j])), False, eps * scale
            )
            b.row([beta, lam[j]], [1.0, -1.0], 0.0, math.inf)
            b.row([beta, lam[j]], [1.0, 1.0], 0.0, math.inf)
        if box.required[j]:
            # lambda_j != 0 with a free sign: s_j = 1 -> lambda >= 1, s_j = 0 -> lambda <= -1.
            if j not in box.value_sets:
                sign = cols.signs[j] = b.col(f"sign_{j}", 0.0, 1.0, True)
                b.row([lam[j], sign], [1.0, -float(1 - lo[j])], float(lo[j]), math.inf)
                b.row([lam[j], sign], [1.0, -float(hi[j] + 1)], -math.inf, -1.0)
            b.lower[alpha[j]] = 1.0
    return cols


def _value_set_columns(b: _Builder, box: FeatureBoxes, cols: _Columns) -> None:
    """lambda_j = sum_v v u_{j,v} over binaries u_{j,v}, one per allowed non-zero value."""
    for j, allowed in box.value_sets.items():
        nonzero = [v for v in allowed if v != 0]
        cols.value_cols[j] = {v: b.col(f"value_{j}_{v}", 0.0, 1.0, True) for v in nonzero}
        us = list(cols.value_cols[j].values())
        b.row([cols.col_lambda[j]] + us, [1.0] + [-float(v) for v in nonzero], 0.0, 0.0)
        alpha = cols.col_alpha[j]
        if alpha >= 0:
            b.row(us + [alpha], [1.0] * len(us) + [-1.0], 0.0, 0.0)
            if 0 not in allowed:  # the feature must be used
                b.lower[alpha] = 1.0
        else:  # always used
            b.row(us, [1.0] * len(us), 1.0, 1.0)


def _rewarded_alpha_rows(
    b: _Builder, spec: Spec, names: tuple[str, ...], box: FeatureBoxes, cols: _Columns
) -> None:
    """alpha_j >= 1[lambda_j != 0] is all the costs need: they push alpha_j down. A constraint that
    rewards alpha_j = 1 (the target of "needs", a member of "at_least") could instead be met by
    alpha_j = 1 with lambda_j = 0, a card that breaks it; there alpha_j = 1 must force
    lambda_j != 0: lambda_j >= alpha_j, lambda_j <= -alpha_j, or, when both signs are open, a
    side binary s_j (1: lambda_j >= 1, 0: lambda_j <= -1) that binds only when alpha_j = 1."""
    lo, hi, lam, alpha = box.lo, box.hi, cols.col_lambda, cols.col_alpha
    rewarded: set[str] = set()
    for c in spec.constraints:
        if c.kind == "needs":
            rewarded.update(c.targets)
        elif c.kind == "at_least":
            rewarded.update(c.features)
    for name in sorted(rewarded):
        j = names.index(name)
        if alpha[j] < 0 or b.lower[alpha[j]] >= 1.0 or j in box.value_sets:
            # no alpha, alpha fixed at 1 with lambda_j != 0 enforced, or
            # alpha = sum of value binaries
            continue
        if lo[j] >= 0:
            b.row([lam[j], alpha[j]], [1.0, -1.0], 0.0, math.inf)
        elif hi[j] <= 0:
            b.row([lam[j], alpha[j]], [1.0, 1.0], -math.inf, 0.0)
        else:
            cols.signs[j] = side = b.col(f"sign_{j}", 0.0, 1.0, True)
            b.row(
                [lam[j], side, alpha[j]],
                [1.0, -float(1 - lo[j]), -float(1 - lo[j])],
                float(2 * lo[j] - 1),
                math.inf,
            )
            b.row(
                [lam[j], side, alpha[j]],
                [1.0, -float(hi[j] + 1), float(hi[j] + 1)],
                -math.inf,
                float(hi[j]),
            )


def _tier_columns(b: _Builder, box: FeatureBoxes, costs: ObjectiveCosts, cols: _Columns) -> None:
    """PILM tiers: t_{j,r} = 1 iff |lambda_j| > b_{r-1}, each carrying its step."""
    lo, hi, lam, scale = box.lo, box.hi, cols.col_lambda, costs.scale
    for j in np.flatnonzero(box.free):
        tiers = []
        for above, step in costs.tier_steps:
            up, down = float(hi[j]), float(-lo[j])  # largest lambda_j and largest -lambda_j
            if max(up, down) <= above:
                continue  # no allowed value reaches this tier
            if lo[j] > above or hi[j] < -above:  # always in it: a fixed column holds the constant
                tiers.append((above, b.col(f"tier_{j}_{above}", 1.0, 1.0, True, step * scale)))
                continue
            t = b.col(f"tier_{j}_{above}", 0.0, 1.0, True, step * scale)
            if up > above:  # lambda_j <= above + (up - above) t
                b.row([lam[j], t], [1.0, -(up - above)], -math.inf, float(above))
            if down > above:  # -lambda_j <= above + (down - above) t
                b.row([lam[j], t], [-1.0, -(down - above)], -math.inf, float(above))
            if tiers:  # tiers nest: t_{j,r} <= t_{j,r-1}
                b.row([t, tiers[-1][1]], [1.0, -1.0], -math.inf, 0.0)
            elif cols.col_alpha[j] >= 0:
                b.row([t, cols.col_alpha[j]], [1.0, -1.0], -math.inf, 0.0)
            tiers.append((above, t))
        if tiers:
            cols.tier_cols[j] = tiers


def _group_columns(
    b: _Builder, spec: Spec, box: FeatureBoxes, costs: ObjectiveCosts, cols: _Columns
) -> None:
    """TILM groups: nu_g (in use), tau_g (members beyond the first), R_max, delta_g (signs)."""
    always_used, scale = box.always_used, costs.scale
    for g, members in enumerate(costs.groups):
        alphas = [int(cols.col_alpha[j]) for j in members if cols.col_alpha[j] >= 0]
        on = int(sum(1 for j in members if always_used[j]))  # members used by every card
        if on + len(alphas) == 0:
            continue
        cols_g: dict[str, int] = {}
        if spec.group_penalty > 0 or (spec.rule_penalty > 0 and alphas and on == 0):
            if on:  # nu_g = 1 for every card: a fixed column keeps the constant in one place
                cols_g["nu"] = b.col(f"nu_{g}", 1.0, 1.0, True, spec.group_penalty * scale)
            else:
                cols_g["nu"] = b.col(f"nu_{g}", 0.0, 1.0, True, spec.group_penalty * scale)
                for a in alphas:  # alpha_j <= nu_g
                    b.row([a, cols_g["nu"]], [1.0, -1.0], -math.inf, 0.0)
                b.row(
                    alphas + [cols_g["nu"]], [1.0] * len(alphas) + [-1.0], 0.0, math.inf
                )  # nu_g <= sum alpha
        if spec.rule_penalty > 0 and on + len(alphas) >= 2:
            top = float(on + len(alphas) - 1)
            cols_g["tau"] = b.col(f"tau_{g}", 0.0, top, False, spec.rule_penalty * scale)
            # tau_g >= sum alpha + on - nu_g  (nu_g = 1 when on > 0, so: - 1)
            if on:
                b.row(
                    [cols_g["tau"]] + alphas, [1.0] + [-1.0] * len(alphas), float(on - 1), math.inf
                )
            else:
                b.row(
                    [cols_g["tau"]] + alphas + [cols_g["nu"]],
                    [1.0] + [-1.0] * len(alphas) + [1.0],
                    0.0,
                    math.inf,
                )
        if spec.max_rules_per_group is not None and len(alphas) + on > spec.max_rules_per_group:
            b.row(alphas, [1.0] * len(alphas), -math.inf, float(spec.max_rules_per_group - on))
        if spec.group_signs_agree and len(members) >= 2:
            delta = _group_sign_rows(b, g, members, box, costs, cols)
            if delta is not None:
                cols_g["delta"] = delta
        if cols_g:
            cols.group_cols[g] = cols_g


def _group_sign_rows(
    b: _Builder,
    g: int,
    members: np.ndarray,
    box: FeatureBoxes,
    costs: ObjectiveCosts,
    cols: _Columns,
) -> int | None:
    """delta_g = 1: every o_j lambda_j >= 0, else every one <= 0; None when the
    boxes cannot mix signs."""
    boxes = []  # the box of o_j lambda_j, per member
    for j in members:
        o = costs.orientation[j]
        a_lo, a_hi = sorted((o * box.lo[j], o * box.hi[j]))
        boxes.append((j, o, float(a_lo), float(a_hi)))
    if not (any(a_hi > 0 for _, _, _, a_hi in boxes) and any(a_lo < 0 for _, _, a_lo, _ in boxes)):
        return None
    delta = b.col(f"delta_{g}", 0.0, 1.0, True)
    for j, o, a_lo, a_hi in boxes:
        if box.free[j]:
            if a_hi > 0:  # o lambda_j <= a_hi * delta
                b.row([cols.col_lambda[j], delta], [o, -a_hi], -math.inf, 0.0)
            if a_lo < 0:  # o lambda_j >= a_lo * (1 - delta)
                b.row([cols.col_lambda[j], delta], [o, a_lo], a_lo, math.inf)
        elif box.fixed_value[j] != 0:  # a locked member decides the sign
            if o * box.fixed_value[j] > 0:
                b.lower[delta] = 1.0
            else:
                b.upper[delta] = 0.0
    return delta


def _loss_rows(
    b: _Builder,
    data: Dataset,
    spec: Spec,
    box: FeatureBoxes,
    costs: ObjectiveCosts,
    cols: _Columns,
    need: np.ndarray,
    reach: RowReach | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """y_i (lambda_0 + x_i . lambda) + M_i z_i >= m_i for the rows some card gets right and some
    wrong; (loss column per row (-1: none), rows every card gets wrong, rows with a loss column,
    where each row's M_i sits in the program's values).

    M_i is the most row i can be wrong with an intercept in the box, or, with ``reach`` (when
    the box reaches every row's total), with an intercept near the rows' totals
    (:mod:`~.big_m_bounds`), whichever is less.

    m_i (``need``) is the margin for negatives (on data whose scores are multiples of the margin,
    total <= -margin is exactly total < 0); for positives 0 (total >= 0: the default "score >=
    threshold"), or the margin under the paper's rule, where a zero total is an error for
    either class.
    """
    X, y, free, lo, hi = data.X, data.y, box.free, box.lo, box.hi
    const = X[:, box.fixed] @ box.fixed_value[box.fixed].astype(
        float
    )  # contribution of locked points
    lo_f, hi_f = lo[free].astype(float), hi[free].astype(float)
    yX = y[:, None] * X[:, free]
    # floats: int8 labels times a wide intercept box overflow
    yb = y[:, None] * np.array([b.lower[cols.intercept], b.upper[cols.intercept]], dtype=float)
    best = np.maximum(yX * lo_f, yX * hi_f).sum(axis=1) + yb.max(axis=1) + y * const
    worst = np.minimum(yX * lo_f, yX * hi_f).sum(axis=1) + yb.min(axis=1) + y * const
    always_wrong = best < need - 1e-9
    open_rows = np.flatnonzero(~always_wrong & ~(worst >= need - 1e-9))
    offset = sum(int(block[0][-1]) for block in b.row_blocks)  # values before this block
    m_at = np.zeros(0, dtype=np.int64)
    col_loss = np.full(data.n_rows, -1, dtype=np.int64)
    col_loss[open_rows] = len(b.names) + np.arange(len(open_rows))
    b.names.extend(f"loss_{i}" for i in open_rows)
    b.lower.extend([0.0] * len(open_rows))
    b.upper.extend([1.0] * len(open_rows))
    b.integer.extend([True] * len(open_rows))
    b.cost.extend((costs.row_weight[open_rows] * costs.scale).tolist())
    if len(open_rows):
        sub = yX[open_rows]
        nz_r, nz_c = np.nonzero(sub)
        counts = np.bincount(nz_r, minlength=len(open_rows)) + 2  # + intercept + z
        start = np.concatenate([[0], np.cumsum(counts)])
        index = np.empty(start[-1], dtype=np.int32)
        value = np.empty(start[-1])
        # position of each feature entry inside its row: after the intercept slot
        pos = (
            start[nz_r]
            + 1
            + (np.arange(len(nz_r)) - np.concatenate([[0], np.cumsum(counts - 2)])[nz_r])
        )
        index[start[:-1]] = cols.intercept
        value[start[:-1]] = y[open_rows]
        index[pos] = cols.col_lambda[np.flatnonzero(free)][nz_c]
        value[pos] = sub[nz_r, nz_c]
        index[start[1:] - 1] = col_loss[open_rows]
        big_m = need[open_rows] - worst[open_rows]  # M_i = m_i + max wrongness
        if reach is not None:
            big_m = np.minimum(
                big_m, reach.big_m(open_rows, need[open_rows], spec.max_size, exact=False)
            )
        value[start[1:] - 1] = big_m
        m_at = offset + start[1:] - 1
        b.rows(
            start,
            index,
            value,
            need[open_rows] - y[open_rows] * const[open_rows],
            np.full(len(open_rows), math.inf),
        )
    return col_loss, always_wrong, open_rows, m_at


def _cap_rows(
    b: _Builder,
    data: Dataset,
    spec: Spec,
    col_loss: np.ndarray,
    always_wrong: np.ndarray,
    open_rows: np.ndarray,
) -> list[tuple[int, float]]:
    """The FPR cap and TPR floor: the data weight of one class's errors stays within a budget."""
    y, caps = data.y, []

    def cap_row(cls: int, share: float) -> None:
        members = open_rows[y[open_rows] == cls]
        budget = share * float(data.weight[y == cls].sum())
        if np.all(data.weight == np.round(data.weight)):
            budget = math.floor(budget + 1e-9)
        caps.append((cls, budget))
        fixed_errors = float(data.weight[(y == cls) & always_wrong].sum())
        b.row(
            col_loss[members].tolist(),
            data.weight[members].tolist(),
            -math.inf,
            budget - fixed_errors,
        )

    if spec.max_fpr is not None:
        cap_row(-1, spec.max_fpr)
    if spec.min_tpr is not None:
        cap_row(1, 1.0 - spec.min_tpr)
    return caps


def _alpha_rows(
    b: _Builder, spec: Spec, names: tuple[str, ...], box: FeatureBoxes, cols: _Columns
) -> None:
    """Operational constraints on which features are used: the size cap,
    needs, at most, at least."""
    always_used = box.always_used

    def alpha_terms(feats) -> tuple[list[int], float]:
        terms, constant = [], 0.0
        for n in feats:
            j = names.index(n)
            if cols.col_alpha[j] >= 0:
                terms.append(int(cols.col_alpha[j]))
            elif always_used[j]:
                constant += 1.0
        return terms, constant

    if spec.max_size is not None:
        terms, constant = alpha_terms(names)
        b.row(terms, [1.0] * len(terms), -math.inf, spec.max_size - constant)
    if spec.max_variables is not None:
        _variable_rows(b, spec, names, cols, alpha_terms)
    for c in support_constraints(spec):  # with max_cuts_per_variable's "at most k" per variable
        if c.kind == "needs":
            for f in c.features:
                fcols, fconst = alpha_terms([f])
                for t in c.targets:
                    tcols, tconst = alpha_terms([t])
                    # alpha_f <= alpha_t
                    b.row(
                        fcols + tcols,
                        [1.0] * len(fcols) + [-1.0] * len(tcols),
                        -math.inf,
                        tconst - fconst,
                    )
        else:
            terms, constant = alpha_terms(c.features)
            if c.kind == "at_most":
                b.row(terms, [1.0] * len(terms), -math.inf, c.k - constant)
            else:
                b.row(terms, [1.0] * len(terms), c.k - constant, math.inf)


def _variable_rows(
    b: _Builder, spec: Spec, names: tuple[str, ...], cols: _Columns, alpha_terms
) -> None:
    """``max_variables``: a binary u_v per variable of two or more free rules, u_v >= alpha_j for
    each of them, and sum u_v + sum alpha_j (variables of one free rule) + (variables always in
    use) <= max_variables. u_v costs nothing: the cap alone pushes it down."""
    ids = variable_ids(spec, names)
    terms, constant = [], 0.0
    for v in np.unique(ids):
        alphas, fixed = alpha_terms([names[j] for j in np.flatnonzero(ids == v)])
        if fixed:
            constant += 1.0
        elif len(alphas) == 1:
            terms.append(alphas[0])
        elif alphas:
            u = b.col(f"variable_{v}", 0.0, 1.0, True)
            cols.variable_cols[int(v)] = (u, [int(j) for j in np.flatnonzero(ids == v)])
            for a in alphas:
                b.row([a, u], [1.0, -1.0], -math.inf, 0.0)
            terms.append(u)
    b.row(terms, [1.0] * len(terms), -math.inf, spec.max_variables - constant)


def _row_reach(
    data: Dataset, spec: Spec, box: FeatureBoxes, margin: float, ibox: tuple[int, int]
) -> RowReach | None:
    """The loss rows' tighter big-M (:mod:`~.big_m_bounds`), when the intercept box reaches every
    row's total (always, unless the user's intercept_range is narrower)."""
    derived = intercept_box(
        replace(spec, intercept_range=None), data.X, box.lo, box.hi, margin, spec.max_size
    )
    if ibox[0] > derived[0] or ibox[1] < derived[1]:
        return None
    return RowReach(data.X, data.y, box.lo, box.hi, margin)


def build_formulation(data: Dataset, spec: Spec) -> Formulation:
    """Build the SLIM IP for ``spec`` on ``data`` (names already checked), one constraint
    group at a time (columns and rows in this order)."""
    names = data.feature_names
    box = feature_boxes(data, spec)
    costs = objective_costs(data, spec, box)
    margin = spec.margin if spec.margin is not None else data.default_margin()
    positive_margin = margin if spec.zero_score == "error" else 0.0
    b = _Builder()
    ibox = intercept_box(spec, data.X, box.lo, box.hi, margin, spec.max_size)
    cols = _coefficient_columns(b, spec, box, costs, ibox)
    _value_set_columns(b, box, cols)
    _rewarded_alpha_rows(b, spec, names, box, cols)
    _tier_columns(b, box, costs, cols)
    _group_columns(b, spec, box, costs, cols)
    need = np.where(data.y == 1, positive_margin, margin)
    reach = _row_reach(data, spec, box, margin, ibox)
    col_loss, always_wrong, open_rows, m_at = _loss_rows(
        b, data, spec, box, costs, cols, need, reach
    )
    caps = _cap_rows(b, data, spec, col_loss, always_wrong, open_rows)
    rates = rate_rows(data, spec)  # group fairness
    if rates:
        add_rate_rows(
            b, rates, data, box, cols.intercept, cols.col_lambda, col_loss, always_wrong, need
        )
    linear = linear_rows(spec)  # the user's own rows, written in PuLP, and monotone's between bands
    if linear:
        add_linear_rows(
            b, linear, names, cols.col_lambda, cols.col_alpha, box.fixed_value, box.always_used
        )
    _alpha_rows(b, spec, names, box, cols)

    start, index, value, row_lower, row_upper = b.csr()
    # The constant C0 of features that are always used goes into the objective constant.
    C0_constant = float(costs.C0[box.free & ((box.lo > 0) | (box.hi < 0))].sum())
    return Formulation(
        data=data,
        spec=spec,
        cost=np.asarray(b.cost),
        lower=np.asarray(b.lower),
        upper=np.asarray(b.upper),
        integer=np.asarray(b.integer),
        names=b.names,
        start=start,
        index=index,
        value=value,
        row_lower=row_lower,
        row_upper=row_upper,
        col_intercept=cols.intercept,
        col_lambda=cols.col_lambda,
        col_alpha=cols.col_alpha,
        col_loss=col_loss,
        fixed_lambda=box.fixed_value.astype(float),
        row_weight=costs.row_weight,
        C0=costs.C0,
        epsilon=costs.epsilon,
        margin=margin,
        positive_margin=positive_margin,
        constant=float(costs.row_weight[always_wrong].sum()) + C0_constant,
        scale=costs.scale,
        lexicographic=costs.lexicographic,
        extra={
            "beta": cols.betas,
            "sign": cols.signs,
            "value_cols": cols.value_cols,
            "lo": box.lo,
            "hi": box.hi,
            "unit": costs.unit,
            "C0_default": costs.C0_default,
            "tier_cols": cols.tier_cols,
            "group_cols": cols.group_cols,
            "variable_cols": cols.variable_cols,
            # what restricted() needs to give each size its own big-M (core/big_m_bounds.py)
            "big_m": None if reach is None else (reach, open_rows, need[open_rows], m_at),
        },
        caps=caps,
        allowed=box.allowed,
        value_cost=costs.value_cost,
        tier_steps=costs.tier_steps,
        groups=costs.groups,
        group_penalty=spec.group_penalty,
        rule_penalty=spec.rule_penalty,
        max_rules=spec.max_rules_per_group,
        signs_agree=spec.group_signs_agree,
        orientation=costs.orientation,
        rate_rows=rates,
        variable_id=None if spec.max_variables is None else variable_ids(spec, names),
        max_variables=spec.max_variables,
    )


# a decision fit's MIP/LP, asked of the family by the driver
DECISION.loss.holds(problem=build_formulation)
