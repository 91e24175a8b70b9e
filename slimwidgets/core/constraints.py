"""Logical constraints on which features a card uses (the paper's section 3, on the alpha_j)."""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .validators import names

__all__ = ["LogicalConstraint", "needs", "at_most", "at_least", "hierarchy"]


@dataclass(frozen=True)
class LogicalConstraint:
    """A constraint on which features a card uses (the paper's section 3, on the alpha_j).

    kinds: ``"needs"`` (every feature in ``features`` may be used only if every
    feature in ``targets`` is used: if-then and hierarchy), ``"at_most"`` and
    ``"at_least"`` (``k`` of ``features`` used).

    Parameters
    ----------
    kind : str
        ``"needs"``, ``"at_most"`` or ``"at_least"``.
    features : tuple of str
        The features the constraint is about.
    targets : tuple of str, default ()
        For ``"needs"``: the features that must be used when any of ``features`` is.
    k : int, default 0
        For ``"at_most"`` and ``"at_least"``: how many of ``features``.
    """

    kind: str
    features: tuple[str, ...]
    targets: tuple[str, ...] = ()
    k: int = 0

    def __post_init__(self) -> None:
        if self.kind not in ("needs", "at_most", "at_least"):
            raise ValueError(
                f"unknown constraint kind {self.kind!r}; use needs, at_most or at_least"
            )
        if not self.features or not all(isinstance(f, str) for f in self.features):
            raise ValueError(f"constraint {self.kind!r} needs a non-empty list of feature names")
        if self.kind == "needs":
            if not self.targets or not all(isinstance(f, str) for f in self.targets):
                raise ValueError("a 'needs' constraint needs the feature(s) it depends on")
            if set(self.features) & set(self.targets):
                raise ValueError(
                    "a feature cannot need itself: "
                    f"{sorted(set(self.features) & set(self.targets))}"
                )
        else:
            if not isinstance(self.k, numbers.Integral) or isinstance(self.k, bool) or self.k < 0:
                raise ValueError(f"{self.kind} needs a whole number k >= 0, got {self.k!r}")
            if self.kind == "at_least" and self.k > len(self.features):
                raise ValueError(
                    f"at_least {self.k} of {len(self.features)} features can never hold"
                )

    def describe(self) -> str:
        """The constraint in words, e.g. "at most 2 of a, b, c"."""
        if self.kind == "needs":
            return f"{' / '.join(self.features)} needs {' and '.join(self.targets)}"
        word = "at most" if self.kind == "at_most" else "at least"
        return f"{word} {self.k} of {', '.join(self.features)}"

    def to_dict(self) -> dict:
        """The constraint as plain JSON values."""
        out: dict[str, Any] = {"kind": self.kind, "features": list(self.features)}
        if self.kind == "needs":
            out["targets"] = list(self.targets)
        else:
            out["k"] = int(self.k)
        return out

    @classmethod
    def from_dict(cls, d: Mapping) -> LogicalConstraint:
        """The constraint :meth:`to_dict` wrote; a malformed one raises ``ValueError``.

        Parameters
        ----------
        d : dict
            The JSON object :meth:`to_dict` returned.
        """
        if not isinstance(d, Mapping) or "kind" not in d or "features" not in d:
            raise ValueError(
                f"a constraint must be a mapping with 'kind' and 'features', got {d!r}"
            )
        return cls(
            kind=str(d["kind"]),
            features=names(d["features"], "constraint features"),
            targets=names(d.get("targets", ()), "constraint targets"),
            k=d.get("k", 0),
        )


def needs(features: str | Sequence[str], targets: str | Sequence[str]) -> LogicalConstraint:
    """If any of ``features`` is used, all of ``targets`` must be used (if-then).

    Parameters
    ----------
    features : str or sequence of str
        The features whose use needs the targets.
    targets : str or sequence of str
        The features that must then be used.

    Examples
    --------
    >>> needs(["heart_attack", "hypertension"], "stroke").describe()
    'heart_attack / hypertension needs stroke'
    """
    return LogicalConstraint("needs", names(features, "features"), names(targets, "targets"))


def hierarchy(leaf: str, nodes: str | Sequence[str]) -> LogicalConstraint:
    """A leaf feature may be used only when every node above it is used.

    Parameters
    ----------
    leaf : str
        The feature lower in the hierarchy.
    nodes : str or sequence of str
        The features above it.
    """
    return needs(leaf, nodes)


def at_most(k: int, features: Sequence[str]) -> LogicalConstraint:
    """Use at most ``k`` of ``features`` (e.g. one of several correlated tests).

    Parameters
    ----------
    k : int
        The most of ``features`` the card may use.
    features : sequence of str
        The features counted.
    """
    return LogicalConstraint("at_most", names(features, "features"), k=k)


def at_least(k: int, features: Sequence[str]) -> LogicalConstraint:
    """Use at least ``k`` of ``features``.

    Parameters
    ----------
    k : int
        The fewest of ``features`` the card must use.
    features : sequence of str
        The features counted.
    """
    return LogicalConstraint("at_least", names(features, "features"), k=k)
