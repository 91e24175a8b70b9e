"""The studio's controller: everything the studio does, without Jupyter.

The controller owns one current :class:`~slimwidgets.Spec` and the card shown
for it. Control changes produce a new spec; a spec is either found in the
cache (shown at once) or solved by a :class:`SolveScheduler` on a worker
thread, whose incumbents stream in while it runs. Results of a superseded spec
are never shown. Point edits never solve: they re-evaluate the card at once and
mark it "edited"; a lock turns an edited value into a constraint of the next
solve. Every settled card is appended to :attr:`history`; undo / redo walk the
settled states. A second worker fills in the FPR-cap frontier and the
sparsity path in the background, through the same cache.

Views subscribe with ``controller.subscribe(callback)``; the callback receives
the set of what changed (``"card"``, ``"spec"``, ``"frontier"``) and may run on a
worker thread.
"""

from __future__ import annotations

import math
import os
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd

from ..core.data import Dataset, prepare_data
from ..core.fitting import InfeasibleError, NoSolutionError, check_card, fit_dataset
from ..core.scoring import Metrics, ScoringSystem
from ..solvers.base import Incumbent
from ..core.spec import Spec, make_spec
from .scheduler import BackgroundQueue, SolveScheduler

__all__ = [
    "Controller", "Status", "HistoryEntry", "FeatureSettings", "EXPORT_FORMATS", "FPR_CAPS",
    "DEFAULT_TIME_LIMIT", "card_roc", "edit_cost",
]

DEFAULT_TIME_LIMIT = 5.0
USES = ("auto", "exclude", "require")
SIGNS = ("free", "+", "-")
# FPR caps of the background frontier (slider positions, so dragging there is a cache hit).
FPR_CAPS = (0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5)
MAX_PATH_SIZE = 10

EXPORT_FORMATS = {
    "json": ".json", "html": ".html", "latex": ".tex", "markdown": ".md", "python": ".py",
}


# -- value objects ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Status:
    """What the status line says; ``text`` is the line itself."""

    state: str  # idle | solving | optimal | time_limit | feasible | interrupted | infeasible | invalid | edited | error
    text: str
    objective: float | None = None
    bound: float | None = None
    gap: float | None = None
    elapsed: float | None = None
    conflicts: tuple[str, ...] = ()
    started: float | None = None  # time.time() when the running solve began

    def to_dict(self) -> dict:
        def fin(v):
            return None if v is None or not math.isfinite(v) else float(v)
        return {"state": self.state, "text": self.text, "objective": fin(self.objective), "bound": fin(self.bound),
                "gap": fin(self.gap), "elapsed": fin(self.elapsed), "conflicts": list(self.conflicts),
                "started": self.started}


@dataclass(frozen=True)
class HistoryEntry:
    """One settled card as shown: the card (None when infeasible), its spec, how it came."""

    card: ScoringSystem | None
    spec: Spec
    action: str  # solve | cache | edit | lock | undo | redo | load
    status: Status
    base: ScoringSystem | None = None  # for an edited card: the solved card it was edited from
    time: float = field(default_factory=time.time)

    def __repr__(self) -> str:
        card = "no card" if self.card is None else repr(self.card)
        return f"HistoryEntry({self.action}: {card}; {self.status.text})"


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
    """Weighted metrics on the collapsed training rows (what ``fit`` reports)."""
    return card.metrics(data.X, _labels(data), sample_weight=data.weight)


