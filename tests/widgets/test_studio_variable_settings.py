"""The settings by variable in the studio (issue 19): max variables and max cut points per
variable in boxes beside max size, a monotone choice per numeric variable in the cut panel.

Each edit re-solves (the card ``sw.fit`` proves with those settings), is one undo step, and bad
input or a clash is refused in words with everything as it was.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.core.by_variable import variables_in_use
from slimwidgets.widgets.controller import Controller
from slimwidgets.widgets.studio import Studio
from slimwidgets.widgets.variables import card_variables, parse_cap

from studio_helpers import raw_clinical, send, settle

CUTS = {"age": [50, 60], "bmi": [25, 30]}
DEFAULTS = {
    "max_size": 4,
    "cuts": CUTS,
    "time_limit": 60,
    "frontier": False,
    "alternatives": False,
    "debounce": 0.0,
}


raw = raw_clinical


@pytest.fixture
def studio(request):
    """A controller on the raw table (``studio(**options)``), closed after the test."""

    def factory(**options):
        X, y = raw()
        c = Controller(X, y, **{**DEFAULTS, **options})
        request.addfinalizer(
            lambda: c.close() or pytest.fail("a controller left a worker thread running")
        )
        settle(c)
        return c, X, y

    return factory


def _state(c):
    return (c.spec.key(), c.card, len(c.history), c.core.undo.cursor)


def _same_optimum(card, X, y, **options):
    """``card`` is optimal and as good as the card ``sw.fit`` proves for the same settings (ties
    between cards of equal objective may break either way)."""
    proved = sw.fit(X, y, max_size=4, cuts=CUTS, time_limit=60, **options)
    return card.status == proved.status == "optimal" and card.objective == pytest.approx(
        proved.objective
    )


def test_parse_cap_reads_a_box():
    assert (
        parse_cap("3", "max variables") == 3
        and parse_cap("  ", "x") is None
        and parse_cap(2.0, "x") == 2
    )
    for bad in ("two", "-1", "1.5", "inf"):
        with pytest.raises(ValueError, match="max variables must be a whole number >= 0"):
            parse_cap(bad, "max variables")


@pytest.mark.slow
def test_max_variables_re_solves_in_one_undo_step(studio):
    c, X, y = studio()
    before = c.card
    assert len(variables_in_use(c.spec, list(before.points))) > 1  # the cap below has work to do
    cursor = c.core.undo.cursor
    c.set_caps(max_variables="1")
    settle(c)
    assert c.spec.max_variables == 1 and c.core.undo.cursor == cursor + 1
    assert len(variables_in_use(c.spec, list(c.card.points))) == 1
    assert _same_optimum(c.card, X, y, max_variables=1)  # the card fit proves
    c.undo()
    assert c.spec.max_variables is None and c.card is before
    c.redo()
    c.set_caps(max_variables="")  # empty: no cap
    settle(c)
    assert c.spec.max_variables is None


@pytest.mark.slow
def test_max_cuts_per_variable_keeps_one_cut_of_each(studio):
    c, X, y = studio()
    c.set_caps(max_cuts_per_variable=1)
    settle(c)
    cuts = [n for n in c.card.points if ">=" in n]
    assert len({n.split(" ")[0] for n in cuts}) == len(cuts)  # no variable with two cut points
    assert _same_optimum(c.card, X, y, max_cuts_per_variable=1)


def test_bad_caps_and_clashes_are_refused_in_words_with_nothing_changed(studio):
    c, X, y = studio(require=["sex = M", "age >= 60"])
    kept = _state(c)
    with pytest.raises(ValueError, match="max variables must be a whole number"):
        c.set_caps(max_variables="two")
    with pytest.raises(
        ValueError, match=r"max_variables=1 clashes with 2 variables that must be used"
    ):
        c.set_caps(max_variables=1)
    with pytest.raises(ValueError, match="max_variables=0 clashes"):
        c.set_caps(max_variables="0")
    with pytest.raises(KeyError, match="no such cap"):
        c.set_caps(max_size=2)
    assert _state(c) == kept


@pytest.mark.slow
def test_monotone_choice_re_solves_with_bands_in_order(studio):
    c, X, y = studio()
    panel = {v["name"]: v for v in c.cut_panel()}
    assert (
        panel["age"]["monotone"] == "none" and "monotone" not in panel["sex"]
    )  # levels have no order
    age = [b["points"] for b in card_variables(c.card, c.spec)[0]["bands"] if b["kind"] == "band"]
    assert age[-1] > age[0]  # age rises on the free card: "decreasing" must change it
    before, cursor = c.card, c.core.undo.cursor
    c.set_monotone("age", "decreasing")
    settle(c)
    assert c.spec.monotone == {"age": "-"} and c.core.undo.cursor == cursor + 1
    assert (
        c.monotone_of("age") == "decreasing"
        and {v["name"]: v for v in c.cut_panel()}["age"]["monotone"] == "decreasing"
    )
    points = [c.card.points.get(n, 0) for n in ("age >= 50", "age >= 60")]
    assert all(p <= 0 for p in points)  # each step down: the bands never rise
    assert sw.check_card(c.card, c.data, c.spec) == []
    assert _same_optimum(c.card, X, y, monotone={"age": "-"})
    c.undo()
    assert c.spec.monotone == {} and c.card is before
    c.redo()
    c.set_monotone("age", "none")
    settle(c)
    assert c.spec.monotone == {}


def test_a_monotone_choice_that_clashes_is_refused_in_words(studio):
    c, X, y = studio(lock={"age >= 60": 2})
    kept = _state(c)
    with pytest.raises(
        ValueError,
        match=r"monotone '-' on 'age' needs '-' points on 'age >= 60', but it is locked at 2",
    ):
        c.set_monotone("age", "decreasing")
    with pytest.raises(ValueError, match="must be one of none, increasing, decreasing"):
        c.set_monotone("age", "up")
    with pytest.raises(KeyError, match="unknown variable"):
        c.set_monotone("height", "increasing")
    assert _state(c) == kept


@pytest.mark.slow
def test_the_studio_boxes_set_the_caps_and_say_what_they_refuse():
    X, y = raw()
    st = Studio(X, y, **DEFAULTS)
    try:
        st.wait(300)
        assert st.caps_row.layout.display != "none" and st.cuts_text in st.caps_row.children
        st.vars_text.value = "1"
        st.wait(300)
        assert (
            st.spec.max_variables == 1
            and len(variables_in_use(st.spec, list(st.scoring_system.points))) == 1
        )
        assert "variables \u2264 1" in st.card_view.card["spec_text"]  # the "solved for" words
        st.vars_text.value = "one"
        assert "max variables must be a whole number" in st.message.value
        assert (
            st.vars_text.value == "1" and st.spec.max_variables == 1
        )  # the box shows the cap in force
        st.undo()
        st.wait(300)
        assert st.vars_text.value == "" and st.spec.max_variables is None
        assert send(st.cuts_view, "monotone", variable="age", value="decreasing")["ok"]
        st.wait(300)
        assert st.spec.monotone == {"age": "-"}
        assert {v["name"]: v for v in st.cuts_view.variables}["age"]["monotone"] == "decreasing"
    finally:
        st.close()


@pytest.mark.slow
def test_a_table_of_0_1_rules_hides_the_caps():
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.integers(0, 2, (40, 3)), columns=["a", "b", "c"])
    y = (X.a | X.b).to_numpy()
    st = Studio(X, y, time_limit=10, frontier=False, alternatives=False, debounce=0.0)
    try:
        st.wait(120)
        assert st.caps_row.layout.display == "none"
    finally:
        st.close()
