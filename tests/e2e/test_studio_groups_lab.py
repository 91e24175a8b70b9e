"""The studio's groups in a real JupyterLab: a user picks the group column, the per-group table
and the status in words appear under the card, each group is a labelled mark on the ROC plane,
and moving the gap slider re-solves under the gap, the table and the status following (and the
kernel agreeing). At 800, 1000, 1280 and 1600 px with the file browser open the card stays
first and the table lies inside the notebook area, nothing scrolling sideways. Screenshots of
each width go to test-artifacts/e2e/ (look at them).
"""

from __future__ import annotations

from lab import (
    HEIGHT,
    RAW_COLUMNS,
    WIDTHS,
    open_notebook,
    run_first_cell,
    scroll_to,
    side_panel,
    wait_kernel,
)

NOTEBOOK = "groups.ipynb"
CELL = """\
import numpy as np
from slimwidgets.datasets import load_demo
from slimwidgets.widgets import Studio
X, y = load_demo(n_features=5)
# a text column: the group only
X["sex"] = np.where(np.random.default_rng(0).random(len(X)) < 0.5, "F", "M")
studio = Studio(X, y, time_limit=60.0, frontier=False, alternatives=False, holdout=0.25,
                random_state=0)
studio"""

# The table, the status and the ROC plane's group labels as the page shows them.
TABLE = """() => {
  const panel = document.querySelector('.sw-groups');
  if (!panel) return null;
  const rows = [...panel.querySelectorAll('tbody tr')].map((r) => ({
    group: r.dataset.group,
    train: [...r.querySelectorAll('td .sw-group-train')].map((c) => c.textContent),
    held: [...r.querySelectorAll('td .sw-group-held')].map((c) => c.textContent)}));
  const labels = [...document.querySelectorAll('.sw-roc svg g.mark-text.role-mark text')]
    .map((t) => t.textContent);
  const legends = document.querySelectorAll('.sw-roc svg g.role-legend').length;
  return {column: panel.dataset.column, legends,
          status: (panel.querySelector('.sw-groups-status') || {}).textContent,
          notice: (panel.querySelector('.sw-groups-notice') || {}).textContent || '', rows, labels};
}"""

MEASURE = """() => {
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom};
  };
  const area = box(document.querySelector('.jp-NotebookPanel-notebook'));
  const panel = document.querySelector('.sw-groups');
  const parts = [panel.querySelector('.sw-groups-status'), ...panel.querySelectorAll('th, td')];
  const outside = parts.filter((p) => { const b = box(p); return b.left < area.left - 0.5 ||
                                        b.right > area.right + 0.5; })
                       .map((p) => ({text: p.textContent, box: box(p)}));
  const scrolling = [];
  for (let e = panel; e && !e.classList.contains('jp-NotebookPanel-notebook');
       e = e.parentElement) {
    const style = getComputedStyle(e);
    if (e.scrollWidth > e.clientWidth + 1
        && !['visible', 'hidden', 'clip'].includes(style.overflowX))
      scrolling.push({part: e.className, scrollWidth: e.scrollWidth, clientWidth: e.clientWidth});
  }
  const gap = box(document.querySelector('.sw-max-gap'));
  const fpr = box(document.querySelector('.sw-max-fpr'));
  return {outside, scrolling, parts: parts.length,
          card: box(document.querySelector('.sw-card-view')),
          roc: box(document.querySelector('.sw-roc')), table: box(panel), gap, fpr};
}"""


def table_in_page(page) -> dict:
    return page.evaluate(TABLE)


def kernel_table(k) -> list[dict]:
    return k.value(
        "[{'group': r['group'], 'train': [r['train'][m] for m in ('n', 'TPR', 'FPR', 'error')], "
        "'held': [r['held_out'][m] for m in ('n', 'TPR', 'FPR', 'error')]} "
        "for r in studio.groups_view.view['rows']]"
    )


