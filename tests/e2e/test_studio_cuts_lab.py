"""Cut points you can move, in a real JupyterLab: a studio from a raw table shows its card by
variable and a panel of each numeric variable's cut points on its histogram. A user types a new
cut (the card redraws with the new band), types something that is not a number (said in place,
nothing changes), drags a marker, and undoes. At 800, 1000, 1280 and 1600 px with the file
browser open the card comes first and the panel lies inside the notebook with nothing scrolling
sideways. Screenshots of each width go to test-artifacts/e2e/ (look at them).
"""

from __future__ import annotations

from lab import HEIGHT, RAW_TABLE, WIDTHS, open_notebook, run_first_cell, side_panel

NOTEBOOK = "cuts.ipynb"
CELL = (
    RAW_TABLE
    + """\
studio = Studio(X, y, max_size=3, cuts={"age": [50, 60], "bmi": [25, 30]}, time_limit=5.0,
                frontier=False,
                alternatives=False, holdout=0.25, random_state=0)
studio"""
)

AGE = ".sw-cuts-view .sw-cutvar[data-variable='age']"

# Where the card and the panel are, against the notebook's visible area (viewport pixels).
MEASURE = """() => {
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom};
  };
  const area = box(document.querySelector('.jp-NotebookPanel-notebook'));
  const panel = document.querySelector('.sw-cuts');
  const parts = [...panel.querySelectorAll(
    '.sw-cut-name, .sw-cut-hist, .sw-cut-value, '
    + '.sw-cut-add, .sw-cut-remove, .sw-cut-settings select')];
  const outside = parts.filter((p) => {
                         const b = box(p);
                         return b.left < area.left - 0.5 || b.right > area.right + 0.5;
                       })
                       .map((p) => ({part: p.className.baseVal ?? p.className, box: box(p)}));
  const scrolling = [];
  for (let e = panel; e && !e.classList.contains('jp-NotebookPanel-notebook');
       e = e.parentElement) {
    const style = getComputedStyle(e);
    if (e.scrollWidth > e.clientWidth + 1
        && !['visible', 'hidden', 'clip'].includes(style.overflowX))
      scrolling.push({part: e.className, scrollWidth: e.scrollWidth, clientWidth: e.clientWidth});
  }
  const card = box(document.querySelector('.sw-card-view'));
  const rows = [...document.querySelectorAll('.sw-card-view tr.sw-var-row')].map(box);
  const cardOut = rows.filter((b) => b.left < area.left - 0.5 || b.right > area.right + 0.5).length;
  return {outside, scrolling, parts: parts.length, panel: box(panel), card, area, cardOut,
          studio: box(document.querySelector('.sw-studio'))};
}"""


def bands(page, variable: str) -> list[str]:
    return page.evaluate(
        """(v) => [...document.querySelectorAll(
            `.sw-card-view tr.sw-var-row[data-variable='${v}'] .sw-band-label`)]
        .map((e) => e.textContent.trim())""",
        variable,
    )


def markers(page) -> list[str]:
    return page.evaluate(
        f"""() => [...document.querySelectorAll("{AGE} .sw-cut-marker")]
            .map((m) => m.dataset.cut)"""
    )


