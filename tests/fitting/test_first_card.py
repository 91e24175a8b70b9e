"""A larger table's first card, before its size choice: found on counted work, said on screen,
and returned when Ctrl-C stops the choice (no test here depends on the real speed)."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.core.formulation import build_formulation
from slimwidgets.fitting import driver


def table(n: int = 1500, seed: int = 2) -> tuple[pd.DataFrame, pd.Series]:
    """More rows than driver.FIRST_CARD_ROWS: numbers with a signal, and a text column."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(50, 10, (n, 3)).round(1), columns=["a", "b", "c"])
    X["site"] = rng.choice(["north", "south", "east"], n)
    risk = (X.a - 50) / 10 - 0.6 * (X.b - 50) / 10 + 0.5 * (X.site == "north") + rng.normal(0, 1, n)
    return X, pd.Series((risk > 0.2).astype(int), name="event")


class Clock:
    """``time.perf_counter`` as a machine ``rate`` times slower would see it."""

    def __init__(self, rate: float) -> None:
        self.rate, self.real = rate, time.perf_counter
        self.start = self.real()

    def __call__(self) -> float:
        return self.start + self.rate * (self.real() - self.start)


def stopped_in_the_choice(*args, **kwargs):
    raise KeyboardInterrupt


def test_ctrl_c_during_the_size_choice_returns_the_first_card_said_before(monkeypatch, capsys):
    monkeypatch.setattr(driver, "choose_cuts_and_size", stopped_in_the_choice)
    X, y = table()
    card = sw.fit(X, y, progress=True)
    said = capsys.readouterr().err
    assert said.startswith("first card in ") and "Ctrl-C returns this card" in said, said
    assert card.status == "interrupted" and card.solver == "local search"
    assert card.size <= 5 and card.spec.size_cv is None
    assert "size_cv" not in card.details  # no size was chosen: it does not claim one
    rules = card.rules.transform(X)
    assert sw.check_card(card, prepare_data(rules, y), card.spec) == []
    assert (card.predict(X) == card.predict(rules)).all()  # it reads the raw rows


def test_the_first_card_is_the_same_on_a_50x_slow_and_a_fast_clock(monkeypatch):
    """Its search ends on counted work (at most FIRST_SEARCH_MOST rows x moves), not on time: its
    seconds, a safety net, are moved out of the way of a 50x slow clock."""
    monkeypatch.setattr(driver, "choose_cuts_and_size", stopped_in_the_choice)
    monkeypatch.setattr(driver, "HEURISTIC_SECONDS", 1e4)
    X, y = table()
    cards = []
    for rate in (50.0, 1 / 50):
        with monkeypatch.context() as patch:
            patch.setattr(time, "perf_counter", Clock(rate))
            cards.append(sw.fit(X, y, progress=False))
    slow, fast = cards
    assert (slow.points, slow.threshold) == (fast.points, fast.threshold)


def test_the_first_search_of_a_large_table_is_capped_in_counted_work(monkeypatch):
    X, y = table()
    rules = sw.RuleBuilder(n_cuts=9).fit_transform(X)
    form = build_formulation(prepare_data(rules, y), sw.make_spec(max_size=5))
    n, p = form.data.X.shape
    assert driver.first_search_work(form) == driver.FIRST_SEARCH_SWEEPS * n * p
    monkeypatch.setattr(driver, "FIRST_SEARCH_MOST", 1000.0)
    assert driver.first_search_work(form) == 1000.0


def test_a_small_table_gets_no_first_card_and_ctrl_c_stops_the_fit(monkeypatch, capsys):
    monkeypatch.setattr(driver, "choose_cuts_and_size", stopped_in_the_choice)
    X, y = table(n=300)
    with pytest.raises(KeyboardInterrupt):
        sw.fit(X, y, progress=True)
    assert "first card" not in capsys.readouterr().err


def test_a_risk_fit_gets_no_decision_card_first(monkeypatch, capsys):
    """The first card comes from the family's own program; risk cards have none to search, so a
    Ctrl-C in their size choice goes on rather than return a decision card as a risk card."""
    monkeypatch.setattr(driver, "choose_cuts_and_size", stopped_in_the_choice)
    X, y = table()
    with pytest.raises(KeyboardInterrupt):
        sw.fit(X, y, loss="logistic", progress=True)
    assert "first card" not in capsys.readouterr().err
