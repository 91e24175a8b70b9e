"""Time-to-event data and Cox's partial likelihood: the loss of time-to-event cards.

A time-to-event card gives each row an integer score ``s = x . points``; its log hazard ratio
is ``t s`` with a real ``t = 1/m`` (the multiplier ``m``: points per unit of log hazard). The
loss is the negative Cox partial log-likelihood with ties by Breslow, divided by the weight of
the events (so it reads per event, as the logistic loss reads per row):

    L(eta) = (1/W) sum over event times tau of [d_tau log(sum_{j at risk} w_j exp(eta_j))
                                               - sum_{i event at tau} w_i eta_i]

It is convex in ``eta`` and has no intercept (a constant added to every ``eta`` cancels). Under
a support of ``k`` features every row whose values on them agree has the same ``eta``, so the
loss is a function of at most ``2^k`` cells (0/1 features): :class:`CoxCells` holds, per event
time and cell, the weight at risk and the events, and evaluates the loss, gradient and Hessian
in the ``k`` log hazard ratios ``v = t points`` from them.

``y`` comes as scikit-survival's structured array (``Surv.from_arrays(event, time)``: a bool
field and a float field), read without importing scikit-survival.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ._cox_kernels import scale_slope

__all__ = [
    "SurvivalTarget",
    "survival_target",
    "is_survival_target",
    "CoxCells",
    "CoxRows",
    "CoxLoss",
    "StepFunction",
    "breslow_baseline",
    "kaplan_meier",
    "harrell_c",
]


@dataclass(frozen=True)
class SurvivalTarget:
    """The event indicator and the follow-up time of every row, and the fields' names."""

    event: np.ndarray  # bool
    time: np.ndarray  # float, >= 0
    names: tuple[str, str] = ("event", "time")


def is_survival_target(y: Any) -> bool:
    """Whether ``y`` is a structured array of one bool field and one float field (``Surv``'s).

    >>> y = np.array([(True, 2.0), (False, 5.0)], dtype=[("event", "?"), ("time", "<f8")])
    >>> is_survival_target(y), is_survival_target(np.array([0, 1]))
    (True, False)
    """
    dtype = getattr(y, "dtype", None)
    if dtype is None or dtype.names is None or len(dtype.names) != 2:
        return False
    kinds = sorted(dtype[name].kind for name in dtype.names)
    return kinds in (["b", "f"], ["b", "i"], ["b", "u"])


def survival_target(y: Any) -> SurvivalTarget:
    """The event and time arrays of a ``Surv`` structured array, checked.

    Raises
    ------
    ValueError
        When ``y`` is not such an array, a time is negative or not finite, or no row has an event.

    Examples
    --------
    >>> y = np.array([(True, 2.0), (False, 5.0)], dtype=[("died", "?"), ("days", "<f8")])
    >>> target = survival_target(y)
    >>> target.event.tolist(), target.time.tolist(), target.names
    ([True, False], [2.0, 5.0], ('died', 'days'))
    """
    if not is_survival_target(y):
        raise ValueError(
            "a time-to-event y is a structured array of a bool field (the event) and a float "
            "field (the time), as sksurv.util.Surv.from_arrays(event, time) makes"
        )
    y = np.asarray(y).ravel()
    event_name = next(name for name in y.dtype.names if y.dtype[name].kind == "b")
    time_name = next(name for name in y.dtype.names if name != event_name)
    event, time = y[event_name].astype(bool), y[time_name].astype(float)
    if not np.isfinite(time).all() or (time < 0).any():
        raise ValueError(f"every time ({time_name!r}) must be finite and non-negative")
    if not event.any():
        raise ValueError(
            f"no row has an event ({event_name!r} is False everywhere): nothing to fit"
        )
    return SurvivalTarget(event, time, (event_name, time_name))


