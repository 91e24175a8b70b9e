"""The paper's bounds on training and testing accuracy (Ustun & Rudin 2016, sec. 3).

* :func:`resolution_bound` — Theorem 1 (minimum-margin resolution bound) and
  its Corollary (k-th margin): how large the coefficient box {-Λ, ..., Λ}^P
  must be for a rounded copy of a real-valued linear classifier ρ to make no
  more training errors than ρ (or at most k - 1 more).
* :func:`round_to_resolution` — the rounding construction of Theorem 1's
  proof: λ_j = ρ_j / ||ρ||₂ rounded to the nearest multiple of 1/Λ, times Λ.
* :func:`generalization_bound` — the finite-hypothesis-class (Occam's razor)
  bounds of sec. 3.2: Theorem 2 (any finite coefficient set), Theorem 3 (the
  sparse class implied by C0 or by a size cap) and Theorem 4 (coprime
  coefficients, counted by P-dimensional Farey points).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ..core.data import labels_to_sign, prepare_features
from ..core.scoring import ScoringSystem

__all__ = [
    "ResolutionBound",
    "resolution_bound",
    "round_to_resolution",
    "GeneralizationBound",
    "generalization_bound",
    "hypothesis_count",
    "farey_count",
]


# -- sec. 3.1: discretization bounds ---------------------------------------------------------------
@dataclass(frozen=True)
class ResolutionBound:
    """Theorem 1 / Corollary: any integer ``Lambda > bound`` is enough.

    Attributes
    ----------
    bound : X_(k) sqrt(P) / (2 gamma_(k)); Λ must be strictly larger
        (``inf`` when gamma_(k) is 0: a point lies on ρ's boundary).
    Lambda : the smallest integer strictly above ``bound``.
    k : which margin (1 = Theorem 1).
    gamma : gamma_(k), the k-th smallest normalised margin |ρ·x_i| / ||ρ||₂.
    x_norm : X_(k), the largest ||x_i||₂ outside I_(k) (all rows when k = 1).
    n_features : P, the dimension (counting the intercept's constant 1 if any).
    n_excluded : |I_(k)|, the rows the guarantee gives up (at most k - 1).
    baseline_errors : number of training errors of ρ (y_i ρ·x_i <= 0).
    max_extra_errors : the guarantee: a card in the box makes at most
        ``baseline_errors + max_extra_errors`` errors (0 for Theorem 1).
    """

    bound: float
    Lambda: int | None
    k: int
    gamma: float
    x_norm: float
    n_features: int
    n_excluded: int
    baseline_errors: int
    max_extra_errors: int


def _design(X: Any, coef: Any, intercept: float | None) -> tuple[np.ndarray, np.ndarray]:
    matrix, _ = prepare_features(X)
    rho = np.asarray(coef, dtype=float).ravel()
    if rho.size != matrix.shape[1]:
        raise ValueError(f"coef has {rho.size} values for {matrix.shape[1]} features")
    if not np.isfinite(rho).all():
        raise ValueError("coef must be finite")
    if intercept is not None:
        matrix = np.column_stack([np.ones(matrix.shape[0]), matrix])
        rho = np.concatenate([[float(intercept)], rho])
    if not np.any(rho):
        raise ValueError("coef is all zero: the baseline classifier has no direction")
    return matrix, rho


def resolution_bound(
    X: Any, y: Any, coef: Any, *, intercept: float | None = None, k: int = 1, positive: Any = None
) -> ResolutionBound:
    """The resolution Λ of Theorem 1 (k = 1) or of its k-th margin corollary.

    Theorem 1 (Minimum Margin Resolution Bound): with ``X_max = max_i ||x_i||₂``
    and ``gamma_min = min_i |ρ·x_i| / ||ρ||₂``, if ``Λ > X_max sqrt(P) / (2 gamma_min)``
    then some λ in {-Λ, ..., Λ}^P makes no more training errors than ρ.

    Corollary (k-th margin): with gamma_(k) the k-th smallest margin, I_(k)
    the rows with a margin *below* gamma_(k) and X_(k) the largest norm
    outside I_(k), ``Λ > X_(k) sqrt(P) / (2 gamma_(k))`` guarantees at most
    ``|I_(k)| <= k - 1`` extra errors. (The paper writes "<= gamma_(k)" for
    I_(k); read that way the k-th row itself is dropped, k = 1 would not
    reduce to Theorem 1, and the proof would only give k extra errors. We use
    the strict reading, for which the proof's argument holds as stated; ties
    at gamma_(k) stay in the data and only make the bound safer.)

    Parameters
    ----------
    X : features (n × P), the rows x_i as the baseline classifier sees them.
    y : two-valued labels (``positive`` picks the +1 class).
    coef : ρ, real coefficients of the baseline linear classifier.
    intercept : the baseline's intercept, if it has one: a constant-1 column
        is then added to X (the paper's x_i = [1, x_i1, ..., x_iP]) and ρ gets
        it as a first coordinate, so P counts it.
    k : 1 for Theorem 1, k >= 2 for the corollary.
    positive : the label of the +1 class (default the larger, 1 or True).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> r = resolution_bound(X, [1, 0, 1], coef=[1.0, -0.5])
    >>> round(r.bound, 4), r.Lambda
    (2.2361, 3)
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    matrix, rho = _design(X, coef, intercept)
    signs, _, _ = labels_to_sign(y, positive)
    if len(signs) != matrix.shape[0]:
        raise ValueError(f"X has {matrix.shape[0]} rows but y has {len(signs)} labels")
    n, P = matrix.shape
    if k > n:
        raise ValueError(f"k={k} exceeds the {n} rows")
    scores = matrix @ rho
    margins = np.abs(scores) / np.linalg.norm(rho)
    norms = np.linalg.norm(matrix, axis=1)
    gamma_k = float(np.sort(margins)[k - 1])
    excluded = margins < gamma_k
    kept = ~excluded
    x_k = float(norms[kept].max())
    baseline = int(np.sum(signs * scores <= 0))
    if gamma_k <= 0:
        bound, lam = math.inf, None
    else:
        bound = x_k * math.sqrt(P) / (2 * gamma_k)
        lam = int(math.floor(bound)) + 1
    return ResolutionBound(
        bound=bound,
        Lambda=lam,
        k=int(k),
        gamma=gamma_k,
        x_norm=x_k,
        n_features=P,
        n_excluded=int(excluded.sum()),
        baseline_errors=baseline,
        max_extra_errors=int(excluded.sum()),
    )


def round_to_resolution(coef: Any, Lambda: int, *, intercept: float | None = None) -> np.ndarray:
    """The integer vector of Theorem 1's proof: ``λ_j = round(Λ ρ_j / ||ρ||₂)``.

    ``|λ_j| <= Λ`` always. With ``intercept`` the result starts with the
    rounded intercept (the same coordinates as :func:`resolution_bound`).

    Parameters
    ----------
    coef : array-like of float
        The real coefficients ``ρ`` (without the intercept).
    Lambda : int
        The resolution ``Λ``: the largest absolute integer allowed.
    intercept : float, optional
        A real intercept, rounded with the coefficients as the first coordinate.

    Examples
    --------
    >>> round_to_resolution([3.0, -4.0], 10).tolist()
    [6, -8]
    """
    if isinstance(Lambda, bool) or not isinstance(Lambda, (int, np.integer)) or Lambda < 1:
        raise ValueError(f"Lambda must be a positive integer, got {Lambda!r}")
    rho = np.asarray(coef, dtype=float).ravel()
    if intercept is not None:
        rho = np.concatenate([[float(intercept)], rho])
    norm = np.linalg.norm(rho)
    if norm == 0:
        raise ValueError("coef is all zero")
    return np.rint(Lambda * rho / norm).astype(np.int64)


# -- sec. 3.2: generalization bounds ---------------------------------------------------------------
def _mobius(n: int) -> int:
    result, m, p = 1, n, 2
    while p * p <= m:
        if m % p == 0:
            m //= p
            if m % p == 0:
                return 0
            result = -result
        p += 1
    return -result if m > 1 else result


@lru_cache(maxsize=256)
def farey_count(P: int, Lambda: int) -> int:
    """|C_{P,Λ}|: the P-dimensional Farey points of level Λ (Theorem 4).

    The points λ/q in [0, 1)^P with (λ, q) coprime and 1 <= q <= Λ; for each
    q there are J_P(q) = Σ_{d|q} μ(d) (q/d)^P of them (Jordan's totient).

    Examples
    --------
    >>> farey_count(1, 5)   # 0/1, 1/5, 1/4, 1/3, 2/5, 1/2, 3/5, 2/3, 3/4, 4/5
    10
    """
    total = 0
    for q in range(1, Lambda + 1):
        total += sum(_mobius(d) * (q // d) ** P for d in range(1, q + 1) if q % d == 0)
    return total


def hypothesis_count(
    n_features: int, Lambda: int, max_size: int | None = None, n_intercepts: int = 1
) -> int:
    """|H|: coefficient vectors in {-Λ..Λ}^P with at most ``max_size``
    non-zeros, times the intercepts.

    ``Σ_{s=0}^{m} C(P, s) (2Λ)^s · n_intercepts``; with ``max_size`` None
    (or >= P) this is ``(2Λ+1)^P · n_intercepts``, the full box.

    Examples
    --------
    >>> hypothesis_count(3, 1), hypothesis_count(3, 1, max_size=1)
    (27, 7)
    """
    P, m = (
        int(n_features),
        (int(n_features) if max_size is None else min(int(max_size), int(n_features))),
    )
    return int(n_intercepts) * sum(math.comb(P, s) * (2 * int(Lambda)) ** s for s in range(m + 1))


@dataclass(frozen=True)
class GeneralizationBound:
    """A uniform bound R_true(f) <= R_emp(f) + sqrt((log|H| - log δ) / (2N)).

    ``bound`` is ``train_error + complexity`` (NaN when the training error
    is unknown); ``log_class_size`` is log|H| (natural log).
    """

    theorem: str
    n: int
    delta: float
    log_class_size: float
    complexity: float
    train_error: float
    bound: float
    description: str


def generalization_bound(
    model: ScoringSystem | int | None = None,
    n: int | None = None,
    *,
    coef_set_size: int | None = None,
    Lambda: int | None = None,
    n_features: int | None = None,
    C0: float | None = None,
    n_intercepts: int | None = None,
    coprime: bool = False,
    train_error: float | None = None,
    delta: float = 0.05,
) -> GeneralizationBound:
    """Occam's-razor bounds on the test error of SLIM cards (the paper's section 3.2).

    All three theorems have the form (with probability >= 1 - δ over the
    N training rows, for *every* f in the class at once)::

        R_true(f) <= R_emp(f) + sqrt((log|H| - log δ) / (2N))

    and differ in the size ``|H|`` of the class:

    * Theorem 2 (any finite coefficient set L): ``|H| = |L|``. Pass
      ``coef_set_size``, or ``Lambda`` and ``n_features`` for the box
      {-Λ..Λ}^P, ``|L| = (2Λ+1)^P`` (times ``n_intercepts`` if the intercept is
      counted separately).
    * Theorem 3 (sparse discrete classifiers): SLIM's optimum with trade-off
      C0 has ||λ||₀ <= floor(1/C0), so ``|H| = Σ_{s <= floor(1/C0)} C(P,s)(2Λ)^s``.
      Pass ``C0``, or an integer ``model``: a size cap fixed *before* seeing
      the data (e.g. ``max_size``) bounds the class the same way. (A card's
      own size is chosen by the data and is not a valid cap.)
    * Theorem 4 (coprime coefficients): ``coprime=True``, ``|H| = |C_{P,Λ}|``,
      the Farey points of level Λ in dimension P (:func:`farey_count`).

    With a :class:`ScoringSystem` ``model``, P, Λ (the largest ``|points|`` its
    spec allows), the intercept count (its spec's intercept range), the size
    cap (its spec's ``max_size`` and floor(1/C0), whichever is smaller), N
    and the training error come from the card; keywords override them.

    Parameters
    ----------
    model : ScoringSystem or int, optional
        A card (P, Λ, the intercepts, the size cap, N and the training error are read from it), or
        a size cap fixed before seeing the data (Theorem 3).
    n : int, optional
        The number of training rows N.
    coef_set_size : int, optional
        ``|L|``, the number of coefficient vectors (Theorem 2).
    Lambda : int, optional
        The largest absolute points ``Λ``.
    n_features : int, optional
        The number of features P.
    C0 : float, optional
        The trade-off whose optimum has at most floor(1/C0) features (Theorem 3).
    n_intercepts : int, optional
        The number of intercept values, when the intercept is counted separately.
    coprime : bool, default False
        Whether the class is that of coprime coefficient vectors (Theorem 4).
    train_error : float, optional
        The training error ``R_emp(f)`` to add the complexity term to.
    delta : float, default 0.05
        The bound holds with probability at least ``1 - delta``.

    Examples
    --------
    >>> b = generalization_bound(n=1000, Lambda=10, n_features=5, train_error=0.1)
    >>> b.theorem, round(b.complexity, 4), round(b.bound, 4)
    ('Theorem 2', 0.0954, 0.1954)
    >>> round(generalization_bound(3, n=1000, Lambda=10, n_features=5).complexity, 4)
    0.0847
    """
    if not (isinstance(delta, (int, float)) and 0 < delta < 1):
        raise ValueError(f"delta must lie in (0, 1), got {delta!r}")
    size_cap = None
    if isinstance(model, ScoringSystem):
        read = _read_card(model)  # keywords override what the card says
        n = read["n"] if n is None else n
        Lambda = read["Lambda"] if Lambda is None else Lambda
        n_features = read["n_features"] if n_features is None else n_features
        C0 = read["C0"] if C0 is None else C0
        n_intercepts = read["n_intercepts"] if n_intercepts is None else n_intercepts
        train_error = read["train_error"] if train_error is None else train_error
        size_cap = read["size_cap"]
    elif model is not None:
        if isinstance(model, bool) or not isinstance(model, (int, np.integer)) or model < 0:
            raise TypeError(
                f"model must be a ScoringSystem or a non-negative integer size cap, got {model!r}"
            )
        size_cap = int(model)
    if n is None or isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n (the number of training rows) must be a positive integer, got {n!r}")
    n_intercepts = 1 if n_intercepts is None else int(n_intercepts)
    if C0 is not None:
        if not C0 > 0:
            raise ValueError(f"C0 must be > 0, got {C0!r}")
        cap = math.floor(1 / C0)
        size_cap = cap if size_cap is None else min(size_cap, cap)
    count, theorem, desc = _class_size(
        coef_set_size, Lambda, n_features, size_cap, n_intercepts, coprime
    )
    log_h = math.log(count)
    complexity = math.sqrt((log_h - math.log(delta)) / (2 * int(n)))
    err = math.nan if train_error is None else float(train_error)
    return GeneralizationBound(
        theorem=theorem,
        n=int(n),
        delta=float(delta),
        log_class_size=log_h,
        complexity=complexity,
        train_error=err,
        bound=err + complexity,
        description=desc,
    )


def _read_card(card: ScoringSystem) -> dict:
    """What a card says about its class: n, Λ, P, C0, the intercept count,
    its error and size cap."""
    spec = card.spec
    if spec is not None:
        lo, hi = spec.coef_range
        ranges = [spec.coef_ranges.get(f, (lo, hi)) for f in card.feature_names]
    else:
        ranges = [(-10, 10)]
    C0 = None
    if spec is not None:
        c0s = card.details.get("C0")
        c0 = spec.C0 if spec.C0 is not None else (min(c0s) if c0s else None)
        C0 = c0 if c0 and c0 > 0 else None
    metrics = card.train_metrics
    box = card.details.get("intercept_range") or (
        spec.intercept_range if spec is not None else None
    )
    return dict(
        n=card.details.get("n_samples") or (int(metrics.n) if metrics is not None else None),
        Lambda=max((max(abs(a), abs(b)) for a, b in ranges), default=0),
        n_features=len(card.feature_names),
        C0=C0,
        n_intercepts=None if box is None else box[1] - box[0] + 1,
        train_error=None if metrics is None else metrics.error,
        size_cap=None if spec is None else spec.max_size,
    )


def _class_size(
    coef_set_size: int | None,
    Lambda: int | None,
    n_features: int | None,
    size_cap: int | None,
    n_intercepts: int,
    coprime: bool,
) -> tuple[int, str, str]:
    """|H| for the theorem that applies, the theorem's name and a description of the class."""
    if coef_set_size is not None:
        if int(coef_set_size) < 1:
            raise ValueError("coef_set_size must be >= 1")
        count = int(coef_set_size)
        return count, "Theorem 2", f"finite coefficient set, |L| = {count}"
    if Lambda is None or n_features is None:
        raise ValueError("give coef_set_size, or Lambda and n_features (or a ScoringSystem)")
    Lambda, P = int(Lambda), int(n_features)
    if Lambda < 1 or P < 1:
        raise ValueError("Lambda and n_features must be >= 1")
    if coprime:
        return (
            farey_count(P, Lambda),
            "Theorem 4",
            f"coprime coefficients bounded by {Lambda} in dimension {P}: |C_(P,Λ)| Farey points",
        )
    if size_cap is not None and size_cap < P:
        count, theorem = hypothesis_count(P, Lambda, size_cap, n_intercepts), "Theorem 3"
        desc = f"at most {size_cap} of {P} features, points in -{Lambda}..{Lambda}"
    else:
        count, theorem = hypothesis_count(P, Lambda, None, n_intercepts), "Theorem 2"
        desc = f"box -{Lambda}..{Lambda} in dimension {P}"
    if n_intercepts > 1:
        desc += f", {n_intercepts} intercepts"
    return count, theorem, desc
