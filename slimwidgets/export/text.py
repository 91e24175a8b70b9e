"""The card as aligned plain text (``print(card)``), names made visible, never executed."""

from __future__ import annotations

import unicodedata

from .card import (
    EMPTY_CARD,
    MISSING_NOTE,
    VARIABLES_TOTAL,
    CardData,
    RiskRows,
    band_text,
    headline,
    points_label,
    risk_header,
    risk_lines,
    rule_headline,
    rule_table,
    table_rules,
    total_line,
)

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
        PREDICT MALIGNANT IF SCORE ≥ 1
        1.  2 points × Bare Nuclei      .....
        2.  Mitoses         -1 point  + .....
            ADD POINTS FROM ROWS 1–2  = SCORE
        status: optimal
    """
    table = rule_table(card)
    if table is not None:
        lines = [rule_headline(card, _text_escape, *table)]
        rules = table_rules(card, *table)
        num_w = len("%d." % len(rules)) if rules else 0
        for i, name in enumerate(rules):
            lines.append("%s  %s" % (("%d." % (i + 1)).ljust(num_w), _text_escape(name)))
        lines.extend(_text_escape(note) for note in card.notes)
        return "\n".join(line.rstrip() for line in lines)
    lines = [headline(card, _text_escape)]
    if card.variables:
        lines += _variable_lines(card)
    elif not card.rows:
        lines.append(EMPTY_CARD)
    else:
        names = [_text_escape(name) for name, _ in card.rows]
        pts = [points_label(p) for _, p in card.rows]
        phrases = ["%s × %s" % (p, n) for p, n in zip(pts, names)]
        bin_rows = [i for i, flag in enumerate(card.binary) if flag]
        name_w = max((_width(names[i]) for i in bin_rows), default=0)
        pts_w = max((len(pts[i]) for i in bin_rows), default=0)
        total = total_line(len(card.rows), "–")
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


def _variable_lines(card: CardData) -> list[str]:
    """The points table by variable: ``age   < 50: 0 · 50–59: 1 · ≥ 60: 3``."""
    names = [_text_escape(name) for name, _ in card.variables]
    width = max(_width(n) for n in names)
    lines = [
        "%s   %s" % (_pad(n, width), band_text(bands, _text_escape))
        for n, (_, bands) in zip(names, card.variables)
    ]
    return lines + ["%s   %s = SCORE" % (" " * width, VARIABLES_TOTAL), MISSING_NOTE]


def risk_text(rows: RiskRows, predicted=None) -> str:
    """The observed event rate at each total score (Wilson 95 % interval), as plain text;
    ``predicted`` (risk cards): the card's predicted risk at each of those scores."""
    if not rows:
        return ""
    head = risk_header(predicted)
    lines = [
        "",
        "",
        "RISK BY SCORE (training data)",
        f"{head[0]:>7}  {head[1]:>7}  {head[2]:>7}  {head[3]:<28}"
        + (f"  {head[4]}" if len(head) > 4 else ""),
    ]
    for cells in risk_lines(rows, predicted):
        score, count, events, rate = cells[:4]
        lines.append(
            f"{score:>7}  {count:>7}  {events:>7}  {rate:<28}"
            + (f"  {cells[4]:>14}" if len(cells) > 4 else "")
        )
    return "\n".join(line.rstrip() for line in lines)