def test_pick_a_group_column_and_move_the_gap_slider(lab, page, kernel_for, shot):
    page.set_viewport_size({"width": WIDTHS[-1], "height": HEIGHT})
    k = open_notebook(lab, page, kernel_for, NOTEBOOK, [CELL])
    run_first_cell(page)
    try:
        wait_kernel(k, "studio.wait(1)")
        assert page.locator(".sw-groups-view").is_hidden()  # no column yet: the card alone
        # -- the user picks "sex" ------------------------------------------------------------------
        page.select_option(".sw-group-pick select", label="sex")
        wait_kernel(k, "studio.controller.group == 'sex' and studio.wait(1)")
        page.wait_for_selector(
            ".sw-groups[data-column='sex'] tbody tr[data-group='M']", timeout=60_000
        )
        page.wait_for_function(
            "() => document.querySelectorAll('.sw-roc svg g.mark-text.role-mark text').length "
            "=== 2",
            timeout=60_000,
        )
        picked = table_in_page(page)
        assert [r["group"] for r in picked["rows"]] == ["F", "M"]
        assert sorted(picked["labels"]) == [
            "F",
            "M",
        ]  # one labelled mark per group on the ROC plane
        assert picked["legends"] == 1, "the group marks split the ROC plane's legend"
        assert [
            {k_: r[k_] for k_ in ("group", "train", "held")} for r in picked["rows"]
        ] == kernel_table(k)
        assert picked["status"] == k.value("studio.controller.group_status()")
        assert picked["status"].startswith("TPR gap between groups ")
        shot(page, "picked")
        # -- the user turns the gap on and moves its slider down with the keyboard -----------------
        page.click(".sw-max-gap-none input")
        wait_kernel(k, "studio.spec.max_tpr_gap == 0.05 and studio.wait(1)")
        page.locator(".sw-max-gap .noUi-handle").first.focus()
        for _ in range(4):
            page.keyboard.press("ArrowLeft")  # 0.5 % a step
        wait_kernel(k, "abs((studio.spec.max_tpr_gap or 0) - 0.03) < 1e-9 and studio.wait(1)")
        want = k.value("studio.controller.group_status()")
        assert "\u2264 3 %" in want
        page.wait_for_function(
            "s => (document.querySelector('.sw-groups-status') || {}).textContent === s",
            arg=want,
            timeout=60_000,
        )
        moved = table_in_page(page)
        assert [
            {k_: r[k_] for k_ in ("group", "train", "held")} for r in moved["rows"]
        ] == kernel_table(k)
        tprs = [float(r["train"][1].rstrip(" %")) for r in moved["rows"]]
        assert max(tprs) - min(tprs) <= 3.0 + 0.1  # as the table shows it (rounded to 0.1 pt)
        assert k.value("studio.controller.violations()") == []
        assert "TPR gap between groups \u2264 3 %" in page.inner_text(".sw-card-view .sw-spec")
        shot(page, "gap-moved")
        # -- at every width, with the file browser open: the card first, the table in view ---------
        side_panel(page, True)
        for width in WIDTHS:
            scroll_to(page, ".sw-card-view", width)
            m = page.evaluate(MEASURE)
            shot(page, f"groups-{width}-panel-open")
            scroll_to(page, ".sw-controls")
            shot(page, f"groups-{width}-panel-open-controls")
            assert m["parts"] >= 10, "the table was not drawn"
            assert m["outside"] == [], (
                f"{width} px: parts of the table lie outside the notebook area: {m['outside']}"
            )
            assert m["scrolling"] == [], (
                f"{width} px: something around the table scrolls sideways: {m['scrolling']}"
            )
            assert (
                m["card"]["left"] <= m["roc"]["left"] + 1
                and m["card"]["top"] <= m["roc"]["top"] + 1
            ), f"{width} px: the card does not come first: card {m['card']}, ROC {m['roc']}"
            assert m["table"]["top"] >= m["card"]["bottom"] - 1, (
                "the table must come under the card"
            )
        assert page.blocked_requests == [], page.blocked_requests[:5]
    finally:
        k.run("studio.close()")


RISK_CELL = """\
import numpy as np
from slimwidgets.datasets import load_demo
from slimwidgets.widgets import Studio
X, y = load_demo(n_features=5)
X["sex"] = np.where(np.random.default_rng(0).random(len(X)) < 0.5, "F", "M")
studio = Studio(X, y, sensitive_features="sex", loss="logistic", time_limit=60.0, frontier=False,
                alternatives=False,
                holdout=0.25, random_state=0)
studio"""

GROUP_LABELS = """() => [...document.querySelectorAll('.sw-roc svg g.mark-text.role-mark text')]
    .map((t) => t.textContent).filter((t) => !t.startsWith('AUC'))"""


def look_at_every_width(page, shot, name: str) -> None:
    """Screenshots at each width with the file browser open: the ROC plane, then the controls;
    the group labels stay drawn and the table stays in the notebook area."""
    side_panel(page, True)
    for width in WIDTHS:
        scroll_to(page, ".sw-roc", width)
        shot(page, f"{name}-{width}-panel-open")
        scroll_to(page, ".sw-card-view")
        shot(page, f"{name}-{width}-panel-open-card")
        m = page.evaluate(MEASURE)
        assert m["outside"] == [], (
            f"{width} px: parts of the table lie outside the notebook area: {m['outside']}"
        )
        assert m["scrolling"] == [], (
            f"{width} px: something around the table scrolls sideways: {m['scrolling']}"
        )
        assert sorted(page.evaluate(GROUP_LABELS)) == ["F", "M"]


