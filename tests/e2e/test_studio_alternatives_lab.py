"""The alternatives list in a real JupyterLab: it fills in under the card, a click on a row shows
that card (and the kernel agrees), and at 800, 1000, 1280 and 1600 px with the file browser open
the list lies inside the visible notebook area with nothing scrolling sideways. Screenshots of
each width go to test-artifacts/e2e/ (look at them).
"""

from __future__ import annotations

from lab import HEIGHT, WIDTHS, card_in_page, open_notebook, run_first_cell, side_panel

NOTEBOOK = "alternatives.ipynb"
CELL = """\
from slimwidgets.datasets import load_demo
from slimwidgets.widgets import Studio
X, y = load_demo()
studio = Studio(X, y, max_fpr=0.2, time_limit=2.0, frontier=False, alternatives=True, holdout=0.25,
                random_state=0)
studio"""

# Where the list's parts are, against the notebook's visible area (viewport pixels).
MEASURE = """() => {
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom};
  };
  const area = box(document.querySelector('.jp-NotebookPanel-notebook'));
  const list = document.querySelector('.sw-alts');
  const rows = [...list.querySelectorAll('li.sw-alt')].slice(0, 3);
  const of = (r) => [...r.querySelectorAll(
    '.sw-alt-rank, .sw-alt-feature, .sw-alt-fig, .sw-alt-size, .sw-alt-diff')];
  // the heading and the first row in full view; the rows after it scroll inside the list, but
  // none may stick out sideways
  const whole = [list.querySelector('.sw-alts-title'), list.querySelector('.sw-alts-state'),
                 ...of(rows[0])];
  const parts = [...whole, ...rows.slice(1).flatMap(of)];
  const out = (p) => {
    const b = box(p);
    return b.left < area.left - 0.5 || b.right > area.right + 0.5
           || (whole.includes(p) && (b.top < area.top - 0.5 || b.bottom > area.bottom + 0.5));
  };
  const outside = parts.filter(out).map((p) => ({part: p.className, text: p.textContent,
                                                 box: box(p)}));
  // a figure or a difference broken over two lines is hard to read: each must stay on one line
  const broken = parts.filter((p) => p.matches('.sw-alt-fig, .sw-alt-diff, .sw-alt-size')
                                      && p.getClientRects().length > 1
                                  || p.matches('.sw-alt-fig, .sw-alt-diff')
                                      && box(p).bottom - box(p).top > 30)
                      .map((p) => p.textContent);
  const scrolling = [];
  for (let e = list; e && !e.classList.contains('jp-NotebookPanel-notebook'); e = e.parentElement) {
    const style = getComputedStyle(e);
    if (e.scrollWidth > e.clientWidth + 1
        && !['visible', 'hidden', 'clip'].includes(style.overflowX))
      scrolling.push({part: e.className, scrollWidth: e.scrollWidth, clientWidth: e.clientWidth});
  }
  const card = box(document.querySelector('.sw-card-view'));
  return {outside, scrolling, broken, parts: parts.length, list: box(list), card, area};
}"""


def rows_in_page(page) -> list[dict]:
    return page.evaluate("""() => [...document.querySelectorAll('.sw-alts li.sw-alt')].map((r) => ({
        rank: Number(r.dataset.rank), current: r.classList.contains('sw-alt-current'),
        features: [...r.querySelectorAll('.sw-alt-fname')].map((f) => f.textContent)}))""")


def test_the_list_loads_a_card_on_click_and_fits_every_width(lab, page, kernel_for, shot):
    page.set_viewport_size({"width": WIDTHS[-1], "height": HEIGHT})
    k = open_notebook(lab, page, kernel_for, NOTEBOOK, [CELL])
    run_first_cell(page)
    try:
        assert k.value("studio.wait(120)") and k.value("studio.controller.wait_alternatives(300)")
        page.wait_for_selector(
            ".sw-alts[data-phase='done'] li.sw-alt[data-rank='2']", timeout=60_000
        )
        rows = rows_in_page(page)
        assert rows[0]["current"] and not rows[1]["current"]
        assert rows == [
            {
                "rank": r["rank"],
                "current": r["current"],
                "features": [f["name"] for f in r["features"]],
            }
            for r in k.value("studio.controller.alternatives()['rows']")
        ]
        before = card_in_page(page)
        page.click(".sw-alts li.sw-alt[data-rank='2']")
        page.wait_for_selector(".sw-alts li.sw-alt-current[data-rank='2']", timeout=30_000)
        page.wait_for_function(
            "() => document.querySelector('.sw-card-view .sw-status-text').textContent"
            ".startsWith('alternative 2')",
            timeout=30_000,
        )
        after = card_in_page(page)
        assert after["points"] != before["points"]
        shown = {n: p for n, p in after["points"].items() if p}
        assert sorted(shown) == sorted(rows[1]["features"])
        assert k.value("dict(studio.scoring_system.points)") == shown
        assert "loaded alternative 2" in page.inner_text(".sw-message")
        assert page.inner_text(".sw-alts-notice").startswith(
            "loaded alternative 2: "
        )  # and beside the list
        side_panel(page, True)
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": HEIGHT})
            page.wait_for_timeout(400)  # let the notebook re-flow after a resize
            page.evaluate(
                "() => document.querySelector('.sw-alts').scrollIntoView({block: 'start'})"
            )
            page.wait_for_timeout(200)
            m = page.evaluate(MEASURE)
            shot(page, f"alternatives-{width}-panel-open")
            assert m["parts"] >= 10, "the list was not drawn"
            assert m["outside"] == [], (
                f"{width} px: parts of the list lie outside the notebook area: {m['outside']}"
            )
            assert m["scrolling"] == [], (
                f"{width} px: something around the list scrolls sideways: {m['scrolling']}"
            )
            assert m["broken"] == [], f"{width} px: figures broken over two lines: {m['broken']}"
            assert m["list"]["top"] >= m["card"]["bottom"] - 1, "the list must come under the card"
        assert page.blocked_requests == [], page.blocked_requests[:5]
    finally:
        k.run("studio.close()")
