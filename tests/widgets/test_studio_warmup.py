"""The risk family without surprise (issue 20 item 3): the risk kernels compile in the
background once the first card is settled, and a risk solve that would wait for them says so."""

from __future__ import annotations

import threading

from slimwidgets.datasets import load_demo
from slimwidgets.widgets.controller import Controller
from slimwidgets.widgets.warmup import WARMING_TEXT, RiskWarmup


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


def test_a_risk_switch_during_the_compile_says_so():
    X, y = load_demo(n_features=5)
    c = Controller(X, y, time_limit=1.0, frontier=False, alternatives=False)
    release = threading.Event()
    try:
        assert c.wait(300)
        c._warmup.join(300)
        # the compile still running when the user switches (a thread that waits, standing in for it)
        c._warmup.thread = threading.Thread(target=release.wait, daemon=True)
        c._warmup.thread.start()
        c.set_family("risk")
        assert c.status.state == "solving" and c.status.text == WARMING_TEXT
        release.set()
        assert c.wait(300) and c.card.family == "risk" and c.status.text != WARMING_TEXT
    finally:
        release.set()
        assert c.close()
