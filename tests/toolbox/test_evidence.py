"""Every figure of sw.validate against an independent computation:
scikit-learn, SciPy, statsmodels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss, confusion_matrix, roc_auc_score

import slimwidgets as sw
from slimwidgets.toolbox import evidence as ev

sm = pytest.importorskip("statsmodels.api")
from statsmodels.stats.proportion import proportion_confint  # noqa: E402


def _risk_data(seed: int, n: int = 300):
    """A risk card and rows whose outcomes follow a different link (so nothing is ideal)."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 2, size=(n, 4)), columns=["a", "b", "c", "d"])
    card = sw.ScoringSystem(("a", "b", "c", "d"), (3, 2, 1, -1), -2, family="risk", multiplier=1.7)
    score = X.to_numpy() @ np.array([3, 2, 1, -1])
    y = (rng.random(n) < 1 / (1 + np.exp(-(0.6 * score - 1.0)))).astype(int)
    return card, X, y


def _placements_auc_var(s: np.ndarray, e: np.ndarray) -> float:
    """DeLong's variance from the O(n^2) definition of the placement values."""
    pos, neg = s[e == 1], s[e == 0]
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    return psi.mean(axis=1).var(ddof=1) / pos.size + psi.mean(axis=0).var(ddof=1) / neg.size


@pytest.mark.seeds(5)
def test_auc_matches_sklearn_scipy_and_the_pairwise_variance(seed):
    card, X, y = _risk_data(seed)
    s = card.score(X).to_numpy()
    auc, lo, hi, se = ev.delong_auc(s, y)
    assert auc == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    u = stats.mannwhitneyu(s[y == 1], s[y == 0]).statistic  # U / (m n) is the AUC, ties half
    assert auc == pytest.approx(u / ((y == 1).sum() * (y == 0).sum()), abs=1e-12)
    assert se**2 == pytest.approx(_placements_auc_var(s, y), rel=1e-10)
    z = stats.norm.ppf(0.975)
    assert (lo, hi) == pytest.approx((auc - z * se, min(1.0, auc + z * se)), abs=1e-12)


@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (10, 10), (17, 40), (250, 251)])
def test_wilson_matches_statsmodels(k, n):
    est, lo, hi = ev.proportion(k, n)
    assert est == k / n
    assert (lo, hi) == pytest.approx(
        proportion_confint(k, n, alpha=0.05, method="wilson"), abs=1e-12
    )


@pytest.mark.seeds(4)
def test_calibration_fits_match_statsmodels(seed):
    card, X, y = _risk_data(seed)
    p = card.predict_proba(X).to_numpy()[:, 1]
    lp = np.log(p / (1 - p))
    slope_fit = sm.Logit(y, sm.add_constant(lp)).fit(disp=0)
    est, lo, hi = ev.calibration_slope(p, y)
    assert est == pytest.approx(slope_fit.params[1], rel=1e-8)
    assert (lo, hi) == pytest.approx(tuple(slope_fit.conf_int()[1]), rel=1e-6)
    citl_fit = sm.GLM(y, np.ones((len(y), 1)), family=sm.families.Binomial(), offset=lp).fit()
    est, lo, hi = ev.calibration_in_the_large(p, y)
    assert est == pytest.approx(citl_fit.params[0], rel=1e-8)
    assert (lo, hi) == pytest.approx(tuple(citl_fit.conf_int()[0]), rel=1e-6)
    assert ev.brier_score(p, y) == pytest.approx(brier_score_loss(y, p), abs=1e-14)


def test_logistic_fit_says_nan_when_the_classes_separate():
    coef, se = ev.logistic_fit([0, 0, 1, 1], x=[0, 1, 2, 3])
    assert np.isnan(coef).all() and np.isnan(se).all()


@pytest.mark.seeds(3)
def test_hosmer_lemeshow_is_the_pearson_chi_square_over_its_groups(seed):
    card, X, y = _risk_data(seed)
    p = card.predict_proba(X).to_numpy()[:, 1]
    stat, df, pvalue, table = ev.hosmer_lemeshow(p, y)
    g = len(table)
    assert df == g - 2 and table["rows"].sum() == len(y)
    n, o, e = table["rows"].to_numpy(), table["observed"].to_numpy(), table["expected"].to_numpy()
    # the statistic equals Pearson's chi-square over the 2g cells (events and non-events per group)
    chi = stats.chisquare(np.r_[o, n - o], np.r_[e, n - e], ddof=g + 1)
    assert stat == pytest.approx(chi.statistic, rel=1e-10)
    assert pvalue == pytest.approx(chi.pvalue, rel=1e-8)
    # the groups themselves: an independent pandas tally per distinct risk (a card has few)
    tally = pd.DataFrame({"p": p, "y": y}).groupby("p")["y"].agg(["size", "sum"])
    if len(tally) <= 10:
        assert np.array_equal(n, tally["size"].to_numpy()) and np.array_equal(
            o, tally["sum"].to_numpy()
        )


