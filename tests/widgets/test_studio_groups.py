"""The studio's groups (issue 22 item 3), with real solves: the group column picked from the
data (a text column kept apart from the rules), the gap control, the per-group table (train and
held-out, cross-checked against ``sw.group_rates`` and scikit-learn), the status in words, one
undo step per edit, a clash explained with the previous card kept, and the risk family's refusal."""

from __future__ import annotations

import threading
import time

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import recall_score

import slimwidgets as sw
from slimwidgets.core.groups import group_problems
from slimwidgets.core.spec import make_spec
from slimwidgets.datasets import load_demo
from slimwidgets.widgets.controller import Controller
from slimwidgets.widgets.groups import gap_words, group_candidates, group_status
from slimwidgets.widgets.holdout import split_holdout

from studio_helpers import settle

LIMIT = 120.0  # seconds per solve: only a bound against a hang; these proofs take well under it


@pytest.fixture(scope="module")
def table():
    """The demo's 5 rules beside a text column "sex" (drawn once, seeded) and a numeric "site"."""
    X, y = load_demo(n_features=5)
    rng = np.random.default_rng(0)
    X = X.copy()
    X["sex"] = np.where(rng.random(len(X)) < 0.5, "F", "M")
    X["site"] = rng.integers(1, 4, len(X))
    return X, y


@pytest.fixture
def studio(table):
    made = []

    def factory(**kw):
        kw.setdefault("time_limit", LIMIT)
        kw.setdefault("frontier", False)
        c = Controller(*table, exclude=["site"], **kw)
        made.append(c)
        return c

    yield factory
    for c in made:
        assert c.close(), "a controller left a worker thread running"


def test_candidates_are_the_columns_with_few_values():
    X = pd.DataFrame({"age": np.arange(20), "sex": ["F", "M"] * 10, "one": 1})
    assert list(group_candidates(X)) == ["sex"]
    assert list(group_candidates(X, np.array(["a", "b"] * 10))) == ["sex", "group"]
    with pytest.raises(KeyError, match="'nope' is not a column of X"):
        group_candidates(X, "nope")


@pytest.mark.slow
def test_a_text_group_column_is_the_group_only_and_the_table_matches_group_rates(studio, table):
    X, y = table
    c = studio(sensitive_features="sex", holdout=0.25, random_state=0)
    settle(c)
    assert c.group == "sex" and "sex" in c.group_columns and "site" in c.group_columns
    assert "sex" not in c.data.feature_names and c.data.sensitive_name == "sex"
    assert c.data.sensitive_levels == ("F", "M")
    frame = c.group_frame()
    # the same split as the studio's: the table's figures are sw.group_rates' on those rows
    X_tr, y_tr, _, X_va, y_va, _ = split_holdout(X, y, 0.25, random_state=0)
    for which, rows, labels in (("train", X_tr, y_tr), ("validation", X_va, y_va)):
        want = sw.group_rates(c.card, rows, labels, "sex").set_index("group")
        got = frame[frame["set"] == which].set_index("group")
        assert got["n"].to_dict() == want["n"].to_dict()
        for rate in ("TPR", "FPR", "error"):
            assert np.allclose(got[rate], want.loc[got.index, rate])
        for g in ("F", "M"):  # and scikit-learn's recall is the TPR
            mask = (rows["sex"] == g).to_numpy()
            pred = c.card.predict(rows.drop(columns=["sex"])[mask])
            assert got.loc[g, "TPR"] == pytest.approx(
                recall_score(np.asarray(labels)[mask], pred, pos_label=1)
            )
    assert set(frame["color"]) == {"#0072B2", "#D55E00"} and set(frame["shape"]) == {
        "square",
        "triangle-up",
    }


