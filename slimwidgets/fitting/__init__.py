"""The fit driver: picks the solvers for a spec, re-checks the card they return, explains a clash.

It sits above :mod:`slimwidgets.solvers` and below the toolbox and the studio: it calls the
solvers, never the other way round.
"""

from .cards import card_from_result
from .checks import box_limits, check_card
from .conflicts import find_conflicts
from .driver import fit, fit_dataset
from .errors import BoxWarning, InfeasibleError, NoSolutionError

__all__ = [
    "fit",
    "fit_dataset",
    "card_from_result",
    "check_card",
    "box_limits",
    "find_conflicts",
    "InfeasibleError",
    "NoSolutionError",
    "BoxWarning",
]
