"""A solver's result made into a card: its figures, its limits in the
user's units, its risk rows."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ..core.data import Dataset
from ..core.formulation import Formulation
from ..core.risk import risk_table
from ..core.scoring import ScoringSystem
from ..core.spec import Spec
from ..core.status import limit_scale
from ..core.variables import levels_at_zero
from ..solvers.base import Incumbent, SolveResult, relative_gap
from ..solvers.lexicographic import class_limits
from ..solvers.scan import reads_points
from .checks import box_limits

__all__ = [
    "card_from_result",
    "card_from_incumbent",
    "risk_rows",
    "SCAN_UNDER_POINT_ROWS",
    "SCAN_UNDER_CAPS_ON_VALUES",
    "scan_declined",
    "not_binary_columns",
    "smallest_form",
]

#: why "auto" proves a card with a linear row on points without the support scan ({row}: the
#: first such row in words, quoted)
SCAN_UNDER_POINT_ROWS = (
    "no support scan: the linear row {row} reads the points, which the scan's best card per "
    "support does not check; the MIP proves the card with it"
)
#: why "auto" solves a card under max_fpr / min_tpr or group caps and gaps on columns that are
#: not 0/1 without the support scan ({column}: the first such column, quoted)
SCAN_UNDER_CAPS_ON_VALUES = (
    "no support scan: under max_fpr / min_tpr and group caps the scan settles each support per "
    "labelling of its cells, which needs 0/1 columns, and {column} is not 0/1; the card is "
    "solved without it"
)


def not_binary_columns(form: Formulation) -> list[str]:
    """The columns of ``form``'s rows that hold a value other than 0 and 1 (none: rules and
    one-hot levels only, where the support scan's cells are few)."""
    X = form.data.X
    held = np.all((X == 0) | (X == 1), axis=0)
    return [name for name, ok in zip(form.data.feature_names, held) if not ok]


def scan_declined(form: Formulation) -> str | None:
    """Why ``solver="auto"`` does not try the support scan on ``form`` whatever its incumbent
    (said in the card's ``details["support_scan"]`` and its status details), or None.

    Parameters
    ----------
    form : Formulation
        The program of the fit.

    Returns
    -------
    str or None
        :data:`SCAN_UNDER_POINT_ROWS` naming the first linear row on points,
        :data:`SCAN_UNDER_CAPS_ON_VALUES` naming the first column that is not 0/1, or None.

    Examples
    --------
    >>> import pandas as pd
    >>> from slimwidgets.core.data import prepare_data
    >>> from slimwidgets.core.formulation import build_formulation
    >>> from slimwidgets.core.spec import make_spec
    >>> X = pd.DataFrame({"a": [1, 0, 1, 0, 1, 0], "age": [30, 50, 70, 40, 60, 20]})
    >>> data = prepare_data(X, [1, 0, 1, 0, 1, 0])
    >>> capped = build_formulation(data, make_spec(max_fpr=0.2))
    >>> print(scan_declined(capped))  # doctest: +NORMALIZE_WHITESPACE
    no support scan: under max_fpr / min_tpr and group caps the scan settles each support per
    labelling of its cells, which needs 0/1 columns, and 'age' is not 0/1; the card is solved
    without it
    >>> scan_declined(build_formulation(data, make_spec())) is None
    True
    """
    on_points = [row for row in form.linear_rows if reads_points(row)]
    if on_points:
        return SCAN_UNDER_POINT_ROWS.format(row=repr(on_points[0].describe()))
    if form.caps or form.rate_rows:
        values = not_binary_columns(form)
        if values:
            return SCAN_UNDER_CAPS_ON_VALUES.format(column=repr(values[0]))
    return None


