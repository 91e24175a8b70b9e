"""slimwidgets: exactly optimized integer scoring systems (SLIM), in Python and Jupyter.

The engine (everything importable from here) needs no Jupyter:

>>> import slimwidgets as sw
>>> card = sw.fit(X, y, max_fpr=0.2, max_size=5, signs={"age": "+"})   # doctest: +SKIP
>>> print(card)                                                        # doctest: +SKIP
"""

from ._version import __version__
from .core.data import Dataset, DataWarning, prepare_data
from .core.groups import group_rates
from .core.rules import RuleBuilder
from .core.scoring import Metrics, ScoringSystem
from .core.spec import LogicalConstraint, Spec, at_least, at_most, hierarchy, make_spec, needs
from .core.status import CardStatus, DegenerateCardWarning, describe
from .core.survival_card import SurvivalCard
from .fitting import BoxWarning, InfeasibleError, NoSolutionError, check_card, find_conflicts, fit
from .solvers.base import Incumbent, SolverError
from .toolbox.alternatives import alternatives
from .toolbox.bounds import generalization_bound, resolution_bound, round_to_resolution
from .toolbox.frontier import clear_cache, roc_frontier, size_path
from .toolbox.paper_models import PAPER_TIERS, fit_m_of_n, fit_pilm, fit_tilm, threshold_groups
from .toolbox.reduction import ReductionResult, reduce_data
from .toolbox.risk import risk_table, wilson_interval

# scikit-learn costs about a second to import: load the parts that need it on first use.
_LAZY = {
    "SLIMClassifier": "toolbox.estimator",
    "Binarizer": "toolbox.binarize",
    "binarize": "toolbox.binarize",
    "rounded_logistic": "toolbox.baselines",
    "cross_validate": "toolbox.validation",
    "CVResult": "toolbox.validation",
    "fit_cv": "toolbox.selection",
    "validate": "toolbox.validate",
    "Validation": "toolbox.validate",
    "optimism": "toolbox.optimism",
    "report": "reporting",
    "fairness_frontier": "toolbox.fairness",
    "formulate": "toolbox.program",
}


def __getattr__(name: str):
    if name == "Studio":  # the widget layer loads only when asked for
        from .widgets import Studio

        return Studio
    if name == "fairness_chart":  # Altair loads only when asked for
        from .widgets.fairness_charts import fairness_chart

        return fairness_chart
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'slimwidgets' has no attribute {name!r}")


__all__ = [
    "fit",
    "Studio",
    "SLIMClassifier",
    "RuleBuilder",
    "ScoringSystem",
    "Metrics",
    "Spec",
    "make_spec",
    "LogicalConstraint",
    "needs",
    "hierarchy",
    "at_most",
    "at_least",
    "Dataset",
    "prepare_data",
    "DataWarning",
    "BoxWarning",
    "DegenerateCardWarning",
    "describe",
    "CardStatus",
    "InfeasibleError",
    "NoSolutionError",
    "SolverError",
    "Incumbent",
    "check_card",
    "find_conflicts",
    "roc_frontier",
    "size_path",
    "clear_cache",
    "cross_validate",
    "CVResult",
    "fit_cv",
    "binarize",
    "Binarizer",
    "risk_table",
    "wilson_interval",
    "resolution_bound",
    "round_to_resolution",
    "generalization_bound",
    "rounded_logistic",
    "reduce_data",
    "ReductionResult",
    "fit_pilm",
    "fit_m_of_n",
    "fit_tilm",
    "threshold_groups",
    "PAPER_TIERS",
    "alternatives",
    "validate",
    "Validation",
    "optimism",
    "report",
    "group_rates",
    "fairness_frontier",
    "fairness_chart",
    "formulate",
    "SurvivalCard",
    "__version__",
]
