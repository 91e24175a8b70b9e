"""The losses a card can be fitted for: the seam between the two model families.

A loss is a small object the solvers call: it evaluates a card on the training rows and, for
the search, scans every allowed value of one coefficient at once.

* ``"zero_one"`` (decision cards, SLIM): the weighted share of misclassified rows. Its solvers
  (search, walk, MIPs) work on :mod:`slimwidgets.core.formulation`; here it only evaluates.
* ``"logistic"`` (risk cards, RiskSLIM's objective): the weighted mean logistic loss of the
  integer score ``s = intercept + x . points``, optionally divided by a real multiplier
  ``m >= 1/2`` first (FasterRisk's model, ``scale=True``): the predicted risk is
  ``1 / (1 + exp(-s / m))``. With ``m = 1`` it is exactly RiskSLIM's loss.

Both are computed on the collapsed rows of a :class:`~slimwidgets.core.data.Dataset`
(distinct rows with weights), so every figure is a weighted mean over the original samples.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .._jit import njit  # numba's, cached where a cache folder is writable
from .data import Dataset

__all__ = ["LOSSES", "ZeroOneLoss", "LogisticLoss", "sigmoid", "softplus"]

LOSSES = ("zero_one", "logistic")
#: the smallest 1/m the multiplier search considers (m <= 10^4: beyond it every risk is ~50 %)
MIN_INVERSE_MULTIPLIER = 1e-4
#: the largest 1/m (m >= 1/2, the range FasterRisk's multiplier search covers): without a cap the
#: loss of a card that separates the rows would fall towards 0 as m does, and the box of a point's
#: logit (``points / m``) would have no end for the bounds
MAX_INVERSE_MULTIPLIER = 2.0


def sigmoid(z: np.ndarray | float) -> np.ndarray | float:
    """1 / (1 + exp(-z)), without overflow for large |z|."""
    z = np.asarray(z, dtype=float)
    out = np.empty_like(z)
    pos = z >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-z[pos]))
    ez = np.exp(z[~pos])
    out[~pos] = ez / (1.0 + ez)
    return out if out.ndim else float(out)


def softplus(z: np.ndarray) -> np.ndarray:
    """log(1 + exp(z)), stable for large |z|."""
    return np.maximum(z, 0.0) + np.log1p(np.exp(-np.abs(z)))


def class_weighted(data: Dataset, class_weights) -> np.ndarray:
    """Row weights after the spec's ``class_weights`` ((negative, positive) or "balanced")."""
    w = data.weight.astype(float).copy()
    if class_weights is None:
        return w
    pos = data.y == 1
    if class_weights == "balanced":  # each class carries half of the total weight
        total = w.sum()
        w[pos] *= total / (2 * w[pos].sum())
        w[~pos] *= total / (2 * w[~pos].sum())
    else:
        w[~pos] *= class_weights[0]
        w[pos] *= class_weights[1]
    return w


class ZeroOneLoss:
    """The decision family's loss: the weighted share of rows on the wrong side of the threshold.

    A row counts as an error when ``y * (intercept + x . points) <= 0`` (the paper's rule).

    Examples
    --------
    >>> import numpy as np
    >>> from slimwidgets.core.data import prepare_data
    >>> data = prepare_data(np.array([[1.0], [0.0], [1.0]]), [1, 0, 0])
    >>> ZeroOneLoss(data).evaluate(np.array([2]), -1)
    0.3333333333333333
    """

    name = "zero_one"

    def __init__(self, data: Dataset, class_weights=None):
        self.X, self.y = data.X, data.y.astype(float)
        w = class_weighted(data, class_weights)
        self.w = w / w.sum()

    def evaluate(
        self, coefficients: np.ndarray, intercept: float, multiplier: float = 1.0
    ) -> float:
        margins = self.y * (intercept + self.X @ np.asarray(coefficients, dtype=float))
        return float(self.w[margins <= 0].sum())


