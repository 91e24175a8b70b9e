"""Take the README's screenshot of the studio: a real JupyterLab, headless Chromium, offline.

    python scripts/studio_screenshot.py [docs/_static/studio.png]

Starts JupyterLab on 127.0.0.1 (with the browser tests' helpers in tests/e2e/lab.py), runs
the tour's studio line (`sw.Studio(X, y, max_fpr=0.2, max_size=5)`) on the embedded demo data,
waits until the solve has settled and the charts are drawn, and saves the JupyterLab window as a
small palette PNG.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "e2e"))

from lab import CHROMIUM, CHROMIUM_ARGS, Kernel, notebook, start_lab  # noqa: E402

CELL = """\
import slimwidgets as sw
from slimwidgets.datasets import load_demo
X, y = load_demo()
studio = sw.Studio(X, y, max_fpr=0.2, max_size=5)
studio"""
SETTLED = (
    "not studio.controller.core.scheduler.busy and studio.controller.status.state != 'solving'"
)
BACKGROUND_DONE = (
    "studio.controller.wait_background(0)"  # the frontier and size path behind the charts
)
VIEWPORT = {
    "width": 1280,
    "height": 1000,
}  # the studio's two columns side by side, the charts below


def wait_for(kernel: Kernel, expr: str, timeout: float = 180) -> None:
    end = time.monotonic() + timeout
    while not kernel.value(expr):
        if time.monotonic() > end:
            raise TimeoutError(f"the studio did not settle: {expr}")
        time.sleep(0.2)


def take(out: Path) -> None:
    from playwright.sync_api import sync_playwright

    root = Path(tempfile.mkdtemp(prefix="studio-shot-")) / "lab"
    root.mkdir()
    (root / "studio.ipynb").write_text(json.dumps(notebook([CELL])))
    server = start_lab(root, log_name="screenshot-jupyterlab.log")
    pw = sync_playwright().start()
    browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    try:
        page = browser.new_page(viewport=VIEWPORT)
        page.goto(server.notebook_url("studio.ipynb") + "?reset")
        page.wait_for_selector(".jp-Notebook .jp-Cell .cm-content", timeout=90_000)
        page.wait_for_selector(".jp-Notebook-ExecutionIndicator, .jp-KernelStatus", timeout=30_000)
        kernel = Kernel(server, server.kernel_id("studio.ipynb"))
        page.click("#jp-main-dock-panel")
        page.keyboard.press("Control+b")  # close the file browser: room for the studio
        page.click(".jp-Notebook .jp-Cell .cm-content")
        page.keyboard.press("Shift+Enter")
        page.wait_for_selector(".sw-card-view .sw-card", timeout=90_000)
        wait_for(kernel, SETTLED)
        try:
            wait_for(kernel, BACKGROUND_DONE, timeout=60)
        except TimeoutError:
            print(
                "the background frontier is still running: the charts show the points solved so far"
            )
        status = kernel.value("studio.status")
        page.wait_for_function(
            "t => { const s = document.querySelector('.sw-card-view .sw-status-text'); return s "
            "&& s.textContent === t; }",
            arg=status,
            timeout=30_000,
        )
        page.wait_for_timeout(1500)  # let the charts finish their last redraw
        page.locator(".jp-Notebook").first.evaluate("n => n.scrollTo(0, 0)")
        page.screenshot(path=str(out))  # the whole JupyterLab window
        print(f"{out}: the studio showing {status!r}")
        kernel.run("studio.close()")
        kernel.close()
    finally:
        browser.close()
        pw.stop()
        server.shutdown()


def shrink(path: Path) -> None:
    """A 256-colour palette PNG: a screenshot of flat colours loses nothing visible."""
    from PIL import Image

    with Image.open(path) as img:
        small = img.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    small.save(path, optimize=True)


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "docs" / "_static" / "studio.png"
    target.parent.mkdir(parents=True, exist_ok=True)
    take(target)
    shrink(target)
    print(f"{target}: {target.stat().st_size // 1024} KiB")
