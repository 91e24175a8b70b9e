"""The time-to-event family in the studio, without Jupyter: settings, live solves, undo, the
horizon, edits by hand, exports, and the tables its views draw.

A :class:`SurvivalSession` holds a time-to-event table (``X`` and a ``Surv`` array ``y``), the
current :class:`SurvivalSettings` and the card solved for them by
:func:`~slimwidgets.fitting.survival_driver.fit_survival`. Each edit (a variable on or off,
forced onto the card, its sign, a rule's points locked, the largest size, C0) makes new
settings, is one undo step and re-solves on a worker thread; a newer edit stops the older solve
(its ``cancel`` event) and its result is dropped. Settings solved before come from a cache at
once. Points typed into the card make an edited card (:func:`edited_card`: not optimized,
re-checked against the settings), also one undo step. The card is written out by its family's
exports (:meth:`SurvivalSession.export`). The horizon is a view of the card: moving it re-reads
the card's risk at that time and solves nothing.

The studio's options that have no meaning for these cards are listed in :data:`INAPPLICABLE`
with the reason, which the view shows in place of the control.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core.by_variable import variable_problems
from ..core.recalibration import refit_baseline
from ..core.rules import as_frame, rules_from_options
from ..core.spec import make_spec
from ..core.survival import harrell_c
from ..core.survival_card import SurvivalCard, default_horizons, risk_by_score
from ..core.survival_family import TIME_TO_EVENT
from ..fitting.errors import NoSolutionError
from ..fitting.survival_driver import (
    DEFAULT_SURVIVAL_C0,
    DEFAULT_SURVIVAL_MAX_SIZE,
    fit_survival,
)
from ..toolbox.survival_evidence import km_by_band, score_bands

__all__ = [
    "SurvivalSession",
    "SurvivalSettings",
    "INAPPLICABLE",
    "SIGNS",
    "edited_card",
    "edit_words",
    "whole_points",
    "EXPORT_SUFFIXES",
    "held_out_rows",
]

SIGNS = ("free", "+", "-")

#: the studio's controls that a time-to-event card cannot honour, and why (shown in place)
INAPPLICABLE = {
    "max_fpr": "no false-positive rate: a time-to-event card predicts a risk by a time, "
    "it does not call rows positive",
    "groups": "group caps and gaps are not defined for time-to-event cards yet",
}


@dataclass(frozen=True)
class SurvivalSettings:
    """What a time-to-event card is solved for: one state of the studio, one undo step.

    Attributes
    ----------
    max_size : int
        The most rules with points.
    C0 : float
        The Cox loss (per event) each rule used costs.
    exclude : tuple of str
        Variables kept off the card.
    signs : tuple of (str, str)
        ``(variable, "+" or "-")``: the sign its points must have.
    time_limit : float
        Seconds each solve may take before it stops with its proven floor.
    require : tuple of str
        Variables (or rules) the card must use.
    lock : tuple of (str, int)
        ``(rule, points)``: rules whose points are fixed.
    edited : tuple of (str, int)
        The card's points set by hand (``(rule, points)`` of every rule with points), or empty
        for the solved card; an edited card is not optimized (:func:`edited_card`).
    holdout : float
        The share of rows kept aside (:func:`held_out_rows`): the card is solved on the others
        and its Harrell's C is stated on these too.

    Examples
    --------
    >>> SurvivalSettings(max_size=2, exclude=("age",)).options()["exclude"]
    ['age']
    """

    max_size: int = DEFAULT_SURVIVAL_MAX_SIZE
    C0: float = DEFAULT_SURVIVAL_C0
    exclude: tuple[str, ...] = ()
    signs: tuple[tuple[str, str], ...] = ()
    time_limit: float = 5.0
    require: tuple[str, ...] = ()
    lock: tuple[tuple[str, int], ...] = ()
    edited: tuple[tuple[str, int], ...] = ()
    holdout: float = 0.0

    def options(self) -> dict[str, Any]:
        """The settings as options of :func:`~slimwidgets.fitting.survival_driver.fit_survival`
        (the hand-set points of an edited card are not among them)."""
        return {
            "max_size": self.max_size,
            "C0": self.C0,
            "exclude": list(self.exclude),
            "signs": dict(self.signs),
            "require": list(self.require),
            "lock": dict(self.lock),
            "time_limit": self.time_limit,
        }

    @property
    def solved(self) -> SurvivalSettings:
        """These settings without hand-set points: those of the card a solve proves."""
        return replace(self, edited=())


def _checked(settings: SurvivalSettings) -> SurvivalSettings:
    """``settings`` when the options table accepts them; else ``ValueError`` naming the value."""
    make_spec(**settings.options())
    held_out_rows(np.zeros(1, dtype=bool), settings.holdout)  # its share checked
    return settings


class SurvivalSession:
    """A time-to-event table in the studio: the settings, the card, undo and the horizon.

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_rows, n_variables)
        The variables: 0/1 rules, or a raw table made into rules as :func:`slimwidgets.fit` does.
    y : structured array
        A ``Surv`` array (event, time), one per row.
    horizon : float, optional
        The time the card states its risk by (default: the middle of the horizons ``fit``
        takes from the follow-up, :func:`~slimwidgets.core.survival_card.default_horizons`).
    time_limit : float, default 5.0
        Seconds each solve may take.
    start : bool, default True
        Whether to solve the starting settings at once.
    **options
        ``max_size``, ``C0``, ``exclude`` (variables), ``signs`` (``{variable: "+" or "-"}``),
        ``require`` (variables or rules the card must use), ``lock`` (``{rule: points}``),
        ``holdout`` (the share of rows kept aside).

    Examples
    --------
    >>> import numpy as np
    >>> events = [(True, 1.0), (True, 2.0), (False, 3.0), (True, 4.0), (False, 5.0)]
    >>> y = np.array(events + [(True, 6.0)], dtype=[("died", "?"), ("days", "<f8")])
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0], [1, 0], [0, 1]])
    >>> s = SurvivalSession(X, y, max_size=1)
    >>> s.wait(60)
    True
    >>> s.card.card_points
    {'x0': 1}
    >>> _ = s.set_feature("x0", use=False); _ = s.wait(60); s.card.card_points
    {'x1': -1}
    >>> _ = s.undo(); _ = s.wait(60); s.card.card_points
    {'x0': 1}
    >>> s.close()
    """

    def __init__(
        self,
        X: Any,
        y: Any,
        *,
        horizon: float | None = None,
        time_limit: float = 5.0,
        start: bool = True,
        **options: Any,
    ):
        target = TIME_TO_EVENT.target(y)
        frame = as_frame(X)
        frame.columns = [str(c) for c in frame.columns]
        self._frame, self._y, self._event = frame, np.asarray(y), target.event
        self.follow_up = float(target.time.max())
        self.variables = list(frame.columns)
        self.horizons = default_horizons(target.time)
        self.horizon = float(self.horizons[len(self.horizons) // 2] if horizon is None else horizon)
        self._check_horizon(self.horizon)
        self.settings = _checked(
            SurvivalSettings(
                max_size=int(options.pop("max_size", DEFAULT_SURVIVAL_MAX_SIZE)),
                C0=float(options.pop("C0", DEFAULT_SURVIVAL_C0)),
                exclude=tuple(options.pop("exclude", ())),
                signs=tuple(sorted(dict(options.pop("signs", {})).items())),
                time_limit=float(time_limit),
                require=tuple(options.pop("require", ())),
                lock=tuple(sorted(dict(options.pop("lock", {})).items())),
                holdout=float(options.pop("holdout", 0.0)),
            )
        )
        if options:
            raise TypeError(
                f"the studio's time-to-event cards take max_size, C0, exclude, signs, require, "
                f"lock, holdout, horizon and time_limit; not {', '.join(sorted(options))}"
            )
        self.card: SurvivalCard | None = None
        self._shown: SurvivalSettings | None = None  # the settings of the card on screen
        self.status = "no card yet"
        self.notice = ""
        self.solving = False
        self._cache: dict[SurvivalSettings, SurvivalCard] = {}
        self._c_by_size: dict[tuple, float] = {}
        self._undo: list[SurvivalSettings] = []
        self._redo: list[SurvivalSettings] = []
        self._listeners: list[Callable[[set], None]] = []
        self._lock = threading.RLock()
        self._gen = 0
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None
        self.solves = 0  # fits run (not cache hits): what the tests count
        if start:
            self.begin()

    def begin(self) -> None:
        """Solve the starting settings (what a session made with ``start=False`` calls)."""
        self._solve()

    # -- observers ------------------------------------------------------------------------------
    def subscribe(self, callback: Callable[[set], None]) -> None:
        """Call ``callback(what)`` when something changed: ``"card"``, ``"horizon"``,
        ``"path"``, ``"notice"``, ``"progress"`` (a solve's best card so far in
        :attr:`status`); it may run on the worker thread."""
        self._listeners.append(callback)

    def _emit(self, *what: str) -> None:
        for callback in list(self._listeners):
            callback(set(what))

    # -- edits: one undo step each --------------------------------------------------------------
    def update(self, **changes: Any) -> SurvivalSettings:
        """Change ``max_size``, ``C0`` or ``time_limit``; a value the options table refuses
        raises ``ValueError`` and changes nothing."""
        return self._edit(_checked(replace(self.settings, **{"edited": (), **changes})))

    def set_feature(
        self,
        name: str,
        *,
        use: bool | None = None,
        sign: str | None = None,
        require: bool | None = None,
    ) -> SurvivalSettings:
        """Turn the variable ``name`` on or off the card (``use``), set the sign its points
        must have (``sign``: ``"free"``, ``"+"`` or ``"-"``), or force it onto the card
        (``require``)."""
        if name not in self.variables:
            raise KeyError(f"no variable {name!r}: the variables are {self.variables}")
        s = self.settings
        exclude, signs, required = set(s.exclude), dict(s.signs), set(s.require)
        if use is not None:
            (exclude.discard if use else exclude.add)(name)
        if require is not None:
            (required.add if require else required.discard)(name)
        if sign is not None:
            if sign not in SIGNS:
                raise ValueError(f"sign must be one of {SIGNS}, got {sign!r}")
            signs.pop(name, None)
            if sign != "free":
                signs[name] = sign
        new = replace(
            s,
            exclude=tuple(sorted(exclude)),
            signs=tuple(sorted(signs.items())),
            require=tuple(sorted(required)),
            edited=(),
        )
        return self._edit(_checked(new))

    @property
    def rules(self) -> list[str]:
        """The rules the card's points are given to (the columns of ``X``, or the rules made of
        a raw table); empty before the first card."""
        return [] if self.card is None else list(self.card.feature_names)

    def _check_rule(self, rule: str) -> None:
        if rule not in self.rules:
            raise KeyError(f"no rule {rule!r} on this table: the rules are {self.rules}")

    def set_lock(self, rule: str, points: int | None) -> SurvivalSettings:
        """Fix the points of ``rule`` at ``points`` (0 keeps it off the card), or free them
        (None); the card re-solves with the others free."""
        self._check_rule(rule)
        lock = dict(self.settings.lock)
        if points is None:
            lock.pop(rule, None)
        else:
            lock[rule] = whole_points(points)
        new = replace(self.settings, lock=tuple(sorted(lock.items())), edited=())
        return self._edit(_checked(new))

    def edit_points(self, rule: str, points: int) -> SurvivalSettings:
        """Give ``rule`` ``points`` by hand (0 takes it off the card): the card is re-read with
        its multiplier and baseline hazard refitted, not re-solved (:func:`edited_card`), and
        says what it breaks of the settings."""
        if self.card is None:
            raise ValueError("no card to edit yet: wait for the first solve")
        self._check_rule(rule)
        card_points = dict(self.card.card_points)
        card_points[rule] = whole_points(points)
        card_points = {name: p for name, p in card_points.items() if p != 0}
        solved = self._cache.get(self.settings.solved)
        by_hand = solved is None or card_points != solved.card_points
        edited = tuple(sorted(card_points.items())) if by_hand else ()
        return self._edit(replace(self.settings, edited=edited))

    def breaks(self, settings: SurvivalSettings, points: dict[str, int]) -> list[str]:
        """What a card of ``points`` (by rule) breaks of ``settings``, in words (empty: none)."""
        _, _, options = rules_from_options(self.rows(settings)[0], settings.solved.options())
        spec = make_spec(**options)
        problems = [
            _outside(spec, rule, p) for rule, p in points.items() if not _inside(spec, rule, p)
        ]
        problems += [
            f"{rule!r} locked at {v:+d} has {points.get(rule, 0):+d}"
            for rule, v in spec.lock.items()
            if points.get(rule, 0) != v and _inside(spec, rule, points.get(rule, 0))
        ]
        used = {rule for rule, p in points.items() if p != 0}
        if len(used) > settings.max_size:
            problems.append(f"{len(used)} rules with points > max size {settings.max_size}")
        groups = [[n] for n in spec.require] + [list(c.features) for c in spec.constraints]
        problems += [f"none of {g} used (must use)" for g in groups if not used & set(g)]
        return problems + variable_problems(spec, points)

    def _edit(self, new: SurvivalSettings) -> SurvivalSettings:
        with self._lock:
            if new == self.settings:
                return new
            self._undo.append(self.settings)
            self._redo.clear()
            self.settings = new
        self._solve()
        return new

    def undo(self) -> bool:
        """Back to the settings before the last edit (and their card); False when there is none."""
        return self._step(self._undo, self._redo)

    def redo(self) -> bool:
        """The edit undone last, again; False when there is none."""
        return self._step(self._redo, self._undo)

    def _step(self, source: list, target: list) -> bool:
        with self._lock:
            if not source:
                return False
            target.append(self.settings)
            self.settings = source.pop()
        self._solve()
        return True

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    # -- the horizon: a view of the card --------------------------------------------------------
    def _check_horizon(self, horizon: float) -> None:
        if not np.isfinite(horizon) or not 0 < horizon <= self.follow_up:
            raise ValueError(
                f"the horizon must lie in the follow-up, above 0 and at most "
                f"{self.follow_up:g}; got {horizon!r}"
            )

    def set_horizon(self, horizon: float) -> None:
        """State the card's risk by ``horizon`` (solves nothing)."""
        horizon = float(horizon)
        self._check_horizon(horizon)
        self.horizon = horizon
        self._emit("horizon")

    # -- solving ----------------------------------------------------------------------------------
    def _solve(self) -> None:
        with self._lock:
            self._gen += 1
            self._cancel.set()  # the older solve stops; its result is dropped
            self._cancel = threading.Event()
            settings, gen, cancel = self.settings, self._gen, self._cancel
            cached = self._cache.get(settings)
            if cached is not None:
                self._show(cached, "from the cache")
            else:
                self.solving, self.status = True, "solving…"
        if cached is not None:
            self._emit("card", "notice")
        else:
            self._emit("notice")
        thread = threading.Thread(
            target=self._work, args=(settings, gen, cancel), daemon=True, name="sw-survival"
        )
        self._thread = thread
        thread.start()

    def _fit(
        self,
        settings: SurvivalSettings,
        cancel: threading.Event,
        report: Callable[[dict[str, int], str], None] | None = None,
    ) -> SurvivalCard:
        if settings.edited:  # the solved card's rules, with the points set by hand
            base = self._cache.get(settings.solved) or self._fit(settings.solved, cancel)
            points = dict(settings.edited)
            X, y = self.rows(settings)
            return edited_card(base, points, X, y, settings.C0, self.breaks(settings, points))
        self.solves += 1
        X, y = self.rows(settings)
        card = fit_survival(
            X, y, cancel=cancel, progress=False, on_progress=report, **settings.options()
        )
        if card.status != "interrupted":
            self._cache[settings] = card
        return card

    def _work(self, settings: SurvivalSettings, gen: int, cancel: threading.Event) -> None:
        try:
            report = partial(self._progress, gen)
            card = self._cache.get(settings) or self._fit(settings, cancel, report)
        except Exception as error:  # the previous card and its settings stay, with the reason
            with self._lock:
                if gen == self._gen:
                    self._refused(error)
            self._emit("card", "notice")
            return
        if cancel.is_set():
            return
        with self._lock:
            if gen != self._gen:
                return
            if card.status != "interrupted":
                self._cache[settings] = card
            self._show(card, "")
        self._emit("card", "notice")
        self._fill_path(settings, gen, cancel)

    def _progress(self, gen: int, points: dict[str, int], words: str) -> None:
        """The best card so far of the solve ``gen`` and what is proven, in the status line
        while it runs (the card on screen stays until the solve ends)."""
        with self._lock:
            if gen != self._gen or not self.solving:
                return
            card = ", ".join(f"{rule} {p:+d}" for rule, p in points.items()) or "no rule"
            self.status = f"solving… best so far: {card} · {words}"
        self._emit("progress")

    def _refused(self, error: Exception) -> None:
        """The settings that found no card give way to those of the card on screen, and the
        notice says why (call under the lock)."""
        self.solving = False
        self.notice = (
            f"no card for these settings ({error}): the card and settings on screen are "
            "those before"
        )
        if self._undo and self._undo[-1] == self._shown:
            self._undo.pop()
        if self._shown is not None:
            self.settings = self._shown

    def _show(self, card: SurvivalCard, how: str) -> None:
        """Put ``card`` on screen (call under the lock)."""
        self._shown = self.settings
        self.card, self.solving, self.notice = card, False, ""
        self.status = status_words(card, self.c_index(card), how, self.held_out_c(card))

    def _fill_path(self, settings: SurvivalSettings, gen: int, cancel: threading.Event) -> None:
        """Harrell's C of the best card of each size up to ``max_size`` (through the cache);
        a size too small for the rules that must be used (locked, must use) has no card."""
        for size in range(1, settings.max_size + 1):
            smaller = replace(settings.solved, max_size=size)
            if smaller in self._cache:
                continue
            try:
                card = self._fit(smaller, cancel)
            except (ValueError, NoSolutionError):  # none of this size meets the settings
                continue
            if cancel.is_set() or gen != self._gen:
                return
            with self._lock:
                self._cache[smaller] = card
            self._emit("path")

    # -- the rows: those a card is solved on, those kept aside --------------------------------
    def _kept_aside(self, holdout: float) -> np.ndarray:
        return held_out_rows(self._event, holdout)

    def rows(self, settings: SurvivalSettings, held_out: bool = False) -> tuple[pd.DataFrame, Any]:
        """``(X, y)`` of the rows a card of ``settings`` is solved on (``held_out``: of the rows
        kept aside)."""
        mine = self._kept_aside(settings.holdout) == held_out
        return self._frame[mine], self._y[mine]

    @property
    def X(self) -> pd.DataFrame:
        """The training rows' variables (of the card on screen's settings)."""
        return self.rows(self._shown or self.settings)[0]

    @property
    def y(self) -> Any:
        """The training rows' events and times."""
        return self.rows(self._shown or self.settings)[1]

    @property
    def time(self) -> np.ndarray:
        """The training rows' follow-up times."""
        return TIME_TO_EVENT.target(self.y).time

    @property
    def event(self) -> np.ndarray:
        """Whether each training row's event happened."""
        return TIME_TO_EVENT.target(self.y).event

    def c_index(self, card: SurvivalCard) -> float:
        """Harrell's C of ``card`` on the training rows."""
        return float(harrell_c(self.time, self.event, card.predict(self.X)))

    def held_out_c(self, card: SurvivalCard) -> tuple[float, int] | None:
        """Harrell's C of ``card`` on the rows kept aside and how many they are (None when no
        row is kept aside; NaN when no pair of them is comparable)."""
        settings = self._shown or self.settings
        if not settings.holdout:
            return None
        X, y = self.rows(settings, held_out=True)
        target = TIME_TO_EVENT.target(y)
        try:
            c = float(harrell_c(target.time, target.event, card.predict(X)))
        except ValueError:  # every earlier time censored
            c = float("nan")
        return c, len(X)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the current solve (and its sizes for the C-index path); True when done."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

    def close(self) -> None:
        """Stop any solve."""
        self._cancel.set()
        self.wait(5)

    # -- what the views draw -----------------------------------------------------------------------
    def totals(self) -> np.ndarray:
        """Each training row's total score on the current card."""
        return np.zeros(len(self.time)) if self.card is None else self.card.scores(self.X)

    def risk_table(self) -> pd.DataFrame:
        """Per total score: rows, the predicted risk by the horizon, Kaplan–Meier's observed risk
        with its 95 % interval (NaN where no row with that score is followed that far)."""
        if self.card is None:
            return pd.DataFrame(columns=RISK_COLUMNS)
        card = replace(self.card, horizons=(self.horizon,))
        rows = risk_by_score(card, self.totals(), self.time, self.event)
        return pd.DataFrame(
            [
                (r.score, r.n_rows, r.predicted[0], r.observed[0], r.lower[0], r.upper[0])
                for r in rows
            ],
            columns=RISK_COLUMNS,
            dtype=float,
        ).astype({"score": int})

    def km_frame(self) -> pd.DataFrame:
        """Kaplan–Meier curves by score band of the current card
        (:func:`~slimwidgets.toolbox.survival_evidence.km_by_band`)."""
        return km_by_band(self.time, self.event, score_bands(self.totals()))

    def c_by_size(self) -> pd.DataFrame:
        """Harrell's C (training rows) of the best card of each size solved so far, under the
        current settings otherwise: ``size, C-index, current``."""
        rows = []
        for size in range(1, self.settings.max_size + 1):
            card = self._cache.get(replace(self.settings.solved, max_size=size))
            if card is not None:
                rows.append((size, self.c_index(card), size == self.settings.max_size))
        return pd.DataFrame(rows, columns=["size", "C-index", "current"])

    def export(self, fmt: str = "json", path: str | os.PathLike | None = None) -> tuple[Path, str]:
        """Write the card on screen as ``fmt`` (its family's export: the score and the risk by
        each of its horizons); returns (path, the line of Python that reads it back).

        Parameters
        ----------
        fmt : str, default "json"
            One of :data:`EXPORT_SUFFIXES`.
        path : str or path-like, optional
            Where to write (default ``time_to_event_card`` with the format's suffix). A file
            that cannot be written raises ``OSError`` naming the path and why.
        """
        if fmt not in EXPORT_SUFFIXES:
            raise ValueError(f"the format must be one of {list(EXPORT_SUFFIXES)}, got {fmt!r}")
        if self.card is None:
            raise ValueError("no card to write yet: wait for the first solve")
        text = TIME_TO_EVENT.export(self.card, fmt)
        path = Path(path if path is not None else f"time_to_event_card{EXPORT_SUFFIXES[fmt]}")
        try:
            path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        except OSError as error:
            raise OSError(f"could not write {str(path)!r}: {error.strerror or error}") from None
        where = repr(os.path.join(".", str(path)) if not path.is_absolute() else str(path))
        return path, RELOAD_LINES[fmt].format(path=where)


