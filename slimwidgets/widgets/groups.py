"""The studio's groups, without Jupyter: which column splits the rows into groups,
the gap between groups the card must hold, and what the card does in each group.

A group column is data, not a setting: the :class:`~slimwidgets.core.spec.Spec` holds only
the bounds (``max_tpr_gap``, ``max_fpr_gap``, ...) and the rows' groups live in the
:class:`~slimwidgets.core.data.Dataset`. So picking a column swaps the data the studio solves
on, together with the cache of results solved on it (:class:`GroupWorlds`): a card solved
under a gap between sexes is never shown for a gap between age bands. Results without group
options are the same for every column, and are carried across.

The columns offered are those of the table the studio was given with at most
:data:`MAX_LEVELS` values, a text column kept apart from the rules
(:func:`~slimwidgets.core.data.group_column_apart`) and a Series given as
``sensitive_features``. Held-out rows are split into the same groups, so the per-group
table has train and held-out figures side by side.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..core.data import Dataset, group_column_apart, prepare_data
from ..core.formatting import percent, setting_percent
from ..core.groups import GROUP_OPTIONS, dataset_rates
from ..core.scoring import ScoringSystem
from ..core.spec import Spec
from .best_known import BestKnown
from .holdout import measure_card, prepare_validation, split_holdout, studio_data
from .solving import SolveCache

if TYPE_CHECKING:
    from .alternatives import AlternativesList
    from .cuts import CutEditing
    from .studio_core import StudioCore
    from .sweeps import Sweeps

__all__ = [
    "MAX_LEVELS",
    "GAP_OPTIONS",
    "GROUP_COLORS",
    "GROUP_SHAPES",
    "GroupRows",
    "GroupWorlds",
    "GroupControls",
    "group_candidates",
    "grouped_studio_data",
    "group_frame",
    "gap_words",
    "group_status",
]

#: a column with more distinct values than this is not offered as a group column
MAX_LEVELS = 12
#: the studio's gap control: which rate's gap, and the spec option that holds it
GAP_OPTIONS = {"TPR": "max_tpr_gap", "FPR": "max_fpr_gap"}
#: Okabe and Ito's colour-blind-safe palette (without the yellow, too pale on white), one per group
#: in the order of the column's values; every group also has its own shape and its label beside it
GROUP_COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
GROUP_SHAPES = (
    "square",
    "triangle-up",
    "cross",
    "triangle-down",
    "circle",
    "triangle-right",
    "triangle-left",
)


def _has_groups(spec: Spec) -> bool:
    return any(getattr(spec, k) is not None for k in GROUP_OPTIONS)


def group_candidates(X: Any, sensitive_features: Any = None) -> dict[str, pd.Series]:
    """The columns that can split ``X``'s rows into groups: {name: one label per row}.

    Every column of a DataFrame with 2 to :data:`MAX_LEVELS` distinct values (0/1 columns
    last), and
    ``sensitive_features`` when it is a Series or array of labels (named by its name, or
    "group").

    Examples
    --------
    >>> X = pd.DataFrame(
    ...     {"age": [30, 40, 50, 60], "old": [0, 0, 1, 1], "sex": ["F", "M", "F", "M"]}
    ... )
    >>> list(group_candidates(X))
    ['age', 'sex', 'old']
    >>> list(group_candidates(X.drop(columns="sex"), pd.Series([1, 1, 2, 2], name="site")))[-1]
    'site'
    """
    out: dict[str, pd.Series] = {}
    if isinstance(X, pd.DataFrame):
        few = [name for name in X.columns if 2 <= X[name].nunique(dropna=True) <= MAX_LEVELS]
        # columns of labels first; 0/1 columns (often rules already) after them
        binary = [name for name in few if set(pd.unique(X[name].dropna())) <= {0, 1}]
        for name in [n for n in few if n not in binary] + binary:
            out[str(name)] = X[name].reset_index(drop=True)
    if sensitive_features is not None and not isinstance(sensitive_features, str):
        values = pd.Series(
            np.asarray(sensitive_features, dtype=object).ravel()
            if not isinstance(sensitive_features, pd.Series)
            else sensitive_features.to_numpy()
        )
        out[str(getattr(sensitive_features, "name", None) or "group")] = values
    elif isinstance(sensitive_features, str) and sensitive_features not in out:
        if not isinstance(X, pd.DataFrame) or sensitive_features not in X.columns:
            raise KeyError(f"sensitive_features={sensitive_features!r} is not a column of X")
        out[sensitive_features] = X[sensitive_features].reset_index(drop=True)
    return out


@dataclass
class GroupRows:
    """Rows at full length (as the card scores them: after the rules) and each candidate
    column's label per row, so that any column can make a grouped data set of them."""

    X: Any
    y: Any
    weight: Any
    columns: dict[str, pd.Series]
    # the rows before the rules (a raw table's), so that other cut points can split them too
    raw: Any = None

    def dataset(self, column: str, positive: Any, rules: Any = None) -> Dataset:
        """The rows split by ``column``: as the studio's first rules, or
        (``rules``) as other ones."""
        X = self.X if rules is None else rules.transform(self.raw, warn=False)
        return prepare_data(
            X,
            self.y,
            positive=positive,
            sample_weight=self.weight,
            sensitive_features=pd.Series(self.columns[column].to_numpy(), name=column),
            warn=False,
        )


