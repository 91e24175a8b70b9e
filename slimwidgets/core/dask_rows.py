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


def _partition_counts(frame: pd.DataFrame, names: tuple[str, ...], folds: int = 0, seed: int = 0,
                      partition_info: dict | None = None) -> pd.DataFrame:
    """One partition's (pattern words, label) -> summed weight; with ``folds``, each row is put
    in a fold at random first (seeded by ``seed`` and the partition's number) and the key is
    (pattern words, label, fold)."""
    rules = [c for c in frame.columns if c not in (_LABEL, _WEIGHT, _ROWS)]
    words = pack_rules([frame[c].to_numpy() for c in rules], len(frame))
    if words is None:
        bad = [str(c) for c in rules if pack_rules([frame[c].to_numpy()], len(frame)) is None]
        raise ValueError(f"columns {bad} hold values other than 0 and 1 (or missing values); a Dask DataFrame "
                         "is read as 0/1 rules: binarize it first (slimwidgets.binarize)")
    out = pd.DataFrame({f"w{k}": words[:, k].view(np.int64) for k in range(words.shape[1])})
    out[_LABEL] = frame[_LABEL].to_numpy()
    out[_WEIGHT] = frame[_WEIGHT].to_numpy(dtype=float) if _WEIGHT in frame else 1.0
    out[_ROWS] = 1
    if folds:
        number = 0 if partition_info is None else int(partition_info.get("number", 0))
        out[_FOLD] = np.random.default_rng([seed, number]).integers(0, folds, len(frame)).astype(np.int64)
    keys = [c for c in out.columns if c not in (_WEIGHT, _ROWS)]
    return out.groupby(keys, sort=False, as_index=False)[[_WEIGHT, _ROWS]].sum()


def _thinned(counts: pd.DataFrame, fraction: float, seed: int) -> pd.DataFrame:
    """A partition's counts after keeping each row with probability ``fraction``: a pattern of
    c rows keeps Binomial(c, fraction) of them (their weight in proportion), so no row is read
    again."""
    rng = np.random.default_rng([seed, len(counts), int(counts[_ROWS].sum())])
    kept = rng.binomial(counts[_ROWS].to_numpy(), fraction)
    out = counts.assign(**{_WEIGHT: counts[_WEIGHT].to_numpy() * kept / counts[_ROWS].to_numpy(), _ROWS: kept})
    return out[kept > 0]


def _check_columns(X: Any) -> tuple[str, ...]:
    names = feature_names_of(X.columns)
    bad = [str(c) for c, t in X.dtypes.items() if not (pd.api.types.is_numeric_dtype(t) or pd.api.types.is_bool_dtype(t))]
    if bad:
        raise TypeError(f"non-numeric columns: {bad}; encode them as 0/1 rules first (e.g. one column per category)")
    if not names:
        raise ValueError("X has no columns")
    return names


def patterns_from_dask(X: Any, y: Any, *, positive: Any = None, sample_weight: Any = None,
                       max_patterns: int | None = None, seed: int = 0, deadline: float = math.inf) -> Patterns:
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
    # the rows are read once: the counts serve the size check and the sum
    counts, read = _read_until(counts, meta, deadline)
    partial_rows, n_rows = dd.compute(counts.map_partitions(len).sum(), counts[_ROWS].sum())
    sampled_from = None
    if partial_rows > limit:  # too many patterns to bring back: reduce a sample of rows instead
        fraction = limit / max(int(partial_rows), 1)
        counts = counts.map_partitions(_thinned, fraction, seed, meta=meta)
        sampled_from = int(n_rows)
    table = counts.groupby(keys, sort=False)[[_WEIGHT, _ROWS]].sum().compute().reset_index()
    found = _to_patterns(table, names, positive, sampled_from, outcome=getattr(y, "name", None))
    return found if read[0] == read[1] else replace(found, partitions_read=read)


#: seconds between looks at the clock while the cluster reads partitions
POLL_SECONDS = 0.05


def _read_until(counts: Any, meta: pd.DataFrame, deadline: float) -> tuple[Any, tuple[int, int]]:
    """The per-partition counts, computed and kept on the cluster, of the partitions read by
    ``deadline`` (at least one): (their frame, (partitions read, partitions)). On a distributed
    cluster the partitions run at once and those unfinished at the deadline are cancelled;
    on Dask's local schedulers they run a few at a time, the clock looked at in between."""
    import dask.dataframe as dd

    parts = counts.to_delayed()
    if not math.isfinite(deadline):
        return counts.persist(), (len(parts), len(parts))
    try:
        from distributed import get_client

        client = get_client()
    except (ImportError, ValueError):
        client = None
    done = _futures_until(client, parts, deadline) if client is not None else _batches_until(parts, deadline)
    frame = dd.from_delayed(done, meta=meta, verify_meta=False)
    return (frame.persist() if client is None else frame), (len(done), len(parts))


