"""The problem specification: everything a user asks of a scoring system.

A :class:`Spec` is immutable and JSON-serializable. It is checked twice: on
its own when built (types, ranges, options that contradict each other) and
against a data set's feature names before a solve (unknown names).

Its fields are the rows of the options table (:mod:`slimwidgets.core.options`), which also
says how :func:`make_spec` checks each; the checks that involve several options are here.
"""

from __future__ import annotations

import difflib
import inspect
import json
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, ClassVar

from .by_variable import check_variable_names, check_variable_options, linear_rows, monotone_sign
from .constraints import LogicalConstraint, at_least, at_most, hierarchy, needs
from .family import family_of_loss
from .formatting import plain
from .groups import GROUP_OPTIONS
from .options import (  # noqa: F401 - the constants are part of this module's interface
    DEFAULT_COEF_RANGE,
    DEFAULT_INTERCEPT_RANGE,
    NOT_OFFERED,
    OPTION,
    OPTIONS,
    SOLVERS,
    ZERO_SCORES,
    parameters_section,
    refusals,
    refused_is_set,
)
from .options import named_features as _named_in
from .validators import mapping as _mapping

__all__ = [
    "Spec",
    "LogicalConstraint",
    "needs",
    "at_most",
    "at_least",
    "hierarchy",
    "make_spec",
    "refused_options",
    "set_options",
]

# Options that a spec leaves out of its JSON when at their default (the sec. 7 options and the
# loss family): a plain SLIM spec serializes, and keys caches, as before they existed.
FAMILY_DEFAULTS: dict[str, Any] = {row.name: row.default for row in OPTIONS if row.omit_default}


def _option_fields(cls: type) -> type:
    """Make ``cls`` a frozen dataclass with one field per row of the options table, in its order."""
    annotations = dict(cls.__dict__.get("__annotations__", {}))
    for row in OPTIONS:
        annotations[row.name] = row.annotation
        default = field(default_factory=dict) if isinstance(row.default, Mapping) else row.default
        setattr(cls, row.name, default)
    cls.__annotations__ = annotations
    return dataclass(frozen=True)(cls)


