"""What a card is, in the user's units, and what is proven about it: one vocabulary for
``print(card)``, the HTML card, the CLI and the studio.

A solver proves a lower bound B on its objective (weighted errors + size penalty). Read
in the user's units (:func:`proven_limit`), B says:

- under a max-FPR cap alone, the highest TPR any card under the cap can have (one
  missed positive costs more than everything else in that objective);
- under a min-TPR floor alone, the lowest FPR any card can have;
- otherwise, the lowest training error any card can have.

:func:`describe` turns a card into a headline such as
``"TPR 95.3 % at FPR 19.6 % · best possible under this cap ≤ 97.1 % (proven)"``, and
:func:`degeneracy` calls out cards that predict one class for every training row.

A risk card (``loss="logistic"``) is told by its log-loss and AUC, train and held-out; its
bound B on log-loss + size cost reads as a log-loss floor for every card with at most its
number of features (B minus the largest size cost of that many features,
:func:`risk_limit_scale`): ``"risk card · train log-loss 0.2860, AUC 0.940 · held-out
log-loss 0.3538, AUC 0.902 · heuristic: best found in 1.0 s · proven: every card with ≤ 3
features has train log-loss ≥ 0.2660"``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .card_family import CardWords
from .family import DECISION, RISK, family_of_card
from .formatting import percent, seconds

if TYPE_CHECKING:  # pragma: no cover
    from .formulation import Formulation
    from .scoring import Metrics, ScoringSystem

__all__ = [
    "NO_BOUND",
    "CardStatus",
    "DegenerateCardWarning",
    "LimitScale",
    "degeneracy",
    "describe",
    "details_text",
    "limit_scale",
    "proven_limit",
    "risk_limit_scale",
]

#: The one wording for "the solver has proven nothing yet".
NO_BOUND = "no proven limit yet"
#: a risk card's proven log-loss floor below this share of its loss is stated as no limit
USEFUL_FLOOR_SHARE = 0.01


class DegenerateCardWarning(UserWarning):
    """The card predicts one class for every training row (see :func:`degeneracy`)."""


@dataclass(frozen=True)
class CardStatus:
    """A card's status in the user's units.

    Attributes
    ----------
    headline : str
        The line to show, e.g. ``"error 12.1 % · proven lowest"``.
    level : str
        ``"ok"``, ``"warn"`` (a degenerate card, or nothing proven) or ``"error"`` (never
        produced by :func:`describe`; for callers that report a failure in the same place).
    proven : bool
        Whether what the headline claims as best is proven.
    warning : str or None
        The degenerate-card message with a suggestion, else None.
    details : dict
        Raw solver figures for a details view: status, objective, bound, gap, solver,
        seconds, limit, limit_of, and stopped (why a lost solver process stopped the fit).
    """

    headline: str
    level: str
    proven: bool
    warning: str | None
    details: dict


@dataclass(frozen=True)
class LimitScale:
    """How a bound on one formulation's objective reads as a limit in the user's units.

    Every card c has ``objective(c) <= per_error * count(c) + others_max``, where
    ``count`` is the weight of c's errors in the counted class (positives for
    ``kind="tpr"``, negatives for ``"fpr"``, all rows for ``"error"``), so a proven
    bound B gives ``count(c) >= (B - others_max) / per_error`` for every card.
    """

    kind: str  # "tpr" | "fpr" | "error" | "log_loss" (a risk card: see risk_limit_scale)
    per_error: float  # the most one unit of counted weight adds to the objective
    others_max: float  # the most everything else (other errors, size, L1 ...) adds
    total: float  # weight of the counted class
    whole: bool  # all weights are integers, so counts are whole numbers
    zero_is_error: bool  # the paper's rule: a zero total counts as an error for both classes

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> LimitScale:
        return cls(
            kind=str(d["kind"]),
            per_error=float(d["per_error"]),
            others_max=float(d["others_max"]),
            total=float(d["total"]),
            whole=bool(d["whole"]),
            zero_is_error=bool(d["zero_is_error"]),
        )

    def limit(self, bound: float | None) -> float | None:
        """The proven limit (TPR ≤, FPR ≥ or error ≥ it, as a fraction) from ``bound``."""
        if bound is None or not math.isfinite(bound) or self.total <= 0 or self.per_error <= 0:
            return None
        if (
            self.kind == "log_loss"
        ):  # log-loss + size cost >= bound, and the size cost <= others_max
            return (bound - self.others_max) / self.per_error
        if self.kind == "tpr" and self.whole and self.others_max < self.per_error:
            # Lexicographic: the objective is per_error * (missed positives) + less than one
            # per_error, so floor(B / per_error) misses are proven; exact at B = optimum.
            count: float = math.floor(bound / self.per_error + 1e-9)
        else:
            count = (bound - self.others_max) / self.per_error
            count = math.ceil(count - 1e-6) if self.whole else count
        count = min(max(count, 0.0), self.total)
        return 1.0 - count / self.total if self.kind == "tpr" else count / self.total


def limit_scale(form: Formulation) -> LimitScale | None:
    """The :class:`LimitScale` of a built formulation, None when its loss does not count
    errors exactly (a margin that is not the scores' own step).

    Examples
    --------
    >>> import pandas as pd
    >>> from slimwidgets import make_spec, prepare_data
    >>> from slimwidgets.core.formulation import build_formulation
    >>> data = prepare_data(pd.DataFrame({"a": [1, 0, 1, 0]}), [1, 0, 0, 1])
    >>> scale = limit_scale(build_formulation(data, make_spec(max_fpr=0.5)))
    >>> scale.kind, scale.total
    ('tpr', 2.0)
    """
    data, spec = form.data, form.spec
    step = data.score_step()
    if step is None or not 0 < form.margin <= step + 1e-12:
        return None
    pos = data.y == 1
    kind = form.lexicographic or "error"
    counted = pos if kind == "tpr" else (~pos if kind == "fpr" else np.ones_like(pos))
    live = counted & (data.weight > 0)
    if not live.any():
        return None
    per_error = float(np.max(form.row_weight[live] / data.weight[live]))
    others = float(form.row_weight[~counted].sum()) + _penalty_max(form)
    return LimitScale(
        kind=kind,
        per_error=per_error,
        others_max=others,
        total=float(data.weight[counted].sum()),
        whole=bool(np.all(data.weight == np.round(data.weight))),
        zero_is_error=getattr(spec, "zero_score", "error") == "error",
    )


def risk_limit_scale(C0: Any, size: int) -> LimitScale:
    """How a risk card's bound reads as a log-loss floor for every card with at most ``size``
    features: such a card's size cost is at most the ``size`` largest per-feature costs
    ``C0``, so its log-loss is at least the bound minus that sum.

    Examples
    --------
    >>> risk_limit_scale([0.25, 0.0625, 0.125], 2).limit(0.5)
    0.125
    """
    costs = sorted((float(c) for c in np.ravel(C0)), reverse=True)
    return LimitScale(
        kind="log_loss",
        per_error=1.0,
        others_max=float(sum(costs[: max(size, 0)])),
        total=1.0,
        whole=False,
        zero_is_error=False,
    )


def _penalty_max(form: Formulation) -> float:
    """The most the size, L1, tier and group terms can add to any card's objective."""
    free = np.flatnonzero(form.col_lambda >= 0)
    per_feature = []
    for j in free:
        allowed = form.allowed[j]
        biggest = float(np.abs(allowed).max()) if allowed.size else 0.0
        tier = (
            float(form.value_cost[j].max())
            if j < len(form.value_cost) and form.value_cost[j].size
            else 0.0
        )
        per_feature.append(float(form.C0[j]) + form.epsilon * biggest + tier)
    per_feature.sort(reverse=True)
    most = (
        len(per_feature)
        if form.spec.max_size is None
        else min(form.spec.max_size, len(per_feature))
    )
    groups = sum(form.group_penalty + form.rule_penalty * max(len(m) - 1, 0) for m in form.groups)
    return float(sum(per_feature[:most])) + groups


def proven_limit(card: ScoringSystem) -> tuple[str, float] | None:
    """``(kind, value)``: what the card's proven bound says in the user's units.

    ``kind`` is ``"tpr"`` (no card under the cap has a TPR above ``value``), ``"fpr"``
    (no card meeting the TPR floor has an FPR below it), ``"error"`` (no card has a
    lower training error) or, for a risk card, ``"log_loss"`` (no card with at most its
    number of features has a lower training log-loss). None when the card
    carries no bound or no scale.
    """
    raw = (card.details or {}).get("limits")
    if raw is None:
        return None
    scale = raw if isinstance(raw, LimitScale) else LimitScale.from_dict(raw)
    value = scale.limit(card.bound)
    return None if value is None else (scale.kind, value)


# -- degenerate cards ------------------------------------------------------------------------------
def degeneracy(card: ScoringSystem) -> str | None:
    """A message when the card predicts one class for every training row, else None.

    Judged on the card's training figures when it has them, else on the card alone
    (no features, or only 0/1 features whose best and worst totals fall on one side).

    Examples
    --------
    >>> from slimwidgets import ScoringSystem
    >>> card = ScoringSystem(("a",), (2,), -5, positive="sick", negative="well", binary=(True,))
    >>> print(degeneracy(card))  # doctest: +NORMALIZE_WHITESPACE
    predicts "well" for every row: no row can reach its threshold. Try class_weights="balanced",
    min_tpr (for example min_tpr=0.8), or a looser max_fpr.
    """
    side = _one_side(card)
    if side is None:
        return None
    rows = "training row" if card.train_metrics is not None else "row"
    if side == "negative":
        label = card.negative
        why = (
            f"no {rows} reaches its threshold"
            if card.train_metrics is not None
            else "no row can reach its threshold"
        )
    else:
        label = card.positive_name or card.positive
        why = (
            f"every {rows} reaches its threshold"
            if card.train_metrics is not None
            else "every row reaches its threshold"
        )
    return f'predicts "{label}" for every {rows}: {why}. Try {_suggestion(card, side)}.'


def _one_side(card: ScoringSystem) -> str | None:
    m = card.train_metrics
    if m is not None:
        if m.n <= 0:
            return None
        if m.tp + m.fp <= 0:
            return "negative"
        if m.tn + m.fn <= 0:
            return "positive"
        return None
    binary = card.binary
    if card.size and (binary is None or not all(binary)):
        return None  # a count or real-valued feature: the range of totals is unknown
    coefs = np.asarray(card.coefficients, dtype=float)
    highest, lowest = (coefs > 0).astype(float), (coefs < 0).astype(float)
    # predict() applies the card's own rule, so this holds whichever rule (> or ≥) it uses.
    top_pos, bottom_pos = (
        bool(p == card.positive) for p in card.predict(np.vstack([highest, lowest]))
    )
    if not top_pos:
        return "negative"
    if bottom_pos:
        return "positive"
    return None


def _suggestion(card: ScoringSystem, side: str) -> str:
    spec = card.spec
    balanced = spec is not None and spec.class_weights == "balanced"
    tips = [] if balanced else ['class_weights="balanced"']
    if side == "negative":
        if spec is not None and spec.max_fpr is not None:
            tips.append(f"a looser max_fpr (now {percent(spec.max_fpr)})")
            tips.append("min_tpr (for example min_tpr=0.8)")
        else:
            tips += ["min_tpr (for example min_tpr=0.8)", "a looser max_fpr"]
    else:
        if spec is not None and spec.min_tpr is not None:
            tips.append(f"a lower min_tpr (now {percent(spec.min_tpr)})")
        tips.append("max_fpr (for example max_fpr=0.2)")
    return ", or ".join([", ".join(tips[:-1]), tips[-1]] if len(tips) > 1 else tips)


# -- the headline ----------------------------------------------------------------------------------
def describe(card: ScoringSystem, *, validation: Metrics | None = None) -> CardStatus:
    """The card's status in the user's units: headline, level, what is proven, warning.

    Parameters
    ----------
    card : a :class:`~slimwidgets.ScoringSystem` (from ``fit``, the studio, or JSON).
    validation : the card's :class:`~slimwidgets.Metrics` on held-out rows, appended
        to the headline when given.

    Examples
    --------
    >>> import pandas as pd, slimwidgets as sw
    >>> X = pd.DataFrame({"a": [1, 1, 0, 0, 1, 0], "b": [0, 1, 0, 1, 1, 0]})
    >>> card = sw.fit(X, [1, 1, 0, 0, 1, 0], max_size=1)
    >>> describe(card).headline
    'error 0.0 % · proven lowest'
    """
    m = card.train_metrics
    limit = proven_limit(card)
    details = {
        "status": card.status,
        "objective": card.objective,
        "bound": card.bound,
        "gap": card.gap,
        "solver": card.solver,
        "seconds": card.solve_time,
        "limit": None if limit is None else limit[1],
        "limit_of": None if limit is None else limit[0],
        "stopped": (card.details or {}).get("solver_stopped"),
        # why solver="auto" did not try the support scan (fitting/cards.py's scan_declined)
        "support_scan": (card.details or {}).get("support_scan"),
    }
    warning = degeneracy(card)
    # a risk card's objective is its log-loss: say it in those words
    if family_of_card(card).predicts_risk:
        headline, proven, anything = _risk_headline(card, validation)
    elif m is None:
        word = "edited by hand" if card.status == "edited" else card.status.replace("_", " ")
        headline, proven = f"{word} · no training figures", card.status == "optimal"
        anything = proven
    else:
        subject, kind = _subject(card, m)
        claim, proven, anything = _claim(card, m, kind, limit)
        headline = f"{subject} · {claim}"
        sample = (card.details or {}).get("sample")
        if (
            sample
        ):  # a large table searched on a sample (fitting/large.py): the figures are all rows'
            headline += f" · searched on a sample of {sample['rows']:,} of {sample['of']:,} rows"
        if validation is not None:
            headline += " · " + _held_out(kind, validation)
    level = (
        "warn" if warning is not None or not anything or card.status == "solver_stopped" else "ok"
    )
    return CardStatus(
        headline=headline, level=level, proven=proven, warning=warning, details=details
    )


def _risk_headline(card: ScoringSystem, validation: Metrics | None) -> tuple[str, bool, bool]:
    """(headline, is the card proven best, is anything proven) of a risk card, e.g.
    ``"risk card · train log-loss 0.3030, AUC 0.932 · best found in 2.0 s · proven: every card
    with ≤ 3 features has train log-loss ≥ 0.3016"``."""
    parts = [
        "risk card",
        _risk_figures("train", card.train_metrics, (card.details or {}).get("log_loss")),
    ]
    if validation is not None:
        parts.append(_risk_figures("held-out", validation, None))
    if _capped(card) and card.train_metrics is not None:  # where its decision at risk >= 50 % lands
        m = card.train_metrics
        parts.append(
            f"at risk {'≥' if card.rule == '>=' else '>'} 50 %: TPR {percent(m.tpr)}, FPR "
            f"{percent(m.fpr)}"
        )
    claim, proven, anything = _risk_claim(card)
    return " · ".join(p for p in parts + [claim] if p), proven, anything


def _capped(card: ScoringSystem) -> bool:
    spec = card.spec
    return spec is not None and (spec.max_fpr is not None or spec.min_tpr is not None)


def _risk_figures(which: str, m: Metrics | None, fallback: float | None) -> str:
    """``"train log-loss 0.3030, AUC 0.932"`` (what is known of the two)."""
    loss = m.log_loss if m is not None and m.log_loss is not None else fallback
    auc = None if m is None else m.auc
    figures = ([] if loss is None else [f"log-loss {loss:.4f}"]) + (
        [] if auc is None else [f"AUC {auc:.3f}"]
    )
    return f"{which} " + ", ".join(figures) if figures else ""


def _risk_claim(card: ScoringSystem) -> tuple[str, bool, bool]:
    """What is proven about a risk card's log-loss, in those units."""
    if card.status == "edited":
        return "edited by hand, " + NO_BOUND, False, False
    if card.status == "recalibrated":  # its link was refitted on new rows: nothing was solved
        return "recalibrated, no training figures", False, False
    limit = proven_limit(card)
    floor = limit[1] if limit is not None and limit[0] == "log_loss" else None
    # the bound is on the loss the solver minimized: class-weighted when the spec weights classes
    weighted = card.spec is not None and card.spec.class_weights is not None
    what = "class-weighted train log-loss" if weighted else "train log-loss"
    m = card.train_metrics
    loss = (card.details or {}).get("log_loss", None if weighted or m is None else m.log_loss)
    features = f"{card.size} feature{'' if card.size == 1 else 's'}"
    caps = " under the caps" if _capped(card) else ""
    # a floor that prints as 0.0000, or is a sliver of the card's loss, tells the user nothing
    useful = (
        floor is not None
        and round(floor, 4) > 0
        and (loss is None or floor >= USEFUL_FLOOR_SHARE * loss)
    )
    floor_text = (
        f"proven: every card with ≤ {features}{caps} has {what} ≥ {floor:.4f}" if useful else ""
    )
    if card.status == "optimal":
        if floor is not None and loss is not None and floor >= loss - 1e-9:
            return f"proven lowest {what} for ≤ {features}{caps}", True, True
        asked = 0.0 if card.spec is None else card.spec.gap
        if asked > 0 and card.gap is not None and card.gap > 1e-9:  # stopped at the requested gap
            above = f"at most {percent(card.gap)}" if card.gap >= 0.001 else "less than 0.1 %"
            within = (
                f"proven within the requested gap ({percent(asked)}): log-loss + size "
                f"penalty{caps} {above} above the best"
            )
            return _join(within, floor_text and "· " + floor_text), True, True
        return (
            _join(
                f"proven best: no card within these limits has lower log-loss + size penalty{caps}",
                floor_text and "· " + floor_text,
            ),
            True,
            True,
        )
    found = (
        _stopped_early(card)
        or f"{card.status.replace('_', ' ')}: best found in {seconds(card.solve_time)}"
    )
    if floor_text:
        return f"{found} · {floor_text}", False, True
    return f"{found}, {NO_BOUND}", False, False


def _subject(card: ScoringSystem, m: Metrics) -> tuple[str, str]:
    """The figure the user asked for, and which one it is (``"tpr"``, ``"fpr"``, ``"error"``)."""
    spec = card.spec
    max_fpr = None if spec is None else spec.max_fpr
    min_tpr = None if spec is None else spec.min_tpr
    if max_fpr is not None and min_tpr is None:
        text, kind = f"TPR {percent(m.tpr)} at FPR {percent(m.fpr)}", "tpr"
    elif min_tpr is not None and max_fpr is None:
        text, kind = f"FPR {percent(m.fpr)} at TPR {percent(m.tpr)}", "fpr"
    elif max_fpr is not None:
        text, kind = (
            f"error {percent(m.error)} at TPR {percent(m.tpr)}, FPR {percent(m.fpr)}",
            "error",
        )
    else:
        text, kind = f"error {percent(m.error)}", "error"
    if max_fpr is not None and m.fpr > max_fpr + 1e-12:
        text += f" (above the cap of {percent(max_fpr)})"
    if min_tpr is not None and m.tpr < min_tpr - 1e-12:
        text += f" (below the floor of {percent(min_tpr)})"
    return text, kind


_WHERE = {"tpr": "under this cap", "fpr": "at this TPR floor", "error": ""}


def _claim(
    card: ScoringSystem, m: Metrics, kind: str, limit: tuple[str, float] | None
) -> tuple[str, bool, bool]:
    """(what is proven, is the card proven best, is anything proven)."""
    if card.status == "edited":
        return "edited by hand, " + NO_BOUND, False, False
    value = {"tpr": m.tpr, "fpr": m.fpr, "error": m.error}[kind]
    where = _WHERE[kind]
    # nothing beats an error (or FPR) of 0, whichever rule the proof counted with
    qualifier = _zero_rule_note(card, kind) if value > 0 else ""
    spec = card.spec
    weighted = spec is not None and spec.class_weights is not None
    best_word = "best" if kind == "tpr" else "lowest"
    at_limit = (
        limit is not None
        and limit[0] == kind
        and (value >= limit[1] - 1e-12 if kind == "tpr" else value <= limit[1] + 1e-12)
    )
    # Without a scale the loss counts margin errors (real data), not the card's errors.
    exact = bool((card.details or {}).get("limits"))
    lexicographic_optimum = card.status == "optimal" and kind != "error" and exact and not weighted
    if at_limit or lexicographic_optimum:
        return _join(f"proven {best_word}", where, qualifier), True, True
    if card.status == "optimal":
        objective = (
            ("class-weighted error" if weighted else "error + size penalty")
            if exact
            else "objective (loss + size penalty)"
        )
        text = f"proven best: no card within these limits has lower {objective}"
        # an error floor below a proven-best card's error only blurs the claim
        if (
            kind != "error"
            and limit is not None
            and limit[0] == kind
            and _informative(kind, limit[1])
        ):
            text += " · " + _limit_phrase(kind, value, limit[1], where, qualifier)
        return text, True, True
    stopped = _stopped_early(card)
    if limit is not None and limit[0] == kind and _informative(kind, limit[1]):
        proven_text = _limit_phrase(kind, value, limit[1], where, qualifier)
        return (f"{stopped} · {proven_text}" if stopped else proven_text), False, True
    # a card built by hand, loaded or rounded carries no solve time: there is no search to time
    if stopped or card.solve_time is not None:
        return f"{stopped or 'best found in ' + seconds(card.solve_time)}, {NO_BOUND}", False, False
    return NO_BOUND, False, False


def _stopped_early(card: ScoringSystem) -> str:
    """What a card whose solver process was lost says instead of "best found", else ""."""
    if card.status != "solver_stopped":
        return ""
    return (
        f"the solver stopped after {seconds(card.solve_time)} (its process was lost): best card "
        "so far"
    )


def _informative(kind: str, limit: float) -> bool:
    return limit < 1.0 if kind == "tpr" else limit > 0.0


def _limit_phrase(kind: str, value: float, limit: float, where: str, qualifier: str) -> str:
    shown = percent(limit, value)
    if kind == "tpr":
        text = f"best possible {where} ≤ {shown} (proven)"
    elif kind == "fpr":
        text = f"lowest possible FPR {where} ≥ {shown} (proven)"
    else:
        text = f"proven lowest possible ≥ {shown}"
    return _join(text, qualifier)


def _join(*parts: str) -> str:
    return " ".join(p for p in parts if p)


def _zero_rule_note(card: ScoringSystem, kind: str) -> str:
    """Under the paper's rule a negative with total zero counts as an error in the proof,
    but is predicted negative; limits on errors of negatives say so."""
    raw = (card.details or {}).get("limits")
    if kind == "tpr" or raw is None:
        return ""
    zero = raw.zero_is_error if isinstance(raw, LimitScale) else bool(raw.get("zero_is_error"))
    return "(a zero total counted as an error)" if zero else ""


def _held_out(kind: str, v: Metrics) -> str:
    if kind == "tpr":
        return f"held-out TPR {percent(v.tpr)} at FPR {percent(v.fpr)}"
    if kind == "fpr":
        return f"held-out FPR {percent(v.fpr)} at TPR {percent(v.tpr)}"
    return f"held-out error {percent(v.error)}"


def details_text(status: CardStatus) -> str:
    """The raw solver figures in one line, for a details view (never the headline).

    Examples
    --------
    >>> details_text(CardStatus("", "ok", True, None, {"status": "time_limit", "objective": 0.25,
    ...     "bound": None, "gap": None, "solver": "highs", "seconds": 5.0}))
    'solver status time limit · objective 0.25 · bound: no proven limit yet · highs · 5.0 s'
    """
    d = status.details
    parts = [f"solver status {str(d.get('status', '')).replace('_', ' ')}"]
    if d.get("objective") is not None:
        parts.append(f"objective {d['objective']:.6g}")
    bound = d.get("bound")
    if bound is None or not math.isfinite(bound):
        parts.append(f"bound: {NO_BOUND}")
    else:
        parts.append(f"bound {bound:.6g}")
        if d.get("gap") is not None and math.isfinite(d["gap"]):
            parts.append(f"gap {d['gap']:.1%}".replace("%", " %"))
    if d.get("solver"):
        parts.append(str(d["solver"]))
    if d.get("seconds") is not None:
        parts.append(seconds(d["seconds"]))
    if d.get("stopped"):  # why the solver stopped early, e.g. its process was killed
        parts.append(str(d["stopped"]))
    if d.get("support_scan"):  # why the support scan was not tried
        parts.append(str(d["support_scan"]))
    return " · ".join(parts)


def headline_of(card: ScoringSystem) -> str:
    """What ``card`` is and what is proven about it (:func:`describe`'s headline)."""
    return describe(card).headline


def details_of(card: ScoringSystem) -> str:
    """The solver's raw figures of ``card`` (:func:`details_text` of :func:`describe`)."""
    return details_text(describe(card))


# the family objects sit below this module: it hands them the words of label cards
for _family in (DECISION, RISK):
    _family.says_with(CardWords(headline_of, details_of, degeneracy))
