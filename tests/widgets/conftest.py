"""Fixtures of the studio's tests: the demo data and controllers that are closed after each test."""

from __future__ import annotations

import pytest

from slimwidgets.datasets import load_demo
from slimwidgets.widgets.controller import Controller


@pytest.fixture(scope="module")
def small():
    X, y = load_demo(n_features=5)
    return X, y


@pytest.fixture
def make(small):
    made = []

    def factory(**kw):
        kw.setdefault("time_limit", 1.0)
        kw.setdefault("frontier", False)
        c = Controller(*small, **kw)
        made.append(c)
        return c

    yield factory
    for c in made:
        assert c.close(), "a controller left a worker thread running"
