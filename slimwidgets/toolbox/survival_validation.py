"""A time-to-event card's figures with intervals: what :func:`slimwidgets.validate` gives for a
``Surv`` y.

Harrell's and Uno's C, the time-dependent AUC at the card's horizons and their mean, and the
integrated Brier score (the family's figures,
:meth:`~slimwidgets.core.survival_family.TimeToEventFamily.figures`), each with a percentile
bootstrap interval: the rows are resampled with replacement, every figure recomputed on each
resample (with the censoring weights of ``y_train``, or of the resample itself).
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

__all__ = ["SurvivalValidation", "validate_survival", "brier_grid"]


@dataclass(frozen=True)
class SurvivalValidation:
    """A time-to-event card's figures on one data set (see :func:`validate_survival`).

    ``figures``: index the figure, columns ``estimate, lower, upper, detail``; ``resamples``:
    how many bootstrap resamples gave every figure (those with no case or control at a horizon
    are left out).
    """

    label: str
    rows: int
    events: int
    horizons: tuple[float, ...]
    figures: pd.DataFrame
    resamples: int

    def summary(self) -> pd.Series:
        """The figures as text, ``"0.712 (0.671 to 0.750)"``."""
        return self.figures.apply(
            lambda r: f"{r['estimate']:.3f} ({r['lower']:.3f} to {r['upper']:.3f})", axis=1
        )

    def __repr__(self) -> str:
        c = self.summary()["Harrell's C"]
        return (
            f"SurvivalValidation({self.label!r}: {self.rows} rows, {self.events} events, "
            f"Harrell's C {c})"
        )

    def _repr_html_(self) -> str:
        head = f"<p><b>{html.escape(self.label)}</b>: {self.rows} rows, {self.events} events</p>"
        return head + self.summary().to_frame("estimate (interval)").to_html(escape=True)


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
    label: str = "data",
    confidence: float = 0.95,
    n_bootstrap: int = 200,
    seed: int = 0,
) -> SurvivalValidation:
    """A time-to-event card's figures on ``X, y`` with ``confidence`` bootstrap intervals.

    Parameters
    ----------
    card : a :class:`~slimwidgets.SurvivalCard`.
    X : the rows (raw or rules, as the card's ``predict`` takes them).
    y : a ``Surv`` array of the rows' events and times.
    y_train : the ``Surv`` array of the rows the card was fitted on: the censoring weights are
        estimated on them (default: on ``y``).
    label : what the data are, e.g. ``"external: site B"``.
    confidence : level of every interval.
    n_bootstrap, seed : resamples of the intervals, and the seed that draws them.

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
    """
    target = survival_target(y)
    train = target if y_train is None else survival_target(y_train)
    grid = brier_grid(target.time, target.event, float(train.time.max()))
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X))
    figures = _figures(card, frame, y, train, grid)
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(n_bootstrap):
        rows = rng.integers(0, len(frame), len(frame))
        try:
            own = survival_target(y[rows]) if y_train is None else train
            draws.append(_figures(card, frame.iloc[rows], y[rows], own, grid))
        except ValueError:  # no case or control at a horizon in this resample
            continue
    table = _table(figures, draws, confidence)
    return SurvivalValidation(
        label, len(frame), int(target.event.sum()), card.horizons, table, len(draws)
    )


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
