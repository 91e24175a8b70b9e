"""The studio's alternatives list (the Rashomon view), without Jupyter.

For the current spec, once its card is settled, a worker thread of its own lists up to
``k`` near-optimal cards with other feature sets (:func:`~slimwidgets.toolbox.alternatives.
search_alternatives`), reusing the settled card as the first. A spec change cancels the
search at once (its results are never shown for another spec); a finished list is kept per
spec, so undo and redo find it again. :meth:`AlternativesList.view` gives the rows in the
user's units: the features, size, training and held-out figures, and the difference to the
card on screen.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..core.data import Dataset
from ..core.family import family_of_card
from ..core.formatting import percent, signed
from ..core.scoring import ScoringSystem
from ..core.spec import Spec
from ..core.status import describe, details_text
from ..fitting import check_card
from ..toolbox.alternatives import (
    STOPS,
    Alternatives,
    as_alternative,
    risk_figures,
    search_alternatives,
)
from .card_status import Status, change_text, optimised_measure, status_of
from .scheduler import BackgroundQueue
from .solving import studio_spec
from .variables import card_variables

if TYPE_CHECKING:
    from .studio_core import StudioCore

__all__ = ["AlternativesList", "AlternativesControls", "ALT_K", "ALT_WITHIN", "variables_text"]

ALT_K = 10  # cards listed at most
ALT_WITHIN = 0.02  # how much worse than the best, in the spec's own figure


@dataclass
class _Run:
    """The list of one spec: its cards so far and how the search ended (None: running)."""

    key: str
    cards: list[ScoringSystem] = field(default_factory=list)
    figures: list[dict] = field(default_factory=list)  # per card: its figures, computed once
    result: Alternatives | None = None
    error: str | None = None
    started: float = field(default_factory=time.time)


def card_figures(card: ScoringSystem, train: Dataset, held_out: Dataset | None) -> dict:
    """What a row shows of ``card``, in the user's units (shares and losses, not objectives)."""
    out: dict[str, Any] = {"size": card.size}
    if family_of_card(card).predicts_risk:
        for prefix, data in (("", train), ("val_", held_out)):
            if data is not None:
                out[prefix + "log_loss"], out[prefix + "auc"] = risk_figures(card, data)
        return out
    for prefix, m in (("", card.train_metrics), ("val_", card.validation_metrics)):
        if m is not None:
            out.update({prefix + "error": m.error, prefix + "tpr": m.tpr, prefix + "fpr": m.fpr})
    return out


def figure_texts(f: dict, prefix: str = "") -> list[str]:
    if "log_loss" in f:
        return [f"log-loss {f[prefix + 'log_loss']:.4f}", f"AUC {f[prefix + 'auc']:.3f}"]
    return [
        f"error {percent(f[prefix + 'error'])}",
        f"TPR {percent(f[prefix + 'tpr'])}",
        f"FPR {percent(f[prefix + 'fpr'])}",
    ]


def _difference(f: dict, now: dict, measure: str) -> str:
    """How a row differs from the card on screen: the figure the spec optimises first, then
    the one it trades against (under an FPR cap many cards share a TPR and differ in FPR)."""
    if "log_loss" in f and "log_loss" in now:
        return (
            f"log-loss {_signed(f['log_loss'] - now['log_loss'], 4)} · AUC "
            f"{_signed(f['auc'] - now['auc'], 3)}"
        )
    if "error" not in f or "error" not in now:
        return ""
    keys = {"tpr": ("tpr", "fpr"), "fpr": ("fpr", "tpr")}.get(measure, ("error",))
    return " · ".join(
        f"{'error' if k == 'error' else k.upper()} {change_text(f[k] - now[k])}" for k in keys
    )


def _beats(f: dict, now: dict, measure: str) -> bool:
    """Whether a row's card is better than the card shown in the figure the settings optimise
    (under a cap: a higher TPR, or the same TPR at a lower FPR)."""
    tol = 0.0005
    if "log_loss" in f and "log_loss" in now:
        return f["log_loss"] < now["log_loss"] - 5e-5
    if "error" not in f or "error" not in now:
        return False
    if measure in ("tpr", "fpr"):
        first, second = measure, "fpr" if measure == "tpr" else "tpr"
        sign = 1 if measure == "tpr" else -1
        gain = sign * (f[first] - now[first])
        return gain > tol or (abs(gain) <= tol and sign * (now[second] - f[second]) > tol)
    return f["error"] < now["error"] - tol


def _signed(d: float, digits: int) -> str:
    return "same" if abs(d) < 0.5 * 10**-digits else signed(d, digits)


