"""The price of fairness, drawn: an Altair chart of :func:`slimwidgets.fairness_frontier`'s rows
(a pure function of the DataFrame; draw it offline with
:func:`slimwidgets.widgets.use_bundled_vega`)."""

from __future__ import annotations

import math

import altair as alt
import pandas as pd

from .charts import CARD_COLOR, FRONTIER_COLOR, HEIGHT, WIDTH, records

__all__ = ["fairness_chart"]

_MEASURES = {
    "error": ("error", "error_min", "train error", "proven lowest error"),
    "tpr": ("tpr", "tpr_max", "train TPR", "proven highest TPR"),
}


def fairness_chart(frontier: pd.DataFrame, measure: str = "error") -> alt.LayerChart:
    """The best card's error or TPR against the allowed gap between groups.

    The train error (``measure="error"``) or TPR (``"tpr"``, under an FPR cap), with the
    solver's proven limit at each gap. Points without a card (infeasible gaps) are left out;
    a proven limit is drawn only where there is one.

    Parameters
    ----------
    frontier : DataFrame
        The rows of :func:`slimwidgets.fairness_frontier` (``max_gap``, ``gap_reached``, the
        measure and its proven limit, ``status``).
    measure : {"error", "tpr"}, default="error"
        The figure on the vertical axis.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"max_gap": [0.0, 0.1], "gap_reached": [0.0, 0.08],
    ...                      "error": [0.3, 0.2], "error_min": [0.25, 0.2], "tpr": [0.5, 0.7],
    ...                      "tpr_max": [float("nan")] * 2, "status": ["time_limit", "optimal"]})
    >>> fairness_chart(rows).to_dict()["layer"][0]["mark"]["type"]
    'line'
    """
    if measure not in _MEASURES:
        raise ValueError(f"measure must be 'error' or 'tpr', got {measure!r}")
    value, limit, title, limit_title = _MEASURES[measure]
    rows = [
        r
        for r in records(frontier, ["max_gap", "gap_reached", value, limit, "status"])
        if r[value] is not None and not (isinstance(r[value], float) and math.isnan(r[value]))
    ]
    data = alt.Data(values=rows)
    x = alt.X(
        "max_gap:Q",
        title="allowed gap between groups",
        axis=alt.Axis(format="%"),
        scale=alt.Scale(zero=True, nice=False),
    )
    y = alt.Y(f"{value}:Q", title=title, axis=alt.Axis(format="%"), scale=alt.Scale(zero=False))
    tips = [
        alt.Tooltip("max_gap:Q", title="allowed gap", format=".1%"),
        alt.Tooltip("gap_reached:Q", title="gap of the card", format=".1%"),
        alt.Tooltip(f"{value}:Q", title=title, format=".1%"),
        alt.Tooltip(f"{limit}:Q", title=limit_title, format=".1%"),
        alt.Tooltip("status:N"),
    ]
    line = (
        alt.Chart(data)
        .mark_line(color=FRONTIER_COLOR, opacity=0.6)
        .encode(x=x, y=y, order="max_gap:Q")
    )
    points = (
        alt.Chart(data)
        .mark_point(filled=True, size=70, color=FRONTIER_COLOR)
        .encode(x=x, y=y, tooltip=tips)
    )
    proven = (
        alt.Chart(data)
        .transform_filter(f"isValid(datum.{limit})")
        .mark_tick(color=CARD_COLOR, thickness=2, size=14)
        .encode(x=x, y=alt.Y(f"{limit}:Q"), tooltip=tips)
    )
    return alt.layer(line, points, proven).properties(
        width=WIDTH,
        height=HEIGHT,
        title=f"price of fairness: {title} (dots) and {limit_title} (ticks) by allowed gap",
    )