RISK_COLUMNS = ["score", "rows", "predicted", "observed", "lower", "upper"]

#: the formats the studio writes a time-to-event card in, and their file suffixes
EXPORT_SUFFIXES = {
    "json": ".json",
    "python": ".py",
    "sql": ".sql",
    "text": ".txt",
    "markdown": ".md",
    "html": ".html",
    "latex": ".tex",
}
#: the line of Python that reads each format back (``{path}`` a Python literal)
RELOAD_LINES = {
    "json": "import slimwidgets; card = slimwidgets.SurvivalCard.from_json({path})",
    "python": "import runpy; risk = runpy.run_path({path})['risk']  # risk(row, horizon)",
    "sql": "sql = open({path}, encoding='utf-8').read()  # SELECT ... FROM \"patients\"",
    "text": "print(open({path}, encoding='utf-8').read())",
    "markdown": "import IPython.display; IPython.display.Markdown(filename={path})",
    "html": "import IPython.display; IPython.display.HTML(filename={path})",
    "latex": "latex = open({path}, encoding='utf-8').read()",
}


def status_words(
    card: SurvivalCard,
    c_index: float,
    how: str = "",
    held_out: tuple[float, int] | None = None,
) -> str:
    """The status line of a time-to-event card, in the user's units.

    Parameters
    ----------
    card : SurvivalCard
        The card on screen.
    c_index : float
        Its Harrell's C on the training rows.
    how : str, default ""
        Where it came from, when not a solve ("from the cache").
    held_out : tuple of (float, int), optional
        Its Harrell's C on the rows kept aside, and how many they are.

    Examples
    --------
    >>> import numpy as np
    >>> card = SurvivalCard(("a",), (1,), 1.0, np.array([1.0]), np.array([0.1]), (1.0,),
    ...                     status="optimal", solve_time=0.25)
    >>> status_words(card, 0.7123)
    "Harrell's C 0.712 (training rows) · proven best · solved in 0.25 s"
    >>> status_words(card, 0.7123, held_out=(0.68, 40)).split(" · ")[0]
    "Harrell's C 0.712 (training rows), 0.680 (40 held-out rows)"
    >>> stopped = SurvivalCard(("a",), (1,), 1.0, np.array([1.0]), np.array([0.1]), (1.0,),
    ...                        status="time_limit", objective=2.0, bound=1.9, solve_time=5.0)
    >>> status_words(stopped, 0.7, "from the cache").split(" · ")[1:]
    ['not proven: its Cox loss is within 5.0 % of the proven floor', 'from the cache']
    """
    if card.status == "edited":
        proof = edit_words(card)
    elif card.status == "optimal":
        proof = "proven best"
    elif card.gap is not None:
        proof = f"not proven: its Cox loss is within {100 * card.gap:.1f} % of the proven floor"
    else:
        proof = "not proven"
    where = how or ("" if card.status == "edited" else f"solved in {card.solve_time:.2g} s")
    c = f"Harrell's C {c_index:.3f} (training rows)"
    if held_out is not None:
        aside = "–" if not np.isfinite(held_out[0]) else f"{held_out[0]:.3f}"
        c += f", {aside} ({held_out[1]} held-out rows)"
    return " · ".join(w for w in (c, proof, where) if w)


