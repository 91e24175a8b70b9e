"""The validation report of a time-to-event card: one standalone HTML document.

It holds the card and how to compute its risk by hand (the points, the multiplier, Breslow's
baseline hazard at each horizon), the data, discrimination (Harrell's and Uno's C, the
time-dependent AUC at each horizon and its mean) and calibration (Kaplan–Meier observed risk
against predicted risk by each horizon, per score band; the integrated Brier score) with 95 %
bootstrap intervals on every data set given, Kaplan–Meier curves by score band, the figures by
group, and how the card was found. :func:`slimwidgets.report` writes it for a
:class:`~slimwidgets.SurvivalCard`; charts are inline SVG and nothing is loaded from elsewhere.
"""

from __future__ import annotations

import datetime
import json
from typing import Any

import numpy as np
import pandas as pd

from ..core.formatting import percent
from ..core.survival import survival_target
from ..core.survival_card import SurvivalCard
from ..core.survival_family import TIME_TO_EVENT
from ..core.survival_text import status_words
from ..toolbox.survival_validation import SurvivalValidation, validate_survival
from .page import (
    data_fingerprint,
    data_sets,
    definitions,
    esc,
    html_table,
    package_versions,
    write_document,
)
from .survival_charts import horizon_calibration_chart, km_chart

__all__ = ["survival_report", "survival_family_report", "SURVIVAL_FIGURES"]

#: What each figure of the report is.
SURVIVAL_FIGURES = {
    "Harrell's C": "share of comparable pairs (the earlier time an event) the score orders right",
    "Uno's C": "Harrell's C with pairs weighted by the inverse probability of censoring, up to "
    "the last horizon (less dependent on the censoring)",
    "AUC by": "time-dependent AUC at a horizon: events by then against rows event-free after it "
    "(cumulative cases, dynamic controls; inverse probability of censoring weights)",
    "mean AUC": "the AUCs at the horizons averaged, each weighted by Kaplan–Meier's drop there",
    "integrated Brier score": "squared error of the predicted survival averaged over follow-up "
    "(10th to 90th percentile of times; 0 is perfect, 0.25 a coin at 50 %)",
}


def survival_report(
    card: SurvivalCard,
    X: Any,
    y: Any,
    *,
    test: tuple | None = None,
    external: tuple | None = None,
    groups: Any = None,
    title: str | None = None,
    path: str | None = None,
    confidence: float = 0.95,
    n_bootstrap: int = 200,
    seed: int = 0,
) -> str:
    """A standalone HTML validation report of a time-to-event card.

    Parameters
    ----------
    card : the :class:`~slimwidgets.SurvivalCard` to report on.
    X, y : its training rows and their ``Surv`` array.
    test : ``(X_test, y_test)``: held-out rows from the same source.
    external : ``(X_ext, y_ext)``: rows from elsewhere (external validation).
    groups : a column name (looked up in every data set that has it) or one value per training
        row: every figure by group too.
    title : the document's title (default: what the card predicts).
    path : also write the document there (UTF-8).
    confidence : level of every interval.
    n_bootstrap, seed : bootstrap resamples of the intervals and their seed.

    Returns
    -------
    str
        The HTML document.

    Examples
    --------
    >>> import numpy as np, slimwidgets as sw
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 2, (80, 2))
    >>> time = np.ceil(rng.exponential(10 / np.exp(X @ [1.0, 0.5])))
    >>> y = np.array(list(zip(rng.random(80) < 0.8, time)), dtype=[("event", "?"), ("time", "f8")])
    >>> card = sw.fit(X, y, max_size=2, rules=False)
    >>> doc = survival_report(card, X, y, n_bootstrap=10)
    >>> doc.startswith("<!DOCTYPE html>") and "Kaplan–Meier" in doc and "<script" not in doc
    True
    """
    sets = data_sets(X, y, test, external, groups, _as_frame)
    y_train = None
    checks = []
    for label, Xs, ys, g in sets:
        checks.append(
            validate_survival(
                card, Xs, ys, y_train=y_train, groups=g, label=label,
                confidence=confidence, n_bootstrap=n_bootstrap, seed=seed,
            )
        )  # fmt: skip
        y_train = y if y_train is None else y_train  # held-out rows: the training censoring
    body = [
        _heading(card, title, checks),
        _card_section(card),
        _data_section(card, sets),
        _discrimination_section(checks),
        _calibration_section(card, checks),
        _km_section(card, checks),
        _group_section(checks, str(card.names[1])),
        _provenance_section(card, sets[0][1], y),
    ]
    return write_document(title or _what(card), body, path)


