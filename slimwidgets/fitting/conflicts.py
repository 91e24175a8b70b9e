"""Why no card exists: a minimal set of the user's constraints that clash (deletion filter)."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from ..core.data import Dataset
from ..core.family import family_of_loss
from ..core.groups import per_group_caps
from ..core.options import OPTION, OPTIONS, entries
from ..core.spec import Spec
from ..solvers.backends.mip import solve_formulation

__all__ = ["find_conflicts"]


# -- infeasibility diagnosis -------------------------------------------------------------------
def _relaxable(spec: Spec) -> list[tuple[str, Any, str]]:
    """(field, key, description) of every constraint a user could drop: each option the table
    lets conflict explanation relax, when set (key None), or each entry of it (its key)."""
    items: list[tuple[str, Any, str]] = []
    for row in OPTIONS:
        value = getattr(spec, row.name)
        if row.relax is None:
            continue
        if row.relax.each:
            items += [(row.name, key, row.relax.text(*words)) for key, words in entries(value)]
        elif row.is_set(value):
            items.append((row.name, None, row.relax.text(value)))
    return items


def _without(spec: Spec, dropped: list[tuple[str, Any, str]]) -> Spec:
    """``spec`` without the ``dropped`` items: options back to their default, entries left out."""
    gone: dict[str, set] = {}
    for field_name, key, _ in dropped:
        gone.setdefault(field_name, set()).add(key)
    changes: dict[str, Any] = {}
    for field_name, keys in gone.items():
        value = getattr(spec, field_name)
        if None in keys:
            changes[field_name] = OPTION[field_name].default
        elif isinstance(
            value, Mapping
        ):  # with no entry left: the default (None for the group caps)
            changes[field_name] = {k: x for k, x in value.items() if k not in keys} or OPTION[
                field_name
            ].default
        else:
            changes[field_name] = [x for i, x in enumerate(value) if i not in keys]
    return spec.replace(**changes)


def _feasible(data: Dataset, spec: Spec, time_limit: float, cancel: threading.Event | None) -> bool:
    try:
        spec.check_data(data.feature_names, data.n_samples)
    except ValueError:
        return False
    form = family_of_loss(spec.loss).loss.problem(data, spec)
    result = solve_formulation(
        form, time_limit=time_limit, threads=spec.threads, feasibility_only=True, cancel=cancel
    )
    return result.status != "infeasible"


def find_conflicts(
    data: Dataset, spec: Spec, time_limit: float = 10.0, cancel: threading.Event | None = None
) -> list[str]:
    """A minimal set of constraints that cannot hold together (deletion filter).

    Drop each constraint in turn; if the rest is still infeasible the dropped
    one is not needed for the clash and stays out. What remains is irreducible:
    removing any one of its members makes the problem feasible. If ``cancel``
    is set midway, the set found so far is returned: it still clashes, but may
    not be minimal.

    Parameters
    ----------
    data : Dataset
        The training data.
    spec : Spec
        The problem that has no card.
    time_limit : float, default 10.0
        Seconds for the whole search, shared by its feasibility solves.
    cancel : threading.Event, optional
        Set to stop early with the clashing set found so far.
    """
    spec = per_group_caps(
        spec, data.sensitive_levels
    )  # a clash names the groups whose caps it needs
    items = _relaxable(spec)
    keep = list(items)
    for item in items:
        if cancel is not None and cancel.is_set():
            break
        trial = [k for k in keep if k is not item]
        dropped = [k for k in items if k not in trial]
        if not _feasible(data, _without(spec, dropped), time_limit, cancel):
            keep = trial
    return [desc for _, _, desc in keep]
