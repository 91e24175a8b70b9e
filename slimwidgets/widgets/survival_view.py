"""The studio of a time-to-event table: :class:`SurvivalStudio`, the ipywidgets view of a
:class:`~slimwidgets.widgets.survival_session.SurvivalSession`.

``sw.Studio(X, y)`` with a ``Surv`` array ``y`` opens this view. The card shows its points by
rule and, per total score, the predicted risk of the event by the horizon beside Kaplan–Meier's
observed risk with its 95 % interval; the charts are Kaplan–Meier curves by score band and
Harrell's C by size, in place of the ROC plane and the sparsity path. The family switch names
the time-to-event family beside the decision and risk families (which need a two-class ``y``);
the FPR cap and the group picker say in place why they do not apply. Under the card, its rules'
points can be typed (an edited card) or locked, any other rule given points, and the card
written to a file; a share of rows can be kept aside for a held-out Harrell's C.
"""

from __future__ import annotations

import html
import math
import threading
from dataclasses import replace
from typing import Any

import ipywidgets as W
import pandas as pd

from ..core.survival_card import SurvivalCard
from ..core.survival_family import TIME_TO_EVENT
from ..core.survival_text import points_data
from ..export import render_html
from .charts import split_datasets
from .protocol import OwnChanges
from .survival_charts import c_index_chart, km_chart
from .survival_session import EXPORT_SUFFIXES, INAPPLICABLE, SIGNS, SurvivalSession

__all__ = ["SurvivalStudio", "open_time_to_event", "card_html"]

#: the shares of rows the studio can keep aside for a held-out Harrell's C
HOLDOUTS = [("no rows", 0.0), ("20 % of rows", 0.2), ("30 % of rows", 0.3)]
FAMILIES = [("decision card", "decision"), ("risk card", "risk"), ("time to event", "survival")]
FAMILY_NOTE = (
    "time-to-event cards: Cox's partial likelihood of the integer score; decision and risk "
    "cards need a two-class y, and this y is a time-to-event (Surv) array"
)
STYLE = """<style>
.sw-surv-card table {border-collapse: collapse; margin: 4px 0 8px;}
.sw-surv-card th, .sw-surv-card td {padding: 2px 8px; text-align: right;
  border-bottom: 1px solid #ddd;}
.sw-surv-card th:first-child, .sw-surv-card td:first-child {text-align: left;}
.sw-surv-card caption {text-align: left; font-weight: bold; padding: 2px 0;}
.sw-surv-na {color: #666; font-size: 0.9em;}
.sw-survival .sw-km, .sw-survival .sw-c-index {min-width: 0; max-width: 100%;}
.sw-survival .sw-chart {max-width: 100%;}
.sw-survival .sw-chart svg {display: block; max-width: 100%; height: auto;}
.sw-survival .sw-export-line code {white-space: pre-wrap; word-break: break-all;}
</style>"""
EDIT_NOTE = (
    "<b>edit the card</b> <span class='sw-surv-na'>type points to edit it by hand (not "
    "optimized: it says so and what it breaks); tick lock to fix a rule's points and re-solve "
    "the rest</span>"
)


def _percent(value: float) -> str:
    return "–" if value is None or not math.isfinite(value) else f"{100 * value:.1f} %"


def _interval(lower: float, upper: float) -> str:
    if not (math.isfinite(lower) and math.isfinite(upper)) or lower == upper:
        return ""  # no interval (Kaplan–Meier at 0 or 1 has none worth showing)
    return f" ({100 * lower:.0f}–{100 * upper:.0f} %)"


