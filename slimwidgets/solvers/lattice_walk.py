"""The best card on a support with columns of fractional values, point by point on those
columns only: the rest of the support is walked over groups of rows, not rows.

Take the support's columns F whose values are not whole numbers (heart's heart-rate ratio
and ST depression) and group the rows by their values on the rest, which are whole numbers.
A card's total on a row of group g is ``K_g + u`` with ``u = lam_F . x_F`` and ``K_g = b +
sum_j lam_j x_gj`` a whole number. For one choice of ``lam_F`` each group's weighted errors
are a step function ``E_g(K)`` of that whole number (:func:`._lattice_kernels.group_tables`):
a positive row is right for K at or above ``ceil(margin+ - u)``, a negative one at or below
``floor(-margin- - u)``. So a card's loss is ``sum_g E_g(K_g)``, a table look-up per group
instead of a pass over the rows, and ``sum_g min E_g`` (the lattice floor at ``lam_F``)
discards a whole choice of ``lam_F`` when it cannot beat the incumbent. The rest (``lam_j``
of the other features, then the intercept) is searched by branch and bound over those
tables (:func:`._lattice_kernels.walk_groups`): with some ``lam_j`` chosen, groups that
agree on the columns not yet chosen get the same whole number from them, a floor of every
completion.

Only cards whose points on the support are all non-zero are walked: a card with a zero point
is a card of a smaller support, which the scan settles first. The answer is checked against
the card's own objective (:meth:`Formulation.objective_of`); where the walk does not hold
(caps on TPR or FPR, group caps and gaps, locked points, points that are not whole, too many
combinations of F's points, or only 0/1 columns: the search over cells is made for those) it
answers None and the support's walk (:class:`.exhaustive.SupportWalker`) settles it.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from . import _lattice_kernels
from .exhaustive import value_lists
from .search import SearchProblem

__all__ = ["LatticeWalk"]


class LatticeWalk:
    """The best card on a support with columns of fractional values, over groups of rows.

    Parameters
    ----------
    prob : SearchProblem
        The problem.
    floor : ThresholdFloor
        Its threshold floor (:class:`.scan.ThresholdFloor`): the column read and the groups.

    Examples
    --------
    >>> import numpy as np, slimwidgets as sw
    >>> from slimwidgets.core.data import prepare_data
    >>> from slimwidgets.core.formulation import build_formulation
    >>> from slimwidgets.solvers.scan import ThresholdFloor
    >>> X = np.array([[0.1, 0], [0.2, 0], [0.3, 1], [0.4, 1], [0.5, 0]])
    >>> form = build_formulation(prepare_data(X, [-1, -1, 1, 1, 1], warn=False), sw.make_spec())
    >>> prob = SearchProblem(form)
    >>> walk = LatticeWalk(prob, ThresholdFloor(prob))
    >>> obj, points, intercept = walk.best([0, 1], np.inf)
    >>> bool(np.isclose(obj, form.objective_of(points, intercept)))
    True
    """

    def __init__(self, prob: SearchProblem, floor):
        self.prob, self.floor = prob, floor
        caps = prob.pos_budget >= 0 or prob.neg_budget >= 0 or bool(prob.rate_rows)
        self.holds = not caps and floor.applies
        self.work = 0.0  # group look-ups and row passes so far

    def best(self, support: list[int], upper: float) -> tuple[float, np.ndarray, int] | None:
        """(objective, points, intercept) of the best card with every point of ``support``
        non-zero, objective inf when none beats ``upper``; None where the walk does not hold.

        Parameters
        ----------
        support : list of int
            The support's features.
        upper : float
            The incumbent's objective: only cards below it are sought.
        """
        prob = self.prob
        # supports of 0/1 columns only: the walk's search over cells settles them
        helps = self.holds and self.floor.helps(support)
        fixed = self.floor.lattice_columns(support) if helps else None
        if fixed is None:
            return None
        others = [j for j in support if j not in fixed]
        group, n_groups = self.floor.groups(others)
        pattern = np.zeros((n_groups, len(others)))
        pattern[group] = prob.X[:, others]
        used = prob.fixed_nonzero.copy()
        used[support] = True
        paid = prob.support_cost(used)
        best: tuple[float, np.ndarray, int] = (math.inf, np.zeros(prob.P, np.int64), 0)
        for values, costs in value_lists(prob, support, np.zeros(prob.P, np.int64)):
            by_column = {j: (v, c) for j, v, c in zip(support, values, costs)}
            found = self._walk(fixed, others, by_column, group, n_groups, pattern, upper - paid)
            if found is not None and found[0] + paid < min(best[0], upper) - 1e-12:
                best = (found[0] + paid, found[1], found[2])
                upper = best[0]
        if math.isfinite(best[0]):
            exact = prob.form.objective_of(best[1], best[2])
            if abs(exact - best[0]) > 1e-9 * max(1.0, abs(exact)):
                return None  # a cost the walk does not price: the support's walk settles it
        return best

    def _price(self, columns, by_column) -> tuple[np.ndarray, np.ndarray]:
        """Each column's allowed non-zero points and their tier costs, padded to one width."""
        width = max([1] + [len(by_column[j][0]) for j in columns])
        vals = np.zeros((len(columns), width))
        vcost = np.zeros((len(columns), width))
        for t, j in enumerate(columns):
            v, c = by_column[j]
            vals[t, : len(v)], vcost[t, : len(c)] = v, c
        return vals, vcost

    def _walk(self, fixed, others, by_column, group, n_groups, pattern, budget):
        """The best (errors + point costs, points, intercept) for one list of points per
        column, or None when none is below ``budget``."""
        prob = self.prob
        if any(len(by_column[j][0]) == 0 for j in fixed + others):
            return None
        combos = np.array(
            list(itertools.product(*[by_column[j][0] for j in fixed])), dtype=float
        ).reshape(-1, len(fixed))
        heads = np.array(
            [
                sum(
                    float(c) + (prob.eps * abs(float(v)) if prob.l1_mask[j] else 0.0)
                    for j, v, c in zip(fixed, *zip(*pair))
                )
                for pair in itertools.product(*[zip(*by_column[j]) for j in fixed])
            ]
        )
        vals, vcost = self._price(others, by_column)
        total, m, idx, b, work = _lattice_kernels.walk_groups(
            np.ascontiguousarray(prob.X[:, fixed], dtype=float),
            combos,
            heads,
            group,
            n_groups,
            self.floor.w,
            self.floor.pos,
            pattern,
            vals,
            np.array([len(by_column[j][0]) for j in others], dtype=np.int64),
            vcost,
            np.ascontiguousarray(prob.l1_mask[others]),
            float(prob.eps),
            float(prob.gamma_pos),
            float(prob.gamma_neg),
            int(prob.ilo),
            int(prob.ihi),
            budget,
            *_classes(pattern),
        )
        self.work += work
        if m < 0:
            return None
        lam = np.zeros(prob.P, np.int64)
        lam[fixed] = combos[m]
        lam[others] = [vals[t, idx[t]] for t in range(len(others))]
        return total, lam, int(b)


def _classes(pattern: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each t (0 .. columns), the groups that agree on ``pattern``'s columns from t on:
    (members by class, each class's start among them, the number of classes), padded."""
    n_groups, k = pattern.shape
    members = np.zeros((k + 1, n_groups), np.int64)
    starts = np.zeros((k + 1, n_groups + 1), np.int64)
    n_classes = np.zeros(k + 1, np.int64)
    for t in range(k + 1):
        _, cls = np.unique(pattern[:, t:], axis=0, return_inverse=True)
        cls = cls.ravel() if t < k else np.zeros(n_groups, np.int64)
        members[t] = np.argsort(cls, kind="stable")
        counts = np.bincount(cls, minlength=int(cls.max(initial=0)) + 1)
        n_classes[t] = counts.size
        starts[t, 1 : counts.size + 1] = np.cumsum(counts)
    return members, starts, n_classes
