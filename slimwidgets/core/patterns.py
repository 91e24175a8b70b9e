"""Large tables of 0/1 rules as weighted distinct patterns, stored bit-packed.

SLIM's objective depends only on how much positive and negative weight shares each pattern
of rules, so a million rows reduce to their distinct patterns with two weights each. The
patterns are kept as bits (64 rules per ``uint64`` word: 10^6 rows of 50 rules take 8 MB
instead of the 400 MB of a float matrix) and unpacked only for the rows or the rules that
are needed: a sample to search on, or the few rules a card uses to re-score it.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .data import Dataset, DataWarning, feature_names_of, labels_to_sign, python_scalar

__all__ = ["Patterns", "pack_rules", "patterns_from_arrays", "patterns_of"]


@dataclass(frozen=True, eq=False)
class Patterns:
    """Distinct patterns of 0/1 rules, each with the weight of its positive and negative rows.

    Attributes
    ----------
    feature_names : tuple of str
    words : ndarray of shape (n_patterns, n_words), uint64
        Rule ``j`` of a pattern is bit ``j % 64`` of word ``j // 64``.
    pos, neg : ndarray of shape (n_patterns,)
        Total sample weight of the positive and of the negative rows with that pattern.
    n_samples : int
        Rows before the reduction.
    positive, negative : the two labels; outcome : the label column's name, if any.
    """

    feature_names: tuple[str, ...]
    words: np.ndarray
    pos: np.ndarray
    neg: np.ndarray
    n_samples: int
    positive: Any
    negative: Any
    outcome: str | None = None
    #: rows of the table when these patterns are those of a sample of it (a Dask frame with
    #: too many patterns to bring back), else None
    sampled_from: int | None = None
    #: (partitions read, partitions) when a Dask frame's reduction stopped at its deadline
    #: with some partitions unread (the patterns are those of the partitions read), else None
    partitions_read: tuple[int, int] | None = None

    @property
    def n_patterns(self) -> int:
        return int(self.words.shape[0])

    @property
    def n_cells(self) -> int:
        """Distinct (pattern, label) rows: the rows a :class:`Dataset` of them has."""
        return int(np.count_nonzero(self.pos > 0) + np.count_nonzero(self.neg > 0))

    def column(self, j: int, rows: np.ndarray | slice = slice(None)) -> np.ndarray:
        """Rule ``j`` of the patterns ``rows``, as uint8 0/1."""
        return ((self.words[rows, j // 64] >> np.uint64(j % 64)) & np.uint64(1)).astype(np.uint8)

    def scores(self, coefficients: Sequence[int] | np.ndarray) -> np.ndarray:
        """Each pattern's total points (int64), from the rules the card uses only."""
        total = np.zeros(self.n_patterns, dtype=np.int64)
        for j in np.flatnonzero(np.asarray(coefficients)):
            total += int(coefficients[j]) * self.column(int(j)).astype(np.int64)
        return total

    def dataset(
        self,
        rows: np.ndarray | None = None,
        pos: np.ndarray | None = None,
        neg: np.ndarray | None = None,
        n_samples: int | None = None,
        ordered: bool = True,
    ) -> Dataset:
        """The :class:`Dataset` of the patterns ``rows`` (all by default) with weights ``pos``
        and ``neg`` (theirs by default), rows in the order :func:`~.data.prepare_data` gives
        (sorted by rule values, then label: a fit on it is the fit on the raw rows) unless
        ``ordered=False``."""
        rows = np.arange(self.n_patterns) if rows is None else np.asarray(rows)
        pos = self.pos[rows] if pos is None else pos
        neg = self.neg[rows] if neg is None else neg
        has_pos, has_neg = rows[pos > 0], rows[neg > 0]
        take = np.concatenate([has_pos, has_neg])
        m = len(self.feature_names)
        # rule j is bit j % 64 of word j // 64: bit j of the words' little-endian bytes
        bits = np.unpackbits(
            np.ascontiguousarray(self.words[take], dtype="<u8").view(np.uint8),
            axis=1,
            bitorder="little",
        )[:, :m]
        y = np.concatenate([np.ones(len(has_pos), np.int8), -np.ones(len(has_neg), np.int8)])
        weight = np.concatenate([pos[pos > 0], neg[neg > 0]]).astype(float)
        order = np.lexsort((y,) + _sort_keys(bits)[::-1]) if ordered else slice(None)
        ones = np.ones(m, dtype=bool)
        return Dataset(
            self.feature_names,
            bits[order].astype(float),
            y[order],
            weight[order],
            self.n_samples if n_samples is None else n_samples,
            self.positive,
            self.negative,
            integer_valued=ones,
            binary=ones,
            outcome=self.outcome,
        )

    def sample(self, n_rows: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A class-stratified sample of about ``n_rows`` rows, drawn with probability proportional
        to weight: (pattern indices, positive counts, negative counts). Each class keeps its
        share of the total weight."""
        rng = np.random.default_rng(seed)
        total = float(self.pos.sum() + self.neg.sum())
        counts = []
        for w in (self.pos, self.neg):
            k = max(1, int(round(n_rows * float(w.sum()) / total)))
            counts.append(rng.multinomial(k, w / w.sum()))
        rows = np.flatnonzero((counts[0] > 0) | (counts[1] > 0))
        return rows, counts[0][rows].astype(float), counts[1][rows].astype(float)

    def warn_about_columns(self) -> None:
        """The :class:`DataWarning` s that :func:`~.data.prepare_data` gives, from the patterns:
        constant rules from the words' AND and OR, identical rules screened on the first
        patterns and confirmed on all."""
        live = (self.pos + self.neg) > 0
        words = self.words if live.all() else self.words[live]
        names = self.feature_names
        ones = np.bitwise_and.reduce(words, axis=0)
        some = np.bitwise_or.reduce(words, axis=0)
        bit = lambda w, j: bool((int(w[j // 64]) >> (j % 64)) & 1)  # noqa: E731
        constant = [n for j, n in enumerate(names) if bit(ones, j) or not bit(some, j)]
        head = Patterns(names, words[:1000], self.pos[:0], self.neg[:0], 0, None, None)
        seen: dict[bytes, list[int]] = {}
        dupes = []
        for j in range(len(names)):
            key = np.packbits(head.column(j)).tobytes()
            col = None
            for k in seen.get(key, []):  # the same on the first patterns: compare on all
                col = self.column(j, live) if col is None else col
                if np.array_equal(col, self.column(k, live)):
                    dupes.append(names[j])
                    break
            else:
                seen.setdefault(key, []).append(j)
        if constant:
            warnings.warn(
                f"constant columns carry no information and will never be used: {constant}",
                DataWarning,
                stacklevel=4,
            )
        if dupes:
            warnings.warn(
                f"columns identical to an earlier column (only one of each can matter): {dupes}",
                DataWarning,
                stacklevel=4,
            )


def _sort_keys(bits: np.ndarray) -> tuple[np.ndarray, ...]:
    """The 0/1 rows ``bits`` as a few uint64 sort keys, 64 rules a key, the first rule the most
    significant bit: sorting by them (first key first) sorts the rows as sorting by every rule
    (first rule first) does, in a handful of passes instead of one per rule."""
    packed = np.packbits(bits, axis=1, bitorder="big")
    packed = np.pad(packed, ((0, 0), (0, -packed.shape[1] % 8)))
    keys = np.ascontiguousarray(packed).view(">u8")
    return tuple(keys[:, i] for i in range(keys.shape[1]))


def _binary_column(values: np.ndarray) -> np.ndarray | None:
    """``values`` as uint8 when every one is 0 or 1 (False/True), else None."""
    if values.dtype == bool:
        return values.view(np.uint8)
    if values.dtype.kind not in "iuf":
        return None
    if values.dtype == np.uint8:
        return values if int(values.max(initial=0)) <= 1 else None
    ok = (values == 0) | (values == 1)
    return values.astype(np.uint8) if ok.all() else None


def pack_rules(columns: Sequence[np.ndarray], n_rows: int) -> np.ndarray | None:
    """Pack 0/1 columns into uint64 words, one byte of eight columns at a time (byte-wide
    operations, no row-by-rule copy of the table); None as soon as a column holds anything
    but 0 and 1 (or missing values)."""
    n_words = max(1, -(-len(columns) // 64))
    packed = [np.zeros(n_rows, np.uint8) for _ in range(8 * n_words)]
    for j, values in enumerate(columns):
        col = _binary_column(np.asarray(values))
        if col is None:
            return None
        packed[j // 8] |= col << np.uint8(j % 8)
    return np.stack(packed, axis=1).view("<u8")


def _group(
    words: np.ndarray, signs: np.ndarray, weights: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct rows of ``words`` with the positive and negative weight of each (hashing: linear
    in the rows, where sorting is not). Rows of several words are hashed to one word first, and
    the hash is checked: rows with one code must be equal (else one word at a time)."""
    if words.shape[1] == 1:
        codes, n_codes = _codes(words[:, 0])
    else:
        mixed = np.zeros(len(words), dtype=np.uint64)
        with np.errstate(over="ignore"):
            for w in range(words.shape[1]):
                mixed = (mixed ^ words[:, w]) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(w + 1)
        codes, n_codes = _codes(mixed)
        if not np.array_equal(
            words[_first_rows(codes, n_codes)][codes], words
        ):  # a collision: be exact
            codes, n_codes = _codes(words[:, 0])
            for w in range(1, words.shape[1]):
                more, n_more = _codes(words[:, w])
                codes, n_codes = _codes(codes.astype(np.int64) * n_more + more)
    pos = np.bincount(codes, weights=np.where(signs == 1, weights, 0.0), minlength=n_codes)
    neg = np.bincount(codes, weights=np.where(signs == 1, 0.0, weights), minlength=n_codes)
    return words[_first_rows(codes, n_codes)], pos, neg


def _codes(keys: np.ndarray) -> tuple[np.ndarray, int]:
    codes, uniques = pd.factorize(keys)
    return codes, len(uniques)


def _first_rows(codes: np.ndarray, n_codes: int) -> np.ndarray:
    first = np.empty(n_codes, dtype=np.int64)
    first[codes[::-1]] = np.arange(
        len(codes) - 1, -1, -1
    )  # the last write wins: each code's first row
    return first


def patterns_from_arrays(
    words: np.ndarray,
    signs: np.ndarray,
    weights: np.ndarray,
    names: tuple[str, ...],
    n_samples: int,
    positive: Any,
    negative: Any,
    outcome: str | None = None,
) -> Patterns:
    """Reduce packed rows (``words``, +1/-1 ``signs``, ``weights``) to their distinct patterns."""
    keep = weights > 0
    uniq, pos, neg = _group(words[keep], signs[keep], weights[keep])
    return Patterns(names, uniq, pos, neg, n_samples, positive, negative, outcome)


def _columns_and_names(
    X: Any, feature_names: Sequence[str] | None
) -> tuple[list[np.ndarray], tuple[str, ...]] | None:
    if isinstance(X, pd.DataFrame):
        if feature_names is not None and tuple(map(str, X.columns)) != tuple(
            map(str, feature_names)
        ):
            return None  # prepare_data says what is wrong
        return [X[c].to_numpy() for c in X.columns], feature_names_of(X.columns)
    raw = np.asarray(X)
    if raw.ndim != 2 or raw.dtype.kind not in "biuf":
        return None
    names = (
        tuple(f"x{j}" for j in range(raw.shape[1]))
        if feature_names is None
        else feature_names_of(feature_names)
    )
    if len(names) != raw.shape[1]:
        return None
    return [raw[:, j] for j in range(raw.shape[1])], names


def patterns_of(
    X: Any,
    y: Any,
    *,
    positive: Any = None,
    sample_weight: Any = None,
    feature_names: Sequence[str] | None = None,
) -> Patterns | None:
    """The weighted distinct patterns of a table of 0/1 rules, or None when ``X`` is not such a
    table (other values, missing values, no rows or columns): :func:`~.data.prepare_data` then
    reads it, and says what is wrong with it.

    Examples
    --------
    >>> import pandas as pd
    >>> p = patterns_of(pd.DataFrame({"a": [1, 1, 0, 0], "b": [0, 0, 1, 1]}), [1, 0, 0, 0])
    >>> p.n_patterns, p.pos.tolist(), p.neg.tolist()
    (2, [1.0, 0.0], [1.0, 2.0])
    """
    found = _columns_and_names(X, feature_names)
    if found is None or not found[0]:
        return None
    columns, names = found
    n = len(columns[0])
    signs, pos_label, neg_label = labels_to_sign(y, positive)
    if n == 0 or len(signs) != n:
        return None
    if sample_weight is None:
        weights = np.ones(n)
    else:
        weights = np.asarray(sample_weight, dtype=np.float64).ravel()
        if weights.shape != signs.shape or not np.isfinite(weights).all() or (weights < 0).any():
            return None
        if weights[signs == 1].sum() <= 0 or weights[signs == -1].sum() <= 0:
            return None
    words = pack_rules(columns, n)
    if words is None:
        return None
    outcome = None if getattr(y, "name", None) is None else str(y.name)
    return patterns_from_arrays(
        words, signs, weights, names, n, python_scalar(pos_label), python_scalar(neg_label), outcome
    )
