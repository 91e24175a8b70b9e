"""A time-to-event card's report opened from a file in headless Chromium: at screen widths and
on A4 paper.

Screenshots go to test-artifacts/e2e/survival-report-*.png (and the A4 PDF beside them). The
report must draw its eight charts without any request leaving the file, without script errors,
without sideways scrolling from 800 px up, and show hostile names as text.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import slimwidgets as sw

from lab import ARTIFACTS

pytest.importorskip("sksurv")
from sksurv.datasets import load_veterans_lung_cancer  # noqa: E402

HOSTILE = "<script>alert(1)</script>"


@pytest.fixture(scope="module")
def report_file(tmp_path_factory):
    X, y = load_veterans_lung_cancer()
    X = X.rename(columns={"Karnofsky_score": HOSTILE})
    X["site"] = np.where(np.arange(len(X)) % 3 == 0, HOSTILE, "\"&'")
    features = [HOSTILE, "Celltype", "Age_in_years"]
    card = sw.fit(X[features][:100], y[:100], rules=True, max_size=3, time_limit=10)
    path = tmp_path_factory.mktemp("report") / "survival.html"
    sw.report(card, X[:100], y[:100], test=(X[100:], y[100:]), groups="site", path=str(path))
    return path


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


@pytest.mark.parametrize("width", [800, 1000, 1280, 1600])
def test_the_survival_report_draws_offline_at_screen_widths(browser, report_file, width):
    context, page, requests, errors = _open(browser, report_file, width)
    try:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"survival-report-{width}.png"), full_page=True)
        assert [u for u in requests if not u.startswith("file://")] == [] and errors == []
        sizes = page.eval_on_selector_all(
            "svg.sw-chart", "els => els.map(e => e.getBoundingClientRect().width)"
        )
        # calibration, Kaplan–Meier on each data set and Kaplan–Meier in each of its two groups
        assert len(sizes) == 8 and all(w > 300 for w in sizes)
        # the Kaplan–Meier charts drew one step line per band and band interval
        lines = page.eval_on_selector_all(
            "svg.sw-chart", "els => els.map(e => e.querySelectorAll('polyline').length)"
        )
        assert all(n >= 3 for n in lines[2:])
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        text = page.inner_text("body")
        assert HOSTILE in text and "Harrell's C" in text and "Kaplan–Meier" in text
        # bands whose every row had the event: 100 %, without a spread that is not one
        assert "100.0 %" in text and "(100.0–100.0 %)" not in text
        assert page.eval_on_selector_all("script", "els => els.length") == 0
    finally:
        context.close()


def test_the_survival_report_prints_on_a4(browser, report_file):
    context, page, _, errors = _open(browser, report_file, 1280)
    try:
        page.emulate_media(media="print")
        page.set_viewport_size({"width": 794, "height": 1123})  # A4 at 96 px per inch
        page.screenshot(path=str(ARTIFACTS / "survival-report-a4.png"), full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        pdf = page.pdf(format="A4", print_background=True)
        (ARTIFACTS / "survival-report-a4.pdf").write_bytes(pdf)
        assert 2 <= len(re.findall(rb"/Type\s*/Page[^s]", pdf)) <= 14
        assert errors == []
    finally:
        context.close()
