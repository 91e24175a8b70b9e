"""Fixtures of the browser tests: JupyterLab on 127.0.0.1 and Debian's Chromium, offline.

Chromium resolves no host name but the local one, and every request the page makes
to anything but the local server is recorded and aborted, so a chart that needed a CDN would stay
blank and the test would say so.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from urllib.parse import urlparse

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from lab import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, SETUP_HINT, Kernel, have_chromium, start_lab  # noqa: E402
from needs import missing  # noqa: E402

NOT_LOCAL = re.compile(r"^(?!(https?|wss?)://(127\.0\.0\.1|localhost)[:/])[a-z]+://")


def pytest_configure(config):
    config.addinivalue_line("markers", "e2e: end-to-end test in JupyterLab and headless Chromium")


def pytest_collection_modifyitems(items):
    here = Path(__file__).parent
    for item in items:
        if Path(str(item.fspath)).is_relative_to(here):
            item.add_marker(pytest.mark.e2e)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, f"rep_{rep.when}", rep)


@pytest.fixture(scope="session")
def chromium_path() -> str:
    if not have_chromium():
        missing(f"Chromium is not installed at {CHROMIUM}: {SETUP_HINT}")
    return CHROMIUM


@pytest.fixture(scope="session")
def data_env() -> dict:
    """SLIMWIDGETS_DATA for the kernel: the paper's data beside the repository if not set."""
    folder = os.environ.get("SLIMWIDGETS_DATA")
    if not folder:
        guess = Path(__file__).resolve().parents[3] / "shared" / "data"
        folder = str(guess) if guess.is_dir() else ""
    return {"SLIMWIDGETS_DATA": folder} if folder else {}


@pytest.fixture(scope="session")
def lab_root(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("lab")


def _need(module: str) -> None:
    try:
        __import__(module)
    except ImportError:
        pytest.fail(
            f"{module} is not installed: `python -m pip install -e '.[test]'`, then {SETUP_HINT}",
            pytrace=False,
        )


@pytest.fixture(scope="session", autouse=True)
def fresh_artifacts():
    """Screenshots of this run only (the folder is git-ignored)."""
    if ARTIFACTS.is_dir():
        for old in ARTIFACTS.glob("*.png"):
            old.unlink()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)


@pytest.fixture(scope="session")
def lab(lab_root, data_env, chromium_path):
    for module in ("jupyterlab", "anywidget", "playwright", "websocket"):
        _need(module)
    from slimwidgets.widgets.studio import STATIC

    if not (STATIC / "chart.js").is_file():
        pytest.fail(f"the front-end bundle is missing: {SETUP_HINT}", pytrace=False)
    server = start_lab(lab_root, env=data_env)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    b = pw.chromium.launch(executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS)
    yield b
    b.close()
    pw.stop()


@pytest.fixture
def page(browser, lab, request, kernel_for):
    # kernel_for is torn down after the page: a failed test's screenshot shows the page with its
    # kernel still running
    context = browser.new_context(viewport={"width": 1440, "height": 1100})
    # Chromium resolves no host but the local one (see lab.CHROMIUM_ARGS); every request
    # to anything else is recorded here (events, not route handlers: those would stall
    # the page whenever the test is not inside a Playwright call).
    blocked: list[str] = []

    def record(request):
        host = urlparse(request.url).hostname
        if request.url.startswith(("http:", "https:", "ws:", "wss:")) and host not in (
            "127.0.0.1",
            "localhost",
        ):
            blocked.append(request.url)

    context.on("request", record)
    # ... and aborted: a route for non-local addresses only, so local
    # traffic never waits on a handler
    context.route(NOT_LOCAL, lambda route: route.abort())
    pg = context.new_page()
    pg.blocked_requests = blocked
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.page_errors = errors
    yield pg
    rep = getattr(request.node, "rep_call", None)
    if rep is not None and rep.failed:  # keep what the page showed when it failed
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        try:
            pg.screenshot(path=str(ARTIFACTS / f"{request.node.name}-FAILED.png"), full_page=True)
        except Exception:
            pass
    context.close()


@pytest.fixture
def shot(request):
    """shot(page, "name"): a full-page screenshot kept in test-artifacts/e2e/."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    counter = iter(range(1, 1000))

    def take(pg, name: str):
        path = ARTIFACTS / f"{request.node.name}-{next(counter):02d}-{name}.png"
        pg.screenshot(path=str(path), full_page=True)
        return path

    return take


@pytest.fixture
def kernel_for(lab):
    made = []

    def connect(notebook_path: str) -> Kernel:
        k = Kernel(lab, lab.kernel_id(notebook_path))
        made.append(k)
        return k

    yield connect
    for k in made:
        k.close()
    for kernel_id in dict.fromkeys(k.kernel_id for k in made):
        lab.stop_kernel(kernel_id)
