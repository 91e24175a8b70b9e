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
cards with other features (:mod:`~slimwidgets.widgets.rashomon`), loaded on request.

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
import math
import numbers
import os
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd

from ..core.data import Dataset, prepare_data
from ..fitting import InfeasibleError, NoSolutionError, check_card, fit_dataset
from ..core.formulation import build_formulation
from ..core.scoring import Metrics, ScoringSystem
from ..core.spec import Spec, make_spec, refused_options, set_options
from ..core.status import describe, details_text, limit_scale
from ..core.wording import describe_spec, options_text, spec_changes
from ..solvers.base import Incumbent
from ..toolbox.alternatives import as_alternative
from .rashomon import ALT_K, ALT_WITHIN, AlternativesList, card_figures, change_text, figure_texts
from .scheduler import BackgroundQueue, SolveScheduler, Throttle

__all__ = [
    "Controller", "Status", "HistoryEntry", "FeatureSettings", "EXPORT_FORMATS", "FPR_CAPS",
    "DEFAULT_TIME_LIMIT", "card_roc", "edit_cost", "describe_spec", "spec_changes", "prepare_validation",
    "split_holdout", "INCUMBENT_INTERVAL", "FAMILY_LOSS",
]

DEFAULT_TIME_LIMIT = 5.0
USES = ("auto", "exclude", "require")
SIGNS = ("free", "+", "-")
# FPR caps of the background frontier (slider positions, so dragging there is a cache hit).
FPR_CAPS = (0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5)
MAX_PATH_SIZE = 10
# Incumbents reach the view at most this often (seconds): ~4 a second can still be read.
INCUMBENT_INTERVAL = 0.25

#: The studio's two card families and the loss each is learned with.
FAMILY_LOSS = {"decision": "zero_one", "risk": "logistic"}

EXPORT_FORMATS = {
    "json": ".json", "html": ".html", "latex": ".tex", "markdown": ".md", "python": ".py",
}


#: the notice when a solve lost its solver process (the solver module has started a new one)
LOST_SOLVER = ("the solver process was lost (the system stops it when memory runs out): showing the best card "
               "found so far; a new solver process has started and solves again when you change a setting")


# -- value objects ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Status:
    """What the status line says; ``text`` is the line itself, in the user's units
    (:func:`~slimwidgets.core.status.describe`): ``level`` is its colour (ok | warn |
    error), ``details`` the raw solver figures for a details view, ``warning`` the
    degenerate-card message, ``proven`` whether what the line calls best is proven.
    """

    state: str  # idle | solving | optimal | time_limit | feasible | interrupted | infeasible | invalid | edited | error
    text: str
    objective: float | None = None
    bound: float | None = None
    gap: float | None = None
    elapsed: float | None = None
    conflicts: tuple[str, ...] = ()
    started: float | None = None  # time.time() when the running solve began
    level: str = "ok"
    details: str = ""
    warning: str | None = None
    proven: bool = False

    def to_dict(self) -> dict:
        def fin(v):
            return None if v is None or not math.isfinite(v) else float(v)
        return {"state": self.state, "text": self.text, "objective": fin(self.objective), "bound": fin(self.bound),
                "gap": fin(self.gap), "elapsed": fin(self.elapsed), "conflicts": list(self.conflicts),
                "started": self.started, "level": self.level, "details": self.details, "warning": self.warning,
                "proven": self.proven}


@dataclass(frozen=True)
class HistoryEntry:
    """One settled card as shown: the card (None when infeasible), its spec, how it came."""

    card: ScoringSystem | None
    spec: Spec
    action: str  # solve | cache | edit | lock | undo | redo | load
    status: Status
    base: ScoringSystem | None = None  # for an edited card: the solved card it was edited from
    time: float = field(default_factory=time.time)

    @property
    def train_metrics(self) -> Metrics | None:
        return None if self.card is None else self.card.train_metrics

    @property
    def validation_metrics(self) -> Metrics | None:
        """The card's metrics on the held-out rows (None without validation data)."""
        return None if self.card is None else self.card.validation_metrics

    def __repr__(self) -> str:
        card = "no card" if self.card is None else repr(self.card)
        held_out = "" if self.validation_metrics is None else f"; validation: {self.validation_metrics}"
        return f"HistoryEntry({self.action}: {card}; {self.status.text}{held_out})"


@dataclass(frozen=True)
class FeatureSettings:
    """One row of the feature panel, read from a spec."""

    name: str
    use: str  # auto | exclude | require
    sign: str  # free | + | -
    penalty: float | None  # None: the global C0
    points_range: tuple[int, int]
    locked: int | None

    def to_dict(self) -> dict:
        return {"name": self.name, "use": self.use, "sign": self.sign, "penalty": self.penalty,
                "points_range": list(self.points_range), "locked": self.locked}


@dataclass
class _Settled:
    """An undo/redo state."""

    spec: Spec
    card: ScoringSystem | None
    status: Status
    base: ScoringSystem | None = None


class _Failure:
    """A cached solve that gave no card (infeasible spec or invalid options)."""

    def __init__(self, status: Status):
        self.status = status


# -- pure helpers ----------------------------------------------------------------------------------
def _labels(data: Dataset) -> np.ndarray:
    return np.where(data.y == 1, data.positive, data.negative)


def train_metrics(card: ScoringSystem, data: Dataset) -> Metrics:
    """Weighted metrics of ``card`` on the collapsed rows of ``data`` (for the training
    rows, what ``fit`` reports; the same for held-out rows)."""
    return card.metrics(data.X, _labels(data), sample_weight=data.weight)


# -- held-out rows -------------------------------------------------------------------------------
def split_holdout(X: Any, y: Any, fraction: Any, *, sample_weight: Any = None,
                  random_state: Any = None) -> tuple[Any, Any, Any, Any, Any, Any]:
    """A stratified split: (X_train, y_train, w_train, X_val, y_val, w_val).

    ``fraction`` of the rows of each class are held out (scikit-learn's
    ``train_test_split`` with ``stratify=y``); weights (or None) follow their rows.

    Examples
    --------
    >>> X_tr, y_tr, _, X_va, y_va, _ = split_holdout([[0], [1]] * 4, [0, 1] * 4, 0.25, random_state=0)
    >>> len(y_tr), sorted(y_va)
    (6, [0, 1])
    """
    if isinstance(fraction, bool) or not isinstance(fraction, numbers.Real) or not 0 < fraction < 1:
        raise ValueError(f"holdout must be a fraction between 0 and 1 (e.g. 0.25), got {fraction!r}")
    from sklearn.model_selection import train_test_split

    labels = y.to_numpy() if isinstance(y, pd.Series) else np.asarray(y)
    parts = [X, y] + ([] if sample_weight is None else [np.asarray(sample_weight, dtype=float)])
    try:
        split = train_test_split(*parts, test_size=float(fraction), stratify=labels, random_state=random_state)
    except ValueError as exc:
        raise ValueError(f"holdout={fraction:g} cannot hold out rows of both classes: {exc}") from None
    w_train, w_val = (split[4], split[5]) if sample_weight is not None else (None, None)
    return split[0], split[2], w_train, split[1], split[3], w_val


