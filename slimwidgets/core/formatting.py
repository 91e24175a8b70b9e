"""How single values are written for people and for JSON: shares as percentages, durations in
seconds, differences with a true minus sign, numpy scalars and option values as plain Python.

Every number the package shows passes through these, so a share reads the same on a card, in
the studio, in the CLI and in the "solved for" line.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["percent", "setting_percent", "seconds", "signed", "plain"]

#: what a missing or undefined figure reads as
MISSING = "–"


def percent(x: float | None, other: float | None = None) -> str:
    """A share as a percentage with one decimal; two when ``other`` differs but rounds the same.

    Parameters
    ----------
    x : float or None
        The share (0.953 for 95.3 %); None, NaN and infinities read as a dash.
    other : float or None
        A share shown beside ``x``: when the two differ but read the same at one decimal, both
        need a second one to tell them apart.

    Returns
    -------
    str
        ``"95.3 %"``, or ``"–"`` for a missing figure.

    Examples
    --------
    >>> percent(0.953), percent(0.95312, 0.95348), percent(None), percent(float("nan"))
    ('95.3 %', '95.31 %', '–', '–')
    """
    if x is None or not math.isfinite(x):
        return MISSING
    digits = (
        2 if other is not None and x != other and round(100 * x, 1) == round(100 * other, 1) else 1
    )
    return f"{100 * x:.{digits}f} %"


def setting_percent(x: float) -> str:
    """A share the user set (a cap, a gap) as a percentage with the digits it was given.

    Parameters
    ----------
    x : float
        The share (0.2 for 20 %), up to four significant digits shown.

    Returns
    -------
    str
        ``"20 %"``, ``"12.5 %"``.

    Examples
    --------
    >>> setting_percent(0.2), setting_percent(0.125), setting_percent(1 / 3)
    ('20 %', '12.5 %', '33.33 %')
    """
    return f"{100 * x:.4g} %"


def seconds(s: float | None) -> str:
    """A duration in seconds: one decimal from a second up, two below.

    Parameters
    ----------
    s : float or None
        Seconds; None, NaN and infinities read as a dash.

    Returns
    -------
    str
        ``"5.0 s"``, ``"0.35 s"`` or ``"–"``.

    Examples
    --------
    >>> seconds(5.04), seconds(0.347), seconds(None)
    ('5.0 s', '0.35 s', '–')
    """
    if s is None or not math.isfinite(s):
        return MISSING
    return f"{s:.1f} s" if s >= 1 else f"{s:.2f} s"


def signed(value: float, digits: int) -> str:
    """A difference with its sign and a true minus sign (U+2212).

    Parameters
    ----------
    value : float
        The difference.
    digits : int
        Decimals shown.

    Returns
    -------
    str
        ``"+0.0123"`` or ``"−0.0123"``.

    Examples
    --------
    >>> signed(-0.0123, 4), signed(2, 0)
    ('−0.0123', '+2')
    """
    return f"{value:+.{digits}f}".replace("-", "\u2212")


def plain(value: Any) -> Any:
    """A value as plain Python, as JSON and generated code hold it.

    numpy scalars become Python scalars, tuples lists and mappings dicts (each item in turn);
    objects with a ``to_dict`` method (a logical constraint, a linear row) become their dict.

    Parameters
    ----------
    value : Any
        A value read from data or an option's normalised value.

    Returns
    -------
    Any
        The same value built from Python's own types where it had numpy's or tuples.

    Examples
    --------
    >>> import numpy as np
    >>> plain(np.int64(3)), plain({"age": (np.float64(0.5), 2)}), plain("a")
    (3, {'age': [0.5, 2]}, 'a')
    """
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, Mapping):
        return {k: plain(x) for k, x in value.items()}
    if isinstance(value, tuple):
        return [plain(x) for x in value]
    return value.item() if isinstance(value, np.generic) else value
