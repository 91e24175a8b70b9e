"""Checks of single option values: each takes the value and the name to blame, and returns the
value in its normal form (a tuple, a dict, a float ...) or raises ``TypeError``/``ValueError``
naming the option.

The options table (:mod:`slimwidgets.core.options`) says which check each option gets; checks
that involve several options at once live in :mod:`slimwidgets.core.spec`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from typing import Any

Check = Callable[[Any, str], Any]


def names(value: Any, what: str) -> tuple[str, ...]:
    """A feature name or a list of names -> a tuple of names."""
    if isinstance(value, str):
        return (value,)
    try:
        items = tuple(value)
    except TypeError:
        raise TypeError(
            f"{what} must be a feature name or a list of names, got {value!r}"
        ) from None
    if not all(isinstance(v, str) for v in items):
        raise TypeError(f"{what} must be feature names (strings), got {items!r}")
    return items


def int_pair(value: Any, what: str) -> tuple[int, int]:
    """A non-empty (low, high) box of integers."""
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


def fraction(value: Any, what: str) -> float | None:
    """A number in [0, 1] (None passes)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= float(value) <= 1:
        raise ValueError(f"{what} must be a number in [0, 1], got {value!r}")
    return float(value)


def nonneg(value: Any, what: str) -> float:
    """A finite number >= 0."""
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not math.isfinite(value)
        or value < 0
    ):
        raise ValueError(f"{what} must be a finite number >= 0, got {value!r}")
    return float(value)


def mapping(value: Any, what: str) -> Mapping:
    """A mapping keyed by feature names (None: an empty one)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise TypeError(f"{what} must be a mapping feature -> value, got {type(value).__name__}")
    for k in value:
        if not isinstance(k, str):
            raise TypeError(f"{what} keys must be feature names (strings), got {k!r}")
    return value


def integer(value: Any, what: str) -> int:
    """A whole number (an int, or a float with no fractional part)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value != int(value):
        raise TypeError(f"{what} must be an integer, got {value!r}")
    return int(value)


def boolean(value: Any, what: str) -> bool:
    """True or False, nothing else (not 0 or 1)."""
    if not isinstance(value, bool):
        raise TypeError(f"{what} must be True or False, got {value!r}")
    return value


# -- combinators: a check built from smaller ones ---------------------------------------------
def optional(check: Check) -> Check:
    """``check``, or None for "automatic" / "no limit"."""
    return lambda value, what: None if value is None else check(value, what)


def whole(minimum: int) -> Check:
    """An integer >= ``minimum``."""

    def check(value: Any, what: str) -> int:
        value = integer(value, what)
        if value < minimum:
            raise ValueError(f"{what} must be >= {minimum}, got {value}")
        return value

    return check


def positive(why: str) -> Check:
    """A finite number > 0; ``why`` says what a zero would mean."""

    def check(value: Any, what: str) -> float:
        value = nonneg(value, what)
        if value == 0:
            raise ValueError(f"{what} must be > 0 ({why})")
        return value

    return check


def one_of(choices: tuple) -> Check:
    """One of ``choices``."""

    def check(value: Any, what: str) -> Any:
        if value not in choices:
            raise ValueError(f"{what} must be one of {choices}, got {value!r}")
        return value

    return check


def per_feature(check: Check, label: str | None = None) -> Check:
    """``{feature: check(value)}``; errors name ``label[feature]`` (the
    option's name by default)."""

    def each(value: Any, what: str) -> dict:
        return {k: check(v, f"{label or what}[{k!r}]") for k, v in mapping(value, what).items()}

    return each


# -- the checks of particular options ---------------------------------------------------------
def per_group(value: Any, what: str) -> float | dict[str, float] | None:
    """None, one fraction for every group, or ``{group label: fraction}`` (labels as text).

    Examples
    --------
    >>> per_group({"F": 0.1, 2: 0.2}, "max_fpr_by_group")
    {'F': 0.1, '2': 0.2}
    """
    if isinstance(value, Mapping):
        if not value:
            raise ValueError(f"{what} is an empty mapping; give a number or {{group: number}}")
        return {str(k): fraction(x, f"{what}[{k!r}]") for k, x in value.items()}
    return fraction(value, what)


def gap(value: Any, what: str) -> float:
    """A fraction; None means 0 (prove optimality)."""
    return fraction(value, what) or 0.0