@pytest.mark.slow
def test_the_gap_is_held_proven_and_said_in_words(studio, table):
    X, y = table
    c = studio(sensitive_features="sex")
    settle(c)
    steps = len(c.core.undo.states)
    c.set_gap("TPR", 0.02)
    settle(c)
    assert c.spec.max_tpr_gap == 0.02 and c.spec.max_fpr_gap is None
    assert len(c.core.undo.states) == steps + 1  # one edit, one undo step
    card = c.card
    rates = sw.group_rates(card, X, y, "sex")
    gap = rates["TPR"].max() - rates["TPR"].min()
    assert gap <= 0.02 + 1e-12 and group_problems(card, c.data, c.spec) == []
    assert card.status == "optimal"
    # the same proof from sw.fit on the same rows: the same optimum
    alone = sw.fit(
        X.drop(columns=["sex"]),
        y,
        sensitive_features=X["sex"],
        max_tpr_gap=0.02,
        exclude=["site"],
        time_limit=LIMIT,
        rules=False,
    )  # the studio's size, not one chosen by CV
    assert alone.status == "optimal" and alone.objective == pytest.approx(card.objective, abs=1e-9)
    words = c.group_status()
    assert words.startswith(f"TPR gap between groups {100 * gap:.1f} % \u2264 2 %")
    assert words.endswith("proven best under these caps")
    # the FPR gap: the control holds one gap, so the TPR gap is lifted
    c.set_gap("FPR", 0.05)
    settle(c)
    assert c.spec.max_fpr_gap == 0.05 and c.spec.max_tpr_gap is None
    assert c.gap_control() == ("FPR", 0.05)
    assert c.group_status().startswith("FPR gap between groups ")
    c.undo()
    assert c.spec.max_tpr_gap == 0.02 and c.spec.max_fpr_gap is None


@pytest.mark.slow
def test_picking_a_column_is_one_undo_step_and_each_column_solves_on_its_own_groups(studio):
    c = studio(sensitive_features="sex", max_tpr_gap=0.02)
    settle(c)
    by_sex = c.card
    assert c.group_frame()["group"].tolist() == ["F", "M"]
    steps, solves = len(c.core.undo.states), c.solve_count
    c.set_group("site")
    settle(c)
    assert c.group == "site" and c.data.sensitive_levels == ("1", "2", "3")
    assert len(c.core.undo.states) == steps + 1
    assert c.solve_count == solves + 1, (
        "a gap between sexes is not a gap between sites: solved again"
    )
    assert group_problems(c.card, c.data, c.spec) == []
    assert c.group_frame()["group"].tolist() == ["1", "2", "3"]
    c.undo()
    assert c.group == "sex" and c.card is by_sex and c.data.sensitive_name == "sex"
    c.redo()
    assert c.group == "site"
    # back to "sex": its card comes from its own cache, not solved again
    solves = c.solve_count
    c.set_group("sex")
    settle(c)
    assert c.solve_count == solves and c.card.coefficients == by_sex.coefficients
    # no column: the gap has no meaning, dropped and said so
    c.set_group(None)
    settle(c)
    assert (
        c.group is None
        and c.spec.max_tpr_gap is None
        and "dropped the caps between groups" in c.notice
    )
    with pytest.raises(ValueError, match="pick a group column first"):
        c.set_gap("TPR", 0.05)
    with pytest.raises(KeyError, match="not a group column"):
        c.set_group("nope")


@pytest.mark.slow
def test_a_clash_keeps_the_previous_card_and_names_the_settings(studio):
    c = studio(sensitive_features="sex", max_fpr=0.2, min_tpr=0.85)
    settle(c)
    before, spec = c.card, c.spec
    c.set_gap("TPR", 0.0)
    settle(c)
    assert c.card is before and c.spec == spec and c.group == "sex"
    assert c.status.state == "infeasible"
    assert "max_tpr_gap=0 between groups" in c.status.text and "min_tpr=0.85" in c.status.text
    assert "kept the previous card" in c.notice


