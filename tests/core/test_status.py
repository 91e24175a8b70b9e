"""Card status in the user's units (issue #10 items 2, 3): every headline branch from real
solves, the limits checked against brute force, degenerate cards called out."""

from __future__ import annotations

import math
import warnings
from dataclasses import replace
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets import make_spec
from slimwidgets.core.formatting import percent, seconds
from slimwidgets.core.status import (
    NO_BOUND,
    CardStatus,
    DegenerateCardWarning,
    LimitScale,
    degeneracy,
    describe,
    details_text,
    proven_limit,
)
from slimwidgets.datasets import load_demo

import brute
from tiny_problems import SMALL
from tiny_problems import tiny_roc_problem as tiny


def brute_cards(X, y, spec):
    ysign = np.where(np.asarray(y) == 1, 1, -1)
    return brute.enumerate_cards(X.to_numpy(), ysign, list(X.columns), spec)


def weaker(card, bound):
    """The same card as if the solver had stopped with a (valid) smaller bound."""
    return replace(
        card, status="time_limit", bound=bound, gap=(card.objective - bound) / card.objective
    )


# -- limits against brute force ------------------------------------------------------------
@pytest.mark.seeds(3)
def test_tpr_limit_is_tight_at_the_optimum_and_sound_below_it(seed):
    X, y = tiny(seed)
    spec = make_spec(max_fpr=0.25, **SMALL)
    card = sw.fit(X, y, spec=spec)
    best = brute_cards(X, y, spec)["tpr"].max()
    kind, tpr_max = proven_limit(card)
    assert card.status == "optimal" and kind == "tpr"
    assert tpr_max == pytest.approx(best)
    for fraction in (0.0, 0.3, 0.6, 0.9, 0.99):
        _, limit = proven_limit(weaker(card, fraction * card.objective))
        assert limit >= best - 1e-12  # a weaker bound never claims less than the truth


@pytest.mark.seeds(3)
def test_error_limit_is_tight_at_the_optimum_and_sound_below_it(seed):
    X, y = tiny(seed)
    spec = make_spec(**SMALL)
    card = sw.fit(X, y, spec=spec)
    lowest = brute_cards(X, y, spec)["loss"].min()  # the paper's count: a zero total is an error
    kind, error_min = proven_limit(card)
    assert kind == "error" and error_min == pytest.approx(lowest)
    for fraction in (0.0, 0.5, 0.9):
        assert proven_limit(weaker(card, fraction * card.objective))[1] <= lowest + 1e-12


def test_error_limit_with_a_size_penalty_stays_sound():
    X, y = tiny(4, n=30)
    spec = make_spec(C0=0.05, **SMALL)  # a feature costs more than an error here
    card = sw.fit(X, y, spec=spec)
    lowest = brute_cards(X, y, spec)["loss"].min()
    kind, error_min = proven_limit(card)
    assert kind == "error" and error_min <= lowest + 1e-12


def test_fpr_limit_under_a_tpr_floor():
    X, y = tiny(1)
    spec = make_spec(min_tpr=0.8, **SMALL)
    card = sw.fit(X, y, spec=spec)
    cards = brute_cards(X, y, spec)
    kind, fpr_min = proven_limit(card)
    assert kind == "fpr"
    assert fpr_min == pytest.approx(cards["fpr_paper"].min())
    head = describe(card).headline
    assert (
        head.startswith("FPR ") and "at TPR" in head and "proven lowest at this TPR floor" in head
    )


# -- headline branches --------------------------------------------------------------------
@pytest.fixture(scope="module")
def demo():
    return load_demo()


@pytest.fixture(scope="module")
def capped(demo):
    X, y = demo
    return sw.fit(X, y, max_fpr=0.2, max_size=3)


