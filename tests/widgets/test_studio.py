"""The studio's controller and widget layer, without a browser.

The widget tests drive the traits the way the front end does (``set_state``) and
check that everything the views are sent agrees with ``studio.scoring_system``.
"""

from __future__ import annotations

import json
import math
import threading
import time

import numpy as np
import pytest

import slimwidgets as sw
from slimwidgets.core.status import NO_BOUND, describe, details_text
from slimwidgets.datasets import load_demo
from slimwidgets.widgets.controller import Controller, card_roc, train_metrics
from slimwidgets.widgets.scheduler import THREAD_PREFIX, BackgroundQueue, SolveScheduler
from slimwidgets.widgets.warmup import RiskWarmup, SearchWarmup

from studio_helpers import send, settle

pytestmark = pytest.mark.slow  # studio solves: python -m pytest --all runs them


def no_studio_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith(THREAD_PREFIX)]


# -- the scheduler on its own ----------------------------------------------------------------------
def test_scheduler_debounces_and_newest_wins():
    ran, started = [], threading.Event()

    def run(job, cancel):
        ran.append(job)
        started.set()

    s = SolveScheduler(run, debounce=0.1)
    for i in range(20):
        s.submit(i)
    assert s.wait_idle(5)
    assert ran == [19]
    assert s.close()
    assert s.thread is None or not s.thread.is_alive()


def test_scheduler_interrupts_a_superseded_job():
    seen = []

    def run(job, cancel):
        t0 = time.monotonic()
        cancel.wait(10)
        seen.append((job, cancel.is_set(), time.monotonic() - t0))

    s = SolveScheduler(run, debounce=0.0)
    s.submit("slow")
    time.sleep(0.2)
    s.submit("next")
    time.sleep(0.2)
    s.cancel()
    assert s.wait_idle(5)
    assert seen[0][0] == "slow" and seen[0][1] and seen[0][2] < 1
    assert s.close()


def test_background_queue_replaces_its_plan():
    done = []

    def run(item, cancel):
        time.sleep(0.02)
        done.append(item)

    q = BackgroundQueue(run)
    q.set_plan(list(range(5)))
    q.set_plan(["a", "b"])
    assert q.wait_idle(5)
    assert done[-2:] == ["a", "b"] and len(done) <= 3
    assert q.close()


# -- solving -------------------------------------------------------------------------------------
def test_first_card_settles_and_is_honest(make, small):
    c = make()
    settle(c)
    card = c.card
    assert card is not None and card.status in ("optimal", "time_limit")
    assert c.status.state == card.status
    # the line is the card's status in the user's units; solver figures only in the details
    described = describe(card)
    assert c.status.text == described.headline and c.status.proven == described.proven
    assert c.status.details == details_text(described) and "objective" in c.status.details
    assert "objective" not in c.status.text and "gap" not in c.status.text
    if card.status != "optimal":
        assert "no bound" not in c.status.text and (
            "proven" in c.status.text or NO_BOUND in c.status.text
        )
    assert c.history[-1].card is card and c.history[-1].spec == c.spec
    X, y = small
    m = card.metrics(X, y)
    assert (m.tp, m.fp, m.tn, m.fn) == (
        card.train_metrics.tp,
        card.train_metrics.fp,
        card.train_metrics.tn,
        card.train_metrics.fn,
    )


def test_max_fpr_change_resolves_under_the_cap(make):
    c = make()
    settle(c)
    c.update(max_fpr=0.05)
    assert c.status.state == "solving"
    settle(c)
    assert c.card.spec.max_fpr == 0.05
    assert c.card.train_metrics.fpr <= 0.05 + 1e-12
    assert sw.check_card(c.card, c.data, c.spec) == []


def test_cache_makes_going_back_instant(make):
    c = make()
    settle(c)
    first = c.card
    c.update(max_size=2)
    settle(c)
    solves = c.solve_count
    t0 = time.perf_counter()
    c.update(max_size=None)
    assert time.perf_counter() - t0 < 0.5
    assert c.status.state != "solving" and c.card is first  # shown at once, from the cache
    assert c.history[-1].action == "cache"
    assert c.solve_count == solves


def test_storm_of_updates_ends_on_the_last_spec_and_never_shows_stale_cards(make):
    c = make(debounce=0.15)
    settle(c)
    shown = []

    def listen(events):
        if "card" in events and c.card is not None:
            shown.append((c.spec.key(), c.card.spec.key(), c.status.state, c.card))

    c.subscribe(listen)
    caps = [round(0.02 + 0.01 * i, 2) for i in range(30)]
    runs_before = c.core.scheduler.runs
    for cap in caps:
        c.update(max_fpr=cap)
        time.sleep(0.005)
    settle(c)
    assert c.card.spec.max_fpr == caps[-1]
    assert c.spec.max_fpr == caps[-1]
    assert c.core.scheduler.runs - runs_before <= 3  # debounced: not one solve per move
    last = c.spec.key()
    # a settled card always belongs to the spec of the moment; incumbents stream only for it
    for current, of_card, state, card in shown:
        if state != "solving":
            assert of_card == current
        elif card.status == "feasible":
            assert of_card == current
    assert shown[-1][1] == last
    assert [h.spec.max_fpr for h in c.history[-1:]] == [caps[-1]]


