"""Test error of small integer cards on real data: slimwidgets vs FasterRisk vs rounded L1 logistic.

Stratified K-fold cross-validation (5 folds by default) on the paper's 8 data
sets and scikit-learn's bundled breast-cancer set ("wdbc"). In every fold the
real-valued columns are binarized by a :class:`slimwidgets.Binarizer` with
``n_thresholds=3`` fitted on the training part only; columns constant on the
training part are dropped. Every method then sees the same 0/1 features, at
most ``k`` of them, points in -5..5:

- ``slim Ns``: :func:`slimwidgets.fit` with ``max_size=k``, ``coef_range=(-5, 5)``
  and a time limit of N seconds per fold (default C0: fewest errors first);
- ``FasterRisk``: ``fasterrisk.RiskScoreOptimizer(k=k, lb=-5, ub=5)``, its
  best model by logistic loss, predicting positive when its integer score is > 0;
- ``rounded L1``: :func:`slimwidgets.rounded_logistic` with ``scale=5`` on a
  grid of C, keeping the card with the lowest training error among those with
  at most k features (the choice uses the training part only).

For each it reports the mean ± standard deviation over folds of the test
error, the test AUC of the integer score (points total), the train error, the
card's size, the wall-clock seconds per fold and the solve statuses; then the
wins and losses of slimwidgets against FasterRisk on mean test error.

FasterRisk is a benchmark-only dependency, not one of the package's. Its 0.1.10
release pins versions that clash with numpy 2, so install it without them::

    pip install --no-deps fasterrisk     # needs numpy, pandas, scikit-learn, requests, matplotlib

Without it the FasterRisk rows are skipped. Usage::

    python benchmarks/generalization.py                                # everything (long)
    python benchmarks/generalization.py --sizes 5 --time-limits 2 --datasets heart haberman
    python benchmarks/generalization.py --csv folds.csv --out table.md # keep per-fold rows
    python benchmarks/generalization.py --from-csv folds.csv           # re-tabulate a run

Time-limited solves depend on the machine's speed and load: note ``uptime``
with the figures.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

import slimwidgets as sw
from slimwidgets.datasets import load_demo

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ORDER, load, markdown_table  # noqa: E402

DATASETS = (*ORDER, "wdbc")
POINTS = (-5, 5)
LOGISTIC_C_GRID = tuple(float(c) for c in np.logspace(-3, 2, 21))
FIELDS = (
    "data",
    "k",
    "method",
    "fold",
    "test_error",
    "test_auc",
    "train_error",
    "size",
    "seconds",
    "status",
)


def load_set(name: str) -> tuple[pd.DataFrame, pd.Series]:
    """A data set by name: one of the paper's, or "wdbc" (scikit-learn's breast
    cancer, 1 = malignant)."""
    if name == "wdbc":
        from sklearn.datasets import load_breast_cancer

        raw = load_breast_cancer(as_frame=True)
        return raw.data, pd.Series((raw.target == 0).astype(int), name="malignant")
    return load(name)


def fold_features(
    X: pd.DataFrame, train: np.ndarray, test: np.ndarray
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The 0/1 features of one fold: cut points learned on the training rows only."""
    binarizer = sw.Binarizer(n_thresholds=3).fit(X.iloc[train])
    Xtr, Xte = binarizer.transform(X.iloc[train]), binarizer.transform(X.iloc[test])
    varying = [c for c in Xtr.columns if Xtr[c].nunique() > 1]
    return Xtr[varying].astype(float), Xte[varying].astype(float)


def slim_card(Xtr, ytr, k: int, time_limit: float):
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore", sw.DataWarning
        )  # duplicate threshold columns are expected here
        card = sw.fit(Xtr, ytr, max_size=k, coef_range=POINTS, time_limit=time_limit)
    return card.score, card.predict, card.size, card.status


def selected_slim_card(Xtr, ytr, k: int, time_limit: float):
    """slimwidgets with its size chosen by inner 5-fold CV (fit_cv) among 1,
    2, 3, 5 and k features."""
    sizes = sorted({m for m in (1, 2, 3, 5, k) if m <= k})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sw.DataWarning)
        card = sw.fit_cv(
            Xtr, ytr, max_size=sizes, cv=5, coef_range=POINTS, time_limit=time_limit, progress=False
        )
    return card.score, card.predict, card.size, card.status


