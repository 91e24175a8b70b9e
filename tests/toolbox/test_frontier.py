"""ROC frontier and size path: exactness against brute force, cache, warm start,
joblib, rows for failures."""

import threading

import joblib
import numpy as np
import pandas as pd
import pytest

from slimwidgets import make_spec
from slimwidgets.core.data import prepare_data
from slimwidgets.toolbox import frontier as fr
from slimwidgets.toolbox.frontier import clear_cache, data_fingerprint, roc_frontier, size_path

import brute
from tiny_problems import SMALL
from tiny_problems import tiny_roc_problem as tiny


@pytest.fixture(autouse=True)
def fresh_cache():
    clear_cache()
    yield
    clear_cache()


@pytest.mark.seeds(3)
def test_frontier_matches_brute_force(seed):
    X, y = tiny(seed)
    caps = [0.0, 0.1, 0.25, 0.5, 1.0]
    front = roc_frontier(X, y, fprs=caps, progress=False, **SMALL)
    assert list(front["max_fpr"]) == caps
    names = list(X.columns)
    ysign = np.where(y == 1, 1, -1)
    for _, row in front.iterrows():
        cards = brute.enumerate_cards(
            X.to_numpy(), ysign, names, make_spec(max_fpr=row.max_fpr, **SMALL)
        )
        assert row.status == "optimal"
        assert row.tpr == pytest.approx(cards["tpr"].max())
        assert row.tpr_max == pytest.approx(row.tpr)
        assert row.fpr <= row.max_fpr + 1e-12
        card = row.card
        m = card.metrics(X, y)
        assert (m.tpr, m.fpr, m.error, card.size) == (row.tpr, row.fpr, row.error, row["size"])
    assert front["tpr"].is_monotonic_increasing


def test_infeasible_cap_is_a_row_not_an_exception():
    # identical x with both labels: TPR 1 and FPR 0 cannot hold together
    X = pd.DataFrame({"a": [1, 1, 0, 0, 1], "b": [0, 0, 1, 0, 1]})
    y = [1, 0, 0, 0, 1]
    front = roc_frontier(X, y, fprs=[0.0, 0.5], min_tpr=1.0, progress=False, **SMALL)
    first, second = front.iloc[0], front.iloc[1]
    assert first.status == "infeasible" and first.card is None and np.isnan(first.tpr)
    assert "max_fpr=0" in first.message and "min_tpr=1" in first.message
    assert second.status == "optimal" and second.tpr == 1.0


def test_sequential_sweep_warm_starts_from_the_neighbour(monkeypatch):
    X, y = tiny(3)
    seen = []
    real = fr.fit_dataset

    def spy(data, spec, warm_start=None, **kw):
        seen.append((spec.max_fpr, warm_start))
        return real(data, spec, warm_start=warm_start, **kw)

    monkeypatch.setattr(fr, "fit_dataset", spy)
    front = roc_frontier(X, y, fprs=[0.5, 0.1, 0.3], progress=False, cache=False, **SMALL)
    assert [c for c, _ in seen] == [0.1, 0.3, 0.5]  # loosest cap last
    assert seen[0][1] is None
    assert seen[1][1] is front.card[0] and seen[2][1] is front.card[1]


def test_cache_makes_repeats_instant_and_is_keyed_by_data_and_spec(monkeypatch):
    X, y = tiny(4)
    first = roc_frontier(X, y, fprs=[0.2, 0.4], progress=False, **SMALL)
    assert not first.cached.any()
    calls = []

    class Solved(Exception):
        pass

    def stub(*a, **k):
        calls.append(1)
        raise Solved

    monkeypatch.setattr(fr, "fit_dataset", stub)
    again = roc_frontier(X, y, fprs=[0.4, 0.2], progress=False, **SMALL)
    assert again.cached.all() and not calls
    assert again.card[0] is first.card[0]
    # reordered rows are the same data; other options or other data are not
    shuffled = roc_frontier(X.iloc[::-1], y.iloc[::-1], fprs=[0.2], progress=False, **SMALL)
    assert shuffled.cached.all()
    with pytest.raises(Solved):  # another spec is a cache miss: a solve is attempted
        roc_frontier(X, y, fprs=[0.2], progress=False, max_size=1, **SMALL)
    y2 = y.copy()
    y2.iloc[5] = 1 - y2.iloc[5]
    assert data_fingerprint(prepare_data(X, y2)) != data_fingerprint(prepare_data(X, y))


def test_cache_false_and_custom_dict(monkeypatch):
    X, y = tiny(5)
    store = {}
    roc_frontier(X, y, fprs=[0.3], progress=False, cache=store, **SMALL)
    assert len(store) == 1
    key = next(iter(store))
    assert key[1] == make_spec(max_fpr=0.3, **SMALL).key()
    assert len(fr._DEFAULT_CACHE) == 0
    roc_frontier(X, y, fprs=[0.3], progress=False, cache=False, **SMALL)
    assert len(fr._DEFAULT_CACHE) == 0
    with pytest.raises(TypeError, match="cache"):
        roc_frontier(X, y, fprs=[0.3], progress=False, cache="yes", **SMALL)


