"""slimwidgets: exactly optimized integer scoring systems (SLIM), in Python and Jupyter.

The engine (everything importable from here) needs no Jupyter:

>>> import slimwidgets as sw
>>> card = sw.fit(X, y, max_fpr=0.2, max_size=5, signs={"age": "+"})   # doctest: +SKIP
>>> print(card)                                                        # doctest: +SKIP
"""

__version__ = "0.1.0"

from .data import DataWarning, Dataset, prepare_data
from .estimator import SLIMClassifier
from .fitting import InfeasibleError, NoSolutionError, check_card, find_conflicts, fit
from .scoring import Metrics, ScoringSystem
from .solve import Incumbent, SolverError
from .spec import LogicalConstraint, Spec, at_least, at_most, hierarchy, make_spec, needs

__all__ = [
    "fit", "SLIMClassifier", "ScoringSystem", "Metrics", "Spec", "make_spec", "LogicalConstraint",
    "needs", "hierarchy", "at_most", "at_least", "Dataset", "prepare_data", "DataWarning",
    "InfeasibleError", "NoSolutionError", "SolverError", "Incumbent", "check_card", "find_conflicts",
    "__version__",
]
