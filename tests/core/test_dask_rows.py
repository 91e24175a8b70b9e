"""fit on a Dask DataFrame (core/dask_rows.py): rows reduced to weighted patterns on a
LocalCluster give the card fitted locally on the same rows, names kept; too many patterns are
reduced by a sample that the card states; bad input is named."""

import math
import threading
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import slimwidgets as sw  # noqa: E402
from slimwidgets.core.dask_rows import patterns_from_dask  # noqa: E402
from slimwidgets.core.patterns import patterns_of  # noqa: E402
from slimwidgets.fitting import driver, large  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def rules(n_rows=2_000, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        (rng.random((n_rows, 6)) < 0.5).astype(np.uint8),
        columns=["age ≥ 60", "bmi ≥ 30", "smoker", "female", "diabetic", "statins"],
    )
    score = 3 * X["age ≥ 60"].astype(int) + 2 * X["smoker"] + X["diabetic"] - 2 * X["statins"]
    y = pd.Series(
        np.where((score >= 3) ^ (rng.random(n_rows) < 0.1), "event", "none"), name="outcome"
    )
    return X, y


def as_dask(X, y, parts=4):
    frame = dd.from_pandas(X.assign(outcome=y), npartitions=parts)
    return frame.drop(columns="outcome"), frame["outcome"]


@pytest.mark.slow
def test_the_dask_card_is_the_local_card(client):
    X, y = rules()
    local = sw.fit(X, y, max_size=4, max_fpr=0.15)
    remote = sw.fit(*as_dask(X, y), max_size=4, max_fpr=0.15)
    assert remote.feature_names == tuple(X.columns)  # names kept, not x0, x1, ...
    assert (remote.points, remote.intercept, remote.status) == (
        local.points,
        local.intercept,
        local.status,
    )
    assert (
        remote.objective == pytest.approx(local.objective)
        and remote.train_metrics == local.train_metrics
    )
    assert (
        remote.positive_name == local.positive_name == "none"
        and remote.details["n_samples"] == 2_000
    )
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
    assert (
        sample["of"] == 2_000
        and 0 < sample["rows"] < 2_000
        and card.details["n_samples"] == sample["rows"]
    )
    assert card.status != "optimal" and not math.isfinite(card.bound)  # nothing proven on all rows
    assert "sample" in sample["note"] and "searched on a sample of" in sw.describe(card).headline
    assert card.train_metrics.n == sample["rows"]  # the figures are the sample's, as the note says


@pytest.mark.slow
def test_bad_dask_input_is_named(client):
    X, y = rules(200)
    bad = X.assign(age=np.arange(200))
    with pytest.raises(ValueError, match=r"\['age'\]"):
        sw.fit(*as_dask(bad, y), max_size=2)
    with pytest.raises(TypeError, match="Dask Series"):
        sw.fit(as_dask(X, y)[0], y, max_size=2)
    with pytest.raises(TypeError, match="non-numeric columns: \\['name'\\]"):
        sw.fit(*as_dask(X.assign(name="a"), y), max_size=2)


#: the gate the last partition waits at (the in-process cluster runs the tasks in this
#: process's threads)
GATE = threading.Event()


def _partition(i, n_rows=500):
    if i == 3:
        GATE.wait(60)
    X, y = rules(n_rows, seed=10 + i)
    return X.assign(outcome=y)


class _Clock:
    """``time`` for core/dask_rows.py: 0 s until the reduction has waited once, 100 s after."""

    waited = read_three = False

    @classmethod
    def perf_counter(cls):
        return 100.0 if cls.waited else 0.0


def _wait_for_three(futures):
    """The reduction's wait between looks at the clock: the first time until every partition but
    the one at the gate is read (the reduction then sums them, the clock still at 0); the next
    time the clock passes the deadline."""
    import time

    if _Clock.read_three:
        _Clock.waited = True
        return
    for _ in range(6000):
        if sum(f.done() for f in futures) >= len(futures) - 1:
            break
        time.sleep(0.01)
    _Clock.read_three = True