def test_superseded_solve_is_interrupted(small):
    X, y = load_demo(n_features=10)
    c = Controller(X, y, time_limit=60, frontier=False, debounce=0.0)
    try:
        deadline = time.monotonic() + 10
        while c.card is None and time.monotonic() < deadline:
            time.sleep(0.02)
        if c.status.state != "solving":  # the 10-feature demo takes seconds to prove, here less
            pytest.skip("the first solve settled before it could be superseded")
        c.update(time_limit=0.5, max_size=1)
        settle(c, 50)  # a guard against a hang, below the superseded solve's 60 s
        assert c.core.scheduler.interrupted >= 1, "the superseded 60 s solve was not interrupted"
        assert c.card.spec.max_size == 1
        assert all(
            h.spec.time_limit == 0.5 for h in c.history
        )  # the interrupted solve never settled
    finally:
        assert c.close()
    assert no_studio_threads() == []


def test_incumbents_stream_while_solving(small):
    X, y = load_demo(n_features=10)
    c = Controller(X, y, time_limit=3, frontier=False)
    seen = []
    c.subscribe(lambda ev: seen.append((c.status.state, c.card.status if c.card else None)))
    try:
        settle(c)
    finally:
        c.close()
    assert ("solving", "feasible") in seen  # at least one incumbent was shown before the end
    assert seen[-1][0] in ("optimal", "time_limit")


def test_infeasible_names_the_clash_and_keeps_the_previous_state(make):
    c = make()
    settle(c)
    before_spec, before_card, undo_depth = c.spec, c.card, c.core.undo.cursor
    events = []
    c.subscribe(events.append)
    c.update(max_fpr=0.0, min_tpr=1.0)
    settle(c)
    assert c.status.state == "infeasible"
    assert set(c.status.conflicts) == {"max_fpr=0", "min_tpr=1"}
    assert "max_fpr=0" in c.status.text and "min_tpr=1" in c.status.text
    assert (
        c.history[-1].card is None and c.history[-1].spec.min_tpr == 1.0
    )  # the failure is on record
    # ... and the previous card and settings are back on screen, with the error in place
    assert c.card is before_card and c.spec == before_spec and c.core.undo.cursor == undo_depth
    assert (
        c.notice_level == "error"
        and c.notice == "these settings have no card: kept the previous card and settings"
    )
    assert any(
        "spec" in e for e in events[1:]
    )  # the controls are told to show the old settings again


def test_contradictory_options_raise_at_once(make):
    c = make()
    settle(c)
    before = c.spec
    names = list(c.data.feature_names)
    with pytest.raises(ValueError, match="max_size=2"):
        c.update(require=names[:3], max_size=2)
    assert c.spec == before and c.status.state != "solving"


def test_invalid_values_raise_at_once_and_change_nothing(make):
    c = make()
    settle(c)
    before = c.spec
    with pytest.raises(ValueError):
        c.update(max_fpr=1.5)
    with pytest.raises(ValueError):
        c.set_feature(c.data.feature_names[0], sign="up")
    assert c.spec == before


def test_feature_panel_settings_reach_the_spec(make):
    c = make()
    settle(c)
    a, b, d, e = c.data.feature_names[:4]
    c.set_feature(a, use="exclude")
    c.set_feature(b, sign="-")
    c.set_feature(d, penalty=0.5)
    c.set_feature(e, points_range=(0, 3))
    settle(c)
    s = c.spec
    assert (
        a in s.exclude
        and s.signs[b] == "-"
        and s.penalties[d] == 0.5
        and tuple(s.coef_ranges[e]) == (0, 3)
    )
    assert (
        c.feature(a).use == "exclude"
        and c.feature(b).sign == "-"
        and c.feature(e).points_range == (0, 3)
    )
    coefs = dict(zip(c.card.feature_names, c.card.coefficients))
    assert coefs[a] == 0 and coefs[b] <= 0 and 0 <= coefs[e] <= 3
    c.set_feature(a, use="require")
    settle(c)
    assert dict(zip(c.card.feature_names, c.card.coefficients))[a] != 0
    c.set_feature(d, penalty=None)
    assert d not in c.spec.penalties


def test_edit_reevaluates_without_solving(make, small):
    c = make()
    settle(c)
    solved = c.card
    name = c.data.feature_names[0]
    old = dict(zip(solved.feature_names, solved.coefficients))[name]
    solves = c.solve_count
    edited = c.edit({name: old + 3})
    assert c.solve_count == solves and c.status.state == "edited"
    assert edited.status == "edited" and c.card is edited and c.base_card is solved
    X, y = small
    m = edited.metrics(X, y)
    assert (m.tp, m.fp) == (edited.train_metrics.tp, edited.train_metrics.fp)
    cost = c.edit_cost()
    assert math.isclose(
        cost["error"], 100 * (edited.train_metrics.error - solved.train_metrics.error)
    )
    assert (
        c.status.text.startswith("edited (not optimized) · error ")
        and "vs the solved card" in c.status.text
    )
    # the threshold too, and edits accumulate against the same solved card
    c.edit(threshold=edited.threshold + 1)
    assert c.card.threshold == edited.threshold + 1 and c.base_card is solved
    assert dict(zip(c.card.feature_names, c.card.coefficients))[name] == old + 3
    assert [h.action for h in c.history[-2:]] == ["edit", "edit"]
    with pytest.raises(TypeError):
        c.edit({name: 1.5})


def test_lock_turns_an_edit_into_a_constraint(make):
    c = make()
    settle(c)
    name = c.data.feature_names[1]
    c.edit({name: 4})
    c.lock(name)
    assert c.spec.lock == {name: 4}
    settle(c)
    assert c.card.status != "edited"
    assert dict(zip(c.card.feature_names, c.card.coefficients))[name] == 4
    assert c.history[-1].action == "lock"
    c.unlock(name)
    assert c.spec.lock == {}


