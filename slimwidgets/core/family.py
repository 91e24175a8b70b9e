"""The card families and the look-ups that choose one: the only place their names are read.

:data:`FAMILIES` lists every family object (:class:`~slimwidgets.core.card_family.CardFamily`);
code elsewhere asks the object these functions return, never its name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from . import cox_floor  # noqa: F401  (registers the time-to-event floors on its loss)
from .card_family import DEFAULT_LOSS, CardFamily
from .decision_family import DECISION
from .risk_family import RISK
from .survival_family import TIME_TO_EVENT

__all__ = [
    "FAMILIES",
    "DECISION",
    "RISK",
    "TIME_TO_EVENT",
    "family_for",
    "family_of_loss",
    "family_of_card",
    "family_of_file",
    "family_named",
]

#: every card family, the first that reads a fit's ``y`` and options is its family
FAMILIES: tuple[CardFamily, ...] = (TIME_TO_EVENT, RISK, DECISION)


def family_for(
    y: Any, options: Mapping[str, Any], families: tuple[CardFamily, ...] | None = None
) -> CardFamily:
    """The family of a fit of ``y`` under ``options``.

    Parameters
    ----------
    y : the fit's target (labels, or a ``Surv`` array).
    options : the fit's options (``loss`` among them, or not).
    families : the families asked, in turn (None: :data:`FAMILIES`).

    Returns
    -------
    CardFamily
        The first of ``families`` that reads ``y`` and ``options``.

    Examples
    --------
    >>> family_for([0, 1], {}).name, family_for([0, 1], {"loss": "logistic"}).name
    ('decision', 'risk')
    """
    return _first(lambda f: f.reads(y, options), families, "loss", options.get("loss"), _losses)


def family_of_loss(loss: str | None, families: tuple[CardFamily, ...] | None = None) -> CardFamily:
    """The family whose cards a spec of ``loss`` asks for (None: decision cards).

    Parameters
    ----------
    loss : a spec's ``loss`` option.
    families : the families asked (None: :data:`FAMILIES`).

    Returns
    -------
    CardFamily

    Examples
    --------
    >>> family_of_loss("logistic") is RISK, family_of_loss(None) is DECISION
    (True, True)
    """
    loss = DEFAULT_LOSS if loss is None else loss
    return _first(lambda f: f.loss_name == loss, families, "loss", loss, _losses)


def family_of_card(card: Any, families: tuple[CardFamily, ...] | None = None) -> CardFamily:
    """The family ``card`` belongs to (a card, a loaded card file, a time-to-event card).

    Parameters
    ----------
    card : anything with a ``family`` label.
    families : the families asked (None: :data:`FAMILIES`).

    Returns
    -------
    CardFamily

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> family_of_card(SimpleNamespace(family="pilm")).name
    'decision'
    """
    label = getattr(card, "family", None)
    return _first(lambda f: f.makes(card), families, "card family", label, _labels)


def family_of_file(d: Any, families: tuple[CardFamily, ...] | None = None) -> CardFamily:
    """The family whose card file holds the JSON object ``d`` (by its ``family`` label; a file
    without one holds a decision card, as files written before the label did).

    Parameters
    ----------
    d : a card file's JSON object.
    families : the families asked (None: :data:`FAMILIES`).

    Returns
    -------
    CardFamily
        Decision cards' for a label no family makes: their reader refuses the file, naming the
        labels it reads.

    Examples
    --------
    >>> family_of_file({"family": "risk"}) is RISK, family_of_file({}) is DECISION
    (True, True)
    """
    label = d.get("family") if isinstance(d, Mapping) else None
    if label is None:
        return DECISION
    try:
        return family_of_card(_Labelled(label), families)
    except ValueError:
        return DECISION


class _Labelled:
    """Something labelled ``family``, as a card is: what :func:`family_of_card` reads."""

    def __init__(self, family: Any) -> None:
        self.family = family


def family_named(name: str, families: tuple[CardFamily, ...] | None = None) -> CardFamily:
    """The family called ``name`` (``"decision"``, ``"risk"``, ``"time_to_event"``).

    Parameters
    ----------
    name : a family's :attr:`~slimwidgets.core.card_family.CardFamily.name`.
    families : the families asked (None: :data:`FAMILIES`).

    Returns
    -------
    CardFamily

    Examples
    --------
    >>> family_named("risk") is RISK
    True
    """
    return _first(lambda f: f.name == name, families, "family", name, lambda f: (f.name,))


def _first(
    asks: Callable[[CardFamily], bool],
    families: tuple[CardFamily, ...] | None,
    what: str,
    value: Any,
    names: Callable[[CardFamily], tuple[str, ...]],
) -> CardFamily:
    """The first of ``families`` (None: :data:`FAMILIES`, as it is now) that ``asks`` accepts;
    else a ValueError naming ``what`` was asked for and the ``names`` the families know."""
    families = FAMILIES if families is None else families
    for family in families:
        if asks(family):
            return family
    known = [n for family in families for n in names(family)]
    raise ValueError(f"unknown {what} {value!r}; expected one of {known}")


def _losses(family: CardFamily) -> tuple[str, ...]:
    return (family.loss_name,)


def _labels(family: CardFamily) -> tuple[str, ...]:
    return family.card_labels
