"""Large tables: searched on a sample of their rows, every card re-scored on all of them.

A table of 0/1 rules reaches ``fit`` as weighted distinct patterns
(:class:`~slimwidgets.core.patterns.Patterns`). When they are few the fit is the usual one, on
the same :class:`Dataset` :func:`~slimwidgets.core.data.prepare_data` would give, proofs
included. When they are many (random 0/1 rows hardly repeat: 10^6 rows of 50 rules are 10^6
patterns) the integer program over all of them is out of reach, so:

1. the search :func:`~.driver.fit_dataset` runs beside its solver (feature-pool MIPs, then the
   local search) runs alone on a class-stratified sample of about ``SAMPLE_CELLS`` rule
   values, under the time left;
2. every card it finds is re-scored on all rows, its intercept chosen on all rows, and the
   best one is reported;
3. the card's points are polished on all rows (one point up or down per used rule, each with
   its best intercept on all rows), while time is left;
4. the card's figures, objective and caps are those of all rows. What is proven is proven on
   all rows: the floor is the cell bound (rows sharing a pattern share a score, so each
   pattern gets all its positives or all its negatives wrong); "optimal" only when the card
   meets it. The card says how large the sample was.

Every phase looks at one deadline (``time_limit`` minus the time to build the card), and the
search on the sample is stopped at it even if it overruns its own limit.
"""

from __future__ import annotations

import dataclasses
import math
import threading
import time
from collections.abc import Callable

import numpy as np

from ..core.data import Dataset
from ..core.family import family_of_loss
from ..core.objective import feature_boxes, objective_costs
from ..core.patterns import Patterns
from ..core.scoring import ScoringSystem
from ..core.spec import Spec
from ..core.status import LimitScale
from ..solvers.base import Incumbent, relative_gap
from ..solvers.search import local_search
from .cards import risk_rows
from .checks import box_limits, check_card
from .errors import BoxWarning, NoSolutionError
from .side_search import SideSearch

__all__ = [
    "read_large",
    "is_dask",
    "searched_on_a_sample",
    "fit_on_a_sample",
    "cluster_sample_card",
    "AllRows",
    "SAMPLE_ABOVE",
    "SAMPLE_CELLS",
    "LARGE_ROWS",
    "FULL_VALUES_PER_SECOND",
]

#: distinct (pattern, label) rows past which the search runs on a sample
SAMPLE_ABOVE = 50_000
#: rows x rules of the sample searched (50,000 rows of 50 rules, 12,500 of 200)
SAMPLE_CELLS = 2_500_000
MIN_SAMPLE = 5_000
#: seconds the search on a sample takes when ``fit`` has no time limit (it proves nothing
#: about all rows, so it cannot end on a proof)
NO_LIMIT_SECONDS = 60.0
#: share of the time left after the search that the polish on all rows may take
POLISH_SHARE = 0.07
#: seconds kept to build and check the card (on a few rows per total score: fast)
FINISH_SECONDS = 0.3
#: seconds of the first search (on a sample a tenth the size), for a card within a second
FIRST_SECONDS = 0.3
#: seconds a search on the sample may overrun its own limit before it is stopped
STOP_GRACE = 0.3
#: share of the time left that building the sample's program may take (at the pace measured
#: on the first card's smaller sample); a larger sample is cut down to it
BUILD_SHARE = 0.15
#: distinct (pattern, label) rows x rules per second of the time limit up to which the program
#: on all rows is built and proven (its reading, building, search start and card cost ~1 s per
#: 10^6 values on this 2-core machine when it is busy: at most a tenth of the limit); past it,
#: the search runs on a sample
FULL_VALUES_PER_SECOND = 100_000


