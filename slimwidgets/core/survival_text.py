"""A time-to-event card's words: its points by variable and its risk by horizon, as text and HTML.

The points are drawn by :mod:`slimwidgets.export` from :func:`points_data`, as decision and risk
cards' are: one line per variable with its bands and levels, then the total. Names from the data
are escaped for HTML and made visible in text; every risk is a percentage, every horizon in the
data's time unit.
"""

from __future__ import annotations

import html
import math
import unicodedata
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..export import CardData, render_html, render_text
from .formatting import percent

if TYPE_CHECKING:
    from .survival_card import SurvivalCard

__all__ = ["card_text", "card_html", "points_data", "status_words"]

SUBHEADS = "<th>predicted</th><th>observed (95 % CI)</th>"  # under each horizon


def points_data(card: SurvivalCard) -> CardData:
    """The card's points as every export format draws them: by variable for a card fitted on a
    raw table (with each rule's test on its raw column), one numbered row per feature
    otherwise; the multiplier and Breslow's cumulative baseline hazard by each horizon.

    Parameters
    ----------
    card : SurvivalCard
        The card whose points are drawn.

    Returns
    -------
    CardData
        Without notes: the text, HTML and exports add their own.

    Examples
    --------
    >>> import numpy as np
    >>> from slimwidgets.core.survival_card import SurvivalCard
    >>> card = SurvivalCard(("smoker", "age"), (2, 0), 1.5, np.array([1.0, 2.0]),
    ...                     np.array([0.1, 0.3]), (2.0,), names=("died", "days"))
    >>> data = points_data(card)
    >>> data.rows, data.horizons
    ((('smoker', 2),), ((2.0, 0.3),))
    """
    rows = tuple(card.card_points.items())
    binary = card.details.get("binary", {})
    extra: dict[str, Any] = {}
    if card.rules is not None:
        by_name = {rule.name: rule for rule in card.rules.rules_}
        extra = {
            "variables": tuple(card.rules.points_table(dict(rows))),
            "rule_defs": tuple(tuple(by_name[name][1:]) for name, _ in rows),
        }
    return CardData(
        rows=rows,
        threshold=0,
        positive=card.names[0],
        binary=tuple(bool(binary.get(name, True)) for name, _ in rows),
        multiplier=float(card.multiplier),
        horizons=tuple((h, card.baseline_at(h)) for h in card.horizons),
        **extra,
    )


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
    """The card as plain text: what it predicts over which time; its points table by variable,
    printed as decision and risk cards print theirs (the score's headline, one line of bands
    and points per variable, the total); the status and what a point means; then the risk by
    each horizon per total score. Names from the data become visible escapes, never new lines.
    """
    event, time = (_one_line(name) for name in card.names)
    notes = (status_words(card), _hazard_words(card))
    lines = [
        f"Time-to-event card: {event} over {time}",
        render_text(replace(points_data(card), notes=notes)),
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
    """The card as an HTML fragment: what it predicts over which time; its points table by
    variable, drawn as decision and risk cards draw theirs; the status and what a point means;
    then the risk by each horizon per total score. Names from the data are escaped."""
    e = lambda text: html.escape(str(text), quote=True)  # noqa: E731
    notes = (status_words(card), _hazard_words(card))
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
        f"{e(card.names[1])}</h4>"
        + render_html(replace(points_data(card), notes=notes))
        + f"<p>Risk of the event ({e(card.names[0])}) by each horizon of {e(card.names[1])}, "
        "per total score: predicted, and Kaplan–Meier's observed among the rows with that "
        "score</p>"
        f"<table><tr><th>score</th><th>rows</th>{heads}</tr>"
        f"<tr><th></th><th></th>{SUBHEADS * len(card.horizons)}</tr>"
        f"{rows}</table></div>"
    )
