"""The validation report: one standalone HTML document a reviewer can be handed.

It holds what a prediction-model report (TRIPOD+AI) asks that the package can know: the data,
the card and how to use it, discrimination and calibration with 95 % intervals on every data set
given (training, held-out, external), a decision curve, the figures by group, and how the card
was found (settings, proof status, solver, versions, a fingerprint of the data). Charts are
inline SVG; nothing is loaded from elsewhere, and it prints on A4.
"""

from __future__ import annotations

import datetime
import json
from typing import Any

import numpy as np
import pandas as pd

from ..core.data import Dataset
from ..core.family import DECISION, RISK, TIME_TO_EVENT, family_of_card
from ..core.scoring import ScoringSystem
from ..core.status import describe
from ..export.html import render_html
from ..toolbox.validate import (
    FIGURES,
    Validation,
    family_of_given_card,
    format_figure,
    validate,
)
from .charts import calibration_chart, decision_chart, score_chart
from .page import (
    data_fingerprint,
    data_sets,
    definitions,
    esc,
    html_table,
    package_versions,
    write_document,
)
from .survival_document import survival_family_report

__all__ = ["report", "scoring_report", "data_fingerprint", "dataset_rows"]


def dataset_rows(data: Dataset) -> tuple[pd.DataFrame, pd.Series]:
    """The rows of a prepared :class:`~slimwidgets.Dataset` again (its distinct rows repeated by
    their counts, in the order of the distinct rows), as the report counts rows; refused when its
    weights are not counts.

    >>> from slimwidgets import prepare_data
    >>> X, y = dataset_rows(prepare_data([[1], [1], [0]], [1, 1, 0], feature_names=["a"]))
    >>> X["a"].tolist(), y.tolist()
    ([0.0, 1.0, 1.0], [0, 1, 1])
    """
    counts = np.rint(data.weight).astype(int)
    if not np.allclose(counts, data.weight):
        raise ValueError(
            "the report counts rows: it cannot use data with non-integer sample weights"
        )
    X = pd.DataFrame(np.repeat(data.X, counts, axis=0), columns=list(data.feature_names))
    labels = np.where(
        np.repeat(data.y, counts) == 1,
        np.array(data.positive, dtype=object),
        np.array(data.negative, dtype=object),
    )
    return X, pd.Series(labels, name=data.outcome).infer_objects()


def _as_frame(card: ScoringSystem, X: Any) -> pd.DataFrame:
    return (
        X
        if isinstance(X, pd.DataFrame)
        else pd.DataFrame(np.asarray(X), columns=list(card.feature_names))
    )


def report(
    card: Any,
    X: Any,
    y: Any,
    *,
    test: tuple | None = None,
    external: tuple | None = None,
    groups: Any = None,
    bootstrap: int = 0,
    n_jobs: int | None = None,
    time_limit: float = 2.0,
    title: str | None = None,
    path: str | None = None,
    confidence: float = 0.95,
    progress: bool | None = None,
    random_state: int = 0,
) -> str:
    """A standalone HTML validation report of ``card`` (see :mod:`slimwidgets.reporting.document`).

    Parameters
    ----------
    card : the card to report on; its family writes the report
        (:meth:`~slimwidgets.core.card_family.CardFamily.report`): :func:`scoring_report` for a
        :class:`~slimwidgets.ScoringSystem`,
        :func:`~slimwidgets.reporting.survival_document.survival_report` for a
        :class:`~slimwidgets.SurvivalCard`.
    X, y : its training rows.
    test : ``(X_test, y_test)``: held-out rows from the same source.
    external : ``(X_ext, y_ext)``: rows from elsewhere (external validation).
    groups : a column name (looked up in every data set that has it) or one value per training
        row: every figure by group too.
    bootstrap : samples of Harrell's bootstrap for the optimism-corrected AUC (and calibration
        slope); 0 (default) leaves it out. Each sample is one fit of ``time_limit`` seconds.
    n_jobs : bootstrap fits in parallel through joblib.
    time_limit : seconds of each bootstrap fit.
    title : the document's title (default: the card's headline).
    path : also write the document there (UTF-8).
    confidence : level of every interval.
    progress : the bootstrap's progress bar (None: in a terminal or notebook).
    random_state : seed of the bootstrap samples.

    Returns
    -------
    str
        The HTML document.

    Examples
    --------
    >>> import slimwidgets as sw
    >>> from slimwidgets.datasets import load_demo
    >>> X, y = load_demo()
    >>> card = sw.fit(X[:400], y[:400], max_fpr=0.2, max_size=3, time_limit=2)
    >>> doc = sw.report(card, X[:400], y[:400], test=(X[400:], y[400:]))
    >>> doc.startswith("<!DOCTYPE html>") and "held-out" in doc
    True
    >>> "<script" not in doc and "<link" not in doc
    True
    """
    return family_of_given_card(card).report(
        card, X, y, test=test, external=external, groups=groups, bootstrap=bootstrap,
        n_jobs=n_jobs, time_limit=time_limit, title=title, path=path, confidence=confidence,
        progress=progress, random_state=random_state,
    )  # fmt: skip