def card_html(
    card: SurvivalCard,
    risk: pd.DataFrame,
    horizon: float,
    time_name: str,
    counted: str = "",
) -> str:
    """The card as HTML: its points table by variable (as ``print(card)`` and every export draw
    it), then the risk by the horizon per total score (every name from data escaped).

    Parameters
    ----------
    card : SurvivalCard
        The card shown (solved or edited).
    risk : DataFrame
        :meth:`SurvivalSession.risk_table
        <slimwidgets.widgets.survival_session.SurvivalSession.risk_table>`.
    horizon : float
        The time the risk is stated by.
    time_name : str
        The name of the time field of ``y``.
    counted : str, default ""
        Which rows the risk table counts, when not all (``"training rows"``).

    Examples
    --------
    >>> risk = pd.DataFrame({"score": [0, 1], "rows": [3.0, 2.0], "predicted": [0.1, 0.3],
    ...                      "observed": [0.0, 0.5], "lower": [float("nan"), 0.1],
    ...                      "upper": [float("nan"), 0.9]})
    >>> import numpy as np
    >>> card = SurvivalCard(("<b>age</b> >= 60",), (1,), 1.0, np.array([100.0, 400.0]),
    ...                     np.array([0.1, 0.3]), (365.0,), names=("died", "days"))
    >>> text = card_html(card, risk, 365, "days")
    >>> "&lt;b&gt;age&lt;/b&gt;" in text and "50.0 % (10–90 %)" in text
    True
    """
    points_table = (
        f"<div class='sw-surv-points'>{render_html(replace(points_data(card), notes=()))}</div>"
        if card.card_points
        else "<p>no rule has points: every row has total score 0</p>"
    )
    when = f"{horizon:g} {html.escape(time_name)}" + (
        f" ({html.escape(counted)})" if counted else ""
    )
    risk_rows = "".join(
        f"<tr><td>{int(r.score)}</td><td>{r.rows:g}</td><td>{_percent(r.predicted)}</td>"
        f"<td>{_percent(r.observed)}{_interval(r.lower, r.upper)}</td></tr>"
        for r in risk.itertuples()
    )
    risk_table = (
        f"<table class='sw-surv-risk'><caption>risk of the event by {when}</caption>"
        "<thead><tr><th>total score</th><th>rows</th><th>predicted</th>"
        "<th>observed (Kaplan–Meier, 95 % CI)</th></tr></thead>"
        f"<tbody>{risk_rows}</tbody></table>"
    )
    return f"{STYLE}<div class='sw-surv-card'>{points_table}{risk_table}</div>"


