"""Settings that speak of variables: ``max_variables``, ``max_cuts_per_variable``, ``monotone``.

A user thinks in variables (age, BMI, sex); the engine works on 0/1 rules (``age >= 60``,
``bmi missing``, ``sex = F``). A spec's ``variables`` option says which rules read which
variable, and the kind of each rule (``"ge"``: the rule holds at or above its cut, ``"lt"``:
below it; other kinds are levels, ``missing``, ``pass``, or ``"rule"`` for a rule of unknown
kind). :func:`~slimwidgets.fit` fills it from its rule builder; a user with a 0/1 table of their
own may give it. Every setting by variable becomes something the engine already holds exactly,
or one new family of rows:

``max_variables``
    at most K distinct variables in use, a variable being in use when any of its rules carries
    points (a rule in no variable is a variable of its own, so without ``variables`` this is
    ``max_size``). The program gets one binary u_v per variable of two or more rules, with
    ``u_v >= alpha_j`` for each of its rules and ``sum u_v + sum alpha_j (the rest) <= K``;
    the search, the walk and the scan count variables on every support they keep.
``max_cuts_per_variable``
    at most k threshold rules (kinds ``ge``/``lt``) of each variable in use: an ``at_most``
    logical constraint per variable with more than k threshold rules (:func:`support_constraints`),
    which every solver holds already. Levels and ``missing`` rules are not cut points and do not
    count.
``monotone``
    ``{variable: "+"}`` (or ``"-"``): the points of the variable's bands, read from low to high
    values, never fall (never rise). The band points are the sums of the rules that hold there,
    so at each cut c the points step by ``sum of ge-rules at c - sum of lt-rules at c``. With
    cumulative threshold rules (``age >= 50``, ``age >= 60``: what the rule builder makes, one
    rule per cut), the bands are monotone exactly when every ``ge`` rule has points >= 0 (for
    "+") and every ``lt`` rule points <= 0: a sign on each threshold rule, which every solver
    holds (:func:`monotone_sign`, read by ``Spec.feature_box``). Rules that share a cut (band
    rules ``lo <= x < hi``, given as ``["band", lo, hi]``, or thresholds of both directions,
    ``["lt", 2]`` and ``["ge", 2]``) are placed by their edges: a rule steps in (+1) at its
    lower edge and out (-1) at its upper one, and the change of the band points at each cut,
    the sum of the signed points of the rules stepping there, is a linear row (>= 0 for "+",
    <= 0 for "-"; :func:`monotone_steps`, :func:`monotone_rows`). The MIP and the local search
    hold those rows; the walk, the scan and the proof by size do not, so such a spec is
    proven through the MIP (as the user's linear rows are); risk cards refuse it. A
    variable's ``missing`` rule and its levels have no place in the order and are left free.

Examples
--------
>>> from slimwidgets.core.spec import make_spec
>>> age = {"age >= 50": "ge", "age >= 60": "ge", "age missing": "missing"}
>>> spec = make_spec(variables={"age": age}, monotone={"age": "+"}, max_cuts_per_variable=1)
>>> spec.feature_box("age >= 60"), spec.feature_box("age missing")
((0, 10), (-10, 10))
>>> [c.describe() for c in support_constraints(spec)]
['at most 1 of age >= 50, age >= 60']
"""

from __future__ import annotations

import difflib
import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .constraints import LogicalConstraint
from .family import family_of_loss
from .linear import LinearRow
from .validators import mapping, names

__all__ = [
    "variables_map",
    "THRESHOLD_KINDS",
    "INTERVAL_KINDS",
    "kind_name",
    "monotone_steps",
    "monotone_rows",
    "linear_rows",
    "signs_only",
    "variable_of",
    "variable_ids",
    "monotone_sign",
    "support_constraints",
    "check_variable_options",
    "check_variable_names",
    "variable_problems",
    "variables_in_use",
    "most_rules",
]

