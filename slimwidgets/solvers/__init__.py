"""Every way of finding or proving a card, each handing back a :class:`~.base.SolveResult`.

========================  =================================================================
``search``                anytime local search (compiled kernels in ``_kernels``)
``pools``                 exact MIPs on small pools of features (a primal heuristic)
``exhaustive``            the walk: every card of a small box, exactly (a proof)
``decomposition``         the proof by model size: the walk, then one MIP per larger size
``mip``                   one MIP over the whole box: HiGHS (``highs``, in a killable child
                          process via ``worker`` when it may be cancelled) or CBC (``cbc``)
========================  =================================================================
"""

from .base import Incumbent, SolveResult, SolverError, relative_gap

__all__ = ["Incumbent", "SolveResult", "SolverError", "relative_gap"]
