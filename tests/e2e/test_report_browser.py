"""The validation report opened from a file in headless Chromium: at screen widths and on A4 paper.

Screenshots go to test-artifacts/e2e/report-*.png (and the A4 PDF beside them). The report must
draw without any request leaving the file, without script errors, without sideways scrolling
from 800 px up and on A4, and show hostile names as text.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import slimwidgets as sw
from slimwidgets.datasets import load_demo

from lab import ARTIFACTS

HOSTILE = "<script>alert(1)</script>"


@pytest.fixture(scope="module", params=["risk", "decision"])
def report_file(request, tmp_path_factory):
    X, y = load_demo()
    X = X.rename(columns={X.columns[0]: HOSTILE, X.columns[1]: "\"&'"})
    X["site"] = np.where(np.arange(len(X)) % 3 == 0, HOSTILE, "\"&'")
    features = [c for c in X.columns if c != "site"]
    options = {"loss": "logistic"} if request.param == "risk" else {"max_fpr": 0.2}
    card = sw.fit(X[features][:340], y[:340], max_size=4, time_limit=3, **options)
    path = tmp_path_factory.mktemp("report") / f"{request.param}.html"
    sw.report(
        card,
        X[:340],
        y[:340],
        test=(X[340:455], y[340:455]),
        external=(X[455:], y[455:]),
        groups="site",
        path=str(path),
    )
    return request.param, path


def _open(browser, path, width):
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    requests, errors = [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("dialog", lambda d: errors.append(f"dialog: {d.message}"))
    page.goto(path.as_uri())
    return context, page, requests, errors


@pytest.mark.parametrize("width", [800, 1280])
def test_the_report_draws_offline_at_screen_widths(browser, report_file, width):
    kind, path = report_file
    context, page, requests, errors = _open(browser, path, width)
    try:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"report-{kind}-{width}.png"), full_page=True)
        assert [u for u in requests if not u.startswith("file://")] == [] and errors == []
        assert page.title().startswith("Validation report")
        # every chart drew at a real size, and nothing needs sideways scrolling
        sizes = page.eval_on_selector_all(
            "svg.sw-chart", "els => els.map(e => e.getBoundingClientRect().width)"
        )
        assert len(sizes) == 2 and all(w > 300 for w in sizes)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        # the hostile column name is text on the page, not markup
        assert HOSTILE in page.inner_text("body")
        assert page.eval_on_selector_all("script", "els => els.length") == 0
    finally:
        context.close()


def test_the_report_prints_on_a4(browser, report_file):
    kind, path = report_file
    context, page, requests, errors = _open(browser, path, 1280)
    try:
        page.emulate_media(media="print")
        page.set_viewport_size({"width": 794, "height": 1123})  # A4 at 96 px per inch
        page.screenshot(path=str(ARTIFACTS / f"report-{kind}-a4.png"), full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        pdf = page.pdf(format="A4", print_background=True)
        (ARTIFACTS / f"report-{kind}-a4.pdf").write_bytes(pdf)
        pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
        assert 2 <= pages <= 12
        # tables and charts are not cut across pages (print styles keep them whole)
        css = page.evaluate("""() => [...document.styleSheets].flatMap(s => [...s.cssRules])
            .filter(r => r.media && r.media.mediaText === 'print').map(r => r.cssText).join(' ')""")
        assert "break-inside: avoid" in css
        assert errors == []
    finally:
        context.close()
