"""The studio's screen, built: its controls, feature panel, toolbar and views, arranged in rows
that wrap at any notebook width (the styles are in ``js/src/card.css``)."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

import ipywidgets as W

from ..core.by_variable import THRESHOLD_KINDS, kind_name

if TYPE_CHECKING:
    from .studio import Studio

__all__ = ["StudioLayout"]


# Widths come from the notebook: every row of the studio is a wrapping flexbox, and a control
# grows from a basis instead of holding a fixed pixel width (see Studio._arrange and card.css).
def _grow(basis: str, min_width: str = "0", max_width: str = "none") -> W.Layout:
    return W.Layout(flex=f"1 1 {basis}", width="auto", min_width=min_width, max_width=max_width)


def _fixed() -> W.Layout:
    return W.Layout(flex="0 0 auto", width="auto")


def _cell() -> W.Layout:
    """A cell of the feature grid: as wide as its column, which may shrink."""
    return W.Layout(width="auto", min_width="0")


def _row(children: list[W.Widget], cls: str, **layout: str) -> W.Box:
    """A row that wraps onto more lines when the notebook is narrow."""
    box = W.Box(
        children,
        layout=W.Layout(
            **{
                "display": "flex",
                "flex_flow": "row wrap",
                "align_items": "center",
                "overflow": "visible",
                **layout,
            }
        ),
    )
    box.add_class(cls)
    return box


def _features_title(n_features: int) -> str:
    return f"features ({n_features}): use · sign · penalty · points range"


class StudioLayout:
    """The widgets of a :class:`~slimwidgets.widgets.studio.Studio` and their arrangement (a
    part of it: the widgets it builds are the studio's attributes, the handlers it wires are
    the studio's :class:`~slimwidgets.widgets.requests.ViewRequests`).

    Parameters
    ----------
    studio : the studio whose screen this builds.
    """

    def __init__(self, studio: Studio) -> None:
        self._s = studio

    def build_controls(self) -> None:
        """The global controls: FPR cap, TPR floor, size, C0, points range, time limit."""
        s = self._s.controller.spec
        names = self._s.controller.data.feature_names
        style = {"description_width": "88px"}
        wide = _grow("320px", "260px", "460px")
        self._s.fpr_slider = W.FloatSlider(
            value=0.2 if s.max_fpr is None else s.max_fpr,
            min=0.0,
            max=1.0,
            step=0.01,
            description="max FPR",
            readout_format=".0%",
            continuous_update=True,
            disabled=s.max_fpr is None,
            style=style,
            layout=wide,
            tooltip="the cap on FPR (false-positive rate: the share of negative rows "
            "predicted positive); the card is the most sensitive one under it",
        )
        self._s.fpr_none = W.Checkbox(
            value=s.max_fpr is None, description="no cap", indent=False, layout=_fixed()
        )
        self._s.tpr_slider = W.FloatSlider(
            value=0.8 if s.min_tpr is None else s.min_tpr,
            min=0.0,
            max=1.0,
            step=0.01,
            description="min TPR",
            readout_format=".0%",
            continuous_update=True,
            disabled=s.min_tpr is None,
            style=style,
            layout=wide,
            tooltip="the floor on TPR (true-positive rate, sensitivity: the share of "
            "positive rows predicted positive)",
        )
        self._s.tpr_none = W.Checkbox(
            value=s.min_tpr is None, description="no floor", indent=False, layout=_fixed()
        )
        top = max(1, len(names))
        self._s.size_slider = W.IntSlider(
            value=top if s.max_size is None else min(s.max_size, top),
            min=0,
            max=top,
            description="max size",
            continuous_update=True,
            disabled=s.max_size is None,
            style=style,
            layout=wide,
        )
        self._s.size_none = W.Checkbox(
            value=s.max_size is None, description="no limit", indent=False, layout=_fixed()
        )
        self._s.c0_text = W.Text(
            value="" if s.C0 is None else f"{s.C0:g}",
            placeholder="auto",
            description="C0",
            continuous_update=False,
            style=style,
            layout=_grow("180px", "150px", "260px"),
        )
        self._s.range_slider = W.IntRangeSlider(
            value=tuple(s.coef_range),
            min=-20,
            max=20,
            step=1,
            description="points",
            continuous_update=False,
            style=style,
            layout=wide,
        )
        self._s.time_text = W.BoundedFloatText(
            value=s.time_limit if s.time_limit is not None else 60.0,
            min=0.1,
            max=3600,
            step=0.5,
            description="time limit s",
            style=style,
            layout=_grow("180px", "150px", "260px"),
        )
        for w, cls in (
            (self._s.fpr_slider, "sw-max-fpr"),
            (self._s.fpr_none, "sw-max-fpr-none"),
            (self._s.tpr_slider, "sw-min-tpr"),
            (self._s.tpr_none, "sw-min-tpr-none"),
            (self._s.size_slider, "sw-max-size"),
            (self._s.size_none, "sw-max-size-none"),
            (self._s.c0_text, "sw-c0"),
            (self._s.range_slider, "sw-coef-range"),
            (self._s.time_text, "sw-time-limit"),
        ):
            w.add_class(cls)
        self._s.fpr_slider.observe(self._s.requests.on_fpr, "value")
        self._s.fpr_none.observe(self._s.requests.on_fpr, "value")
        self._s.tpr_slider.observe(self._s.requests.on_tpr, "value")
        self._s.tpr_none.observe(self._s.requests.on_tpr, "value")
        self._s.size_slider.observe(self._s.requests.on_size, "value")
        self._s.size_none.observe(self._s.requests.on_size, "value")
        self._s.c0_text.observe(self._s.requests.on_c0, "value")
        self._s.range_slider.observe(self._s.requests.on_range, "value")
        self._s.time_text.observe(self._s.requests.on_time, "value")

    def build_variable_caps(self) -> None:
        """Beside max size, the caps by variable (a table of raw columns only): at most K
        variables, at most k cut points per variable; empty means no cap."""
        s = self._s.controller.spec
        style = {"description_width": "88px"}
        box = _grow("170px", "160px", "240px")
        self._s.vars_text = W.Text(
            value="" if s.max_variables is None else str(s.max_variables),
            placeholder="no cap",
            description="max variables",
            continuous_update=False,
            layout=box,
            style={"description_width": "104px"},  # its words whole, beside max size's 88 px
            tooltip="the most variables the card may use (age >= 50 and age >= 60 count once)",
        )
        self._s.cuts_text = W.Text(
            value="" if s.max_cuts_per_variable is None else str(s.max_cuts_per_variable),
            placeholder="no cap",
            description="cuts/variable",
            continuous_update=False,
            style=style,
            layout=box,
            tooltip="the most cut points of each numeric variable the card may use",
        )
        self._s.vars_text.add_class("sw-max-variables")
        self._s.cuts_text.add_class("sw-max-cuts")
        self._s.vars_text.observe(lambda ch: self._s.requests.on_cap("max_variables", ch), "value")
        self._s.cuts_text.observe(
            lambda ch: self._s.requests.on_cap("max_cuts_per_variable", ch), "value"
        )
        thresholds = any(
            kind_name(k) in THRESHOLD_KINDS
            for kinds in s.variables.values()
            for k in kinds.values()
        )
        self._s.caps_row = _row(
            [self._s.vars_text] + ([self._s.cuts_text] if thresholds else []),
            "sw-variable-caps",
            flex="1 1 320px",
            max_width="480px",
            grid_gap="2px 8px",
        )
        if not s.variables:  # a 0/1 table: each rule is a variable of its own, max size says it all
            self._s.caps_row.layout.display = "none"

    def build_family_switch(self) -> None:
        """Decision cards or risk cards, and the line that says which controls
        the family sets aside."""
        self._s.family_toggle = W.ToggleButtons(
            options=[("decision card", "decision"), ("risk card", "risk")],
            value=self._s.controller.family,
            layout=_fixed(),
            tooltips=[
                "predict a class: points and a threshold",
                "predict a risk per total score (logistic loss)",
            ],
            style={"button_width": "auto"},
        )
        self._s.family_toggle.add_class("sw-family")
        self._s.family_note = W.HTML("", layout=_grow("240px"))
        self._s.family_note.add_class("sw-family-note")
        self._s.family_toggle.observe(self._s.requests.on_family, "value")

    def build_feature_panel(self) -> None:
        """One row per feature: use, sign, penalty, points range (the grid's
        columns are in card.css)."""
        # the grid's columns are in card.css: they share the width the notebook gives, and on a
        # narrow notebook each name takes a line of its own above its controls
        self._s.feature_panel = W.GridBox(
            self.feature_cells(),
            layout=W.Layout(
                grid_gap="1px 4px", max_height="300px", overflow="auto", padding="0 2px 2px"
            ),
        )
        self._s.feature_panel.add_class("sw-features")

    def feature_cells(self) -> list[W.Widget]:
        """The feature panel's cells, one row of them per feature of the controller's data (the
        rows are kept in ``feature_rows``)."""
        c = self._s.controller
        self._s.feature_rows: dict[str, dict[str, W.Widget]] = {}
        cells: list[W.Widget] = [
            W.HTML(f"<b>{h}</b>") for h in ("feature", "use", "sign", "penalty", "points range")
        ]
        for head in cells:
            head.add_class("sw-fhead")  # sticky while the panel scrolls (card.css)
        for name in c.data.feature_names:
            f = c.feature(name)
            row = {
                "use": W.Dropdown(
                    options=["auto", "exclude", "require"], value=f.use, layout=_cell()
                ),
                "sign": W.Dropdown(
                    options=[("free", "free"), ("+", "+"), ("−", "-")], value=f.sign, layout=_cell()
                ),
                "penalty": W.Text(
                    value="" if f.penalty is None else f"{f.penalty:g}",
                    placeholder="C0",
                    continuous_update=False,
                    layout=_cell(),
                ),
                "range": W.IntRangeSlider(
                    value=f.points_range,
                    min=-20,
                    max=20,
                    continuous_update=False,
                    readout=True,
                    style={"description_width": "0px"},
                    layout=_cell(),
                ),
            }
            for key, w in row.items():
                w.add_class(f"sw-feature-{key}")
                w.observe(
                    lambda ch, name=name, key=key: self._s.requests.on_feature(name, key, ch),
                    "value",
                )
            self._s.feature_rows[name] = row
            label = W.HTML(
                "<span class='sw-fname' "
                f"title='{html.escape(name, quote=True)}'>{html.escape(name)}</span>",
                layout=_cell(),
            )
            label.add_class("sw-flabel")
            cells += [label, row["use"], row["sign"], row["penalty"], row["range"]]
        return cells

    def follow_features(self) -> None:
        """After a cut point moved, the rules changed: the feature panel gets a row per new rule
        (the old rows closed) and the size slider the new count."""
        names = list(self._s.controller.data.feature_names)
        if list(self._s.feature_rows) == names:
            return
        old = [w for row in self._s.feature_rows.values() for w in row.values()] + list(
            self._s.feature_panel.children
        )
        self._s.feature_panel.children = self.feature_cells()
        for w in old:
            w.close()
        self._s.features_box.set_title(0, _features_title(len(names)))
        self._s.size_slider.max = max(1, len(names))

    def build_toolbar(self) -> None:
        """Undo, redo and export, and the line where actions say what they did."""
        self._s.undo_button = W.Button(description="undo", icon="undo", layout=_fixed())
        self._s.redo_button = W.Button(description="redo", icon="repeat", layout=_fixed())
        self._s.undo_button.on_click(lambda _: self._s.undo())
        self._s.redo_button.on_click(lambda _: self._s.redo())
        self._s.undo_button.add_class("sw-undo")
        self._s.redo_button.add_class("sw-redo")
        self._s.export_format = W.Dropdown(
            options=[
                ("JSON", "json"),
                ("HTML", "html"),
                ("LaTeX", "latex"),
                ("Markdown", "markdown"),
                ("Python", "python"),
                ("SQL", "sql"),
                ("Report", "report"),
            ],
            value="json",
            layout=_fixed(),
        )
        self._s.export_path = W.Text(
            value="scoring_system.json", layout=_grow("160px", "120px", "360px")
        )
        self._s.export_button = W.Button(description="Export", icon="download", layout=_fixed())
        self._s.export_format.observe(self._s.requests.on_export_format, "value")
        self._s.export_button.on_click(lambda _: self._s.requests.export_clicked())
        self._s.export_format.add_class("sw-export-format")
        self._s.export_path.add_class("sw-export-path")
        self._s.export_button.add_class("sw-export")
        self._s.message = W.HTML("")
        self._s.message.add_class("sw-message")

    def arrange(self, n_features: int) -> list[W.Widget]:
        """The studio's rows, card first: the status line and the card at the top left with the
        charts beside it (or below it when the notebook is narrow), then the controls, the
        toolbar and the feature panel, each wrapping at any width."""
        # the card and, under it, its alternatives: one column beside the charts
        column = W.VBox(
            [self._s.card_view, self._s.groups_view, self._s.alts_view],
            layout=W.Layout(
                flex="1 1 340px", min_width="280px", max_width="620px", overflow="visible"
            ),
        )
        column.add_class("sw-card-column")
        charts = _row(
            [self._s.roc_view, self._s.path_view, self._s.calib_view],
            "sw-charts",
            flex="1 1 340px",
            align_items="flex-start",
            min_width="0",
            grid_gap="14px 16px",
        )
        top = _row([column, charts], "sw-top", align_items="flex-start", grid_gap="8px 16px")
        pair = {"flex": "1 1 360px", "max_width": "560px", "flex_flow": "row nowrap"}
        family = _row(
            [self._s.family_toggle, self._s.family_note],
            "sw-family-row",
            flex="1 1 100%",
            grid_gap="2px 10px",
        )
        controls = _row(
            [
                family,
                _row([self._s.fpr_slider, self._s.fpr_none], "sw-pair", **pair),
                *self._s.group_panel.group_rows(pair),
                _row([self._s.tpr_slider, self._s.tpr_none], "sw-pair", **pair),
                _row([self._s.size_slider, self._s.size_none], "sw-pair", **pair),
                self._s.caps_row,
                self._s.range_slider,
                self._s.c0_text,
                self._s.time_text,
            ],
            "sw-controls",
            grid_gap="2px 16px",
        )
        toolbar = _row(
            [
                self._s.undo_button,
                self._s.redo_button,
                self._s.export_format,
                self._s.export_path,
                self._s.export_button,
                self._s.message,
            ],
            "sw-toolbar",
            grid_gap="2px 6px",
        )
        self._s.message.layout = W.Layout(flex="1 1 100%", min_width="0")
        features = W.Accordion(
            [self._s.feature_panel], selected_index=0, titles=(_features_title(n_features),)
        )
        features.add_class("sw-features-box")
        self._s.features_box = features
        if self._s.cuts_view is None:
            return [top, controls, toolbar, features]
        n_vars, n_cuts = len(self._s.cuts_view.variables), len(self._s.controller.cut_points())
        cuts = W.Accordion(
            [self._s.cuts_view],
            selected_index=0,
            titles=(
                f"variables ({n_vars}, {n_cuts} numeric): cut points on each one's histogram · "
                "use · sign · monotone",
            ),
        )
        cuts.add_class("sw-cuts-box")
        return [top, controls, toolbar, cuts, features]
