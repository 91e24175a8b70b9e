"""K-fold cross-validation of SLIM, reported as in the paper's tables (sec. 6).

The paper reports, for each method and data set, the 10-fold CV mean test
error and its standard deviation, the train error, and the size of the final
model fit on all the data. :func:`cross_validate` does this with stratified
folds and returns a :class:`CVResult`.
"""

from __future__ import annotations

import html
import math
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..core.data import labels_to_sign, prepare_features
from ..core.rules import needs_rules
from ..core.scoring import ScoringSystem
from ..core.spec import make_spec
from ..fitting import InfeasibleError, NoSolutionError, fit
from ..fitting.jobs import check_n_jobs, progress_bar
from ..fitting.size_cv import stratified_folds

__all__ = ["cross_validate", "CVResult"]

_SUMMARY_METRICS = (
    "test_error",
    "train_error",
    "test_tpr",
    "test_fpr",
    "train_tpr",
    "train_fpr",
    "size",
)


@dataclass(frozen=True)
class CVResult:
    """What :func:`cross_validate` returns.

    Attributes
    ----------
    folds : DataFrame
        One row per fold: ``fold, n_train, n_test, train_error, test_error,
        train_tpr, test_tpr, train_fpr, test_fpr, size, status, gap,
        solve_time, card``.
    summary : DataFrame
        One row per metric (test/train error, TPR, FPR, size) with columns
        ``mean, std, min, max`` and ``text`` (e.g. ``"3.4 ± 1.9% (1.5–7.4%)"``,
        the paper's "mean ± std (min–max)"), plus a ``final_size`` row.
    final : ScoringSystem
        The card fit on all the data (the model one would deploy).
    """

    folds: pd.DataFrame
    summary: pd.DataFrame
    final: ScoringSystem

    @property
    def test_error(self) -> float:
        """Mean test error over the folds."""
        return float(self.summary.loc["test_error", "mean"])

    def __repr__(self) -> str:
        s = self.summary
        k = len(self.folds)
        return (
            f"CVResult({k}-fold: test error {s.loc['test_error', 'text']}, "
            f"train error {s.loc['train_error', 'text']}, final model size {self.final.size})"
        )

    def _repr_html_(self) -> str:
        k = len(self.folds)
        table = (
            self.summary[["text"]]
            .rename(columns={"text": "mean ± std (min–max)"})
            .to_html(escape=True)
        )
        statuses = ", ".join(
            f"{html.escape(str(st))}: {n}" for st, n in self.folds["status"].value_counts().items()
        )
        return (
            f"<div><b>{k}-fold stratified cross-validation</b>{table}<p>fold statuses — "
            f"{statuses}</p><p><b>Final model (all "
            f"data)</b></p>{self.final.to_html(document=False)}</div>"
        )


def _fmt(metric: str, mean: float, std: float, lo: float, hi: float) -> str:
    if any(math.isnan(v) for v in (mean, lo, hi)):
        return "n/a"
    if metric == "size":
        return f"{mean:.1f} ± {std:.1f} ({lo:g}–{hi:g})"
    return f"{100 * mean:.1f} ± {100 * std:.1f}% ({100 * lo:.1f}–{100 * hi:.1f}%)"


