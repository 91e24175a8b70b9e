"""Cut points you can move, without Jupyter: the studio's panel by variable.

A studio started from a raw table (``Studio(raw, y)``) keeps the raw rows its rules were fit on.
Each numeric variable's cut points are shown against a histogram of its training values with the
event rate per bin (:meth:`CutEditing.cut_panel`); a cut typed, added, moved or removed fits the
rules again on the training rows with that variable's new cuts (every other variable keeps its
own), makes the rules' table (a :class:`Table`: training rows, held-out rows, its own cache of
solved cards) current, carries the settings over to the new rules and re-solves: one edit, one
undo step. Undo and redo bring a table back with its cards (from its cache, without a solve).

Bad input raises ``ValueError`` naming the variable and why before anything changes: text that
is not a number, a cut outside the training values (its rule would hold for every row or none),
a cut the variable already has, the last cut removed, a cut whose rule a constraint names.

Settings carry over by rule name: a rule whose cut stays keeps its settings; the new rules of
the variable take a setting every old rule of it shared (a sign, a penalty, a points range,
exclusion: a setting by variable); the settings of a rule that is gone go with it, said in the
notice (a lock, a requirement).
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..core.data import Dataset, prepare_data
from ..core.rules import RuleBuilder, options_by_variable
from ..core.spec import Spec
from ..core.variables import cut_text
from .best_known import BestKnown
from .holdout import RawRows, measure_card, prepare_validation
from .settings import SIGNS
from .solving import SolveCache

if TYPE_CHECKING:
    from .alternatives import AlternativesList
    from .studio_core import StudioCore
    from .sweeps import Sweeps

__all__ = [
    "Table",
    "CutEditing",
    "parse_cut",
    "carry_spec",
    "histogram",
    "threshold_cuts",
    "MAX_BINS",
    "MAX_LEVELS",
    "GROUP_NOTE",
]

#: a variable's histogram has at most this many bins
MAX_BINS = 24


@dataclass(eq=False)
class Table:
    """One set of rules of a studio's raw table: the rules, the training and held-out rows as
    rules, and the cards solved on them (a cache of its own, and the judge of better cards)."""

    rules: RuleBuilder
    data: Dataset
    validation: Dataset | None
    solver: SolveCache
    best: BestKnown


def threshold_cuts(rules: RuleBuilder) -> dict[str, list[float]]:
    """The cut points of each variable with threshold rules, in the columns' order."""
    out: dict[str, list[float]] = {}
    for r in rules.rules_:
        if r.kind == "ge":
            out.setdefault(r.column, []).append(float(r.value))
    return {k: sorted(v) for k, v in out.items()}


def parse_cut(variable: str, value: Any) -> float:
    """A cut point from what a user typed (text or a number); ``ValueError`` when it is not a
    finite number.

    >>> parse_cut("age", " 62.5 "), parse_cut("age", "\u221210")
    (62.5, -10.0)
    """
    if isinstance(value, str):
        text = (
            value.strip().replace("\u2212", "-").replace(",", ".")
            if value.count(",") <= 1
            else value
        )
        try:
            number = float(text)
        except ValueError:
            raise ValueError(
                f"\u201c{value}\u201d is not a number: type a cut point of {variable!r} such as 50 "
                "or 2.5"
            ) from None
    elif isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"a cut point of {variable!r} must be a number, got {value!r}")
    else:
        number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"a cut point of {variable!r} must be a finite number, got {value!r}")
    return number