def survival_family_report(
    card: SurvivalCard,
    X: Any,
    y: Any,
    *,
    bootstrap: int = 0,
    n_jobs: int | None = None,
    time_limit: float = 2.0,
    progress: bool | None = None,
    random_state: int = 0,
    **options: Any,
) -> str:
    """:func:`survival_report` under :func:`~slimwidgets.report`'s keywords (what the report
    asks of the time-to-event family): ``random_state`` seeds the intervals' bootstrap;
    ``bootstrap`` (Harrell's optimism) is refused, ``n_jobs``, ``time_limit`` and ``progress``
    (the optimism's fits) do not apply.

    Examples
    --------
    >>> survival_family_report(None, None, None, bootstrap=10)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: bootstrap (Harrell's optimism) is for decision and risk cards; ...
    """
    if bootstrap:
        raise ValueError(
            "bootstrap (Harrell's optimism) is for decision and risk cards; a time-to-event "
            "card's report gives bootstrap intervals of every figure instead"
        )
    return survival_report(card, X, y, seed=random_state, **options)


def _as_frame(rows: Any) -> pd.DataFrame:
    return rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows)


def _what(card: SurvivalCard) -> str:
    return f"time to {card.names[0]} ({card.names[1]})"


def _heading(card: SurvivalCard, title: str | None, checks: list[SurvivalValidation]) -> str:
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    sets = ", ".join(f"{v.label} ({v.rows} rows, {v.events} events)" for v in checks)
    return (
        f"<h1>Validation report{': ' + esc(title) if title else ''}</h1>"
        f'<p class="sw-muted">Time-to-event scoring system predicting <b>{esc(_what(card))}</b>'
        f" · {esc(status_words(card))}<br>Data: {esc(sets)} · made {when}</p>"
    )


def _card_section(card: SurvivalCard) -> str:
    baseline = pd.DataFrame(
        {
            "baseline cumulative hazard H0": [
                f"{-np.log(1 - card.risk_at(0.0, h)):.4g}" for h in card.horizons
            ]
        },
        index=pd.Index([f"{h:g}" for h in card.horizons], name=f"horizon ({card.names[1]})"),
    )
    use = (
        "<p>For each row of the card that holds, add its points: the total is the score "
        "<i>s</i>. The predicted risk of the event by a horizon <i>h</i> is "
        f"1 − exp(−H0(<i>h</i>) · exp(<i>s</i> / {card.multiplier:.4g})), with Breslow's "
        "baseline cumulative hazard H0 of the training rows below. The card's table gives it for "
        "every total score seen in the training data, beside the Kaplan–Meier observed risk "
        "among the rows with that score (95 % interval; – where no row with it is followed that "
        "long).</p>"
    )
    return (
        "<h2>1. The card and how to use it</h2>"
        + TIME_TO_EVENT.card_html(card)
        + use
        + html_table(baseline, "Breslow's baseline hazard at each horizon")
    )


def _data_section(card: SurvivalCard, sets: list) -> str:
    rows = {}
    for label, Xs, ys, _ in sets:
        target = survival_target(ys)
        rows[label] = {
            "rows": len(Xs),
            "events": int(target.event.sum()),
            "censored": int((~target.event).sum()),
            f"median follow-up ({card.names[1]})": f"{np.median(target.time):g}",
            f"last time ({card.names[1]})": f"{target.time.max():g}",
        }
    counts = pd.DataFrame.from_dict(rows, orient="index").rename_axis("data")
    return (
        "<h2>2. The data</h2>"
        + html_table(counts)
        + "<p>A censored row was still event-free when its follow-up ended: it counts as "
        "event-free up to its time and says nothing after it. Every figure below keeps it so; "
        "no row is dropped for being censored.</p>"
    )


def _figure_table(checks: list[SurvivalValidation], names: list[str]) -> pd.DataFrame:
    return pd.DataFrame({v.label: v.summary().reindex(names).fillna("–") for v in checks})


def _definitions(names: list[str]) -> str:
    shown = dict.fromkeys("AUC by h" if n.startswith("AUC by") else n for n in names)
    return definitions({n: SURVIVAL_FIGURES[n.removesuffix(" h")] for n in shown})


def _discrimination_section(checks: list[SurvivalValidation]) -> str:
    aucs = [f"AUC by {h:g}" for h in checks[0].horizons]
    names = ["Harrell's C", "Uno's C", *aucs, "mean AUC"]
    return (
        "<h2>3. Discrimination</h2><p>Estimates with 95 % percentile bootstrap intervals (rows "
        "resampled; held-out and external rows weighted by the training rows' censoring).</p>"
        + html_table(_figure_table(checks, names))
        + _definitions(names)
    )


