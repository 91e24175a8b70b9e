"""The engine's core: data in, a spec, its integer program and the card out (the fit driver is
:mod:`slimwidgets.fitting`, one floor up).

Nothing here imports Jupyter, Altair or scikit-learn.
"""

from .data import Dataset, DataWarning, prepare_data
from .scoring import Metrics, ScoringSystem
from .spec import LogicalConstraint, Spec, at_least, at_most, hierarchy, make_spec, needs

__all__ = [
    "DataWarning",
    "Dataset",
    "prepare_data",
    "Metrics",
    "ScoringSystem",
    "LogicalConstraint",
    "Spec",
    "at_least",
    "at_most",
    "hierarchy",
    "make_spec",
    "needs",
]
