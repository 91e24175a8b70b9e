"""The words of a spec: the "solved for" line and what changes between two specs."""

from __future__ import annotations

from collections.abc import Mapping

from .family import family_of_loss
from .options import OPTIONS
from .spec import Spec

__all__ = ["describe_spec", "spec_changes", "options_text"]


def _spec_items(spec: Spec) -> dict[str, tuple[str, str]]:
    """Every active option of ``spec``: a key -> (group label, fragment), in the words and the
    order of the options table (:class:`~slimwidgets.core.options.Words`).

    Per-feature options have one key per feature, so :func:`spec_changes` can
    name exactly which lock or exclusion went; :func:`describe_spec` joins the
    fragments of a group ("require a, b").
    """
    items: dict[str, tuple[str, str]] = {}
    for row in OPTIONS:
        if row.words is not None:
            items.update(row.words.items(row.name, getattr(spec, row.name), row.default))
    measure = family_of_loss(spec.loss).held_out_measure
    if "size_cv" in items and measure:  # what the folds compared is the card family's score
        label, fragment = items["size_cv"]
        items["size_cv"] = (label, f"{fragment} on {measure}")
    return items


def describe_spec(spec: Spec | None) -> str:
    """The "solved for" line: every active constraint and option of ``spec``.

    Examples
    --------
    >>> from slimwidgets.core.spec import make_spec
    >>> spec = make_spec(max_fpr=0.2, require=["a", "b"], lock={"c": -2}, time_limit=5)
    >>> describe_spec(spec)  # doctest: +NORMALIZE_WHITESPACE
    'solved for: max FPR 20 % · C0 auto · points \u221210…10 · require a, b · lock c = \u22122 ·
    limit 5 s'
    """
    if spec is None:
        return ""
    joined: dict[
        str, tuple[str, list[str]]
    ] = {}  # group label (or the item's own key) -> fragments
    for key, (label, fragment) in _spec_items(spec).items():
        joined.setdefault(label or key, (label, []))[1].append(fragment)
    return "solved for: " + " · ".join(
        f"{label} {', '.join(frags)}".strip() for label, frags in joined.values()
    )


def spec_changes(old: Spec, new: Spec) -> list[str]:
    """What going from ``old`` to ``new`` changes, in the words of the "solved for" line."""
    a, b = _spec_items(old), _spec_items(new)
    out = []
    for key in dict.fromkeys(list(a) + list(b)):
        if key in a and key in b:
            if a[key] != b[key]:
                out.append(f"{a[key][0]} {a[key][1]} \u2192 {b[key][1]}".strip())
        elif key in a:
            out.append(f"dropped {a[key][0]} {a[key][1]}".replace("  ", " "))
        else:
            out.append(f"added {b[key][0]} {b[key][1]}".replace("  ", " "))
    return out


def options_text(spec: Spec, names: Mapping[str, str]) -> str:
    """``"max FPR 20 %, margin"``: the options ``names`` ({field: fallback label})
    as ``spec`` sets them."""
    items = _spec_items(spec)
    return ", ".join(" ".join(items[n]) if n in items else label for n, label in names.items())