def histogram(values: np.ndarray, events: np.ndarray, integer: bool) -> list[dict]:
    """Bins of a variable's training values: ``{"lo", "hi", "rows", "events"}`` (values in
    ``[lo, hi)``, the last bin closed), at most :data:`MAX_BINS`; whole-number data get bins on
    whole numbers.

    >>> [b["rows"] for b in histogram(np.array([1., 1., 2., 3.]), np.array([0, 1, 1, 1]), True)]
    [2, 1, 1]
    """
    lo, hi = float(values.min()), float(values.max())
    if integer:
        step = max(1, math.ceil((hi - lo + 1) / MAX_BINS))
        edges = np.arange(lo, hi + step + 1, step, dtype=float)
        edges = edges[: int(np.searchsorted(edges, hi, side="right")) + 1]
    else:
        edges = np.histogram_bin_edges(values, bins=min(MAX_BINS, max(1, len(np.unique(values)))))
    rows, _ = np.histogram(values, bins=edges)
    hits, _ = np.histogram(values, bins=edges, weights=events.astype(float))
    return [
        {"lo": float(a), "hi": float(b), "rows": int(n), "events": int(round(k))}
        for a, b, n, k in zip(edges[:-1], edges[1:], rows, hits)
    ]


#: a variable of levels shows at most this many (the most frequent), and how many more it has
MAX_LEVELS = 12


def _events(raw: RawRows, data: Dataset) -> np.ndarray:
    labels = np.asarray(
        raw.y.to_numpy() if isinstance(raw.y, (pd.Series, pd.Index)) else raw.y, dtype=object
    )
    return np.array([v == data.positive for v in labels], dtype=bool)


def _levels(raw: RawRows, data: Dataset, variables: Sequence[str]) -> dict[str, dict]:
    """Per variable of levels (text, categories, yes/no), its most frequent levels with their rows
    and events, and its missing rows."""
    events, out = _events(raw, data), {}
    for name in variables:
        column = raw.X[{str(c): c for c in raw.X.columns}[name]]
        present = column.notna().to_numpy()
        shown = pd.Series(column[present].map(str).to_numpy())
        hits = (
            pd.Series(events[present])
            .groupby(shown)
            .agg(["size", "sum"])
            .sort_values("size", ascending=False)
        )
        out[name] = {
            "kind": "levels",
            "rows": int(present.sum()),
            "missing": int((~present).sum()),
            "rate": float(events[present].mean()) if present.any() else None,
            "levels": [
                {"label": str(k), "rows": int(r["size"]), "events": int(r["sum"])}
                for k, r in hits.head(MAX_LEVELS).iterrows()
            ],
            "more": max(0, len(hits) - MAX_LEVELS),
        }
    return out


def _summaries(raw: RawRows, data: Dataset, variables: Sequence[str]) -> dict[str, dict]:
    """Per numeric variable, what its panel shows that no cut changes: range,
    histogram, missing rows."""
    events = _events(raw, data)
    out = {}
    for name in variables:
        column = pd.to_numeric(raw.X[{str(c): c for c in raw.X.columns}[name]], errors="coerce")
        present = column.notna().to_numpy()
        values = column.to_numpy(dtype=float)[present]
        integer = bool(np.all(values == np.round(values)))
        out[name] = {
            "kind": "cuts",
            "min": float(values.min()),
            "max": float(values.max()),
            "integer": integer,
            "rows": int(present.sum()),
            "missing": int((~present).sum()),
            "rate": float(events[present].mean()) if present.any() else None,
            "bins": histogram(values, events[present], integer),
        }
    return out


def fit_table(
    raw: RawRows, params: dict, cuts: dict[str, list[float]], lock: threading.RLock
) -> Table:
    """The rules fit on the raw training rows with these ``cuts`` (every threshold variable's),
    the training and held-out rows as those rules, and an empty cache."""
    rules = RuleBuilder(**{**params, "cuts": {k: list(v) for k, v in cuts.items()}}).fit(raw.X)
    data = prepare_data(
        rules.transform(raw.X, warn=False),
        raw.y,
        positive=raw.positive,
        sample_weight=raw.sample_weight,
        warn=False,
    )
    validation = None
    if raw.X_val is not None:
        validation = prepare_validation(
            rules.transform(raw.X_val, warn=False), raw.y_val, data, sample_weight=raw.w_val
        )
    solver = SolveCache(data, lambda card: measure_card(card, data, validation, rules), lock)
    return Table(rules, data, validation, solver, BestKnown(data))