@pytest.mark.slow
def test_risk_cards_refuse_the_gap_with_the_engines_reason_or_hold_it(studio):
    try:  # the engine may learn group rows for risk cards (issue 22): then the gap carries over
        make_spec(loss="logistic", max_tpr_gap=0.05)
        refusal = None
    except ValueError as exc:
        refusal = str(exc)
    c = studio(sensitive_features="sex", max_tpr_gap=0.05)
    settle(c)
    c.set_family("risk")
    settle(c)
    frame = c.group_frame()  # a risk card in each group, at its decision (risk >= 50 %)
    assert frame["group"].tolist() == ["F", "M"]
    if refusal is None:
        assert c.spec.max_tpr_gap == 0.05 and group_problems(c.card, c.data, c.spec) == []
        return
    assert (
        c.spec.max_tpr_gap is None and "set aside TPR gap between groups" in c.notice
    )  # set aside, said
    with pytest.raises(ValueError) as refused:
        c.set_gap("TPR", 0.05)
    assert str(refused.value) == refusal and "max_tpr_gap" in refusal


def test_status_words_without_a_bound_and_while_solving():
    frame = pd.DataFrame(
        {"group": ["F", "M"], "set": "train", "TPR": [0.5, 0.7], "FPR": [0.1, 0.25]}
    )
    spec = sw.Spec()
    assert gap_words(frame, spec) == ["TPR gap between groups 20.0 %", "FPR gap 15.0 %"]
    card = sw.ScoringSystem(("a",), (1,), -1, status="optimal")
    assert group_status(card, frame, spec, "optimal").endswith("proven best (no group caps)")
    assert (
        group_status(card, frame, spec.replace(max_fpr_gap=0.2), "solving")
        == "FPR gap between groups 15.0 % \u2264 20 % · TPR gap 20.0 % · solving…"
    )
    assert group_status(None, frame, spec, "idle") == ""


@pytest.mark.slow
def test_the_studio_widgets_pick_a_column_move_the_gap_and_say_a_refusal_in_place(table):
    from slimwidgets.widgets.studio import Studio

    s = Studio(
        *table,
        exclude=["site"],
        time_limit=LIMIT,
        frontier=False,
        alternatives=False,
        holdout=0.25,
        random_state=0,
    )
    try:
        assert s.wait(300)
        column = s.children[0].children[0]
        assert (
            column.children[0] is s.card_view and column.children[1] is s.groups_view
        )  # the card first
        assert s.groups_view.view["column"] is None and s.groups_view.layout.display == "none"
        assert s.group_pick.options[1] == ("sex", "sex")  # columns of labels before 0/1 columns
        assert s.roc_view.datasets["groups"] == []
        s.group_pick.value = "sex"
        assert s.wait(300) and s.controller.group == "sex"
        assert s.groups_view.layout.display is None
        view = s.groups_view.view
        assert [r["group"] for r in view["rows"]] == ["F", "M"] and view["held_out"]
        assert all(
            set(r["train"]) == {"n", "TPR", "FPR", "error"} and r["held_out"] for r in view["rows"]
        )
        marks = s.roc_view.datasets["groups"]
        assert [(m["group"], m["color"], m["shape"]) for m in marks] == [
            ("F", "#0072B2", "square"),
            ("M", "#D55E00", "triangle-up"),
        ]
        assert s.roc_view.spec["layer"][-1]["mark"]["type"] == "text"  # each mark labelled
        # every layer reads a data set the view swaps in place (none renamed, none hoisted away)
        assert {layer["data"]["name"] for layer in s.roc_view.spec["layer"]} == set(
            s.roc_view.datasets
        )
        s.gap_slider.value = 0.03
        s.gap_none.value = False
        assert s.wait(300) and s.spec.max_tpr_gap == 0.03
        assert s.groups_view.view["status"].startswith("TPR gap between groups ")
        assert "\u2264 3 %" in s.groups_view.view["status"]
        s.gap_rate.value = "FPR"
        assert s.wait(300) and s.spec.max_fpr_gap == 0.03 and s.spec.max_tpr_gap is None
        assert s.groups_view.view["status"].startswith("FPR gap between groups ")
        s.undo()
        assert s.gap_rate.value == "TPR" and s.gap_slider.value == 0.03 and not s.gap_none.value
        s.group_pick.value = None  # no column: the gap is dropped, said
        assert s.wait(300) and s.spec.max_tpr_gap is None and s.gap_none.value
        assert "dropped the caps between groups" in s.message.value
        s.gap_none.value = False  # a gap without a column: refused in place, nothing changed
        assert "pick a group column first" in s.groups_view.view["notice"]
        assert s.gap_none.value and s.spec.max_tpr_gap is None
    finally:
        s.close()