def test_the_reduction_stops_at_its_deadline_with_the_partitions_read(client, monkeypatch):
    """A partition still running at the deadline is not waited for: the patterns are those of
    the partitions read and summed by then, which they say, and the card states it and claims
    no proof."""
    import dask

    from slimwidgets.core import dask_rows

    GATE.clear()
    monkeypatch.setattr(_Clock, "waited", False)
    monkeypatch.setattr(_Clock, "read_three", False)
    monkeypatch.setattr(dask_rows, "time", _Clock)
    monkeypatch.setattr(dask_rows, "_settle", _wait_for_three)
    frame = dd.from_delayed(
        [dask.delayed(_partition)(i) for i in range(4)], meta=_partition(0).iloc[:0]
    )
    try:
        found = patterns_from_dask(frame.drop(columns="outcome"), frame["outcome"], deadline=50.0)
    finally:
        GATE.set()  # the last partition may end now (it was cancelled)
    assert found.partitions_read == (3, 4) and found.n_samples == 1_500
    read = pd.concat([_partition(i) for i in range(3)])
    local = patterns_of(read.drop(columns="outcome"), read["outcome"])
    key = lambda p: sorted(zip(p.words[:, 0].tolist(), p.pos.tolist(), p.neg.tolist()))  # noqa: E731
    assert key(found) == key(local)
    fitted = driver.fit_dataset(found.dataset(), sw.make_spec(max_size=2))
    # as if the fit had handed its scan's floor over: that floor too held on the sample only
    fitted = replace(fitted, details={**fitted.details, "bound_by_work": 0.01})
    card = large.cluster_sample_card(fitted, found)
    assert "3 of 4 partitions read within the time limit" in card.details["sample"]["note"]
    assert card.status != "optimal" and not math.isfinite(card.bound)
    assert "bound_by_work" not in card.details


def test_without_a_deadline_every_partition_is_read(client):
    X, y = rules(900, seed=4)
    found = patterns_from_dask(*as_dask(X, y, parts=3))
    assert found.partitions_read is None and found.n_samples == 900


@pytest.mark.slow
def test_fit_cv_on_a_dask_frame_is_cross_validation_on_its_rows(client):
    """fit_cv reduces the frame to distinct (rules, label, fold) rows on the cluster, each row
    in a fold drawn by its partition (seeded by the seed and the partition's number): every
    setting's mean test error is that of fits on the frame's rows in those folds, and the
    card, refit on all rows, counts them."""
    X, y = rules(1_200, seed=5)
    frame_X, frame_y = as_dask(X, y, parts=3)
    remote = sw.fit_cv(frame_X, frame_y, max_size=[1, 2, 3], cv=3, seed=4)
    sizes = frame_X.map_partitions(len).compute().tolist()
    fold = np.concatenate(
        [np.random.default_rng([4, i]).integers(0, 3, n) for i, n in enumerate(sizes)]
    )
    for candidate in remote.details["cv"]["candidates"]:
        errors = []
        for k in range(3):
            card = sw.fit(X[fold != k], y[fold != k], max_size=candidate["max_size"])
            errors.append(card.metrics(X[fold == k], y[fold == k]).error)
        assert candidate["test_error"] == pytest.approx(np.mean(errors), abs=1e-12)
    assert remote.details["n_samples"] == 1_200
    assert remote.train_metrics.error == pytest.approx(remote.metrics(X, y).error, abs=1e-12)


@pytest.mark.slow
def test_a_sweep_on_a_dask_frame_is_the_sweep_on_its_rows(client):
    X, y = rules(1_500, seed=6)
    remote = sw.size_path(*as_dask(X, y), sizes=[1, 2, 3])
    local = sw.size_path(X, y, sizes=[1, 2, 3])
    assert remote["error"].tolist() == pytest.approx(local["error"].tolist())
    assert remote["status"].tolist() == local["status"].tolist()
    assert [c.points for c in remote["card"]] == [c.points for c in local["card"]]
    assert all(c.details["n_samples"] == 1_500 for c in remote["card"])