def scoring_report(
    card: ScoringSystem,
    X: Any,
    y: Any,
    *,
    test: tuple | None = None,
    external: tuple | None = None,
    groups: Any = None,
    bootstrap: int = 0,
    n_jobs: int | None = None,
    time_limit: float = 2.0,
    title: str | None = None,
    path: str | None = None,
    confidence: float = 0.95,
    progress: bool | None = None,
    random_state: int = 0,
) -> str:
    """The validation report of a decision or risk card (what :func:`report` asks of their
    families); the parameters are :func:`report`'s.

    Examples
    --------
    >>> from slimwidgets.core.family import DECISION, RISK
    >>> DECISION.report_builder is scoring_report is RISK.report_builder
    True
    """
    sets = data_sets(X, y, test, external, groups, lambda rows: _as_frame(card, rows))
    X = sets[0][1]
    checks = [
        validate(card, Xs, ys, groups=g, label=label, confidence=confidence)
        for label, Xs, ys, g in sets
    ]
    boot = None
    if bootstrap:
        from ..toolbox.optimism import optimism

        boot = optimism(
            card,
            X,
            y,
            n_boot=bootstrap,
            time_limit=time_limit,
            n_jobs=n_jobs,
            random_state=random_state,
            progress=progress,
        )
    body = [
        _heading(card, title, checks),
        _card_section(card, checks[0]),
        _data_section(card, sets, checks),
        _discrimination_section(checks),
        _calibration_section(card, checks),
        _decision_section(checks),
        _group_section(checks),
        _internal_section(card, boot),
        _provenance_section(card, X, y),
    ]
    return write_document(title or describe(card).headline, body, path)


def _heading(card: ScoringSystem, title: str | None, checks: list[Validation]) -> str:
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    sets = ", ".join(f"{v.label} ({v.rows} rows)" for v in checks)
    return (
        f"<h1>Validation report{': ' + esc(title) if title else ''}</h1><p "
        'class="sw-muted">Scoring system predicting '
        f"<b>{esc(card.positive_name or card.positive)}</b> · "
        f"{esc(describe(card).headline)}<br>Data: {esc(sets)} · made {when}</p>"
    )


def _card_section(card: ScoringSystem, train: Validation) -> str:
    word = "at least" if card.rule == ">=" else "more than"
    use = (
        f"<p>For each row of the card that holds, add its points. The total is the score. "
        f"The card predicts <b>{esc(card.positive_name or card.positive)}</b> when the score is "
        f"{word} <b>{card.threshold}</b>."
    )
    if family_of_card(card).predicts_risk:
        use += (
            " The predicted risk at score <i>s</i> is 1 / (1 + exp(−(<i>s</i> − "
            f"{card.threshold}) / {card.multiplier:.4g})); the table gives it for every "
            "score seen in the training data."
        )
    use += "</p>"
    per_score = train.calibration.copy()
    shown = pd.DataFrame(index=per_score.index)
    if "predicted risk" in per_score:
        shown["predicted risk"] = per_score["predicted risk"].map(lambda p: f"{100 * p:.1f} %")
    shown["training rows"] = per_score["rows"].astype(int)
    shown["events"] = per_score["events"].astype(int)
    shown["observed rate (95 % CI)"] = [
        f"{100 * r:.1f} % ({100 * lo:.1f}–{100 * hi:.1f} %)"
        for r, lo, hi in per_score[["observed", "lower", "upper"]].itertuples(index=False)
    ]
    positive = str(card.positive_name or card.positive)
    negative = (
        f"not {positive}" if isinstance(card.negative, (bool, np.bool_)) else str(card.negative)
    )
    shown["prediction"] = np.where(per_score["called positive"], positive, negative)
    return (
        "<h2>1. The card and how to use it</h2>"
        + render_html(card._card_data())
        + use
        + html_table(shown, "Risk by score (training data)")
    )


