"""numba's ``njit`` as every compiled kernel of the package uses it (the losses in ``core``, the
search and the scan in ``solvers``), on the ground floor: it needs nothing of the package."""

from __future__ import annotations

from numba import njit as _numba_njit

__all__ = ["njit"]


def njit(**options):
    """numba's ``njit`` with its on-disk cache where a cache folder is writable (numba refuses
    ``cache=True`` at decoration when none is: then the kernel compiles in each process)."""

    def decorate(func):
        try:
            return _numba_njit(cache=True, **options)(func)
        except RuntimeError:  # "cannot cache function ...: no locator available"
            return _numba_njit(**options)(func)

    return decorate
