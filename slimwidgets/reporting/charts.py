"""The report's three charts, drawn as inline SVG from :class:`~slimwidgets.Validation` results."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..core.scoring import ScoringSystem
from ..export.svg import PALETTE, Series, chart
from ..toolbox.validate import Validation

__all__ = [
    "calibration_chart",
    "score_chart",
    "decision_chart",
    "interval_points",
    "risk_calibration_chart",
]


def interval_points(label: str, x: Any, table: pd.DataFrame, observed: str, k: int) -> Series:
    """The ``k``-th series of a chart: points, each with its interval, in the ``k``-th colour.

    Parameters
    ----------
    label : the series' name in the legend.
    x : where the points sit.
    table : one row per point, with ``observed``, ``lower`` and ``upper`` columns.
    observed : the column of the points' heights.
    k : the series' place on the chart (its colour).

    Examples
    --------
    >>> t = pd.DataFrame({"observed": [0.2], "lower": [0.1], "upper": [0.35]})
    >>> s = interval_points("test", [0.25], t, "observed", 0)
    >>> s.kind, s.y, s.lower, s.upper
    ('points', [0.2], [0.1], [0.35])
    """
    return Series(
        label,
        np.asarray(x, dtype=float).tolist(),
        table[observed].tolist(),
        PALETTE[k % len(PALETTE)],
        "points",
        table["lower"].tolist(),
        table["upper"].tolist(),
    )


def risk_calibration_chart(series: list[Series], y_title: str, title: str) -> str:
    """Observed against predicted risk, both in percent, with the diagonal of a perfect fit.

    Parameters
    ----------
    series : the points (:func:`interval_points`), one series per data set or horizon.
    y_title : the observed axis' title.
    title : the chart's title.

    Examples
    --------
    >>> t = pd.DataFrame({"observed": [0.2], "lower": [0.1], "upper": [0.35]})
    >>> points = interval_points("test", [0.25], t, "observed", 0)
    >>> svg = risk_calibration_chart([points], "rate", "C")
    >>> svg.startswith("<svg") and "predicted risk" in svg
    True
    """
    return chart(
        series,
        x_range=(0, 1),
        y_range=(0, 1),
        x_title="predicted risk",
        y_title=y_title,
        title=title,
        x_percent=True,
        y_percent=True,
        diagonal=True,
    )


def calibration_chart(checks: list[Validation]) -> str:
    """Observed rate (Wilson interval) against predicted risk, one colour per data set."""
    series = [
        interval_points(
            f"{v.label} ({v.rows} rows)",
            v.calibration["predicted risk"],
            v.calibration,
            "observed",
            k,
        )
        for k, v in enumerate(checks)
    ]
    return risk_calibration_chart(
        series, "observed rate", "Calibration: observed rate against predicted risk per score"
    )


def score_chart(card: ScoringSystem, checks: list[Validation]) -> str:
    """Observed rate (Wilson interval) per total score, and the card's threshold as a line."""
    scores = np.concatenate([v.calibration.index.to_numpy(dtype=float) for v in checks])
    lo, hi = float(scores.min()) - 0.5, float(scores.max()) + 0.5
    series = []
    for k, v in enumerate(checks):
        t = v.calibration
        # each data set a little to the side of the others, so that their intervals stay apart
        shift = (k - (len(checks) - 1) / 2) * 0.12
        x = t.index.to_numpy(dtype=float) + shift
        series.append(interval_points(f"{v.label} ({v.rows} rows)", x.tolist(), t, "observed", k))
    edge = card.threshold - 0.5 if card.rule == ">=" else card.threshold + 0.5
    series.append(Series("threshold", [edge, edge], [0, 1], "#444", "line", dash="2 3"))
    return chart(
        series,
        x_range=(lo, hi),
        y_range=(0, 1),
        x_title="total score",
        y_title="observed rate",
        title="Observed event rate per total score",
        y_percent=True,
        x_integer=True,
    )


def decision_chart(checks: list[Validation]) -> str:
    """Net benefit of the card on each data set, and of treating all (the first data set's rate)."""
    series = []
    top = 0.0
    for k, v in enumerate(checks):
        d = v.decision_curve
        if d.empty:
            continue
        series.append(
            Series(
                f"card: {v.label}", d.index.tolist(), d["card"].tolist(), PALETTE[k % len(PALETTE)]
            )
        )
        series.append(
            Series(
                f"treat all: {v.label}",
                d.index.tolist(),
                d["treat all"].tolist(),
                PALETTE[k % len(PALETTE)],
                dash="5 4",
            )
        )
        top = max(top, float(d[["card", "treat all"]].max().max()))
    series.append(Series("treat none", [0.0, 1.0], [0.0, 0.0], "#444", dash="2 3"))
    top = max(top * 1.1, 0.05)
    return chart(
        series,
        x_range=(0, 1),
        y_range=(-0.1 * top, top),
        x_title="risk threshold",
        y_title="net benefit",
        title="Decision curve: net benefit against the risk threshold",
        x_percent=True,
    )
