"""The time-to-event family in the studio, in real JupyterLab and headless Chromium: a ``Surv``
y opens it; the card shows the risk of the event by the horizon per total score beside
Kaplan–Meier's observed risk; the Kaplan–Meier chart draws one curve per score band; the C-index
chart one point per size; a variable unticked in the page re-solves and undo brings the card
back; a horizon typed into the slider's readout changes the risk column; points typed into the
card make an edited card that says so, a rule's lock ticked re-solves with it, and the export
button writes the card; rows kept aside give a held-out C-index. At 800, 1000, 1280 and 1600 px
with the side panel open the card, its edits and the charts lie inside the notebook with nothing
scrolling sideways. Screenshots go to test-artifacts/e2e/ (look at them)."""

from __future__ import annotations

from lab import HEIGHT, WIDTHS, open_notebook, run_first_cell, side_panel, wait_kernel

NOTEBOOK = "survival.ipynb"
CELL = """\
from sksurv.datasets import load_veterans_lung_cancer
from slimwidgets.widgets import Studio
X, y = load_veterans_lung_cancer()
studio = Studio(X[["Karnofsky_score", "Celltype"]], y, max_size=2, time_limit=60)
studio"""

RISK_ROWS = "() => [...document.querySelectorAll('.sw-surv-risk tbody tr')].map((tr) => \
[...tr.querySelectorAll('td')].map((td) => td.textContent))"
CHART_TEXTS = "(sel) => [...document.querySelectorAll(sel + ' svg text')].map((t) => t.textContent)"
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
  for (let e = node; e && !e.classList.contains('jp-NotebookPanel-notebook'); e = e.parentElement)
    if (e.scrollWidth > e.clientWidth + 1
        && !['visible', 'hidden', 'clip'].includes(getComputedStyle(e).overflowX))
      scrolling.push(e.className);
  const inside = b.left >= area.left - 0.5 && b.right <= area.right + 0.5;
  return {area, box: b, inside, scrolling};
}"""


def _expected_rows(k) -> list[list[str]]:
    """The risk table as the kernel's session has it, in the page's words."""
    return k.value(
        "[[str(r.score), f'{r.rows:g}', f'{100 * r.predicted:.1f} %'] "
        "for r in studio.session.risk_table().itertuples()]"
    )


def _settle(k) -> None:
    wait_kernel(k, "studio.wait(1)", timeout=300)


def test_a_time_to_event_card_in_the_studio(lab, page, kernel_for, shot):
    page.set_viewport_size({"width": WIDTHS[-1], "height": HEIGHT})
    k = open_notebook(lab, page, kernel_for, NOTEBOOK, [CELL])
    run_first_cell(page, ready=".sw-survival .sw-surv-risk tbody tr")
    try:
        _settle(k)
        assert k.value("type(studio).__name__") == "SurvivalStudio"
        page.wait_for_function(
            "() => document.querySelectorAll('.sw-c-index svg .mark-symbol path').length >= 2",
            timeout=60_000,
        )
        # the card: risk by the horizon per total score, as the card and Kaplan–Meier say
        horizon = k.value("studio.session.horizon")
        caption = page.inner_text(".sw-surv-risk caption")
        assert caption == f"risk of the event by {horizon:g} Survival_in_days"
        shown = page.evaluate(RISK_ROWS)
        assert [row[:3] for row in shown] == _expected_rows(k)
        assert all("%" in row[3] for row in shown)  # the observed risk, with its interval
        assert "proven best" in page.inner_text(".sw-status-text")
        assert page.inner_text(".sw-family button.mod-active") == "time to event"
        # the Kaplan–Meier chart: one curve per score band, the horizon marked
        bands = k.value("list(dict.fromkeys(studio.session.km_frame()['score band'].astype(str)))")
        texts = page.evaluate(CHART_TEXTS, ".sw-km")
        assert all(band in texts for band in bands) and len(bands) >= 2, (bands, texts)
        assert any(t.startswith("Kaplan–Meier by score band") for t in texts)
        assert page.locator(".sw-km svg .mark-line path").count() == len(bands)
        assert any("Harrell's C by size" in t for t in page.evaluate(CHART_TEXTS, ".sw-c-index"))
        # what cannot apply says so in place
        assert "no false-positive rate" in page.inner_text(".sw-max-fpr-note")
        first = k.value("studio.scoring_system.card_points")
        _widths(page, shot, "start")
        _edit_and_undo(page, k, first)
        _type_a_horizon(page, k)
        _type_points_lock_and_export(page, k, first, shot)
        _widths(page, shot, "edited")
        _keep_rows_aside(page, k)
        page.set_viewport_size({"width": 1280, "height": HEIGHT})
        page.wait_for_timeout(500)
        page.evaluate("() => document.querySelector('.sw-survival').scrollIntoView()")
        shot(page, "survival-horizon-200-1280-panel-open")
        assert page.blocked_requests == [] and page.page_errors == []
    finally:
        k.run("studio.close()")


def _widths(page, shot, name: str) -> None:
    side_panel(page, True)
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": HEIGHT})
        page.wait_for_timeout(500)
        for sel in (".sw-surv-card", ".sw-edit-card", ".sw-km", ".sw-c-index", ".sw-family-row"):
            place = page.evaluate(PLACE, sel)
            assert place["inside"], f"{width} px: {sel} lies outside the notebook: {place}"
            assert place["scrolling"] == [], f"{width} px: around {sel} scrolls: {place}"
        page.evaluate("() => document.querySelector('.sw-survival').scrollIntoView()")
        page.wait_for_timeout(200)
        shot(page, f"survival-{name}-{width}-panel-open")
        page.evaluate("() => document.querySelector('.sw-family-row').scrollIntoView()")
        page.wait_for_timeout(200)
        shot(page, f"survival-{name}-{width}-panel-open-controls")
    page.set_viewport_size({"width": WIDTHS[-1], "height": HEIGHT})


def _edit_and_undo(page, k, first: dict) -> None:
    """Untick Celltype in the page: the card re-solves without it; undo brings the first back."""
    page.locator(".sw-features label:has-text('Celltype') input[type=checkbox]").click()
    wait_kernel(k, "'Celltype' in studio.session.settings.exclude", timeout=30)
    _settle(k)
    page.wait_for_function(
        "() => ![...document.querySelectorAll('.sw-surv-points td')]"
        ".some((td) => td.textContent.startsWith('Celltype'))",
        timeout=60_000,
    )
    assert not any(n.startswith("Celltype") for n in k.value("studio.scoring_system.card_points"))
    page.click("button:has-text('undo')")
    _settle(k)
    page.wait_for_function(
        "() => [...document.querySelectorAll('.sw-surv-points td')]"
        ".some((td) => td.textContent.startsWith('Celltype'))",
        timeout=60_000,
    )
    assert k.value("studio.scoring_system.card_points") == first
    assert page.locator(".sw-features label:has-text('Celltype') input").is_checked()


def _type_a_horizon(page, k) -> None:
    """A horizon typed into the slider's readout: the caption and the risk column follow."""
    readout = page.locator(".sw-horizon .widget-readout")
    readout.click()
    page.keyboard.press("Control+A")
    page.keyboard.type("200")
    page.keyboard.press("Enter")
    wait_kernel(k, "studio.session.horizon == 200", timeout=30)
    page.wait_for_function(
        "() => document.querySelector('.sw-surv-risk caption').textContent.includes('by 200 ')",
        timeout=30_000,
    )
    assert [row[:3] for row in page.evaluate(RISK_ROWS)] == _expected_rows(k)