class SurvivalStudio(W.VBox):
    """The studio of a time-to-event table: edit the settings, watch the card re-solve live.

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_rows, n_variables)
        The variables: 0/1 rules, or a raw table made into rules as :func:`slimwidgets.fit` does.
    y : structured array
        A ``Surv`` array (event, time), one per row.
    chart_view : type
        The anywidget view each chart is drawn in
        (:class:`~slimwidgets.widgets.studio.ChartView`, which :class:`~.studio.Studio` hands
        in: this module stays below the studio's).
    horizon : float, optional
        The time the card states its risk by (default from the follow-up, as ``fit`` takes it).
    time_limit : float, default 5.0
        Seconds each solve may take.
    **options
        ``max_size``, ``C0``, ``exclude``, ``signs``, ``require``, ``lock``, ``holdout`` (see
        :class:`SurvivalSession`).

    Examples
    --------
    >>> studio = sw.Studio(X, y_surv, max_size=2)  # a Surv y opens this view  # doctest: +SKIP
    """

    def __init__(
        self, X: Any, y: Any, *, chart_view: type, horizon: float | None = None, **options: Any
    ):
        self._ui_lock = threading.RLock()
        self._own = OwnChanges()
        self.session = SurvivalSession(X, y, horizon=horizon, start=False, **options)
        self._time_name = str(y.dtype.names[1]) if getattr(y.dtype, "names", None) else "time"
        self._build_controls()
        self._build_views(chart_view)
        super().__init__(self._arrange())
        self.add_class("sw-studio")
        self.add_class("sw-survival")
        self.session.subscribe(self._on_event)
        self.session.begin()

    # -- public face, as the other studio's -----------------------------------------------------
    @property
    def scoring_system(self) -> SurvivalCard | None:
        """The card on screen (None before the first solve)."""
        return self.session.card

    def wait(self, timeout: float | None = 60.0) -> bool:
        """Block until the current solve and its C-index path are done; True when they are."""
        return self.session.wait(timeout)

    def close(self) -> None:
        """Stop the solves and close every widget of the studio."""
        if not hasattr(self, "session"):  # its making failed: nothing was started
            return super().close()
        self.session.close()
        for widget in self._widgets():
            widget.close()
        super().close()

    # -- controls ---------------------------------------------------------------------------------
    def _build_controls(self) -> None:
        s = self.session
        self.family_toggle = W.ToggleButtons(
            options=FAMILIES, value="survival", style={"button_width": "auto"}
        )
        self.family_toggle.add_class("sw-family")
        self.family_note = W.HTML(f"<span class='sw-surv-na'>{FAMILY_NOTE}</span>")
        self.family_note.add_class("sw-family-note")
        self.family_toggle.observe(self._on_family, "value")
        top = s.follow_up
        self.horizon = W.FloatSlider(
            value=s.horizon,
            min=0.0,
            max=top,
            step=top / 200,
            description="horizon",
            readout_format=".4g",
            continuous_update=False,
            layout=W.Layout(width="360px"),
        )
        self.horizon.add_class("sw-horizon")
        self.horizon.observe(self._on_horizon, "value")
        fits = ", ".join(f"{h:g}" for h in s.horizons)
        self.horizon_note = W.HTML(f"<span class='sw-surv-na'>fit's horizons: {fits}</span>")
        self.max_size = W.BoundedIntText(
            value=s.settings.max_size,
            min=1,
            max=max(len(s.variables) * 8, 8),
            description="max size",
            layout=_w("180px"),
        )
        self.max_size.add_class("sw-max-size")
        self.C0 = W.BoundedFloatText(
            value=s.settings.C0, min=0.0, max=10.0, step=0.001, description="C0", layout=_w("180px")
        )
        self.C0.add_class("sw-C0")
        self.holdout = W.Dropdown(
            options=HOLDOUTS + [(f"{100 * h:g} % of rows", h) for h in [s.settings.holdout]]
            if s.settings.holdout not in dict(HOLDOUTS).values()
            else HOLDOUTS,
            value=s.settings.holdout,
            description="held out",
            layout=_w("230px"),
        )
        self.holdout.add_class("sw-holdout")
        self.holdout.observe(lambda ch: self._guard(s.update, holdout=ch["new"]), "value")
        self.max_size.observe(lambda ch: self._guard(s.update, max_size=ch["new"]), "value")
        self.C0.observe(lambda ch: self._guard(s.update, C0=ch["new"]), "value")
        self.max_fpr = W.FloatSlider(description="max FPR", disabled=True)
        self.max_fpr.add_class("sw-max-fpr")
        self.groups = W.Dropdown(options=["none"], description="groups", disabled=True)
        self.groups.add_class("sw-groups")
        self.undo_button = W.Button(description="undo", icon="undo")
        self.redo_button = W.Button(description="redo", icon="repeat")
        self.undo_button.on_click(lambda _: self._guard(s.undo))
        self.redo_button.on_click(lambda _: self._guard(s.redo))
        self.feature_rows = {name: self._feature_row(name) for name in s.variables}
        self.export_format = W.Dropdown(
            options=list(EXPORT_SUFFIXES), value="json", description="export", layout=_w("200px")
        )
        self.export_format.add_class("sw-export-format")
        self.export_button = W.Button(description="write file", icon="download")
        self.export_button.add_class("sw-export")
        self.export_button.on_click(lambda _: self._export())
        self.export_line = W.HTML("")
        self.export_line.add_class("sw-export-line")
        self.add_rule = W.Dropdown(options=[], description="rule", layout=_w("320px"))
        self.add_rule.add_class("sw-add-rule")
        self.add_points = W.IntText(value=1, description="points", layout=_w("150px"))
        self.add_points.add_class("sw-add-points")
        self.add_button = W.Button(description="set points")
        self.add_button.add_class("sw-add-button")
        self.add_button.on_click(
            lambda _: self._guard(s.edit_points, self.add_rule.value, self.add_points.value)
        )
        self.edit_rows: list[W.Widget] = []
        self._edits_drawn: tuple = ()
        self.edit_box = W.VBox([])
        self.edit_box.add_class("sw-edit-card")

    def _feature_row(self, name: str) -> dict[str, W.Widget]:
        s = self.session
        use = W.Checkbox(value=name not in s.settings.exclude, description=name, indent=False)
        sign = W.Dropdown(
            options=list(SIGNS), value=dict(s.settings.signs).get(name, "free"), layout=_w("80px")
        )
        must = W.Checkbox(
            value=name in s.settings.require,
            description="must use",
            indent=False,
            layout=_w("90px"),
        )
        must.add_class("sw-require")
        use.observe(lambda ch: self._guard(s.set_feature, name, use=ch["new"]), "value")
        sign.observe(lambda ch: self._guard(s.set_feature, name, sign=ch["new"]), "value")
        must.observe(lambda ch: self._guard(s.set_feature, name, require=ch["new"]), "value")
        return {"use": use, "sign": sign, "require": must}

    def _edit_row(self, rule: str, points: int, locked: bool) -> W.HBox:
        """One rule of the card: its points to type, its lock to tick."""
        s = self.session
        name = W.Label(rule, layout=W.Layout(flex="1 1 160px", min_width="0"))
        box = W.IntText(value=points, layout=_w("70px"))
        box.add_class("sw-points-edit")
        lock = W.Checkbox(value=locked, description="lock", indent=False, layout=_w("70px"))
        lock.add_class("sw-lock")
        box.observe(lambda ch: self._guard(s.edit_points, rule, ch["new"]), "value")
        lock.observe(
            lambda ch: self._guard(s.set_lock, rule, box.value if ch["new"] else None), "value"
        )
        self.edit_rows += [name, box, lock]
        return W.HBox([name, box, lock], layout=W.Layout(max_width="420px"))

    def _build_views(self, chart_view: type) -> None:
        self.status = W.HTML("")
        self.status.add_class("sw-status-text")
        self.message = W.HTML("")
        self.message.add_class("sw-message")
        self.card_view = W.HTML("")
        self.card_view.add_class("sw-card-view")
        self.km_view = chart_view()
        self.km_view.add_class("sw-km")
        self.c_view = chart_view()
        self.c_view.add_class("sw-c-index")

    def _arrange(self) -> list[W.Widget]:
        edit_note = W.HTML(EDIT_NOTE)
        exports = _wrap([self.export_format, self.export_button])
        card = W.VBox(
            [
                self.status,
                self.card_view,
                self.message,
                edit_note,
                self.edit_box,
                _wrap([self.add_rule, self.add_points, self.add_button]),
                exports,
                self.export_line,
            ],
            layout=_grow("340px"),
        )
        charts = _wrap([self.km_view, self.c_view])
        charts.layout.flex, charts.layout.min_width = "1 1 320px", "0"
        na = W.HTML(
            "<span class='sw-surv-na'>" + html.escape(INAPPLICABLE["max_fpr"]) + "</span>",
            layout=_grow("240px"),
        )
        na.add_class("sw-max-fpr-note")
        groups_na = W.HTML(
            "<span class='sw-surv-na'>" + html.escape(INAPPLICABLE["groups"]) + "</span>",
            layout=_grow("240px"),
        )
        groups_na.add_class("sw-groups-note")
        features = W.VBox(
            [W.HBox([r["use"], r["sign"], r["require"]]) for r in self.feature_rows.values()],
            layout=W.Layout(max_height="300px", overflow="auto"),
        )
        features.add_class("sw-features")
        top = _wrap([card, charts])
        top.layout.align_items = "flex-start"  # the card's first line level with the charts'
        return [
            top,
            _wrap([self.family_toggle, self.family_note]).add_class("sw-family-row"),
            _wrap([self.horizon, self.horizon_note]),
            _wrap([self.max_size, self.C0, self.holdout, self.undo_button, self.redo_button]),
            _wrap([self.max_fpr, na]),
            _wrap([self.groups, groups_na]),
            W.HTML("<b>variables</b> (use · sign of its points · must use)"),
            features,
        ]

    def _widgets(self) -> list[W.Widget]:
        rows = [w for r in self.feature_rows.values() for w in r.values()]
        return [
            self.family_toggle,
            self.horizon,
            self.max_size,
            self.C0,
            self.holdout,
            self.max_fpr,
            self.groups,
            self.undo_button,
            self.redo_button,
            self.export_format,
            self.export_button,
            self.add_rule,
            self.add_points,
            self.add_button,
            *self.edit_rows,
            self.km_view,
            self.c_view,
            *rows,
        ]

    # -- control → session ------------------------------------------------------------------------
    def _guard(self, action, *args: Any, **kwargs: Any) -> None:
        """Run an edit; a refused value is said in the message line and the controls go back."""
        if self._own.active:
            return
        try:
            action(*args, **kwargs)
        except (ValueError, KeyError) as error:
            self.message.value = f"<span class='sw-error'>{html.escape(str(error))}</span>"
            self._sync_controls()

    def _on_family(self, change: dict) -> None:
        if change["new"] != "survival" and not self._own.active:
            with self._own.showing():
                self.family_toggle.value = "survival"
            self.message.value = html.escape(
                f"{change['new']} cards need a two-class y: this y is a time-to-event (Surv) "
                "array, so the card stays a time-to-event card"
            )

    def _on_horizon(self, change: dict) -> None:
        # a horizon outside the follow-up (0) is refused: the message says why, the slider goes back
        self._guard(self.session.set_horizon, change["new"])

    # -- session → views --------------------------------------------------------------------------
    def _on_event(self, what: set) -> None:
        with self._ui_lock:
            if what & {"card", "notice"}:
                self._sync_controls()
                self.message.value = html.escape(self.session.notice)
            if what & {"card", "notice", "progress"}:
                self.status.value = html.escape(self.session.status)
            if what & {"card", "horizon"}:
                self._draw_card()
            if "card" in what and self.session.card is not None:
                self._draw_edits()
            if what & {"card", "path"}:
                self._draw_path()

    def _sync_controls(self) -> None:
        s, settings = self.session, self.session.settings
        with self._own.showing():
            self.max_size.value, self.C0.value = settings.max_size, settings.C0
            self.holdout.value = settings.holdout
            self.horizon.value = s.horizon
            signs = dict(settings.signs)
            for name, row in self.feature_rows.items():
                row["use"].value = name not in settings.exclude
                row["sign"].value = signs.get(name, "free")
                row["require"].value = name in settings.require
            self.undo_button.disabled, self.redo_button.disabled = not s.can_undo, not s.can_redo

    def _export(self) -> None:
        """Write the card in the chosen format; say where and how to read it back."""
        try:
            path, line = self.session.export(self.export_format.value)
        except (ValueError, OSError) as error:
            self.export_line.value = f"<span class='sw-error'>{html.escape(str(error))}</span>"
            return
        self.export_line.value = (
            f"wrote {html.escape(str(path))}; read it back with <code>{html.escape(line)}</code>"
        )

    def _draw_edits(self) -> None:
        """The card's rules with their points to type and their locks (rebuilt per card)."""
        s = self.session
        lock = dict(s.settings.lock)
        shown = {
            **s.card.card_points,
            **{r: p for r, p in lock.items() if r not in s.card.card_points},
        }
        drawn = (tuple(shown.items()), tuple(lock), tuple(s.rules))
        if drawn == self._edits_drawn:  # the same rows: a click on them is not lost to a redraw
            return
        self._edits_drawn = drawn
        for widget in self.edit_rows:
            widget.close()
        self.edit_rows = []
        with self._own.showing():
            self.edit_box.children = [
                self._edit_row(rule, points, rule in lock) for rule, points in shown.items()
            ]
            others = [r for r in s.rules if r not in shown]
            self.add_rule.options = others
            self.add_rule.value = others[0] if others else None

    def _draw_card(self) -> None:
        s = self.session
        if s.card is None:
            return
        counted = "training rows" if s.held_out_c(s.card) is not None else ""
        self.card_view.value = card_html(
            s.card, s.risk_table(), s.horizon, self._time_name, counted
        )
        _show(self.km_view, km_chart(s.km_frame(), s.horizon, self._time_name))

    def _draw_path(self) -> None:
        _show(self.c_view, c_index_chart(self.session.c_by_size()))


