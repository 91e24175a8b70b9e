"""Public docstrings follow the house style: numpydoc's checks, and no history.

Every name in ``slimwidgets.__all__`` and every public method and property of a public class
is validated with :func:`numpydoc.validate.validate`. The test fails, naming the object and the
code, on:

- GL08 (no docstring), SS01 (no summary), SS02 / SS03 (the summary starts with a capital letter
  and ends with a period), SS06 (the summary fits on one line);
- PR02 (a documented parameter the signature does not have) and PR03 (parameters documented out
  of signature order);
- PR01 (a parameter left undocumented): every parameter of every public callable is listed in a
  ``Parameters`` section, ``*args`` and ``**kwargs`` by their names. A class lists its
  constructor's parameters, and a dataclass its fields, under ``Parameters`` or ``Attributes``
  (as scikit-learn does); a parameter whose name starts with ``_`` is private (a dataclass's
  cached state) and is not documented.

The other numpydoc codes (Returns, See Also, Examples on every name, descriptions starting with
a capital, ...) are not checked.

A docstring says what a thing does; how it came to be belongs in git and the CHANGELOG, so a
public docstring may not contain phrases that read as history (``HISTORY``).
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from collections.abc import Iterator

import pytest
from numpydoc.docscrape import NumpyDocString
from numpydoc.validate import validate

import slimwidgets

pytest.importorskip("ipywidgets")  # the Studio is one of the public names

CHECKED = {"GL08", "SS01", "SS02", "SS03", "SS06", "PR02", "PR03"}
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


def signature_parameters(obj: object) -> list[str]:
    """The parameters a docstring must list: ``*args`` and ``**kwargs`` with their stars, no
    ``self``/``cls``, none of a property, none private (``_name``)."""
    if isinstance(obj, property):
        return []
    try:
        signature = inspect.signature(obj)
    except ValueError:  # a warning class: the builtin Warning's message, nothing of its own
        return []
    stars = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**"}
    return [
        stars.get(p.kind, "") + p.name
        for p in signature.parameters.values()
        if p.name not in ("self", "cls") and not p.name.startswith("_")
    ]


def undocumented_parameters(obj: object, docstring: str) -> list[str]:
    """The signature's parameters that neither ``Parameters`` nor (for a class) ``Attributes``
    lists; an entry may name several (``tp, fp, tn, fn : float``)."""
    doc = NumpyDocString(docstring)
    sections = doc["Parameters"] + (doc["Attributes"] if inspect.isclass(obj) else [])
    listed = {name.strip().lstrip("*") for entry in sections for name in entry.name.split(",")}
    return [p for p in signature_parameters(obj) if p.lstrip("*") not in listed]


def test_numpydoc_style():
    problems = []
    for path, obj in PUBLIC:
        result = validate(path)
        problems += [f"{path}: {code} {msg}" for code, msg in result["errors"] if code in CHECKED]
        missing = undocumented_parameters(obj, result["docstring"] or "")
        if missing:
            problems.append(f"{path}: PR01 parameters not documented: {', '.join(missing)}")
    assert problems == [], "docstrings off the house style:\n" + "\n".join(problems)


def test_an_undocumented_parameter_is_found():
    """A dataclass field listed under Attributes counts; one listed nowhere, or a function's
    parameter listed only under Attributes, does not; a private field is not asked for."""

    @dataclasses.dataclass
    class Card:
        """A card.

        Attributes
        ----------
        points, intercept : int
            Its numbers.
        """

        points: int
        intercept: int
        label: str
        _cache: dict = dataclasses.field(default_factory=dict)

    def scale(card: Card, by: int, **options: object) -> None:
        """Scale a card.

        Parameters
        ----------
        card : Card
            The card.
        **options
            Ignored.

        Attributes
        ----------
        by : int
            Not a parameter section.
        """

    assert undocumented_parameters(Card, inspect.getdoc(Card) or "") == ["label"]
    assert undocumented_parameters(scale, inspect.getdoc(scale) or "") == ["by"]


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
