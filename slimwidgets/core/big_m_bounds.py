"""How far a card can move the rows' totals: the derived intercept box and each loss row's big-M.

Every card (lambda, b) whose intercept b lies past every row's total makes the same predictions
as the card with b at the edge of the rows' totals, so the program only needs, for each points
vector lambda, the intercepts in ``[floor(-s_max - m), ceil(-s_min + m)]`` with ``s_max``,
``s_min`` the largest and smallest total ``x_k . lambda`` over the rows k and m the margin.

Two consequences, both much tighter than the points box alone on data whose columns are not
0/1 (breastcancer's columns take values 1-10):

* **The intercept box** needs to reach only the totals of cards the program can return: with at
  most K features in use, ``s_max`` is at most the sum of each row's K largest contributions
  (:func:`score_range`).
* **The big-M of a loss row** i need only cover how wrong row i can be while b is in that
  range: for a negative row, ``x_i . lambda + b + m <= max_k (x_i - x_k) . lambda + 2 m + 1``,
  and alike for a positive row (:class:`RowReach`). It depends on the differences between rows,
  not on the intercept box, and shrinks with K: the proof by model size solves each size K with
  the M of that size.

A card the tighter rows cut off is one whose intercept lies past every row's total (an
equivalent card inside the range remains), or one with more than K features (when K comes
from ``max_size`` or the size a sub-program fixes), so the optimum is unchanged;
``tests/fitting/test_exactness.py`` checks this against brute force.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from .spec import Spec

__all__ = ["score_range", "RowReach", "EXACT_WORK", "intercept_box", "AUTO_INTERCEPT_LIMIT"]

#: rows x rows x features past which a row's farthest row is bounded feature by feature
#: (from each column's extremes) instead of found row by row, when asked for (a size's program
#: in the proof by model size: ~0.1 s on breastcancer; a build uses the cheap bound)
EXACT_WORK = 3e7
_CHUNK = 4e6  # differences held in memory at once


def _parts(d: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The most ``lambda_j d_j`` can be with ``lambda_j`` in ``[lo_j, hi_j]``, per feature."""
    return np.maximum(d * lo, d * hi)


def _top_sum(parts: np.ndarray, k: int | None) -> np.ndarray:
    """Sum over the last axis of the ``k`` largest entries (all of them when ``k`` is None)."""
    n = parts.shape[-1]
    if k is None or k >= n:
        return parts.sum(axis=-1)
    if k <= 0:
        return np.zeros(parts.shape[:-1])
    return -np.partition(-parts, k - 1, axis=-1)[..., :k].sum(axis=-1)


def _most_of(parts: np.ndarray, optional: np.ndarray, most: int | None) -> np.ndarray:
    """The largest total of ``parts`` over cards using every non-optional feature and at most
    ``most`` features in all (optional features contribute at least 0: they may be left out)."""
    fixed = parts[..., ~optional].sum(axis=-1)
    k = None if most is None else max(most - int(np.count_nonzero(~optional)), 0)
    return fixed + _top_sum(np.maximum(parts[..., optional], 0.0), k)