class LogisticLoss:
    """The risk family's loss: weighted mean of ``log(1 + exp(-y s / m))`` over the rows.

    ``s = intercept + x . points`` is the integer score and ``m >= 1/2`` the multiplier
    (``m = 1``: RiskSLIM's loss). The solvers keep the *margins* ``u = y s`` of the current
    card and ask for the loss of many coefficient values at once (:meth:`scan`).

    Examples
    --------
    >>> import numpy as np
    >>> from slimwidgets.core.data import prepare_data
    >>> data = prepare_data(np.array([[1.0], [0.0], [1.0], [0.0]]), [1, 0, 1, 1])
    >>> loss = LogisticLoss(data)
    >>> round(loss.evaluate(np.array([0]), 0), 4)  # every risk 50 %: log 2
    0.6931
    >>> round(loss.evaluate(np.array([2]), 0, multiplier=2.0), 4)
    0.5032
    """

    name = "logistic"

    def __init__(self, data: Dataset, class_weights=None):
        w = class_weighted(data, class_weights)
        self._set_rows(data.X, data.y, w / w.sum())

    def _set_rows(self, X: np.ndarray, y: np.ndarray, w: np.ndarray) -> None:
        self.X = np.ascontiguousarray(X, dtype=float)
        self.y = np.asarray(y, dtype=float)
        self.w = w
        # margin change per point of feature j; column-major, so that a column (the scans) and
        # the gradient over every feature (yX.T @ p, a row-major product) read memory in order
        self.yX = np.asfortranarray(self.X * self.y[:, None])
        self.binary = np.all((self.X == 0) | (self.X == 1), axis=0)

    def margins(self, coefficients: np.ndarray, intercept: float) -> np.ndarray:
        coefficients = np.asarray(coefficients, dtype=float)
        used = np.flatnonzero(coefficients)  # cards are sparse: only their columns
        return self.y * (intercept + self.X[:, used] @ coefficients[used])

    def of_margins(self, margins: np.ndarray, t: float = 1.0) -> float:
        """Mean loss of margins ``u`` at inverse multiplier ``t = 1/m``."""
        return float(self.w @ softplus(-t * margins))

    def evaluate(
        self, coefficients: np.ndarray, intercept: float, multiplier: float = 1.0
    ) -> float:
        return self.of_margins(self.margins(coefficients, intercept), 1.0 / multiplier)

    def on_support(self, support: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(y * x_j for j in support, y, w)`` over the rows, with the rows that agree on the
        support and the label merged into one (weights added) when its features are binary:
        the loss of every card on the support is then a sum over at most 2^(k+1) rows."""
        k = len(support)
        if k > 16 or not self.binary[support].all():
            return np.ascontiguousarray(self.yX[:, support]), self.y, self.w
        key = self.X[:, support] @ (2.0 ** np.arange(1, k + 1)) + (self.y > 0)
        weights = np.bincount(key.astype(np.int64), weights=self.w, minlength=2 ** (k + 1))
        cells = np.flatnonzero(weights)
        y = np.where(cells % 2 == 1, 1.0, -1.0)
        bits = (cells[:, None] >> np.arange(1, k + 1)) & 1
        return np.ascontiguousarray(bits * y[:, None], dtype=float), y, weights[cells]

    def merged(self, support: list[int]) -> LogisticLoss:
        """This loss on the rows merged as in :meth:`on_support`: the same value for every
        card that uses only ``support``, at a fraction of the work; itself when nothing merges."""
        columns, y, w = self.on_support(support)
        if y is self.y:
            return self
        X = np.zeros((y.size, self.X.shape[1]))
        X[:, support] = columns * y[:, None]  # y is +-1: x = y * (y x)
        loss = LogisticLoss.__new__(LogisticLoss)
        loss._set_rows(X, y, w)
        return loss

    def column_dots(self, p: np.ndarray) -> np.ndarray:
        """``yX.T @ p``: for each feature, the sum over rows of ``y x_j p``. Compiled and
        single-threaded: on a loaded machine a threaded BLAS product of this size waits far
        longer for its threads than it computes."""
        return _column_dots(self.yX, np.ascontiguousarray(p, dtype=float))

    def scan(self, margins: np.ndarray, j: int, deltas: np.ndarray, t: float) -> np.ndarray:
        """Loss of the card after adding ``delta`` points to feature ``j`` (``j = -1``: the
        intercept), for every ``delta`` in ``deltas``: one pass over the rows per value."""
        column = self.y if j < 0 else self.yX[:, j]
        return _scan(margins, column, self.w, np.asarray(deltas, dtype=float), float(t))

    def best_inverse_multiplier(
        self, margins: np.ndarray, t_max: float = 1.0
    ) -> tuple[float, float]:
        """The ``t = 1/m`` in ``[MIN_INVERSE_MULTIPLIER, t_max]`` of least loss, and that loss.

        The loss is convex in ``t`` (a softplus of a linear function): Newton steps on its
        derivative, kept inside a bracket that bisection shrinks whenever Newton leaves it.
        """
        t = best_scale(margins, self.w, MIN_INVERSE_MULTIPLIER, t_max)
        return t, self.of_margins(margins, t)


def ensure_compiled(progress: Callable[[int, int], None] | None = None) -> None:
    """Compile (or load from cache) the kernels once, so no solve's clock counts it;
    ``progress(done, total)`` is told after each kernel (the studio says how far it is).

    >>> ensure_compiled(lambda done, total: print(f"{done} of {total}"))
    1 of 4
    2 of 4
    3 of 4
    4 of 4
    """
    one = np.ones(1)
    steps = (
        lambda: _scan(one, one, one, one, 1.0),
        lambda: _column_dots(np.ones((2, 2), order="F"), np.ones(2)),  # yX is column-major
        lambda: best_scale(one, one, 0.5, 1.0),
        lambda: box_newton_fit(np.ones((1, 1)), one, one, np.zeros(1), 0.0, -one, one, 1),
    )
    for done, step in enumerate(steps, 1):
        step()
        if progress is not None:
            progress(done, len(steps))


@njit(nogil=True)
def _softplus(z: float) -> float:
    if z > 0:
        return z + math.log1p(math.exp(-z))
    return math.log1p(math.exp(z))


@njit(nogil=True)
def _scan(margins, column, w, deltas, t):  # pragma: no cover - compiled
    out = np.zeros(deltas.size)
    for i in range(margins.size):
        if w[i] == 0.0:
            continue
        for k in range(deltas.size):
            out[k] += w[i] * _softplus(-t * (margins[i] + deltas[k] * column[i]))
    return out


@njit(nogil=True)
def _column_dots(matrix, p):  # pragma: no cover - compiled
    out = np.zeros(matrix.shape[1])
    for j in range(matrix.shape[1]):
        total = 0.0
        for i in range(matrix.shape[0]):
            total += matrix[i, j] * p[i]
        out[j] = total
    return out


@njit(nogil=True)
def _sig(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


@njit(nogil=True)
def _slope(margins, w, t):  # pragma: no cover - compiled
    """First and second derivative in t of sum_i w_i softplus(-t u_i)."""
    d1 = 0.0
    d2 = 0.0
    for i in range(margins.size):
        s = _sig(-t * margins[i])
        d1 -= w[i] * margins[i] * s
        d2 += w[i] * margins[i] * margins[i] * s * (1.0 - s)
    return d1, d2


@njit(nogil=True)
def best_scale(margins, w, lo, hi):  # pragma: no cover - compiled
    """The ``t`` in ``[lo, hi]`` that minimises ``sum(w * log(1 + exp(-t * margins)))``
    (Newton steps
    kept inside a shrinking bracket; the loss is convex in ``t``). Public because recalibration
    refits the same link."""
    if _slope(margins, w, hi)[0] <= 0:
        return hi
    if _slope(margins, w, lo)[0] >= 0:
        return lo
    t = 0.5 * (lo + hi)
    for _ in range(100):
        d1, d2 = _slope(margins, w, t)
        if d1 > 0:
            hi = t
        else:
            lo = t
        step = t - d1 / d2 if d2 > 0 else 0.5 * (lo + hi)
        t_new = step if lo < step < hi else 0.5 * (lo + hi)
        if abs(t_new - t) <= 1e-13 * max(t, 1e-300) or hi - lo <= 1e-15:
            return t_new
        t = t_new
    return t


@njit(nogil=True)
def _loss_along(u, step, columns, y, w):  # pragma: no cover - compiled
    """Loss of the margins ``u`` moved by ``step`` (intercept first, then one per column)."""
    total = 0.0
    for i in range(u.size):
        z = u[i] + step[0] * y[i]
        for c in range(columns.shape[1]):
            z += step[c + 1] * columns[i, c]
        total += w[i] * _softplus(-z)
    return total


@njit(nogil=True)
def _gradient_hessian(u, columns, y, w):  # pragma: no cover - compiled
    m = columns.shape[1] + 1
    g = np.zeros(m)
    h = np.zeros((m, m))
    a = np.empty(m)
    for i in range(u.size):
        p = _sig(-u[i])
        a[0] = y[i]
        a[1:] = columns[i]
        for r in range(m):
            g[r] -= w[i] * a[r] * p
            for c in range(r + 1):
                h[r, c] += w[i] * a[r] * a[c] * p * (1.0 - p)
    for r in range(m):
        for c in range(r):
            h[c, r] = h[r, c]
    return g, h


@njit(nogil=True)
def box_newton_fit(columns, y, w, beta, b0, lo, hi, iterations):  # pragma: no cover - compiled
    """Least loss over real points ``beta`` (one per column of ``columns`` = y * x_j), each in
    ``[lo_j, hi_j]``, and a free intercept ``b0``: projected Newton steps with backtracking.

    The supports are small (a few columns), so a full Newton step costs little more than one
    coordinate sweep and converges in a few steps where coordinate descent crawls along
    correlated columns. ``beta`` is updated in place; returns ``(b0, loss)``.
    """
    n, k = columns.shape
    v = np.empty(k + 1)
    v[0] = b0
    v[1:] = beta
    vlo = np.full(k + 1, -np.inf)
    vhi = np.full(k + 1, np.inf)
    vlo[1:] = lo
    vhi[1:] = hi
    u = np.empty(n)
    for i in range(n):
        u[i] = y[i] * b0
        for c in range(k):
            u[i] += beta[c] * columns[i, c]
    loss = _loss_along(u, np.zeros(k + 1), columns, y, w)
    for _ in range(iterations):
        g, h = _gradient_hessian(u, columns, y, w)
        # a coordinate pressed against its bound by the gradient stays there this step
        free = np.ones(k + 1, dtype=np.bool_)
        for c in range(k + 1):
            free[c] = not ((v[c] <= vlo[c] and g[c] > 0) or (v[c] >= vhi[c] and g[c] < 0))
        idx = np.flatnonzero(free)
        if idx.size == 0 or np.max(np.abs(g[idx])) < 1e-10:
            break
        sub = h[idx][:, idx] + 1e-10 * np.eye(idx.size)
        direction = np.zeros(k + 1)
        direction[idx] = -np.linalg.solve(sub, g[idx])
        alpha, accepted = 1.0, False
        for _ in range(40):
            step = np.minimum(np.maximum(v + alpha * direction, vlo), vhi) - v
            trial = _loss_along(u, step, columns, y, w)
            if trial <= loss + 1e-4 * (g @ step) and trial < loss:
                accepted = True
                break
            alpha *= 0.5
        if not accepted:
            break
        v += step
        for i in range(n):
            u[i] += step[0] * y[i]
            for c in range(k):
                u[i] += step[c + 1] * columns[i, c]
        done = loss - trial <= 1e-12 * max(loss, 1e-12)
        loss = trial
        if done:
            break
    beta[:] = v[1:]
    return v[0], loss
