"""Linear constraints of the user's own on points and feature use (written in PuLP).

:func:`slimwidgets.formulate` hands out the program's variables as PuLP variables; a
constraint written on them (``pts["age >= 60"] + pts["bmi >= 30"] <= 4``) becomes a
:class:`LinearRow`: plain data (``{"points:age >= 60": 1, "points:bmi >= 30": 1}``, bounds,
a name), so the spec that holds it stays JSON. Its terms are ``points:F`` (the points of
feature F) and ``used:F`` (1 when F has non-zero points). The integer program gets the
row over its lambda and alpha columns; the local search prices a broken row like any
other broken constraint; every returned card is re-checked against it.

Examples
--------
>>> row = LinearRow.from_dict(
...     {"terms": {"points:a": 1, "points:b": 1}, "upper": 4, "name": "a and b"}
... )
>>> row.describe()
'points[a] + points[b] ≤ 4'
>>> row.holds({"a": 3, "b": 2})
False
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["LinearRow", "normalize_linear", "add_linear_rows", "linear_problems", "KINDS"]

KINDS = ("points", "used")


@dataclass(frozen=True)
class LinearRow:
    """``lower <= sum coef * term <= upper`` over ``points:F`` and ``used:F`` terms."""

    terms: tuple[tuple[str, str, float], ...]  # (kind, feature, coefficient)
    lower: float | None = None
    upper: float | None = None
    name: str = ""

    def __post_init__(self) -> None:
        if not self.terms:
            raise ValueError(f"linear constraint {self.name!r} has no terms")
        if self.lower is None and self.upper is None:
            raise ValueError(f"linear constraint {self.name!r} needs a lower or an upper bound")
        for kind, feature, coef in self.terms:
            if kind not in KINDS or not isinstance(feature, str):
                raise ValueError(
                    "a term of a linear constraint is 'points:FEATURE' or 'used:FEATURE', got "
                    f"{kind}:{feature}"
                )
            if not math.isfinite(coef):
                raise ValueError(
                    f"linear constraint {self.name!r}: coefficient of {kind}:{feature} is not "
                    "finite"
                )

    def value(self, points: Mapping[str, int]) -> float:
        """The row's left side for a card with these points (features not named: 0)."""
        total = 0.0
        for kind, feature, coef in self.terms:
            v = points.get(feature, 0)
            total += coef * (v if kind == "points" else float(v != 0))
        return total

    def holds(self, points: Mapping[str, int]) -> bool:
        v = self.value(points)
        return (self.lower is None or v >= self.lower - 1e-9) and (
            self.upper is None or v <= self.upper + 1e-9
        )

    def describe(self) -> str:
        """The row in words, e.g. ``points[a] + 2 used[b] ≤ 4``."""
        minus = "\u2212"
        parts = []
        for i, (kind, feature, coef) in enumerate(self.terms):
            size = abs(coef)
            text = ("" if size == 1 else f"{size:g} ") + f"{kind}[{feature}]"
            if i == 0:
                parts.append((minus + " " if coef < 0 else "") + text)
            else:
                parts.append(f"{minus if coef < 0 else '+'} {text}")
        left = " ".join(parts)
        if self.lower is not None and self.upper is not None:
            if self.lower == self.upper:
                return f"{left} = {self.upper:g}"
            return f"{self.lower:g} \u2264 {left} \u2264 {self.upper:g}"
        return (
            f"{left} \u2264 {self.upper:g}"
            if self.upper is not None
            else f"{left} \u2265 {self.lower:g}"
        )

    def to_dict(self) -> dict:
        out: dict[str, Any] = {"terms": {f"{k}:{f}": c for k, f, c in self.terms}}
        if self.lower is not None:
            out["lower"] = self.lower
        if self.upper is not None:
            out["upper"] = self.upper
        if self.name:
            out["name"] = self.name
        return out

    @classmethod
    def from_dict(cls, d: Mapping) -> LinearRow:
        if not isinstance(d, Mapping) or "terms" not in d:
            raise ValueError(
                f"a linear constraint is a mapping with 'terms' and 'lower'/'upper', got {d!r}"
            )
        terms = []
        for key, coef in dict(d["terms"]).items():
            kind, sep, feature = str(key).partition(":")
            if not sep:
                raise ValueError(f"a term is 'points:FEATURE' or 'used:FEATURE', got {key!r}")
            if isinstance(coef, bool) or not isinstance(coef, numbers.Real):
                raise ValueError(f"the coefficient of {key!r} must be a number, got {coef!r}")
            terms.append((kind, feature, float(coef)))
        bound = {k: (None if d.get(k) is None else float(d[k])) for k in ("lower", "upper")}
        return cls(tuple(terms), bound["lower"], bound["upper"], str(d.get("name", "")))


def normalize_linear(value: Any) -> tuple[LinearRow, ...]:
    """``linear=`` of ``make_spec``: rows or their dicts."""
    if value is None:
        return ()
    if isinstance(value, (LinearRow, Mapping)):
        value = [value]
    return tuple(v if isinstance(v, LinearRow) else LinearRow.from_dict(v) for v in value)


def add_linear_rows(
    b: Any,
    rows: tuple[LinearRow, ...],
    names: tuple[str, ...],
    col_lambda: np.ndarray,
    col_alpha: np.ndarray,
    fixed_lambda: np.ndarray,
    always_used: np.ndarray,
) -> None:
    """The rows over the program's lambda (points) and alpha (use) columns; fixed columns
    move to the bounds as constants."""
    index = {n: j for j, n in enumerate(names)}
    for row in rows:
        cols: dict[int, float] = {}
        constant = 0.0
        for kind, feature, coef in row.terms:
            j = index[feature]
            col = col_lambda[j] if kind == "points" else col_alpha[j]
            if col >= 0:
                cols[int(col)] = cols.get(int(col), 0.0) + coef
            elif kind == "points":
                constant += coef * float(fixed_lambda[j])
            else:
                constant += coef * float(always_used[j] or fixed_lambda[j] != 0)
        lo = -math.inf if row.lower is None else row.lower - constant
        hi = math.inf if row.upper is None else row.upper - constant
        b.row(list(cols), list(cols.values()), lo, hi)


def linear_problems(points: Mapping[str, int], rows: tuple[LinearRow, ...]) -> list[str]:
    """The rows a card with ``points`` breaks (for ``check_card``)."""
    return [
        f"linear constraint {row.name or row.describe()!r} ({row.value(points):g})"
        for row in rows
        if not row.holds(points)
    ]
