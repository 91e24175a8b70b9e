import sys
from pathlib import Path

import pytest

# The helpers every folder shares live here, beside this file, as modules of their own: brute.py
# and brute_risk.py (the brute-force oracles), tiny_problems.py, solver_children.py,
# studio_helpers.py, shared_data.py. No test file imports another test file
# (tests/test_architecture.py checks it); fixtures live in the conftest.py of their folder.
sys.path.insert(0, str(Path(__file__).parent))


from needs import missing  # noqa: E402
from shared_data import shared_data_dir  # noqa: E402  (a module of its own: tests/e2e has a conftest too)


@pytest.fixture(scope="session")
def paper_data_dir():
    """The folder of the paper's data sets: ../shared/data or $SLIMWIDGETS_DATA (skipped without
    it, failed in CI)."""
    folder = shared_data_dir()
    if not folder.is_dir():
        missing(f"the paper's data sets are not at {folder}; set SLIMWIDGETS_DATA")
    return folder


@pytest.fixture(scope="session")
def paper_data(paper_data_dir):
    """Loader for the paper's data sets in ``paper_data_dir``."""
    from slimwidgets.datasets import load_paper_dataset

    return lambda name: load_paper_dataset(name, folder=paper_data_dir)


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels():
    """Compile (or load from numba's cache) the search kernels before any test captures
    stderr: a first compile announces itself there (see tests/solvers/test_compile_cache.py).
    The risk kernels too: on a clean clone their first compile takes ~15 s, longer than a
    studio test waits for its background warm-up thread when it closes."""
    from slimwidgets.core import losses
    from slimwidgets.solvers import _kernels, risk_branch_and_bound

    _kernels.ensure_compiled()
    losses.ensure_compiled()
    risk_branch_and_bound.ensure_tree_compiled()