def searched_on_a_sample(patterns: Patterns, spec: Spec) -> bool:
    """Whether :func:`~.driver.fit` searches these patterns on a sample: for a decision card with
    the automatic solver, when they are many, or when the time limit is short for building and
    proving the program on all of them (more than ``FULL_VALUES_PER_SECOND`` rule values per
    second of the limit); else they are fitted as the same :class:`Dataset`."""
    if not family_of_loss(spec.loss).samples_large_tables or spec.solver != "auto":
        return False
    values = patterns.n_cells * len(patterns.feature_names)
    short = spec.time_limit is not None and values > FULL_VALUES_PER_SECOND * spec.time_limit
    return patterns.n_cells > SAMPLE_ABOVE or short


def fit_on_a_sample(
    patterns: Patterns,
    spec: Spec,
    *,
    warm_start: ScoringSystem | None = None,
    on_incumbent: Callable[[Incumbent], None] | None = None,
    cancel: threading.Event | None = None,
    on_bound: Callable[[float], None] | None = None,
    started: float | None = None,
) -> ScoringSystem:
    """:func:`~.driver.fit` on many weighted distinct patterns: searched on a sample, every card
    re-scored on all of them, the best polished on all of them (the module's steps 1-4)."""
    started = time.perf_counter() if started is None else started
    spec.check_data(patterns.feature_names, patterns.n_samples)
    return _SampledFit(patterns, spec, started, on_incumbent, cancel).run(warm_start, on_bound)


def cluster_sample_card(card: ScoringSystem, patterns: Patterns) -> ScoringSystem:
    """The card as fitted on ``patterns``: unchanged, unless they were reduced from a sample of
    the rows (a Dask frame with too many patterns); then it says so and claims no proof (what
    holds on the sample need not hold on all rows)."""
    if patterns.sampled_from is None and patterns.partitions_read is None:
        return card
    searched = (card.details.get("sample") or {}).get("rows", patterns.n_samples)
    parts = ""
    if patterns.partitions_read is not None:
        parts = (
            f"{patterns.partitions_read[0]:,} of {patterns.partitions_read[1]:,} partitions read "
            f"within the time limit ({patterns.sampled_from or patterns.n_samples:,} rows), "
            "the rest never read"
        )
    if patterns.sampled_from is None:
        note = (
            f"reduced on the cluster from {parts}; the figures are those rows', nothing is proven"
        )
    else:
        note = (
            f"reduced on the cluster by a sample of {patterns.n_samples:,} of "
            f"{patterns.sampled_from:,} rows (too many distinct patterns to bring "
            f"back{'; ' + parts if parts else ''}); the figures are the sample's, nothing is "
            "proven"
        )
    status = (
        card.status
        if card.status != "optimal"
        else ("heuristic" if card.spec.time_limit is None else "time_limit")
    )
    of = patterns.sampled_from or patterns.n_samples
    details = {k: v for k, v in card.details.items() if k != "bound_by_work"}  # the sample's
    details.update(limits=None, sample={"rows": searched, "of": of, "note": note})
    return dataclasses.replace(card, status=status, bound=-math.inf, gap=math.inf, details=details)