def prepare_validation(X: Any, y: Any, train: Dataset, *, sample_weight: Any = None) -> Dataset:
    """Check held-out rows against the training data and prepare them like it.

    ``X`` must have the training columns (a DataFrame may list them in another
    order) and ``y`` only the training labels; both classes must be present.
    """
    names = train.feature_names
    if isinstance(X, pd.DataFrame):
        by_name = {str(c): c for c in X.columns}
        missing = [n for n in names if n not in by_name]
        extra = [c for c in by_name if c not in names]
        if missing or extra:
            raise ValueError(f"validation X must have the training columns: missing {missing}, not in training {extra}")
        X = X[[by_name[n] for n in names]]
    values = y.to_numpy() if isinstance(y, (pd.Series, pd.Index)) else np.asarray(y, dtype=object)
    foreign = [v for v in pd.unique(values.ravel()) if not pd.isna(v) and not (v == train.positive or v == train.negative)]
    if foreign:
        raise ValueError(f"validation y has labels {foreign[:6]} that are not the training labels "
                         f"{train.positive!r} and {train.negative!r}")
    try:
        return prepare_data(X, y, positive=train.positive, sample_weight=sample_weight,
                            feature_names=None if isinstance(X, pd.DataFrame) else names, warn=False)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"validation data: {exc.args[0] if exc.args else exc}") from None


def card_roc(card: ScoringSystem, data: Dataset) -> pd.DataFrame:
    """The card's own ROC: (FPR, TPR) of "predict positive if score >= t" for every threshold t
    ("score > t" for a card made under the paper's rule, ``zero_score="error"``).

    Rows run from the strictest threshold (nothing positive) to the loosest
    (everything positive); ``current`` marks the card's own threshold.
    """
    scores = data.X @ np.asarray(card.coefficients, dtype=float)
    pos = data.y == 1
    wp, wn = float(data.weight[pos].sum()), float(data.weight[~pos].sum())
    cuts = np.unique(scores)  # ascending
    # weight of each class at each distinct score, then "score > t" counts by suffix sums
    idx = np.searchsorted(cuts, scores)
    tp_at = np.bincount(idx, weights=np.where(pos, data.weight, 0.0), minlength=len(cuts))
    fp_at = np.bincount(idx, weights=np.where(pos, 0.0, data.weight), minlength=len(cuts))
    above_tp = np.concatenate([np.cumsum(tp_at[::-1])[::-1][1:], [0.0]])  # strictly above cuts[k]
    above_fp = np.concatenate([np.cumsum(fp_at[::-1])[::-1][1:], [0.0]])
    if card.rule == ">=":  # "score > cuts[k]" is "score >= cuts[k + 1]" (or >= max + 1: nothing)
        thresholds = np.concatenate([[cuts[-1] + 1], cuts[::-1]]) if len(cuts) else np.zeros(1)
    else:
        thresholds = np.concatenate([cuts[::-1], [cuts[0] - 1]])  # nothing positive ... everything positive
    tpr = np.concatenate([above_tp[::-1], [tp_at.sum()]]) / wp
    fpr = np.concatenate([above_fp[::-1], [fp_at.sum()]]) / wn
    frame = pd.DataFrame({"threshold": thresholds, "fpr": fpr, "tpr": tpr})
    pred = card.predicts_positive(scores - card.threshold)  # the card's own operating point
    own = (float(data.weight[pred & ~pos].sum() / wn), float(data.weight[pred & pos].sum() / wp))
    frame["current"] = (np.abs(frame.fpr - own[0]) < 1e-12) & (np.abs(frame.tpr - own[1]) < 1e-12)
    return frame


def edit_cost(edited: Metrics, base: Metrics) -> dict:
    """Differences (edited minus solved) in percentage points, and in size; for risk cards
    also in log-loss and AUC (``log_loss``, ``auc``)."""
    cost = {
        "error": 100 * (edited.error - base.error),
        "tpr": 100 * (edited.tpr - base.tpr),
        "fpr": 100 * (edited.fpr - base.fpr),
        "size": edited.size - base.size,
    }
    if edited.log_loss is not None and base.log_loss is not None:
        cost.update(log_loss=edited.log_loss - base.log_loss, auc=edited.auc - base.auc)
    return cost


def signed(value: float, digits: int) -> str:
    """``-0.0123 -> '−0.0123'``: a difference with its sign, a true minus sign."""
    return f"{value:+.{digits}f}".replace("-", "\u2212")


def _fmt_pts(v: float) -> str:
    return f"{v:+.1f} pt".replace("-", "\u2212")


def status_of(card: ScoringSystem, *, solving_since: float | None = None) -> Status:
    """The status line of a card: :func:`describe`'s headline (with the held-out figures
    the card carries), its degenerate-card warning, and the solver figures as details.
    ``solving_since`` (a ``time.time()``) marks an incumbent of a running solve."""
    cs = describe(card, validation=card.validation_metrics)
    text = cs.headline if cs.warning is None else f"{cs.headline} · {cs.warning}"
    common = {"objective": card.objective, "bound": card.bound, "gap": card.gap, "details": details_text(cs),
              "warning": cs.warning, "proven": cs.proven}
    if solving_since is not None:  # a passing incumbent: no warning yet, the settled card gets one
        return Status("solving", "solving… · " + cs.headline, elapsed=time.time() - solving_since,
                      started=solving_since, **common)
    return Status(card.status, text, elapsed=card.solve_time, level=cs.level, **common)


def _failure(state: str, text: str, conflicts: tuple[str, ...] = ()) -> _Failure:
    return _Failure(Status(state, text, conflicts=conflicts, level="error"))


def _observed(card: ScoringSystem, data: Dataset) -> pd.DataFrame:
    """Rows, events, observed rate and its 95 % Wilson interval per total score on ``data``."""
    from ..toolbox.risk import risk_table

    table = risk_table(card, data.X, _labels(data), sample_weight=data.weight)
    return table[["count", "events", "rate", "lower", "upper"]]


def _refused_settings(spec: Spec) -> dict[str, str]:
    """The spec fields set in ``spec`` that its loss family refuses: ``{field: how to name it}``."""
    return set_options(spec, refused_options(spec))


