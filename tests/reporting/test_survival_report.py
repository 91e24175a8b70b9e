"""sw.report of a time-to-event card: one standalone HTML document, names from data escaped,
every figure in it scikit-survival's on the same predictions."""

from __future__ import annotations

from html.parser import HTMLParser

import numpy as np
import pytest

pytest.importorskip("sksurv")
from sksurv.datasets import load_gbsg2  # noqa: E402
from sksurv.metrics import (  # noqa: E402
    concordance_index_censored,
    concordance_index_ipcw,
    cumulative_dynamic_auc,
    integrated_brier_score,
)
from sksurv.nonparametric import kaplan_meier_estimator  # noqa: E402

import slimwidgets as sw  # noqa: E402
from slimwidgets.reporting.survival_document import survival_report  # noqa: E402
from slimwidgets.toolbox.survival_evidence import score_bands  # noqa: E402
from slimwidgets.toolbox.survival_validation import brier_grid  # noqa: E402

pytestmark = pytest.mark.slow  # a fit and bootstrap intervals on two data sets

HOSTILE = "<script>alert(1)</script>"


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


@pytest.fixture(scope="module")
def reported():
    X, y = load_gbsg2()
    X = X[["pnodes", "progrec", "tgrade"]].rename(columns={"pnodes": HOSTILE})
    X["site"] = np.where(np.arange(len(X)) % 2 == 0, HOSTILE, "\"&'")
    order = np.random.default_rng(0).permutation(len(y))
    train, test = order[:480], order[480:]
    test = test[y[test]["time"] < y[train]["time"].max()]  # inside the training follow-up
    features = [HOSTILE, "progrec", "tgrade"]
    card = sw.fit(X.iloc[train][features], y[train], rules=True, max_size=3, time_limit=60)
    sets = (X.iloc[train], y[train]), (X.iloc[test], y[test])
    doc = survival_report(
        card, *sets[0], test=sets[1], groups="site", title=HOSTILE, n_bootstrap=30
    )
    return card, sets, doc


def test_names_from_data_are_escaped_and_nothing_loads(reported):
    card, _, doc = reported
    assert any(HOSTILE in n for n in card.feature_names)
    assert "<script" not in doc and "&lt;script&gt;alert(1)&lt;/script&gt;" in doc
    assert "&quot;&amp;&#x27;" in doc  # the second group's name
    parser = _Tags()
    parser.feed(doc)
    assert not {t for t, _ in parser.tags} & {"script", "link", "img", "iframe", "object"}
    assert not [a for _, attrs in parser.tags for a in attrs if a in ("src", "href")]
    assert doc.startswith("<!DOCTYPE html>") and "size: A4" in doc
    # calibration and Kaplan–Meier on each data set, and Kaplan–Meier in each of its two groups
    assert doc.count("<svg") == 8
    assert "Kaplan–Meier curves by score band, held-out, &quot;&amp;&#x27;" in doc
    for section in ("The card and how to use it", "The data", "Discrimination",
                    "Calibration by each horizon", "Kaplan–Meier curves by score band",
                    "By group", "How the card was found"):  # fmt: skip
        assert section in doc


def test_every_figure_is_scikit_survival_s(reported):
    card, ((_, y_train), (X_test, y_test)), doc = reported
    risk = card.predict(X_test)
    c = concordance_index_censored(y_test["cens"], y_test["time"], risk)[0]
    tau = max(card.horizons)
    uno = concordance_index_ipcw(y_train, y_test, risk, tau=tau)[0]
    aucs, mean = cumulative_dynamic_auc(y_train, y_test, risk, np.array(card.horizons))
    grid = brier_grid(y_test["time"], y_test["cens"], float(y_train["time"].max()))
    survival = np.vstack([fn(grid) for fn in card.predict_survival_function(X_test)])
    brier = integrated_brier_score(y_train, y_test, survival, grid)
    for value in (c, uno, *aucs, mean, brier):
        assert f'<td class="sw-num">{value:.3f} (' in doc


def test_observed_risk_beside_predicted_is_kaplan_meier_s(reported):
    card, ((X_train, y_train), _), doc = reported
    totals = card.scores(X_train)
    bands = score_bands(totals).to_numpy()
    for band in np.unique(bands):
        mine = bands == band
        times, s, (lo, hi) = kaplan_meier_estimator(
            y_train["cens"][mine], y_train["time"][mine], conf_type="log-log"
        )
        for h in card.horizons:
            at = np.searchsorted(times, h, side="right") - 1
            predicted = np.mean([card.risk_at(t, h) for t in totals[mine]])
            observed = (
                f"{100 * (1 - s[at]):.1f} % ({100 * (1 - hi[at]):.1f}–{100 * (1 - lo[at]):.1f} %)"
            )
            row = f"by {h:g}, score {band}</td>"
            assert row in doc
            tail = doc.split(row, 1)[1].split("</tr>", 1)[0]
            assert f"{100 * predicted:.1f} %" in tail and observed in tail


def test_sw_report_routes_a_survival_card_and_writes_the_file(reported, tmp_path):
    card, ((X, y), _), _ = reported
    path = tmp_path / "survival.html"
    doc = sw.report(card, X, y, path=str(path))
    assert path.read_text(encoding="utf-8") == doc and doc.count("<svg") == 2
    assert "Breslow&#x27;s baseline hazard" in doc or "Breslow's baseline hazard" in doc
    with pytest.raises(ValueError, match="bootstrap intervals of every figure instead"):
        sw.report(card, X, y, bootstrap=10)