def test_undo_redo_walk_the_history(make):
    c = make()
    settle(c)
    s0, k0 = c.spec, c.card
    c.update(max_size=1)
    settle(c)
    s1, k1 = c.spec, c.card
    name = c.data.feature_names[0]
    k2 = c.edit({name: k1.points.get(name, 0) + 1})
    assert c.undo() and c.card is k1 and c.spec == s1
    assert c.undo() and c.card is k0 and c.spec == s0
    assert not c.undo()
    assert c.redo() and c.card is k1
    assert c.redo() and c.card is k2 and c.status.state == "edited"
    assert not c.redo()
    assert [h.action for h in c.history][-4:] == ["undo", "undo", "redo", "redo"]
    # a new action after an undo drops the redo tail
    c.undo()
    c.update(max_size=2)
    assert not c.can_redo


def test_undo_while_solving_abandons_the_pending_solve(make):
    c = make(debounce=0.5)
    settle(c)
    k0 = c.card
    c.update(max_size=1)
    assert c.status.state == "solving"
    assert c.undo()
    assert c.card is k0 and c.spec.max_size is None and c.status.state != "solving"
    time.sleep(0.8)
    assert c.card is k0  # the abandoned solve never shows up


def test_export_every_format_and_reload(make, tmp_path):
    c = make()
    settle(c)
    card = c.card
    for fmt in ("json", "html", "latex", "markdown", "python"):
        path, line = c.export(fmt, tmp_path / f"card.{fmt}")
        assert path.exists() and path.stat().st_size > 0
        assert str(path) in line
    path, line = c.export("json", tmp_path / "card.json")
    assert line == f"import slimwidgets; card = slimwidgets.ScoringSystem.from_json({str(path)!r})"
    ns = {}  # the line runs as shown, whatever the notebook imported
    exec(line, ns)
    assert ns["card"].points == card.points and ns["card"].threshold == card.threshold
    path, line = c.export("python", tmp_path / "card.py")
    ns = {}
    exec(line, ns)
    row = dict(zip(card.feature_names, [1] * len(card.feature_names)))
    assert bool(ns["predict"](row)) == bool(sum(card.coefficients) >= card.threshold)
    # an edited card exports as edited
    c.edit({c.data.feature_names[0]: 7})
    path, _ = c.export("json", tmp_path / "edited.json")
    assert sw.ScoringSystem.from_json(str(path)).status == "edited"
    with pytest.raises(ValueError):
        c.export("pdf")


def test_load_a_card_or_a_spec(make, small):
    c = make()
    settle(c)
    first = c.card
    other = sw.fit(*small, max_size=1, time_limit=1)
    generation = c.generation
    c.load(other)
    assert c.card is other and c.spec == other.spec and c.history[-1].action == "load"
    assert c.generation == generation + 1  # a solve still running for the old spec is not shown
    c.load(first.spec.key())  # a spec key, as a clicked chart point sends it
    assert c.card is first and c.status.state != "solving"


def test_frontier_and_path_fill_in_through_the_cache(small):
    c = Controller(*small, time_limit=0.5, fpr_caps=(0.05, 0.2), max_path_size=2)
    try:
        settle(c)
        assert c.wait_background(60)
        f, p = c.frontier_points(), c.path_points()
        assert sorted(f["cap"].dropna()) == [0.05, 0.2] and f["cap"].isna().sum() == 1
        assert list(p["max_size"]) == [1, 2]
        for row in f.itertuples():
            if row.cap is not None and not (isinstance(row.cap, float) and math.isnan(row.cap)):
                assert row.fpr <= row.cap + 1e-12
        assert (p["size"] <= p["max_size"]).all()
        # clicking a point loads its card from the cache, at once
        key = f.loc[f["cap"] == 0.05, "key"].iloc[0]
        solves = c.solve_count
        c.load(key)
        assert (
            c.status.state != "solving" and c.card.spec.max_fpr == 0.05 and c.solve_count == solves
        )
        tpr = f.loc[f["cap"] == 0.05, "tpr"].iloc[0]
        assert c.card.train_metrics.tpr == tpr
    finally:
        assert c.close()


def test_card_roc_matches_brute_force(make):
    c = make()
    settle(c)
    card, d = c.card, c.data
    roc = card_roc(card, d)
    scores = d.X @ np.asarray(card.coefficients, float)
    pos = d.y == 1
    for t, fpr, tpr in zip(roc.threshold, roc.fpr, roc.tpr):
        pred = card.predicts_positive(scores - t)  # "score >= t" (the card's own rule)
        assert math.isclose(tpr, d.weight[pred & pos].sum() / d.weight[pos].sum())
        assert math.isclose(fpr, d.weight[pred & ~pos].sum() / d.weight[~pos].sum())
    own = roc[roc.current].iloc[0]
    m = train_metrics(card, d)
    assert math.isclose(own.tpr, m.tpr) and math.isclose(own.fpr, m.fpr)
    assert (roc.fpr.iloc[0], roc.tpr.iloc[0]) == (0.0, 0.0) and (
        roc.fpr.iloc[-1],
        roc.tpr.iloc[-1],
    ) == (1.0, 1.0)


def test_close_leaves_no_thread(small):
    # the one-off compiles (or loads from numba's cache) cannot be stopped and take seconds on a
    # busy machine: they are done first, so what is tested is the studio's own threads
    for warmup in (SearchWarmup(), RiskWarmup()):
        warmup.start()
        assert warmup.join(600)
    before = {t.ident for t in threading.enumerate()}
    c = Controller(*small, time_limit=30, fpr_caps=(0.1,), max_path_size=1)
    time.sleep(0.5)
    assert c.threads()
    assert c.close(5)
    time.sleep(0.2)
    left = [t for t in threading.enumerate() if t.ident not in before]
    assert left == [], f"threads left running: {[t.name for t in left]}"
    with pytest.raises(RuntimeError):
        c.update(max_size=1)


