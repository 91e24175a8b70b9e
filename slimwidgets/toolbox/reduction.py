"""Data reduction for SLIM (paper sec. 4, Algorithm 1), with the LP relaxation as surrogate.

Algorithm 1 solves a surrogate problem once, then once more per training row
with that row forced to the other side of the decision boundary. If even the
best surrogate solution with the row flipped lies outside the surrogate's
ε-level set, then no classifier in the level set flips it, and so (if the
level set contains every optimum of the original problem) every optimal card
classifies the row the same way: it can leave the integer program.

Here, as in sec. 4.2, the surrogate is the LP relaxation of the SLIM integer
program itself (the engine's formulation with integrality dropped). Then
Z_LP(f̃*) <= Z(f*) <= Z(f̂) for any feasible card f̂, so the width
ε = Z(f̂) - Z_LP(f̃*) satisfies the level-set condition (ε_max of the paper
comes from the all-zero card, ε_min from an optimal one).

"Side" of a row: correct when y_i·score_i >= γ_i (the program's margin of the
row: γ for negatives; 0 for positives, or γ under the paper's rule), wrong
otherwise. When the data lie on a grid (integers, or few decimals) the IP's
scores do too, and "wrong" is y_i·score_i <= the largest grid value below γ_i;
otherwise we use the closed y_i·score_i <= γ_i, which only removes fewer rows.

Two details the paper leaves implicit, handled here:

* Removing a row changes N, and with it the weight 1/N of every error. The
  reduced problem must keep the trade-off: :attr:`ReductionResult.fit_options`
  scales C0 (and per-feature penalties) by N/N_M and pins the margin.
* Theorem 3's proof equates losses on the removed rows only *inside* the level
  set; a card outside it may do better on the reduced rows by misclassifying
  removed ones. :meth:`ReductionResult.fit` therefore keeps each removed row
  as a plain linear constraint on its fixed side (no loss variable), which
  makes the reduced optimum provably the full optimum. A plain ``fit`` on the
  reduced rows is also offered, and :meth:`ReductionResult.respects` tells
  whether its card keeps every removed row on its side (then it is optimal
  for the full data too).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from ..core.data import Dataset, prepare_data, prepare_features
from ..core.family import family_of_loss
from ..core.formulation import Formulation
from ..core.options import OPTIONS
from ..core.scoring import ScoringSystem
from ..core.spec import Spec, make_spec
from ..fitting import card_from_result, check_card
from ..solvers.base import SolveResult, relative_gap

__all__ = ["reduce_data", "ReductionResult", "lp_relaxation"]

# options whose budget or cost would change with the removed rows (a column of the options table)
_UNSUPPORTED = tuple(row.name for row in OPTIONS if not row.reducible)


# -- the LP relaxation -----------------------------------------------------------------------------
def _new_lp(form: Formulation):
    import highspy

    from ..solvers.backends.highs import new_highs

    h = new_highs(threads=1)
    status = h.passModel(
        form.n_cols,
        form.n_rows,
        form.nnz,
        2,
        1,
        0.0,
        form.cost,
        form.lower,
        form.upper,
        form.row_lower,
        form.row_upper,
        form.start,
        form.index,
        form.value,
        np.zeros(form.n_cols, dtype=np.int32),
    )
    if status == highspy.HighsStatus.kError:
        raise RuntimeError("HiGHS rejected the LP relaxation")
    return h


def _run_lp(h) -> tuple[str, float, np.ndarray | None]:
    import highspy

    h.run()
    S = highspy.HighsModelStatus
    st = h.getModelStatus()
    if st == S.kOptimal:
        return (
            "optimal",
            float(h.getInfo().objective_function_value),
            np.asarray(h.getSolution().col_value),
        )
    if st in (S.kInfeasible, S.kUnboundedOrInfeasible):
        return "infeasible", math.inf, None
    raise RuntimeError(f"HiGHS could not solve an LP relaxation: {h.modelStatusToString(st)}")


def _solve_mip(form: Formulation, *, time_limit: float | None, gap: float) -> SolveResult:
    """Solve ``form`` (with extra rows) by HiGHS and decode the raw solution.

    The engine's decoding simplifies a card against the data alone, which
    knows nothing of the side rows added here, so the raw solution is kept.
    """
    import highspy

    h = _new_lp(form)
    h.changeColsIntegrality(
        form.n_cols,
        np.arange(form.n_cols, dtype=np.int32),
        np.where(form.integer, 1, 0).astype(np.uint8),
    )
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    h.setOptionValue("mip_rel_gap", float(gap))
    h.setOptionValue("mip_abs_gap", float(min(1e-6, 0.1 * form.epsilon * form.scale)))
    t0 = time.perf_counter()
    h.run()
    elapsed = time.perf_counter() - t0
    S = highspy.HighsModelStatus
    st = h.getModelStatus()
    info = h.getInfo()
    if st in (S.kInfeasible, S.kUnboundedOrInfeasible):
        return SolveResult("infeasible", None, None, None, math.inf, math.inf, elapsed, "highs")
    if info.primal_solution_status != 2:
        return SolveResult.no_card("highs", elapsed)
    x = np.asarray(h.getSolution().col_value)
    free = form.col_lambda >= 0
    coefs = form.fixed_lambda.copy()
    coefs[free] = np.round(x[form.col_lambda[free]])
    intercept = int(round(x[form.col_intercept]))
    objective = form.objective_of(coefs, intercept)
    bound = (
        info.mip_dual_bound / form.scale + form.constant
        if math.isfinite(info.mip_dual_bound)
        else -math.inf
    )
    word = "optimal" if st == S.kOptimal else ("time_limit" if st == S.kTimeLimit else "feasible")
    if word == "optimal":
        bound = max(bound, objective - float(gap) * abs(objective)) if gap else objective
    bound = min(bound, objective)
    return SolveResult(
        word,
        coefs.astype(np.int64),
        intercept,
        objective,
        bound,
        relative_gap(objective, bound),
        elapsed,
        "highs",
    )


def lp_relaxation(form: Formulation) -> tuple[float, np.ndarray]:
    """Optimal value (paper units) and column values of the LP relaxation of ``form``."""
    h = _new_lp(form)
    status, obj, x = _run_lp(h)
    if status != "optimal":
        raise ValueError("the LP relaxation is infeasible, so no card satisfies these constraints")
    return obj / form.scale + form.constant, x


def _grid_step(data: Dataset) -> float | None:
    """g such that every IP score is a multiple of g (1 for integer data), or None."""
    if bool(np.all(data.integer_valued)):
        return 1.0
    for k in range(1, 7):
        scaled = data.X * 10**k
        if np.all(np.abs(scaled - np.round(scaled)) < 1e-9 * np.maximum(1.0, np.abs(scaled))):
            return 10.0**-k
    return None


# -- the result ------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class ReductionResult:
    """What :func:`reduce_data` returns.

    Attributes
    ----------
    X, y : the reduced data (the kept rows, original index).
    sample_weight : the kept rows' weights (None if none were given).
    removed : index labels of the removed rows (their class is fixed across the level set).
    kept : index labels of the kept rows.
    removed_side : for each removed row, ``"correct"`` or ``"wrong"``: how every
        card in the level set (so every optimal card) classifies it (rows of
        zero sample weight, which never matter, are removed as ``"zero weight"``).
    fraction_removed : share of the training weight removed (rows, when unweighted).
    fraction_distinct_removed : share of the distinct (x, y) rows removed.
    lp_objective : Z_LP(f̃*), the LP relaxation's optimum (paper units).
    level : Z_LP(f̃*) + width, the top of the level set.
    width : ε.
    reference_objective : objective of the card that set the width (None for a numeric width).
    spec : the problem's :class:`Spec`.
    n_lp : number of LPs solved.
    seconds : time taken.
    """

    X: pd.DataFrame
    y: pd.Series
    sample_weight: np.ndarray | None
    removed: pd.Index
    kept: pd.Index
    removed_side: pd.Series
    fraction_removed: float
    fraction_distinct_removed: float
    lp_objective: float
    level: float
    width: float
    reference_objective: float | None
    spec: Spec
    n_lp: int
    seconds: float
    _full: Dataset = field(repr=False, default=None)  # type: ignore[assignment]
    _fixed: dict = field(
        repr=False, default_factory=dict
    )  # distinct row -> +1 (correct) / -1 (wrong)
    _wrong_bound: np.ndarray = field(repr=False, default=None)  # type: ignore[assignment]  # per distinct row
    _needs: np.ndarray = field(repr=False, default=None)  # type: ignore[assignment]  # per distinct row: its gamma_i
    _margin: float = field(repr=False, default=1.0)

    def __repr__(self) -> str:
        return (
            f"ReductionResult(removed {len(self.removed)} of "
            f"{len(self.removed) + len(self.kept)} rows ({self.fraction_removed:.1%}), "
            f"width={self.width:.4g}, {self.n_lp} LPs in {self.seconds:.2f} s)"
        )

    @property
    def weight_ratio(self) -> float:
        """N / N_M: how much heavier one error is on the reduced data."""
        full = self._full.total_weight
        kept = full - sum(self._full.weight[i] for i in self._fixed)
        return full / kept if kept > 0 else math.inf

    @property
    def fit_options(self) -> dict:
        """Options for :func:`slimwidgets.fit` on ``(X, y)`` that keep the full problem's trade-off.

        C0 and per-feature penalties are multiplied by N/N_M (an error weighs
        1/N_M instead of 1/N) and the margin is pinned to the full data's.
        """
        d = self.spec.to_dict()
        r = self.weight_ratio
        if d["C0"] is not None:
            d["C0"] = d["C0"] * r
        d["penalties"] = {k: v * r for k, v in d["penalties"].items()}
        d["margin"] = self._margin
        return d

    def respects(self, card: ScoringSystem) -> bool:
        """True if ``card`` classifies every removed row on its fixed side.

        A card fit on the reduced data that respects the removed rows is
        optimal for the full data as well.

        Parameters
        ----------
        card : ScoringSystem
            A card of the same features.
        """
        by_name = dict(zip(card.feature_names, card.coefficients))
        coefs = np.array([by_name.get(n, 0) for n in self._full.feature_names], dtype=float)
        for i, side in self._fixed.items():
            t = self._full.y[i] * (self._full.X[i] @ coefs + card.intercept)
            if side == 1 and t < self._needs[i] - 1e-9:
                return False
            if side == -1 and t > self._wrong_bound[i] + 1e-9:
                return False
        return True

    def fit(self, **overrides: Any) -> ScoringSystem:
        """Solve SLIM on the reduced data; the card is optimal for the full data.

        Removed rows stay as linear constraints on their fixed side (no loss
        variable, so the hard part of the program shrinks). The returned card
        carries the full data's objective and training metrics. ``overrides``
        change solver options only (``time_limit``, ``gap``, ``threads``).

        Parameters
        ----------
        **overrides
            Solver options to change (``time_limit``, ``gap``, ``threads``).
        """
        bad = set(overrides) - {"time_limit", "gap", "threads"}
        if bad:
            raise TypeError(f"fit() accepts only time_limit, gap and threads, got {sorted(bad)}")
        t0 = time.perf_counter()
        full, spec = self._full, self.spec.replace(**overrides) if overrides else self.spec
        keep = np.array([i not in self._fixed for i in range(full.n_rows)])
        if not keep.any():
            keep[next(iter(self._fixed))] = True  # keep one row so that a data set exists
        names = list(full.feature_names)
        frame = pd.DataFrame(full.X[keep], columns=names)
        labels = np.where(full.y[keep] == 1, 1, 0)
        if len(np.unique(labels)) < 2:
            # one class left: add the most constrained removed row of the other class back
            other = next(i for i in self._fixed if (full.y[i] == 1) != (labels[0] == 1))
            keep[other] = True
            frame = pd.DataFrame(full.X[keep], columns=names)
            labels = np.where(full.y[keep] == 1, 1, 0)
        reduced = prepare_data(frame, labels, sample_weight=full.weight[keep], warn=False)
        opts = dict(self.fit_options)
        ratio = full.total_weight / reduced.total_weight
        if spec.C0 is not None:
            opts["C0"] = spec.C0 * ratio
        opts["penalties"] = {k: v * ratio for k, v in spec.penalties.items()}
        for k in ("time_limit", "gap", "threads"):
            opts[k] = getattr(spec, k)
        rspec = make_spec(**opts)
        form = family_of_loss(rspec.loss).loss.problem(reduced, rspec)
        form = self._with_side_rows(form, [i for i in self._fixed if not keep[i]])
        result = _solve_mip(form, time_limit=rspec.time_limit, gap=rspec.gap)
        if result.coefficients is None:
            raise RuntimeError(f"the reduced problem stopped ({result.status}) without a card")
        full_form = family_of_loss(spec.loss).loss.problem(full, spec)
        coefs, intercept = np.asarray(result.coefficients), int(result.intercept)
        objective = full_form.objective_of(coefs, intercept)
        if result.status == "optimal":
            bound = objective
        else:
            # On the removed rows' sides: Z_full = (Z_red - eps_red*L1)/ratio +
            # (fixed wrong loss) + eps*L1.
            wrong = [i for i in self._fixed if not keep[i] and self._fixed[i] == -1]
            fixed_loss = float(full_form.row_weight[wrong].sum()) if wrong else 0.0
            l1_max = float(np.maximum(np.abs(form.extra["lo"]), np.abs(form.extra["hi"])).sum())
            bound = min(objective, (result.bound - form.epsilon * l1_max) / ratio + fixed_loss)
        final = SolveResult(
            result.status,
            coefs,
            intercept,
            objective,
            bound,
            relative_gap(objective, bound),
            time.perf_counter() - t0,
            result.solver,
            result.nodes,
        )
        card = card_from_result(full, spec, full_form, final)
        problems = check_card(card, full, spec)
        if problems:
            raise RuntimeError(f"internal error: the reduced solve's card breaks {problems}")
        return card

    def _with_side_rows(self, form: Formulation, rows: list[int]) -> Formulation:
        """``form`` plus one linear row per removed distinct row, on its fixed side."""
        if not rows:
            return form
        fixed_part = _fixed_part(form, self._full)
        starts, index, value, lo, hi = [0], [], [], [], []
        for i in rows:
            cols, vals, const = _row_terms(form, self._full, i, fixed_part)
            index += cols.tolist()
            value += vals.tolist()
            starts.append(len(index))
            if self._fixed[i] == 1:
                lo.append(self._needs[i] - const)
                hi.append(math.inf)
            else:
                lo.append(-math.inf)
                hi.append(self._wrong_bound[i] - const)
        offset = form.nnz
        return replace(
            form,
            start=np.concatenate(
                [form.start, np.asarray(starts[1:], dtype=np.int64) + offset]
            ).astype(form.start.dtype),
            index=np.concatenate([form.index, np.asarray(index, dtype=form.index.dtype)]),
            value=np.concatenate([form.value, np.asarray(value, dtype=float)]),
            row_lower=np.concatenate([form.row_lower, lo]),
            row_upper=np.concatenate([form.row_upper, hi]),
        )


# -- Algorithm 1 -----------------------------------------------------------------------------------
def reduce_data(
    X: Any,
    y: Any,
    *,
    width: float | str | ScoringSystem = "heuristic",
    positive: Any = None,
    sample_weight: Any = None,
    **spec_options: Any,
) -> ReductionResult:
    """Algorithm 1 of the paper with the LP relaxation of SLIM's IP as surrogate.

    Parameters
    ----------
    X, y : training data, as for :func:`slimwidgets.fit`.
    width : the width ε of the surrogate level set. It must be at least
        Z(f*) - Z_LP(f̃*) for the result to be exact; the safe ways to choose it:

        * ``"heuristic"`` (default): ε from the engine's fast local search card;
        * ``"trivial"``: ε_max of the paper, from the all-zero card (intercept 0);
        * a :class:`ScoringSystem` that satisfies the options: ε from its objective;
        * a number: used as given (your responsibility).
    positive, sample_weight : as for :func:`slimwidgets.fit`.
    **spec_options : SLIM options (``C0``, ``max_size``, ``coef_range``,
        ``intercept_range``, signs, locks, ...). FPR/TPR caps and class
        weights are not supported (their budgets change with the data).

    Returns
    -------
    ReductionResult
        The reduced data, what was removed and on which side, the widths and
        objectives, and :meth:`ReductionResult.fit` to solve the reduced problem.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"a": [1, 1, 1, 0, 0, 0, 1, 0], "b": [1, 0, 1, 0, 1, 0, 0, 1]})
    >>> y = [1, 1, 1, 0, 0, 0, 0, 1]
    >>> from slimwidgets import fit
    >>> red = reduce_data(X, y, C0=0.01, coef_range=(-3, 3), intercept_range=(-3, 3))
    >>> full = fit(X, y, C0=0.01, coef_range=(-3, 3), intercept_range=(-3, 3))
    >>> red.fit().objective == full.objective
    True
    """
    t0 = time.perf_counter()
    for k in _UNSUPPORTED:
        if spec_options.get(k) is not None:
            raise ValueError(
                f"reduce_data does not support {k}: its budget would change with the removed rows"
            )
    spec = make_spec(**spec_options)
    data = prepare_data(X, y, positive=positive, sample_weight=sample_weight)
    spec.check_data(data.feature_names, data.n_samples)
    form = family_of_loss(spec.loss).loss.problem(data, spec)
    needs = form.row_margins  # gamma_i of each distinct row
    wrong_bound = _wrong_bound(data, needs)
    h = _new_lp(form)
    status, lp_scaled, x_lp = _run_lp(h)
    if status != "optimal":
        raise ValueError("the LP relaxation is infeasible, so no card satisfies these constraints")
    lp_obj = lp_scaled / form.scale + form.constant
    reference = _reference_objective(width, data, spec, form)
    eps = float(width) if reference is None else max(reference - lp_obj, 0.0)
    fixed, n_flips = _fix_rows(h, form, data, x_lp, wrong_bound, level=lp_obj + eps, width=eps)
    return ReductionResult(
        **_split_caller_rows(X, y, data, fixed, sample_weight),
        fraction_distinct_removed=len(fixed) / data.n_rows,
        lp_objective=lp_obj,
        level=lp_obj + eps,
        width=eps,
        reference_objective=reference,
        spec=spec,
        n_lp=1 + n_flips,
        seconds=time.perf_counter() - t0,
        _full=data,
        _fixed=fixed,
        _wrong_bound=wrong_bound,
        _needs=needs,
        _margin=form.margin,
    )


def _wrong_bound(data: Dataset, needs: np.ndarray) -> np.ndarray:
    """Per row, the largest y·score that counts as "wrong": the grid value below its margin γ_i,
    else γ_i itself.

    On a grid (integer data, or few decimals) every score of the IP is a
    multiple of the step; without one, the closed bound γ_i removes fewer rows,
    never wrongly.
    """
    step = _grid_step(data)
    if step is None:
        return needs.copy()
    return (np.ceil(needs / step - 1e-9) - 1) * step


def _reference_objective(width: Any, data: Dataset, spec: Spec, form: Formulation) -> float | None:
    """The objective of the card that sets the level set's width, or None for a numeric width."""
    if isinstance(width, ScoringSystem):
        problems = check_card(width, data, spec)
        if problems:
            raise ValueError(f"the card given as width breaks the constraints: {problems}")
        by_name = dict(zip(width.feature_names, width.coefficients))
        return form.objective_of(
            np.array([by_name.get(n, 0) for n in data.feature_names], float), width.intercept
        )
    if isinstance(width, str):
        if width == "trivial":
            zero = ScoringSystem(
                data.feature_names, (0,) * data.n_features, 0, zero_score=spec.zero_score
            )
            problems = check_card(zero, data, spec)
            if problems:
                raise ValueError(
                    f"the all-zero card is not feasible here ({problems}); use width='heuristic'"
                )
            return form.objective_of(np.zeros(data.n_features), 0)
        if width == "heuristic":
            from ..solvers.search import local_search

            found = local_search(form, time_budget=0.3)
            if not found.feasible:
                raise ValueError(
                    "the local search found no feasible card; give width= a card or a number"
                )
            return found.objective
        raise ValueError(
            f"width must be a number, 'heuristic', 'trivial' or a ScoringSystem, got {width!r}"
        )
    if (
        isinstance(width, bool)
        or not isinstance(width, (int, float))
        or not math.isfinite(width)
        or width < 0
    ):
        raise ValueError(f"width must be a finite number >= 0, got {width!r}")
    return None


