"""The studio's background sweeps, without Jupyter: the FPR-cap frontier and the sparsity path
of the current spec, solved on a worker of their own through the controller's cache, and the
frames the charts are drawn from (with a card's own ROC)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..core.data import Dataset
from ..core.family import family_of_card, family_of_loss
from ..core.scoring import Metrics, ScoringSystem
from ..core.spec import Spec
from .scheduler import BackgroundQueue
from .solving import studio_spec

if TYPE_CHECKING:
    from .alternatives import AlternativesList
    from .studio_core import StudioCore

__all__ = ["Sweeps", "SweepViews", "card_roc", "FPR_CAPS", "MAX_PATH_SIZE", "chart_frames"]

# FPR caps of the background frontier (slider positions, so dragging there is a cache hit).
FPR_CAPS = (0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5)
MAX_PATH_SIZE = 10


class Sweeps:
    """The frontier and path points of the studio's current spec, filled in the background.

    Parameters
    ----------
    core : the studio's core (its spec, cache, lock and emit).
    solve : solves a spec on the rows in use, ``solve(spec, cancel)`` (None: interrupted).
    store : caches ``store(spec, result)`` with the rows it was solved on.
    offer : ``offer(card, source)``: a card found here that may beat the card shown
        (:meth:`~slimwidgets.widgets.best_known.BestKnownControls.offer`).
    enabled : solve the points at all.
    fpr_caps, max_path_size : the frontier's caps, the path's largest size.
    """

    def __init__(
        self,
        core: StudioCore,
        solve: Callable[..., Any],
        store: Callable[[Spec, Any], None],
        offer: Callable[[ScoringSystem | None, str], bool],
        *,
        enabled: bool = True,
        fpr_caps=FPR_CAPS,
        max_path_size: int = MAX_PATH_SIZE,
    ):
        self._core, self._solve, self._store, self._offer = core, solve, store, offer
        self.enabled = bool(enabled)
        self.fpr_caps = tuple(fpr_caps)
        self.max_path_size = int(max_path_size)
        self.points: dict[tuple[str, str], dict] = {}  # (kind, cache key) -> point record
        self.plan_now: list[tuple[str, str, Any]] = []
        self.queue = BackgroundQueue(self._job)

    def reset(self) -> None:
        """Forget every point (the rules changed: points solved on the
        others are of other cards)."""
        with self._core.lock:
            self.points.clear()
            self.plan_now = []
        self.queue.set_plan([])

    def plan_for(self, spec: Spec) -> list[tuple[str, str, Any]]:
        """(kind, spec key, parameter) of every frontier and path point for ``spec``.

        The path starts at the number of features the spec forces in (required or
        locked at non-zero points): a smaller size is not a card of this spec.
        """
        spec = studio_spec(spec)  # (solved here, at the spec's size: no choice by CV)

        def key(**change: Any) -> str | None:
            try:
                return spec.replace(**change).key()
            except (ValueError, TypeError):  # a point this spec cannot have: no point, no error
                return None

        # the FPR-cap frontier compares decision cards; a risk card's own ROC already shows every
        # threshold of its score, so risk cards get only the path (log-loss by size)
        caps = [] if family_of_loss(spec.loss).predicts_risk else list(self.fpr_caps) + [None]
        frontier = [("fpr", k, c) for c in caps if (k := key(max_fpr=c)) is not None]
        forced = len(set(spec.require) | {f for f, v in spec.lock.items() if v != 0})
        first = max(1, forced)
        top = min(max(self.max_path_size, first), self._core.data.n_features)
        path = [("size", k, n) for n in range(first, top + 1) if (k := key(max_size=n)) is not None]
        # interleave, so both charts fill in together
        out: list = []
        for i in range(max(len(frontier), len(path))):
            out += frontier[i : i + 1] + path[i : i + 1]
        return out

    def plan(self, also: tuple[str, ...] = ()) -> None:
        """Follow the current spec: points already cached at once, the rest queued."""
        c = self._core
        if not self.enabled or c.closed:
            if also:
                c.emit(*also)
            return
        with c.lock:
            plan = self.plan_for(c.spec)
            self.plan_now = plan
            for kind, key, param in plan:
                hit = c.cache.get(key)
                if hit is not None:
                    self._record(kind, key, param, hit)
        c.emit("frontier", *also)
        self.queue.set_plan(plan, done=lambda item: item[1] in c.cache)

    def _job(self, item, cancel: threading.Event) -> None:
        c = self._core
        kind, key, param = item
        if key in c.cache:
            return
        spec = Spec.from_dict(json.loads(key))
        result = self._solve(spec, cancel)
        if result is None:
            return
        self._store(spec, result)
        with c.lock:
            if item not in self.plan_now:
                return
            self._record(kind, key, param, result)
        c.emit("frontier")
        self._offer(
            result if isinstance(result, ScoringSystem) else None,
            "the frontier" if kind == "fpr" else "the size path",
        )

    def solved(self, spec: Spec, result) -> None:
        """An interactive solve that is also a point of the current plan fills it in."""
        c = self._core
        key = spec.key()
        with c.lock:
            hits = [item for item in self.plan_now if item[1] == key]
            for kind, k, param in hits:
                self._record(kind, k, param, result)
        if hits:
            c.emit("frontier")

    def _record(self, kind: str, key: str, param: Any, result) -> None:
        rec: dict[str, Any] = {"kind": kind, "key": key, "param": param}
        if not isinstance(result, ScoringSystem):  # a failed solve
            rec.update(feasible=False, status=result.status.state)
        else:
            m, v = result.train_metrics, result.validation_metrics
            rec.update(
                feasible=True,
                status=result.status,
                tpr=m.tpr,
                fpr=m.fpr,
                error=m.error,
                size=result.size,
                objective=result.objective,
                gap=result.gap,
                log_loss=m.log_loss,
            )
            if v is not None:
                rec.update(val_tpr=v.tpr, val_fpr=v.fpr, val_error=v.error, val_log_loss=v.log_loss)
        self.points[(kind, key)] = rec

    def frame(self, kind: str, param_name: str, held_out: bool) -> pd.DataFrame:
        """The points of one sweep so far (``kind`` "fpr" or "size"), one row per solved point."""
        with self._core.lock:
            plan = [item for item in self.plan_now if item[0] == kind]
            rows = [self.points.get((k, key)) for k, key, _ in plan]
        rows = [dict(r) for r in rows if r is not None and r.get("feasible")]
        cols = ["key", param_name, "tpr", "fpr", "error", "size", "status", "gap", "log_loss"]
        if held_out:
            cols += ["val_tpr", "val_fpr", "val_error", "val_log_loss"]
        if not rows:
            return pd.DataFrame(columns=cols)
        frame = pd.DataFrame(rows).rename(columns={"param": param_name})
        return frame.reindex(columns=cols).reset_index(drop=True)


class SweepViews:
    """The sweeps and charts of the studio (a feature object: it reads the card of the studio's
    core and the points of its sweeps, and plans the background work).

    Parameters
    ----------
    core : the studio's core.
    sweeps : the frontier and path points.
    alts : the alternatives list, planned with them.
    """

    def __init__(self, core: StudioCore, sweeps: Sweeps, alts: AlternativesList) -> None:
        self._core, self._sweeps, self._alts = core, sweeps, alts
        self._roc: tuple[ScoringSystem | None, pd.DataFrame | None] = (None, None)

    def _plan(self, spec: Spec) -> list[tuple[str, str, Any]]:
        return self._sweeps.plan_for(spec)

    @property
    def _plan_now(self) -> list[tuple[str, str, Any]]:
        return self._sweeps.plan_now

    def plan_background(self, also: tuple[str, ...] = ()) -> None:
        if not self._core.closed:
            self._alts.plan()
        self._sweeps.plan(also)

    def frontier_points(self) -> pd.DataFrame:
        """The FPR-cap frontier of the current spec so far: one row per solved cap
        (with held-out rows, also ``val_tpr``, ``val_fpr``, ``val_error``)."""
        return self._sweeps.frame("fpr", "cap", self._core.validation is not None)

    def path_points(self) -> pd.DataFrame:
        """The sparsity path of the current spec so far: one row per solved max_size."""
        return self._sweeps.frame("size", "max_size", self._core.validation is not None)

    def chart_frames(self) -> dict[str, pd.DataFrame]:
        """The DataFrames the studio's charts are drawn from, all from the current state.

        ``frontier``, ``path`` and ``card`` have a ``set`` column: "train" rows
        first, then (with held-out rows) the same points measured on "validation".
        ``roc`` is the card's own ROC on the training rows; ``cap`` the current cap.
        """
        card = self._core.card
        if card is not None and card.train_metrics is not None:
            if self._roc[0] is not card:  # the card's own ROC, computed once per card
                self._roc = (card, own_roc(card, self._core.data, self._core.validation))
            roc = self._roc[1]
        else:
            roc = pd.DataFrame(columns=["threshold", "fpr", "tpr", "set"])
        return chart_frames(
            card_point(card),
            roc,
            self._core.spec.max_fpr,
            self.frontier_points(),
            self.path_points(),
        )


# -- what the charts draw --------------------------------------------------------------------------
def card_roc(card: ScoringSystem, data: Dataset) -> pd.DataFrame:
    """The card's own ROC: (FPR, TPR) of "predict positive if score >= t" for every threshold t
    ("score > t" for a card made under the paper's rule, ``zero_score="error"``).

    Rows run from the strictest threshold (nothing positive) to the loosest
    (everything positive); ``current`` marks the card's own threshold.
    """
    scores = data.X @ np.asarray(card.coefficients, dtype=float)
    pos = data.y == 1
    wp, wn = float(data.weight[pos].sum()), float(data.weight[~pos].sum())
    cuts = np.unique(scores)  # ascending
    # weight of each class at each distinct score, then "score > t" counts by suffix sums
    idx = np.searchsorted(cuts, scores)
    tp_at = np.bincount(idx, weights=np.where(pos, data.weight, 0.0), minlength=len(cuts))
    fp_at = np.bincount(idx, weights=np.where(pos, 0.0, data.weight), minlength=len(cuts))
    above_tp = np.concatenate([np.cumsum(tp_at[::-1])[::-1][1:], [0.0]])  # strictly above cuts[k]
    above_fp = np.concatenate([np.cumsum(fp_at[::-1])[::-1][1:], [0.0]])
    if card.rule == ">=":  # "score > cuts[k]" is "score >= cuts[k + 1]" (or >= max + 1: nothing)
        thresholds = np.concatenate([[cuts[-1] + 1], cuts[::-1]]) if len(cuts) else np.zeros(1)
    else:
        thresholds = np.concatenate(
            [cuts[::-1], [cuts[0] - 1]]
        )  # nothing positive ... everything positive
    tpr = np.concatenate([above_tp[::-1], [tp_at.sum()]]) / wp
    fpr = np.concatenate([above_fp[::-1], [fp_at.sum()]]) / wn
    frame = pd.DataFrame({"threshold": thresholds, "fpr": fpr, "tpr": tpr})
    pred = card.predicts_positive(scores - card.threshold)  # the card's own operating point
    own = (float(data.weight[pred & ~pos].sum() / wn), float(data.weight[pred & pos].sum() / wp))
    frame["current"] = (np.abs(frame.fpr - own[0]) < 1e-12) & (np.abs(frame.tpr - own[1]) < 1e-12)
    return frame


def own_roc(card: ScoringSystem, train: Dataset, held_out: Dataset | None) -> pd.DataFrame:
    """The card's ROC on the training rows; a risk card's also on the held-out rows (its
    curve is what the risk family is judged by), with the predicted risk at each threshold."""
    roc = card_roc(card, train).assign(set="train")
    if not family_of_card(card).predicts_risk:
        return roc
    if held_out is not None:
        roc = pd.concat([roc, card_roc(card, held_out).assign(set="validation")], ignore_index=True)
    return roc.assign(
        risk=card.predicted_risk(roc["threshold"].to_numpy() - (0 if card.rule == ">=" else -1))
    )


def card_point(card: ScoringSystem | None) -> pd.DataFrame:
    """The card's own point(s) on the charts: train, then held-out."""
    if card is None or card.train_metrics is None:
        return pd.DataFrame(columns=["tpr", "fpr", "error", "size", "status", "set"])
    rows = [_point_row(card.train_metrics, card.status, "train")]
    if card.validation_metrics is not None:
        rows.append(_point_row(card.validation_metrics, card.status, "validation"))
    return pd.DataFrame(rows)


def chart_frames(
    card_point: pd.DataFrame,
    roc: pd.DataFrame,
    cap: float | None,
    frontier: pd.DataFrame,
    path: pd.DataFrame,
) -> dict[str, pd.DataFrame]:
    """The charts' frames: sweeps split into train and held-out rows (see ``_by_set``)."""
    return {
        "frontier": _by_set(frontier),
        "roc": roc,
        "card": card_point,
        "cap": pd.DataFrame({"cap": [] if cap is None else [cap]}),
        "path": _by_set(path),
    }


def _point_row(m: Metrics, status: str, which: str) -> dict:
    return {
        "tpr": m.tpr,
        "fpr": m.fpr,
        "error": m.error,
        "size": m.size,
        "status": status,
        "set": which,
        "auc": m.auc,
        "log_loss": m.log_loss,
    }


def _by_set(points: pd.DataFrame) -> pd.DataFrame:
    """Points with val_* columns -> one "train" row and one "validation" row per point."""
    measures = ["tpr", "fpr", "error", "log_loss"]
    held = ["val_" + m for m in measures]
    train = points.drop(columns=[c for c in held if c in points]).assign(set="train")
    if "val_tpr" not in points or len(points) == 0:
        return train
    validation = (
        points.drop(columns=[m for m in measures if m in points])
        .rename(columns=dict(zip(held, measures)))
        .assign(set="validation")
    )
    return pd.concat([train, validation[train.columns]], ignore_index=True)
