"""The time-to-event card: integer points, a multiplier, Breslow's baseline hazard, in
scikit-survival's conventions.

A row's total score is ``s = x . points``; its log hazard ratio is ``s / m`` (``m``: points per
unit of log hazard), its cumulative hazard ``H0(time) exp(s / m)`` with Breslow's ``H0`` of the
training rows, and its risk of the event by a horizon ``1 - exp(-H0(horizon) exp(s / m))``.
``predict`` gives the risk score ``s / m`` (higher: the event sooner), ``score`` Harrell's C,
``predict_survival_function`` and ``predict_cumulative_hazard_function`` step functions, as
scikit-survival's estimators do.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from .. import export as render
from .._version import __version__
from .rules import as_frame
from .survival import StepFunction, kaplan_meier
from .survival_export import card_data, card_fields, horizon_rows, to_dict
from .survival_family import TIME_TO_EVENT

__all__ = ["SurvivalCard", "ScoreRisk", "risk_by_score", "default_horizons"]


@dataclass(frozen=True)
class ScoreRisk:
    """One total score's row of the card: rows with it, and per horizon the predicted risk and
    Kaplan–Meier's observed risk with its 95 % interval (None where no row with it is followed
    that far: the observed risk would be unknown)."""

    score: int
    n_rows: float
    predicted: tuple[float, ...]
    observed: tuple[float | None, ...]
    lower: tuple[float | None, ...]
    upper: tuple[float | None, ...]


@dataclass(frozen=True, eq=False)  # its arrays have no one truth value: cards compare by identity
class SurvivalCard:
    """A time-to-event scoring system (see the module's docstring).

    Parameters
    ----------
    feature_names : tuple of str
        The features, in the order of the columns the card reads.
    points : tuple of int
        The points of each feature.
    multiplier : float
        The total score divided by it is the log hazard ratio.
    baseline_times : ndarray
        The event times of Breslow's baseline hazard.
    baseline_hazard : ndarray
        Breslow's cumulative baseline hazard at each of ``baseline_times``.
    horizons : tuple of float
        The times at which the card's table gives the predicted risk.
    status : str, default "heuristic"
        How the card was found (``"optimal"`` when proven best).
    objective : float, optional
        The card's training objective.
    bound : float, optional
        The proven lower bound on the objective.
    solve_time : float, default 0.0
        Seconds the solve took.
    solver : str, default ""
        What found the card.
    names : tuple of str, default ("event", "time")
        The names of the event and time fields of ``y``.
    rules : RuleBuilder, optional
        The fitted rule builder when the card was fit on a raw table.
    table : tuple of ScoreRisk, default ()
        One row per total score: rows with it, predicted and observed risk per horizon.
    details : dict, default {}
        Solver figures for a details view.

    Examples
    --------
    >>> import numpy as np
    >>> times, hazard = np.array([1.0, 3.0]), np.array([0.1, 0.3])
    >>> card = SurvivalCard(("a", "b"), (2, 1), 2.0, times, hazard, (3.0,))
    >>> card.predict(np.array([[1, 0], [1, 1]])).tolist()  # (points) / multiplier
    [1.0, 1.5]
    >>> round(card.risk_at(2, 3.0), 4)  # 1 - exp(-0.3 e^1)
    0.5576
    """

    #: the label of its family (:data:`~slimwidgets.core.survival_family.TIME_TO_EVENT`)
    family: ClassVar[str] = "time_to_event"
    feature_names: tuple[str, ...]
    points: tuple[int, ...]
    multiplier: float
    baseline_times: np.ndarray
    baseline_hazard: np.ndarray  # Breslow's cumulative baseline hazard at each time
    horizons: tuple[float, ...]
    status: str = "heuristic"
    objective: float | None = None
    bound: float | None = None
    solve_time: float = 0.0
    solver: str = ""
    names: tuple[str, str] = ("event", "time")
    rules: Any = None
    table: tuple[ScoreRisk, ...] = ()
    details: dict = field(default_factory=dict)

    @property
    def gap(self) -> float | None:
        """The proven floor's shortfall against the objective, relative to it (0 when optimal)."""
        if self.bound is None or self.objective is None:
            return None
        return max(self.objective - self.bound, 0.0) / max(abs(self.objective), 1e-12)

    @property
    def card_points(self) -> dict[str, int]:
        """The features with points, and their points."""
        return {n: int(p) for n, p in zip(self.feature_names, self.points) if p}

    def scores(self, X: Any) -> np.ndarray:
        """Each row's total score; raw rows are turned into the card's rules first.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_rows, n_features)
            Rows with the card's features (raw rows for a card with ``rules``).
        """
        if self.rules is not None and not self._rule_columns(X):
            X = self.rules.transform(X)
        frame = as_frame(X)
        missing = [n for n in self.card_points if n not in frame.columns]
        if missing and frame.shape[1] == len(self.feature_names):
            frame.columns = list(self.feature_names)
        elif missing:
            raise ValueError(f"X has no column {missing[0]!r} of the card")
        used = list(self.card_points)
        values = frame[used].to_numpy(dtype=float) if used else np.zeros((len(frame), 0))
        return values @ np.array([self.card_points[n] for n in used], dtype=float)

    def _rule_columns(self, X: Any) -> bool:
        names = getattr(X, "columns", None)
        return names is not None and set(self.card_points) <= set(names)

    def predict(self, X: Any) -> np.ndarray:
        """The risk score of each row: its log hazard ratio ``total / multiplier``.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_rows, n_features)
            Rows with the card's features (raw rows for a card with ``rules``).
        """
        return self.scores(X) / self.multiplier

    def score(self, X: Any, y: Any) -> float:
        """Harrell's concordance index of :meth:`predict` on ``X`` and a ``Surv`` array ``y``.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_rows, n_features)
            Rows with the card's features (raw rows for a card with ``rules``).
        y : structured array
            A ``Surv`` array of (event, time) pairs, one per row.
        """
        return TIME_TO_EVENT.figures(self, X, y)["Harrell's C"]

    def risk_at(self, total: float, horizon: float) -> float:
        """The predicted risk of the event by ``horizon`` for a total score.

        Parameters
        ----------
        total : float
            A total score.
        horizon : float
            The time by which the event's risk is wanted.
        """
        return 1.0 - math.exp(-self.baseline_at(horizon) * math.exp(total / self.multiplier))

    def baseline_at(self, horizon: float) -> float:
        """Breslow's cumulative baseline hazard by ``horizon`` (past the last time: its last).

        Parameters
        ----------
        horizon : float
            The time by which the cumulative baseline hazard is wanted.
        """
        step = StepFunction(self.baseline_times, self.baseline_hazard, 0.0)
        return float(step(min(horizon, self.last_time))[0])

    @property
    def last_time(self) -> float:
        """The last time of the baseline hazard."""
        return float(self.baseline_times[-1])

    @property
    def unique_times_(self) -> np.ndarray:
        """The event times the step functions jump at (scikit-survival's name)."""
        return self.baseline_times

    def predict_cumulative_hazard_function(self, X: Any, return_array: bool = False) -> np.ndarray:
        """Each row's cumulative hazard as a :class:`StepFunction`.

        Parameters
        ----------
        X : DataFrame or array
            The rows, with the card's feature columns.
        return_array : bool, default=False
            Return the values at :attr:`unique_times_` instead, one row per row of ``X``.
        """
        ratio = np.exp(self.predict(X))
        if return_array:
            return ratio[:, None] * self.baseline_hazard[None, :]
        return np.array(
            [StepFunction(self.baseline_times, self.baseline_hazard * r, 0.0) for r in ratio]
        )

    def predict_survival_function(self, X: Any, return_array: bool = False) -> np.ndarray:
        """Each row's survival as a :class:`StepFunction`.

        Parameters
        ----------
        X : DataFrame or array
            The rows, with the card's feature columns.
        return_array : bool, default=False
            Return the values at :attr:`unique_times_` instead, one row per row of ``X``.
        """
        ratio = np.exp(self.predict(X))
        if return_array:
            return np.exp(-ratio[:, None] * self.baseline_hazard[None, :])
        return np.array(
            [
                StepFunction(self.baseline_times, np.exp(-self.baseline_hazard * r), 1.0)
                for r in ratio
            ]
        )

    def recalibrate(
        self, X: Any, y: Any, *, multiplier: bool = False, label: str | None = None
    ) -> SurvivalCard:
        """A copy for a new site: Breslow's baseline hazard re-estimated on its rows, points kept.

        Each new row's log hazard ratio ``total / multiplier`` is a fixed offset; with
        ``multiplier=True`` the multiplier is refitted first by Cox's partial likelihood of the
        totals (:func:`~slimwidgets.core.recalibration.refit_baseline`). The copy has status
        ``"recalibrated"`` (its proof was on other rows), its table on the new rows, and a
        history entry saying what changed, shown on the card and kept in its JSON.

        Parameters
        ----------
        X : DataFrame or array
            The new site's rows (raw columns for a card fit on a raw table).
        y : structured array
            Their events and times, as ``Surv.from_arrays(event, time)`` makes.
        multiplier : bool, default=False
            Refit the multiplier too.
        label : str, optional
            The site's name, for the history entry.

        Examples
        --------
        >>> times, hazard = np.array([1.0, 3.0]), np.array([0.1, 0.3])
        >>> card = SurvivalCard(("a",), (1,), 1.0, times, hazard, (3.0,))
        >>> y = np.array([(True, 2.0), (True, 4.0), (False, 5.0)],
        ...              dtype=[("e", "?"), ("t", "<f8")])
        >>> new = card.recalibrate(np.array([[1], [0], [0]]), y, label="site B")
        >>> new.points, new.status, new.baseline_hazard.round(3).tolist()
        ((1,), 'recalibrated', [0.212, 0.712])
        """
        from dataclasses import replace

        from .recalibration import refit_baseline

        target = TIME_TO_EVENT.target(y)
        totals = self.scores(X)
        if totals.size != target.time.size:
            raise ValueError(f"X has {totals.size} rows and y {target.time.size}")
        ties = self.details.get("ties", "breslow")
        old = self.multiplier
        m, times, hazard = refit_baseline(
            totals, target.time, target.event, None if multiplier else old, ties
        )
        entry = _recalibration_entry(label, target.event, old, m, multiplier)
        details = {k: self.details[k] for k in ("binary", "ties") if k in self.details}
        details.update(
            history=(*self.details.get("history", ()), entry),
            n_rows=int(totals.size),
            n_events=int(target.event.sum()),
        )
        card = replace(
            self,
            multiplier=m,
            baseline_times=times,
            baseline_hazard=hazard,
            status="recalibrated",
            objective=None,
            bound=None,
            details=details,
        )
        return replace(card, table=risk_by_score(card, totals, target.time, target.event))

    def __str__(self) -> str:
        return TIME_TO_EVENT.card_text(self)

    def to_text(self) -> str:
        """The card as plain text: points by variable, risk by each horizon per total score."""
        return TIME_TO_EVENT.card_text(self)

    def to_html(self, document: bool = True) -> str:
        """The card as a standalone HTML document (``document=False``: a notebook's fragment).

        Parameters
        ----------
        document : bool, default True
            A whole HTML page; ``False`` gives the fragment a notebook shows.
        """
        if not document:
            return TIME_TO_EVENT.card_html(self)
        return render.render_document(
            card_data(self),
            generator=f"slimwidgets {__version__}",
            horizon_rows=horizon_rows(self),
        )

    def to_markdown(self) -> str:
        """The card as Markdown: points, then the risk by each horizon per total score."""
        data = card_data(self)
        return render.render_markdown(data) + render.horizon_markdown(
            data.horizons, horizon_rows(self)
        )

    def to_latex(self) -> str:
        """The card as LaTeX tabulars: points, then the risk by each horizon per total score."""
        data = card_data(self)
        return render.render_latex(data) + render.horizon_latex(data.horizons, horizon_rows(self))

    def to_python(self) -> str:
        """Source of a dependency-free Python module: ``score(row)``, ``risk(row, horizon)``."""
        return render.render_survival_python(card_data(self))

    def to_sql(self, table: str = "patients") -> str:
        """A ``SELECT`` adding each row's score and its risk by each horizon.

        Parameters
        ----------
        table : str, default "patients"
            The table the query reads (quoted as an identifier).
        """
        return render.render_survival_sql(card_data(self), table=table)

    def to_dict(self) -> dict:
        """The card as JSON-ready data with a checksum (:meth:`from_dict` reads it)."""
        return to_dict(self)

    def to_json(self, path: str | None = None, indent: int | None = 2) -> str:
        """JSON text (also written to ``path`` if given); reload with :meth:`from_json`.

        Parameters
        ----------
        path : str, optional
            A file to write the text to.
        indent : int or None, default 2
            Spaces per level, as in :func:`json.dumps`.
        """
        text = json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    @classmethod
    def from_json(cls, text_or_path: str, *, verify: bool = True) -> SurvivalCard:
        """A card from :meth:`to_json`'s text or file; ``ValueError`` naming what is wrong.

        Parameters
        ----------
        text_or_path : str
            The JSON text, or the path of a file holding it.
        verify : bool, default True
            Check the file's checksum.
        """
        text = str(text_or_path)
        if not text.lstrip().startswith("{"):
            text = Path(text).read_text(encoding="utf-8")
        try:
            return cls.from_dict(json.loads(text), verify=verify)
        except json.JSONDecodeError as exc:
            raise ValueError(f"malformed JSON: {exc}") from None

    @classmethod
    def from_dict(cls, d: Any, *, verify: bool = True) -> SurvivalCard:
        """A card from :meth:`to_dict`'s data, every field checked (``card_fields``).

        Parameters
        ----------
        d : dict
            The data :meth:`to_dict` gave.
        verify : bool, default True
            Check the data's checksum.
        """
        fields = card_fields(d, verify=verify)
        return cls(**{**fields, "table": tuple(ScoreRisk(*row) for row in fields["table"])})

    def _repr_html_(self) -> str:
        return TIME_TO_EVENT.card_html(self)

    def __repr__(self) -> str:
        return (
            f"SurvivalCard(points={self.card_points!r}, multiplier={self.multiplier:.4g}, "
            f"status={self.status!r})"
        )


TIME_TO_EVENT.cards_are(SurvivalCard)  # the family reads its card files through it


def _recalibration_entry(
    label: str | None, event: np.ndarray, old: float, new: float, refit: bool
) -> dict[str, Any]:
    """The history entry of a recalibration: where, on how many rows, what changed."""
    site = f" for {label}" if label else ""
    what = f"multiplier {old:.4g} → {new:.4g} and " if refit else ""
    return {
        "event": "recalibrated",
        "label": label,
        "rows": int(event.size),
        "events": int(event.sum()),
        "multiplier": [old, new],
        "note": f"recalibrated{site} on {event.size} rows ({int(event.sum())} events): "
        f"{what}Breslow's baseline hazard re-estimated; points unchanged",
    }


def default_horizons(time: np.ndarray) -> tuple[float, ...]:
    """The horizons a card states its risk by when none is given: the quartiles of the follow-up
    (every row's time), each rounded to two significant digits.

    >>> default_horizons(np.array([100.0, 400.0, 800.0, 1200.0, 2000.0]))
    (400.0, 800.0, 1200.0)
    """
    out = []
    for q in (0.25, 0.5, 0.75):
        value = float(np.quantile(time, q))
        digits = 1 - int(math.floor(math.log10(abs(value)))) if value > 0 else 0
        out.append(round(value, digits))
    return tuple(dict.fromkeys(out))


def risk_by_score(
    card: SurvivalCard,
    totals: np.ndarray,
    time: np.ndarray,
    event: np.ndarray,
    weight: np.ndarray | None = None,
) -> tuple[ScoreRisk, ...]:
    """The card's table: for each total score of the rows, the predicted risk by each horizon
    beside Kaplan–Meier's observed risk among the rows with that score (95 % interval)."""
    w = np.ones(len(time)) if weight is None else np.asarray(weight, dtype=float)
    rows = []
    for total in np.unique(totals):
        mine = totals == total
        observed = [_observed(time[mine], event[mine], w[mine], h) for h in card.horizons]
        rows.append(
            ScoreRisk(
                int(total),
                float(w[mine].sum()),
                tuple(card.risk_at(float(total), h) for h in card.horizons),
                *(tuple(o[i] for o in observed) for i in range(3)),
            )
        )
    return tuple(rows)


def _observed(
    time: np.ndarray, event: np.ndarray, w: np.ndarray, horizon: float
) -> tuple[float | None, float | None, float | None]:
    """(1 - KM survival, its lower and upper bound) by ``horizon``; None when the rows say nothing
    about it (no one followed that long, unless Kaplan–Meier's curve has reached 0: then the risk
    is 1; no event among them: 0 up to the last time)."""
    followed = time.max() >= horizon
    if not event.any():
        return (0.0, None, None) if followed else (None, None, None)
    times, survival, lower, upper = kaplan_meier(time, event, w)
    if not followed and survival[-1] > 0:  # the curve stops above 0 before the horizon
        return None, None, None
    at = np.searchsorted(times, horizon, side="right") - 1
    if at < 0:
        return 0.0, None, None
    return 1.0 - float(survival[at]), 1.0 - float(upper[at]), 1.0 - float(lower[at])
