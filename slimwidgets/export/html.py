"""The card in HTML, every name escaped: a fragment for notebooks (:func:`render_html`)
and a standalone document to save, print or mail (:func:`render_document`)."""

from __future__ import annotations

import html

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
    table = rule_table(card)
    title = (
        headline(card, esc, "&gt;", "&ge;") if table is None else rule_headline(card, esc, *table)
    )
    parts = [
        '<div class="slimwidgets-card" style="display:inline-block;'
        "font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;"
        'border:1px solid #888;border-radius:4px;padding:6px 10px;">',
        '<table style="border-collapse:collapse;border:none;">',
        '<caption style="caption-side:top;text-align:left;font-weight:bold;'
        'padding:2px 8px;">%s</caption>' % title,
    ]
    if table is not None:
        rules = table_rules(card, *table)
        if rules:
            parts.append("<tbody>")
            for i, name in enumerate(rules):
                parts.append(
                    '<tr><td style="%s">%d.</td><td style="%s">%s</td></tr>'
                    % (_RIGHT, i + 1, _CELL, esc(name))
                )
            parts.append("</tbody>")
    elif card.variables:
        parts.extend(_variable_rows(card))
    elif not card.rows:
        parts.append(
            '<tbody><tr><td colspan="4" style="%s">%s</td></tr></tbody>' % (_CELL, EMPTY_CARD)
        )
    else:
        parts.append("<tbody>")
        for i, ((name, points), flag) in enumerate(zip(card.rows, card.binary)):
            plus = "&nbsp;&nbsp;" if i == 0 else "+&nbsp;"
            if flag:
                middle = '<td style="%s">%s</td><td style="%s">%s</td>' % (
                    _CELL,
                    esc(name),
                    _RIGHT,
                    points_label(points),
                )
            else:
                middle = '<td colspan="2" style="%s">%s &times; %s</td>' % (
                    _CELL,
                    points_label(points),
                    esc(name),
                )
            parts.append(
                '<tr><td style="%s">%d.</td>%s<td style="%s">%s.....</td></tr>'
                % (_RIGHT, i + 1, middle, _CELL, plus)
            )
        parts.append("</tbody>")
        parts.append(
            '<tfoot><tr style="border-top:1px solid #888;"><td style="%s"></td>'
            '<td colspan="2" style="%s">%s</td><td style="%s">= SCORE</td>'
            "</tr></tfoot>" % (_CELL, _CELL, total_line(len(card.rows), "&ndash;"), _CELL)
        )
    parts.append("</table>")
    parts.extend(_footer(card))
    parts.append("</div>")
    return "\n".join(parts)


def _variable_rows(card: CardData) -> list[str]:
    """The points table by variable: one row per variable, its bands and levels with points."""
    esc = _html_escape
    rows = [
        '<tr><td style="%s">%s</td><td colspan="3" style="%s">%s</td></tr>'
        % (_CELL, esc(name), _CELL, band_text(bands, esc, " &middot; "))
        for name, bands in card.variables
    ]
    return (
        ["<tbody>"]
        + rows
        + [
            "</tbody>",
            '<tfoot><tr style="border-top:1px solid #888;"><td style="%s"></td><td colspan="3" '
            'style="%s">%s = SCORE</td></tr><tr><td colspan="4" '
            'style="%scolor:#555;">%s</td></tr></tfoot>'
            % (_CELL, _CELL, VARIABLES_TOTAL, _CELL, MISSING_NOTE),
        ]
    )


# Amber and red that keep their contrast on white (WCAG AA for normal text).
_LEVEL_COLOUR = {"ok": "#555", "warn": "#8a5300", "error": "#b00020"}


def _footer(card: CardData) -> list[str]:
    """The notes (status in the card's level colour) and the raw figures behind a disclosure."""
    colour = _LEVEL_COLOUR[card.level]
    parts = [
        '<div class="sw-note sw-%s" style="padding:2px 8px;color:%s;">%s</div>'
        % (card.level, "#555" if note.startswith("train:") else colour, _html_escape(note))
        for note in card.notes
    ]
    if card.details:
        parts.append(
            '<details class="sw-details" style="padding:2px 8px;color:#555;">'
            "<summary>solver details</summary>%s</details>" % _html_escape(card.details)
        )
    return parts


def risk_html(rows: RiskRows, predicted=None) -> str:
    """The observed event rate at each total score (and a risk card's predicted risk)."""
    if not rows:
        return ""
    caption = "Risk by score (training data)"
    return _table(caption, risk_header(predicted), risk_lines(rows, predicted))


def horizon_html(horizons: tuple, rows: HorizonRows) -> str:
    """A time-to-event card's risk by each horizon per total score, predicted and observed."""
    if not rows:
        return ""
    caption = "Risk of the event by each horizon (training data; observed: Kaplan–Meier)"
    return _table(caption, horizon_header(horizons), horizon_lines(rows))


def _table(caption: str, head: tuple[str, ...], lines: list[tuple[str, ...]]) -> str:
    """A captioned table of cells the package formatted, each escaped all the same."""
    esc = _html_escape
    body = "".join(
        "<tr>" + "".join(f"<td>{esc(cell)}</td>" for cell in cells) + "</tr>" for cells in lines
    )
    return (
        '<table class="sw-risk" style="border-collapse:collapse;margin-top:6px;font-size:12px">'
        f"<caption>{esc(caption)}</caption>"
        "<tr>" + "".join(f"<th>{esc(name)}</th>" for name in head) + "</tr>" + body + "</table>"
    )


# Class selectors only: shown inside a notebook by mistake, the page's own styles are untouched.
_PRINT_CSS = """
.sw-document { margin: 2em; font-family: system-ui, sans-serif; }
.sw-risk td, .sw-risk th { padding: 2px 8px; text-align: right; border-bottom: 1px solid #ddd; }
@media print {
  .sw-document { margin: 0; }
  .slimwidgets-card { border-color: #000; break-inside: avoid; page-break-inside: avoid; }
  .sw-risk { break-inside: avoid; page-break-inside: avoid; }
  .sw-note { color: #000 !important; }
  details.sw-details > summary { list-style: none; }
}
"""


def render_document(
    card: CardData,
    risk: RiskRows = (),
    title: str | None = None,
    generator: str = "slimwidgets",
    predicted=None,
    horizon_rows: HorizonRows = (),
) -> str:
    """The card (and its risk table) as a complete HTML5 document: doctype, UTF-8 charset,
    an escaped title, print styles, ``generator`` (the package and version) in a meta tag;
    ``horizon_rows``: a time-to-event card's risk by each of ``card.horizons``.
    Nothing is loaded from elsewhere.

    Examples:
        >>> doc = render_document(CardData((("<b>", 3),), 0, "Yes", (True,)), title="a <card>")
        >>> doc.startswith("<!DOCTYPE html>") and "<title>a &lt;card&gt;</title>" in doc
        True
    """
    if title is None:
        table = rule_table(card)
        title = headline(card, str) if table is None else rule_headline(card, str, *table)
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<meta name="generator" content="%s">' % _html_escape(generator),
            "<title>%s</title>" % _html_escape(title),
            "<style>%s</style>" % _PRINT_CSS,
            "</head>",
            '<body>\n<main class="sw-document">',
            render_html(card)
            + risk_html(risk, predicted)
            + horizon_html(card.horizons, horizon_rows),
            "</main>\n</body>",
            "</html>",
            "",
        ]
    )