def score_range(
    X: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    optional: np.ndarray | None = None,
    most: int | None = None,
) -> tuple[float, float]:
    """(least, greatest) total ``x_i . lambda`` over the rows and the cards with points in
    ``[lo, hi]`` that use at most ``most`` features (``optional``: features whose box holds 0).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 10.0, 10.0], [2.0, 1.0, 0.0]])
    >>> lo, hi = np.full(3, -10), np.full(3, 10)
    >>> score_range(X, lo, hi)
    (-210.0, 210.0)
    >>> score_range(X, lo, hi, most=2)  # the two largest contributions of a row
    (-200.0, 200.0)
    """
    lo_f, hi_f = lo.astype(float), hi.astype(float)
    optional = (lo <= 0) & (hi >= 0) if optional is None else optional
    up = down = 0.0
    step = max(
        1, int(_CHUNK // max(X.shape[1], 1))
    )  # rows at a time: a million rows' parts are gigabytes
    for start in range(0, X.shape[0], step):
        block = X[start : start + step]
        up = max(up, float(_most_of(_parts(block, lo_f, hi_f), optional, most).max()))
        down = max(down, float(_most_of(_parts(-block, lo_f, hi_f), optional, most).max()))
    return (-down if down > 0 else 0.0), up


class RowReach:
    """The big-M of loss rows, for cards of at most K features.

    ``M_i = need_i + D_i + margin + 1``, with ``D_i`` the most ``y-oriented (x_i - x_k) . lambda``
    over the rows k and the cards: for a negative row, ``max_k (x_i - x_k) . lambda``; for a
    positive row, ``max_k (x_k - x_i) . lambda``. Row by row when rows x rows x features is at
    most :data:`EXACT_WORK` (and ``exact``), else bounded feature by feature from each column's
    least and greatest value.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 1.0], [5.0, 5.0], [10.0, 10.0]])
    >>> reach = RowReach(X, np.array([-1, -1, 1]), np.full(2, -10), np.full(2, 10), margin=1.0)
    >>> rows, need = np.arange(3), np.array([1.0, 1.0, 0.0])
    >>> reach.big_m(rows, need, most=None).round(3)  # row 1: 10 x (5 + 5) below row 2
    array([183., 103., 182.])
    >>> reach.big_m(rows, need, most=1).round(3)
    array([93., 53., 92.])
    """

    def __init__(
        self,
        X: np.ndarray,
        y: np.ndarray,
        lo: np.ndarray,
        hi: np.ndarray,
        margin: float,
        optional: np.ndarray | None = None,
    ):
        self.X, self.y = X.astype(float), y
        self.lo, self.hi = lo.astype(float), hi.astype(float)
        self.optional = (lo <= 0) & (hi >= 0) if optional is None else optional
        self.margin = float(margin)

    def big_m(
        self, rows: np.ndarray, need: np.ndarray, most: int | None, exact: bool = True
    ) -> np.ndarray:
        """M for each of ``rows`` (``need``: their margins), cards of at most ``most`` features;
        ``exact=False``: always the bound feature by feature (O(rows x features))."""
        n, p = self.X.shape
        rows = np.asarray(rows, dtype=np.int64)
        exact = exact and len(rows) * n * max(p, 1) <= EXACT_WORK
        far = self._exact(rows, most) if exact else self._by_feature(rows, most)
        # the intercept's edge is strictly within margin + 1 of the totals; 1e-6 covers rounding
        return need + far + self.margin + 1.0 + 1e-6 * (1.0 + np.abs(far))

    def anchored_m(self, rows: np.ndarray, anchors: np.ndarray, most: int | None) -> np.ndarray:
        """M for each of ``rows`` when every row of ``anchors`` must be right (inf for a row
        with no anchor of its class).

        A negative anchor u that is right has ``x_u . lambda + b <= -m``, so a negative row i is
        wrong by at most ``(x_i - x_u) . lambda``; a positive anchor bounds positive rows alike.
        In a program cut off below an incumbent, a row whose weight alone exceeds the loss left
        to spend is such an anchor (:meth:`~.formulation.Formulation.restricted`).

        Examples
        --------
        >>> import numpy as np
        >>> X = np.array([[1.0, 1.0], [2.0, 1.0], [9.0, 9.0]])
        >>> reach = RowReach(X, np.array([-1, -1, 1]), np.full(2, -10), np.full(2, 10), margin=1.0)
        >>> reach.anchored_m(np.array([1, 2]), np.array([0]), most=None).round(3)
        array([10., inf])
        """
        rows, anchors = np.asarray(rows, dtype=np.int64), np.asarray(anchors, dtype=np.int64)
        out = np.full(len(rows), np.inf)
        for cls in (-1, 1):
            mine, theirs = np.flatnonzero(self.y[rows] == cls), anchors[self.y[anchors] == cls]
            if not len(mine) or not len(theirs):
                continue
            sign = -1.0 if cls == 1 else 1.0
            step = max(1, int(_CHUNK // max(len(theirs) * self.X.shape[1], 1)))
            for s in range(0, len(mine), step):
                part = mine[s : s + step]
                d = sign * (self.X[rows[part]][:, None, :] - self.X[theirs][None, :, :])
                far = _most_of(_parts(d, self.lo, self.hi), self.optional, most).min(axis=1)
                out[part] = np.maximum(far, 0.0) + 1e-6 * (1.0 + np.abs(far))
        return out

    def _exact(self, rows: np.ndarray, most: int | None) -> np.ndarray:
        n, p = self.X.shape
        step = max(1, int(_CHUNK // max(n * max(p, 1), 1)))
        out = np.empty(len(rows))
        for s in range(0, len(rows), step):
            chunk = rows[s : s + step]
            # y-oriented: negatives are wrong when their total is high, positives when it is low
            d = (self.X[chunk][:, None, :] - self.X[None, :, :]) * np.where(
                self.y[chunk] == 1, -1.0, 1.0
            )[:, None, None]
            out[s : s + step] = _most_of(_parts(d, self.lo, self.hi), self.optional, most).max(
                axis=1
            )
        return out

    def _by_feature(self, rows: np.ndarray, most: int | None) -> np.ndarray:
        x = self.X[rows]
        low, high = self.X.min(axis=0), self.X.max(axis=0)
        sign = np.where(self.y[rows] == 1, -1.0, 1.0)[:, None]
        # d = sign (x_i - x_k) over x_k in [low, high]: the parts peak at one of the two ends
        ends = np.maximum(
            _parts(sign * (x - low), self.lo, self.hi), _parts(sign * (x - high), self.lo, self.hi)
        )
        return _most_of(ends, self.optional, most)


#: half-width past which a derived intercept box is cut (its histograms would not fit in memory);
#: a card whose intercept then sits at an end is told it may be limited (see fitting.box_notes)
AUTO_INTERCEPT_LIMIT = 10**6


def intercept_box(
    spec: Spec,
    X: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    margin: float,
    most: int | None = None,
) -> tuple[int, int]:
    """The intercept box: the user's, or one derived from the data and the points boxes.

    Every card in the points box with at most ``most`` features (``max_size``) gives each row a
    score in [s_min, s_max] (:func:`score_range`); an intercept past -s_min + margin
    already predicts every row positive and one below -s_max - margin every row negative, so
    moving further changes no prediction: the derived box never binds.

    Examples
    --------
    >>> import numpy as np
    >>> from slimwidgets.core.spec import make_spec
    >>> X = np.array([[0.0, 120.0], [1.0, 80.0]])
    >>> intercept_box(make_spec(), X, np.array([-10, -10]), np.array([10, 10]), 1.0)
    (-1202, 1202)
    >>> lo, hi = np.array([-10, -10]), np.array([10, 10])
    >>> intercept_box(make_spec(intercept_range=(-5, 5)), X, lo, hi, 1.0)
    (-5, 5)
    """
    if spec.intercept_range is not None:
        return int(spec.intercept_range[0]), int(spec.intercept_range[1])
    s_min, s_max = score_range(X, lo, hi, most=most)
    reach = math.ceil(abs(margin)) + 1
    low = max(math.floor(-s_max) - reach, -AUTO_INTERCEPT_LIMIT)
    high = min(math.ceil(-s_min) + reach, AUTO_INTERCEPT_LIMIT)
    return int(low), int(high)
