"""Compiled inner loops of the local search (numba).

They release the GIL, so a search can run on one core while HiGHS (which also
releases it) runs on the other, and the kernel's main thread stays responsive.

``coordinate_losses`` is the hot spot: for one coefficient it tries every
allowed value, moving only the rows where that feature is non-zero between
intercept-histogram bins, and scans the intercept range for the best loss.

A positive row is right iff its total ``score + intercept >= gamma_pos`` and a negative one
iff it is ``<= -gamma_neg`` (the formulation's ``positive_margin`` and ``margin``): with the
default rule gamma_pos = 0, under the paper's (a zero total is an error) gamma_pos = gamma_neg.

Compiling them takes 5-30 s; numba caches the machine code (beside this file, or under
``NUMBA_CACHE_DIR``), so only the first process pays, and :func:`ensure_compiled` says so on
stderr when it does. Where no cache folder is writable the kernels compile in every process.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable

import numpy as np

from .._jit import njit  # numba's, cached where a cache folder is writable

#: said on stderr when the kernels are compiled rather than loaded from the cache
COMPILE_NOTE = (
    "slimwidgets: compiling the search kernels, once: ~20 s (later runs load them from the cache)"
)
COMPILE_NOTE_NO_CACHE = (
    "slimwidgets: compiling the search kernels: ~20 s (no writable cache folder: in every process)"
)


@njit(nogil=True)
def _loss_at(cum_hp, cum_hn, cum_cp, cum_cn, Wp, Dp, pos_budget, neg_budget, big):
    loss = (Wp - cum_hp) + cum_hn
    if pos_budget >= 0.0:
        excess = (Dp - cum_cp) - pos_budget
        if excess > 1e-9:
            loss += big * (1.0 + excess)
    if neg_budget >= 0.0:
        excess = cum_cn - neg_budget
        if excess > 1e-9:
            loss += big * (1.0 + excess)
    return loss


@njit(nogil=True)
def _scan(hp, hn, cp, cn, Wp, Dp, R, pos_budget, neg_budget, big, lo=0, hi=-1):
    """Best intercept index and its loss (+ cap penalty) from the four histograms.

    With every row's bin in [lo, hi], only index 0 and the indices lo..hi need a look: below
    lo nothing is counted yet (the same loss as index 0) and above hi nothing changes, so the
    result, first best included, is that of a scan over every index (hi = -1: all of them).
    """
    if hi < 0 or hi > R - 1:
        hi = R - 1
    best = 0
    best_loss = math.inf
    if lo > 0:
        best_loss = _loss_at(0.0, 0.0, 0.0, 0.0, Wp, Dp, pos_budget, neg_budget, big)
    cum_hp = 0.0
    cum_hn = 0.0
    cum_cp = 0.0
    cum_cn = 0.0
    for b in range(lo, hi + 1):
        cum_hp += hp[b]
        cum_hn += hn[b]
        cum_cp += cp[b]
        cum_cn += cn[b]
        loss = _loss_at(cum_hp, cum_hn, cum_cp, cum_cn, Wp, Dp, pos_budget, neg_budget, big)
        if loss < best_loss:
            best_loss = loss
            best = b
    return best, best_loss


@njit(nogil=True)
def _pos_bin(score, gamma_pos, ilo, R):
    v = math.ceil(gamma_pos - score - 1e-9) - ilo
    return 0 if v < 0 else (R if v > R else int(v))


@njit(nogil=True)
def _neg_bin(score, gamma_neg, ilo, R):
    v = math.floor(-gamma_neg - score + 1e-9) - ilo + 1
    return 0 if v < 0 else (R if v > R else int(v))


@njit(nogil=True)
def histograms(s_pos, s_neg, w_pos, w_neg, d_pos, d_neg, gamma_pos, gamma_neg, ilo, R):
    """Bins of every row for the scores s, and the four weighted histograms."""
    a = np.empty(s_pos.size, np.int64)
    c = np.empty(s_neg.size, np.int64)
    hp = np.zeros(R + 1)
    hn = np.zeros(R + 1)
    cp = np.zeros(R + 1)
    cn = np.zeros(R + 1)
    for i in range(s_pos.size):
        a[i] = _pos_bin(s_pos[i], gamma_pos, ilo, R)
        hp[a[i]] += w_pos[i]
        cp[a[i]] += d_pos[i]
    for i in range(s_neg.size):
        c[i] = _neg_bin(s_neg[i], gamma_neg, ilo, R)
        hn[c[i]] += w_neg[i]
        cn[c[i]] += d_neg[i]
    return a, c, hp, hn, cp, cn


@njit(nogil=True)
def best_intercept(hp, hn, cp, cn, Wp, Dp, ilo, R, pos_budget, neg_budget, big):
    b, loss = _scan(hp, hn, cp, cn, Wp, Dp, R, pos_budget, neg_budget, big)
    return b + ilo, loss


@njit(nogil=True)
def _occupied(hp, hn, cp, cn, R):
    """The lowest and highest bin holding any weight (R + 1, -1 when none does)."""
    lo = R + 1
    hi = -1
    for b in range(R + 1):
        if hp[b] != 0.0 or hn[b] != 0.0 or cp[b] != 0.0 or cn[b] != 0.0:
            if b < lo:
                lo = b
            hi = b
    return lo, hi


@njit(nogil=True)
def _buffers(k, R):
    """Outputs for k deltas (intercept, loss) and four working histograms."""
    return (
        np.empty(k, np.int64),
        np.empty(k),
        np.empty(R + 1),
        np.empty(R + 1),
        np.empty(R + 1),
        np.empty(R + 1),
    )


@njit(nogil=True)
def _move_rows(h, ch, rows, old_bins, new_bins, w, d):
    """Move rows[q] from bin old_bins[rows[q]] to new_bins[q] in the histograms h (w) and ch (d)."""
    for q in range(rows.size):
        i = rows[q]
        new = new_bins[q]
        old = old_bins[i]
        if new != old:
            h[old] -= w[i]
            h[new] += w[i]
            ch[old] -= d[i]
            ch[new] += d[i]


@njit(nogil=True)
def coordinate_losses(
    deltas,
    rp,
    xp,
    rn,
    xn,
    s_pos,
    s_neg,
    a,
    c,
    w_pos,
    w_neg,
    d_pos,
    d_neg,
    hp0,
    hn0,
    cp0,
    cn0,
    Wp,
    Dp,
    gamma_pos,
    gamma_neg,
    ilo,
    R,
    pos_budget,
    neg_budget,
    big,
    single=0.0,
):
    """For each delta: best intercept and loss after adding delta * x_j to every score.

    Only the bins between the lowest and highest occupied one are copied and scanned (the
    moved rows' new bins widen that window): the result is that of a full scan.
    ``single`` != 0 says that x_j is ``single`` on every moved row and that it and the deltas
    are integers: then see ``_shifted_losses``.
    """
    if single != 0.0 and rp.size + rn.size > 64:
        out = _shifted_losses(
            deltas,
            single,
            rp,
            rn,
            s_pos,
            s_neg,
            a,
            c,
            w_pos,
            w_neg,
            d_pos,
            d_neg,
            hp0,
            hn0,
            cp0,
            cn0,
            Wp,
            Dp,
            gamma_pos,
            gamma_neg,
            ilo,
            R,
            pos_budget,
            neg_budget,
            big,
        )
        if out[0].size:
            return out
    k = deltas.size
    out_b, out_loss, hp, hn, cp, cn = _buffers(k, R)
    lo0, hi0 = _occupied(hp0, hn0, cp0, cn0, R)
    new_p = np.empty(rp.size, np.int64)
    new_n = np.empty(rn.size, np.int64)
    for t in range(k):
        d = deltas[t]
        lo = lo0
        hi = hi0
        if d != 0.0:
            for q in range(rp.size):
                new = _pos_bin(s_pos[rp[q]] + d * xp[q], gamma_pos, ilo, R)
                new_p[q] = new
                lo = min(lo, new)
                hi = max(hi, new)
            for q in range(rn.size):
                new = _neg_bin(s_neg[rn[q]] + d * xn[q], gamma_neg, ilo, R)
                new_n[q] = new
                lo = min(lo, new)
                hi = max(hi, new)
        if hi < lo:  # no weight anywhere
            lo = 0
            hi = 0
        for b in range(lo, hi + 1):
            hp[b] = hp0[b]
            hn[b] = hn0[b]
            cp[b] = cp0[b]
            cn[b] = cn0[b]
        if d != 0.0:
            _move_rows(hp, cp, rp, a, new_p, w_pos, d_pos)
            _move_rows(hn, cn, rn, c, new_n, w_neg, d_neg)
        b, loss = _scan(hp, hn, cp, cn, Wp, Dp, R, pos_budget, neg_budget, big, lo, hi)
        out_b[t] = b + ilo
        out_loss[t] = loss
    return out_b, out_loss


@njit(nogil=True)
def _clamp(v, R):
    return 0 if v < 0 else (R if v > R else v)


@njit(nogil=True)
def _take_out(h, ch, rows, bins, raw, lo_raw, span, w, d):
    """Remove rows from the histograms h (w) and ch (d); return their own, by unclamped bin."""
    own = np.zeros(span)
    own_d = np.zeros(span)
    for q in range(rows.size):
        i = rows[q]
        h[bins[i]] -= w[i]
        ch[bins[i]] -= d[i]
        own[raw[q] - lo_raw] += w[i]
        own_d[raw[q] - lo_raw] += d[i]
    return own, own_d


@njit(nogil=True)
def _shifted_losses(
    deltas,
    single,
    rp,
    rn,
    s_pos,
    s_neg,
    a,
    c,
    w_pos,
    w_neg,
    d_pos,
    d_neg,
    hp0,
    hn0,
    cp0,
    cn0,
    Wp,
    Dp,
    gamma_pos,
    gamma_neg,
    ilo,
    R,
    pos_budget,
    neg_budget,
    big,
):
    """``coordinate_losses`` when every moved row has the same integer x_j (a binary rule).

    The deltas are integers (points), so adding delta * x_j moves every moved row's unclamped
    bin by the same integer, whatever the scores (ceil(t - k) = ceil(t) - k), so the
    moved rows are binned once (by unclamped bin) and each delta only adds that small histogram,
    shifted, to the histograms of the other rows: per delta the cost is the span of the moved
    rows' bins, not their number. Returns empty arrays when the span is too wide to pay.
    """
    k = deltas.size
    lo_raw = 1 << 62
    hi_raw = -(1 << 62)
    raw_p = np.empty(rp.size, np.int64)
    raw_n = np.empty(rn.size, np.int64)
    for q in range(rp.size):
        raw_p[q] = math.ceil(gamma_pos - s_pos[rp[q]] - 1e-9) - ilo
        lo_raw = min(lo_raw, raw_p[q])
        hi_raw = max(hi_raw, raw_p[q])
    for q in range(rn.size):
        raw_n[q] = math.floor(-gamma_neg - s_neg[rn[q]] + 1e-9) - ilo + 1
        lo_raw = min(lo_raw, raw_n[q])
        hi_raw = max(hi_raw, raw_n[q])
    span = hi_raw - lo_raw + 1
    if span > 4 * (R + 1) or span > rp.size + rn.size:
        return np.empty(0, np.int64), np.empty(0)
    # the other rows' histograms, and the moved rows' own, by unclamped bin
    hp_rest = hp0.copy()
    hn_rest = hn0.copy()
    cp_rest = cp0.copy()
    cn_rest = cn0.copy()
    sp, scp = _take_out(hp_rest, cp_rest, rp, a, raw_p, lo_raw, span, w_pos, d_pos)
    sn, scn = _take_out(hn_rest, cn_rest, rn, c, raw_n, lo_raw, span, w_neg, d_neg)
    lo0, hi0 = _occupied(hp_rest, hn_rest, cp_rest, cn_rest, R)
    out_b, out_loss, hp, hn, cp, cn = _buffers(k, R)
    for t in range(k):
        shift = int(round(deltas[t] * single))  # scores rise by this, so bins fall by it
        lo = min(lo0, _clamp(lo_raw - shift, R))
        hi = max(hi0, _clamp(hi_raw - shift, R))
        for b in range(lo, hi + 1):
            hp[b] = hp_rest[b]
            hn[b] = hn_rest[b]
            cp[b] = cp_rest[b]
            cn[b] = cn_rest[b]
        for r in range(span):
            b = _clamp(r + lo_raw - shift, R)
            hp[b] += sp[r]
            hn[b] += sn[r]
            cp[b] += scp[r]
            cn[b] += scn[r]
        b, loss = _scan(hp, hn, cp, cn, Wp, Dp, R, pos_budget, neg_budget, big, lo, hi)
        out_b[t] = b + ilo
        out_loss[t] = loss
    return out_b, out_loss


@njit(nogil=True)
def walk_support(
    X_pos,
    X_neg,
    vals,
    nvals,
    s0_pos,
    s0_neg,
    w_pos,
    w_neg,
    d_pos,
    d_neg,
    Wp,
    Dp,
    gamma_pos,
    gamma_neg,
    ilo,
    R,
    pos_budget,
    neg_budget,
    big,
    eps,
    l1_mask,
    vcost,
    single=0.0,
):
    """Best card on one support: every combination of the allowed non-zero values.

    X_pos/X_neg hold the support's columns (rows of each class), vals[t, :nvals[t]] the
    allowed non-zero values of coordinate t, s0_* the scores of the fixed (locked)
    points. The first k-1 coordinates run through all combinations (an odometer);
    the last one is scored for all its values at once, as in ``coordinate_losses``.
    vcost[t, q] is a cost of value q of coordinate t (PILM tiers; zeros otherwise).
    ``single`` is passed on to ``coordinate_losses`` for the last coordinate.
    Returns (best loss + eps * L1 + value costs, value index per coordinate, intercept).
    """
    k = X_pos.shape[1]
    idx = np.zeros(k, np.int64)
    best_total = math.inf
    best_idx = np.zeros(k, np.int64)
    best_b = 0
    n_p = s0_pos.size
    n_n = s0_neg.size
    s_pos = np.empty(n_p)
    s_neg = np.empty(n_n)
    last = k - 1
    rp = np.flatnonzero(X_pos[:, last])
    rn = np.flatnonzero(X_neg[:, last])
    xp = X_pos[rp, last].copy()
    xn = X_neg[rn, last].copy()
    deltas = vals[last, : nvals[last]].astype(np.float64)
    while True:
        l1_head = 0.0
        cost_head = 0.0
        for i in range(n_p):
            s_pos[i] = s0_pos[i]
        for i in range(n_n):
            s_neg[i] = s0_neg[i]
        for t in range(last):
            v = vals[t, idx[t]]
            if l1_mask[t]:
                l1_head += abs(v)
            cost_head += vcost[t, idx[t]]
            for i in range(n_p):
                s_pos[i] += v * X_pos[i, t]
            for i in range(n_n):
                s_neg[i] += v * X_neg[i, t]
        a, c, hp0, hn0, cp0, cn0 = histograms(
            s_pos, s_neg, w_pos, w_neg, d_pos, d_neg, gamma_pos, gamma_neg, ilo, R
        )
        bs, losses = coordinate_losses(
            deltas,
            rp,
            xp,
            rn,
            xn,
            s_pos,
            s_neg,
            a,
            c,
            w_pos,
            w_neg,
            d_pos,
            d_neg,
            hp0,
            hn0,
            cp0,
            cn0,
            Wp,
            Dp,
            gamma_pos,
            gamma_neg,
            ilo,
            R,
            pos_budget,
            neg_budget,
            big,
            single,
        )
        for q in range(nvals[last]):
            total = (
                losses[q]
                + eps * (l1_head + (abs(deltas[q]) if l1_mask[last] else 0.0))
                + (cost_head + vcost[last, q])
            )
            if total < best_total - 1e-12:
                best_total = total
                for t in range(last):
                    best_idx[t] = idx[t]
                best_idx[last] = q
                best_b = bs[q]
        # advance the odometer over the first k-1 coordinates
        t = 0
        while t < last:
            idx[t] += 1
            if idx[t] < nvals[t]:
                break
            idx[t] = 0
            t += 1
        if t == last:
            break
    return best_total, best_idx, best_b


_compiled = False

#: each part of a cold compile, with its share of the whole compile's time (measured on 2 cores,
#: Nov 2026: the coordinate move, the support scan and the search over cells take most of it):
#: the time left that the studio says is measured on the parts done, weighed by these shares
COMPILE_SHARES = (
    ("the loss", 1.5),
    ("the histograms", 1.5),
    ("the best intercept", 0.8),
    ("the coordinate move", 7.9),
    ("the walk", 3.5),
    ("the support scan", 15.2),
    ("the search over cells", 14.0),
    ("the Cox floors", 10.0),
)


def _compile_parts() -> list:
    """The calls that compile each kernel (or load it from the cache), in the order of
    :data:`COMPILE_SHARES` (the first, the smallest, is called by
    :func:`ensure_compiled` itself)."""
    z = np.zeros(1)
    i = np.zeros(1, np.int64)
    m = np.ones((1, 1))
    n = 80
    zn, rows = np.zeros(n), np.arange(n, dtype=np.int64)

    def coordinate_move():
        a, c, hp, hn, cp, cn = histograms(z, z, z, z, z, z, 0.0, 1.0, 0, 2)
        coordinate_losses(
            z,
            i,
            z,
            i,
            z,
            z,
            z,
            a,
            c,
            z,
            z,
            z,
            z,
            hp,
            hn,
            cp,
            cn,
            0.0,
            0.0,
            0.0,
            1.0,
            0,
            2,
            -1.0,
            -1.0,
            1.0,
            0.0,
        )
        # the shifted path of coordinate_losses (more than 64 moved rows of one value)
        a, c, hp, hn, cp, cn = histograms(zn, zn, np.ones(n), np.ones(n), zn, zn, 0.0, 1.0, -2, 5)
        coordinate_losses(
            np.ones(1),
            rows,
            np.ones(n),
            rows,
            np.ones(n),
            zn,
            zn,
            a,
            c,
            np.ones(n),
            np.ones(n),
            zn,
            zn,
            hp,
            hn,
            cp,
            cn,
            float(n),
            0.0,
            0.0,
            1.0,
            -2,
            5,
            -1.0,
            -1.0,
            1e6,
            1.0,
        )

    def best():
        a, c, hp, hn, cp, cn = histograms(z, z, z, z, z, z, 0.0, 1.0, 0, 2)
        best_intercept(hp, hn, cp, cn, 0.0, 0.0, 0, 2, -1.0, -1.0, 1.0)

    def scan():
        from . import _lattice_kernels, _scan_kernels  # the support scan's kernels too

        _scan_kernels.warm_up()
        _lattice_kernels.warm_up()

    def over_cells():
        from . import _cell_kernels  # the per-support search over cells

        _cell_kernels.warm_up()

    def cox_floors():
        from ..core import cox_floor  # the time-to-event cards' floors over cells

        cox_floor.warm_up()

    return [
        lambda: histograms(z, z, z, z, z, z, 0.0, 1.0, 0, 2),
        best,
        coordinate_move,
        lambda: walk_support(
            m,
            m,
            m,
            np.ones(1, np.int64),
            z,
            z,
            z,
            z,
            z,
            z,
            0.0,
            0.0,
            0.0,
            1.0,
            0,
            2,
            -1.0,
            -1.0,
            1.0,
            0.0,
            np.ones(1, np.bool_),
            np.zeros((1, 1)),
            0.0,
        ),
        scan,
        over_cells,
        cox_floors,
    ]


def ensure_compiled(progress: Callable[..., None] | None = None) -> None:
    """Compile (or load from numba's cache) every kernel now, so that the first
    solve's time limit is spent solving, not compiling (several seconds when cold).

    When it compiles (nothing in the cache yet), ``progress(done, total, share=, kept=)`` is
    told after each part: ``done`` of ``total`` parts compiled, ``share`` of the usual compile
    time behind (:data:`COMPILE_SHARES`), ``kept`` whether numba keeps them on disk (else every
    new process compiles them again). Loading them from the cache tells nothing."""
    global _compiled
    if _compiled:
        return
    # the smallest kernel first: whether it came from the cache tells whether the rest will
    _loss_at(0.0, 0.0, 0.0, 0.0, 1.0, 1.0, -1.0, -1.0, 1.0)
    stats = _loss_at.stats
    kept = stats.cache_path is not None
    cold = not kept or sum(stats.cache_misses.values()) > 0
    if cold:
        print(COMPILE_NOTE if kept else COMPILE_NOTE_NO_CACHE, file=sys.stderr, flush=True)
    shares = [w for _, w in COMPILE_SHARES]
    for done, part in enumerate([None] + _compile_parts(), 1):
        if part is not None:
            part()
        if cold and progress is not None:
            progress(done, len(shares), share=sum(shares[:done]) / sum(shares), kept=kept)
    _compiled = True
