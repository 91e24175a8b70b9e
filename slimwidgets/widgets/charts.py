"""Altair chart builders of the studio: pure functions of DataFrames.

Every layer reads a *named* inline data set (``frontier``, ``roc``, ``card``,
``cap``, ``path``, ``path_card``), so a view can swap the rows of one data set
in place (Vega's ``view.change``) instead of re-drawing the chart: see
:func:`split_datasets`. Axes have fixed domains, so new rows never rescale them.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import altair as alt
import pandas as pd

__all__ = ["roc_chart", "sparsity_chart", "roc_datasets", "sparsity_datasets", "split_datasets", "records"]

WIDTH, HEIGHT = 330, 230
FRONTIER_COLOR = "#1f5fa8"
CARD_COLOR = "#d1495b"
ROC_COLOR = "#8a8a8a"


def records(frame: pd.DataFrame | None, columns: list[str]) -> list[dict]:
    """JSON-safe rows (NaN and infinities become null), restricted to ``columns``."""
    if frame is None or len(frame) == 0:
        return []
    out = []
    for row in frame.reindex(columns=columns).to_dict("records"):
        clean = {}
        for k, v in row.items():
            if isinstance(v, float) and not math.isfinite(v):
                v = None
            elif hasattr(v, "item"):
                v = v.item()
            clean[k] = v
        out.append(clean)
    return out


def _data(name: str, datasets: dict[str, list]) -> alt.InlineData:
    return alt.InlineData(values=datasets[name], name=name)


def _pct(field: str, title: str, **kw) -> alt.Tooltip:
    return alt.Tooltip(f"{field}:Q", title=title, format=".1%", **kw)


FRONTIER_COLS = ["key", "cap", "tpr", "fpr", "error", "size", "status"]
ROC_COLS = ["threshold", "fpr", "tpr"]
CARD_COLS = ["tpr", "fpr", "error", "size", "status"]
CAP_COLS = ["cap"]
PATH_COLS = ["key", "max_size", "tpr", "fpr", "error", "size", "status"]


def roc_datasets(frontier: pd.DataFrame | None, roc: pd.DataFrame | None, card: pd.DataFrame | None,
                 cap: pd.DataFrame | None) -> dict[str, list]:
    """The rows of each named data set of :func:`roc_chart` (what a live view swaps in)."""
    return {"cap": records(cap, CAP_COLS), "roc": records(roc, ROC_COLS),
            "frontier": records(frontier, FRONTIER_COLS), "card": records(card, CARD_COLS)}


def sparsity_datasets(path: pd.DataFrame | None, card: pd.DataFrame | None) -> dict[str, list]:
    """The rows of each named data set of :func:`sparsity_chart`."""
    return {"path": records(path, PATH_COLS), "path_card": records(card, CARD_COLS)}


def roc_chart(frontier: pd.DataFrame | None, roc: pd.DataFrame | None, card: pd.DataFrame | None,
              cap: pd.DataFrame | None) -> alt.LayerChart:
    """The ROC plane: the FPR-cap frontier (best train TPR per cap), the card's own ROC
    over its score thresholds, the card as a point, and the current cap as a rule.

    ``frontier``: columns key, cap, tpr, fpr, error, size, status (one row per solved cap);
    ``roc``: threshold, fpr, tpr; ``card``: one row with tpr, fpr, error, size, status;
    ``cap``: zero or one row with the current cap.
    """
    d = roc_datasets(frontier, roc, card, cap)
    x = alt.X("fpr:Q", title="false positive rate (train)", scale=alt.Scale(domain=[0, 1], nice=False),
              axis=alt.Axis(format="%"))
    y = alt.Y("tpr:Q", title="true positive rate (train)", scale=alt.Scale(domain=[0, 1], nice=False),
              axis=alt.Axis(format="%"))
    cap_rule = alt.Chart(_data("cap", d)).mark_rule(strokeDash=[4, 3], color=FRONTIER_COLOR, opacity=0.6).encode(
        x=alt.X("cap:Q", scale=alt.Scale(domain=[0, 1], nice=False)))
    own_roc = alt.Chart(_data("roc", d)).mark_line(color=ROC_COLOR, strokeWidth=1.5, interpolate="step-after").encode(
        x=x, y=y, order=alt.Order("threshold:Q", sort="descending"))
    front_line = alt.Chart(_data("frontier", d)).mark_line(color=FRONTIER_COLOR, opacity=0.5).encode(
        x=x, y=y, order="fpr:Q")
    front_pts = alt.Chart(_data("frontier", d)).mark_point(
        filled=True, size=70, color=FRONTIER_COLOR, cursor="pointer").encode(
        x=x, y=y,
        tooltip=[alt.Tooltip("cap:Q", title="max FPR cap", format=".0%"), _pct("tpr", "TPR"), _pct("fpr", "FPR"),
                 alt.Tooltip("size:Q", title="features"), alt.Tooltip("status:N", title="status")])
    me = alt.Chart(_data("card", d)).mark_point(
        shape="diamond", filled=True, size=160, color=CARD_COLOR, stroke="white", strokeWidth=1).encode(
        x=x, y=y, tooltip=[_pct("tpr", "TPR"), _pct("fpr", "FPR"), alt.Tooltip("size:Q", title="features"),
                           alt.Tooltip("status:N", title="status")])
    return alt.layer(cap_rule, own_roc, front_line, front_pts, me).properties(
        width=WIDTH, height=HEIGHT, title="ROC plane: frontier by FPR cap · this card")


def sparsity_chart(path: pd.DataFrame | None, card: pd.DataFrame | None) -> alt.LayerChart:
    """Train error against model size along the path max_size = 1, 2, ...

    ``path``: columns key, max_size, tpr, fpr, error, size, status; ``card``: one row.
    """
    d = sparsity_datasets(path, card)
    x = alt.X("size:Q", title="features used", scale=alt.Scale(domainMin=0, nice=False, zero=True),
              axis=alt.Axis(tickMinStep=1, format="d"))
    y = alt.Y("error:Q", title="train error", scale=alt.Scale(zero=True), axis=alt.Axis(format="%"))
    line = alt.Chart(_data("path", d)).mark_line(color=FRONTIER_COLOR, opacity=0.5).encode(
        x=x, y=y, order="max_size:Q")
    pts = alt.Chart(_data("path", d)).mark_point(
        filled=True, size=70, color=FRONTIER_COLOR, cursor="pointer").encode(
        x=x, y=y, tooltip=[alt.Tooltip("max_size:Q", title="max size"), alt.Tooltip("size:Q", title="features"),
                           _pct("error", "error"), _pct("tpr", "TPR"), _pct("fpr", "FPR"),
                           alt.Tooltip("status:N", title="status")])
    me = alt.Chart(_data("path_card", d)).mark_point(
        shape="diamond", filled=True, size=160, color=CARD_COLOR, stroke="white", strokeWidth=1).encode(
        x=x, y=y, tooltip=[_pct("error", "error"), alt.Tooltip("size:Q", title="features"),
                           alt.Tooltip("status:N", title="status")])
    return alt.layer(line, pts, me).properties(width=WIDTH, height=HEIGHT, title="sparsity: train error by size")


def split_datasets(chart: alt.TopLevelMixin | dict) -> tuple[dict, dict[str, list]]:
    """(spec with every named inline data set replaced by a reference, {name: rows}).

    The structure stays equal while only data change, so a view re-embeds only
    when the structure changes and otherwise swaps rows in place.
    """
    spec = chart if isinstance(chart, dict) else chart.to_dict()
    spec = copy.deepcopy(spec)
    datasets: dict[str, list] = {}

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            data = node.get("data")
            if isinstance(data, dict) and "name" in data and "values" in data:
                datasets[data["name"]] = data["values"]
                node["data"] = {"name": data["name"]}
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(spec)
    top = spec.pop("datasets", None) or {}
    datasets.update({k: v for k, v in top.items() if k not in datasets})
    return spec, datasets