def _take(rows: Any, idx: np.ndarray) -> Any:
    return rows.iloc[idx] if isinstance(rows, (pd.DataFrame, pd.Series)) else np.asarray(rows)[idx]


def _split(X: Any, y: Any, sample_weight: Any, holdout: Any, random_state: Any):
    """``split_holdout``'s stratified split, as row positions (the same split: it depends only
    on the labels, the fraction and the random state)."""
    n = len(y)
    tr, _, w_tr, va, _, w_va = split_holdout(
        np.arange(n), y, holdout, sample_weight=sample_weight, random_state=random_state
    )
    return np.asarray(tr), np.asarray(va), w_tr, w_va


def grouped_studio_data(
    X: Any,
    y: Any,
    data: Dataset | None,
    *,
    sensitive_features: Any = None,
    positive: Any = None,
    sample_weight: Any = None,
    validation: Any = None,
    holdout: Any = None,
    random_state: Any = None,
    options: dict | None = None,
):
    """:func:`~slimwidgets.widgets.holdout.studio_data` that also keeps the rows any group column
    can split: (training rows, held-out rows or None, rules or None, other options, the raw
    rows behind the rules or None, the :class:`GroupWorlds` source or None when no column can
    split the rows).

    A text column named by ``sensitive_features`` is the group only: it leaves the table before
    the table becomes rules. With ``holdout``, the split is ``split_holdout``'s, made here so
    that each row's group follows it."""
    if data is not None or X is None or y is None:
        if sensitive_features is not None:
            raise TypeError(
                "sensitive_features= needs X and y (a prepared data= carries its own groups)"
            )
        return (
            *studio_data(
                X,
                y,
                data,
                positive=positive,
                sample_weight=sample_weight,
                validation=validation,
                holdout=holdout,
                random_state=random_state,
                options=options,
            ),
            None,
        )
    candidates = group_candidates(X, sensitive_features)
    X, _ = group_column_apart(X, sensitive_features)
    held = None
    if holdout is not None:
        if validation is not None:
            raise TypeError("give validation=(X_val, y_val) or holdout=fraction, not both")
        tr, va, sample_weight, w_va = _split(X, y, sample_weight, holdout, random_state)
        held = (
            _take(X, va),
            _take(y, va),
            w_va,
            {k: v.iloc[va].reset_index(drop=True) for k, v in candidates.items()},
        )
        X, y = _take(X, tr), _take(y, tr)
        candidates = {k: v.iloc[tr].reset_index(drop=True) for k, v in candidates.items()}
        validation = (held[0], held[1])
    data, val, rules, options, raw = studio_data(
        X,
        y,
        None,
        positive=positive,
        sample_weight=sample_weight,
        validation=validation,
        options=options,
    )
    as_rules = (lambda rows: rows) if rules is None else rules.transform
    if held is not None and held[2] is not None:  # held-out weights follow their rows
        val = prepare_validation(as_rules(held[0]), held[1], data, sample_weight=held[2])
        raw = None if raw is None else raw._replace(w_val=held[2])
    if not candidates:
        return data, val, rules, options, raw, None
    train_rows = GroupRows(as_rules(X), y, sample_weight, candidates, X)
    held_rows = (
        None if held is None else GroupRows(as_rules(held[0]), held[1], held[2], held[3], held[0])
    )
    return data, val, rules, options, raw, GroupWorlds(data, train_rows, held_rows, rules)