def cross_validate(
    X: Any,
    y: Any,
    folds: int = 10,
    seed: int | None = 0,
    *,
    n_jobs: int | None = None,
    backend: str | None = None,
    progress: bool | None = None,
    positive: Any = None,
    sample_weight: Any = None,
    **spec_options: Any,
) -> CVResult:
    """Stratified K-fold cross-validation of a SLIM scoring system.

    Fits one card per fold on the other folds (any :func:`slimwidgets.fit`
    options apply to every fit, e.g. ``max_size``, ``time_limit``) and
    evaluates it on the held-out fold, then fits the final card on all data.

    Parameters
    ----------
    X, y : the data, as for :func:`slimwidgets.fit`.
    folds : number of folds K (>= 2; each class needs at least K rows).
    seed : shuffles rows before splitting (None: no shuffle, folds in row order).
    n_jobs, backend : run the K + 1 fits through joblib (see
        :func:`slimwidgets.toolbox.frontier.roc_frontier`); None: sequentially.
    progress : True / False, or None to show a tqdm bar only in a terminal or
        notebook. Ctrl-C stops the remaining fits and raises ``KeyboardInterrupt``.
    positive, sample_weight : as for :func:`slimwidgets.fit`; with weights,
        all errors and rates are weighted.
    **spec_options : the spec's options, and ``sensitive_features`` (a column name
        of ``X`` or one group label per row, cut with the folds) as for
        :func:`slimwidgets.fit`.

    Returns
    -------
    CVResult
        ``folds`` (per-fold metrics), ``summary`` (mean, std, min, max over
        folds; std with ddof=1 as is usual for CV tables) and ``final``.

    See Also
    --------
    slimwidgets.fit_cv : choose ``C0`` or ``max_size`` by cross-validation.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"a": [1, 0] * 10, "b": [1, 1, 0, 0] * 5})
    >>> y = [1, 0] * 10
    >>> cv = cross_validate(X, y, folds=5)
    >>> float(cv.summary.loc["test_error", "mean"]), cv.final.points, cv.final.threshold
    (0.0, {'a': 1}, 1)
    """
    # validate options once, before any solve (the group column is data, not an option)
    make_spec(**without_rule_options(spec_options))
    split = make_folds(X, y, folds, seed, positive, sample_weight)
    jobs = [(train, spec_options) for train, _ in split.splits] + [(None, spec_options)]
    cards = run_fits(
        split, jobs, n_jobs=n_jobs, backend=backend, progress=progress, desc="cross-validation"
    )
    final = cards[-1]
    fold_frame = fold_table(split, cards[:-1])
    summary = summarize(fold_frame)
    size = float(final.size)
    summary.loc["final_size"] = [size, math.nan, size, size, str(final.size)]
    return CVResult(folds=fold_frame, summary=summary, final=final)


@dataclass(frozen=True)
class Folds:
    """Data ready for K-fold fits: the frame, labels, positive label, weights and the splits."""

    frame: pd.DataFrame
    labels: pd.Series
    positive: Any
    weights: np.ndarray | None
    splits: list[tuple[np.ndarray, np.ndarray]]


def without_rule_options(options: dict) -> dict:
    """The spec's options alone: ``rules`` and ``cuts`` go to each fit, which builds its rules
    on that fit's training rows (never on held-out rows); ``sensitive_features`` too (rows)."""
    return {k: v for k, v in options.items() if k not in ("rules", "cuts", "sensitive_features")}


def make_folds(
    X: Any,
    y: Any,
    folds: int,
    seed: int | None,
    positive: Any,
    sample_weight: Any,
    fold_of: np.ndarray | None = None,
) -> Folds:
    """Check the data and cut it into stratified folds (shuffled with ``seed`` unless it is None),
    or into the folds ``fold_of`` gives each row (0 .. folds - 1)."""
    if isinstance(folds, bool) or not isinstance(folds, (int, np.integer)) or folds < 2:
        raise ValueError(f"folds must be an integer >= 2, got {folds!r}")
    if needs_rules(X):  # a raw table: each fit builds its rules on its own training rows
        matrix, names = np.empty((len(X), X.shape[1])), tuple(map(str, X.columns))
    else:
        matrix, names = prepare_features(X)
    signs, pos_label, _ = labels_to_sign(y, positive)
    if len(signs) != matrix.shape[0]:
        raise ValueError(f"X has {matrix.shape[0]} rows but y has {len(signs)} labels")
    smallest = int(min((signs == 1).sum(), (signs == -1).sum()))
    if smallest < folds:
        raise ValueError(
            f"the smaller class has {smallest} rows, fewer than folds={folds}; use fewer folds"
        )
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(matrix, columns=list(names))
    values = y.to_numpy() if isinstance(y, (pd.Series, pd.Index)) else np.asarray(y)
    labels = pd.Series(values.ravel(), index=frame.index, name=getattr(y, "name", None))
    weights = None if sample_weight is None else np.asarray(sample_weight, dtype=float).ravel()
    if weights is not None and weights.shape != signs.shape:
        raise ValueError(f"sample_weight has {weights.size} values for {len(signs)} rows")
    if fold_of is None:
        splits = stratified_folds(signs, folds, seed)
    else:
        splits = [
            (np.flatnonzero(fold_of != k), np.flatnonzero(fold_of == k)) for k in range(folds)
        ]
    return Folds(frame, labels, pos_label, weights, splits)