def test_the_risk_cards_roc_has_a_labelled_mark_per_group(lab, page, kernel_for, shot):
    page.set_viewport_size({"width": WIDTHS[-1], "height": HEIGHT})
    k = open_notebook(lab, page, kernel_for, "groups-risk.ipynb", [RISK_CELL])
    run_first_cell(page, ready=".sw-card-view")
    try:
        wait_kernel(k, "studio.wait(1) and studio.controller.card is not None")
        assert k.value("studio.controller.card.family") == "risk"
        page.wait_for_function(f"() => ({GROUP_LABELS})().length === 2", timeout=60_000)
        assert sorted(page.evaluate(GROUP_LABELS)) == ["F", "M"]
        assert (
            page.evaluate("() => document.querySelectorAll('.sw-roc svg g.role-legend').length")
            == 1
        )
        # each mark where the kernel puts it: the group's TPR and FPR at the card's decision
        marks = k.value(
            "[(m['group'], round(m['tpr'], 6), round(m['fpr'], 6), m['at']) "
            "for m in studio.roc_view.datasets['groups']]"
        )
        frame = k.value(
            "[(g, round(t, 6), round(f, 6)) for g, t, f in studio.controller.group_frame()"
            ".query(\"set == 'train'\")[['group', 'TPR', 'FPR']].itertuples(index=False)]"
        )
        assert [list(m[:3]) for m in marks] == [list(f) for f in frame]
        assert all(m[3].endswith("(predicted risk \u2265 50 %)") for m in marks)
        page.wait_for_selector(
            ".sw-groups[data-column='sex'] tbody tr[data-group='M']", timeout=60_000
        )
        look_at_every_width(page, shot, "risk-roc")
        assert page.blocked_requests == [], page.blocked_requests[:5]
    finally:
        k.run("studio.close()")


CUTS_CELL = (
    RAW_COLUMNS
    + """\
studio = Studio(X, y, max_size=3, cuts={"age": [50, 60], "bmi": [25, 30]}, time_limit=20.0,
                frontier=False,
                alternatives=False, holdout=0.25, random_state=0)
studio"""
)
AGE = ".sw-cuts-view .sw-cutvar[data-variable='age']"


def test_a_group_picked_after_a_cut_moved_and_a_cut_moved_with_the_group_picked(
    lab, page, kernel_for, shot
):
    page.set_viewport_size({"width": WIDTHS[-1], "height": HEIGHT})
    k = open_notebook(lab, page, kernel_for, "groups-cuts.ipynb", [CUTS_CELL])
    run_first_cell(page, ready=f"{AGE} .sw-cut-marker")
    try:
        wait_kernel(k, "studio.wait(1)")
        # the user adds a cut at 70, then picks "sex" (a text column that became rules) as the group
        page.fill(f"{AGE} .sw-cut-add", "70")
        page.press(f"{AGE} .sw-cut-add", "Enter")
        wait_kernel(
            k, "studio.controller.cut_points()['age'] == [50.0, 60.0, 70.0] and studio.wait(1)"
        )
        page.select_option(".sw-group-pick select", label="sex")
        wait_kernel(k, "studio.controller.group == 'sex' and studio.wait(1)")
        assert k.value("studio.controller.cut_points()['age']") == [50.0, 60.0, 70.0]
        assert k.value("studio.controller.data.sensitive_name") == "sex"
        page.wait_for_selector(
            ".sw-groups[data-column='sex'] tbody tr[data-group='M']", timeout=60_000
        )
        page.wait_for_function(f"() => ({GROUP_LABELS})().length === 2", timeout=60_000)
        # kept off the card while it is the group: its use says "exclude", the card has no row of it
        assert (
            page.input_value(".sw-cuts-view .sw-cutvar[data-variable='sex'] select.sw-cut-use")
            == "exclude"
        )
        assert page.locator(".sw-card-view tr.sw-var-row[data-variable='sex']").count() == 0
        assert "kept off the card" in page.inner_text(".sw-message")
        assert [
            {k_: r[k_] for k_ in ("group", "train", "held")} for r in table_in_page(page)["rows"]
        ] == kernel_table(k)
        # the user moves the cut at 70 to 65 with the group picked: the table follows the new rules
        page.fill(f"{AGE} .sw-cut-value[data-cut='70']", "65")
        page.press(f"{AGE} .sw-cut-value[data-cut='70']", "Enter")
        wait_kernel(
            k, "studio.controller.cut_points()['age'] == [50.0, 60.0, 65.0] and studio.wait(1)"
        )
        assert (
            k.value("studio.controller.group") == "sex"
            and k.value("studio.controller.violations()") == []
        )
        want = k.value("studio.controller.group_status()")
        page.wait_for_function(
            "s => (document.querySelector('.sw-groups-status') || {}).textContent === s",
            arg=want,
            timeout=60_000,
        )
        assert [
            {k_: r[k_] for k_ in ("group", "train", "held")} for r in table_in_page(page)["rows"]
        ] == kernel_table(k)
        look_at_every_width(page, shot, "cut-moved-with-group")
        scroll_to(page, ".sw-cuts-view")
        shot(
            page, "cut-moved-with-group-1600-cut-panel"
        )  # "sex" says "use exclude" while it is the group
        page.set_viewport_size({"width": WIDTHS[-1], "height": HEIGHT})
        page.click(".sw-undo")
        wait_kernel(
            k, "studio.controller.cut_points()['age'] == [50.0, 60.0, 70.0] and studio.wait(1)"
        )
        assert k.value("studio.controller.group") == "sex"
        page.wait_for_function(
            f"""() => [...document.querySelectorAll("{AGE} .sw-cut-marker")]
                .map((m) => m.dataset.cut)
                .join() === '50,60,70'""",
            timeout=30_000,
        )
        assert page.blocked_requests == [], page.blocked_requests[:5]
    finally:
        k.run("studio.close()")
