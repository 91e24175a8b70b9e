"""The studio's groups, on screen: the group column picker and the gap slider beside the FPR
slider, the per-group table under the card (``static/groups.js``) and one mark per group on
the ROC plane. The logic is the controller's (:mod:`slimwidgets.widgets.groups`); this module
turns it into widgets, payloads and chart layers."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import altair as alt
import anywidget
import ipywidgets as W
import pandas as pd
import traitlets as T

from ..core.family import family_of_card
from ..core.formatting import percent
from .charts import HEIGHT, WIDTH, records
from .groups import GROUP_COLORS, GROUP_SHAPES

if TYPE_CHECKING:
    from .studio import Studio

__all__ = [
    "GroupsView",
    "GroupPanel",
    "groups_payload",
    "group_marks",
    "decision_words",
    "group_marks_chart",
    "group_marks_layers",
    "with_group_marks",
    "GROUP_MARK_COLS",
    "label_places",
]

GROUP_MARK_COLS = ["group", "tpr", "fpr", "n", "color", "shape", "at", "label_fpr", "label_tpr"]
STATIC = (
    Path(__file__).parent / "static"
)  # the built bundle of js/src (the studio checks it is there)


class GroupsView(anywidget.AnyWidget):
    """The status in words and the per-group table under the card."""

    _esm = STATIC / "groups.js"
    _css = STATIC / "groups.css"
    view = T.Dict().tag(sync=True)


def _count(n: float) -> str:
    return f"{n:,.0f}" if float(n).is_integer() else f"{n:,.1f}"


def _figures(row: pd.Series | None) -> dict | None:
    if row is None:
        return None
    return {
        "n": _count(row["n"]),
        "TPR": percent(row["TPR"]),
        "FPR": percent(row["FPR"]),
        "error": percent(row["error"]),
    }


def groups_payload(controller: Any, notice: str = "") -> dict:
    """What the per-group table shows, read from the controller: the column, the status in
    words, a note (a refused setting or a clash, said in place) and one row per group with its
    train and held-out figures, its colour and shape as on the ROC plane."""
    c = controller
    if c.group is None:
        hint = "pick a group column to see the card in each group" if c.group_columns else ""
        return {"column": None, "hint": hint, "notice": notice}
    frame = c.group_frame()
    failed = c.status.state in ("infeasible", "error")
    note = notice or (c.status.text if failed else "")
    if frame is None:
        return {
            "column": c.group,
            "status": "no card yet",
            "level": "warning",
            "rows": [],
            "notice": note,
            "held_out": False,
        }
    train = frame[frame["set"] == "train"].set_index("group")
    held = frame[frame["set"] == "validation"].set_index("group")
    rows = [
        {
            "group": str(g),
            "color": r["color"],
            "shape": r["shape"],
            "train": _figures(r),
            "held_out": _figures(held.loc[g]) if g in held.index else None,
        }
        for g, r in train.iterrows()
    ]
    return {
        "column": c.group,
        "status": c.group_status(),
        "level": "info",
        "rows": rows,
        "notice": note,
        "notice_level": "error",
        "held_out": c.validation is not None,
    }


def decision_words(card: Any) -> str:
    """Where ``card`` predicts positive, in words: the point of its ROC curve the group marks
    stand at (a risk card decides at a predicted risk of 50 %, where score + intercept is 0).

    Examples
    --------
    >>> from slimwidgets.core.scoring import ScoringSystem
    >>> decision_words(ScoringSystem(("a",), (2,), -1))
    'score \u2265 1'
    >>> decision_words(ScoringSystem(("a",), (2,), -1, family="risk", multiplier=2.0))
    'score \u2265 1 (predicted risk \u2265 50 %)'
    """
    if card is None:
        return ""
    sign = "\u2265" if card.rule == ">=" else ">"
    words = f"score {sign} {card.threshold}"
    return words + (f" (predicted risk {sign} 50 %)" if family_of_card(card).predicts_risk else "")


def group_marks(frame: pd.DataFrame | None, card: Any = None) -> pd.DataFrame:
    """The ROC plane's group marks (training rows): one row per group with its TPR, FPR,
    weight, colour and shape, at ``card``'s decision (``at``, :func:`decision_words`), and where
    its label goes (``label_fpr``, ``label_tpr``: the label's centre, :func:`label_places`)."""
    if frame is None or not len(frame):
        return pd.DataFrame(columns=GROUP_MARK_COLS)
    train = frame[frame["set"] == "train"].assign(at=decision_words(card))
    marks = train.rename(columns={"TPR": "tpr", "FPR": "fpr"}).reset_index(drop=True)
    marks[["label_fpr", "label_tpr"]] = label_places(marks, avoid=_card_marks(card))
    return marks[GROUP_MARK_COLS]


#: a group label's font (px, bold) and the width of one of its characters at most (a generous
#: mean of sans-serif bold letters at 11 px; the browser test measures the labels drawn)
LABEL_FONT, LABEL_CHAR = 11, 7.2
#: from a group mark's centre to the nearest edge of its label, and the marks' own half size (px)
LABEL_GAP, MARK_HALF = 7.0, 6.0
#: where a label may go around its mark, in order of preference: (right, up) in -1, 0, 1
LABEL_SIDES = ((1, 1), (1, 0), (1, -1), (-1, 1), (-1, 0), (-1, -1), (0, 1), (0, -1))


def _card_marks(card: Any) -> list[tuple[float, float, float, float]]:
    """What else the ROC plane writes or draws where a group label could land (boxes in the
    plot's pixels, ``(left, top, right, bottom)``): a decision card's own point, a risk card's AUC
    line in the lower right corner (:func:`~slimwidgets.widgets.charts.risk_roc_chart`)."""
    if card is None or card.train_metrics is None:
        return []
    if family_of_card(card).predicts_risk:
        chars = len("AUC train 0.000") + (
            len(" · held-out 0.000") if card.validation_metrics is not None else 0
        )
        return [(WIDTH - 4 - 8.0 * chars, HEIGHT - 4 - 16, WIDTH, HEIGHT)]
    x, y = card.train_metrics.fpr * WIDTH, (1 - card.train_metrics.tpr) * HEIGHT
    return [(x - 8, y - 8, x + 8, y + 8)]


def _overlap(a: tuple, b: tuple) -> float:
    """The area two boxes ``(left, top, right, bottom)`` share."""
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def label_places(
    marks: pd.DataFrame, width: float = WIDTH, height: float = HEIGHT, avoid: list[tuple] = ()
) -> pd.DataFrame:
    """Where each group's label goes on the ROC plane: beside its mark (right and above when
    there is room), inside the plot, clear of the other groups' marks and labels and of the
    ``avoid`` boxes (pixels ``(left, top, right, bottom)``): the first side of
    :data:`LABEL_SIDES` that is free; else one moved up or down by whole label heights (groups
    that share a point, a corner) until it is; else the least covered, pushed inside the plot.

    The plot keeps its size in its own units at every width (the chart's SVG is scaled as a
    whole), so places found in them hold at every width. Returns the labels' centres as
    ``label_fpr`` and ``label_tpr``, in the plot's units (0 to 1).

    Examples
    --------
    >>> import pandas as pd
    >>> marks = pd.DataFrame({"group": ["F", "M"], "tpr": [0.999, 0.5], "fpr": [0.2, 0.5]})
    >>> places = label_places(marks)
    >>> bool(places.loc[0, "label_tpr"] < 0.999)  # below its mark: above it there is no room
    True
    >>> # right and above
    >>> bool(places.loc[1, "label_tpr"] > 0.5 and places.loc[1, "label_fpr"] > 0.5)
    True
    """
    h = LABEL_FONT + 2.0
    points = [
        (float(f) * width, (1 - float(t)) * height) for f, t in zip(marks["fpr"], marks["tpr"])
    ]
    dots = [(x - MARK_HALF, y - MARK_HALF, x + MARK_HALF, y + MARK_HALF) for x, y in points]
    placed: list[tuple] = []
    for i, ((x, y), name) in enumerate(zip(points, marks["group"].astype(str))):
        w = LABEL_CHAR * len(name) + 2.0
        others = [d for j, d in enumerate(dots) if j != i] + placed + list(avoid)
        best, best_cost = None, math.inf
        for box in _label_boxes(x, y, w, h, height):
            cost = 10 * (w * h - _overlap(box, (0, 0, width, height))) + sum(
                _overlap(box, o) for o in others
            )
            cost = (
                0.0 if cost < 1e-6 else cost
            )  # (a box inside the plot leaves a rounding error outside)
            if cost < best_cost:
                best, best_cost = box, cost
            if cost == 0:
                break
        # pushed inside the plot whatever overlap is left (a label cut by the frame is worse)
        dx = max(0.0, -best[0]) - max(0.0, best[2] - width)
        dy = max(0.0, -best[1]) - max(0.0, best[3] - height)
        placed.append((best[0] + dx, best[1] + dy, best[2] + dx, best[3] + dy))
    centres = [((b[0] + b[2]) / 2 / width, 1 - (b[1] + b[3]) / 2 / height) for b in placed]
    return pd.DataFrame(centres, columns=["label_fpr", "label_tpr"], index=marks.index)


def _label_boxes(x: float, y: float, w: float, h: float, height: float):
    """The boxes a ``w`` by ``h`` label of the mark at ``(x, y)`` may take, best first: each
    side of :data:`LABEL_SIDES`, then each moved by 1, 2, ... label heights up and down."""
    sides = []
    for right, up in LABEL_SIDES:
        cx = x + right * (LABEL_GAP + w / 2)
        cy = y - up * (LABEL_GAP / 2 + h / 2) if right else y - up * (LABEL_GAP + h / 2)
        sides.append((cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2))
    yield from sides
    for k in range(1, int(height // h) + 1):
        for shift in (k * h, -k * h):
            for box in sides:
                yield box[0], box[1] + shift, box[2], box[3] + shift


def group_marks_layers(marks: pd.DataFrame | None) -> list[alt.Chart]:
    """One mark per group on the ROC plane, in its colour-blind-safe colour and its own shape,
    labelled with the group's name: layers to add to :func:`~slimwidgets.widgets.charts.roc_chart`
    (see :func:`with_group_marks`; they read the named data set ``groups``, whose rows carry
    their colour and shape from :func:`~slimwidgets.widgets.groups.group_frame`)."""
    data = alt.InlineData(values=records(marks, GROUP_MARK_COLS), name="groups")
    x = alt.X("fpr:Q", scale=alt.Scale(domain=[0, 1], nice=False))
    y = alt.Y("tpr:Q", scale=alt.Scale(domain=[0, 1], nice=False))
    tip = [
        alt.Tooltip("group:N", title="group"),
        alt.Tooltip("tpr:Q", title="TPR", format=".1%"),
        alt.Tooltip("fpr:Q", title="FPR", format=".1%"),
        alt.Tooltip("n:Q", title="rows"),
        alt.Tooltip("at:N", title="the card's decision"),
    ]
    # one layer per colour and shape, both set on the mark: an encoded colour or shape would split
    # the chart's merged colour-and-shape legend in two (group i has colour i and shape i, mod 7)
    points, labels = [], []
    for color, shape in zip(GROUP_COLORS, GROUP_SHAPES):
        mine = alt.Chart(data).transform_filter(alt.datum.shape == shape)
        points.append(
            mine.mark_point(
                shape=shape,
                color=color,
                filled=True,
                size=90,
                opacity=1,
                stroke="white",
                strokeWidth=0.8,
            ).encode(x=x, y=y, tooltip=tip)
        )
        # each label at the centre label_places chose for it: inside the plot, clear of the others
        labels.append(
            mine.mark_text(
                align="center",
                baseline="middle",
                fontSize=LABEL_FONT,
                fontWeight="bold",
                color=color,
            ).encode(
                x=alt.X("label_fpr:Q", scale=alt.Scale(domain=[0, 1], nice=False)),
                y=alt.Y("label_tpr:Q", scale=alt.Scale(domain=[0, 1], nice=False)),
                text="group:N",
                tooltip=tip,
            )
        )
    return points + labels


def group_marks_chart(marks: pd.DataFrame | None) -> alt.LayerChart:
    """The group marks alone, as one chart (:func:`group_marks_layers`)."""
    return alt.layer(*group_marks_layers(marks))


def with_group_marks(roc: alt.LayerChart, marks: pd.DataFrame | None) -> alt.LayerChart:
    """``roc`` (:func:`~slimwidgets.widgets.charts.roc_chart`) with the group marks as layers of
    its own (one level: a nested layer would split its merged legend in two)."""
    out = roc.copy()
    # each layer keeps its own named data (alt.layer would hoist the shared data set out of them)
    out.layer = list(roc.layer) + group_marks_layers(marks)
    return out


def _grow(basis: str, min_width: str = "0", max_width: str = "none") -> W.Layout:
    return W.Layout(flex=f"1 1 {basis}", width="auto", min_width=min_width, max_width=max_width)


class GroupPanel:
    """The group controls and view of a :class:`~slimwidgets.widgets.studio.Studio` (a part of
    it: it builds the studio's group widgets, reads its ``controller``, ``own_changes``,
    ``ui_lock`` and ``message``).

    Parameters
    ----------
    studio : the studio whose group controls these are.
    """

    def __init__(self, studio: Studio) -> None:
        self._s = studio
        self._group_note = (
            ""  # a refused group setting, said in the table's place until the next change
        )

    def build_group_controls(self) -> None:
        """The column picker, and the gap slider with its rate and its "no gap" box."""
        c = self._s.controller
        style = {"description_width": "88px"}
        options = [("no groups", None)] + [(name, name) for name in c.group_columns]
        self._s.group_pick = W.Dropdown(
            options=options,
            value=c.group,
            description="groups",
            style=style,
            layout=_grow("200px", "180px", "300px"),
            tooltip="the column whose groups the card is measured in and held to the gap in",
        )
        rate, bound = c.gap_control()
        self._s.gap_rate = W.Dropdown(
            options=[("TPR gap", "TPR"), ("FPR gap", "FPR")],
            value=rate,
            layout=W.Layout(flex="0 0 auto", width="auto"),
        )
        self._s.gap_slider = W.FloatSlider(
            value=0.05 if bound is None else bound,
            min=0.0,
            max=0.5,
            step=0.005,
            description="max",
            readout_format=".1%",
            continuous_update=True,
            disabled=bound is None,
            style={"description_width": "32px"},
            layout=_grow("200px", "170px", "360px"),
            tooltip="the largest difference allowed between two groups' rates",
        )
        self._s.gap_none = W.Checkbox(
            value=bound is None,
            description="no gap",
            indent=False,
            layout=W.Layout(flex="0 0 auto", width="auto"),
        )
        for w, cls in (
            (self._s.group_pick, "sw-group-pick"),
            (self._s.gap_rate, "sw-gap-rate"),
            (self._s.gap_slider, "sw-max-gap"),
            (self._s.gap_none, "sw-max-gap-none"),
        ):
            w.add_class(cls)
        self._s.group_pick.observe(self.on_group, "value")
        for w in (self._s.gap_rate, self._s.gap_slider, self._s.gap_none):
            w.observe(self.on_gap, "value")
        self._s.groups_view = GroupsView(layout=W.Layout(display="none"))
        self._s.groups_view.add_class("sw-groups-view")
        self._s.group_widgets = [
            self._s.group_pick,
            self._s.gap_rate,
            self._s.gap_slider,
            self._s.gap_none,
            self._s.groups_view,
        ]

    def group_rows(self, pair: dict) -> list[W.Widget]:
        """The picker and the gap slider, as rows of the controls (beside the FPR slider)."""
        gap = W.Box(
            [self._s.gap_rate, self._s.gap_slider, self._s.gap_none],
            layout=W.Layout(display="flex", align_items="center", overflow="visible", **pair),
        )
        gap.add_class("sw-pair")
        gap.add_class("sw-gap-pair")
        return [gap, self._s.group_pick] if self._s.controller.group_columns else []

    def group_call(self, fn, *args) -> None:
        """Run a group action; a refusal is said in the table's place as well
        as in the message line."""
        try:
            fn(*args)
        except (ValueError, TypeError, KeyError, RuntimeError) as exc:
            self._group_note = str(exc.args[0] if exc.args else exc)
            self._s.guard(lambda: (_ for _ in ()).throw(exc))  # noqa: F821  (called at once, exc still bound)
            self.sync_group_controls()
        else:
            self._group_note = ""
            self._s.show_notice()
        self.refresh_groups()

    def on_group(self, change) -> None:
        if not self._s.syncing:
            self.group_call(self._s.controller.set_group, change["new"])

    def on_gap(self, _change) -> None:
        if self._s.syncing:
            return
        self._s.gap_slider.disabled = self._s.gap_none.value
        value = None if self._s.gap_none.value else round(self._s.gap_slider.value, 4)
        self.group_call(self._s.controller.set_gap, self._s.gap_rate.value, value)

    def sync_group_controls(self) -> None:
        """The picker and the gap follow the controller (after undo, a clash, a refusal)."""
        c = self._s.controller
        with self._s.own_changes.showing():
            self._s.group_pick.value = c.group
            rate, bound = c.gap_control()
            self._s.gap_rate.value = rate
            self._s.gap_none.value = bound is None
            self._s.gap_slider.disabled = bound is None
            if bound is not None:
                self._s.gap_slider.value = min(bound, self._s.gap_slider.max)

    def refresh_groups(self) -> None:
        with self._s.ui_lock:
            if not self._s.controller.group_columns:
                return
            view = groups_payload(self._s.controller, self._group_note)
            if self._s.groups_view.view != view:
                self._s.groups_view.view = view
            # without a column the card keeps its place: the table takes no
            # room (a refusal still shows)
            shown = view["column"] is not None or bool(view.get("notice"))
            self._s.groups_view.layout.display = None if shown else "none"

    def group_marks(self) -> pd.DataFrame:
        return group_marks(self._s.controller.group_frame(), self._s.controller.card)
