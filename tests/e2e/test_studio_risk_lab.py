"""Risk cards in the studio, in real JupyterLab (issue #13 item 6): the family switch is clicked,
the card then shows its risk table (score, predicted risk, observed rates train and held-out)
and the ROC plane its own ROC with its AUC; at 800, 1000, 1280 and 1600 px with the side panel
open both lie inside the visible notebook area with nothing scrolling sideways. Screenshots go to
test-artifacts/e2e/ (look at them)."""

from __future__ import annotations

import time

from lab import HEIGHT, WIDTHS, open_notebook, run_first_cell, scroll_to, side_panel

NOTEBOOK = "risk.ipynb"
CELL = """\
from slimwidgets.datasets import load_demo
from slimwidgets.widgets import Studio
X, y = load_demo(n_features=5)
studio = Studio(X, y, max_fpr=0.2, margin=0.5, max_size=3, coef_range=(-5, 5), time_limit=1.0,
                frontier=False,
                holdout=0.25, random_state=0)
studio"""

# Where the risk table and the ROC chart lie once each is scrolled into view (viewport pixels).
PLACE = """(sel) => {
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom};
  };
  const area = box(document.querySelector('.jp-NotebookPanel-notebook'));
  const node = document.querySelector(sel);
  node.scrollIntoView({block: 'start'});
  const b = box(node);
  const scrolling = [];
  const check = (e) => {
    const style = getComputedStyle(e);
    if (e.scrollWidth > e.clientWidth + 1
        && !['visible', 'hidden', 'clip'].includes(style.overflowX))
      scrolling.push({part: e.className, scrollWidth: e.scrollWidth, clientWidth: e.clientWidth});
  };
  for (let e = node; e && !e.classList.contains('jp-NotebookPanel-notebook');
       e = e.parentElement) check(e);
  node.querySelectorAll('*').forEach(check);  // inside it too: a table that scrolls in its own box
  return {area, box: b, scrolling};
}"""


def inside(place: dict) -> bool:
    a, b = place["area"], place["box"]
    return (
        b["left"] >= a["left"] - 0.5
        and b["right"] <= a["right"] + 0.5
        and b["top"] >= a["top"] - 0.5
        and b["bottom"] <= a["bottom"] + 0.5
    )


def test_switch_to_risk_cards_shows_the_risk_table_and_the_card_roc(lab, page, kernel_for, shot):
    page.set_viewport_size({"width": WIDTHS[-1], "height": HEIGHT})
    k = open_notebook(lab, page, kernel_for, NOTEBOOK, [CELL])
    run_first_cell(page)
    try:
        end = time.monotonic() + 120
        while not k.value("studio.wait(1)"):
            assert time.monotonic() < end, "the studio did not settle"
        page.click(".sw-family button:has-text('risk card')")
        page.wait_for_selector(".sw-risk-table tbody tr", timeout=120_000)
        page.wait_for_function(
            "() => [...document.querySelectorAll('.sw-roc svg text')]"
            ".some((t) => t.textContent.startsWith('AUC train'))",
            timeout=60_000,
        )
        end = (
            time.monotonic() + 120
        )  # the risk card's own solve settles (its status says its figures then)
        while not k.value("studio.wait(1)"):
            assert time.monotonic() < end, "the risk card did not settle"
        assert (
            k.value("studio.spec.loss") == "logistic"
            and k.value("studio.scoring_system.family") == "risk"
        )
        # the margin (no use for risk cards) is set aside visibly; the FPR cap carries over
        assert "set aside margin" in page.inner_text(".sw-message")
        assert "set aside: margin" in page.inner_text(".sw-family-note")
        assert not page.locator(".sw-max-fpr-none input").is_disabled()
        status = page.inner_text(".sw-card-view .sw-status-text")
        assert "log-loss" in status and "AUC" in status and "held-out" in status and "FPR" in status
        rows = k.value("len(studio.controller.risk_table())")
        assert page.locator(".sw-risk-table tbody tr").count() == rows
        assert page.locator(".sw-risk-table thead th").count() == 4  # with the held-out column
        side_panel(page, True)
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": HEIGHT})
            page.wait_for_timeout(400)
            for sel in (".sw-risk", ".sw-roc"):
                place = page.evaluate(PLACE, sel)
                assert inside(place), f"{width} px: {sel} lies outside the visible area: {place}"
                assert place["scrolling"] == [], (
                    f"{width} px: around {sel} something scrolls sideways: {place}"
                )
            page.evaluate(
                "() => document.querySelector('.sw-card-view').scrollIntoView({block: 'start'})"
            )
            page.wait_for_timeout(200)
            shot(page, f"risk-{width}-panel-open")
            page.evaluate(
                "() => document.querySelector('.sw-family-row').scrollIntoView({block: 'start'})"
            )
            page.wait_for_timeout(200)
            shot(page, f"risk-{width}-panel-open-controls")
        page.click(".sw-family button:has-text('decision card')")  # back: the margin comes back
        page.wait_for_function("() => !document.querySelector('.sw-risk-table')", timeout=120_000)
        assert k.value("studio.spec.max_fpr") == 0.2 and k.value("studio.spec.margin") == 0.5
    finally:
        k.run("studio.close()")


