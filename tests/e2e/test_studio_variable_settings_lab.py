"""The settings by variable in a real JupyterLab (issue 19): a user types a cap on variables in
the box beside max size (the card redraws with one variable, the "solved for" words say it),
types something that is no number (said in the message line, the cap in force shown again),
chooses "decreasing" for age in the cut panel (age's bands on the card no longer rise), and
undoes. At 800, 1000, 1280 and 1600 px with the file browser open the caps sit inside the
notebook. Screenshots of each width go to test-artifacts/e2e/ (look at them).
"""

from __future__ import annotations

from lab import HEIGHT, RAW_TABLE, WIDTHS, open_notebook, run_first_cell, side_panel

NOTEBOOK = "variable_settings.ipynb"
CELL = (
    RAW_TABLE
    + """\
studio = Studio(X, y, max_size=4, cuts={"age": [50, 60], "bmi": [25, 30]}, time_limit=5.0,
                frontier=False,
                alternatives=False)
studio"""
)

CAPS = ".sw-variable-caps"
VARS = ".sw-max-variables input"
MONOTONE = ".sw-cuts-view .sw-cutvar[data-variable='age'] select.sw-cut-monotone"

# The caps' boxes against the notebook's visible area (viewport pixels).
MEASURE = """() => {
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom};
  };
  const area = box(document.querySelector('.jp-NotebookPanel-notebook'));
  const parts = [...document.querySelectorAll('.sw-variable-caps input, .sw-variable-caps label, ' +
                                              '.sw-cut-settings select.sw-cut-monotone')];
  const outside = parts.filter((p) => { const b = box(p); return b.left < area.left - 0.5 ||
                                        b.right > area.right + 0.5; })
                       .map((p) => ({part: p.className, box: box(p)}));
  const label = document.querySelector('.sw-max-variables label');
  const clipped = label ? label.scrollWidth > label.clientWidth + 1 : true;
  return {outside, parts: parts.length, clipped};
}"""


def card_variables(page) -> list[str]:
    return page.evaluate(
        "() => [...document.querySelectorAll('.sw-card-view tr.sw-var-row')].map((r) => "
        "r.dataset.variable)"
    )


def test_a_user_caps_the_variables_and_makes_age_decreasing(lab, page, kernel_for, shot):
    page.set_viewport_size({"width": WIDTHS[-1], "height": HEIGHT})
    k = open_notebook(lab, page, kernel_for, NOTEBOOK, [CELL])
    run_first_cell(page, ready=VARS)
    try:
        assert k.value("studio.wait(180)")
        page.wait_for_selector(".sw-card-view tr.sw-var-row", timeout=60_000)
        before = card_variables(page)
        assert len(before) > 1, before
        shot(page, "before")
        # at most one variable: the card re-solves and says what it was solved for
        page.fill(VARS, "1")
        page.press(VARS, "Enter")
        page.wait_for_function(
            "() => (document.querySelector('.sw-card-view .sw-spec') || "
            "{}).textContent?.includes('variables \u2264 1')",
            timeout=60_000,
        )
        assert k.value("studio.wait(180)")
        page.wait_for_function(
            "() => document.querySelectorAll('.sw-card-view tr.sw-var-row').length === 1",
            timeout=60_000,
        )
        assert k.value("studio.spec.max_variables") == 1
        assert card_variables(page) == k.value(
            "[v for v, _ in studio.scoring_system.rules.points_table(studio.scoring_system.points)]"
        )
        shot(page, "one-variable")
        # no number: said in the message line, the box shows the cap in force again
        page.fill(VARS, "one")
        page.press(VARS, "Enter")
        page.wait_for_selector(".sw-message .sw-error", timeout=30_000)
        assert "max variables must be a whole number" in page.inner_text(".sw-message")
        page.wait_for_function(
            f"() => document.querySelector('{VARS}').value === '1'", timeout=30_000
        )
        assert k.value("studio.spec.max_variables") == 1
        # undo the cap, then make age decreasing in the cut panel
        page.click(".sw-undo")
        page.wait_for_function(
            f"() => document.querySelector('{VARS}').value === ''", timeout=30_000
        )
        assert k.value("studio.wait(180)") and k.value("studio.spec.max_variables") is None
        assert (
            k.value("studio.scoring_system.points.get('age >= 60', 0)") > 0
        )  # age rises on the free card
        page.select_option(MONOTONE, "decreasing")
        page.wait_for_function(
            "() => (document.querySelector('.sw-card-view .sw-spec') || "
            "{}).textContent?.includes('monotone')",
            timeout=60_000,
        )
        assert k.value("studio.wait(180)")
        assert k.value("studio.spec.monotone") == {"age": "-"}
        assert k.value(
            "all(studio.scoring_system.points.get(n, 0) <= 0 for n in ('age >= 50', 'age >= 60'))"
        )
        page.wait_for_function(
            f"() => document.querySelector(\"{MONOTONE}\").value === 'decreasing'", timeout=30_000
        )
        shot(page, "age-decreasing")
        side_panel(page, True)
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": HEIGHT})
            page.wait_for_timeout(400)  # let the notebook re-flow after a resize
            page.evaluate(
                f"() => document.querySelector('{CAPS}').scrollIntoView({{block: 'center'}})"
            )
            m = page.evaluate(MEASURE)
            shot(page, f"variable-caps-{width}-panel-open")
            page.evaluate(
                f"() => document.querySelector(\"{MONOTONE}\").scrollIntoView({{block: 'center'}})"
            )
            shot(page, f"variable-monotone-{width}-panel-open")
            assert m["parts"] >= 5, "the caps or the monotone choices were not drawn"
            assert m["outside"] == [], (
                f"{width} px: a cap lies outside the notebook area: {m['outside']}"
            )
            assert not m["clipped"], f"{width} px: the label 'max variables' is cut off"
        assert page.blocked_requests == [], page.blocked_requests[:5]
    finally:
        k.run("studio.close()")
