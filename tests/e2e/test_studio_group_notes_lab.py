"""The group column as a user sees it, in a real JupyterLab: picked as the group, its block in the
cut panel says, in words, that it is the group column and so kept off the card, and how to put it
back; on the ROC plane each group's label stays inside the plot and clear of the other labels,
here where every group's TPR is 100 % (the labels used to sit on the plot's top edge). At 800,
1000, 1280 and 1600 px with the file browser open: the note lies inside the notebook, whole, and
the labels as drawn (the browser's own text boxes) lie inside the plot. Screenshots of each width
go to test-artifacts/e2e/ (look at them)."""

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

NOTEBOOK = "group-notes.ipynb"
# every positive found (min_tpr=1): each group's mark at TPR 100 %, the defect's case
CELL = (
    RAW_COLUMNS
    + """\
studio = Studio(X, y, max_size=3, cuts={"age": [50, 60], "bmi": [25, 30]}, min_tpr=1.0,
                time_limit=20.0,
                frontier=False, alternatives=False)
studio"""
)
SEX = ".sw-cuts-view .sw-cutvar[data-variable='sex']"

# the note at the group column against the notebook's area; whether anything cuts it or scrolls
NOTE = """(sel) => {
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom};
  };
  const area = box(document.querySelector('.jp-NotebookPanel-notebook'));
  const note = document.querySelector(sel + ' .sw-cut-group');
  if (!note) return null;
  note.scrollIntoView({block: 'center'});
  const scrolling = [];
  for (let e = note; e && !e.classList.contains('jp-NotebookPanel-notebook'); e = e.parentElement) {
    const style = getComputedStyle(e);
    if (e.scrollWidth > e.clientWidth + 1
        && !['visible', 'hidden', 'clip'].includes(style.overflowX))
      scrolling.push(e.className);
  }
  const use = document.querySelector(sel + ' select.sw-cut-use');
  return {area, note: box(note), text: note.textContent, scrolling, use: use.value,
          fixed: use.disabled,
          cut: note.scrollWidth > note.clientWidth + 1};
}"""

# the ROC plane's plot (its frame) and each group label's box as the browser drew it
LABELS = """() => {
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom};
  };
  const svg = document.querySelector('.sw-roc svg');
  svg.scrollIntoView({block: 'center'});
  const frame = box(svg.querySelector('g.mark-group.role-frame.root > g > g > path.background')
                    || svg.querySelector('g.mark-group.role-frame path.background'));
  const labels = [...svg.querySelectorAll('g.mark-text.role-mark text')]
    .map((t) => ({text: t.textContent, box: box(t)}));
  return {frame, labels, svg: box(svg)};
}"""


def apart(a: dict, b: dict) -> bool:
    return (
        a["right"] <= b["left"] + 0.5
        or b["right"] <= a["left"] + 0.5
        or a["bottom"] <= b["top"] + 0.5
        or b["bottom"] <= a["top"] + 0.5
    )


def labels_inside(page, shot, name: str) -> None:
    """The ROC plane's group labels, as the browser drew them: inside the plot, apart."""
    scroll_to(page, ".sw-roc")
    drawn = page.evaluate(LABELS)
    shot(page, name)
    f, labels, svg = drawn["frame"], drawn["labels"], drawn["svg"]
    assert (
        f["top"] > svg["top"] + 10 and f["right"] - f["left"] < svg["right"] - svg["left"] - 20
    ), (
        f"not the plot's frame: {f} in {svg}"
    )  # the plot, not the whole chart with its title and axes
    assert sorted(lab_["text"] for lab_ in labels) == ["F", "M"], drawn
    for lab_ in labels:
        b = lab_["box"]
        assert (
            f["left"] - 0.5 <= b["left"]
            and b["right"] <= f["right"] + 0.5
            and f["top"] - 0.5 <= b["top"]
            and b["bottom"] <= f["bottom"] + 0.5
        ), f"{name}: the label {lab_['text']!r} leaves the plot: {lab_['box']} against {f}"
    assert apart(labels[0]["box"], labels[1]["box"]), f"{name}: the labels overlap: {labels}"


def test_the_group_column_says_why_it_is_off_the_card_and_its_roc_labels_stay_inside(
    lab, page, kernel_for, shot
):
    page.set_viewport_size({"width": WIDTHS[-1], "height": HEIGHT})
    k = open_notebook(lab, page, kernel_for, NOTEBOOK, [CELL])
    run_first_cell(page, ready=f"{SEX} select.sw-cut-use")
    try:
        wait_kernel(k, "studio.wait(1)")
        assert page.locator(f"{SEX} .sw-cut-group").count() == 0  # not the group yet: nothing said
        page.select_option(".sw-group-pick select", label="sex")
        wait_kernel(k, "studio.controller.group == 'sex' and studio.wait(1)")
        page.wait_for_selector(f"{SEX} .sw-cut-group", timeout=60_000)
        page.wait_for_function(
            "() => document.querySelectorAll('.sw-roc svg g.mark-text.role-mark text').length "
            "=== 2",
            timeout=60_000,
        )
        marks = k.value("[(m['group'], m['tpr']) for m in studio.roc_view.datasets['groups']]")
        assert [g for g, _ in marks] == ["F", "M"] and all(t > 0.99 for _, t in marks), marks
        want = k.value(
            "next(v['group'] for v in studio.controller.cut_panel() if v['name'] == 'sex')"
        )
        assert "kept off the card" in want
        assert page.locator(".sw-cuts-view .sw-cut-group").count() == 1  # only at the group column
        side_panel(page, True)
        for width in WIDTHS:
            scroll_to(page, ".sw-cuts-view", width)
            note = page.evaluate(NOTE, SEX)
            shot(page, f"cut-panel-{width}-panel-open")
            assert note["text"] == "group column: " + want
            assert note["use"] == "exclude" and note["fixed"], note
            a, b = note["area"], note["note"]
            assert a["left"] - 0.5 <= b["left"] and b["right"] <= a["right"] + 0.5, (
                f"{width} px: {note}"
            )
            assert note["scrolling"] == [] and not note["cut"], (
                f"{width} px: the note is cut or scrolls: {note}"
            )
            labels_inside(page, shot, f"roc-{width}-panel-open")
        # a card that is not trivial: TPR 95 % or more, the groups' marks apart, one near the top
        page.set_viewport_size({"width": WIDTHS[-1], "height": HEIGHT})
        k.run("studio.controller.update(min_tpr=0.95)")
        wait_kernel(k, "abs(studio.spec.min_tpr - 0.95) < 1e-9 and studio.wait(1)")
        marks = k.value(
            "[(m['group'], m['tpr'], m['fpr']) for m in studio.roc_view.datasets['groups']]"
        )
        assert max(t for _, t, _ in marks) > 0.95 and min(f for _, _, f in marks) < 0.9, marks
        for width in WIDTHS:
            scroll_to(page, ".sw-roc", width)
            labels_inside(page, shot, f"roc-min-tpr-95-{width}-panel-open")
        assert page.blocked_requests == [], page.blocked_requests[:5]
    finally:
        k.run("studio.close()")
