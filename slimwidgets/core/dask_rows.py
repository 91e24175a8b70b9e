"""A Dask DataFrame of 0/1 rules reduced to weighted distinct patterns on its cluster.

Each partition packs its rows into 64-bit words and counts the weight of each (pattern, label)
(:mod:`.patterns`); the cluster sums those counts by pattern (a group-by), and only the
distinct patterns come back. When even they are too many (random rules hardly repeat), the
reduction is of a sample of rows, drawn on the cluster, and the card says so. Dask is optional:
this module is imported only for a Dask frame.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from .data import feature_names_of, labels_to_sign, python_scalar
from .patterns import Patterns, pack_rules, patterns_from_arrays

__all__ = ["patterns_from_dask", "weighted_table", "MAX_PATTERNS", "MAX_TABLE_ROWS"]

#: distinct patterns brought back from the cluster at most; past it, a sample of rows is reduced
MAX_PATTERNS = 2_000_000
_LABEL, _WEIGHT, _ROWS = "__slimwidgets_label__", "__slimwidgets_weight__", "__slimwidgets_rows__"
_FOLD = "__slimwidgets_fold__"
#: distinct (pattern, label, fold) rows that fit_cv and the sweeps bring back from the cluster
#: at most (they fit them as a weighted table)
MAX_TABLE_ROWS = 200_000


def _partition_counts(
    frame: pd.DataFrame,
    names: tuple[str, ...],
    folds: int = 0,
    seed: int = 0,
    partition_info: dict | None = None,
) -> pd.DataFrame:
    """One partition's (pattern words, label) -> summed weight; with ``folds``, each row is put
    in a fold at random first (seeded by ``seed`` and the partition's number) and the key is
    (pattern words, label, fold)."""
    rules = [c for c in frame.columns if c not in (_LABEL, _WEIGHT, _ROWS)]
    words = pack_rules([frame[c].to_numpy() for c in rules], len(frame))
    if words is None:
        bad = [str(c) for c in rules if pack_rules([frame[c].to_numpy()], len(frame)) is None]
        raise ValueError(
            f"columns {bad} hold values other than 0 and 1 (or missing values); a Dask DataFrame "
            "is read as 0/1 rules: binarize it first (slimwidgets.binarize)"
        )
    out = pd.DataFrame({f"w{k}": words[:, k].view(np.int64) for k in range(words.shape[1])})
    out[_LABEL] = frame[_LABEL].to_numpy()
    out[_WEIGHT] = frame[_WEIGHT].to_numpy(dtype=float) if _WEIGHT in frame else 1.0
    out[_ROWS] = 1
    if folds:
        number = 0 if partition_info is None else int(partition_info.get("number", 0))
        out[_FOLD] = (
            np.random.default_rng([seed, number]).integers(0, folds, len(frame)).astype(np.int64)
        )
    keys = [c for c in out.columns if c not in (_WEIGHT, _ROWS)]
    return out.groupby(keys, sort=False, as_index=False)[[_WEIGHT, _ROWS]].sum()


def _thinned(counts: pd.DataFrame, fraction: float, seed: int) -> pd.DataFrame:
    """A partition's counts after keeping each row with probability ``fraction``: a pattern of
    c rows keeps Binomial(c, fraction) of them (their weight in proportion), so no row is read
    again."""
    rng = np.random.default_rng([seed, len(counts), int(counts[_ROWS].sum())])
    kept = rng.binomial(counts[_ROWS].to_numpy(), fraction)
    out = counts.assign(
        **{_WEIGHT: counts[_WEIGHT].to_numpy() * kept / counts[_ROWS].to_numpy(), _ROWS: kept}
    )
    return out[kept > 0]


def _check_columns(X: Any) -> tuple[str, ...]:
    names = feature_names_of(X.columns)
    bad = [
        str(c)
        for c, t in X.dtypes.items()
        if not (pd.api.types.is_numeric_dtype(t) or pd.api.types.is_bool_dtype(t))
    ]
    if bad:
        raise TypeError(
            f"non-numeric columns: {bad}; encode them as 0/1 rules first (e.g. one column per "
            "category)"
        )
    if not names:
        raise ValueError("X has no columns")
    return names


def patterns_from_dask(
    X: Any,
    y: Any,
    *,
    positive: Any = None,
    sample_weight: Any = None,
    max_patterns: int | None = None,
    seed: int = 0,
    deadline: float = math.inf,
) -> Patterns:
    """The weighted distinct patterns of a Dask DataFrame ``X`` of 0/1 rules with labels ``y``
    (a Dask Series partitioned like ``X``), reduced on the cluster.

    When the rows have more than ``max_patterns`` distinct patterns, the patterns are those of
    a sample of rows drawn on the cluster; ``Patterns.sampled_from`` then holds the number of
    rows it was drawn from. The partitions are read until ``time.perf_counter()`` passes
    ``deadline`` (at least one is read); the patterns are then those of the partitions read,
    and ``Patterns.partitions_read`` says how many of how many.
    """
    import dask.dataframe as dd

    frame, names = _labelled(X, y, sample_weight)
    limit = MAX_PATTERNS if max_patterns is None else max_patterns
    meta = _meta(len(names), y.dtype)
    counts = frame.map_partitions(_partition_counts, names, meta=meta)
    keys = [c for c in counts.columns if c not in (_WEIGHT, _ROWS)]
    if math.isfinite(deadline):  # summed on this side as the partitions come, until the deadline
        summed = _reduce_until(counts, _RunningSum(keys, limit, seed), deadline)
        found = _to_patterns(
            summed.table, names, positive, summed.sampled_from(), outcome=getattr(y, "name", None)
        )
        return (
            found
            if summed.read[0] == summed.read[1]
            else replace(found, partitions_read=summed.read)
        )
    counts = counts.persist()  # the rows are read once: the counts serve the size check and the sum
    partial_rows, n_rows = dd.compute(counts.map_partitions(len).sum(), counts[_ROWS].sum())
    sampled_from = None
    if partial_rows > limit:  # too many patterns to bring back: reduce a sample of rows instead
        fraction = limit / max(int(partial_rows), 1)
        counts = counts.map_partitions(_thinned, fraction, seed, meta=meta)
        sampled_from = int(n_rows)
    table = counts.groupby(keys, sort=False)[[_WEIGHT, _ROWS]].sum().compute().reset_index()
    return _to_patterns(table, names, positive, sampled_from, outcome=getattr(y, "name", None))


class _RunningSum:
    """The counts of the partitions reduced so far, summed by (pattern, label) as each one comes,
    so that whatever the deadline leaves is a finished reduction. Past ``limit`` distinct rows
    every row is kept with a falling probability ``fraction`` (binomial thinning composes: the
    table's rows kept and the next partitions' rows are thinned alike), so the table is a
    Bernoulli sample of the rows read. ``seconds`` is the longest one sum took (the pace)."""

    def __init__(self, keys: list[str], limit: int, seed: int):
        self.keys, self.limit, self.seed = keys, limit, seed
        self.table: pd.DataFrame | None = None
        self.fraction, self.rows_read, self.seconds, self.read = 1.0, 0, 0.0, (0, 0)

    def add(self, counts: pd.DataFrame) -> None:
        """Sum one partition's counts into the table (thinned as the rows before it were)."""
        t = time.perf_counter()
        self.rows_read += int(counts[_ROWS].sum())
        if self.fraction < 1.0:
            counts = _thinned(counts, self.fraction, self.seed + self.read[0])
        both = counts if self.table is None else pd.concat([self.table, counts], ignore_index=True)
        self.table = both.groupby(self.keys, sort=False, as_index=False)[[_WEIGHT, _ROWS]].sum()
        if len(self.table) > self.limit:  # too many to bring back: thin all rows read so far
            keep = self.limit / len(self.table)
            self.table = _thinned(self.table, keep, self.seed + self.read[0])
            self.fraction *= keep
            # patterns of many rows stay whatever the thinning: those are the data's, keep them
            # (and do not thin again for them alone, or every next partition would be thinned)
            self.limit = max(self.limit, len(self.table))
        self.read = (self.read[0] + 1, self.read[1])
        self.seconds = max(self.seconds, time.perf_counter() - t)

    def sampled_from(self) -> int | None:
        """The rows the sample was drawn from (None: every row read is in the table)."""
        return None if self.fraction >= 1.0 else self.rows_read


def _reduce_until(counts: Any, summed: _RunningSum, deadline: float) -> _RunningSum:
    """Partitions reduced and summed until ``deadline`` (one at least), the rest not read: on a
    distributed cluster all run at once and those unfinished then are cancelled; on Dask's local
    schedulers a batch of one per core at a time, none started that the pace measured so far
    (reading a batch and summing it) would end past the deadline."""
    parts = counts.to_delayed()
    summed.read = (0, len(parts))
    try:
        from distributed import get_client

        client = get_client()
    except (ImportError, ValueError):
        client = None
    if client is not None:
        _futures_until(client, parts, summed, deadline)
    else:
        _batches_until(parts, summed, deadline)
    return summed


#: seconds between looks at the clock while the cluster reads partitions
POLL_SECONDS = 0.05


def _futures_until(client: Any, parts: list, summed: _RunningSum, deadline: float) -> None:
    """Sum the partitions as they finish until ``deadline`` (the first to finish at least, and
    none whose sum, at the pace measured, would end past it); cancel the others."""
    from distributed import wait

    futures, taken = client.compute(parts), set()
    while len(taken) < len(futures) and (not taken or time.perf_counter() < deadline):
        if not taken and not any(f.done() for f in futures):
            wait(futures, return_when="FIRST_COMPLETED")
        for i, f in enumerate(futures):
            if (
                f.done()
                and i not in taken
                and (not taken or time.perf_counter() + summed.seconds < deadline)
            ):
                summed.add(f.result())
                taken.add(i)
        if len(taken) < len(futures) and time.perf_counter() < deadline:
            _settle([f for i, f in enumerate(futures) if i not in taken])
    client.cancel([f for i, f in enumerate(futures) if i not in taken])


def _settle(futures: list) -> None:
    """Wait up to POLL_SECONDS for every future (a look at the clock in between)."""
    from distributed import wait

    try:
        wait(futures, timeout=POLL_SECONDS)
    except TimeoutError:
        pass


def _batches_until(parts: list, summed: _RunningSum, deadline: float) -> None:
    """Partitions computed a batch of one per core at a time and summed, until ``deadline`` (one
    batch at least; none started that the slowest batch so far would end past it)."""
    import dask

    step, slowest = max(1, os.cpu_count() or 1), 0.0
    for start in range(0, len(parts), step):
        if summed.read[0] and time.perf_counter() + slowest >= deadline:
            break
        t = time.perf_counter()
        for frame in dask.compute(*parts[start : start + step]):
            summed.add(frame)
        slowest = max(slowest, time.perf_counter() - t)


def _labelled(X: Any, y: Any, sample_weight: Any) -> tuple[Any, tuple[str, ...]]:
    """``X`` with its rules named as ``fit`` names them, its labels and weights beside them."""
    import dask.dataframe as dd

    names = _check_columns(X)
    if not isinstance(y, dd.Series):
        raise TypeError(
            "with a Dask DataFrame, y must be a Dask Series partitioned like it (e.g. "
            "frame['label'])"
        )
    frame = X.rename(columns=dict(zip(X.columns, names))).assign(**{_LABEL: y})
    return (frame if sample_weight is None else frame.assign(**{_WEIGHT: sample_weight})), names


def _meta(n_rules: int, label_dtype: Any, folds: int = 0) -> pd.DataFrame:
    cols = {f"w{k}": pd.Series([], dtype=np.int64) for k in range(max(1, -(-n_rules // 64)))}
    fold = {_FOLD: pd.Series([], dtype=np.int64)} if folds else {}
    return pd.DataFrame(
        {
            **cols,
            _LABEL: pd.Series([], dtype=label_dtype),
            **fold,
            _WEIGHT: pd.Series([], dtype=float),
            _ROWS: pd.Series([], dtype=np.int64),
        }
    )


def weighted_table(
    X: Any, y: Any, *, sample_weight: Any = None, folds: int = 0, seed: int = 0
) -> tuple[pd.DataFrame, pd.Series, np.ndarray, np.ndarray | None, int]:
    """A Dask DataFrame of 0/1 rules as a small weighted pandas table, reduced on the cluster:
    its distinct (pattern, label) rows, or with ``folds`` its distinct (pattern, label, fold)
    rows, each row of the frame put in one of ``folds`` folds at random (seeded). Returns (0/1
    rules, labels, weights, fold per row or None, rows of the frame). A fit or a fold's test
    error on it is the one on the frame's rows (both are sums of row weights).

    Raises ValueError when there are more than ``MAX_TABLE_ROWS`` distinct rows."""
    frame, names = _labelled(X, y, sample_weight)
    meta = _meta(len(names), y.dtype, folds)
    counts = frame.map_partitions(_partition_counts, names, folds, seed, meta=meta)
    keys = [c for c in counts.columns if c not in (_WEIGHT, _ROWS)]
    table = counts.groupby(keys, sort=False)[[_WEIGHT, _ROWS]].sum().compute().reset_index()
    if len(table) > MAX_TABLE_ROWS:
        raise ValueError(
            f"the Dask frame has {len(table):,} distinct (rules, "
            f"label{', fold' if folds else ''}) rows, more than the {MAX_TABLE_ROWS:,} this "
            "brings back as a table; fit one card with slimwidgets.fit (it reduces any "
            "number of rows), or use fewer rules"
        )
    words = np.ascontiguousarray(
        table[[c for c in table.columns if c.startswith("w")]].to_numpy(np.int64)
    ).view(np.uint64)
    rules = pd.DataFrame(
        {
            n: ((words[:, j // 64] >> np.uint64(j % 64)) & np.uint64(1)).astype(np.uint8)
            for j, n in enumerate(names)
        }
    )
    labels = pd.Series(table[_LABEL].to_numpy(), name=getattr(y, "name", None))
    fold = table[_FOLD].to_numpy() if folds else None
    return rules, labels, table[_WEIGHT].to_numpy(dtype=float), fold, int(table[_ROWS].sum())


def _to_patterns(
    table: pd.DataFrame,
    names: tuple[str, ...],
    positive: Any,
    sampled_from: int | None,
    outcome: Any,
) -> Patterns:
    labels = table[_LABEL].to_numpy()
    signs, pos_label, neg_label = labels_to_sign(labels, positive)
    words = np.ascontiguousarray(
        table[[c for c in table.columns if c.startswith("w")]].to_numpy(np.int64)
    ).view(np.uint64)
    found = patterns_from_arrays(
        words,
        signs,
        table[_WEIGHT].to_numpy(dtype=float),
        names,
        int(table[_ROWS].sum()),
        python_scalar(pos_label),
        python_scalar(neg_label),
        None if outcome is None else str(outcome),
    )
    return replace(found, sampled_from=sampled_from)
