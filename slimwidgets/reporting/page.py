"""What every report page shares: its style sheet, escaped tables and the standalone document.

Every label and cell is escaped; the page loads nothing from elsewhere and prints on A4.
"""

from __future__ import annotations

import hashlib
import html
import json
import platform
import re
from collections.abc import Callable, Mapping
from importlib import metadata
from typing import Any

import numpy as np
import pandas as pd

from .._version import __version__

__all__ = [
    "esc",
    "html_table",
    "html_document",
    "write_document",
    "definitions",
    "data_sets",
    "package_versions",
    "data_fingerprint",
]

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; font-size: 14px; color: #111;
       max-width: 1000px; margin: 2em auto; padding: 0 1em; line-height: 1.4; }
h1 { font-size: 1.6em; margin-bottom: .2em; } h2 { font-size: 1.25em; border-bottom: 1px solid #bbb;
     margin-top: 1.6em; } h3 { font-size: 1.05em; }
table.sw-table { border-collapse: collapse; margin: .5em 0 1em; font-size: 13px; }
table.sw-table th, table.sw-table td { padding: 3px 8px; border-bottom: 1px solid #ddd;
     text-align: left; vertical-align: top; }
table.sw-table td.sw-num { text-align: right; white-space: nowrap; }
table.sw-table caption { text-align: left; font-weight: 600; padding: 2px 0; }
table.sw-table thead th { border-bottom: 2px solid #666; }
.sw-muted { color: #555; } .sw-small { font-size: 12px; }
.sw-figure { margin: .5em 0 1em; } .sw-chart { max-width: 100%; height: auto; }
code { font-size: 12px; word-break: break-all; }
.slimwidgets-survival-card table { border-collapse: collapse; margin: .3em 0 .8em;
     font-size: 13px; }
.slimwidgets-survival-card th, .slimwidgets-survival-card td { padding: 2px 8px;
     border-bottom: 1px solid #ddd; text-align: left; }
@page { size: A4; margin: 14mm 12mm; }
@media print {
  body { margin: 0; max-width: none; font-size: 11px; }
  h2 { break-after: avoid; page-break-after: avoid; }
  table.sw-table, .sw-figure, .slimwidgets-card, .sw-risk { break-inside: avoid;
     page-break-inside: avoid; }
  .sw-chart { max-width: 160mm; }
  details > summary { list-style: none; }
}
"""

_NUMBER = re.compile(r"^[-−–+]?\d")


def esc(value: Any) -> str:
    """``value`` as text safe inside HTML, quotes included.

    >>> esc("<b>&'")
    '&lt;b&gt;&amp;&#x27;'
    """
    return html.escape(str(value), quote=True)


def _cell_html(value: Any) -> str:
    """One cell, escaped; short figures (numbers, percentages, intervals) right-aligned."""
    text = str(value)
    numeric = isinstance(value, (int, float, np.number)) or (len(text) < 40 and _NUMBER.match(text))
    return f'<td class="{"sw-num" if numeric else "sw-text"}">{esc(text)}</td>'


def html_table(frame: pd.DataFrame, caption: str | None = None) -> str:
    """A DataFrame as an HTML table, every label and cell escaped.

    >>> html_table(pd.DataFrame({"a": [1]}, index=pd.Index(["<x>"], name="n")))[:40]
    '<table class="sw-table"><thead><tr><th>n'
    """
    head = "".join(f"<th>{esc(c)}</th>" for c in [frame.index.name or ""] + list(frame.columns))
    rows = "".join(
        "<tr><td>%s</td>%s</tr>" % (esc(i), "".join(_cell_html(v) for v in row))
        for i, row in zip(frame.index, frame.itertuples(index=False))
    )
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    return (
        f'<table class="sw-table">{cap}<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'
    )


def package_versions() -> dict[str, str]:
    """The versions of Python and of the packages a card's figures depend on."""
    out = {"python": platform.python_version()}
    for name in ("slimwidgets", "numpy", "pandas", "scipy", "scikit-learn", "highspy", "numba"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def html_document(title: str, body: str) -> str:
    """A standalone HTML document of ``body`` (already escaped) under an escaped ``title``.

    >>> html_document("<t>", "<p>x</p>").splitlines()[0]
    '<!DOCTYPE html>'
    """
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f'<meta name="generator" content="slimwidgets {esc(__version__)}">',
            f"<title>Validation report: {esc(title)}</title>",
            f"<style>{_CSS}</style>",
            "</head>",
            '<body>\n<main class="sw-report">',
            body,
            "</main>\n</body>",
            "</html>",
            "",
        ]
    )


def write_document(title: str, sections: list[str], path: str | None = None) -> str:
    """The standalone document of the non-empty ``sections`` (:func:`html_document`), also
    written to ``path`` (UTF-8) when one is given.

    Parameters
    ----------
    title : the document's title (escaped here).
    sections : its sections' HTML, already escaped; empty ones are left out.
    path : a file to write it to, or None.

    Returns
    -------
    str
        The HTML document.

    Examples
    --------
    >>> doc = write_document("<t>", ["<p>x</p>", ""])
    >>> "<title>Validation report: &lt;t&gt;</title>" in doc and "<p>x</p>" in doc
    True
    """
    doc = html_document(title, "\n".join(s for s in sections if s))
    if path is not None:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(doc)
    return doc


def definitions(words: Mapping[str, str]) -> str:
    """What each figure of a table is, as a small paragraph under it (names and words escaped).

    Parameters
    ----------
    words : each figure's name and what it is, in the table's order.

    Returns
    -------
    str

    Examples
    --------
    >>> definitions({"<AUC>": "area under the curve"})
    '<p class="sw-small sw-muted"><b>&lt;AUC&gt;</b>: area under the curve</p>'
    """
    shown = "<br>".join(f"<b>{esc(name)}</b>: {esc(what)}" for name, what in words.items())
    return f'<p class="sw-small sw-muted">{shown}</p>'


def data_sets(
    X: Any,
    y: Any,
    test: tuple | None,
    external: tuple | None,
    groups: Any,
    as_frame: Callable[[Any], pd.DataFrame],
) -> list[tuple[str, pd.DataFrame, Any, Any]]:
    """``(label, rows, y, groups)`` of each data set a report is given: the training rows, then
    the held-out and external ones; a ``groups`` column name is looked up in each of them.

    Parameters
    ----------
    X, y : the training rows and their outcomes.
    test, external : ``(X, y)`` of held-out and of external rows, or None.
    groups : a column name, or one group per training row.
    as_frame : a set's rows as a DataFrame.

    Returns
    -------
    list of tuple

    Examples
    --------
    >>> rows = pd.DataFrame({"a": [0, 1], "site": ["x", "y"]})
    >>> sets = data_sets(rows, [0, 1], (rows, [1, 0]), None, "site", pd.DataFrame)
    >>> [(label, g) for label, _, _, g in sets]
    [('training', 'site'), ('held-out', 'site')]
    """
    sets = [("training", as_frame(X), y, groups)]
    for label, given in (("held-out", test), ("external", external)):
        if given is not None:
            rows = as_frame(given[0])
            named = groups if isinstance(groups, str) and groups in rows.columns else None
            sets.append((label, rows, given[1], named))
    return sets


def data_fingerprint(X: pd.DataFrame, y: Any) -> str:
    """SHA-256 of the rows, the column names and the labels: the same data give the same text.

    >>> data_fingerprint(pd.DataFrame({"a": [1, 0]}), [1, 0])[:12]
    'a64f31f01753'
    """
    digest = hashlib.sha256()
    digest.update(json.dumps([str(c) for c in X.columns]).encode())
    digest.update(pd.util.hash_pandas_object(X, index=False).to_numpy().tobytes())
    digest.update(
        pd.util.hash_pandas_object(
            pd.Series(np.asarray(y, dtype=object).ravel().astype(str)), index=False
        )
        .to_numpy()
        .tobytes()
    )
    return digest.hexdigest()
