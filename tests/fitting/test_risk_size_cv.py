"""The size of risk cards chosen by cross-validation on held-out log-loss, as decision cards'."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold

import slimwidgets as sw
from slimwidgets.core.family import DECISION, RISK
from slimwidgets.core.wording import describe_spec
from slimwidgets.fitting import size_cv

from brute_risk import best_risk_card, risk_loss
from tiny_problems import tiny_risk_problem

#: seconds for fits that must be proven (a cap never reached: the boxes are tiny)
LIMIT = 600
#: the tiny box every brute-force fit here enumerates
BOX = dict(coef_range=(-2, 2), intercept_range=(-4, 4), C0=0.002, scale=False)


def brute_choice(X: pd.DataFrame, y: np.ndarray, folds: int) -> tuple[int, dict[int, list]]:
    """The size chosen from the definitions: the same stratified folds (seed 0), every size's
    best card on each fold's training rows by enumeration, its mean log-loss on the held-out
    rows; the smallest size whose mean is the lowest. Returns it and each size's fold losses."""
    ysign = np.where(y == 1, 1, -1)
    names, values = list(X.columns), X.to_numpy()
    split = StratifiedKFold(folds, shuffle=True, random_state=0).split(values, y)
    splits = list(split)
    losses: dict[int, list] = {}
    for size in range(1, values.shape[1] + 1):
        spec = sw.make_spec(loss="logistic", max_size=size, **BOX)
        losses[size] = []
        for train, test in splits:
            _, coefs, b, t = best_risk_card(values[train], ysign[train], names, spec)
            held_out = risk_loss(values[test], ysign[test], np.ones(len(test)), coefs, b, t)
            losses[size].append(held_out)
    means = {size: float(np.mean(v)) for size, v in losses.items()}
    lowest = min(means.values())
    return min(s for s, m in means.items() if m <= lowest + 1e-12), losses


@pytest.mark.seeds(6)
@pytest.mark.slow
def test_the_size_chosen_is_the_brute_force_choice(seed):
    X, y, _ = tiny_risk_problem(seed, n=36, d=3)
    card = sw.fit(X, y, loss="logistic", size_cv=3, time_limit=LIMIT, **BOX)
    chosen, losses = brute_choice(X, y, 3)
    choice = card.details["size_cv"]
    assert choice["measure"] == "log-loss" and choice["folds"] == 3
    rows = {r["max_size"]: r for r in choice["candidates"]}
    assert sorted(rows) == sorted(losses)
    for size, held_out in losses.items():
        assert rows[size]["optimal_folds"] == 3  # every fold card proven: the choice is the table's
        assert rows[size]["test_error"] == pytest.approx(np.mean(held_out), abs=1e-9)
        assert rows[size]["test_error_std"] == pytest.approx(np.std(held_out, ddof=1), abs=1e-9)
    assert choice["chosen"] == chosen and card.spec.max_size == chosen
    best = best_risk_card(X.to_numpy(), np.where(y == 1, 1, -1), list(X.columns), card.spec)
    assert card.status == "optimal" and card.objective == pytest.approx(best[0], abs=1e-9)


@pytest.mark.seeds(4)
def test_the_held_out_log_loss_is_sklearns(seed):
    rng = np.random.default_rng(seed)
    points = tuple(int(p) for p in rng.integers(-3, 4, 3))
    card = sw.ScoringSystem(("f0", "f1", "f2"), points, -1, family="risk", multiplier=1.7)
    X, y, _ = tiny_risk_problem(100 + seed, n=50, d=3)
    w = rng.uniform(0.2, 3.0, len(y))
    risk = card.predict_proba(X).to_numpy()[:, 1]
    assert RISK.held_out_score(card, X, y) == pytest.approx(log_loss(y, risk), rel=1e-12)
    assert RISK.held_out_score(card, X, y, w) == pytest.approx(
        log_loss(y, risk, sample_weight=w), rel=1e-12
    )
    # balanced: each class weighs as much in all, as the fit weighs it
    per_class = np.where(y == 1, 1 / w[y == 1].sum(), 1 / w[y == 0].sum())
    assert RISK.held_out_score(card, X, y, w, "balanced") == pytest.approx(
        log_loss(y, risk, sample_weight=w * per_class), rel=1e-12
    )
    assert RISK.held_out_score(card, X, y, None, (1.0, 4.0)) == pytest.approx(
        log_loss(y, risk, sample_weight=np.where(y == 1, 4.0, 1.0)), rel=1e-12
    )
    # a decision card's held-out score is its error
    decision = sw.ScoringSystem(("f0", "f1", "f2"), points, -1)
    wrong = decision.predict(X).to_numpy() != y
    assert DECISION.held_out_score(decision, X, y, w) == pytest.approx(np.average(wrong, weights=w))


