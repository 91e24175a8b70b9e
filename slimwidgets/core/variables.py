"""A variable's rules read back as the bands and levels a clinical score prints.

``age >= 50`` with 1 point and ``age >= 60`` with 2 points read ``< 50: 0 · 50–59: 1 · ≥ 60: 3``:
the points of a band are the sum of the rules that hold there. Used by
:meth:`slimwidgets.core.rules.RuleBuilder.points_table`; the card's exports print the result.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "variable_bands",
    "variable_entries",
    "threshold_bands",
    "cut_text",
    "LEVEL_TYPES",
    "LEVEL_KINDS",
    "levels_at_zero",
]

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


#: The kinds of rule that, together, hold one at a time on every value of a text variable (a kept
#: level each, ``other``: pooled levels and those never seen in training, and ``missing``).
LEVEL_KINDS = frozenset({"eq", "other", "missing"})


def levels_at_zero(
    variables: Mapping[str, Mapping[str, Any]],
    points: Mapping[str, int],
    rows: Mapping[str, float],
) -> tuple[dict[str, int], int]:
    """A card's smallest equivalent form: where every value of a text variable scores points, its
    rules' points move by one amount, so that one level scores 0 and the total of every row moves
    by that amount.

    A variable qualifies when its rules are a rule per kept level, an ``other`` rule and a
    ``missing`` rule (one of them holds on any value, new ones included: the caller checks its
    rows) and each carries points. The points moved to 0 are those most of its rules share
    (fewest rules left); on a tie, those of the level with the most training rows, the reference
    level a clinical score would pick.

    Parameters
    ----------
    variables : mapping of str to mapping of str to kind
        Each variable's rules and their kinds (a spec's ``variables``).
    points : mapping of str to int
        Points by rule name (rules at 0 may be left out).
    rows : mapping of str to float
        The training rows (or their weight) on which each rule holds.

    Returns
    -------
    points : dict of str to int
        Points by rule name, the moved rules included (at 0 where moved to 0).
    shift : int
        What every total loses: the threshold of the equivalent card is the old one minus it
        (its intercept the old one plus it).

    Examples
    --------
    >>> kinds = {"c": {"c = a": "eq", "c = b": "eq", "c = other": "other", "c missing": "missing"}}
    >>> levels_at_zero(kinds, {"c = a": 2, "c = b": -1, "c = other": 2, "c missing": 3},
    ...                {"c = a": 5, "c = b": 9, "c = other": 1, "c missing": 1})
    ({'c = a': 0, 'c = b': -3, 'c = other': 0, 'c missing': 1}, 2)
    """
    out, shift = dict(points), 0
    for rules in variables.values():
        names = list(rules)
        kinds = {str(kind) for kind in rules.values()}
        if kinds != LEVEL_KINDS or not all(out.get(n, 0) for n in names):
            continue  # some value of the variable holds no rule, or scores 0 already
        values = [out[n] for n in names]
        common = max(values.count(v) for v in values)
        reference = max(
            (n for n in names if values.count(out[n]) == common), key=lambda n: rows.get(n, 0.0)
        )
        moved = out[reference]
        out.update({n: out[n] - moved for n in names})
        shift += moved
    return out, shift