def rounded_l1_card(Xtr, ytr, k: int):
    """The lowest-training-error rounded L1 card with at most k features over C (a
    grid, then bisection)."""
    cards = {}

    def card_at(C: float):
        if C not in cards:
            cards[C] = sw.rounded_logistic(Xtr, ytr, C=C, scale=POINTS[1], coef_range=POINTS)
        return cards[C]

    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore"
        )  # clipping and convergence notes: the card is judged by its error anyway
        small = [C for C in LOGISTIC_C_GRID if card_at(C).size <= k]
        large = [C for C in LOGISTIC_C_GRID if card_at(C).size > k and C > min(small, default=0.0)]
        if small and large:  # the support grows quickly with C: bisect where it passes k
            hi = min(large)
            lo = max(C for C in small if C < hi)
            for _ in range(10):
                mid = math.sqrt(lo * hi)
                lo, hi = (mid, hi) if card_at(mid).size <= k else (lo, mid)
    fitting = [c for c in cards.values() if c.size <= k]
    best = min(fitting, key=lambda c: c.train_metrics.error)
    return best.score, best.predict, best.size, "heuristic"


class _MaskWithTostring(np.ndarray):
    """An array that still has ``tostring``, which numpy 2 removed and fasterrisk 0.1.10 calls."""

    def tostring(self) -> bytes:
        return self.tobytes()


class _NumpyForFasterRisk:
    """numpy, except that ``zeros`` returns arrays with ``tostring`` (for
    fasterrisk's rounding module)."""

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def zeros(*args, **kwargs):
        return np.zeros(*args, **kwargs).view(_MaskWithTostring)


def fasterrisk_card(Xtr, ytr, k: int):
    from fasterrisk import rounding
    from fasterrisk.fasterrisk import RiskScoreOptimizer

    if not hasattr(np.ndarray, "tostring"):
        rounding.np = _NumpyForFasterRisk()
    signs = np.where(np.asarray(ytr) == 1, 1.0, -1.0)
    optimizer = RiskScoreOptimizer(X=Xtr.to_numpy(float), y=signs, k=k, lb=POINTS[0], ub=POINTS[1])
    optimizer.optimize()
    _, intercept, coefficients = optimizer.get_models(model_index=0)
    coefficients, intercept = np.asarray(coefficients, float), float(intercept)

    def score(X):
        return X.to_numpy(float) @ coefficients

    def predict(X):
        return (score(X) + intercept > 0).astype(int)

    return score, predict, int(np.count_nonzero(coefficients)), "heuristic"


def has_fasterrisk() -> bool:
    try:
        import fasterrisk.fasterrisk  # noqa: F401
    except ImportError:
        return False
    return True


def methods(
    k: int, time_limits: list[float], with_fasterrisk: bool, select: str | None
) -> list[tuple[str, object]]:
    out = [(f"slim {t:g} s", lambda X, y, t=t: slim_card(X, y, k, t)) for t in time_limits]
    if select:
        t = min(time_limits)
        chosen = (f"slim CV size {t:g} s", lambda X, y: selected_slim_card(X, y, k, t))
        if select == "only":
            return [chosen]
        out.append(chosen)
    if with_fasterrisk:
        out.append(("FasterRisk", lambda X, y: fasterrisk_card(X, y, k)))
    out.append(("rounded L1", lambda X, y: rounded_l1_card(X, y, k)))
    return out


def evaluate(method, Xtr, ytr, Xte, yte) -> dict:
    """Fit one method on a fold and measure it; a failure becomes a row with
    its message as status."""
    from sklearn.metrics import roc_auc_score

    start = time.perf_counter()
    try:
        score, predict, size, status = method(Xtr, ytr)
    except Exception as exc:  # a benchmark reports a failing method and goes on
        return {
            "test_error": math.nan,
            "test_auc": math.nan,
            "train_error": math.nan,
            "size": math.nan,
            "seconds": time.perf_counter() - start,
            "status": f"error: {type(exc).__name__}: {exc}"[:120],
        }
    seconds = time.perf_counter() - start
    test_scores = np.asarray(score(Xte), dtype=float)
    return {
        "test_error": float(np.mean(np.asarray(predict(Xte)) != yte.to_numpy())),
        "test_auc": float(roc_auc_score(yte, test_scores)) if np.ptp(test_scores) > 0 else 0.5,
        "train_error": float(np.mean(np.asarray(predict(Xtr)) != ytr.to_numpy())),
        "size": size,
        "seconds": seconds,
        "status": status,
    }


