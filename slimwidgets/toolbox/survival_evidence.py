"""The tables behind a time-to-event card's calibration and Kaplan–Meier charts.

Rows are put into score bands: contiguous runs of total scores holding about equal numbers of
rows (each total score its own band when there are few). Per band and horizon,
:func:`calibration_at_horizons` sets the mean predicted risk of the event beside the
Kaplan–Meier observed risk (1 - survival) with its 95 % interval; :func:`km_by_band` gives each
band's whole Kaplan–Meier curve. Intervals are Greenwood's on the log(-log) scale, as
scikit-survival's ``kaplan_meier_estimator(conf_type="log-log")``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.survival import kaplan_meier
from ..core.survival_card import SurvivalCard

__all__ = ["score_bands", "calibration_at_horizons", "km_by_band"]


def score_bands(totals: np.ndarray, max_bands: int = 5) -> pd.Series:
    """Each row's score band, named by its scores (``"3"`` or ``"0 to 2"``), ordered by score.

    The distinct total scores are cut into at most ``max_bands`` contiguous runs, each closed
    once it holds about ``len(totals) / max_bands`` rows, so that every band has rows enough
    for its Kaplan–Meier curve.

    Parameters
    ----------
    totals : ndarray
        Each row's total score.
    max_bands : int, default=5
        The most bands.

    Returns
    -------
    pandas.Series
        A categorical of band names, ordered from the lowest scores up.

    Examples
    --------
    >>> score_bands(np.array([0, 0, 1, 2, 2, 2, 3, 5]), max_bands=3).tolist()
    ['0 to 1', '0 to 1', '0 to 1', '2', '2', '2', '3 to 5', '3 to 5']
    """
    scores, counts = np.unique(totals, return_counts=True)
    target = len(totals) / max(min(max_bands, scores.size), 1)
    edges, filled, start = [], 0.0, 0
    for k, count in enumerate(counts):
        filled += count
        if filled >= target * 0.999 or k == scores.size - 1:
            edges.append((scores[start], scores[k]))
            filled, start = 0.0, k + 1
    names = [f"{lo:g}" if lo == hi else f"{lo:g} to {hi:g}" for lo, hi in edges]
    band = np.searchsorted([hi for _, hi in edges], totals, side="left")
    return pd.Series(pd.Categorical.from_codes(band, names, ordered=True), name="score band")


def calibration_at_horizons(
    card: SurvivalCard, totals: np.ndarray, time: np.ndarray, event: np.ndarray, bands: pd.Series
) -> pd.DataFrame:
    """Predicted against observed risk of the event by each of the card's horizons, per band.

    Parameters
    ----------
    card : SurvivalCard
        The card whose predicted risk is compared.
    totals : ndarray
        Each row's total score.
    time, event : ndarray
        Each row's follow-up time and event.
    bands : pandas.Series
        Each row's score band (:func:`score_bands`).

    Returns
    -------
    pandas.DataFrame
        Index ``(horizon, score band)``; columns ``rows, events by horizon, predicted risk``
        (the mean over the band's rows), ``observed risk, lower, upper`` (1 - Kaplan–Meier
        survival and its 95 % interval; NaN past the band's last follow-up).

    Examples
    --------
    >>> times, hazard = np.array([1.0, 3.0]), np.array([0.1, 0.3])
    >>> card = SurvivalCard(("a",), (1,), 1.0, times, hazard, (2.0,))
    >>> totals = np.array([0, 0, 1, 1])
    >>> t = calibration_at_horizons(card, totals, np.array([1.0, 3.0, 1.0, 2.0]),
    ...                             np.array([True, False, True, True]), score_bands(totals))
    >>> t["observed risk"].tolist()
    [0.5, 1.0]
    """
    rows = {}
    for horizon in card.horizons:
        risk = np.array([card.risk_at(float(s), horizon) for s in totals])
        for name in bands.cat.categories:
            mine = (bands == name).to_numpy()
            if not mine.any():  # a band of all rows that this group lacks
                continue
            observed = _observed_risk(time[mine], event[mine], horizon)
            rows[(horizon, name)] = {
                "rows": int(mine.sum()),
                "events by horizon": int((event[mine] & (time[mine] <= horizon)).sum()),
                "predicted risk": float(risk[mine].mean()),
                "observed risk": observed[0],
                "lower": observed[1],
                "upper": observed[2],
            }
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index = frame.index.set_names(["horizon", "score band"])
    return frame


def _observed_risk(time: np.ndarray, event: np.ndarray, horizon: float) -> tuple:
    """(1 - KM survival, lower, upper) by ``horizon``; NaN when the rows say nothing about it
    (no row followed that far, unless every row had its event: then the risk is 1)."""
    nan = float("nan")
    followed = time.size and time.max() >= horizon
    if not event.any() or time[event].min() > horizon:  # no event by the horizon
        # 0 with no interval: Greenwood's variance is 0 there
        return (0.0, nan, nan) if followed else (nan, nan, nan)
    times, survival, lower, upper = kaplan_meier(time, event)
    if not followed and survival[-1] > 0:
        return nan, nan, nan
    at = int(np.searchsorted(times, horizon, side="right")) - 1
    return 1.0 - float(survival[at]), 1.0 - float(upper[at]), 1.0 - float(lower[at])


def km_by_band(time: np.ndarray, event: np.ndarray, bands: pd.Series) -> pd.DataFrame:
    """Each score band's Kaplan–Meier curve with its pointwise 95 % interval.

    Parameters
    ----------
    time, event : ndarray
        Each row's follow-up time and event.
    bands : pandas.Series
        Each row's score band (:func:`score_bands`).

    Returns
    -------
    pandas.DataFrame
        One row per band and event time of the band: ``score band, time, at risk, survival,
        lower, upper``; each curve starts with survival 1 at time 0.

    Examples
    --------
    >>> bands = score_bands(np.array([0, 0, 1, 1]))
    >>> t = km_by_band(np.array([1.0, 2.0, 1.0, 3.0]), np.array([True, True, True, False]), bands)
    >>> t[["score band", "time", "survival"]].values.tolist()
    [['0', 0.0, 1.0], ['0', 1.0, 0.5], ['0', 2.0, 0.0], ['1', 0.0, 1.0], ['1', 1.0, 0.5]]
    """
    parts = []
    for name in bands.cat.categories:
        mine = (bands == name).to_numpy()
        if not mine.any():
            continue
        t, e = time[mine], event[mine]
        if not e.any():
            times, survival, lower, upper = (np.zeros(0),) * 4
        else:
            times, survival, lower, upper = kaplan_meier(t, e)
        at_risk = (t[None, :] >= times[:, None]).sum(axis=1)
        parts.append(
            pd.DataFrame(
                {
                    "score band": name,
                    "time": np.r_[0.0, times],
                    "at risk": np.r_[mine.sum(), at_risk],
                    "survival": np.r_[1.0, survival],
                    "lower": np.r_[1.0, lower],
                    "upper": np.r_[1.0, upper],
                }
            )
        )
    return pd.concat(parts, ignore_index=True)