def test_a_pick_made_while_a_worker_shows_the_spec_is_kept(table):
    """A user's pick arrives on the kernel's thread while a worker thread may be showing the spec
    in the controls (after a solve it reverted, say). The pick is the user's, not the sync's: it
    is taken, and the sync does not put the old column back over it."""
    from slimwidgets.widgets.studio import Studio

    s = Studio(*table, exclude=["site"], time_limit=LIMIT, frontier=False, alternatives=False)
    try:
        assert s.wait(300)
        in_sync, release = threading.Event(), threading.Event()
        family_controls = s._family_controls

        def held_mid_sync():  # the worker's sync, stopped halfway until the user has picked
            family_controls()
            if threading.current_thread().name == "worker":
                in_sync.set()
                assert release.wait(300)

        s._family_controls = held_mid_sync
        worker = threading.Thread(target=s._sync_controls, name="worker")
        worker.start()
        assert in_sync.wait(300)
        user = threading.Thread(target=lambda: setattr(s.group_pick, "value", "sex"))
        user.start()
        # the pick is taken at once (the old flag shared by every thread dropped it: the user's
        # thread ended with no column picked); against a hang only
        end = time.monotonic() + 300
        while s.controller.group != "sex" and user.is_alive() and time.monotonic() < end:
            time.sleep(0.01)
        picked = s.controller.group
        release.set()
        worker.join(300)
        user.join(300)
        assert picked == "sex" and s.wait(300)
        assert s.controller.group == "sex" and s.group_pick.value == "sex"
    finally:
        s.close()


@pytest.mark.slow
def test_the_risk_roc_carries_a_labelled_mark_per_group_at_the_cards_decision(table):
    """A risk card's ROC plane has the group marks as the decision card's has: each group's TPR
    and FPR at the card's own decision (predicted risk >= 50 %), as scikit-learn counts them."""
    from slimwidgets.widgets.studio import Studio

    X, y = table
    s = Studio(
        X,
        y,
        sensitive_features="sex",
        exclude=["site"],
        time_limit=LIMIT,
        frontier=False,
        alternatives=False,
        loss="logistic",
    )
    try:
        assert s.wait(300)
        card = s.controller.card
        assert card.family == "risk" and s.controller.group == "sex"
        marks = s.roc_view.datasets["groups"]
        assert [(m["group"], m["color"], m["shape"]) for m in marks] == [
            ("F", "#0072B2", "square"),
            ("M", "#D55E00", "triangle-up"),
        ]
        rows = X.drop(columns=["sex"])
        risk = card.predict_proba(rows).to_numpy()[:, 1]
        for m in marks:
            mask = (X["sex"] == m["group"]).to_numpy()
            decided = (risk[mask] >= 0.5).astype(int)
            assert np.array_equal(
                decided, np.asarray(card.predict(rows[mask]))
            )  # the decision is risk >= 50 %
            assert m["tpr"] == pytest.approx(recall_score(y[mask], decided))
            assert m["fpr"] == pytest.approx(1 - recall_score(y[mask], decided, pos_label=0))
            assert m["at"] == f"score \u2265 {card.threshold} (predicted risk \u2265 50 %)"
        layers = s.roc_view.spec["layer"]
        assert (
            layers[-1]["mark"]["type"] == "text"
            and layers[-1]["encoding"]["text"]["field"] == "group"
        )
        assert {layer["data"]["name"] for layer in layers} == set(
            s.roc_view.datasets
        )  # swapped in place
        marks_layers = [layer for layer in layers if layer["data"]["name"] == "groups"]
        assert len(marks_layers) == 14 and all(
            "color" not in layer["encoding"] for layer in marks_layers
        )  # no 2nd legend
        s.group_pick.value = None  # no column: no marks, the same chart
        assert s.wait(300) and s.roc_view.datasets["groups"] == []
        s.family_toggle.value = (
            "decision"  # the decision card's ROC keeps its marks with the group back
        )
        s.group_pick.value = "sex"
        assert s.wait(300) and s.controller.card.family != "risk"
        assert [m["group"] for m in s.roc_view.datasets["groups"]] == ["F", "M"]
        assert (
            s.roc_view.datasets["groups"][0]["at"] == f"score \u2265 {s.controller.card.threshold}"
        )
    finally:
        s.close()


