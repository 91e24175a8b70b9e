"""The card by variable in the studio, without Jupyter: what the points table shows for a card
fit on a raw table (the exports' grouping, :func:`~slimwidgets.core.variables.variable_entries`),
and what an edit of one band's points changes in the card's rules.

A threshold variable's rules are cumulative (``age >= 50``: 1, ``age >= 60``: 2), its bands are
what a clinician reads (``< 50: 0 · 50–59: 1 · ≥ 60: 3``). An edit names a band and the points it
should give; the rule that opens the band takes the difference and the rule that opens the next
band gives it back, so **every other band keeps its points** (what the table showed is what
changes). The lowest band is the reference: its points are 0 by construction, so it is not
editable. A level (``sex = F``) or ``missing`` is one rule: its points are the band's.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..core.scoring import ScoringSystem
from ..core.spec import Spec
from ..core.variables import variable_entries

if TYPE_CHECKING:
    from .studio_core import StudioCore

__all__ = [
    "card_variables",
    "band_edit",
    "points_of",
    "VariableEditing",
    "parse_cap",
    "MONOTONE_CHOICES",
]

#: The monotone choices of a numeric variable in the studio, and the spec's value of each.
MONOTONE_CHOICES = {"none": None, "increasing": "+", "decreasing": "-"}


def parse_cap(text: Any, what: str) -> int | None:
    """A cap typed in a box of the settings panel: empty (or "none") is no cap, else a whole
    number >= 0; ``ValueError`` naming the setting otherwise.

    >>> parse_cap(" 2 ", "max variables"), parse_cap("", "max variables")
    (2, None)
    """
    if text is None:
        return None
    value = str(text).strip()
    if value.lower() in ("", "none", "no cap", "\u221e"):
        return None
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not math.isfinite(number) or number < 0 or not number.is_integer():
        raise ValueError(
            f"{what} must be a whole number >= 0, or empty for no cap; got \u201c{value}\u201d"
        )
    return int(number)


def _entries(card: ScoringSystem, variable: str) -> list[tuple[str, int, tuple[str, ...], str]]:
    rules = card.rules
    mine = [r for r in rules.rules_ if r.column == variable]
    return variable_entries(
        mine, points_of(card), rules.integer_.get(variable, False), rules.pooled_.get(variable, [])
    )


def card_variables(
    card: ScoringSystem | None, spec: Spec, base: ScoringSystem | None = None
) -> list[dict] | None:
    """The card's points table by variable as the studio's card view draws it, or None for a
    card without rules (a 0/1 table: the view lists the rules themselves).

    One entry per variable with points, in the columns' order: ``{"variable", "bands",
    "locked"}``; each band ``{"label", "points", "editable", "rules", "kind", "edited"}``
    (``rules``: the rules behind it; ``edited``: its points differ from the solved card's).
    ``locked`` is true when every rule of the variable is locked.
    """
    if card is None or card.rules is None or not hasattr(card.rules, "rules_"):
        return None
    out = []
    for variable in dict.fromkeys(r.column for r in card.rules.rules_):
        entries = _entries(card, variable)
        if not entries:
            continue
        before = (
            {label: p for label, p, _, _ in _entries(base, variable)} if base is not None else {}
        )
        names = card.rules.rules_of(variable)
        out.append(
            {
                "variable": variable,
                "locked": bool(names) and all(n in spec.lock for n in names),
                "bands": [
                    {
                        "label": label,
                        "points": p,
                        "editable": bool(rules),
                        "rules": list(rules),
                        "kind": kind,
                        "edited": base is not None and before.get(label) != p,
                    }
                    for label, p, rules, kind in entries
                ],
            }
        )
    return out


def band_edit(
    card: ScoringSystem, variable: str, index: int, value: int, label: str | None = None
) -> dict[str, int]:
    """The rules' new points that give band ``index`` of ``variable`` the points ``value``, every
    other band keeping its own (see the module's docstring); ``label``, when given, must be the
    band's label (the card may have changed since the view drew it).

    >>> import pandas as pd
    >>> from slimwidgets.core.rules import RuleBuilder
    >>> b = RuleBuilder(cuts={"age": [50, 60]}).fit(pd.DataFrame({"age": [40, 55, 70]}))
    >>> card = ScoringSystem(["age >= 50", "age >= 60"], [1, 2], -2, rules=b)
    >>> band_edit(card, "age", 1, 2)      # 50–59: 1 -> 2, and >= 60 stays at 3
    {'age >= 50': 2, 'age >= 60': 1}
    """
    if card.rules is None:
        raise ValueError("this card has no variables: edit its rules' points")
    if variable not in {r.column for r in card.rules.rules_}:
        raise KeyError(f"unknown variable {variable!r}")
    entries = _entries(card, variable)
    if not 0 <= index < len(entries) or (label is not None and entries[index][0] != label):
        raise ValueError(
            f"the card changed since {variable!r} was drawn: its band {label or index!r} is gone; "
            "type the value again"
        )
    shown, points, rules, kind = entries[index]
    if not rules:
        raise ValueError(
            f"{shown} is the reference band of {variable!r}: its points are 0 and the other bands "
            "count from it; give the other bands more or fewer points instead"
        )
    current = points_of(card)
    change = int(value) - points
    if change == 0:
        return {}
    if kind != "band":
        return {rules[0]: int(value)}
    new = {rules[0]: current[rules[0]] + change}
    after = (
        entries[index + 1] if index + 1 < len(entries) and entries[index + 1][3] == "band" else None
    )
    if after is not None:  # the next band gives the difference back: it keeps its own points
        new[after[2][0]] = current[after[2][0]] - change
    return new


class VariableEditing:
    """Edits of the card by variable in the studio (a feature object: it reads the card, spec
    and rules of the studio's core, and edits the card or asks for a new spec).

    Parameters
    ----------
    core : the studio's core.
    request : shows the card of a new spec (the controller's
        :meth:`~slimwidgets.widgets.controller.Controller.set_spec`).
    edit : edits the points of the card on screen (the controller's
        :meth:`~slimwidgets.widgets.controller.Controller.edit`).
    """

    def __init__(
        self,
        core: StudioCore,
        request: Callable[..., None],
        edit: Callable[..., ScoringSystem],
    ) -> None:
        self._core, self._request, self._edit = core, request, edit

    def edit_band(
        self, variable: str, index: int, value: Any, label: str | None = None
    ) -> ScoringSystem:
        """Give band ``index`` of ``variable`` the points ``value`` (every other band keeps its
        own): one edit of the card, one undo step, no solve (as :meth:`edit`)."""
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            and not (isinstance(value, float) and value.is_integer())
        ):
            raise TypeError(f"points must be whole numbers, got {value!r} for {variable!r}")
        card = self._core.card
        if card is None:
            raise RuntimeError("there is no card to edit")
        changes = band_edit(card, variable, int(index), int(value), label)
        return self._edit(changes) if changes else card

    def set_caps(self, **caps: Any) -> Spec:
        """Set ``max_variables`` and/or ``max_cuts_per_variable`` from what a box holds (text or a
        number; empty: no cap): one undo step, a re-solve. Bad text, or a cap that clashes with
        what must be used (``max_variables=0`` with a requirement), raises ``ValueError`` in words
        and changes nothing."""
        words = {
            "max_variables": "max variables",
            "max_cuts_per_variable": "max cut points per variable",
        }
        unknown = sorted(set(caps) - set(words))
        if unknown:
            raise KeyError(f"no such cap: {', '.join(unknown)} (one of {', '.join(words)})")
        changes = {k: parse_cap(v, words[k]) for k, v in caps.items()}
        spec = self._core.spec.replace(**changes)
        self._request(spec)
        return spec

    def monotone_of(self, variable: str) -> str:
        """The monotone choice of ``variable`` as the panel shows it: "none",
        "increasing" or "decreasing"."""
        direction = self._core.spec.monotone.get(variable)
        return next(k for k, v in MONOTONE_CHOICES.items() if v == direction)

    def set_monotone(self, variable: str, choice: str) -> Spec:
        """Make the points of ``variable``'s bands rise ("increasing", "+"), fall ("decreasing",
        "-") or leave them free ("none"): one undo step, a re-solve. A choice the variable's
        locks, signs or ranges cannot meet raises ``ValueError`` saying which rule, and changes
        nothing."""
        value = {"+": "+", "-": "-", "\u2212": "-"}.get(choice, MONOTONE_CHOICES.get(choice, "?"))
        if value == "?":
            raise ValueError(
                f"monotone of {variable!r} must be one of {', '.join(MONOTONE_CHOICES)}, got "
                f"{choice!r}"
            )
        if variable not in self._core.spec.variables:
            raise KeyError(f"unknown variable {variable!r}")
        monotone = {k: v for k, v in self._core.spec.monotone.items() if k != variable}
        if value is not None:
            monotone[variable] = value
        spec = self._core.spec.replace(monotone=monotone)
        self._request(spec)
        return spec

    def lock_variable(self, variable: str, locked: bool = True) -> Spec:
        """Lock every rule of ``variable`` at its points on the card (its bands stay as shown in
        the next solves), or unlock them all: one undo step."""
        card, rules = self._core.card, self._core.rules
        if rules is None or variable not in {r.column for r in rules.rules_}:
            raise KeyError(f"unknown variable {variable!r}")
        names = rules.rules_of(variable)
        lock = {k: v for k, v in self._core.spec.lock.items() if k not in names}
        if locked:
            if card is None:
                raise RuntimeError("there is no card to lock a value from")
            points = points_of(card)
            lock.update({n: points[n] for n in names})
        # a rule locked at non-zero points cannot stay excluded, nor one locked at 0 required
        spec = self._core.spec.replace(
            lock=lock,
            exclude=[f for f in self._core.spec.exclude if lock.get(f, 0) == 0],
            require=[f for f in self._core.spec.require if lock.get(f) != 0],
        )
        self._request(spec, action="lock")
        return spec


def points_of(card: ScoringSystem) -> dict[str, int]:
    """The card's points by rule, 0 points included."""
    return dict(zip(card.feature_names, (int(c) for c in card.coefficients)))