#: The kinds of threshold rules and the way each points: ``ge`` holds above its cut (+1), ``lt``
#: below it (-1).
THRESHOLD_KINDS = {"ge": 1, "lt": -1}
#: Kinds a rule of a variable may have ("rule": a 0/1 rule of unknown kind, never a threshold;
#: "band": ``lo <= x < hi``, given with its edges).
RULE_KINDS = ("ge", "lt", "eq", "other", "is", "missing", "pass", "rule", "band")
#: The kinds whose rules hold on an interval of the variable's values: what ``monotone`` orders.
INTERVAL_KINDS = ("ge", "lt", "band")


def kind_name(kind: Any) -> str:
    """The kind of a rule without its edges: ``("ge", 50.0)`` -> ``"ge"``, ``"ge"`` -> ``"ge"``."""
    return kind[0] if isinstance(kind, tuple) else kind


def _edges(kind: Any) -> tuple[float | None, float | None] | None:
    """The interval ``[lo, hi)`` a rule holds on (None: an open end), or None when its kind
    gives no edges (a plain "ge"/"lt", or no interval rule)."""
    if not isinstance(kind, tuple):
        return None
    if kind[0] == "ge":
        return (kind[1], None)
    if kind[0] == "lt":
        return (None, kind[1])
    return (kind[1], kind[2])


def _kind(rule: str, kind: Any, what: str) -> Any:
    """A kind as given (a name, or ``["ge", cut]``, ``["lt", cut]``, ``["band", lo, hi]`` with
    None for an open end), checked: a name, or a tuple of the name and its edges."""
    if isinstance(kind, str):
        if kind == "band":
            raise ValueError(f"{what}: band rule {rule!r} needs its edges, as ['band', lo, hi]")
        return kind
    parts = list(kind) if isinstance(kind, (list, tuple)) else [kind]
    name, edges = (parts[0], parts[1:]) if parts else (None, [])
    numbers_ok = all(
        e is None or (isinstance(e, numbers.Real) and not isinstance(e, bool) and math.isfinite(e))
        for e in edges
    )
    if name in ("ge", "lt"):
        ok = len(edges) == 1 and numbers_ok and edges[0] is not None
    elif name == "band":  # lo < hi, at most one end open
        ok = (
            len(edges) == 2
            and numbers_ok
            and edges != [None, None]
            and (None in edges or edges[0] < edges[1])
        )
    else:
        ok = False
    if not ok:
        raise ValueError(
            f"{what}: rule {rule!r} has a kind {kind!r}; with edges a kind is ['ge', cut], "
            "['lt', cut] or ['band', lo, hi] (lo < hi, None for an open end)"
        )
    return (name, *(None if e is None else float(e) for e in edges))


def variables_map(value: Any, what: str) -> dict[str, dict[str, str]]:
    """``{variable: {rule: kind}}``; a list of rule names gives each the kind ``"rule"``. No
    rule in two variables."""
    out: dict[str, dict[str, str]] = {}
    owner: dict[str, str] = {}
    for var, rules in mapping(value, what).items():
        if isinstance(rules, Mapping):
            kinds = {str(r): _kind(str(r), k, f"{what}[{var!r}]") for r, k in rules.items()}
        else:
            kinds = {r: "rule" for r in names(rules, f"{what}[{var!r}]")}
        if not kinds:
            raise ValueError(f"{what}[{var!r}] has no rules")
        for rule, kind in kinds.items():
            if kind_name(kind) not in RULE_KINDS:
                raise ValueError(
                    f"{what}[{var!r}]: rule {rule!r} has an unknown kind {kind!r} "
                    f"(one of {', '.join(RULE_KINDS)})"
                )
            if rule in owner:
                raise ValueError(f"rule {rule!r} is in two variables ({owner[rule]!r} and {var!r})")
            owner[rule] = str(var)
        out[str(var)] = kinds
    return out


def variable_of(spec: Any) -> dict[str, str]:
    """Rule -> its variable (rules in no variable are left out)."""
    return {rule: var for var, kinds in spec.variables.items() for rule in kinds}


def variable_ids(spec: Any, feature_names: Sequence[str]) -> np.ndarray:
    """Per feature, a whole number naming its variable; a feature in no variable has one of its
    own. Two features share a number exactly when they read the same variable.

    >>> from slimwidgets.core.spec import make_spec
    >>> variable_ids(make_spec(variables={"age": ["a1", "a2"]}), ["a1", "bmi", "a2"]).tolist()
    [0, 1, 0]
    """
    of = variable_of(spec)
    ids: dict[str, int] = {}
    out = []
    for name in feature_names:
        key = "v:" + of[name] if name in of else "f:" + name
        out.append(ids.setdefault(key, len(ids)))
    return np.array(out, dtype=np.int64)


