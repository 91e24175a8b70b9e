"""The benchmark scripts loaded as modules (they import their ``common`` helper as a sibling)."""

import importlib.util
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture
def load_benchmark():
    """A function that loads ``benchmarks/<stem>.py`` as a module, with the benchmarks folder on
    the import path until the test ends."""
    sys.path.insert(0, str(BENCHMARKS))

    def load(stem: str):
        spec = importlib.util.spec_from_file_location(stem, BENCHMARKS / f"{stem}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    yield load
    sys.path.remove(str(BENCHMARKS))
