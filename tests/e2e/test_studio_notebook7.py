"""The studio in Jupyter Notebook 7 (the `notebook` package, not JupyterLab),
headless Chromium, network off.

A user's first minute: open a notebook that builds the studio on the demo data, run it,
see the card table and both charts drawn, move the max-FPR slider with one key press, see
the card re-solved for the new cap, close the studio and shut the server down.
Screenshots go to test-artifacts/e2e/, the server's log to test-artifacts/e2e/notebook7-<test>.log.

Arrow keys on a slider: Notebook 7 runs its shortcuts from a capture-phase listener on the
document (JupyterLab from a bubble-phase one), and in command mode ArrowLeft/Right/Up/Down
are notebook shortcuts whose selector matches the focused slider handle, so without help
the slider never sees them. The card view's bundle lets them through (js/src/slider-keys.js);
``test_arrow_keys_move_the_fpr_slider`` checks that all four move the slider and re-solve
the card, and that outside the slider the arrow keys still move between cells.

The conftest's ``page`` and ``kernel_for`` fixtures talk to the server of the fixture
named ``lab``; this module overrides it with a Notebook 7 server (one per test).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from lab import card_in_page, notebook, start_lab

NOTEBOOK = "studio_nb7.ipynb"
CELL = """\
import threading
from slimwidgets.datasets import load_demo
from slimwidgets.widgets import Studio
X, y = load_demo()
studio = Studio(X, y, max_fpr=0.2, time_limit=1.0)
studio"""

SETTLED = (
    "not studio.controller.core.scheduler.busy and studio.controller.status.state != 'solving'"
)
TRUTH = """{'status': studio.status, 'state': studio.controller.status.state,
    'max_fpr': studio.spec.max_fpr,
    'points': dict(zip(studio.scoring_system.feature_names, studio.scoring_system.coefficients)),
    'threshold': studio.scoring_system.threshold}"""
# Notebook 7.x's own keyboard-shortcut settings plugin throws this while the page boots
# (a bare notebook with `1+1` does it too); it comes from its core bundle, not from the studio.
NOTEBOOK_BOOT_ERROR = (
    "Cannot read properties of undefined (reading 'schema')",
    "/static/notebook/notebook_core.",
)


@pytest.fixture
def lab(tmp_path_factory, chromium_path, request):
    """Jupyter Notebook 7 on 127.0.0.1, a free port, no token, in a temporary
    folder; its log per test."""
    try:
        from notebook import __version__ as version
    except ImportError:
        version = None
    if version is None or int(version.split(".")[0]) < 7:
        pytest.fail(
            f"Jupyter Notebook 7 is not installed (found {version}): `python -m pip install "
            "'notebook>=7'`",
            pytrace=False,
        )
    for module in ("anywidget", "playwright", "websocket"):
        try:
            __import__(module)
        except ImportError:
            pytest.fail(
                f"{module} is not installed: `python -m pip install -e '.[test]'`", pytrace=False
            )
    server = start_lab(
        tmp_path_factory.mktemp("nb7"),
        app="notebook",
        log_name=f"notebook7-{request.node.name}.log",
    )
    yield server
    server.shutdown()  # a no-op when the test has shut it down already


def open_and_run(lab, page, kernel_for, cell: str, *more: str):
    """Open a notebook of ``cell`` (and ``more`` cells) in Notebook 7, wait for its
    kernel, run the first cell;
    return the kernel client."""
    (lab.root / NOTEBOOK).write_text(json.dumps(notebook([cell, *more])))
    page.goto(lab.notebook_url(NOTEBOOK))
    page.wait_for_selector(".jp-Notebook .jp-Cell .cm-content", timeout=60_000)
    app = page.evaluate(
        "() => JSON.parse(document.getElementById('jupyter-config-data').textContent)"
    )
    assert app["appName"] == "Jupyter Notebook" and app["appVersion"].startswith("7."), (
        f"not Notebook 7: {app.get('appName')} {app.get('appVersion')}"
    )
    k = kernel_for(NOTEBOOK)
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=60_000)
    page.click(".jp-Notebook .jp-Cell .cm-content")
    page.keyboard.press("Shift+Enter")
    return k


def settled_card(page, k, timeout: float = 60) -> dict:
    """Wait for the kernel to settle and the page to show its card; check
    they agree and return it."""
    end = time.monotonic() + timeout
    while not k.value(SETTLED):
        assert time.monotonic() < end, "the studio did not settle"
        time.sleep(0.1)
    truth = k.value(TRUTH)
    page.wait_for_function(
        "t => { const s = document.querySelector('.sw-card-view .sw-status-text'); return s && "
        "s.textContent === t; }",
        arg=truth["status"],
        timeout=20_000,
    )
    shown = card_in_page(page)
    assert shown["points"] == truth["points"], "the table disagrees with studio.scoring_system"
    assert shown["threshold"] == truth["threshold"] and shown["state"] == truth["state"]
    return {**truth, "spec": shown["spec"]}


def marks(page, view: str) -> int:
    return page.evaluate(
        "v => document.querySelectorAll(`.${v} .sw-chart svg g.mark-symbol.role-mark path`).length",
        view,
    )


def gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] == "Z"  # a zombie has exited
    except (FileNotFoundError, IndexError):
        return True


def test_studio_in_notebook7(lab, page, kernel_for, shot):
    t0 = time.monotonic()
    page_errors: list[
        str
    ] = []  # with their stacks, to tell Notebook's own boot error from the studio's
    page.on("pageerror", lambda exc: page_errors.append(f"{exc}\n{exc.stack}"))

    # -- Notebook 7 opens the notebook, runs the cell: the card and both charts drawn, offline ---
    k = open_and_run(lab, page, kernel_for, CELL)
    kernel_pid = k.value("__import__('os').getpid()")
    page.wait_for_selector(
        ".sw-studio .sw-card-view table.sw-table input.sw-points", timeout=60_000
    )
    first = settled_card(page, k)
    assert first["max_fpr"] == 0.2 and "max FPR 20 %" in first["spec"]
    # one row per feature of the demo data (a 1 s solve on a busy machine may still show all zeros)
    assert sorted(first["points"]) == sorted(k.value("list(X.columns)")), first["points"]
    page.wait_for_function(
        "() => document.querySelectorAll('.sw-roc svg g.mark-symbol.role-mark path').length > 0",
        timeout=30_000,
    )
    page.wait_for_function(
        "() => document.querySelectorAll('.sw-path svg g.mark-symbol.role-mark path').length > 0",
        timeout=30_000,
    )
    assert marks(page, "sw-roc") > 0 and marks(page, "sw-path") > 0
    assert page.locator(".sw-max-fpr .widget-readout").inner_text() == "20%"
    shot(page, "rendered")

    # -- one key press on the max-FPR slider (PageDown: 5 steps), 20 % -> 15 %: card re-solved --
    page.locator(".sw-max-fpr .noUi-handle").first.focus()
    page.keyboard.press("PageDown")
    end = time.monotonic() + 30
    while k.value("studio.spec.max_fpr") != 0.15:
        assert time.monotonic() < end, (
            f"the key press did not reach the kernel: {k.value('studio.spec.max_fpr')}"
        )
        time.sleep(0.1)
    moved = settled_card(page, k)
    assert moved["max_fpr"] == 0.15
    assert "max FPR 15 %" in moved["spec"] and moved["spec"] != first["spec"], moved["spec"]
    assert page.locator(".sw-max-fpr .widget-readout").inner_text() == "15%"
    assert k.value("studio.history[-1].spec.max_fpr") == 0.15
    shot(page, "fpr-15")

    assert page.blocked_requests == [], f"the page tried the network: {page.blocked_requests[:5]}"
    errors = [e for e in page_errors if not all(part in e for part in NOTEBOOK_BOOT_ERROR)]
    assert errors == [], errors

    # -- close the studio: no solver thread left, its views leave the page -------------------------
    ours = (
        "[t.name for t in threading.enumerate() if t.is_alive() and "
        "(getattr(getattr(t, '_target', None), '__module__', '') or '').startswith('slimwidgets')]"
    )
    assert k.value(ours), (
        "the studio's worker threads were not found (the check would prove nothing)"
    )
    left = k.value(f"(studio.close(), {ours})[1]")
    assert left == [], f"threads left running after close: {left}"
    page.wait_for_selector(".sw-studio", state="detached", timeout=10_000)

    # -- shut the server down: it exits and takes the kernel with it -------------------------------
    assert lab.shutdown() == 0, f"the server did not exit cleanly; see {lab.log}"
    end = time.monotonic() + 10
    while not gone(kernel_pid):
        assert time.monotonic() < end, f"kernel {kernel_pid} outlived the server"
        time.sleep(0.1)
    assert time.monotonic() - t0 < 60, f"took {time.monotonic() - t0:.0f} s"


def wait_value(k, expr: str, want: float, what: str, timeout: float = 30) -> None:
    end = time.monotonic() + timeout
    while abs((k.value(expr) or 0) - want) > 1e-9:
        assert time.monotonic() < end, f"{what}: {expr} is {k.value(expr)}, not {want}"
        time.sleep(0.1)


def active_cell(page) -> int:
    return page.evaluate(
        "() => [...document.querySelectorAll('.jp-Notebook .jp-Cell')]"
        ".findIndex(c => c.classList.contains('jp-mod-active'))"
    )


def test_arrow_keys_move_the_fpr_slider(lab, page, kernel_for, shot):
    k = open_and_run(
        lab,
        page,
        kernel_for,
        CELL.replace("time_limit=1.0)", "time_limit=1.0, frontier=False)"),
        "1 + 1",
    )
    handle = page.locator(".sw-max-fpr .noUi-handle").first
    handle.wait_for(timeout=60_000)
    try:
        first = settled_card(page, k)
        assert first["max_fpr"] == 0.2 and "max FPR 20 %" in first["spec"]
        handle.focus()  # its cell becomes the active one, in command mode
        assert active_cell(page) == 0

        # -- ArrowLeft: one step, 20 % -> 19 %, and the card is re-solved for it -------------------
        page.keyboard.press("ArrowLeft")
        wait_value(k, "studio.fpr_slider.value", 0.19, "ArrowLeft did not move the max-FPR slider")
        wait_value(k, "studio.spec.max_fpr", 0.19, "the slider moved but the spec did not follow")
        moved = settled_card(page, k)
        assert "max FPR 19 %" in moved["spec"], moved["spec"]
        assert page.locator(".sw-max-fpr .widget-readout").inner_text() == "19%"

        # -- the other three: +1 +1 +1 -1 step, 19 % -> 21 % (a swallowed key leaves another) --
        for key in ("ArrowRight", "ArrowUp", "ArrowUp", "ArrowDown"):
            page.keyboard.press(key)
        wait_value(
            k, "studio.fpr_slider.value", 0.21, "ArrowRight/Up/Down did not all move the slider"
        )
        wait_value(k, "studio.spec.max_fpr", 0.21, "the slider moved but the spec did not follow")
        moved = settled_card(page, k)
        assert "max FPR 21 %" in moved["spec"], moved["spec"]
        assert page.locator(".sw-max-fpr .widget-readout").inner_text() == "21%"
        assert k.value("studio.history[-1].spec.max_fpr") == pytest.approx(0.21)
        # none of the keys ran a notebook command (the last one, ArrowDown, would have
        # activated the second cell)
        assert active_cell(page) == 0
        shot(page, "arrow-keys-21")

        # -- outside the slider the arrow keys stay the notebook's: ArrowDown goes to the next cell
        page.locator(".jp-Notebook .jp-Cell").nth(
            0
        ).focus()  # the active cell itself, in command mode
        page.keyboard.press("ArrowDown")
        page.wait_for_function(
            "() => document.querySelectorAll('.jp-Notebook .jp-Cell')[1]"
            ".classList.contains('jp-mod-active')",
            timeout=10_000,
        )
        assert k.value("studio.fpr_slider.value") == pytest.approx(0.21)
    finally:
        k.run("studio.close()")