def _cells_of(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(each cell's row of values, in the order of ``np.unique``'s rows; each row's cell).
    Up to 62 columns of 0/1 rules are one integer code per row (sorted as the rows are), far
    cheaper to sort than the rows themselves."""
    if not X.shape[1]:  # no feature: every row in one cell
        return np.zeros((1, 0)), np.zeros(X.shape[0], dtype=np.int64)
    if X.shape[1] <= 62 and np.isin(X, (0.0, 1.0)).all():
        bits = np.left_shift(1, np.arange(X.shape[1] - 1, -1, -1, dtype=np.int64))
        _, first, cell = np.unique(
            X.astype(np.int64) @ bits, return_index=True, return_inverse=True
        )
        return X[first], cell.ravel()
    values, cell = np.unique(X, axis=0, return_inverse=True)  # one row per cell
    return values, cell.ravel()


class CoxCells:
    """Cox's partial likelihood of the rows of ``X``, merged into cells; ties by Breslow, or
    by Efron with ``ties="efron"``.

    Rows with equal values in ``X`` share their log hazard ratio, so only the cells' weights at
    risk at each event time and their events matter. ``value_gradient_hessian(v)`` gives the loss
    (per unit of event weight), its gradient and Hessian at ``eta = X v``.

    Examples
    --------
    >>> X = np.array([[1.0], [0.0], [1.0], [0.0]])
    >>> cells = CoxCells(X, np.array([1.0, 2.0, 3.0, 4.0]), np.array([True, True, False, True]))
    >>> round(cells.value(np.zeros(1)), 6)  # (log 4 + log 3 + log 1) / 3 events
    0.828302
    """

    def __init__(
        self,
        X: np.ndarray,
        time: np.ndarray,
        event: np.ndarray,
        weight: np.ndarray | None = None,
        ties: str = "breslow",
    ):
        X = np.asarray(X, dtype=float)
        X = X[:, None] if X.ndim == 1 else X
        w = np.ones(len(time)) if weight is None else np.asarray(weight, dtype=float)
        self.values, cell = _cells_of(X)
        taus, at_time = np.unique(time[event], return_inverse=True)
        self.times = taus
        n_cells = self.values.shape[0]
        # weight of each cell at risk at each event time: rows with time >= tau
        order = np.argsort(time)
        later = np.searchsorted(time[order], taus, side="left")  # first row (in time order) at risk
        by_row = np.zeros((len(time) + 1, n_cells))
        by_row[np.arange(len(time)), cell[order]] = w[order]
        at_risk = np.cumsum(by_row[::-1], axis=0)[::-1]  # rows from this one on, per cell
        self.at_risk = at_risk[later]
        self.deaths: np.ndarray = np.bincount(
            at_time, weights=w[event], minlength=taus.size
        )  # d_tau
        self.events = np.bincount(cell[event], weights=w[event], minlength=n_cells)
        self.total = float(self.deaths.sum())
        if ties == "efron":
            self._efron(at_time.ravel(), cell[event], w[event], n_cells)
        elif ties != "breslow":
            raise ValueError(f"ties must be 'breslow' or 'efron', got {ties!r}")

    def _efron(self, at_time: np.ndarray, cell: np.ndarray, w: np.ndarray, n_cells: int) -> None:
        """Efron's ties: the ``m`` events at a time become ``m`` terms, the l-th with the risk set
        less ``l/m`` of those events' weight and ``1/m`` of the time's deaths. Each term has the
        form of a Breslow term, so value, gradient and Hessian are computed alike."""
        dying = np.zeros((self.times.size, n_cells))
        np.add.at(dying, (at_time, cell), w)
        m = np.bincount(at_time, minlength=self.times.size)
        term = np.repeat(np.arange(self.times.size), m)
        l = np.arange(term.size) - (np.cumsum(m) - m)[term]  # noqa: E741
        self.at_risk = self.at_risk[term] - (l / m[term])[:, None] * dying[term]
        self.deaths = (self.deaths / m)[term]

    def _shares(self, v: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        """(cells' eta, each cell's share of the risk set's hazard per time, sum d log S)."""
        eta = self.values @ v
        top = eta.max() if eta.size else 0.0
        weighted = self.at_risk * np.exp(eta - top)
        sums = weighted.sum(axis=1)
        return eta, weighted / sums[:, None], float(self.deaths @ (np.log(sums) + top))

    def value(self, v: np.ndarray) -> float:
        """The loss at log hazard ratios ``v`` (one per column of ``X``)."""
        eta, _, log_sums = self._shares(np.asarray(v, dtype=float))
        return (log_sums - float(self.events @ eta)) / self.total

    def value_gradient_hessian(self, v: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        """The loss, its gradient and its Hessian in ``v``."""
        eta, shares, log_sums = self._shares(np.asarray(v, dtype=float))
        expected = shares @ self.values  # per time: the risk set's mean of x, weighted by hazard
        gradient = (self.deaths @ expected - self.events @ self.values) / self.total
        spread = self.values.T @ ((self.deaths @ shares)[:, None] * self.values)
        hessian = (spread - expected.T @ (self.deaths[:, None] * expected)) / self.total
        return (log_sums - float(self.events @ eta)) / self.total, gradient, hessian

    def scale_slope(self, scores: np.ndarray, t: float) -> tuple[float, float, float]:
        """(loss, first and second derivative in ``t``) at ``eta = t scores`` (cells' scores),
        compiled (:func:`~slimwidgets.core._cox_kernels.scale_slope`)."""
        scores = np.asarray(scores, dtype=float)
        return scale_slope(self.at_risk, self.deaths, self.events, self.total, scores, t)


class CoxLoss(Protocol):
    """What a floor asks of a Cox loss: its value, and its gradient and Hessian, in ``v``."""

    def value(self, v: np.ndarray) -> float: ...

    def value_gradient_hessian(self, v: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]: ...


class CoxRows:
    """Cox's partial likelihood with Breslow's ties, row by row: the loss of
    :class:`CoxCells` without its cells, for many features at once.

    Cells cost (event times x cells) per evaluation, and with many features nearly every row is
    its own cell. Here the risk set's sums at each event time are running sums over the rows in
    time order, and the Hessian's ``sum_tau d_tau S2_tau / S0_tau`` is ``X' diag(w e^eta A) X``
    with ``A`` each row's sum of ``d_tau / S0_tau`` over the event times it is at risk for: a
    cost of (rows x features + event times x features^2).

    Examples
    --------
    >>> X = np.array([[1.0], [0.0], [1.0], [0.0]])
    >>> rows = CoxRows(X, np.array([1.0, 2.0, 3.0, 4.0]), np.array([True, True, False, True]))
    >>> round(rows.value(np.zeros(1)), 6)  # (log 4 + log 3 + log 1) / 3 events
    0.828302
    """

    def __init__(
        self, X: np.ndarray, time: np.ndarray, event: np.ndarray, weight: np.ndarray | None = None
    ):
        order = np.argsort(time, kind="stable")
        self.X = np.asarray(X, dtype=float)[order]
        sorted_time, event = np.asarray(time, dtype=float)[order], np.asarray(event)[order]
        w = np.ones(len(order)) if weight is None else np.asarray(weight, dtype=float)[order]
        self.w = w
        self.times, at_time = np.unique(sorted_time[event], return_inverse=True)
        self.first = np.searchsorted(sorted_time, self.times, side="left")  # first row at risk
        self.through = np.searchsorted(self.times, sorted_time, side="right")  # taus <= its time
        self.deaths = np.bincount(at_time.ravel(), weights=w[event], minlength=self.times.size)
        self.event_weight = np.where(event, w, 0.0)
        self.events = self.event_weight @ self.X
        self.total = float(self.deaths.sum())

    def _risk(self, v: np.ndarray) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
        """(eta, its top, each row's w exp(eta - top), the risk set's sum of those per time)."""
        eta = self.X @ np.asarray(v, dtype=float)
        top = float(eta.max())
        r = self.w * np.exp(eta - top)
        return eta, top, r, np.cumsum(r[::-1])[::-1][self.first]

    def value(self, v: np.ndarray) -> float:
        """The loss at log hazard ratios ``v`` (one per column of ``X``)."""
        eta, top, _, s0 = self._risk(v)
        return (float(self.deaths @ (np.log(s0) + top)) - float(self.event_weight @ eta)) / (
            self.total
        )

    def value_gradient_hessian(self, v: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        """The loss, its gradient and its Hessian in ``v``."""
        eta, top, r, s0 = self._risk(v)
        weighted = r[:, None] * self.X
        mean = np.cumsum(weighted[::-1], axis=0)[::-1][self.first] / s0[:, None]  # per time
        hazard = np.concatenate([[0.0], np.cumsum(self.deaths / s0)])[self.through]
        gradient = (self.deaths @ mean - self.events) / self.total
        spread = self.X.T @ (weighted * hazard[:, None])
        hessian = (spread - mean.T @ (self.deaths[:, None] * mean)) / self.total
        loss = float(self.deaths @ (np.log(s0) + top)) - float(self.event_weight @ eta)
        return loss / self.total, gradient, hessian

    def gradient_curvature(self, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The loss's gradient and the diagonal of its Hessian in ``v``, without the rest of the
        Hessian: a cost of (rows x features + event times x features), for ranking many
        features at once.

        Examples
        --------
        >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0]])
        >>> rows = CoxRows(X, np.arange(1.0, 5.0), np.array([True, True, False, True]))
        >>> g, h = rows.gradient_curvature(np.zeros(2))
        >>> _, g2, h2 = rows.value_gradient_hessian(np.zeros(2))
        >>> bool(np.allclose(g, g2) and np.allclose(h, np.diag(h2)))
        True
        """
        _, _, r, s0 = self._risk(v)
        weighted = r[:, None] * self.X
        mean = np.cumsum(weighted[::-1], axis=0)[::-1][self.first] / s0[:, None]  # per time
        hazard = np.concatenate([[0.0], np.cumsum(self.deaths / s0)])[self.through]
        gradient = (self.deaths @ mean - self.events) / self.total
        diagonal = ((weighted * self.X).T @ hazard - self.deaths @ mean**2) / self.total
        return gradient, diagonal


class StepFunction:
    """A right-continuous step function, as scikit-survival's: ``f(z) = y[i]`` for
    ``x[i] <= z < x[i + 1]``, ``y`` before ``x[0]``'s value is ``y0``; defined on ``[0, x[-1]]``.

    Examples
    --------
    >>> f = StepFunction(np.array([1.0, 3.0]), np.array([0.9, 0.5]))
    >>> f(np.array([0.0, 1.0, 2.0, 3.0])).tolist()
    [1.0, 0.9, 0.9, 0.5]
    """

    def __init__(self, x: np.ndarray, y: np.ndarray, y0: float = 1.0):
        self.x, self.y, self.y0 = np.asarray(x, dtype=float), np.asarray(y, dtype=float), float(y0)
        self.domain = (0.0, float(self.x[-1]) if self.x.size else 0.0)

    def __call__(self, z: Any) -> np.ndarray:
        z = np.atleast_1d(np.asarray(z, dtype=float))
        if ((z < self.domain[0]) | (z > self.domain[1])).any():
            raise ValueError(f"a time outside the domain {self.domain} of the training follow-up")
        index = np.searchsorted(self.x, z, side="right") - 1
        return np.where(index >= 0, self.y[np.maximum(index, 0)], self.y0)

    def __repr__(self) -> str:
        return f"StepFunction(x=<{self.x.size} times>, y=<{self.y.size} values>)"


def breslow_baseline(
    eta: np.ndarray, time: np.ndarray, event: np.ndarray, weight: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Breslow's cumulative baseline hazard: (event times, ``H0`` at each), given each row's
    log hazard ratio ``eta``:
    ``H0(tau) = sum over event times <= tau of d / sum_{at risk} w exp(eta)``.

    Examples
    --------
    >>> time, event = np.array([1.0, 2.0, 3.0]), np.array([True, False, True])
    >>> times, H0 = breslow_baseline(np.zeros(3), time, event)
    >>> times.tolist(), H0.round(4).tolist()
    ([1.0, 3.0], [0.3333, 1.3333])
    """
    w = np.ones(len(time)) if weight is None else np.asarray(weight, dtype=float)
    cells = CoxCells(np.zeros((len(time), 1)), time, event, w)  # one cell: at_risk is the plain sum
    order = np.argsort(time)
    top = float(np.max(eta))
    risk = w[order] * np.exp(eta[order] - top)
    at_risk = np.cumsum(risk[::-1])[::-1]
    first = np.searchsorted(time[order], cells.times, side="left")
    return cells.times, np.cumsum(cells.deaths / (at_risk[first] * np.exp(top)))


def kaplan_meier(
    time: np.ndarray,
    event: np.ndarray,
    weight: np.ndarray | None = None,
    z: float = 1.959963984540054,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Kaplan–Meier's survival at each event time with its pointwise 95 % interval (Greenwood's
    variance on the log(-log) scale, as scikit-survival's ``conf_type="log-log"``).

    Returns ``(times, survival, lower, upper)``.

    Examples
    --------
    >>> time, event = np.array([1.0, 2.0, 3.0, 4.0]), np.array([True, False, True, True])
    >>> times, s, lo, hi = kaplan_meier(time, event)
    >>> times.tolist(), s.round(3).tolist()
    ([1.0, 3.0, 4.0], [0.75, 0.375, 0.0])
    """
    w = np.ones(len(time)) if weight is None else np.asarray(weight, dtype=float)
    cells = CoxCells(np.zeros((len(time), 1)), time, event, w)
    n, d = cells.at_risk[:, 0], cells.deaths
    survival = np.cumprod(1.0 - d / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        greenwood = np.cumsum(d / (n * (n - d)))
        log_s = np.log(survival)
        spread = z * np.sqrt(greenwood) / np.abs(log_s)
        lower = np.exp(-np.exp(np.log(-log_s) + spread))
        upper = np.exp(-np.exp(np.log(-log_s) - spread))
    done = survival <= 0  # after the last event: the interval says nothing more
    lower, upper = np.where(done, 0.0, lower), np.where(done, 0.0, upper)
    return cells.times, survival, np.nan_to_num(lower, nan=1.0), np.nan_to_num(upper, nan=1.0)


def harrell_c(
    time: np.ndarray, event: np.ndarray, risk: np.ndarray, weights: np.ndarray | None = None
) -> float:
    """Harrell's concordance index: among pairs where the earlier time is an event, the share in
    which that row has the higher risk (ties in risk count one half; pairs with equal times are
    not comparable), as scikit-survival's ``concordance_index_censored``.

    Examples
    --------
    >>> harrell_c(np.array([1.0, 2.0, 3.0]), np.array([True, True, False]), np.array([3, 2, 1]))
    1.0
    """
    time, event, risk = (np.asarray(a) for a in (time, event, risk))
    weights = np.ones(time.size) if weights is None else np.asarray(weights, dtype=float)
    numerator = denominator = 0.0
    for i in np.flatnonzero(event):
        later = (time > time[i]) | ((time == time[i]) & ~event)
        if not later.any():
            continue
        ties = np.abs(risk[later] - risk[i]) <= 1e-8
        right = float((risk[later][~ties] < risk[i]).sum()) + 0.5 * float(ties.sum())
        numerator += weights[i] * right
        denominator += weights[i] * float(later.sum())
    if denominator == 0:
        raise ValueError("no comparable pair: every earlier time is censored")
    return float(numerator / denominator)
