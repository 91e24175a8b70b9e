"""The price of fairness: the best card's error (or TPR) against the allowed gap between groups.

One exact fit per allowed gap (``max_tpr_gap`` or ``max_fpr_gap``), through the sweep
machinery of :mod:`slimwidgets.toolbox.frontier` (joblib, any joblib backend such as
Dask; cached by data and spec; each point warm-started from the tighter one before it,
whose card is feasible for it). Each row carries what the solver proved: ``error_min``
(or ``tpr_max`` under an FPR cap), the best any card under that gap can reach, so a
curve of cards that are not all proven still has proven limits beside it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import pandas as pd

from ..core.data import prepare_data
from ..core.groups import dataset_rates
from ..fitting.jobs import check_n_jobs
from .frontier import base_spec, fraction_list, proven_value, sweep_specs

__all__ = ["fairness_frontier", "DEFAULT_GAPS"]

#: allowed gaps of :func:`fairness_frontier` by default: 0 to 20 points, and 100 % (no limit)
DEFAULT_GAPS: tuple[float, ...] = (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 1.0)
_GAP_OPTION = {"tpr": "max_tpr_gap", "fpr": "max_fpr_gap"}


def fairness_frontier(
    X: Any,
    y: Any,
    sensitive_features: Any,
    gaps: Iterable[float] = DEFAULT_GAPS,
    *,
    rate: str = "tpr",
    n_jobs: int | None = None,
    backend: str | None = None,
    progress: bool | None = None,
    cache: Any = None,
    positive: Any = None,
    sample_weight: Any = None,
    **spec_options: Any,
) -> pd.DataFrame:
    """The best card under each allowed gap between groups' TPR (``rate="tpr"``) or FPR.

    Parameters
    ----------
    X, y, sensitive_features : as for :func:`slimwidgets.fit` (``sensitive_features``:
        a column name of ``X`` or one group label per row).
    gaps : allowed gaps in [0, 1] (``max_tpr_gap`` or ``max_fpr_gap`` of each fit);
        rows come out from the tightest to the loosest.
    rate : ``"tpr"`` or ``"fpr"``: which rate's gap is limited.
    n_jobs, backend, progress, cache, positive, sample_weight : as for
        :func:`slimwidgets.roc_frontier`.
    **spec_options : any other :func:`slimwidgets.make_spec` option (``time_limit`` is
        per point; with ``max_fpr`` the curve is the best TPR under that cap).

    Returns
    -------
    DataFrame
        One row per gap: ``max_gap`` (allowed), ``gap_reached`` (the card's largest
        difference between two groups), ``tpr, tpr_max, fpr, error, error_min, size,
        status, gap, objective, bound, solve_time, cached, message, card``. ``error_min``
        / ``tpr_max``: what the solver proved about every card under that gap (NaN where
        the bound says nothing about it); ``gap`` is the solver's relative gap.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"a": [1, 1, 0, 0, 1, 0, 1, 0], "b": [0, 1, 0, 1, 1, 0, 0, 1]})
    >>> y = [1, 1, 0, 0, 1, 0, 0, 1]
    >>> sex = ["F", "F", "F", "F", "M", "M", "M", "M"]
    >>> front = fairness_frontier(X, y, sex, gaps=[0.0, 1.0], C0=0.01, progress=False, cache=False)
    >>> print(front[["max_gap", "gap_reached", "error", "status"]].to_string(index=False))
     max_gap  gap_reached  error  status
         0.0          0.0   0.25 optimal
         1.0          0.5   0.25 optimal
    """
    if rate not in _GAP_OPTION:
        raise ValueError(f"rate must be 'tpr' or 'fpr', got {rate!r}")
    check_n_jobs(n_jobs)
    allowed = fraction_list(gaps, "gaps")
    option = _GAP_OPTION[rate]
    base = base_spec(spec_options, (option,), "fairness_frontier")
    data = prepare_data(
        X, y, positive=positive, sample_weight=sample_weight, sensitive_features=sensitive_features
    )
    specs = [base.replace(**{option: g}) for g in allowed]
    rows = sweep_specs(
        data,
        specs,
        n_jobs=n_jobs,
        backend=backend,
        progress=progress,
        cache=cache,
        warm_start=None,
        desc="price of fairness",
    )
    column = rate.upper()
    for row in rows:
        row["error_min"] = proven_value(row, "error", 0.0)
        row["tpr_max"] = proven_value(row, "tpr", 1.0)
        rates = None if row["card"] is None else dataset_rates(row["card"], data)[column].dropna()
        row["gap_reached"] = (
            math.nan if rates is None or rates.empty else float(rates.max() - rates.min())
        )
    frame = pd.DataFrame(rows)
    frame.insert(0, "max_gap", allowed)
    columns = [
        "max_gap",
        "gap_reached",
        "tpr",
        "tpr_max",
        "fpr",
        "error",
        "error_min",
        "size",
        "status",
        "gap",
        "objective",
        "bound",
        "solve_time",
        "cached",
        "message",
        "card",
    ]
    return frame[columns]
