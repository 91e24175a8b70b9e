"""The studio's screen, built: its controls, feature panel, toolbar and views, arranged in rows
that wrap at any notebook width (the styles are in ``js/src/card.css``)."""

from __future__ import annotations

import html

import ipywidgets as W

from ..core.by_variable import THRESHOLD_KINDS, kind_name

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
    """The widgets of :class:`~slimwidgets.widgets.studio.Studio` and their arrangement (a
    mixin: the handlers it wires, ``_on_*``, and the views are the studio's)."""

    def _build_controls(self) -> None:
        """The global controls: FPR cap, TPR floor, size, C0, points range, time limit."""
        s = self.controller.spec
        names = self.controller.data.feature_names
        style = {"description_width": "88px"}
        wide = _grow("320px", "260px", "460px")
        self.fpr_slider = W.FloatSlider(
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
        self.fpr_none = W.Checkbox(
            value=s.max_fpr is None, description="no cap", indent=False, layout=_fixed()
        )
        self.tpr_slider = W.FloatSlider(
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
        self.tpr_none = W.Checkbox(
            value=s.min_tpr is None, description="no floor", indent=False, layout=_fixed()
        )
        top = max(1, len(names))
        self.size_slider = W.IntSlider(
            value=top if s.max_size is None else min(s.max_size, top),
            min=0,
            max=top,
            description="max size",
            continuous_update=True,
            disabled=s.max_size is None,
            style=style,
            layout=wide,
        )
        self.size_none = W.Checkbox(
            value=s.max_size is None, description="no limit", indent=False, layout=_fixed()
        )
        self.c0_text = W.Text(
            value="" if s.C0 is None else f"{s.C0:g}",
            placeholder="auto",
            description="C0",
            continuous_update=False,
            style=style,
            layout=_grow("180px", "150px", "260px"),
        )
        self.range_slider = W.IntRangeSlider(
            value=tuple(s.coef_range),
            min=-20,
            max=20,
            step=1,
            description="points",
            continuous_update=False,
            style=style,
            layout=wide,
        )
        self.time_text = W.BoundedFloatText(
            value=s.time_limit if s.time_limit is not None else 60.0,
            min=0.1,
            max=3600,
            step=0.5,
            description="time limit s",
            style=style,
            layout=_grow("180px", "150px", "260px"),
        )
        for w, cls in (
            (self.fpr_slider, "sw-max-fpr"),
            (self.fpr_none, "sw-max-fpr-none"),
            (self.tpr_slider, "sw-min-tpr"),
            (self.tpr_none, "sw-min-tpr-none"),
            (self.size_slider, "sw-max-size"),
            (self.size_none, "sw-max-size-none"),
            (self.c0_text, "sw-c0"),
            (self.range_slider, "sw-coef-range"),
            (self.time_text, "sw-time-limit"),
        ):
            w.add_class(cls)
        self.fpr_slider.observe(self._on_fpr, "value")
        self.fpr_none.observe(self._on_fpr, "value")
        self.tpr_slider.observe(self._on_tpr, "value")
        self.tpr_none.observe(self._on_tpr, "value")
        self.size_slider.observe(self._on_size, "value")
        self.size_none.observe(self._on_size, "value")
        self.c0_text.observe(self._on_c0, "value")
        self.range_slider.observe(self._on_range, "value")
        self.time_text.observe(self._on_time, "value")

    def _build_variable_caps(self) -> None:
        """Beside max size, the caps by variable (a table of raw columns only): at most K
        variables, at most k cut points per variable; empty means no cap."""
        s = self.controller.spec
        style = {"description_width": "88px"}
        box = _grow("170px", "160px", "240px")
        self.vars_text = W.Text(
            value="" if s.max_variables is None else str(s.max_variables),
            placeholder="no cap",
            description="max variables",
            continuous_update=False,
            layout=box,
            style={"description_width": "104px"},  # its words whole, beside max size's 88 px
            tooltip="the most variables the card may use (age >= 50 and age >= 60 count once)",
        )
        self.cuts_text = W.Text(
            value="" if s.max_cuts_per_variable is None else str(s.max_cuts_per_variable),
            placeholder="no cap",
            description="cuts/variable",
            continuous_update=False,
            style=style,
            layout=box,
            tooltip="the most cut points of each numeric variable the card may use",
        )
        self.vars_text.add_class("sw-max-variables")
        self.cuts_text.add_class("sw-max-cuts")
        self.vars_text.observe(lambda ch: self._on_cap("max_variables", ch), "value")
        self.cuts_text.observe(lambda ch: self._on_cap("max_cuts_per_variable", ch), "value")
        thresholds = any(
            kind_name(k) in THRESHOLD_KINDS
            for kinds in s.variables.values()
            for k in kinds.values()
        )
        self.caps_row = _row(
            [self.vars_text] + ([self.cuts_text] if thresholds else []),
            "sw-variable-caps",
            flex="1 1 320px",
            max_width="480px",
            grid_gap="2px 8px",
        )
        if not s.variables:  # a 0/1 table: each rule is a variable of its own, max size says it all
            self.caps_row.layout.display = "none"

    def _build_family_switch(self) -> None:
        """Decision cards or risk cards, and the line that says which controls
        the family sets aside."""
        self.family_toggle = W.ToggleButtons(
            options=[("decision card", "decision"), ("risk card", "risk")],
            value=self.controller.family,
            layout=_fixed(),
            tooltips=[
                "predict a class: points and a threshold",
                "predict a risk per total score (logistic loss)",
            ],
            style={"button_width": "auto"},
        )
        self.family_toggle.add_class("sw-family")
        self.family_note = W.HTML("", layout=_grow("240px"))
        self.family_note.add_class("sw-family-note")
        self.family_toggle.observe(self._on_family, "value")

    def _build_feature_panel(self) -> None:
        """One row per feature: use, sign, penalty, points range (the grid's
        columns are in card.css)."""
        # the grid's columns are in card.css: they share the width the notebook gives, and on a
        # narrow notebook each name takes a line of its own above its controls
        self.feature_panel = W.GridBox(
            self._feature_cells(),
            layout=W.Layout(
                grid_gap="1px 4px", max_height="300px", overflow="auto", padding="0 2px 2px"
            ),
        )
        self.feature_panel.add_class("sw-features")

    def _feature_cells(self) -> list[W.Widget]:
        """The feature panel's cells, one row of them per feature of the controller's data (the
        rows are kept in ``feature_rows``)."""
        c = self.controller
        self.feature_rows: dict[str, dict[str, W.Widget]] = {}
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
                w.observe(lambda ch, name=name, key=key: self._on_feature(name, key, ch), "value")
            self.feature_rows[name] = row
            label = W.HTML(
                "<span class='sw-fname' "
                f"title='{html.escape(name, quote=True)}'>{html.escape(name)}</span>",
                layout=_cell(),
            )
            label.add_class("sw-flabel")
            cells += [label, row["use"], row["sign"], row["penalty"], row["range"]]
        return cells

    def _follow_features(self) -> None:
        """After a cut point moved, the rules changed: the feature panel gets a row per new rule
        (the old rows closed) and the size slider the new count."""
        names = list(self.controller.data.feature_names)
        if list(self.feature_rows) == names:
            return
        old = [w for row in self.feature_rows.values() for w in row.values()] + list(
            self.feature_panel.children
        )
        self.feature_panel.children = self._feature_cells()
        for w in old:
            w.close()
        self.features_box.set_title(0, _features_title(len(names)))
        self.size_slider.max = max(1, len(names))

    def _build_toolbar(self) -> None:
        """Undo, redo and export, and the line where actions say what they did."""
        self.undo_button = W.Button(description="undo", icon="undo", layout=_fixed())
        self.redo_button = W.Button(description="redo", icon="repeat", layout=_fixed())
        self.undo_button.on_click(lambda _: self.undo())
        self.redo_button.on_click(lambda _: self.redo())
        self.undo_button.add_class("sw-undo")
        self.redo_button.add_class("sw-redo")
        self.export_format = W.Dropdown(
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
        self.export_path = W.Text(
            value="scoring_system.json", layout=_grow("160px", "120px", "360px")
        )
        self.export_button = W.Button(description="Export", icon="download", layout=_fixed())
        self.export_format.observe(self._on_export_format, "value")
        self.export_button.on_click(lambda _: self._export_clicked())
        self.export_format.add_class("sw-export-format")
        self.export_path.add_class("sw-export-path")
        self.export_button.add_class("sw-export")
        self.message = W.HTML("")
        self.message.add_class("sw-message")

    def _arrange(self, n_features: int) -> list[W.Widget]:
        """The studio's rows, card first: the status line and the card at the top left with the
        charts beside it (or below it when the notebook is narrow), then the controls, the
        toolbar and the feature panel, each wrapping at any width."""
        # the card and, under it, its alternatives: one column beside the charts
        column = W.VBox(
            [self.card_view, self.groups_view, self.alts_view],
            layout=W.Layout(
                flex="1 1 340px", min_width="280px", max_width="620px", overflow="visible"
            ),
        )
        column.add_class("sw-card-column")
        charts = _row(
            [self.roc_view, self.path_view, self.calib_view],
            "sw-charts",
            flex="1 1 340px",
            align_items="flex-start",
            min_width="0",
            grid_gap="14px 16px",
        )
        top = _row([column, charts], "sw-top", align_items="flex-start", grid_gap="8px 16px")
        pair = {"flex": "1 1 360px", "max_width": "560px", "flex_flow": "row nowrap"}
        family = _row(
            [self.family_toggle, self.family_note],
            "sw-family-row",
            flex="1 1 100%",
            grid_gap="2px 10px",
        )
        controls = _row(
            [
                family,
                _row([self.fpr_slider, self.fpr_none], "sw-pair", **pair),
                *self._group_rows(pair),
                _row([self.tpr_slider, self.tpr_none], "sw-pair", **pair),
                _row([self.size_slider, self.size_none], "sw-pair", **pair),
                self.caps_row,
                self.range_slider,
                self.c0_text,
                self.time_text,
            ],
            "sw-controls",
            grid_gap="2px 16px",
        )
        toolbar = _row(
            [
                self.undo_button,
                self.redo_button,
                self.export_format,
                self.export_path,
                self.export_button,
                self.message,
            ],
            "sw-toolbar",
            grid_gap="2px 6px",
        )
        self.message.layout = W.Layout(flex="1 1 100%", min_width="0")
        features = W.Accordion(
            [self.feature_panel], selected_index=0, titles=(_features_title(n_features),)
        )
        features.add_class("sw-features-box")
        self.features_box = features
        if self.cuts_view is None:
            return [top, controls, toolbar, features]
        n_vars, n_cuts = len(self.cuts_view.variables), len(self.controller.cut_points())
        cuts = W.Accordion(
            [self.cuts_view],
            selected_index=0,
            titles=(
                f"variables ({n_vars}, {n_cuts} numeric): cut points on each one's histogram · "
                "use · sign · monotone",
            ),
        )
        cuts.add_class("sw-cuts-box")
        return [top, controls, toolbar, cuts, features]
