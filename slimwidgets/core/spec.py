"""The problem specification: everything a user asks of a scoring system.

A :class:`Spec` is immutable and JSON-serializable. It is checked twice: on
its own when built (types, ranges, options that contradict each other) and
against a data set's feature names before a solve (unknown names).
"""

from __future__ import annotations

import difflib
import json
import math
import numbers
from dataclasses import dataclass, field, fields
from typing import Any, Iterable, Mapping, Sequence

__all__ = ["Spec", "LogicalConstraint", "needs", "at_most", "at_least", "hierarchy", "make_spec", "refused_options", "set_options"]

SOLVERS = ("auto", "highs", "cbc", "enumerate", "scan")
# Defaults of the options for the paper's specialized models (sec. 7): a spec that leaves
# them all here is plain SLIM, and serializes without them.
FAMILY_DEFAULTS: dict[str, Any] = {
    "tiers": (), "groups": {}, "group_penalty": 0.0, "rule_penalty": 0.0,
    "max_rules_per_group": None, "group_signs_agree": False, "group_reversed": (),
    # the loss family (decision cards by default); like the sec. 7 options, serialized only when set
    "loss": "zero_one", "scale": True,
}
# -- group fairness (issue 22): BEGIN spec block, see core/groups.py ----------------------------
from .groups import GROUP_OPTIONS, normalize_group_options  # noqa: E402
from .linear import LinearRow, normalize_linear  # noqa: E402  (constraints written in PuLP)

FAMILY_DEFAULTS.update(GROUP_OPTIONS)  # serialized only when set, like the sec. 7 options
FAMILY_DEFAULTS["linear"] = ()
# -- group fairness: END ------------------------------------------------------------------------
DEFAULT_COEF_RANGE = (-10, 10)
# None: the intercept box is derived from the data and the points boxes, wide enough that it
# never binds (see formulation.intercept_box); a box the user sets may bind, and the card says so.
DEFAULT_INTERCEPT_RANGE = None
#: What a total exactly at the threshold predicts. "positive": the card predicts the positive
#: class iff score >= threshold, and training uses exactly that rule (the default: every card
#: in its smallest form). "error": the paper's convention (sec. 2.1), where a total of zero
#: (score - threshold = 0) is an error whatever the class, so cards predict score > threshold.
ZERO_SCORES = ("positive", "error")


@dataclass(frozen=True)
class LogicalConstraint:
    """A constraint on which features a card uses (the paper's section 3, on the alpha_j).

    kinds: ``"needs"`` (every feature in ``features`` may be used only if every
    feature in ``targets`` is used: if-then and hierarchy), ``"at_most"`` and
    ``"at_least"`` (``k`` of ``features`` used).
    """

    kind: str
    features: tuple[str, ...]
    targets: tuple[str, ...] = ()
    k: int = 0

    def __post_init__(self) -> None:
        if self.kind not in ("needs", "at_most", "at_least"):
            raise ValueError(f"unknown constraint kind {self.kind!r}; use needs, at_most or at_least")
        if not self.features or not all(isinstance(f, str) for f in self.features):
            raise ValueError(f"constraint {self.kind!r} needs a non-empty list of feature names")
        if self.kind == "needs":
            if not self.targets or not all(isinstance(f, str) for f in self.targets):
                raise ValueError("a 'needs' constraint needs the feature(s) it depends on")
            if set(self.features) & set(self.targets):
                raise ValueError(f"a feature cannot need itself: {sorted(set(self.features) & set(self.targets))}")
        else:
            if not isinstance(self.k, numbers.Integral) or isinstance(self.k, bool) or self.k < 0:
                raise ValueError(f"{self.kind} needs a whole number k >= 0, got {self.k!r}")
            if self.kind == "at_least" and self.k > len(self.features):
                raise ValueError(f"at_least {self.k} of {len(self.features)} features can never hold")

    def describe(self) -> str:
        if self.kind == "needs":
            return f"{' / '.join(self.features)} needs {' and '.join(self.targets)}"
        word = "at most" if self.kind == "at_most" else "at least"
        return f"{word} {self.k} of {', '.join(self.features)}"

    def to_dict(self) -> dict:
        out: dict[str, Any] = {"kind": self.kind, "features": list(self.features)}
        if self.kind == "needs":
            out["targets"] = list(self.targets)
        else:
            out["k"] = int(self.k)
        return out

    @classmethod
    def from_dict(cls, d: Mapping) -> "LogicalConstraint":
        if not isinstance(d, Mapping) or "kind" not in d or "features" not in d:
            raise ValueError(f"a constraint must be a mapping with 'kind' and 'features', got {d!r}")
        return cls(
            kind=str(d["kind"]),
            features=_names(d["features"], "constraint features"),
            targets=_names(d.get("targets", ()), "constraint targets"),
            k=d.get("k", 0),
        )


