"""A card in words and in every export format: the layout handed to :mod:`slimwidgets.export`
(points, threshold, notes, the status in the user's units, the risk table) and the
``to_text`` / ``to_html`` / ``to_latex`` / ``to_markdown`` / ``to_python`` / ``to_sql`` methods.

:class:`CardRendering` is a mixin of :class:`~slimwidgets.core.scoring.ScoringSystem`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .. import export as render
from .._version import __version__
from .family import family_of_card
from .status import describe, details_text

__all__ = ["CardRendering"]


class CardRendering:
    """How a card reads (a mixin of :class:`~slimwidgets.core.scoring.ScoringSystem`)."""

    if TYPE_CHECKING:  # the card's fields live on ScoringSystem, which this class is part of

        def __getattr__(self, name: str) -> Any: ...

    def _card_data(self) -> render.CardData:
        rows = tuple(self.points.items())
        binary = self.binary or (True,) * len(self.feature_names)
        kinds = tuple(binary[self.feature_names.index(n)] for n, _ in rows)
        status = describe(self, validation=self.validation_metrics)  # type: ignore[arg-type]  # a ScoringSystem
        notes = [] if self.train_metrics is None else [f"train: {self.train_metrics}"]
        if self.validation_metrics is not None:
            notes.append(f"validation: {self.validation_metrics}")
        notes.append(status.headline)
        if status.warning:
            notes.append(f"warning: {status.warning}")
        if "cv" in self.details:  # set by slimwidgets.fit_cv
            notes.append(_cv_line(self.details["cv"], family_of_card(self)))
        notes.extend(self.details.get("box_limits", ()))  # boxes the card sits at the end of
        notes.extend(entry["note"] for entry in self.history)  # e.g. recalibrated for a new site
        return render.CardData(
            rows=rows,
            threshold=self.threshold,
            positive=self.positive_name or str(self.positive),
            binary=kinds,
            notes=tuple(notes),
            family=self.family,
            level=status.level,
            details=details_text(status),
            rule=self.rule,
            multiplier=self.multiplier,
            **self._variables(rows),
        )

    def _variables(self, rows: tuple) -> dict:
        """What the exports need of the rule builder: the points by variable
        and what each rule tests."""
        if self.rules is None:
            return {}
        by_name = {r.name: r for r in self.rules.rules_}
        return {
            "variables": tuple(self.rules.points_table(dict(rows))),
            "rule_defs": tuple(tuple(by_name[name][1:]) for name, _ in rows),
        }

    def status_line(self) -> str:
        """What the card is and what is proven about it, in the user's units (see
        :func:`slimwidgets.describe`), e.g. ``"error 12.1 % · proven lowest"``."""
        return describe(self, validation=self.validation_metrics).headline  # type: ignore[arg-type]  # a ScoringSystem

    def _risk_rows(self) -> tuple:
        # Rule tables count rules, not points: their risk-by-score table would read wrongly.
        return (self.risk or ()) if self.family != "m_of_n" else ()

    def _predicted(self) -> tuple[float, ...] | None:
        """The predicted risk beside each row of the risk table (risk cards only)."""
        if self.multiplier is None:
            return None
        return tuple(float(p) for p in self.predicted_risk([row[0] for row in self._risk_rows()]))

    def to_text(self) -> str:
        return render.render_text(self._card_data()) + render.risk_text(
            self._risk_rows(), self._predicted()
        )

    def to_html(self, document: bool = True) -> str:
        """The card as a standalone HTML document (doctype, charset, title, print styles,
        risk table); ``document=False`` gives the fragment a notebook shows."""
        if not document:
            return render.render_html(self._card_data()) + render.risk_html(
                self._risk_rows(), self._predicted()
            )
        return render.render_document(
            self._card_data(),
            self._risk_rows(),
            generator=f"slimwidgets {__version__}",
            predicted=self._predicted(),
        )

    def to_latex(self) -> str:
        return render.render_latex(self._card_data()) + render.risk_latex(
            self._risk_rows(), self._predicted()
        )

    def to_markdown(self) -> str:
        return render.render_markdown(self._card_data()) + render.risk_markdown(
            self._risk_rows(), self._predicted()
        )

    def to_python(self, function_name: str = "predict") -> str:
        """Source of a dependency-free Python module that scores a mapping row."""
        return render.render_python(self._card_data(), function_name=function_name)

    def to_sql(self, table: str = "patients") -> str:
        return render.render_sql(self._card_data(), table=table)


def _cv_line(cv: Mapping[str, Any], family: Any) -> str:
    """The card's one line on its cross-validation (see slimwidgets.fit_cv), the held-out score
    in the units of the card's ``family`` (an error in %, a log-loss as a number)."""
    chosen = ", ".join(
        f"{k} = {'auto' if v is None else f'{v:g}'}" for k, v in cv["chosen"].items()
    )
    mean = family.held_out_words(cv["test_error"])
    spread = family.held_out_words(cv["test_error_std"]).removesuffix(" %")  # the unit once
    return f"CV: test {cv['error']} {mean} ± {spread} ({cv['folds']} folds), chosen {chosen}"
