"""The one table of options: every setting of a :class:`~slimwidgets.core.spec.Spec`, declared once.

Each row (an :class:`Option`) says, for one setting: its name and default, how its value is
checked and put in normal form, what it means, how the studio's "solved for" line words it
(:class:`Words`), whether conflict explanation may relax it and how (:class:`Relax`), its
command-line flag (:class:`Flag`), whether it names features, which loss family refuses it
(:class:`Refusal`), whether the scikit-learn estimator takes it, and whether a spec that leaves
it at its default serializes without it.

Everything that lists options reads :data:`OPTIONS`: the ``Spec`` fields and ``make_spec``
(:mod:`~slimwidgets.core.spec`), the "solved for" line and ``spec_changes``
(:mod:`~slimwidgets.core.wording`), conflict explanation
(:mod:`~slimwidgets.fitting.conflicts`), the command line's flags (:mod:`slimwidgets.cli`),
``SLIMClassifier``'s parameters (checked against the table by a test) and the table in the
documentation (:func:`options_rst`). Adding an option is one row here plus the code that
uses it (its rows in the formulation, its check on a card).

The order of the rows is the order of the "solved for" line, of the flags in ``--help`` and of
the options in conflict explanation.

Examples
--------
>>> OPTION["max_fpr"].check(0.25, "max_fpr")
0.25
>>> [row.name for row in OPTIONS if row.relax is not None][:3]
['max_fpr', 'min_tpr', 'max_size']
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import validators as v
from .by_variable import variables_map
from .constraints import LogicalConstraint
from .formatting import setting_percent
from .linear import LinearRow, normalize_linear

__all__ = [
    "Option",
    "Words",
    "Relax",
    "Flag",
    "Refusal",
    "OPTIONS",
    "OPTION",
    "NOT_OFFERED",
    "options_rst",
]

SOLVERS = ("auto", "highs", "cbc", "enumerate", "scan", "pulp")
#: What a total exactly at the threshold predicts. "positive": the card predicts the positive
#: class iff score >= threshold, and training uses exactly that rule (the default: every card
#: in its smallest form). "error": the paper's convention (sec. 2.1), where a total of zero
#: (score - threshold = 0) is an error whatever the class, so cards predict score > threshold.
ZERO_SCORES = ("positive", "error")
#: The loss families (:mod:`slimwidgets.core.losses` implements them).
LOSS_NAMES = ("zero_one", "logistic")
DEFAULT_COEF_RANGE = (-10, 10)
# None: the intercept box is derived from the data and the points boxes, wide enough that it
# never binds (see big_m_bounds.intercept_box); a box the user sets may bind, and the card says so.
DEFAULT_INTERCEPT_RANGE = None
#: Seconds a fit may run unless told otherwise: ``fit``, ``SLIMClassifier`` and the command line
#: return by then with their best card and what is proven about it (a bar shows progress).
#: Half a minute: small tables are proven or chosen well within it, and a first look at any
#: table never waits on a proof that may take hours; ``time_limit=None`` waits for the proof.
DEFAULT_TIME_LIMIT = 30.0


# -- the parts of a row --------------------------------------------------------------------------
@dataclass(frozen=True)
class Words:
    """How an option reads on the "solved for" line and in ``spec_changes``.

    ``text`` words the value (``each=None``), or one entry of it: ``text(feature, value)`` for
    a mapping, ``text(item)`` for a tuple; such entries get the keys ``"<each>:<feature>"`` so a
    change names exactly which lock or exclusion went. The option appears when it differs from
    its default, or always (``always=True``: ``C0 auto`` says the default is in force).
    """

    label: str
    text: Callable[..., str]
    each: str | None = None
    always: bool = False
    #: the label when an option of entries holds one value for all of them (a cap in every group)
    whole_label: str | None = None

    def items(self, name: str, value: Any, default: Any) -> dict[str, tuple[str, str]]:
        if self.each is None or (
            self.whole_label is not None and not isinstance(value, (Mapping, tuple))
        ):
            shown = self.always or value != default
            return {name: (self.whole_label or self.label, self.text(value))} if shown else {}
        if isinstance(value, Mapping):
            return {f"{self.each}:{k}": (self.label, self.text(k, x)) for k, x in value.items()}
        out = {}
        for item in value:
            text = self.text(item)
            out[f"{self.each}:{text}"] = (self.label, text)
        return out


@dataclass(frozen=True)
class Relax:
    """Conflict explanation may drop this option: the whole of it (back to its default, when
    set), or each entry of it on its own (``each=True``: a feature of a mapping, an item of a
    tuple). ``text`` describes what is dropped, called like :attr:`Words.text`."""

    text: Callable[..., str]
    each: bool = False


@dataclass(frozen=True)
class Flag:
    """The option on the command line.

    ``kind``: ``"value"`` (one value, parsed by ``parse`` then checked as the spec checks it),
    ``"choice"`` (one of the option's ``choices``), ``"switch"`` (no value: sets ``const``),
    ``"list"`` (a feature name, repeated), ``"assign"`` (``NAME=VALUE``, repeated; ``parse``
    reads VALUE) or ``"assign_or_value"`` (``NAME=VALUE`` sets the option ``per_feature``, a bare
    VALUE this one). ``group`` is the ``--help`` section: ``"spec"`` or ``"solver"``.
    """

    flag: str
    help: str
    metavar: str | None = None
    kind: str = "value"
    parse: Callable[[str], Any] | None = None
    const: Any = None
    per_feature: str | None = None
    group: str = "spec"


@dataclass(frozen=True)
class Refusal:
    """A loss family that has no use for the option (when it is set, or set to ``value``)."""

    loss: str
    reason: str
    value: Any = None

    def name(self, option: str) -> str:
        return option if self.value is None else f"{option}={self.value!r}"


@dataclass(frozen=True)
class Option:
    """One setting of a spec (a row of :data:`OPTIONS`).

    ``example`` is a value other than the default (in normal form), with the other options it
    needs in ``example_with``: the documentation shows it and the tests try every row with it.
    ``check(value, name)`` returns the value in normal form or raises naming the option.
    ``names(value)`` lists the feature names the value uses, as ``{label: names}`` (None: it
    names none). ``omit_default``: a spec that leaves the option at its default serializes
    without it, so adding the option changes no saved spec or cache key. ``choices``: the
    values a ``"choice"`` flag offers. ``reducible=False``: data reduction
    (:func:`slimwidgets.reduce_data`) refuses the option, whose budget or cost would change with
    the rows it removes.
    """

    name: str
    default: Any
    example: Any
    check: Callable[[Any, str], Any]
    annotation: str
    doc: str
    words: Words | None = None
    relax: Relax | None = None
    flag: Flag | None = None
    names: Callable[[Any], dict[str, list[str]]] | None = None
    refused: tuple[Refusal, ...] = ()
    estimator: bool = False
    omit_default: bool = False
    choices: tuple | None = None
    example_with: Mapping[str, Any] = field(default_factory=dict)
    reducible: bool = True

    @property
    def signature_default(self) -> Any:
        """The default ``make_spec`` shows: None for the mappings (an empty one)."""
        return None if isinstance(self.default, Mapping) else self.default

    def is_set(self, value: Any) -> bool:
        return value != self.default


# -- how values read (the "solved for" line, conflict explanation) ---------------------------
def _span(pair) -> str:
    lo, hi = pair
    return f"{lo}…{hi}".replace("-", "\u2212")


def _sign(name: str, sign: str) -> str:
    return f"{name} " + ("\u2212" if sign == "-" else "+")


def _weights(cw) -> str:
    return cw if isinstance(cw, str) else f"negative {cw[0]:g} : positive {cw[1]:g}"


def _tiers_text(tiers) -> str:
    return ", ".join(f"|points| \u2264 {b} cost {c:g}" for b, c in tiers)


# -- which features a value names ------------------------------------------------------------
def _named(label: str) -> Callable[[Any], dict[str, list[str]]]:
    """The keys of a mapping or the items of a tuple, under ``label``."""
    return lambda value: {label: list(value)} if value else {}


def _constraint_names(value) -> dict[str, list[str]]:
    return {f"constraints[{i}]": list(c.features) + list(c.targets) for i, c in enumerate(value)}


def _linear_names(value) -> dict[str, list[str]]:
    return {f"linear[{i}]": [f for _, f, _ in row.terms] for i, row in enumerate(value)}


def _linear_text(row: LinearRow) -> str:
    return (f"{row.name}: " if row.name else "") + row.describe()


def _in_groups(option: str) -> Callable[..., str]:
    """Words for an entry ``(group, cap)`` of a group cap, or for one cap in every group."""
    return lambda *a: (
        f"{option}={a[1]:g} in group {a[0]!r}"
        if len(a) == 2
        else f"{option}={a[0]:g} in every group"
    )


def _pct_by_group(*a) -> str:
    return f"{a[0]} {setting_percent(a[1])}" if len(a) == 2 else setting_percent(a[0])


def _linear(value: Any, what: str) -> tuple[LinearRow, ...]:
    """The user's linear rows, or their dicts (as JSON holds them); errors name the option."""
    if value is not None and not isinstance(value, (Mapping, LinearRow, tuple, list)):
        raise TypeError(
            f"{what} must be a list of linear rows (sw.formulate) or their dicts, got {value!r}"
        )
    try:
        return normalize_linear(value)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{what}: {exc}") from None


def _variable_rules(value) -> dict[str, list[str]]:
    return {"variables": [r for rules in value.values() for r in rules]} if value else {}


def _solver_name(value: Any, what: str) -> str | None:
    """A name among PuLP's solvers (whether that solver is installed is checked when solving)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(
            f"{what} must be the name of a PuLP solver (e.g. 'PULP_CBC_CMD', 'HiGHS'), got "
            f"{value!r}"
        )
    import pulp  # only when the option is set

    if value.strip() not in pulp.listSolvers():
        raise ValueError(f"{what}={value!r} is not a PuLP solver; PuLP knows {pulp.listSolvers()}")
    return value.strip()


def _group_members(value) -> dict[str, list[str]]:
    return {"groups": [n for members in value.values() for n in members]} if value else {}


# -- text on the command line -> a value (the spec checks the value) --------------------------
_RANGE_RE = re.compile(r"^\s*([+-]?\d+)\s*:\s*([+-]?\d+)\s*$")


def text_number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"expected a number, got {text!r}") from None


def text_whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"expected a whole number, got {text!r}") from None


def text_range(text: str) -> tuple[int, int]:
    match = _RANGE_RE.match(text)
    if not match:
        raise ValueError(f"expected LOW:HIGH with whole numbers (e.g. -5:5), got {text!r}")
    return int(match.group(1)), int(match.group(2))


def _constraints(value: Any, what: str) -> tuple[LogicalConstraint, ...]:
    """Logical constraints, or their dicts (as JSON holds them)."""
    if isinstance(value, (str, bytes, Mapping, LogicalConstraint)) or not hasattr(
        value, "__iter__"
    ):
        raise TypeError(
            f"{what} must be a list of logical constraints (needs, at_most, ...), got {value!r}"
        )
    return tuple(
        c if isinstance(c, LogicalConstraint) else LogicalConstraint.from_dict(c) for c in value
    )


_RISK = "logistic"
_LINEAR = Refusal(
    _RISK,
    "the risk card's search and bound know no rows of the user's own; fit a decision card "
    "(loss='zero_one') under linear constraints",
)
_GROUP = {"groups": {"g": ("a", "b")}}  # the example group the group options need


def _group_cap(name: str, example: Any, label: str, meaning: str, flag_words: str) -> Option:
    """A rate cap in every group (a number) or per group (``{group: number}``): a row."""
    return Option(
        name,
        None,
        example,
        v.per_group,
        "float | Mapping[str, float] | None",
        f"{meaning} in every group, or {{group: rate}} (needs sensitive_features)",
        words=Words(
            f"{label} in group", _pct_by_group, each=name, whole_label=f"{label} in every group"
        ),
        relax=Relax(_in_groups(name.replace("_by_group", "")), each=True),
        flag=Flag(
            "--" + name.replace("_", "-"),
            f"{flag_words} in every group (FRACTION), or in one group "
            "(GROUP=FRACTION, repeat); needs --sensitive",
            "FRACTION|GROUP=FRACTION",
            kind="assign_or_value",
            parse=text_number,
            per_feature=name,
        ),
        estimator=True,
        omit_default=True,
    )


def _group_gap(name: str, rate: str, meaning: str) -> Option:
    """The largest difference between two groups' rates: a row."""
    return Option(
        name,
        None,
        0.1,
        v.fraction,
        "float | None",
        f"largest difference between two groups' {meaning} (needs sensitive_features)",
        words=Words(f"{rate} gap between groups \u2264", setting_percent),
        relax=Relax(lambda x: f"{name}={x:g} between groups"),
        flag=Flag(
            "--" + name.replace("_", "-"),
            f"largest difference between two groups' {rate}; needs --sensitive",
            "FRACTION",
            parse=text_number,
        ),
        estimator=True,
        omit_default=True,
    )


OPTIONS: tuple[Option, ...] = (
    # -- caps and the objective --------------------------------------------------------------------
    Option(
        "max_fpr",
        None,
        0.2,
        v.fraction,
        "float | None",
        "largest false positive rate on the training data",
        words=Words("max FPR", setting_percent),
        relax=Relax(lambda x: f"max_fpr={x:g}"),
        flag=Flag(
            "--max-fpr",
            "false positive rate at most FRACTION on the training data",
            "FRACTION",
            parse=text_number,
        ),
        estimator=True,
        reducible=False,
    ),
    Option(
        "min_tpr",
        None,
        0.8,
        v.fraction,
        "float | None",
        "smallest true positive rate on the training data",
        words=Words("min TPR", setting_percent),
        relax=Relax(lambda x: f"min_tpr={x:g}"),
        flag=Flag(
            "--min-tpr",
            "true positive rate at least FRACTION on the training data",
            "FRACTION",
            parse=text_number,
        ),
        estimator=True,
        reducible=False,
    ),
    Option(
        "max_size",
        None,
        3,
        v.optional(v.whole(0)),
        "int | None",
        "most features the card may use",
        words=Words("size \u2264", str),
        relax=Relax(lambda x: f"max_size={x}"),
        flag=Flag("--max-size", "use at most K features", "K", parse=text_whole),
        estimator=True,
    ),
    Option(
        "C0",
        None,
        0.01,
        v.optional(v.nonneg),
        "float | None",
        "cost of using one feature, in training error (None: all features together cost less "
        "than one error)",
        words=Words("C0", lambda x: "auto" if x is None else f"{x:g}", always=True),
        flag=Flag(
            "--C0",
            "accuracy traded for one fewer feature (default: the engine's automatic value)",
            "C",
            parse=text_number,
        ),
        estimator=True,
    ),
    Option(
        "size_cv",
        None,
        5,
        v.optional(v.whole(2)),
        "int | None",
        "choose the card's size by K-fold cross-validation on the training rows, among 1 to "
        "max_size (or 1 to 5): the size with the lowest mean held-out error (log-loss for "
        "risk cards), then the exact "
        "card of that size on all rows (sw.fit does so by default for a raw table given "
        "neither max_size nor C0; with rules it makes itself, the same folds also choose 3 "
        "or 9 candidate cut points per numeric column)",
        words=Words("size chosen by", lambda k: f"{k}-fold CV"),
        omit_default=True,
    ),
    # -- fairness between the groups of the data's sensitive_features (core/groups.py) ----------
    _group_cap("max_fpr_by_group", {"F": 0.3}, "max FPR", "largest false positive rate", "FPR cap"),
    _group_cap(
        "min_tpr_by_group", {"F": 0.7}, "min TPR", "smallest true positive rate", "TPR floor"
    ),
    _group_gap("max_fpr_gap", "FPR", "false positive rates"),
    _group_gap("max_tpr_gap", "TPR", "true positive rates"),
    Option(
        "linear",
        (),
        (LinearRow((("points", "a", 1.0), ("points", "b", 1.0)), None, 3.0, "a and b"),),
        _linear,
        "tuple[LinearRow, ...]",
        "the user's own linear rows on points and use (written in PuLP, see sw.formulate)",
        words=Words("", _linear_text, each="linear"),
        relax=Relax(lambda row: row.name or row.describe(), each=True),
        names=_linear_names,
        refused=(_LINEAR,),
        omit_default=True,
    ),
    # -- points and features -----------------------------------------------------------------------
    Option(
        "coef_range",
        DEFAULT_COEF_RANGE,
        (-5, 5),
        v.int_pair,
        "tuple[int, int]",
        "allowed points of every feature (given as a mapping: of those features, see coef_ranges)",
        words=Words("points", _span, always=True),
        relax=Relax(lambda r: f"points range {r[0]}..{r[1]}"),
        flag=Flag(
            "--coef-range",
            "allowed points, for every feature (LO:HI, default -10:10) or one feature (NAME=LO:HI)",
            "LO:HI|NAME=LO:HI",
            kind="assign_or_value",
            parse=text_range,
            per_feature="coef_ranges",
        ),
        estimator=True,
    ),
    Option(
        "require",
        (),
        ("a",),
        v.names,
        "tuple[str, ...]",
        "features that must get non-zero points",
        words=Words("require", str, each="require"),
        relax=Relax(lambda f: f"require {f!r}", each=True),
        flag=Flag("--require", "always use feature NAME", "NAME", kind="list"),
        names=_named("require"),
        estimator=True,
    ),
    Option(
        "exclude",
        (),
        ("b",),
        v.names,
        "tuple[str, ...]",
        "features that must get 0 points",
        words=Words("exclude", str, each="exclude"),
        relax=Relax(lambda f: f"exclude {f!r}", each=True),
        flag=Flag("--exclude", "never use feature NAME", "NAME", kind="list"),
        names=_named("exclude"),
        estimator=True,
    ),
    Option(
        "signs",
        {},
        {"a": "+"},
        v.signs,
        "Mapping[str, str]",
        "feature -> the sign its points must have, '+' or '-'",
        words=Words("sign", _sign, each="sign"),
        relax=Relax(lambda f, s: f"sign {s!r} on {f!r}", each=True),
        flag=Flag(
            "--sign",
            "points of NAME must be + or - (or free)",
            "NAME=SIGN",
            kind="assign",
            parse=str.lower,
        ),
        names=_named("signs"),
        estimator=True,
    ),
    Option(
        "penalties",
        {},
        {"a": 0.02},
        v.per_feature(v.nonneg),
        "Mapping[str, float]",
        "feature -> its own C0",
        words=Words("penalty", lambda f, p: f"{f} {p:g}", each="penalty"),
        flag=Flag(
            "--penalty",
            "cost of using NAME, replacing C0 for that feature",
            "NAME=C",
            kind="assign",
            parse=text_number,
        ),
        names=_named("penalties"),
        estimator=True,
    ),
    Option(
        "lock",
        {},
        {"a": 1},
        v.per_feature(v.integer),
        "Mapping[str, int]",
        "feature -> its fixed points",
        words=Words("lock", lambda f, x: f"{f} = {x}".replace("= -", "= \u2212"), each="lock"),
        relax=Relax(lambda f, x: f"lock {f!r}={x}", each=True),
        flag=Flag(
            "--lock", "fix the points of NAME", "NAME=POINTS", kind="assign", parse=text_whole
        ),
        names=_named("lock"),
        estimator=True,
    ),
    Option(
        "coef_ranges",
        {},
        {"a": (0, 3)},
        v.per_feature(v.int_pair, "coef_range"),
        "Mapping[str, tuple[int, int]]",
        "feature -> its allowed points (low, high); on the command line: --coef-range NAME=LO:HI",
        words=Words("points of", lambda f, r: f"{f} {_span(r)}", each="range"),
        relax=Relax(lambda f, r: f"points range of {f!r} {r[0]}..{r[1]}", each=True),
        names=_named("coef_range"),
    ),
    Option(
        "intercept_range",
        DEFAULT_INTERCEPT_RANGE,
        (-9, 9),
        v.optional(v.int_pair),
        "tuple[int, int] | None",
        "allowed intercept (minus the threshold); None: derived from the data, never binding",
        relax=Relax(lambda r: f"intercept_range {r[0]}..{r[1]}"),
        flag=Flag(
            "--intercept-range",
            "allowed intercept (minus the threshold); default: derived from the data, "
            "wide enough never to limit the card",
            "LO:HI",
            parse=text_range,
        ),
        estimator=True,
    ),
    Option(
        "values",
        {},
        {"a": (0, 1, 2)},
        v.value_sets,
        "Mapping[str, tuple[int, ...]]",
        "feature -> the points values it may take",
        words=Words("values of", lambda f, xs: f"{f} {{{', '.join(map(str, xs))}}}", each="values"),
        relax=Relax(lambda f, xs: f"values of {f!r} in {list(xs)}", each=True),
        names=_named("values"),
        estimator=True,
    ),
    Option(
        "constraints",
        (),
        (LogicalConstraint("needs", ("a",), ("b",)),),
        _constraints,
        "tuple[LogicalConstraint, ...]",
        "logical constraints on which features are used (needs, at_most, at_least, hierarchy)",
        words=Words("", LogicalConstraint.describe, each="constraint"),
        relax=Relax(LogicalConstraint.describe, each=True),
        names=_constraint_names,
        estimator=True,
    ),
    # -- variables: the columns the rules read (core/by_variable.py) ----------------------------
    Option(
        "variables",
        {},
        {"v": {"a": "ge", "b": "ge"}},
        variables_map,
        "Mapping[str, Mapping[str, str]]",
        "variable -> its rules and their kinds ('ge' at or above a cut, 'lt' below it, 'eq', "
        "'missing', ...; with edges ['ge', cut], ['lt', cut] or ['band', lo, hi] for lo <= x < "
        "hi, which monotone needs when rules share a cut; a list of rules: kind unknown); fit "
        "fills it from its rule builder",
        names=_variable_rules,
        omit_default=True,
    ),
    Option(
        "max_variables",
        None,
        2,
        v.optional(v.whole(0)),
        "int | None",
        "most variables the card may use: the rules of one variable (age >= 50, age >= 60, age "
        "missing) count once, a rule in no variable counts as one",
        words=Words("variables \u2264", str),
        relax=Relax(lambda x: f"max_variables={x}"),
        flag=Flag(
            "--max-variables",
            "use at most K variables (the cut points and levels of one column count once)",
            "K",
            parse=text_whole,
        ),
        estimator=True,
        omit_default=True,
    ),
    Option(
        "max_cuts_per_variable",
        None,
        1,
        v.optional(v.whole(0)),
        "int | None",
        "most threshold rules (cut points) of each variable in use; levels and 'missing' do not "
        "count",
        words=Words("cut points per variable \u2264", str),
        relax=Relax(lambda x: f"max_cuts_per_variable={x}"),
        flag=Flag(
            "--max-cuts-per-variable",
            "use at most K cut points of each variable",
            "K",
            parse=text_whole,
        ),
        estimator=True,
        omit_default=True,
    ),
    Option(
        "monotone",
        {},
        {"a": "+"},
        v.signs,
        "Mapping[str, str]",
        "variable -> '+' (the points of its bands never fall as it rises) or '-' (never rise); "
        "its 'missing' rule and levels stay free; band rules and rules of both directions "
        "need their edges",
        words=Words("monotone", _sign, each="monotone"),
        relax=Relax(lambda f, s: f"monotone {s!r} on {f!r}", each=True),
        flag=Flag(
            "--monotone",
            "points of variable NAME rise (+) or fall (-) across its cut points",
            "NAME=SIGN",
            kind="assign",
            parse=str.lower,
        ),
        estimator=True,
        omit_default=True,
    ),
    # -- the loss ----------------------------------------------------------------------------------
    Option(
        "class_weights",
        None,
        "balanced",
        v.class_weights,
        "tuple[float, float] | str | None",
        "weights of the two classes: a (negative, positive) pair, a mapping with those keys, or "
        "'balanced'",
        words=Words("class weights", _weights),
        estimator=True,
        reducible=False,
    ),
    Option(
        "margin",
        None,
        0.5,
        v.optional(v.positive("a zero margin would let a zero score count as correct")),
        "float | None",
        "how far past the threshold a total must lie to count as right (None: exact for integer "
        "data)",
        refused=(
            Refusal(
                _RISK,
                "margin says how far past the threshold a decision card's total must lie for a "
                "row to count as right under the 0-1 loss; the logistic loss prices every total "
                "smoothly, and a risk card decides at its own rule (risk >= 50 %)",
            ),
        ),
        estimator=True,
    ),
    Option(
        "missing",
        {},
        {"a": 1},
        v.per_feature(v.whole(0)),
        "Mapping[str, int]",
        "feature -> training rows where it was missing (each costs one error when the feature "
        "is used)",
        refused=(
            Refusal(
                _RISK,
                "missing charges each row where a used feature is missing as one misclassified "
                "row (a 0-1 loss of 1 per row); the logistic loss of such a row depends on its "
                "unknown total and has no such fixed price",
            ),
        ),
        names=_named("missing"),
        estimator=True,
        reducible=False,
    ),
    Option(
        "zero_score",
        "positive",
        "error",
        v.one_of(ZERO_SCORES),
        "str",
        "what a total exactly at the threshold predicts: 'positive' (score >= T) or the paper's "
        "'error' (score > T)",
        flag=Flag(
            "--zero-score",
            "what a total exactly at the threshold predicts: positive (default: the card "
            "says 'SCORE >= T') or error (the paper's rule: a zero total is an error, 'SCORE > T')",
            kind="choice",
        ),
        choices=ZERO_SCORES,
        estimator=True,
    ),
    # -- the paper's specialized models (sec. 7) ---------------------------------------------------
    Option(
        "tiers",
        (),
        ((3, 0.01),),
        v.tiers,
        "tuple[tuple[int, float], ...]",
        "PILM: (largest |points|, cost) pairs, the cost of a value in each tier (instead of C0)",
        words=Words("tiers", _tiers_text),
        omit_default=True,
        reducible=False,
    ),
    Option(
        "groups",
        {},
        {"g": ("a", "b")},
        v.groups,
        "Mapping[str, tuple[str, ...]]",
        "TILM: group -> its member features (disjoint)",
        words=Words("group", lambda g, members: f"{g} ({', '.join(members)})", each="group"),
        names=_group_members,
        omit_default=True,
        reducible=False,
    ),
    Option(
        "group_penalty",
        0.0,
        0.1,
        v.nonneg,
        "float",
        "cost of every group with a member in use",
        example_with=_GROUP,
        omit_default=True,
        reducible=False,
    ),
    Option(
        "rule_penalty",
        0.0,
        0.1,
        v.nonneg,
        "float",
        "cost of every used member of a group beyond its first",
        example_with=_GROUP,
        omit_default=True,
        reducible=False,
    ),
    Option(
        "max_rules_per_group",
        None,
        1,
        v.optional(v.whole(1)),
        "int | None",
        "most members of each group in use",
        words=Words("rules per group \u2264", str),
        relax=Relax(lambda x: f"max_rules_per_group={x}"),
        example_with=_GROUP,
        omit_default=True,
    ),
    Option(
        "group_signs_agree",
        False,
        True,
        v.boolean,
        "bool",
        "within a group all points >= 0 or all <= 0 (see group_reversed)",
        relax=Relax(lambda x: "group_signs_agree"),
        example_with=_GROUP,
        omit_default=True,
    ),
    Option(
        "group_reversed",
        (),
        ("b",),
        v.distinct_names,
        "tuple[str, ...]",
        "members whose points count with the opposite sign in their group",
        names=_named("group_reversed"),
        example_with=_GROUP,
        omit_default=True,
    ),
    # -- the family --------------------------------------------------------------------------------
    Option(
        "loss",
        "zero_one",
        "logistic",
        v.one_of(LOSS_NAMES),
        "str",
        "'zero_one': a decision card (SLIM); 'logistic': a risk card (RiskSLIM's objective)",
        flag=Flag(
            "--loss",
            "zero_one (default): a decision card; logistic: a risk card, with its predicted "
            "risk per score",
            kind="choice",
        ),
        choices=LOSS_NAMES,
        estimator=True,
        omit_default=True,
    ),
    Option(
        "scale",
        True,
        False,
        v.boolean,
        "bool",
        "risk cards: divide the score by a real multiplier m >= 1/2 (False: m = 1)",
        flag=Flag(
            "--no-scale",
            "risk cards: no real multiplier (risk = 1/(1+exp(-score)), RiskSLIM's model)",
            kind="switch",
            const=False,
        ),
        refused=(Refusal("zero_one", "scale applies to risk cards only (loss='logistic')"),),
        example_with={"loss": "logistic"},
        estimator=True,
        omit_default=True,
    ),
    # -- the solver --------------------------------------------------------------------------------
    Option(
        "time_limit",
        DEFAULT_TIME_LIMIT,
        5.0,
        v.optional(v.positive("or None for no limit")),
        "float | None",
        f"seconds the fit may run, choosing the size included ({DEFAULT_TIME_LIMIT:g} s "
        "unless given; None: no limit, until proven)",
        words=Words("limit", lambda x: "none, until proven" if x is None else f"{x:g} s"),
        flag=Flag(
            "--time-limit",
            "stop after SECONDS and print the best card found, with what is proven about "
            "it; Ctrl-C stops earlier the same way (status 'interrupted', exit code 130)",
            "SECONDS",
            parse=text_number,
            group="solver",
        ),
        estimator=True,
    ),
    Option(
        "gap",
        0.0,
        0.01,
        v.gap,
        "float",
        "relative optimality gap at which the solver may stop",
        flag=Flag(
            "--gap",
            "stop when the relative optimality gap is at most FRACTION (default: 0, prove "
            "optimality)",
            "FRACTION",
            parse=text_number,
            group="solver",
        ),
        estimator=True,
    ),
    Option("threads", 1, 2, v.whole(1), "int", "solver threads", estimator=True),
    Option(
        "solver",
        "auto",
        "highs",
        v.one_of(SOLVERS),
        "str",
        "how to solve: 'auto' (enumerate small boxes, else HiGHS), 'highs', 'cbc', 'enumerate', "
        "'scan' or 'pulp' (the program through PuLP, with the solver pulp_solver names)",
        flag=Flag(
            "--solver",
            "auto (default): enumerate small boxes, else HiGHS",
            kind="choice",
            group="solver",
        ),
        refused=(
            Refusal(
                _RISK,
                "CBC runs here as a separate program (through PuLP) on one fixed model per run, "
                "while a risk card's bound adds tangent planes to a live HiGHS model between "
                "solves; use solver='highs' or 'enumerate'",
                "cbc",
            ),
            Refusal(
                _RISK,
                "the support scan bounds the number of misclassified rows per support, a bound "
                "on the 0-1 loss only; use solver='highs' or 'enumerate'",
                "scan",
            ),
            Refusal(
                _RISK,
                "a risk card's loss is not linear: its bound adds tangent planes to a live HiGHS "
                "model between solves, which no PuLP program of one fixed model holds; use "
                "solver='highs' or 'enumerate'",
                "pulp",
            ),
        ),
        choices=SOLVERS,
        estimator=True,
    ),
    Option(
        "pulp_solver",
        None,
        "PULP_CBC_CMD",
        _solver_name,
        "str | None",
        "with solver='pulp': the PuLP solver, as pulp.listSolvers() names it ('PULP_CBC_CMD', "
        "'HiGHS', 'GLPK_CMD', ...; None: PuLP's HiGHS when it is there, else its CBC)",
        flag=Flag(
            "--pulp-solver",
            "with --solver pulp: the PuLP solver by name (PULP_CBC_CMD, HiGHS, ...)",
            "NAME",
            parse=str,
            group="solver",
        ),
        omit_default=True,
        example_with={"solver": "pulp"},
    ),
)

#: The rows by name.
OPTION: dict[str, Option] = {row.name: row for row in OPTIONS}

_CALIBRATION_BY_GROUP = (
    "per-group calibration-in-the-large (mean predicted risk in each group within a tolerance "
    "of its observed rate) is not offered: it is not linear in the program. A risk card's "
    "risk is 1 / (1 + exp(-total / m)) with the multiplier m fitted with the points "
    "(scale=True, the default), so the risk of every total moves with m and a group's mean "
    "risk has no linear form. With scale=False (m = 1) it is linear only through one binary "
    "per training row and per total that row can reach (millions on the adult data), too "
    "many for any proof here, and a constraint held by the search alone would be unproven. "
    "Check it after the fit instead: sw.validate(card, X, y, groups=...) gives "
    "calibration-in-the-large in every group"
)
#: Settings users ask for that no card family offers: name -> why (make_spec
#: raises ValueError with it).
NOT_OFFERED: dict[str, str] = {
    "calibration_by_group": _CALIBRATION_BY_GROUP,
    "max_calibration_gap": _CALIBRATION_BY_GROUP,
}


# -- what the table answers ---------------------------------------------------------------------
def named_features(values: Mapping[str, Any]) -> dict[str, list[str]]:
    """The feature names that ``values`` ({option: value}) use, as ``{label: names}``.

    Examples
    --------
    >>> named_features({"signs": {"age": "+"}, "coef_ranges": {"bmi": (0, 2)}, "max_size": 3})
    {'signs': ['age'], 'coef_range': ['bmi']}
    """
    out: dict[str, list[str]] = {}
    for name, value in values.items():
        row = OPTION.get(name)
        if row is not None and row.names is not None and value is not None:
            out.update(row.names(value))
    return out


def refusals(loss: str | None = None) -> dict[str, tuple[str, Refusal]]:
    """What the loss family ``loss`` (None: any) refuses, ``{name: (option, refusal)}``
    in table order.

    Examples
    --------
    >>> list(refusals("zero_one"))
    ['scale']
    """
    return {
        r.name(row.name): (row.name, r)
        for row in OPTIONS
        for r in row.refused
        if loss in (None, r.loss)
    }


def refused_is_set(option: str, refusal: Refusal, value: Any) -> bool:
    """Whether ``value`` of ``option`` is what ``refusal`` refuses."""
    return OPTION[option].is_set(value) if refusal.value is None else value == refusal.value


def flagged() -> list[Option]:
    """The rows with a command-line flag, in table order."""
    return [row for row in OPTIONS if row.flag is not None]


def estimator_options() -> tuple[str, ...]:
    """The options ``SLIMClassifier`` takes as parameters, in table order."""
    return tuple(row.name for row in OPTIONS if row.estimator)


def _rst_literal(value: Any) -> str:
    return f"``{value!r}``"


def options_rst() -> str:
    """The table of options as reStructuredText (the documentation's options page).

    Examples
    --------
    >>> print(options_rst().splitlines()[0])
    .. list-table::
    """
    lines = [
        ".. list-table::",
        "   :header-rows: 1",
        "   :widths: 14 10 12 34 12 18",
        "",
        "   * - option",
        "     - default",
        "     - example",
        "     - meaning",
        "     - command line",
        "     - notes",
    ]
    for row in OPTIONS:
        notes = []
        if row.relax is not None:
            notes.append(
                "relaxed to explain conflicts" + (" (each entry)" if row.relax.each else "")
            )
        if row.names is not None:
            notes.append("names features")
        for r in row.refused:
            notes.append(
                f"refused by loss={r.loss!r}" + ("" if r.value is None else f" when {r.value!r}")
            )
        if row.estimator:
            notes.append("a SLIMClassifier parameter")
        flag = f"``{row.flag.flag}``" if row.flag is not None else ""
        lines += [
            f"   * - ``{row.name}``",
            f"     - {_rst_literal(row.default)}",
            f"     - {_rst_literal(row.example)}",
            f"     - {_rst_meaning(row)}",
            f"     - {flag}",
            f"     - {'; '.join(notes)}",
        ]
    return "\n".join(lines) + "\n"


def _rst_meaning(row: Option) -> str:
    """The row's ``doc`` as reStructuredText: ``|`` and ``*`` escaped, a flag in words literal."""
    meaning = row.doc.replace("|", "\\|").replace("*", "\\*")
    return re.sub(r"(--[\w-]+(?: NAME=\S+)?)", r"``\1``", meaning)


def parameters_section() -> str:
    """The options as a numpydoc ``Parameters`` section: one entry per row, in table order.

    :class:`~slimwidgets.core.spec.Spec` (its fields) and
    :func:`~slimwidgets.core.spec.make_spec` (its keywords) end their docstrings with it.

    Examples
    --------
    >>> print(*parameters_section().splitlines()[:4], sep="\\n")
    Parameters
    ----------
    max_fpr : float | None, default ``None``
        Largest false positive rate on the training data.
    """
    lines = ["Parameters", "----------"]
    for row in OPTIONS:
        lines.append(f"{row.name} : {row.annotation}, default {_rst_literal(row.default)}")
        meaning = _rst_meaning(row)
        sentence = meaning[:1].upper() + meaning[1:] + ("" if meaning.endswith(".") else ".")
        lines += textwrap.wrap(sentence, width=92, initial_indent="    ", subsequent_indent="    ")
    return "\n".join(lines)


def entries(value: Any) -> Iterable[tuple[Any, tuple]]:
    """A mapping's ``(feature, (feature, value))`` or a tuple's ``(index, (item,))`` pairs: the
    key to drop an entry by and the arguments that word it (None, a single value: the key None)."""
    if value is None:
        return []
    if isinstance(value, Mapping):
        return [(k, (k, x)) for k, x in value.items()]
    if not isinstance(
        value, (tuple, list)
    ):  # one value for every entry (a cap in every group): all or nothing
        return [(None, (value,))]
    return [(i, (x,)) for i, x in enumerate(value)]
