"""The errors and warnings of a fit, raised by the driver and re-exported at the package root."""

from __future__ import annotations

__all__ = ["InfeasibleError", "NoSolutionError", "BoxWarning"]


class InfeasibleError(ValueError):
    """No scoring system satisfies the constraints; ``conflicts`` names a clashing subset.

    Parameters
    ----------
    conflicts : list of str
        The constraints that clash, in words; together they admit no card.
    """

    def __init__(self, conflicts: list[str]):
        self.conflicts = conflicts
        listed = "; ".join(conflicts) if conflicts else "the coefficient boxes themselves"
        super().__init__(
            f"no scoring system satisfies these constraints together: {listed}. Relax one of them."
        )


class NoSolutionError(RuntimeError):
    """The solver stopped (time limit or cancel) before finding any card."""


class BoxWarning(UserWarning):
    """A box (points or intercept range) limits the card: a wider one may give a better card."""