def _carry_names(setting: Any, gone: set[str], new: list[str], old: list[str]) -> Any:
    """One option's value with the rules in ``gone`` dropped and, when every rule of ``old``
    shared one value (a setting by variable), that value given to the ``new`` rules too."""
    if isinstance(setting, dict):
        kept = {k: v for k, v in setting.items() if k not in gone}
        shared = [setting.get(n) for n in old]
        if old and shared[0] is not None and all(v == shared[0] for v in shared):
            kept.update({n: shared[0] for n in new})
        return kept
    kept = [n for n in setting if n not in gone]
    if old and all(n in setting for n in old):
        kept += [n for n in new if n not in kept]
    return kept


def carry_spec(spec: Spec, old: Sequence[str], new: Sequence[str]) -> tuple[Spec, list[str]]:
    """``spec`` for a variable whose rules ``old`` became ``new`` (see the module's docstring):
    ``(spec, what was dropped, in words)``; ``ValueError`` when a constraint or group names a
    rule that is gone (dropping it silently would change the problem)."""
    gone, added, old = set(old) - set(new), [n for n in new if n not in old], list(old)
    named = spec.named_features()
    for option in named:
        if option not in (
            "exclude",
            "require",
            "signs",
            "penalties",
            "lock",
            "coef_ranges",
            "values",
            "missing",
            "variables",
        ):  # the rules' variables: the new table's own (CutEditing._use_cuts)
            hit = sorted(gone & set(named[option]))
            if hit:
                raise ValueError(
                    f"{option} names {hit[0]!r}, which this cut change removes: change {option} "
                    "first"
                )
    dropped = [f"the lock of {n!r} at {spec.lock[n]}" for n in spec.lock if n in gone]
    dropped += [
        f"the requirement of {n!r}"
        for n in spec.require
        if n in gone and not all(o in spec.require for o in old)
    ]
    changes: dict[str, Any] = {}
    for option in ("exclude", "signs", "penalties", "coef_ranges", "values"):
        changes[option] = _carry_names(getattr(spec, option), gone, added, old)
    changes["require"] = _carry_names(spec.require, gone, added, old)
    changes["lock"] = {
        k: v for k, v in spec.lock.items() if k not in gone
    }  # a lock is a rule's own
    changes["missing"] = {k: v for k, v in spec.missing.items() if k not in gone}
    return spec.replace(**changes), dropped


