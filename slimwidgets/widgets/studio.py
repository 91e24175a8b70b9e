"""The studio widget: ipywidgets controls, the anywidget point table, Altair charts.

All state lives in a :class:`~slimwidgets.widgets.controller.Controller`; this
module only turns control changes into controller calls and controller events
into trait values. The two anywidget views (``static/card.js`` and
``static/chart.js``, built from ``js/``) draw what the traits say; the chart
view carries its own copy of Vega, so charts render with no network.
"""

from __future__ import annotations

import functools
import html
import inspect
import itertools
import math
import threading
from pathlib import Path
from typing import Any

import anywidget
import ipywidgets as W
import pandas as pd
import traitlets as T

from ..core.card_family import CardFamily
from ..core.family import DECISION, TIME_TO_EVENT, family_for, family_named, family_of_card
from ..core.formatting import percent, signed
from ..core.scoring import ScoringSystem
from ..core.spec import Spec
from ..export.card import MISSING_NOTE, VARIABLES_TOTAL
from . import charts
from .card_status import optimised_measure
from .controller import Controller, HistoryEntry, describe_spec
from .group_panel import GROUP_MARK_COLS, GroupPanel, with_group_marks
from .layout import StudioLayout
from .protocol import REFUSALS, Dispatcher, OwnChanges, refusal_text
from .requests import ViewRequests
from .survival_view import open_time_to_event
from .variables import card_variables

__all__ = [
    "Studio",
    "CardView",
    "ChartView",
    "AlternativesView",
    "CutsView",
    "card_payload",
    "risk_payload",
]

STATIC = Path(__file__).parent / "static"


def _bundle(name: str) -> Path:
    path = STATIC / name
    if not path.is_file():
        raise FileNotFoundError(
            f"the studio's front-end bundle {path} is missing: build it with "
            "`bash scripts/setup_browser_tests.sh` (or `cd js && npm ci && npm run build`)"
        )
    return path


class CardView(anywidget.AnyWidget):
    """The editable point table and the status line."""

    _esm = _bundle("card.js")
    _css = _bundle("card.css")
    card = T.Dict(allow_none=True, default_value=None).tag(sync=True)
    status = T.Dict().tag(sync=True)


class ChartView(anywidget.AnyWidget):
    """One Vega-Lite chart; ``datasets`` rows are swapped in place when they change."""

    _esm = _bundle("chart.js")
    spec = T.Dict().tag(sync=True)
    datasets = T.Dict().tag(sync=True)


class AlternativesView(anywidget.AnyWidget):
    """The alternatives list (``static/alternatives.js``): rows in the user's
    units, a click loads one."""

    _esm = _bundle("alternatives.js")
    _css = _bundle("alternatives.css")
    rows = T.List().tag(sync=True)
    state = T.Dict().tag(sync=True)


class CutsView(anywidget.AnyWidget):
    """The cut-point panel (``static/cuts.js``): each numeric variable's cuts on its histogram."""

    _esm = _bundle("cuts.js")
    _css = _bundle("cuts.css")
    variables = T.List().tag(sync=True)


def _finite(v: float) -> float | None:
    return float(v) if math.isfinite(v) else None


def _metrics_text(which: str, m) -> str:
    if m.auc is not None:  # a risk card: how well its risks fit and how it ranks
        return f"{which}: log-loss {m.log_loss:.4f} · AUC {m.auc:.3f}"
    return f"{which}: error {percent(m.error)} · TPR {percent(m.tpr)} · FPR {percent(m.fpr)}"


def risk_payload(controller: Controller) -> list[dict] | None:
    """The risk table of a risk card as the card view draws it (None for a decision card)."""
    table = controller.risk_table()
    if table is None:
        return None
    return charts.records(table, list(table.columns))


_ids = itertools.count(1)


def _status_words(status: dict | None) -> tuple:
    """What the status line shows of a status (its clock ticks in the browser)."""
    s = status or {}
    return tuple(
        s.get(k) for k in ("state", "text", "level", "proven", "warning", "started", "conflicts")
    )