def whole_points(points: Any) -> int:
    """``points`` as an int when it is a whole number (``2.0`` counts as 2); else ``ValueError``.

    Examples
    --------
    >>> whole_points(2.0), whole_points(-3)
    (2, -3)
    """
    if isinstance(points, bool) or not isinstance(points, (int, float, np.integer, np.floating)):
        raise ValueError(f"points must be a whole number, got {points!r}")
    if not float(points).is_integer():
        raise ValueError(f"points must be a whole number, got {points!r}")
    return int(points)


def _inside(spec: Any, rule: str, points: int) -> bool:
    lo, hi = spec.feature_box(rule)
    return lo <= points <= hi


def _outside(spec: Any, rule: str, points: int) -> str:
    """Why ``points`` of ``rule`` lie outside what the settings allow."""
    if rule in spec.exclude:
        return f"{rule!r} is off the card (its variable unticked) but has {points:+d}"
    if rule in spec.lock:
        return f"{rule!r} is locked at {spec.lock[rule]:+d} but has {points:+d}"
    lo, hi = spec.feature_box(rule)
    return f"{rule!r} has {points:+d}, outside {lo:+d}..{hi:+d} (its sign and range)"


def edited_card(
    base: SurvivalCard, points: dict[str, int], X: Any, y: Any, C0: float, broken: list[str]
) -> SurvivalCard:
    """``base`` with ``points`` (by rule; rules not named get 0) set by hand: its multiplier
    refitted by Cox's partial likelihood of the new totals and Breslow's baseline hazard
    re-estimated on the rows ``X, y``; its objective the Cox loss per event plus ``C0`` per
    rule, as a solve counts it. Status ``"edited"``: it is not optimized.

    Parameters
    ----------
    base : SurvivalCard
        The solved card whose rules are edited.
    points : dict of str to int
        The new points of each rule with points.
    X : DataFrame or array-like
        The training rows (raw columns for a card fit on a raw table).
    y : structured array
        Their events and times.
    C0 : float
        The Cox loss (per event) each rule used costs.
    broken : list of str
        What the points break of the settings (:meth:`SurvivalSession.breaks`), kept in
        ``details["edit"]``.

    Returns
    -------
    SurvivalCard
        ``details["edit"]`` holds ``cost`` (its objective minus the solved card's) and
        ``breaks``.

    Examples
    --------
    >>> events = [(True, 1.0), (True, 2.0), (False, 3.0), (True, 4.0), (False, 5.0)]
    >>> y = np.array(events + [(True, 6.0)], dtype=[("died", "?"), ("days", "<f8")])
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0], [1, 0], [0, 1]])
    >>> base = fit_survival(X, y, max_size=1, progress=False)
    >>> card = edited_card(base, {"x0": 2}, X, y, 0.002, [])
    >>> card.card_points, card.status, round(card.multiplier / base.multiplier, 6)
    ({'x0': 2}, 'edited', 2.0)
    """
    unknown = sorted(set(points) - set(base.feature_names))
    if unknown:
        raise ValueError(f"no rule {unknown} on this card: its rules are {base.feature_names}")
    card = replace(base, points=tuple(int(points.get(n, 0)) for n in base.feature_names))
    target = TIME_TO_EVENT.target(y)
    totals = card.scores(X)
    ties = base.details.get("ties", "breslow")
    same = None if np.ptp(totals) > 0 else base.multiplier  # one total: no slope to fit
    multiplier, times, hazard = refit_baseline(totals, target.time, target.event, same, ties)
    weight = np.ones(totals.size)
    cells = TIME_TO_EVENT.loss.value(totals[:, None], target.time, target.event, weight, ties)
    objective = cells.value(np.array([1.0 / multiplier])) + C0 * len(card.card_points)
    cost = None if base.objective is None else objective - base.objective
    card = replace(
        card,
        multiplier=multiplier,
        baseline_times=times,
        baseline_hazard=hazard,
        status="edited",
        objective=objective,
        bound=None,
        solve_time=0.0,
        solver="edited by hand",
        details={**base.details, "edit": {"cost": cost, "breaks": list(broken)}},
    )
    return replace(card, table=risk_by_score(card, totals, target.time, target.event))