def _counts_of(X, y):
    from slimwidgets.core import dask_rows

    return dask_rows._partition_counts(
        X.assign(**{dask_rows._LABEL: y.to_numpy()}), tuple(X.columns)
    )


def test_the_running_sum_is_the_reduction_and_past_its_limit_a_sample_of_every_row_read():
    """Partitions summed one by one give the patterns of all their rows; past the limit of
    distinct rows, the table is thinned and stays within it, and says how many rows it was
    drawn from (each row read kept with one probability, earlier partitions too)."""
    from slimwidgets.core import dask_rows

    X, y = rules(seed=5)
    parts = [_counts_of(X.iloc[i : i + 500], y.iloc[i : i + 500]) for i in range(0, 2_000, 500)]
    keys = [c for c in parts[0].columns if c not in (dask_rows._WEIGHT, dask_rows._ROWS)]
    whole = dask_rows._RunningSum(keys, limit=10_000, seed=0)
    for counts in parts:
        whole.add(counts)
    local = (
        _counts_of(X, y).groupby(keys, as_index=False)[[dask_rows._WEIGHT, dask_rows._ROWS]].sum()
    )
    key = lambda t: sorted(map(tuple, t[keys + [dask_rows._ROWS]].to_numpy().tolist()))  # noqa: E731
    assert key(whole.table) == key(local) and whole.sampled_from() is None
    wide = pd.DataFrame(
        (np.random.default_rng(6).random((2_000, 24)) < 0.5).astype(np.uint8),
        columns=[f"r{j}" for j in range(24)],
    )  # rows that hardly repeat
    parts = [_counts_of(wide.iloc[i : i + 500], y.iloc[i : i + 500]) for i in range(0, 2_000, 500)]
    keys = [c for c in parts[0].columns if c not in (dask_rows._WEIGHT, dask_rows._ROWS)]
    small = dask_rows._RunningSum(keys, limit=300, seed=0)
    for counts in parts:
        small.add(counts)
    assert (
        len(small.table) <= 1.25 * 300
        and small.sampled_from() == 2_000
        and 0 < small.fraction < 0.3
    )
    kept = small.table[dask_rows._ROWS].sum()
    assert kept == pytest.approx(
        small.fraction * 2_000, rel=0.25
    )  # a sample of every row read, at one rate


class _PaceClock:
    """``time`` for core/dask_rows.py: reading a partition takes 10 s of it."""

    now = 0.0

    @classmethod
    def perf_counter(cls):
        return cls.now


def _slow_partition(i):
    _PaceClock.now += 10.0
    X, y = rules(300, seed=20 + i)
    return _counts_of(X, y)


def test_on_a_local_scheduler_no_batch_is_started_that_would_end_past_the_deadline(monkeypatch):
    """A batch takes 10 s of the fake clock: with the deadline at 25 s the second batch starts
    (it ends at 20 s), the third is not (it would end at 30 s); the table is the two partitions'."""
    import dask

    from slimwidgets.core import dask_rows

    monkeypatch.setattr(_PaceClock, "now", 0.0)
    monkeypatch.setattr(dask_rows, "time", _PaceClock)
    monkeypatch.setattr(dask_rows.os, "cpu_count", lambda: 1)
    parts = [dask.delayed(_slow_partition)(i) for i in range(4)]
    keys = [c for c in _slow_partition(0).columns if c not in (dask_rows._WEIGHT, dask_rows._ROWS)]
    _PaceClock.now = 0.0
    summed = dask_rows._RunningSum(keys, limit=10_000, seed=0)
    summed.read = (0, 4)
    with dask.config.set(scheduler="sync"):
        dask_rows._batches_until(parts, summed, deadline=25.0)
    assert summed.read == (2, 4) and summed.rows_read == 600 and _PaceClock.now == 20.0
