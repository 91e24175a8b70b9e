"""The code path of benchmarks/generalization.py on one small set (its figures are
measured, not tested)."""

import importlib.util
import sys
from pathlib import Path

import pandas as pd
import pytest

pytestmark = pytest.mark.slow  # benchmark runs: python -m pytest --all runs them

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location(
        "generalization", BENCHMARKS / "generalization.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    sys.path.remove(str(BENCHMARKS))


def test_one_small_set_end_to_end(bench, tmp_path, capsys):
    csv, out = tmp_path / "folds.csv", tmp_path / "table.md"
    # bankruptcy at 2 features is proven optimal in well under a second: the limit is only a ceiling
    assert (
        bench.main(
            [
                "--datasets",
                "bankruptcy",
                "--sizes",
                "2",
                "--time-limits",
                "60",
                "--folds",
                "2",
                "--csv",
                str(csv),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    rows = pd.read_csv(csv)
    methods = ["slim 60 s", "rounded L1"] + (["FasterRisk"] if bench.has_fasterrisk() else [])
    assert sorted(rows["method"].unique()) == sorted(methods)
    assert len(rows) == 2 * len(methods) and set(rows["fold"]) == {1, 2}
    assert (rows["size"] <= 2).all() and rows["test_error"].between(0, 1).all()
    assert rows["test_auc"].between(0, 1).all()
    slim = rows[rows["method"] == "slim 60 s"].set_index("fold")
    assert (slim["status"] == "optimal").all()
    # proven optimal with C0 below one error: no other card on the same
    # features, size and box errs less
    for method in methods[1:]:
        other = rows[rows["method"] == method].set_index("fold")
        assert (slim["train_error"] <= other["train_error"] + 1e-12).all(), method
    assert (
        "| bankruptcy | slim 60 s | 2 |" in printed and out.read_text().strip() == printed.strip()
    )
    if bench.has_fasterrisk():
        assert "vs FasterRisk at k = 2" in printed
    # a saved run re-tabulates to the same tables
    assert bench.main(["--from-csv", str(csv)]) == 0
    assert capsys.readouterr().out.strip() == printed.strip()


def test_folds_share_training_cut_points(bench):
    X, y = bench.load_set("wdbc")
    assert X.shape == (569, 30) and y.sum() == 212  # 1 = malignant
    train, test = list(range(0, 400)), list(range(400, 569))
    Xtr, Xte = bench.fold_features(X, train, test)
    assert list(Xtr.columns) == list(Xte.columns) and set(pd.unique(Xtr.to_numpy().ravel())) <= {
        0.0,
        1.0,
    }
    assert all(Xtr[c].nunique() == 2 for c in Xtr.columns)