def run_fits(
    split: Folds,
    jobs: list[tuple[np.ndarray | None, dict]],
    *,
    n_jobs: int | None,
    backend: str | None,
    progress: bool | None,
    desc: str,
    keep_failures: bool = False,
) -> list[Any]:
    """Fit one card per job ``(training rows or None for all, fit options)``, in job order.

    With ``keep_failures`` a fit that finds no card (infeasible constraints on
    that fold, or a time limit with no card yet) gives its exception instead
    of stopping the rest. Ctrl-C stops the running fits (their solver
    processes too) and closes the progress bar before the
    ``KeyboardInterrupt`` goes on.
    """
    check_n_jobs(n_jobs)
    bar = progress_bar(progress, len(jobs), desc)
    results: list[Any] = [None] * len(jobs)
    stream = None
    # fits sharing this process stop through fit's cancel event (processes are ended by joblib)
    cancel = threading.Event() if backend == "threading" else None
    try:
        if n_jobs is None or n_jobs == 1 or len(jobs) <= 1:
            for k, (train, options) in enumerate(jobs):
                results[k] = _fit_interruptibly(split, train, options, keep_failures)
                if bar is not None:
                    bar.update(1)
        else:
            from joblib import Parallel, delayed

            parallel = Parallel(n_jobs=n_jobs, backend=backend, return_as="generator")
            stream = parallel(
                delayed(_fit_one)(split, train, options, keep_failures, cancel)
                for train, options in jobs
            )
            for k, card in enumerate(stream):
                results[k] = card
                if bar is not None:
                    bar.update(1)
    finally:
        if cancel is not None:
            cancel.set()
        if stream is not None:
            stream.close()  # on Ctrl-C or an error: joblib cancels the fits not yet done
        if bar is not None:
            bar.close()
    return results


def _fit_interruptibly(
    split: Folds, train: np.ndarray | None, options: dict, keep_failures: bool
) -> Any:
    """One fit in a helper thread. Python delivers Ctrl-C to the main thread, which then stops
    the fit through its cancel event, so that no solver process is left running."""
    cancel, done = threading.Event(), threading.Event()
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["card"] = _fit_one(split, train, options, keep_failures, cancel)
        except BaseException as exc:  # handed to the caller's thread below
            outcome["error"] = exc
        finally:
            done.set()

    try:
        threading.Thread(target=work, name="slimwidgets-cv-fit", daemon=True).start()
        while not done.wait(0.1):
            pass
    except KeyboardInterrupt:
        cancel.set()
        done.wait()
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["card"]


def _fit_one(
    split: Folds,
    train: np.ndarray | None,
    options: dict,
    keep_failures: bool,
    cancel: threading.Event | None = None,
) -> Any:
    idx = slice(None) if train is None else train
    w = None if split.weights is None else split.weights[idx]
    groups = options.get("sensitive_features")
    if groups is not None and not isinstance(groups, str):  # one label per row: the fold's rows
        options = {**options, "sensitive_features": np.asarray(groups)[idx]}
    try:
        return fit(
            split.frame.iloc[idx],
            split.labels.iloc[idx],
            positive=split.positive,
            sample_weight=w,
            cancel=cancel,
            **options,
        )
    except (InfeasibleError, NoSolutionError) as exc:
        if not keep_failures:
            raise
        return exc


def fold_table(split: Folds, cards: list[ScoringSystem]) -> pd.DataFrame:
    """One row of train and test metrics per fold (the card fit on the fold's training rows)."""
    rows = []
    for k, ((train, test), card) in enumerate(zip(split.splits, cards)):
        wtr = None if split.weights is None else split.weights[train]
        wte = None if split.weights is None else split.weights[test]
        mtr = card.metrics(split.frame.iloc[train], split.labels.iloc[train], sample_weight=wtr)
        mte = card.metrics(split.frame.iloc[test], split.labels.iloc[test], sample_weight=wte)
        rows.append(
            {
                "fold": k + 1,
                "n_train": len(train),
                "n_test": len(test),
                "train_error": mtr.error,
                "test_error": mte.error,
                "train_tpr": mtr.tpr,
                "test_tpr": mte.tpr,
                "train_fpr": mtr.fpr,
                "test_fpr": mte.fpr,
                "size": card.size,
                "status": card.status,
                "gap": math.nan if card.gap is None else card.gap,
                "solve_time": math.nan if card.solve_time is None else card.solve_time,
                "card": card,
            }
        )
    return pd.DataFrame(rows)


def summarize(fold_frame: pd.DataFrame) -> pd.DataFrame:
    """Mean, std (ddof=1), min, max and the paper's "mean ± std (min–max)" text of each metric."""
    stats = []
    for metric in _SUMMARY_METRICS:
        values = fold_frame[metric].astype(float)
        mean, std = float(values.mean()), float(values.std(ddof=1))
        lo, hi = float(values.min()), float(values.max())
        stats.append(
            {
                "metric": metric,
                "mean": mean,
                "std": std,
                "min": lo,
                "max": hi,
                "text": _fmt(metric, mean, std, lo, hi),
            }
        )
    return pd.DataFrame(stats).set_index("metric")