@_option_fields
class Spec:
    """A SLIM problem: objective trade-offs, coefficient sets and operational constraints.

    Build one with :func:`make_spec` (``fit`` does it for you); all fields are
    plain JSON-able values. ``None`` means "automatic" for ``C0``, ``margin`` and
    ``intercept_range`` (a box derived from the data that never binds) and "no
    limit" for the caps. The fields are the rows of the options table
    (:data:`slimwidgets.core.options.OPTIONS`; see :doc:`/api/options`).
    """

    if TYPE_CHECKING:  # a dataclass whose fields are made from the options table
        __dataclass_fields__: ClassVar[dict[str, Any]]

        def __getattr__(self, name: str) -> Any: ...

    # -- serialization ----------------------------------------------------------------
    def to_dict(self) -> dict:
        """The spec as plain JSON values.

        The options the table marks ``omit_default`` (the sec. 7 ones, the loss) appear only
        when set, so a plain SLIM spec serializes (and keys caches) to the same dict whether
        or not those options are known.
        """
        return {
            row.name: plain(getattr(self, row.name))
            for row in OPTIONS
            if not (row.omit_default and getattr(self, row.name) == row.default)
        }

    @classmethod
    def from_dict(cls, d: Mapping) -> Spec:
        """The spec :meth:`to_dict` wrote; unknown fields raise ``ValueError``.

        Parameters
        ----------
        d : dict
            The JSON object :meth:`to_dict` returned.
        """
        if not isinstance(d, Mapping):
            raise ValueError("a spec must be a JSON object")
        unknown = set(d) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"unknown spec fields: {sorted(unknown)}")
        kwargs = dict(d)
        kwargs["constraints"] = [LogicalConstraint.from_dict(c) for c in d.get("constraints", [])]
        return make_spec(**kwargs)

    def key(self) -> str:
        """A canonical string: equal specs have equal keys (for caches)."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    def __hash__(self) -> int:
        return hash(self.key())

    def replace(self, **changes: Any) -> Spec:
        """A new spec with some options changed (validated again).

        Parameters
        ----------
        **changes
            Options to change, by name, as :func:`make_spec` takes them.
        """
        d = self.to_dict()
        d.update(changes)
        d["constraints"] = [
            c if isinstance(c, LogicalConstraint) else LogicalConstraint.from_dict(c)
            for c in d["constraints"]
        ]
        return make_spec(**d)

    # -- checks against data -------------------------------------------------------------
    def named_features(self) -> dict[str, list[str]]:
        """Every option that names features -> the names it uses (those naming any)."""
        return _named_in({row.name: getattr(self, row.name) for row in OPTIONS})

    def check_names(self, feature_names: Sequence[str]) -> None:
        """Raise ``ValueError`` naming any option's feature not in ``feature_names``.

        Parameters
        ----------
        feature_names : sequence of str
            The data's feature names.
        """
        known = set(feature_names)
        for option, names in self.named_features().items():
            unknown = [n for n in names if n not in known]
            if unknown:
                hints = []
                for n in unknown:
                    close = difflib.get_close_matches(n, list(feature_names), n=1)
                    hints.append(f"{n!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
                raise KeyError(f"{option} names unknown features: {', '.join(hints)}")

    def check_data(self, feature_names: Sequence[str], n_samples: int) -> None:
        """Raise ``ValueError`` when the options do not fit the data's features and rows.

        Parameters
        ----------
        feature_names : sequence of str
            The data's feature names.
        n_samples : int
            The number of training rows.
        """
        self.check_names(feature_names)
        check_variable_names(
            self
        )  # monotone names variables; max_cuts_per_variable has cut points to count
        for name, m in self.missing.items():
            if m > n_samples:
                raise ValueError(f"missing[{name!r}] = {m} is more than the {n_samples} rows")
        fixed_used = {f for f, v in self.lock.items() if v != 0} | set(self.require)
        if self.max_size is not None and len(fixed_used) > self.max_size:
            raise ValueError(
                f"max_size={self.max_size} clashes with {len(fixed_used)} features that must be "
                f"used (require/lock): {sorted(fixed_used)}"
            )

    def feature_box(self, name: str) -> tuple[int, int]:
        """Bounds of one coefficient after range, sign, values, lock and tiers.

        Parameters
        ----------
        name : str
            A feature name.
        """
        if name in self.exclude:
            return (0, 0)
        if name in self.lock:
            return (self.lock[name], self.lock[name])
        lo, hi = self.coef_ranges.get(name, self.coef_range)
        if name in self.values:
            lo, hi = max(lo, min(self.values[name])), min(hi, max(self.values[name]))
        for sign in (
            self.signs.get(name),
            monotone_sign(self, name),
        ):  # monotone: a sign per cut rule
            if sign == "+":
                lo = max(lo, 0)
            elif sign == "-":
                hi = min(hi, 0)
        if self.tiers:  # no value lies beyond the last tier
            top = self.tiers[-1][0]
            lo, hi = max(lo, -top), min(hi, top)
        return (lo, hi)


def make_spec(**options: Any) -> Spec:
    """Validate user options into a :class:`Spec`; contradictions raise ``ValueError``.

    Each keyword is a row of the options table, checked as the row says (the page
    :doc:`/api/options` lists them all); the checks that involve several options follow.

    ``coef_range`` is a (low, high) pair for every feature or a mapping feature -> pair
    (features not named keep -10..10); ``coef_ranges`` is the per-feature form used in JSON.
    ``signs`` values are ``"+"`` or ``"-"`` (``"free"`` and ``None`` mean no constraint).
    ``class_weights`` is a (negative, positive) pair, a mapping {label-side: weight} with keys
    ``"negative"``/``"positive"``, or ``"balanced"``.

    ``zero_score``: ``"positive"`` (default) cards predict the positive class iff
    ``score >= threshold`` and are trained with that rule, so every card comes in
    its smallest form; ``"error"`` is the paper's rule (sec. 2.1: a zero total is an
    error for either class, cards predict ``score > threshold``), for its tables.

    Options of the paper's specialized models (sec. 7), all off by default:

    ``tiers``
        PILM's personalized penalty: ``[(10, 0.01), (100, 0.05)]`` makes a
        coefficient with ``|points|`` in 1..10 cost 0.01 and one in 11..100 cost
        0.05; no coefficient goes beyond the last bound. Bounds increase and
        costs never decrease. The first tier's cost plays the role of ``C0``
        (give one or the other); ``penalties[f]`` replaces it for feature f,
        whose higher tiers keep their extra cost over the first.
    ``groups``
        group name -> its member features (disjoint), e.g. the threshold rules
        ``age >= 40``, ``age >= 60`` of one original feature ``age`` (TILM).
    ``group_penalty``, ``rule_penalty``
        a group with k >= 1 members in use costs
        ``group_penalty + rule_penalty * (k - 1)``, on top of the members'
        own ``C0`` (TILM's C_f and C_t; set ``C0=0`` for the paper's TILM).
    ``max_rules_per_group``
        at most this many members of each group in use.
    ``group_signs_agree``
        within each group the points are all >= 0 or all <= 0, where members
        listed in ``group_reversed`` count with the opposite sign (a rule
        ``age < 40`` points the other way from ``age >= 60``; giving both the
        same direction keeps the score monotone in age).

    The loss, i.e. the model family:

    ``loss``
        ``"zero_one"`` (default): a decision card, the weighted share of
        misclassified rows + C0 per feature (SLIM). ``"logistic"``: a risk
        card, the mean logistic loss of the integer score + C0 per feature
        (RiskSLIM's objective; ``C0`` defaults to 1e-6, so cap the size with
        ``max_size``). Risk cards take the same options: constraints on points
        and features, the sec. 7 options, ``gap`` and the caps ``max_fpr`` /
        ``min_tpr``, which hold for the card's decision (positive where the
        predicted risk is at least 50 %, i.e. total >= 0; above 50 % under
        ``zero_score="error"``). ``solver="highs"`` proves bounds with a
        cutting-plane master MIP, ``"enumerate"`` walks the whole box. Options
        it has no use for (``margin``, ``missing``, ``solver="cbc"``, ...) raise
        ``ValueError`` saying why (:func:`refused_options`).
    ``scale``
        risk cards only: the risk is ``1 / (1 + exp(-score / m))`` with a real
        multiplier ``m >= 1/2`` fitted with the points (True, FasterRisk's model:
        points in -5..5 then express weights finer than whole logit units,
        which ranks and calibrates better), or ``m = 1`` (False, RiskSLIM's).

    Group caps and gaps (``max_fpr_by_group``, ..., :mod:`slimwidgets.core.groups`): both families
    (a risk card's at total >= 0, as ``max_fpr``); ``linear`` rows
    (:func:`slimwidgets.formulate`): decision cards.

    Examples
    --------
    >>> make_spec(max_size=3, signs={"age": "+"}).max_size
    3
    >>> make_spec(loss="logistic", max_size=5, coef_range=(-5, 5)).loss
    'logistic'
    """
    _reject_unknown(options)
    options = _coef_range_per_feature(options)
    spec = Spec(
        **{row.name: row.check(options.get(row.name, row.default), row.name) for row in OPTIONS}
    )
    _check_together(spec)
    _check_contradictions(spec)
    _check_loss(spec)
    return spec


def _reject_unknown(options: dict[str, Any]) -> None:
    """A keyword that names no option is a ``TypeError``, with the nearest option's name."""
    unknown = [name for name in options if name not in OPTION]
    if unknown and unknown[0] in NOT_OFFERED:  # asked for often, and refused with the reason
        raise ValueError(f"{unknown[0]}: {NOT_OFFERED[unknown[0]]}")
    if unknown:
        close = difflib.get_close_matches(unknown[0], list(OPTION), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise TypeError(f"make_spec() got an unexpected keyword argument {unknown[0]!r}{hint}")


Spec.__doc__ = f"{Spec.__doc__}\n{textwrap.indent(parameters_section(), '    ')}\n"
make_spec.__doc__ = (make_spec.__doc__ or "").replace(
    "\n    Examples\n", f"\n{textwrap.indent(parameters_section(), '    ')}\n\n    Examples\n", 1
)

# make_spec takes every option of the table as a keyword, with its default
# (help() and the docs say so)
make_spec.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
    [
        inspect.Parameter(
            row.name,
            inspect.Parameter.KEYWORD_ONLY,
            default=row.signature_default,
            annotation=row.annotation,
        )
        for row in OPTIONS
    ],
    return_annotation="Spec",
)


def _coef_range_per_feature(options: dict[str, Any]) -> dict[str, Any]:
    """``coef_range`` given as a mapping feature -> pair is the per-feature
    form, ``coef_ranges``."""
    if not isinstance(options.get("coef_range"), Mapping):
        return options
    per_feature = dict(_mapping(options.get("coef_ranges"), "coef_ranges"))
    per_feature.update(_mapping(options["coef_range"], "coef_range"))
    return {**options, "coef_range": DEFAULT_COEF_RANGE, "coef_ranges": per_feature}


def _check_together(spec: Spec) -> None:
    """The sec. 7 options that only make sense with others."""
    if spec.tiers and spec.C0 is not None:
        raise ValueError(
            "give C0 or tiers, not both: the first tier's cost is the cost of using a feature"
        )
    owner = {n for members in spec.groups.values() for n in members}
    stray = [n for n in spec.group_reversed if n not in owner]
    if stray:
        raise ValueError(f"group_reversed names features in no group: {stray}")
    if not spec.groups and (
        spec.group_penalty
        or spec.rule_penalty
        or spec.max_rules_per_group is not None
        or spec.group_signs_agree
    ):
        raise ValueError(
            "group_penalty, rule_penalty, max_rules_per_group and group_signs_agree need groups"
        )
    if spec.pulp_solver is not None and spec.solver != "pulp":
        raise ValueError(
            f"pulp_solver={spec.pulp_solver!r} names the solver of solver='pulp' (got "
            f"solver={spec.solver!r})"
        )
    check_variable_options(spec)  # settings by variable
    _check_group_solver(spec)


def _check_group_solver(spec: Spec) -> None:
    """Solvers that cannot hold rows per group (or the user's linear rows) are refused, not
    silently used."""
    grouped = (
        any(getattr(spec, k) is not None for k in GROUP_OPTIONS)
        and not family_of_loss(spec.loss).search_holds_groups
    )  # the risk walk holds them
    if (grouped or linear_rows(spec)) and spec.solver in ("enumerate", "scan"):
        raise ValueError(
            f"solver={spec.solver!r} cannot hold group constraints, linear constraints or "
            "monotone across rules that share a cut (its compiled loops count errors per class "
            "and know no other rows); use solver='auto', which proves by the support scan "
            "where the scan holds them (group rows on 0/1 columns, rows on use) and by the MIP "
            "elsewhere, or 'highs', 'cbc' or 'pulp'"
        )


#: Why a risk card (``loss="logistic"``) has no use for an option: option -> the reason (from the
#: options table's refusals).
RISK_REFUSALS: dict[str, str] = {name: r.reason for name, (_, r) in refusals("logistic").items()}


def refused_options(spec: Spec) -> list[str]:
    """The options (or option values) that the loss family of ``spec`` refuses, whether
    ``spec`` sets them or not: what a form should not offer for this family.

    Decision cards refuse only ``scale`` (risk cards only); risk cards refuse those in
    :data:`RISK_REFUSALS`, each for the reason given there. :func:`make_spec` raises
    ``ValueError`` for any of them that a spec sets (:func:`set_options` says which).

    Examples
    --------
    >>> refused_options(Spec(loss="logistic"))  # doctest: +NORMALIZE_WHITESPACE
    ['linear', 'margin', 'missing', "solver='cbc'", "solver='scan'", "solver='pulp'"]
    >>> refused_options(Spec())
    ['scale']
    """
    return list(refusals(spec.loss))


def set_options(spec: Spec, names: Iterable[str]) -> dict[str, str]:
    """Which of ``names`` (as :func:`refused_options` spells them) ``spec`` sets, as
    ``{Spec field: name}`` (the field to reset when setting the option aside).

    Examples
    --------
    >>> set_options(Spec(loss="logistic", margin=0.5), refused_options(Spec(loss="logistic")))
    {'margin': 'margin'}
    >>> set_options(Spec(loss="logistic", solver="cbc"), refused_options(Spec(loss="logistic")))
    {'solver': "solver='cbc'"}
    """
    every = refusals()
    return {every[n][0]: n for n in names if refused_is_set(*every[n], getattr(spec, every[n][0]))}


def _check_loss(spec: Spec) -> None:
    """Options the chosen loss cannot honour are refused, never silently dropped."""
    refused = list(set_options(spec, refused_options(spec)).values())
    if not refused:
        return
    reasons, family = refusals(spec.loss), family_of_loss(spec.loss)
    said = "; ".join(f"{name}: {reasons[name][1].reason}" for name in refused)
    raise ValueError(
        f"{family.name} cards (loss={family.loss_name!r}) have no use for "
        f"{', '.join(refused)}. {said}."
    )


def _check_contradictions(spec: Spec) -> None:
    """Options that can never hold together, caught before any solve."""
    excluded = set(spec.exclude)
    both = excluded & set(spec.require)
    if both:
        raise ValueError(f"features both excluded and required: {sorted(both)}")
    for name, v in spec.lock.items():
        if name in excluded and v != 0:
            raise ValueError(f"{name!r} is excluded but locked at {v} points")
        if name in spec.require and v == 0:
            raise ValueError(f"{name!r} is required but locked at 0 points")
        sign = spec.signs.get(name)
        if (sign == "+" and v < 0) or (sign == "-" and v > 0):
            raise ValueError(f"{name!r} has sign {sign!r} but is locked at {v} points")
        if name in spec.values and v not in spec.values[name]:
            raise ValueError(
                f"{name!r} is locked at {v}, which is not among its allowed values "
                f"{list(spec.values[name])}"
            )
        lo, hi = spec.coef_ranges.get(name, spec.coef_range)
        if not lo <= v <= hi:
            raise ValueError(f"{name!r} is locked at {v}, outside its points range {lo}..{hi}")
        if spec.tiers and abs(v) > spec.tiers[-1][0]:
            raise ValueError(
                f"{name!r} is locked at {v}, beyond the last tier (|points| <= {spec.tiers[-1][0]})"
            )
    for name in (
        set(spec.signs) | set(spec.values) | set(spec.coef_ranges) | excluded | set(spec.require)
    ):
        if name in spec.lock:
            continue
        lo, hi = spec.coef_ranges.get(name, spec.coef_range)
        allowed = [v for v in spec.values.get(name, range(lo, hi + 1)) if lo <= v <= hi]
        sign = spec.signs.get(name)
        if sign == "+":
            allowed = [v for v in allowed if v >= 0]
        elif sign == "-":
            allowed = [v for v in allowed if v <= 0]
        if spec.tiers:
            allowed = [v for v in allowed if abs(v) <= spec.tiers[-1][0]]
        reason = (
            f"range {lo}..{hi}"
            + (f", sign {sign!r}" if sign else "")
            + (f", values {list(spec.values[name])}" if name in spec.values else "")
            + (f", tiers up to {spec.tiers[-1][0]}" if spec.tiers else "")
        )
        if not allowed:
            raise ValueError(f"{name!r} has no allowed points value ({reason})")
        if name in excluded and 0 not in allowed:
            raise ValueError(f"{name!r} is excluded, but 0 points is not allowed by its {reason}")
        if name in spec.require and not any(v != 0 for v in allowed):
            raise ValueError(f"{name!r} is required, but only 0 points is allowed by its {reason}")
    if spec.max_size is not None and len(set(spec.require)) > spec.max_size:
        raise ValueError(
            f"max_size={spec.max_size} but {len(set(spec.require))} features are required"
        )
    reversed_ = set(spec.group_reversed)
    for g, members in spec.groups.items():
        used = [n for n in members if n in spec.require or spec.lock.get(n, 0) != 0]
        if spec.max_rules_per_group is not None and len(used) > spec.max_rules_per_group:
            raise ValueError(
                f"max_rules_per_group={spec.max_rules_per_group} but group {g!r} must use "
                f"{len(used)} features (require/lock): {used}"
            )
        if spec.group_signs_agree:
            oriented = {
                (-1 if n in reversed_ else 1) * spec.lock[n] > 0
                for n in members
                if spec.lock.get(n, 0) != 0
            }
            if len(oriented) > 1:
                raise ValueError(f"group {g!r} must agree in sign, but its locked points disagree")