def _show(view: W.DOMWidget, chart: Any) -> None:
    """Send ``chart`` to ``view`` as one message (its structure and rows together)."""
    spec, data = split_datasets(chart)
    with view.hold_sync():
        view.spec, view.datasets = spec, data


def _w(width: str) -> W.Layout:
    return W.Layout(width=width)


def _grow(basis: str) -> W.Layout:
    return W.Layout(flex=f"1 1 {basis}", width="auto", min_width="0")


def _wrap(children: list[W.Widget]) -> W.Box:
    return W.Box(
        children,
        layout=W.Layout(
            display="flex", flex_flow="row wrap", align_items="center", overflow="visible"
        ),
    )


def open_time_to_event(
    chart_view: type, X: Any, y: Any, options: dict[str, Any]
) -> SurvivalStudio | None:
    """The time-to-event studio for a ``Surv`` y (or ``loss="cox"``), else None.

    :class:`~slimwidgets.widgets.studio.Studio` asks this first, so ``sw.Studio(X, y)`` opens
    the family its ``y`` reads as.

    Parameters
    ----------
    chart_view : type
        The anywidget view the studio draws its Altair charts in.
    X : DataFrame or array-like
        The features.
    y : array-like
        The outcome.
    options : dict
        The studio's other keyword options.

    Returns
    -------
    SurvivalStudio or None
        None when ``y`` is not a time-to-event outcome.

    Examples
    --------
    >>> open_time_to_event(object, None, [0, 1], {}) is None
    True
    """
    if not TIME_TO_EVENT.reads(y, options):
        return None
    options = {k: v for k, v in options.items() if k != "loss"}
    return SurvivalStudio(X, y, chart_view=chart_view, **options)
