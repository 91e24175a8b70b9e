"""What a card gets right and wrong on a set of rows: :class:`Metrics` (error, TPR, FPR, the
confusion counts; AUC and log-loss for risk cards), the AUC of an integer score, and the counts
as a card file keeps them."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .formatting import percent

__all__ = ["Metrics", "score_auc", "metric_counts", "read_metrics"]


@dataclass(frozen=True)
class Metrics:
    """Classification metrics of a card on one data set (weighted if weights were given).

    Parameters
    ----------
    n : float
        The total weight of the rows (their number when unweighted).
    tp, fp, tn, fn : float
        The weights of true positives, false positives, true negatives and false negatives.
    size : int
        The number of features the card uses.
    auc : float, optional
        Risk cards only: the area under the ROC curve of the integer score (ties count half).
    log_loss : float, optional
        Risk cards only: the mean (weighted) logistic loss of the predicted risks.
    """

    n: float
    tp: float
    fp: float
    tn: float
    fn: float
    size: int
    #: risk cards only: the area under the ROC curve of the integer score (ties count half)
    auc: float | None = None
    #: risk cards only: the mean (weighted) logistic loss of the predicted risks
    log_loss: float | None = None

    @property
    def error(self) -> float:
        """The share of rows misclassified (NaN without rows)."""
        return (self.fp + self.fn) / self.n if self.n else math.nan

    @property
    def accuracy(self) -> float:
        """The share of rows classified correctly."""
        return 1.0 - self.error

    @property
    def tpr(self) -> float:
        """The true positive rate, TP / (TP + FN) (NaN without positives)."""
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else math.nan

    @property
    def fpr(self) -> float:
        """The false positive rate, FP / (FP + TN) (NaN without negatives)."""
        return self.fp / (self.fp + self.tn) if self.fp + self.tn else math.nan

    @property
    def confusion(self) -> pd.DataFrame:
        """Rows: true class; columns: predicted class."""
        return pd.DataFrame(
            [[self.tp, self.fn], [self.fp, self.tn]],
            index=pd.Index(["positive", "negative"], name="true"),
            columns=pd.Index(["positive", "negative"], name="predicted"),
        )

    def to_dict(self) -> dict:
        """The counts and rates as a plain dict."""
        out = {
            "n": self.n,
            "error": self.error,
            "tpr": self.tpr,
            "fpr": self.fpr,
            "size": self.size,
            "tp": self.tp,
            "fp": self.fp,
            "tn": self.tn,
            "fn": self.fn,
        }
        return {**out, **_ranking_figures(self)}

    def __str__(self) -> str:
        noun = "feature" if self.size == 1 else "features"
        text = (
            f"error {percent(self.error)} · TPR {percent(self.tpr)} · FPR {percent(self.fpr)} · "
            f"{self.size} {noun}"
        )
        if self.auc is not None:  # a risk card: how it ranks and how well its risks fit
            text += f" · AUC {self.auc:.3f} · log-loss {self.log_loss:.4f}"
        return text


def _ranking_figures(m: Metrics) -> dict:
    """A risk card's AUC and log-loss (absent for decision cards, whose
    exports stay as they were)."""
    return {k: getattr(m, k) for k in ("auc", "log_loss") if getattr(m, k) is not None}


def score_auc(scores: np.ndarray, positive: np.ndarray, weight: np.ndarray) -> float:
    """Weighted area under the ROC curve of ``scores``: the chance a positive row scores above
    a negative one, a tie counting half (NaN without rows of both classes).

    Examples
    --------
    >>> score_auc(np.array([0, 1, 1, 2]), np.array([False, False, True, True]), np.ones(4))
    0.875
    """
    wp, wn = float(weight[positive].sum()), float(weight[~positive].sum())
    if wp <= 0 or wn <= 0:
        return math.nan
    cuts, idx = np.unique(scores, return_inverse=True)
    pos_at = np.bincount(idx, weights=np.where(positive, weight, 0.0), minlength=len(cuts))
    neg_at = np.bincount(idx, weights=np.where(positive, 0.0, weight), minlength=len(cuts))
    neg_below = np.cumsum(neg_at) - neg_at  # negative weight strictly below each distinct score
    return float(np.sum(pos_at * (neg_below + 0.5 * neg_at)) / (wp * wn))


_COUNTS = ("n", "tp", "fp", "tn", "fn", "size")
_RANKING = ("auc", "log_loss")


def metric_counts(m: Metrics) -> dict:
    """The counts and ranking figures of ``m`` as a card file keeps them."""
    return {**{k: getattr(m, k) for k in _COUNTS}, **_ranking_figures(m)}


def read_metrics(d: Mapping | None) -> Metrics | None:
    """Metrics read back from a card file's counts (None stays None)."""
    if d is None:
        return None
    figures: dict[str, Any] = {k: d[k] for k in _COUNTS}
    figures.update({k: float(d[k]) for k in _RANKING if d.get(k) is not None})
    return Metrics(**figures)
