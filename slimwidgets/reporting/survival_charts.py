"""The time-to-event report's charts as inline SVG: Kaplan–Meier curves by score band, and
predicted against observed risk by each horizon."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..export.svg import PALETTE, Series, chart
from ..toolbox.survival_validation import SurvivalValidation
from .charts import interval_points, risk_calibration_chart

__all__ = ["km_chart", "horizon_calibration_chart"]


def _steps(time: np.ndarray, survival: np.ndarray) -> tuple[list[float], list[float]]:
    """A right-continuous step function as a polyline: each drop drawn straight down."""
    xs, ys = [float(time[0])], [float(survival[0])]
    for t, s in zip(time[1:], survival[1:]):
        xs += [float(t), float(t)]
        ys += [ys[-1], float(s)]
    return xs, ys


def km_chart(curves: pd.DataFrame, label: str, time_name: str) -> str:
    """Each score band's Kaplan–Meier survival (interval dotted) of ``curves``
    (:attr:`SurvivalValidation.km_curves`, or one group's part of ``km_by_group``)."""
    series = []
    for k, (band, curve) in enumerate(curves.groupby("score band", observed=True, sort=False)):
        colour = PALETTE[k % len(PALETTE)]
        rows = int(curve["at risk"].iloc[0])
        x, y = _steps(curve["time"].to_numpy(), curve["survival"].to_numpy())
        series.append(Series(f"score {band} ({rows} row{'' if rows == 1 else 's'})", x, y, colour))
        for bound in ("lower", "upper"):
            x, y = _steps(curve["time"].to_numpy(), curve[bound].to_numpy())
            series.append(Series("", x, y, colour, dash="1 3"))
    return chart(
        series,
        x_range=(0.0, float(curves["time"].max())),
        y_range=(0.0, 1.0),
        x_title=time_name,
        y_title="event-free (Kaplan–Meier)",
        title=f"Kaplan–Meier curves by score band, {label} (dotted: 95 % interval)",
        y_percent=True,
    )


def horizon_calibration_chart(check: SurvivalValidation) -> str:
    """Kaplan–Meier observed risk (95 % interval) against the mean predicted risk per score
    band, one colour per horizon, on one data set."""
    series = []
    for k, horizon in enumerate(check.horizons):
        t = check.calibration.loc[horizon]
        series.append(
            interval_points(f"by {horizon:g}", t["predicted risk"], t, "observed risk", k)
        )
    return risk_calibration_chart(
        series,
        "observed risk (Kaplan–Meier)",
        f"Calibration by each horizon, {check.label}: score bands",
    )