def edit_words(card: SurvivalCard) -> str:
    """What an edited card is: not optimized, its Cox loss against the solved card's, what it
    breaks of the settings.

    Examples
    --------
    >>> card = SurvivalCard(("a",), (2,), 1.0, np.array([1.0]), np.array([0.1]), (1.0,),
    ...                     status="edited", details={"edit": {"cost": 0.0123, "breaks": []}})
    >>> edit_words(card)
    'edited (not optimized) · Cox loss +0.0123 per event vs the solved card'
    """
    edit = card.details.get("edit", {})
    words = "edited (not optimized)"
    if edit.get("cost") is not None:
        words += f" · Cox loss {edit['cost']:+.4f} per event vs the solved card"
    if edit.get("breaks"):
        words += " · breaks " + "; ".join(edit["breaks"])
    return words


def held_out_rows(event: np.ndarray, share: float, seed: int = 0) -> np.ndarray:
    """Which rows are kept aside: ``share`` of the rows with an event and of the censored rows
    each (rounded), drawn with ``seed``, so a share always keeps the same rows aside.

    Parameters
    ----------
    event : ndarray of bool
        Whether each row's event happened.
    share : float
        The share of rows kept aside, from 0 to 0.5.
    seed : int, default 0
        The draw's seed.

    Returns
    -------
    ndarray of bool
        True for the rows kept aside.

    Examples
    --------
    >>> event = np.array([True] * 6 + [False] * 4)
    >>> aside = held_out_rows(event, 0.5)
    >>> int(aside[event].sum()), int(aside[~event].sum())
    (3, 2)
    >>> bool(held_out_rows(event, 0.0).any())
    False
    """
    if not 0 <= share <= 0.5:
        raise ValueError(f"the share of rows kept aside must lie in 0..0.5, got {share!r}")
    event = np.asarray(event, dtype=bool)
    aside = np.zeros(event.size, dtype=bool)
    rng = np.random.default_rng(seed)
    for group in (np.flatnonzero(event), np.flatnonzero(~event)):
        aside[rng.permutation(group)[: int(round(share * group.size))]] = True
    return aside
