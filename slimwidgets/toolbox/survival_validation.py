"""A time-to-event card's figures with intervals: what :func:`slimwidgets.validate` gives for a
``Surv`` y.

Harrell's and Uno's C, the time-dependent AUC at the card's horizons and their mean, and the
integrated Brier score (the family's figures,
:meth:`~slimwidgets.core.survival_family.TimeToEventFamily.figures`), each with a percentile
bootstrap interval: the rows are resampled with replacement, every figure recomputed on each
resample (with the censoring weights of ``y_train``, or of the resample itself). Beside them,
calibration at each horizon and Kaplan–Meier curves by score band
(:mod:`~slimwidgets.toolbox.survival_evidence`); with ``groups`` all of it per group too.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..core.survival import survival_target
from ..core.survival_card import SurvivalCard
from ..core.survival_family import TIME_TO_EVENT
from .survival_evidence import calibration_at_horizons, km_by_band, score_bands

__all__ = ["SurvivalValidation", "validate_survival", "brier_grid"]


@dataclass(frozen=True)
class SurvivalValidation:
    """A time-to-event card's figures on one data set (see :func:`validate_survival`).

    Attributes
    ----------
    label : str
        What the data are.
    rows, events : int
        Rows scored and events among them.
    horizons : tuple of float
        The card's horizons.
    figures : DataFrame
        Index the figure; columns ``estimate, lower, upper, detail``.
    resamples : int
        Bootstrap resamples that gave every figure (those with no case or control at a horizon
        are left out).
    calibration : DataFrame
        Predicted against Kaplan–Meier observed risk by each horizon per score band
        (:func:`~slimwidgets.toolbox.survival_evidence.calibration_at_horizons`).
    km_curves : DataFrame
        Each score band's Kaplan–Meier curve
        (:func:`~slimwidgets.toolbox.survival_evidence.km_by_band`).
    by_group : DataFrame or None
        With ``groups``: the figures per group, index ``(group, figure)``.
    calibration_by_group, km_by_group : DataFrame or None
        With ``groups``: ``calibration`` and ``km_curves`` per group (a leading ``group`` level
        or column), in the score bands of all rows.
    """

    label: str
    rows: int
    events: int
    horizons: tuple[float, ...]
    figures: pd.DataFrame
    resamples: int
    calibration: pd.DataFrame | None = None
    km_curves: pd.DataFrame | None = None
    by_group: pd.DataFrame | None = None
    calibration_by_group: pd.DataFrame | None = None
    km_by_group: pd.DataFrame | None = None

    def summary(self) -> pd.Series:
        """The figures as text, ``"0.712 (0.671 to 0.750)"``."""
        return self.figures.apply(_as_text, axis=1)

    def group_summary(self) -> pd.DataFrame | None:
        """The figures as text, one column for all rows and one per group (None without groups)."""
        if self.by_group is None:
            return None
        columns = {"all": self.summary()}
        for group in self.by_group.index.get_level_values(0).unique():
            columns[group] = self.by_group.loc[group].apply(_as_text, axis=1)
        return pd.DataFrame(columns)

    def __repr__(self) -> str:
        c = self.summary()["Harrell's C"]
        return (
            f"SurvivalValidation({self.label!r}: {self.rows} rows, {self.events} events, "
            f"Harrell's C {c})"
        )

    def _repr_html_(self) -> str:
        head = f"<p><b>{html.escape(self.label)}</b>: {self.rows} rows, {self.events} events</p>"
        table = self.group_summary()
        table = self.summary().to_frame("estimate (interval)") if table is None else table
        return head + table.to_html(escape=True)


def _as_text(row: pd.Series) -> str:
    if pd.isna(row["estimate"]):
        return "–"
    if pd.isna(row["lower"]):
        return f"{row['estimate']:.3f}"
    return f"{row['estimate']:.3f} ({row['lower']:.3f} to {row['upper']:.3f})"


def brier_grid(time: np.ndarray, event: np.ndarray, last: float) -> np.ndarray:
    """The times the Brier score is integrated over: the event times between the 10th and 90th
    percentile of the follow-up, before ``last`` (the training rows' last time).

    >>> brier_grid(np.arange(1.0, 11.0), np.ones(10, bool), 20.0).tolist()
    [2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
    """
    low, high = np.quantile(time, [0.1, 0.9])
    times = np.unique(time[event])
    return times[(times >= low) & (times <= high) & (times < last)]


def validate_survival(
    card: SurvivalCard,
    X: Any,
    y: Any,
    *,
    y_train: Any = None,
    groups: Any = None,
    label: str = "data",
    confidence: float = 0.95,
    n_bootstrap: int = 200,
    seed: int = 0,
    max_bands: int = 5,
) -> SurvivalValidation:
    """A time-to-event card's figures on ``X, y`` with ``confidence`` bootstrap intervals.

    Parameters
    ----------
    card : a :class:`~slimwidgets.SurvivalCard`.
    X : the rows (raw or rules, as the card's ``predict`` takes them).
    y : a ``Surv`` array of the rows' events and times.
    y_train : the ``Surv`` array of the rows the card was fitted on: the censoring weights are
        estimated on them (default: on ``y``, or on each group's rows).
    groups : a column name of ``X``, or one value per row: every figure, the calibration and
        the Kaplan–Meier curves per group as well.
    label : what the data are, e.g. ``"external: site B"``.
    confidence : level of every interval.
    n_bootstrap, seed : resamples of the intervals, and the seed that draws them.
    max_bands : the most score bands of the calibration and the Kaplan–Meier curves.

    Returns
    -------
    SurvivalValidation

    Examples
    --------
    >>> import numpy as np, slimwidgets as sw
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 2, (80, 2))
    >>> time = np.ceil(rng.exponential(10 / np.exp(X @ [1.0, 0.5])))
    >>> y = np.array(list(zip(rng.random(80) < 0.8, time)), dtype=[("event", "?"), ("time", "f8")])
    >>> card = sw.fit(X, y, max_size=2, rules=False)
    >>> v = validate_survival(card, X, y, n_bootstrap=20)
    >>> list(v.figures.index)[:2], bool(v.figures.loc["Harrell's C", "estimate"] > 0.5)
    (["Harrell's C", "Uno's C"], True)
    >>> list(v.calibration.columns)[:3]
    ['rows', 'events by horizon', 'predicted risk']
    """
    target = survival_target(y)
    train = None if y_train is None else survival_target(y_train)
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X))
    group = _group_of(frame, groups)
    last = float((target if train is None else train).time.max())
    grid = brier_grid(target.time, target.event, last)
    boot = (card, grid, confidence, n_bootstrap, seed)
    table, resamples = _bootstrap(*boot, frame, y, train)
    totals = card.scores(frame)
    bands = score_bands(totals, max_bands)
    by_group = calibration_by_group = km_by_group = None
    if group is not None:
        parts = {g: (group == g).to_numpy() for g in sorted(group.unique())}
        by_group = pd.concat(
            {g: _bootstrap(*boot, frame[m], y[m], train)[0] for g, m in parts.items()},
            names=["group", "figure"],
        )
        calibration_by_group = pd.concat(
            {g: _calibration(card, totals, target, m, bands) for g, m in parts.items()},
            names=["group"],
        )
        km_by_group = (
            pd.concat(
                {
                    g: km_by_band(target.time[m], target.event[m], bands[m])
                    for g, m in parts.items()
                },
                names=["group", "row"],
            )
            .reset_index(level=0)
            .reset_index(drop=True)
        )
    return SurvivalValidation(
        label,
        len(frame),
        int(target.event.sum()),
        card.horizons,
        table,
        resamples,
        _calibration(card, totals, target, np.ones(len(totals), bool), bands),
        km_by_band(target.time, target.event, bands),
        by_group,
        calibration_by_group,
        km_by_group,
    )


def _group_of(X: pd.DataFrame, groups: Any) -> pd.Series | None:
    """Each row's group as text (missing values as "(missing)"), or None without groups."""
    if groups is None:
        return None
    if isinstance(groups, str):
        if groups not in X.columns:
            raise KeyError(f"groups {groups!r} is not a column of X")
        values = X[groups].to_numpy()
    else:
        values = np.asarray(groups, dtype=object).ravel()
        if len(values) != len(X):
            raise ValueError(f"groups has {len(values)} values for {len(X)} rows")
    return pd.Series(values, dtype=object).where(lambda s: s.notna(), "(missing)").astype(str)


def _calibration(card, totals, target, mine: np.ndarray, bands: pd.Series) -> pd.DataFrame:
    mine = np.asarray(mine, dtype=bool)
    return calibration_at_horizons(
        card, totals[mine], target.time[mine], target.event[mine], bands[mine]
    )


def _bootstrap(
    card: SurvivalCard,
    grid: np.ndarray,
    confidence: float,
    n_bootstrap: int,
    seed: int,
    X: pd.DataFrame,
    y: Any,
    train,
) -> tuple[pd.DataFrame, int]:
    """(the figures with their bootstrap intervals, resamples used) of the rows ``X, y``; the
    censoring weights of ``train``, or of the rows (each resample's own) when it is None."""
    try:
        figures = _figures(card, X, y, survival_target(y) if train is None else train, grid)
    except ValueError:  # too few rows or events for a figure: said as "–"
        return _table({n: np.nan for n in _names(card)}, [], confidence), 0
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(n_bootstrap):
        rows = rng.integers(0, len(X), len(X))
        try:
            own = survival_target(y[rows]) if train is None else train
            draws.append(_figures(card, X.iloc[rows], y[rows], own, grid))
        except ValueError:  # no case or control at a horizon in this resample
            continue
    return _table(figures, draws, confidence), len(draws)


def _names(card: SurvivalCard) -> list[str]:
    aucs = [f"AUC by {h:g}" for h in card.horizons]
    return ["Harrell's C", "Uno's C", *aucs, "mean AUC", "integrated Brier score"]


def _figures(card: SurvivalCard, X: pd.DataFrame, y: Any, train, grid: np.ndarray) -> dict:
    grid = grid if grid.size >= 2 else None
    return TIME_TO_EVENT.figures(card, X, y, train=(train.time, train.event), grid=grid)


def _table(figures: dict, draws: list[dict], confidence: float) -> pd.DataFrame:
    alpha = (1.0 - confidence) / 2.0
    rows = {}
    for name, estimate in figures.items():
        values = np.array([d[name] for d in draws])
        lower, upper = np.quantile(values, [alpha, 1 - alpha]) if values.size else (np.nan, np.nan)
        detail = "bootstrap" if values.size else "no interval"
        rows[name] = {"estimate": estimate, "lower": lower, "upper": upper, "detail": detail}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("figure")


# the time-to-event family's figures, asked of it by sw.validate
TIME_TO_EVENT.validates_with(validate_survival)
