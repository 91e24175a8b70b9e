"""Cut points you can move, and the card by variable, in the studio's controller (real solves).

A studio from a raw table shows its card as a points table by variable; a band's points are
edited without touching the other bands; each numeric variable's cut points can be typed,
added, moved or removed: the rules are fit again on the training rows, the card re-solves on
them (the same card ``sw.fit`` proves with those cuts), one edit is one undo step, and bad input
is refused, said, with everything as it was.
"""

from __future__ import annotations

import json
import time

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.core.rules import RuleBuilder
from slimwidgets.widgets.controller import Controller
from slimwidgets.widgets.cuts import carry_spec, histogram, parse_cut
from slimwidgets.widgets.solving import SolveCache
from slimwidgets.widgets.variables import band_edit, card_variables

from studio_helpers import raw_clinical, send, settle

raw = raw_clinical


@pytest.fixture
def studio():
    made = []

    def factory(**kw):
        X, y = raw()
        kw = {
            "max_size": 3,
            "cuts": {"age": [50, 60], "bmi": [25, 30]},
            "time_limit": 60,
            "frontier": False,
            "alternatives": False,
            "debounce": 0.0,
            **kw,
        }
        c = Controller(X, y, **kw)
        made.append(c)
        settle(c)
        return c, X, y

    yield factory
    for c in made:
        assert c.close(), "a controller left a worker thread running"


def _state(c):
    return (c.spec.key(), c.card, c.cut_points(), len(c.history), c.core.undo.cursor)


# -- the card by variable --------------------------------------------------------------------------
def test_the_card_by_variable_is_the_exports_grouping(studio):
    c, X, y = studio()
    c.edit(points={"age >= 50": 1, "age >= 60": 2, "bmi missing": 1})
    card = c.card
    shown = [
        (v["variable"], tuple((b["label"], b["points"]) for b in v["bands"]))
        for v in card_variables(card, c.spec)
    ]
    assert shown == card.rules.points_table(card.points)  # what every export prints
    age = next(v for v in card_variables(card, c.spec) if v["variable"] == "age")["bands"]
    assert [(b["label"], b["points"], b["editable"], b["rules"]) for b in age] == [
        ("< 50", 0, False, []),
        ("50–59", 1, True, ["age >= 50"]),
        ("≥ 60", 3, True, ["age >= 60"]),
    ]


def test_a_band_edit_changes_that_band_alone_in_one_undo_step(studio):
    c, X, y = studio()
    c.edit(points={"age >= 50": 1, "age >= 60": 2})
    before, steps = c.card, len(c.history)
    edited = c.edit_band("age", 1, 2, label="50–59")  # 50–59: 1 -> 2; >= 60 keeps its 3
    assert edited.points["age >= 50"] == 2 and edited.points["age >= 60"] == 1
    moved = edited.score(X) - before.score(X)
    in_band = (X.age >= 50) & (X.age < 60)
    assert (moved[in_band] == 1).all() and (
        moved[~in_band] == 0
    ).all()  # on raw rows: that band alone
    assert len(c.history) == steps + 1 and c.card.status == "edited"
    bands = {
        b["label"]: (b["points"], b["edited"])
        for b in card_variables(c.card, c.spec, c.base_card)[0]["bands"]
    }
    assert (
        bands["50–59"] == (2, True) and bands["≥ 60"][0] == 3
    )  # "edited": against the solved card
    c.edit_band("age", 2, 2)  # the top band: its own rule alone, no band above to give back
    assert (
        c.card.points.get("age >= 60", 0) == 0
    )  # the band fell to the one below it: the cut leaves the card
    assert [b["label"] for b in card_variables(c.card, c.spec)[0]["bands"]] == ["< 50", "≥ 50"]
    assert c.card.score(X).equals(before.score(X) + in_band.astype(int) - (X.age >= 60).astype(int))
    c.undo()
    assert c.card is edited


