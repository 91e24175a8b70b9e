"""A Dask DataFrame of 0/1 rules reduced to weighted distinct patterns on its cluster.

Each partition packs its rows into 64-bit words and counts the weight of each (pattern, label)
(:mod:`.patterns`); the cluster sums those counts by pattern (a group-by), and only the
distinct patterns come back. When even they are too many (random rules hardly repeat), the
reduction is of a sample of rows, drawn on the cluster, and the card says so. Dask is optional:
this module is imported only for a Dask frame.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from .data import feature_names_of, labels_to_sign, python_scalar
from .patterns import Patterns, pack_rules, patterns_from_arrays

__all__ = ["patterns_from_dask", "MAX_PATTERNS"]

#: distinct patterns brought back from the cluster at most; past it, a sample of rows is reduced
MAX_PATTERNS = 2_000_000
_LABEL, _WEIGHT, _ROWS = "__slimwidgets_label__", "__slimwidgets_weight__", "__slimwidgets_rows__"


def _partition_counts(frame: pd.DataFrame, names: tuple[str, ...]) -> pd.DataFrame:
    """One partition's (pattern words, label) -> summed weight."""
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
                       max_patterns: int | None = None, seed: int = 0) -> Patterns:
    """The weighted distinct patterns of a Dask DataFrame ``X`` of 0/1 rules with labels ``y``
    (a Dask Series partitioned like ``X``), reduced on the cluster.

    When the rows have more than ``max_patterns`` distinct patterns, the patterns are those of
    a sample of rows drawn on the cluster; ``Patterns.sampled_from`` then holds the number of
    rows it was drawn from.
    """
    import dask.dataframe as dd

    names = _check_columns(X)
    if not isinstance(y, dd.Series):
        raise TypeError("with a Dask DataFrame, y must be a Dask Series partitioned like it (e.g. frame['label'])")
    frame = X.rename(columns=dict(zip(X.columns, names))).assign(**{_LABEL: y})
    if sample_weight is not None:
        frame = frame.assign(**{_WEIGHT: sample_weight})
    limit = MAX_PATTERNS if max_patterns is None else max_patterns
    meta = _meta(len(names), y.dtype)
    counts = frame.map_partitions(_partition_counts, names, meta=meta)
    keys = [c for c in counts.columns if c not in (_WEIGHT, _ROWS)]
    counts = counts.persist()  # the rows are read once: the counts serve the size check and the sum
    partial_rows, n_rows = dd.compute(counts.map_partitions(len).sum(), counts[_ROWS].sum())
    sampled_from = None
    if partial_rows > limit:  # too many patterns to bring back: reduce a sample of rows instead
        fraction = limit / max(int(partial_rows), 1)
        counts = counts.map_partitions(_thinned, fraction, seed, meta=meta)
        sampled_from = int(n_rows)
    table = counts.groupby(keys, sort=False)[[_WEIGHT, _ROWS]].sum().compute().reset_index()
    return _to_patterns(table, names, positive, sampled_from, outcome=getattr(y, "name", None))


def _meta(n_rules: int, label_dtype: Any) -> pd.DataFrame:
    cols = {f"w{k}": pd.Series([], dtype=np.int64) for k in range(max(1, -(-n_rules // 64)))}
    return pd.DataFrame({**cols, _LABEL: pd.Series([], dtype=label_dtype), _WEIGHT: pd.Series([], dtype=float),
                         _ROWS: pd.Series([], dtype=np.int64)})


def _to_patterns(table: pd.DataFrame, names: tuple[str, ...], positive: Any, sampled_from: int | None,
                 outcome: Any) -> Patterns:
    labels = table[_LABEL].to_numpy()
    signs, pos_label, neg_label = labels_to_sign(labels, positive)
    words = np.ascontiguousarray(table[[c for c in table.columns if c.startswith("w")]].to_numpy(np.int64)).view(np.uint64)
    found = patterns_from_arrays(words, signs, table[_WEIGHT].to_numpy(dtype=float), names, int(table[_ROWS].sum()),
                                 python_scalar(pos_label), python_scalar(neg_label),
                                 None if outcome is None else str(outcome))
    return replace(found, sampled_from=sampled_from)
