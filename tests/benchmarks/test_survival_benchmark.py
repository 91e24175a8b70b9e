"""The code path of benchmarks/survival.py on one small set.

Its figures are measured, not tested.
"""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sksurv")
pytestmark = pytest.mark.slow  # benchmark runs: python -m pytest --all runs them

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location("survival_bench", BENCHMARKS / "survival.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    sys.path.remove(str(BENCHMARKS))


def test_one_small_set_end_to_end(bench, tmp_path, capsys):
    csv = tmp_path / "folds.csv"
    argv = ["--datasets", "veterans", "--folds", "2", "--size", "2", "--time-limit", "30"]
    assert bench.main([*argv, "--csv", str(csv)]) == 0
    printed = capsys.readouterr().out
    rows = pd.read_csv(csv)
    assert sorted(rows["method"]) == sorted(list(bench.METHODS) * 2)
    assert rows["C"].between(0.5, 1).all() and rows["AUC"].between(0.5, 1).all()
    card = rows[rows["method"] == "slimwidgets"].set_index("fold")
    assert (card["variables"] <= 2).all() and (card["status"] == "optimal").all()
    for method in ("rounded Cox", "Cox"):  # compared at the card's number of variables or fewer
        other = rows[rows["method"] == method].set_index("fold")
        assert (other["variables"] <= card["variables"].clip(lower=1)).all()
    assert "| veterans |" in printed and "Test C no worse than the rounded pipeline" in printed
    assert printed.count("load average") == 2


def test_the_rounded_pipeline_gives_integer_points_on_quartile_levels(bench):
    X, y = bench.load_set("gbsg2")
    train, test = X.iloc[:500], X.iloc[500:]
    a, b = bench.quantile_levels(train, test)
    assert set(np.unique(a.to_numpy())) <= {0.0, 1.0} and list(a.columns) == list(b.columns)
    # each numeric variable has at most 3 levels beyond its lowest quartile
    assert sum(c.startswith("age=") for c in a.columns) == 3
    scores, used = bench.rounded_cox(train, test, y[:500], 2)
    assert used <= 2 and np.allclose(scores, np.rint(scores))