def test_a_band_edit_that_cannot_apply_changes_nothing(studio):
    c, X, y = studio()
    c.edit(points={"age >= 50": 1, "age >= 60": 2})
    kept = _state(c)
    with pytest.raises(ValueError, match="reference band of 'age'"):
        c.edit_band("age", 0, 1)
    with pytest.raises(ValueError, match="changed since 'age' was drawn"):
        c.edit_band("age", 1, 5, label="45–59")
    with pytest.raises(KeyError, match="unknown variable"):
        c.edit_band("height", 1, 5)
    with pytest.raises(TypeError, match="whole numbers"):
        c.edit_band("age", 1, 1.5)
    assert _state(c) == kept


def test_band_edit_of_a_level_or_missing_sets_its_rule():
    b = RuleBuilder(cuts={"bmi": [30]}).fit(pd.DataFrame({"bmi": [22.0, None, 33.0]}))
    card = sw.ScoringSystem(list(b.get_feature_names_out()), [2, 1], -1, rules=b)
    labels = [(label, p) for label, p in card.rules.points_table(card.points)[0][1]]
    assert labels == [("< 30", 0), ("≥ 30", 2), ("missing", 1)]
    assert band_edit(card, "bmi", 2, 3) == {"bmi missing": 3}
    assert band_edit(card, "bmi", 1, 2) == {}


def test_a_variable_lock_fixes_its_bands_for_the_next_solves(studio):
    c, X, y = studio()
    c.edit(points={"age >= 50": 1, "age >= 60": 2})
    c.lock_variable("age")
    settle(c)
    assert c.spec.lock == {"age >= 50": 1, "age >= 60": 2}
    assert (c.card.points.get("age >= 50"), c.card.points.get("age >= 60")) == (1, 2)
    assert card_variables(c.card, c.spec)[0]["locked"] is True
    c.lock_variable("age", False)
    settle(c)
    assert not c.spec.lock


# -- cut points ------------------------------------------------------------------------------------
def test_moving_a_cut_refits_the_rules_and_solves_the_card_fit_proves(studio):
    c, X, y = studio()
    assert c.cut_points() == {"age": [50.0, 60.0], "bmi": [25.0, 30.0]}
    panel = {v["name"]: v for v in c.cut_panel()}
    assert panel["age"]["cuts"] == [50.0, 60.0] and panel["bmi"]["missing"] == int(
        X.bmi.isna().sum()
    )
    assert sum(b["rows"] for b in panel["age"]["bins"]) == len(X)
    assert sum(b["events"] for b in panel["age"]["bins"]) == int(y.sum())
    sex = panel["sex"]  # a variable of levels: its levels with rows and events, and its use
    assert sex["kind"] == "levels" and sex["use"] == "auto" and "cuts" not in sex
    assert {lv["label"]: (lv["rows"], lv["events"]) for lv in sex["levels"]} == {
        k: (int((X.sex == k).sum()), int(y[X.sex == k].sum())) for k in ("F", "M")
    }
    c.set_variable("sex", use="exclude")
    settle(c)
    assert {v["name"]: v["use"] for v in c.cut_panel()}["sex"] == "exclude" and not any(
        n.startswith("sex") for n in c.card.points
    )
    c.undo()
    steps = len(c.history)
    c.move_cut("age", 60, "65")
    settle(c)
    card = c.card
    assert c.rules.rules_of("age") == ["age >= 50", "age >= 65"] and card.rules is c.rules
    assert len(c.history) == steps + 1 and "age" in c.notice and "65" in c.notice
    # the data are the raw rows under the new rules, and the card is the one fit proves on them
    expected = RuleBuilder(cuts={"age": [50, 65], "bmi": [25, 30]}).fit_transform(X)
    assert list(c.data.feature_names) == list(expected.columns)
    proven = sw.fit(X, y, cuts={"age": [50, 65], "bmi": [25, 30]}, max_size=3, time_limit=60)
    assert card.status == proven.status == "optimal"
    assert card.objective == pytest.approx(proven.objective, abs=1e-9)
    assert (
        (card.score(X) > 0) == (card.rules.transform(X)[["age >= 65"]].to_numpy()[:, 0] > 0)
    ).any()


