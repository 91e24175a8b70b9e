"""What every sweep of fits shares: the check of ``n_jobs``, the progress bar, running the fits."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

__all__ = ["check_n_jobs", "interactive", "progress_bar", "run_jobs"]


def check_n_jobs(n_jobs: Any) -> None:
    """Refuse an ``n_jobs`` joblib would misread (0, a bool, a float), naming it."""
    if n_jobs is not None and (
        isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0
    ):
        raise ValueError(
            f"n_jobs must be None, a positive integer or -1 (all cores), got {n_jobs!r}"
        )


def _in_notebook() -> bool:
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    try:
        ip = shell.get_ipython()  # type: ignore[attr-defined]
    except Exception:  # pragma: no cover - IPython internals
        return False
    return ip is not None and "IPKernelApp" in getattr(ip, "config", {})


def interactive() -> bool:
    """True in a notebook or when stderr is a terminal: where a progress bar is seen (a script
    whose stderr goes to a file or a pipe gets none unless asked)."""
    return _in_notebook() or (hasattr(sys.stderr, "isatty") and sys.stderr.isatty())


def progress_bar(progress: bool | None, total: int, desc: str, unit: str = "fit"):
    """A tqdm bar, or None. ``progress=None``: auto (a terminal or notebook and >= 4 solves);
    ``unit``: what one step is."""
    if progress is False or total == 0:
        return None
    if progress is None:
        if not interactive() or total < 4:
            return None
    elif progress is not True:
        raise TypeError(f"progress must be True, False or None (auto), got {progress!r}")
    try:
        from tqdm.auto import tqdm
    except ImportError:
        if progress is True:
            raise ImportError("progress=True needs tqdm: pip install tqdm") from None
        return None
    return tqdm(total=total, desc=desc, unit=unit, leave=False)


def run_jobs(work: Callable, jobs: Iterable[tuple], n_jobs: int | None, bar) -> list:
    """``[work(*job) for job in jobs]``, in order: in this process when ``n_jobs`` is None or 1,
    else through joblib; ``bar`` (a tqdm bar or None) moves one step per job and is closed at the
    end, also on Ctrl-C or an error.

    >>> run_jobs(pow, [(2, 3), (3, 2)], None, None)
    [8, 9]
    """
    out = []
    try:
        if n_jobs is None or n_jobs == 1:
            stream = (work(*job) for job in jobs)
        else:
            from joblib import Parallel, delayed

            stream = Parallel(n_jobs=n_jobs, return_as="generator")(
                delayed(work)(*job) for job in jobs
            )
        for result in stream:
            out.append(result)
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return out