def _calibration_section(card: SurvivalCard, checks: list[SurvivalValidation]) -> str:
    charts = "".join(
        _figure(f"Calibration by each horizon, {v.label}", horizon_calibration_chart(v))
        for v in checks
    )
    tables = "".join(_calibration_table(v) for v in checks)
    names = ["integrated Brier score"]
    return (
        "<h2>4. Calibration by each horizon</h2><p>Rows are put into bands of neighbouring total "
        "scores with about equal numbers of rows. In each band, the mean predicted risk of the "
        "event by each horizon against the Kaplan–Meier observed risk (95 % interval); on the "
        "dashed line the risks are right.</p>"
        + charts
        + tables
        + html_table(_figure_table(checks, names))
        + _definitions(names)
    )


def _figure(caption: str, svg: str) -> str:
    return f'<div class="sw-figure"><p><b>{esc(caption)}</b></p>{svg}</div>'


def _calibration_table(v: SurvivalValidation) -> str:
    t = v.calibration
    shown = pd.DataFrame(
        {
            "rows": t["rows"],
            "events by horizon": t["events by horizon"],
            "predicted risk": t["predicted risk"].map(percent),
            "observed risk (95 % CI)": [
                _observed(o, lo, hi)
                for o, lo, hi in t[["observed risk", "lower", "upper"]].itertuples(index=False)
            ],
        }
    )
    shown.index = [f"by {h:g}, score {band}" for h, band in t.index]
    shown.index.name = "horizon and score band"
    return html_table(shown, f"Predicted and observed risk, {v.label}")


def _observed(value: float, lower: float, upper: float) -> str:
    if pd.isna(value):
        return "– (no row followed that long)"
    if pd.isna(lower) or lower == upper:  # no event yet, or every one had it: no spread
        return percent(value)
    return f"{percent(value)} ({100 * lower:.1f}–{100 * upper:.1f} %)"


def _km_section(card: SurvivalCard, checks: list[SurvivalValidation]) -> str:
    charts = "".join(
        _figure(
            f"Kaplan–Meier curves by score band, {v.label} (dotted: 95 % intervals)",
            km_chart(v.km_curves, v.label, str(card.names[1])),
        )
        for v in checks
    )
    return (
        "<h2>5. Kaplan–Meier curves by score band</h2><p>The share of each score band still "
        "event-free over time, as observed: higher scores should fall faster.</p>" + charts
    )


def _group_section(checks: list[SurvivalValidation], time_name: str) -> str:
    parts = []
    for v in checks:
        summary = v.group_summary()
        if summary is None:
            continue
        parts.append(f"<h3>{esc(v.label)}</h3>" + html_table(summary))
        t = v.calibration_by_group
        shown = pd.DataFrame(
            {
                "rows": t["rows"],
                "predicted risk": t["predicted risk"].map(percent),
                "observed risk (95 % CI)": [
                    _observed(*r)
                    for r in t[["observed risk", "lower", "upper"]].itertuples(index=False)
                ],
            }
        )
        shown.index = [f"{g}: by {h:g}, score {b}" for g, h, b in t.index]
        shown.index.name = "group, horizon and score band"
        parts.append(html_table(shown, f"Calibration by group, {v.label}"))
        parts += [
            _figure(
                f"Kaplan–Meier curves by score band, {v.label}, {group}",
                km_chart(curves, f"{v.label}, {group}", time_name),
            )
            for group, curves in v.km_by_group.groupby("group", sort=True)
        ]
    if not parts:
        return ""
    return (
        "<h2>6. By group</h2><p>Every figure, the calibration and the Kaplan–Meier curves "
        "within each group, in the score bands of all rows.</p>" + "".join(parts)
    )


def _provenance_section(card: SurvivalCard, X: pd.DataFrame, y: Any) -> str:
    target = survival_target(y)
    labels = [f"{e}:{t!r}" for e, t in zip(target.event, target.time)]
    found = pd.DataFrame(
        {
            "value": {
                "what is proven": status_words(card),
                "proven best under its settings": "yes"
                if card.status == "optimal"
                else "no: the best card found, not proven best",
                "solver": card.solver or "–",
                "solve time": f"{card.solve_time:.1f} s",
                "horizons": ", ".join(f"{h:g}" for h in card.horizons),
                "training data fingerprint (SHA-256)": data_fingerprint(X, labels),
            }
        }
    ).rename_axis("item")
    settings = pd.DataFrame(
        {"value": {k: json.dumps(v, default=str) for k, v in card.details.items()}}
    ).rename_axis("setting")
    versions = pd.DataFrame({"version": package_versions()}).rename_axis("package")
    return (
        "<h2>7. How the card was found</h2>"
        + html_table(found)
        + html_table(settings, "The fit's settings and counts")
        + html_table(versions, "Software")
    )