def card_from_result(
    data: Dataset,
    spec: Spec,
    form: Formulation,
    result: SolveResult,
    family: str = "slim",
    probe: str | None = None,
) -> ScoringSystem:
    card = ScoringSystem(
        data.feature_names,
        tuple(int(c) for c in result.coefficients),
        int(result.intercept),
        positive=data.positive,
        negative=data.negative,
        status=result.status,
        objective=result.objective,
        bound=result.bound,
        gap=result.gap,
        solve_time=result.solve_time,
        solver=result.solver,
        spec=spec,
        binary=tuple(data.binary),
        positive_name=data.positive_name,
        family=family,
        zero_score=spec.zero_score,
        details={
            "margin": form.margin,
            "epsilon": form.epsilon,
            "C0": form.C0.tolist(),
            "nodes": result.nodes,
            "n_rows": data.n_rows,
            "n_samples": data.n_samples,
            "lexicographic": form.lexicographic,
            "limits": limits_in_user_units(form),
            "intercept_range": form.intercept_box,
            # M-of-N tables and PILM set their boxes themselves: only a user's box can limit
            "box_limits": tuple(
                box_limits(form, result.coefficients, int(result.intercept))
                if family in ("slim", "tilm")
                else ()
            )
            + ((probe,) if probe else ()),
            **class_limits(form, result.bound, result.coefficients, result.intercept),
            # why the fit stopped early when its solver process was lost (see describe)
            **({"solver_stopped": result.message} if result.status == "solver_stopped" else {}),
            # the part of the bound that ends on counted work, not seconds (see SolveResult)
            **(
                {"bound_by_work": min(result.work_bound, result.objective)}
                if math.isfinite(result.work_bound)
                else {}
            ),
            **_scan_note(form, spec),
        },
    )
    labels = np.where(data.y == 1, data.positive, data.negative)
    metrics = card.metrics(data.X, labels, sample_weight=data.weight)
    object.__setattr__(card, "train_metrics", metrics)
    object.__setattr__(card, "risk", risk_rows(card, data, labels))
    return card


def _scan_note(form: Formulation, spec: Spec) -> dict:
    """``{"support_scan": why}`` when ``solver="auto"`` did not try the support scan for a reason
    of the problem's own (:func:`scan_declined`), else nothing."""
    why = scan_declined(form) if spec.solver == "auto" else None
    return {} if why is None else {"support_scan": why}


def card_from_incumbent(
    data: Dataset,
    spec: Spec,
    inc: Incumbent,
    *,
    bound: float | None = None,
    solve_time: float | None = None,
    limits: dict | None = None,
) -> ScoringSystem:
    """A card found while a solve runs (status "feasible"), measured on the training rows.

    What is proven so far reads in the user's units from the limits the incumbent carries
    (``fit`` puts them on every incumbent it reports); ``bound`` (default: the incumbent's)
    is capped at its objective; ``solve_time`` defaults to the incumbent's elapsed time;
    ``limits`` stand in for an incumbent made by hand, which carries none. An incumbent with
    a multiplier is a risk card.

    Examples
    --------
    >>> import numpy as np
    >>> from slimwidgets.core.data import prepare_data
    >>> data = prepare_data(np.array([[1, 0], [0, 1], [1, 1], [0, 0]]), np.array([1, 0, 1, 0]))
    >>> inc = Incumbent(np.array([1, 0]), -1, 0.01, -np.inf, 0.1)
    >>> card = card_from_incumbent(data, Spec(), inc)
    >>> card.status, card.bound, card.train_metrics.error
    ('feasible', None, 0.0)
    """
    bound = inc.bound if bound is None else bound
    bound = min(bound, inc.objective) if math.isfinite(bound) else None
    risk = inc.multiplier is not None
    card = ScoringSystem(
        data.feature_names,
        tuple(int(c) for c in inc.coefficients),
        int(inc.intercept),
        positive=data.positive,
        negative=data.negative,
        status="feasible",
        objective=inc.objective,
        bound=bound,
        gap=None if bound is None else relative_gap(inc.objective, bound),
        solve_time=inc.elapsed if solve_time is None else solve_time,
        solver=spec.solver,
        spec=spec,
        binary=tuple(data.binary),
        positive_name=data.positive_name,
        details={"limits": None if risk else inc.limits or limits},
        zero_score=spec.zero_score,
        family="risk" if risk else "slim",
        multiplier=inc.multiplier,
    )
    labels = np.where(data.y == 1, data.positive, data.negative)
    object.__setattr__(
        card, "train_metrics", card.metrics(data.X, labels, sample_weight=data.weight)
    )
    return card