def _fixed_part(form: Formulation, data: Dataset) -> np.ndarray:
    """Each distinct row's score from the features whose points the spec fixes."""
    free = form.col_lambda >= 0
    return data.X[:, ~free] @ form.fixed_lambda[~free] if (~free).any() else np.zeros(data.n_rows)


def _row_terms(
    form: Formulation, data: Dataset, i: int, fixed_part: np.ndarray
) -> tuple[np.ndarray, np.ndarray, float]:
    """y_i·score_i as a linear row: its columns, their coefficients and its constant."""
    free = form.col_lambda >= 0
    yi = float(data.y[i])
    nz = np.flatnonzero(data.X[i, free])
    cols = np.concatenate([[form.col_intercept], form.col_lambda[free][nz]]).astype(np.int32)
    vals = np.concatenate([[yi], yi * data.X[i, free][nz]])
    return cols, vals, yi * float(fixed_part[i])


def _fix_rows(
    h,
    form: Formulation,
    data: Dataset,
    x_lp: np.ndarray,
    wrong_bound: np.ndarray,
    *,
    level: float,
    width: float,
) -> tuple[dict[int, int], int]:
    """Algorithm 1's loop: the distinct rows that every card in the level set puts on one side.

    Returns ``{row: +1 (correct) or -1 (wrong)}`` and the number of LPs solved.
    A side is tried only when the LP optimum does not plainly lie on it already.
    """
    needs = form.row_margins
    level_scaled = (level - form.constant) * form.scale
    tol = 1e-6 * max(1.0, abs(level_scaled))
    free = form.col_lambda >= 0
    coefs = form.fixed_lambda.copy()
    coefs[free] = x_lp[form.col_lambda[free]]
    t_lp = data.y * (data.X @ coefs + x_lp[form.col_intercept])  # signed margins of the LP optimum
    fixed_part = _fixed_part(form, data)
    fixed: dict[int, int] = {}
    n_lp = 0
    for i in range(data.n_rows):
        z = int(form.col_loss[i])
        if z < 0:  # the coefficient box alone fixes this row's side: no LP needed
            fixed[i] = 1 if t_lp[i] >= needs[i] - 1e-7 else -1
            continue
        sides = []
        if t_lp[i] < needs[i] - 1e-7 or x_lp[z] > 1e-7:
            sides.append(1)  # the LP optimum is not plainly correct: try forcing correct
        if t_lp[i] > wrong_bound[i] + 1e-7 or x_lp[z] < 1 - 1e-7:
            sides.append(-1)  # not plainly wrong: try forcing wrong
        outside = []
        for side in sides:
            n_lp += 1
            if _forced_lp(h, form, data, i, side, wrong_bound, fixed_part) > level_scaled + tol:
                outside.append(side)
        if len(outside) == 2:
            raise ValueError(
                f"width {width:.6g} is too small: no card lies in the level set (row {i} fits "
                "neither side); it must be at least Z(optimal card) - Z_LP"
            )
        if len(outside) == 1:
            fixed[i] = -outside[0]
    return fixed, n_lp


