"""The validation report (:func:`report`): one standalone offline HTML document built from the
toolbox's validation figures, drawn with the ground floor's SVG charts and HTML card. It sits
above the toolbox and below the front ends, which both offer it (the CLI's ``slimwidgets report``
and the studio's Report export)."""

from .document import data_fingerprint, dataset_rows, report

__all__ = ["report", "data_fingerprint", "dataset_rows"]