PATH_CELL = """\
from slimwidgets.datasets import load_demo
from slimwidgets.widgets import Studio
X, y = load_demo(n_features=6)
studio = Studio(X, y, loss="logistic", time_limit=1.0, max_path_size=4, alternatives=False,
                holdout=0.25,
                random_state=0)
studio"""

# every text of a chart (axis labels and titles, legend) against the
# chart's own box and the notebook
TEXTS = """(sel) => {
  const node = document.querySelector(sel);
  node.scrollIntoView({block: 'start'});
  const svg = node.querySelector('svg');
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom};
  };
  const area = box(document.querySelector('.jp-NotebookPanel-notebook'));
  const chart = box(svg);
  const out = [...svg.querySelectorAll('text')].filter((t) => t.textContent.trim())
    .map((t) => ({text: t.textContent, ...box(t)}))
    .filter((t) => t.left < Math.max(chart.left, area.left) - 0.5 ||
            t.right > Math.min(chart.right, area.right) + 0.5
                   || t.top < chart.top - 0.5 || t.bottom > chart.bottom + 0.5);
  const labels = [...svg.querySelectorAll('.role-axis-label text')].map((t) => t.textContent);
  return {chart, area, out, labels};
}"""


def test_the_log_loss_by_size_chart_shows_its_whole_axes(lab, page, kernel_for, shot):
    """A risk studio's size path drawn as log-loss by size: at 800, 1000, 1280 and 1600 px with the
    side panel open, every label and title of the chart lies inside the chart and the notebook."""
    page.set_viewport_size({"width": WIDTHS[-1], "height": HEIGHT})
    k = open_notebook(lab, page, kernel_for, "risk_path.ipynb", [PATH_CELL])
    run_first_cell(page)
    try:
        end = time.monotonic() + 300
        while not (k.value("studio.wait(1)") and k.value("studio.controller.wait_background(1)")):
            assert time.monotonic() < end, "the studio's size path did not finish"
        page.wait_for_function(
            "() => [...document.querySelectorAll('.sw-path svg text')]"
            ".some((t) => t.textContent.includes('log-loss'))",
            timeout=60_000,
        )
        side_panel(page, True)
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": HEIGHT})
            page.wait_for_timeout(400)
            seen = page.evaluate(TEXTS, ".sw-path")
            assert seen["out"] == [], f"{width} px: chart texts cut off: {seen}"
            assert len([t for t in seen["labels"] if t.startswith("0.")]) >= 2, seen[
                "labels"
            ]  # the y labels drawn
            shot(page, f"log-loss-by-size-{width}-panel-open")
    finally:
        k.run("studio.close()")


RAW_CELL = """\
import numpy as np, pandas as pd
from slimwidgets.widgets import Studio
rng = np.random.default_rng(0)
X = pd.DataFrame({"lwt": rng.integers(90, 200, 80).astype(float),
                  "race": rng.choice(["white", "black"], 80)})
y = ((X.lwt < 115) | ((X.race == "black") & (rng.random(80) < 0.5))).astype(int)
studio = Studio(X, y, loss="logistic", frontier=False, alternatives=False, time_limit=30)
studio"""


def test_a_risk_studio_on_a_raw_table_says_its_size_was_chosen_on_log_loss(
    lab, page, kernel_for, shot
):
    """A risk studio started on a raw table with fit's defaults: the size is chosen as ``fit``
    chooses it, and the message line says so in log-loss (no percentage); at 800, 1000, 1280 and
    1600 px with the side panel open the message lies inside the notebook."""
    page.set_viewport_size({"width": WIDTHS[-1], "height": HEIGHT})
    k = open_notebook(lab, page, kernel_for, "risk_raw.ipynb", [RAW_CELL])
    run_first_cell(page, ready=".sw-card-view")
    try:
        assert k.value("studio.controller.starting_size.join(300)")
        assert k.value("studio.wait(300)")
        said = k.value("studio.controller.notice")
        assert said.startswith("size chosen by 5-fold cross-validation"), said
        assert "mean held-out log-loss 0." in said and "%" not in said, said
        page.wait_for_function(
            "s => document.querySelector('.sw-message').textContent.includes(s)",
            arg=said,
            timeout=60_000,
        )
        side_panel(page, True)
        for width in WIDTHS:
            scroll_to(page, ".sw-message", width)
            inside = page.evaluate("""() => {
                const m = document.querySelector('.sw-message').getBoundingClientRect();
                const a = document.querySelector('.jp-NotebookPanel-notebook')
                    .getBoundingClientRect();
                return m.left >= a.left - 0.5 && m.right <= a.right + 0.5;
            }""")
            assert inside, f"{width} px: the message line runs out of the notebook"
            shot(page, f"risk-size-chosen-{width}-panel-open")
    finally:
        k.run("studio.close()")