def run_set(
    name: str,
    k: int,
    time_limits: list[float],
    folds: int,
    seed: int,
    with_fasterrisk: bool,
    select: str | None,
    sink,
) -> None:
    """All methods and folds on one data set at size k; every row goes to ``sink`` as it is made."""
    from sklearn.model_selection import StratifiedKFold

    X, y = load_set(name)
    y = pd.Series(
        (np.asarray(y) == max(np.unique(y))).astype(int), index=X.index
    )  # 1 = the larger label
    splits = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed).split(X, y)
    for fold, (train, test) in enumerate(splits, start=1):
        Xtr, Xte = fold_features(X, train, test)
        ytr, yte = y.iloc[train], y.iloc[test]
        for label, method in methods(k, time_limits, with_fasterrisk, select):
            sink(
                {
                    "data": name,
                    "k": k,
                    "method": label,
                    "fold": fold,
                    **evaluate(method, Xtr, ytr, Xte, yte),
                }
            )


def warm_up() -> None:
    """Compile the engine's numba kernels before anything is timed."""
    X, y = load_demo(4)
    sw.fit(X, y, max_size=2, coef_range=POINTS, time_limit=5)


def _mean_sd(values: pd.Series, percent: bool) -> str:
    values = values.dropna().astype(float)
    if values.empty:
        return "n/a"
    scale = 100.0 if percent else 1.0
    sd = values.std(ddof=1) if len(values) > 1 else 0.0
    return f"{scale * values.mean():.{1 if percent else 2}f} ± {scale * sd:.{1 if percent else 2}f}"


def _statuses(values: pd.Series) -> str:
    counts = Counter(values)
    return ", ".join(f"{s.replace('_', ' ')} ×{n}" for s, n in counts.most_common())


def results_table(frame: pd.DataFrame, k: int) -> str:
    """One row per data set and method at size k: means ± sd over folds."""
    header = [
        "data",
        "method",
        "folds",
        "test error %",
        "test AUC",
        "train error %",
        "size",
        "s / fold",
        "status",
    ]
    rows = []
    part = frame[frame["k"] == k]
    for (name, label), g in part.groupby(["data", "method"], sort=False):
        rows.append(
            [
                name,
                label,
                str(len(g)),
                _mean_sd(g["test_error"], True),
                _mean_sd(g["test_auc"], False),
                _mean_sd(g["train_error"], True),
                f"{g['size'].astype(float).mean():.1f}",
                f"{g['seconds'].astype(float).mean():.1f}",
                _statuses(g["status"]),
            ]
        )
    return markdown_table(header, rows)


def versus_table(frame: pd.DataFrame, k: int) -> tuple[str, str]:
    """Mean test error of every slim column against FasterRisk, data set by
    data set, and the verdicts.

    On each set only folds on which FasterRisk and every slim column run on that set finished count
    (a cut-short run compares like with like)."""
    part = frame[frame["k"] == k]
    slims = [m for m in part["method"].unique() if m.startswith("slim")]
    if "FasterRisk" not in set(part["method"]) or not slims:
        return "", "(no FasterRisk rows: no comparison)"
    means, folds = {}, {}
    for name, rows_of_set in part.groupby("data", sort=False):
        needed = {"FasterRisk", *slims} & set(rows_of_set["method"])
        done = rows_of_set.groupby("fold")["method"].agg(set)
        kept = rows_of_set[rows_of_set["fold"].isin(done[done.apply(needed.issubset)].index)]
        if "FasterRisk" in needed and not kept.empty:
            means[name] = kept.groupby("method")["test_error"].mean()
            folds[name] = kept["fold"].nunique()
    means = pd.DataFrame(means).T.reindex(columns=[*slims, "FasterRisk"])
    header = ["data", "folds", *slims, "FasterRisk", *[f"{m} − FR (points)" for m in slims]]
    rows, verdicts = [], []
    for name, r in means.iterrows():
        diffs = [100 * (r[m] - r["FasterRisk"]) for m in slims]
        rows.append(
            [
                name,
                str(folds[name]),
                *[_percent(r[m]) for m in slims],
                _percent(r["FasterRisk"]),
                *["—" if math.isnan(d) else f"{d:+.1f}" for d in diffs],
            ]
        )
    for m in slims:
        diff = 100 * (means[m] - means["FasterRisk"]).dropna()
        wins, losses = int((diff < -1e-9).sum()), int((diff > 1e-9).sum())
        ties = len(diff) - wins - losses
        worst = f"{diff.max():+.1f} points ({diff.idxmax()}" if len(diff) else "n/a ("
        verdicts.append(
            f"- **{m}** vs FasterRisk at k = {k}: lower test error on {wins}, equal on {ties}, "
            f"higher on {losses} of {len(diff)} sets; no worse on {wins + ties} (target ≥ 7 of "
            f"9); worst {worst}; target ≤ +1.0)."
        )
    return markdown_table(header, rows), "\n".join(verdicts)