def test_a_column_picked_later_is_kept_off_the_card_while_it_is_the_group():
    """A text column not named as ``sensitive_features`` became rules; picked from the group
    list it is kept off the card as ``sensitive_features=`` keeps it (the card proven as
    ``sw.fit`` proves it then), one undo step, its rules given back when the column goes; the
    user's own exclusion stays theirs, and a rule the card must use refuses the column."""
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"age": rng.integers(30, 85, 240), "sex": rng.choice(["F", "M"], 240)})
    y = ((X.age > 62) | ((X.sex == "M") & (rng.random(240) < 0.6))).astype(int)
    c = Controller(
        X,
        y,
        cuts={"age": [50, 60]},
        max_size=3,
        time_limit=LIMIT,
        frontier=False,
        alternatives=False,
        debounce=0.0,
    )
    try:
        settle(c)
        sex = [n for n in c.data.feature_names if n.startswith("sex")]
        free = c.card
        assert sex and any(free.points.get(n) for n in sex), "the card should use sex here"
        steps = len(c.core.undo.states)
        c.set_group("sex")
        settle(c)
        assert c.group == "sex" and c.group_apart == tuple(sex) and set(sex) <= set(c.spec.exclude)
        assert not any(c.card.points.get(n) for n in sex) and len(c.core.undo.states) == steps + 1
        assert "kept off the card" in c.notice and c.violations() == []
        assert next(v for v in c.cut_panel() if v["name"] == "sex")["use"] == "exclude"
        alone = sw.fit(
            X, y, sensitive_features="sex", cuts={"age": [50, 60]}, max_size=3, time_limit=LIMIT
        )
        assert alone.status == c.card.status == "optimal"
        assert alone.objective == pytest.approx(c.card.objective, abs=1e-9)
        grouped = c.card
        assert c.undo() and c.group is None and c.card is free and c.group_apart == ()
        assert not set(sex) & set(c.spec.exclude)
        assert c.redo() and c.group == "sex" and c.card is grouped and c.group_apart == tuple(sex)
        c.add_cut("age", 70)  # a cut moved keeps the column apart
        settle(c)
        assert c.group_apart == tuple(sex) and not any(c.card.points.get(n) for n in sex)
        c.set_group(None)
        settle(c)
        assert (
            not set(sex) & set(c.spec.exclude)
            and "gave the card back the rules of 'sex'" in c.notice
        )
        # the user's own exclusion is theirs: picking and clearing the column leaves it
        c.set_variable("sex", use="exclude")
        settle(c)
        c.set_group("sex")
        settle(c)
        assert c.group_apart == ()
        c.set_group(None)
        settle(c)
        assert set(sex) <= set(c.spec.exclude)
        c.set_spec(c.spec.replace(exclude=[], require=[sex[-1]]))
        settle(c)
        kept = c.spec
        with pytest.raises(ValueError, match="cannot be the group column while the card must use"):
            c.set_group("sex")
        assert c.group is None and c.spec == kept and c.group_apart == ()
    finally:
        assert c.close()


