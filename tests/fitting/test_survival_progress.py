"""The bar of a time-to-event fit: the best card so far (its rules, C-index, objective per
event), the floor proven, the time left; Ctrl-C returns the best card found. The clock and the
bar are faked where timing matters; the proofs are real, checked against brute force."""

from __future__ import annotations

import math

import numpy as np
import pytest
from brute_cox import T_RANGE, brute_optimum, tiny_survival

from slimwidgets.core.survival import harrell_c
from slimwidgets.fitting import progress, survival_driver
from slimwidgets.fitting.progress import SHOW_AFTER, FitProgress
from slimwidgets.fitting.survival_driver import fit_survival, progress_words
from slimwidgets.solvers.cox_tree import CoxProblem, prove_cox


class Bar:
    """What a tqdm bar is told, kept (every postfix it showed)."""

    def __init__(self, **kwargs):
        self.kwargs, self.n, self.desc, self.closed, self.shown = kwargs, 0, "fit", False, []

    def set_postfix_str(self, text, refresh=True):
        self.shown.append(text)

    def set_description_str(self, text, refresh=True):
        self.desc = text

    def refresh(self):
        pass

    def close(self):
        self.closed = True


class DrawnEachTime(FitProgress):
    """A bar old enough to draw, drawn at each card or floor the fit reports (no timer)."""

    def start(self):
        return self

    def on_found(self, words):
        super().on_found(words)
        self.tick()


def survival_table(seed: int):
    X, time, event, w = tiny_survival(seed)
    y = np.array(list(zip(event, time)), dtype=[("died", "?"), ("days", "<f8")])
    return X, y, w


def watched(monkeypatch, time_limit=30.0):
    """Make fit_survival's bar a :class:`DrawnEachTime` over a :class:`Bar`; the bars made."""
    made = []

    def make(progress_value, limit, started):
        assert progress_value is True
        made.append(DrawnEachTime(time_limit, -SHOW_AFTER, clock=lambda: 0.0, make_bar=Bar))
        return made[-1]

    monkeypatch.setattr(survival_driver, "fit_progress", make)
    return made


@pytest.mark.seeds(4)
def test_the_bar_says_each_card_its_c_index_the_floor_and_ends_on_the_status(monkeypatch, seed):
    X, y, w = survival_table(seed)
    made = watched(monkeypatch)
    card = fit_survival(X, y, sample_weight=w, max_size=2, C0=0.01, progress=True)
    bar = made[0].bar
    assert bar.closed and bar.desc == "done"
    assert bar.shown[-1].endswith(f"status {card.status}")
    during = [text for text in bar.shown[:-1] if "C-index" in text]
    assert during and all(text.startswith("best so far: ") for text in during)
    assert all(text.endswith(f" · {30 - SHOW_AFTER:.0f} s left") for text in bar.shown[:-1])
    assert any("proven: no card below" in text for text in during)


@pytest.mark.seeds(8)
def test_every_card_and_floor_told_is_true_of_the_brute_force_optimum(seed):
    """The cards told are never better than the optimum and each says its own objective; the
    floors told are never above it (break the floor told and this fails)."""
    X, time, event, w = tiny_survival(seed)
    allowed, C0 = [np.arange(-2, 3)] * X.shape[1], np.full(X.shape[1], 0.01)
    prob = CoxProblem(X, time, event, w, allowed, C0, 2, T_RANGE)
    best, _ = brute_optimum(X, time, event, w, allowed, C0, 2)
    cards, floors = [], []
    proof = prove_cox(prob, on_card=cards.append, on_floor=floors.append)
    assert floors and all(floor <= best + 1e-9 for floor in floors)
    assert all(card.objective >= best - 1e-9 for card in cards)
    assert cards[-1].objective == pytest.approx(proof.card.objective, abs=1e-12)
    objectives = [card.objective for card in cards]
    assert objectives == sorted(objectives, reverse=True)  # each told card is better


def test_the_words_state_the_card_s_c_index_on_the_rows_fitted():
    X, time, event, w = tiny_survival(2)
    allowed, C0 = [np.arange(-2, 3)] * X.shape[1], np.full(X.shape[1], 0.01)
    prob = CoxProblem(X, time, event, w, allowed, C0, 2, T_RANGE)
    proof = prove_cox(prob)
    words = progress_words(prob, proof.card, proof.floor)
    concordance = harrell_c(time, event, X @ np.round(proof.card.points), w)
    assert f"C-index {concordance:.3f}" in words
    assert f"objective {proof.card.objective:.4g} per event" in words
    assert f"proven: no card below {proof.floor:.4g}" in words
    assert progress_words(prob, proof.card, -math.inf).endswith("no floor proven yet")


def test_ctrl_c_returns_the_best_card_found_with_no_floor_and_closes_the_bar(monkeypatch):
    """Ctrl-C (a KeyboardInterrupt from the clock, read by the proof between nodes) in the middle
    of a real proof: the best card so far comes back, checked, status "interrupted"."""
    X, y, w = survival_table(3)
    counted = iter(range(10**6))
    full = fit_survival(
        X, y, sample_weight=w, max_size=2, C0=0.0, clock=lambda: float(next(counted))
    )
    halfway = next(counted) // 2  # half the clock readings of the whole fit
    assert halfway > 5
    readings = iter(range(10**6))

    def clock():
        if next(readings) == halfway:
            raise KeyboardInterrupt
        return 0.0

    made = watched(monkeypatch)
    card = fit_survival(X, y, sample_weight=w, max_size=2, C0=0.0, clock=clock, progress=True)
    assert card.status == "interrupted" and card.bound is None
    assert card.objective >= full.objective - 1e-9
    assert made[0].bar.closed and made[0].bar.shown[-1].endswith("status interrupted")


def test_ctrl_c_before_any_card_goes_on_and_the_bar_stops(monkeypatch):
    X, y, w = survival_table(3)
    readings = iter(range(10**6))

    def clock():
        if next(readings) == 0:  # the fit's first look at the clock, before any card
            raise KeyboardInterrupt
        return 0.0

    made = watched(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        fit_survival(X, y, sample_weight=w, max_size=2, clock=clock, progress=True)
    # the proof tells its starting card at once, so only a Ctrl-C before the proof finds no card
    assert all(bar.stopped.is_set() for bar in made)
    assert all(bar.bar is None or bar.bar.desc == "fit" for bar in made)  # nothing it does not know


def test_progress_none_draws_nothing_in_a_script_and_a_bad_value_is_refused(monkeypatch):
    X, y, w = survival_table(1)
    monkeypatch.setattr(progress, "interactive", lambda: False)
    monkeypatch.setattr(progress.FitProgress, "start", lambda self: pytest.fail("a bar started"))
    assert fit_survival(X, y, max_size=1).status == "optimal"
    with pytest.raises(TypeError, match="progress must be True, False or None"):
        fit_survival(X, y, max_size=1, progress="yes")
