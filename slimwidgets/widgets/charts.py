"""Altair chart builders of the studio (pure functions of DataFrames). The renderer that draws
any chart with the Vega bundled in this package is :mod:`slimwidgets.widgets.offline`.

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

__all__ = [
    "roc_chart",
    "sparsity_chart",
    "roc_datasets",
    "sparsity_datasets",
    "split_datasets",
    "records",
    "best_by_size",
    "risk_roc_chart",
    "risk_roc_datasets",
    "calibration_chart",
    "calibration_datasets",
]

WIDTH, HEIGHT = 330, 230
# The studio updates a drawn chart's data in place (the size path fills in, a new card moves): the
# layout is measured again each time, so axis labels that grow (log-loss "0.440") are never cut off.
FIT_LABELS = alt.AutoSizeParams(type="pad", resize=True)
FRONTIER_COLOR = "#1f5fa8"
CARD_COLOR = "#d1495b"
ROC_COLOR = "#8a8a8a"
CAP_COLOR = "#e07b00"

# What each layer is, as its legend says it; the legend draws each with its own symbol.
FRONTIER, THIS_CARD, CARD_ROC, CAP = (
    "best TPR per FPR cap",
    "this card",
    "this card, other thresholds",
    "max FPR cap",
)
BEST_BY_SIZE = "best card of each size"
HELD_OUT = " (held-out)"  # the same series measured on the validation rows (the frames' set column)
_SYMBOL = {
    FRONTIER: "circle",
    BEST_BY_SIZE: "circle",
    THIS_CARD: "diamond",
    CARD_ROC: "stroke",
    CAP: "stroke",
}
_LIGHTER = {FRONTIER_COLOR: "#8fb8e6", CARD_COLOR: "#f2a2ac"}


def _legend(series: dict[str, str], held_out: bool, measured: tuple[str, ...]) -> dict[str, str]:
    """{series name: colour}, with a lighter held-out twin of each ``measured`` series."""
    out = dict(series)
    if held_out:
        for name in measured:
            out[name + HELD_OUT] = _LIGHTER[series[name]]
    return out


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


def _percent_tooltip(field: str, title: str, **kw) -> alt.Tooltip:
    return alt.Tooltip(f"{field}:Q", title=title, format=".1%", **kw)


def _series(chart: alt.Chart, name: str, legend: dict[str, str]) -> alt.Chart:
    """Colour ``chart`` as the series ``name`` of a legend shared by every
    layer ({name: colour})."""
    legend_kw = {
        "orient": "bottom",
        "columns": 2,
        "labelLimit": 240,
        "symbolStrokeWidth": 2,
        "symbolOpacity": 1,
        "columnPadding": 14,
        "title": None,
    }
    color = alt.Color(
        "series:N",
        scale=alt.Scale(domain=list(legend), range=list(legend.values())),
        legend=alt.Legend(**legend_kw),
    )
    # the shape scale (same field, same domain) merges into the colour legend: a
    # line is drawn as a stroke
    shape = alt.Shape(
        "series:N",
        scale=alt.Scale(
            domain=list(legend), range=[_SYMBOL[n.removesuffix(HELD_OUT)] for n in legend]
        ),
        legend=alt.Legend(**legend_kw),
    )
    held = (
        f" + (datum.set === 'validation' ? {HELD_OUT!r} : '')" if name + HELD_OUT in legend else ""
    )
    chart = chart.transform_calculate(series=repr(name) + held).encode(color=color)
    return chart.encode(shape=shape) if chart.mark.type == "point" else chart


FRONTIER_COLS = ["key", "cap", "tpr", "fpr", "error", "size", "status", "set"]
ROC_COLS = ["threshold", "fpr", "tpr"]
CARD_COLS = ["tpr", "fpr", "error", "size", "status", "set"]
CAP_COLS = ["cap"]
PATH_COLS = [
    "key",
    "max_size",
    "tpr",
    "fpr",
    "error",
    "size",
    "status",
    "max_sizes",
    "set",
    "log_loss",
]


def roc_datasets(
    frontier: pd.DataFrame | None,
    roc: pd.DataFrame | None,
    card: pd.DataFrame | None,
    cap: pd.DataFrame | None,
) -> dict[str, list]:
    """The rows of each named data set of :func:`roc_chart` (what a live view swaps in)."""
    return {
        "cap": records(cap, CAP_COLS),
        "roc": records(roc, ROC_COLS),
        "frontier": records(frontier, FRONTIER_COLS),
        "card": records(card, CARD_COLS),
    }


def best_by_size(path: pd.DataFrame | None, measure: str = "error") -> pd.DataFrame | None:
    """One row per model size: the card of lowest training error (or ``measure``, e.g.
    ``"log_loss"`` for risk cards) among those of that size.

    Along the path max_size = 1, 2, ... the cards stop growing once a larger size no longer
    pays, so several max sizes give the same size (and often the same card); drawn as they
    are they stack on one point. The row kept is the smallest max size that reached that
    error (clicking it loads that card); ``max_sizes`` says which max sizes gave that size.
    Held-out rows (``set`` "validation") are kept for the same cards, chosen on training error.

    >>> import pandas as pd
    >>> path = pd.DataFrame({"key": list("abcd"), "max_size": [1, 2, 3, 4], "size": [1, 2, 2, 2],
    ...                      "error": [0.2, 0.1, 0.1, 0.1]})
    >>> best_by_size(path)[["key", "size", "max_sizes"]].to_dict("records")
    [{'key': 'a', 'size': 1, 'max_sizes': '1'}, {'key': 'b', 'size': 2, 'max_sizes': '2–4'}]
    """
    if path is None or len(path) == 0 or "size" not in path:
        return path
    held = path["set"].eq("validation") if "set" in path else pd.Series(False, index=path.index)
    rows = []
    for _, group in path[~held].dropna(subset=["size", measure]).groupby("size", sort=True):
        best = group.sort_values([measure, "max_size"], kind="stable").iloc[0].copy()
        lo, hi = int(group["max_size"].min()), int(group["max_size"].max())
        best["max_sizes"] = str(lo) if lo == hi else f"{lo}–{hi}"
        rows.append(best)
    if not rows:
        return path.iloc[:0]
    best = pd.DataFrame(rows).reset_index(drop=True)
    twins = path[held].merge(
        best[["key", "max_sizes"]], on="key"
    )  # the same cards on the held-out rows
    return pd.concat([best, twins[best.columns]], ignore_index=True) if len(twins) else best


def sparsity_datasets(
    path: pd.DataFrame | None, card: pd.DataFrame | None, measure: str = "error"
) -> dict[str, list]:
    """The rows of each named data set of :func:`sparsity_chart` (one path point per size)."""
    cols = CARD_COLS + (["log_loss"] if measure == "log_loss" else [])
    return {
        "path": records(best_by_size(path, measure), PATH_COLS),
        "path_card": records(card, cols),
    }


def roc_chart(
    frontier: pd.DataFrame | None,
    roc: pd.DataFrame | None,
    card: pd.DataFrame | None,
    cap: pd.DataFrame | None,
    held_out: bool = False,
) -> alt.LayerChart:
    """The ROC plane: the FPR-cap frontier (best train TPR per cap), the card's own ROC
    over its score thresholds, the card as a point, and the current cap as a rule.

    ``frontier``: columns key, cap, tpr, fpr, error, size, status (one row per solved cap);
    ``roc``: threshold, fpr, tpr; ``card``: one row with tpr, fpr, error, size, status;
    ``cap``: zero or one row with the current cap. With ``held_out``, rows of ``frontier``
    and ``card`` whose ``set`` is "validation" are drawn as their own, lighter series.
    """
    d = roc_datasets(frontier, roc, card, cap)
    legend = _legend(
        {FRONTIER: FRONTIER_COLOR, THIS_CARD: CARD_COLOR, CARD_ROC: ROC_COLOR, CAP: CAP_COLOR},
        held_out,
        (FRONTIER, THIS_CARD),
    )
    rows = "" if held_out else " (train)"
    x = alt.X(
        "fpr:Q",
        title=f"false positive rate{rows}",
        scale=alt.Scale(domain=[0, 1], nice=False),
        axis=alt.Axis(format="%"),
    )
    y = alt.Y(
        "tpr:Q",
        title=f"true positive rate{rows}",
        scale=alt.Scale(domain=[0, 1], nice=False),
        axis=alt.Axis(format="%"),
    )
    measured_on = [alt.Tooltip("set:N", title="rows")] if held_out else []
    cap_rule = _series(
        alt.Chart(_data("cap", d))
        .mark_rule(strokeDash=[4, 3], opacity=0.8)
        .encode(x=alt.X("cap:Q", scale=alt.Scale(domain=[0, 1], nice=False))),
        CAP,
        legend,
    )
    own_roc = _series(
        alt.Chart(_data("roc", d))
        .mark_line(strokeWidth=1.5, interpolate="step-after")
        .encode(x=x, y=y, order=alt.Order("threshold:Q", sort="descending")),
        CARD_ROC,
        legend,
    )
    front_line = _series(
        alt.Chart(_data("frontier", d)).mark_line(opacity=0.5).encode(x=x, y=y, order="fpr:Q"),
        FRONTIER,
        legend,
    )
    front_pts = _series(
        alt.Chart(_data("frontier", d)).mark_point(
            filled=True, size=70, opacity=1, cursor="pointer"
        ),
        FRONTIER,
        legend,
    ).encode(
        x=x,
        y=y,
        tooltip=[
            alt.Tooltip("cap:Q", title="max FPR cap", format=".0%"),
            _percent_tooltip("tpr", "TPR"),
            _percent_tooltip("fpr", "FPR"),
            alt.Tooltip("size:Q", title="features"),
            alt.Tooltip("status:N", title="status"),
        ]
        + measured_on,
    )
    me = _series(
        alt.Chart(_data("card", d)).mark_point(
            shape="diamond", filled=True, size=160, opacity=1, stroke="white", strokeWidth=1
        ),
        THIS_CARD,
        legend,
    ).encode(
        x=x,
        y=y,
        tooltip=[
            _percent_tooltip("tpr", "TPR"),
            _percent_tooltip("fpr", "FPR"),
            alt.Tooltip("size:Q", title="features"),
            alt.Tooltip("status:N", title="status"),
        ]
        + measured_on,
    )
    return alt.layer(cap_rule, own_roc, front_line, front_pts, me).properties(
        width=WIDTH,
        height=HEIGHT,
        autosize=FIT_LABELS,
        title="ROC plane (train and held-out)" if held_out else "ROC plane (train)",
    )


def sparsity_chart(
    path: pd.DataFrame | None,
    card: pd.DataFrame | None,
    held_out: bool = False,
    measure: str = "error",
) -> alt.LayerChart:
    """Train error (or, ``measure="log_loss"``, the log-loss of risk cards) against model size:
    the best card of each size along the path max_size = 1, 2, ...

    ``path``: columns key, max_size, tpr, fpr, error, size, status (and log_loss); ``card``: one
    row. With ``held_out``, rows whose ``set`` is "validation" are drawn as their own series.
    """
    if measure == "log_loss":
        return _log_loss_by_size(path, card, held_out)
    d = sparsity_datasets(path, card)
    legend = _legend(
        {BEST_BY_SIZE: FRONTIER_COLOR, THIS_CARD: CARD_COLOR}, held_out, (BEST_BY_SIZE, THIS_CARD)
    )
    x = alt.X(
        "size:Q",
        title="features used",
        scale=alt.Scale(domainMin=0, nice=False, zero=True),
        axis=alt.Axis(tickMinStep=1, format="d"),
    )
    y = alt.Y(
        "error:Q",
        title="error" if held_out else "train error",
        scale=alt.Scale(zero=True),
        axis=alt.Axis(format="%"),
    )
    line = _series(
        alt.Chart(_data("path", d)).mark_line(opacity=0.5).encode(x=x, y=y, order="size:Q"),
        BEST_BY_SIZE,
        legend,
    )
    pts = _series(
        alt.Chart(_data("path", d)).mark_point(filled=True, size=70, opacity=1, cursor="pointer"),
        BEST_BY_SIZE,
        legend,
    ).encode(
        x=x,
        y=y,
        tooltip=[
            alt.Tooltip("max_sizes:N", title="best for max size"),
            alt.Tooltip("size:Q", title="features"),
            _percent_tooltip("error", "error"),
            _percent_tooltip("tpr", "TPR"),
            _percent_tooltip("fpr", "FPR"),
            alt.Tooltip("status:N", title="status"),
        ],
    )
    me = _series(
        alt.Chart(_data("path_card", d)).mark_point(
            shape="diamond", filled=True, size=160, opacity=1, stroke="white", strokeWidth=1
        ),
        THIS_CARD,
        legend,
    ).encode(
        x=x,
        y=y,
        tooltip=[
            _percent_tooltip("error", "error"),
            alt.Tooltip("size:Q", title="features"),
            alt.Tooltip("status:N", title="status"),
        ],
    )
    title = (
        "sparsity: error by size (train and held-out)"
        if held_out
        else "sparsity: train error by size"
    )
    return alt.layer(line, pts, me).properties(
        width=WIDTH, height=HEIGHT, autosize=FIT_LABELS, title=title
    )


# -- risk cards ------------------------------------------------------------------------------------
RISK_ROC_COLS = ["threshold", "fpr", "tpr", "set", "risk"]
AUC_COLS = ["text"]
_SET_NAMES = {"train": "train", "validation": "held-out"}


def risk_roc_datasets(roc: pd.DataFrame | None, card: pd.DataFrame | None) -> dict[str, list]:
    """The rows of :func:`risk_roc_chart`: the card's ROC (train, held-out) and its AUC line."""
    aucs = (
        []
        if card is None or "auc" not in card
        else [
            f"{_SET_NAMES.get(r['set'], r['set'])} {r['auc']:.3f}"
            for r in records(card, ["set", "auc"])
            if r["auc"] is not None
        ]
    )
    return {
        "risk_roc": records(roc, RISK_ROC_COLS),
        "auc": [{"text": "AUC " + " · ".join(aucs)}] if aucs else [],
        "chance": [{"v": 0}, {"v": 1}],
    }


