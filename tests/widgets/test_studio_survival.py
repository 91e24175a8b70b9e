"""The time-to-event family in the studio, without a browser: ``sw.Studio(X, y)`` with a ``Surv``
y opens it; its card is the one ``fit`` proves; the risk at the horizon is the card's and
Kaplan–Meier's (cross-checked with scikit-survival); each edit is one undo step; the C-index by
size is Harrell's C of the best card of each size; what cannot apply says so in place."""

from __future__ import annotations

import html

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.core.survival_card import default_horizons
from slimwidgets.toolbox.survival_evidence import score_bands
from slimwidgets.widgets import survival_session
from slimwidgets.widgets.survival_session import INAPPLICABLE, SurvivalSession
from slimwidgets.widgets.survival_view import SurvivalStudio

sksurv_datasets = pytest.importorskip("sksurv.datasets")
sksurv_metrics = pytest.importorskip("sksurv.metrics")
sksurv_nonparametric = pytest.importorskip("sksurv.nonparametric")

pytestmark = pytest.mark.slow  # studio solves
# long enough that these tiny problems are always proven, however busy the machine
LIMIT = 120.0


@pytest.fixture(scope="module")
def veterans():
    X, y = sksurv_datasets.load_veterans_lung_cancer()
    return X[["Karnofsky_score", "Celltype"]], y


@pytest.fixture
def session(veterans):
    made = []

    def factory(**options):
        s = SurvivalSession(*veterans, time_limit=LIMIT, **options)
        made.append(s)
        assert s.wait(LIMIT)
        return s

    yield factory
    for s in made:
        s.close()
        assert s.wait(5)


def _fit(veterans, **options):
    return sw.fit(*veterans, **{"time_limit": LIMIT, **options})


def test_a_surv_y_opens_the_time_to_event_card_that_fit_proves(veterans):
    studio = sw.Studio(*veterans, max_size=2, time_limit=LIMIT)
    try:
        assert isinstance(studio, SurvivalStudio)
        assert studio.wait(LIMIT)
        card, fitted = studio.scoring_system, _fit(veterans, max_size=2)
        assert card.card_points == fitted.card_points and card.status == "optimal"
        assert studio.family_toggle.value == "survival"
        assert [label for label, _ in studio.family_toggle.options] == [
            "decision card",
            "risk card",
            "time to event",
        ]
        _, y = veterans
        horizons = default_horizons(y["Survival_in_days"])
        assert studio.session.horizon == horizons[1] == studio.horizon.value
        assert "proven best" in studio.status.value and "Harrell" in studio.status.value
        shown = html.unescape(studio.card_view.value)
        assert f"risk of the event by {horizons[1]:g} Survival_in_days" in shown
        for name, points in card.card_points.items():
            assert f"<td>{name}</td><td>{points:+d}</td>" in shown
        for row in studio.session.risk_table().itertuples():
            assert f"<td>{row.score}</td><td>{row.rows:g}</td><td>{100 * row.predicted:.1f} %" in (
                shown
            )
    finally:
        studio.close()


def test_loss_cox_opens_it_too_and_a_two_class_y_does_not(veterans):
    X, y = veterans
    studio = sw.Studio(X, y, loss="cox", max_size=1, time_limit=LIMIT)
    try:
        assert isinstance(studio, SurvivalStudio) and studio.wait(LIMIT)
    finally:
        studio.close()
    with pytest.raises(ValueError):  # loss="cox" with a two-class y: said, not ignored
        sw.Studio(X, y["Status"], loss="cox")


def test_another_family_clicked_stays_time_to_event_and_says_why(veterans):
    studio = sw.Studio(*veterans, max_size=1, time_limit=LIMIT)
    try:
        assert studio.wait(LIMIT)
        before = studio.scoring_system
        studio.family_toggle.value = "risk"
        assert studio.family_toggle.value == "survival"
        assert "risk cards need a two-class y" in studio.message.value
        assert studio.scoring_system is before
    finally:
        studio.close()


