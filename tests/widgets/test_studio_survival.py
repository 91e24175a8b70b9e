"""The time-to-event family in the studio, without a browser: ``sw.Studio(X, y)`` with a ``Surv``
y opens it; its card is the one ``fit`` proves; the risk at the horizon is the card's and
Kaplan–Meier's (cross-checked with scikit-survival); each edit is one undo step; the C-index by
size is Harrell's C of the best card of each size; what cannot apply says so in place. Points
typed into the card make an edited card (its multiplier, baseline and C cross-checked with
scikit-survival) that says what it breaks; locks and must-use re-solve as ``fit`` does; the card
is written in each format with its risk by each horizon."""

from __future__ import annotations

import html
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.core.survival_card import default_horizons
from slimwidgets.core.survival_text import points_data
from slimwidgets.export import render_html
from slimwidgets.toolbox.survival_evidence import score_bands
from slimwidgets.widgets import survival_session
from slimwidgets.widgets.survival_session import INAPPLICABLE, SurvivalSession
from slimwidgets.widgets.survival_view import SurvivalStudio

sksurv_datasets = pytest.importorskip("sksurv.datasets")
sksurv_metrics = pytest.importorskip("sksurv.metrics")
sksurv_linear = pytest.importorskip("sksurv.linear_model")
sksurv_coxph = pytest.importorskip("sksurv.linear_model.coxph")
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
        by_variable = render_html(replace(points_data(card), notes=()))
        assert by_variable in studio.card_view.value  # the points table print(card) draws
        for variable in {name.split(" ")[0] for name in card.card_points}:
            assert f">{variable}</td>" in shown
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


# -- edits by hand, locks, must-use, exports --------------------------------------------------


def test_points_typed_into_the_card_make_an_edited_card_cross_checked(session, veterans):
    """An edited card: the multiplier is Cox's fit of the new totals (scikit-survival's
    CoxPHSurvivalAnalysis on that one column), the baseline Breslow's (its BreslowEstimator),
    Harrell's C scikit-survival's; the status says it is not optimized and what it costs."""
    s = session(max_size=2)
    X, y = veterans
    solved, solves = s.card, s.solves
    rule, points = next(iter(solved.card_points.items()))
    s.edit_points(rule, points)  # the same points: the solved card, nothing edited
    assert s.wait(LIMIT) and s.card is solved and not s.can_undo
    s.edit_points(rule, points + 1)
    assert s.wait(LIMIT) and s.solves == solves  # re-read, not re-solved
    card = s.card
    assert card.status == "edited" and card.card_points == {**solved.card_points, rule: points + 1}
    totals = card.scores(X)
    event, time = y["Status"], y["Survival_in_days"]
    cox = sksurv_linear.CoxPHSurvivalAnalysis(ties="breslow").fit(totals[:, None], y)
    assert 1 / card.multiplier == pytest.approx(cox.coef_[0], rel=1e-5)
    breslow = sksurv_coxph.BreslowEstimator().fit(totals / card.multiplier, event, time)
    theirs = breslow.get_survival_function(np.unique(totals) / card.multiplier)
    for total, fn in zip(np.unique(totals), theirs):
        assert card.risk_at(total, s.horizon) == pytest.approx(1 - fn(s.horizon), rel=1e-9)
    c = sksurv_metrics.concordance_index_censored(event, time, card.predict(X))[0]
    assert f"Harrell's C {c:.3f}" in s.status and "edited (not optimized)" in s.status
    cost = card.objective - solved.objective
    assert cost > 0 and f"Cox loss {cost:+.4f} per event vs the solved card" in s.status
    assert "breaks" not in s.status and s.risk_table()["predicted"].notna().all()
    again = survival_session.edited_card(solved, solved.card_points, X, y, s.settings.C0, [])
    assert again.objective == pytest.approx(solved.objective, rel=1e-9)  # the solve's count
    assert again.multiplier == pytest.approx(solved.multiplier, rel=1e-6)
    assert s.undo() and s.wait(LIMIT) and s.card is solved and s.solves == solves  # one step


def test_an_edited_card_says_what_it_breaks(session):
    s = session(max_size=1, signs={"Karnofsky_score": "-"})
    (rule, points), *_ = s.card.card_points.items()
    assert rule.startswith("Karnofsky") and points < 0
    s.edit_points(rule, 2)
    assert s.wait(LIMIT)
    assert f"'{rule}' has +2, outside" in s.status
    other = next(r for r in s.rules if r.startswith("Celltype"))
    s.edit_points(other, 1)
    assert s.wait(LIMIT) and "2 rules with points > max size 1" in s.status
    assert len(s.card.card_points) == 2  # shown with what it breaks, not refused