def limits_in_user_units(form: Formulation) -> dict | None:
    """How the card's bound reads in the user's units (see :func:`~.status.describe`)."""
    scale = limit_scale(form)
    return None if scale is None else scale.to_dict()


RISK_MAX_SCORES = 30  # a risk table is printed when the card has at most this many distinct totals


def risk_rows(card: ScoringSystem, data: Dataset, labels: np.ndarray) -> tuple | None:
    """Observed event rate per total score on the training rows (None for too many scores)."""
    if len(np.unique(data.X @ np.asarray(card.coefficients, dtype=float))) > RISK_MAX_SCORES:
        return None
    table = risk_table(card, data.X, labels, sample_weight=data.weight)
    return tuple(
        (
            float(score),
            float(r["count"]),
            float(r["events"]),
            float(r["rate"]),
            float(r["lower"]),
            float(r["upper"]),
        )
        for score, r in table.iterrows()
    )


def smallest_form(form: Formulation, result: SolveResult) -> SolveResult:
    """``result`` in its smallest equivalent form: each text variable whose every value scores
    points (:func:`~slimwidgets.core.variables.levels_at_zero`) gets one level at 0 and the
    intercept moves with it, the same prediction on every row.

    The move is kept only where it is exact and allowed: one of the variable's rules holds on
    every training row, the points stay within the program's values and rows (locks, signs,
    ranges, requirements, the user's linear rows), and the objective is no worse. Else the
    result comes back as it is.

    Parameters
    ----------
    form : Formulation
        The program the result solves.
    result : SolveResult
        A solver's result with its points.

    Returns
    -------
    SolveResult
        The same card, or its smallest form with its objective and gap recomputed.
    """
    data, variables = form.data, form.spec.variables
    if result.coefficients is None or not variables:
        return result
    names = list(data.feature_names)
    index = {n: j for j, n in enumerate(names)}
    exact = {
        v: rules
        for v, rules in variables.items()
        if all(n in index for n in rules)
        and np.all(data.X[:, [index[n] for n in rules]].sum(axis=1) == 1)
    }
    points = dict(zip(names, (int(c) for c in result.coefficients)))
    rows = {
        n: float(data.weight[data.X[:, index[n]] != 0].sum()) for r in exact.values() for n in r
    }
    moved, shift = levels_at_zero(exact, points, rows)
    if not shift and moved == points:
        return result
    coefficients = np.array([moved[n] for n in names], dtype=np.int64)
    intercept = int(result.intercept) + shift
    allowed = all(coefficients[j] in form.allowed[j] for j in range(len(names)))
    if not allowed or form.full_solution(coefficients, intercept) is None:
        return result
    if not form.linear_rows_hold(coefficients) or not _rows_hold(form, coefficients, intercept):
        return result
    objective = form.objective_of(coefficients, intercept)
    if result.objective is not None and objective > result.objective + 1e-12:
        return result
    gap = relative_gap(objective, result.bound)
    return replace(
        result, coefficients=coefficients, intercept=intercept, objective=objective, gap=gap
    )


def _rows_hold(form: Formulation, coefficients: np.ndarray, intercept: int) -> bool:
    """Whether every row of the program holds for the card (its columns filled as a warm start)."""
    x = form.full_solution(coefficients, intercept)
    if x is None:
        return False
    from scipy.sparse import csr_matrix

    rows = csr_matrix((form.value, form.index, form.start), shape=(form.n_rows, form.n_cols))
    values = rows @ x
    return bool(np.all(values >= form.row_lower - 1e-6) and np.all(values <= form.row_upper + 1e-6))
