"""A card's JSON: what a card file holds, written with a checksum and read back checked.

:class:`CardJSON` gives :class:`~slimwidgets.core.scoring.ScoringSystem` its ``to_dict``,
``to_json``, ``from_json`` and ``from_dict``; every field read from a file is checked here
before it reaches a card.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from typing import TYPE_CHECKING, Any

from .._version import __version__
from .metrics import metric_counts, read_metrics
from .spec import ZERO_SCORES, Spec

if TYPE_CHECKING:
    from .scoring import ScoringSystem

__all__ = ["CardJSON", "checksum", "SCHEMA_VERSION", "READABLE_SCHEMAS", "STATUSES", "FAMILIES"]

#: 2: cards carry ``zero_score`` (what a total at the threshold predicts). Version 1 files
#: predate it and meant "positive iff score > threshold": they load as ``zero_score="error"``.
SCHEMA_VERSION = 2
READABLE_SCHEMAS = (1, 2)
STATUSES = (
    "optimal",
    "feasible",
    "time_limit",
    "interrupted",
    "solver_stopped",
    "edited",
    "heuristic",
    "recalibrated",
)
#: Model families (the paper's sec. 7): plain SLIM, personalized (tiered) penalties,
#: M-of-N rule tables and threshold-rule models; and risk cards (``loss="logistic"``).
#: JSON without the field means "slim".
FAMILIES = ("slim", "pilm", "m_of_n", "tilm", "risk")


class CardJSON:
    """The JSON side of a card (a mixin of :class:`~slimwidgets.core.scoring.ScoringSystem`)."""

    if TYPE_CHECKING:  # the card's fields live on ScoringSystem, which this class is part of

        def __getattr__(self, name: str) -> Any: ...

    def to_dict(self) -> dict:
        body = {
            "schema_version": SCHEMA_VERSION,
            "package": "slimwidgets",
            "package_version": __version__,
            "feature_names": list(self.feature_names),
            "coefficients": list(self.coefficients),
            "intercept": self.intercept,
            "zero_score": self.zero_score,
            "positive": self.positive,
            "negative": self.negative,
            "binary": None if self.binary is None else list(self.binary),
            "positive_name": self.positive_name,
            "status": self.status,
            "objective": _finite(self.objective),
            "bound": _finite(self.bound),
            "gap": _finite(self.gap),
            "solve_time": self.solve_time,
            "solver": self.solver,
            "spec": None if self.spec is None else self.spec.to_dict(),
            "train_metrics": None
            if self.train_metrics is None
            else metric_counts(self.train_metrics),
        }
        if self.family != "slim":  # absent means "slim": plain cards export exactly as before
            body["family"] = self.family
        if self.risk is not None:
            body["risk"] = [list(row) for row in self.risk]
        if self.details.get("limits") is not None:  # how the bound reads in the user's units
            body["limits"] = dict(self.details["limits"])
        if (
            self.validation_metrics is not None
        ):  # absent without held-out rows: plain cards export as before
            body["validation_metrics"] = metric_counts(self.validation_metrics)
        if self.details.get("box_limits"):  # absent when no box limits the card
            body["box_limits"] = list(self.details["box_limits"])
        if "cv" in self.details:  # absent unless the card came from fit_cv
            body["cross_validation"] = self.details["cv"]
        if self.details.get("sample"):  # absent unless a large table was searched on a sample
            body["sample"] = {k: self.details["sample"][k] for k in ("rows", "of", "note")}
        if self.multiplier is not None:
            body["multiplier"] = self.multiplier
        if (
            self.rules is not None
        ):  # absent for cards fit on 0/1 or numeric columns: they export as before
            body["rules"] = self.rules.to_dict()
        if self.history:  # absent unless recalibrated: older cards export exactly as before
            body["history"] = [dict(entry) for entry in self.history]
        body["checksum"] = checksum(body)
        return body

    def to_json(self, path: str | None = None, indent: int | None = 2) -> str:
        """JSON text (also written to ``path`` if given); reload with :meth:`from_json`."""
        text = json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)
        if path is not None:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
        return text

    @classmethod
    def from_json(cls, text_or_path: str, *, verify: bool = True) -> ScoringSystem:
        """Load a card from JSON text or a file path.

        Raises ``ValueError`` naming what is wrong for malformed JSON, a wrong
        schema, bad field types, and (with ``verify=True``) content that does
        not match its checksum, i.e. a file edited after export.
        """
        if isinstance(text_or_path, os.PathLike):
            text_or_path = os.fspath(text_or_path)
        if not isinstance(text_or_path, str):
            raise TypeError(
                f"from_json expects JSON text or a file path, got {type(text_or_path).__name__}"
            )
        text = text_or_path
        if not text_or_path.lstrip().startswith(("{", "[", '"')):
            try:
                with open(text_or_path, encoding="utf-8") as fh:
                    text = fh.read()
            except OSError as exc:
                raise ValueError(f"not JSON and not a readable file: {exc}") from None
        try:
            d = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"malformed JSON: {exc}") from None
        return cls.from_dict(d, verify=verify)

    @classmethod
    def from_dict(cls, d: Any, *, verify: bool = True) -> ScoringSystem:
        if not isinstance(d, dict):
            raise ValueError("a scoring system JSON must be an object")
        if d.get("package") != "slimwidgets" or "schema_version" not in d:
            raise ValueError("not a slimwidgets scoring system (no package/schema_version fields)")
        version = d["schema_version"]
        if type(version) is not int or version not in READABLE_SCHEMAS:
            raise ValueError(
                f"schema_version {version!r} is not supported (this version reads "
                f"{list(READABLE_SCHEMAS)})"
            )
        if verify and d.get("checksum") != checksum(
            {k: v for k, v in d.items() if k != "checksum"}
        ):
            raise ValueError(
                "the scoring system's content does not match its checksum (edited after "
                "export?); pass verify=False to load it anyway"
            )
        required = ("feature_names", "coefficients", "intercept", "positive", "negative", "status")
        missing = [k for k in required if k not in d]
        if missing:
            raise ValueError(f"missing fields: {missing}")
        names, coefs = d["feature_names"], d["coefficients"]
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ValueError("feature_names must be a list of strings")
        if not isinstance(coefs, list) or not all(
            isinstance(c, int) and not isinstance(c, bool) for c in coefs
        ):
            raise ValueError("coefficients must be a list of integers")
        if not isinstance(d["intercept"], int) or isinstance(d["intercept"], bool):
            raise ValueError("intercept must be an integer")
        if d["status"] not in STATUSES:
            raise ValueError(f"unknown status {d['status']!r}")
        for label in ("positive", "negative"):
            if not isinstance(d[label], (str, int, float, bool)):
                raise ValueError(f"{label} label must be a string or number")
        family = d.get("family", "slim")
        if family not in FAMILIES:
            raise ValueError(
                f"unknown model family {family!r}; this version reads {list(FAMILIES)}"
            )
        # version 1 cards predate zero_score and predict score > threshold: carry that rule,
        # into their spec too, so that a refit from it solves the problem that made the card
        zero_score = "error" if version == 1 else d.get("zero_score", "positive")
        if zero_score not in ZERO_SCORES:
            raise ValueError(f"zero_score must be one of {list(ZERO_SCORES)}, got {zero_score!r}")
        try:
            spec_dict = d.get("spec")
            if version == 1 and isinstance(spec_dict, dict):
                spec_dict = {**spec_dict, "zero_score": "error"}
            spec = None if spec_dict is None else Spec.from_dict(spec_dict)
            tm, vm = d.get("train_metrics"), d.get("validation_metrics")
            metrics, validation = read_metrics(tm), read_metrics(vm)
            return cls(  # type: ignore[call-arg, return-value]  # cls is ScoringSystem
                tuple(names),
                tuple(coefs),
                d["intercept"],
                positive=d["positive"],
                negative=d["negative"],
                status=d["status"],
                objective=d.get("objective"),
                bound=d.get("bound"),
                gap=d.get("gap"),
                solve_time=d.get("solve_time"),
                solver=d.get("solver"),
                spec=spec,
                train_metrics=metrics,
                binary=d.get("binary"),
                positive_name=d.get("positive_name"),
                family=family,
                risk=_risk_rows(d.get("risk")),
                details={
                    **_limits(d.get("limits")),
                    **_box_limits(d.get("box_limits")),
                    **(
                        {}
                        if d.get("cross_validation") is None
                        else {"cv": _cv_block(d["cross_validation"])}
                    ),
                    **_history(d.get("history")),
                    **({} if d.get("sample") is None else {"sample": _sample_block(d["sample"])}),
                },
                validation_metrics=validation,
                zero_score=zero_score,
                multiplier=_multiplier(d.get("multiplier")),
                rules=_rule_builder(d.get("rules"), names),
            )
        except (TypeError, KeyError, ValueError) as exc:
            raise ValueError(f"invalid scoring system: {exc}") from None


def _sample_block(raw: Any) -> dict:
    """A card's sample (rows searched on, of how many, what it means), checked."""
    rows, of, note = int(raw["rows"]), int(raw["of"]), str(raw["note"])
    if not 0 < rows <= of:
        raise ValueError(f"sample of {rows} of {of} rows")
    return {"rows": rows, "of": of, "note": note}


