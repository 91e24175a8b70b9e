"""The studio's exports: the card on screen written to a file, and the line of Python that
reads it back."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.family import family_of_card
from ..core.scoring import ScoringSystem

if TYPE_CHECKING:
    from .studio_core import StudioCore

__all__ = ["EXPORT_FORMATS", "export_card", "CardExports"]

EXPORT_FORMATS = {
    "json": ".json",
    "html": ".html",
    "latex": ".tex",
    "markdown": ".md",
    "python": ".py",
    "sql": ".sql",
    "report": "_report.html",  # the validation report (slimwidgets.report)
}


def export_card(
    card: ScoringSystem,
    fmt: str = "json",
    path: str | os.PathLike | None = None,
    *,
    report: Callable[[], str] | None = None,
) -> tuple[Path, str]:
    """Write ``card`` as ``fmt``; returns (path, the line of Python that reloads it).

    ``report`` writes the ``"report"`` format: the studio's validation report of the card
    (:func:`slimwidgets.report` on its training and held-out rows).

    ``sql`` is one ``SELECT`` that adds the score and the prediction to every row of a table
    named ``patients`` whose columns are the card's rules (:meth:`ScoringSystem.to_sql`).

    The line carries its own import, so it runs as shown in any namespace.
    A file that cannot be written raises ``OSError`` naming the path and why.
    """
    fmt = fmt.lower()
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"format must be one of {sorted(EXPORT_FORMATS)}, got {fmt!r}")
    if fmt == "report" and report is None:
        raise ValueError("a report needs the card's rows: call slimwidgets.report(card, X, y)")
    path = Path(path) if path is not None else Path(f"scoring_system{EXPORT_FORMATS[fmt]}")
    if fmt == "report" and report is not None:
        text = report()
    else:
        text = family_of_card(card).export(card, fmt)
    try:
        path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    except OSError as exc:
        folder = path.parent
        reason = (
            f"the folder {str(folder)!r} does not exist"
            if not folder.is_dir()
            else exc.strerror or str(exc)
        )
        raise OSError(f"could not write {str(path)!r}: {reason}") from None
    shown = str(path)
    if shown.lstrip()[:1] in (
        "{",
        "[",
        '"',
    ):  # from_json would read such a text as JSON, not as a file name
        shown = os.path.join(".", shown)
    p = repr(shown)  # a Python literal: quotes and backslashes in the path stay inert
    line = {
        "json": f"import slimwidgets; card = slimwidgets.ScoringSystem.from_json({p})",
        "html": f"import IPython.display; IPython.display.HTML(filename={p})",
        "latex": f"latex = open({p}, encoding='utf-8').read()",
        "markdown": f"import IPython.display; IPython.display.Markdown(filename={p})",
        "python": f"import runpy; predict = runpy.run_path({p})['predict']",
        "sql": f"sql = open({p}, encoding='utf-8').read()  # SELECT ... FROM \"patients\": name "
        "your table",
        "report": f"import IPython.display; IPython.display.HTML(filename={p})",
    }[fmt]
    return path, line


class CardExports:
    """The exports of the studio (a feature object: it writes the card of the studio's core,
    with a report on its training and held-out rows).

    Parameters
    ----------
    core : the studio's core, whose card is written.
    """

    def __init__(self, core: StudioCore) -> None:
        self._core = core

    def export(self, fmt: str = "json", path: str | os.PathLike | None = None) -> tuple[Path, str]:
        """Write the card on screen; returns (path, the line of Python that reloads it).

        The line carries its own import, so it runs as shown in any namespace.
        A file that cannot be written raises ``OSError`` naming the path and why.

        Parameters
        ----------
        fmt : one of :data:`EXPORT_FORMATS`.
        path : where to write (None: ``scoring_system`` with the format's extension).
        """
        card = self._core.card
        if card is None:
            raise RuntimeError("there is no card to export")
        return export_card(card, fmt, path, report=lambda: self._report(card))

    def _report(self, card: ScoringSystem) -> str:
        """The validation report of ``card`` on the training rows and the held-out rows, if any."""
        from ..reporting import dataset_rows, report

        validation = self._core.validation
        held_out = None if validation is None else dataset_rows(validation)
        return report(card, *dataset_rows(self._core.data), test=held_out, progress=False)