def test_idle_workers_end_by_themselves(small):
    c = Controller(*small, time_limit=0.5, frontier=False)
    c.core.scheduler.idle_exit = 0.3
    settle(c)
    deadline = time.monotonic() + 5
    while c.threads() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert c.threads() == []
    c.update(max_size=1)  # and come back on demand
    settle(c)
    assert c.card.spec.max_size == 1
    c.close()


# -- the widget layer, driven as the front end does ------------------------------------------------


@pytest.fixture
def studio(small):
    from slimwidgets.widgets import Studio

    s = Studio(*small, time_limit=1.0, frontier=False)
    yield s
    s.close()
    assert s.controller.closed


def assert_views_agree(st):
    """Every number the views are sent comes from studio.scoring_system."""
    card = st.scoring_system
    payload = st.card_view.card
    assert st.card_view.status["text"] == st.controller.status.text
    if card is None:
        assert payload is None
        return
    coefs = dict(zip(card.feature_names, card.coefficients))
    assert payload["threshold"] == card.threshold and payload["rule"] == card.rule == ">="
    assert {r["name"]: r["points"] for r in payload["rows"]} == coefs
    assert [r["name"] for r in payload["rows"][: card.size]] == list(card.points)
    m = card.train_metrics
    assert (
        f"TPR {100 * m.tpr:.1f} %" in payload["metrics_text"]
        and f"FPR {100 * m.fpr:.1f} %" in payload["metrics_text"]
    )
    point = st.roc_view.datasets["card"][0]
    assert math.isclose(point["tpr"], m.tpr) and math.isclose(point["fpr"], m.fpr)
    assert st.path_view.datasets["path_card"][0]["error"] == pytest.approx(m.error)


def test_studio_renders_the_solved_card(studio):
    assert studio.wait(30)
    assert_views_agree(studio)
    assert studio.roc_view.spec["layer"] and studio.path_view.spec["layer"]
    assert all("values" not in layer["data"] for layer in studio.roc_view.spec["layer"])
    assert studio.history[-1].card is studio.scoring_system


def test_studio_slider_storm_via_set_state(studio):
    assert studio.wait(30)
    studio.fpr_none.set_state({"value": False})
    for i in range(30):
        studio.fpr_slider.set_state({"value": 0.05 + 0.01 * i})
    assert studio.wait(30)
    assert studio.scoring_system.spec.max_fpr == pytest.approx(0.34)
    assert studio.card_view.card["max_fpr"] == pytest.approx(0.34)
    assert studio.roc_view.datasets["cap"] == [{"cap": pytest.approx(0.34)}]
    assert_views_agree(studio)


def test_studio_controls_reach_the_spec(studio):
    assert studio.wait(30)
    name = studio.controller.data.feature_names[0]
    studio.feature_rows[name]["use"].set_state({"index": 1})  # selection widgets sync an index
    studio.size_none.set_state({"value": False})
    studio.size_slider.set_state({"value": 2})
    studio.c0_text.set_state({"value": "0.01"})
    studio.range_slider.set_state({"value": [-5, 5]})
    studio.time_text.set_state({"value": 0.5})
    assert studio.wait(30)
    s = studio.spec
    assert (
        name in s.exclude
        and s.max_size == 2
        and s.C0 == 0.01
        and tuple(s.coef_range) == (-5, 5)
        and s.time_limit == 0.5
    )
    studio.c0_text.set_state({"value": "lots"})
    assert "C0 must be" in studio.message.value and studio.c0_text.value == "0.01"
    assert_views_agree(studio)


def test_studio_edit_lock_undo_via_the_table(studio, tmp_path):
    assert studio.wait(30)
    solved = studio.scoring_system
    name = studio.controller.data.feature_names[2]
    assert send(studio.card_view, "edit", feature=name, value=5)["ok"]
    edited = studio.scoring_system
    assert (
        edited.status == "edited"
        and dict(zip(edited.feature_names, edited.coefficients))[name] == 5
    )
    row = next(r for r in studio.card_view.card["rows"] if r["name"] == name)
    against = (
        "optimum" if solved.status == "optimal" else "the solved card"
    )  # "optimum" only when proven
    assert row["edited"] and studio.card_view.card["cost_text"].startswith(f"edit vs {against}:")
    assert studio.card_view.status["state"] == "edited"
    assert_views_agree(studio)
    assert send(studio.card_view, "lock", feature=name)["ok"]
    assert studio.spec.lock == {name: 5}
    assert studio.wait(30)
    assert (
        dict(zip(studio.scoring_system.feature_names, studio.scoring_system.coefficients))[name]
        == 5
    )
    row = next(r for r in studio.card_view.card["rows"] if r["name"] == name)
    assert row["locked"] == 5
    studio.undo_button.click()
    assert studio.scoring_system is edited and studio.spec.lock == {}
    studio.undo_button.click()
    assert studio.scoring_system is solved
    assert_views_agree(studio)
    studio.redo_button.click()
    assert studio.scoring_system is edited
    # a refused edit leaves the table showing the truth
    refused = send(studio.card_view, "edit", feature="no such feature", value=1)
    assert "unknown feature" in studio.message.value and "unknown feature" in refused["error"]
    assert_views_agree(studio)
    # export from the toolbar shows the line that reloads the file
    studio.export_format.set_state({"index": 0})
    studio.export_path.set_state({"value": str(tmp_path / "studio.json")})
    studio.export_button.click()
    assert "from_json" in studio.message.value
    assert sw.ScoringSystem.from_json(str(tmp_path / "studio.json")).points == edited.points


