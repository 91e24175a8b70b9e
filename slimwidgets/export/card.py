"""The card as every format sees it, and the layout rules the formats share.

Every renderer in :mod:`slimwidgets.export` is pure: it takes a :class:`CardData` and returns a
string.  Feature names, the class name and the notes are *untrusted*: they
may contain anything (quotes, markup, newlines, SQL).  Each output format
therefore has its own private escaping helper, and the code generators
(:func:`render_python`, :func:`render_sql`) only ever emit names as quoted
literals or quoted identifiers.  Points and the threshold are validated to be
integers and are always written with ``%d``.

The card layout follows the score card of Ustun & Rudin's SLIM paper::

    PREDICT MALIGNANT IF SCORE ≥ 4
    1.  Clump Thickness        4 points    .....
    2.  2 points × Bare Nuclei           + .....
    3.  Mitoses               -1 point   + .....
        ADD POINTS FROM ROWS 1–3         = SCORE

An M-of-N rule table (``family="m_of_n"``, the paper's sec. 7.2.1) is drawn
as its rules under one headline, without points::

    PREDICT BENIGN IF AT LEAST 5 OF THE FOLLOWING 8 RULES ARE TRUE
    1.  UniformityOfCellSize >= 3
    ...
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "CardData",
    "RiskRows",
    "RULES",
    "headline",
    "m_of_n_count",
    "total_line",
    "points_label",
    "rule_table",
    "rule_headline",
    "table_rules",
    "risk_cells",
    "risk_header",
    "risk_lines",
    "exact_str",
    "exact_int",
    "EMPTY_CARD",
    "MISSING_NOTE",
    "VARIABLES_TOTAL",
    "band_text",
    "HorizonRows",
    "horizon_header",
    "horizon_lines",
]


def exact_str(value: object, what: str, *, coerce: bool) -> str:
    """Return ``value`` as an exact ``str`` (never a subclass).

    A ``str`` subclass could override ``__repr__``/``__str__``; copying it to
    a plain ``str`` means later ``repr()`` calls behave normally.
    """
    if not isinstance(value, str):
        if not coerce:
            raise TypeError(f"{what} must be a str, got {type(value).__name__}")
        value = str(value)
    return str.__str__(value)


def exact_int(value: object, what: str) -> int:
    """Return ``value`` as an exact ``int``; reject bools, floats, strings."""
    if isinstance(value, bool) or type(value).__name__ in ("bool_", "bool"):
        raise TypeError(f"{what} must be an integer, not a boolean")
    try:
        number = operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an integer, got {type(value).__name__}") from None
    return int.__int__(number)


LEVELS = ("ok", "warn", "error")


@dataclass(frozen=True)
class CardData:
    """Everything needed to draw one scoring system.

    Attributes
    ----------
    rows : tuple of (str, int)
        ``(feature name, points)`` pairs in display order.
    threshold : int
        Predict the positive class iff the total score >= threshold (``rule=">="``, the
        default), or > threshold (``rule=">"``: cards made under the paper's convention that
        a zero total is an error).
    positive : str
        Name of the positive class, e.g. ``"Malignant"``.
    binary : tuple of bool
        One flag per row; ``True`` for a 0/1 feature ("name ... 4 points"),
        ``False`` for a count/real feature ("4 points × name").
    notes : tuple of str
        Footer lines (status, metrics), shown as plain text.
    level : str
        ``"ok"``, or ``"warn"`` / ``"error"`` to draw the card's status in amber / red where
        the format has colour (HTML).
    details : str
        Raw solver figures, shown only in a details view (HTML's ``<details>``); every other
        format leaves them out.
    family : str
        ``"slim"`` (a score card) or another model family; only ``"m_of_n"``
        changes the drawing (an M-of-N rule table, when every row has the
        same positive points).
    rule : str
        ``">="`` or ``">"``, see ``threshold``.
    multiplier : float or None
        Risk cards: the predicted risk at total score ``s`` is
        ``1 / (1 + exp(-(s - threshold) / multiplier))``; the code
        generators then emit it.
    variables : tuple of (str, tuple of (str, int))
        Cards fit on a raw table: the points by variable, ``("age", (("< 50", 0), ("≥ 50", 2)))``,
        drawn instead of the rows by text, HTML, Markdown and LaTeX (labels are untrusted text).
    rule_defs : tuple of (column, kind, value), one per row
        Cards fit on a raw table: what each row's rule tests on the raw column (see
        :mod:`slimwidgets.core.rules`); the Python and SQL exports compute the rules from it.
    horizons : tuple of (float, float)
        Time-to-event cards: each horizon and Breslow's cumulative baseline hazard ``H0`` by it.
        The risk of the event by a horizon is ``1 - exp(-H0 exp(score / multiplier))``; the
        threshold is unused and ``positive`` names the event.

    Notes
    -----
    The constructor validates and normalises its input: names must be
    ``str`` and unique, points and threshold must be integers (numpy integers
    are accepted, ``bool`` and floats raise :class:`TypeError`), and
    ``binary`` must have one entry per row.  Sequences become tuples.

    Examples
    --------
    >>> card = CardData(rows=[("Mitoses", 2)], threshold=1,
    ...                 positive="Malignant", binary=[True])
    >>> card.rows
    (('Mitoses', 2),)
    """

    rows: tuple[tuple[str, int], ...]
    threshold: int
    positive: str
    binary: tuple[bool, ...]
    notes: tuple[str, ...] = ()
    family: str = "slim"
    level: str = "ok"
    details: str = ""
    rule: str = ">="
    multiplier: float | None = None
    variables: tuple = ()
    rule_defs: tuple = ()
    horizons: tuple = ()

    def __post_init__(self) -> None:
        if self.rule not in RULES:
            raise ValueError(f"rule must be one of {RULES}, got {self.rule!r}")
        rows = []
        for i, row in enumerate(self.rows, start=1):
            name, points = row
            name = exact_str(name, f"name of row {i}", coerce=False)
            rows.append((name, exact_int(points, f"points of row {i} ({name!r})")))
        names = [name for name, _ in rows]
        if len(set(names)) != len(names):
            raise ValueError("feature names must be unique")
        binary = tuple(bool(flag) for flag in self.binary)
        if len(binary) != len(rows):
            raise ValueError(f"binary has {len(binary)} entries but there are {len(rows)} rows")
        set_field = object.__setattr__  # the dataclass is frozen
        set_field(self, "rows", tuple(rows))
        set_field(self, "threshold", exact_int(self.threshold, "threshold"))
        set_field(self, "positive", exact_str(self.positive, "positive", coerce=True))
        set_field(self, "binary", binary)
        set_field(
            self,
            "notes",
            tuple(exact_str(n, "note", coerce=True) for n in self.notes),
        )
        set_field(self, "family", exact_str(self.family, "family", coerce=False))
        if self.level not in LEVELS:
            raise ValueError(f"level must be one of {LEVELS}, got {self.level!r}")
        set_field(self, "details", exact_str(self.details, "details", coerce=True))
        if self.multiplier is not None:
            m = self.multiplier
            if (
                isinstance(m, bool)
                or not isinstance(m, (int, float))
                or not 0 < float(m) < float("inf")
            ):
                raise ValueError(f"multiplier must be a finite number > 0, got {m!r}")
            set_field(self, "multiplier", float(m))
        set_field(self, "variables", _checked_variables(self.variables))
        set_field(self, "rule_defs", _checked_rule_defs(self.rule_defs, len(rows)))
        set_field(self, "horizons", _checked_horizons(self.horizons, self.multiplier))


def points_label(points: int) -> str:
    """``1 -> '1 point'``, ``-1 -> '-1 point'``, ``4 -> '4 points'``."""
    return "%d point%s" % (points, "" if abs(points) == 1 else "s")


def headline(card: CardData, escape: Callable[[str], str], gt: str = ">", ge: str = "≥") -> str:
    """``PREDICT <POSITIVE> IF SCORE ≥ <T>`` (or ``> <T>`` for the paper's rule); ``escape``
    is the format's helper, ``gt`` and ``ge`` its signs for > and >=. A time-to-event card
    has no threshold: its headline names the event.

    The class name is upper-cased *before* escaping, never after.
    """
    if card.horizons:
        return "SCORE FOR THE RISK OF %s" % escape(card.positive.upper())
    return "PREDICT %s IF SCORE %s %d" % (
        escape(card.positive.upper()),
        ge if card.rule == ">=" else gt,
        card.threshold,
    )


def total_line(n_rows: int, dash: str) -> str:
    if n_rows == 1:
        return "ADD POINTS FROM ROW 1"
    return "ADD POINTS FROM ROWS 1%s%d" % (dash, n_rows)


EMPTY_CARD = "no features: SCORE = 0"
RULES = (">=", ">")  # how a card compares its score with its threshold to predict positive


def rule_table(card: CardData) -> tuple[int, int] | None:
    """(M, N) when ``card`` is drawn as an M-of-N rule table, else None.

    Every row carries the same p > 0 points, so the score is p times the number
    k of true rules; see :func:`m_of_n_count`.
    """
    if card.family != "m_of_n":
        return None
    points = {p for _, p in card.rows}
    if len(points) > 1 or any(p <= 0 for p in points):
        return None
    p = points.pop() if points else 1
    return m_of_n_count(card.threshold, p, card.rule), len(card.rows)


def m_of_n_count(threshold: int, p: int, rule: str) -> int:
    """The least number M of true rules, each worth ``p`` > 0 points, that predicts positive:
    ``p k >= threshold`` iff ``k >= ceil(threshold / p)``; ``p k > threshold`` iff
    ``k >= threshold // p + 1``.

    >>> m_of_n_count(3, 1, ">="), m_of_n_count(5, 2, ">")
    (3, 3)
    """
    m = -(-threshold // p) if rule == ">=" else threshold // p + 1
    return max(m, 0)


def rule_headline(card: CardData, escape: Callable[[str], str], m: int, n: int) -> str:
    """The headline of an M-of-N table (the class name upper-cased before escaping)."""
    cls = escape(card.positive.upper())
    if m == 0:
        return "PREDICT %s FOR EVERY CASE" % cls
    if m > n:
        return "NEVER PREDICT %s" % cls
    if n == 1:
        return "PREDICT %s IF THE FOLLOWING RULE IS TRUE" % cls
    return "PREDICT %s IF AT LEAST %d OF THE FOLLOWING %d RULES ARE TRUE" % (cls, m, n)


def table_rules(card: CardData, m: int, n: int) -> list[str]:
    """The rule names to list under the headline (none when they cannot matter)."""
    return [name for name, _ in card.rows] if 1 <= m <= n else []


# Risk per score. Rows are (score, count, events, rate, lower, upper): numbers only, formatted here,
# so no untrusted text can reach these tables.
RiskRows = tuple[tuple[float, float, float, float, float, float], ...]


RISK_HEADER = ("score", "rows", "events", "observed rate (95 % CI)")
PREDICTED_HEADER = "predicted risk"


def risk_header(predicted) -> tuple[str, ...]:
    """The risk table's column names; a risk card adds its predicted risk."""
    return RISK_HEADER if predicted is None else RISK_HEADER + (PREDICTED_HEADER,)


def risk_cells(row, predicted: float | None = None) -> tuple[str, ...]:
    score, count, events, rate, lower, upper = row
    cells = (
        f"{score:g}",
        f"{count:g}",
        f"{events:g}",
        f"{100 * rate:.1f} % ({100 * lower:.1f}–{100 * upper:.1f} %)",
    )
    return cells if predicted is None else cells + (f"{100 * float(predicted):.1f} %",)


def risk_lines(rows: RiskRows, predicted) -> list[tuple[str, ...]]:
    """The cells of every row of the risk table (``predicted``: one risk per row, or None)."""
    if predicted is not None and len(predicted) != len(rows):
        raise ValueError(f"{len(predicted)} predicted risks for {len(rows)} rows")
    return [
        risk_cells(row, None if predicted is None else predicted[i]) for i, row in enumerate(rows)
    ]


# -- cards by variable (fit on a raw table) -----------------------------------------------------
#: What every human-readable format prints under a card by variable: the rule that the
#: Python and SQL exports (and ``predict``) follow.
MISSING_NOTE = (
    "a missing value, or a level not listed (a level never seen in training, unless its variable "
    "lists 'or unseen'), scores 0 points for its variable"
)
VARIABLES_TOTAL = "ADD THE POINTS OF EACH VARIABLE"
RULE_KINDS = ("ge", "lt", "eq", "other", "is", "missing", "pass")
_LEVEL_TYPES = (str, bool, int, float)


def band_text(bands, escape: Callable[[str], str], sep: str = " · ") -> str:
    """``< 50: 0 · 50–59: 1 · ≥ 60: 3``, every label escaped by the format's helper."""
    return sep.join("%s: %d" % (escape(label), points) for label, points in bands)


def _checked_variables(variables) -> tuple:
    out = []
    for entry in variables:
        name, bands = entry
        name = exact_str(name, "variable name", coerce=False)
        out.append(
            (
                name,
                tuple(
                    (
                        exact_str(label, f"label of {name!r}", coerce=False),
                        exact_int(points, f"points of {name!r}"),
                    )
                    for label, points in bands
                ),
            )
        )
    return tuple(out)


def _level(value: object) -> object:
    if type(value) not in _LEVEL_TYPES:
        raise TypeError(f"a level must be text, a number or a boolean, got {type(value).__name__}")
    return value


def _checked_rule_defs(defs, n_rows: int) -> tuple:
    """Each rule's (column, kind, value) with exact types: they are written into code."""
    if not defs:
        return ()
    if len(defs) != n_rows:
        raise ValueError(f"{len(defs)} rule definitions for {n_rows} rows")
    out = []
    for column, kind, value in defs:
        column = exact_str(column, "rule column", coerce=False)
        if kind not in RULE_KINDS:
            raise ValueError(f"unknown rule kind {kind!r}")
        if kind in ("ge", "lt"):
            value = float(value)
            if value != value or value in (float("inf"), float("-inf")):
                raise ValueError(f"a cut of {column!r} is not finite")
        elif kind == "eq":
            value = _level(value)
        elif kind == "other":
            value = tuple(_level(v) for v in value)
        elif value is not None:
            raise ValueError(f"a rule of kind {kind!r} has no value")
        out.append((column, kind, value))
    return tuple(out)


def _checked_horizons(horizons, multiplier: float | None) -> tuple:
    """Each (horizon, baseline cumulative hazard) as finite floats, the hazard not negative."""
    out = []
    for horizon, hazard in horizons:
        horizon, hazard = float(horizon), float(hazard)
        if not (math.isfinite(horizon) and math.isfinite(hazard) and hazard >= 0):
            raise ValueError(f"horizon {horizon!r} has no finite baseline hazard ({hazard!r})")
        out.append((horizon, hazard))
    if out and multiplier is None:
        raise ValueError("a card with horizons needs its multiplier")
    return tuple(out)


# A time-to-event card's table: per total score (score, rows, then per horizon the predicted risk,
# Kaplan-Meier's observed risk and its 95 % bounds, None where unknown). Numbers only.
HorizonRows = tuple[tuple[float, float, tuple, tuple, tuple, tuple], ...]


def horizon_header(horizons: tuple) -> tuple[str, ...]:
    """The columns of a time-to-event card's table: score, rows, then two per horizon.

    >>> horizon_header(((1.0, 0.1), (3.0, 0.4)))[2:]
    ('by 1: predicted', 'by 1: observed (95 % CI)', 'by 3: predicted', 'by 3: observed (95 % CI)')
    """
    by = [f"by {h:g}" for h, _ in horizons]
    return ("score", "rows") + tuple(f"{b}: {w}" for b in by for w in _HORIZON_COLUMNS)


_HORIZON_COLUMNS = ("predicted", "observed (95 % CI)")


def _percent(value) -> str:
    return "–" if value is None else f"{100 * float(value):.1f} %"


def horizon_lines(rows: HorizonRows) -> list[tuple[str, ...]]:
    """The cells of every row of a time-to-event card's table (observed: "–" when unknown).

    >>> horizon_lines(((2, 10, (0.25,), (0.3,), (0.1,), (0.5,)),))
    [('2', '10', '25.0 %', '30.0 % (10.0–50.0 %)')]
    """
    out = []
    for score, count, predicted, observed, lower, upper in rows:
        cells = [f"{score:g}", f"{count:g}"]
        for p, o, lo, hi in zip(predicted, observed, lower, upper):
            interval = "" if lo is None or hi is None else f" ({100 * lo:.1f}–{100 * hi:.1f} %)"
            cells += [_percent(p), _percent(o) + ("" if o is None else interval)]
        out.append(tuple(cells))
    return out
