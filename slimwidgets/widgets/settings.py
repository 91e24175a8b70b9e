"""The studio's settings edits, without Jupyter: each control (a global option, a feature's
row of the panel, a lock, the card family) makes a new spec from the current one and hands it
to the controller's :meth:`~slimwidgets.widgets.controller.Controller.set_spec`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..core.family import DECISION, RISK, family_of_loss
from ..core.spec import Spec, refused_options, set_options
from ..core.wording import options_text

if TYPE_CHECKING:
    from .studio_core import StudioCore

__all__ = ["FeatureSettings", "SettingsEditing", "FAMILY_LOSS", "USES", "SIGNS"]

USES = ("auto", "exclude", "require")
SIGNS = ("free", "+", "-")

#: The studio's two card families and the loss each is learned with.
#: the families the studio offers, by name: the loss each asks for
FAMILY_LOSS = {family.name: family.loss_name for family in (DECISION, RISK)}


@dataclass(frozen=True)
class FeatureSettings:
    """One row of the feature panel, read from a spec."""

    name: str
    use: str  # auto | exclude | require
    sign: str  # free | + | -
    penalty: float | None  # None: the global C0
    points_range: tuple[int, int]
    locked: int | None

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "use": self.use,
            "sign": self.sign,
            "penalty": self.penalty,
            "points_range": list(self.points_range),
            "locked": self.locked,
        }


def _refused_settings(spec: Spec) -> dict[str, str]:
    """The spec fields set in ``spec`` that its loss family refuses: ``{field: how to name it}``."""
    return set_options(spec, refused_options(spec))


def _default(name: str) -> Any:
    """The value of the spec field ``name`` when it is not set."""
    return getattr(Spec(), name)


class SettingsEditing:
    """The settings controls of the studio (a feature object: it reads the spec, data and card
    of the studio's core and asks for a new spec).

    Parameters
    ----------
    core : the studio's core.
    request : shows the card of a new spec (the controller's
        :meth:`~slimwidgets.widgets.controller.Controller.set_spec`).
    """

    def __init__(self, core: StudioCore, request: Callable[..., None]) -> None:
        self._core, self._request = core, request
        self._set_aside: dict[str, Any] = {}  # options the last family switch set aside

    def update(self, **changes: Any) -> Spec:
        """Change global options (``max_fpr=0.2``, ``min_tpr=0.8``, ``max_size=None``, ``C0``,
        ``coef_range``, ``time_limit``...); invalid values raise
        ``ValueError`` and change nothing."""
        spec = self._core.spec.replace(**changes)
        self._request(spec)
        return spec

    def feature(self, name: str) -> FeatureSettings:
        self.check_known(name)
        s = self._core.spec
        use = "exclude" if name in s.exclude else "require" if name in s.require else "auto"
        return FeatureSettings(
            name,
            use,
            s.signs.get(name, "free"),
            s.penalties.get(name),
            tuple(s.coef_ranges.get(name, s.coef_range)),
            s.lock.get(name),
        )

    def features(self) -> list[FeatureSettings]:
        return [self.feature(n) for n in self._core.data.feature_names]

    def set_feature(
        self,
        name: str,
        *,
        use: str | None = None,
        sign: str | None = None,
        penalty: float | None | str = "keep",
        points_range: Any = None,
    ) -> Spec:
        """Change one feature's row of the panel; re-solves. ``penalty=None`` means the global C0.

        Excluding a feature locked at non-zero points (or requiring one locked at 0)
        drops the lock and says so in :attr:`notice`; a penalty change that leaves
        the card as it was says that too, once the card is solved.
        """
        self.check_known(name)
        s = self._core.spec
        changes: dict[str, Any] = {}
        dropped = ""
        if use is not None:
            changes, dropped = self._use_changes(name, use)
        if sign is not None:
            sign = {"−": "-", "–": "-"}.get(sign, sign)
            if sign not in SIGNS:
                raise ValueError(f"sign must be one of {SIGNS}, got {sign!r}")
            signs = {k: v for k, v in s.signs.items() if k != name}
            if sign != "free":
                signs[name] = sign
            changes["signs"] = signs
        watch = None
        if penalty != "keep":
            penalties = {k: v for k, v in s.penalties.items() if k != name}
            if penalty is not None:
                penalties[name] = penalty
            changes["penalties"] = penalties
            if penalties != dict(s.penalties):
                what = "the global C0" if penalty is None else f"{penalty:g}"
                watch = (
                    f"the penalty of {name!r} ({what}) changed nothing: the card is the same",
                    self._core.card,
                )
        if points_range is not None:
            lo, hi = points_range
            ranges = {k: list(v) for k, v in s.coef_ranges.items() if k != name}
            if (int(lo), int(hi)) != tuple(s.coef_range):
                ranges[name] = [int(lo), int(hi)]
            changes["coef_ranges"] = ranges
        spec = s.replace(**changes)
        self._request(spec, notice=dropped, watch=watch)
        return spec

    def _use_changes(self, name: str, use: str) -> tuple[dict[str, Any], str]:
        """The spec changes that give ``name`` the use ``use``, and the lock it drops (said)."""
        if use not in USES:
            raise ValueError(f"use must be one of {USES}, got {use!r}")
        s = self._core.spec
        changes: dict[str, Any] = {
            "exclude": [f for f in s.exclude if f != name] + ([name] if use == "exclude" else []),
            "require": [f for f in s.require if f != name] + ([name] if use == "require" else []),
        }
        locked = s.lock.get(name)
        if locked is not None and (
            (use == "exclude" and locked != 0) or (use == "require" and locked == 0)
        ):
            changes["lock"] = {k: v for k, v in s.lock.items() if k != name}
            return changes, f"{use}d {name!r}: dropped its lock at {locked} points"
        return changes, ""

    def check_known(self, name: str) -> None:
        if name not in self._core.data.feature_names:
            raise KeyError(f"unknown feature {name!r}")

    def lock(self, name: str, value: int | None = None) -> Spec:
        """Fix a feature's points (default: its value on the card) for the next solves.

        Locking an excluded feature at non-zero points drops the exclusion (and a
        required one at 0 drops the requirement); :attr:`notice` says so. A lock
        that clashes with the feature's sign or range is refused (``ValueError``).
        """
        self.check_known(name)
        if value is None:
            if self._core.card is None:
                raise RuntimeError("there is no card to lock a value from")
            value = dict(zip(self._core.card.feature_names, self._core.card.coefficients))[name]
        value = int(value)
        s = self._core.spec
        exclude, require, dropped = list(s.exclude), list(s.require), []
        if name in exclude and value != 0:
            exclude.remove(name)
            dropped.append("dropped its exclusion")
        if name in require and value == 0:
            require.remove(name)
            dropped.append("dropped its requirement")
        spec = s.replace(lock={**s.lock, name: value}, exclude=exclude, require=require)
        notice = f"locked {name!r} at {value} points: " + " and ".join(dropped) if dropped else ""
        self._request(spec, action="lock", notice=notice)
        return spec

    def unlock(self, name: str) -> Spec:
        self.check_known(name)
        return self.update(lock={k: v for k, v in self._core.spec.lock.items() if k != name})

    # -- the card family (decision / risk) ---------------------------------------------------------
    @property
    def family(self) -> str:
        """``"decision"`` or ``"risk"``: the family of the current spec."""
        return family_of_loss(self._core.spec.loss).name

    def set_family(self, family: str) -> Spec:
        """Switch between decision cards (``loss="zero_one"``) and risk cards (``"logistic"``);
        re-solves, and is one undo step.

        Options the new family refuses are set aside (never silently): :attr:`notice` names
        them, and switching back restores them when nothing else set them meanwhile.
        """
        if family not in FAMILY_LOSS:
            raise ValueError(f"family must be one of {sorted(FAMILY_LOSS)}, got {family!r}")
        s = self._core.spec
        if family == self.family:
            return s
        refused = _refused_settings(replace(s, loss=FAMILY_LOSS[family]))
        aside = {name: getattr(s, name) for name in refused}
        restore = {
            n: v
            for n, v in self._set_aside.items()
            if getattr(s, n) == _default(n) and n not in refused
        }
        spec = s.replace(loss=FAMILY_LOSS[family], **{n: _default(n) for n in refused}, **restore)
        parts = [
            f"set aside {options_text(s, refused)} ({family} cards have no use for it; "
            "switching back restores it)"
            if refused
            else "",
            f"restored {options_text(spec, {n: n for n in restore})}" if restore else "",
        ]
        before, self._set_aside = self._set_aside, aside  # set first: the views read it on "spec"
        try:
            self._request(
                spec,
                notice=f"{family} cards: "
                + ("; ".join(filter(None, parts)) or "every setting carries over"),
            )
        except BaseException:
            self._set_aside = before
            raise
        return spec

    def set_aside_text(self) -> str:
        """The options the last family switch set aside, as the "solved for" line names them
        ("" when none is waiting: switched back, or set again since)."""
        waiting = {
            n: n for n, v in self._set_aside.items() if getattr(self._core.spec, n) == _default(n)
        }
        return (
            options_text(
                replace(self._core.spec, **{n: self._set_aside[n] for n in waiting}), waiting
            )
            if waiting
            else ""
        )
