"""numba's ``njit`` as the solvers' compiled kernels use it: the floor under ``_kernels`` and
``_scan_kernels`` (neither imports the other for it)."""

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