class AlternativesList:
    """The alternatives of the studio's current spec, searched on a thread of their own.

    Parameters
    ----------
    core : the studio's core (its spec, card, rows and cache).
    emit : tells the views ``"alternatives"`` changed.
    offer : ``offer(card, source)``: a card found here that may beat the card shown
        (:meth:`~slimwidgets.widgets.best_known.BestKnownControls.offer`).
    k, within : as for :func:`~slimwidgets.toolbox.alternatives.alternatives`.
    """

    def __init__(
        self,
        core: StudioCore,
        emit: Callable[[], None],
        offer: Callable[[ScoringSystem | None, str], bool],
        *,
        k: int = ALT_K,
        within: float = ALT_WITHIN,
        enabled: bool = True,
    ):
        self._core, self._emit, self._offer = core, emit, offer
        self.k, self.within, self.enabled = int(k), float(within), bool(enabled)
        self._lock = threading.RLock()
        self._run: _Run | None = None
        self._done: dict[str, _Run] = {}  # spec key -> a finished (not cancelled) list
        self.loaded: tuple[ScoringSystem, str, str] | None = (
            None  # (card, what its load did, level)
        )
        self.queue = BackgroundQueue(self._job, name="alternatives")

    # -- planning ----------------------------------------------------------------------------------
    def plan(self) -> None:
        """Follow the current spec: keep its list, start it once its card is settled, or
        cancel the list of a spec that is no longer current."""
        if not self.enabled:
            return
        c = self._core
        key = c.spec.key()
        settled = c.settled_card(key)
        with self._lock:
            if self._run is not None and self._run.key == key:
                return  # this spec's list is running or done already
            if key in self._done:
                self._run = self._done[key]
                self.queue.set_plan([])
            elif settled is None:
                self._run = None
                self.queue.set_plan([])  # interrupts a search for another spec
            else:
                self._run = _Run(key)
                self.queue.set_plan([key])
        self._emit()

    def forget(self, stale: Callable[[str], bool]) -> None:
        """Drop the lists of the spec keys ``stale`` names (their data changed: another group
        column, :mod:`~slimwidgets.widgets.groups`), stopping a search for one of them."""
        with self._lock:
            for key in [k for k in self._done if stale(k)]:
                del self._done[key]
            if self._run is not None and stale(self._run.key):
                self._run = None
                self.queue.set_plan([])

    def pause(self, paused: bool) -> None:
        self.queue.pause(paused)

    def reset(self) -> None:
        """Forget every list (the rules changed: the lists hold cards of the other rules)."""
        with self._lock:
            self._run, self._done, self.loaded = None, {}, None
        self.queue.set_plan([])

    def close(self, timeout: float) -> bool:
        return self.queue.close(timeout)

    def wait(self, timeout: float | None = 120.0) -> bool:
        return self.queue.wait_idle(timeout)

    # -- the search --------------------------------------------------------------------------------
    def _job(self, key: str, cancel: threading.Event) -> None:
        c = self._core
        first = c.settled_card(key)
        with self._lock:
            run = self._run
        if first is None or run is None or run.key != key:
            return

        def on_card(card: ScoringSystem) -> None:
            card = c.measured(card)
            figures = card_figures(card, c.data, c.validation)
            with self._lock:
                if self._run is not run:
                    return
                run.cards.append(card)
                run.figures.append(figures)
            self._emit()
            self._offer(card, "the alternatives search")

        try:
            result = search_alternatives(
                c.data,
                studio_spec(first.spec or c.spec),
                k=self.k,
                within=self.within,
                cancel=cancel,
                first=first,
                on_card=on_card,
            )
        except Exception as exc:  # a failed search must say so, never leave the list spinning
            result, run.error = None, f"{type(exc).__name__}: {exc}"
        if cancel.is_set() and run.error is None:
            return  # superseded: a later plan() starts again if this spec comes back
        with self._lock:
            run.result = result if result is not None else Alternatives()
            if run.error is None:
                self._done[key] = run
        self._emit()

    # -- what the view shows -----------------------------------------------------------------------
    def card(self, rank: int) -> ScoringSystem:
        """The ``rank``-th card of the current list (1 = the best)."""
        with self._lock:
            run = self._run
            if run is None or run.key != self._core.spec.key():
                raise ValueError(
                    "the alternatives list belongs to other settings: wait for the new list"
                )
            if not 1 <= rank <= len(run.cards):
                raise ValueError(f"there is no alternative {rank} (the list has {len(run.cards)})")
            return run.cards[rank - 1]

    def view(self) -> dict:
        """``{"rows": [...], "state": {...}}``: the list as the studio draws it."""
        c = self._core
        with self._lock:
            run = self._run
            cards = [] if run is None else list(run.cards)
            figures = [] if run is None else list(run.figures)
        now = c.card
        now_figures = (
            card_figures(now, c.data, c.validation) if now is not None and now.train_metrics else {}
        )
        measure = (
            run.result.measure
            if run is not None and run.result is not None
            else optimised_measure(c.spec)
        )
        # the differences in the figure the settings optimise, also when the search's margin is in
        # objective units (scores with no common step)
        compared = optimised_measure(c.spec) if measure == "objective" else measure
        rows = [
            self._row(i + 1, card, f, now, now_figures, compared)
            for i, (card, f) in enumerate(zip(cards, figures))
        ]
        state = self._state(run, measure)
        better = sum(_beats(f, now_figures, compared) for f in figures)
        if better and state.get(
            "text"
        ):  # the card shown is not the best here (edited or loaded): said
            state = {
                **state,
                "text": f"{state['text']} · {better} of them better than the card shown",
                "better": better,
            }
        loaded = self.loaded
        if (
            loaded is not None and loaded[0] is now
        ):  # what the load did, beside the list, while its card shows
            state = {**state, "notice": loaded[1], "level": loaded[2]}
        return {"rows": rows, "state": state}

    def _row(
        self,
        rank: int,
        card: ScoringSystem,
        f: dict,
        now: ScoringSystem | None,
        now_figures: dict,
        measure: str,
    ) -> dict:
        shown = (
            now is not None
            and now.coefficients == card.coefficients
            and now.intercept == card.intercept
        )
        names = list(card.points)
        points = [{"name": n, "points": int(card.points[n])} for n in names]
        if card.rules is None and self._core.rules is not None:
            card = replace(card, rules=self._core.rules)  # a raw table's card reads by variable
        held_out = figure_texts(f, "val_") if ("val_error" in f or "val_log_loss" in f) else []
        proven = card.status == "optimal"
        how = (
            ("proven best" if rank == 1 else "proven best without the feature sets above")
            if proven
            else "best found"
        )
        return {
            "rank": rank,
            "features": points,
            "variables": variables_text(card, self._core.spec),
            "size": len(names),
            "train": figure_texts(f),
            "held_out": held_out,
            "difference": "shown now" if shown else _difference(f, now_figures, measure),
            "current": shown,
            "how": how,
            "details": (
                f"objective {card.objective:.6g} · {card.status} · {card.solve_time or 0:.2f} s"
            ),
        }

    def _state(self, run: _Run | None, measure: str) -> dict:
        margin = _margin_text(self.within, measure)
        if not self.enabled:
            return {"phase": "off", "text": ""}
        if run is None:
            failed = self._core.status.state in ("infeasible", "invalid", "error")
            return {
                "phase": "waiting",
                "text": "no card for these settings, so no alternatives"
                if failed
                else "waiting for the card to settle",
            }
        if run.error is not None:
            return {"phase": "error", "text": f"the alternatives search failed: {run.error}"}
        n = len(run.cards)
        if run.result is None:
            return {
                "phase": "running",
                "started": run.started,
                "text": f"searching cards at most {margin} worse than the best… {n} of up to "
                f"{self.k} so far",
            }
        cards = f"{n} card{'s' if n != 1 else ''} at most {margin} worse than the best"
        unproven = sum(card.status != "optimal" for card in run.cards)
        if run.result.complete:
            note = "complete: any other card this close only adds features to one of these"
        elif unproven:
            note = (
                f"not exhaustive: {unproven} of these fits stopped at the time limit before "
                "proving their card best; more cards this close may exist"
            )
        else:
            note = f"not exhaustive ({STOPS[run.result.stopped]}): more cards this close may exist"
        return {"phase": "done", "complete": run.result.complete, "text": f"{cards} · {note}"}