def _type_points_lock_and_export(page, k, first: dict, shot) -> None:
    """Points typed into the card's first row: an edited card, said in the status line, with
    the kernel's risk table; its lock ticked: a solve with the rule fixed; the export button
    writes the card as Python; each one undo step."""
    rule = k.value("list(studio.scoring_system.card_points)[0]")
    points = first[rule] + 1
    box = page.locator(".sw-edit-card .sw-points-edit input").first
    box.fill(str(points))
    box.press("Enter")
    wait_kernel(k, "studio.scoring_system.status == 'edited'", timeout=60)
    _settle(k)
    page.wait_for_function(
        "() => document.querySelector('.sw-status-text').textContent"
        ".includes('edited (not optimized)')",
        timeout=30_000,
    )
    assert k.value("studio.scoring_system.card_points")[rule] == points
    assert [row[:3] for row in page.evaluate(RISK_ROWS)] == _expected_rows(k)
    page.evaluate("() => document.querySelector('.sw-survival').scrollIntoView()")
    shot(page, "survival-points-typed-1600-panel-open")
    page.locator(".sw-edit-card .sw-lock input").first.check()
    wait_kernel(k, f"studio.session.settings.lock == (({rule!r}, {points}),)", timeout=60)
    _settle(k)
    page.wait_for_function(
        "() => document.querySelector('.sw-status-text').textContent.includes('proven best')",
        timeout=60_000,
    )
    assert k.value("studio.scoring_system.card_points")[rule] == points
    assert page.locator(".sw-edit-card .sw-lock input").first.is_checked()
    page.select_option(".sw-export-format select", "python")
    page.click(".sw-export")
    page.wait_for_function(
        "() => document.querySelector('.sw-export-line').textContent"
        ".includes('wrote time_to_event_card.py')",
        timeout=30_000,
    )
    assert k.value("__import__('os').path.exists('time_to_event_card.py')")
    page.click("button:has-text('undo')")  # the click reaches the kernel on its own channel
    wait_kernel(k, "studio.session.settings.lock == () and studio.session.settings.edited")
    _settle(k)
    assert k.value("studio.scoring_system.status") == "edited"
    page.click("button:has-text('undo')")
    wait_kernel(k, "studio.session.settings.edited == ()")
    _settle(k)
    assert k.value("studio.scoring_system.card_points") == first
    page.wait_for_function(  # the rows of the card on screen, drawn again for it
        "(p) => { const box = document.querySelector('.sw-edit-card .sw-points-edit input');"
        " const lock = document.querySelector('.sw-edit-card .sw-lock input');"
        " return box && box.value === String(p) && !lock.checked; }",
        arg=first[rule],
        timeout=30_000,
    )
    page.locator(".sw-edit-card .sw-lock input").first.check()  # locked again: seen at widths
    wait_kernel(k, f"studio.session.settings.lock == (({rule!r}, {first[rule]}),)", timeout=60)
    _settle(k)


def _keep_rows_aside(page, k) -> None:
    """20 % of rows kept aside in the page: the status line gives Harrell's C on them too."""
    page.select_option(".sw-holdout select", label="20 % of rows")
    wait_kernel(k, "studio.session.settings.holdout == 0.2", timeout=30)
    _settle(k)
    page.wait_for_function(
        "() => document.querySelector('.sw-status-text').textContent.includes('held-out rows')",
        timeout=60_000,
    )
    assert k.value("studio.session.status") == page.inner_text(".sw-status-text")
    page.wait_for_function(  # the risk table says which rows it counts
        "() => document.querySelector('.sw-surv-risk caption').textContent"
        ".endsWith('(training rows)')",
        timeout=30_000,
    )
    assert [row[:3] for row in page.evaluate(RISK_ROWS)] == _expected_rows(k)
