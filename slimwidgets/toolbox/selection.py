"""Choose ``C0`` or the card's size on held-out data, the way the paper did (sec. 6).

The paper solved SLIM for six values of ``C0`` and kept the one with the
lowest 10-fold cross-validated mean test error, then reported the card fit on
all the data. :func:`fit_cv` does the same for any list of ``C0`` values or
sizes (``max_size``) and returns that final card with its cross-validation
figures in ``card.details["cv"]``: they are printed under the card, in every
export, and kept by its JSON.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import product
from typing import Any

import numpy as np

from ..core.dask_rows import weighted_table
from ..core.family import family_of_card, family_of_loss
from ..core.scoring import ScoringSystem
from ..core.spec import make_spec
from ..fitting.large import is_dask
from ..fitting.size_cv import smallest_best
from .validation import Folds, fold_table, make_folds, run_fits, without_rule_options

__all__ = ["fit_cv", "PAPER_C0"]

#: The paper's six values of C0 (sec. 6); None is the engine's "lose no accuracy" default,
#: the paper's 0.9/(N·P): all features together cost less than one error.
PAPER_C0 = (0.075, 0.05, 0.025, 0.01, 0.001, None)


def fit_cv(
    X: Any,
    y: Any,
    *,
    C0: Any = None,
    max_size: Any = None,
    cv: int = 5,
    seed: int | None = 0,
    n_jobs: int | None = None,
    backend: str | None = None,
    progress: bool | None = None,
    positive: Any = None,
    sample_weight: Any = None,
    **spec_options: Any,
) -> ScoringSystem:
    """Fit a card with ``C0`` or ``max_size`` chosen by stratified K-fold cross-validation.

    Every candidate setting is fit on each fold's training part and scored on its held-out
    part; the one with the lowest mean test score wins (ties go to the sparser setting: larger
    ``C0``, smaller ``max_size``), and the card is refit with it on all the data, as in the
    paper's experiments (and as scikit-learn's ``...CV`` estimators do). The score is the card
    family's held-out score, the one ``fit``'s own size choice compares
    (:mod:`~slimwidgets.fitting.size_cv`): a decision card's error, a risk card's
    (``loss="logistic"``) log-loss.

    Parameters
    ----------
    X, y : the data, as for :func:`slimwidgets.fit` (a Dask DataFrame: see ``_folds``).
    C0, max_size : a list of values to choose from, or one value that every
        fit uses. With neither a list (and ``C0`` not given), ``C0`` is chosen
        from the paper's six values :data:`PAPER_C0`. Both lists: every pair.
    cv : number of folds K (>= 2; each class needs at least K rows).
    seed : shuffles rows before splitting (None: folds in row order).
    n_jobs, backend : run the fits (K per candidate) through joblib, any
        backend; None: one after another.
    progress : True / False, or None to show a tqdm bar only in a terminal or
        notebook. Ctrl-C stops the remaining fits and raises ``KeyboardInterrupt``.
    positive, sample_weight : as for :func:`slimwidgets.fit`.
    **spec_options : any other :func:`slimwidgets.fit` option for every fit (``time_limit``
        per fit, ``class_weights``, ``sensitive_features``: each fold holds it on its rows).

    Returns
    -------
    ScoringSystem
        The card refit on all the data with the chosen setting. Its ``details["cv"]`` holds
        ``folds``, ``seed``, ``error`` (what was compared: ``"error"``, or ``"balanced error"`` /
        ``"class-weighted error"`` when ``class_weights`` is given; ``"log-loss"``, ... for risk
        cards), ``chosen`` (the setting), the chosen setting's ``test_error`` (the score named
        by ``error``), ``test_error_std`` (over folds, ddof=1),
        ``train_error``, ``size`` (mean over folds), ``optimal_folds`` (folds whose fit was
        proven optimal), and ``candidates``: the same figures for every setting tried
        (``failed`` names why a setting could not be fit on some fold).

    Raises
    ------
    ValueError
        For bad options or data, nothing to choose from, or when no setting
        could be fit on every fold.

    Notes
    -----
    The chosen setting's CV error is the smallest of several and so slightly optimistic (the
    paper reported it the same way); for an unbiased estimate of the whole procedure, call
    ``fit_cv`` inside outer folds. With a ``time_limit`` the fits (and so the choice) depend
    on the machine's speed; ``optimal_folds`` says how many were proven.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame(rng.integers(0, 2, size=(80, 4)), columns=["a", "b", "c", "d"])
    >>> y = ((X.a + X.b + rng.integers(0, 2, 80)) >= 2).astype(int)
    >>> card = fit_cv(X, y, max_size=[1, 2, 3], cv=4)
    >>> card.details["cv"]["chosen"], card.points
    ({'max_size': 2}, {'a': 1, 'b': 1})
    >>> [round(c["test_error"], 4) for c in card.details["cv"]["candidates"]]
    [0.225, 0.1875, 0.225]
    >>> print(next(line for line in card.to_text().splitlines() if line.startswith("CV")))
    CV: test error 18.8 % ± 2.5 (4 folds), chosen max_size = 2
    """
    grid, shared = _candidates(C0, max_size, without_rule_options(spec_options))
    class_weights = make_spec(**shared).class_weights
    split, n_rows = _folds(X, y, cv, seed, positive, sample_weight)
    shared = {
        **spec_options,
        **shared,
    }  # rules/cuts back: each fold's fit builds its rules on its own rows
    jobs = [(train, {**shared, **setting}) for setting in grid for train, _ in split.splits]
    results = run_fits(
        split,
        jobs,
        n_jobs=n_jobs,
        backend=backend,
        progress=progress,
        desc="fit_cv",
        keep_failures=True,
    )
    k = len(split.splits)
    rows = [
        _candidate_row(setting, split, results[i * k : (i + 1) * k], class_weights)
        for i, setting in enumerate(grid)
    ]
    best = _best_row(rows)
    chosen = {name: best[name] for name in grid[0]}
    final = _refit(split, {**shared, **chosen}, n_rows)
    compared = _score_name(family_of_loss(shared.get("loss")).held_out_measure, class_weights)
    return replace(
        final, details={**final.details, "cv": _summary(k, seed, compared, chosen, best, rows)}
    )


def _folds(
    X: Any, y: Any, cv: int, seed: int | None, positive: Any, sample_weight: Any
) -> tuple[Folds, int | None]:
    """The folds, and the rows of a Dask frame (else None). A Dask DataFrame of 0/1 rules is
    reduced on its cluster to distinct (rules, label, fold) rows with their weights, each row
    put in one of the ``cv`` folds at random (seeded by ``seed``), and cross-validated as that
    weighted table (:func:`~slimwidgets.core.dask_rows.weighted_table`)."""
    if not is_dask(X):
        return make_folds(X, y, cv, seed, positive, sample_weight), None
    X, y, weights, fold_of, n_rows = weighted_table(
        X, y, sample_weight=sample_weight, folds=cv, seed=0 if seed is None else seed
    )
    return make_folds(X, y, cv, seed, positive, weights, fold_of), n_rows


def _refit(split: Folds, options: dict, n_rows: int | None) -> ScoringSystem:
    """The card with the chosen setting on all rows; it counts a Dask frame's ``n_rows``, not
    the distinct rows it was fitted on."""
    (final,) = run_fits(
        split, [(None, options)], n_jobs=None, backend=None, progress=False, desc=""
    )
    return (
        final if n_rows is None else replace(final, details={**final.details, "n_samples": n_rows})
    )


def _summary(
    folds: int, seed: int | None, compared: str, chosen: dict, best: dict, rows: list[dict]
) -> dict:
    """What ``details["cv"]`` of the refit card holds (see :func:`fit_cv`); ``compared`` names
    the held-out score."""
    return {
        "folds": folds,
        "seed": None if seed is None else int(seed),
        "error": compared,
        "chosen": chosen,
        **{
            key: best[key]
            for key in ("test_error", "test_error_std", "train_error", "size", "optimal_folds")
        },
        "candidates": rows,
    }


def _candidates(C0: Any, max_size: Any, spec_options: dict) -> tuple[list[dict], dict]:
    """Every setting to try, sparsest first (larger C0, then smaller max_size), and the options
    every fit shares. Each setting is checked by make_spec before any solve."""
    if "spec" in spec_options:
        raise TypeError("fit_cv takes keyword options, not spec=")
    C0s, sizes = _as_list(C0, "C0"), _as_list(max_size, "max_size")
    if C0s is None and sizes is None:
        if C0 is not None:
            raise ValueError("nothing to choose: give C0 or max_size as a list of values to try")
        C0s = list(PAPER_C0)
    shared = dict(spec_options)
    axes: dict[str, list] = {}
    for name, values, value in (("C0", C0s, C0), ("max_size", sizes, max_size)):
        if values is None:
            shared[name] = value
        else:
            axes[name] = values
    for combo in product(*axes.values()):
        make_spec(**shared, **dict(zip(axes, combo)))  # bad values fail here, before any solve
    # None is the smallest C0 and the largest max_size
    if "C0" in axes:
        axes["C0"] = sorted(axes["C0"], key=lambda c: (c is None, 0.0 if c is None else -c))
    if "max_size" in axes:
        axes["max_size"] = sorted(
            axes["max_size"], key=lambda m: (m is None, 0 if m is None else m)
        )
    grid = [dict(zip(axes, combo)) for combo in product(*axes.values())]
    return grid, shared


def _best_row(rows: list[dict]) -> dict:
    """The setting chosen by the rule of ``fit``'s own size choice (the lowest mean test error,
    ties to the sparsest: :func:`~slimwidgets.fitting.size_cv.smallest_best`; rows come
    sparsest first); an error naming why when every setting failed on some fold."""
    best = smallest_best(rows)
    if best is None:
        raise ValueError(
            "no setting could be fit on every fold: "
            + "; ".join(f"{_setting_text(r)}: {r['failed']}" for r in rows)
        )
    return best


def _as_list(value: Any, name: str) -> list | None:
    if isinstance(value, (list, tuple, np.ndarray)):
        values = [
            v.item() if isinstance(v, np.generic) else v for v in value
        ]  # plain numbers for JSON
        if not values:
            raise ValueError(f"{name} is an empty list: give at least one value to try")
        if len(set(map(repr, values))) != len(values):
            raise ValueError(f"{name} lists a value twice: {values}")
        return values
    return None


def _candidate_row(setting: dict, split: Folds, results: list, class_weights: Any) -> dict:
    """The CV figures of one setting: mean test error (the criterion), its
    std, train error, size."""
    failures = [r for r in results if isinstance(r, Exception)]
    row: dict[str, Any] = {**setting}
    if failures:
        first = str(failures[0]).splitlines()[0][:200]
        row.update(
            test_error=None,
            test_error_std=None,
            train_error=None,
            size=None,
            optimal_folds=None,
            failed=f"{len(failures)} of {len(results)} folds: {first}",
        )
        return row
    table = fold_table(split, results)
    errors = np.array(
        [
            _held_out_score(card, split, test, class_weights)
            for card, (_, test) in zip(results, split.splits)
        ]
    )
    row.update(
        test_error=float(errors.mean()),
        test_error_std=float(errors.std(ddof=1)),
        train_error=float(table["train_error"].mean()),
        size=float(table["size"].mean()),
        optimal_folds=int((table["status"] == "optimal").sum()),
        failed=None,
    )
    return row


def _held_out_score(
    card: ScoringSystem, split: Folds, test: np.ndarray, class_weights: Any
) -> float:
    """The card family's held-out score on the fold's test rows, each row weighed as the fit
    weighed it (plain, balanced: the mean of the two classes' scores, or class-weighted): a
    decision card's error, a risk card's log-loss, as ``fit``'s own size choice compares
    (:meth:`~slimwidgets.core.card_family.CardFamily.held_out_score`)."""
    w = None if split.weights is None else split.weights[test]
    return family_of_card(card).held_out_score(
        card, split.frame.iloc[test], split.labels.iloc[test].to_numpy(), w, class_weights
    )


def _score_name(measure: str, class_weights: Any) -> str:
    """What was compared, as ``details["cv"]["error"]`` names it: ``"error"``,
    ``"balanced log-loss"``, ..."""
    if class_weights is None:
        return measure
    return f"balanced {measure}" if class_weights == "balanced" else f"class-weighted {measure}"


def _setting_text(row: dict) -> str:
    return ", ".join(
        f"{n} = {'auto' if row[n] is None else row[n]}" for n in ("C0", "max_size") if n in row
    )