def _futures_until(client: Any, parts: list, deadline: float) -> list:
    """The futures of the partitions finished by ``deadline`` (the first to finish at least);
    the others are cancelled."""
    from distributed import wait

    futures = client.compute(parts)
    while time.perf_counter() < deadline and not all(f.done() for f in futures):
        _settle(futures)
    if not any(f.done() for f in futures):
        wait(futures, return_when="FIRST_COMPLETED")
    done = [f for f in futures if f.done()]
    client.cancel([f for f in futures if not f.done()])
    return done


def _settle(futures: list) -> None:
    """Wait up to POLL_SECONDS for every future (a look at the clock in between)."""
    from distributed import wait

    try:
        wait(futures, timeout=POLL_SECONDS)
    except TimeoutError:
        pass


def _batches_until(parts: list, deadline: float) -> list:
    """Partitions computed a batch of one per core at a time until ``deadline`` (one batch at least)."""
    import dask

    step, done = max(1, os.cpu_count() or 1), []
    for start in range(0, len(parts), step):
        if done and time.perf_counter() >= deadline:
            break
        done.extend(dask.delayed(frame) for frame in dask.compute(*parts[start:start + step]))
    return done


def _labelled(X: Any, y: Any, sample_weight: Any) -> tuple[Any, tuple[str, ...]]:
    """``X`` with its rules named as ``fit`` names them, its labels and weights beside them."""
    import dask.dataframe as dd

    names = _check_columns(X)
    if not isinstance(y, dd.Series):
        raise TypeError("with a Dask DataFrame, y must be a Dask Series partitioned like it (e.g. frame['label'])")
    frame = X.rename(columns=dict(zip(X.columns, names))).assign(**{_LABEL: y})
    return (frame if sample_weight is None else frame.assign(**{_WEIGHT: sample_weight})), names


def _meta(n_rules: int, label_dtype: Any, folds: int = 0) -> pd.DataFrame:
    cols = {f"w{k}": pd.Series([], dtype=np.int64) for k in range(max(1, -(-n_rules // 64)))}
    fold = {_FOLD: pd.Series([], dtype=np.int64)} if folds else {}
    return pd.DataFrame({**cols, _LABEL: pd.Series([], dtype=label_dtype), **fold,
                         _WEIGHT: pd.Series([], dtype=float), _ROWS: pd.Series([], dtype=np.int64)})


def weighted_table(X: Any, y: Any, *, sample_weight: Any = None, folds: int = 0,
                   seed: int = 0) -> tuple[pd.DataFrame, pd.Series, np.ndarray, np.ndarray | None, int]:
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
        raise ValueError(f"the Dask frame has {len(table):,} distinct (rules, label{', fold' if folds else ''}) rows, "
                         f"more than the {MAX_TABLE_ROWS:,} this brings back as a table; fit one card with "
                         "slimwidgets.fit (it reduces any number of rows), or use fewer rules")
    words = np.ascontiguousarray(table[[c for c in table.columns if c.startswith("w")]].to_numpy(np.int64)).view(np.uint64)
    rules = pd.DataFrame({n: ((words[:, j // 64] >> np.uint64(j % 64)) & np.uint64(1)).astype(np.uint8)
                          for j, n in enumerate(names)})
    labels = pd.Series(table[_LABEL].to_numpy(), name=getattr(y, "name", None))
    fold = table[_FOLD].to_numpy() if folds else None
    return rules, labels, table[_WEIGHT].to_numpy(dtype=float), fold, int(table[_ROWS].sum())


def _to_patterns(table: pd.DataFrame, names: tuple[str, ...], positive: Any, sampled_from: int | None,
                 outcome: Any) -> Patterns:
    labels = table[_LABEL].to_numpy()
    signs, pos_label, neg_label = labels_to_sign(labels, positive)
    words = np.ascontiguousarray(table[[c for c in table.columns if c.startswith("w")]].to_numpy(np.int64)).view(np.uint64)
    found = patterns_from_arrays(words, signs, table[_WEIGHT].to_numpy(dtype=float), names, int(table[_ROWS].sum()),
                                 python_scalar(pos_label), python_scalar(neg_label),
                                 None if outcome is None else str(outcome))
    return replace(found, sampled_from=sampled_from)