def test_a_user_moves_a_cut_point_and_the_card_redraws(lab, page, kernel_for, shot):
    page.set_viewport_size({"width": WIDTHS[-1], "height": HEIGHT})
    k = open_notebook(lab, page, kernel_for, NOTEBOOK, [CELL])
    run_first_cell(page, ready=f"{AGE} .sw-cut-marker")
    try:
        assert k.value("studio.wait(180)")
        page.wait_for_selector(".sw-card-view tr.sw-var-row", timeout=60_000)
        assert markers(page) == ["50", "60"]
        shot(page, "before")
        # type a cut that is not a number: said beside the variable, the cuts stay
        page.fill(f"{AGE} .sw-cut-add", "sixty")
        page.press(f"{AGE} .sw-cut-add", "Enter")
        page.wait_for_selector(f"{AGE} .sw-cut-error", timeout=30_000)
        assert "is not a number" in page.inner_text(f"{AGE} .sw-cut-error")
        assert page.input_value(f"{AGE} .sw-cut-add") == "sixty"
        assert k.value("studio.controller.cut_points()['age']") == [50.0, 60.0] and markers(
            page
        ) == ["50", "60"]
        # move 60 to 62 in its box: the rules are fit again and the card re-solves on them
        page.fill(f"{AGE} .sw-cut-value[data-cut='60']", "62")
        page.press(f"{AGE} .sw-cut-value[data-cut='60']", "Enter")
        page.wait_for_function(
            f"""() => [...document.querySelectorAll("{AGE} .sw-cut-marker")]
                .map((m) => m.dataset.cut)
                .join() === '50,62'""",
            timeout=30_000,
        )
        assert k.value("studio.wait(180)")
        assert k.value("studio.controller.cut_points()['age']") == [50.0, 62.0]
        page.wait_for_function(
            """() => [...document.querySelectorAll(
                ".sw-card-view tr.sw-var-row[data-variable='age'] .sw-band-label")]
                                  .some((e) => e.textContent.includes('62'))""",
            timeout=60_000,
        )
        shown = bands(page, "age")
        assert any("62" in b for b in shown) and not any("60" in b for b in shown), shown
        assert k.value(
            "[v for v, _ in studio.scoring_system.rules.points_table(studio.scoring_system.points)]"
        ) == page.evaluate(
            "() => [...document.querySelectorAll('.sw-card-view tr.sw-var-row')].map((r) => "
            "r.dataset.variable)"
        )
        assert page.query_selector(f"{AGE} .sw-cut-error") is None
        shot(page, "moved")
        # drag the marker at 62 to the right: a move to a round value
        page.evaluate(
            f"""() => document.querySelector("{AGE}").scrollIntoView({{block: 'center'}})"""
        )
        grip = page.query_selector(
            f"{AGE} .sw-cut-marker[data-cut='62'] .sw-cut-grip"
        ).bounding_box()
        x, y = grip["x"] + grip["width"] / 2, grip["y"] + grip["height"] / 2
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x + 30, y, steps=5)
        page.mouse.up()
        page.wait_for_function(
            f"""() => !document.querySelector("{AGE} .sw-cut-marker[data-cut='62']")""",
            timeout=30_000,
        )
        assert k.value("studio.wait(180)")
        dragged = k.value("studio.controller.cut_points()['age']")
        assert dragged[0] == 50.0 and dragged[1] > 62 and float(dragged[1]).is_integer(), dragged
        # undo twice: the drag, then the move; the panel and the card follow
        page.click(".sw-undo")
        page.click(".sw-undo")
        page.wait_for_function(
            f"""() => [...document.querySelectorAll("{AGE} .sw-cut-marker")]
                .map((m) => m.dataset.cut)
                .join() === '50,60'""",
            timeout=30_000,
        )
        assert k.value("studio.controller.cut_points()['age']") == [50.0, 60.0]
        side_panel(page, True)
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": HEIGHT})
            page.wait_for_timeout(400)  # let the notebook re-flow after a resize
            page.evaluate(
                "() => document.querySelector('.sw-card-view').scrollIntoView({block: 'start'})"
            )
            shot(page, f"cuts-{width}-card-panel-open")
            page.evaluate(
                "() => document.querySelector('.sw-cuts').scrollIntoView({block: 'start'})"
            )
            page.wait_for_timeout(200)
            m = page.evaluate(MEASURE)
            shot(page, f"cuts-{width}-panel-open")
            assert m["parts"] >= 10, "the panel was not drawn"
            assert m["outside"] == [], (
                f"{width} px: parts of the panel lie outside the notebook area: {m['outside']}"
            )
            assert m["scrolling"] == [], (
                f"{width} px: something around the panel scrolls sideways: {m['scrolling']}"
            )
            assert m["cardOut"] == 0, f"{width} px: the card by variable sticks out of the notebook"
            assert m["panel"]["top"] >= m["card"]["bottom"] - 1, (
                "the card comes first, the panel below it"
            )
        assert page.blocked_requests == [], page.blocked_requests[:5]
    finally:
        k.run("studio.close()")