# -- the group labels on the ROC plane stay inside it and clear of each other ----------------------
def label_boxes(
    marks: pd.DataFrame, places: pd.DataFrame
) -> list[tuple[float, float, float, float]]:
    """Each label's box in the plot's pixels, as :func:`label_places` sizes a label."""
    from slimwidgets.widgets.charts import HEIGHT, WIDTH
    from slimwidgets.widgets.group_panel import LABEL_CHAR, LABEL_FONT

    out = []
    for name, (fx, ty) in zip(
        marks["group"], places[["label_fpr", "label_tpr"]].itertuples(index=False)
    ):
        w, h, cx, cy = LABEL_CHAR * len(name) + 2, LABEL_FONT + 2, fx * WIDTH, (1 - ty) * HEIGHT
        out.append((cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2))
    return out


def test_a_group_label_near_the_top_or_a_corner_stays_inside_the_plot():
    """The defect seen: a group whose TPR is near 100 % had its label above the plot's top edge."""
    from slimwidgets.widgets.charts import HEIGHT, WIDTH
    from slimwidgets.widgets.group_panel import label_places

    for tpr, fpr in [(1.0, 0.3), (0.995, 0.0), (1.0, 1.0), (0.0, 1.0), (0.0, 0.0), (0.5, 0.999)]:
        marks = pd.DataFrame({"group": ["female"], "tpr": [tpr], "fpr": [fpr]})
        (box,) = label_boxes(marks, label_places(marks))
        assert box[0] >= 0 and box[1] >= 0 and box[2] <= WIDTH and box[3] <= HEIGHT, (tpr, fpr, box)
    # with room, right of its mark and above it, as before
    marks = pd.DataFrame({"group": ["F"], "tpr": [0.5], "fpr": [0.5]})
    (box,) = label_boxes(marks, label_places(marks))
    assert box[0] > WIDTH / 2 and box[3] < HEIGHT / 2


@pytest.mark.slow
def test_group_labels_never_leave_the_plot_nor_cover_each_other():
    """Many random planes: 1 to 7 groups (the colours there are), names of 1 to 14 letters, marks
    anywhere, on the edges and sharing points: every label inside the plot, no two overlapping."""
    from slimwidgets.widgets.charts import HEIGHT, WIDTH
    from slimwidgets.widgets.group_panel import label_places

    rng = np.random.default_rng(7)
    for trial in range(400):
        k = int(rng.integers(1, 8))
        names = [
            "".join(rng.choice(list("abcdefghijkMW"), int(rng.integers(1, 15)))) for _ in range(k)
        ]
        spots = (
            rng.choice([0.0, 1.0, 0.5, 0.98], size=(k, 2)) if trial % 3 == 0 else rng.random((k, 2))
        )
        if trial % 5 == 0:
            spots[:] = spots[0]  # every group at one point (a card that decides alike in each)
        marks = pd.DataFrame({"group": names, "tpr": spots[:, 0], "fpr": spots[:, 1]})
        boxes = label_boxes(marks, label_places(marks))
        for b in boxes:
            assert (
                b[0] >= -1e-9 and b[1] >= -1e-9 and b[2] <= WIDTH + 1e-9 and b[3] <= HEIGHT + 1e-9
            ), (trial, b)
        for i in range(k):
            for j in range(i):
                a, b = boxes[i], boxes[j]
                assert (
                    min(a[2], b[2]) <= max(a[0], b[0]) + 1e-9
                    or min(a[3], b[3]) <= max(a[1], b[1]) + 1e-9
                ), (trial, names, spots.tolist())


def test_the_label_layers_read_the_places():
    """The chart draws each label at its place (centred there), not at a
    fixed offset from its mark."""
    from slimwidgets.widgets.group_panel import GROUP_MARK_COLS, group_marks_layers, label_places

    marks = pd.DataFrame(
        {
            "group": ["F", "M"],
            "tpr": [1.0, 0.4],
            "fpr": [0.1, 0.6],
            "n": [5, 5],
            "color": ["#0072B2", "#D55E00"],
            "shape": ["square", "triangle-up"],
            "at": ["", ""],
        }
    )
    marks[["label_fpr", "label_tpr"]] = label_places(marks)
    texts = [
        layer.to_dict()
        for layer in group_marks_layers(marks[GROUP_MARK_COLS])
        if layer.mark.type == "text"
    ]
    assert texts and all(
        t["encoding"]["x"]["field"] == "label_fpr"
        and t["encoding"]["y"]["field"] == "label_tpr"
        and t["mark"]["align"] == "center"
        and t["mark"]["baseline"] == "middle"
        for t in texts
    )


