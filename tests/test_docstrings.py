"""Public docstrings follow the house style: numpydoc's checks, and no history.

Every name in ``slimwidgets.__all__`` and every public method and property of a public class
is validated with :func:`numpydoc.validate.validate`. The test fails, naming the object and the
code, on:

- GL08 (no docstring), SS01 (no summary), SS02 / SS03 (the summary starts with a capital letter
  and ends with a period), SS06 (the summary fits on one line);
- PR02 (a documented parameter the signature does not have) and PR03 (parameters documented out
  of signature order), for every docstring;
- PR01 (a parameter left undocumented), for every docstring that has a ``Parameters`` section:
  a section, once there, lists the whole signature.

PR01 is not applied to docstrings without a ``Parameters`` section: about fifty of them are
dataclasses whose fields are the signature (``Spec``, ``ScoringSystem``, ``Metrics``) and short
methods such as ``predict(X)`` whose summary already says what the argument is. Writing those
sections is documentation work of its own, not a style fix. The other numpydoc codes (Returns,
See Also, Examples on every name, ...) are not checked either.

A docstring says what a thing does; how it came to be belongs in git and the CHANGELOG, so a
public docstring may not contain phrases that read as history (``HISTORY``).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator

import pytest
from numpydoc.docscrape import NumpyDocString
from numpydoc.validate import validate

import slimwidgets

pytest.importorskip("ipywidgets")  # the Studio is one of the public names

CHECKED = {"GL08", "SS01", "SS02", "SS03", "SS06", "PR02", "PR03"}
CHECKED_WITH_PARAMETERS = {"PR01"}
HISTORY = [
    r"\bas before\b",
    r"\bused to be\b",
    r"\bno longer\b",
    r"\(was\b",
    r"\bwas:",
    r"\bpreviously\b",
    r"\bformerly\b",
    r"\bissue #?\d+",
    r"\bnew in (version|v)\b",
]


def public_objects() -> Iterator[tuple[str, object]]:
    """Each public name and public member, as (import path numpydoc resolves, object)."""
    for name in slimwidgets.__all__:
        obj = getattr(slimwidgets, name)
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue  # __version__, PAPER_TIERS: values, not documented callables
        path = f"{obj.__module__}.{obj.__qualname__}"
        yield path, obj
        if inspect.isclass(obj) and not issubclass(obj, BaseException):
            for member, value in vars(obj).items():
                if member.startswith("_"):
                    continue
                if isinstance(value, (staticmethod, classmethod)):
                    value = value.__func__
                if inspect.isfunction(value) or isinstance(value, property):
                    yield f"{path}.{member}", value


PUBLIC = list(public_objects())


def docstring_of(obj: object) -> str:
    return inspect.getdoc(obj.fget if isinstance(obj, property) else obj) or ""


def test_the_walk_finds_the_public_api():
    paths = {path for path, _ in PUBLIC}
    assert "slimwidgets.fitting.driver.fit" in paths
    assert "slimwidgets.widgets.studio.Studio.export" in paths
    assert "slimwidgets.core.scoring.ScoringSystem.threshold" in paths  # a property
    assert len(PUBLIC) > 100


def test_numpydoc_style():
    problems = []
    for path, _ in PUBLIC:
        result = validate(path)
        has_parameters = bool(NumpyDocString(result["docstring"] or "")["Parameters"])
        for code, message in result["errors"]:
            if code in CHECKED or (has_parameters and code in CHECKED_WITH_PARAMETERS):
                problems.append(f"{path}: {code} {message}")
    assert problems == [], "docstrings off the house style:\n" + "\n".join(problems)


def test_no_docstring_reads_as_history():
    problems = []
    for path, obj in PUBLIC:
        text = docstring_of(obj)
        for pattern in HISTORY:
            for hit in re.finditer(pattern, text, flags=re.IGNORECASE):
                context = text[max(0, hit.start() - 40) : hit.end() + 40].replace("\n", " ")
                problems.append(f"{path}: {hit.group(0)!r} in '...{context}...'")
    assert problems == [], (
        "say what the thing does; history belongs in the CHANGELOG:\n" + "\n".join(problems)
    )