def test_a_lock_fixes_a_rules_points_and_the_rest_re_solves(session, veterans):
    s = session(max_size=2)
    first = s.card.card_points
    rule = next(r for r in s.rules if r not in first)
    s.set_lock(rule, 3)
    assert s.wait(LIMIT)
    fitted = _fit(veterans, max_size=2, lock={rule: 3})
    assert s.card.card_points == fitted.card_points and s.card.card_points[rule] == 3
    assert s.card.status == "optimal"
    s.set_lock(rule, None)
    assert s.wait(LIMIT) and s.card.card_points == first
    assert s.undo() and s.wait(LIMIT) and s.card.card_points[rule] == 3
    assert s.undo() and s.wait(LIMIT) and s.card.card_points == first and not s.can_undo
    with pytest.raises(KeyError):
        s.set_lock("no such rule", 1)
    with pytest.raises(ValueError):
        s.set_lock(rule, 1.5)
    with pytest.raises(ValueError):
        s.edit_points(rule, "two")


def test_must_use_forces_a_variable_onto_the_card(session, veterans):
    s = session(max_size=1)
    (first,) = s.card.card_points
    other = next(v for v in s.variables if not first.startswith(v))
    s.set_feature(other, require=True)
    assert s.wait(LIMIT)
    assert s.card.card_points == _fit(veterans, max_size=1, require=[other]).card_points
    assert all(rule.startswith(other) for rule in s.card.card_points)
    assert s.undo() and s.wait(LIMIT) and list(s.card.card_points) == [first]


def test_a_lock_the_solve_cannot_meet_is_refused_in_place(session):
    s = session(max_size=2)
    settings, card = s.settings, s.card
    rule = next(r for r in s.rules if r.startswith("Celltype"))
    s.set_lock(rule, 2)
    assert s.wait(LIMIT)
    s.set_feature("Celltype", use=False)  # its rules off the card, one of them locked at +2
    assert s.wait(LIMIT)
    assert "no card for these settings" in s.notice and "those before" in s.notice
    assert s.card.card_points[rule] == 2 and "Celltype" not in s.settings.exclude
    assert s.undo() and s.wait(LIMIT) and s.settings == settings and s.card is card


def test_the_card_is_written_in_each_format_with_its_risk_by_each_horizon(
    session, veterans, tmp_path
):
    import runpy
    import sqlite3

    s = session(max_size=2)
    X, _ = veterans
    rule, points = next(iter(s.card.card_points.items()))
    s.edit_points(rule, points - 1)  # an edited card is written as it is, and says so
    assert s.wait(LIMIT)
    card = s.card
    written = {}
    for fmt in survival_session.EXPORT_SUFFIXES:
        path, line = s.export(fmt, tmp_path / f"card{survival_session.EXPORT_SUFFIXES[fmt]}")
        written[fmt] = path.read_text(encoding="utf-8")
        assert repr(str(path)) in line
    back = sw.SurvivalCard.from_json(str(tmp_path / "card.json"))
    assert back.card_points == card.card_points and back.status == "edited"
    np.testing.assert_allclose(back.predict(X), card.predict(X))
    risk = runpy.run_path(str(tmp_path / "card.py"))["risk"]
    rows = X.head(20).to_dict("records")
    totals = card.scores(X.head(20))
    for h in card.horizons:
        assert [risk(r, h) for r in rows] == pytest.approx([card.risk_at(t, h) for t in totals])
    db = sqlite3.connect(":memory:")
    db.create_function("EXP", 1, np.exp)
    X.head(20).astype({"Celltype": str}).to_sql("patients", db)
    got = db.execute(written["sql"]).fetchall()
    for row, total in zip(got, totals):
        assert row[-1] == pytest.approx(card.risk_at(total, card.horizons[-1]))
    for fmt in ("text", "markdown", "html", "latex"):
        assert f"{card.horizons[-1]:g}" in written[fmt]
    with pytest.raises(ValueError, match="format must be one of"):
        s.export("pdf")
    with pytest.raises(OSError, match="could not write"):
        s.export("json", tmp_path / "no such folder" / "card.json")


