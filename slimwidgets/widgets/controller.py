"""The studio's controller: everything the studio does, without Jupyter.

The controller owns one current :class:`~slimwidgets.Spec` and the card shown
for it. Control changes produce a new spec; a spec is either found in the
cache (shown at once) or solved by a :class:`SolveScheduler` on a worker
thread, whose incumbents stream in while it runs. Results of a superseded spec
are never shown. Point edits never solve: they re-evaluate the card at once and
mark it "edited"; a lock turns an edited value into a constraint of the next
solve. Every settled card is appended to :attr:`history`; undo / redo walk the
settled states. A second worker fills in the FPR-cap frontier and the
sparsity path in the background, through the same cache; a third lists near-optimal
cards with other features (:mod:`~slimwidgets.widgets.alternatives`), loaded on request.

With held-out rows (``validation=(X_val, y_val)`` or ``holdout=0.25``) every card
carries its validation metrics next to its training metrics, and the frontier
and path carry both curves.

Two card families: decision cards (``loss="zero_one"``) and risk cards
(``loss="logistic"``), switched by :meth:`Controller.set_family`. For risk cards
the background solves only the sparsity path (log-loss by size): the FPR-cap
frontier compares decision cards, and a risk card's own ROC shows every threshold.

Nothing is lost silently: a value that cannot be applied raises before anything
changes; a spec that turns out infeasible keeps the previous card and settings
on screen and names the clash; an action that had to change something else
(locking an excluded feature, loading a card solved under other settings, a
penalty that changed nothing) says so in :attr:`Controller.notice`.

Views subscribe with ``controller.subscribe(callback)``; the callback receives
the set of what changed (``"card"``, ``"spec"``, ``"frontier"``, ``"notice"``,
``"alternatives"``) and
may run on a worker thread.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from ..core.data import Dataset
from ..core.scoring import ScoringSystem
from ..core.spec import Spec, make_spec
from ..core.wording import describe_spec, spec_changes
from ..fitting import check_card
from ..fitting.cards import card_from_incumbent
from ..solvers.base import Incumbent
from .alternatives import ALT_K, ALT_WITHIN, AlternativesControls, AlternativesList
from .best_known import BestKnown, BestKnownControls
from .card_status import (
    LOST_SOLVER,
    Status,
    check_edit,
    edit_cost,
    edited_status,
    load_notice,
    optimised_measure,
    same_figures,
    showing_bar,
    status_of,
    worth_showing,
)
from .cuts import CutEditing
from .exports import EXPORT_FORMATS, CardExports
from .features import forwards
from .finish import FinishClock
from .groups import GroupControls, grouped_studio_data
from .history import HistoryEntry, UndoRedo
from .holdout import (
    RiskTables,
    measured_as_loaded,
    prepare_validation,
    split_holdout,
    train_metrics,
)
from .lifecycle import WaitAndClose
from .monotone import MonotoneAdvice
from .scheduler import SolveScheduler, Throttle
from .settings import FAMILY_LOSS, FeatureSettings, SettingsEditing
from .size_choice import StartingSize, size_cv_applies
from .solving import Failure, SolveCache, studio_spec
from .studio_core import StudioCore
from .sweeps import FPR_CAPS, MAX_PATH_SIZE, Sweeps, SweepViews, card_roc
from .variables import VariableEditing
from .warmup import WarmupControls

__all__ = [
    "Controller",
    "Status",
    "HistoryEntry",
    "FeatureSettings",
    "EXPORT_FORMATS",
    "FPR_CAPS",
    "DEFAULT_TIME_LIMIT",
    "card_roc",
    "edit_cost",
    "describe_spec",
    "spec_changes",
    "prepare_validation",
    "split_holdout",
    "INCUMBENT_INTERVAL",
    "FAMILY_LOSS",
    "train_metrics",
]

DEFAULT_TIME_LIMIT = 5.0
# Incumbents reach the view at most this often (seconds): ~4 a second can still be read.
INCUMBENT_INTERVAL = 0.25


def _same_card(a: ScoringSystem | None, b: ScoringSystem | None) -> bool:
    return (
        a is not None
        and b is not None
        and a.coefficients == b.coefficients
        and a.intercept == b.intercept
    )


# -- the controller --------------------------------------------------------------------------------
@forwards(
    settings=(
        SettingsEditing,
        "update feature features set_feature lock unlock family set_family set_aside_text",
    ),
    groups=(
        GroupControls,
        "group group_columns set_group group_apart set_gap gap_control group_frame group_status",
    ),
    core=(
        StudioCore,
        "subscribe generation spec data validation rules status notice notice_level say "
        "use_rows measured solving",
    ),
    undo_redo=(UndoRedo, "can_undo can_redo undo redo"),
    alternative_cards=(
        AlternativesControls,
        "settled_card alternatives wait_alternatives load_alternative",
    ),
    sweep_views=(SweepViews, "frontier_points path_points chart_frames"),
    best_known=(BestKnownControls, "offer"),
    lifecycle=(WaitAndClose, "wait wait_background threads close closed"),
    cuts=(
        CutEditing,
        "moved_cuts table cut_points cut_panel set_cuts add_cut move_cut "
        "remove_cut adopt_size set_variable cut_errors",
    ),
    variables=(VariableEditing, "edit_band set_caps monotone_of set_monotone lock_variable"),
    risk_tables=(RiskTables, "risk_table risk_calibration"),
    exports=(CardExports, "export"),
)
class Controller:
    """Spec editing, solve scheduling, cache, history, undo/redo, edit/lock and export.

    Each feature lives in its own module, as a part and the controls it adds here: the
    settings (:class:`~slimwidgets.widgets.settings.SettingsEditing`), the undo/redo states
    (:class:`~slimwidgets.widgets.history.UndoHistory`, :class:`~.history.UndoRedo`), the
    background frontier and path (:class:`~slimwidgets.widgets.sweeps.Sweeps`,
    :class:`~.sweeps.SweepViews`), the alternatives (:class:`~.alternatives.AlternativesList`,
    :class:`~.alternatives.AlternativesControls`), the best card known from background work
    (:class:`~.best_known.BestKnownControls`), the solves and their cache
    (:class:`~slimwidgets.widgets.solving.SolveCache`), the held-out rows
    (:mod:`~slimwidgets.widgets.holdout`), the status wording (:mod:`~.card_status`), waiting
    and closing (:class:`~slimwidgets.widgets.lifecycle.WaitAndClose`). The controller runs the
    state machine: the spec in force, the card shown and the generation of the request. The
    state lives in :attr:`core` (:class:`~slimwidgets.widgets.studio_core.StudioCore`: the rows,
    spec, card, status, notice, lock, events, solves and cache), which every feature object is
    given; each is handed in its constructor the few commands of the controller it calls
    (:meth:`set_spec`, :meth:`show_card`, ...) and the other features it works with, never the
    controller itself.

    Parameters
    ----------
    X, y : the training data (as for :func:`slimwidgets.fit`).
    spec : a starting :class:`Spec`; or keyword options for :func:`make_spec`
        (``time_limit`` defaults to 5 s per solve).
    validation : ``(X_val, y_val)`` held-out rows; every card is measured on them too.
    holdout : instead of ``validation``, hold out this fraction of ``X, y``
        (stratified by class, shuffled with ``random_state``).
    debounce : seconds a control must rest before its spec is solved.
    frontier : compute the FPR-cap frontier and the sparsity path in the background.
    alternatives : list near-optimal cards with other features in the background
        (:attr:`alts`; default: as ``frontier``).
    sensitive_features : the group column to start with (a column of ``X`` or one label per
        row); any column of ``X`` with few values can be picked later (:meth:`set_group`).
    """

    def __init__(
        self,
        X: Any = None,
        y: Any = None,
        *,
        data: Dataset | None = None,
        spec: Spec | None = None,
        positive: Any = None,
        sample_weight: Any = None,
        validation: Any = None,
        holdout: Any = None,
        random_state: Any = None,
        debounce: float = 0.15,
        frontier: bool = True,
        fpr_caps=FPR_CAPS,
        max_path_size: int = MAX_PATH_SIZE,
        start: bool = True,
        alternatives: bool | None = None,
        sensitive_features: Any = None,
        **options: Any,
    ):
        given = dict(options)  # what the user asked, before the rules were made of the table
        # a raw table becomes rules fit on the training rows alone; every card carries them
        data, validation, rules, options, raw, worlds = grouped_studio_data(
            X,
            y,
            data,
            sensitive_features=sensitive_features,
            positive=positive,
            sample_weight=sample_weight,
            validation=validation,
            holdout=holdout,
            random_state=random_state,
            options=options,
        )
        if spec is not None and options:
            raise TypeError(
                f"give either spec= or keyword options, not both (got {sorted(options)})"
            )
        spec_given = spec
        if spec is None:
            options.setdefault("time_limit", DEFAULT_TIME_LIMIT)
            spec = make_spec(**options)
        spec.check_data(data.feature_names, data.n_samples)
        # what the feature objects share: the rows, spec, card, lock, events, solves and cache
        self.core = StudioCore(data, spec, validation=validation, rules=rules, best=BestKnown(data))
        self.core.solver = SolveCache(data, self.core.measured, self.core.lock)
        self.warming = WarmupControls(self.core, self._pause_background)
        self._finish = FinishClock()  # the time limit runs from the request to the card drawn
        self._watch: tuple[int, str, ScoringSystem] | None = (
            None  # (generation, what, card before): see _settle
        )
        self.settings = SettingsEditing(self.core, self.set_spec)
        self.variables = VariableEditing(self.core, self.set_spec, self.edit)
        self.history: list[HistoryEntry] = self.core.undo.entries
        self.risk_tables = RiskTables(self.core)
        self.core.scheduler = SolveScheduler(self._solve_job, debounce=debounce)
        self.best_known = BestKnownControls(
            self.core, self.push_card, lambda spec, card: self.sweeps.solved(spec, card)
        )
        self.sweeps = Sweeps(
            self.core,
            self.solve_spec,
            self.store_result,
            self.best_known.offer,
            enabled=frontier,
            fpr_caps=fpr_caps,
            max_path_size=max_path_size,
        )
        self.alts = AlternativesList(
            self.core,
            lambda: self.core.emit("alternatives"),
            self.best_known.offer,
            k=ALT_K,
            within=ALT_WITHIN,
            enabled=frontier if alternatives is None else alternatives,
        )
        self.sweep_views = SweepViews(self.core, self.sweeps, self.alts)
        self.alternative_cards = AlternativesControls(self.core, self.alts, self.show_card)
        self.exports = CardExports(self.core)
        self.incumbent_interval = INCUMBENT_INTERVAL
        # bumpy numeric variables of the card, and their fix
        self.advice = MonotoneAdvice(self.core, self.solve_spec, self.store_result)
        self.cuts = CutEditing(  # a raw table's cut points can be moved
            self.core,
            raw,
            request=self.set_spec,
            sweeps=self.sweeps,
            alts=self.alts,
            monotone_of=self.variables.monotone_of,
            group_column=lambda: self.groups.group,
            across_switch=lambda switch: self.groups.across_table_switch(switch),
        )
        first = (
            getattr(sensitive_features, "name", None)
            if not isinstance(sensitive_features, str)
            else sensitive_features
        )
        self.groups = GroupControls(
            self.core,
            worlds,
            None if sensitive_features is None else str(first or "group"),
            cuts=self.cuts,
            sweeps=self.sweeps,
            alts=self.alts,
            request=self.set_spec,
        )
        self.undo_redo = UndoRedo(
            self.core, self.jump_to, self.groups.around_jump, self.sweep_views.plan_background
        )
        # with fit's defaults on a raw table, the size is chosen as fit chooses it (size_choice.py)
        self.starting_size = StartingSize(self.core, given, raw, self.cuts.adopt_size)
        self._choose_size = spec_given is None and size_cv_applies(given, raw, sensitive_features)
        self.lifecycle = WaitAndClose(
            self.core,
            sweeps=self.sweeps,
            alts=self.alts,
            advice=self.advice,
            starting_size=self.starting_size,
            warming=self.warming,
        )
        if start:
            self.begin()

    def begin(self) -> None:
        """Solve the starting settings (and, with ``fit``'s defaults on a raw table, choose the
        size as ``fit`` does meanwhile): what a controller made with ``start=False`` calls."""
        self.set_spec(self.spec)
        if self._choose_size:
            self._choose_size = False  # once: later solves are the user's
            self.starting_size.start()

    # -- undo and redo ----------------------------------------------------------------------------
    def jump_to(self, index: int, action: str) -> None:
        """Show the settled state ``index`` of the undo history (under the lock): undo, redo."""
        self.core.check_open()
        self.core.advance()
        self.core.scheduler.cancel()
        state = self.core.undo.go(index, action)
        self.cuts.follow_table(state.table)  # back to the cut points of that state
        self.spec = state.spec
        self.core.card, self.core.base, self.status = state.card, state.base, state.status
        self.say("")

    def _pause_background(self, paused: bool) -> None:
        """Hold (or let go) the background solves: the solve the user waits for, or the compile
        it waits for, has the machine."""
        self.sweeps.queue.pause(paused)
        self.alts.pause(paused)

    def __del__(self) -> None:
        lifecycle = self.__dict__.get("lifecycle")
        if lifecycle is not None:
            lifecycle.stop_now()

    # -- the current card --------------------------------------------------------------------------
    @property
    def card(self) -> ScoringSystem | None:
        """The card on screen (an incumbent while solving; None when infeasible)."""
        return self.core.card

    @property
    def base_card(self) -> ScoringSystem | None:
        """For an edited card: the solved card it was edited from."""
        return self.core.base

    def edit_cost(self) -> dict | None:
        """What the current edits cost against the solved card (percentage points)."""
        card, base = self.core.card, self.core.base
        if card is None or base is None or card.status != "edited":
            return None
        return edit_cost(card.train_metrics, base.train_metrics)

    def violations(self) -> list[str]:
        """Constraints of the current spec that the card on screen breaks (edited cards can)."""
        if self.core.card is None:
            return []
        return check_card(self.core.card, self.data, self.spec)

    # -- spec editing -----------------------------------------------------------------------------
    def set_spec(
        self,
        spec: Spec,
        action: str = "solve",
        *,
        notice: str = "",
        watch: tuple[str, ScoringSystem | None] | None = None,
        requested: float | None = None,
    ) -> None:
        """Show the card of ``spec``: from the cache at once, else solve it in the background.

        A spec the data cannot have (unknown names, more features locked or
        required than ``max_size``) raises before anything changes. ``notice``
        tells the user what this action changed besides what was asked;
        ``watch=(what, card)`` says so when the new card equals ``card``. ``requested``: when
        the user asked for it (``time.perf_counter()``; default now), from which the time limit
        runs.
        """
        if not isinstance(spec, Spec):
            raise TypeError(f"expected a Spec, got {type(spec).__name__}")
        spec = studio_spec(spec)  # the studio's solves never choose the size by CV, nor say so
        spec.check_data(self.data.feature_names, self.data.n_samples)
        with self.core.lock:
            self.core.check_open()
            self.core.advance()
            self.spec = spec
            self.say(notice)
            self._watch = (
                None if watch is None or watch[1] is None else (self.core.generation, *watch)
            )
            hit = self.core.cache.get(spec.key())
            if hit is not None:
                self.core.scheduler.cancel()
                self._settle(hit, spec, "cache" if action == "solve" else action)
            else:
                asked = self._finish.now() if requested is None else requested
                self.core.scheduler.submit((self.core.generation, spec, action, asked))
                self.core.undo.drop_redo()  # a new request drops the redo tail
                # the previous card stays on screen (dimmed) until a card as
                # good arrives (see _solve_job)
                self.status = Status(
                    "solving", self.warming.solving_text(spec), started=time.time()
                )
        self.sweep_views.plan_background(also=("spec", "card", "notice"))

    # -- edit -----------------------------------------------------------------------------------
    def edit(
        self, points: Mapping[str, int] | None = None, threshold: int | None = None
    ) -> ScoringSystem:
        """Edit points (and/or the threshold) of the card on screen: no solve, status "edited".

        An edit while a solve runs stops it (the edit is the newer wish). An edit
        that changes nothing (the same value sent twice) records nothing.
        """
        for name in points or {}:
            self.settings.check_known(name)
        check_edit(points, threshold)
        with self.core.lock:
            self.core.check_open()
            card = self.core.card
            if card is None:
                raise RuntimeError("there is no card to edit")
            if tuple(card.feature_names) != tuple(self.data.feature_names):
                raise RuntimeError(
                    "the card on screen has the rules of the previous cut points: edit the new "
                    "card once it is shown"
                )
            edited = card.with_points(
                {k: int(v) for k, v in (points or {}).items()},
                intercept=None if threshold is None else -int(threshold),
            )
            if edited.coefficients == card.coefficients and edited.intercept == card.intercept:
                return card  # nothing changed: no second undo step for one edit
            solving = self.status.state == "solving"
            base = self.core.base if card.status == "edited" else card
            edited = self.measured(edited)
            self.core.advance()
            self.core.scheduler.cancel()
            self.push_card(
                edited, self.spec, edited_status(edited, base, self.data, self.spec), "edit", base
            )
            self.say("the edit stopped the running solve" if solving else "")
        self.core.emit("card", "notice")
        return edited

    # -- load --------------------------------------------------------------------------------------
    def load(self, what: str | Spec | ScoringSystem) -> None:
        """Show a card: a spec key (e.g. a clicked frontier point), a Spec, or a ScoringSystem.

        When the loaded card was solved under other settings than the current
        ones, :attr:`notice` lists what changed (e.g. a lock it dropped).
        """
        if isinstance(what, ScoringSystem):
            self._load_card(what)
            return
        if isinstance(what, str):
            try:
                spec = Spec.from_dict(json.loads(what))
            except json.JSONDecodeError:
                raise ValueError(f"not a spec key: {what[:60]!r}") from None
        else:
            spec = what
        self.set_spec(spec, action="load", notice=load_notice(self.spec, spec))

    def _load_card(self, what: ScoringSystem) -> None:
        if tuple(what.feature_names) != tuple(self.data.feature_names):
            raise ValueError("the card was built on other features than the studio's data")
        spec = what.spec if what.spec is not None else self.spec
        spec.check_data(self.data.feature_names, self.data.n_samples)
        card = measured_as_loaded(what, self.data, self.validation)
        with self.core.lock:
            self.core.check_open()
            notice = load_notice(self.spec, spec)
            broken = check_card(card, self.data, spec)
            if broken:
                notice = "; ".join(
                    filter(None, [notice, "the loaded card breaks " + "; ".join(broken)])
                )
            status = (
                status_of(card)
                if card.status != "edited"
                else edited_status(card, None, self.data, spec)
            )
            self.show_card(card, spec, status)
            self.say(notice, "warning" if broken else "info")
        self.undo_redo.after_jump()

    # -- internals: showing cards ------------------------------------------------------------------
    def _settle(self, result: ScoringSystem | Failure, spec: Spec, action: str) -> bool:
        """Show a finished solve (under the lock); True when a failure put
        the previous state back."""
        if isinstance(result, Failure):
            self.core.undo.log(None, spec, result.status, action)
            state = self.core.undo.current
            if state is None:  # nothing to go back to
                self.push_card(None, spec, result.status, action, None)
                return False
            # the previous card and settings stay; the status names what failed
            self.spec, self.core.card, self.core.base = state.spec, state.card, state.base
            self.groups.back_to(state)
            self.status = result.status
            self.say("these settings have no card: kept the previous card and settings", "error")
            return True
        self.push_card(result, spec, status_of(result), action, None)
        watch, self._watch = self._watch, None
        if watch is not None and watch[0] == self.core.generation and _same_card(watch[2], result):
            self.say(watch[1])
        return False

    def show_card(self, card: ScoringSystem, spec: Spec, status: Status) -> None:
        """Show ``card``, found without a solve, with ``spec`` in force (under the lock): a new
        generation, the running solve stopped, one undo step ("load")."""
        self.core.advance()
        self.core.scheduler.cancel()
        self.spec = spec
        self.push_card(card, spec, status, "load", None)

    def push_card(self, card, spec, status, action, base) -> None:
        """Show ``card`` settled for ``spec`` and record it as an undo step (under the lock)."""
        self.core.card, self.core.base, self.status = card, base, status
        self.core.undo.push(card, spec, status, action, base, table=self.cuts.table)

    # -- solving ---------------------------------------------------------------------------------
    def solve_spec(
        self,
        spec: Spec,
        cancel: threading.Event,
        on_incumbent: Callable[[Incumbent], None] | None = None,
        time_limit: float | None = None,
    ) -> ScoringSystem | Failure | None:
        """Solve ``spec`` (in ``time_limit`` seconds when given); None when it was interrupted
        (nothing to cache), or when the studio's rows changed meanwhile (another group column or
        other cut points): the result then goes to the cache of the rows it was solved on only."""
        solver = self.core.solver
        return self.groups.kept(solver, spec, solver.solve(spec, cancel, on_incumbent, time_limit))

    def store_result(self, spec: Spec, result) -> None:
        """Cache ``result`` of ``spec`` with the rows it was solved on."""
        self.groups.store_where_made(spec, result)

    @property
    def solve_count(self) -> int:
        """Solves actually started (on every group column's data)."""
        return self.groups.solve_total()

    def _solve_job(self, job, cancel: threading.Event) -> None:
        gen, spec, action, requested = job
        if gen != self.core.generation:
            return
        cached = self.core.cache.get(spec.key())
        if cached is None and self.warming.warmup_for(spec).busy:
            # the one-off compile, said on the status line, is not the solve's
            # time: its clock starts after
            if not self.warming.wait_for_warmup(spec, gen, cancel):
                return
            requested = self._finish.now()
        started = time.time()
        finished = threading.Event()  # set (under the lock) once the solve's own result is shown
        measure, bar = (
            optimised_measure(spec),
            showing_bar(self.data, spec, [self.core.card, self.core.solver.nearest(spec)]),
        )

        def show(inc: Incumbent) -> None:  # on the solver's thread or the throttle's timer
            if gen != self.core.generation:
                return  # superseded (and, after a cut change, of other rules than the data's)
            card = self.measured(card_from_incumbent(self.data, spec, inc))
            if not worth_showing(card, bar, measure):
                # no trivial or poorer card flashes: the previous card stays,
                # dimmed, until one as good
                return
            status = status_of(card, solving_since=started)
            with self.core.lock:
                if gen != self.core.generation or finished.is_set():
                    return
                shown = self.core.card
                if (
                    shown is not None
                    and shown.spec is not None
                    and shown.spec.key() == spec.key()
                    and same_figures(shown, card)
                ):
                    # the same figures with other points: the card shown stays, nothing reshuffles
                    return
                self.core.card, self.core.base, self.status = card, None, status
            self.core.emit("card")
            # a card is on screen: the risk kernels compile meanwhile, for a first switch
            self.warming.risk.start()

        throttle = Throttle(show, self.incumbent_interval)

        def on_incumbent(inc: Incumbent) -> None:
            if gen == self.core.generation and not cancel.is_set():
                throttle.offer(inc)

        # the solve the user waits for comes first: no new background solve starts meanwhile
        self._pause_background(True)
        try:
            result = (
                cached
                if cached is not None
                else self.solve_spec(
                    spec, cancel, on_incumbent, self._finish.seconds(spec, requested)
                )
            )
        finally:
            throttle.stop()
            self._pause_background(False)
        if result is None:
            return
        solved = self._finish.now()
        lost = isinstance(result, ScoringSystem) and result.status == "solver_stopped"
        if not lost:  # a card cut short by a lost solver process is solved again when asked again
            self.store_result(spec, result)
        with self.core.lock:
            finished.set()
            if gen != self.core.generation:
                return
            reverted = self._settle(result, spec, action)
            if lost:
                self.say(LOST_SOLVER, "warning")
        if reverted:
            self.sweep_views.plan_background(also=("spec", "card", "notice"))
        else:
            self.core.emit("card", "notice")
            if (
                cached is None
            ):  # how long the card took from the fit to the views: the next solve's reserve
                self._finish.record(FinishClock.family(spec), self._finish.now() - solved)
            self.alts.plan()  # the settled card is the first of its alternatives
        self.sweeps.solved(spec, result)
        if not reverted:
            self.best_known.offer_cached()
            self.warming.risk.start()  # the first switch to risk cards will not wait for a compile