def risk_roc_chart(
    roc: pd.DataFrame | None, card: pd.DataFrame | None, held_out: bool = False
) -> alt.LayerChart:
    """A risk card's ROC plane: its own curve over every threshold of its score (train, and the
    held-out rows when there are some), the chance diagonal, and its AUC written in the plot.

    ``roc``: threshold, fpr, tpr, set, risk (the predicted risk at that threshold); ``card``:
    one row per set with its ``auc``. The FPR-cap frontier is a decision-card view: not drawn.
    """
    d = risk_roc_datasets(roc, card)
    legend = {"this card's ROC (train)": CARD_COLOR}
    if held_out:
        legend["this card's ROC (held-out)"] = _LIGHTER[CARD_COLOR]
    x = alt.X(
        "fpr:Q",
        title="false positive rate",
        scale=alt.Scale(domain=[0, 1], nice=False),
        axis=alt.Axis(format="%"),
    )
    y = alt.Y(
        "tpr:Q",
        title="true positive rate",
        scale=alt.Scale(domain=[0, 1], nice=False),
        axis=alt.Axis(format="%"),
    )
    color = alt.Color(
        "series:N",
        scale=alt.Scale(domain=list(legend), range=list(legend.values())),
        legend=alt.Legend(orient="bottom", title=None, labelLimit=240, symbolStrokeWidth=2),
    )
    series = (
        "datum.set === 'validation' ? \"this card's ROC (held-out)\" : \"this card's ROC (train)\""
    )
    tooltip = [
        alt.Tooltip("threshold:Q", title="predict positive from score"),
        _percent_tooltip("risk", "predicted risk there"),
        _percent_tooltip("tpr", "TPR"),
        _percent_tooltip("fpr", "FPR"),
        alt.Tooltip("set:N", title="rows"),
    ]
    base = (
        alt.Chart(_data("risk_roc", d))
        .transform_calculate(series=series)
        .encode(
            x=x, y=y, color=color, detail="set:N", order=alt.Order("threshold:Q", sort="descending")
        )
    )
    chance = (
        alt.Chart(_data("chance", d))
        .mark_line(color="#bbbbbb", strokeDash=[3, 3])
        .encode(x=alt.X("v:Q", scale=alt.Scale(domain=[0, 1])), y="v:Q")
    )
    line = base.mark_line(strokeWidth=2, interpolate="linear")
    points = base.mark_point(filled=True, size=40, opacity=1).encode(tooltip=tooltip)
    auc = (
        alt.Chart(_data("auc", d))
        .mark_text(align="right", baseline="bottom", dx=-4, dy=-4, fontSize=13, fontWeight="bold")
        .encode(x=alt.value(WIDTH), y=alt.value(HEIGHT), text="text:N")
    )
    return alt.layer(chance, line, points, auc).properties(
        width=WIDTH,
        height=HEIGHT,
        autosize=FIT_LABELS,
        title=alt.TitleParams(
            "ROC of this risk card, over its score thresholds",
            subtitle="the FPR-cap frontier is for decision cards",
        ),
    )