def _data_section(card: ScoringSystem, sets: list, checks: list[Validation]) -> str:
    counts = pd.DataFrame(
        {
            "rows": [len(Xs) for _, Xs, _, _ in sets],
            "rows used": [v.rows for v in checks],
            "events": [v.events for v in checks],
            "event rate": [f"{100 * v.events / v.rows:.1f} %" if v.rows else "–" for v in checks],
            "left out (missing values)": [v.dropped for v in checks],
        },
        index=pd.Index([v.label for v in checks], name="data"),
    )
    columns = list(dict.fromkeys(str(c) for _, Xs, _, _ in sets for c in Xs.columns))
    missing = pd.DataFrame(
        {
            label: [
                int(Xs[c].isna().sum()) if c in map(str, Xs.columns) else "absent"
                for c in _lookup(Xs, columns)
            ]
            for label, Xs, _, _ in sets
        },
        index=pd.Index(columns, name="variable"),
    )
    missing.insert(0, "used by the card", ["yes" if c in card.points else "" for c in columns])
    # the card's variables and every variable with a missing value; the rest in one sentence
    shown = missing[(missing["used by the card"] == "yes") | missing.iloc[:, 1:].ne(0).any(axis=1)]
    rest = len(missing) - len(shown)
    others = f" The other {rest} variables have no missing values." if rest else ""
    return (
        "<h2>2. The data</h2>"
        + html_table(counts)
        + "<p>Missing values: a row with a missing value in a variable the card uses cannot "
        "be scored; it is left out of every figure (complete cases), and counted above. "
        f"Missing values in other variables do not matter to the card.{others}</p>"
        + html_table(shown, "Missing values per variable")
    )


def _lookup(X: pd.DataFrame, names: list[str]) -> list:
    by_name = {str(c): c for c in X.columns}
    return [by_name.get(n, n) for n in names]


def _discrimination_section(checks: list[Validation]) -> str:
    names = ["event rate", "AUC", "TPR", "FPR", "PPV", "NPV"]
    frame = pd.DataFrame(
        {v.label: v.figures.loc[names].apply(format_figure, axis=1) for v in checks}
    )
    return (
        "<h2>3. Discrimination and the decision at the threshold</h2>"
        "<p>Estimates with 95 % confidence intervals; counts are events over rows.</p>"
        + html_table(frame)
        + _definitions(names)
    )


def _calibration_section(card: ScoringSystem, checks: list[Validation]) -> str:
    if not family_of_card(card).predicts_risk:
        return (
            "<h2>4. Observed rate per score</h2><p>This is a decision card: it predicts a "
            "class, not a risk, so calibration figures do not apply. The observed rate of the "
            "event at each total score (Wilson 95 % intervals) shows how the score orders risk "
            "and where the threshold falls.</p>"
            + f'<div class="sw-figure">{score_chart(card, checks)}</div>'
        )
    names = [
        "calibration-in-the-large",
        "calibration slope",
        "observed / expected",
        "Brier score",
        "Hosmer-Lemeshow",
    ]
    frame = pd.DataFrame(
        {v.label: v.figures.loc[names].apply(format_figure, axis=1) for v in checks}
    )
    return (
        "<h2>4. Calibration</h2><p>Predicted risk against the observed rate at each total "
        "score, with Wilson 95 % intervals; on the dashed line the risks are right.</p><div "
        f'class="sw-figure">{calibration_chart(checks)}</div>'
        + html_table(frame)
        + _definitions(names)
    )