class GroupWorlds:
    """The studio's data once per group column (and once without groups), made on first use.

    Parameters
    ----------
    base : the training rows without groups (what the studio shows without a column).
    train, held_out : the rows each column splits (held-out rows: None without them).
    rules : the studio's first rules (None: a table of rules); rows under other rules (moved cut
        points, :mod:`~slimwidgets.widgets.cuts`) are made from the raw rows of ``train`` and
        ``held_out``.
    """

    def __init__(
        self, base: Dataset, train: GroupRows, held_out: GroupRows | None, rules: Any = None
    ):
        self.base, self.train, self.held_out, self.rules = base, train, held_out, rules
        self._made: dict[tuple[int, str, str], tuple[Any, Dataset]] = {}

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(self.train.columns)

    def check(self, column: str | None) -> None:
        if column is not None and column not in self.train.columns:
            raise KeyError(
                f"{column!r} is not a group column of this studio; its group columns are "
                f"{list(self.columns)}"
            )

    def dataset(
        self, column: str | None, which: str = "train", rules: Any = None
    ) -> Dataset | None:
        """The training (``which="train"``) or held-out rows split by ``column``, as the first
        rules or as ``rules`` (the rules of moved cut points)."""
        self.check(column)
        if column is None:
            return self.base if which == "train" else None
        rows = self.train if which == "train" else self.held_out
        if rows is None:
            return None
        other = None if rules is None or rules is self.rules else rules
        key = (id(other), column, which)
        if key not in self._made:
            made = rows.dataset(column, self.base.positive, other)
            if (
                other is None and made.feature_names != self.base.feature_names
            ):  # never: the same rows and rules
                raise ValueError(
                    f"the rows split by {column!r} have other features than the studio's"
                )
            self._made[key] = (
                other,
                made,
            )  # the rules kept alive with their rows: their id stays theirs
        return self._made[key][1]


# -- figures -------------------------------------------------------------------------------------
def group_frame(card: ScoringSystem, train: Dataset, held_out: Dataset | None) -> pd.DataFrame:
    """Per group: weight ``n``, TPR, FPR and error of ``card`` on the training rows
    (``set="train"``) and, with held-out rows, on them (``set="validation"``); each group keeps
    its colour and shape (:data:`GROUP_COLORS`, :data:`GROUP_SHAPES`) in the column's order."""
    frames = []
    for which, rows in (("train", train), ("validation", held_out)):
        if rows is None:
            continue
        rates = dataset_rates(card, rows).assign(set=which)
        frames.append(rates)
    frame = pd.concat(frames, ignore_index=True)
    order = {g: i for i, g in enumerate(train.sensitive_levels)}
    idx = frame["group"].map(lambda g: order.get(g, len(order)))
    frame["color"] = [GROUP_COLORS[i % len(GROUP_COLORS)] for i in idx]
    frame["shape"] = [GROUP_SHAPES[i % len(GROUP_SHAPES)] for i in idx]
    return frame[["group", "set", "n", "TPR", "FPR", "error", "color", "shape"]]


def _gap_of(frame: pd.DataFrame, rate: str) -> float:
    values = frame.loc[frame["set"] == "train", rate].dropna()
    return float(values.max() - values.min()) if len(values) > 1 else math.nan


def gap_words(frame: pd.DataFrame, spec: Spec) -> list[str]:
    """The card's training gaps between groups in words, each beside its bound when the spec
    sets one ("TPR gap between groups 4.1 % ≤ 5 %").

    Examples
    --------
    >>> frame = pd.DataFrame({"group": ["F", "M"], "set": "train", "TPR": [0.80, 0.841],
    ...                       "FPR": [0.1, 0.1]})
    >>> gap_words(frame, Spec(max_tpr_gap=0.05))
    ['TPR gap between groups 4.1 % ≤ 5 %', 'FPR gap 0.0 %']
    """
    words = []
    first_fpr = (
        spec.max_fpr_gap is not None and spec.max_tpr_gap is None
    )  # the bound set comes first
    for rate in ("FPR", "TPR") if first_fpr else ("TPR", "FPR"):
        bound = getattr(spec, GAP_OPTIONS[rate])
        gap = _gap_of(frame, rate)
        if math.isnan(gap):
            continue
        head = f"{rate} gap between groups" if not words else f"{rate} gap"
        words.append(
            f"{head} {percent(gap)}"
            + ("" if bound is None else f" \u2264 {setting_percent(bound)}")
        )
    return words