CALIBRATION_COLS = ["band", "set", "rows", "events", "predicted", "observed", "lower", "upper"]


def calibration_datasets(bands: pd.DataFrame | None) -> dict[str, list]:
    """The rows of :func:`calibration_chart`: one per score band and set of rows."""
    return {"calibration": records(bands, CALIBRATION_COLS), "diagonal": [{"v": 0}, {"v": 1}]}


def calibration_chart(bands: pd.DataFrame | None, held_out: bool = False) -> alt.LayerChart:
    """A risk card's calibration: per score band (sparse scores grouped), the mean predicted
    risk against the observed rate with its 95 % interval, train and held-out; on the
    diagonal a card's risks are what happened."""
    d = calibration_datasets(bands)
    legend = {"train": CARD_COLOR}
    if held_out:
        legend["held-out"] = _LIGHTER[CARD_COLOR]
    x = alt.X(
        "predicted:Q",
        title="predicted risk",
        scale=alt.Scale(domain=[0, 1], nice=False),
        axis=alt.Axis(format="%"),
    )
    y = alt.Y(
        "observed:Q",
        title="observed rate (95 % CI)",
        scale=alt.Scale(domain=[0, 1], nice=False),
        axis=alt.Axis(format="%"),
    )
    color = alt.Color(
        "rows_of:N",
        scale=alt.Scale(domain=list(legend), range=list(legend.values())),
        legend=alt.Legend(orient="bottom", title=None),
    )
    tips = [
        alt.Tooltip("band:N", title="total score"),
        alt.Tooltip("rows_of:N", title="rows"),
        _percent_tooltip("predicted", "predicted risk"),
        _percent_tooltip("observed", "observed rate"),
        _percent_tooltip("lower", "95 % CI from"),
        _percent_tooltip("upper", "95 % CI to"),
        alt.Tooltip("events:Q", title="events", format=".4~g"),
        alt.Tooltip("rows:Q", title="rows in band", format=".4~g"),
    ]
    base = (
        alt.Chart(_data("calibration", d))
        .transform_calculate(rows_of="datum.set === 'validation' ? 'held-out' : 'train'")
        .encode(x=x, color=color)
    )
    diagonal = (
        alt.Chart(_data("diagonal", d))
        .mark_line(color="#bbbbbb", strokeDash=[3, 3])
        .encode(x=alt.X("v:Q", scale=alt.Scale(domain=[0, 1])), y="v:Q")
    )
    bars = base.mark_rule(strokeWidth=2, opacity=0.7).encode(
        y=alt.Y("lower:Q", scale=alt.Scale(domain=[0, 1])), y2="upper:Q", tooltip=tips
    )
    points = base.mark_point(filled=True, opacity=1).encode(
        y=y, size=alt.Size("rows:Q", legend=None, scale=alt.Scale(range=[30, 200])), tooltip=tips
    )
    return alt.layer(diagonal, bars, points).properties(
        width=WIDTH,
        height=HEIGHT,
        autosize=FIT_LABELS,
        title=alt.TitleParams(
            "calibration: predicted risk against what happened",
            subtitle="per band of total scores (sparse scores grouped); on the diagonal the risks "
            "are right",
        ),
    )