@pytest.mark.slow
def test_cap_proven_best(capped):
    s = describe(capped)
    m = capped.train_metrics
    assert capped.status == "optimal"
    assert (
        s.headline == f"TPR {percent(m.tpr)} at FPR {percent(m.fpr)} · proven best under this cap"
    )
    assert (s.level, s.proven, s.warning) == ("ok", True, None)
    assert "gap" not in s.headline and "bound" not in s.headline and "incumbent" not in s.headline
    assert s.details["status"] == "optimal" and s.details["limit_of"] == "tpr"


@pytest.mark.slow
def test_cap_unproven_shows_the_proven_tpr_limit(capped):
    m = capped.train_metrics
    card = weaker(capped, 0.5 * capped.objective)
    s = describe(card)
    limit = proven_limit(card)[1]
    assert m.tpr < limit < 1
    assert s.headline == (
        f"TPR {percent(m.tpr)} at FPR {percent(m.fpr)} · best possible under this cap "
        f"≤ {percent(limit, m.tpr)} (proven)"
    )
    assert (s.level, s.proven) == ("ok", False)
    assert s.details["gap"] == pytest.approx(0.5) and s.details["status"] == "time_limit"


def test_nothing_proven_reads_no_bound(capped):
    card = replace(capped, status="time_limit", bound=None, gap=None, solve_time=5.04)
    s = describe(card)
    assert s.headline.endswith(f"· best found in 5.0 s, {NO_BOUND}")
    assert (s.level, s.proven) == ("warn", False)
    # a bound too weak to limit the TPR also proves nothing in the user's units
    assert describe(replace(card, bound=0.0)).headline.endswith(NO_BOUND)


def test_no_cap_proven_lowest_and_unproven(demo):
    X, y = demo
    card = sw.fit(X, y, max_size=2)
    m = card.train_metrics
    s = describe(card)
    assert s.headline.startswith(f"error {percent(m.error)} · proven lowest")
    assert s.proven and s.level == "ok"
    low = weaker(card, 0.8 * card.objective)
    limit = proven_limit(low)[1]
    assert 0 < limit < m.error
    head = describe(low).headline
    assert head.startswith(
        f"error {percent(m.error)} · proven lowest possible ≥ {percent(limit, m.error)}"
    )
    assert not describe(low).proven


def test_a_proven_best_card_above_the_error_floor_says_so_plainly():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(60, 5)).astype(float)
    y = ((X[:, 0] + X[:, 1] - X[:, 2] + rng.normal(0, 0.5, 60)) > 0.5).astype(int)
    card = sw.fit(X, y, max_size=3, rules=False, C0=0.1)  # the penalty keeps features out
    assert card.status == "optimal" and proven_limit(card)[1] < card.train_metrics.error
    s = describe(card)
    assert s.headline == (
        f"error {percent(card.train_metrics.error)} · proven best: no card within these "
        "limits has lower error + size penalty"
    )
    assert s.proven and s.level == "ok"
    assert s.headline in str(card)  # print(card) and the studio read the same words


def test_heuristic_card_has_no_bound(demo):
    X, y = demo
    card = sw.rounded_logistic(X, y, C=0.05)
    s = describe(card)
    assert card.status == "heuristic" and card.bound is None
    # a rounded card was not searched for: no "best found in –" without a time
    assert s.headline == f"error {percent(card.train_metrics.error)} · {NO_BOUND}"
    assert s.level == "warn" and not s.proven
    timed = describe(replace(card, solve_time=1.25))
    assert (
        timed.headline
        == f"error {percent(card.train_metrics.error)} · best found in 1.2 s, {NO_BOUND}"
    )


def test_edited_card_claims_nothing(capped):
    name = next(iter(capped.points))
    edited = capped.with_points({name: capped.points[name] + 1})
    assert describe(edited).headline == "edited by hand · no training figures"
    X, y = load_demo()
    s = describe(replace(edited, train_metrics=edited.metrics(X, y)))
    assert (
        s.headline.startswith("TPR ") and "edited by hand" in s.headline and NO_BOUND in s.headline
    )
    assert (s.level, s.proven) == ("warn", False)


