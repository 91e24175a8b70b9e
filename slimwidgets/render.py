"""Render a SLIM scoring system as a score card or as executable code.

Every function here is pure: it takes a :class:`CardData` and returns a
string.  Feature names, the class name and the notes are *untrusted*: they
may contain anything (quotes, markup, newlines, SQL).  Each output format
therefore has its own private escaping helper, and the code generators
(:func:`render_python`, :func:`render_sql`) only ever emit names as quoted
literals or quoted identifiers.  Points and the threshold are validated to be
integers and are always written with ``%d``.

The card layout follows the score card of Ustun & Rudin's SLIM paper::

    PREDICT MALIGNANT IF SCORE > 3
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

import html
import keyword
import operator
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "CardData",
    "render_text",
    "render_html",
    "render_latex",
    "render_markdown",
    "render_python",
    "render_sql",
]


# --------------------------------------------------------------------------
# Data and validation
# --------------------------------------------------------------------------

def _exact_str(value: object, what: str, *, coerce: bool) -> str:
    """Return ``value`` as an exact ``str`` (never a subclass).

    A ``str`` subclass could override ``__repr__``/``__str__``; copying it to
    a plain ``str`` means later ``repr()`` calls behave normally.
    """
    if not isinstance(value, str):
        if not coerce:
            raise TypeError(f"{what} must be a str, got {type(value).__name__}")
        value = str(value)
    return str.__str__(value)


def _exact_int(value: object, what: str) -> int:
    """Return ``value`` as an exact ``int``; reject bools, floats, strings."""
    if isinstance(value, bool) or type(value).__name__ in ("bool_", "bool"):
        raise TypeError(f"{what} must be an integer, not a boolean")
    try:
        number = operator.index(value)
    except TypeError:
        raise TypeError(
            f"{what} must be an integer, got {type(value).__name__}"
        ) from None
    return int.__int__(number)


@dataclass(frozen=True)
class CardData:
    """Everything needed to draw one scoring system.

    Attributes:
        rows: ``(feature name, points)`` pairs in display order.
        threshold: predict the positive class iff the total score > threshold.
        positive: name of the positive class, e.g. ``"Malignant"``.
        binary: one flag per row; ``True`` for a 0/1 feature ("name ... 4
            points"), ``False`` for a count/real feature ("4 points × name").
        notes: footer lines (status, metrics), shown as plain text.
        family: ``"slim"`` (a score card) or another model family; only
            ``"m_of_n"`` changes the drawing (an M-of-N rule table, when every
            row has the same positive points).

    The constructor validates and normalises its input: names must be
    ``str`` and unique, points and threshold must be integers (numpy integers
    are accepted, ``bool`` and floats raise :class:`TypeError`), and
    ``binary`` must have one entry per row.  Sequences become tuples.

    Examples:
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

    def __post_init__(self) -> None:
        rows = []
        for i, row in enumerate(self.rows, start=1):
            name, points = row
            name = _exact_str(name, f"name of row {i}", coerce=False)
            rows.append((name, _exact_int(points, f"points of row {i} ({name!r})")))
        names = [name for name, _ in rows]
        if len(set(names)) != len(names):
            raise ValueError("feature names must be unique")
        binary = tuple(bool(flag) for flag in self.binary)
        if len(binary) != len(rows):
            raise ValueError(
                f"binary has {len(binary)} entries but there are {len(rows)} rows"
            )
        set_field = object.__setattr__  # the dataclass is frozen
        set_field(self, "rows", tuple(rows))
        set_field(self, "threshold", _exact_int(self.threshold, "threshold"))
        set_field(self, "positive", _exact_str(self.positive, "positive", coerce=True))
        set_field(self, "binary", binary)
        set_field(
            self,
            "notes",
            tuple(_exact_str(n, "note", coerce=True) for n in self.notes),
        )
        set_field(self, "family", _exact_str(self.family, "family", coerce=False))


# --------------------------------------------------------------------------
# Shared wording (built only from ints and fixed text)
# --------------------------------------------------------------------------

def _points(points: int) -> str:
    """``1 -> '1 point'``, ``-1 -> '-1 point'``, ``4 -> '4 points'``."""
    return "%d point%s" % (points, "" if abs(points) == 1 else "s")


def _title(card: CardData, escape: Callable[[str], str], gt: str = ">") -> str:
    """``PREDICT <POSITIVE> IF SCORE > <T>``; ``escape`` is the format's helper.

    The class name is upper-cased *before* escaping, never after.
    """
    return "PREDICT %s IF SCORE %s %d" % (
        escape(card.positive.upper()), gt, card.threshold)


def _total(n_rows: int, dash: str) -> str:
    if n_rows == 1:
        return "ADD POINTS FROM ROW 1"
    return "ADD POINTS FROM ROWS 1%s%d" % (dash, n_rows)


_EMPTY = "no features: SCORE = 0"


def _rule_table(card: CardData) -> tuple[int, int] | None:
    """(M, N) when ``card`` is drawn as an M-of-N rule table, else None.

    Every row carries the same p > 0 points, so the score is p times the number
    k of true rules, and ``p k > threshold`` holds iff ``k >= threshold // p + 1``.
    """
    if card.family != "m_of_n":
        return None
    points = {p for _, p in card.rows}
    if len(points) > 1 or any(p <= 0 for p in points):
        return None
    p = points.pop() if points else 1
    return max(card.threshold // p + 1, 0), len(card.rows)


def _rule_title(card: CardData, escape: Callable[[str], str], m: int, n: int) -> str:
    """The headline of an M-of-N table (the class name upper-cased before escaping)."""
    cls = escape(card.positive.upper())
    if m == 0:
        return "PREDICT %s FOR EVERY CASE" % cls
    if m > n:
        return "NEVER PREDICT %s" % cls
    if n == 1:
        return "PREDICT %s IF THE FOLLOWING RULE IS TRUE" % cls
    return "PREDICT %s IF AT LEAST %d OF THE FOLLOWING %d RULES ARE TRUE" % (cls, m, n)


def _table_rules(card: CardData, m: int, n: int) -> list[str]:
    """The rule names to list under the headline (none when they cannot matter)."""
    return [name for name, _ in card.rows] if 1 <= m <= n else []


# --------------------------------------------------------------------------
# Plain text
# --------------------------------------------------------------------------

# Bidirectional formatting characters can reorder what a reader sees.
_BIDI = set("\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _text_escape(s: str) -> str:
    """Make control, line-separator and bidi characters visible escapes."""
    out = []
    for ch in s:
        if ch in _NAMED_ESCAPES:
            out.append(_NAMED_ESCAPES[ch])
        elif ch in _BIDI or unicodedata.category(ch) in ("Cc", "Zl", "Zp"):
            code = ord(ch)
            out.append("\\x%02x" % code if code < 0x100 else "\\u%04x" % code)
        else:
            out.append(ch)
    return "".join(out)


def _width(s: str) -> int:
    """Approximate terminal width: wide CJK counts 2, combining marks 0."""
    width = 0
    for ch in s:
        if unicodedata.combining(ch):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def _pad(s: str, width: int) -> str:
    return s + " " * (width - _width(s))


def render_text(card: CardData) -> str:
    """Render the card as aligned plain text (one line per row).

    Control characters in names become visible escapes (``\\n``, ``\\x1b``)
    so a name can never add or fake a line.

    Examples:
        >>> card = CardData((("Bare Nuclei", 2), ("Mitoses", -1)), 1,
        ...                 "Malignant", (False, True), ("status: optimal",))
        >>> print(render_text(card))
        PREDICT MALIGNANT IF SCORE > 1
        1.  2 points × Bare Nuclei      .....
        2.  Mitoses         -1 point  + .....
            ADD POINTS FROM ROWS 1–2  = SCORE
        status: optimal
    """
    table = _rule_table(card)
    if table is not None:
        lines = [_rule_title(card, _text_escape, *table)]
        rules = _table_rules(card, *table)
        num_w = len("%d." % len(rules)) if rules else 0
        for i, name in enumerate(rules):
            lines.append("%s  %s" % (("%d." % (i + 1)).ljust(num_w), _text_escape(name)))
        lines.extend(_text_escape(note) for note in card.notes)
        return "\n".join(line.rstrip() for line in lines)
    lines = [_title(card, _text_escape)]
    if not card.rows:
        lines.append(_EMPTY)
    else:
        names = [_text_escape(name) for name, _ in card.rows]
        pts = [_points(p) for _, p in card.rows]
        phrases = ["%s × %s" % (p, n) for p, n in zip(pts, names)]
        bin_rows = [i for i, flag in enumerate(card.binary) if flag]
        name_w = max((_width(names[i]) for i in bin_rows), default=0)
        pts_w = max((len(pts[i]) for i in bin_rows), default=0)
        total = _total(len(card.rows), "–")
        # The full width must also hold the per-unit phrases and total label.
        full_w = max(
            [name_w + 3 + pts_w, _width(total)]
            + [_width(phrases[i]) for i, f in enumerate(card.binary) if not f]
        )
        name_w = full_w - 3 - pts_w
        num_w = len("%d." % len(card.rows))
        for i, flag in enumerate(card.binary):
            if flag:
                label = _pad(names[i], name_w) + "   " + pts[i].rjust(pts_w)
            else:
                label = _pad(phrases[i], full_w)
            plus = "  " if i == 0 else "+ "
            number = ("%d." % (i + 1)).ljust(num_w)
            lines.append("%s  %s  %s....." % (number, label, plus))
        lines.append("%s  %s  = SCORE" % (" " * num_w, _pad(total, full_w)))
    lines.extend(_text_escape(note) for note in card.notes)
    return "\n".join(line.rstrip() for line in lines)


# --------------------------------------------------------------------------
# HTML
# --------------------------------------------------------------------------

def _html_escape(s: str) -> str:
    return html.escape(s, quote=True)


_CELL = "padding:2px 8px;border:none;text-align:left;"
_RIGHT = "padding:2px 8px;border:none;text-align:right;"


def render_html(card: CardData) -> str:
    """Render the card as a self-contained ``<div>`` (inline CSS only).

    Suitable as the return value of ``_repr_html_``.  Every untrusted string
    is passed through :func:`html.escape` with ``quote=True``.

    Examples:
        >>> card = CardData((("<b>", 3),), 0, "Yes", (True,))
        >>> out = render_html(card)
        >>> "&lt;b&gt;" in out and "<b>" not in out
        True
    """
    esc = _html_escape
    table = _rule_table(card)
    title = _title(card, esc, "&gt;") if table is None else _rule_title(card, esc, *table)
    parts = [
        '<div class="slimwidgets-card" style="display:inline-block;'
        "font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;"
        'border:1px solid #888;border-radius:4px;padding:6px 10px;">',
        '<table style="border-collapse:collapse;border:none;">',
        '<caption style="caption-side:top;text-align:left;font-weight:bold;'
        'padding:2px 8px;">%s</caption>'
        % title,
    ]
    if table is not None:
        rules = _table_rules(card, *table)
        if rules:
            parts.append("<tbody>")
            for i, name in enumerate(rules):
                parts.append('<tr><td style="%s">%d.</td><td style="%s">%s</td></tr>'
                             % (_RIGHT, i + 1, _CELL, esc(name)))
            parts.append("</tbody>")
    elif not card.rows:
        parts.append(
            '<tbody><tr><td colspan="4" style="%s">%s</td></tr></tbody>'
            % (_CELL, _EMPTY)
        )
    else:
        parts.append("<tbody>")
        for i, ((name, points), flag) in enumerate(zip(card.rows, card.binary)):
            plus = "&nbsp;&nbsp;" if i == 0 else "+&nbsp;"
            if flag:
                middle = '<td style="%s">%s</td><td style="%s">%s</td>' % (
                    _CELL, esc(name), _RIGHT, _points(points))
            else:
                middle = '<td colspan="2" style="%s">%s &times; %s</td>' % (
                    _CELL, _points(points), esc(name))
            parts.append(
                '<tr><td style="%s">%d.</td>%s<td style="%s">%s.....</td></tr>'
                % (_RIGHT, i + 1, middle, _CELL, plus)
            )
        parts.append("</tbody>")
        parts.append(
            '<tfoot><tr style="border-top:1px solid #888;"><td style="%s"></td>'
            '<td colspan="2" style="%s">%s</td><td style="%s">= SCORE</td>'
            "</tr></tfoot>"
            % (_CELL, _CELL, _total(len(card.rows), "&ndash;"), _CELL)
        )
    parts.append("</table>")
    for note in card.notes:
        parts.append(
            '<div style="padding:2px 8px;color:#555;">%s</div>' % esc(note)
        )
    parts.append("</div>")
    return "\n".join(parts)


# --------------------------------------------------------------------------
# LaTeX
# --------------------------------------------------------------------------

_LATEX_MAP = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    # These print as other glyphs in the default OT1 font encoding.
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}


def _latex_escape(s: str) -> str:
    """Escape TeX specials; control characters (newlines too) become spaces."""
    out = []
    for ch in s:
        if unicodedata.category(ch) in ("Cc", "Zl", "Zp"):
            out.append(" ")
        else:
            out.append(_LATEX_MAP.get(ch, ch))
    return "".join(out)


def render_latex(card: CardData) -> str:
    """Render the card as a LaTeX ``tabular`` (no preamble needed).

    Names are escaped so that e.g. ``$\\input{x}$`` prints literally.
    Non-ASCII names need a Unicode-capable setup (pdfLaTeX handles accented
    Latin letters by default; CJK needs XeLaTeX/LuaLaTeX or a CJK package).

    Examples:
        >>> card = CardData((("a_b", 4),), 2, "Yes", (True,))
        >>> print(render_latex(card))
        \\begin{tabular}{rllr}
        \\multicolumn{4}{l}{\\textbf{PREDICT YES IF SCORE $>$ 2}} \\\\
        \\hline
        1. & a\\_b & 4 points & \\ldots \\\\
        \\hline
         & \\multicolumn{2}{l}{ADD POINTS FROM ROW 1} & $=$ SCORE \\\\
        \\end{tabular}
    """
    table = _rule_table(card)
    if table is not None:
        lines = [
            r"\begin{tabular}{rl}",
            r"\multicolumn{2}{l}{\textbf{%s}} \\" % _rule_title(card, _latex_escape, *table),
            r"\hline",
        ]
        for i, name in enumerate(_table_rules(card, *table)):
            lines.append(r"%d. & %s \\" % (i + 1, _latex_escape(name)))
        for note in card.notes:
            lines.append(r"\multicolumn{2}{l}{%s} \\" % _latex_escape(note))
        lines.append(r"\end{tabular}")
        return "\n".join(lines)
    title = _title(card, _latex_escape, "$>$")
    lines = [
        r"\begin{tabular}{rllr}",
        r"\multicolumn{4}{l}{\textbf{%s}} \\" % title,
        r"\hline",
    ]
    if not card.rows:
        lines.append(r"\multicolumn{4}{l}{no features: SCORE $=$ 0} \\")
    else:
        for i, ((name, points), flag) in enumerate(zip(card.rows, card.binary)):
            plus = r"\ldots" if i == 0 else r"$+$ \ldots"
            if flag:
                middle = "%s & %s" % (_latex_escape(name), _points(points))
            else:
                middle = r"\multicolumn{2}{l}{%s $\times$ %s}" % (
                    _points(points), _latex_escape(name))
            lines.append(r"%d. & %s & %s \\" % (i + 1, middle, plus))
        lines.append(r"\hline")
        lines.append(
            r" & \multicolumn{2}{l}{%s} & $=$ SCORE \\"
            % _total(len(card.rows), "--")
        )
    for note in card.notes:
        lines.append(r"\multicolumn{4}{l}{%s} \\" % _latex_escape(note))
    lines.append(r"\end{tabular}")
    return "\n".join(lines)


# --------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------

# The usual markdown punctuation, plus "~" (GFM strikethrough) and "$"
# (GitHub renders $...$ as math).
_MARKDOWN_SPECIALS = set("\\`*_{}[]()#+-.!|<>~$")


def _markdown_escape(s: str) -> str:
    """Backslash-escape markdown punctuation, ``&`` -> ``&amp;``, no newlines."""
    out = []
    for ch in s:
        if ch == "&":
            out.append("&amp;")
        elif ch in _MARKDOWN_SPECIALS:
            out.append("\\" + ch)
        elif unicodedata.category(ch) in ("Cc", "Zl", "Zp"):
            out.append(" ")
        else:
            out.append(ch)
    return "".join(out)


def render_markdown(card: CardData) -> str:
    """Render the card as a GitHub-flavoured markdown table.

    Names cannot break the table (``|`` is escaped, newlines become spaces)
    or inject HTML (``<`` and ``&`` are neutralised).

    Examples:
        >>> card = CardData((("a|b", 4), ("c", 1)), 2, "Yes", (True, False))
        >>> print(render_markdown(card))
        **PREDICT YES IF SCORE > 2**
        <BLANKLINE>
        | # | Feature | Points | |
        |--:|:--|--:|:--|
        | 1. | a\\|b | 4 points | ..... |
        | 2. | 1 point × c | | + ..... |
        | | ADD POINTS FROM ROWS 1–2 | | = SCORE |
    """
    table = _rule_table(card)
    if table is not None:
        lines = ["**%s**" % _rule_title(card, _markdown_escape, *table)]
        rules = _table_rules(card, *table)
        if rules:
            lines.append("")
        for i, name in enumerate(rules):
            lines.append("%d. %s" % (i + 1, _markdown_escape(name)))
        for note in card.notes:
            lines.extend(["", _markdown_escape(note)])
        return "\n".join(lines)
    lines = ["**%s**" % _title(card, _markdown_escape), ""]
    if not card.rows:
        lines.append(_EMPTY)
    else:
        lines.append("| # | Feature | Points | |")
        lines.append("|--:|:--|--:|:--|")
        for i, ((name, points), flag) in enumerate(zip(card.rows, card.binary)):
            plus = "....." if i == 0 else "+ ....."
            if flag:
                middle = "%s | %s" % (_markdown_escape(name), _points(points))
            else:
                middle = "%s × %s |" % (_points(points), _markdown_escape(name))
            lines.append("| %d. | %s | %s |" % (i + 1, middle, plus))
        lines.append("| | %s | | = SCORE |" % _total(len(card.rows), "–"))
    for note in card.notes:
        lines.extend(["", _markdown_escape(note)])
    return "\n".join(lines)


# --------------------------------------------------------------------------
# Python source
# --------------------------------------------------------------------------

# Names the generated module defines itself; the prediction function must not
# shadow them (``score`` would otherwise recurse into itself).
_RESERVED = frozenset({"POINTS", "THRESHOLD", "POSITIVE", "score"})

_PYTHON_TEMPLATE = '''\
"""Integer scoring system generated by slimwidgets.

Add POINTS[name] * row[name] over all features; predict the positive class
(POSITIVE) if that score is greater than THRESHOLD.
"""

POSITIVE = {positive}
THRESHOLD = {threshold}
POINTS = {points}


def score(row):
    """Total score of one row (any mapping: dict, pandas Series, ...)."""
    total = 0
    for name, points in POINTS.items():
        total = total + points * row[name]
    return total


def {function_name}(row):
    """1 if score(row) > THRESHOLD (predict POSITIVE), else 0."""
    return 1 if score(row) > THRESHOLD else 0
'''


def _python_literal(s: str) -> str:
    """A Python string literal for ``s`` (``s`` is an exact ``str``)."""
    return repr(s)


def _check_function_name(function_name: object) -> str:
    if not isinstance(function_name, str) or not function_name.isidentifier():
        raise ValueError(f"function_name must be an identifier: {function_name!r}")
    # Python NFKC-normalises identifiers, so check the normalised spelling.
    normalised = unicodedata.normalize("NFKC", function_name)
    if keyword.iskeyword(normalised):
        raise ValueError(f"function_name is a Python keyword: {function_name!r}")
    if normalised in _RESERVED:
        raise ValueError(
            f"function_name {function_name!r} clashes with a generated name"
        )
    return str.__str__(function_name)


def render_python(card: CardData, function_name: str = "predict") -> str:
    """Return the source of a dependency-free Python module for the card.

    The module defines ``POSITIVE``, ``THRESHOLD``, ``POINTS`` (feature name
    -> points), ``score(row)`` and ``<function_name>(row)`` returning 1/0.
    Names only ever appear as ``repr()`` string literals.

    Raises:
        ValueError: ``function_name`` is not an identifier, is a keyword, or
            is one of ``score``, ``POINTS``, ``THRESHOLD``, ``POSITIVE``.

    Examples:
        >>> card = CardData((("age > 60", 2),), 1, "Yes", (True,))
        >>> namespace = {}
        >>> exec(render_python(card, "is_yes"), namespace)
        >>> namespace["is_yes"]({"age > 60": 1}), namespace["score"]({"age > 60": 0})
        (1, 0)
    """
    function_name = _check_function_name(function_name)
    if card.rows:
        entries = "".join(
            "    %s: %d,\n" % (_python_literal(name), points)
            for name, points in card.rows
        )
        points_src = "{\n%s}" % entries
    else:
        points_src = "{}"
    return _PYTHON_TEMPLATE.format(
        positive=_python_literal(card.positive),
        threshold="%d" % card.threshold,
        points=points_src,
        function_name=function_name,
    )


# --------------------------------------------------------------------------
# SQL
# --------------------------------------------------------------------------

def _sql_identifier(s: str) -> str:
    """Double-quote an SQL identifier, doubling embedded quotes."""
    if "\x00" in s:
        raise ValueError(f"SQL identifiers cannot contain NUL: {s!r}")
    return '"%s"' % s.replace('"', '""')


def render_sql(card: CardData, table: str = "patients") -> str:
    """Return a ``SELECT`` adding ``prediction`` and ``score`` columns.

    Every column and the table are double-quoted identifiers (standard SQL;
    SQLite, PostgreSQL, DuckDB...).  The class name and notes are not
    emitted at all.

    Raises:
        ValueError: a feature name or ``table`` contains a NUL character.

    Examples:
        >>> card = CardData((("Age", 2), ('a"b', -1)), 0, "Yes", (False, True))
        >>> print(render_sql(card, "t"))
        SELECT *,
          CASE WHEN (2 * "Age" + -1 * "a""b") > 0 THEN 1 ELSE 0 END AS prediction,
          (2 * "Age" + -1 * "a""b") AS score
        FROM "t";
    """
    table_sql = _sql_identifier(_exact_str(table, "table", coerce=False))
    if card.rows:
        # Terms are joined with " + " so a negative point never forms "--".
        total = "(%s)" % " + ".join(
            "%d * %s" % (points, _sql_identifier(name))
            for name, points in card.rows
        )
    else:
        total = "0"
    return (
        "SELECT *,\n"
        "  CASE WHEN %s > %d THEN 1 ELSE 0 END AS prediction,\n"
        "  %s AS score\n"
        "FROM %s;" % (total, card.threshold, total, table_sql)
    )


# -- risk per score -------------------------------------------------------------------------------
# Rows are (score, count, events, rate, lower, upper): numbers only, formatted here, so no
# untrusted text can reach these tables.
RiskRows = tuple[tuple[float, float, float, float, float, float], ...]


def _risk_cells(row) -> tuple[str, str, str, str]:
    score, count, events, rate, lower, upper = row
    return (f"{score:g}", f"{count:g}", f"{events:g}", f"{100 * rate:.1f} % ({100 * lower:.1f}–{100 * upper:.1f} %)")


def risk_text(rows: RiskRows) -> str:
    """The observed event rate at each total score (Wilson 95 % interval), as plain text."""
    if not rows:
        return ""
    lines = ["", "", "RISK BY SCORE (training data)", f"{'score':>7}  {'rows':>7}  {'events':>7}  observed rate (95 % CI)"]
    for row in rows:
        score, count, events, rate = _risk_cells(row)
        lines.append(f"{score:>7}  {count:>7}  {events:>7}  {rate}")
    return "\n".join(lines)


def risk_html(rows: RiskRows) -> str:
    if not rows:
        return ""
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in _risk_cells(row)) + "</tr>" for row in rows)
    return ('<table class="sw-risk" style="border-collapse:collapse;margin-top:6px;font-size:12px">'
            "<caption>Risk by score (training data)</caption>"
            "<tr><th>score</th><th>rows</th><th>events</th><th>observed rate (95 % CI)</th></tr>" + body + "</table>")


def risk_markdown(rows: RiskRows) -> str:
    if not rows:
        return ""
    lines = ["", "", "**Risk by score** (training data)", "", "| score | rows | events | observed rate (95 % CI) |", "|---|---|---|---|"]
    lines += ["| " + " | ".join(_risk_cells(row)) + " |" for row in rows]
    return "\n".join(lines)


def risk_latex(rows: RiskRows) -> str:
    if not rows:
        return ""
    lines = ["", "", r"\begin{tabular}{rrrl}", r"\multicolumn{4}{l}{\textbf{RISK BY SCORE} (training data)} \\",
             r"score & rows & events & observed rate (95 \% CI) \\ \hline"]
    for row in rows:
        score, count, events, rate = _risk_cells(row)
        lines.append(f"{score} & {count} & {events} & {rate.replace('%', chr(92) + '%')} \\\\")
    lines.append(r"\end{tabular}")
    return "\n".join(lines)