def variables_in_use(spec: Any, used: Sequence[str]) -> list[str]:
    """The distinct variables the rules ``used`` read (a rule in no variable
    is its own), in order."""
    of = variable_of(spec)
    return list(dict.fromkeys(of.get(n, n) for n in used))


def most_rules(spec: Any, feature_names: Sequence[str]) -> int | None:
    """The most rules a card can use under ``max_variables`` (and ``max_cuts_per_variable``): those
    of the ``max_variables`` variables with the most usable rules (None: no cap on variables).

    >>> from slimwidgets.core.spec import make_spec
    >>> spec = make_spec(variables={"a": {"a1": "ge", "a2": "ge", "a?": "missing"}},
    ...                  max_variables=2, max_cuts_per_variable=1)
    >>> most_rules(spec, ["a1", "a2", "a?", "b", "c"])
    3
    """
    if spec.max_variables is None:
        return None
    ids, of = variable_ids(spec, feature_names), variable_of(spec)
    usable = []
    for v in np.unique(ids):
        rules = [feature_names[j] for j in np.flatnonzero(ids == v)]
        cuts = sum(
            1 for r in rules if r in of and kind_name(spec.variables[of[r]][r]) in THRESHOLD_KINDS
        )
        cap = cuts if spec.max_cuts_per_variable is None else min(cuts, spec.max_cuts_per_variable)
        usable.append(len(rules) - cuts + cap)
    return int(sum(sorted(usable, reverse=True)[: spec.max_variables]))


def monotone_sign(spec: Any, name: str) -> str | None:
    """The sign ``monotone`` puts on the points of rule ``name`` (None: none): a ``ge`` rule of a
    variable that rises gets "+", an ``lt`` rule "-", and the other way round for "-" (a rule that
    steps alone at its cut; steps of several rules are rows, :func:`monotone_rows`)."""
    if not spec.monotone:
        return None
    var = variable_of(spec).get(name)
    if var is None or var not in spec.monotone:
        return None
    try:
        return _monotone_split(spec)[0].get(name)
    except ValueError:  # rules of unknown order: refused when the spec is made
        return None


def _thresholds(kinds: Mapping[str, Any]) -> list[str]:
    return [r for r, k in kinds.items() if kind_name(k) in THRESHOLD_KINDS]


def _interval_rules(kinds: Mapping[str, Any]) -> list[str]:
    return [r for r, k in kinds.items() if kind_name(k) in INTERVAL_KINDS]


def monotone_steps(kinds: Mapping[str, Any]) -> list[tuple[float | None, dict[str, int]]]:
    """How the points of a variable change from one band to the next: ``[(cut, {rule: +1 or
    -1})]``, one entry per cut from low to high (the points just at or above the cut minus
    those just below it are the sum of the rule's points times its sign).

    A rule that holds on ``[lo, hi)`` steps in (+1) at ``lo`` and out (-1) at ``hi``; so
    ``x >= c`` steps +1 at c, ``x < c`` steps -1 at c, a band both. With edges given every
    cut is placed; without them (plain "ge"/"lt" rules of one direction, as the rule builder
    makes) each rule has a cut of its own (cut None) and steps alone. ``ValueError`` when
    the rules point both ways (or are bands) and some have no edges: their order is unknown.

    >>> monotone_steps({"a >= 50": ("ge", 50.0), "a < 50": ("lt", 50.0),
    ...                 "50 <= a < 60": ("band", 50.0, 60.0)})
    [(50.0, {'a >= 50': 1, 'a < 50': -1, '50 <= a < 60': 1}), (60.0, {'50 <= a < 60': -1})]
    >>> monotone_steps({"a >= 50": "ge", "a >= 60": "ge"})
    [(None, {'a >= 50': 1}), (None, {'a >= 60': 1})]
    """
    rules = _interval_rules(kinds)
    edges = {r: _edges(kinds[r]) for r in rules}
    if all(e is None for e in edges.values()):
        if len({kind_name(kinds[r]) for r in rules}) <= 1 and all(
            kind_name(kinds[r]) != "band" for r in rules
        ):
            return [(None, {r: THRESHOLD_KINDS[kind_name(kinds[r])]}) for r in rules]
    if any(e is None for e in edges.values()):
        raise ValueError(
            "its interval rules point both ways (>= and <, or bands), so their order needs "
            "their cut points: give each as ['ge', cut], ['lt', cut] or ['band', lo, hi]"
        )
    steps: dict[float, dict[str, int]] = {}
    for r, (lo, hi) in edges.items():
        for cut, sign in ((lo, 1), (hi, -1)):
            if cut is not None:
                steps.setdefault(cut, {})[r] = steps.get(cut, {}).get(r, 0) + sign
    return [(cut, {r: v for r, v in steps[cut].items() if v}) for cut in sorted(steps)]


