"""The studio's solves and their cache, without Jupyter: one spec solved to a card (or to the
failure said in its place), every result kept by spec key, the nearest solved card as the next
solve's warm start."""

from __future__ import annotations

import math
import threading
from typing import Callable

from ..core.data import Dataset
from ..core.scoring import ScoringSystem
from ..core.spec import Spec
from ..fitting import InfeasibleError, NoSolutionError, fit_dataset
from ..solvers.base import Incumbent
from .card_status import Status

__all__ = ["Failure", "SolveCache"]


class Failure:
    """A cached solve that gave no card (infeasible spec or invalid options)."""

    def __init__(self, status: Status):
        self.status = status


def failure(state: str, text: str, conflicts: tuple[str, ...] = ()) -> Failure:
    return Failure(Status(state, text, conflicts=conflicts, level="error"))


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

    def __init__(self, data: Dataset, measure: Callable[[ScoringSystem], ScoringSystem], lock: threading.RLock):
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
        if (getattr(result, "source", self) is not self if isinstance(result, Failure)
                else tuple(result.feature_names) != tuple(self.data.feature_names)):
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

    def solve(self, spec: Spec, cancel: threading.Event,
              on_incumbent: Callable[[Incumbent], None] | None = None) -> ScoringSystem | Failure | None:
        """Solve ``spec`` (not cached here); None when it was interrupted (nothing to cache)."""
        result = self._attempt(spec, cancel, on_incumbent)
        if isinstance(result, Failure):
            result.source = self  # stored only in this cache (see store)
        return result

    def _attempt(self, spec: Spec, cancel: threading.Event,
                 on_incumbent: Callable[[Incumbent], None] | None = None) -> ScoringSystem | Failure | None:
        self.count += 1
        try:
            card = fit_dataset(self.data, spec, warm_start=self.nearest(spec), on_incumbent=on_incumbent,
                               cancel=cancel)
        except InfeasibleError as exc:
            if cancel.is_set():
                return None
            return failure("infeasible", "infeasible: these constraints clash: " + "; ".join(exc.conflicts),
                           tuple(exc.conflicts))
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