def test_parallel_threading_backend_same_answers_and_parallel_config_respected(monkeypatch):
    X, y = tiny(6)
    caps = [0.0, 0.2, 0.4, 0.6]
    seq = roc_frontier(X, y, fprs=caps, progress=False, cache=False, **SMALL)
    threads = set()
    real = fr.fit_dataset

    def spy(data, spec, warm_start=None, **kw):
        threads.add(threading.current_thread().name)
        return real(data, spec, warm_start=warm_start, **kw)

    monkeypatch.setattr(fr, "fit_dataset", spy)
    with joblib.parallel_config(backend="threading"):
        par = roc_frontier(X, y, fprs=caps, n_jobs=2, progress=False, cache=False, **SMALL)
    assert threading.main_thread().name not in threads
    assert list(par.tpr) == list(seq.tpr) and list(par.status) == list(seq.status)


@pytest.mark.slow
def test_parallel_default_backend_uses_processes():
    X, y = tiny(7)
    par = roc_frontier(X, y, fprs=[0.1, 0.5], n_jobs=2, progress=False, cache=False, **SMALL)
    seq = roc_frontier(X, y, fprs=[0.1, 0.5], progress=False, cache=False, **SMALL)
    assert list(par.tpr) == list(seq.tpr)
    assert all(
        c.points == s.points or c.objective == pytest.approx(s.objective)
        for c, s in zip(par.card, seq.card)
    )


def test_progress_bar_and_validation(capsys):
    X, y = tiny(8)
    roc_frontier(X, y, fprs=[0.1, 0.2, 0.3, 0.4], progress=True, cache=False, **SMALL)
    assert "ROC frontier" in capsys.readouterr().err
    roc_frontier(X, y, fprs=[0.1, 0.2, 0.3, 0.4], progress=False, cache=False, **SMALL)
    assert capsys.readouterr().err == ""
    with pytest.raises(TypeError, match="max_fpr"):
        roc_frontier(X, y, fprs=[0.1], max_fpr=0.2)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        roc_frontier(X, y, fprs=[0.1, 1.5])
    with pytest.raises(ValueError, match="empty"):
        roc_frontier(X, y, fprs=[])
    with pytest.raises(ValueError, match="n_jobs"):
        roc_frontier(X, y, fprs=[0.1], n_jobs=0)
    with pytest.raises(TypeError, match="sizes= or C0s="):
        size_path(X, y, sizes=[1], C0s=[0.1])
    with pytest.raises(TypeError, match="max_size"):
        size_path(X, y, sizes=[1], max_size=2)


def test_size_path_against_brute_force():
    X, y = tiny(9, n=30, p=3)
    path = size_path(X, y, progress=False, **SMALL)
    assert list(path["max_size"]) == [0, 1, 2, 3]
    names = list(X.columns)
    ysign = np.where(y == 1, 1, -1)
    for _, row in path.iterrows():
        cards = brute.enumerate_cards(
            X.to_numpy(), ysign, names, make_spec(max_size=int(row.max_size), **SMALL)
        )
        assert row.status == "optimal"
        assert row["size"] <= row.max_size
        assert row.error == pytest.approx(cards["loss"].min())
    assert path["error"].is_monotonic_decreasing


def test_c0_path_trades_accuracy_for_sparsity():
    X, y = tiny(10, n=40, p=3)
    path = size_path(X, y, C0s=[0.0001, 0.05, 0.9], progress=False, **SMALL)
    assert list(path["C0"]) == [0.9, 0.05, 0.0001]  # sparsest first
    assert path.loc[0, "size"] == 0  # C0 > 1 - 1/N: nothing is worth a feature (Remark 4)
    assert path["size"].is_monotonic_increasing
    assert path["error"].is_monotonic_decreasing


@pytest.mark.slow
def test_breastcancer_frontier_points_have_status_and_gap(paper_data):
    X, y = paper_data("breastcancer")
    front = roc_frontier(X, y, fprs=[0.05, 0.5], time_limit=1.0, progress=False)
    assert set(front.status) <= {"optimal", "time_limit", "feasible"}
    assert front.gap.notna().all() and (front.fpr <= front.max_fpr).all()
    assert (front.tpr <= front.tpr_max + 1e-12).all()
    assert front.tpr.iloc[0] > 0.9


@pytest.mark.slow
def test_sweeps_take_a_raw_table_and_their_cards_score_raw_rows():
    rng = np.random.default_rng(5)
    X = pd.DataFrame({"age": rng.integers(30, 85, 80), "sex": rng.choice(["F", "M"], 80)})
    X.loc[X.index[:6], "age"] = np.nan
    y = ((X.age.fillna(50) > 60) | (X.sex == "M")).astype(int)
    path = size_path(
        X, y, sizes=[1, 2], cuts={"age": [50, 60]}, progress=False, cache=False, time_limit=10
    )
    card = path["card"].iloc[-1]
    assert card.rules.rules_of("age") == ["age >= 50", "age >= 60", "age missing"]
    assert card.predict(X).tolist() == card.predict(card.rules.transform(X)).tolist()
    front = roc_frontier(X, y, fprs=[0.2], progress=False, cache=False, time_limit=10)
    assert front["card"].iloc[0].rules is not None