def _monotone_split(
    spec: Any,
) -> tuple[dict[str, str], list[tuple[str, float | None, dict[str, int]]]]:
    """``monotone`` as signs on rules (a step of one rule) and rows (a step of several, or a
    rule whose one-rule steps ask both signs): ``({rule: sign}, [(variable, cut, step)])``."""
    signs: dict[str, set[str]] = {}
    rows: list[tuple[str, float | None, dict[str, int]]] = []
    alone: list[tuple[str, float | None, dict[str, int]]] = []
    for var, direction in spec.monotone.items():
        for cut, step in monotone_steps(spec.variables.get(var, {})):
            if len(step) == 1:
                ((rule, s),) = step.items()
                signs.setdefault(rule, set()).add("+" if (s > 0) == (direction == "+") else "-")
                alone.append((var, cut, step))
            else:
                rows.append((var, cut, step))
    rows += [entry for entry in alone if len(signs[next(iter(entry[2]))]) > 1]
    return {r: next(iter(v)) for r, v in signs.items() if len(v) == 1}, rows


def monotone_rows(spec: Any) -> tuple[Any, ...]:
    """The linear rows ``monotone`` needs beyond signs (steps of several rules: rules that share
    a cut, band rules): one :class:`~slimwidgets.core.linear.LinearRow` per such step, the sum
    of its rules' signed points >= 0 ("+") or <= 0 ("-")."""
    if not spec.monotone:
        return ()
    out = []
    for var, cut, step in _monotone_split(spec)[1]:
        up = spec.monotone[var] == "+"
        where = "" if cut is None else f" at {cut:g}"
        out.append(
            LinearRow(
                tuple(("points", r, float(v)) for r, v in step.items()),
                0.0 if up else None,
                None if up else 0.0,
                f"monotone {spec.monotone[var]} on {var!r}{where}",
            )
        )
    return tuple(out)


def linear_rows(spec: Any) -> tuple[Any, ...]:
    """Every linear row a card must meet: the user's own (``linear``) and those of ``monotone``."""
    return tuple(spec.linear) + monotone_rows(spec)


def signs_only(spec: Any) -> Any:
    """The spec with only the part of ``monotone`` that signs hold (a relaxation: its optimum is
    a floor of the spec's)."""
    keep = {
        var: d
        for var, d in spec.monotone.items()
        if not any(row_var == var for row_var, _, _ in _monotone_split(spec)[1])
    }
    return spec if keep == dict(spec.monotone) else spec.replace(monotone=keep)


def support_constraints(spec: Any) -> tuple[LogicalConstraint, ...]:
    """The spec's logical constraints plus ``max_cuts_per_variable`` as one ``at_most`` per
    variable with more threshold rules than the cap: what the solvers hold on supports."""
    k = spec.max_cuts_per_variable
    if k is None:
        return tuple(spec.constraints)
    caps = [
        LogicalConstraint("at_most", tuple(t), k=k)
        for t in map(_thresholds, spec.variables.values())
        if len(t) > k
    ]
    return tuple(spec.constraints) + tuple(caps)


