"""The words of a spec: the "solved for" line and what changes between two specs."""

from __future__ import annotations

from typing import Mapping

from .groups import group_items  # group fairness (issue 22)
from .linear import linear_items
from .spec import Spec

__all__ = ["describe_spec", "spec_changes", "options_text"]


def _pct_text(v: float) -> str:
    return f"{100 * v:.4g} %"


def _range_text(pair) -> str:
    lo, hi = pair
    return f"{lo}…{hi}".replace("-", "\u2212")


def _spec_items(spec: Spec) -> dict[str, tuple[str, str]]:
    """Every active option of ``spec``: a key -> (group label, fragment).

    Per-feature options have one key per feature, so :func:`spec_changes` can
    name exactly which lock or exclusion went; :func:`describe_spec` joins the
    fragments of a group ("require a, b").
    """
    items: dict[str, tuple[str, str]] = {}
    if spec.max_fpr is not None:
        items["max_fpr"] = ("max FPR", _pct_text(spec.max_fpr))
    if spec.min_tpr is not None:
        items["min_tpr"] = ("min TPR", _pct_text(spec.min_tpr))
    items.update(group_items(spec))
    items.update(linear_items(spec.linear))
    if spec.max_size is not None:
        items["max_size"] = ("size \u2264", str(spec.max_size))
    items["C0"] = ("C0", "auto" if spec.C0 is None else f"{spec.C0:g}")
    items["coef_range"] = ("points", _range_text(spec.coef_range))
    for name in spec.require:
        items[f"require:{name}"] = ("require", name)
    for name in spec.exclude:
        items[f"exclude:{name}"] = ("exclude", name)
    for name, sign in spec.signs.items():
        items[f"sign:{name}"] = ("sign", f"{name} " + ("\u2212" if sign == "-" else "+"))
    for name, penalty in spec.penalties.items():
        items[f"penalty:{name}"] = ("penalty", f"{name} {penalty:g}")
    for name, value in spec.lock.items():
        items[f"lock:{name}"] = ("lock", f"{name} = {value}".replace("= -", "= \u2212"))
    for name, pair in spec.coef_ranges.items():
        items[f"range:{name}"] = ("points of", f"{name} {_range_text(pair)}")
    for name, allowed in spec.values.items():
        items[f"values:{name}"] = ("values of", f"{name} {{{', '.join(map(str, allowed))}}}")
    for c in spec.constraints:
        items[f"constraint:{c.describe()}"] = ("", c.describe())
    if spec.class_weights is not None:
        weights = spec.class_weights if isinstance(spec.class_weights, str) else \
            f"negative {spec.class_weights[0]:g} : positive {spec.class_weights[1]:g}"
        items["class_weights"] = ("class weights", weights)
    if spec.tiers:
        items["tiers"] = ("tiers", ", ".join(f"|points| \u2264 {b} cost {c:g}" for b, c in spec.tiers))
    for group, members in spec.groups.items():
        items[f"group:{group}"] = ("group", f"{group} ({', '.join(members)})")
    if spec.max_rules_per_group is not None:
        items["max_rules_per_group"] = ("rules per group \u2264", str(spec.max_rules_per_group))
    if spec.time_limit is not None:
        items["time_limit"] = ("limit", f"{spec.time_limit:g} s")
    return items


def describe_spec(spec: Spec | None) -> str:
    """The "solved for" line: every active constraint and option of ``spec``.

    Examples
    --------
    >>> from slimwidgets.core.spec import make_spec
    >>> describe_spec(make_spec(max_fpr=0.2, require=["a", "b"], lock={"c": -2}, time_limit=5))
    'solved for: max FPR 20 % · C0 auto · points \u221210…10 · require a, b · lock c = \u22122 · limit 5 s'
    """
    if spec is None:
        return ""
    joined: dict[str, tuple[str, list[str]]] = {}  # group label (or the item's own key) -> fragments
    for key, (label, fragment) in _spec_items(spec).items():
        joined.setdefault(label or key, (label, []))[1].append(fragment)
    return "solved for: " + " · ".join(f"{label} {', '.join(frags)}".strip() for label, frags in joined.values())


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
    """``"max FPR 20 %, margin"``: the options ``names`` ({field: fallback label}) as ``spec`` sets them."""
    items = _spec_items(spec)
    return ", ".join(" ".join(items[n]) if n in items else label for n, label in names.items())
