"""sw.report: one standalone HTML document, every name escaped, every figure the independent one."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import brier_score_loss, roc_auc_score

import slimwidgets as sw
from slimwidgets.datasets import load_demo

HOSTILE = "<script>alert(1)</script>"
QUOTES = "\"&'"


class _Tags(HTMLParser):
    """Every start tag and attribute of a document, to find anything that would load or run."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def _hostile_data(n: int = 240, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {HOSTILE: rng.integers(0, 2, n), QUOTES: rng.integers(0, 2, n), "c": rng.integers(0, 2, n)}
    )
    logit = 2.0 * X[HOSTILE] + 1.0 * X[QUOTES] - 1.5
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-logit)), "<b>sick</b>", "well & fine")
    X["site"] = np.where(np.arange(n) % 2 == 0, HOSTILE, QUOTES)
    return X, pd.Series(y, name="outcome")


@pytest.fixture(scope="module")
def hostile_report():
    X, y = _hostile_data()
    card = sw.ScoringSystem(
        (HOSTILE, QUOTES, "c"),
        (2, 1, 0),
        -2,
        positive="<b>sick</b>",
        negative="well & fine",
        family="risk",
        multiplier=1.0,
        spec=sw.make_spec(loss="logistic", max_size=2),
        status="optimal",
    )
    doc = sw.report(
        card,
        X[:160],
        y[:160],
        test=(X[160:200], y[160:200]),
        external=(X[200:], y[200:]),
        groups="site",
        title=HOSTILE,
    )
    return card, X, y, doc


def test_names_from_data_are_escaped_everywhere(hostile_report):
    card, X, y, doc = hostile_report
    assert "<script" not in doc and "<b>sick" not in doc
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in doc
    assert "&quot;&amp;&#x27;" in doc and "&lt;b&gt;sick&lt;/b&gt;" in doc
    parser = _Tags()
    parser.feed(doc)
    tags = {t for t, _ in parser.tags}
    assert not tags & {"script", "link", "img", "iframe", "object", "embed"}
    # nothing is loaded from elsewhere: no src or href at all (the svg namespace is not a request)
    assert not [a for _, attrs in parser.tags for a in attrs if a in ("src", "href")]


def test_the_document_is_standalone_and_prints_on_a4(hostile_report):
    doc = hostile_report[3]
    assert doc.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in doc
    assert "@media print" in doc and "size: A4" in doc
    assert doc.count("<svg") == 2  # calibration and decision curve
    for section in (
        "The card and how to use it",
        "The data",
        "Discrimination",
        "Calibration",
        "Decision curve",
        "By group",
        "How the card was found",
    ):
        assert section in doc


def test_every_figure_in_the_report_is_the_independent_one(hostile_report):
    card, X, y, doc = hostile_report
    for Xs, ys in ((X[:160], y[:160]), (X[160:200], y[160:200]), (X[200:], y[200:])):
        events = (ys == "<b>sick</b>").to_numpy()
        s = card.score(Xs).to_numpy()
        p = card.predict_proba(Xs).to_numpy()[:, 1]
        assert f"{roc_auc_score(events, s):.3f} (" in doc
        assert f"{brier_score_loss(events, p):.3f}" in doc
        called = s >= card.threshold
        tp, pos = int((called & events).sum()), int(events.sum())
        assert f"{100 * tp / pos:.1f} % (" in doc and f"{tp}/{pos}" in doc


def test_the_data_section_counts_missing_values_and_leaves_those_rows_out():
    X, y = _hostile_data()
    X = X.astype({HOSTILE: float})
    X.iloc[:5, 0] = np.nan
    card = sw.ScoringSystem(
        (HOSTILE, QUOTES, "c"), (2, 1, 0), -2, positive="<b>sick</b>", negative="well & fine"
    )
    with pytest.warns(UserWarning, match="5 of 240"):
        doc = sw.report(card, X, y)
    rows = re.search(r"<td>training</td>(.*?)</tr>", doc).group(1)
    assert re.findall(r">(\d+)<", rows) == [
        "240",
        "235",
        str(int((y[5:] == "<b>sick</b>").sum())),
        "5",
    ]
    assert "complete cases" in doc


@pytest.mark.slow
def test_report_of_a_fitted_decision_card_with_bootstrap_and_cv(tmp_path):
    X, y = load_demo()
    card = sw.fit_cv(X[:300], y[:300], max_size=[2, 3], cv=3, time_limit=2, progress=False)
    out = tmp_path / "r.html"
    doc = sw.report(
        card,
        X[:300],
        y[:300],
        test=(X[300:], y[300:]),
        bootstrap=2,
        time_limit=1,
        path=str(out),
        progress=False,
    )
    assert out.read_text(encoding="utf-8") == doc
    assert "Observed rate per score" in doc and "Cross-validation (3 folds)" in doc
    assert "Harrell" in doc and "optimism" in doc
    assert html.escape(sw.describe(card).headline) in doc
    assert card.to_dict()["checksum"] in doc
    assert "highspy" in doc and "max_size" in doc


@pytest.mark.slow
def test_a_recalibrated_card_reports_its_history():
    X, y = load_demo()
    card = sw.fit(X[:300], y[:300], max_fpr=0.2, max_size=3, time_limit=2)
    new = card.recalibrate(X[300:], y[300:], label="site <B>")
    doc = sw.report(new, X[300:], y[300:])
    assert "recalibrated for site &lt;B&gt;" in doc and "site <B>" not in doc