def test_validation_figures_are_appended(demo, capped):
    X, y = demo
    v = capped.metrics(X.iloc[:100], y.iloc[:100])
    s = describe(capped, validation=v)
    assert s.headline.endswith(f" · held-out TPR {percent(v.tpr)} at FPR {percent(v.fpr)}")
    card = sw.fit(X, y, max_size=1)
    v = card.metrics(X.iloc[:100], y.iloc[:100])
    assert describe(card, validation=v).headline.endswith(f" · held-out error {percent(v.error)}")


def test_limits_survive_json(capped):
    card = weaker(capped, 0.5 * capped.objective)
    back = sw.ScoringSystem.from_json(card.to_json())
    assert describe(back).headline == describe(card).headline


# -- degenerate cards ----------------------------------------------------------------------
def one_sided(n, n_rare, rare, seed):
    """Features that do not separate the classes and ``n_rare`` rows of class ``rare``."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 2, size=(n, 3)), columns=["a", "b", "c"])
    return X, pd.Series(np.r_[np.full(n_rare, rare), np.full(n - n_rare, 1 - rare)])


def test_card_that_no_row_reaches_is_called_out():
    X, y = one_sided(100, 3, 1, seed=0)  # 3 % positives: the best card says "no" to all
    with pytest.warns(DegenerateCardWarning, match='class_weights="balanced"'):
        card = sw.fit(X, y, max_size=2)
    s = describe(card)
    assert card.train_metrics.tp + card.train_metrics.fp == 0
    assert s.level == "warn" and s.warning.startswith('predicts "0" for every training row')
    assert "no training row reaches its threshold" in s.warning and "min_tpr" in s.warning
    assert card.status == "optimal"  # still optimal, and still amber


def test_card_that_every_row_reaches_is_called_out():
    X, y = one_sided(60, 2, 0, seed=1)
    with pytest.warns(DegenerateCardWarning, match="every training row reaches its threshold"):
        card = sw.fit(X, y, max_size=2)
    assert "max_fpr" in degeneracy(card)


def test_balanced_weights_avoid_the_empty_card():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 200)
    y = ((a == 1) & (rng.random(200) < 0.15)).astype(int)
    X = pd.DataFrame({"a": a, "b": rng.integers(0, 2, 200)})
    with warnings.catch_warnings():
        warnings.simplefilter("error", DegenerateCardWarning)
        card = sw.fit(X, y, class_weights="balanced", max_size=1)
    assert degeneracy(card) is None and describe(card).warning is None


def test_degeneracy_without_training_figures():
    never = sw.ScoringSystem(
        ("a", "b"), (2, 1), -5, positive="sick", negative="well", binary=(True, True)
    )
    assert degeneracy(never).startswith(
        'predicts "well" for every row: no row can reach its threshold'
    )
    always = sw.ScoringSystem(("a",), (-1,), 3, positive="sick", negative="well", binary=(True,))
    assert degeneracy(always).startswith('predicts "sick" for every row')
    fine = sw.ScoringSystem(("a",), (2,), -1, binary=(True,))
    assert degeneracy(fine) is None
    real = sw.ScoringSystem(("a",), (2,), -50, binary=(False,))
    assert degeneracy(real) is None  # a real-valued feature: the range of totals is unknown


def test_frontier_warns_nothing_and_reports_tpr_max():
    X, y = tiny(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DegenerateCardWarning)
        front = sw.roc_frontier(X, y, fprs=[0.0, 0.5], progress=False, cache=False, **SMALL)
    assert (front.tpr_max >= front.tpr - 1e-12).all()


# -- formatting ------------------------------------------------------------------------------
def test_numbers_in_user_units():
    assert percent(0.953) == "95.3 %" and percent(0.97101, 0.97149) == "97.10 %"
    assert seconds(5.04) == "5.0 s" and seconds(0.347) == "0.35 s"
    d = CardStatus(
        "",
        "ok",
        True,
        None,
        {
            "status": "time_limit",
            "objective": 0.25,
            "bound": 0.2,
            "gap": 0.2,
            "solver": "highs",
            "seconds": 5.0,
        },
    )
    assert (
        details_text(d)
        == "solver status time limit · objective 0.25 · bound 0.2 · gap 20.0 % · highs · 5.0 s"
    )
    d.details["bound"] = -math.inf
    assert f"bound: {NO_BOUND}" in details_text(d) and "gap" not in details_text(d)


def test_scale_round_trips():
    s = LimitScale("tpr", 2.0, 1.5, 10.0, True, False)
    assert LimitScale.from_dict(s.to_dict()) == s
    assert s.limit(None) is None and s.limit(4.0) == pytest.approx(0.8)


@pytest.mark.slow
def test_incumbents_carry_the_scale(demo):
    X, y = demo
    seen = []
    card = sw.fit(X, y, max_fpr=0.2, max_size=3, on_incumbent=seen.append)
    assert seen and all(inc.limits == card.details["limits"] for inc in seen)
    last = seen[-1]  # a card built from an incumbent reads its bound the same way
    live = replace(card, status="feasible", bound=last.bound, details={"limits": last.limits})
    assert proven_limit(live) is not None or not math.isfinite(last.bound)


# -- the card in every format -----------------------------------------------------------------
class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.decl, self.tags, self.title, self._in_title = [], [], "", False

    def handle_decl(self, decl):
        self.decl.append(decl)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_title = tag == "title"

    def handle_endtag(self, tag):
        self._in_title = False

    def handle_data(self, data):
        if self._in_title:
            self.title += data


HOSTILE = '</title><script>alert("x")</script> & ü'


def hostile_card():
    X, _ = one_sided(100, 3, 1, seed=0)
    X = X.rename(columns={"a": HOSTILE, "b": "<img src=x onerror=alert(1)>"})
    rng = np.random.default_rng(2)
    y = pd.Series(np.where(rng.random(100) < 0.3, "<b>sick</b>", "well"))
    return sw.fit(X, y, positive="<b>sick</b>", max_size=2)


def test_html_export_is_a_standalone_document_with_everything_escaped():
    card = hostile_card()
    doc = card.to_html()
    page = Page()
    page.feed(doc)
    page.close()
    assert page.decl == ["DOCTYPE html"]
    tags = [t for t, _ in page.tags]
    assert tags[:3] == ["html", "head", "meta"] and page.tags[2][1] == {"charset": "utf-8"}
    assert tags.count("title") == 1 and page.title.startswith("PREDICT <B>SICK</B> IF SCORE")
    assert "script" not in tags and "img" not in tags and "b" not in tags  # names stay text
    assert "@media print" in doc and "sw-risk" in doc and 'class="slimwidgets-card"' in doc
    assert {"name": "generator", "content": f"slimwidgets {sw.__version__}"} in [
        a for t, a in page.tags if t == "meta"
    ]
    assert "http://" not in doc and "https://" not in doc  # nothing fetched
    fragment = card._repr_html_()
    assert fragment.startswith("<div") and "<!DOCTYPE" not in fragment and "<title>" not in fragment
    assert fragment in doc  # one drawing of the card, shared


def test_status_in_every_format(capped):
    head = describe(capped).headline
    for text in (str(capped), capped.to_markdown().replace("\\", ""), capped.to_text()):
        assert head in text  # (Markdown backslash-escapes its punctuation)
    assert head.replace("%", "\\%").replace("·", r"$\cdot$") in capped.to_latex()
    html = capped._repr_html_()
    assert "<details" in html and "solver status optimal" in html
    assert "solver status" not in str(capped) and "gap" not in str(capped)


def test_degenerate_card_is_amber_in_html_and_said_in_text():
    X, y = one_sided(100, 3, 1, seed=0)
    with pytest.warns(DegenerateCardWarning):
        card = sw.fit(X, y, max_size=2)
    assert "warning: predicts" in str(card)
    assert 'class="sw-note sw-warn"' in card._repr_html_() and "#8a5300" in card._repr_html_()


def test_size_path_reports_the_proven_lowest_error():
    X, y = tiny(0)
    path = sw.size_path(X, y, sizes=[0, 1, 2], progress=False, cache=False, **SMALL)
    for _, row in path.iterrows():
        lowest = brute_cards(X, y, make_spec(max_size=row.max_size, **SMALL))["loss"].min()
        assert row.status == "optimal" and row.error_min == pytest.approx(lowest)


def test_estimator_and_package_root_share_the_warning():
    assert sw.DegenerateCardWarning is DegenerateCardWarning and sw.describe is describe
    assert issubclass(DegenerateCardWarning, UserWarning)
    X, y = one_sided(100, 3, 1, seed=0)
    with pytest.warns(DegenerateCardWarning, match="for every training row"):
        sw.SLIMClassifier(max_size=2).fit(X, y)


def test_fractional_weights_give_a_sound_limit():
    X, y = tiny(2)
    w = np.linspace(0.5, 1.5, len(y))
    spec = make_spec(max_fpr=0.3, **SMALL)
    card = sw.fit(X, y, sample_weight=w, spec=spec)
    ysign = np.where(np.asarray(y) == 1, 1, -1)
    cards = brute.enumerate_cards(X.to_numpy(), ysign, list(X.columns), spec, weights=w)
    best = cards["tpr"].max()
    for fraction in (0.0, 0.5, 0.9, 1.0):
        limit = proven_limit(weaker(card, fraction * card.objective))
        assert limit is None or limit[1] >= best - 1e-9


def test_real_valued_data_claims_only_its_objective():
    rng = np.random.default_rng(3)  # four decimals: no exact margin, the paper's 0.1 is used
    X = pd.DataFrame({"a": rng.random(40).round(4), "b": rng.integers(0, 2, 40)})
    y = pd.Series((X.a + 0.3 * X.b + rng.normal(0, 0.2, 40) > 0.7).astype(int))
    card = sw.fit(
        X, y, max_fpr=0.3, coef_range=(-3, 3), intercept_range=(-6, 6), rules=False
    )  # a real value
    assert card.status == "optimal" and card.details["limits"] is None
    s = describe(card)
    assert s.headline.endswith(
        "· proven best: no card within these limits has lower objective (loss + size penalty)"
    )
    assert s.proven


# -- risk cards: log-loss and AUC in the user's units (issue #13 item 6) ---------------------------
def _tiny_risk(seed: int, n: int = 30):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 2, size=(n, 3)).astype(float), columns=["f0", "f1", "f2"])
    logit = X.to_numpy() @ np.array([1.5, -1.0, 0.8]) - 0.3
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    y[:2] = [0, 1]
    return X, y


def _lowest_loss_by_size(X, y, spec, size):
    """Brute force: the least training log-loss of any card with at most ``size`` features."""
    from brute import allowed_values
    from brute_risk import best_t, support_ok

    ysign, w = np.where(y == 1, 1, -1), np.ones(len(y))
    names = list(X.columns)
    best = math.inf
    for coefs in __import__("itertools").product(*[allowed_values(spec, n) for n in names]):
        if np.count_nonzero(coefs) > size or not support_ok(spec, names, coefs):
            continue
        for b in range(spec.intercept_range[0], spec.intercept_range[1] + 1):
            best = min(best, best_t(X.to_numpy(), ysign, w, coefs, b)[1])
    return best


@pytest.mark.seeds(2)
@pytest.mark.slow
def test_risk_log_loss_floor_is_sound_against_brute_force(seed):
    X, y = _tiny_risk(seed)
    spec = make_spec(
        loss="logistic", C0=0.01, coef_range=(-2, 2), intercept_range=(-3, 3), solver="enumerate"
    )
    card = sw.fit(X, y, spec=spec)
    kind, floor = proven_limit(card)
    lowest = _lowest_loss_by_size(X, y, spec, card.size)
    assert card.status == "optimal" and kind == "log_loss"
    assert floor <= lowest + 1e-9  # no card of its size or smaller beats the floor
    headline = describe(card).headline
    if (
        f"proven lowest train log-loss for ≤ {card.size}" in headline
    ):  # then the card is that lowest
        assert card.train_metrics.log_loss == pytest.approx(lowest, abs=1e-7)
    for fraction in (0.5, 0.9, 0.99):  # a weaker bound claims less, never more
        weak = replace(card, status="heuristic", bound=fraction * card.objective)
        assert proven_limit(weak)[1] <= floor and proven_limit(weak)[1] <= lowest + 1e-9


def test_risk_headline_speaks_log_loss_and_auc_train_and_held_out():
    X, y = load_demo(n_features=5)
    card = sw.fit(
        X.iloc[:400], y[:400], loss="logistic", max_size=3, coef_range=(-3, 3), time_limit=1
    )
    held = card.metrics(X.iloc[400:], y[400:])
    from sklearn.metrics import log_loss, roc_auc_score

    truth = np.asarray(y[:400]) == card.positive
    assert card.train_metrics.auc == pytest.approx(roc_auc_score(truth, card.score(X.iloc[:400])))
    assert card.train_metrics.log_loss == pytest.approx(
        log_loss(truth, card.predict_proba(X.iloc[:400]).iloc[:, 1])
    )
    assert card.train_metrics.log_loss == pytest.approx(card.details["log_loss"], abs=1e-9)
    status = describe(card, validation=held)
    line = status.headline
    assert "size cost" not in line and "objective" not in line
    assert (
        f"train log-loss {card.train_metrics.log_loss:.4f}, AUC {card.train_metrics.auc:.3f}"
        in line
    )
    assert f"held-out log-loss {held.log_loss:.4f}, AUC {held.auc:.3f}" in line
    # the solver's figures go to the details view
    assert f"objective {card.objective:.6g}" in details_text(status)
    if card.status != "optimal" and card.bound is not None:
        assert f"has train log-loss ≥ {proven_limit(card)[1]:.4f}" in line and status.level == "ok"


def test_risk_status_in_every_format_and_after_json(tmp_path):
    X, y = _tiny_risk(3)
    card = sw.fit(
        X,
        y,
        loss="logistic",
        C0=0.01,
        coef_range=(-2, 2),
        intercept_range=(-3, 3),
        solver="enumerate",
    )
    line = describe(card).headline
    assert line.startswith("risk card · train log-loss") and "AUC" in line and "proven" in line
    for text in (
        str(card),
        card.to_markdown().replace("\\", ""),
        card.to_latex().replace("\\", ""),
        card.to_html(),
    ):
        assert "AUC" in text and "log-loss" in text
    again = sw.ScoringSystem.from_json(card.to_json())
    assert describe(again).headline == line and again.train_metrics.auc == card.train_metrics.auc


def test_edited_risk_card_claims_nothing():
    X, y = _tiny_risk(1)
    card = sw.fit(
        X,
        y,
        loss="logistic",
        C0=0.01,
        coef_range=(-2, 2),
        intercept_range=(-3, 3),
        solver="enumerate",
    )
    edited = card.with_points({"f0": 2 if card.coefficients[0] != 2 else 1})
    edited = replace(edited, train_metrics=edited.metrics(X, y))
    status = describe(edited)
    assert (
        "edited by hand, " + NO_BOUND in status.headline
        and not status.proven
        and "AUC" in status.headline
    )