def _margin_text(within: float, measure: str) -> str:
    if measure in ("error", "tpr", "fpr"):
        return f"{100 * within:.4g} pt {'error' if measure == 'error' else measure.upper()}"
    if measure == "log-loss":
        return f"{within:.4g} log-loss"
    return f"{within:.4g} in objective"


def alternative_status(card: ScoringSystem, rank: int, data: Dataset) -> Status:
    """The status of the ``rank``-th alternative loaded: the best one reads as a solved card."""
    if rank == 1:
        return status_of(card)
    cs = describe(card, validation=card.validation_metrics)
    figures = " · ".join(figure_texts(card_figures(card, data, None)))
    text = (
        f"alternative {rank} · {figures} · the best card that avoids the feature sets above it "
        "in the list"
    )
    return Status(
        "feasible",
        text,
        objective=card.objective,
        elapsed=card.solve_time,
        details=details_text(cs),
        warning=cs.warning,
        level="warn" if cs.warning else "ok",
    )


def alternative_notice(
    rank: int,
    card: ScoringSystem,
    before: ScoringSystem | None,
    broken: list[str],
    data: Dataset,
    spec: Spec,
) -> str:
    """What loading an alternative did: its features, its cost against the card ``before``,
    the locks it keeps, the constraints it breaks."""
    parts = [f"loaded alternative {rank}: " + (", ".join(card.points) or "no feature")]
    if before is not None and before.train_metrics is not None:
        then = card_figures(before, data, None)
        now = card_figures(card, data, None)
        if "error" in now and "error" in then:
            parts.append(
                ", ".join(
                    f"{label} {change_text(now[k] - then[k])}"
                    for k, label in (("error", "error"), ("tpr", "TPR"), ("fpr", "FPR"))
                )
                + " vs the card before"
            )
        elif "log_loss" in now and "log_loss" in then:
            parts.append(
                f"log-loss {now['log_loss'] - then['log_loss']:+.4f} vs the card before".replace(
                    "-", "\u2212"
                )
            )
    if spec.lock:
        parts.append("keeps the locks " + ", ".join(f"{k} = {v}" for k, v in spec.lock.items()))
    if broken:
        parts.append("but it breaks " + "; ".join(broken))
    return " · ".join(parts) + " · undo goes back"