def test_the_risk_at_the_horizon_is_the_cards_beside_kaplan_meier(session, veterans):
    s = session(max_size=2)
    X, y = veterans
    solves = s.solves
    for horizon in (s.horizon, 200.0, 30.0):
        s.set_horizon(horizon)
        table = s.risk_table()
        totals = s.card.scores(X)
        assert sorted(table["score"]) == sorted(np.unique(totals).astype(int))
        for row in table.itertuples():
            assert row.predicted == pytest.approx(s.card.risk_at(row.score, horizon))
            mine = totals == row.score
            assert row.rows == mine.sum()
            t, e = y["Survival_in_days"][mine], y["Status"][mine]
            times, survival = sksurv_nonparametric.kaplan_meier_estimator(e, t)
            if t.max() < horizon and survival[-1] > 0:
                assert np.isnan(row.observed)  # nobody with this score followed that far
                continue
            at = np.searchsorted(times, horizon, side="right") - 1
            assert row.observed == pytest.approx(1 - survival[at] if at >= 0 else 0.0)
    assert s.solves == solves  # the horizon is a view of the card: nothing solved again


def test_a_horizon_outside_the_follow_up_is_refused_and_the_slider_goes_back(veterans):
    studio = sw.Studio(*veterans, max_size=1, time_limit=LIMIT)
    try:
        assert studio.wait(LIMIT)
        studio.horizon.value = 120.0
        assert studio.session.horizon == 120.0
        studio.horizon.value = 0.0
        assert "the horizon must lie in the follow-up" in studio.message.value
        assert studio.session.horizon == 120.0 == studio.horizon.value
    finally:
        studio.close()


def test_each_edit_re_solves_and_is_one_undo_step(session, veterans):
    s = session(max_size=2)
    cards = [s.card.card_points]
    edits = [
        lambda: s.set_feature("Karnofsky_score", use=False),
        lambda: s.set_feature("Celltype", sign="+"),
        lambda: s.update(max_size=1),
        lambda: s.update(C0=0.01),
    ]
    for edit in edits:
        edit()
        assert s.wait(LIMIT)
        cards.append(s.card.card_points)
        assert s.card.card_points == _fit(veterans, **s.settings.options()).card_points
    assert not any(name.startswith("Karnofsky") for name in cards[1])
    assert all(p > 0 for name, p in cards[2].items() if name.startswith("Celltype"))
    assert len(cards[3]) <= 1
    solves = s.solves
    for expected in reversed(cards[:-1]):  # one undo step per edit, each card from the cache
        assert s.undo() and s.wait(LIMIT)
        assert s.card.card_points == expected
    assert not s.undo() and s.solves == solves
    assert s.redo() and s.wait(LIMIT) and s.card.card_points == cards[1]
    assert s.settings.exclude == ("Karnofsky_score",)


def test_the_views_controls_edit_and_undo(veterans):
    studio = sw.Studio(*veterans, max_size=2, time_limit=LIMIT)
    try:
        assert studio.wait(LIMIT)
        first = studio.scoring_system.card_points
        assert studio.undo_button.disabled
        studio.feature_rows["Karnofsky_score"]["use"].value = False
        assert studio.wait(LIMIT)
        assert not any(n.startswith("Karnofsky") for n in studio.scoring_system.card_points)
        assert not studio.undo_button.disabled
        studio.max_size.value = 1
        assert studio.wait(LIMIT) and len(studio.scoring_system.card_points) <= 1
        studio.undo_button.click()
        studio.undo_button.click()
        assert studio.wait(LIMIT)
        assert studio.scoring_system.card_points == first
        assert studio.feature_rows["Karnofsky_score"]["use"].value  # the control follows
        assert studio.max_size.value == 2 and studio.undo_button.disabled
    finally:
        studio.close()


def test_a_refused_value_changes_nothing_and_says_why(session):
    s = session(max_size=1)
    settings, card = s.settings, s.card
    with pytest.raises(ValueError):
        s.update(C0=-1.0)
    with pytest.raises(ValueError):
        s.set_feature("Celltype", sign="up")
    with pytest.raises(KeyError):
        s.set_feature("no such column", use=False)
    assert s.settings == settings and s.card is card and not s.can_undo