def _log_loss_by_size(
    path: pd.DataFrame | None, card: pd.DataFrame | None, held_out: bool
) -> alt.LayerChart:
    """Log-loss against size for risk cards: the best risk card of each size (lower fits better)."""
    d = sparsity_datasets(path, card, "log_loss")
    legend = _legend(
        {BEST_BY_SIZE: FRONTIER_COLOR, THIS_CARD: CARD_COLOR}, held_out, (BEST_BY_SIZE, THIS_CARD)
    )
    x = alt.X(
        "size:Q",
        title="features used",
        scale=alt.Scale(domainMin=0, nice=False, zero=True),
        axis=alt.Axis(tickMinStep=1, format="d"),
    )
    y = alt.Y(
        "log_loss:Q",
        title="log-loss" if held_out else "train log-loss",
        scale=alt.Scale(zero=False),
        axis=alt.Axis(format=".3f"),
    )
    tips = [
        alt.Tooltip("size:Q", title="features"),
        alt.Tooltip("log_loss:Q", title="log-loss", format=".4f"),
    ]
    line = _series(
        alt.Chart(_data("path", d)).mark_line(opacity=0.5).encode(x=x, y=y, order="size:Q"),
        BEST_BY_SIZE,
        legend,
    )
    pts = _series(
        alt.Chart(_data("path", d)).mark_point(filled=True, size=70, opacity=1, cursor="pointer"),
        BEST_BY_SIZE,
        legend,
    ).encode(x=x, y=y, tooltip=[alt.Tooltip("max_sizes:N", title="best for max size")] + tips)
    me = _series(
        alt.Chart(_data("path_card", d)).mark_point(
            shape="diamond", filled=True, size=160, opacity=1, stroke="white", strokeWidth=1
        ),
        THIS_CARD,
        legend,
    ).encode(x=x, y=y, tooltip=tips)
    title = (
        "sparsity: log-loss by size (train and held-out)"
        if held_out
        else "sparsity: train log-loss by size"
    )
    return alt.layer(line, pts, me).properties(
        width=WIDTH, height=HEIGHT, autosize=FIT_LABELS, title=title
    )


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