class AllRows:
    """The objective of cards on all rows of ``patterns``, term for term the formulation's
    (row weights, C0, epsilon, tiers, groups), without building its program; each card with
    its best intercept on all rows (the caps hold)."""

    def __init__(self, patterns: Patterns, spec: Spec):
        p = self.patterns = patterns
        has_pos, has_neg = p.pos > 0, p.neg > 0
        n_pos = int(has_pos.sum())
        cells = Dataset(
            p.feature_names,
            np.empty((n_pos + int(has_neg.sum()), 0)),
            np.concatenate([np.ones(n_pos, np.int8), -np.ones(int(has_neg.sum()), np.int8)]),
            np.concatenate([p.pos[has_pos], p.neg[has_neg]]),
            p.n_samples,
            p.positive,
            p.negative,
            np.ones(len(p.feature_names), bool),
            np.ones(len(p.feature_names), bool),
        )
        self.box = feature_boxes(cells, spec)
        self.costs = costs = objective_costs(cells, spec, self.box)
        self.rw_pos, self.rw_neg = np.zeros(p.n_patterns), np.zeros(p.n_patterns)
        self.rw_pos[has_pos], self.rw_neg[has_neg] = (
            costs.row_weight[:n_pos],
            costs.row_weight[n_pos:],
        )
        self.spec = spec
        self.margin = spec.margin if spec.margin is not None else 1.0  # 0/1 rules: integer scores
        self.positive_margin = self.margin if spec.zero_score == "error" else 0.0
        whole = bool(np.all(p.pos == np.round(p.pos)) and np.all(p.neg == np.round(p.neg)))
        self.caps = []  # (the class's weight per pattern, its budget of wrong weight)
        for share, w in (
            (spec.max_fpr, p.neg),
            (None if spec.min_tpr is None else 1 - spec.min_tpr, p.pos),
        ):
            if share is not None:
                budget = share * float(w.sum())
                self.caps.append((w, math.floor(budget + 1e-9) if whole else budget))

    def cell_floor(self) -> float:
        """A proven floor on every card's objective: each pattern gets one class wrong."""
        return float(np.minimum(self.rw_pos, self.rw_neg).sum())

    def penalty(self, coefficients: np.ndarray) -> float:
        """C0 per rule used, epsilon per point, tier and group costs (Formulation.objective_of)."""
        c, costs = np.asarray(coefficients, dtype=float), self.costs
        used = c != 0
        value = float(costs.C0[used].sum()) + costs.epsilon * float(np.abs(c[self.box.free]).sum())
        value += float(
            sum(
                step * np.count_nonzero(np.abs(c[self.box.free]) > above)
                for above, step in costs.tier_steps
            )
        )
        for members in costs.groups:
            k = int(np.count_nonzero(used[members]))
            if k:
                value += self.spec.group_penalty + self.spec.rule_penalty * (k - 1)
        return value

    def best_intercept(
        self, coefficients: np.ndarray, scores: np.ndarray | None = None
    ) -> tuple[int, float]:
        """(intercept, objective) of the card's best intercept on all rows (the middle one of
        equally good ones: the widest margin); objective inf when no intercept meets the caps."""
        s = self.patterns.scores(coefficients) if scores is None else scores
        lo, hi = int(s.min()), int(s.max())
        idx = s - lo
        b = np.arange(-hi - math.ceil(self.margin) - 1, -lo + math.ceil(self.positive_margin) + 2)
        if self.spec.intercept_range is not None:
            b = b[(b >= self.spec.intercept_range[0]) & (b <= self.spec.intercept_range[1])]
            if b.size == 0:
                b = np.array([int(np.clip(0, *self.spec.intercept_range))])
        # positives are wrong at scores below pm - b, negatives at scores above -margin - b
        k_pos = np.clip(np.ceil(self.positive_margin - b - lo - 1e-9), 0, hi - lo + 1).astype(
            np.int64
        )
        k_neg = np.clip(np.floor(-self.margin - b - lo + 1e-9) + 1, 0, hi - lo + 1).astype(np.int64)

        def wrong(w_pos: np.ndarray | None, w_neg: np.ndarray | None) -> np.ndarray:
            total = np.zeros(len(b))
            if w_pos is not None:
                total += np.concatenate([[0.0], np.cumsum(np.bincount(idx, w_pos, hi - lo + 1))])[
                    k_pos
                ]
            if w_neg is not None:
                cum = np.concatenate([[0.0], np.cumsum(np.bincount(idx, w_neg, hi - lo + 1))])
                total += cum[-1] - cum[k_neg]
            return total

        loss = wrong(self.rw_pos, self.rw_neg)
        for w, budget in self.caps:
            broken = wrong(w, None) if w is self.patterns.pos else wrong(None, w)
            loss = np.where(broken > budget + 1e-9, np.inf, loss)
        best = float(loss.min())
        if not math.isfinite(best):
            return int(b[0]), math.inf
        ties = b[loss <= best + 1e-12]
        middle = 0.5 * (ties.min() + ties.max())
        return int(ties[np.argmin(np.abs(ties - middle))]), best + self.penalty(coefficients)

    def polish(self, coefficients: np.ndarray, deadline: float) -> tuple[np.ndarray, int, float]:
        """One point up or down on a used rule (staying used, same sign, allowed), each with its
        best intercept on all rows, while the objective falls and time is left."""
        coefs = np.asarray(coefficients, dtype=np.int64).copy()
        scores = self.patterns.scores(coefs)
        intercept, best = self.best_intercept(coefs, scores)
        improved = True
        while improved and time.perf_counter() < deadline:
            improved = False
            for j in np.flatnonzero(coefs):
                column = None
                for step in (-1, 1):
                    v = int(coefs[j]) + step
                    if v == 0 or np.sign(v) != np.sign(coefs[j]) or v not in self.box.allowed[j]:
                        continue
                    if time.perf_counter() >= deadline:
                        return coefs, intercept, best
                    column = (
                        self.patterns.column(int(j)).astype(np.int64) if column is None else column
                    )
                    trial = coefs.copy()
                    trial[j] = v
                    b, value = self.best_intercept(trial, scores + step * column)
                    if value < best - 1e-12:
                        coefs, intercept, best, scores, improved = (
                            trial,
                            b,
                            value,
                            scores + step * column,
                            True,
                        )
                        break
        return coefs, intercept, best

    def limit_scale(self) -> LimitScale:
        """How a bound on this objective reads in the user's units (as status.limit_scale)."""
        p, kind = self.patterns, self.costs.lexicographic or "error"
        counted = {
            "tpr": (self.rw_pos, p.pos, self.rw_neg),
            "fpr": (self.rw_neg, p.neg, self.rw_pos),
        }
        if kind == "error":
            rw, w, rest = (
                np.concatenate([self.rw_pos, self.rw_neg]),
                np.concatenate([p.pos, p.neg]),
                np.zeros(1),
            )
        else:
            rw, w, rest = counted[kind]
        live = w > 0
        free = self.box.free
        per_feature = sorted(
            (
                float(self.costs.C0[j])
                + self.costs.epsilon * float(np.abs(self.box.allowed[j]).max(initial=0))
                + float(self.costs.value_cost[j].max(initial=0.0))
                for j in np.flatnonzero(free)
            ),
            reverse=True,
        )
        most = (
            len(per_feature)
            if self.spec.max_size is None
            else min(self.spec.max_size, len(per_feature))
        )
        groups = sum(
            self.spec.group_penalty + self.spec.rule_penalty * max(len(m) - 1, 0)
            for m in self.costs.groups
        )
        return LimitScale(
            kind=kind,
            per_error=float(np.max(rw[live] / w[live])),
            others_max=float(rest.sum()) + float(sum(per_feature[:most])) + groups,
            total=float(w.sum()),
            whole=bool(np.all(w == np.round(w))),
            zero_is_error=self.spec.zero_score == "error",
        )


