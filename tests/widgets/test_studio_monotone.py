"""A numeric variable whose bands' points go up and down is pointed out beside the card, with the
monotone setting that fixes it, its cost against the card shown (a real solve, in the user's
units) and a one-click fix that is one undo step; a raw table's card and its alternatives read
by variable, and the card view gets the exports' own words."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from slimwidgets.core.rules import RuleBuilder
from slimwidgets.core.scoring import ScoringSystem
from slimwidgets.core.spec import make_spec
from slimwidgets.export.card import MISSING_NOTE
from slimwidgets.widgets.alternatives import variables_text
from slimwidgets.widgets.card_status import change_text
from slimwidgets.widgets.controller import Controller
from slimwidgets.widgets.monotone import bumpy_variables

from studio_helpers import settle

CUTS = {"lwt": [110, 120, 150]}


def _table(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {"lwt": rng.integers(90, 200, n).astype(float), "smoke": rng.choice(["yes", "no"], n)}
    )
    y = ((X.lwt < 115) | ((X.smoke == "yes") & (rng.random(n) < 0.5))).astype(int)
    return X, y


def _bumpy(c: Controller) -> ScoringSystem:
    """A card of the studio's rules whose lwt bands read 0, -5, -1, -5 (down, up, down)."""
    points = {"lwt >= 110": -5, "lwt >= 120": 4, "lwt >= 150": -4}
    names = c.data.feature_names
    return ScoringSystem(names, tuple(points.get(n, 0) for n in names), 2, status="heuristic")


def test_a_variable_that_goes_up_and_down_is_named_with_its_direction():
    b = RuleBuilder(cuts=CUTS).fit(_table()[0])
    card = ScoringSystem(b.rules_of("lwt"), [-5, 4, -4], 0, rules=b)
    assert bumpy_variables(card, make_spec()) == [("lwt", [0, -5, -1, -5], "-")]
    steady = ScoringSystem(b.rules_of("lwt"), [-5, 0, -1], 0, rules=b)
    assert bumpy_variables(steady, make_spec()) == []  # it only falls
    assert bumpy_variables(card, make_spec(monotone={"lwt": "+"})) == []  # a setting binds it


@pytest.mark.slow  # studio solves
def test_the_pointer_says_the_cost_of_the_monotone_card_and_one_click_shows_it():
    X, y = _table()
    c = Controller(X, y, cuts=CUTS, time_limit=3.0, frontier=False)
    try:
        settle(c)
        c.load(_bumpy(c))
        assert c.advice.queue.wait_idle(300)
        (pointer,) = c.advice.view()
        assert pointer["text"] == "lwt's points go up and down (0 · \u22125 · \u22121 · \u22125)"
        assert pointer["action"] == "make lwt decreasing" and pointer["ready"]
        spec = c.spec.replace(monotone={"lwt": "-"})
        fixed = c.core.cache[spec.key()]  # solved in the background, under the setting
        assert bumpy_variables(fixed, c.spec) == []  # its bands never rise
        assert all(fixed.points.get(n, 0) <= 0 for n in c.rules.rules_of("lwt"))
        m, n = fixed.train_metrics, c.card.train_metrics
        assert f"error {change_text(m.error - n.error)}" in pointer["cost"]
        assert f"TPR {change_text(m.tpr - n.tpr)}" in pointer["cost"]
        assert ("proven" in pointer["cost"]) and (
            ("not proven" in pointer["cost"]) == (fixed.status != "optimal")
        )
        before = c.card
        c.set_monotone("lwt", pointer["choice"])  # the click: from the cache at once
        assert c.card is fixed and c.spec.monotone == {"lwt": "-"}
        assert c.advice.view() == []  # nothing left to point out
        c.undo()
        assert c.card is before and c.spec.monotone == {}
    finally:
        assert c.close()


def test_an_alternative_of_a_raw_table_reads_by_variable():
    b = RuleBuilder(cuts={"age": [23, 26]}).fit(pd.DataFrame({"age": [20, 24, 30]}))
    card = ScoringSystem(["age >= 23", "age >= 26"], [7, -9], 0, rules=b)
    assert variables_text(card, make_spec()) == [
        {"name": "age", "text": "< 23: 0 · 23–25: 7 · ≥ 26: \u22122"}
    ]
    assert variables_text(ScoringSystem(["a"], [1], 0), make_spec()) is None  # a table of rules


@pytest.mark.slow  # studio solves
def test_the_card_view_gets_the_exports_words_and_the_alternatives_read_by_variable():
    from slimwidgets.widgets.studio import card_payload

    X, y = _table()
    c = Controller(X, y, cuts=CUTS, time_limit=2.0, frontier=False, alternatives=True)
    try:
        settle(c)
        payload = card_payload(c)
        assert payload["variables_note"] == MISSING_NOTE and "monotone" in payload
        assert c.wait_alternatives(300)
        rows = c.alternatives()["rows"]
        assert rows and all(isinstance(r["variables"], list) for r in rows)
        for r in rows:  # every variable of the row's card, none spelt rule by rule
            assert all(">=" not in v["text"] for v in r["variables"])
            assert {v["name"] for v in r["variables"]} <= {"lwt", "smoke"}
    finally:
        assert c.close()


@pytest.mark.slow  # studio solves
def test_the_studio_widget_sends_the_pointer_once_its_cost_is_solved():
    from slimwidgets.widgets.studio import Studio

    X, y = _table()
    studio = Studio(X, y, cuts=CUTS, time_limit=3.0, frontier=False, alternatives=False)
    try:
        c = studio.controller
        settle(c)
        c.load(_bumpy(c))
        assert c.advice.queue.wait_idle(300)
        settle(c)
        (sent,) = studio.card_view.card["monotone"]  # the view got the pointer with its cost
        assert sent["ready"] and sent["cost"].startswith("cost: error ")
    finally:
        studio.close()