def card_roc(card: ScoringSystem, data: Dataset) -> pd.DataFrame:
    """The card's own ROC: (FPR, TPR) of "predict positive if score > t" for every threshold t.

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
    thresholds = np.concatenate([cuts[::-1], [cuts[0] - 1]])  # nothing positive ... everything positive
    tpr = np.concatenate([above_tp[::-1], [tp_at.sum()]]) / wp
    fpr = np.concatenate([above_fp[::-1], [fp_at.sum()]]) / wn
    frame = pd.DataFrame({"threshold": thresholds, "fpr": fpr, "tpr": tpr})
    pred = scores > card.threshold  # the card's own operating point
    own = (float(data.weight[pred & ~pos].sum() / wn), float(data.weight[pred & pos].sum() / wp))
    frame["current"] = (np.abs(frame.fpr - own[0]) < 1e-12) & (np.abs(frame.tpr - own[1]) < 1e-12)
    return frame


def edit_cost(edited: Metrics, base: Metrics) -> dict:
    """Differences (edited minus solved) in percentage points, and in size."""
    return {
        "error": 100 * (edited.error - base.error),
        "tpr": 100 * (edited.tpr - base.tpr),
        "fpr": 100 * (edited.fpr - base.fpr),
        "size": edited.size - base.size,
    }


def _fmt_pts(v: float) -> str:
    return f"{v:+.1f} pt".replace("-", "\u2212")


def _fmt_obj(v: float | None) -> str:
    return "–" if v is None or not math.isfinite(v) else f"{v:.4g}"


def _fmt_gap(g: float | None) -> str:
    return "–" if g is None or not math.isfinite(g) else f"{100 * g:.1f} %"


def status_of(card: ScoringSystem, spec: Spec) -> Status:
    """The status line of a settled card."""
    t = card.solve_time
    elapsed = "" if t is None else f" · {t:.2f} s"
    if card.status == "optimal":
        text = f"optimal · gap 0 %{elapsed}"
    elif card.status == "time_limit":
        limit = "" if spec.time_limit is None else f" ({spec.time_limit:g} s)"
        text = f"stopped at time limit{limit} · gap {_fmt_gap(card.gap)}{elapsed}"
    elif card.status == "interrupted":
        text = f"interrupted · gap {_fmt_gap(card.gap)}{elapsed}"
    elif card.status == "edited":
        text = "edited (not optimized)"
    else:
        text = f"{card.status.replace('_', ' ')} · gap {_fmt_gap(card.gap)}{elapsed}"
    return Status(card.status, text, card.objective, card.bound, card.gap, card.solve_time)


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
    debounce : seconds a control must rest before its spec is solved.
    frontier : compute the FPR-cap frontier and the sparsity path in the background.
    """

    def __init__(self, X: Any = None, y: Any = None, *, data: Dataset | None = None, spec: Spec | None = None,
                 positive: Any = None, sample_weight: Any = None, debounce: float = 0.15,
                 frontier: bool = True, fpr_caps=FPR_CAPS, max_path_size: int = MAX_PATH_SIZE,
                 start: bool = True, **options: Any):
        if data is None:
            if X is None or y is None:
                raise TypeError("give X and y (or a prepared data=)")
            data = prepare_data(X, y, positive=positive, sample_weight=sample_weight)
        if spec is not None and options:
            raise TypeError(f"give either spec= or keyword options, not both (got {sorted(options)})")
        if spec is None:
            options.setdefault("time_limit", DEFAULT_TIME_LIMIT)
            spec = make_spec(**options)
        spec.check_names(data.feature_names)
        self.data = data
        self._lock = threading.RLock()
        self._listeners: list[Callable[[str], None]] = []
        self._cache: dict[str, ScoringSystem | _Failure] = {}
        self._cache_order: list[str] = []
        self._gen = 0
        self.spec: Spec = spec
        self._card: ScoringSystem | None = None
        self._base: ScoringSystem | None = None  # solved card behind an edited one
        self.status = Status("idle", "no card yet")
        self.history: list[HistoryEntry] = []
        self._states: list[_Settled] = []
        self._cursor = -1
        self._frontier_on = bool(frontier)
        self.fpr_caps = tuple(fpr_caps)
        self.max_path_size = int(max_path_size)
        self._frontier: dict[str, dict] = {}  # cache key -> point record
        self._scheduler = SolveScheduler(self._solve_job, debounce=debounce)
        self._background = BackgroundQueue(self._background_job)
        self._closed = False
        self.solve_count = 0  # solves actually started
        if start:
            self.set_spec(spec)

    # -- observers --------------------------------------------------------------------------------
    def subscribe(self, callback: Callable[[str], None]) -> None:
        self._listeners.append(callback)

    def _emit(self, *events: str) -> None:
        """Tell every subscriber what changed: a set of "spec", "card", "frontier"."""
        for cb in list(self._listeners):
            try:
                cb(set(events))
            except Exception:  # a broken view must not kill the solver thread
                import traceback
                traceback.print_exc()

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

    # -- spec editing -----------------------------------------------------------------------------
    def set_spec(self, spec: Spec, action: str = "solve") -> None:
        """Show the card of ``spec``: from the cache at once, else solve it in the background."""
        if not isinstance(spec, Spec):
            raise TypeError(f"expected a Spec, got {type(spec).__name__}")
        spec.check_names(self.data.feature_names)
        with self._lock:
            self._check_open()
            self._gen += 1
            self.spec = spec
            hit = self._cache.get(spec.key())
            if hit is not None:
                self._scheduler.cancel()
                self._settle(hit, spec, "cache" if action == "solve" else action)
            else:
                self._scheduler.submit((self._gen, spec, action))
                del self._states[self._cursor + 1:]  # a new request drops the redo tail
                # the previous card stays on screen (dimmed) until the first incumbent arrives
                self.status = Status("solving", "solving…", started=time.time())
        self._plan_background(also=("spec", "card"))

    def update(self, **changes: Any) -> Spec:
        """Change global options (``max_fpr=0.2``, ``max_size=None``, ``C0``, ``coef_range``,
        ``time_limit``...); invalid values raise ``ValueError`` and change nothing."""
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
        """Change one feature's row of the panel; re-solves. ``penalty=None`` means the global C0."""
        self._known(name)
        s = self.spec
        changes: dict[str, Any] = {}
        lock = dict(s.lock)
        if use is not None:
            if use not in USES:
                raise ValueError(f"use must be one of {USES}, got {use!r}")
            exclude = [f for f in s.exclude if f != name] + ([name] if use == "exclude" else [])
            require = [f for f in s.require if f != name] + ([name] if use == "require" else [])
            changes.update(exclude=exclude, require=require)
            if use != "auto":
                lock.pop(name, None)
        if sign is not None:
            sign = {"−": "-", "–": "-"}.get(sign, sign)
            if sign not in SIGNS:
                raise ValueError(f"sign must be one of {SIGNS}, got {sign!r}")
            signs = {k: v for k, v in s.signs.items() if k != name}
            if sign != "free":
                signs[name] = sign
            changes["signs"] = signs
        if penalty != "keep":
            penalties = {k: v for k, v in s.penalties.items() if k != name}
            if penalty is not None:
                penalties[name] = penalty
            changes["penalties"] = penalties
        if points_range is not None:
            lo, hi = points_range
            ranges = {k: list(v) for k, v in s.coef_ranges.items() if k != name}
            if (int(lo), int(hi)) != tuple(s.coef_range):
                ranges[name] = [int(lo), int(hi)]
            changes["coef_ranges"] = ranges
        if lock != dict(s.lock):
            changes["lock"] = lock
        return self.update(**changes)

    def _known(self, name: str) -> None:
        if name not in self.data.feature_names:
            raise KeyError(f"unknown feature {name!r}")

    # -- edit and lock -----------------------------------------------------------------------------
    def edit(self, points: Mapping[str, int] | None = None, threshold: int | None = None) -> ScoringSystem:
        """Edit points (and/or the threshold) of the card on screen: no solve, status "edited"."""
        with self._lock:
            self._check_open()
            card = self._card
            if card is None:
                raise RuntimeError("there is no card to edit")
            # an edit while a solve runs supersedes it: the card on screen (an incumbent) is edited
            for name, v in (points or {}).items():
                self._known(name)
                if isinstance(v, bool) or not isinstance(v, (int, np.integer)) and not (isinstance(v, float) and v.is_integer()):
                    raise TypeError(f"points must be whole numbers, got {v!r} for {name!r}")
            if threshold is not None and (isinstance(threshold, bool) or int(threshold) != threshold):
                raise TypeError(f"the threshold must be a whole number, got {threshold!r}")
            base = self._base if card.status == "edited" else card
            edited = card.with_points({k: int(v) for k, v in (points or {}).items()},
                                      intercept=None if threshold is None else -int(threshold))
            edited = replace(edited, train_metrics=train_metrics(edited, self.data))
            self._gen += 1
            self._scheduler.cancel()
            self._push(edited, self.spec, self._edited_status(edited, base), "edit", base)
        self._emit("card")
        return edited

    def _edited_status(self, edited: ScoringSystem, base: ScoringSystem | None) -> Status:
        text = "edited (not optimized)"
        if base is not None and base.train_metrics is not None:
            c = edit_cost(edited.train_metrics, base.train_metrics)
            text += f" · error {_fmt_pts(c['error'])} vs the solved card"
        broken = check_card(edited, self.data, self.spec)
        if broken:
            text += " · breaks " + "; ".join(broken)
        return Status("edited", text)

    def lock(self, name: str, value: int | None = None) -> Spec:
        """Fix a feature's points (default: its value on the card) for the next solves."""
        self._known(name)
        if value is None:
            if self._card is None:
                raise RuntimeError("there is no card to lock a value from")
            value = dict(zip(self._card.feature_names, self._card.coefficients))[name]
        s = self.spec
        lock = {**s.lock, name: int(value)}
        changes: dict[str, Any] = {"lock": lock,
                                   "exclude": [f for f in s.exclude if f != name],
                                   "require": [f for f in s.require if f != name]}
        spec = s.replace(**changes)
        self.set_spec(spec, action="lock")
        return spec

    def unlock(self, name: str) -> Spec:
        self._known(name)
        return self.update(lock={k: v for k, v in self.spec.lock.items() if k != name})

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
        self.history.append(HistoryEntry(state.card, state.spec, action, state.status, state.base))

    def _after_jump(self) -> None:
        self._plan_background(also=("spec", "card"))

    def load(self, what: str | Spec | ScoringSystem) -> None:
        """Show a card: a spec key (e.g. a clicked frontier point), a Spec, or a ScoringSystem."""
        if isinstance(what, ScoringSystem):
            with self._lock:
                if tuple(what.feature_names) != tuple(self.data.feature_names):
                    raise ValueError("the card was built on other features than the studio's data")
                spec = what.spec if what.spec is not None else self.spec
                card = what if what.train_metrics is not None else replace(what, train_metrics=train_metrics(what, self.data))
                self._gen += 1
                self._scheduler.cancel()
                self.spec = spec
                status = status_of(card, spec) if card.status != "edited" else self._edited_status(card, None)
                self._push(card, spec, status, "load", None)
            self._after_jump()
            return
        spec = Spec.from_dict(__import__("json").loads(what)) if isinstance(what, str) else what
        self.set_spec(spec, action="load")

    # -- export -----------------------------------------------------------------------------------
    def export(self, fmt: str = "json", path: str | os.PathLike | None = None) -> tuple[Path, str]:
        """Write the card on screen; returns (path, the one line of Python that reloads it)."""
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
        path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        p = str(path)
        line = {
            "json": f"card = slimwidgets.ScoringSystem.from_json({p!r})",
            "html": f"IPython.display.HTML(filename={p!r})",
            "latex": f"latex = open({p!r}, encoding='utf-8').read()",
            "markdown": f"IPython.display.Markdown(filename={p!r})",
            "python": f"predict = runpy.run_path({p!r})['predict']",
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
        return [t for t in (self._scheduler.thread, self._background.thread) if t is not None and t.is_alive()]

    def close(self, timeout: float = 10.0) -> bool:
        """Stop both workers (interrupting running solves); True when no thread is left."""
        with self._lock:
            self._closed = True
            self._gen += 1
        a = self._scheduler.close(timeout)
        b = self._background.close(timeout)
        return a and b

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
        except Exception:
            pass

    # -- internals: showing cards ------------------------------------------------------------------
    def _card_solving(self, card: ScoringSystem | None, status: Status) -> None:
        self._card, self._base, self.status = card, None, status

    def _settle(self, result: ScoringSystem | _Failure, spec: Spec, action: str) -> None:
        if isinstance(result, _Failure):
            self._push(None, spec, result.status, action, None)
        else:
            self._push(result, spec, status_of(result, spec), action, None)

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
        card = ScoringSystem(
            d.feature_names, tuple(int(c) for c in inc.coefficients), int(inc.intercept),
            positive=d.positive, negative=d.negative, status="feasible", objective=inc.objective,
            bound=inc.bound if math.isfinite(inc.bound) else None, gap=inc.gap if math.isfinite(inc.gap) else None,
            solve_time=inc.elapsed, solver=spec.solver, spec=spec, binary=tuple(d.binary),
            positive_name=d.positive_name,
        )
        return replace(card, train_metrics=train_metrics(card, d))

    def _solve(self, spec: Spec, cancel: threading.Event,
               on_incumbent: Callable[[Incumbent], None] | None = None) -> ScoringSystem | _Failure | None:
        """Solve ``spec``; None when it was interrupted (nothing to cache)."""
        self.solve_count += 1
        try:
            card = fit_dataset(self.data, spec, warm_start=self._nearest(spec), on_incumbent=on_incumbent, cancel=cancel)
        except InfeasibleError as exc:
            if cancel.is_set():
                return None
            return _Failure(Status("infeasible", "infeasible: these constraints clash: " + "; ".join(exc.conflicts),
                                   conflicts=tuple(exc.conflicts)))
        except NoSolutionError as exc:
            if cancel.is_set():
                return None
            return _Failure(Status("error", f"no card: {exc}"))
        except (ValueError, KeyError) as exc:
            msg = exc.args[0] if exc.args else str(exc)
            return _Failure(Status("infeasible", f"infeasible: {msg}", conflicts=(str(msg),)))
        except Exception as exc:  # a solver failure must surface, never hang the studio
            return _Failure(Status("error", f"error: {type(exc).__name__}: {exc}"))
        if card.status == "interrupted" or cancel.is_set():
            return None
        return card

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

        def on_incumbent(inc: Incumbent) -> None:
            if gen != self._gen or cancel.is_set():
                return
            card = self._incumbent_card(spec, inc)
            text = (f"solving… · incumbent {_fmt_obj(inc.objective)} · bound {_fmt_obj(inc.bound)} · "
                    f"gap {_fmt_gap(inc.gap)} · {time.time() - started:.1f} s")
            with self._lock:
                if gen != self._gen:
                    return
                self._card_solving(card, Status("solving", text, inc.objective, inc.bound, inc.gap,
                                                time.time() - started, started=started))
            self._emit("card")

        # the solve the user waits for comes first: no new background solve starts meanwhile
        self._background.pause(True)
        try:
            result = cached if cached is not None else self._solve(spec, cancel, on_incumbent)
        finally:
            self._background.pause(False)
        if result is None:
            return
        self._store(spec, result)
        with self._lock:
            if gen != self._gen:
                return
            self._settle(result, spec, action)
        self._emit("card")
        self._frontier_point(spec, result)

    # -- internals: the background frontier and path ------------------------------------------------
    def _plan(self, spec: Spec) -> list[tuple[str, str, Any]]:
        """(kind, spec key, parameter) of every frontier and path point for ``spec``."""
        frontier = [("fpr", spec.replace(max_fpr=c).key(), c) for c in self.fpr_caps] + [("fpr", spec.replace(max_fpr=None).key(), None)]
        top = min(self.max_path_size, self.data.n_features)
        path = [("size", spec.replace(max_size=k).key(), k) for k in range(1, top + 1)]
        # interleave, so both charts fill in together
        out: list = []
        for i in range(max(len(frontier), len(path))):
            out += frontier[i:i + 1] + path[i:i + 1]
        return out

    def _plan_background(self, also: tuple[str, ...] = ()) -> None:
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
        import json
        spec = Spec.from_dict(json.loads(key))
        result = self._solve(spec, cancel)
        if result is None:
            return
        self._store(spec, result)
        with self._lock:
            if item not in getattr(self, "_plan_now", []):
                return
            self._record_point(kind, key, param, result)
        self._emit("frontier")

    def _frontier_point(self, spec: Spec, result) -> None:
        """An interactive solve that is also a point of the current plan fills it in."""
        key = spec.key()
        with self._lock:
            hits = [item for item in getattr(self, "_plan_now", []) if item[1] == key]
            for kind, k, param in hits:
                self._record_point(kind, k, param, result)
        if hits:
            self._emit("frontier")

    def _record_point(self, kind: str, key: str, param: Any, result) -> None:
        rec: dict[str, Any] = {"kind": kind, "key": key, "param": param}
        if isinstance(result, _Failure):
            rec.update(feasible=False, status=result.status.state)
        else:
            m = result.train_metrics
            rec.update(feasible=True, status=result.status, tpr=m.tpr, fpr=m.fpr, error=m.error,
                       size=result.size, objective=result.objective, gap=result.gap)
        self._frontier[(kind, key)] = rec

    def frontier_points(self) -> pd.DataFrame:
        """The FPR-cap frontier of the current spec so far: one row per solved cap."""
        return self._points("fpr", "cap")

    def path_points(self) -> pd.DataFrame:
        """The sparsity path of the current spec so far: one row per solved max_size."""
        return self._points("size", "max_size")

    def _points(self, kind: str, param_name: str) -> pd.DataFrame:
        with self._lock:
            plan = [item for item in getattr(self, "_plan_now", []) if item[0] == kind]
            rows = [self._frontier.get((k, key)) for k, key, _ in plan]
        rows = [dict(r) for r in rows if r is not None and r.get("feasible")]
        cols = ["key", param_name, "tpr", "fpr", "error", "size", "status", "gap"]
        if not rows:
            return pd.DataFrame(columns=cols)
        frame = pd.DataFrame(rows).rename(columns={"param": param_name})
        return frame[cols].reset_index(drop=True)
