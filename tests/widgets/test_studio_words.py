"""Words a clinician reads (issue 20 item 7): messages in user units, an edit headlined by the
figure the settings optimise, the cost line in the same order."""

from __future__ import annotations

import re

import pytest

from slimwidgets.datasets import load_demo
from slimwidgets.widgets.controller import Controller
from slimwidgets.widgets.studio import card_payload


@pytest.fixture(scope="module")
def capped():
    X, y = load_demo(n_features=6)
    c = Controller(X, y, max_fpr=0.2, time_limit=2.0, frontier=False)
    assert c.wait(300)
    yield c
    assert c.close()


@pytest.mark.slow
def test_a_threshold_edit_that_breaks_the_cap_reads_in_user_units(capped):
    c = capped
    solved = c.card
    # the loosest threshold that breaks the cap: more positives, so TPR up and FPR over 20 %
    for t in range(solved.threshold - 1, solved.threshold - 30, -1):
        c.edit(threshold=t)
        if c.card.train_metrics.fpr > 0.2:
            break
    fpr = c.card.train_metrics.fpr
    assert fpr > 0.2
    text = c.status.text
    # the figure the settings optimise first (TPR under a cap), then the one it trades against
    assert re.match(
        r"edited \(not optimized\) · TPR (\+\d+\.\d pt|same) · FPR \+\d+\.\d pt vs the solved card",
        text,
    ), text
    assert f"breaks max FPR 20 % (FPR {100 * fpr:.1f} %)" in text, text
    assert "max_fpr" not in text and "0.2" not in text.split("breaks")[1]
    assert c.violations() == [f"max FPR 20 % (FPR {100 * fpr:.1f} %)"]
    cost = card_payload(c)["cost_text"]
    assert re.match(
        r"edit vs (optimum|the solved card): TPR [+−]\d+\.\d pt · FPR [+−]\d+\.\d pt · error", cost
    ), cost
    c.undo()


def test_without_a_cap_an_edit_is_headlined_by_the_error():
    X, y = load_demo(n_features=5)
    c = Controller(X, y, time_limit=1.0, frontier=False, max_size=2)
    try:
        assert c.wait(300)
        name = next(iter(c.card.points))
        c.edit({name: c.card.points[name] + 5})
        assert c.status.text.startswith("edited (not optimized) · error ")
        c.edit({n: 1 for n in c.data.feature_names})  # a fifth feature: over the size limit
        assert "breaks at most 2 features (5 used)" in c.status.text
    finally:
        assert c.close()
