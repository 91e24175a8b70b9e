"""Helpers of the tests that drive the studio's :class:`~slimwidgets.widgets.controller.Controller`
(its fixtures, ``small`` and ``make``, are in ``tests/widgets/conftest.py``)."""

from __future__ import annotations


def settle(c, timeout=300):  # against a hang only: no proof is timed
    assert c.wait(timeout), f"no result within {timeout} s: {c.status.text}"


def raw_clinical(n=160, seed=0):
    """A small raw table (age, bmi with missing values, sex) and a target that reads all three."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "age": rng.integers(30, 85, n),
            "bmi": np.round(rng.normal(28, 5, n), 1),
            "sex": rng.choice(["F", "M"], n),
        }
    )
    y = ((X.age > 62) | ((X.sex == "M") & (rng.random(n) < 0.4)) | (X.bmi > 34)).astype(int)
    X.loc[rng.random(n) < 0.1, "bmi"] = np.nan
    return X, y


def send(view, kind, **payload):
    """What the browser does: ``view`` (a studio's anywidget view) sends the request ``kind``
    with ``payload`` as a custom message; returns Python's answer ``{id, ok, error}``."""
    answers = []
    view.send = lambda content, buffers=None: answers.append(content)
    try:
        view._handle_custom_msg({"id": f"test-{kind}", "type": kind, "payload": payload}, [])
    finally:
        del view.send  # the widget's own send again
    assert len(answers) == 1, answers  # every request is answered, once
    return answers[0]