def test_studio_chart_click_loads_that_card(small):
    from slimwidgets.widgets import Studio

    st = Studio(*small, time_limit=0.5, debounce=0.05)
    st.controller.fpr_caps = (0.1,)
    st.controller.max_path_size = 1
    try:
        assert st.wait(30)
        st.controller.set_spec(st.spec)  # re-plan with the smaller plan
        assert st.controller.wait_background(60)
        assert st.roc_view.datasets["frontier"] and st.path_view.datasets["path"]
        key = st.roc_view.datasets["frontier"][0]["key"]
        assert send(st.roc_view, "load", key=key)["ok"]
        assert st.scoring_system.spec.key() == key and st.fpr_slider.value == pytest.approx(
            st.scoring_system.spec.max_fpr or 0.2
        )
        assert st.controller.wait_background(60)  # the path of the loaded card's cap fills in
        key = st.path_view.datasets["path"][0]["key"]
        assert send(st.path_view, "load", key=key)["ok"]
        assert (
            st.scoring_system.spec.max_size == 1
            and st.size_slider.value == 1
            and not st.size_none.value
        )
        assert_views_agree(st)
    finally:
        st.close()
    assert no_studio_threads() == []


def test_chart_builders_are_pure_and_split_cleanly():
    import pandas as pd

    from slimwidgets.widgets import charts

    frontier = pd.DataFrame(
        {
            "key": ["k"],
            "cap": [0.1],
            "tpr": [0.5],
            "fpr": [0.08],
            "error": [0.2],
            "size": [2],
            "status": ["optimal"],
        }
    )
    a = charts.roc_chart(frontier, None, None, pd.DataFrame({"cap": [0.1]}))
    b = charts.roc_chart(frontier, None, None, pd.DataFrame({"cap": [0.1]}))
    assert a.to_dict() == b.to_dict()
    spec, data = charts.split_datasets(a)
    assert set(data) == {"cap", "roc", "frontier", "card"} and data["frontier"][0]["key"] == "k"
    assert json.dumps(spec).count('"values"') == 0
    empty_spec, _ = charts.split_datasets(charts.roc_chart(None, None, None, None))
    assert empty_spec == spec  # the structure does not depend on the data
    nan = pd.DataFrame(
        {
            "key": ["k"],
            "cap": [float("nan")],
            "tpr": [0.5],
            "fpr": [0.1],
            "error": [0.2],
            "size": [1],
            "status": ["optimal"],
        }
    )
    assert charts.roc_datasets(nan, None, None, None)["frontier"][0]["cap"] is None


# -- issue #10: nothing lost silently --------------------------------------------------------------
def test_required_features_plan_the_path_from_their_number(small):
    """Two required features: no false "max_size=1 but 2 features are required",
    and the path fills in."""
    c = Controller(*small, time_limit=0.5, fpr_caps=(0.1,), max_path_size=3)
    try:
        settle(c)
        a, b = c.data.feature_names[:2]
        c.update(require=[a, b])  # used to raise after applying the change
        c.update(max_fpr=0.2)  # and so did every later change
        settle(c)
        assert c.status.state in ("optimal", "time_limit") and c.card.spec.require == (a, b)
        assert [p for kind, _, p in c.sweep_views._plan_now if kind == "size"] == [2, 3]
        assert c.wait_background(60)
        assert list(c.path_points()["max_size"]) == [2, 3]
    finally:
        assert c.close()


def test_a_refused_update_changes_nothing(make):
    c = make()
    settle(c)
    before, card, entries = c.spec, c.card, len(c.history)
    a, b, d = c.data.feature_names[:3]
    with pytest.raises(ValueError, match="max_size=2"):
        c.update(
            lock={a: 1, b: 1, d: 1}, max_size=2
        )  # three features forced in, at most two allowed
    assert (
        c.spec == before
        and c.card is card
        and c.status.state != "solving"
        and len(c.history) == entries
    )


def test_solved_for_lists_every_active_constraint():
    from slimwidgets.core.spec import at_most, make_spec, needs
    from slimwidgets.widgets.controller import describe_spec

    spec = make_spec(
        max_fpr=0.2,
        min_tpr=0.8,
        max_size=4,
        C0=0.01,
        coef_range=(-5, 5),
        exclude=["e"],
        require=["r"],
        signs={"s": "-"},
        penalties={"p": 0.5},
        lock={"l": 3},
        coef_ranges={"q": (0, 3)},
        constraints=[needs("n", "m"), at_most(1, ["u", "v"])],
        class_weights="balanced",
        time_limit=5,
    )
    text = describe_spec(spec)
    for part in (
        "max FPR 20 %",
        "min TPR 80 %",
        "size ≤ 4",
        "C0 0.01",
        "points −5…5",
        "exclude e",
        "require r",
        "sign s −",
        "penalty p 0.5",
        "lock l = 3",
        "points of q 0…3",
        "n needs m",
        "at most 1 of u, v",
        "class weights balanced",
        "limit 5 s",
    ):
        assert part in text, (part, text)
    assert describe_spec(make_spec()) == "solved for: C0 auto · points −10…10"


