"""Risk cards in the studio (issue #13 item 6): the family switch, the risk table, the card's
own ROC and the background plan, with real solves on small data."""

from __future__ import annotations

import numpy as np
import pytest

import slimwidgets as sw
from slimwidgets.datasets import load_demo
from slimwidgets.toolbox.risk import wilson_interval
from slimwidgets.widgets import charts
from slimwidgets.widgets.controller import Controller
from slimwidgets.widgets.studio import Studio, card_payload

from studio_helpers import settle


@pytest.mark.slow
def test_switch_sets_aside_what_risk_cards_refuse_and_is_one_undo_step(make, small):
    c = make(max_fpr=0.2, margin=0.5, max_size=3)
    settle(c)
    decision = c.card
    c.set_family("risk")
    assert "set aside margin" in c.notice and "restores" in c.notice and "max FPR" not in c.notice
    settle(c)
    card = c.card
    # the cap carries over (it holds for the risk card's decision at risk >= 50 %); margin does not
    assert c.family == "risk" and c.spec.loss == "logistic" and c.spec.margin is None
    assert c.spec.max_fpr == 0.2 and c.spec.max_size == 3
    assert card.family == "risk" and sw.check_card(card, c.data, c.spec) == []
    assert card.train_metrics.fpr <= 0.2 + 1e-12
    assert (
        "log-loss" in c.status.text and "AUC" in c.status.text and "size cost" not in c.status.text
    )
    assert c.undo() and c.card is decision and c.spec.margin == 0.5 and c.spec.loss == "zero_one"
    assert c.redo() and c.card is card
    assert c.set_aside_text().startswith("margin")
    c.set_family("decision")  # back: the margin comes back, said so
    assert "restored margin" in c.notice and c.spec.margin == 0.5 and c.spec.max_fpr == 0.2
    settle(c)
    assert (
        c.card.family == "slim"
        and c.card.train_metrics.fpr <= 0.2 + 1e-12
        and c.set_aside_text() == ""
    )


def test_a_refused_switch_changes_nothing(make):
    c = make(max_size=3)
    settle(c)
    before = (c.spec, c.card)
    with pytest.raises(ValueError, match="family must be one of"):
        c.set_family("bayesian")
    assert (c.spec, c.card) == before


def test_risk_table_matches_a_count_from_the_rows(make, small):
    X, y = small
    c = make(max_size=3, holdout=0.3, random_state=1, loss="logistic")
    settle(c)
    card, table = c.card, c.risk_table()
    for which, data in (("train", c.data), ("val", c.validation)):
        scores = data.X @ np.asarray(card.coefficients, dtype=float)
        for _, row in table.iterrows():
            at = scores == row["score"]
            n, events = data.weight[at].sum(), data.weight[at & (data.y == 1)].sum()
            if n == 0:
                assert np.isnan(row[f"{which}_count"])
                continue
            lo, hi = wilson_interval(events, n)
            assert (row[f"{which}_count"], row[f"{which}_events"]) == (n, events)
            assert row[f"{which}_lower"] == pytest.approx(float(lo)) and row[
                f"{which}_upper"
            ] == pytest.approx(float(hi))
    assert np.allclose(table["predicted"], card.predicted_risk(table["score"]))
    assert card_payload(c)["risk_table"][0]["score"] == table["score"].iloc[0]


def test_risk_card_roc_and_auc_train_and_held_out(make):
    c = make(max_size=3, holdout=0.3, random_state=2, loss="logistic")
    settle(c)
    frames = c.chart_frames()
    roc, point = frames["roc"], frames["card"].set_index("set")
    assert set(roc["set"]) == {"train", "validation"}
    for which in ("train", "validation"):
        curve = roc[roc["set"] == which].sort_values(["fpr", "tpr"])
        area = float(
            np.sum(
                np.diff(curve["fpr"])
                * (curve["tpr"].to_numpy()[1:] + curve["tpr"].to_numpy()[:-1])
                / 2
            )
        )
        assert area == pytest.approx(point.loc[which, "auc"])  # the drawn curve is the AUC's curve
    assert frames["frontier"].empty  # no FPR-cap frontier for risk cards