class AlternativesControls:
    """The alternatives of the studio (a feature object: its list is ``alts``; loading one is
    an undo step).

    Parameters
    ----------
    core : the studio's core.
    alts : the alternatives list of the current spec.
    show_card : shows a card found without a solve as one undo step (the controller's
        :meth:`~slimwidgets.widgets.controller.Controller.show_card`).
    """

    def __init__(
        self, core: StudioCore, alts: AlternativesList, show_card: Callable[..., None]
    ) -> None:
        self._core, self._alts, self._show_card = core, alts, show_card

    def settled_card(self, key: str) -> ScoringSystem | None:
        """The solved card of the spec with this key, if it has one yet."""
        return self._core.settled_card(key)

    def alternatives(self) -> dict:
        """The alternatives list of the current spec as the studio shows it:
        ``{"rows": [...], "state": {...}}`` (see
        :class:`~slimwidgets.widgets.alternatives.AlternativesList`)."""
        return self._alts.view()

    def wait_alternatives(self, timeout: float | None = 120.0) -> bool:
        """Block until the alternatives search of the current spec has ended (tests, scripts)."""
        return self._alts.wait(timeout)

    def load_alternative(self, rank: int) -> ScoringSystem:
        """Show the ``rank``-th card of the alternatives list (1 = the best): one undo step.

        The spec stays as it is (every alternative was solved under it); the card is checked
        against it again, and :attr:`notice` says what the load did: the features it uses, what
        it costs against the card shown before, the locks it keeps, any constraint it breaks.
        A later card is called "feasible": it is optimal only among the cards that avoid the
        earlier feature sets.
        """
        card = self._alts.card(rank)
        with self._core.lock:
            self._core.check_open()
            spec, before = (
                studio_spec(self._core.spec),
                self._core.card,
            )  # solved here: no choice of the size by CV
            shown = as_alternative(card, spec, rank)
            broken = check_card(shown, self._core.data, spec)
            self._show_card(shown, spec, alternative_status(shown, rank, self._core.data))
            self._core.say(
                alternative_notice(rank, shown, before, broken, self._core.data, spec),
                "warning" if broken else "info",
            )
            self._alts.loaded = (shown, self._core.notice, self._core.notice_level)
        self._core.emit("card", "notice", "alternatives")
        return shown


def variables_text(card: ScoringSystem, spec: Spec) -> list[dict] | None:
    """A card of a raw table read by variable, as the card itself reads: ``{"name", "text"}`` per
    variable with points (``"lwt", "< 110: 0 · ≥ 110: −4"``); None for a card without rules.

    Examples
    --------
    >>> import pandas as pd
    >>> from slimwidgets.core.rules import RuleBuilder
    >>> from slimwidgets.core.spec import make_spec
    >>> b = RuleBuilder(cuts={"age": [23, 26]}).fit(pd.DataFrame({"age": [20, 24, 30]}))
    >>> card = ScoringSystem(["age >= 23", "age >= 26"], [7, -9], 0, rules=b)
    >>> variables_text(card, make_spec())
    [{'name': 'age', 'text': '< 23: 0 · 23–25: 7 · ≥ 26: −2'}]
    """
    table = card_variables(card, spec)
    if table is None:
        return None
    return [
        {
            "name": v["variable"],
            "text": " · ".join(
                f"{b['label']}: {b['points']}".replace("-", "\u2212") for b in v["bands"]
            ),
        }
        for v in table
    ]
