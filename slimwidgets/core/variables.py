"""A variable's rules read back as the bands and levels a clinical score prints.

``age >= 50`` with 1 point and ``age >= 60`` with 2 points read ``< 50: 0 · 50–59: 1 · ≥ 60: 3``:
the points of a band are the sum of the rules that hold there. Used by
:meth:`slimwidgets.core.rules.RuleBuilder.points_table`; the card's exports print the result.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["variable_bands", "variable_entries", "threshold_bands", "cut_text", "LEVEL_TYPES"]

#: The types a level may have: they survive JSON and are written into code as literals.
LEVEL_TYPES = (str, bool, int, float)


def cut_text(value: float) -> str:
    """A cut point as a person writes it: 60, 2.5, 0.062.

    >>> cut_text(60.0), cut_text(2.5), cut_text(0.0625)
    ('60', '2.5', '0.0625')
    """
    value = float(value)
    return str(int(value)) if value.is_integer() else f"{value:.6g}"


def variable_bands(
    rules: Sequence, points: Mapping[str, int], integer: bool, pooled: Sequence[Any]
) -> tuple[tuple[str, int], ...]:
    """(label, points) of one variable: its bands (every band, 0 points included) for threshold
    rules, then its levels that carry points, then ``missing`` when it carries points.

    >>> from slimwidgets.core.rules import Rule
    >>> rules = [Rule("bmi >= 25", "bmi", "ge", 25.0), Rule("bmi >= 30", "bmi", "ge", 30.0),
    ...          Rule("bmi missing", "bmi", "missing", None)]
    >>> variable_bands(rules, {"bmi >= 30": 2, "bmi missing": 1}, False, [])
    (('< 30', 0), ('≥ 30', 2), ('missing', 1))
    """
    return tuple((label, p) for label, p, _, _ in variable_entries(rules, points, integer, pooled))


def variable_entries(
    rules: Sequence, points: Mapping[str, int], integer: bool, pooled: Sequence[Any]
) -> list[tuple[str, int, tuple[str, ...], str]]:
    """:func:`variable_bands` with, for each entry, the rules behind it and its kind:
    ``(label, points, rules, kind)``; ``kind`` is ``"band"`` (``rules``: those that open the
    band, none for the lowest), ``"level"`` or ``"missing"`` (``rules``: the one rule)."""
    used = [r for r in rules if points.get(r.name, 0)]
    out = [
        (label, p, opening, "band")
        for label, p, opening in threshold_bands(
            [r for r in used if r.kind in ("ge", "lt")], points, integer
        )
    ]
    for r in used:
        p = points[r.name]
        if r.kind == "is":
            out.append(("yes", p, (r.name,), "level"))
        elif r.kind == "pass":
            out.append(("per unit", p, (r.name,), "level"))
        elif r.kind == "eq":
            out.append((str(r.value), p, (r.name,), "level"))
        elif r.kind == "other":
            shown = ", ".join(str(v) for v in list(pooled)[:3]) + (", …" if len(pooled) > 3 else "")
            out.append(
                (
                    f"other ({shown}) or unseen" if shown else "other or unseen",
                    p,
                    (r.name,),
                    "level",
                )
            )
    out += [("missing", points[r.name], (r.name,), "missing") for r in used if r.kind == "missing"]
    return out


def threshold_bands(
    rules: Sequence, points: Mapping[str, int], integer: bool
) -> list[tuple[str, int, tuple[str, ...]]]:
    """The bands of a variable's threshold rules: ``(label, points, rules that open it)``, the
    lowest band first; a band's points are the sum of the rules that hold in it, and the rules
    that open a band are those whose cut is its left edge (none for the lowest band).

    >>> from slimwidgets.core.rules import Rule
    >>> rules = [Rule("age >= 50", "age", "ge", 50.0), Rule("age >= 60", "age", "ge", 60.0)]
    >>> threshold_bands(rules, {"age >= 50": 1, "age >= 60": 2}, True)
    [('< 50', 0, ()), ('50–59', 1, ('age >= 50',)), ('≥ 60', 3, ('age >= 60',))]
    """
    if not rules:
        return []
    edges = sorted({float(r.value) for r in rules})
    lefts = [-math.inf] + edges

    def band_points(
        left: float,
    ) -> int:  # every value of a band satisfies the same rules as its left edge
        return sum(
            points[r.name] for r in rules if (left >= r.value if r.kind == "ge" else left < r.value)
        )

    bands: list[
        list
    ] = []  # [left, right, points, opening rules], adjacent bands with equal points merged
    for i, left in enumerate(lefts):
        right = edges[i] if i < len(edges) else math.inf
        p = band_points(left)
        opening = tuple(r.name for r in rules if float(r.value) == left)
        if bands and bands[-1][2] == p:
            bands[-1][1] = right
        else:
            bands.append([left, right, p, opening])
    return [(_band_label(left, right, integer), p, opening) for left, right, p, opening in bands]


def _band_label(left: float, right: float, integer: bool) -> str:
    if left == -math.inf and right == math.inf:
        return "any value"
    if left == -math.inf:
        return f"< {cut_text(right)}"
    if right == math.inf:
        return f"≥ {cut_text(left)}"
    if integer:
        last = right - 1
        return cut_text(left) if last == left else f"{cut_text(left)}–{cut_text(last)}"
    return f"{cut_text(left)} to < {cut_text(right)}"
