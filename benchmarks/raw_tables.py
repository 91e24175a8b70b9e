"""Cards from raw tables: slimwidgets' own rules vs FasterRisk's binarizer vs
AutoScore-style quantile cuts.

Stratified 5-fold cross-validation on raw tables that ship inside installed packages (nothing
is downloaded): the Palmer penguins field data (``palmerpenguins``: text columns, missing
measurements; target: male), statsmodels' ``fair`` (affairs; occupations as categories),
``anes96`` (the 1996 US vote; party id and education as categories), and scikit-learn's
``diabetes`` (progression above 140; sex as a category) and ``breast_cancer`` (malignant).
Every method gets the raw training part of each fold, makes its own 0/1 features on it, and
gives a card of at most 5 of them (so at most 5 variables), points in -5..5:

- ``slim raw``: :func:`slimwidgets.fit` on the raw table with ``rules=True`` (its rule builder:
  round cut points, levels, a rule for missing values) and no size: the default path, which
  chooses the size among 1..5 and the candidate cut points per numeric column (3 near the
  quartiles or 9 near the deciles) by 5-fold CV inside the training part (``size_cv``) and then
  solves exactly at that size with those rules (``--n-cuts`` fixes the candidates instead);
- ``slim max_size=5`` (``--methods``): the same with ``max_size=5`` given, the exact card of at
  most 5 rules (the default before ``size_cv``);
- ``FasterRisk``: text columns one-hot encoded (missing as a level), then FasterRisk's own
  ``BinBinarizer`` (thresholds at sampled observed values, a NaN indicator per column with
  missing values), then ``RiskScoreOptimizer(k=5)``; positive when its score is > 0;
- ``AutoScore-style``: cut points at the 5th, 20th, 80th and 95th percentiles of each numeric
  column (AutoScore's default), levels and missing values as for ``slim raw``, then the same
  exact fit (``max_size=5``).

It prints mean ± std over folds of the test error, test AUC of the integer score, train error,
size, wall and CPU seconds per fit, and for slimwidgets' cards whether every cut point is a round
number (a multiple of 1, 2, 2.5 or 5 times a power of ten). FasterRisk is a benchmark-only
dependency (``pip install --no-deps fasterrisk``; see generalization.py for its numpy-2 patch).

Usage::

    python benchmarks/raw_tables.py                       # 5 folds, 10 s per slimwidgets fit
    python benchmarks/raw_tables.py --time-limit 5 --datasets penguins diabetes
    python benchmarks/raw_tables.py --methods "slim raw" "slim max_size=5"
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import slimwidgets as sw
from slimwidgets.core.rules import RuleBuilder

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import markdown_table  # noqa: E402
from generalization import fasterrisk_card, has_fasterrisk  # noqa: E402

K, POINTS = 5, (-5, 5)
AUTOSCORE_QUANTILES = (0.05, 0.2, 0.8, 0.95)


def load_raw(name: str) -> tuple[pd.DataFrame, pd.Series]:
    """A raw table and its 0/1 target, from a package on this machine."""
    if name == "penguins":
        from palmerpenguins import load_penguins_raw

        raw = load_penguins_raw()
        raw = raw[raw["Sex"].isin(["MALE", "FEMALE"])]
        cols = [
            "Species",
            "Island",
            "Clutch Completion",
            "Culmen Length (mm)",
            "Culmen Depth (mm)",
            "Flipper Length (mm)",
            "Body Mass (g)",
            "Delta 15 N (o/oo)",
            "Delta 13 C (o/oo)",
        ]
        return raw[cols].reset_index(drop=True), (raw["Sex"] == "MALE").astype(int).reset_index(
            drop=True
        )
    if name in ("fair", "anes96"):
        import statsmodels.api as sm

        frame = getattr(sm.datasets, name).load_pandas().data
        if name == "fair":
            y = (frame.pop("affairs") > 0).astype(int)
            for c in ("occupation", "occupation_husb"):
                frame[c] = frame[c].astype(int).astype(str)
            return frame, y
        y = frame.pop("vote").astype(int)
        frame = frame.drop(columns=["logpopul"])
        for c in ("PID", "educ"):
            frame[c] = frame[c].astype(int).astype(str)
        return frame, y
    from sklearn import datasets

    if name == "diabetes":
        d = datasets.load_diabetes(as_frame=True, scaled=False)
        X = d.data.copy()
        X["sex"] = X["sex"].astype(int).astype(str)
        return X, (d.target > 140).astype(int)
    d = datasets.load_breast_cancer(as_frame=True)
    return d.data, (d.target == 0).astype(int)


def is_round(cut: float, span: float) -> bool:
    """A multiple of 1, 2, 2.5 or 5 times 10^k, with 10^k at least about a
    thousandth of the range."""
    for exponent in range(math.floor(math.log10(max(span, abs(cut), 1e-12))) - 2, 8):
        q = cut / 10.0**exponent
        if any(abs(q / m - round(q / m)) < 1e-9 for m in (1, 2, 2.5, 5)):
            return True
    return False


#: the rule builder of the slim methods (--n-cuts sets its candidates per numeric column)
BUILDER = RuleBuilder()
#: --n-cuts given: the slim methods use BUILDER, whose candidates are then fixed
FIXED_CUTS = False


def slim_raw(Xtr, ytr, time_limit):
    # the default path: no size given, so fit chooses it among 1..5 and the candidate cut points
    # (3 or 9 per numeric column) by 5-fold CV inside the training part (size_cv); rules=True:
    # an all-numeric table (breast cancer) gets rules too
    card = sw.fit(
        Xtr, ytr, coef_range=POINTS, time_limit=time_limit, rules=BUILDER if FIXED_CUTS else True
    )
    n_cuts = card.details.get("size_cv", {}).get("n_cuts", card.rules.n_cuts)
    print(f"  chose {n_cuts} cut points, size {card.spec.max_size}", file=sys.stderr)
    return card.score, card.predict, card.size, card.status, _round_cuts(card, Xtr)


def slim_fixed(Xtr, ytr, time_limit):
    # the size given: the exact card of at most 5 rules (the default before size_cv)
    card = sw.fit(Xtr, ytr, max_size=K, coef_range=POINTS, time_limit=time_limit, rules=BUILDER)
    return card.score, card.predict, card.size, card.status, _round_cuts(card, Xtr)


def autoscore(Xtr, ytr, time_limit):
    cuts = {}
    for c in Xtr.columns:
        col = Xtr[c]
        if pd.api.types.is_numeric_dtype(col) and col.dropna().nunique() > 2:
            cuts[str(c)] = sorted(set(np.quantile(col.dropna(), AUTOSCORE_QUANTILES).tolist()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sw.DataWarning)  # a quantile at the minimum gives no rule
        card = sw.fit(
            Xtr,
            ytr,
            max_size=K,
            coef_range=POINTS,
            time_limit=time_limit,
            rules=RuleBuilder(cuts=cuts),
        )
    return card.score, card.predict, card.size, card.status, _round_cuts(card, Xtr)


def _round_cuts(card, Xtr) -> bool:
    """Whether every cut point the card uses is a round number for its column."""

    def span(column):
        values = pd.to_numeric(Xtr[column]).dropna()
        return float(values.max() - values.min())

    return all(
        is_round(r.value, span(r.column))
        for r in card.rules.rules_
        if r.kind == "ge" and card.points.get(r.name)
    )


def fasterrisk_raw(Xtr, ytr, time_limit):
    import contextlib
    import io

    from fasterrisk.binarization_util import BinBinarizer

    text = [c for c in Xtr.columns if not pd.api.types.is_numeric_dtype(Xtr[c])]

    def encode(X, columns=None):
        out = pd.get_dummies(X, columns=text, dummy_na=True, dtype=float)
        return out if columns is None else out.reindex(columns=columns, fill_value=0.0)

    onehot = encode(Xtr)
    binarizer = BinBinarizer(max_num_thresholds_per_feature=100)
    with contextlib.redirect_stdout(io.StringIO()):  # it prints its progress
        binarizer.fit(onehot)
        Btr, _ = binarizer.transform(onehot)
        score, predict, size, status = fasterrisk_card(Btr, ytr, K)

    def to_rules(X):
        with contextlib.redirect_stdout(io.StringIO()):
            return binarizer.transform(encode(X, onehot.columns))[0]

    return (lambda X: score(to_rules(X))), (lambda X: predict(to_rules(X))), size, status, None


def auc(scores, y) -> float:
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(y, scores)) if len(np.unique(y)) == 2 else math.nan


METHODS = {
    "slim raw": slim_raw,
    "slim max_size=5": slim_fixed,
    "FasterRisk": fasterrisk_raw,
    "AutoScore-style": autoscore,
}


def run(
    datasets,
    folds,
    time_limit,
    with_fasterrisk,
    csv_path=None,
    methods=("slim raw", "FasterRisk", "AutoScore-style"),
):
    from sklearn.model_selection import StratifiedKFold

    methods = [
        (label, METHODS[label]) for label in methods if with_fasterrisk or label != "FasterRisk"
    ]
    rows = []
    for name in datasets:
        X, y = load_raw(name)
        split = StratifiedKFold(n_splits=folds, shuffle=True, random_state=0)
        for fold, (tr, te) in enumerate(split.split(X, y)):
            Xtr, Xte, ytr, yte = X.iloc[tr], X.iloc[te], y.iloc[tr], y.iloc[te]
            for label, method in methods:
                t0, cpu0 = time.perf_counter(), time.process_time()
                with warnings.catch_warnings():
                    warnings.simplefilter(
                        "ignore"
                    )  # unseen levels in a test fold are named: noise here
                    score, predict, size, status, rounds = method(Xtr, ytr, time_limit)
                    seconds, cpu = time.perf_counter() - t0, time.process_time() - cpu0
                    test_pred, train_pred = np.asarray(predict(Xte)), np.asarray(predict(Xtr))
                    test_scores = np.asarray(score(Xte), dtype=float)
                rows.append(
                    {
                        "data": name,
                        "n": len(X),
                        "method": label,
                        "fold": fold,
                        "test_error": float(np.mean(test_pred != yte.to_numpy())),
                        "train_error": float(np.mean(train_pred != ytr.to_numpy())),
                        "test_auc": auc(test_scores, yte.to_numpy()),
                        "size": size,
                        "seconds": seconds,
                        "cpu_seconds": cpu,
                        "status": status,
                        "round_cuts": rounds,
                    }
                )
                print(
                    f"{name} fold {fold + 1} {label}: test error "
                    f"{100 * rows[-1]['test_error']:.1f} %",
                    file=sys.stderr,
                    flush=True,
                )
                if csv_path:  # every fold as it ends: a long run stopped midway keeps what it did
                    pd.DataFrame(rows).to_csv(csv_path, index=False)
    return pd.DataFrame(rows)


def table(frame: pd.DataFrame) -> str:
    def pm(values, scale=100.0, digits=1):
        return f"{scale * values.mean():.{digits}f} ± {scale * values.std(ddof=1):.{digits}f}"

    rows = []
    for (name, method), g in frame.groupby(["data", "method"], sort=False):
        rounds = g["round_cuts"].dropna()
        rows.append(
            [
                name,
                str(g["n"].iloc[0]),
                method,
                pm(g.test_error),
                pm(g.test_auc, 1.0, 3),
                pm(g.train_error),
                f"{g['size'].mean():.1f}",
                f"{g.seconds.mean():.1f}",
                f"{g.cpu_seconds.mean():.1f}",
                f"{int((g.status == 'optimal').sum())}/{len(g)}",
                "–" if rounds.empty else f"{int(rounds.astype(bool).sum())}/{len(rounds)}",
            ]
        )
    return markdown_table(
        [
            "data",
            "rows",
            "method",
            "test error %",
            "test AUC",
            "train error %",
            "size",
            "s / fit",
            "CPU s / fit",
            "proven",
            "round cuts",
        ],
        rows,
    )


def verdict(frame: pd.DataFrame) -> str:
    means = frame.groupby(["data", "method"]).test_error.mean().unstack()
    if "FasterRisk" not in means or "slim raw" not in means:
        return "slim raw or FasterRisk not run (or FasterRisk not installed): no comparison."
    ok = [d for d in means.index if means.loc[d, "slim raw"] <= means.loc[d, "FasterRisk"] + 1e-12]
    return (
        f"slim raw no worse than FasterRisk in mean test error on {len(ok)} of {len(means)} sets "
        f"({', '.join(ok) or 'none'}); misses: "
        + (
            ", ".join(
                f"{d} (+{100 * (means.loc[d, 'slim raw'] - means.loc[d, 'FasterRisk']):.1f} pt)"
                for d in means.index
                if d not in ok
            )
            or "none"
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--datasets", nargs="+", default=["penguins", "fair", "anes96", "diabetes", "breast_cancer"]
    )
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument(
        "--time-limit", type=float, default=10.0, help="seconds per slimwidgets fit"
    )
    parser.add_argument("--no-fasterrisk", action="store_true")
    parser.add_argument("--csv", help="also write the per-fold rows here")
    parser.add_argument(
        "--methods",
        nargs="+",
        choices=list(METHODS),
        default=["slim raw", "FasterRisk", "AutoScore-style"],
    )
    parser.add_argument(
        "--n-cuts",
        type=int,
        help="candidate cut points per numeric column of the slim methods (default: RuleBuilder's)",
    )
    args = parser.parse_args()
    if args.n_cuts is not None:
        global FIXED_CUTS
        FIXED_CUTS = True
        BUILDER.set_params(n_cuts=args.n_cuts)
    frame = run(
        args.datasets,
        args.folds,
        args.time_limit,
        not args.no_fasterrisk and has_fasterrisk(),
        args.csv,
        args.methods,
    )
    print(table(frame))
    print()
    print(verdict(frame))


if __name__ == "__main__":
    main()
