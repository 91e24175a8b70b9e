"""The time-to-event studio's charts (pure functions of DataFrames, Altair): Kaplan–Meier curves
by score band, with the horizon marked, and Harrell's C by size. They take the place of the
ROC plane and the sparsity path of the other families, and are drawn by the studio's chart view
with the bundled Vega (no network)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from .charts import CARD_COLOR, FIT_LABELS, FRONTIER_COLOR, HEIGHT, WIDTH, records

__all__ = ["km_chart", "c_index_chart"]

HORIZON_COLOR = "#e07b00"


def km_chart(km: pd.DataFrame, horizon: float, time_name: str = "time") -> alt.LayerChart:
    """Kaplan–Meier survival curves, one per score band, as steps; the horizon a dashed rule.

    Parameters
    ----------
    km : DataFrame
        ``score band, time, at risk, survival, lower, upper``
        (:func:`~slimwidgets.toolbox.survival_evidence.km_by_band`).
    horizon : float
        The time the card states its risk by.
    time_name : str, default "time"
        The name of the time field of ``y``, for the x axis.

    Returns
    -------
    altair.LayerChart
        Its data sets are named ``km`` and ``horizon``.

    Examples
    --------
    >>> km = pd.DataFrame({"score band": ["0", "0", "1", "1"], "time": [0.0, 2.0, 0.0, 1.0],
    ...                    "at risk": [2, 1, 2, 1], "survival": [1.0, 0.5, 1.0, 0.5],
    ...                    "lower": [1.0, 0.1, 1.0, 0.1], "upper": [1.0, 0.9, 1.0, 0.9]})
    >>> from slimwidgets.widgets.charts import split_datasets
    >>> sorted(split_datasets(km_chart(km, 1.5))[1])
    ['horizon', 'km']
    """
    bands = [str(b) for b in pd.unique(km["score band"])] if len(km) else []
    columns = ["score band", "time", "at risk", "survival", "lower", "upper"]
    data = alt.InlineData(values=records(km.astype({"score band": str}), columns), name="km")
    curves = (
        alt.Chart(data)
        .mark_line(interpolate="step-after", strokeWidth=2)
        .encode(
            x=alt.X("time:Q", title=time_name),
            y=alt.Y("survival:Q", title="survival (Kaplan–Meier)", scale=alt.Scale(domain=[0, 1])),
            color=alt.Color(
                "score band:N",
                sort=bands,
                scale=alt.Scale(scheme="viridis", reverse=True),
                legend=alt.Legend(title="total score", orient="bottom", direction="horizontal"),
            ),
            tooltip=[
                "score band:N",
                alt.Tooltip("time:Q", format=".4g"),
                alt.Tooltip("survival:Q", format=".1%"),
                alt.Tooltip("lower:Q", title="95 % CI from", format=".1%"),
                alt.Tooltip("upper:Q", title="95 % CI to", format=".1%"),
                "at risk:Q",
            ],
        )
    )
    rule = (
        alt.Chart(alt.InlineData(values=[{"horizon": float(horizon)}], name="horizon"))
        .mark_rule(color=HORIZON_COLOR, strokeDash=[5, 3], strokeWidth=1.5)
        .encode(x="horizon:Q", tooltip=[alt.Tooltip("horizon:Q", format=".4g")])
    )
    return alt.layer(curves, rule).properties(
        width=WIDTH,
        height=HEIGHT,
        autosize=FIT_LABELS,
        title=f"Kaplan–Meier by score band · horizon {horizon:g}",
    )


def c_index_chart(path: pd.DataFrame) -> alt.LayerChart:
    """Harrell's C of the best card of each size; the current card's size in its own colour.

    Parameters
    ----------
    path : DataFrame
        ``size, C-index, current`` (:meth:`SurvivalSession.c_by_size
        <slimwidgets.widgets.survival_session.SurvivalSession.c_by_size>`).

    Returns
    -------
    altair.LayerChart
        Its data set is named ``path``.

    Examples
    --------
    >>> path = pd.DataFrame({"size": [1, 2], "C-index": [0.6, 0.65], "current": [False, True]})
    >>> c_index_chart(path).to_dict()["title"]
    "Harrell's C by size (training rows)"
    """
    data = alt.InlineData(values=records(path, ["size", "C-index", "current"]), name="path")
    sizes = [int(s) for s in path["size"]] if len(path) else [1]
    x = alt.X(
        "size:Q",
        title="rules with points",
        scale=alt.Scale(domain=[0.5, max(sizes) + 0.5]),
        axis=alt.Axis(values=sizes, format="d"),
    )
    y = alt.Y("C-index:Q", title="Harrell's C", scale=alt.Scale(domain=[0.5, 1.0]))
    base = alt.Chart(data).encode(
        x=x, y=y, tooltip=["size:Q", alt.Tooltip("C-index:Q", format=".3f")]
    )
    line = base.mark_line(color=FRONTIER_COLOR) + base.mark_point(
        color=FRONTIER_COLOR, filled=True, size=50
    )
    current = base.transform_filter("datum.current").mark_point(
        color=CARD_COLOR, shape="diamond", filled=True, size=140
    )
    return alt.layer(line, current).properties(
        width=WIDTH, height=HEIGHT, autosize=FIT_LABELS, title="Harrell's C by size (training rows)"
    )