def test_lock_of_an_excluded_feature_says_what_it_dropped(make):
    c = make()
    settle(c)
    a = c.data.feature_names[0]
    c.set_feature(a, use="exclude")
    settle(c)
    c.edit({a: 3})
    c.lock(a)
    assert c.spec.lock == {a: 3} and a not in c.spec.exclude
    assert c.notice == f"locked {a!r} at 3 points: dropped its exclusion"
    settle(c)
    c.set_feature(a, use="exclude")  # and the other way round
    assert a in c.spec.exclude and a not in c.spec.lock
    assert c.notice == f"excluded {a!r}: dropped its lock at 3 points"
    # a lock its sign forbids is refused, and nothing changes
    b = c.data.feature_names[1]
    c.set_feature(b, sign="+")
    settle(c)
    before = c.spec
    with pytest.raises(ValueError, match="sign"):
        c.lock(b, -2)
    assert c.spec == before


def test_loading_a_card_that_breaks_a_lock_says_what_changed(make):
    c = make()
    settle(c)
    first = c.card
    name = c.data.feature_names[0]
    value = first.points.get(name, 0) + 1
    c.lock(name, value)
    settle(c)
    c.load(first.spec.key())  # e.g. a frontier point drawn before the lock
    assert c.card is first and name not in c.spec.lock
    assert f"dropped lock {name} = {value}" in c.notice
    c.load(c.history[-2].spec)  # back to the locked card: the lock is added again
    assert f"added lock {name} = {value}" in c.notice


def test_a_penalty_that_changes_nothing_says_so(make):
    c = make(max_size=2)
    settle(c)
    card = c.card
    unused = next(n for n in c.data.feature_names if n not in card.points)
    c.set_feature(unused, penalty=0.5)
    settle(c)
    assert c.card.points == card.points
    assert c.notice == f"the penalty of {unused!r} (0.5) changed nothing: the card is the same"
    used = next(iter(card.points))
    c.set_feature(used, penalty=5.0)  # far above what the feature is worth: the card changes
    settle(c)
    assert used not in c.card.points and c.notice == ""


def test_one_edit_is_one_undo_step(make):
    """Enter in a point cell sends the same edit twice (its own change event,
    then the browser's on blur):
    the second records nothing."""
    c = make()
    settle(c)
    solved = c.card
    name = c.data.feature_names[0]
    value = solved.points.get(name, 0) + 2
    entries = len(c.history)
    edited = c.edit({name: value})
    assert c.edit({name: value}) is edited
    assert len(c.history) == entries + 1
    assert c.undo() and c.card is solved


def test_edits_supersede_a_running_solve():
    X, y = load_demo(n_features=10)
    c = Controller(X, y, time_limit=60, frontier=False, debounce=0.0)
    try:
        deadline = time.monotonic() + 20
        while c.card is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert c.status.state == "solving" and c.card is not None  # an incumbent is on screen
        incumbent = c.card
        name = c.data.feature_names[0]
        edited = c.edit({name: incumbent.points.get(name, 0) + 1})
        assert c.status.state == "edited" and c.base_card is incumbent
        assert c.notice == "the edit stopped the running solve"
        assert c.core.scheduler.wait_idle(10) and c.core.scheduler.interrupted >= 1
        assert c.card is edited  # the stopped solve never replaces the edit
    finally:
        assert c.close()


def test_throttle_delivers_at_most_one_per_interval_and_always_the_last():
    from slimwidgets.widgets.scheduler import Throttle

    now, timers, got = [0.0], [], []

    class FakeTimer:
        def __init__(self, delay, fn):
            self.at, self.fn, self.cancelled = now[0] + delay, fn, False
            timers.append(self)

        def cancel(self):
            self.cancelled = True

    t = Throttle(got.append, 0.25, clock=lambda: now[0], start_timer=FakeTimer)
    for i in range(20):  # 20 incumbents in 0.19 s
        t.offer(i)
        now[0] += 0.01
    assert got == [0] and len(timers) == 1 and timers[0].at == pytest.approx(0.25)
    now[0] = timers[0].at
    timers[0].fn()
    assert got == [0, 19]  # the newest one, when the interval is up
    t.offer(20)  # within the interval again: waits
    assert got == [0, 19]
    t.stop()  # the final card replaces it
    assert timers[-1].cancelled and got == [0, 19]
    t.offer(21)
    assert got == [0, 19]


def test_incumbents_reach_the_view_through_the_throttle():
    X, y = load_demo(n_features=10)
    c = Controller(X, y, time_limit=3, frontier=False, start=False)
    c.incumbent_interval = 3600.0  # one incumbent, then only the settled card
    shown = []
    c.subscribe(lambda ev: "card" in ev and shown.append((c.status.state, c.card)))
    try:
        c.set_spec(c.spec)
        settle(c)
    finally:
        assert c.close()
    assert len([s for s, card in shown if s == "solving" and card is not None]) <= 1
    assert shown[-1][0] in ("optimal", "time_limit")
    assert no_studio_threads() == []


def test_reload_line_runs_as_shown_with_any_path(make, tmp_path, monkeypatch):
    c = make()
    settle(c)
    odd = tmp_path / 'it\'s "odd"; import os.json'
    for fmt in ("json", "html", "markdown", "python", "latex"):
        _, line = c.export(fmt, odd.with_suffix(".x" + fmt))
        if fmt in ("html", "markdown"):
            pytest.importorskip("IPython")
        ns: dict = {}
        exec(line, ns)  # runs as shown in an empty namespace
    _, line = c.export("json", odd)
    ns = {}
    exec(line, ns)
    assert ns["card"].points == c.card.points
    monkeypatch.chdir(tmp_path)  # a relative name that looks like JSON text is still read as a file
    _, line = c.export("json", '{"a": 1}.json')
    ns = {}
    exec(line, ns)
    assert ns["card"].points == c.card.points


