"""A time-to-event card's HTML document opened from a file in headless Chromium, as a user opens
an export: it draws offline, without script errors, with its risk by each horizon and the names
from the data as text. Screenshots go to test-artifacts/e2e/survival-card-*.png."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw

from lab import ARTIFACTS

HOSTILE = "<script>alert(1)</script> stage"


@pytest.fixture(scope="module")
def card_file(tmp_path_factory):
    rng = np.random.default_rng(0)
    n = 160
    age = rng.integers(30, 85, n).astype(float)
    stage = rng.choice(["I", "II", "III"], n)
    hazard = np.exp((age - 55) / 15 + 2.0 * (stage == "III"))
    y = np.array(
        list(zip(rng.random(n) < 0.75, rng.exponential(8 / hazard).round(2) + 0.01)),
        dtype=[("died", "?"), ("months", "<f8")],
    )
    card = sw.fit(pd.DataFrame({"age": age, HOSTILE: stage}), y, max_size=4, time_limit=30)
    assert any(name.startswith(HOSTILE) for name in card.card_points)
    path = tmp_path_factory.mktemp("survival") / "card.html"
    path.write_text(card.to_html(), encoding="utf-8")
    return card, path


@pytest.mark.parametrize("width", [800, 1000, 1280, 1600])
def test_the_card_document_draws_offline(browser, card_file, width):
    card, path = card_file
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    requests, errors = [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("dialog", lambda d: errors.append(f"dialog: {d.message}"))
    try:
        page.goto(path.as_uri())
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"survival-card-{width}.png"), full_page=True)
        assert [u for u in requests if not u.startswith("file://")] == [] and errors == []
        text = page.inner_text("body")
        assert HOSTILE in text and "SCORE FOR THE RISK OF DIED" in text
        assert page.eval_on_selector_all("script", "els => els.length") == 0
        heads = page.eval_on_selector_all("table.sw-risk th", "els => els.map(e => e.innerText)")
        assert heads[2:4] == [
            f"by {card.horizons[0]:g}: predicted",
            f"by {card.horizons[0]:g}: observed (95 % CI)",
        ]
        rows = page.eval_on_selector_all("table.sw-risk tr", "els => els.length")
        assert rows == len(card.table) + 1
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    finally:
        context.close()