def raw_table(n: int = 120, seed: int = 5) -> tuple[pd.DataFrame, pd.Series]:
    """Two measurements and a text column, a missing value or two: fit makes its rules."""
    rng = np.random.default_rng(seed)
    age = rng.normal(60, 10, n).round(0)
    sbp = rng.normal(135, 18, n).round(0)
    sex = rng.choice(["F", "M"], n)
    sbp[:3] = np.nan
    logit = (age - 60) / 8 + np.nan_to_num((sbp - 135) / 30) + 0.4 * (sex == "M")
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return pd.DataFrame({"age": age, "sbp": sbp, "sex": sex}), pd.Series(y, name="event")


@pytest.mark.slow
def test_the_default_risk_fit_chooses_its_size_on_log_loss_and_says_so(capsys):
    X, y = raw_table()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        card = sw.fit(X, y, loss="logistic", coef_range=(-3, 3), time_limit=None, progress=True)
    choice = card.details["size_cv"]
    assert card.spec.size_cv == 5 and choice["measure"] == "log-loss"
    assert choice["chosen"] == card.spec.max_size and card.size <= card.spec.max_size
    # the fewest cut points only (a risk card's proof grows with its rules): one table
    assert choice["n_cuts"] == size_cv.CUT_GRID[0] and list(choice["by_n_cuts"]) == ["3"]
    assert "size chosen by 5-fold CV on log-loss" in describe_spec(card.spec)
    assert "by CV on held-out log-loss" in capsys.readouterr().err
    rows = choice["candidates"]
    lowest = min(r["test_error"] for r in rows)
    assert choice["chosen"] == min(r["max_size"] for r in rows if r["test_error"] <= lowest + 1e-12)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::slimwidgets.DegenerateCardWarning")  # a fold's size-1 card
def test_fit_cv_and_fit_choose_a_risk_cards_size_with_the_same_chooser():
    """The same folds, the same held-out log-loss, the same rule: with every fold fit proven,
    fit_cv over sizes 1-3 and fit's size_cv agree to the last digit."""
    X, y, _ = tiny_risk_problem(4, n=60, d=3)
    options = dict(loss="logistic", coef_range=(-3, 3), time_limit=LIMIT)
    by_fit = sw.fit(X, y, size_cv=4, **options)
    by_fit_cv = sw.fit_cv(X, y, max_size=[1, 2, 3], cv=4, **options)
    cv = by_fit_cv.details["cv"]
    assert cv["error"] == "log-loss" and cv["chosen"] == {"max_size": by_fit.spec.max_size}
    for ours, theirs in zip(by_fit.details["size_cv"]["candidates"], cv["candidates"]):
        assert ours["test_error"] == pytest.approx(theirs["test_error"], abs=1e-9)
    assert by_fit_cv.points == by_fit.points
    line = next(s for s in by_fit_cv.to_text().splitlines() if s.startswith("CV:"))
    mean = RISK.held_out_words(cv["test_error"])
    assert line.startswith(f"CV: test log-loss {mean} ± ") and "%" not in line
    loaded = sw.ScoringSystem.from_json(by_fit_cv.to_json())  # a card file keeps what it compared
    assert loaded.details["cv"]["error"] == "log-loss" and line in loaded.to_text()
