"""cross_validate: stratified folds, per-fold metrics recomputed
independently, summary, final model."""

import math

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import StratifiedKFold

import slimwidgets as sw
from slimwidgets.toolbox.validation import CVResult, cross_validate


@pytest.fixture(scope="module")
def bankruptcy_cv(paper_data):
    X, y = paper_data("bankruptcy")
    return X, y, cross_validate(X, y, folds=5, seed=3, time_limit=5)


@pytest.mark.slow
def test_folds_are_stratified_and_metrics_are_recomputable(bankruptcy_cv):
    X, y, cv = bankruptcy_cv
    assert isinstance(cv, CVResult)
    assert list(cv.folds["fold"]) == [1, 2, 3, 4, 5]
    assert cv.folds["n_test"].sum() == len(y)
    splits = list(StratifiedKFold(5, shuffle=True, random_state=3).split(X, y))
    for (train, test), (_, row) in zip(splits, cv.folds.iterrows()):
        assert abs(y.iloc[test].mean() - y.mean()) < 0.03  # stratified
        card = row.card
        pred = card.predict(X.iloc[test]).to_numpy()
        truth = y.iloc[test].to_numpy()
        assert row.test_error == pytest.approx(np.mean(pred != truth))
        assert row.test_tpr == pytest.approx(np.mean(pred[truth == 1] == 1))
        assert row.test_fpr == pytest.approx(np.mean(pred[truth == 0] == 1))
        assert row.train_error == pytest.approx(
            np.mean(card.predict(X.iloc[train]).to_numpy() != y.iloc[train].to_numpy())
        )
        assert row["size"] == card.size
        assert row.status in ("optimal", "time_limit", "feasible")


def test_summary_and_final_model(bankruptcy_cv):
    X, y, cv = bankruptcy_cv
    s = cv.summary
    for metric in ("test_error", "train_error", "test_tpr", "test_fpr", "size"):
        col = cv.folds[metric].astype(float)
        assert s.loc[metric, "mean"] == pytest.approx(col.mean())
        assert s.loc[metric, "std"] == pytest.approx(col.std(ddof=1))
        assert (s.loc[metric, "min"], s.loc[metric, "max"]) == (col.min(), col.max())
    assert cv.test_error == s.loc["test_error", "mean"]
    assert "±" in s.loc["test_error", "text"] and "%" in s.loc["test_error", "text"]
    direct = sw.fit(X, y, time_limit=5)
    assert cv.final.objective == pytest.approx(direct.objective)
    assert s.loc["final_size", "mean"] == cv.final.size
    # the paper reports 0.0 % train error for bankruptcy
    assert cv.final.train_metrics.error == 0.0
    assert "fold" in repr(cv) and "final model size" in repr(cv)
    page = cv._repr_html_()
    assert "<table" in page and "cross-validation" in page and "PREDICT" in page.upper()


def test_parallel_folds_match_sequential():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 2, size=(60, 3)), columns=["a", "b", "c"])
    y = pd.Series(np.where(X.a + X.b + rng.normal(0, 0.6, 60) > 1, "sick", "well"), name="status")
    seq = cross_validate(X, y, folds=3, seed=1, positive="sick", coef_range=(-3, 3))
    par = cross_validate(
        X, y, folds=3, seed=1, positive="sick", coef_range=(-3, 3), n_jobs=2, backend="threading"
    )
    pd.testing.assert_frame_equal(
        seq.folds.drop(columns=["card", "solve_time"]),
        par.folds.drop(columns=["card", "solve_time"]),
    )
    assert seq.final.positive == "sick"


def test_weighted_errors_and_validation():
    X = pd.DataFrame({"a": [1, 0] * 10, "b": [1, 1, 0, 0] * 5})
    y = [1, 0] * 10
    w = np.arange(1, 21, dtype=float)
    cv = cross_validate(X, y, folds=2, sample_weight=w, max_size=1)
    assert cv.summary.loc["test_error", "mean"] == 0.0
    with pytest.raises(ValueError, match="folds"):
        cross_validate(X, y, folds=1)
    with pytest.raises(ValueError, match="fewer than folds"):
        cross_validate(X, [1] + [0] * 19, folds=2)
    with pytest.raises(ValueError, match="max_fpr"):
        cross_validate(X, y, folds=2, max_fpr=2)
    with pytest.raises(ValueError, match="sample_weight"):
        cross_validate(X, y, folds=2, sample_weight=[1, 2])
    assert math.isnan(cv.summary.loc["final_size", "std"])


# -- datasets.load (kept here because this helper owns no test_datasets.py; move freely) -----------
from slimwidgets import datasets as ds  # noqa: E402


@pytest.fixture
def no_network(monkeypatch, tmp_path):
    """Unset SLIMWIDGETS_DATA, point the cache at a temp folder, and make every download fail."""
    monkeypatch.delenv("SLIMWIDGETS_DATA", raising=False)
    monkeypatch.setenv("SLIMWIDGETS_CACHE", str(tmp_path / "cache"))
    calls = []

    def offline(url, timeout):
        calls.append(url)
        raise OSError("Temporary failure in name resolution")

    monkeypatch.setattr(ds, "_fetch", offline)
    return calls


def test_load_from_env_folder_matches_paper_loader(monkeypatch, paper_data, paper_data_dir):
    monkeypatch.setenv("SLIMWIDGETS_DATA", str(paper_data_dir))
    monkeypatch.setattr(ds, "_fetch", lambda *a: pytest.fail("must not download"))
    X, y = ds.load("bankruptcy")
    X2, y2 = paper_data("bankruptcy")
    pd.testing.assert_frame_equal(X, X2)
    pd.testing.assert_series_equal(y, y2)
    assert X.shape == (250, 6) and y.name == "NotBankrupt"


def test_local_checksums_match_the_pinned_ones(paper_data_dir):
    for name, digest in ds.SHA256.items():
        assert ds._sha256((paper_data_dir / f"{name}_processed.csv").read_bytes()) == digest


def test_offline_error_is_clear(no_network, tmp_path):
    with pytest.raises(ds.DatasetDownloadError, match="SLIMWIDGETS_DATA") as info:
        ds.load("heart")
    assert "ustunb/slim-python" in str(info.value) and ds.SOURCE_COMMIT in no_network[0]
    with pytest.raises(ds.DatasetDownloadError, match="download=False"):
        ds.load("heart", download=False)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        ds.load("heart", folder=tmp_path / "empty")
    with pytest.raises(ValueError, match="unknown data set"):
        ds.load("iris")


def test_download_is_verified_and_cached(no_network, monkeypatch, paper_data_dir):
    good = (paper_data_dir / "haberman_processed.csv").read_bytes()
    served = []
    monkeypatch.setattr(ds, "_fetch", lambda url, timeout: served.append(url) or good)
    X, y = ds.load("haberman")
    assert X.shape == (306, 3) and len(served) == 1
    assert (ds.cache_dir() / "haberman_processed.csv").read_bytes() == good
    ds.load("haberman")  # from the cache now
    assert len(served) == 1
    # a corrupted cache file is dropped and fetched again; a tampered download is refused
    (ds.cache_dir() / "haberman_processed.csv").write_bytes(good[:-10])
    ds.load("haberman")
    assert len(served) == 2
    monkeypatch.setattr(ds, "_fetch", lambda url, timeout: good.replace(b"1", b"2", 1))
    with pytest.raises(ds.DatasetDownloadError, match="sha256"):
        ds.load("mammo")
    assert not (ds.cache_dir() / "mammo_processed.csv").exists()
