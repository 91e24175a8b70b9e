"""The best card on one support of 0/1 rules, searched over its cells, not over its points.

Under a support of k rules that are all 0/1, a card sees a row only through its k bits: the
rows fall into at most 2^k *cells* (fewer when rules are one variable's nested thresholds:
"age >= 50" and "age >= 60" leave 3 of 4), each with the weights of its positives and
negatives. A card (points, intercept) is right for a cell's positives when its total reaches
the positive margin and for its negatives when it stays below the negative one, so its loss is
a function of the pair of cell sets it labels so, and of nothing else.

Which pairs a box of points can make does not depend on the data. Write the points as signs
times positive magnitudes: flipping the sign of rule j relabels cell c as ``c ^ 2**j`` and
shifts every total by the same amount, which the intercept absorbs. So one table, built once
per box and size from the positive magnitudes alone (:func:`._cell_kernels.threshold_table`:
every labelling that any magnitude vector and threshold make, with the least L1 norm that
makes it), holds every card of every support of that size; each support then costs one pass
over the table per sign pattern its rules allow (:func:`._cell_kernels.best_labelling`),
instead of a walk of every point in the box. For 5 rules and points in -10..10: a few
thousand rows times 32 sign patterns, against 20^4 walked points times ~100 intercepts.

A labelling fixes which rows a card gets wrong, so every constraint linear in the rows' error
indicators is a check on the labelling, whatever points make it: the class caps (``max_fpr``,
``min_tpr``) and the group caps and gaps (``max_fpr_by_group``, ``max_tpr_gap``, ...) are
summed per cell once and each table row that breaks one is skipped. The least L1 that makes a
labelling stays the best card of that labelling under them.

The search is exact for the cards the walk (:class:`.exhaustive.SupportWalker`) scores, when
(:meth:`CellSearch.fits`) the support's columns are 0/1, no points are locked, every rule's
non-zero values are one set of magnitudes with the signs it allows, no value has a tier
cost, the L1 term covers every rule of the support or none, the margins are whole numbers,
and the intercept box holds every intercept a table row can need. Otherwise the walk runs.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from . import _cell_kernels
from .search import SearchProblem

__all__ = ["CellSearch", "MAX_RULES", "MAX_VECTORS", "ROW_STEPS", "SUPPORT_STEPS", "table_rows"]

#: the most rules a support may have for the search over cells (2^5 = 32 cells: one word)
MAX_RULES = 5
#: the most magnitude vectors a table is built from (10 magnitudes for 5 rules: 10^5)
MAX_VECTORS = 200_000
#: a support's fixed work in the walk's steps (its cells and the call), counted as the walk's own
#: estimate counts its fixed part: the scan's budget (``ScanLimits.walk_work``) is in that unit
SUPPORT_STEPS = 5e4
#: the walk's steps per table row and sign pattern: ~8 look-ups and a comparison, ~40 ns
ROW_STEPS = 200


@functools.lru_cache(maxsize=16)
def _table(k: int, mags: tuple[int, ...], g: int) -> tuple[np.ndarray, ...]:
    return _cell_kernels.threshold_table(k, np.array(mags, dtype=np.int64), g)


def table_rows(k: int, mags: tuple[int, ...], g: int) -> int:
    """How many labellings of the cells of ``k`` rules points of magnitudes ``mags`` make
    under the margin gap ``g`` (positive threshold functions, for ``g = 1``).

    >>> table_rows(3, tuple(range(1, 11)), 1)  # the 20 positive threshold functions of 3 inputs
    20
    """
    return len(_table(k, tuple(int(m) for m in mags), int(g))[0])


class CellSearch:
    """The best card on one support over its cells, for the supports :meth:`fits` accepts.

    Parameters
    ----------
    prob : SearchProblem
        The problem (its data, boxes, margins, caps and L1 weight).

    Examples
    --------
    >>> import numpy as np, slimwidgets as sw
    >>> from slimwidgets.core.data import prepare_data
    >>> from slimwidgets.core.formulation import build_formulation
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0], [1, 0]])
    >>> form = build_formulation(prepare_data(X, [1, 1, -1, -1, 1], warn=False), sw.make_spec())
    >>> prob = SearchProblem(form)
    >>> search = CellSearch(prob)
    >>> values = [prob.allowed[j][prob.allowed[j] != 0] for j in (0, 1)]
    >>> cost, points, intercept = search.best([0, 1], values)
    >>> points.tolist(), intercept  # every row right, with the least L1 that does it
    ([2, -1], -1)
    >>> bool(np.isclose(cost, 0 + prob.eps * 3))  # no error, eps * L1
    True
    """

    def __init__(self, prob: SearchProblem):
        self.prob = prob
        self.binary = np.all((prob.X == 0) | (prob.X == 1), axis=0)
        self.locked = bool(np.any(prob.fixed_nonzero))
        gp, gn = float(prob.gamma_pos), float(prob.gamma_neg)
        self.g = int(round(gp + gn)) if gp.is_integer() and gn.is_integer() else 0
        self.gp = int(gp) if gp.is_integer() else 0
        self.row_coef, self.row_upper = _constraint_rows(prob)

    def _magnitudes(self, values: list[np.ndarray]) -> tuple[int, ...] | None:
        """The one set of magnitudes every coordinate's non-zero values share (each with the
        signs it allows), or None."""
        mags = None
        for v in values:
            v = np.asarray(v)
            for part in (v[v > 0], -v[v < 0]):
                if not part.size:
                    continue
                key = tuple(int(x) for x in np.sort(part))
                if mags is None:
                    mags = key
                elif key != mags:
                    return None
        return mags

    def fits(self, support: list[int], values: list[np.ndarray]) -> tuple[int, ...] | None:
        """The magnitudes of the table that settles ``support`` with these non-zero ``values``
        per coordinate (see the module for when it does), or None: the walk settles it.

        Parameters
        ----------
        support : list of int
            The support's features.
        values : list of numpy.ndarray
            Each coordinate's allowed non-zero points.
        """
        prob, k = self.prob, len(support)
        if not 1 <= k <= MAX_RULES or self.locked or self.g < 1 or prob.has_tiers:
            return None
        if not all(self.binary[j] for j in support) or any(np.any(v == 0) for v in values):
            return None
        if len(set(bool(prob.l1_mask[j]) for j in support)) > 1:
            return None
        mags = self._magnitudes(values)
        if mags is None or len(mags) ** k > MAX_VECTORS or any(m <= 0 for m in mags):
            return None
        top = k * max(mags)  # totals lie in [0, top] before signs; a threshold in [0, top + g]
        if prob.ilo > self.gp - top - self.g or prob.ihi < self.gp + top:
            return None
        return mags

    def work(self, k: int, mags: tuple[int, ...]) -> float:
        """Steps of one support's search, in the walk's unit: table rows times sign patterns,
        the rows binned into cells, and a fixed part (measured: 0.5 ms for 2 rules and 14 ms
        for 5 at a load of 9 on 2 cores; the walk of one support of 5 took ~0.7 s unloaded).

        Parameters
        ----------
        k : int
            The support's size.
        mags : tuple of int
            The magnitudes of its points.
        """
        rows = 4.0 * k * self.prob.n  # the rows binned into cells, as the walk counts them
        return SUPPORT_STEPS + rows + float(table_rows(k, mags, self.g) * 2**k * ROW_STEPS)

    def cells(self, support: list[int]) -> tuple[np.ndarray, ...]:
        """Per cell of ``support``: the loss weights of positives and negatives, and per
        constraint row (:func:`_constraint_rows`) its coefficients summed over the cell's
        positives and over its negatives (rows by cells).

        Parameters
        ----------
        support : list of int
            The support's features (0/1 columns).
        """
        prob, k = self.prob, len(support)
        code = (prob.X[:, support] > 0).astype(np.int64) @ (1 << np.arange(k, dtype=np.int64))
        size = 1 << k
        # one bincount per constraint row and class: the cell index offset by the row's number
        n_rows = len(self.row_upper)
        offset = (np.arange(n_rows, dtype=np.int64)[:, None] * size + code[None, :]).ravel()

        def per_cell(rows: np.ndarray, members: np.ndarray) -> np.ndarray:
            flat = np.bincount(
                offset, weights=np.where(members, rows, 0.0).ravel(), minlength=n_rows * size
            )
            return flat.reshape(n_rows, size)

        return (
            np.bincount(code[prob.pos], weights=prob.wp, minlength=size),
            np.bincount(code[prob.neg], weights=prob.wn, minlength=size),
            per_cell(self.row_coef, prob.pos[None, :]),
            per_cell(self.row_coef, prob.neg[None, :]),
        )

    def best(
        self, support: list[int], values: list[np.ndarray]
    ) -> tuple[float, np.ndarray, int] | None:
        """(weighted errors + eps * L1, points, intercept) of the best card on ``support`` with
        points in ``values``; cost inf when every card breaks a cap or a group row; None when
        :meth:`fits` says no.

        Parameters
        ----------
        support : list of int
            The support's features.
        values : list of numpy.ndarray
            Each coordinate's allowed non-zero points.
        """
        mags = self.fits(support, values)
        if mags is None:
            return None
        prob, k = self.prob, len(support)
        P, N, l1, vec, thr = _table(k, mags, self.g)
        signs = [sorted({int(np.sign(x)) for x in v}) for v in values]
        negmasks = np.array(
            [
                sum(1 << j for j, s in enumerate(pattern) if s < 0)
                for pattern in itertools.product(*signs)
            ],
            dtype=np.int64,
        )
        eps = prob.eps if prob.l1_mask[support[0]] else 0.0
        cost, row, neg = _cell_kernels.best_labelling(
            P, N, l1, *self.cells(support), self.row_upper, negmasks, eps
        )
        if row < 0:
            return np.inf, np.zeros(k, dtype=np.int64), 0
        digits, m = int(vec[row]), len(mags)
        mu = np.array([mags[(digits // m**j) % m] for j in range(k)], dtype=np.int64)
        flip = np.array([(int(neg) >> j) & 1 for j in range(k)], dtype=bool)
        points = np.where(flip, -mu, mu)
        # totals: s(c) = mu . (c ^ neg) - shift; right for positives iff s + b >= gamma_pos
        shift = int(mu[flip].sum())
        return float(cost), points, self.gp - int(thr[row]) + shift


def _constraint_rows(prob: SearchProblem) -> tuple[np.ndarray, np.ndarray]:
    """Every constraint on a card's wrong rows as (coefficients per data row, bound): the class
    caps (``max_fpr`` / ``min_tpr``: the data weights of one class's wrong rows) and the group
    caps and gaps (:func:`~slimwidgets.core.groups.rate_rows`). Each is linear in the rows'
    error indicators, and a labelling of the cells fixes every row's, so a labelling keeps a
    constraint or breaks it whatever points make it."""
    weight = np.asarray(prob.form.data.weight, dtype=float)
    coef, upper = [], []
    for cls, budget in prob.form.caps:
        coef.append(np.where(prob.y == cls, weight, 0.0))
        upper.append(float(budget))
    for row in prob.rate_rows:
        coef.append(np.asarray(row.coef, dtype=float))
        upper.append(float(row.upper))
    return np.array(coef).reshape(len(upper), prob.n), np.array(upper, dtype=float)