def _percent(value: float) -> str:
    return "—" if math.isnan(value) else f"{100 * value:.1f}"


def report(frame: pd.DataFrame, sizes: list[int]) -> str:
    parts = []
    for k in sizes:
        if not (frame["k"] == k).any():
            continue
        versus, verdicts = versus_table(frame, k)
        parts += [
            f"### At most {k} features, points in {POINTS[0]}…{POINTS[1]}",
            "",
            results_table(frame, k),
            "",
        ]
        if versus:
            parts += ["Mean test error (%) against FasterRisk:", "", versus, ""]
        parts += [verdicts, ""]
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--datasets",
        nargs="*",
        default=list(DATASETS),
        choices=DATASETS,
        metavar="NAME",
        help=f"some of {', '.join(DATASETS)} (default: all)",
    )
    parser.add_argument(
        "--sizes",
        nargs="*",
        type=int,
        default=[5, 10],
        help="most features per card (default 5 10)",
    )
    parser.add_argument(
        "--time-limits",
        nargs="*",
        type=float,
        default=[2.0, 10.0],
        help="slimwidgets seconds per fold (default 2 10)",
    )
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--select",
        choices=["also", "only"],
        help="add (or run only) slimwidgets with its size chosen by inner 5-fold CV among "
        "1, 2, 3, 5, k features (fit_cv at the smallest time limit; ~26 fits per fold)",
    )
    parser.add_argument(
        "--no-fasterrisk", action="store_true", help="skip FasterRisk even if installed"
    )
    parser.add_argument("--csv", help="append every per-fold row to this CSV file as it is made")
    parser.add_argument(
        "--from-csv",
        nargs="+",
        metavar="CSV",
        help="only print the tables of (possibly partial) earlier --csv runs, pooled",
    )
    parser.add_argument("--out", help="also write the Markdown tables to this file")
    args = parser.parse_args(argv)

    if args.from_csv:
        frame = pd.concat([pd.read_csv(path) for path in args.from_csv], ignore_index=True)
        print(report(frame, sorted(frame["k"].unique().tolist())))
        return 0
    with_fasterrisk = not args.no_fasterrisk and has_fasterrisk()
    if not with_fasterrisk and not args.no_fasterrisk:
        print(
            "fasterrisk is not installed (pip install --no-deps fasterrisk): its rows are skipped",
            file=sys.stderr,
        )
    out = None
    if args.csv:
        new = not Path(args.csv).exists()
        out = open(args.csv, "a", newline="")
        writer = csv.DictWriter(out, fieldnames=FIELDS)
        if new:
            writer.writeheader()

    rows: list[dict] = []

    def sink(row: dict) -> None:
        rows.append(row)
        print(
            " | ".join(
                f"{row[f]:.3f}" if isinstance(row[f], float) else str(row[f]) for f in FIELDS
            ),
            file=sys.stderr,
            flush=True,
        )
        if out is not None:
            writer.writerow(row)
            out.flush()

    warm_up()
    try:  # every set at the first size before any at the next, so a cut-short run has whole tables
        for k in args.sizes:
            for name in args.datasets:
                run_set(
                    name,
                    k,
                    args.time_limits,
                    args.folds,
                    args.seed,
                    with_fasterrisk,
                    args.select,
                    sink,
                )
    except KeyboardInterrupt:
        print("interrupted: tables of the folds finished so far", file=sys.stderr)
    finally:
        if out is not None:
            out.close()
    if not rows:
        return 1
    text = report(pd.DataFrame(rows, columns=FIELDS), args.sizes)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
