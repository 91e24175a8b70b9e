"""The card as a LaTeX tabular, every name escaped."""

from __future__ import annotations

import unicodedata

from .card import (
    MISSING_NOTE,
    VARIABLES_TOTAL,
    CardData,
    HorizonRows,
    RiskRows,
    band_text,
    headline,
    horizon_header,
    horizon_lines,
    points_label,
    risk_header,
    risk_lines,
    rule_headline,
    rule_table,
    table_rules,
    total_line,
)

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


# Signs the cards write (and a few more a name may hold), as pdfLaTeX sets them with no package:
# written as Unicode, pdfLaTeX stops on most ("Unicode character ≤ not set up for use with LaTeX").
_SIGNS = {
    "≤": r"$\leq$",
    "≥": r"$\geq$",
    "≠": r"$\neq$",
    "≈": r"$\approx$",
    "±": r"$\pm$",
    "×": r"$\times$",
    "÷": r"$\div$",
    "·": r"$\cdot$",
    "−": r"$-$",
    "–": "--",
    "—": "---",
    "…": r"\ldots{}",
    "→": r"$\rightarrow$",
    "←": r"$\leftarrow$",
    "∞": r"$\infty$",
    "°": r"\textdegree{}",
    "µ": r"$\mu$",
    "«": r"\guillemotleft{}",
    "»": r"\guillemotright{}",
    "‘": "`",
    "’": "'",
    "“": "``",
    "”": "''",
    "\u00a0": "~",
    "€": r"\texteuro{}",
    "£": r"\pounds{}",
    "§": r"\S{}",
    "¶": r"\P{}",
    "©": r"\copyright{}",
    "®": r"\textregistered{}",
    "™": r"\texttrademark{}",
    "•": r"\textbullet{}",
}

# Latin letters pdfLaTeX's default set-up (utf8, OT1 fonts) cannot set: measured with pdflatex
# (TeX Live 2022) over U+00A0-U+017F.
_NOT_IN_OT1 = set("ÐÞðþĄąĐđĘęĦħĮįĸĿŀŉŊŋŦŧŲųſ")


def _latex_char(ch: str) -> str:
    """One character of a name or a card's text as pdfLaTeX can set it: a TeX special escaped,
    a sign written as LaTeX, a Latin letter kept, anything else folded to its base letter
    (ą -> a) or, when it has none, written as its code point [U+4E2D] (pdfLaTeX has no glyph
    for it; XeLaTeX or LuaLaTeX would)."""
    if ch in _LATEX_MAP:
        return _LATEX_MAP[ch]
    if ch in _SIGNS:
        return _SIGNS[ch]
    if unicodedata.category(ch) in ("Cc", "Zl", "Zp"):
        return " "
    if ch.isascii() or ("\u00a0" <= ch <= "\u017f" and ch not in _NOT_IN_OT1):
        return ch
    base = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
    return "".join(_LATEX_MAP.get(b, b) for b in base) if base else f"[U+{ord(ch):04X}]"


def _latex_escape(s: str) -> str:
    """Escape TeX specials and write every other sign so that pdfLaTeX sets it; control
    characters (newlines too) become spaces.

    Examples
    --------
    >>> print(_latex_escape("age ≥ 60 · 5–9 % & $x$ ą 中"))
    age $\\geq$ 60 $\\cdot$ 5--9 \\% \\& \\$x\\$ a [U+4E2D]
    """
    return "".join(_latex_char(ch) for ch in s)


def _latex_band(s: str) -> str:
    """A band or level label: escaped, with the signs pdfLaTeX knows."""
    return _latex_escape(s).replace("≥", r"$\geq$").replace("–", "--")