def signs(value: Any, what: str) -> dict[str, str]:
    """``{feature: "+" or "-"}``; "free" (or None, 0, "") leaves a feature out."""
    out: dict[str, str] = {}
    for k, v in mapping(value, what).items():
        if v in ("+", 1, "positive", "pos"):
            out[k] = "+"
        elif v in ("-", -1, "negative", "neg"):
            out[k] = "-"
        elif v not in (None, "free", 0, ""):
            raise ValueError(f"{what}[{k!r}] must be '+', '-' or 'free', got {v!r}")
    return out


def value_sets(value: Any, what: str) -> dict[str, tuple[int, ...]]:
    """``{feature: sorted distinct allowed points}``, each set non-empty."""
    out: dict[str, tuple[int, ...]] = {}
    for k, v in mapping(value, what).items():
        try:
            items = sorted({integer(x, f"{what}[{k!r}]") for x in v})
        except TypeError as exc:
            if "must be an integer" in str(exc):
                raise
            raise TypeError(f"{what}[{k!r}] must be a list of integers, got {v!r}") from None
        if not items:
            raise ValueError(f"{what}[{k!r}] is empty")
        out[k] = tuple(items)
    return out


def groups(value: Any, what: str) -> dict[str, tuple[str, ...]]:
    """``{group: members}``: non-empty, no feature twice, no feature in two groups."""
    out: dict[str, tuple[str, ...]] = {}
    owner: dict[str, str] = {}
    for g, members in mapping(value, what).items():
        items = names(members, f"{what}[{g!r}]")
        if not items:
            raise ValueError(f"{what}[{g!r}] is empty")
        if len(set(items)) != len(items):
            raise ValueError(f"{what}[{g!r}] lists a feature twice")
        for n in items:
            if n in owner:
                raise ValueError(
                    f"{n!r} is in two groups ({owner[n]!r} and {g!r}); groups must be disjoint"
                )
            owner[n] = g
        out[str(g)] = items
    return out


def distinct_names(value: Any, what: str) -> tuple[str, ...]:
    """Feature names, each once, in their first order."""
    return tuple(dict.fromkeys(names(value, what)))


def tiers(value: Any, what: str) -> tuple[tuple[int, float], ...]:
    """PILM's tiers: (largest ``|points|``, cost) pairs, bounds increasing, costs not decreasing."""
    if value is None:
        return ()
    if isinstance(value, (str, bytes, Mapping)):
        raise TypeError(f"{what} must be a list of (largest |points|, cost) pairs, got {value!r}")
    if not hasattr(value, "__iter__"):
        raise TypeError(f"{what} must be a list of (largest |points|, cost) pairs, got {value!r}")
    out: list[tuple[int, float]] = []
    for item in value:
        try:
            bound, cost = item
        except (TypeError, ValueError):
            raise TypeError(
                f"each tier must be a (largest |points|, cost) pair, got {item!r}"
            ) from None
        bound = integer(bound, "a tier's largest |points|")
        cost = nonneg(cost, "a tier's cost")
        if bound < 1:
            raise ValueError(f"a tier's largest |points| must be >= 1, got {bound}")
        if out and bound <= out[-1][0]:
            raise ValueError(f"tier bounds must increase, got {out[-1][0]} then {bound}")
        if out and cost < out[-1][1]:
            raise ValueError(
                "tier costs must not decrease (larger points are less interpretable), got "
                f"{out[-1][1]} then {cost}"
            )
        out.append((bound, cost))
    return tuple(out)


def class_weights(value: Any, what: str) -> tuple[float, float] | str | None:
    """``"balanced"``, a (negative, positive) pair, or a mapping with those two keys."""
    if value is None:
        return None
    if isinstance(value, str):
        if value != "balanced":
            raise ValueError(
                f"{what} must be 'balanced', a (negative, positive) pair or a mapping, got "
                f"{value!r}"
            )
        return value
    if isinstance(value, Mapping):
        if set(value) != {"negative", "positive"}:
            raise ValueError(f"{what} mapping needs exactly the keys 'negative' and 'positive'")
        value = (value["negative"], value["positive"])
    try:
        neg, pos = value
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be a (negative, positive) pair, got {value!r}") from None
    neg, pos = nonneg(neg, what), nonneg(pos, what)
    if neg == 0 or pos == 0:
        raise ValueError("class weights must be > 0")
    return (neg, pos)
