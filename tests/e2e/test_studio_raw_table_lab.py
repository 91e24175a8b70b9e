"""The studio on a raw clinical table in a real JupyterLab, at the defaults a new user gets: the
first card is replaced by the card ``fit`` returns (its size chosen by cross-validation, said in
the message line), the card says what a level never seen in training
scores (Python's words), a numeric variable whose bands go up and down is pointed out with its
monotone fix and its cost, one click applies it, and the alternatives read by variable as the
card does. Screenshots at 800, 1000, 1280 and 1600 px with the file browser open go to
test-artifacts/e2e/ (look at them)."""

from __future__ import annotations

from lab import HEIGHT, WIDTHS, open_notebook, run_first_cell, scroll_to, side_panel, wait_kernel

NOTEBOOK = "raw_table.ipynb"
# At the studio's own defaults: its size is chosen under fit's default limit (its folds end on
# counted work, by 60 % of that limit at the latest), its live solves under the studio's 5 s.
# 200 patients of scikit-learn's diabetes table in their own units: ages, a BMI with missing
# values, blood pressure, sex as text, a cholesterol ratio as text bands, the outcome Yes/No
CELL = """\
import numpy as np, pandas as pd
from sklearn.datasets import load_diabetes
from slimwidgets.widgets import Studio
d = load_diabetes(as_frame=True, scaled=False).frame.head(200)
X = pd.DataFrame({"age": d.age, "bmi": d.bmi.where(np.arange(200) % 10 != 3), "bp": d.bp,
                  "sex": d.sex.map({1.0: "F", 2.0: "M"}),
                  "chol_ratio": pd.cut(d.s4, [0, 3, 5, 7, 100],
                                       labels=["low", "mid", "high", "very high"]).astype(object)})
y = np.where(d.target > 140, "Yes", "No")
studio = Studio(X, y, frontier=False, alternatives=True)
studio"""

# A card of the studio's own rules whose bmi bands go up and down (as a slow solve may leave).
BUMPY = """\
from slimwidgets.core.scoring import ScoringSystem
c = studio.controller
cuts = [r.name for r in c.rules.rules_
        if r.column == "bmi" and r.kind == "ge"][:3]
given = dict(zip(cuts, [3, -4, 3]))
points = tuple(given.get(n, 0) for n in c.data.feature_names)
c.load(ScoringSystem(c.data.feature_names, points, -2, positive="Yes", negative="No",
                     rules=c.rules))
"""

MEASURE = """() => {
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return {left: r.left, right: r.right};
  };
  const area = box(document.querySelector('.jp-NotebookPanel-notebook'));
  const parts = [...document.querySelectorAll(
    '.sw-card-view .sw-vars-note, .sw-card-view .sw-monotone-text, ' +
    '.sw-card-view .sw-monotone-fix, .sw-card-view .sw-monotone-cost, .sw-alt-variable')];
  const outside = parts
    .filter((p) => {
      const b = box(p);
      return b.left < area.left - 0.5 || b.right > area.right + 0.5;
    })
    .map((p) => ({part: p.className, text: p.textContent}));
  return {outside, parts: parts.length};
}"""


def texts(page, selector: str) -> list[str]:
    return page.evaluate(
        "s => [...document.querySelectorAll(s)].map((e) => e.textContent)", selector
    )


def test_a_new_user_opens_the_studio_on_a_raw_table(lab, page, kernel_for, shot):
    page.set_viewport_size({"width": WIDTHS[-1], "height": HEIGHT})
    k = open_notebook(lab, page, kernel_for, NOTEBOOK, [CELL])
    run_first_cell(page, ready=".sw-card-view")
    try:
        # the quick card first, then the card fit returns: the choice is said in the message line
        assert k.value("studio.controller.starting_size.join(300)")
        assert k.value("studio.wait(300)")
        said = k.value("studio.controller.notice")
        assert said.startswith("size chosen by 5-fold cross-validation"), said
        page.wait_for_function(
            "s => document.querySelector('.sw-message').textContent.includes(s)",
            arg=said,
            timeout=60_000,
        )
        notice = page.inner_text(".sw-message")
        size = k.value("studio.controller.spec.max_size")
        assert f"at most {size} rules" in notice and "mean held-out error" in notice, notice
        shot(page, "sized-as-fit")
        # the card's note: the exports' own sentence on levels never seen in training
        from slimwidgets.export.card import MISSING_NOTE

        assert texts(page, ".sw-card-view .sw-vars-note") == [MISSING_NOTE]
        shown = texts(page, ".sw-card-view tr.sw-var-row td.sw-var-name")
        assert shown == k.value(
            "[v for v, _ in studio.scoring_system.rules.points_table(studio.scoring_system.points)]"
        )
        # alternatives by variable, each as the kernel reads it, none rule by rule
        assert k.value("studio.controller.wait_alternatives(300)")
        page.wait_for_selector(".sw-alts[data-phase='done'] li.sw-alt", timeout=60_000)
        rows = k.value("studio.controller.alternatives()['rows']")
        page_rows = page.evaluate("""() =>
            [...document.querySelectorAll('.sw-alts li.sw-alt')].map((r) =>
                [...r.querySelectorAll('.sw-alt-variable')].map((v) => [
                    v.querySelector('.sw-alt-fname').textContent,
                    v.querySelector('.sw-alt-bands').textContent,
                ]))""")
        assert page_rows == [[[v["name"], v["text"]] for v in r["variables"]] for r in rows]
        assert not texts(page, ".sw-alts .sw-alt-pts")
        # a card whose bmi bands go up and down: pointed out, its fix's cost solved, one click
        k.run(BUMPY)
        page.wait_for_selector(
            ".sw-card-view .sw-monotone[data-variable='bmi'][data-ready='true']", timeout=120_000
        )
        pointer = page.inner_text(".sw-card-view .sw-monotone[data-variable='bmi']")
        bands = texts(page, ".sw-card-view tr.sw-var-row[data-variable='bmi'] .sw-band-label")
        assert len(bands) == 4, bands  # the card reads by variable: bmi's four bands
        assert pointer.startswith("bmi's points go up and down"), pointer
        assert "cost: error " in pointer and "TPR " in pointer and "FPR " in pointer, pointer
        assert ("proven best under it" in pointer) or ("not proven" in pointer)
        side_panel(page, True)
        for width in WIDTHS:
            scroll_to(page, ".sw-card-view", width)
            m = page.evaluate(MEASURE)
            shot(page, f"raw-table-{width}-panel-open")
            assert m["parts"] >= 3 and m["outside"] == [], f"{width} px: {m}"
        choice = k.value("studio.controller.advice.view()[0]['choice']")
        page.click(".sw-card-view .sw-monotone[data-variable='bmi'] button.sw-monotone-fix")
        direction = "+" if choice == "increasing" else "-"
        wait_kernel(k, f"studio.controller.spec.monotone == {{'bmi': {direction!r}}}")
        assert k.value("studio.wait(300)")
        page.wait_for_function(
            "() => !document.querySelector('.sw-card-view .sw-monotone[data-variable=bmi]')",
            timeout=60_000,
        )
        shot(page, "monotone-fixed")
        k.run("studio.controller.undo()")  # one undo step back to the bumpy card
        wait_kernel(k, "studio.controller.spec.monotone == {}")
        assert page.blocked_requests == [], page.blocked_requests[:5]
    finally:
        k.run("studio.close()")
