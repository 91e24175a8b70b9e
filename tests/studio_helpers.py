"""Helpers of the tests that drive the studio's :class:`~slimwidgets.widgets.controller.Controller`
(its fixtures, ``small`` and ``make``, are in ``tests/widgets/conftest.py``)."""

from __future__ import annotations


def settle(c, timeout=300):  # against a hang only: no proof is timed
    assert c.wait(timeout), f"no result within {timeout} s: {c.status.text}"