def test_one_cut_edit_is_one_undo_step_and_undo_brings_the_rules_and_card_back(studio):
    c, X, y = studio(holdout=0.25, random_state=0)
    first, first_rules = c.card, c.rules
    c.add_cut("age", 70)
    settle(c)
    second = c.card
    assert c.rules.rules_of("age") == ["age >= 50", "age >= 60", "age >= 70"]
    assert (
        second.validation_metrics.n == first.validation_metrics.n
    )  # held-out rows under the new rules
    assert c.undo()
    assert c.card is first and c.rules is first_rules and c.cut_points()["age"] == [50.0, 60.0]
    assert list(c.data.feature_names) == list(first.feature_names)
    solves = c.solve_count
    assert c.redo()
    assert c.card is second and c.cut_points()["age"] == [50.0, 60.0, 70.0]
    c.remove_cut("age", 70)  # back to the first cuts: their table and its cache, no new solve
    settle(c)
    assert (
        c.card.coefficients == first.coefficients
        and c.rules is first_rules
        and c.solve_count == solves
    )


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda c: c.add_cut("age", "abc"), "“abc” is not a number"),
        (lambda c: c.add_cut("age", "200"), "outside the training values of 'age'"),
        (
            lambda c: c.add_cut("age", "30"),
            "outside the training values of 'age'",
        ),  # the lowest value: constant
        (lambda c: c.add_cut("age", 60), "'age' already has a cut at 60"),
        (lambda c: c.move_cut("age", 50, "60"), "'age' already has a cut at 60"),
        (lambda c: c.move_cut("age", 55, "57"), "'age' has no cut at 55"),
        (lambda c: c.set_cuts("age", []), "'age' needs at least one cut point"),
        (lambda c: c.add_cut("sex", 1), "not a numeric variable"),
    ],
)
def test_bad_cut_input_is_refused_said_and_nothing_changes(studio, edit, message):
    c, X, y = studio()
    kept = _state(c)
    with pytest.raises((ValueError, KeyError), match=message):
        edit(c)
    assert _state(c) == kept
    if "numeric" not in message:
        said = next(v["error"] for v in c.cut_panel() if v["error"])
        assert message.replace("“", "").replace("”", "").split()[-1] in said["text"]


def test_the_last_cut_stays_and_the_error_names_what_was_typed(studio):
    c, X, y = studio(cuts={"age": [60], "bmi": [25, 30]})
    with pytest.raises(ValueError, match="needs at least one cut point"):
        c.remove_cut("age", 60)
    with pytest.raises(ValueError):
        c.add_cut("age", " 7o ")
    error = {v["name"]: v["error"] for v in c.cut_panel()}["age"]
    assert error["typed"] == " 7o " and error["op"] == "add"


def test_settings_carry_over_to_the_new_rules_by_variable(studio):
    c, X, y = studio(signs={"age": "+"})
    c.lock("bmi >= 30", 1)
    settle(c)
    c.add_cut("age", 70)
    settle(c)
    assert c.spec.signs.get("age >= 70") == "+"  # a sign by variable reaches the new rule
    assert all(c.card.points.get(n, 0) >= 0 for n in c.rules.rules_of("age"))
    c.move_cut("bmi", 30, 32.5)
    assert "dropped the lock of 'bmi >= 30' at 1" in c.notice  # said, not lost silently
    settle(c)
    assert "bmi >= 30" not in c.spec.lock
    assert c.rules.integer_["bmi"] is False and c.rules.rules_of("bmi") == [
        "bmi >= 25",
        "bmi >= 32.5",
        "bmi missing",
    ]


