"""The card as a Markdown table, every name escaped."""

from __future__ import annotations

import unicodedata

from .card import (
    EMPTY_CARD,
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
        **PREDICT YES IF SCORE ≥ 2**
        <BLANKLINE>
        | # | Feature | Points | |
        |--:|:--|--:|:--|
        | 1. | a\\|b | 4 points | ..... |
        | 2. | 1 point × c | | + ..... |
        | | ADD POINTS FROM ROWS 1–2 | | = SCORE |
    """
    table = rule_table(card)
    if table is not None:
        lines = ["**%s**" % rule_headline(card, _markdown_escape, *table)]
        rules = table_rules(card, *table)
        if rules:
            lines.append("")
        for i, name in enumerate(rules):
            lines.append("%d. %s" % (i + 1, _markdown_escape(name)))
        for note in card.notes:
            lines.extend(["", _markdown_escape(note)])
        return "\n".join(lines)
    lines = ["**%s**" % headline(card, _markdown_escape), ""]
    if card.variables:
        lines += ["| Variable | Points |", "|:--|:--|"]
        lines += [
            "| %s | %s |" % (_markdown_escape(name), band_text(bands, _markdown_escape))
            for name, bands in card.variables
        ]
        lines += ["| %s | = SCORE |" % VARIABLES_TOTAL, "", MISSING_NOTE]
    elif not card.rows:
        lines.append(EMPTY_CARD)
    else:
        lines.append("| # | Feature | Points | |")
        lines.append("|--:|:--|--:|:--|")
        for i, ((name, points), flag) in enumerate(zip(card.rows, card.binary)):
            plus = "....." if i == 0 else "+ ....."
            if flag:
                middle = "%s | %s" % (_markdown_escape(name), points_label(points))
            else:
                middle = "%s × %s |" % (points_label(points), _markdown_escape(name))
            lines.append("| %d. | %s | %s |" % (i + 1, middle, plus))
        lines.append("| | %s | | = SCORE |" % total_line(len(card.rows), "–"))
    for note in card.notes:
        lines.extend(["", _markdown_escape(note)])
    return "\n".join(lines)


# Names the generated module defines itself; the prediction function must not
# shadow them (``score`` would otherwise recurse into itself).


def risk_markdown(rows: RiskRows, predicted=None) -> str:
    """The observed event rate at each total score (and a risk card's predicted risk)."""
    if not rows:
        return ""
    return _table(
        "**Risk by score** (training data)", risk_header(predicted), risk_lines(rows, predicted)
    )


def horizon_markdown(horizons: tuple, rows: HorizonRows) -> str:
    """A time-to-event card's risk by each horizon per total score, predicted and observed."""
    if not rows:
        return ""
    title = "**Risk of the event by each horizon** (training data; observed: Kaplan–Meier)"
    return _table(title, horizon_header(horizons), horizon_lines(rows))


def _table(title: str, head: tuple[str, ...], lines: list[tuple[str, ...]]) -> str:
    """A titled table of cells the package formatted (numbers and its own words only)."""
    out = ["", "", title, "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return "\n".join(out + ["| " + " | ".join(cells) + " |" for cells in lines])
