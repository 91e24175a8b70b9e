"""The studio in a real JupyterLab, in headless Chromium, with the network off.

One notebook, one session: render the studio on the paper's breastcancer data,
drag the FPR slider, storm it with 30 key presses, edit a point, lock it, undo,
export and reload. Screenshots of every step go to test-artifacts/e2e/.
"""

from __future__ import annotations

import time

import pytest

from lab import card_in_page, open_notebook, run_first_cell

NOTEBOOK = "studio.ipynb"
SETUP_CELL = """\
import os, threading
from slimwidgets.datasets import load_demo, load_paper_dataset
from slimwidgets.widgets import Studio
folder = os.environ.get("SLIMWIDGETS_DATA")
X, y = load_paper_dataset("breastcancer", folder) if folder else load_demo()
studio = Studio(X, y, max_fpr=0.2, time_limit=1.0)
studio"""

SETTLED = (
    "not studio.controller.core.scheduler.busy and studio.controller.status.state != 'solving'"
)


def kernel_card(k) -> dict:
    return k.value("""{'status': studio.status, 'state': studio.controller.status.state,
        'points': dict(zip(studio.scoring_system.feature_names,
                           studio.scoring_system.coefficients)),
        'threshold': studio.scoring_system.threshold, 'card_status': studio.scoring_system.status,
        'max_fpr': studio.scoring_system.spec.max_fpr, 'lock': dict(studio.spec.lock)}""")


def settle(page, k, timeout: float = 90) -> dict:
    """Wait until the kernel has settled and the page shows exactly its card; return it."""
    end = time.monotonic() + timeout
    while not k.value(SETTLED):
        assert time.monotonic() < end, "the studio did not settle"
        time.sleep(0.1)
    truth = kernel_card(k)
    page.wait_for_function(
        "t => { const s = document.querySelector('.sw-card-view .sw-status-text'); return s && "
        "s.textContent === t; }",
        arg=truth["status"],
        timeout=30_000,
    )
    shown = card_in_page(page)
    assert shown["points"] == truth["points"], "the table disagrees with studio.scoring_system"
    assert shown["threshold"] == truth["threshold"]
    assert shown["state"] == truth["state"]
    return truth


def chart_state(page, cls: str) -> dict:
    return page.evaluate(
        """cls => {
        const box = document.querySelector(`.${cls} .sw-chart`);
        const svg = box && box.querySelector('svg');
        return {renders: box ? box.dataset.renders : null,
                updates: box ? Number(box.dataset.updates || 0) : 0,
                symbols: svg ? svg.querySelectorAll('g.mark-symbol.role-mark path').length : 0,
                lines: svg ? svg.querySelectorAll('g.mark-line.role-mark path').length : 0,
                html: svg ? svg.innerHTML : ''};
    }""",
        cls,
    )


def slider_value_at(page, cls: str, value: float) -> None:
    """Drag a slider's handle with the mouse to ``value`` (0..1 of its track)."""
    track = page.locator(f".{cls} .noUi-target").bounding_box()
    handle = page.locator(f".{cls} .noUi-handle").first.bounding_box()
    page.mouse.move(handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2)
    page.mouse.down()
    page.mouse.move(
        track["x"] + value * track["width"], handle["y"] + handle["height"] / 2, steps=8
    )
    page.mouse.up()