def test_hosmer_lemeshow_deciles_on_continuous_risks():
    rng = np.random.default_rng(3)
    p = rng.uniform(0.05, 0.95, 500)
    y = (rng.random(500) < p).astype(int)
    stat, df, pvalue, table = ev.hosmer_lemeshow(p, y)
    assert len(table) == 10 and df == 8
    assert table["rows"].tolist() == [50] * 10
    chi = stats.chisquare(
        np.r_[table["observed"], 50 - table["observed"]],
        np.r_[table["expected"], 50 - table["expected"]],
        ddof=11,
    )
    assert stat == pytest.approx(chi.statistic) and pvalue == pytest.approx(chi.pvalue)


def test_net_benefit_from_sklearn_confusion_matrix():
    card, X, y = _risk_data(0)
    p = card.predict_proba(X).to_numpy()[:, 1]
    curve = ev.decision_curve(y, [0.1, 0.3, 0.5, 0.7], risk=p)
    for pt, row in curve.iterrows():
        tn, fp, fn, tp = confusion_matrix(y, (p >= pt).astype(int), labels=[0, 1]).ravel()
        assert row["card"] == pytest.approx(tp / len(y) - fp / len(y) * pt / (1 - pt))
        prevalence = y.mean()
        assert row["treat all"] == pytest.approx(prevalence - (1 - prevalence) * pt / (1 - pt))
        assert row["treat none"] == 0


def test_validate_risk_card_figures_agree_with_sklearn_and_statsmodels():
    card, X, y = _risk_data(1, n=400)
    v = sw.validate(card, X, y)
    f = v.figures["estimate"]
    s, p = card.score(X).to_numpy(), card.predict_proba(X).to_numpy()[:, 1]
    called = card.predict(X).to_numpy() == 1
    tn, fp, fn, tp = confusion_matrix(y, called.astype(int)).ravel()
    assert f["rows"] == 400 and f["AUC"] == pytest.approx(roc_auc_score(y, s))
    assert (f["TPR"], f["FPR"], f["PPV"], f["NPV"]) == pytest.approx(
        (tp / (tp + fn), fp / (fp + tn), tp / (tp + fp), tn / (tn + fn))
    )
    assert tuple(v.figures.loc["PPV", ["lower", "upper"]]) == pytest.approx(
        proportion_confint(tp, tp + fp, method="wilson")
    )
    assert f["Brier score"] == pytest.approx(brier_score_loss(y, p))
    assert f["observed / expected"] == pytest.approx(y.sum() / p.sum())
    assert f["calibration slope"] == pytest.approx(
        sm.Logit(y, sm.add_constant(np.log(p / (1 - p)))).fit(disp=0).params[1], rel=1e-7
    )
    # the calibration table: one row per score, its observed rate what scikit-learn's curve gives
    # with bins so narrow that each distinct predicted risk has its own
    prob_true, prob_pred = calibration_curve(y, p, n_bins=10_000)
    assert np.allclose(v.calibration["observed"], prob_true)
    assert np.allclose(v.calibration["predicted risk"], prob_pred)
    assert v.calibration["rows"].sum() == 400


def test_validate_by_group_equals_validate_on_each_group():
    card, X, y = _risk_data(2, n=300)
    X = X.assign(site=np.where(np.arange(300) % 3 == 0, "<b>north</b>", "south"))
    v = sw.validate(card, X, y, groups="site")
    for g in ["<b>north</b>", "south"]:
        part = X["site"] == g
        alone = sw.validate(card, X[part], y[part.to_numpy()])
        pd.testing.assert_frame_equal(v.by_group.loc[g], alone.figures)
    html = v._repr_html_()
    assert "<b>north</b>" not in html and "&lt;b&gt;north&lt;/b&gt;" in html


def test_validate_decision_card_has_rates_per_score_and_no_calibration():
    from slimwidgets.datasets import load_demo

    X, y = load_demo()
    card = sw.ScoringSystem(tuple(X.columns[:3]), (2, 1, 1), -2, positive=True, negative=False)
    v = sw.validate(card, X, y)
    assert "calibration slope" not in v.figures.index and v.hosmer_lemeshow is None
    table = sw.risk_table(card, X, y)
    assert np.allclose(v.calibration["observed"], table["rate"])
    treat = card.predict(X).to_numpy()
    for pt, row in v.decision_curve.iloc[::20].iterrows():
        assert row["card"] == pytest.approx(ev.net_benefit(treat, y.to_numpy(), pt))


def test_validate_leaves_out_rows_with_missing_values_and_says_so():
    card, X, y = _risk_data(0, n=100)
    X = X.astype(float)
    X.iloc[:7, 0] = np.nan
    with pytest.warns(UserWarning, match="7 of 100 rows"):
        v = sw.validate(card, X, y)
    assert v.dropped == 7 and v.rows == 93


def test_validate_refuses_foreign_labels():
    card, X, y = _risk_data(0, n=50)
    with pytest.raises(ValueError, match="neither"):
        sw.validate(card, X, np.where(y == 1, "yes", "no"))
