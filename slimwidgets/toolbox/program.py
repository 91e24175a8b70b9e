"""The integer program in PuLP's hands: ``sw.formulate``.

:func:`formulate` builds the program of a spec and hands out its variables as PuLP
variables named after the features: ``prog.points["age >= 60"]`` (the points of a rule)
and ``prog.used["age >= 60"]`` (1 when the card uses it). Constraints written on them in
PuLP's own syntax are added to the program by :meth:`Program.fit`, which solves it with
the package's own driver (so the fast local search holds them too: it prices a broken
row like any broken constraint, and routes the proof to the MIP, since the walk and the
support scan know no such rows), re-checks the card against them and names them in its
"solved for" line and its JSON. :meth:`Program.write` writes the whole program as an
``.lp`` or ``.mps`` file for another solver; :meth:`Program.solve` solves it through
PuLP with any solver PuLP has (CBC, HiGHS, GLPK, Gurobi, ...).

Examples
--------
>>> import pandas as pd, slimwidgets as sw
>>> X = pd.DataFrame({"a": [1, 1, 0, 0, 1, 0], "b": [1, 1, 0, 0, 1, 1]})
>>> prog = sw.formulate(X, [1, 1, 0, 0, 1, 0], coef_range=(-3, 3))
>>> pts = prog.points
>>> card = prog.fit(extra=[pts["a"] <= 0])           # the card may not give "a" points
>>> card.points, card.spec.linear[0].describe()
({'b': 1}, 'points[a] ≤ 0')
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..core.data import Dataset, prepare_data
from ..core.family import family_of_loss
from ..core.formulation import Formulation
from ..core.linear import LinearRow
from ..core.scoring import ScoringSystem
from ..core.spec import Spec, make_spec
from ..fitting import card_from_result, check_card, fit_dataset
from ..solvers.backends.cbc import pulp_solver
from ..solvers.backends.highs import card_from_columns
from ..solvers.base import SolveResult, relative_gap

__all__ = ["Program", "formulate"]


class Program:
    """A spec's integer program with its variables as PuLP variables (see :func:`formulate`).

    Attributes
    ----------
    points : dict feature -> PuLP variable (or a constant expression when the spec fixes it)
    used : dict feature -> PuLP binary (or a constant expression)
    problem : the whole ``pulp.LpProblem`` (objective in the solver's scaled units)
    """

    def __init__(self, data: Dataset, spec: Spec):
        import pulp

        self.data, self.spec = data, spec
        self.form: Formulation = family_of_loss(spec.loss).loss.problem(data, spec)
        self.problem, self._cols = self.form.to_pulp()
        self._terms: dict[str, tuple[str, str]] = {}  # PuLP name -> (kind, feature)
        taken = {v.name for v in self._cols}
        self.points = self._expose(
            "points", self.form.col_lambda, self.form.fixed_lambda, taken, pulp
        )
        fixed_use = np.array([float(v != 0) for v in self.form.fixed_lambda]) + (
            (self.form.col_lambda >= 0) & (self.form.col_alpha < 0)
        )
        self.used = self._expose(
            "used", self.form.col_alpha, np.minimum(fixed_use, 1.0), taken, pulp
        )

    def _expose(self, kind: str, columns: np.ndarray, fixed: np.ndarray, taken: set, pulp) -> dict:
        out = {}
        for j, name in enumerate(self.data.feature_names):
            if columns[j] < 0:  # fixed by the spec: a constant, so sums still read naturally
                out[name] = pulp.LpAffineExpression(constant=float(fixed[j]))
                continue
            var = self._cols[int(columns[j])]
            label = re.sub(r"[^A-Za-z0-9_]", "_", f"{kind}[{name}]")
            if label in taken:
                label = f"{label}_{j}"
            taken.add(label)
            var.name = label
            self._terms[var.name] = (kind, name)
            out[name] = var
        return out

    def rows(self, extra: Iterable[Any]) -> list[LinearRow]:
        """PuLP constraints on :attr:`points` / :attr:`used` as the spec's linear rows."""
        import pulp

        out = []
        for k, c in enumerate(extra):
            if not isinstance(c, pulp.LpConstraint):
                raise TypeError(
                    f"extra[{k}] must be a PuLP constraint such as pts['a'] + pts['b'] <= 4, got "
                    f"{c!r}"
                )
            terms = []
            for var, coef in c.items():
                if var.name not in self._terms:
                    raise ValueError(
                        f"extra[{k}] uses {var.name!r}, which is no points or used variable of "
                        "this program (only prog.points[...] and prog.used[...] can be "
                        "constrained)"
                    )
                kind, feature = self._terms[var.name]
                terms.append((kind, feature, float(coef)))
            rhs = -float(c.constant) + 0.0  # + 0.0: no "-0" in the words
            lower = rhs if c.sense in (pulp.LpConstraintGE, pulp.LpConstraintEQ) else None
            upper = rhs if c.sense in (pulp.LpConstraintLE, pulp.LpConstraintEQ) else None
            if (
                not terms
            ):  # every variable was a constant of the spec: the row holds or it never can
                raise ValueError(f"extra[{k}] constrains only points the spec fixes: {c}")
            out.append(LinearRow(tuple(terms), lower, upper, c.name or ""))
        return out

    def with_rows(self, extra: Iterable[Any] = ()) -> Program:
        """This program with ``extra`` added (a new :class:`Program`; this one is unchanged)."""
        rows = self.rows(extra)
        if not rows:
            return self
        return Program(
            self.data,
            self.spec.replace(linear=[r.to_dict() for r in list(self.spec.linear) + rows]),
        )

    def fit(self, extra: Iterable[Any] = (), **fit_options: Any) -> ScoringSystem:
        """The best card of the program with ``extra`` added, solved, proven and checked as
        :func:`slimwidgets.fit` does (``fit_options``: ``warm_start``, ``cancel``, ...)."""
        prog = self.with_rows(extra)
        return fit_dataset(prog.data, prog.spec, **fit_options)

    def write(self, path: str, extra: Iterable[Any] = ()) -> str:
        """Write the program (with ``extra``) as ``.lp`` or ``.mps`` (by the file's suffix)."""
        prog = self.with_rows(extra)
        if str(path).lower().endswith(".mps"):
            prog.problem.writeMPS(str(path))
        elif str(path).lower().endswith(".lp"):
            prog.problem.writeLP(str(path))
        else:
            raise ValueError(f"write to a .lp or .mps file, got {path!r}")
        return str(path)

    def solve(self, solver: Any = None, extra: Iterable[Any] = ()) -> ScoringSystem:
        """Solve the program (with ``extra``) through PuLP with ``solver`` (any PuLP solver;
        default its CBC) and return the card, re-checked against the spec. It is "optimal"
        when the PuLP solver says so (PuLP reports no bound: the gap is the solver's own).
        Default solver: PuLP's HiGHS when it is available, else its CBC."""
        import pulp

        prog = self.with_rows(extra)
        if solver is None:
            solver = pulp_solver(None)
        status = prog.problem.solve(solver)
        if pulp.LpStatus.get(status) == "Infeasible":
            from ..fitting import InfeasibleError

            raise InfeasibleError(["the program (PuLP's solver reports it infeasible)"])
        x = np.array([v.varValue if v.varValue is not None else 0.0 for v in prog._cols])
        coefs, intercept = card_from_columns(prog.form, x)
        objective = prog.form.objective_of(coefs, intercept)
        word = "optimal" if prog.problem.sol_status == pulp.LpSolutionOptimal else "feasible"
        bound = objective if word == "optimal" else -math.inf
        name = getattr(solver, "name", type(solver).__name__)
        result = SolveResult(
            word,
            coefs,
            intercept,
            objective,
            bound,
            relative_gap(objective, bound),
            0.0,
            f"pulp:{name}",
        )
        card = card_from_result(prog.data, prog.spec, prog.form, result)
        problems = check_card(card, prog.data, prog.spec)
        if problems:
            raise RuntimeError(f"the PuLP solver's card breaks {problems}")
        return card


def formulate(
    X: Any,
    y: Any,
    *,
    positive: Any = None,
    sample_weight: Any = None,
    sensitive_features: Any = None,
    feature_names: Any = None,
    spec: Spec | None = None,
    **settings: Any,
) -> Program:
    """The integer program of ``fit(X, y, **settings)`` with its variables as PuLP variables.

    Parameters
    ----------
    X, y, positive, sample_weight, sensitive_features, feature_names : as for
        :func:`slimwidgets.fit`.
    spec : a ready :class:`Spec` instead of ``settings``.
    **settings : the spec's options, as for :func:`slimwidgets.fit`.

    Returns
    -------
    Program
        ``points`` and ``used`` (PuLP variables by feature name), ``fit(extra=[...])``,
        ``write("model.lp")`` and ``solve(solver)``; see :mod:`slimwidgets.toolbox.program`.

    Examples
    --------
    >>> import pandas as pd, slimwidgets as sw
    >>> X = pd.DataFrame({"a": [1, 1, 0, 0, 1, 0], "b": [1, 1, 0, 0, 1, 1]})
    >>> prog = sw.formulate(X, [1, 1, 0, 0, 1, 0], coef_range=(0, 3))
    >>> sorted(prog.points), prog.points["a"].name
    (['a', 'b'], 'points_a_')
    """
    if spec is not None and settings:
        raise TypeError(f"give either spec= or keyword settings, not both (got {sorted(settings)})")
    data = prepare_data(
        X,
        y,
        positive=positive,
        sample_weight=sample_weight,
        feature_names=feature_names,
        sensitive_features=sensitive_features,
    )
    spec = spec if spec is not None else make_spec(**settings)
    spec.check_data(data.feature_names, data.n_samples)
    return Program(data, spec)
