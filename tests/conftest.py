import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the brute-force oracle
# Test files share tiny problems and fixtures (``from test_exactness import tiny_problem``):
# every folder of the mirror is importable by module name.
for _folder in sorted(Path(__file__).parent.iterdir()):
    if _folder.is_dir() and _folder.name not in ("data", "__pycache__"):
        sys.path.insert(1, str(_folder))


from shared_data import shared_data_dir  # noqa: E402  (a module of its own: tests/e2e has a conftest too)


@pytest.fixture(scope="session")
def paper_data():
    """Loader for the paper's data sets in ../shared/data (or $SLIMWIDGETS_DATA)."""
    from slimwidgets.datasets import load_paper_dataset

    folder = shared_data_dir()
    if not folder.is_dir():
        pytest.fail(f"the paper's data sets are not at {folder}; set SLIMWIDGETS_DATA")
    return lambda name: load_paper_dataset(name, folder=folder)


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels():
    """Compile (or load from numba's cache) the search kernels before any test captures
    stderr: a first compile announces itself there (see tests/solvers/test_compile_cache.py)."""
    from slimwidgets.solvers import _kernels

    _kernels.ensure_compiled()
