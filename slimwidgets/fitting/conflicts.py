"""Why no card exists: a minimal set of the user's constraints that clash (deletion filter)."""

from __future__ import annotations

import threading
from typing import Any

from ..core.data import Dataset
from ..core.formulation import build_formulation
from ..core.groups import drop_group_items, group_conflict_items
from ..core.spec import DEFAULT_COEF_RANGE, Spec, make_spec
from ..solvers.mip import solve_formulation

__all__ = ["find_conflicts"]


# -- infeasibility diagnosis -------------------------------------------------------------------
def _relaxable(spec: Spec, levels: tuple[str, ...] = ()) -> list[tuple[str, Any, str]]:
    """(field, key, description) of every constraint a user could drop (``levels``: the
    data's group labels, so that a group cap clash names its groups)."""
    items: list[tuple[str, Any, str]] = group_conflict_items(spec, levels)  # group fairness (issue 22)
    items += [("linear", i, row.name or row.describe()) for i, row in enumerate(spec.linear)]  # PuLP rows
    if spec.max_fpr is not None:
        items.append(("max_fpr", None, f"max_fpr={spec.max_fpr:g}"))
    if spec.min_tpr is not None:
        items.append(("min_tpr", None, f"min_tpr={spec.min_tpr:g}"))
    if spec.max_size is not None:
        items.append(("max_size", None, f"max_size={spec.max_size}"))
    items += [("require", f, f"require {f!r}") for f in spec.require]
    items += [("exclude", f, f"exclude {f!r}") for f in spec.exclude]
    items += [("lock", f, f"lock {f!r}={v}") for f, v in spec.lock.items()]
    items += [("signs", f, f"sign {s!r} on {f!r}") for f, s in spec.signs.items()]
    items += [("values", f, f"values of {f!r} in {list(v)}") for f, v in spec.values.items()]
    items += [("coef_ranges", f, f"points range of {f!r} {lo}..{hi}") for f, (lo, hi) in spec.coef_ranges.items()]
    items += [("constraints", i, c.describe()) for i, c in enumerate(spec.constraints)]
    if spec.max_rules_per_group is not None:
        items.append(("max_rules_per_group", None, f"max_rules_per_group={spec.max_rules_per_group}"))
    if spec.group_signs_agree:
        items.append(("group_signs_agree", None, "group_signs_agree"))
    if tuple(spec.coef_range) != DEFAULT_COEF_RANGE:
        items.append(("coef_range", None, f"points range {spec.coef_range[0]}..{spec.coef_range[1]}"))
    if spec.intercept_range is not None:
        items.append(("intercept_range", None, f"intercept_range {spec.intercept_range[0]}..{spec.intercept_range[1]}"))
    return items


def _without(spec: Spec, dropped: list[tuple[str, Any, str]], levels: tuple[str, ...] = ()) -> Spec:
    d = spec.to_dict()
    drop_group_items(d, spec, dropped, levels)  # group fairness (issue 22)
    gone = {key for name, key, _ in dropped if name == "linear"}
    d["linear"] = [row for i, row in enumerate(d.get("linear", [])) if i not in gone]
    dropped = [k for k in dropped if k[0] not in ("max_fpr_by_group", "min_tpr_by_group", "max_fpr_gap",
                                                  "max_tpr_gap", "linear")]
    constraints = list(spec.constraints)
    drop_idx = set()
    for field_name, key, _ in dropped:
        if field_name in ("max_fpr", "min_tpr", "max_size", "max_rules_per_group"):
            d[field_name] = None
        elif field_name == "group_signs_agree":
            d[field_name] = False
        elif field_name == "coef_range":
            d[field_name] = list(DEFAULT_COEF_RANGE)
        elif field_name == "intercept_range":
            d[field_name] = None
        elif field_name in ("require", "exclude"):
            d[field_name] = [f for f in d[field_name] if f != key]
        elif field_name == "constraints":
            drop_idx.add(key)
        else:
            d[field_name] = {k: v for k, v in d[field_name].items() if k != key}
    d["constraints"] = [c for i, c in enumerate(constraints) if i not in drop_idx]
    return make_spec(**d)


def _feasible(data: Dataset, spec: Spec, time_limit: float, cancel: threading.Event | None) -> bool:
    try:
        spec.check_data(data.feature_names, data.n_samples)
    except ValueError:
        return False
    form = build_formulation(data, spec)
    result = solve_formulation(form, time_limit=time_limit, threads=spec.threads, feasibility_only=True, cancel=cancel)
    return result.status != "infeasible"


def find_conflicts(data: Dataset, spec: Spec, time_limit: float = 10.0,
                   cancel: threading.Event | None = None) -> list[str]:
    """A minimal set of constraints that cannot hold together (deletion filter).

    Drop each constraint in turn; if the rest is still infeasible the dropped
    one is not needed for the clash and stays out. What remains is irreducible:
    removing any one of its members makes the problem feasible. If ``cancel``
    is set midway, the set found so far is returned: it still clashes, but may
    not be minimal.
    """
    items = _relaxable(spec, data.sensitive_levels)
    keep = list(items)
    for item in items:
        if cancel is not None and cancel.is_set():
            break
        trial = [k for k in keep if k is not item]
        dropped = [k for k in items if k not in trial]
        if not _feasible(data, _without(spec, dropped, data.sensitive_levels), time_limit, cancel):
            keep = trial
    return [desc for _, _, desc in keep]