def test_a_cut_whose_carried_settings_cannot_hold_is_refused_before_anything_changes(studio):
    c, X, y = studio(require=["bmi >= 25", "bmi >= 30", "bmi missing"], max_size=3)
    kept = _state(c)
    with pytest.raises(
        ValueError, match="max_size=3 but 4 features are required"
    ):  # the new rule would be required too
        c.add_cut("bmi", 35)
    assert (
        _state(c) == kept
        and "max_size=3" in {v["name"]: v for v in c.cut_panel()}["bmi"]["error"]["text"]
    )


def test_carry_spec_drops_a_gone_rules_lock_and_says_so():
    spec = sw.make_spec(
        lock={"age >= 60": -2}, signs={"age >= 50": "-", "age >= 60": "-"}, exclude=["bmi missing"]
    )
    new, dropped = carry_spec(spec, ["age >= 50", "age >= 60"], ["age >= 50", "age >= 65"])
    assert dict(new.lock) == {} and dropped == ["the lock of 'age >= 60' at -2"]
    assert dict(new.signs) == {"age >= 50": "-", "age >= 65": "-"} and list(new.exclude) == [
        "bmi missing"
    ]
    tied = sw.make_spec(constraints=[sw.needs("age >= 60", "sex = F")])
    with pytest.raises(ValueError, match="which this cut change removes"):
        carry_spec(tied, ["age >= 60"], ["age >= 65"])


def test_a_card_of_other_rules_is_never_stored_in_this_tables_cache(studio):
    c, X, y = studio()
    old_cache = c.table.solver
    old_card = c.card
    c.add_cut("age", 70)
    settle(c)
    key = c.spec.key()
    c.table.solver.store(c.spec.replace(max_size=2), old_card)  # a late result of the old rules
    assert c.table.solver.get(c.spec.replace(max_size=2).key()) is None
    assert (
        isinstance(c.table.solver, SolveCache)
        and c.table.solver is not old_cache
        and c.spec.key() == key
    )


def test_histogram_and_parse_cut():
    bins = histogram(np.array([20.0, 21, 35, 90]), np.array([0, 1, 1, 0]), integer=True)
    assert sum(b["rows"] for b in bins) == 4 and sum(b["events"] for b in bins) == 2
    assert bins[0]["lo"] == 20 and bins[-1]["hi"] >= 90 and len(bins) <= 24
    assert parse_cut("bmi", "27,5") == 27.5
    with pytest.raises(ValueError, match="finite"):
        parse_cut("bmi", "inf")


# -- the studio's views (Python side; the browser test is tests/e2e/test_studio_cuts_lab.py) -------
@pytest.mark.slow
def test_the_studio_sends_the_card_by_variable_and_follows_a_moved_cut():
    from slimwidgets.widgets.studio import Studio

    X, y = raw()
    s = Studio(
        X,
        y,
        max_size=3,
        cuts={"age": [50, 60], "bmi": [25, 30]},
        time_limit=60,
        frontier=False,
        alternatives=False,
        debounce=0.0,
    )
    try:
        settle(s.controller)
        s.refresh_card()
        assert [v["variable"] for v in s.card_view.card["variables"]] == [
            v for v, _ in s.scoring_system.rules.points_table(s.scoring_system.points)
        ]
        assert [(v["name"], v["kind"]) for v in s.cuts_view.variables] == [
            ("age", "cuts"),
            ("bmi", "cuts"),
            ("sex", "levels"),
        ]
        refused = send(s.cuts_view, "add", variable="age", value="abc")
        assert not refused["ok"] and "is not a number" in refused["error"]
        error = s.cuts_view.variables[0]["error"]
        assert error["typed"] == "abc" and "is not a number" in error["text"]
        assert s.controller.cut_points()["age"] == [50.0, 60.0]
        assert send(s.cuts_view, "move", variable="age", old=60, value="65")["ok"]
        settle(s.controller)
        assert (
            s.cuts_view.variables[0]["cuts"] == [50.0, 65.0]
            and s.cuts_view.variables[0]["error"] is None
        )
        assert (
            "age >= 65" in s.feature_rows and "age >= 60" not in s.feature_rows
        )  # the feature panel follows
        assert s.size_slider.max == len(s.controller.data.feature_names)
        assert send(s.card_view, "undo") == {"id": "test-undo", "ok": True, "error": None}
        assert "age >= 60" in s.feature_rows and s.cuts_view.variables[0]["cuts"] == [50.0, 60.0]
    finally:
        s.close()


