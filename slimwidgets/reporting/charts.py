"""The report's three charts, drawn as inline SVG from :class:`~slimwidgets.Validation` results."""

from __future__ import annotations

import numpy as np

from ..core.scoring import ScoringSystem
from ..export.svg import PALETTE, Series, chart
from ..toolbox.validate import Validation

__all__ = ["calibration_chart", "score_chart", "decision_chart"]


def calibration_chart(checks: list[Validation]) -> str:
    """Observed rate (Wilson interval) against predicted risk, one colour per data set."""
    series = []
    for k, v in enumerate(checks):
        t = v.calibration
        series.append(
            Series(
                f"{v.label} ({v.rows} rows)",
                t["predicted risk"].tolist(),
                t["observed"].tolist(),
                PALETTE[k % len(PALETTE)],
                "points",
                t["lower"].tolist(),
                t["upper"].tolist(),
            )
        )
    return chart(
        series,
        x_range=(0, 1),
        y_range=(0, 1),
        x_title="predicted risk",
        y_title="observed rate",
        title="Calibration: observed rate against predicted risk per score",
        x_percent=True,
        y_percent=True,
        diagonal=True,
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
        series.append(
            Series(
                f"{v.label} ({v.rows} rows)",
                (t.index.to_numpy(dtype=float) + shift).tolist(),
                t["observed"].tolist(),
                PALETTE[k % len(PALETTE)],
                "points",
                t["lower"].tolist(),
                t["upper"].tolist(),
            )
        )
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
