"""A time-to-event card's words: its points by variable and its risk by horizon, as text and HTML.

Names from the data are escaped for HTML; every risk is a percentage, every horizon in the
data's time unit.
"""

from __future__ import annotations

import html
import math
import unicodedata
from typing import TYPE_CHECKING

from .formatting import percent

if TYPE_CHECKING:
    from .survival_card import SurvivalCard

__all__ = ["card_text", "card_html", "points_by_variable", "status_words"]

SUBHEADS = "<th>predicted</th><th>observed (95 % CI)</th>"  # under each horizon


def points_by_variable(card: SurvivalCard) -> list[tuple[str, list[tuple[str, int]]]]:
    """``[(variable, [(band or rule, points), ...]), ...]``: the card's rules grouped by the
    variable they read (one row per rule without a rule builder)."""
    if card.rules is not None:
        return [
            (variable, list(bands)) for variable, bands in card.rules.points_table(card.card_points)
        ]
    return [
        (name, [("yes" if card.details.get("binary", {}).get(name, True) else "per unit", points)])
        for name, points in card.card_points.items()
    ]


def status_words(card: SurvivalCard) -> str:
    """What the card's proof says, in the loss's unit (Cox partial log-likelihood per event),
    or, for a card recalibrated since, what changed."""
    if card.details.get("history"):
        return card.details["history"][-1]["note"]
    if card.status == "optimal":
        return (
            "proven best: no card within these limits has a higher Cox partial likelihood "
            f"(less size penalty; objective {card.objective:.6g} per event)"
        )
    if card.bound is None:
        return f"{card.status}: objective {card.objective:.6g} per event, no floor proven"
    return (
        f"{card.status}: objective {card.objective:.6g} per event; every card is at least "
        f"{card.bound:.6g} (gap {100 * (card.gap or 0.0):.2f} %)"
    )


def _interval(row, i: int) -> str:
    if row.observed[i] is None:
        return "–"
    if row.lower[i] is None:
        return percent(row.observed[i])
    return f"{percent(row.observed[i])} ({100 * row.lower[i]:.1f}–{100 * row.upper[i]:.1f})"


def _hazard_words(card: SurvivalCard) -> str:
    per_point = math.exp(1.0 / card.multiplier)
    return (
        f"each point multiplies the hazard of {card.names[0]!s} by {per_point:.3g} "
        f"(log hazard ratio = total / {card.multiplier:.4g})"
    )


def _one_line(text: str) -> str:
    """A name from the data on one line: control characters (newlines too) become spaces."""
    return "".join(" " if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch for ch in text)


def card_text(card: SurvivalCard) -> str:
    """The card as plain text: status, points by variable, risk by horizon per total score;
    every name on one line."""
    event, time = (_one_line(name) for name in card.names)
    lines = [f"Time-to-event card: {event} over {time}", f"  {status_words(card)}", "", "POINTS"]
    for variable, bands in points_by_variable(card) or [("(no variable)", [])]:
        lines.append(
            f"  {_one_line(variable)}: "
            + "  |  ".join(f"{_one_line(band)}: {points:+d}" for band, points in bands)
        )
    lines += [
        "",
        f"  {_one_line(_hazard_words(card))}",
        "",
        f"RISK OF THE EVENT BY {time} (predicted | Kaplan–Meier observed, 95 % CI)",
    ]
    header = f"  {'score':>5} {'rows':>6}" + "".join(
        f" | {'by ' + format(h, 'g'):>32}" for h in card.horizons
    )
    lines.append(header)
    for row in card.table:
        cells = "".join(
            f" | {percent(row.predicted[i]):>8} {_interval(row, i):>23}"
            for i in range(len(card.horizons))
        )
        lines.append(f"  {row.score:>5} {row.n_rows:>6g}{cells}")
    return "\n".join(lines)


def card_html(card: SurvivalCard) -> str:
    """The card as an HTML fragment (names from the data escaped)."""
    e = lambda text: html.escape(str(text), quote=True)  # noqa: E731
    points = "".join(
        f"<tr><td rowspan='{len(bands)}'>{e(variable)}</td>"
        + "</tr><tr>".join(
            f"<td>{e(band)}</td><td style='text-align:right'>{points:+d}</td>"
            for band, points in bands
        )
        + "</tr>"
        for variable, bands in points_by_variable(card)
    )
    heads = "".join(f"<th colspan='2'>by {e(format(h, 'g'))}</th>" for h in card.horizons)
    rows = "".join(
        f"<tr><td>{row.score}</td><td>{row.n_rows:g}</td>"
        + "".join(
            f"<td>{e(percent(row.predicted[i]))}</td><td>{e(_interval(row, i))}</td>"
            for i in range(len(card.horizons))
        )
        + "</tr>"
        for row in card.table
    )
    return (
        f"<div class='slimwidgets-survival-card'><h4>Time-to-event card: {e(card.names[0])} over "
        f"{e(card.names[1])}</h4><p>{e(status_words(card))}</p>"
        f"<table><tr><th>variable</th><th>band</th><th>points</th></tr>{points}</table>"
        f"<p>{e(_hazard_words(card))}</p>"
        f"<p>Risk of the event ({e(card.names[0])}) by each horizon of {e(card.names[1])}, per "
        "total score: predicted, and Kaplan–Meier's observed among the rows with that score</p>"
        f"<table><tr><th>score</th><th>rows</th>{heads}</tr>"
        f"<tr><th></th><th></th>{SUBHEADS * len(card.horizons)}</tr>"
        f"{rows}</table></div>"
    )