def group_status(
    card: ScoringSystem | None, frame: pd.DataFrame | None, spec: Spec, state: str
) -> str:
    """The group line of the status: the gaps, then whether the card is proven best under the
    caps ("TPR gap between groups 4.1 % ≤ 5 % · proven best under these caps")."""
    if card is None or frame is None or not len(frame):
        return ""
    words = gap_words(frame, spec)
    capped = _has_groups(spec)
    if state == "solving":
        words.append("solving…")
    elif card.status == "edited":
        words.append("edited card")
    elif card.status == "optimal":
        words.append("proven best under these caps" if capped else "proven best (no group caps)")
    else:
        words.append("best found, not proven best" + (" under these caps" if capped else ""))
    return " \u00b7 ".join(words)


# -- the controller's part -------------------------------------------------------------------------
@dataclass
class _World:
    data: Dataset
    solver: SolveCache
    best: BestKnown
    made: dict = field(default_factory=dict)  # id(result) -> the solver that made it (see kept)


class GroupControls:
    """The group column of the studio: the column picked, the gap control and each group's
    figures. Picking a column swaps the rows, cache and judge of better cards of the studio's
    core (:meth:`~slimwidgets.widgets.studio_core.StudioCore.use_rows`) for the column's.

    Made once by the controller, after its solver, best-known card and cut tables.

    Parameters
    ----------
    core : the studio's core.
    worlds : the group columns the rows can be split by (None: no column).
    column : the column picked at the start (None: none).
    cuts : the cut-point panel, whose current table the rows come from.
    sweeps, alts : the background lists, whose points of another column are dropped.
    request : shows the card of a new spec (the controller's
        :meth:`~slimwidgets.widgets.controller.Controller.set_spec`).
    """

    def __init__(
        self,
        core: StudioCore,
        worlds: GroupWorlds | None,
        column: str | None,
        *,
        cuts: CutEditing,
        sweeps: Sweeps,
        alts: AlternativesList,
        request: Callable[..., None],
    ) -> None:
        self._core, self._cuts, self._request = core, cuts, request
        self._sweeps, self._alts = sweeps, alts
        self._groups = worlds
        self._group: str | None = None
        # keyed by (the rules' table, the column): each set of cut points has its own split rows
        self._worlds: dict[tuple[Any, str | None], _World] = {
            (self._rules_table(), None): _World(self._core.data, self._core.solver, self._core.best)
        }
        self._made_by: dict[int, SolveCache] = {}
        self._group_figures: tuple[Any, Any, pd.DataFrame | None] = (None, None, None)
        if column is not None:
            self._use_group(column)

    @property
    def group(self) -> str | None:
        """The column whose groups the card is measured in (and held to the group options in)."""
        return self._group

    @property
    def group_columns(self) -> tuple[str, ...]:
        """The columns the studio can split its rows by."""
        return () if self._groups is None else self._groups.columns

    def _rules_table(self) -> Any:
        """The current rules' table of a raw table (:mod:`~slimwidgets.widgets.cuts`), else None."""
        return self._cuts.table

    def _world(self, column: str | None) -> _World:
        """``column``'s rows under the current rules (None: the rules' own
        rows), made on first use."""
        table = self._rules_table()
        key = (table, column)
        if key not in self._worlds:
            if column is None:  # other cut points' own rows: their table's data, cache and judge
                self._worlds[key] = _World(table.data, table.solver, table.best)
                return self._worlds[key]
            validation, rules = (
                (self._core.validation, self._core.rules)
                if table is None
                else (table.validation, table.rules)
            )
            data = self._groups.dataset(column, "train", rules)
            solver = SolveCache(
                data, lambda card: measure_card(card, data, validation, rules), self._core.lock
            )
            self._worlds[key] = _World(data, solver, BestKnown(data))
        return self._worlds[key]

    def across_table_switch(self, switch: Callable[[], None]) -> None:
        """Run ``switch`` (other cut points made current, :meth:`CutEditing.use_table`) with the
        column picked splitting the new rows (and when its own cuts moved, its new rules are the
        ones it keeps off the card)."""
        column, apart = self._group, self.group_apart
        old = [] if column is None else self._rules_of_column(column)
        self._use_group(None)
        switch()
        self._use_group(column)
        if apart and column is not None:  # the user's own exclusions of the column stay theirs
            self._core.undo.apart = tuple(
                n for n in self._rules_of_column(column) if n in apart or n not in old
            )

    def _use_group(self, column: str | None) -> None:
        """Solve on ``column``'s data from now on (under the lock); results without group options
        are the same for every column and come along."""
        if column == self._group:
            return
        if self._groups is None:
            raise KeyError(
                "this studio has no group column: give Studio(X, y, sensitive_features=...) a "
                "column"
            )
        self._groups.check(column)
        old, new = self._world(self._group), self._world(column)
        for key in list(old.solver.results):
            spec = Spec.from_dict(json.loads(key))
            if not _has_groups(spec) and key not in new.solver:
                new.solver.store(spec, old.solver.results[key])
        self._group = column
        self._core.use_rows(new.data, self._core.validation, self._core.rules, new.solver, new.best)
        self._core.undo.group = column
        self._sweeps.points.clear()  # points of another column's gaps must not be drawn
        self._alts.forget(lambda key: _has_groups(Spec.from_dict(json.loads(key))))

    def set_group(self, column: str | None) -> None:
        """Split the rows by ``column`` (None: no groups); one undo step. Without a column the
        group options have no meaning: they are dropped, and :attr:`notice` says so.

        The column picked is kept off the card: its rules (a column of the table that became
        rules) are excluded while it is the group, as a text column given as
        ``sensitive_features=`` never becomes one; the exclusions it added go when the column
        does (:attr:`group_apart`)."""
        if self._groups is None and column is not None:
            raise KeyError(
                "this studio has no group column: give Studio(X, y, sensitive_features=...) a "
                "column"
            )
        if column is not None:
            self._groups.check(column)
        spec, words = self._core.spec, []
        if column is None and _has_groups(spec):
            spec = spec.replace(**{k: None for k in GROUP_OPTIONS})
            words.append("no group column: dropped the caps between groups")
        apart = self.group_apart
        if column != self._group:
            spec, apart = self._apart_spec(spec, column, words)
        with self._core.lock:
            self._core.check_open()
            previous, before = self._group, self.group_apart
            self._use_group(column)
            self._core.undo.apart = apart
        try:
            self._request(spec, action="group", notice="; ".join(words))
        except BaseException:
            with self._core.lock:
                self._use_group(previous)
                self._core.undo.apart = before
            raise

    @property
    def group_apart(self) -> tuple[str, ...]:
        """The rules the group column keeps off the card (the exclusions picking it added)."""
        return tuple(getattr(self._core.undo, "apart", ()))

    def _rules_of_column(self, column: str) -> list[str]:
        """The features ``column`` of the studio's table became (itself, in a table of rules)."""
        if self._core.rules is not None and column in {
            str(r.column) for r in self._core.rules.rules_
        }:
            return [r.name for r in self._core.rules.rules_ if str(r.column) == column]
        return [column] if column in self._core.data.feature_names else []

    def _apart_spec(
        self, spec: Spec, column: str | None, words: list[str]
    ) -> tuple[Spec, tuple[str, ...]]:
        """``spec`` with the previous column's rules given back and ``column``'s excluded, and
        the rules excluded for it; what changed is added to ``words``."""
        back = self.group_apart
        if back:
            spec = spec.replace(exclude=[f for f in spec.exclude if f not in back])
            words.append(f"gave the card back the rules of {self._group!r}")
        if column is None:
            return spec, ()
        own = self._rules_of_column(column)
        required = [n for n in own if n in spec.require]
        if required:
            raise ValueError(
                f"{column!r} cannot be the group column while the card must use {required[0]!r}: "
                f"the group column is kept off the card (lift the requirement first)"
            )
        apart = tuple(n for n in own if n not in spec.exclude)
        if apart:
            locks = [n for n in apart if n in spec.lock]
            spec = spec.replace(
                exclude=list(spec.exclude) + list(apart),
                lock={k: v for k, v in spec.lock.items() if k not in apart},
            )
            words.append(
                f"the group column {column!r} is kept off the card: its rules are excluded while "
                "it is the group" + (f" (dropped the lock of {locks[0]!r})" if locks else "")
            )
        return spec, apart

    def set_gap(self, rate: str, value: float | None) -> Spec:
        """The studio's gap control: the largest difference between two groups' TPR
        (``rate="TPR"``, ``max_tpr_gap``) or FPR (``"FPR"``, ``max_fpr_gap``); None lifts it.
        The control holds one gap: setting one lifts the other (both at once: :meth:`update`)."""
        if rate not in GAP_OPTIONS:
            raise ValueError(
                f"the gap is between groups' TPR or FPR: rate must be 'TPR' or 'FPR', got {rate!r}"
            )
        if value is not None and self._group is None:
            raise ValueError("pick a group column first: a gap is between the groups of a column")
        other = GAP_OPTIONS["FPR" if rate == "TPR" else "TPR"]
        spec = self._core.spec.replace(**{GAP_OPTIONS[rate]: value, other: None})
        self._request(spec)
        return spec

    def gap_control(self) -> tuple[str, float | None]:
        """(rate, bound) the gap control shows for the current spec."""
        if self._core.spec.max_tpr_gap is None and self._core.spec.max_fpr_gap is not None:
            return "FPR", self._core.spec.max_fpr_gap
        return "TPR", self._core.spec.max_tpr_gap

    def group_frame(self) -> pd.DataFrame | None:
        """The card on screen in each group of :attr:`group` (see :func:`group_frame`; a risk
        card predicts positive at a risk of 50 % or more), or None without a column or a card."""
        card, column = self._core.card, self._group
        if card is None or column is None:  # a risk card is measured at its decision, risk >= 50 %
            return None
        if self._group_figures[0] is not card or self._group_figures[1] != column:
            frame = group_frame(
                card, self._core.data, self._groups.dataset(column, "validation", self._core.rules)
            )
            self._group_figures = (card, column, frame)
        return self._group_figures[2].copy()

    def group_status(self) -> str:
        """The group line of the status (see :func:`group_status`)."""
        return group_status(
            self._core.card, self.group_frame(), self._core.spec, self._core.status.state
        )

    # -- hooks of the controller: undo, a failed solve, solves that outlive a switch --------------
    def back_to(self, state: Any) -> None:
        """A failed solve: the rows of the ``state`` kept (its rules' table, then its column)."""
        self.restore_group(None)
        self._cuts.follow_table(state.table)
        self.restore_group(state.group)

    def around_jump(self, jump: Callable[[], None]) -> None:
        """Run ``jump`` (undo or redo) from the rules' own rows, so that the table can follow,
        then pick the column of the state reached."""
        self._use_group(None)
        jump()
        self.restore_group(self._core.undo.current.group)

    def solve_total(self) -> int:
        return sum(w.solver.count for w in self._worlds.values())

    def restore_group(self, column: str | None) -> None:
        """Back to the state shown (undo, redo, a failed solve): its column
        and what it kept apart."""
        self._use_group(column)
        state = self._core.undo.current
        if column is not None and state is not None and state.group == column:
            self._core.undo.apart = state.apart
        elif column is None:
            self._core.undo.apart = ()

    def kept(self, solver: SolveCache, spec: Spec, result: Any) -> Any:
        """A result solved on ``solver``'s data: returned when that is still the studio's data;
        else kept in that data's cache only (None: nothing to show)."""
        if result is None:
            return None
        with self._core.lock:
            if solver is self._core.solver:
                self._made_by[id(result)] = solver
                return result
        if getattr(result, "status", None) != "solver_stopped":
            solver.store(spec, result)
        return None

    def store_where_made(self, spec: Spec, result: Any) -> None:
        with self._core.lock:
            solver = self._made_by.pop(id(result), self._core.solver)
        solver.store(spec, result)
