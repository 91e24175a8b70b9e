"""The time-to-event card: integer points, a multiplier, Breslow's baseline hazard, in
scikit-survival's conventions.

A row's total score is ``s = x . points``; its log hazard ratio is ``s / m`` (``m``: points per
unit of log hazard), its cumulative hazard ``H0(time) exp(s / m)`` with Breslow's ``H0`` of the
training rows, and its risk of the event by a horizon ``1 - exp(-H0(horizon) exp(s / m))``.
``predict`` gives the risk score ``s / m`` (higher: the event sooner), ``score`` Harrell's C,
``predict_survival_function`` and ``predict_cumulative_hazard_function`` step functions, as
scikit-survival's estimators do.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .rules import as_frame
from .survival import StepFunction, kaplan_meier
from .survival_family import TIME_TO_EVENT

__all__ = ["SurvivalCard", "ScoreRisk", "risk_by_score", "default_horizons"]


@dataclass(frozen=True)
class ScoreRisk:
    """One total score's row of the card: rows with it, and per horizon the predicted risk and
    Kaplan–Meier's observed risk with its 95 % interval (None where no row with it is followed
    that far: the observed risk would be unknown)."""

    score: int
    n_rows: float
    predicted: tuple[float, ...]
    observed: tuple[float | None, ...]
    lower: tuple[float | None, ...]
    upper: tuple[float | None, ...]


@dataclass(frozen=True, eq=False)  # its arrays have no one truth value: cards compare by identity
class SurvivalCard:
    """A time-to-event scoring system (see the module's docstring).

    Examples
    --------
    >>> import numpy as np
    >>> times, hazard = np.array([1.0, 3.0]), np.array([0.1, 0.3])
    >>> card = SurvivalCard(("a", "b"), (2, 1), 2.0, times, hazard, (3.0,))
    >>> card.predict(np.array([[1, 0], [1, 1]])).tolist()  # (points) / multiplier
    [1.0, 1.5]
    >>> round(card.risk_at(2, 3.0), 4)  # 1 - exp(-0.3 e^1)
    0.5576
    """

    feature_names: tuple[str, ...]
    points: tuple[int, ...]
    multiplier: float
    baseline_times: np.ndarray
    baseline_hazard: np.ndarray  # Breslow's cumulative baseline hazard at each time
    horizons: tuple[float, ...]
    status: str = "heuristic"
    objective: float | None = None
    bound: float | None = None
    solve_time: float = 0.0
    solver: str = ""
    names: tuple[str, str] = ("event", "time")
    rules: Any = None
    table: tuple[ScoreRisk, ...] = ()
    details: dict = field(default_factory=dict)

    @property
    def gap(self) -> float | None:
        """The proven floor's shortfall against the objective, relative to it (0 when optimal)."""
        if self.bound is None or self.objective is None:
            return None
        return max(self.objective - self.bound, 0.0) / max(abs(self.objective), 1e-12)

    @property
    def card_points(self) -> dict[str, int]:
        """The features with points, and their points."""
        return {n: int(p) for n, p in zip(self.feature_names, self.points) if p}

    def scores(self, X: Any) -> np.ndarray:
        """Each row's total score; raw rows are turned into the card's rules first."""
        if self.rules is not None and not self._rule_columns(X):
            X = self.rules.transform(X)
        frame = as_frame(X)
        missing = [n for n in self.card_points if n not in frame.columns]
        if missing and frame.shape[1] == len(self.feature_names):
            frame.columns = list(self.feature_names)
        elif missing:
            raise ValueError(f"X has no column {missing[0]!r} of the card")
        used = list(self.card_points)
        values = frame[used].to_numpy(dtype=float) if used else np.zeros((len(frame), 0))
        return values @ np.array([self.card_points[n] for n in used], dtype=float)

    def _rule_columns(self, X: Any) -> bool:
        names = getattr(X, "columns", None)
        return names is not None and set(self.card_points) <= set(names)

    def predict(self, X: Any) -> np.ndarray:
        """The risk score of each row: its log hazard ratio ``total / multiplier``."""
        return self.scores(X) / self.multiplier

    def score(self, X: Any, y: Any) -> float:
        """Harrell's concordance index of :meth:`predict` on ``X`` and a ``Surv`` array ``y``."""
        return TIME_TO_EVENT.figures(self, X, y)["Harrell's C"]

    def risk_at(self, total: float, horizon: float) -> float:
        """The predicted risk of the event by ``horizon`` for a total score."""
        hazard = float(
            StepFunction(self.baseline_times, self.baseline_hazard, 0.0)(
                min(horizon, self.last_time)
            )[0]
        )
        return 1.0 - math.exp(-hazard * math.exp(total / self.multiplier))

    @property
    def last_time(self) -> float:
        """The last time of the baseline hazard."""
        return float(self.baseline_times[-1])

    @property
    def unique_times_(self) -> np.ndarray:
        """The event times the step functions jump at (scikit-survival's name)."""
        return self.baseline_times

    def predict_cumulative_hazard_function(self, X: Any, return_array: bool = False) -> np.ndarray:
        """Each row's cumulative hazard as a :class:`StepFunction`.

        Parameters
        ----------
        X : DataFrame or array
            The rows, with the card's feature columns.
        return_array : bool, default=False
            Return the values at :attr:`unique_times_` instead, one row per row of ``X``.
        """
        ratio = np.exp(self.predict(X))
        if return_array:
            return ratio[:, None] * self.baseline_hazard[None, :]
        return np.array(
            [StepFunction(self.baseline_times, self.baseline_hazard * r, 0.0) for r in ratio]
        )

    def predict_survival_function(self, X: Any, return_array: bool = False) -> np.ndarray:
        """Each row's survival as a :class:`StepFunction`.

        Parameters
        ----------
        X : DataFrame or array
            The rows, with the card's feature columns.
        return_array : bool, default=False
            Return the values at :attr:`unique_times_` instead, one row per row of ``X``.
        """
        ratio = np.exp(self.predict(X))
        if return_array:
            return np.exp(-ratio[:, None] * self.baseline_hazard[None, :])
        return np.array(
            [
                StepFunction(self.baseline_times, np.exp(-self.baseline_hazard * r), 1.0)
                for r in ratio
            ]
        )

    def __str__(self) -> str:
        return TIME_TO_EVENT.card_text(self)

    def _repr_html_(self) -> str:
        return TIME_TO_EVENT.card_html(self)

    def __repr__(self) -> str:
        return (
            f"SurvivalCard(points={self.card_points!r}, multiplier={self.multiplier:.4g}, "
            f"status={self.status!r})"
        )


def default_horizons(time: np.ndarray) -> tuple[float, ...]:
    """The horizons a card states its risk by when none is given: the quartiles of the follow-up
    (every row's time), each rounded to two significant digits.

    >>> default_horizons(np.array([100.0, 400.0, 800.0, 1200.0, 2000.0]))
    (400.0, 800.0, 1200.0)
    """
    out = []
    for q in (0.25, 0.5, 0.75):
        value = float(np.quantile(time, q))
        digits = 1 - int(math.floor(math.log10(abs(value)))) if value > 0 else 0
        out.append(round(value, digits))
    return tuple(dict.fromkeys(out))


def risk_by_score(
    card: SurvivalCard,
    totals: np.ndarray,
    time: np.ndarray,
    event: np.ndarray,
    weight: np.ndarray | None = None,
) -> tuple[ScoreRisk, ...]:
    """The card's table: for each total score of the rows, the predicted risk by each horizon
    beside Kaplan–Meier's observed risk among the rows with that score (95 % interval)."""
    w = np.ones(len(time)) if weight is None else np.asarray(weight, dtype=float)
    rows = []
    for total in np.unique(totals):
        mine = totals == total
        observed = [_observed(time[mine], event[mine], w[mine], h) for h in card.horizons]
        rows.append(
            ScoreRisk(
                int(total),
                float(w[mine].sum()),
                tuple(card.risk_at(float(total), h) for h in card.horizons),
                *(tuple(o[i] for o in observed) for i in range(3)),
            )
        )
    return tuple(rows)


def _observed(
    time: np.ndarray, event: np.ndarray, w: np.ndarray, horizon: float
) -> tuple[float | None, float | None, float | None]:
    """(1 - KM survival, its lower and upper bound) by ``horizon``; None when the rows say nothing
    about it (no one followed that long, unless Kaplan–Meier's curve has reached 0: then the risk
    is 1; no event among them: 0 up to the last time)."""
    followed = time.max() >= horizon
    if not event.any():
        return (0.0, None, None) if followed else (None, None, None)
    times, survival, lower, upper = kaplan_meier(time, event, w)
    if not followed and survival[-1] > 0:  # the curve stops above 0 before the horizon
        return None, None, None
    at = np.searchsorted(times, horizon, side="right") - 1
    if at < 0:
        return 0.0, None, None
    return 1.0 - float(survival[at]), 1.0 - float(upper[at]), 1.0 - float(lower[at])