def check_variable_options(spec: Any) -> None:
    """Variable settings that can never hold together raise ``ValueError``
    (when the spec is made)."""
    for var, direction in spec.monotone.items():
        kinds = spec.variables.get(var, {})
        try:
            monotone_steps(kinds)
        except ValueError as exc:
            raise ValueError(f"monotone on {var!r}: {exc}") from None
        for rule in kinds:
            sign, v = monotone_sign(spec, rule), spec.lock.get(rule, 0)
            if (sign == "+" and v < 0) or (sign == "-" and v > 0):
                raise ValueError(
                    f"monotone {direction!r} on {var!r} needs {sign!r} points on {rule!r}, "
                    f"but it is locked at {v}"
                )
            lo, hi = spec.feature_box(rule)
            if sign is not None and (lo > hi or (rule in spec.require and lo == hi == 0)):
                raise ValueError(
                    f"monotone {direction!r} on {var!r} needs {sign!r} points on {rule!r}, which "
                    "its range, sign or requirement does not allow"
                )
    if spec.monotone and not family_of_loss(spec.loss).holds_band_rows and monotone_rows(spec):
        raise ValueError(
            f"monotone on {', '.join(map(repr, spec.monotone))}: its rules share cuts (bands, or "
            "rules of both directions), which needs rows between bands; risk cards hold "
            "monotone only on rules of one direction (age >= 50, age >= 60), decision cards "
            "hold both"
        )
    if spec.max_variables is not None:
        fixed = variables_in_use(
            spec, list(spec.require) + [n for n, v in spec.lock.items() if v != 0]
        )
        if len(fixed) > spec.max_variables:
            raise ValueError(
                f"max_variables={spec.max_variables} clashes with {len(fixed)} variables that "
                f"must be used (require/lock): {fixed}"
            )


def check_variable_names(spec: Any) -> None:
    """Before a solve: ``monotone`` names variables of the rules, and each has threshold rules;
    ``max_cuts_per_variable`` has threshold rules to count (else it would silently mean nothing)."""
    for var in spec.monotone:
        if var not in spec.variables:
            close = difflib.get_close_matches(var, list(spec.variables), n=1)
            known = (
                ", ".join(map(repr, spec.variables))
                or "none: fit on a raw table, or give variables="
            )
            raise KeyError(
                f"monotone names {var!r}, which is no variable of the rules"
                + (f" (did you mean {close[0]!r}?)" if close else f" (variables: {known})")
            )
        if not _interval_rules(spec.variables[var]):
            raise ValueError(
                f"monotone on {var!r}: it has no threshold rules nor bands (levels and 'missing' "
                "have no order)"
            )
    if spec.max_cuts_per_variable is not None and not any(
        map(_thresholds, spec.variables.values())
    ):
        raise ValueError(
            "max_cuts_per_variable needs the threshold rules of variables (fit on a raw table with "
            "numeric columns, or give variables={name: {rule: 'ge', ...}})"
        )


def variable_problems(spec: Any, points: Mapping[str, int]) -> list[str]:
    """What a card (``points`` by rule) breaks of the variable settings, in words (empty: none).
    Checked from the meaning (band points in order), not from the signs the solvers used."""
    problems = []
    used = [n for n, v in points.items() if v != 0]
    in_use = variables_in_use(spec, used)
    if spec.max_variables is not None and len(in_use) > spec.max_variables:
        problems.append(
            f"at most {spec.max_variables} variables ({len(in_use)} used: {', '.join(in_use)})"
        )
    for var, kinds in spec.variables.items():
        cuts = [r for r in _thresholds(kinds) if points.get(r, 0) != 0]
        if spec.max_cuts_per_variable is not None and len(cuts) > spec.max_cuts_per_variable:
            problems.append(
                f"at most {spec.max_cuts_per_variable} cut points per variable ({var!r} uses "
                f"{len(cuts)})"
            )
        direction = spec.monotone.get(var)
        if (
            direction is not None
        ):  # the change of the band points at each cut, from the rules' intervals
            steps = [
                sum(v * points.get(r, 0) for r, v in step.items())
                for _, step in monotone_steps(kinds)
            ]
            if any(s < 0 for s in steps) if direction == "+" else any(s > 0 for s in steps):
                problems.append(
                    f"monotone {direction} on {var!r} (its band points do not "
                    f"{'rise' if direction == '+' else 'fall'} with it)"
                )
    return problems
