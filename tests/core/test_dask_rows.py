"""fit on a Dask DataFrame (core/dask_rows.py): rows reduced to weighted patterns on a
LocalCluster give the card fitted locally on the same rows, names kept; too many patterns are
reduced by a sample that the card states; bad input is named."""

import math

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import slimwidgets as sw  # noqa: E402
from slimwidgets.core.dask_rows import patterns_from_dask  # noqa: E402
from slimwidgets.core.patterns import patterns_of  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        yield c


def rules(n_rows=2_000, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame((rng.random((n_rows, 6)) < 0.5).astype(np.uint8),
                     columns=["age ≥ 60", "bmi ≥ 30", "smoker", "female", "diabetic", "statins"])
    score = 3 * X["age ≥ 60"].astype(int) + 2 * X["smoker"] + X["diabetic"] - 2 * X["statins"]
    y = pd.Series(np.where((score >= 3) ^ (rng.random(n_rows) < 0.1), "event", "none"), name="outcome")
    return X, y


def as_dask(X, y, parts=4):
    frame = dd.from_pandas(X.assign(outcome=y), npartitions=parts)
    return frame.drop(columns="outcome"), frame["outcome"]


def test_the_dask_card_is_the_local_card(client):
    X, y = rules()
    local = sw.fit(X, y, max_size=4, max_fpr=0.15)
    remote = sw.fit(*as_dask(X, y), max_size=4, max_fpr=0.15)
    assert remote.feature_names == tuple(X.columns)  # names kept, not x0, x1, ...
    assert (remote.points, remote.intercept, remote.status) == (local.points, local.intercept, local.status)
    assert remote.objective == pytest.approx(local.objective) and remote.train_metrics == local.train_metrics
    assert remote.positive_name == local.positive_name == "none" and remote.details["n_samples"] == 2_000
    assert remote.risk == local.risk


def test_the_reduction_on_the_cluster_counts_what_the_local_one_counts(client):
    X, y = rules(seed=1)
    w = pd.Series(np.random.default_rng(2).random(len(y)))
    frame = dd.from_pandas(X.assign(outcome=y, w=w), npartitions=3)
    remote = patterns_from_dask(frame[list(X.columns)], frame["outcome"], sample_weight=frame["w"])
    local = patterns_of(X, y, sample_weight=w)
    key = lambda p: {int(word): (a, b) for word, a, b in zip(p.words[:, 0], p.pos, p.neg)}  # noqa: E731
    assert key(remote).keys() == key(local).keys() and remote.n_samples == local.n_samples == 2_000
    for word, (a, b) in key(local).items():
        assert key(remote)[word] == pytest.approx((a, b))
    assert remote.sampled_from is None


def test_too_many_patterns_are_reduced_by_a_sample_the_card_states(client, monkeypatch):
    from slimwidgets.core import dask_rows

    X, y = rules(seed=3)
    monkeypatch.setattr(dask_rows, "MAX_PATTERNS", 30)  # 64 patterns here: too many
    card = sw.fit(*as_dask(X, y), max_size=3)
    sample = card.details["sample"]
    assert sample["of"] == 2_000 and 0 < sample["rows"] < 2_000 and card.details["n_samples"] == sample["rows"]
    assert card.status != "optimal" and not math.isfinite(card.bound)  # nothing proven on all rows
    assert "sample" in sample["note"] and "searched on a sample of" in sw.describe(card).headline
    assert card.train_metrics.n == sample["rows"]  # the figures are the sample's, as the note says


def test_bad_dask_input_is_named(client):
    X, y = rules(200)
    bad = X.assign(age=np.arange(200))
    with pytest.raises(ValueError, match=r"\['age'\]"):
        sw.fit(*as_dask(bad, y), max_size=2)
    with pytest.raises(TypeError, match="Dask Series"):
        sw.fit(as_dask(X, y)[0], y, max_size=2)
    with pytest.raises(TypeError, match="non-numeric columns: \\['name'\\]"):
        sw.fit(*as_dask(X.assign(name="a"), y), max_size=2)