def card_payload(controller: Controller) -> dict | None:
    """What the point table shows, all of it read from the controller's current card."""
    card = controller.card
    if card is None:
        return None
    base = controller.base_card
    spec = controller.spec
    coefs = dict(zip(card.feature_names, card.coefficients))
    base_coefs = dict(zip(base.feature_names, base.coefficients)) if base is not None else coefs
    binary = dict(zip(card.feature_names, card.binary or (True,) * len(card.feature_names)))
    order = list(card.points) + [n for n in card.feature_names if coefs[n] == 0]
    rows = [
        {
            "name": n,
            "points": coefs[n],
            "binary": binary[n],
            "locked": spec.lock.get(n),
            "edited": card.status == "edited" and coefs[n] != base_coefs.get(n, 0),
        }
        for n in order
    ]
    cost = controller.edit_cost()
    cost_text = None
    if cost is not None and "log_loss" in cost:  # a risk card: in the figures it is judged by
        cost_text = (
            f"edit vs the solved card: log-loss {signed(cost['log_loss'], 4)} · "
            f"AUC {signed(cost['auc'], 3)} · size {signed(cost['size'], 0)}"
        )
    elif (
        cost is not None
    ):  # "optimum" only for a proven one; the figure the settings optimise first
        against = "optimum" if base is not None and base.status == "optimal" else "the solved card"
        first = {"tpr": ("tpr", "fpr", "error"), "fpr": ("fpr", "tpr", "error")}.get(
            optimised_measure(spec), ("error", "tpr", "fpr")
        )
        figures = " · ".join(
            f"{'error' if k == 'error' else k.upper()} {cost[k]:+.1f} pt" for k in first
        )
        cost_text = f"edit vs {against}: {figures} · size {cost['size']:+d}".replace(
            "+-", "−"
        ).replace("-", "−")
    m, v = card.train_metrics, card.validation_metrics
    metrics = (
        None
        if m is None
        else " · ".join(
            [_metrics_text("train", m)]
            + ([] if v is None else [_metrics_text("validation", v)])
            + [f"{m.size} feature{'s' if m.size != 1 else ''}"]
        )
    )
    # train and held-out figures side by side, for a view that draws them as a table
    measures = family_of_card(card).measures
    table = [
        {"set": which, **{k: _finite(getattr(x, k)) for k in measures}}
        for which, x in (("train", m), ("validation", v))
        if x is not None
    ]
    # a card of other settings, or of the rules of other cut points, while the new one solves
    previous = (card.spec is not None and card.spec.key() != spec.key()) or (
        controller.rules is not None and card.rules is not controller.rules
    )
    return {
        "id": next(_ids),
        "positive": card.positive_name or str(card.positive),
        "threshold": card.threshold,
        "rule": card.rule,
        "rows": rows,
        "metrics_text": metrics,
        "cost_text": cost_text,
        "spec_text": describe_spec(card.spec),
        "metrics": table,
        "editable": True,
        "is_previous": previous,
        "status": card.status,
        "max_fpr": None if card.spec is None else card.spec.max_fpr,
        "family": family_of_card(card).name,
        "risk_table": risk_payload(controller),
        # a card from a raw table is drawn by variable ("age  < 50: 0 · 50–59: 1 · ≥ 60: 3")
        "variables": card_variables(card, spec, base if card.status == "edited" else None),
        # the words every export prints under a card by variable: one source, here and there
        "variables_sum": f"{VARIABLES_TOTAL} = SCORE",
        "variables_note": MISSING_NOTE,
        # numeric variables whose bands go up and down, with the monotone setting that fixes each
        "monotone": controller.advice.view(),
    }


