"""card.recalibrate: the threshold or the logistic link refitted on new rows, points unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize_scalar

import slimwidgets as sw
from slimwidgets.core.losses import softplus
from slimwidgets.core.spec import make_spec

DATA = Path(__file__).resolve().parents[1] / "data"


def _rows(seed: int, n: int = 200, shift: float = 0.0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 2, size=(n, 3)), columns=["a", "b", "c"])
    score = X.to_numpy() @ np.array([3, 2, 1])
    y = (rng.random(n) < 1 / (1 + np.exp(-(0.8 * score - 3 + shift)))).astype(int)
    return X, y


def _card(**spec):
    return sw.ScoringSystem(
        ("a", "b", "c"), (3, 2, 1), -4, status="optimal", spec=make_spec(**spec)
    )


@pytest.mark.seeds(6)
@pytest.mark.parametrize("spec", [{}, {"max_fpr": 0.2}, {"min_tpr": 0.8}])
def test_the_new_threshold_is_the_best_under_the_cards_settings(seed, spec):
    X, y = _rows(seed, shift=1.0)
    card = _card(**spec)
    new = card.recalibrate(X, y)
    assert new.points == card.points and new.status == "recalibrated"
    s = card.score(X).to_numpy()

    def figures(t):
        called = s >= t
        return called[y == 1].mean(), called[y == 0].mean(), np.mean(called != (y == 1))

    feasible = [
        t
        for t in range(-2, 9)
        if (spec.get("max_fpr") is None or figures(t)[1] <= spec["max_fpr"])
        and (spec.get("min_tpr") is None or figures(t)[0] >= spec["min_tpr"])
    ]
    tpr, fpr, err = figures(new.threshold)
    if "max_fpr" in spec:
        assert tpr == max(figures(t)[0] for t in feasible)
    elif "min_tpr" in spec:
        assert fpr == min(figures(t)[1] for t in feasible)
    else:
        assert err == min(figures(t)[2] for t in feasible)


def test_an_unreachable_cap_is_named():
    X, y = _rows(0)
    with pytest.raises(ValueError, match="min_tpr = 1"):
        _card(min_tpr=1.0, max_fpr=0.0).recalibrate(X, y)


@pytest.mark.seeds(4)
def test_the_risk_link_is_the_maximum_likelihood_one_with_an_integer_intercept(seed):
    X, y = _rows(seed, n=400, shift=0.7)
    card = sw.ScoringSystem(("a", "b", "c"), (3, 2, 1), -3, family="risk", multiplier=1.0)
    new = card.recalibrate(X, y)
    s = card.score(X).to_numpy().astype(float)
    sign = np.where(y == 1, 1.0, -1.0)

    def loss(c, m):
        return softplus(-sign * (s + c) / m).mean()

    # independently: for every integer intercept, SciPy's best multiplier in [1/2, 10^4]
    best = min(
        (
            minimize_scalar(
                lambda m: loss(c, m), bounds=(0.5, 1e4), method="bounded", options={"xatol": 1e-9}
            ).fun,
            c,
        )
        for c in range(-12, 6)
    )
    assert new.intercept == best[1]
    assert loss(new.intercept, new.multiplier) == pytest.approx(best[0], abs=1e-7)
    # its log-loss on the new rows is what the card's own metrics say, and no worse than before
    assert new.metrics(X, y).log_loss == pytest.approx(loss(new.intercept, new.multiplier))
    assert new.metrics(X, y).log_loss <= card.metrics(X, y).log_loss + 1e-12
    assert new.points == card.points


def test_history_is_on_the_card_in_its_exports_and_survives_json():
    X, y = _rows(1)
    new = _card(max_fpr=0.3).recalibrate(X, y, label='site <b>"B"</b> & co')
    note = new.history[-1]["note"]
    assert (
        note.startswith('recalibrated for site <b>"B"</b> & co on 200 rows')
        and "points unchanged" in note
    )
    assert note in new.to_text() and "site \\<b\\>" in new.to_markdown()
    assert (
        "site &lt;b&gt;&quot;B&quot;&lt;/b&gt; &amp; co" in new.to_html()
        and '<b>"B"' not in new.to_html()
    )
    again = sw.ScoringSystem.from_json(new.to_json())
    assert again.to_json() == new.to_json() and again.history == new.history
    twice = again.recalibrate(X, y, label="site C")
    assert [e["label"] for e in twice.history] == ['site <b>"B"</b> & co', "site C"]
    body = json.loads(twice.to_json())
    assert body["status"] == "recalibrated" and len(body["history"]) == 2
    assert "recalibrated" in sw.describe(twice).headline


def test_old_json_still_loads_and_exports_without_history():
    old = sw.ScoringSystem.from_json((DATA / "card_schema_v1.json").read_text())
    assert old.history == () and "history" not in json.loads(old.to_json())


def test_bad_history_is_refused():
    X, y = _rows(1)
    body = json.loads(_card().recalibrate(X, y).to_json())
    body["history"] = [{"no": "note"}]
    with pytest.raises(ValueError, match="history"):
        sw.ScoringSystem.from_dict(body, verify=False)