def test_a_solve_that_fails_keeps_the_card_and_settings_and_says_why(session, monkeypatch):
    s = session(max_size=1)
    settings, card = s.settings, s.card

    def fails(*args, **kwargs):
        raise ValueError("the solver broke")

    monkeypatch.setattr(survival_session, "fit_survival", fails)
    s.update(C0=0.05)
    assert s.wait(LIMIT)
    assert "the solver broke" in s.notice and "those before" in s.notice
    assert s.settings == settings and s.card is card and not s.can_undo and not s.solving


def test_the_c_index_by_size_is_harrells_c_of_the_best_card_of_each_size(session, veterans):
    s = session(max_size=3)
    X, y = veterans
    path = s.c_by_size()
    assert path["size"].tolist() == [1, 2, 3]
    assert path["current"].tolist() == [False, False, True]
    for row in path.itertuples():
        card = _fit(veterans, max_size=row.size)
        c = sksurv_metrics.concordance_index_censored(
            y["Status"], y["Survival_in_days"], card.predict(X)
        )[0]
        assert row._2 == pytest.approx(c)


def test_the_km_chart_draws_each_score_band_and_the_horizon(veterans):
    studio = sw.Studio(*veterans, max_size=2, time_limit=LIMIT)
    try:
        assert studio.wait(LIMIT)
        rows = studio.km_view.datasets["km"]
        bands = score_bands(studio.scoring_system.scores(veterans[0]))
        assert sorted({r["score band"] for r in rows}) == sorted(bands.cat.categories)
        assert studio.km_view.datasets["horizon"] == [{"horizon": studio.session.horizon}]
        studio.horizon.value = 250.0
        assert studio.km_view.datasets["horizon"] == [{"horizon": 250.0}]
        path = studio.c_view.datasets["path"]
        assert [r["size"] for r in path] == [1, 2]
    finally:
        studio.close()


def test_options_that_cannot_apply_say_so_in_place(veterans):
    studio = sw.Studio(*veterans, max_size=1, time_limit=LIMIT)
    try:
        assert studio.max_fpr.disabled and studio.groups.disabled
        notes = [
            w.value
            for box in studio.children
            for w in getattr(box, "children", ())
            if hasattr(w, "value") and isinstance(w.value, str)
        ]
        for why in INAPPLICABLE.values():
            assert any(html.escape(why) in note for note in notes)
    finally:
        studio.close()


def test_a_newer_edit_drops_the_older_solve(veterans):
    X, y = veterans
    s = SurvivalSession(X, y, time_limit=LIMIT, max_size=3)  # its proof takes a while
    try:
        s.update(max_size=1)  # at once: the first solve is stopped and its card never shown
        assert s.wait(LIMIT)
        assert s.card.card_points == _fit(veterans, max_size=1).card_points
        assert all(card.status != "interrupted" for card in s._cache.values())
    finally:
        s.close()


def test_names_from_data_reach_the_page_escaped():
    rng = np.random.default_rng(0)
    hostile = "<img src=x onerror=alert(1)>"
    X = pd.DataFrame({hostile: rng.integers(0, 2, 40), "b": rng.integers(0, 2, 40)})
    time = rng.exponential(10.0, 40) / (1 + 2 * X[hostile].to_numpy())
    y = np.array(
        list(zip(rng.random(40) < 0.8, time)), dtype=[("died", "?"), ("<b>days</b>", "<f8")]
    )
    studio = sw.Studio(X, y, max_size=1, time_limit=LIMIT)
    try:
        assert studio.wait(LIMIT) and hostile in studio.scoring_system.card_points
        shown = studio.card_view.value
        assert hostile not in shown and "<b>days</b>" not in shown
        assert html.escape(hostile) in shown and html.escape("<b>days</b>") in shown
        assert not studio.feature_rows[hostile]["use"].description_allow_html
    finally:
        studio.close()
