"""The studio's solves and their cache, without Jupyter: one spec solved to a card (or to the
failure said in its place), every result kept by spec key, the nearest solved card as the next
solve's warm start."""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import replace

from ..core.data import Dataset
from ..core.scoring import ScoringSystem
from ..core.spec import Spec
from ..fitting import InfeasibleError, NoSolutionError, fit_dataset
from ..solvers.base import Incumbent
from .card_status import Status

__all__ = ["Failure", "SolveCache", "studio_spec"]


class Failure:
    """A cached solve that gave no card (infeasible spec or invalid options)."""

    def __init__(self, status: Status):
        self.status = status


def failure(state: str, text: str, conflicts: tuple[str, ...] = ()) -> Failure:
    return Failure(Status(state, text, conflicts=conflicts, level="error"))


def studio_spec(spec: Spec) -> Spec:
    """``spec`` as the studio solves it: without ``size_cv``. The studio solves at the size the
    spec gives; it never runs the choice of the size by cross-validation again, so its cards must
    not say "size chosen by K-fold CV" (a card loaded from ``fit`` that did run it still says so).

    >>> from slimwidgets.core.spec import make_spec
    >>> studio_spec(make_spec(size_cv=5, max_size=3)).size_cv is None
    True
    """
    return spec if spec.size_cv is None else spec.replace(size_cv=None)


def _spec_distance(a: dict, b: dict) -> int:
    return sum(1 for k in a if a[k] != b.get(k))


class SolveCache:
    """Solves specs of one data set and keeps every result by spec key.

    Parameters
    ----------
    data : the training rows.
    measure : completes a solved card with the figures the studio shows (held-out metrics).
    lock : the controller's lock, which also guards the cache.
    """

    def __init__(
        self,
        data: Dataset,
        measure: Callable[[ScoringSystem], ScoringSystem],
        lock: threading.RLock,
    ):
        self.data, self._measure, self._lock = data, measure, lock
        self.results: dict[str, ScoringSystem | Failure] = {}
        self._order: list[str] = []
        self.count = 0  # solves actually started

    def get(self, key: str) -> ScoringSystem | Failure | None:
        return self.results.get(key)

    def __contains__(self, key: str) -> bool:
        return key in self.results

    def store(self, spec: Spec, result: ScoringSystem | Failure) -> None:
        """Keep ``result`` as the card of ``spec``; a card of other rules (solved before a cut
        point moved) or a failure met by another cache is not this data's and is not kept."""
        if (
            getattr(result, "source", self) is not self
            if isinstance(result, Failure)
            else tuple(result.feature_names) != tuple(self.data.feature_names)
        ):
            return
        with self._lock:
            key = spec.key()
            if key not in self.results:
                self._order.append(key)
            self.results[key] = result

    def nearest(self, spec: Spec) -> ScoringSystem | None:
        """The solved card whose spec differs from ``spec`` in the fewest fields (the newest
        of equals): a warm start that is often feasible, or nearly so."""
        target = spec.to_dict()
        best, best_d = None, math.inf
        with self._lock:
            items = [self.results[k] for k in reversed(self._order)]
        for card in items:
            if isinstance(card, Failure) or card.spec is None:
                continue
            d = _spec_distance(target, card.spec.to_dict())
            if d < best_d:
                best, best_d = card, d
        return best

    def solve(
        self,
        spec: Spec,
        cancel: threading.Event,
        on_incumbent: Callable[[Incumbent], None] | None = None,
        time_limit: float | None = None,
    ) -> ScoringSystem | Failure | None:
        """Solve ``spec`` (not cached here); None when it was interrupted (nothing to cache).

        ``time_limit``: the seconds this solve may take, when less than the spec's (the studio
        counts the limit from the user's request); the card still carries ``spec``."""
        result = self._attempt(spec, cancel, on_incumbent, time_limit)
        if isinstance(result, Failure):
            result.source = self  # stored only in this cache (see store)
        return result

    def _attempt(
        self,
        spec: Spec,
        cancel: threading.Event,
        on_incumbent: Callable[[Incumbent], None] | None = None,
        time_limit: float | None = None,
    ) -> ScoringSystem | Failure | None:
        self.count += 1
        shorter = (
            time_limit is not None and spec.time_limit is not None and time_limit < spec.time_limit
        )
        try:
            card = fit_dataset(
                self.data,
                spec.replace(time_limit=time_limit) if shorter else spec,
                warm_start=self.nearest(spec),
                on_incumbent=on_incumbent,
                cancel=cancel,
            )
            if (
                shorter
            ):  # the card is of the user's spec (its key, its words), solved in the time left
                card = replace(card, spec=spec)
        except InfeasibleError as exc:
            if cancel.is_set():
                return None
            return failure(
                "infeasible",
                "infeasible: these constraints clash: " + "; ".join(exc.conflicts),
                tuple(exc.conflicts),
            )
        except NoSolutionError as exc:
            if cancel.is_set():
                return None
            return failure("error", f"no card: {exc}")
        except (ValueError, KeyError) as exc:
            msg = exc.args[0] if exc.args else str(exc)
            return failure("infeasible", f"infeasible: {msg}", (str(msg),))
        except Exception as exc:  # a solver failure must surface, never hang the studio
            return failure("error", f"error: {type(exc).__name__}: {exc}")
        if card.status == "interrupted" or cancel.is_set():
            return None
        return self._measure(card)
