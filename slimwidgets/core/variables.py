"""A variable's rules read back as the bands and levels a clinical score prints.

``age >= 50`` with 1 point and ``age >= 60`` with 2 points read ``< 50: 0 · 50–59: 1 · ≥ 60: 3``:
the points of a band are the sum of the rules that hold there. Used by
:meth:`slimwidgets.core.rules.RuleBuilder.points_table`; the card's exports print the result.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Mapping, Sequence

__all__ = ["variable_bands", "read_rule", "LEVEL_TYPES"]

#: The types a level may have: they survive JSON and are written into code as literals.
LEVEL_TYPES = (str, bool, int, float)


def _fmt(value: float) -> str:
    value = float(value)
    return str(int(value)) if value.is_integer() else f"{value:.6g}"


def variable_bands(rules: Sequence, points: Mapping[str, int], integer: bool,
                   pooled: Sequence[Any]) -> tuple[tuple[str, int], ...]:
    """(label, points) of one variable: its bands (every band, 0 points included) for threshold
    rules, then its levels that carry points, then ``missing`` when it carries points.

    >>> from slimwidgets.core.rules import Rule
    >>> rules = [Rule("bmi >= 25", "bmi", "ge", 25.0), Rule("bmi >= 30", "bmi", "ge", 30.0),
    ...          Rule("bmi missing", "bmi", "missing", None)]
    >>> variable_bands(rules, {"bmi >= 30": 2, "bmi missing": 1}, False, [])
    (('< 30', 0), ('≥ 30', 2), ('missing', 1))
    """
    used = [r for r in rules if points.get(r.name, 0)]
    out = list(_threshold_bands([r for r in used if r.kind in ("ge", "lt")], points, integer))
    for r in used:
        p = points[r.name]
        if r.kind == "is":
            out.append(("yes", p))
        elif r.kind == "pass":
            out.append(("per unit", p))
        elif r.kind == "eq":
            out.append((str(r.value), p))
        elif r.kind == "other":
            shown = ", ".join(str(v) for v in list(pooled)[:3]) + (", …" if len(pooled) > 3 else "")
            out.append((f"other ({shown}) or unseen" if shown else "other or unseen", p))
    out += [("missing", points[r.name]) for r in used if r.kind == "missing"]
    return tuple(out)


def _threshold_bands(rules: Sequence, points: Mapping[str, int], integer: bool) -> list[tuple[str, int]]:
    if not rules:
        return []
    edges = sorted({float(r.value) for r in rules})
    lefts = [-math.inf] + edges

    def band_points(left: float) -> int:  # every value of a band satisfies the same rules as its left edge
        return sum(points[r.name] for r in rules if (left >= r.value if r.kind == "ge" else left < r.value))

    bands: list[list] = []  # [left, right, points], adjacent bands with equal points merged
    for i, left in enumerate(lefts):
        right = edges[i] if i < len(edges) else math.inf
        p = band_points(left)
        if bands and bands[-1][2] == p:
            bands[-1][1] = right
        else:
            bands.append([left, right, p])
    return [(_band_label(left, right, integer), p) for left, right, p in bands]


def _band_label(left: float, right: float, integer: bool) -> str:
    if left == -math.inf and right == math.inf:
        return "any value"
    if left == -math.inf:
        return f"< {_fmt(right)}"
    if right == math.inf:
        return f"≥ {_fmt(left)}"
    if integer:
        last = right - 1
        return _fmt(left) if last == left else f"{_fmt(left)}–{_fmt(last)}"
    return f"{_fmt(left)} to < {_fmt(right)}"


def _level(v: Any) -> bool:
    return type(v) in LEVEL_TYPES and not (isinstance(v, float) and not math.isfinite(v))


def read_rule(row: Any, columns: Sequence[str]):
    """One rule from a card file, checked (names are text, kinds known, values plain)."""
    from .rules import KINDS, Rule

    if not isinstance(row, list) or len(row) != 4:
        raise ValueError("each rule must be [name, column, kind, value]")
    name, column, kind, value = row
    if not isinstance(name, str) or column not in columns:
        raise ValueError(f"rule {name!r}: the name must be text and the column one of the rules' columns")
    if kind not in KINDS:
        raise ValueError(f"rule {name!r}: unknown kind {kind!r}")
    if kind in ("ge", "lt"):
        ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)
        value = float(value) if ok else value
    elif kind == "eq":
        ok = _level(value)
    elif kind == "other":
        ok = isinstance(value, list) and all(_level(v) for v in value)
        value = tuple(value) if ok else value
    else:
        ok = value is None
    if not ok:
        raise ValueError(f"rule {name!r} of kind {kind!r} has an invalid value {value!r}")
    return Rule(name, column, kind, value)