def _names(value: Any, what: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    try:
        items = tuple(value)
    except TypeError:
        raise TypeError(f"{what} must be a feature name or a list of names, got {value!r}") from None
    if not all(isinstance(v, str) for v in items):
        raise TypeError(f"{what} must be feature names (strings), got {items!r}")
    return items


def needs(features: str | Sequence[str], targets: str | Sequence[str]) -> LogicalConstraint:
    """If any of ``features`` is used, all of ``targets`` must be used (if-then).

    Examples
    --------
    >>> needs(["heart_attack", "hypertension"], "stroke").describe()
    'heart_attack / hypertension needs stroke'
    """
    return LogicalConstraint("needs", _names(features, "features"), _names(targets, "targets"))


def hierarchy(leaf: str, nodes: str | Sequence[str]) -> LogicalConstraint:
    """A leaf feature may be used only when every node above it is used."""
    return needs(leaf, nodes)


def at_most(k: int, features: Sequence[str]) -> LogicalConstraint:
    """Use at most ``k`` of ``features`` (e.g. one of several correlated tests)."""
    return LogicalConstraint("at_most", _names(features, "features"), k=k)


def at_least(k: int, features: Sequence[str]) -> LogicalConstraint:
    """Use at least ``k`` of ``features``."""
    return LogicalConstraint("at_least", _names(features, "features"), k=k)


@dataclass(frozen=True)
class Spec:
    """A SLIM problem: objective trade-offs, coefficient sets and operational constraints.

    Build one with :func:`make_spec` (``fit`` does it for you); all fields are
    plain JSON-able values. ``None`` means "automatic" for ``C0``, ``margin`` and
    ``intercept_range`` (a box derived from the data that never binds) and "no
    limit" for the caps.
    """

    C0: float | None = None
    max_size: int | None = None
    max_fpr: float | None = None
    min_tpr: float | None = None
    signs: Mapping[str, str] = field(default_factory=dict)
    penalties: Mapping[str, float] = field(default_factory=dict)
    exclude: tuple[str, ...] = ()
    require: tuple[str, ...] = ()
    coef_range: tuple[int, int] = DEFAULT_COEF_RANGE
    coef_ranges: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    intercept_range: tuple[int, int] | None = DEFAULT_INTERCEPT_RANGE
    values: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    lock: Mapping[str, int] = field(default_factory=dict)
    constraints: tuple[LogicalConstraint, ...] = ()
    class_weights: tuple[float, float] | str | None = None  # (negative, positive) or "balanced"
    missing: Mapping[str, int] = field(default_factory=dict)
    margin: float | None = None
    zero_score: str = "positive"  # see ZERO_SCORES
    time_limit: float | None = None
    gap: float = 0.0
    threads: int = 1
    solver: str = "auto"
    # -- the specialized models of the paper's sec. 7 (PILM, TILM); off by default -------------
    tiers: tuple[tuple[int, float], ...] = ()  # (largest |points| of the tier, cost of a value in it)
    groups: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # group -> member features
    group_penalty: float = 0.0  # cost of every group with at least one member used
    rule_penalty: float = 0.0  # cost of every used member of a group beyond its first
    max_rules_per_group: int | None = None
    group_signs_agree: bool = False  # within a group all points >= 0 or all <= 0 (see group_reversed)
    group_reversed: tuple[str, ...] = ()  # members whose points count with the opposite sign there
    # -- the loss: "zero_one" (decision cards) or "logistic" (risk cards) ------------------------
    loss: str = "zero_one"
    scale: bool = True  # risk cards: divide the score by a real multiplier m >= 1/2 (False: m = 1)
    # -- group fairness (issue 22): BEGIN fields; the group column lives in the Dataset --------
    max_fpr_by_group: float | Mapping[str, float] | None = None  # FPR cap in every group, or per group
    min_tpr_by_group: float | Mapping[str, float] | None = None  # TPR floor in every group, or per group
    max_fpr_gap: float | None = None  # largest FPR difference between any two groups
    max_tpr_gap: float | None = None  # largest TPR difference between any two groups
    linear: tuple[LinearRow, ...] = ()  # the user's own rows on points / use (sw.formulate, core/linear.py)
    # -- group fairness: END ---------------------------------------------------------------------

    # -- serialization ----------------------------------------------------------------
    def to_dict(self) -> dict:
        """Plain JSON values. The sec. 7 options appear only when set, so a plain SLIM
        spec serializes (and keys caches) exactly as it did before they existed."""
        out: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name in FAMILY_DEFAULTS and v == FAMILY_DEFAULTS[f.name]:
                continue
            if f.name == "tiers":
                v = [[int(b), float(c)] for b, c in v]
            elif f.name in ("constraints", "linear"):  # linear: issue 22
                v = [c.to_dict() for c in v]
            elif isinstance(v, Mapping):
                v = {k: (list(x) if isinstance(x, tuple) else x) for k, x in v.items()}
            elif isinstance(v, tuple):
                v = list(v)
            out[f.name] = v
        return out

    @classmethod
    def from_dict(cls, d: Mapping) -> "Spec":
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

    def replace(self, **changes: Any) -> "Spec":
        """A new spec with some options changed (validated again)."""
        d = self.to_dict()
        d.update(changes)
        d["constraints"] = [c if isinstance(c, LogicalConstraint) else LogicalConstraint.from_dict(c) for c in d["constraints"]]
        return make_spec(**d)

    # -- checks against data -------------------------------------------------------------
    def named_features(self) -> dict[str, list[str]]:
        """Every option that names features -> the names it uses."""
        named = {
            "signs": list(self.signs),
            "penalties": list(self.penalties),
            "exclude": list(self.exclude),
            "require": list(self.require),
            "coef_range": list(self.coef_ranges),
            "values": list(self.values),
            "lock": list(self.lock),
            "missing": list(self.missing),
        }
        for i, c in enumerate(self.constraints):
            named[f"constraints[{i}]"] = list(c.features) + list(c.targets)
        if self.groups:
            named["groups"] = [n for members in self.groups.values() for n in members]
        if self.group_reversed:
            named["group_reversed"] = list(self.group_reversed)
        for i, row in enumerate(self.linear):  # issue 22
            named[f"linear[{i}]"] = [f for _, f, _ in row.terms]
        return named

    def check_names(self, feature_names: Sequence[str]) -> None:
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
        self.check_names(feature_names)
        for name, m in self.missing.items():
            if m > n_samples:
                raise ValueError(f"missing[{name!r}] = {m} is more than the {n_samples} rows")
        fixed_used = {f for f, v in self.lock.items() if v != 0} | set(self.require)
        if self.max_size is not None and len(fixed_used) > self.max_size:
            raise ValueError(
                f"max_size={self.max_size} clashes with {len(fixed_used)} features that must be used "
                f"(require/lock): {sorted(fixed_used)}"
            )

    def feature_box(self, name: str) -> tuple[int, int]:
        """Bounds of one coefficient after range, sign, values, lock and tiers."""
        if name in self.exclude:
            return (0, 0)
        if name in self.lock:
            return (self.lock[name], self.lock[name])
        lo, hi = self.coef_ranges.get(name, self.coef_range)
        if name in self.values:
            lo, hi = max(lo, min(self.values[name])), min(hi, max(self.values[name]))
        sign = self.signs.get(name)
        if sign == "+":
            lo = max(lo, 0)
        elif sign == "-":
            hi = min(hi, 0)
        if self.tiers:  # no value lies beyond the last tier
            top = self.tiers[-1][0]
            lo, hi = max(lo, -top), min(hi, top)
        return (lo, hi)


def _int_pair(value: Any, what: str) -> tuple[int, int]:
    try:
        lo, hi = value
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be a (low, high) pair of integers, got {value!r}") from None
    for v in (lo, hi):
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or v != int(v):
            raise TypeError(f"{what} must hold integers, got {value!r}")
    lo, hi = int(lo), int(hi)
    if lo > hi:
        raise ValueError(f"{what} is empty: low {lo} > high {hi}")
    return lo, hi


def _fraction(value: Any, what: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= float(value) <= 1:
        raise ValueError(f"{what} must be a number in [0, 1], got {value!r}")
    return float(value)


def _nonneg(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or value < 0:
        raise ValueError(f"{what} must be a finite number >= 0, got {value!r}")
    return float(value)


def _mapping(value: Any, what: str) -> Mapping:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise TypeError(f"{what} must be a mapping feature -> value, got {type(value).__name__}")
    for k in value:
        if not isinstance(k, str):
            raise TypeError(f"{what} keys must be feature names (strings), got {k!r}")
    return value


def _integer(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value != int(value):
        raise TypeError(f"{what} must be an integer, got {value!r}")
    return int(value)


def make_spec(
    *,
    C0: float | None = None,
    max_size: int | None = None,
    max_fpr: float | None = None,
    min_tpr: float | None = None,
    signs: Mapping[str, str] | None = None,
    penalties: Mapping[str, float] | None = None,
    exclude: Iterable[str] = (),
    require: Iterable[str] = (),
    coef_range: Any = DEFAULT_COEF_RANGE,
    coef_ranges: Mapping[str, Any] | None = None,
    intercept_range: Any = DEFAULT_INTERCEPT_RANGE,
    values: Mapping[str, Iterable[int]] | None = None,
    lock: Mapping[str, int] | None = None,
    constraints: Iterable[LogicalConstraint | Mapping] = (),
    class_weights: Any = None,
    missing: Mapping[str, int] | None = None,
    margin: float | None = None,
    zero_score: str = "positive",
    time_limit: float | None = None,
    gap: float = 0.0,
    threads: int = 1,
    solver: str = "auto",
    tiers: Iterable[Any] | None = None,
    groups: Mapping[str, Iterable[str]] | None = None,
    group_penalty: float = 0.0,
    rule_penalty: float = 0.0,
    max_rules_per_group: int | None = None,
    group_signs_agree: bool = False,
    group_reversed: Iterable[str] = (),
    loss: str = "zero_one",
    scale: bool = True,
    # -- group fairness (issue 22): BEGIN make_spec parameters --------------------------------
    max_fpr_by_group: float | Mapping[str, float] | None = None,
    min_tpr_by_group: float | Mapping[str, float] | None = None,
    max_fpr_gap: float | None = None,
    max_tpr_gap: float | None = None,
    linear: Any = (),
    # -- group fairness: END ---------------------------------------------------------------------
) -> Spec:
    """Validate user options into a :class:`Spec`; contradictions raise ``ValueError``.

    ``coef_range`` is a (low, high) pair for every feature or a mapping
    feature -> pair (features not named keep -10..10); ``coef_ranges`` is the
    per-feature form used in JSON. ``signs`` values are ``"+"`` or ``"-"``
    (``"free"`` and ``None`` mean no constraint). ``class_weights`` is a
    (negative, positive) pair, a mapping {label-side: weight} with keys
    ``"negative"``/``"positive"``, or ``"balanced"``.

    ``zero_score`` says what a total exactly at the threshold predicts:
    ``"positive"`` (default) gives cards that predict the positive class iff
    ``score >= threshold``, trained with exactly that rule (positives need
    ``score >= threshold``, negatives ``score <= threshold - 1`` on integer
    data), so every card comes in its smallest form. ``"error"`` is the
    paper's convention (sec. 2.1): a total of zero counts as an error for
    either class and cards predict ``score > threshold``; use it to
    reproduce the paper's tables.

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
        with no meaning for the logistic loss (``margin``, ``missing``,
        ``solver="cbc"`` and ``"scan"``) raise ``ValueError`` saying why (see
        :func:`refused_options`).
    ``scale``
        risk cards only: the risk is ``1 / (1 + exp(-score / m))`` with a real
        multiplier ``m >= 1/2`` fitted with the points (True, FasterRisk's model:
        points in -5..5 then express weights finer than whole logit units,
        which ranks and calibrates better), or ``m = 1`` (False, RiskSLIM's).

    Group fairness (with ``sensitive_features=`` given to ``fit``; see
    :mod:`slimwidgets.core.groups`): ``max_fpr_by_group`` / ``min_tpr_by_group``
    (a number for every group, or ``{group: number}``), ``max_fpr_gap`` /
    ``max_tpr_gap`` (the largest difference between any two groups' rates).
    Decision cards only. ``linear``: the user's own linear rows on points and
    feature use (see :func:`slimwidgets.formulate`; rows or their dicts
    ``{"terms": {"points:a": 1, "used:b": 2}, "upper": 4}``).

    Examples
    --------
    >>> make_spec(max_size=3, signs={"age": "+"}).max_size
    3
    >>> make_spec(loss="logistic", max_size=5, coef_range=(-5, 5)).loss
    'logistic'
    """
    per_feature: dict[str, tuple[int, int]] = {k: _int_pair(v, f"coef_range[{k!r}]") for k, v in _mapping(coef_ranges, "coef_ranges").items()}
    if isinstance(coef_range, Mapping):
        per_feature.update({k: _int_pair(v, f"coef_range[{k!r}]") for k, v in _mapping(coef_range, "coef_range").items()})
        coef_range = DEFAULT_COEF_RANGE
    coef_range = _int_pair(coef_range, "coef_range")
    if intercept_range is not None:
        intercept_range = _int_pair(intercept_range, "intercept_range")

    if C0 is not None:
        C0 = _nonneg(C0, "C0")
    if max_size is not None:
        max_size = _integer(max_size, "max_size")
        if max_size < 0:
            raise ValueError(f"max_size must be >= 0, got {max_size}")
    max_fpr = _fraction(max_fpr, "max_fpr")
    min_tpr = _fraction(min_tpr, "min_tpr")

    norm_signs = _signs(signs)
    norm_pen = {k: _nonneg(v, f"penalties[{k!r}]") for k, v in _mapping(penalties, "penalties").items()}
    exclude = _names(exclude, "exclude")
    require = _names(require, "require")
    norm_values = _value_sets(values)
    norm_lock = {k: _integer(v, f"lock[{k!r}]") for k, v in _mapping(lock, "lock").items()}
    norm_missing = {k: _integer(v, f"missing[{k!r}]") for k, v in _mapping(missing, "missing").items()}
    if any(m < 0 for m in norm_missing.values()):
        raise ValueError("missing counts must be >= 0")
    norm_constraints = tuple(
        c if isinstance(c, LogicalConstraint) else LogicalConstraint.from_dict(c) for c in constraints
    )
    if class_weights is not None:
        class_weights = _class_weights(class_weights)
    if margin is not None:
        margin = _nonneg(margin, "margin")
        if margin == 0:
            raise ValueError("margin must be > 0 (a zero margin would let a zero score count as correct)")
    if zero_score not in ZERO_SCORES:
        raise ValueError(f"zero_score must be one of {ZERO_SCORES}, got {zero_score!r}")
    time_limit, gap, threads = _solver_options(time_limit, gap, threads, solver)

    norm_tiers = _tiers(tiers)
    if norm_tiers and C0 is not None:
        raise ValueError("give C0 or tiers, not both: the first tier's cost is the cost of using a feature")
    norm_groups = _groups(groups)
    owner = {n: g for g, members in norm_groups.items() for n in members}
    group_penalty = _nonneg(group_penalty, "group_penalty")
    rule_penalty = _nonneg(rule_penalty, "rule_penalty")
    if max_rules_per_group is not None:
        max_rules_per_group = _integer(max_rules_per_group, "max_rules_per_group")
        if max_rules_per_group < 1:
            raise ValueError(f"max_rules_per_group must be >= 1, got {max_rules_per_group}")
    if not isinstance(group_signs_agree, bool):
        raise TypeError(f"group_signs_agree must be True or False, got {group_signs_agree!r}")
    group_reversed = _names(group_reversed, "group_reversed")
    stray = [n for n in group_reversed if n not in owner]
    if stray:
        raise ValueError(f"group_reversed names features in no group: {stray}")
    if not norm_groups and (group_penalty or rule_penalty or max_rules_per_group is not None or group_signs_agree):
        raise ValueError("group_penalty, rule_penalty, max_rules_per_group and group_signs_agree need groups")

    spec = Spec(
        C0=C0, max_size=max_size, max_fpr=max_fpr, min_tpr=min_tpr,
        signs=norm_signs, penalties=norm_pen, exclude=exclude, require=require,
        coef_range=coef_range, coef_ranges=per_feature, intercept_range=intercept_range,
        values=norm_values, lock=norm_lock, constraints=norm_constraints,
        class_weights=class_weights, missing=norm_missing, margin=margin,
        zero_score=zero_score, time_limit=time_limit, gap=gap, threads=threads, solver=solver,
        tiers=norm_tiers, groups=norm_groups, group_penalty=group_penalty, rule_penalty=rule_penalty,
        max_rules_per_group=max_rules_per_group, group_signs_agree=group_signs_agree,
        group_reversed=tuple(dict.fromkeys(group_reversed)), loss=loss, scale=scale,
        # -- group fairness (issue 22) --
        **normalize_group_options({"max_fpr_by_group": max_fpr_by_group, "min_tpr_by_group": min_tpr_by_group,
                                   "max_fpr_gap": max_fpr_gap, "max_tpr_gap": max_tpr_gap}, loss),
        linear=normalize_linear(linear),
    )
    _check_contradictions(spec)
    _check_loss(spec)
    return spec


def _signs(signs: Any) -> dict[str, str]:
    """``{feature: "+" or "-"}``; "free" (or None, 0, "") leaves a feature out."""
    out: dict[str, str] = {}
    for k, v in _mapping(signs, "signs").items():
        if v in ("+", 1, "positive", "pos"):
            out[k] = "+"
        elif v in ("-", -1, "negative", "neg"):
            out[k] = "-"
        elif v not in (None, "free", 0, ""):
            raise ValueError(f"signs[{k!r}] must be '+', '-' or 'free', got {v!r}")
    return out


def _value_sets(values: Any) -> dict[str, tuple[int, ...]]:
    """``{feature: sorted distinct allowed points}``, each set non-empty."""
    out: dict[str, tuple[int, ...]] = {}
    for k, v in _mapping(values, "values").items():
        try:
            items = sorted({_integer(x, f"values[{k!r}]") for x in v})
        except TypeError as exc:
            if "must be an integer" in str(exc):
                raise
            raise TypeError(f"values[{k!r}] must be a list of integers, got {v!r}") from None
        if not items:
            raise ValueError(f"values[{k!r}] is empty")
        out[k] = tuple(items)
    return out


def _solver_options(time_limit: Any, gap: Any, threads: Any, solver: Any) -> tuple[float | None, float, int]:
    """The checked time limit, gap and thread count (and a known solver name)."""
    if time_limit is not None:
        time_limit = _nonneg(time_limit, "time_limit")
        if time_limit == 0:
            raise ValueError("time_limit must be > 0 (or None for no limit)")
    gap = _fraction(gap, "gap") or 0.0
    threads = _integer(threads, "threads")
    if threads < 1:
        raise ValueError("threads must be >= 1")
    if solver not in SOLVERS:
        raise ValueError(f"solver must be one of {SOLVERS}, got {solver!r}")
    return time_limit, gap, threads


def _groups(groups: Any) -> dict[str, tuple[str, ...]]:
    """``{group: members}``: non-empty, no feature twice, no feature in two groups."""
    out: dict[str, tuple[str, ...]] = {}
    owner: dict[str, str] = {}
    for g, members in _mapping(groups, "groups").items():
        items = _names(members, f"groups[{g!r}]")
        if not items:
            raise ValueError(f"groups[{g!r}] is empty")
        if len(set(items)) != len(items):
            raise ValueError(f"groups[{g!r}] lists a feature twice")
        for n in items:
            if n in owner:
                raise ValueError(f"{n!r} is in two groups ({owner[n]!r} and {g!r}); groups must be disjoint")
            owner[n] = g
        out[str(g)] = items
    return out


#: Why a risk card (``loss="logistic"``) has no use for an option: option -> the reason.
RISK_REFUSALS: dict[str, str] = {
    "margin": "margin says how far past the threshold a decision card's total must lie for a row to "
              "count as right under the 0-1 loss; the logistic loss prices every total smoothly, and "
              "a risk card decides at its own rule (risk >= 50 %)",
    "missing": "missing charges each row where a used feature is missing as one misclassified row (a "
               "0-1 loss of 1 per row); the logistic loss of such a row depends on its unknown total "
               "and has no such fixed price",
    "solver='cbc'": "CBC runs here as a separate program (through PuLP) on one fixed model per run, "
                    "while a risk card's bound adds tangent planes to a live HiGHS model between "
                    "solves; use solver='highs' or 'enumerate'",
    "solver='scan'": "the support scan bounds the number of misclassified rows per support, a bound "
                     "on the 0-1 loss only; use solver='highs' or 'enumerate'",
}


def refused_options(spec: Spec) -> list[str]:
    """The options (or option values) that the loss family of ``spec`` refuses, whether
    ``spec`` sets them or not: what a form should not offer for this family.

    Decision cards refuse only ``scale`` (risk cards only); risk cards refuse those in
    :data:`RISK_REFUSALS`, each for the reason given there. :func:`make_spec` raises
    ``ValueError`` for any of them that a spec sets (:func:`set_options` says which).

    Examples
    --------
    >>> refused_options(Spec(loss="logistic"))
    ['margin', 'missing', "solver='cbc'", "solver='scan'"]
    >>> refused_options(Spec())
    ['scale']
    """
    return list(RISK_REFUSALS) if spec.loss == "logistic" else ["scale"]


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
    on = {"margin": ("margin", spec.margin is not None), "missing": ("missing", bool(spec.missing)),
          "scale": ("scale", not spec.scale), "solver='cbc'": ("solver", spec.solver == "cbc"),
          "solver='scan'": ("solver", spec.solver == "scan")}
    return {on[name][0]: name for name in names if on[name][1]}


def _check_loss(spec: Spec) -> None:
    """Options the chosen loss cannot honour are refused, never silently dropped."""
    from .losses import LOSSES

    if spec.loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, got {spec.loss!r}")
    if not isinstance(spec.scale, bool):
        raise TypeError(f"scale must be True or False, got {spec.scale!r}")
    refused = list(set_options(spec, refused_options(spec)).values())
    if refused == ["scale"]:
        raise ValueError("scale applies to risk cards only (loss='logistic')")
    if refused:
        reasons = "; ".join(f"{name}: {RISK_REFUSALS[name]}" for name in refused)
        raise ValueError(f"risk cards (loss='logistic') have no use for {', '.join(refused)}. {reasons}.")


def _tiers(value: Any) -> tuple[tuple[int, float], ...]:
    if value is None:
        return ()
    if isinstance(value, (str, bytes, Mapping)):
        raise TypeError(f"tiers must be a list of (largest |points|, cost) pairs, got {value!r}")
    out: list[tuple[int, float]] = []
    for item in value:
        try:
            bound, cost = item
        except (TypeError, ValueError):
            raise TypeError(f"each tier must be a (largest |points|, cost) pair, got {item!r}") from None
        bound = _integer(bound, "a tier's largest |points|")
        cost = _nonneg(cost, "a tier's cost")
        if bound < 1:
            raise ValueError(f"a tier's largest |points| must be >= 1, got {bound}")
        if out and bound <= out[-1][0]:
            raise ValueError(f"tier bounds must increase, got {out[-1][0]} then {bound}")
        if out and cost < out[-1][1]:
            raise ValueError(f"tier costs must not decrease (larger points are less interpretable), got {out[-1][1]} then {cost}")
        out.append((bound, cost))
    return tuple(out)


def _class_weights(value: Any) -> tuple[float, float] | str:
    if isinstance(value, str):
        if value != "balanced":
            raise ValueError(f"class_weights must be 'balanced', a (negative, positive) pair or a mapping, got {value!r}")
        return value
    if isinstance(value, Mapping):
        if set(value) != {"negative", "positive"}:
            raise ValueError("class_weights mapping needs exactly the keys 'negative' and 'positive'")
        value = (value["negative"], value["positive"])
    try:
        neg, pos = value
    except (TypeError, ValueError):
        raise TypeError(f"class_weights must be a (negative, positive) pair, got {value!r}") from None
    neg, pos = _nonneg(neg, "class_weights"), _nonneg(pos, "class_weights")
    if neg == 0 or pos == 0:
        raise ValueError("class weights must be > 0")
    return (neg, pos)


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
            raise ValueError(f"{name!r} is locked at {v}, which is not among its allowed values {list(spec.values[name])}")
        lo, hi = spec.coef_ranges.get(name, spec.coef_range)
        if not lo <= v <= hi:
            raise ValueError(f"{name!r} is locked at {v}, outside its points range {lo}..{hi}")
        if spec.tiers and abs(v) > spec.tiers[-1][0]:
            raise ValueError(f"{name!r} is locked at {v}, beyond the last tier (|points| <= {spec.tiers[-1][0]})")
    for name in set(spec.signs) | set(spec.values) | set(spec.coef_ranges) | excluded | set(spec.require):
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
        reason = f"range {lo}..{hi}" + (f", sign {sign!r}" if sign else "") + (
            f", values {list(spec.values[name])}" if name in spec.values else ""
        ) + (f", tiers up to {spec.tiers[-1][0]}" if spec.tiers else "")
        if not allowed:
            raise ValueError(f"{name!r} has no allowed points value ({reason})")
        if name in excluded and 0 not in allowed:
            raise ValueError(f"{name!r} is excluded, but 0 points is not allowed by its {reason}")
        if name in spec.require and not any(v != 0 for v in allowed):
            raise ValueError(f"{name!r} is required, but only 0 points is allowed by its {reason}")
    if spec.max_size is not None and len(set(spec.require)) > spec.max_size:
        raise ValueError(f"max_size={spec.max_size} but {len(set(spec.require))} features are required")
    reversed_ = set(spec.group_reversed)
    for g, members in spec.groups.items():
        used = [n for n in members if n in spec.require or spec.lock.get(n, 0) != 0]
        if spec.max_rules_per_group is not None and len(used) > spec.max_rules_per_group:
            raise ValueError(f"max_rules_per_group={spec.max_rules_per_group} but group {g!r} must use {len(used)} "
                             f"features (require/lock): {used}")
        if spec.group_signs_agree:
            oriented = {(-1 if n in reversed_ else 1) * spec.lock[n] > 0 for n in members if spec.lock.get(n, 0) != 0}
            if len(oriented) > 1:
                raise ValueError(f"group {g!r} must agree in sign, but its locked points disagree")