def _definitions(names: list[str]) -> str:
    """What each figure of a table is, under it."""
    return definitions({n: FIGURES[n] for n in names})


def _decision_section(checks: list[Validation]) -> str:
    return (
        "<h2>5. Decision curve</h2><p>Net benefit (true positives minus false positives "
        "weighted by the odds of the risk threshold, per row) of acting on the card, "
        "against treating everyone and treating no one. The card is useful at thresholds "
        "where its curve lies above both.</p><div "
        f'class="sw-figure">{decision_chart(checks)}</div>'
    )


def _group_section(checks: list[Validation]) -> str:
    parts = [
        f"<h3>{esc(v.label)}</h3>" + html_table(v.summary())
        for v in checks
        if v.by_group is not None
    ]
    if not parts:
        return ""
    return "<h2>6. By group</h2><p>Every figure within each group (and overall).</p>" + "".join(
        parts
    )


def _internal_section(card: ScoringSystem, boot: pd.DataFrame | None) -> str:
    parts = []
    cv = card.details.get("cv")
    if cv:
        rows = pd.DataFrame(cv.get("candidates", [])) if cv.get("candidates") else pd.DataFrame()
        family = family_of_card(card)
        mean = family.held_out_words(cv["test_error"])
        spread = family.held_out_words(cv["test_error_std"]).removesuffix(" %")  # the unit once
        parts.append(
            f"<p>Cross-validation ({esc(cv['folds'])} folds): test {esc(cv['error'])} "
            f"{esc(mean)} ± {esc(spread)} for the "
            f"chosen setting {esc(json.dumps(cv['chosen']))}.</p>"
        )
        if not rows.empty:
            parts.append(
                html_table(rows.set_index(rows.columns[0]).map(_cell), "Every setting tried")
            )
    if boot is not None:
        shown = boot.copy()
        shown[["apparent", "optimism", "corrected"]] = shown[
            ["apparent", "optimism", "corrected"]
        ].map(lambda v: f"{v:.3f}")
        parts.append(
            "<p>Harrell's bootstrap: the card's settings refitted on each sample of rows drawn "
            "with replacement; the mean gap between each refit's figure on its sample and "
            "on the original rows is the optimism.</p>" + html_table(shown)
        )
    if not parts:
        return ""
    return "<h2>7. Internal validation</h2>" + "".join(parts)


def _cell(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _provenance_section(card: ScoringSystem, X: pd.DataFrame, y: Any) -> str:
    status = describe(card)
    found = pd.DataFrame(
        {
            "value": {
                "what is proven": status.headline,
                "proven best under its settings": "yes"
                if status.proven
                else "no: the best card found, not proven best",
                "solver status": card.status,
                "solver": card.solver or "–",
                "solve time": "–" if card.solve_time is None else f"{card.solve_time:.1f} s",
                "training data fingerprint (SHA-256)": data_fingerprint(X, y),
                "card checksum (SHA-256 of its JSON)": card.to_dict()["checksum"],
            }
        }
    )
    found.index.name = "item"
    spec = card.spec.to_dict() if card.spec is not None else {}
    settings = pd.DataFrame(
        {"value": {k: json.dumps(v, ensure_ascii=False) for k, v in spec.items()}}
    )
    settings.index.name = "setting"
    versions = pd.DataFrame({"version": package_versions()})
    versions.index.name = "package"
    history = "".join(f"<li>{esc(e['note'])}</li>" for e in card.history)
    return (
        "<h2>8. How the card was found</h2>"
        + html_table(found)
        + (f"<p>History after the fit:</p><ul>{history}</ul>" if history else "")
        + html_table(settings, "Every setting of the fit (the card's spec)")
        + html_table(versions, "Software")
    )


# The families live in core/, below this floor: the report's builders are registered on them here.
DECISION.reports_with(scoring_report)
RISK.reports_with(scoring_report)
TIME_TO_EVENT.reports_with(survival_family_report)
