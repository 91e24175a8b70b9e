"""The card as an HTML fragment (for notebooks), every name escaped."""

from __future__ import annotations

import html

from .card import (
    CardData, EMPTY_CARD, RiskRows, headline, points_label, risk_header, risk_lines, rule_headline, rule_table,
    table_rules, total_line,
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
    title = headline(card, esc, "&gt;") if table is None else rule_headline(card, esc, *table)
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
        rules = table_rules(card, *table)
        if rules:
            parts.append("<tbody>")
            for i, name in enumerate(rules):
                parts.append('<tr><td style="%s">%d.</td><td style="%s">%s</td></tr>'
                             % (_RIGHT, i + 1, _CELL, esc(name)))
            parts.append("</tbody>")
    elif not card.rows:
        parts.append(
            '<tbody><tr><td colspan="4" style="%s">%s</td></tr></tbody>'
            % (_CELL, EMPTY_CARD)
        )
    else:
        parts.append("<tbody>")
        for i, ((name, points), flag) in enumerate(zip(card.rows, card.binary)):
            plus = "&nbsp;&nbsp;" if i == 0 else "+&nbsp;"
            if flag:
                middle = '<td style="%s">%s</td><td style="%s">%s</td>' % (
                    _CELL, esc(name), _RIGHT, points_label(points))
            else:
                middle = '<td colspan="2" style="%s">%s &times; %s</td>' % (
                    _CELL, points_label(points), esc(name))
            parts.append(
                '<tr><td style="%s">%d.</td>%s<td style="%s">%s.....</td></tr>'
                % (_RIGHT, i + 1, middle, _CELL, plus)
            )
        parts.append("</tbody>")
        parts.append(
            '<tfoot><tr style="border-top:1px solid #888;"><td style="%s"></td>'
            '<td colspan="2" style="%s">%s</td><td style="%s">= SCORE</td>'
            "</tr></tfoot>"
            % (_CELL, _CELL, total_line(len(card.rows), "&ndash;"), _CELL)
        )
    parts.append("</table>")
    for note in card.notes:
        parts.append(
            '<div style="padding:2px 8px;color:#555;">%s</div>' % esc(note)
        )
    parts.append("</div>")
    return "\n".join(parts)


def risk_html(rows: RiskRows, predicted=None) -> str:
    if not rows:
        return ""
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>" for cells in risk_lines(rows, predicted))
    head = "".join(f"<th>{name}</th>" for name in risk_header(predicted))
    return ('<table class="sw-risk" style="border-collapse:collapse;margin-top:6px;font-size:12px">'
            "<caption>Risk by score (training data)</caption>"
            "<tr>" + head + "</tr>" + body + "</table>")
