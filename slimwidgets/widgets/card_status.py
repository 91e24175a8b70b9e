"""What the studio says about a card: its status line and the notices of an edit or a load,
in the user's units (the "solved for" wording of settings is :mod:`slimwidgets.core.wording`)."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.data import Dataset
from ..core.family import family_of_card, family_of_loss
from ..core.formatting import signed
from ..core.scoring import Metrics, ScoringSystem
from ..core.spec import Spec
from ..core.status import describe, details_text
from ..core.wording import spec_changes
from ..fitting import check_card

__all__ = [
    "Status",
    "status_of",
    "edit_cost",
    "edited_status",
    "load_notice",
    "optimised_measure",
    "change_text",
    "cost_text",
    "LOST_SOLVER",
    "figure_to_beat",
    "trivial_figure",
    "showing_bar",
    "worth_showing",
]

#: the notice when a solve lost its solver process (the solver module has started a new one)
LOST_SOLVER = (
    "the solver process was lost (the system stops it when memory runs out): showing the best card "
    "found so far; a new solver process has started and solves again when you change a setting"
)


@dataclass(frozen=True)
class Status:
    """What the status line says; ``text`` is the line itself, in the user's units
    (:func:`~slimwidgets.core.status.describe`): ``level`` is its colour (ok | warn |
    error), ``details`` the raw solver figures for a details view, ``warning`` the
    degenerate-card message, ``proven`` whether what the line calls best is proven.
    """

    # idle | solving | optimal | time_limit | feasible | interrupted | infeasible
    # | invalid | edited | error
    state: str
    text: str
    objective: float | None = None
    bound: float | None = None
    gap: float | None = None
    elapsed: float | None = None
    conflicts: tuple[str, ...] = ()
    started: float | None = None  # time.time() when the running solve began
    level: str = "ok"
    details: str = ""
    warning: str | None = None
    proven: bool = False

    def to_dict(self) -> dict:
        def fin(v):
            return None if v is None or not math.isfinite(v) else float(v)

        return {
            "state": self.state,
            "text": self.text,
            "objective": fin(self.objective),
            "bound": fin(self.bound),
            "gap": fin(self.gap),
            "elapsed": fin(self.elapsed),
            "conflicts": list(self.conflicts),
            "started": self.started,
            "level": self.level,
            "details": self.details,
            "warning": self.warning,
            "proven": self.proven,
        }


def edit_cost(edited: Metrics, base: Metrics) -> dict:
    """Differences (edited minus solved) in percentage points, and in size; for risk cards
    also in log-loss and AUC (``log_loss``, ``auc``)."""
    cost = {
        "error": 100 * (edited.error - base.error),
        "tpr": 100 * (edited.tpr - base.tpr),
        "fpr": 100 * (edited.fpr - base.fpr),
        "size": edited.size - base.size,
    }
    if edited.log_loss is not None and base.log_loss is not None:
        cost.update(log_loss=edited.log_loss - base.log_loss, auc=edited.auc - base.auc)
    return cost


def _fmt_pts(v: float) -> str:
    return f"{signed(v, 1)} pt"


def change_text(d: float) -> str:
    """A difference of shares in points; "same" when it rounds to nothing.

    >>> change_text(-0.099), change_text(0.0001)
    ('−9.9 pt', 'same')
    """
    return "same" if abs(d) < 0.0005 else _fmt_pts(100 * d)


def optimised_measure(spec: Spec) -> str:
    """The figure ``spec`` optimises, as a user reads it: ``"tpr"`` under a max-FPR cap alone
    (the most sensitive card under the cap), ``"fpr"`` under a min-TPR floor alone, else
    ``"error"``; ``"log-loss"`` for risk cards."""
    return family_of_loss(spec.loss).optimised_measure(spec)


def cost_text(new: Metrics, old: Metrics, measure: str) -> str:
    """How ``new`` differs from ``old`` in points, the optimised figure first and then the one
    it trades against ("TPR −9.9 pt · FPR −3.1 pt" under a cap; "error +0.2 pt" without)."""
    if measure == "log-loss" and new.log_loss is not None and old.log_loss is not None:
        return f"log-loss {signed(new.log_loss - old.log_loss, 4)}"
    keys = {"tpr": ("tpr", "fpr"), "fpr": ("fpr", "tpr")}.get(measure, ("error",))
    return " · ".join(
        f"{'error' if k == 'error' else k.upper()} {change_text(getattr(new, k) - getattr(old, k))}"
        for k in keys
    )


def status_of(card: ScoringSystem, *, solving_since: float | None = None) -> Status:
    """The status line of a card: :func:`describe`'s headline (with the held-out figures
    the card carries), its degenerate-card warning, and the solver figures as details.
    ``solving_since`` (a ``time.time()``) marks an incumbent of a running solve."""
    cs = describe(card, validation=card.validation_metrics)
    text = cs.headline if cs.warning is None else f"{cs.headline} · {cs.warning}"
    common = {
        "objective": card.objective,
        "bound": card.bound,
        "gap": card.gap,
        "details": details_text(cs),
        "warning": cs.warning,
        "proven": cs.proven,
    }
    if solving_since is not None:
        # a passing incumbent: its figures only. What is proven, and the warning, come with the
        # settled card: a "proven best" beside a card that may still change would claim too much
        figures = cs.headline.split(" · ")[0]
        return Status(
            "solving",
            "solving… · " + figures,
            elapsed=time.time() - solving_since,
            started=solving_since,
            **{**common, "proven": False, "warning": None},
        )
    return Status(card.status, text, elapsed=card.solve_time, level=cs.level, **common)


def same_figures(a: ScoringSystem | None, b: ScoringSystem | None) -> bool:
    """Whether two cards read the same on screen: the same training figures and size (their
    points may differ). Among such cards the one shown stays, so nothing reshuffles."""
    if (
        a is None
        or b is None
        or a.train_metrics is None
        or b.train_metrics is None
        or a.family != b.family
    ):
        return False
    x, y = a.train_metrics, b.train_metrics
    if family_of_card(a).predicts_risk:
        return a.size == b.size and round(x.log_loss, 4) == round(y.log_loss, 4)
    return a.size == b.size and all(
        round(getattr(x, k), 4) == round(getattr(y, k), 4) for k in ("tpr", "fpr", "error")
    )


def one_class(card: ScoringSystem) -> bool:
    """A card that predicts one class for every training row (TPR and FPR both 0 or both 1):
    a trivial card, never shown while a solve runs."""
    m = card.train_metrics
    return m is not None and m.tpr == m.fpr and m.tpr in (0.0, 1.0)


def figure_to_beat(card: ScoringSystem, measure: str) -> float:
    """The figure ``measure`` (see :func:`optimised_measure`) of ``card`` on its training rows,
    turned so that lower is better: error, −TPR, FPR or log-loss."""
    m = card.train_metrics
    if m is None:
        return math.inf
    if measure == "log-loss":
        return m.log_loss if m.log_loss is not None else math.inf
    return {"tpr": -m.tpr, "fpr": m.fpr}.get(measure, m.error)


def trivial_figure(data: Dataset, spec: Spec) -> float:
    """What the best one-class card (or, for risk cards, the base rate alone) reaches on the
    figure ``spec`` optimises, turned as :func:`figure_to_beat`: a running solve's card that does
    no better is not worth showing. Under class weights the plain error of the best card may
    exceed the trivial card's, so no bar is set (``inf``).

    >>> from slimwidgets.core.data import prepare_data
    >>> from slimwidgets.core.spec import make_spec
    >>> data = prepare_data(np.array([[1], [0], [1], [0]]), np.array([1, 0, 0, 0]))
    >>> trivial_figure(data, make_spec()), trivial_figure(data, make_spec(max_fpr=0.5))
    (0.25, 0.0)
    >>> # -(p log p + (1-p) log(1-p)) at p = 1/4
    >>> round(trivial_figure(data, make_spec(loss="logistic")), 4)
    0.5623
    """
    measure = optimised_measure(spec)
    w = np.asarray(data.weight, dtype=float)
    p = float(w[np.asarray(data.y) == 1].sum() / w.sum())
    if measure == "log-loss":
        return 0.0 if p in (0.0, 1.0) else -(p * math.log(p) + (1 - p) * math.log(1 - p))
    if measure in ("tpr", "fpr"):
        return {"tpr": 0.0, "fpr": 1.0}[
            measure
        ]  # all negative (TPR 0: −TPR is 0), all positive (FPR 1)
    return math.inf if spec.class_weights is not None else min(p, 1 - p)


def showing_bar(data: Dataset, spec: Spec, known: list[ScoringSystem | None]) -> float:
    """What a running solve's card must reach on the figure ``spec`` optimises before it takes
    the screen: the trivial card's figure, or a ``known`` card's (the card shown, the nearest
    solved one) when that card meets every setting of ``spec``, whichever is better."""
    measure, family = optimised_measure(spec), family_of_loss(spec.loss)
    figures = [trivial_figure(data, spec)]
    for card in known:
        if card is None or not family.makes(card) or card.zero_score != spec.zero_score:
            continue
        if list(card.feature_names) != list(data.feature_names):
            continue  # a card of other rules (the cut points moved): no bar on these rows
        if measure == "error" and spec.class_weights is not None:
            continue  # the weighted error is what is optimised, not the plain error read here
        if not check_card(card, data, spec):
            figures.append(figure_to_beat(card, measure))
    return min(figures)


def worth_showing(card: ScoringSystem, bar: float, measure: str) -> bool:
    """Whether a running solve's ``card`` is at least as good as ``bar`` (from
    :func:`figure_to_beat` or :func:`trivial_figure`) on the figure the settings optimise, and
    not a one-class card: until then the previous card stays on screen, dimmed."""
    return not one_class(card) and figure_to_beat(card, measure) <= bar + 1e-12


def edited_status(
    edited: ScoringSystem, base: ScoringSystem | None, data: Dataset, spec: Spec
) -> Status:
    """The status of an edited card: what the edit costs against the solved card ``base``,
    the constraints of ``spec`` it breaks, a degenerate card's warning."""
    text = "edited (not optimized)"
    if base is not None and base.train_metrics is not None:
        c = edit_cost(edited.train_metrics, base.train_metrics)
        change = (
            f"log-loss {signed(c['log_loss'], 4)}"
            if "log_loss" in c
            else cost_text(edited.train_metrics, base.train_metrics, optimised_measure(spec))
        )
        text += f" · {change} vs the solved card"
    broken = check_card(edited, data, spec)
    if broken:
        text += " · breaks " + "; ".join(broken)
    warning = describe(edited).warning
    if warning:
        text += " · " + warning
    return Status("edited", text, level="warn" if broken or warning else "ok", warning=warning)


def load_notice(now: Spec, loaded: Spec) -> str:
    """What loading a card solved under ``loaded`` changes in the settings ``now``."""
    changes = spec_changes(now, loaded)
    return "loaded a card solved for other settings: " + "; ".join(changes) if changes else ""


def check_edit(points: Mapping[str, Any] | None, threshold: Any) -> None:
    """Refuse an edit of a card whose points or threshold are not whole numbers.

    Parameters
    ----------
    points : the new points by feature name (whole numbers; ``2.0`` counts as 2).
    threshold : the new threshold, or None to keep it.

    Examples
    --------
    >>> check_edit({"age >= 60": 2.0}, 3)
    >>> check_edit({"age >= 60": 1.5}, None)
    Traceback (most recent call last):
    TypeError: points must be whole numbers, got 1.5 for 'age >= 60'
    """
    for name, v in (points or {}).items():
        if (
            isinstance(v, bool)
            or not isinstance(v, (int, np.integer))
            and not (isinstance(v, float) and v.is_integer())
        ):
            raise TypeError(f"points must be whole numbers, got {v!r} for {name!r}")
    if threshold is not None and (isinstance(threshold, bool) or int(threshold) != threshold):
        raise TypeError(f"the threshold must be a whole number, got {threshold!r}")