def test_export_into_a_missing_folder_says_so_and_changes_nothing(make, tmp_path):
    c = make()
    settle(c)
    card, entries = c.card, len(c.history)
    with pytest.raises(OSError, match="does not exist"):
        c.export("json", tmp_path / "no such folder" / "card.json")
    assert c.card is card and len(c.history) == entries


# -- issue #10: held-out truth ---------------------------------------------------------------------
def test_validation_figures_next_to_training_figures(small, tmp_path):
    X, y = small
    X_tr, y_tr, X_va, y_va = X.iloc[:400], y.iloc[:400], X.iloc[400:], y.iloc[400:]
    c = Controller(
        X_tr,
        y_tr,
        validation=(X_va[list(X.columns[::-1])], y_va),
        time_limit=0.5,
        fpr_caps=(0.1,),
        max_path_size=2,
    )
    try:
        settle(c)
        card = c.card
        m = card.metrics(X_va, y_va)
        v = card.validation_metrics
        assert (v.tp, v.fp, v.tn, v.fn) == (
            m.tp,
            m.fp,
            m.tn,
            m.fn,
        )  # columns in another order are matched by name
        assert c.history[-1].validation_metrics is v and "validation: error" in repr(c.history[-1])
        path, _ = c.export("json", tmp_path / "card.json")
        again = sw.ScoringSystem.from_json(str(path))
        assert again.validation_metrics == v
        assert "validation: error" in card.to_text()
        assert c.wait_background(60)
        f = c.chart_frames()
        assert list(f["card"]["set"]) == ["train", "validation"]
        assert f["card"]["tpr"].iloc[1] == pytest.approx(v.tpr)
        front = f["frontier"]
        assert set(front["set"]) == {"train", "validation"}
        assert (
            (front["set"] == "train").sum()
            == (front["set"] == "validation").sum()
            == len(c.frontier_points())
        )
        for key, rows in front.groupby("key"):
            loaded = c.core.cache[key]
            val = rows[rows["set"] == "validation"].iloc[0]
            assert val["tpr"] == pytest.approx(loaded.validation_metrics.tpr)
        c.edit({c.data.feature_names[0]: 9})  # edited cards are measured on both sets at once
        assert c.card.validation_metrics == c.card.metrics(X_va, y_va)
    finally:
        assert c.close()


def test_holdout_is_a_stratified_reproducible_split(small):
    X, y = small
    a = Controller(X, y, holdout=0.25, random_state=0, frontier=False, start=False)
    b = Controller(X, y, holdout=0.25, random_state=0, frontier=False, start=False)
    try:
        assert a.validation.n_samples == math.ceil(
            0.25 * len(y)
        ) and a.data.n_samples + a.validation.n_samples == len(y)
        share = float(np.mean(y))
        val_share = a.validation.weight[a.validation.y == 1].sum() / a.validation.n_samples
        assert abs(val_share - share) < 0.01  # stratified: the class balance is kept
        assert np.array_equal(a.validation.X, b.validation.X) and np.array_equal(
            a.validation.weight, b.validation.weight
        )
    finally:
        a.close()
        b.close()


def test_bad_validation_data_is_refused_clearly(small):
    X, y = small
    with pytest.raises(ValueError, match="missing"):
        Controller(X, y, validation=(X.drop(columns=X.columns[0]), y), start=False)
    with pytest.raises(ValueError, match="not the training labels"):
        Controller(X, y, validation=(X, y.map({True: "yes", False: "no"})), start=False)
    with pytest.raises(ValueError, match="validation data: .*one class"):
        Controller(X, y, validation=(X[y], y[y]), start=False)
    with pytest.raises(TypeError, match="not both"):
        Controller(X, y, validation=(X, y), holdout=0.2, start=False)
    with pytest.raises(ValueError, match="holdout"):
        Controller(X, y, holdout=1.5, start=False)


# -- issue #10 in the widget -----------------------------------------------------------------------
def test_studio_min_tpr_control_and_the_solved_for_line(studio):
    assert studio.wait(30)
    name = studio.controller.data.feature_names[0]
    studio.feature_rows[name]["use"].set_state({"index": 1})  # exclude
    studio.tpr_none.set_state({"value": False})
    studio.tpr_slider.set_state({"value": 0.9})
    assert studio.wait(30)
    assert studio.spec.min_tpr == pytest.approx(0.9) and name in studio.spec.exclude
    assert studio.scoring_system.train_metrics.tpr >= 0.9 - 1e-12
    text = studio.card_view.card["spec_text"]
    assert "min TPR 90 %" in text and f"exclude {name}" in text
    studio.undo()
    assert studio.tpr_none.value and studio.tpr_slider.disabled  # the control shows the undone spec


def test_studio_failed_export_replaces_the_old_message(studio, tmp_path):
    assert studio.wait(30)
    studio.export_path.set_state({"value": str(tmp_path / "card.json")})
    studio.export_button.click()
    assert "wrote" in studio.message.value
    card = studio.scoring_system
    studio.export_path.set_state({"value": str(tmp_path / "missing" / "card.json")})
    studio.export_button.click()
    assert "wrote" not in studio.message.value and "does not exist" in studio.message.value
    assert studio.scoring_system is card


def test_studio_enter_twice_is_one_undo_step_and_cells_stay_editable(studio):
    assert studio.wait(30)
    solved = studio.scoring_system
    name = studio.controller.data.feature_names[3]
    value = solved.points.get(name, 0) + 2
    for _ in ("enter", "change"):  # what the cell sends for one edit committed with Enter
        send(studio.card_view, "edit", feature=name, value=value)
    studio.undo_button.click()
    assert studio.scoring_system is solved
    studio.controller.update(max_size=2)
    assert studio.controller.status.state == "solving" and studio.card_view.card["editable"]