def _forced_lp(
    h,
    form: Formulation,
    data: Dataset,
    i: int,
    side: int,
    wrong_bound: np.ndarray,
    fixed_part: np.ndarray,
) -> float:
    """The LP's optimum (scaled units; inf if infeasible) with row ``i`` forced to ``side``.

    Every card with row i on this side has an IP point with z_i = 0 (correct:
    then the big-M row gives y_i score_i >= γ_i) or z_i = 1 and y_i score_i <=
    the largest score below γ_i (wrong); the LP over that set bounds them all.
    ``h`` is left as it was found.
    """
    z = int(form.col_loss[i])
    if side == 1:
        h.changeColBounds(z, 0.0, 0.0)
        _, objective, _ = _run_lp(h)
    else:
        cols, vals, const = _row_terms(form, data, i, fixed_part)
        n_rows = h.getNumRow()
        h.changeColBounds(z, 1.0, 1.0)
        h.addRow(-math.inf, wrong_bound[i] - const, len(cols), cols, vals)
        _, objective, _ = _run_lp(h)
        h.deleteRows(1, np.array([n_rows], dtype=np.int32))
    h.changeColBounds(z, float(form.lower[z]), float(form.upper[z]))
    return objective


def _split_caller_rows(
    X: Any, y: Any, data: Dataset, fixed: dict[int, int], sample_weight: Any
) -> dict:
    """The caller's rows split into kept and removed, from the fixed distinct rows."""
    matrix, names = prepare_features(X)
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(matrix, columns=list(names))
    values = y.to_numpy() if isinstance(y, (pd.Series, pd.Index)) else np.asarray(y)
    labels = pd.Series(values.ravel(), index=frame.index, name=getattr(y, "name", None))
    sign = np.where(labels.to_numpy() == data.positive, 1, -1)
    lookup = {
        tuple(row) + (int(s),): k
        for k, (row, s) in enumerate(zip(data.X.tolist(), data.y.tolist()))
    }
    distinct = np.array(
        [lookup.get(tuple(r) + (int(s),), -1) for r, s in zip(matrix.tolist(), sign.tolist())]
    )
    removed_mask = np.array([d in fixed or d < 0 for d in distinct])  # d < 0: a row of zero weight
    w = (
        np.ones(len(distinct))
        if sample_weight is None
        else np.asarray(sample_weight, dtype=float).ravel()
    )
    side_words = pd.Series(
        [
            "zero weight" if d < 0 else ("correct" if fixed[d] == 1 else "wrong")
            for d in distinct[removed_mask]
        ],
        index=frame.index[removed_mask],
        name="side",
    )
    return dict(
        X=frame.loc[~removed_mask],
        y=labels.loc[~removed_mask],
        sample_weight=None if sample_weight is None else w[~removed_mask],
        removed=frame.index[removed_mask],
        kept=frame.index[~removed_mask],
        removed_side=side_words,
        fraction_removed=float(w[removed_mask].sum() / w.sum()),
    )