def test_the_cut_panel_says_at_the_group_column_why_it_is_kept_off_the_card():
    """The group column's block in the cut panel says, in words, that it is the group column and
    so kept off the card, and how to put it back (the "groups" control); its use cannot be turned
    back on while it is the group (refused with the reason, nothing changed); no other column
    says it, and once no column is the group neither does it."""
    from slimwidgets.widgets.cuts import GROUP_NOTE

    rng = np.random.default_rng(1)
    X = pd.DataFrame(
        {
            "age": rng.integers(30, 85, 240),
            "sex": rng.choice(["F", "M"], 240),
            "site": rng.integers(0, 3, 240),
        }
    )
    y = ((X.age > 62) | ((X.sex == "M") & (rng.random(240) < 0.6))).astype(int)
    c = Controller(
        X,
        y,
        cuts={"age": [50, 60]},
        max_size=3,
        time_limit=LIMIT,
        frontier=False,
        alternatives=False,
        debounce=0.0,
    )
    try:
        settle(c)
        assert all(v["group"] is None for v in c.cut_panel())
        for column in ("sex", "site"):  # a column of levels, then a numeric one with cut points
            c.set_group(column)
            settle(c)
            panel = {v["name"]: v for v in c.cut_panel()}
            assert panel[column]["use"] == "exclude" and panel[column]["group"] == GROUP_NOTE
            assert "kept off the card" in GROUP_NOTE and "\u201cno groups\u201d" in GROUP_NOTE
            assert [n for n, v in panel.items() if v["group"]] == [column]
            kept = c.spec
            with pytest.raises(
                ValueError, match=f"'{column}' is the group column: kept off the card"
            ):
                c.set_variable(column, use="auto")
            assert c.spec == kept and c.group == column
        c.set_group(None)
        settle(c)
        assert all(v["group"] is None for v in c.cut_panel())
        c.set_variable("sex", use="auto")  # no longer the group: its use is the user's again
    finally:
        assert c.close()


def test_a_group_label_stays_beside_its_mark():
    """A label goes to its mark's side, not anywhere free: a lone mark's label lies at LABEL_GAP
    from it (its corner sides a little further) wherever the mark is, right and above it when there
    is room; two marks close together each keep theirs beside them (the defect of a first placement:
    a label sent far down the plot by a rounding error in its cost)."""
    import math

    from slimwidgets.widgets.charts import HEIGHT, WIDTH
    from slimwidgets.widgets.group_panel import LABEL_GAP, label_places

    def reach(box, x, y):  # from the mark's centre to the nearest point of the box
        dx, dy = max(box[0] - x, 0, x - box[2]), max(box[1] - y, 0, y - box[3])
        return (dx * dx + dy * dy) ** 0.5

    rng = np.random.default_rng(3)
    for tpr, fpr in rng.random((300, 2)):
        marks = pd.DataFrame({"group": ["female"], "tpr": [tpr], "fpr": [fpr]})
        (box,) = label_boxes(marks, label_places(marks))
        x, y = fpr * WIDTH, (1 - tpr) * HEIGHT
        assert reach(box, x, y) <= math.hypot(LABEL_GAP, LABEL_GAP / 2) + 0.5, (
            tpr,
            fpr,
            box,
        )  # (a corner side)
        if 60 < x < WIDTH - 60 and 30 < y:
            assert box[0] > x and box[3] < y, (tpr, fpr, box)  # right and above
    marks = pd.DataFrame({"group": ["F", "M"], "tpr": [0.87, 0.90], "fpr": [0.13, 0.10]})
    for box, (_, m) in zip(label_boxes(marks, label_places(marks)), marks.iterrows()):
        assert reach(box, m.fpr * WIDTH, (1 - m.tpr) * HEIGHT) <= LABEL_GAP + 14, (m.group, box)