def wait_kernel(k, expr: str, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while not k.value(expr):
        assert time.monotonic() < end, f"timed out waiting for {expr}"
        time.sleep(0.1)


@pytest.fixture
def studio_page(lab, page, kernel_for, shot):
    # a fresh workspace: other tests on this server leave their notebooks open
    k = open_notebook(lab, page, kernel_for, NOTEBOOK, [SETUP_CELL])
    run_first_cell(page, ".sw-card-view .sw-card")
    yield page, k
    try:
        k.run("studio.close()")
    except Exception:
        pass


def test_studio_in_jupyterlab(studio_page, shot):
    page, k = studio_page

    # -- it renders: the card, both charts, all offline --------------------------------------------
    first = settle(page, k)
    assert first["max_fpr"] == 0.2
    page.wait_for_function(
        "() => document.querySelectorAll('.sw-roc svg g.mark-symbol.role-mark path').length > 0",
        timeout=30_000,
    )
    page.wait_for_function(
        "() => document.querySelectorAll('.sw-path svg g.mark-symbol.role-mark path').length > 0",
        timeout=60_000,
    )
    roc0, path0 = chart_state(page, "sw-roc"), chart_state(page, "sw-path")
    assert roc0["renders"] == "1" and path0["renders"] == "1"
    assert roc0["lines"] >= 1  # the card's own ROC
    assert page.blocked_requests == [], f"the page tried the network: {page.blocked_requests[:5]}"
    shot(page, "rendered")

    # -- drag the FPR slider: card and both charts change, in place --------------------------------
    slider_value_at(page, "sw-max-fpr", 0.05)
    wait_kernel(k, "studio.spec.max_fpr is not None and studio.spec.max_fpr < 0.1")
    dragged = settle(page, k)
    assert dragged["max_fpr"] < 0.1
    assert f"max FPR {100 * dragged['max_fpr']:.0f} %" in card_in_page(page)["spec"]
    page.wait_for_function(
        "h => document.querySelector('.sw-roc svg').innerHTML !== h",
        arg=roc0["html"],
        timeout=30_000,
    )
    page.wait_for_function(
        "h => document.querySelector('.sw-path svg').innerHTML !== h",
        arg=path0["html"],
        timeout=60_000,
    )
    roc1, path1 = chart_state(page, "sw-roc"), chart_state(page, "sw-path")
    assert roc1["renders"] == "1" and path1["renders"] == "1", (
        "a chart was re-embedded instead of updated in place"
    )
    assert roc1["updates"] > roc0["updates"] and path1["updates"] > path0["updates"]
    shot(page, "dragged")

    # -- a storm of 30 rapid moves ends on the last position ---------------------------------------
    start = k.value("studio.spec.max_fpr")
    runs_before = k.value("studio.controller.core.scheduler.runs")
    page.locator(".sw-max-fpr .noUi-handle").first.focus()
    for _ in range(30):
        page.keyboard.press("ArrowRight")
    target = round(min(1.0, start + 0.30), 2)
    wait_kernel(k, f"abs((studio.spec.max_fpr or 0) - {target}) < 1e-9")
    stormed = settle(page, k)
    assert stormed["max_fpr"] == pytest.approx(target)
    assert f"max FPR {100 * target:.0f} %" in card_in_page(page)["spec"]
    assert k.value("studio.controller.core.scheduler.runs") - runs_before <= 10, (
        "the storm was not debounced"
    )
    # no solve of a superseded position is left running
    assert k.value("studio.controller.core.scheduler.busy") is False
    assert (
        k.value("sum(1 for t in threading.enumerate() if t.name.startswith('slimwidgets-solver'))")
        <= 1
    )
    shot(page, "storm")

    # -- click a frontier point: its card loads (from the cache) -----------------------------------
    page.wait_for_function(
        """() => [...document.querySelectorAll('.sw-roc svg g.mark-symbol.role-mark path')]
        .filter(p => p.__data__ && p.__data__.datum && p.__data__.datum.key).length >= 3""",
        timeout=90_000,
    )
    cap = page.evaluate(
        """current => {
        const pts = [...document.querySelectorAll('.sw-roc svg g.mark-symbol.role-mark path')]
            .filter(p => p.__data__ && p.__data__.datum && p.__data__.datum.key
                         && p.__data__.datum.cap !== null && p.__data__.datum.size > 0
                         && Math.abs(p.__data__.datum.cap - current) > 1e-9)
            .sort((a, b) => b.__data__.datum.cap - a.__data__.datum.cap);
        const p = pts[0];
        p.dispatchEvent(new MouseEvent('click', {bubbles: true}));
        return p.__data__.datum.cap;
    }""",
        stormed["max_fpr"],
    )
    wait_kernel(k, f"abs((studio.spec.max_fpr or 0) - {cap}) < 1e-9")
    clicked = settle(page, k)
    assert clicked["max_fpr"] == pytest.approx(cap)
    assert k.value("studio.history[-1].action") in ("load", "cache")
    assert k.value("studio.fpr_slider.value") == pytest.approx(cap)
    shot(page, "frontier-click")

    # -- edit a point: re-evaluated at once, marked edited, its cost shown -------------------------
    used = [n for n, v in clicked["points"].items() if v != 0]
    name = used[0]
    new_value = (
        clicked["points"][name] + 1 if clicked["points"][name] < 10 else clicked["points"][name] - 1
    )
    cell = page.locator(f".sw-card-view input.sw-points[data-feature='{name}']")
    cell.fill(str(new_value))
    cell.press("Enter")
    page.wait_for_selector(".sw-card-view .sw-card[data-state='edited']", timeout=30_000)
    edited = settle(page, k)
    assert edited["card_status"] == "edited" and edited["points"][name] == new_value
    assert page.locator(".sw-card-view .sw-cost").inner_text().startswith("edit vs ")
    shot(page, "edited")

    # -- lock it: the next solve keeps it ----------------------------------------------------------
    page.locator(f".sw-card-view tr[data-feature='{name}'] button.sw-lock").click()
    wait_kernel(k, f"studio.spec.lock == {{{name!r}: {new_value}}}")
    locked = settle(page, k)
    assert locked["card_status"] != "edited" and locked["points"][name] == new_value
    assert (
        page.locator(f".sw-card-view tr[data-feature='{name}'] button.sw-lock.sw-locked").count()
        == 1
    )
    shot(page, "locked")

    # -- undo: back to the edited card -------------------------------------------------------------
    page.locator("button.sw-undo").click()
    wait_kernel(k, "studio.spec.lock == {}")
    undone = settle(page, k)
    assert undone["card_status"] == "edited" and undone["points"] == edited["points"]
    shot(page, "undone")

    # -- export, and reload from the line the studio shows -----------------------------------------
    path_box = page.locator(".sw-export-path input")
    path_box.fill("exported_card.json")
    page.wait_for_timeout(300)
    page.locator("button.sw-export").click()
    reload_line = page.locator(".sw-message code.sw-reload").inner_text(timeout=30_000)
    assert (
        reload_line
        == "import slimwidgets; card = slimwidgets.ScoringSystem.from_json('exported_card.json')"
    )
    assert page.blocked_requests == []
    page.click(".jp-Notebook .jp-Cell:last-child .cm-content")
    page.keyboard.insert_text(
        reload_line  # runs as shown: it carries its import
        + "\nprint('reloaded', card.points == studio.scoring_system.points, card.status)"
    )
    page.keyboard.press("Shift+Enter")
    page.wait_for_selector(".jp-OutputArea-output:has-text('reloaded True edited')", timeout=60_000)
    shot(page, "exported-and-reloaded")

    # -- closing the studio leaves no thread behind ------------------------------------------------
    ours = (
        "[t.name for t in threading.enumerate() if t.is_alive() and "
        "(getattr(getattr(t, '_target', None), '__module__', '') or '').startswith('slimwidgets')]"
    )
    assert k.value(ours), (
        "the studio's worker threads were not found (the check would prove nothing)"
    )
    left = k.value(f"(studio.close(), {ours})[1]")
    assert left == [], f"threads left running after close: {left}"
    assert page.page_errors == [], page.page_errors