def _box_limits(value: Any) -> dict:
    if value is None:
        return {}
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("box_limits must be a list of strings")
    return {"box_limits": tuple(value)}


def _risk_rows(value: Any) -> tuple | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(
        isinstance(row, list)
        and len(row) == 6
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in row)
        for row in value
    ):
        raise ValueError(
            "risk must be a list of [score, rows, events, rate, lower, upper] number lists"
        )
    return tuple(tuple(float(v) for v in row) for row in value)


def _limits(value: Any) -> dict:
    if value is None:
        return {}
    from .status import LimitScale

    if not isinstance(value, dict):
        raise ValueError("limits must be an object")
    return {"limits": LimitScale.from_dict(value).to_dict()}


#: what a card file's cross-validation may say it compared (``fit_cv``'s held-out scores)
_COMPARED = tuple(
    f"{how}{measure}"
    for measure in ("error", "log-loss")
    for how in ("", "balanced ", "class-weighted ")
)


def _cv_block(value: Any) -> dict:
    """A card file's cross-validation figures, checked before they are shown on the card."""

    def number(v: Any) -> bool:
        return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)

    ok = (
        isinstance(value, dict)
        and isinstance(value.get("folds"), int)
        and value["folds"] >= 2
        and value.get("error") in _COMPARED
        and all(number(value.get(k)) for k in ("test_error", "test_error_std"))
        and isinstance(value.get("chosen"), dict)
        and all(
            k in ("C0", "max_size") and (v is None or number(v)) for k, v in value["chosen"].items()
        )
    )
    if not ok:
        raise ValueError(
            "cross_validation must hold folds, error, test_error, test_error_std and chosen "
            "(C0/max_size)"
        )
    return value


def _rule_builder(value: Any, names: list) -> Any:
    """A card file's rule builder, checked: its rules must be the card's features, in order."""
    if value is None:
        return None
    from .rules import RuleBuilder

    builder = RuleBuilder.from_dict(value)
    if [r.name for r in builder.rules_] != list(names):
        raise ValueError("the rules do not match the card's features")
    return builder


def _history(value: Any) -> dict:
    """A card file's history entries (each with at least a ``note`` string)."""
    if value is None:
        return {}
    if not isinstance(value, list) or not all(
        isinstance(e, dict) and isinstance(e.get("note"), str) for e in value
    ):
        raise ValueError("history must be a list of objects, each with a note")
    return {"history": tuple(value)}


def _multiplier(value: Any) -> float | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise ValueError(f"multiplier must be a number, got {value!r}")
    return value


def _finite(v: float | None) -> float | None:
    return None if v is None or not math.isfinite(v) else float(v)


def checksum(body: dict) -> str:
    """The SHA-256 of ``body`` as canonical JSON (sorted keys, ASCII): a card file's checksum."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode()).hexdigest()