def test_a_table_without_numeric_variables_has_no_cut_points():
    X, y = raw()
    c = Controller(
        X[["sex"]].assign(smoker=np.where(y.to_numpy() > 0, "yes", "no")),
        y,
        time_limit=10,
        frontier=False,
        alternatives=False,
        debounce=0.0,
    )
    try:
        settle(c)
        assert c.table is not None and c.cut_points() == {}
        assert [(v["name"], v["kind"]) for v in c.cut_panel()] == [
            ("sex", "levels"),
            ("smoker", "levels"),
        ]
        with pytest.raises(KeyError, match="not a numeric variable"):
            c.add_cut("sex", 1)
        assert [v["variable"] for v in card_variables(c.card, c.spec)] == ["smoker"]
    finally:
        assert c.close()


@pytest.mark.slow
def test_a_studio_of_0_1_rules_has_neither_panel_nor_variables(make):
    c = make()
    settle(c)
    assert c.table is None and c.cut_points() == {} and card_variables(c.card, c.spec) is None


@pytest.mark.slow
def test_undo_while_the_new_cuts_solve_goes_back_to_the_old_rules(studio):
    c, X, y = studio(debounce=1.0)  # the new cuts' solve waits a second: undo comes first
    first, rules = c.card, c.rules
    c.add_cut("age", 70)
    assert c.solving and c.rules is not rules
    assert c.undo()
    assert (
        not c.solving
        and c.card is first
        and c.rules is rules
        and c.cut_points()["age"] == [50.0, 60.0]
    )
    assert list(c.data.feature_names) == list(first.feature_names)
    time.sleep(1.5)  # past the debounce: an abandoned solve that still ran would have landed by now
    settle(c)
    assert c.card is first and c.rules is rules
    # the card's own solve, besides the monotone fix of a bumpy variable the card points out
    assert [k for k in c.table.solver.results if not json.loads(k).get("monotone")] == [
        c.spec.key()
    ]


@pytest.mark.slow
def test_the_previous_rules_card_cannot_be_edited_while_the_new_cuts_solve(studio):
    c, X, y = studio(debounce=1.0)
    c.add_cut("age", 70)
    kept = _state(c)
    with pytest.raises(RuntimeError, match="previous cut points"):
        c.edit_band("age", 1, 4)
    with pytest.raises(RuntimeError, match="previous cut points"):
        c.edit(points={"age >= 50": 3})
    assert _state(c) == kept
    settle(c)
    assert c.card.rules is c.rules and c.edit(points={"age >= 50": 3}).points["age >= 50"] == 3


def _group_table_is_group_rates(c, X, y):
    """The studio's per-group table is ``sw.group_rates`` of its card on the raw rows."""
    want = sw.group_rates(c.card, X, y, "sex").set_index("group")
    got = c.group_frame().set_index("group")
    assert got["n"].to_dict() == want["n"].to_dict()
    for rate in ("TPR", "FPR", "error"):
        assert np.allclose(got[rate], want.loc[got.index, rate])