def test_studio_shows_train_and_validation_side_by_side(small):
    from slimwidgets.widgets import Studio

    X, y = small
    st = Studio(X, y, holdout=0.25, random_state=0, time_limit=0.5, frontier=False)
    try:
        assert st.wait(30)
        card = st.scoring_system
        payload = st.card_view.card
        assert [r["set"] for r in payload["metrics"]] == ["train", "validation"]
        assert payload["metrics"][1]["tpr"] == pytest.approx(card.validation_metrics.tpr)
        assert "validation: error" in payload["metrics_text"]
        assert [r["set"] for r in st.chart_frames()["card"].to_dict("records")] == [
            "train",
            "validation",
        ]
        assert_views_agree(st)
    finally:
        st.close()


# -- issue #10: the status line in the user's units ------------------------------------------------
def test_status_under_a_cap_speaks_tpr_and_held_out_figures(small):
    X, y = small
    c = Controller(
        X, y, holdout=0.25, random_state=0, max_fpr=0.2, time_limit=1.0, frontier=False, start=False
    )
    states = []
    c.subscribe(lambda ev: states.append(c.status))
    try:
        c.set_spec(c.spec)
        settle(c)
    finally:
        assert c.close()
    card, status = c.card, c.status
    assert status.text.startswith(f"TPR {100 * card.train_metrics.tpr:.1f} % at FPR ")
    assert "held-out TPR" in status.text and status.level in ("ok", "warn")
    assert status.text == describe(card, validation=card.validation_metrics).headline
    for s in states:  # incumbents speak the same language while the solve runs
        if s.state == "solving" and s.text != "solving…":
            assert (
                s.text.startswith("solving… · TPR ")
                and "incumbent" not in s.text
                and "gap" not in s.text
            )
    assert (
        c.status.to_dict()["level"] == status.level
        and c.status.to_dict()["details"] == status.details
    )


def test_a_degenerate_card_is_called_out_and_a_failure_is_red(make):
    c = make()
    settle(c)
    nobody = sw.ScoringSystem(
        c.data.feature_names,
        (0,) * c.data.n_features,
        -1,
        positive=c.data.positive,
        negative=c.data.negative,
        status="optimal",
        spec=c.spec,
    )
    c.load(nobody)  # threshold 1, every total 0: predicts the negative class for everyone
    assert (
        c.status.level == "warn" and "for every training row" in c.status.text and c.status.warning
    )
    c.update(max_fpr=0.0, min_tpr=1.0)
    settle(c)
    assert c.status.state == "infeasible" and c.status.level == "error"


def test_export_report_with_the_held_out_rows(make, tmp_path):
    c = make(holdout=0.25, random_state=0)
    settle(c)
    path, line = c.export("report", tmp_path / "card_report.html")
    doc = path.read_text(encoding="utf-8")
    assert doc.startswith("<!DOCTYPE html>") and "held-out" in doc
    assert (
        f"training ({c.data.n_samples} rows)" in doc
        and f"held-out ({c.validation.n_samples} rows)" in doc
    )
    assert "IPython.display.HTML" in line


def test_a_lost_solver_process_shows_the_best_card_and_says_so(paper_data):
    """The studio's solver child is killed (SIGKILL) mid-solve: the best card so far is shown
    with its status in words, the notice says a new solver process has started, and the card
    is not cached, so the same settings are solved again when asked again."""
    from slimwidgets.solvers.backends import worker
    from slimwidgets.widgets.controller import LOST_SOLVER

    from solver_children import kill_a_busy_child

    if not worker.available():
        pytest.skip("solves run in-process here")
    X, y = paper_data("heart")
    first = threading.Event()
    c = Controller(
        X,
        y,
        C0=0.01,
        solver="highs",
        time_limit=600,
        frontier=False,
        alternatives=False,
        debounce=0.0,
    )
    try:
        c.subscribe(lambda ev: first.set() if c.card is not None else None)
        killer = kill_a_busy_child(first)
        settle(c, 300)
        killer.join(1)
        assert killer.killed, "no busy solver child was found to kill"
        assert c.status.state == "solver_stopped"
        assert "its process was lost" in c.status.text and c.status.level == "warn"
        assert (c.notice, c.notice_level) == (LOST_SOLVER, "warning")
        assert c.card is not None and c.card.status == "solver_stopped"
        assert c.settled_card(c.spec.key()) is None  # not cached: solved again when asked again
    finally:
        assert c.close()


def test_the_controller_keeps_its_state_in_the_core():
    """The spec, rows, status and notice the controller answers for are its core's, which every
    feature object reads: a write through the controller lands there, and closing refuses a
    change asked through a feature."""
    X, y = load_demo(n_features=6)
    c = Controller(X, y, time_limit=3, frontier=False, start=False)
    core = c.core
    assert (c.spec, c.data, c.validation, c.rules, c.card) == (
        core.spec,
        core.data,
        core.validation,
        core.rules,
        core.card,
    )
    c.spec = c.spec.replace(max_size=3)
    assert core.spec.max_size == 3 and c.settings.feature(X.columns[0]).name == X.columns[0]
    c.say("a word", "warning")
    assert (core.notice, core.notice_level) == ("a word", "warning")
    assert c.close() and c.closed and core.closed
    with pytest.raises(RuntimeError, match="closed"):
        c.update(max_size=2)  # the settings feature asks the controller, which is closed
    assert core.spec.max_size == 3