def test_the_views_edit_lock_and_export_controls(veterans, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    studio = sw.Studio(*veterans, max_size=2, time_limit=LIMIT)
    try:
        assert studio.wait(LIMIT)
        solved = studio.scoring_system
        name, box, lock = studio.edit_box.children[0].children
        assert name.value in solved.card_points and box.value == solved.card_points[name.value]
        box.value += 1
        assert studio.wait(LIMIT) and studio.scoring_system.status == "edited"
        assert "edited (not optimized)" in html.unescape(studio.status.value)
        name, box, lock = studio.edit_box.children[0].children  # rebuilt for the new card
        lock.value = True
        assert studio.wait(LIMIT)
        assert studio.session.settings.lock == ((name.value, box.value),)
        assert studio.scoring_system.card_points[name.value] == box.value
        assert studio.edit_box.children[0].children[2].value  # the row shows its lock
        added = studio.add_rule.options[0]  # a rule not on the card, given points by hand
        assert added not in studio.scoring_system.card_points
        studio.add_rule.value, studio.add_points.value = added, 2
        studio.add_button.click()
        assert studio.wait(LIMIT)
        assert studio.scoring_system.card_points[added] == 2
        assert added not in studio.add_rule.options
        studio.feature_rows["Celltype"]["require"].value = True
        assert studio.wait(LIMIT) and studio.session.settings.require == ("Celltype",)
        studio.export_format.value = "python"
        studio.export_button.click()
        assert (tmp_path / "time_to_event_card.py").exists()
        assert "runpy.run_path" in html.unescape(studio.export_line.value)
        for _ in range(4):  # four edits, four steps back to the solved card
            studio.undo_button.click()
            assert studio.wait(LIMIT)
        assert studio.scoring_system is solved and studio.undo_button.disabled
        assert not studio.feature_rows["Celltype"]["require"].value
    finally:
        studio.close()


def test_the_c_index_path_leaves_out_sizes_too_small_for_the_locks(session, veterans):
    s = session(max_size=3)
    locked = [r for r in s.rules if r.startswith("Celltype")][:2]
    for rule in locked:
        s.set_lock(rule, 1)
        assert s.wait(LIMIT) and not s.notice
    path = s.c_by_size()
    assert path["size"].tolist() == [2, 3]  # no card of one rule holds both locks
    card = _fit(veterans, max_size=2, lock=dict.fromkeys(locked, 1))
    assert path["C-index"].iloc[0] == pytest.approx(card.score(*veterans))


def test_rows_kept_aside_give_a_held_out_c_index(session, veterans):
    """The card is solved on the other rows (as ``fit`` on them); Harrell's C on the rows kept
    aside is scikit-survival's; the share is one undo step and the same share keeps the same
    rows aside."""
    s = session(max_size=2)
    X, y = veterans
    whole = s.card
    assert "held-out" not in s.status and s.held_out_c(whole) is None
    s.update(holdout=0.3)
    assert s.wait(LIMIT)
    aside = survival_session.held_out_rows(y["Status"], 0.3)
    assert aside.sum() == round(0.3 * y["Status"].sum()) + round(0.3 * (~y["Status"]).sum())
    fitted = _fit((X[~aside], y[~aside]), max_size=2)
    assert s.card.card_points == fitted.card_points and len(s.X) == (~aside).sum()
    theirs = sksurv_metrics.concordance_index_censored(
        y["Status"][aside], y["Survival_in_days"][aside], s.card.predict(X[aside])
    )[0]
    c, n = s.held_out_c(s.card)
    assert c == pytest.approx(theirs) and n == aside.sum()
    assert f", {theirs:.3f} ({n} held-out rows)" in s.status
    train = sksurv_metrics.concordance_index_censored(
        y["Status"][~aside], y["Survival_in_days"][~aside], s.card.predict(X[~aside])
    )[0]
    assert f"Harrell's C {train:.3f} (training rows)" in s.status
    rule, points = next(iter(s.card.card_points.items()))
    s.edit_points(rule, points + 1)  # an edit keeps the rows aside: its C there too
    assert s.wait(LIMIT) and "held-out rows" in s.status and s.card.status == "edited"
    assert s.undo() and s.wait(LIMIT) and s.undo() and s.wait(LIMIT)
    assert s.card is whole and s.settings.holdout == 0.0
    with pytest.raises(ValueError, match="kept aside must lie in 0..0.5"):
        s.update(holdout=0.7)
    np.testing.assert_array_equal(aside, survival_session.held_out_rows(y["Status"], 0.3))


def test_the_held_out_control_keeps_rows_aside_and_undo_brings_them_back(veterans):
    studio = sw.Studio(*veterans, max_size=1, time_limit=LIMIT, holdout=0.25)
    try:
        assert studio.wait(LIMIT) and studio.holdout.value == 0.25
        assert "held-out rows" in html.unescape(studio.status.value)
        assert "Survival_in_days (training rows)</caption>" in studio.card_view.value
        studio.holdout.value = 0.0
        assert studio.wait(LIMIT) and "held-out" not in studio.status.value
        assert "training rows" not in studio.card_view.value
        studio.undo_button.click()
        assert studio.wait(LIMIT) and studio.holdout.value == 0.25
        assert "held-out rows" in html.unescape(studio.status.value)
    finally:
        studio.close()


def test_while_a_solve_runs_the_status_says_the_best_card_so_far(veterans):
    """Each card the proof finds reaches the status line with what is proven, until the solve's
    card replaces it; a report of an older solve is dropped."""
    s = SurvivalSession(*veterans, time_limit=LIMIT, max_size=2, start=False)
    said = []
    s.subscribe(lambda what: said.append(s.status) if "progress" in what else None)
    try:
        s.begin()
        assert s.wait(LIMIT)
        assert said and all(line.startswith("solving… best so far: ") for line in said)
        final = ", ".join(f"{rule} {p:+d}" for rule, p in s.card.card_points.items())
        assert said[-1].startswith(f"solving… best so far: {final} · 2 rules, C-index")
        assert "proven" in said[-1] and s.status.startswith("Harrell's C")
        told = len(said)
        s._progress(s._gen - 1, {"stale": 1}, "an older solve")
        assert "stale" not in s.status and len(said) == told
    finally:
        s.close()
