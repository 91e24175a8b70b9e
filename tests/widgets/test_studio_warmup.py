"""The risk family without surprise (issue 20 item 3): the risk kernels compile in the
background once a card is on screen, and a risk solve that would wait for them says so, and how
far the compile has come."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from slimwidgets.datasets import load_demo
from slimwidgets.widgets.controller import Controller
from slimwidgets.widgets import warmup
from slimwidgets.widgets.warmup import WARMING_TEXT, RiskWarmup, warming_text


def test_the_risk_kernels_are_ready_before_the_first_switch():
    X, y = load_demo(n_features=5)
    c = Controller(X, y, time_limit=1.0, frontier=False, alternatives=False)
    try:
        assert c.wait(300)
        warm = c._warmup
        assert warm.thread is not None or RiskWarmup._done.is_set()  # started once the card settled
        assert warm.join(300) and RiskWarmup._done.is_set()
        c.set_family("risk")
        assert c.status.text != WARMING_TEXT  # compiled already: nothing to wait for
        assert c.wait(300) and c.card.family == "risk"
    finally:
        assert c.close()


@pytest.fixture
def compiling():
    """A settled studio whose compile is still running (a thread that waits, standing in for it,
    until the test sets ``release``)."""
    X, y = load_demo(n_features=5)
    c = Controller(X, y, time_limit=1.0, frontier=False, alternatives=False)
    release = threading.Event()
    try:
        assert c.wait(300)
        c._warmup.join(300)
        c._warmup.thread = threading.Thread(target=release.wait, daemon=True)
        c._warmup.thread.start()
        yield c, release
    finally:
        release.set()
        assert c.close()


def test_a_risk_switch_during_the_compile_says_so(compiling):
    c, release = compiling
    c.set_family("risk")
    assert c.status.state == "solving" and c.status.text == WARMING_TEXT
    release.set()
    assert c.wait(300) and c.card.family == "risk" and c.status.text != WARMING_TEXT


def test_a_risk_switch_during_the_compile_says_how_far_it_has_come(compiling, monkeypatch):
    """Each kernel compiled moves the waiting risk solve's status line on ("2 of 4 parts done,
    about 15 s left", the time left measured on the parts done: a fake clock here); a switch made
    once some parts are ready says so at once; a settled card is left alone."""
    c, release = compiling
    clock = SimpleNamespace(monotonic=lambda: now[0])
    now = [100.0]
    monkeypatch.setattr(warmup, "time", clock)
    c._warmup._started = 100.0
    seen = []
    c.subscribe(lambda events: seen.append(c.status.text) if "card" in events else None)
    now[0] = 110.0
    c._warmup._step(1, 4)  # one part ready before the switch, after 10 s: 30 s to go
    c.set_family("risk")
    assert c.status.text == warming_text(1, 4, left=30.0) and "1 of 4 parts done, about 30 s left" in c.status.text
    now[0] = 116.0
    c._warmup._step(2, 4)  # 16 s for two parts: about 16 s for the other two
    assert c.status.state == "solving" and c.status.text == warming_text(2, 4, left=16.0)
    assert "2 of 4 parts done, about 15 s left" in c.status.text
    assert seen[-1] == c.status.text  # the view was told
    release.set()
    assert c.wait(300) and c.card.family == "risk"
    settled = c.status.text
    c._warmup._step(3, 4)  # a late report changes nothing once the risk card is settled
    assert c.status.text == settled and "parts done" not in settled
