"""The one-off compiles said on the status line, in real JupyterLab with a cold numba cache: the
studio's first (decision) solve says the search is getting ready, once on this computer, and as
the compile goes on how many of its parts are done and about how long the rest will take; its
own clock starts when the compile ends. Then the first switch to risk cards while the risk
kernels still compile (issue 20 item 3) says the same of the risk search. At 800, 1000, 1280 and
1600 px with the side panel open each line lies inside the notebook, whole, with nothing
scrolling sideways. Screenshots go to test-artifacts/e2e/ (look at them)."""

from __future__ import annotations

import re
import time

from lab import HEIGHT, WIDTHS, open_notebook, run_first_cell, side_panel

CELL = """\
import os, tempfile
# this kernel compiles everything once
os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="numba-cold-")
from slimwidgets.datasets import load_demo
from slimwidgets.widgets import Studio
X, y = load_demo()
studio = Studio(X, y, max_fpr=0.2, time_limit=5.0, frontier=False, alternatives=False)
import time
lines = []  # what the status line said, when, and the solve's start its clock reads
studio.controller.subscribe(lambda events: lines.append((time.time(), studio.controller.status.text,
                                                         studio.controller.status.started)))
studio"""
#: the decision search's compile as the status line says it, once a part is known to compile
SEARCH_LINE = re.compile(
    r"^solving… · getting the search ready \(once on this computer\): [1-7] of 8 parts done, "
    r"about \d+ s left, then it solves$"
)

# the status line against the notebook's visible area, and anything around it that scrolls sideways
STATUS = """() => {
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom};
  };
  const area = box(document.querySelector('.jp-NotebookPanel-notebook'));
  const line = document.querySelector('.sw-card-view .sw-status');
  line.scrollIntoView({block: 'center'});
  const text = document.querySelector('.sw-card-view .sw-status-text');
  const scrolling = [];
  for (let e = text; e && !e.classList.contains('jp-NotebookPanel-notebook'); e = e.parentElement) {
    const style = getComputedStyle(e);
    if (e.scrollWidth > e.clientWidth + 1
        && !['visible', 'hidden', 'clip'].includes(style.overflowX))
      scrolling.push(e.className);
  }
  const cut = text.scrollWidth > text.clientWidth + 1 || text.scrollHeight > text.clientHeight + 1;
  return {area, line: box(line), text: text.textContent, scrolling, cut};
}"""


def said_at_every_width(
    page, shot, words: str, name: str, pattern: re.Pattern | None = None
) -> set[str]:
    """Once the status line says ``words``, at each width while it still does: the line inside
    the notebook, whole, nothing scrolling sideways (and as ``pattern`` says); a screenshot each."""
    page.wait_for_function(
        "w => (document.querySelector('.sw-card-view .sw-status-text') || {})"
        ".textContent?.includes(w)",
        arg=words,
        timeout=600_000,
    )
    seen = set()
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": HEIGHT})
        page.wait_for_timeout(300)
        place = page.evaluate(STATUS)
        if words not in place["text"]:
            break  # the compile ended meanwhile (a fast machine): what was seen is checked
        seen.add(place["text"])
        assert pattern is None or pattern.match(place["text"]), place["text"]
        a, b = place["area"], place["line"]
        assert a["left"] - 0.5 <= b["left"] and b["right"] <= a["right"] + 0.5, (
            f"{width} px: {place}"
        )
        assert place["scrolling"] == [] and not place["cut"], (
            f"{width} px: the line is cut or scrolls: {place}"
        )
        shot(page, f"{name}-{width}-panel-open")
    assert seen, f"the status line never said {words!r}"
    return seen


def test_the_compile_progress_is_said_whole_at_every_width(lab, page, kernel_for, shot):
    page.set_viewport_size({"width": WIDTHS[-1], "height": HEIGHT})
    k = open_notebook(lab, page, kernel_for, "warmup.ipynb", [CELL])
    side_panel(page, True)
    run_first_cell(page, ready=".sw-card-view .sw-status")
    said_at_every_width(page, shot, "search ready", "search-compiling", SEARCH_LINE)
    page.wait_for_selector(
        ".sw-card-view input.sw-points", timeout=900_000
    )  # after the decision kernels' compile
    k = kernel_for("warmup.ipynb")  # a fresh connection: the server drops one silent for 90 s
    try:
        end = time.monotonic() + 600
        while not k.value("studio.wait(1)"):
            assert time.monotonic() < end, "the first decision card did not settle"
        # the solve's own clock started when the compile ended, and its card
        # took no longer than its limit
        said = k.value("lines")
        compiled = max(t for t, text, _ in said if "getting the search ready" in text)
        solving = [started for t, text, started in said if text == "solving…" and t >= compiled]
        assert solving and solving[0] >= compiled, said
        # the limit is 5 s; the compile (20-30 s when cold) is not in it: the margin is for a busy
        # machine, whose overruns of a limit are seconds, not the compile's tens of seconds
        assert k.value("studio.controller.card.solve_time") <= 5.0 + 10.0
        if not k.value("studio.controller.warming.risk.busy"):
            k.run(
                "studio.controller.warming.risk.start()"
            )  # (normally already started by the card on screen)
        page.set_viewport_size({"width": WIDTHS[-1], "height": HEIGHT})
        page.click(".sw-family button:has-text('risk card')")
        said_at_every_width(page, shot, "risk search ready", "compiling")
        end = time.monotonic() + 600
        while not k.value("studio.wait(1)"):
            assert time.monotonic() < end, "the risk card did not settle"
        page.wait_for_selector(".sw-risk-table tbody tr", timeout=60_000)
        assert "risk search ready" not in page.inner_text(".sw-card-view .sw-status-text")
        shot(page, "settled-1280-panel-open")
    finally:
        k.run("studio.close()")
