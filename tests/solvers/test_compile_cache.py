"""The search kernels compile once per machine, not once per process, and say so when they do.

Each run is a fresh interpreter with its own empty NUMBA_CACHE_DIR, so the first fit compiles
and the second loads; nothing is timed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from slimwidgets.core import losses
from slimwidgets.solvers import _kernels, _scan_kernels

pytestmark = (
    pytest.mark.slow
)  # fresh interpreters compiling the kernels: python -m pytest --all runs them

ROOT = Path(__file__).resolve().parents[2]
FIT = """
import slimwidgets as sw
card = sw.fit([[1, 0], [1, 1], [0, 0], [0, 1]], [1, 1, 0, 0], max_size=1)
print(card.status)
"""


def fit_in_fresh_process(cache: Path) -> subprocess.CompletedProcess:
    env = dict(
        os.environ,
        NUMBA_CACHE_DIR=str(cache),
        PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    )
    return subprocess.run(
        [sys.executable, "-c", FIT], capture_output=True, text=True, env=env, timeout=900
    )


def test_the_first_fit_announces_the_compile_and_the_second_loads_it(tmp_path):
    first = fit_in_fresh_process(tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == "optimal"
    assert first.stderr.count(_kernels.COMPILE_NOTE) == 1, first.stderr
    indexed = {p.name.split(".")[0] for p in tmp_path.rglob("*.nbi")}
    assert {"_kernels", "_scan_kernels"} <= indexed, indexed  # the search's and the support scan's
    second = fit_in_fresh_process(tmp_path)
    assert second.returncode == 0, second.stderr
    assert second.stdout.strip() == "optimal"
    assert "compiling" not in second.stderr, second.stderr


def test_a_kernel_that_cannot_be_cached_still_compiles():
    """Code with no file to cache beside (here: exec'd) makes numba refuse cache=True at
    decoration; the kernel then compiles in-process instead of failing the import."""
    namespace: dict = {}
    exec("def plus_one(x):\n    return x + 1\n", {}, namespace)
    kernel = _kernels.njit(nogil=True)(namespace["plus_one"])
    assert kernel(41) == 42
    assert kernel.stats.cache_path is None


def test_the_scan_kernels_use_the_same_fallback():
    """The support scan's kernels are decorated by the same wrapper, so they too compile
    in-process where no cache folder is writable instead of failing the import."""
    assert _scan_kernels.njit is _kernels.njit


def test_the_risk_losses_use_the_same_fallback():
    """So do the logistic loss's kernels (core/losses.py): decorated by the same wrapper, and
    cached where a folder is writable."""
    assert losses.njit is _kernels.njit
    losses.ensure_compiled()
    assert losses._scan.stats.cache_path is not None