@pytest.mark.slow
def test_cut_points_move_with_a_group_column_picked_and_undo_walks_back_through_both(studio):
    """A group column and moved cut points combine: a cut moved with a column picked splits the
    new rules' rows by the column (the card proven on them, as ``sw.fit`` proves it, its table
    in each group that of ``sw.group_rates``), a column picked after a cut moved splits the moved
    rules' rows; undo and redo bring back both the cut points and the column, with their cards."""
    c, X, y = studio(sensitive_features="sex")
    assert c.group == "sex" and "sex" not in " ".join(
        c.data.feature_names
    )  # the group only, no rule
    first_data, first_card = c.data, c.card
    c.add_cut("age", 70)
    settle(c)
    assert c.moved_cuts and c.group == "sex" and c.cut_points()["age"] == [50.0, 60.0, 70.0]
    assert c.data.sensitive_name == "sex" and c.data.sensitive_levels == ("F", "M")
    assert (
        list(c.data.feature_names) == list(c.card.feature_names)
        and "age >= 70" in c.data.feature_names
    )
    _group_table_is_group_rates(c, X, y)
    steps = len(c.core.undo.states)
    c.set_gap("TPR", 0.1)  # a gap between the groups of the moved rules' rows
    settle(c)
    gapped = c.card
    assert (
        len(c.core.undo.states) == steps + 1 and c.violations() == [] and gapped.status == "optimal"
    )
    alone = sw.fit(
        X,
        y,
        sensitive_features="sex",
        max_tpr_gap=0.1,
        max_size=3,
        cuts={"age": [50, 60, 70], "bmi": [25, 30]},
        time_limit=60,
    )
    assert alone.status == "optimal" and alone.objective == pytest.approx(
        gapped.objective, abs=1e-9
    )
    _group_table_is_group_rates(c, X, y)
    assert c.group_status().endswith("proven best under these caps")
    assert c.undo() and c.undo()  # the gap, then the cut: back to the first state, the column kept
    assert c.group == "sex" and c.data is first_data and c.card is first_card
    assert c.cut_points()["age"] == [50.0, 60.0] and c.spec.max_tpr_gap is None
    _group_table_is_group_rates(c, X, y)
    assert c.redo() and c.redo()
    assert c.group == "sex" and c.cut_points()["age"] == [50.0, 60.0, 70.0] and c.card is gapped
    assert c.spec.max_tpr_gap == 0.1 and c.data.sensitive_name == "sex" and c.violations() == []
    # a column picked after the cut points moved splits the moved rules' rows
    c.set_group(None)
    settle(c)
    c.move_cut("age", 70, 65)
    settle(c)
    assert c.group is None and c.data.sensitive is None and "age >= 65" in c.data.feature_names
    c.set_group("sex")
    settle(c)
    assert (
        c.group == "sex" and c.data.sensitive_name == "sex" and "age >= 65" in c.data.feature_names
    )
    assert list(c.data.feature_names) == list(c.card.feature_names)
    _group_table_is_group_rates(c, X, y)
    assert c.undo() and c.group is None and c.cut_points()["age"] == [50.0, 60.0, 65.0]
    assert c.undo() and c.group is None and c.cut_points()["age"] == [50.0, 60.0, 70.0]


def test_the_held_out_rows_of_each_group_follow_the_moved_cut_points(studio):
    from slimwidgets.widgets.holdout import split_holdout

    c, X, y = studio(sensitive_features="sex", holdout=0.25, random_state=0)
    c.add_cut("age", 70)
    settle(c)
    _, _, _, X_va, y_va, _ = split_holdout(X, y, 0.25, random_state=0)
    want = sw.group_rates(c.card, X_va, y_va, "sex").set_index("group")
    got = c.group_frame().query("set == 'validation'").set_index("group")
    assert c.card.rules is c.rules and "age >= 70" in c.card.feature_names
    assert got["n"].to_dict() == want["n"].to_dict() and np.allclose(
        got["TPR"], want.loc[got.index, "TPR"]
    )
    assert np.allclose(got["FPR"], want.loc[got.index, "FPR"])
