"""sw.alternatives against brute force: every card meets the spec and lies within the margin,
the n-th card is the best one that avoids the earlier feature sets, and a list that calls
itself complete misses no card within the margin (but those that add features to a listed one)."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.toolbox.alternatives import as_alternative, risk_figures

from brute import enumerate_cards
from brute_risk import best_risk_card
from tiny_problems import tiny_risk_problem as tiny

C0 = 0.01
BOX = dict(coef_range=(-2, 2), intercept_range=(-3, 3), C0=C0)


def decision_best_by_support(X, y, names, spec, eps):
    """The least objective (error + C0 * size + eps * L1) of every support, by brute force."""
    cards = enumerate_cards(X.to_numpy(), np.where(y == 1, 1, -1), names, spec)
    value = cards["loss"] + C0 * cards["size"] + eps * cards["l1"]
    best: dict[frozenset, float] = {}
    for points, v in zip(cards["points"], value):
        s = frozenset(n for n, p in zip(names, points) if p)
        best[s] = min(best.get(s, np.inf), float(v))
    return best


def risk_best_by_support(X, y, names, spec):
    """The least objective (log-loss + C0 * size) of every support: each one forced exactly."""
    best = {}
    for r in range(len(names) + 1):
        for s in itertools.combinations(names, r):
            only = spec.replace(require=list(s), exclude=[n for n in names if n not in s])
            got = best_risk_card(X.to_numpy(), np.where(y == 1, 1, -1), names, only)
            if got is not None:
                best[frozenset(s)] = got[0]
    return best


def check_against(best, cards, within):
    """The claims of a complete list, read off the brute-force table ``best``."""
    top = min(best.values())
    listed = [frozenset(c.points) for c in cards]
    assert cards[0].objective == pytest.approx(top, abs=1e-9)
    for i, card in enumerate(
        cards
    ):  # the n-th card is the best that avoids every earlier set whole
        allowed = [v for s, v in best.items() if not any(t <= s for t in listed[:i])]
        assert card.objective == pytest.approx(min(allowed), abs=1e-9)
        assert card.objective <= top + within + 1e-12
    assert cards.complete, cards.stopped
    near = [s for s, v in best.items() if v <= top + within + 1e-12]
    missed = [sorted(s) for s in near if not any(t <= s for t in listed)]
    assert missed == [], (
        f"cards within the margin on feature sets the list does not cover: {missed}"
    )


@pytest.mark.seeds(4)
@pytest.mark.slow
def test_decision_alternatives_match_brute_force(seed):
    X, y, names = tiny(seed + 20, n=40, d=4)
    options = dict(BOX, **[{}, {"max_size": 2}, {"signs": {"f0": "+"}}, {"exclude": ["f3"]}][seed])
    spec = sw.make_spec(**options)
    cards = sw.alternatives(X, y, k=30, within=0.08, **options)
    data = prepare_data(X, y)
    assert all(sw.check_card(c, data, spec) == [] for c in cards)
    best = decision_best_by_support(X, y, names, spec, cards[0].details["epsilon"])
    check_against(best, cards, 0.08)


@pytest.mark.seeds(2)
@pytest.mark.slow
def test_risk_alternatives_match_brute_force(seed):
    X, y, names = tiny(seed + 30, n=30, d=3)
    spec = sw.make_spec(**BOX, loss="logistic")
    cards = sw.alternatives(X, y, k=10, within=0.1, loss="logistic", **BOX)
    assert all(sw.check_card(c, prepare_data(X, y), spec) == [] for c in cards)
    assert all(c.family == "risk" for c in cards)
    check_against(risk_best_by_support(X, y, names, spec), cards, 0.1)


def test_a_full_list_or_a_cancelled_search_is_not_called_complete():
    X, y, _ = tiny(21, n=40, d=4)
    cards = sw.alternatives(X, y, k=2, within=1.0, **BOX)
    assert len(cards) == 2 and cards.stopped == "k" and not cards.complete
    stop = __import__("threading").Event()
    stop.set()
    cards = sw.alternatives(X, y, k=5, within=1.0, cancel=stop, **BOX)
    assert cards == [] and cards.stopped == "cancelled" and not cards.complete


def test_a_later_card_is_not_called_optimal_for_the_spec_itself():
    X, y, _ = tiny(22, n=40, d=4)
    spec = sw.make_spec(**BOX)
    cards = sw.alternatives(X, y, k=3, within=1.0, **BOX)
    first, second = as_alternative(cards[0], spec, 1), as_alternative(cards[1], spec, 2)
    assert first is cards[0]
    assert second.status == "feasible" and second.bound is None and second.spec.key() == spec.key()
    assert second.details["alternative"] == 2
    handed_over = replace(cards[1], details={**cards[1].details, "bound_by_work": 0.1})
    assert "bound_by_work" not in as_alternative(handed_over, spec, 2).details


def test_risk_figures_match_a_direct_count():
    X, y, _ = tiny(23, n=40, d=3)
    card = sw.fit(X, y, loss="logistic", **BOX)
    data = prepare_data(X, y)
    loss, auc = risk_figures(card, data)
    p = card.predict_proba(X.to_numpy())[:, 1]
    assert loss == pytest.approx(-np.mean(np.where(y == 1, np.log(p), np.log(1 - p))), rel=1e-9)
    s = X.to_numpy() @ np.array(card.coefficients, float)
    pos, neg = s[y == 1], s[y == 0]
    pairs = [(a > b) + 0.5 * (a == b) for a in pos for b in neg]
    assert auc == pytest.approx(np.mean(pairs), rel=1e-12)


def test_bad_k_and_within_are_refused():
    X, y, _ = tiny(24)
    with pytest.raises(ValueError, match="k must be"):
        sw.alternatives(X, y, k=0)
    with pytest.raises(ValueError, match="within must be"):
        sw.alternatives(X, y, within=-0.1)


@pytest.mark.slow
def test_under_an_fpr_cap_the_margin_is_points_of_tpr():
    from slimwidgets.datasets import load_demo

    X, y = load_demo(n_features=5)
    cards = sw.alternatives(X, y, k=4, within=0.03, max_fpr=0.2, time_limit=30)
    assert (
        cards.measure == "tpr" and cards.margin > 0.03
    )  # one missed positive costs far more than 1/n
    positives = int((y == 1).sum())
    spec = sw.make_spec(max_fpr=0.2)
    for card in cards:  # lexicographic: the size terms add less than one missed positive
        assert card.train_metrics.fpr <= 0.2 + 1e-12
        assert card.train_metrics.tpr >= cards[0].train_metrics.tpr - 0.03 - 1 / positives - 1e-12
        assert sw.check_card(card, prepare_data(X, y), spec) == []
    assert len(cards) > 1