def _default(name: str) -> Any:
    """The value of the spec field ``name`` when it is not set."""
    return getattr(Spec(), name)


def _spec_distance(a: dict, b: dict) -> int:
    return sum(1 for k in a if a[k] != b.get(k))


# -- the controller --------------------------------------------------------------------------------
class Controller:
    """Spec editing, solve scheduling, cache, history, undo/redo, edit/lock and export.

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
    """

    def __init__(self, X: Any = None, y: Any = None, *, data: Dataset | None = None, spec: Spec | None = None,
                 positive: Any = None, sample_weight: Any = None, validation: Any = None, holdout: Any = None,
                 random_state: Any = None, debounce: float = 0.15, frontier: bool = True, fpr_caps=FPR_CAPS,
                 max_path_size: int = MAX_PATH_SIZE, start: bool = True, alternatives: bool | None = None,
                 **options: Any):
        if validation is not None and holdout is not None:
            raise TypeError("give validation=(X_val, y_val) or holdout=fraction, not both")
        if holdout is not None:
            if data is not None or X is None or y is None:
                raise TypeError("holdout= splits X and y: give them (not a prepared data=)")
            X, y, sample_weight, X_val, y_val, w_val = split_holdout(X, y, holdout, sample_weight=sample_weight,
                                                                     random_state=random_state)
        if data is None:
            if X is None or y is None:
                raise TypeError("give X and y (or a prepared data=)")
            data = prepare_data(X, y, positive=positive, sample_weight=sample_weight)
        self.validation: Dataset | None = None  # the held-out rows, prepared like the training rows
        if holdout is not None:
            self.validation = prepare_validation(X_val, y_val, data, sample_weight=w_val)
        elif validation is not None:
            if not isinstance(validation, (tuple, list)) or len(validation) != 2:
                raise TypeError("validation must be a pair (X_val, y_val)")
            self.validation = prepare_validation(*validation, data)
        if spec is not None and options:
            raise TypeError(f"give either spec= or keyword options, not both (got {sorted(options)})")
        if spec is None:
            options.setdefault("time_limit", DEFAULT_TIME_LIMIT)
            spec = make_spec(**options)
        spec.check_data(data.feature_names, data.n_samples)
        self.data = data
        self._lock = threading.RLock()
        self._listeners: list[Callable[[set], None]] = []
        self._cache: dict[str, ScoringSystem | _Failure] = {}
        self._cache_order: list[str] = []
        self._gen = 0
        self.spec: Spec = spec
        self._card: ScoringSystem | None = None
        self._base: ScoringSystem | None = None  # solved card behind an edited one
        self.status = Status("idle", "no card yet")
        self.notice = ""  # what the last action changed besides what was asked, or why it failed
        self.notice_level = "info"  # info | warning | error
        self._watch: tuple[int, str, ScoringSystem] | None = None  # (generation, what, card before): see _settle
        self._set_aside: dict[str, Any] = {}  # options the last family switch set aside (see set_family)
        self.history: list[HistoryEntry] = []
        self._states: list[_Settled] = []
        self._cursor = -1
        self._frontier_on = bool(frontier)
        self.fpr_caps = tuple(fpr_caps)
        self.max_path_size = int(max_path_size)
        self._frontier: dict[str, dict] = {}  # cache key -> point record
        self._plan_now: list[tuple[str, str, Any]] = []
        self._roc: tuple[ScoringSystem | None, pd.DataFrame | None] = (None, None)
        self._risk: tuple[ScoringSystem | None, pd.DataFrame | None] = (None, None)
        self._scales: dict[str, dict | None] = {}  # spec key -> limit scale of its objective (see _limits)
        self._scheduler = SolveScheduler(self._solve_job, debounce=debounce)
        self._background = BackgroundQueue(self._background_job)
        self.alts = AlternativesList(self, lambda: self._emit("alternatives"), k=ALT_K, within=ALT_WITHIN,
                                     enabled=frontier if alternatives is None else alternatives)
        self.incumbent_interval = INCUMBENT_INTERVAL
        self._closed = False
        self.solve_count = 0  # solves actually started
        if start:
            self.set_spec(spec)

    # -- observers --------------------------------------------------------------------------------
    def subscribe(self, callback: Callable[[set], None]) -> None:
        self._listeners.append(callback)

    def _emit(self, *events: str) -> None:
        """Tell every subscriber what changed: a set of "spec", "card", "frontier", "notice"."""
        for cb in list(self._listeners):
            try:
                cb(set(events))
            except Exception:  # a broken view must not kill the solver thread
                import traceback
                traceback.print_exc()

    def _say(self, text: str, level: str = "info") -> None:
        """Set the notice (call under the lock; the caller emits "notice")."""
        self.notice, self.notice_level = text, level

    # -- the current card ---------------------------------------------------------------------------
    @property
    def card(self) -> ScoringSystem | None:
        """The card on screen (an incumbent while solving; None when infeasible)."""
        return self._card

    @property
    def base_card(self) -> ScoringSystem | None:
        """For an edited card: the solved card it was edited from."""
        return self._base

    @property
    def generation(self) -> int:
        return self._gen

    @property
    def solving(self) -> bool:
        return self.status.state == "solving"

    def edit_cost(self) -> dict | None:
        """What the current edits cost against the solved card (percentage points)."""
        card, base = self._card, self._base
        if card is None or base is None or card.status != "edited":
            return None
        return edit_cost(card.train_metrics, base.train_metrics)

    def violations(self) -> list[str]:
        """Constraints of the current spec that the card on screen breaks (edited cards can)."""
        if self._card is None:
            return []
        return check_card(self._card, self.data, self.spec)

    def measured(self, card: ScoringSystem) -> ScoringSystem:
        """``card`` with its training metrics and, with held-out rows, its validation metrics."""
        changes: dict[str, Metrics] = {}
        if card.train_metrics is None:
            changes["train_metrics"] = train_metrics(card, self.data)
        if self.validation is not None and card.validation_metrics is None:
            changes["validation_metrics"] = train_metrics(card, self.validation)
        return replace(card, **changes) if changes else card

    # -- spec editing -----------------------------------------------------------------------------
    def set_spec(self, spec: Spec, action: str = "solve", *, notice: str = "",
                 watch: tuple[str, ScoringSystem | None] | None = None) -> None:
        """Show the card of ``spec``: from the cache at once, else solve it in the background.

        A spec the data cannot have (unknown names, more features locked or
        required than ``max_size``) raises before anything changes. ``notice``
        tells the user what this action changed besides what was asked;
        ``watch=(what, card)`` says so when the new card equals ``card``.
        """
        if not isinstance(spec, Spec):
            raise TypeError(f"expected a Spec, got {type(spec).__name__}")
        spec.check_data(self.data.feature_names, self.data.n_samples)
        with self._lock:
            self._check_open()
            self._gen += 1
            self.spec = spec
            self._say(notice)
            self._watch = None if watch is None or watch[1] is None else (self._gen, *watch)
            hit = self._cache.get(spec.key())
            if hit is not None:
                self._scheduler.cancel()
                self._settle(hit, spec, "cache" if action == "solve" else action)
            else:
                self._scheduler.submit((self._gen, spec, action))
                del self._states[self._cursor + 1:]  # a new request drops the redo tail
                # the previous card stays on screen (dimmed) until the first incumbent arrives
                self.status = Status("solving", "solving…", started=time.time())
        self._plan_background(also=("spec", "card", "notice"))

    def update(self, **changes: Any) -> Spec:
        """Change global options (``max_fpr=0.2``, ``min_tpr=0.8``, ``max_size=None``, ``C0``,
        ``coef_range``, ``time_limit``...); invalid values raise ``ValueError`` and change nothing."""
        spec = self.spec.replace(**changes)
        self.set_spec(spec)
        return spec

    def feature(self, name: str) -> FeatureSettings:
        self._known(name)
        s = self.spec
        use = "exclude" if name in s.exclude else "require" if name in s.require else "auto"
        return FeatureSettings(name, use, s.signs.get(name, "free"), s.penalties.get(name),
                               tuple(s.coef_ranges.get(name, s.coef_range)), s.lock.get(name))

    def features(self) -> list[FeatureSettings]:
        return [self.feature(n) for n in self.data.feature_names]

    def set_feature(self, name: str, *, use: str | None = None, sign: str | None = None,
                    penalty: float | None | str = "keep", points_range: Any = None) -> Spec:
        """Change one feature's row of the panel; re-solves. ``penalty=None`` means the global C0.

        Excluding a feature locked at non-zero points (or requiring one locked at 0)
        drops the lock and says so in :attr:`notice`; a penalty change that leaves
        the card as it was says that too, once the card is solved.
        """
        self._known(name)
        s = self.spec
        changes: dict[str, Any] = {}
        dropped = ""
        if use is not None:
            if use not in USES:
                raise ValueError(f"use must be one of {USES}, got {use!r}")
            changes["exclude"] = [f for f in s.exclude if f != name] + ([name] if use == "exclude" else [])
            changes["require"] = [f for f in s.require if f != name] + ([name] if use == "require" else [])
            locked = s.lock.get(name)
            if locked is not None and ((use == "exclude" and locked != 0) or (use == "require" and locked == 0)):
                changes["lock"] = {k: v for k, v in s.lock.items() if k != name}
                dropped = f"{use}d {name!r}: dropped its lock at {locked} points"
        if sign is not None:
            sign = {"−": "-", "–": "-"}.get(sign, sign)
            if sign not in SIGNS:
                raise ValueError(f"sign must be one of {SIGNS}, got {sign!r}")
            signs = {k: v for k, v in s.signs.items() if k != name}
            if sign != "free":
                signs[name] = sign
            changes["signs"] = signs
        watch = None
        if penalty != "keep":
            penalties = {k: v for k, v in s.penalties.items() if k != name}
            if penalty is not None:
                penalties[name] = penalty
            changes["penalties"] = penalties
            if penalties != dict(s.penalties):
                what = "the global C0" if penalty is None else f"{penalty:g}"
                watch = (f"the penalty of {name!r} ({what}) changed nothing: the card is the same", self._card)
        if points_range is not None:
            lo, hi = points_range
            ranges = {k: list(v) for k, v in s.coef_ranges.items() if k != name}
            if (int(lo), int(hi)) != tuple(s.coef_range):
                ranges[name] = [int(lo), int(hi)]
            changes["coef_ranges"] = ranges
        spec = s.replace(**changes)
        self.set_spec(spec, notice=dropped, watch=watch)
        return spec

    def _known(self, name: str) -> None:
        if name not in self.data.feature_names:
            raise KeyError(f"unknown feature {name!r}")

    # -- edit and lock -----------------------------------------------------------------------------
    def edit(self, points: Mapping[str, int] | None = None, threshold: int | None = None) -> ScoringSystem:
        """Edit points (and/or the threshold) of the card on screen: no solve, status "edited".

        An edit while a solve runs stops it (the edit is the newer wish). An edit
        that changes nothing (the same value sent twice) records nothing.
        """
        for name, v in (points or {}).items():
            self._known(name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) and not (isinstance(v, float) and v.is_integer()):
                raise TypeError(f"points must be whole numbers, got {v!r} for {name!r}")
        if threshold is not None and (isinstance(threshold, bool) or int(threshold) != threshold):
            raise TypeError(f"the threshold must be a whole number, got {threshold!r}")
        with self._lock:
            self._check_open()
            card = self._card
            if card is None:
                raise RuntimeError("there is no card to edit")
            edited = card.with_points({k: int(v) for k, v in (points or {}).items()},
                                      intercept=None if threshold is None else -int(threshold))
            if edited.coefficients == card.coefficients and edited.intercept == card.intercept:
                return card  # nothing changed: no second undo step for one edit
            solving = self.status.state == "solving"
            base = self._base if card.status == "edited" else card
            edited = self.measured(edited)
            self._gen += 1
            self._scheduler.cancel()
            self._push(edited, self.spec, self._edited_status(edited, base), "edit", base)
            self._say("the edit stopped the running solve" if solving else "")
        self._emit("card", "notice")
        return edited

    def _edited_status(self, edited: ScoringSystem, base: ScoringSystem | None) -> Status:
        text = "edited (not optimized)"
        if base is not None and base.train_metrics is not None:
            c = edit_cost(edited.train_metrics, base.train_metrics)
            change = f"log-loss {signed(c['log_loss'], 4)}" if "log_loss" in c else f"error {_fmt_pts(c['error'])}"
            text += f" · {change} vs the solved card"
        broken = check_card(edited, self.data, self.spec)
        if broken:
            text += " · breaks " + "; ".join(broken)
        warning = describe(edited).warning
        if warning:
            text += " · " + warning
        return Status("edited", text, level="warn" if broken or warning else "ok", warning=warning)

    def lock(self, name: str, value: int | None = None) -> Spec:
        """Fix a feature's points (default: its value on the card) for the next solves.

        Locking an excluded feature at non-zero points drops the exclusion (and a
        required one at 0 drops the requirement); :attr:`notice` says so. A lock
        that clashes with the feature's sign or range is refused (``ValueError``).
        """
        self._known(name)
        if value is None:
            if self._card is None:
                raise RuntimeError("there is no card to lock a value from")
            value = dict(zip(self._card.feature_names, self._card.coefficients))[name]
        value = int(value)
        s = self.spec
        exclude, require, dropped = list(s.exclude), list(s.require), []
        if name in exclude and value != 0:
            exclude.remove(name)
            dropped.append("dropped its exclusion")
        if name in require and value == 0:
            require.remove(name)
            dropped.append("dropped its requirement")
        spec = s.replace(lock={**s.lock, name: value}, exclude=exclude, require=require)
        notice = f"locked {name!r} at {value} points: " + " and ".join(dropped) if dropped else ""
        self.set_spec(spec, action="lock", notice=notice)
        return spec

    def unlock(self, name: str) -> Spec:
        self._known(name)
        return self.update(lock={k: v for k, v in self.spec.lock.items() if k != name})

    def risk_table(self) -> pd.DataFrame | None:
        """A risk card's table: per total score, its predicted risk beside the observed rate with
        its Wilson interval on the training rows (``train_*``) and, with held-out rows, on them
        (``val_*``); None for a decision card."""
        card = self._card
        if card is None or card.family != "risk":
            return None
        if self._risk[0] is not card:  # computed once per card, not on every redraw
            frame = _observed(card, self.data).add_prefix("train_")
            if self.validation is not None:
                frame = frame.join(_observed(card, self.validation).add_prefix("val_"), how="outer")
            frame.insert(0, "predicted", card.predicted_risk(frame.index.to_numpy()))
            self._risk = (card, frame.rename_axis("score").reset_index())
        return self._risk[1].copy()

    # -- the card family (decision / risk) ---------------------------------------------------------
    @property
    def family(self) -> str:
        """``"decision"`` or ``"risk"``: the family of the current spec."""
        return "risk" if self.spec.loss == FAMILY_LOSS["risk"] else "decision"

    def set_family(self, family: str) -> Spec:
        """Switch between decision cards (``loss="zero_one"``) and risk cards (``"logistic"``);
        re-solves, and is one undo step.

        Options the new family refuses are set aside (never silently): :attr:`notice` names
        them, and switching back restores them when nothing else set them meanwhile.
        """
        if family not in FAMILY_LOSS:
            raise ValueError(f"family must be one of {sorted(FAMILY_LOSS)}, got {family!r}")
        s = self.spec
        if family == self.family:
            return s
        refused = _refused_settings(replace(s, loss=FAMILY_LOSS[family]))
        aside = {name: getattr(s, name) for name in refused}
        restore = {n: v for n, v in self._set_aside.items() if getattr(s, n) == _default(n) and n not in refused}
        spec = s.replace(loss=FAMILY_LOSS[family], **{n: _default(n) for n in refused}, **restore)
        parts = [f"set aside {options_text(s, refused)} ({family} cards have no use for it; "
                 "switching back restores it)" if refused else "",
                 f"restored {options_text(spec, {n: n for n in restore})}" if restore else ""]
        before, self._set_aside = self._set_aside, aside  # set first: the views read it on "spec"
        try:
            self.set_spec(spec, notice=f"{family} cards: " + ("; ".join(filter(None, parts)) or "every setting carries over"))
        except BaseException:
            self._set_aside = before
            raise
        return spec

    def set_aside_text(self) -> str:
        """The options the last family switch set aside, as the "solved for" line names them
        ("" when none is waiting: switched back, or set again since)."""
        waiting = {n: n for n, v in self._set_aside.items() if getattr(self.spec, n) == _default(n)}
        return options_text(replace(self.spec, **{n: self._set_aside[n] for n in waiting}), waiting) if waiting else ""

    # -- undo / redo / load --------------------------------------------------------------------------
    @property
    def can_undo(self) -> bool:
        return self._cursor > 0 or (self._cursor == 0 and self.status.state == "solving")

    @property
    def can_redo(self) -> bool:
        return self._cursor < len(self._states) - 1

    def undo(self) -> bool:
        with self._lock:
            if not self.can_undo:
                return False
            # while a solve is pending, undo abandons it and shows the last settled card
            target = self._cursor if self.status.state == "solving" else self._cursor - 1
            self._goto(target, "undo")
        self._after_jump()
        return True

    def redo(self) -> bool:
        with self._lock:
            if not self.can_redo:
                return False
            self._goto(self._cursor + 1, "redo")
        self._after_jump()
        return True

    def _goto(self, index: int, action: str) -> None:
        self._check_open()
        state = self._states[index]
        self._cursor = index
        self._gen += 1
        self._scheduler.cancel()
        self.spec = state.spec
        self._card, self._base, self.status = state.card, state.base, state.status
        self._say("")
        self.history.append(HistoryEntry(state.card, state.spec, action, state.status, state.base))

    def _after_jump(self) -> None:
        self._plan_background(also=("spec", "card", "notice"))

    def load(self, what: str | Spec | ScoringSystem) -> None:
        """Show a card: a spec key (e.g. a clicked frontier point), a Spec, or a ScoringSystem.

        When the loaded card was solved under other settings than the current
        ones, :attr:`notice` lists what changed (e.g. a lock it dropped).
        """
        if isinstance(what, ScoringSystem):
            if tuple(what.feature_names) != tuple(self.data.feature_names):
                raise ValueError("the card was built on other features than the studio's data")
            spec = what.spec if what.spec is not None else self.spec
            spec.check_data(self.data.feature_names, self.data.n_samples)
            card = what if what.train_metrics is not None else replace(what, train_metrics=train_metrics(what, self.data))
            if self.validation is not None:  # measured on this studio's held-out rows, whatever it carried
                card = replace(card, validation_metrics=train_metrics(card, self.validation))
            with self._lock:
                self._check_open()
                notice = self._load_notice(spec)
                broken = check_card(card, self.data, spec)
                if broken:
                    notice = "; ".join(filter(None, [notice, "the loaded card breaks " + "; ".join(broken)]))
                self._gen += 1
                self._scheduler.cancel()
                self.spec = spec
                status = status_of(card) if card.status != "edited" else self._edited_status(card, None)
                self._push(card, spec, status, "load", None)
                self._say(notice, "warning" if broken else "info")
            self._after_jump()
            return
        if isinstance(what, str):
            try:
                spec = Spec.from_dict(json.loads(what))
            except json.JSONDecodeError:
                raise ValueError(f"not a spec key: {what[:60]!r}") from None
        else:
            spec = what
        self.set_spec(spec, action="load", notice=self._load_notice(spec))

    def _load_notice(self, spec: Spec) -> str:
        changes = spec_changes(self.spec, spec)
        return "loaded a card solved for other settings: " + "; ".join(changes) if changes else ""

    # -- alternatives ---------------------------------------------------------------------------------
    def settled_card(self, key: str) -> ScoringSystem | None:
        """The solved card of the spec with this key, if it has one yet."""
        hit = self._cache.get(key)
        return hit if isinstance(hit, ScoringSystem) else None

    def alternatives(self) -> dict:
        """The alternatives list of the current spec as the studio shows it:
        ``{"rows": [...], "state": {...}}`` (see :class:`~slimwidgets.widgets.rashomon.AlternativesList`)."""
        return self.alts.view()

    def wait_alternatives(self, timeout: float | None = 120.0) -> bool:
        """Block until the alternatives search of the current spec has ended (tests, scripts)."""
        return self.alts.wait(timeout)

    def load_alternative(self, rank: int) -> ScoringSystem:
        """Show the ``rank``-th card of the alternatives list (1 = the best): one undo step.

        The spec stays as it is (every alternative was solved under it); the card is checked
        against it again, and :attr:`notice` says what the load did: the features it uses, what
        it costs against the card shown before, the locks it keeps, any constraint it breaks.
        A later card is called "feasible": it is optimal only among the cards that avoid the
        earlier feature sets.
        """
        card = self.alts.card(rank)
        with self._lock:
            self._check_open()
            spec, before = self.spec, self._card
            shown = as_alternative(card, spec, rank)
            broken = check_card(shown, self.data, spec)
            self._gen += 1
            self._scheduler.cancel()
            self._push(shown, spec, self._alternative_status(shown, rank), "load", None)
            self._say(self._alternative_notice(rank, shown, before, broken), "warning" if broken else "info")
            self.alts.loaded = (shown, self.notice, self.notice_level)
        self._emit("card", "notice", "alternatives")
        return shown

    def _alternative_status(self, card: ScoringSystem, rank: int) -> Status:
        if rank == 1:
            return status_of(card)
        cs = describe(card, validation=card.validation_metrics)
        figures = " · ".join(figure_texts(card_figures(card, self.data, None)))
        text = f"alternative {rank} · {figures} · the best card that avoids the feature sets above it in the list"
        return Status("feasible", text, objective=card.objective, elapsed=card.solve_time, details=details_text(cs),
                      warning=cs.warning, level="warn" if cs.warning else "ok")

    def _alternative_notice(self, rank: int, card: ScoringSystem, before: ScoringSystem | None,
                            broken: list[str]) -> str:
        parts = [f"loaded alternative {rank}: " + (", ".join(card.points) or "no feature")]
        if before is not None and before.train_metrics is not None:
            then = card_figures(before, self.data, None)
            now = card_figures(card, self.data, None)
            if "error" in now and "error" in then:
                parts.append(", ".join(f"{label} {change_text(now[k] - then[k])}" for k, label in
                                       (("error", "error"), ("tpr", "TPR"), ("fpr", "FPR"))) + " vs the card before")
            elif "log_loss" in now and "log_loss" in then:
                parts.append(f"log-loss {now['log_loss'] - then['log_loss']:+.4f} vs the card before".replace("-", "\u2212"))
        if self.spec.lock:
            parts.append("keeps the locks " + ", ".join(f"{k} = {v}" for k, v in self.spec.lock.items()))
        if broken:
            parts.append("but it breaks " + "; ".join(broken))
        return " · ".join(parts) + " · undo goes back"

    # -- export -----------------------------------------------------------------------------------
    def export(self, fmt: str = "json", path: str | os.PathLike | None = None) -> tuple[Path, str]:
        """Write the card on screen; returns (path, the line of Python that reloads it).

        The line carries its own import, so it runs as shown in any namespace.
        A file that cannot be written raises ``OSError`` naming the path and why.
        """
        card = self._card
        if card is None:
            raise RuntimeError("there is no card to export")
        fmt = fmt.lower()
        if fmt not in EXPORT_FORMATS:
            raise ValueError(f"format must be one of {sorted(EXPORT_FORMATS)}, got {fmt!r}")
        path = Path(path) if path is not None else Path(f"scoring_system{EXPORT_FORMATS[fmt]}")
        text = {
            "json": card.to_json, "html": card.to_html, "latex": card.to_latex,
            "markdown": card.to_markdown, "python": card.to_python,
        }[fmt]()
        try:
            path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        except OSError as exc:
            folder = path.parent
            reason = f"the folder {str(folder)!r} does not exist" if not folder.is_dir() else exc.strerror or str(exc)
            raise OSError(f"could not write {str(path)!r}: {reason}") from None
        shown = str(path)
        if shown.lstrip()[:1] in ('{', '[', '"'):  # from_json would read such a text as JSON, not as a file name
            shown = os.path.join(".", shown)
        p = repr(shown)  # a Python literal: quotes and backslashes in the path stay inert
        line = {
            "json": f"import slimwidgets; card = slimwidgets.ScoringSystem.from_json({p})",
            "html": f"import IPython.display; IPython.display.HTML(filename={p})",
            "latex": f"latex = open({p}, encoding='utf-8').read()",
            "markdown": f"import IPython.display; IPython.display.Markdown(filename={p})",
            "python": f"import runpy; predict = runpy.run_path({p})['predict']",
        }[fmt]
        return path, line

    # -- waiting and closing ---------------------------------------------------------------------
    def wait(self, timeout: float | None = 60.0) -> bool:
        """Block until the current spec is settled (tests, scripts); False on timeout."""
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            if not self._scheduler.busy and self.status.state != "solving":
                return True
            if end is not None and time.monotonic() > end:
                return False
            time.sleep(0.01)

    def wait_background(self, timeout: float | None = 120.0) -> bool:
        return self._background.wait_idle(timeout)

    def threads(self) -> list[threading.Thread]:
        """This controller's live worker threads."""
        workers = (self._scheduler.thread, self._background.thread, self.alts.queue.thread)
        return [t for t in workers if t is not None and t.is_alive()]

    def close(self, timeout: float = 10.0) -> bool:
        """Stop both workers (interrupting running solves); True when no thread is left."""
        with self._lock:
            self._closed = True
            self._gen += 1
        a = self._scheduler.close(timeout)
        b = self._background.close(timeout)
        return self.alts.close(timeout) and a and b

    @property
    def closed(self) -> bool:
        return self._closed

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("the studio is closed")

    def __del__(self) -> None:
        try:
            self._scheduler.close(0)
            self._background.close(0)
            self.alts.close(0)
        except Exception:
            pass

    # -- internals: showing cards ------------------------------------------------------------------
    def _card_solving(self, card: ScoringSystem | None, status: Status) -> None:
        self._card, self._base, self.status = card, None, status

    def _settle(self, result: ScoringSystem | _Failure, spec: Spec, action: str) -> bool:
        """Show a finished solve (under the lock); True when a failure put the previous state back."""
        if isinstance(result, _Failure):
            self.history.append(HistoryEntry(None, spec, action, result.status))
            if self._cursor < 0:  # nothing to go back to
                self._push(None, spec, result.status, action, None)
                return False
            # the previous card and settings stay; the status names what failed
            state = self._states[self._cursor]
            self.spec, self._card, self._base = state.spec, state.card, state.base
            self.status = result.status
            self._say("these settings have no card: kept the previous card and settings", "error")
            return True
        self._push(result, spec, status_of(result), action, None)
        watch, self._watch = self._watch, None
        if watch is not None and watch[0] == self._gen and _same_card(watch[2], result):
            self._say(watch[1])
        return False

    def _push(self, card, spec, status, action, base) -> None:
        self._card, self._base, self.status = card, base, status
        del self._states[self._cursor + 1:]
        self._states.append(_Settled(spec, card, status, base))
        self._cursor = len(self._states) - 1
        self.history.append(HistoryEntry(card, spec, action, status, base))

    # -- internals: solving ------------------------------------------------------------------------
    def _nearest(self, spec: Spec) -> ScoringSystem | None:
        target = spec.to_dict()
        best, best_d = None, math.inf
        with self._lock:
            items = [(k, self._cache[k]) for k in reversed(self._cache_order)]
        for _, card in items:
            if isinstance(card, _Failure) or card.spec is None:
                continue
            d = _spec_distance(target, card.spec.to_dict())
            if d < best_d:
                best, best_d = card, d
        return best

    def _incumbent_card(self, spec: Spec, inc: Incumbent) -> ScoringSystem:
        d = self.data
        risk = inc.multiplier is not None  # a risk card passing by: its log-loss, no decision scale
        card = ScoringSystem(
            d.feature_names, tuple(int(c) for c in inc.coefficients), int(inc.intercept),
            positive=d.positive, negative=d.negative, status="feasible", objective=inc.objective,
            bound=inc.bound if math.isfinite(inc.bound) else None, gap=inc.gap if math.isfinite(inc.gap) else None,
            solve_time=inc.elapsed, solver=spec.solver, spec=spec, binary=tuple(d.binary),
            positive_name=d.positive_name, details={"limits": None if risk else self._limits(spec)},
            zero_score=spec.zero_score, family="risk" if risk else "slim", multiplier=inc.multiplier,
        )
        return self.measured(card)

    def _limits(self, spec: Spec) -> dict | None:
        """How a bound of ``spec``'s objective reads in the user's units (as ``fit`` stores it
        in a card's details), so an incumbent's status can say what is proven so far."""
        key = spec.key()
        if key not in self._scales:
            scale = limit_scale(build_formulation(self.data, spec))
            self._scales[key] = None if scale is None else scale.to_dict()
        return self._scales[key]

    def _solve(self, spec: Spec, cancel: threading.Event,
               on_incumbent: Callable[[Incumbent], None] | None = None) -> ScoringSystem | _Failure | None:
        """Solve ``spec``; None when it was interrupted (nothing to cache)."""
        self.solve_count += 1
        try:
            card = fit_dataset(self.data, spec, warm_start=self._nearest(spec), on_incumbent=on_incumbent, cancel=cancel)
        except InfeasibleError as exc:
            if cancel.is_set():
                return None
            return _failure("infeasible", "infeasible: these constraints clash: " + "; ".join(exc.conflicts),
                            tuple(exc.conflicts))
        except NoSolutionError as exc:
            if cancel.is_set():
                return None
            return _failure("error", f"no card: {exc}")
        except (ValueError, KeyError) as exc:
            msg = exc.args[0] if exc.args else str(exc)
            return _failure("infeasible", f"infeasible: {msg}", (str(msg),))
        except Exception as exc:  # a solver failure must surface, never hang the studio
            return _failure("error", f"error: {type(exc).__name__}: {exc}")
        if card.status == "interrupted" or cancel.is_set():
            return None
        return self.measured(card)

    def _store(self, spec: Spec, result) -> None:
        with self._lock:
            key = spec.key()
            if key not in self._cache:
                self._cache_order.append(key)
            self._cache[key] = result

    def _solve_job(self, job, cancel: threading.Event) -> None:
        gen, spec, action = job
        if gen != self._gen:
            return
        cached = self._cache.get(spec.key())
        started = time.time()
        finished = threading.Event()  # set (under the lock) once the solve's own result is shown

        def show(inc: Incumbent) -> None:  # on the solver's thread or the throttle's timer
            card = self._incumbent_card(spec, inc)
            status = status_of(card, solving_since=started)
            with self._lock:
                if gen != self._gen or finished.is_set():
                    return
                self._card_solving(card, status)
            self._emit("card")

        throttle = Throttle(show, self.incumbent_interval)

        def on_incumbent(inc: Incumbent) -> None:
            if gen == self._gen and not cancel.is_set():
                throttle.offer(inc)

        # the solve the user waits for comes first: no new background solve starts meanwhile
        self._background.pause(True)
        self.alts.pause(True)
        try:
            result = cached if cached is not None else self._solve(spec, cancel, on_incumbent)
        finally:
            throttle.stop()
            self._background.pause(False)
            self.alts.pause(False)
        if result is None:
            return
        lost = isinstance(result, ScoringSystem) and result.status == "solver_stopped"
        if not lost:  # a card cut short by a lost solver process is solved again when asked again
            self._store(spec, result)
        with self._lock:
            finished.set()
            if gen != self._gen:
                return
            reverted = self._settle(result, spec, action)
            if lost:
                self._say(LOST_SOLVER, "warning")
        if reverted:
            self._plan_background(also=("spec", "card", "notice"))
        else:
            self._emit("card", "notice")
            self.alts.plan()  # the settled card is the first of its alternatives
        self._frontier_point(spec, result)

    # -- internals: the background frontier and path ------------------------------------------------
    def _plan(self, spec: Spec) -> list[tuple[str, str, Any]]:
        """(kind, spec key, parameter) of every frontier and path point for ``spec``.

        The path starts at the number of features the spec forces in (required or
        locked at non-zero points): a smaller size is not a card of this spec.
        """
        def key(**change: Any) -> str | None:
            try:
                return spec.replace(**change).key()
            except (ValueError, TypeError):  # a point this spec cannot have: no point, no error
                return None

        # the FPR-cap frontier compares decision cards; a risk card's own ROC already shows every
        # threshold of its score, so risk cards get only the path (log-loss by size)
        caps = [] if spec.loss == FAMILY_LOSS["risk"] else list(self.fpr_caps) + [None]
        frontier = [("fpr", k, c) for c in caps if (k := key(max_fpr=c)) is not None]
        forced = len(set(spec.require) | {f for f, v in spec.lock.items() if v != 0})
        first = max(1, forced)
        top = min(max(self.max_path_size, first), self.data.n_features)
        path = [("size", k, n) for n in range(first, top + 1) if (k := key(max_size=n)) is not None]
        # interleave, so both charts fill in together
        out: list = []
        for i in range(max(len(frontier), len(path))):
            out += frontier[i:i + 1] + path[i:i + 1]
        return out

    def _plan_background(self, also: tuple[str, ...] = ()) -> None:
        if not self._closed:
            self.alts.plan()
        if not self._frontier_on or self._closed:
            if also:
                self._emit(*also)
            return
        with self._lock:
            spec = self.spec
            plan = self._plan(spec)
            self._plan_now = plan
            for kind, key, param in plan:
                hit = self._cache.get(key)
                if hit is not None:
                    self._record_point(kind, key, param, hit)
        self._emit("frontier", *also)
        self._background.set_plan(plan, done=lambda item: item[1] in self._cache)

    def _background_job(self, item, cancel: threading.Event) -> None:
        kind, key, param = item
        if key in self._cache:
            return
        spec = Spec.from_dict(json.loads(key))
        result = self._solve(spec, cancel)
        if result is None:
            return
        self._store(spec, result)
        with self._lock:
            if item not in self._plan_now:
                return
            self._record_point(kind, key, param, result)
        self._emit("frontier")

    def _frontier_point(self, spec: Spec, result) -> None:
        """An interactive solve that is also a point of the current plan fills it in."""
        key = spec.key()
        with self._lock:
            hits = [item for item in self._plan_now if item[1] == key]
            for kind, k, param in hits:
                self._record_point(kind, k, param, result)
        if hits:
            self._emit("frontier")

    def _record_point(self, kind: str, key: str, param: Any, result) -> None:
        rec: dict[str, Any] = {"kind": kind, "key": key, "param": param}
        if isinstance(result, _Failure):
            rec.update(feasible=False, status=result.status.state)
        else:
            m, v = result.train_metrics, result.validation_metrics
            rec.update(feasible=True, status=result.status, tpr=m.tpr, fpr=m.fpr, error=m.error,
                       size=result.size, objective=result.objective, gap=result.gap, log_loss=m.log_loss)
            if v is not None:
                rec.update(val_tpr=v.tpr, val_fpr=v.fpr, val_error=v.error, val_log_loss=v.log_loss)
        self._frontier[(kind, key)] = rec

    def frontier_points(self) -> pd.DataFrame:
        """The FPR-cap frontier of the current spec so far: one row per solved cap
        (with held-out rows, also ``val_tpr``, ``val_fpr``, ``val_error``)."""
        return self._points("fpr", "cap")

    def path_points(self) -> pd.DataFrame:
        """The sparsity path of the current spec so far: one row per solved max_size."""
        return self._points("size", "max_size")

    def _points(self, kind: str, param_name: str) -> pd.DataFrame:
        with self._lock:
            plan = [item for item in self._plan_now if item[0] == kind]
            rows = [self._frontier.get((k, key)) for k, key, _ in plan]
        rows = [dict(r) for r in rows if r is not None and r.get("feasible")]
        cols = ["key", param_name, "tpr", "fpr", "error", "size", "status", "gap", "log_loss"]
        if self.validation is not None:
            cols += ["val_tpr", "val_fpr", "val_error", "val_log_loss"]
        if not rows:
            return pd.DataFrame(columns=cols)
        frame = pd.DataFrame(rows).rename(columns={"param": param_name})
        return frame.reindex(columns=cols).reset_index(drop=True)

    # -- what the charts draw ------------------------------------------------------------------------
    def chart_frames(self) -> dict[str, pd.DataFrame]:
        """The DataFrames the studio's charts are drawn from, all from the current state.

        ``frontier``, ``path`` and ``card`` have a ``set`` column: "train" rows
        first, then (with held-out rows) the same points measured on "validation".
        ``roc`` is the card's own ROC on the training rows; ``cap`` the current cap.
        """
        card = self._card
        if card is not None and card.train_metrics is not None:
            rows = [_point_row(card.train_metrics, card.status, "train")]
            if card.validation_metrics is not None:
                rows.append(_point_row(card.validation_metrics, card.status, "validation"))
            point = pd.DataFrame(rows)
            if self._roc[0] is not card:  # the card's own ROC, computed once per card
                self._roc = (card, self._own_roc(card))
            roc = self._roc[1]
        else:
            point = pd.DataFrame(columns=["tpr", "fpr", "error", "size", "status", "set"])
            roc = pd.DataFrame(columns=["threshold", "fpr", "tpr", "set"])
        cap = pd.DataFrame({"cap": [] if self.spec.max_fpr is None else [self.spec.max_fpr]})
        return {"frontier": _by_set(self.frontier_points()), "roc": roc, "card": point, "cap": cap,
                "path": _by_set(self.path_points())}


    def _own_roc(self, card: ScoringSystem) -> pd.DataFrame:
        """The card's ROC on the training rows; a risk card's also on the held-out rows (its
        curve is what the risk family is judged by), with the predicted risk at each threshold."""
        roc = card_roc(card, self.data).assign(set="train")
        if card.family != "risk":
            return roc
        if self.validation is not None:
            roc = pd.concat([roc, card_roc(card, self.validation).assign(set="validation")], ignore_index=True)
        return roc.assign(risk=card.predicted_risk(roc["threshold"].to_numpy() - (0 if card.rule == ">=" else -1)))


def _point_row(m: Metrics, status: str, which: str) -> dict:
    return {"tpr": m.tpr, "fpr": m.fpr, "error": m.error, "size": m.size, "status": status, "set": which,
            "auc": m.auc, "log_loss": m.log_loss}


def _by_set(points: pd.DataFrame) -> pd.DataFrame:
    """Points with val_* columns -> one "train" row and one "validation" row per point."""
    measures = ["tpr", "fpr", "error", "log_loss"]
    held = ["val_" + m for m in measures]
    train = points.drop(columns=[c for c in held if c in points]).assign(set="train")
    if "val_tpr" not in points or len(points) == 0:
        return train
    validation = points.drop(columns=[m for m in measures if m in points]).rename(
        columns=dict(zip(held, measures))).assign(set="validation")
    return pd.concat([train, validation[train.columns]], ignore_index=True)


def _same_card(a: ScoringSystem | None, b: ScoringSystem | None) -> bool:
    return a is not None and b is not None and a.coefficients == b.coefficients and a.intercept == b.intercept