def render_latex(card: CardData) -> str:
    """Render the card as a LaTeX ``tabular`` (no preamble needed).

    Names are escaped so that e.g. ``$\\input{x}$`` prints literally, and every sign is
    written so that pdfLaTeX compiles the table with no package: accented Latin letters are
    kept, a letter pdfLaTeX has no glyph for is folded to its base letter, and a character
    with none (CJK, ...) is written as its code point.

    Examples:
        >>> card = CardData((("a_b", 4),), 2, "Yes", (True,))
        >>> print(render_latex(card))
        \\begin{tabular}{rllr}
        \\multicolumn{4}{l}{\\textbf{PREDICT YES IF SCORE $\\geq$ 2}} \\\\
        \\hline
        1. & a\\_b & 4 points & \\ldots \\\\
        \\hline
         & \\multicolumn{2}{l}{ADD POINTS FROM ROW 1} & $=$ SCORE \\\\
        \\end{tabular}
    """
    table = rule_table(card)
    if table is not None:
        lines = [
            r"\begin{tabular}{rl}",
            r"\multicolumn{2}{l}{\textbf{%s}} \\" % rule_headline(card, _latex_escape, *table),
            r"\hline",
        ]
        for i, name in enumerate(table_rules(card, *table)):
            lines.append(r"%d. & %s \\" % (i + 1, _latex_escape(name)))
        for note in card.notes:
            lines.append(r"\multicolumn{2}{l}{%s} \\" % _latex_escape(note))
        lines.append(r"\end{tabular}")
        return "\n".join(lines)
    title = headline(card, _latex_escape, "$>$", r"$\geq$")
    lines = [
        r"\begin{tabular}{rllr}",
        r"\multicolumn{4}{l}{\textbf{%s}} \\" % title,
        r"\hline",
    ]
    if card.variables:
        for name, bands in card.variables:
            lines.append(
                r"%s & \multicolumn{3}{l}{%s} \\"
                % (_latex_escape(name), band_text(bands, _latex_band, r" $\cdot$ "))
            )
        lines.append(r"\hline")
        lines.append(r" & \multicolumn{3}{l}{%s $=$ SCORE} \\" % VARIABLES_TOTAL)
        lines.append(r"\multicolumn{4}{l}{%s} \\" % MISSING_NOTE)
    elif not card.rows:
        lines.append(r"\multicolumn{4}{l}{no features: SCORE $=$ 0} \\")
    else:
        for i, ((name, points), flag) in enumerate(zip(card.rows, card.binary)):
            plus = r"\ldots" if i == 0 else r"$+$ \ldots"
            if flag:
                middle = "%s & %s" % (_latex_escape(name), points_label(points))
            else:
                middle = r"\multicolumn{2}{l}{%s $\times$ %s}" % (
                    points_label(points),
                    _latex_escape(name),
                )
            lines.append(r"%d. & %s & %s \\" % (i + 1, middle, plus))
        lines.append(r"\hline")
        lines.append(r" & \multicolumn{2}{l}{%s} & $=$ SCORE \\" % total_line(len(card.rows), "--"))
    for note in card.notes:
        lines.append(r"\multicolumn{4}{l}{%s} \\" % _latex_escape(note))
    lines.append(r"\end{tabular}")
    return "\n".join(lines)


# The usual markdown punctuation, plus "~" (GFM strikethrough) and "$"
# (GitHub renders $...$ as math).


def risk_latex(rows: RiskRows, predicted=None) -> str:
    """The observed event rate at each total score (and a risk card's predicted risk)."""
    if not rows:
        return ""
    head = risk_header(predicted)
    columns = "rrrl" + "r" * (len(head) - 4)
    title = r"\textbf{RISK BY SCORE} (training data)"
    return _table(title, columns, head, risk_lines(rows, predicted))


def horizon_latex(horizons: tuple, rows: HorizonRows) -> str:
    """A time-to-event card's risk by each horizon per total score, predicted and observed."""
    if not rows:
        return ""
    head = horizon_header(horizons)
    title = r"\textbf{RISK OF THE EVENT BY EACH HORIZON} (training data; observed: Kaplan--Meier)"
    return _table(title, "rr" + "rl" * len(horizons), head, horizon_lines(rows))


def _table(title: str, columns: str, head: tuple[str, ...], lines: list[tuple[str, ...]]) -> str:
    """A titled tabular of cells the package formatted, each escaped for pdfLaTeX."""
    out = [
        "",
        "",
        r"\begin{tabular}{%s}" % columns,
        r"\multicolumn{%d}{l}{%s} \\" % (len(head), title),
        " & ".join(_latex_escape(h) for h in head) + r" \\ \hline",
    ]
    out += [" & ".join(_latex_escape(c) for c in cells) + " \\\\" for cells in lines]
    return "\n".join(out + [r"\end{tabular}"])