class _SampledFit:
    """One sampled fit: the search on a sample, its cards re-scored on all rows, the polish."""

    def __init__(self, patterns: Patterns, spec: Spec, started: float, on_incumbent, cancel):
        self.p, self.spec, self.started, self.user_cancel = patterns, spec, started, cancel
        self.on_incumbent = on_incumbent
        limit = NO_LIMIT_SECONDS if spec.time_limit is None else spec.time_limit
        self.deadline = started + limit - min(FINISH_SECONDS, 0.1 * limit)
        self.all_rows = AllRows(patterns, spec)
        self.floor = self.all_rows.cell_floor()
        self.best: tuple[float, np.ndarray, int] | None = None
        self.lock = threading.Lock()
        m = len(patterns.feature_names)
        self.n_sample = int(min(patterns.n_samples, max(MIN_SAMPLE, SAMPLE_CELLS // m)))
        self.pace = (0.0, 0)  # (seconds per row, rows) of building the first card's program

    def consider(self, coefficients, report: bool = True) -> None:
        """Re-score a card on all rows; keep it (and tell the caller) when it is the best yet."""
        coefs = np.asarray(coefficients, dtype=np.int64)
        intercept, value = self.all_rows.best_intercept(coefs)
        with (
            self.lock
        ):  # the search and the solver report from two threads: one order for the caller
            if not math.isfinite(value) or (
                self.best is not None and value >= self.best[0] - 1e-12
            ):
                return
            self.best = (value, coefs, intercept)
            if report and self.on_incumbent is not None:
                self.on_incumbent(
                    Incumbent(
                        coefs,
                        intercept,
                        value,
                        min(self.floor, value),
                        time.perf_counter() - self.started,
                    )
                )

    def run(self, warm_start: ScoringSystem | None, on_bound) -> ScoringSystem:
        """Search the sample as :func:`~.driver.fit_dataset` searches beside its solver
        (feature-pool MIPs, then the local search with kicks), stopped at its share of the time;
        then polish the best card on all rows. No proof is tried on the sample (it would prove
        nothing about all rows), and nothing is built or checked there. When reading the table
        left no time for the search on the full sample, the first card's search on its tenth
        answers (the card names what was skipped)."""
        if on_bound is not None and self.floor > 0:
            on_bound(self.floor)
        warm, small = self._first_card(self._warm_points(warm_start))
        search_time = (self.deadline - time.perf_counter()) * (1 - POLISH_SHARE)
        skipped: tuple = ()
        if search_time > STOP_GRACE:
            sample = self._search_sample(warm, search_time)
        else:  # building the sample's program alone would pass the deadline
            sample, skipped = small, ("the search on the full sample",)
        if self.best is None:
            raise NoSolutionError(
                f"no card found on a sample of {sample.n_samples:,} rows meets the caps on all "
                f"{self.p.n_samples:,} rows"
            )
        coefs, intercept, value = self.all_rows.polish(self.best[1], self.deadline)
        self.consider(coefs)
        card = self._card(sample)
        return (
            dataclasses.replace(card, details={**card.details, "skipped": skipped})
            if skipped
            else card
        )

    def _search_sample(self, warm: np.ndarray | None, search_time: float) -> Dataset:
        """The search on the full sample for ``search_time`` seconds (the first search, then the
        side search's pools and kicks), stopped by a watcher at its end; returns the sample."""
        sample = self._sample(self._affordable_sample(), seed=0)
        spec = self.spec.replace(C0=self._sample_C0(), time_limit=max(search_time, 0.05))
        stop = threading.Event()
        search_end = time.perf_counter() + search_time
        watcher = threading.Thread(
            target=self._stop_at,
            args=(stop, search_end),
            daemon=True,
            name="slimwidgets-sample-deadline",
        )
        watcher.start()
        side = None
        try:
            form = family_of_loss(spec.loss).loss.problem(sample, spec)
            left = search_end - time.perf_counter()
            found = local_search(
                form,
                time_budget=max(min(FIRST_SECONDS, left / 4), 0.0),
                warm=warm,
                cancel=stop,
                on_improve=lambda points, intercept, objective: self.consider(points),
            )
            left = search_end - STOP_GRACE - time.perf_counter()
            if found.feasible and left > 0 and not stop.is_set():
                self.consider(found.coefficients)
                side = SideSearch(
                    form,
                    (found.coefficients.astype(float), found.intercept),
                    found.objective,
                    left,
                    lambda points, intercept, objective: self.consider(points),
                    stop,
                    not found.all_starts,
                )
                while side.running() and not stop.wait(
                    0.05
                ):  # set at the end of the search's time, or on a cancel
                    pass
        finally:
            stop.set()
            if side is not None:
                side.stop()
            watcher.join()
        return sample

    def _sample(self, n_rows: int, seed: int) -> Dataset:
        rows, pos, neg = self.p.sample(n_rows, seed=seed)
        return self.p.dataset(
            rows, pos, neg, n_samples=int(round(pos.sum() + neg.sum())), ordered=False
        )

    def _warm_points(self, warm_start: ScoringSystem | None) -> np.ndarray | None:
        if warm_start is None:
            return None
        by_name = dict(zip(warm_start.feature_names, warm_start.coefficients))
        warm = np.array([by_name.get(n, 0) for n in self.p.feature_names], dtype=float)
        self.consider(warm)
        return warm

    def _first_card(self, warm: np.ndarray | None) -> tuple[np.ndarray | None, Dataset]:
        """A card within a second: a short local search on a sample a tenth the size, its cards
        re-scored on all rows; the best card so far is the warm start of the next search.
        As in :func:`~.driver.fit_dataset`, a card at all is worth a tenth of the limit (at most
        ``FIRST_SECONDS``) past the deadline. Returns (that start, the small sample)."""
        small = self._sample(max(MIN_SAMPLE // 2, self.n_sample // 10), seed=1)
        built = time.perf_counter()
        small_spec = self.spec.replace(C0=self._sample_C0())
        form = family_of_loss(small_spec.loss).loss.problem(small, small_spec)
        self.pace = (
            (time.perf_counter() - built) / max(small.n_rows, 1),
            small.n_rows,
        )  # seconds per row built
        limit = NO_LIMIT_SECONDS if self.spec.time_limit is None else self.spec.time_limit
        budget = max(
            min(FIRST_SECONDS, max(self.deadline - time.perf_counter(), 0.0) / 4),
            min(FIRST_SECONDS, limit / 10),
        )
        local_search(
            form,
            time_budget=budget,
            warm=warm,
            cancel=self.user_cancel,
            on_improve=lambda points, intercept, objective: self.consider(points),
        )
        return (warm if self.best is None else self.best[1].astype(float)), small

    def _affordable_sample(self) -> int:
        """The sample's rows: ``n_sample``, or fewer when building its program at the pace the
        first card's program was built (a busy machine) would take more than ``BUILD_SHARE`` of
        the time left (never below the first card's sample, nor ``MIN_SAMPLE``)."""
        per_row, small_rows = self.pace
        left = self.deadline - time.perf_counter()
        projected = per_row * self.n_sample
        if projected <= BUILD_SHARE * left:
            return self.n_sample
        return int(
            max(MIN_SAMPLE, small_rows, self.n_sample * max(BUILD_SHARE * left, 0.0) / projected)
        )

    def _sample_C0(self) -> float | None:
        """C0 on a sample: the one of all rows (the default depends on the number of rows)."""
        return (
            self.spec.C0
            if self.spec.C0 is not None or self.spec.tiers
            else self.all_rows.costs.C0_default
        )

    def _stop_at(self, stop: threading.Event, when: float) -> None:
        """Set ``stop`` at ``when``, or at once when the caller cancels (polled every 50 ms)."""
        while not stop.is_set():
            if time.perf_counter() >= when or (
                self.user_cancel is not None and self.user_cancel.is_set()
            ):
                stop.set()
                return
            stop.wait(0.05)

    def _card(self, sample: Dataset) -> ScoringSystem:
        """The card, its figures from all rows (grouped by total score: the same figures)."""
        value, coefs, intercept = self.best
        bound = min(self.floor, value)
        cancelled = self.user_cancel is not None and self.user_cancel.is_set()
        status = (
            "optimal"
            if value <= bound + 1e-12
            else (
                "interrupted"
                if cancelled
                else ("heuristic" if self.spec.time_limit is None else "time_limit")
            )
        )
        by_score = self._rows_by_score(coefs)
        p, spec = self.p, self.spec
        note = (
            f"searched on a class-stratified sample of {sample.n_samples:,} of {p.n_samples:,} "
            "rows; figures, objective and bound on all rows"
        )
        card = ScoringSystem(
            p.feature_names,
            tuple(int(c) for c in coefs),
            int(intercept),
            positive=p.positive,
            negative=p.negative,
            status=status,
            objective=value,
            bound=bound,
            gap=relative_gap(value, bound),
            solve_time=time.perf_counter() - self.started,
            solver="sample search + polish on all rows",
            spec=spec,
            binary=(True,) * len(p.feature_names),
            positive_name=by_score.positive_name,
            zero_score=spec.zero_score,
            details={
                "margin": self.all_rows.margin,
                "epsilon": self.all_rows.costs.epsilon,
                "C0": self.all_rows.costs.C0.tolist(),
                "nodes": 0,
                "n_rows": p.n_cells,
                "n_samples": p.n_samples,
                "lexicographic": self.all_rows.costs.lexicographic,
                "limits": self.all_rows.limit_scale().to_dict(),
                "intercept_range": (int(spec.intercept_range[0]), int(spec.intercept_range[1]))
                if spec.intercept_range is not None
                else None,
                "box_limits": tuple(
                    box_limits(
                        family_of_loss(spec.loss).loss.problem(by_score, spec),
                        coefs,
                        int(intercept),
                    )
                ),
                "sample": {"rows": sample.n_samples, "of": p.n_samples, "note": note},
            },
        )
        labels = np.where(by_score.y == 1, p.positive, p.negative)
        object.__setattr__(
            card, "train_metrics", card.metrics(by_score.X, labels, sample_weight=by_score.weight)
        )
        object.__setattr__(card, "risk", risk_rows(card, by_score, labels))
        problems = check_card(card, by_score, spec)
        if problems:
            raise RuntimeError(
                f"internal error: the card found on a sample breaks {problems} on all rows"
            )
        import warnings

        for text in card.details["box_limits"]:
            warnings.warn(text, BoxWarning, stacklevel=4)
        return card

    def _rows_by_score(self, coefs: np.ndarray) -> Dataset:
        """One pattern per total score with the weight of all rows that score so: every figure
        of the card (error, TPR, FPR, risk per score) is the same on it as on all rows."""
        scores = self.p.scores(coefs)
        values, first, inverse = np.unique(scores, return_index=True, return_inverse=True)
        pos = np.bincount(inverse.ravel(), self.p.pos, len(values))
        neg = np.bincount(inverse.ravel(), self.p.neg, len(values))
        return self.p.dataset(first, pos, neg)


#: ``fit`` reads a table of 0/1 rules with at least this many rows as weighted patterns
#: (bit-packed, grouped by hashing 64-bit words: no float copy of the table, no sort of rows)
LARGE_ROWS = 10_000


#: share of the time limit the reduction of a Dask frame may take: reading partitions and summing
#: their counts as they come (:func:`~slimwidgets.core.dask_rows.patterns_from_dask` stops at it and
#: keeps what it summed); the rest goes to the search and the card
REDUCTION_SHARE = 0.4


def read_large(
    X,
    y,
    *,
    positive=None,
    sample_weight=None,
    feature_names=None,
    time_limit: float | None = None,
    started: float | None = None,
) -> Patterns | None:
    """The weighted distinct patterns of a large table of 0/1 rules or of a Dask DataFrame,
    warned about as :func:`~slimwidgets.core.data.prepare_data` warns; None for anything else
    (which ``prepare_data`` reads as before). A Dask frame's partitions are read for at most
    ``REDUCTION_SHARE`` of ``time_limit`` from ``started``."""
    from ..core.patterns import patterns_of

    if is_dask(X):
        from ..core.dask_rows import patterns_from_dask

        started = time.perf_counter() if started is None else started
        deadline = math.inf if time_limit is None else started + REDUCTION_SHARE * time_limit
        found = patterns_from_dask(
            X, y, positive=positive, sample_weight=sample_weight, deadline=deadline
        )
    elif getattr(X, "shape", (0,))[0] < LARGE_ROWS:
        return None
    else:
        found = patterns_of(
            X, y, positive=positive, sample_weight=sample_weight, feature_names=feature_names
        )
    if found is not None:
        found.warn_about_columns()
    return found


def is_dask(X) -> bool:
    """A Dask collection, known without importing Dask (it is optional)."""
    return type(X).__module__.split(".")[0] in ("dask", "dask_expr")
