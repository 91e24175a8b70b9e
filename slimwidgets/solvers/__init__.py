"""Every way of finding or proving a card, each handing back a :class:`~.base.SolveResult`.

- ``search``: anytime local search (compiled kernels in ``_kernels``).
- ``pools``: exact MIPs on small pools of features (a primal heuristic).
- ``exhaustive``: the walk, every card of a small box, exactly (a proof).
- ``scan``: the support scan, whole supports discarded on a cell floor, survivors walked (a proof).
- ``decomposition``: the proof by model size, the walk and then one MIP per larger size.
- ``lexicographic``: under one cap, the best TPR (or FPR) proven first.
- ``polish``: among cards of the returned objective, the one with the widest margin.
- ``mip``: one MIP over the whole box, HiGHS (``highs``, in a killable child process via
  ``worker`` when it may be cancelled) or CBC (``cbc``).
- ``logistic`` and ``risk_bound``: risk cards' anytime search and cutting-plane bounds.

The risk family's solvers register themselves on its loss (``RISK.loss``) when imported, and
so does the time-to-event family's proof (``cox_tree`` on ``TIME_TO_EVENT.loss``); the floors
above ask the family for them; importing any solver imports this package, so they
are registered before a fit asks.
"""

# imported for what they register: the risk family's loss pieces (prepare, search, walk, scan,
# floors) and the time-to-event family's problem, rounded start and proof by supports
from . import (  # noqa: F401
    cox_tree,
    logistic,
    risk_bound,
    risk_branch_and_bound,
    risk_cells,
    risk_cone,
)
from .base import Incumbent, SolverError, SolveResult, relative_gap

__all__ = ["Incumbent", "SolveResult", "SolverError", "relative_gap"]
