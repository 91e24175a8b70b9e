"""A time-to-event card in every export format, and as a card file (JSON with a checksum).

:func:`card_data` hands :mod:`slimwidgets.export` what it draws or generates: the points (by
variable for a raw table, with each rule's test on its raw column), the multiplier and, per
horizon, Breslow's cumulative baseline hazard, from which SQL and Python compute the risk of the
event by each horizon. :func:`to_dict` and :func:`card_fields` write and read a card file; every
field read from a file is checked (:func:`card_fields`) before it reaches a card.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import export as render
from .._version import __version__
from .card_json import checksum
from .survival_text import points_data, status_words

if TYPE_CHECKING:
    from .survival_card import SurvivalCard

__all__ = ["card_data", "horizon_rows", "to_dict", "card_fields", "SURVIVAL_SCHEMA", "is_card_file"]

#: the version of a time-to-event card file
SURVIVAL_SCHEMA = 1
FAMILY = "time_to_event"
#: what a card's ``details`` keep in its file (the proof's counts stay with the fit)
KEPT_DETAILS = ("binary", "ties", "n_rows", "n_events", "max_size", "history")


def card_data(card: SurvivalCard) -> render.CardData:
    """What every export format needs of ``card``: points, rules, multiplier, horizons, notes."""
    notes = [
        status_words(card),
        f"time column: {card.names[1]}; risk by horizon h = 1 - exp(-H0(h) exp(score / "
        f"{card.multiplier:.6g})), H0 Breslow's baseline hazard",
    ]
    notes += [entry["note"] for entry in card.details.get("history", ())[:-1]]  # last: above
    level = "ok" if card.status == "optimal" else "warn"
    return replace(points_data(card), notes=tuple(notes), level=level)


def horizon_rows(card: SurvivalCard) -> render.HorizonRows:
    """The card's table as numbers: per total score its rows and, per horizon, the predicted
    risk and Kaplan–Meier's observed risk with its bounds."""
    return tuple(
        (row.score, row.n_rows, row.predicted, row.observed, row.lower, row.upper)
        for row in card.table
    )


def to_dict(card: SurvivalCard) -> dict:
    """The card as JSON-ready data with a checksum (read back by :func:`card_fields`)."""
    body = {
        "package": "slimwidgets",
        "package_version": __version__,
        "family": FAMILY,
        "schema_version": SURVIVAL_SCHEMA,
        "feature_names": list(card.feature_names),
        "points": [int(p) for p in card.points],
        "multiplier": float(card.multiplier),
        "baseline_times": [float(t) for t in card.baseline_times],
        "baseline_hazard": [float(h) for h in card.baseline_hazard],
        "horizons": [float(h) for h in card.horizons],
        "status": card.status,
        "objective": _finite(card.objective),
        "bound": _finite(card.bound),
        "solve_time": float(card.solve_time),
        "solver": card.solver,
        "names": list(card.names),
        "table": [
            [r.score, r.n_rows, list(r.predicted), list(r.observed), list(r.lower), list(r.upper)]
            for r in card.table
        ],
        "details": {k: card.details[k] for k in KEPT_DETAILS if k in card.details},
        "rules": None if card.rules is None else card.rules.to_dict(),
    }
    body["checksum"] = checksum(body)
    return body


def is_card_file(d: Any) -> bool:
    """Whether the JSON object ``d`` is a time-to-event card file."""
    return isinstance(d, dict) and d.get("family") == FAMILY


def card_fields(d: Any, verify: bool = True) -> dict[str, Any]:
    """The fields of the card in ``d`` (:func:`to_dict`'s output), every one checked, as the
    card's keyword arguments (its table as rows of numbers); ``ValueError`` naming what is
    wrong, or a checksum that does not match (``verify=False`` skips that check)."""
    if not is_card_file(d) or d.get("schema_version") != SURVIVAL_SCHEMA:
        raise ValueError(f"not a time-to-event card file of schema {SURVIVAL_SCHEMA}")
    if verify and d.get("checksum") != checksum({k: v for k, v in d.items() if k != "checksum"}):
        raise ValueError(
            "the card's content does not match its checksum (edited after export?); "
            "pass verify=False to load it anyway"
        )
    names, points = _strings(d.get("feature_names"), "feature_names"), d.get("points")
    if not isinstance(points, list) or len(points) != len(names):
        raise ValueError("points must be a list with one integer per feature")
    times, hazard = _numbers(d.get("baseline_times")), _numbers(d.get("baseline_hazard"))
    if times.size == 0 or times.shape != hazard.shape or (np.diff(hazard) < 0).any():
        raise ValueError("baseline_times and baseline_hazard must be as long, the hazard rising")
    return {
        "feature_names": tuple(names),
        "points": tuple(_integer(p) for p in points),
        "multiplier": _positive(d.get("multiplier")),
        "baseline_times": times,
        "baseline_hazard": hazard,
        "horizons": tuple(float(h) for h in _numbers(d.get("horizons"))),
        "status": str(d.get("status")),
        "objective": d.get("objective"),
        "bound": d.get("bound"),
        "solve_time": float(d.get("solve_time") or 0.0),
        "solver": str(d.get("solver") or ""),
        "names": tuple(_strings(d.get("names"), "names")[:2]),
        "rules": None if d.get("rules") is None else _rules(d["rules"], names),
        "table": tuple(
            (int(r[0]), float(r[1]), *(tuple(c) for c in r[2:6])) for r in d.get("table") or ()
        ),
        "details": dict(d.get("details") or {}),
    }


def _strings(value: Any, field: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{field} must be a list of strings")
    return value


def _numbers(value: Any) -> np.ndarray:
    if not isinstance(value, list) or not all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value
    ):
        raise ValueError("baseline times, hazards and horizons must be lists of finite numbers")
    return np.asarray(value, dtype=float)


def _integer(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"points must be integers, got {value!r}")
    return value


def _positive(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
        raise ValueError(f"multiplier must be a finite number > 0, got {value!r}")
    return float(value)


def _rules(value: Any, names: list[str]) -> Any:
    from .rules import RuleBuilder

    builder = RuleBuilder.from_dict(value)
    if [r.name for r in builder.rules_] != names:
        raise ValueError("the rules do not match the card's features")
    return builder


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)
