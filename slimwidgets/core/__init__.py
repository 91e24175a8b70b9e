"""The engine's core: data in, a spec, its integer program, the card out, and the fit driver.

Nothing here imports Jupyter, Altair or scikit-learn.
"""

from .data import DataWarning, Dataset, prepare_data
from .fitting import InfeasibleError, NoSolutionError, check_card, find_conflicts, fit
from .scoring import Metrics, ScoringSystem
from .spec import LogicalConstraint, Spec, at_least, at_most, hierarchy, make_spec, needs

__all__ = [
    "DataWarning", "Dataset", "prepare_data", "InfeasibleError", "NoSolutionError", "check_card",
    "find_conflicts", "fit", "Metrics", "ScoringSystem", "LogicalConstraint", "Spec", "at_least",
    "at_most", "hierarchy", "make_spec", "needs",
]