class CutEditing:
    """The cut-point panel of the studio: moving a cut makes another :class:`Table` current,
    whose rows, rules, cache and judge of better cards the studio then solves on
    (:meth:`~slimwidgets.widgets.studio_core.StudioCore.use_rows`).

    Made with the raw rows behind the rules, it makes the first table.

    Parameters
    ----------
    core : the studio's core.
    raw : the raw rows behind the rules (None: a 0/1 table, no panel).
    request : shows the card of a new spec (the controller's
        :meth:`~slimwidgets.widgets.controller.Controller.set_spec`).
    sweeps, alts : the background lists, dropped when the rules change.
    monotone_of : the monotone setting of a variable (shown in the panel).
    group_column : the group column picked now (kept off the card).
    across_switch : runs a switch of the rows with the group column splitting the new rows
        (:meth:`~slimwidgets.widgets.groups.GroupControls.across_table_switch`).
    """

    def __init__(
        self,
        core: StudioCore,
        raw: RawRows | None,
        *,
        request: Callable[..., None],
        sweeps: Sweeps,
        alts: AlternativesList,
        monotone_of: Callable[[str], str],
        group_column: Callable[[], str | None],
        across_switch: Callable[[Callable[[], None]], None],
    ) -> None:
        self._core, self._request, self._sweeps, self._alts = core, request, sweeps, alts
        self._monotone_of, self._group_column = monotone_of, group_column
        self._across_switch = across_switch
        self._raw, self._table, self._first_table, self._tables = raw, None, None, {}
        self.cut_errors: dict[
            str, dict
        ] = {}  # variable -> {"text", "typed"}: the last refused edit, said in place
        if raw is None or self._core.rules is None:
            return
        cuts = threshold_cuts(self._core.rules)
        self._params = {k: v for k, v in self._core.rules.get_params().items() if k != "cuts"}
        others = [
            c for c in dict.fromkeys(r.column for r in self._core.rules.rules_) if c not in cuts
        ]
        self._panel = {
            **_summaries(raw, self._core.data, list(cuts)),
            **_levels(raw, self._core.data, others),
        }
        data, validation, rules = self._core.data, self._core.validation, self._core.rules
        table = Table(
            rules,
            data,
            validation,
            SolveCache(
                data, lambda card: measure_card(card, data, validation, rules), self._core.lock
            ),
            self._core.best,
        )
        self._core.use_rows(data, validation, rules, table.solver, table.best)
        self._tables[_key(cuts)] = self._table = self._first_table = table

    @property
    def moved_cuts(self) -> bool:
        """Whether the rules are other than the studio's first."""
        return self._table is not None and self._table is not self._first_table

    @property
    def raw(self) -> RawRows | None:
        """The raw rows behind the rules (None for a 0/1 table)."""
        return self._raw

    @property
    def table(self) -> Table | None:
        """The current rules and everything solved on them (None without a raw table)."""
        return self._table

    def cut_points(self) -> dict[str, list[float]]:
        """The current cut points of each numeric variable (empty without a raw table)."""
        return {} if self._table is None else threshold_cuts(self._core.rules)

    def cut_panel(self) -> list[dict]:
        """The panel by variable as the studio draws it, in the columns' order: per numeric
        variable (``kind`` "cuts") its name, cut points, range, histogram (rows and events per
        bin), missing rows, its rules' use and sign, its monotone choice, and the last refused edit
        of it (``error``); per variable of levels (``kind`` "levels") its most frequent levels with
        their rows and events, and its use; at the group column (``group``) why it is kept off the
        card and how to change that, in words."""
        if self._table is None:
            return []
        cuts, out = self.cut_points(), []
        for name in dict.fromkeys(r.column for r in self._core.rules.rules_):
            rules = self._core.rules.rules_of(name)
            entry = {
                **self._panel[name],
                "name": name,
                "error": self.cut_errors.get(name),
                "use": _shared(
                    ["exclude" if n in self._core.spec.exclude else "auto" for n in rules]
                ),
                "group": GROUP_NOTE if name == self._group_column() else None,
            }
            if name in cuts:
                entry.update(
                    cuts=cuts[name],
                    labels=[cut_text(c) for c in cuts[name]],
                    sign=_shared(
                        [
                            self._core.spec.signs.get(n, "free")
                            for n in _signed_rules(self._core.rules, name)
                        ]
                    ),
                    monotone=self._monotone_of(name),
                )  # widgets/variables.py
            out.append(entry)
        return out

    def set_cuts(
        self,
        variable: str,
        cuts: Sequence[Any],
        *,
        typed: str | None = None,
        op: str = "set",
        old: float | None = None,
    ) -> Spec:
        """Give ``variable`` these cut points (its rules fit again, the card re-solved): one undo
        step. Refused (``ValueError``, nothing changed, said in :attr:`cut_errors` with what was
        ``typed``, the edit ``op`` and the cut it would have moved, ``old``) when a cut is not a
        number, lies outside the training values or is given twice, or none is left."""
        current = self.cut_points()
        if variable not in current:
            raise KeyError(
                f"{variable!r} is not a numeric variable of this studio's table "
                f"(those with cut points: {sorted(current)})"
            )
        try:
            values = [parse_cut(variable, c) for c in cuts]
            self._check_cuts(variable, values)
            return self._use_cuts(variable, sorted(values), current)
        except (ValueError, KeyError) as exc:
            if typed is None:
                typed = ", ".join(cut_text(c) if isinstance(c, float) else str(c) for c in cuts)
            self._refused(variable, exc, typed, op, old)
            raise

    def _refused(
        self, variable: str, exc: Exception, typed: str, op: str, old: float | None
    ) -> None:
        """Keep a refused edit for the panel to say beside its variable (the typed text stays)."""
        self.cut_errors = {
            variable: {
                "text": str(exc.args[0] if exc.args else exc),
                "typed": typed,
                "op": op,
                "old": None if old is None else float(old),
            }
        }
        self._core.emit("cuts")

    def add_cut(self, variable: str, value: Any) -> Spec:
        """Add a cut point to ``variable`` (typed text or a number)."""
        return self._edit_cut(variable, lambda cuts, v: cuts + [v], value, op="add")

    def move_cut(self, variable: str, old: float, value: Any) -> Spec:
        """Move ``variable``'s cut ``old`` to ``value``."""
        return self._edit_cut(
            variable,
            lambda cuts, v: [v if c == float(old) else c for c in cuts],
            value,
            old,
            op="move",
        )

    def remove_cut(self, variable: str, old: float) -> Spec:
        """Remove ``variable``'s cut ``old`` (its last one stays)."""
        return self._edit_cut(
            variable, lambda cuts, v: [c for c in cuts if c != float(old)], None, old, op="remove"
        )

    def _edit_cut(
        self, variable: str, change, value: Any, old: float | None = None, op: str = "set"
    ) -> Spec:
        cuts = self.cut_points().get(variable)
        if cuts is None:
            return self.set_cuts(variable, [])  # says which variables have cut points
        if old is not None and float(old) not in cuts:
            exc = ValueError(
                f"{variable!r} has no cut at {cut_text(float(old))} (its cuts: "
                f"{', '.join(cut_text(c) for c in cuts)})"
            )
            self._refused(variable, exc, "" if value is None else str(value), op, None)
            raise exc
        return self.set_cuts(
            variable,
            change(list(cuts), value),
            typed=None if value is None else str(value),
            op=op,
            old=old,
        )

    def _check_cuts(self, variable: str, values: list[float]) -> None:
        lo, hi = self._panel[variable]["min"], self._panel[variable]["max"]
        if not values:
            raise ValueError(
                f"{variable!r} needs at least one cut point: add another before removing this one"
            )
        for v in values:
            if not lo < v <= hi:
                raise ValueError(
                    f"{cut_text(v)} lies outside the training values of {variable!r} "
                    f"({cut_text(lo)} to {cut_text(hi)}): a cut must be above {cut_text(lo)} "
                    f"and at most {cut_text(hi)}, or its rule holds for every row or for none"
                )
        twice = sorted({v for v in values if values.count(v) > 1})
        if twice:
            raise ValueError(f"{variable!r} already has a cut at {cut_text(twice[0])}")

    def _use_cuts(
        self, variable: str, values: list[float], current: dict[str, list[float]]
    ) -> Spec:
        cuts = {**current, variable: values}
        if cuts == current:
            self.cut_errors = {}
            return self._core.spec
        key = _key(cuts)
        table = self._tables.get(key) or fit_table(self._raw, self._params, cuts, self._core.lock)
        spec, dropped = carry_spec(
            self._core.spec, self._core.rules.rules_of(variable), table.rules.rules_of(variable)
        )
        if spec.variables:
            spec = spec.replace(variables=options_by_variable(table.rules, {})["variables"])
        spec.check_data(table.data.feature_names, table.data.n_samples)
        before = ", ".join(cut_text(c) for c in current[variable])
        notice = (
            f"cut points of {variable!r}: {before} \u2192 {', '.join(cut_text(c) for c in values)}"
        )
        if dropped:
            notice += "; dropped " + " and ".join(dropped) + " (their rules are gone)"
        with self._core.lock:
            self._tables[key] = table
            self.cut_errors = {}
            self.use_table(table)
            self._request(spec, action="cuts", notice=notice)
        return spec

    def adopt_size(
        self,
        rules: RuleBuilder,
        size: int,
        choice: dict,
        gen: int,
        requested: float | None = None,
    ) -> None:
        """Solve with the cut points of ``rules`` and at most ``size`` rules, as ``fit`` chose them
        by cross-validation (:mod:`~slimwidgets.widgets.size_choice`): one step, said in the
        notice; nothing when the studio moved on since generation ``gen`` (the user's action
        wins), or when the choice was skipped for lack of time (said so). ``requested``: when
        the choice was asked for (``time.perf_counter()``): the solve's time limit runs from it,
        as ``fit``'s final solve gets what its choice left of the limit."""
        from .size_choice import choice_text

        with self._core.lock:
            if self._core.generation != gen or self._core.closed:
                return
            if choice.get("skipped"):
                self._core.say(choice_text(choice), "warning")
                skipped = True
            else:
                skipped = False
                cuts = threshold_cuts(rules)
                key = _key(cuts)
                table = self._tables.get(key) or fit_table(
                    self._raw, self._params, cuts, self._core.lock
                )
                spec = self._core.spec.replace(max_size=int(size))
                if spec.variables:
                    spec = spec.replace(variables=options_by_variable(table.rules, {})["variables"])
                self._tables[key] = table
                self.use_table(table)
                self._request(
                    spec, action="size", notice=choice_text(choice, spec.loss), requested=requested
                )
        if skipped:
            self._core.emit("notice")

    def use_table(self, table: Table) -> None:
        """Make ``table`` current (under the lock): its rows, rules, cache and judge, the group
        column splitting them; the background lists of the other table are dropped (their cards
        have other rules)."""
        self._across_switch(lambda: self._switch(table))

    def _switch(self, table: Table) -> None:
        self._table = table
        self._core.use_rows(table.data, table.validation, table.rules, table.solver, table.best)
        self._sweeps.reset()
        self._alts.reset()

    def follow_table(self, table: Table | None) -> None:
        """Undo, redo or a failed solve went back to a state of ``table``: make it current."""
        if table is not None and table is not self._table:
            self.use_table(table)

    def set_variable(
        self, variable: str, *, use: str | None = None, sign: str | None = None
    ) -> Spec:
        """A setting by variable name, for all its rules at once: ``use`` "auto" or "exclude",
        ``sign`` "free", "+" or "-" (points that rise or fall with the variable): one undo step."""
        if self._core.rules is None or variable not in {r.column for r in self._core.rules.rules_}:
            raise KeyError(f"unknown variable {variable!r}")
        names = (
            _signed_rules(self._core.rules, variable)
            if sign is not None
            else self._core.rules.rules_of(variable)
        )
        s, changes = self._core.spec, {}
        if use is not None:
            if use not in ("auto", "exclude"):
                raise ValueError(f"use of a variable must be 'auto' or 'exclude', got {use!r}")
            if use != "exclude" and variable == self._group_column():
                raise ValueError(f"{variable!r} is the group column: {GROUP_NOTE}")
            changes["exclude"] = [f for f in s.exclude if f not in names] + (
                names if use == "exclude" else []
            )
            changes["lock"] = {
                k: v for k, v in s.lock.items() if k not in names or use != "exclude"
            }
        if sign is not None:
            sign = {"\u2212": "-", "\u2013": "-"}.get(sign, sign)
            if sign not in SIGNS:
                raise ValueError(f"sign must be one of {SIGNS}, got {sign!r}")
            changes["signs"] = {
                **{k: v for k, v in s.signs.items() if k not in names},
                **({n: sign for n in names} if sign != "free" else {}),
            }
        spec = s.replace(**changes)
        self._request(spec)
        return spec


#: what the cut panel says at the group column (why its rules say "exclude", and how to change it)
GROUP_NOTE = (
    "kept off the card while the card is measured in its groups; to put it on the card, set "
    "“groups” in the controls to another column or to “no groups”"
)


def _signed_rules(rules: RuleBuilder, variable: str) -> list[str]:
    """The rules of ``variable`` that a sign by variable sets (not its "missing" rule: whether a
    missing value counts for or against is a question of its own)."""
    return [r.name for r in rules.rules_ if r.column == variable and r.kind != "missing"]


def _shared(values: list[str]) -> str:
    """The one value every rule of a variable has, or "mixed"."""
    return values[0] if values and all(v == values[0] for v in values) else "mixed"


def _key(cuts: dict[str, list[float]]) -> str:
    return json.dumps(sorted((k, [float(c) for c in v]) for k, v in cuts.items()))