def test_background_for_risk_cards_solves_the_path_only(make):
    c = make(max_size=3, loss="logistic")
    settle(c)
    kinds = {kind for kind, _, _ in c.sweep_views._plan(c.spec)}
    assert kinds == {"size"}
    assert {kind for kind, _, _ in c.sweep_views._plan(c.spec.replace(loss="zero_one"))} == {
        "fpr",
        "size",
    }


@pytest.mark.slow
def test_studio_switch_keeps_the_caps_and_names_what_it_set_aside(small):
    st = Studio(
        *small,
        max_fpr=0.2,
        margin=0.5,
        max_size=3,
        coef_range=(-3, 3),
        time_limit=1.0,
        frontier=False,
    )
    try:
        st.wait(300)
        assert st.family_note.value == ""
        st.family_toggle.value = "risk"
        st.wait(300)
        assert st.spec.loss == "logistic" and st.spec.max_fpr == 0.2 and not st.fpr_slider.disabled
        assert (
            "set aside: margin" in st.family_note.value
            and "restored when you switch back" in st.family_note.value
        )
        assert "set aside margin" in st.message.value
        payload = st.card_view.card
        assert (
            payload["family"] == "risk" and payload["risk_table"] and "auc" in payload["metrics"][0]
        )
        assert "risk_roc" in st.roc_view.datasets and st.roc_view.datasets["auc"][0][
            "text"
        ].startswith("AUC train")
        st.undo()
        assert st.family_toggle.value == "decision" and st.family_note.value == ""
        assert "frontier" in st.roc_view.datasets and st.card_view.card["risk_table"] is None
    finally:
        st.close()


def test_the_path_of_risk_cards_is_drawn_as_log_loss_by_size(small):
    c = Controller(*small, loss="logistic", coef_range=(-3, 3), time_limit=0.5, max_path_size=2)
    try:
        settle(c)
        assert c.wait_background(300)
        path = c.path_points()
        assert list(path["max_size"]) == [1, 2] and path["log_loss"].notna().all()
        for _, row in path.iterrows():  # each point is the log-loss of the card solved for it
            card = c.core.cache[row["key"]]
            assert (
                row["log_loss"] == pytest.approx(card.train_metrics.log_loss)
                and card.size <= row["max_size"]
            )
        best = charts.best_by_size(path, "log_loss")
        for size, group in path.groupby("size"):
            assert best.set_index("size").loc[size, "log_loss"] == group["log_loss"].min()
    finally:
        assert c.close()


def test_the_cli_prints_log_loss_and_auc_for_a_risk_card(tmp_path, capsys):
    from slimwidgets.cli import main

    X, y = load_demo(n_features=4)
    X.assign(Y=y).to_csv(tmp_path / "d.csv", index=False)
    code = main(
        [
            "fit",
            str(tmp_path / "d.csv"),
            "--target",
            "Y",
            "--loss",
            "logistic",
            "--coef-range",
            "-2:2",
            "--time-limit",
            "2",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "risk card · train log-loss" in out and "AUC" in out and "size cost" not in out


def test_an_edited_risk_card_says_its_cost_in_log_loss_and_auc(make):
    c = make(max_size=3, loss="logistic")
    settle(c)
    solved = c.card
    name, value = next((n, v) for n, v in zip(solved.feature_names, solved.coefficients) if v != 0)
    edited = c.edit({name: value + (1 if value > 0 else -1)})  # away from zero: the same features
    assert edited.family == "risk" and edited.multiplier == solved.multiplier
    cost = c.edit_cost()
    assert cost["log_loss"] == pytest.approx(
        edited.train_metrics.log_loss - solved.train_metrics.log_loss
    )
    if solved.status == "optimal" and not sw.check_card(edited, c.data, c.spec):
        assert (
            cost["log_loss"] >= -1e-9
        )  # the same size and multiplier: no edit beats a proven optimum
    assert (
        "log-loss" in c.status.text
        and "vs the solved card" in c.status.text
        and "error" not in c.status.text
    )
    assert card_payload(c)["cost_text"].startswith("edit vs the solved card: log-loss")


@pytest.mark.slow
def test_options_a_family_refuses_outside_the_controls_are_named_too(make):
    c = make(max_size=3, margin=0.5)
    settle(c)
    c.set_family("risk")
    assert "set aside" in c.notice and "margin" in c.notice and c.spec.margin is None
    settle(c)
    c.set_family("decision")
    assert c.spec.margin == 0.5 and "restored margin" in c.notice
