"""Observed risk per total score, with Wilson score intervals: :func:`risk_table` and
:func:`wilson_interval`.

The computation lives in :mod:`slimwidgets.core.risk`, below the fit driver, which fills every
card's ``risk`` rows with it; this module keeps the toolbox's name for it.
"""

from ..core.risk import risk_table, wilson_interval

__all__ = ["risk_table", "wilson_interval"]