class Studio(W.VBox):
    """Interactive SLIM studio: edit the problem, watch the card re-solve live.

    >>> studio = Studio(X, y, max_fpr=0.2, max_size=5)    # doctest: +SKIP
    >>> studio                                           # renders the widget  # doctest: +SKIP
    >>> studio.scoring_system                            # the card on screen  # doctest: +SKIP

    Options are those of :func:`slimwidgets.fit` (``time_limit`` defaults to 5 s per
    solve). ``frontier=False`` skips the background frontier and path solves.
    ``validation=(X_val, y_val)``, or ``holdout=0.25`` with ``random_state`` (a
    stratified split of ``X, y``), shows every card's held-out figures next to
    its training figures. Below the card, a list of near-optimal cards with other
    features fills in for each settled spec (``alternatives=False`` turns it off;
    by default it follows ``frontier``); a click on a row shows that card.

    The switch above the controls chooses decision cards or risk cards
    (``loss="logistic"``). A risk card shows its risk table (predicted risk per
    total score beside the observed rates, train and held-out), its own ROC with
    its AUC, and log-loss by size; controls risk cards cannot honour yet are
    disabled, and what the switch set aside comes back when switching back.

    ``sensitive_features`` (a column of ``X``, or one label per row) is the group column to
    start with; the "groups" picker offers every column of ``X`` with few values (a column
    picked is kept off the card while it is the group). With a column, the card's figures in
    each group fill a table under the card (train and held-out), each group is a labelled mark
    on the ROC plane of either family (at the card's decision), and the gap slider beside the
    FPR slider holds the largest difference between two groups' TPR or FPR
    (``max_tpr_gap`` / ``max_fpr_gap``). Cut points move with a column picked.

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_samples, n_features), optional
        Training features: 0/1 rules, numbers, or a raw table (made into rules).
    y : array-like of shape (n_samples,), optional
        Two-class labels; or a ``Surv`` array (event, time), which opens the studio of
        time-to-event cards instead
        (:class:`~slimwidgets.widgets.survival_view.SurvivalStudio`).
    spec : Spec, optional
        A whole problem to start from (instead of ``**options``).
    debounce : float, default 0.15
        Seconds a control must rest before its change is solved.
    frontier : bool, default True
        Whether to solve the frontier and size path in the background.
    positive : label value, optional
        Which label is the positive class.
    sample_weight : array-like of shape (n_samples,), optional
        Row weights.
    validation : tuple, optional
        ``(X_val, y_val)``: held-out rows whose figures are shown beside the training ones.
    holdout : float, optional
        A share of ``X, y`` held out (stratified) instead of ``validation``.
    random_state : int, optional
        The seed of the ``holdout`` split.
    alternatives : bool, optional
        Whether to list near-optimal cards with other features (default: as ``frontier``).
    sensitive_features : str or array-like, optional
        The group column to start with: a column of ``X`` or one label per row.
    **options
        Options of :func:`slimwidgets.fit`.
    """

    def __new__(cls, X: Any = None, y: Any = None, **options: Any):
        # the family y and the options read as may name a studio of its own (a Surv y: the
        # time-to-event studio, which is not a Studio); label cards' studio is this one
        opens = _family_of_studio(y, options).studio
        return opens(X, y, options) if opens is not None else super().__new__(cls)

    def __init__(
        self,
        X: Any = None,
        y: Any = None,
        *,
        spec: Spec | None = None,
        debounce: float = 0.15,
        frontier: bool = True,
        positive: Any = None,
        sample_weight: Any = None,
        validation: Any = None,
        holdout: Any = None,
        random_state: Any = None,
        alternatives: bool | None = None,
        sensitive_features: Any = None,
        **options: Any,
    ):
        self.ui_lock = threading.RLock()
        self.own_changes = OwnChanges()
        self._charts_for: bool | None = (
            None  # whether the charts are built for risk cards (None: not yet)
        )
        self._card_sent: ScoringSystem | None = (
            None  # the card (and state, spec) the card view was last sent
        )
        self._state_sent: tuple | None = None
        self._closed = False
        # its parts: the handlers, the group controls and the screen that wires them
        self.requests = ViewRequests(self)
        self.group_panel = GroupPanel(self)
        self.screen = StudioLayout(self)
        self.controller = Controller(
            X,
            y,
            spec=spec,
            debounce=debounce,
            frontier=frontier,
            positive=positive,
            sample_weight=sample_weight,
            validation=validation,
            holdout=holdout,
            random_state=random_state,
            start=False,
            alternatives=alternatives,
            sensitive_features=sensitive_features,
            **options,
        )
        self.screen.build_controls()
        self.screen.build_variable_caps()
        self.group_panel.build_group_controls()
        self.screen.build_family_switch()
        self.screen.build_feature_panel()
        self.screen.build_toolbar()
        self._build_views()
        c = self.controller
        super().__init__(self.screen.arrange(len(c.data.feature_names)))
        self.add_class("sw-studio")
        self._refresh_charts()
        c.subscribe(self._on_event)
        c.begin()

    def _build_views(self) -> None:
        """The card and the two charts (anywidget views of js/src); what they send is answered
        by one dispatcher (:mod:`~slimwidgets.widgets.protocol`)."""
        self._dispatcher = Dispatcher(
            self.requests.view_handlers(), self.requests.refused, self.requests.answered
        )
        self.card_view = CardView()
        self.card_view.add_class("sw-card-view")
        self._dispatcher.connect("card", self.card_view)
        self.roc_view = ChartView()
        self.roc_view.add_class("sw-roc")
        self.path_view = ChartView()
        self.path_view.add_class("sw-path")
        self._dispatcher.connect("chart", self.roc_view)
        self._dispatcher.connect("chart", self.path_view)
        # a risk card's calibration (predicted risk against what happened),
        # shown for risk cards only
        self.calib_view = ChartView(layout=W.Layout(display="none"))
        self.calib_view.add_class("sw-calibration")
        self._build_alternatives()
        self.cuts_view = None
        if (
            self.controller.cut_points()
        ):  # a raw table with numeric variables: their cut points can be moved
            # (its other variables are listed beside them, with their levels and their use)
            self.cuts_view = CutsView(variables=self.controller.cut_panel())
            self.cuts_view.add_class("sw-cuts-view")
            self._dispatcher.connect("cuts", self.cuts_view)

    def _build_alternatives(self) -> None:
        """The alternatives list under the card (hidden when the studio does not search them)."""
        self.alts_view = AlternativesView(
            layout=W.Layout(display=None if self.controller.alts.enabled else "none")
        )
        self.alts_view.add_class("sw-alts-view")
        self._dispatcher.connect("alternatives", self.alts_view)

    def _family_controls(self) -> None:
        """The switch follows the spec, and names what the last switch set
        aside (under the UI lock).

        Every control applies to both families (a risk card's caps hold for its decision at
        risk >= 50 %); options without a control that a family refuses (margin, ...) are set
        aside by :meth:`Controller.set_family` and named here until switching back."""
        self.family_toggle.value = self.controller.family
        aside = self.controller.set_aside_text()
        self.family_note.value = (
            ""
            if not aside
            else (
                "<span class='sw-family-why'>"
                + html.escape(f"set aside: {aside}, restored when you switch back")
                + "</span>"
            )
        )

    # -- the public face ---------------------------------------------------------------------------
    @property
    def scoring_system(self) -> ScoringSystem | None:
        """The card on screen (an incumbent while a solve runs; None when infeasible)."""
        return self.controller.card

    @property
    def history(self) -> list[HistoryEntry]:
        """Every settled card shown, in order, with its spec and how it came."""
        return list(self.controller.history)

    @property
    def spec(self) -> Spec:
        """The spec of the card on screen."""
        return self.controller.spec

    @property
    def status(self) -> str:
        """The status line shown under the card, as text."""
        return self.controller.status.text

    def wait(self, timeout: float | None = 60.0) -> bool:
        """Block until the current spec is settled (for scripts; not needed in a notebook).

        Parameters
        ----------
        timeout : float, optional, default 60.0
            Most seconds to wait; None waits as long as it takes.
        """
        return self.controller.wait(timeout)

    def undo(self) -> bool:
        """Go back one step; False when there is none, None when it failed (message shown)."""
        return self.guard(self.controller.undo)

    def redo(self) -> bool:
        """Go forward one step; False when there is none, None when it failed (message shown)."""
        return self.guard(self.controller.redo)

    def export(self, fmt: str = "json", path: str | None = None) -> tuple[Path, str]:
        """Write the card on screen to a file; returns (path, reload line).

        Parameters
        ----------
        fmt : str, default="json"
            ``"json"``, ``"html"``, ``"latex"``, ``"markdown"``, ``"python"``, ``"sql"``, or
            ``"report"``: the card's validation report (:func:`slimwidgets.report`, with the
            held-out rows when there are any).
        path : str or None, default=None
            Where to write (None: ``scoring_system`` with the format's extension, in the
            working directory).
        """
        return self.controller.export(fmt, path)

    def close(self) -> None:
        """Stop the solver threads and close every widget of the studio."""
        if self._closed:
            return
        self._closed = True
        self.controller.close()
        widgets = [
            self.family_toggle,
            self.family_note,
            self.fpr_slider,
            self.fpr_none,
            self.tpr_slider,
            self.tpr_none,
            self.size_slider,
            self.size_none,
            self.vars_text,
            self.cuts_text,
            self.c0_text,
            self.range_slider,
            self.time_text,
            self.undo_button,
            self.redo_button,
            self.export_format,
            self.export_path,
            self.export_button,
            self.message,
            self.card_view,
            self.roc_view,
            self.path_view,
            self.feature_panel,
            self.alts_view,
            *self.group_widgets,
        ] + ([self.cuts_view] if self.cuts_view is not None else [])
        for row in self.feature_rows.values():
            widgets += list(row.values())
        boxes = [w for w in self._descendants() if w not in widgets]
        for w in widgets + boxes:
            try:
                w.close()
            except Exception:
                pass
        super().close()

    def _descendants(self):
        out, todo = [], list(self.children)
        while todo:
            w = todo.pop()
            out.append(w)
            todo += list(getattr(w, "children", ()))
        return out

    def __del__(self) -> None:
        try:
            self.controller.close(0)
        except Exception:
            pass

    # -- controls -> controller --------------------------------------------------------------------
    def guard(self, fn, *args, **kwargs):
        """Run a control's action: a refusal is said in the message line, else the notice.

        Parameters
        ----------
        fn : the controller's action.
        *args, **kwargs : its arguments.

        Returns
        -------
        what ``fn`` returned, or None when it was refused.
        """
        try:
            out = fn(*args, **kwargs)
        except REFUSALS as exc:
            self.say_refused(exc)
            return None
        self.show_notice()
        return out

    def say_refused(self, exc: BaseException) -> None:
        """A refused action in the message line; every control shows the spec in force again.

        Parameters
        ----------
        exc : the refusal, said in the user's words.
        """
        msg = html.escape(refusal_text(exc))
        self.message.value = f"<span class='sw-error' style='color:#a8192e'>{msg}</span>"
        self._sync_controls()

    def show_notice(self) -> None:
        """The message line says what the last action changed besides what was asked."""
        c = self.controller
        color = {"error": "#a8192e", "warning": "#8a5a00"}.get(c.notice_level, "#555")
        self.message.value = (
            ""
            if not c.notice
            else (
                f"<span class='sw-notice sw-{c.notice_level}' "
                f"style='color:{color}'>{html.escape(c.notice)}</span>"
            )
        )

    # -- controller -> views -----------------------------------------------------------------------
    def _on_event(self, events: set[str]) -> None:
        if self._closed:
            return
        if "spec" in events:
            with self.ui_lock:
                self.screen.follow_features()  # the rules change with the cut points
            self._sync_controls()
        if "spec" in events or "cuts" in events:
            self.requests.refresh_cuts()
        if "notice" in events:
            self.show_notice()
        if "card" in events or "advice" in events:
            self.refresh_card()
        if "card" in events or "frontier" in events:
            self._refresh_charts()
        if "card" in events or "alternatives" in events:
            self._refresh_alternatives()
        if events & {"card", "spec", "notice"}:
            self.group_panel.refresh_groups()

    def _refresh_alternatives(self) -> None:
        """Rows and state of the list, from the controller (the difference
        column follows the card)."""
        if not self.controller.alts.enabled:
            return
        with self.ui_lock:
            view = self.controller.alternatives()
            with self.alts_view.hold_sync():
                if self.alts_view.state != view["state"]:
                    self.alts_view.state = view["state"]
                if self.alts_view.rows != view["rows"]:
                    self.alts_view.rows = view["rows"]

    def refresh_card(self) -> None:
        """Draw the controller's card, its status and the undo/redo buttons."""
        with self.ui_lock:
            c = self.controller
            status, card = c.status.to_dict(), c.card
            with self.card_view.hold_sync():
                # the status line changes only when what it says changes (not its clock or bound)
                if _status_words(status) != _status_words(self.card_view.status):
                    self.card_view.status = status
                # (a pointer beside the card, or its cost, may change while the card stays)
                shown = (c.status.state, c.spec.key(), c.base_card, repr(c.advice.view()))
                if card is not self._card_sent or shown != self._state_sent:
                    self.card_view.card = card_payload(c)
                    self._card_sent, self._state_sent = card, shown
            self.undo_button.disabled = not c.can_undo
            self.redo_button.disabled = not c.can_redo

    def chart_frames(self) -> dict[str, pd.DataFrame]:
        """The DataFrames both charts are drawn from (see :meth:`Controller.chart_frames`)."""
        return self.controller.chart_frames()

    def _refresh_charts(self) -> None:
        with self.ui_lock:
            f = self.chart_frames()
            risk = self._card_family().predicts_risk
            if risk:
                roc_data = charts.risk_roc_datasets(f["roc"], f["card"])
                path_data = charts.sparsity_datasets(f["path"], f["card"], "log_loss")
            else:
                roc_data = charts.roc_datasets(f["frontier"], f["roc"], f["card"], f["cap"])
                path_data = charts.sparsity_datasets(f["path"], f["card"])
            roc_data["groups"] = charts.records(
                self.group_panel.group_marks(), GROUP_MARK_COLS
            )  # both families' ROC
            calib_data = charts.calibration_datasets(self._calibration() if risk else None)
            specs = None
            if self._charts_for != risk:  # the structure changes only with the family
                self._charts_for = risk
                specs = self._chart_specs(f, risk)
                self.calib_view.layout.display = None if risk else "none"
            views = (
                (self.roc_view, roc_data),
                (self.path_view, path_data),
                (self.calib_view, calib_data),
            )
            for i, (view, data) in enumerate(views):
                with view.hold_sync():  # a new structure arrives with its own rows
                    if specs is not None:
                        view.spec = specs[i]
                    if view.datasets != data:
                        view.datasets = data

    def _card_family(self) -> CardFamily:
        """The family the charts draw: the card's on screen (the spec's while there is none)."""
        card = self.controller.card
        if card is None:
            return family_named(self.controller.family)
        return family_of_card(card)

    def _chart_specs(self, f: dict[str, pd.DataFrame], risk: bool) -> tuple[dict, dict, dict]:
        held_out = self.controller.validation is not None
        if risk:
            roc = with_group_marks(
                charts.risk_roc_chart(f["roc"], f["card"], held_out=held_out),
                self.group_panel.group_marks(),
            )
            path = charts.sparsity_chart(
                f["path"], f["card"], held_out=held_out, measure="log_loss"
            )
        else:
            roc = with_group_marks(
                charts.roc_chart(f["frontier"], f["roc"], f["card"], f["cap"], held_out=held_out),
                self.group_panel.group_marks(),
            )
            path = charts.sparsity_chart(f["path"], f["card"], held_out=held_out)
        calib = charts.calibration_chart(self._calibration() if risk else None, held_out=held_out)
        return (
            charts.split_datasets(roc)[0],
            charts.split_datasets(path)[0],
            charts.split_datasets(calib)[0],
        )

    def _calibration(self) -> pd.DataFrame | None:
        """The risk card's calibration bands (None for a decision card)."""
        return self.controller.risk_calibration()

    @property
    def syncing(self) -> bool:
        """Whether this thread is showing the spec in the controls (their changes are its own)."""
        return self.own_changes.active

    def _sync_controls(self) -> None:
        """Show the current spec in every control (after undo, redo, load, or a refused value)."""
        with self.ui_lock:
            s = self.controller.spec
            with self.own_changes.showing():
                self.fpr_none.value = s.max_fpr is None
                self.fpr_slider.disabled = s.max_fpr is None
                if s.max_fpr is not None:
                    self.fpr_slider.value = s.max_fpr
                self.tpr_none.value = s.min_tpr is None
                self.tpr_slider.disabled = s.min_tpr is None
                if s.min_tpr is not None:
                    self.tpr_slider.value = s.min_tpr
                self.size_none.value = s.max_size is None
                self.size_slider.disabled = s.max_size is None
                if s.max_size is not None:
                    self.size_slider.value = min(s.max_size, self.size_slider.max)
                self.vars_text.value = "" if s.max_variables is None else str(s.max_variables)
                self.cuts_text.value = (
                    "" if s.max_cuts_per_variable is None else str(s.max_cuts_per_variable)
                )
                self.c0_text.value = "" if s.C0 is None else f"{s.C0:g}"
                self.range_slider.value = tuple(s.coef_range)
                if s.time_limit is not None:
                    self.time_text.value = s.time_limit
                self._family_controls()
                self.group_panel.sync_group_controls()
                for name, row in self.feature_rows.items():
                    f = self.controller.feature(name)
                    row["use"].value = f.use
                    row["sign"].value = f.sign
                    row["penalty"].value = "" if f.penalty is None else f"{f.penalty:g}"
                    row["range"].value = tuple(f.points_range)


def _family_of_studio(y: Any, options: dict[str, Any]) -> CardFamily:
    """The family a studio of ``y`` under ``options`` opens; decision cards' for an unknown loss,
    which the studio's spec then refuses naming the known ones."""
    try:
        return family_for(y, options)
    except ValueError:
        return DECISION


# the time-to-event family opens its own studio: the widgets' floor names it to the family
TIME_TO_EVENT.opens_studio_with(functools.partial(open_time_to_event, ChartView))
# help() and the docstring checks read __init__'s options, not the __new__ that picks the family
Studio.__signature__ = inspect.signature(Studio.__init__).replace(
    parameters=list(inspect.signature(Studio.__init__).parameters.values())[1:]
)
