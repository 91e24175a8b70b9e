"""The specialized models of the paper's sec. 7, compiled to options of the one SLIM engine.

* :func:`fit_pilm`: a Personalized Integer Linear Model. Coefficients come from
  tiers of growing magnitude, each with its own cost (``tiers``).
* :func:`fit_m_of_n`: an M-of-N rule table, "predict the class if at least M
  of these N rules are true", from 0/1 features.
* :func:`fit_tilm`: a Threshold-Rule Integer Linear Model. Many threshold
  rules per original feature (``age >= 40``, ``age >= 60``, ...), with a cost
  per feature used (C_f), a cost per extra rule of a feature (C_t), a cap on
  rules per feature and one sign for all rules of a feature.

Each function builds a :class:`~slimwidgets.core.spec.Spec` (the options are general:
``tiers``, ``groups``, ``group_penalty``, ``rule_penalty``,
``max_rules_per_group``, ``group_signs_agree``, ``group_reversed``) and solves
it with the same engine as :func:`slimwidgets.fit`: the same local search,
exhaustive walk or MIP, the same proof of optimality and the same check of the
card against every constraint before it is returned. The card records its
family, which changes how an M-of-N table is drawn.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..core.data import prepare_data
from ..core.scoring import ScoringSystem
from ..core.spec import make_spec
from ..fitting import fit_dataset

__all__ = ["fit_pilm", "fit_m_of_n", "fit_tilm", "threshold_groups", "PAPER_TIERS"]

#: The paper's PILM example: ``|points|`` 1..10 cost 0.01, 11..100 cost 0.05.
PAPER_TIERS = ((10, 0.01), (100, 0.05))

# Keyword arguments of fit() that are about the data or the run, not the spec.
_RUN_KEYS = ("positive", "sample_weight", "feature_names", "warm_start", "on_incumbent", "cancel")


def _split(options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    if "spec" in options:
        raise TypeError(
            "the family functions build the spec themselves; pass its options as keywords"
        )
    run = {k: options.pop(k) for k in _RUN_KEYS if k in options}
    return run, options


def _solve(
    X: Any, y: Any, run: dict[str, Any], spec_options: dict[str, Any], family: str, data=None
) -> ScoringSystem:
    if data is None:
        data = prepare_data(
            X,
            y,
            positive=run.get("positive"),
            sample_weight=run.get("sample_weight"),
            feature_names=run.get("feature_names"),
        )
    spec = make_spec(**spec_options)
    return fit_dataset(
        data,
        spec,
        warm_start=run.get("warm_start"),
        on_incumbent=run.get("on_incumbent"),
        cancel=run.get("cancel"),
        family=family,
    )


def _refuse(options: Mapping[str, Any], keys: Sequence[str], family: str, why: str) -> None:
    clash = [k for k in keys if options.get(k) not in (None, (), [], {})]
    if clash:
        raise TypeError(f"{family} sets {', '.join(clash)} itself ({why})")


# -- PILM --------------------------------------------------------------------------------------
def fit_pilm(
    X: Any, y: Any, tiers: Sequence[tuple[int, float]] = PAPER_TIERS, **options: Any
) -> ScoringSystem:
    """A PILM scoring system (section 7.1): the cost of a coefficient grows with its size.

    Parameters
    ----------
    X, y : as for :func:`slimwidgets.fit`.
    tiers : ``[(b_1, C_1), ..., (b_R, C_R)]`` with increasing bounds and
        non-decreasing costs: a coefficient with ``|points|`` in ``b_{r-1}+1 .. b_r``
        costs ``C_r`` (``b_0 = 0``); 0 points cost nothing and no coefficient
        goes beyond ``b_R``. C_r is the least gain in training accuracy that a
        coefficient from tier r must bring.
    **options : any other option of :func:`slimwidgets.fit` except ``C0`` (the
        first tier's cost plays its role; ``penalties[f]`` replaces it for f).
        ``coef_range`` defaults to ``(-b_R, b_R)``.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"a": [1, 1, 0, 0, 1, 0], "b": [0, 1, 0, 1, 1, 0]})
    >>> card = fit_pilm(X, [1, 1, 0, 0, 1, 0], tiers=[(1, 0.05), (5, 0.2)])
    >>> card.points, card.family
    ({'a': 1}, 'pilm')
    """
    run, opts = _split(dict(options))
    if opts.get("C0") is not None:
        raise TypeError(
            "fit_pilm takes no C0: the first tier's cost is the cost of using a feature"
        )
    spec_tiers = make_spec(tiers=tiers).tiers
    if not spec_tiers:
        raise ValueError("fit_pilm needs at least one tier")
    top = spec_tiers[-1][0]
    opts.setdefault("coef_range", (-top, top))
    opts["tiers"] = spec_tiers
    return _solve(X, y, run, opts, "pilm")


# -- M-of-N rule tables --------------------------------------------------------------------------
def fit_m_of_n(X: Any, y: Any, C0: float | None = None, **options: Any) -> ScoringSystem:
    """An M-of-N rule table (section 7.2.1): positive iff at least M of N rules hold.

    The rules are the 0/1 columns of ``X``; the table picks N of them and M
    to minimize training error + ``C0`` per rule, exactly.

    In the card every rule carries 1 point and the threshold is ``M`` (predict
    positive iff score >= M), the table itself. Under the paper's rule
    (``zero_score="error"``) the paper's 1 point per rule and threshold
    ``M - 1`` would make a row with exactly M - 1 true rules score 0 and
    count as an error whichever its class, although the table classifies it
    as negative; there every rule carries 2 points and the threshold is
    ``2M - 1``, so no row ever scores 0 and the objective minimized is the
    table's true training error. :attr:`ScoringSystem.m_of_n` gives (M, N);
    the text, HTML, LaTeX and markdown renderings draw the table.

    Parameters
    ----------
    X : 0/1 features only (e.g. the output of :class:`slimwidgets.RuleBuilder`).
    y : labels, as for :func:`slimwidgets.fit`.
    C0 : the least gain in training accuracy a rule must bring (default: the
        engine's, which never gives up accuracy to drop a rule).
    **options : other options of :func:`slimwidgets.fit` (``max_size``,
        ``exclude``, ``require``, ``constraints``, ``max_fpr``, ``min_tpr``,
        ``class_weights``, ``penalties``, ``time_limit``, ``solver``, ...). The
        points and the intercept are set by the table's form.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame(
    ...     {"r1": [1, 1, 0, 1, 1, 0, 0], "r2": [1, 0, 1, 1, 0, 1, 0], "r3": [0, 1, 1, 1, 0, 0, 1]}
    ... )
    >>> card = fit_m_of_n(X, [1, 1, 1, 1, 0, 0, 0], C0=0.01)
    >>> card.m_of_n
    (2, 3)
    >>> print(card.to_text().splitlines()[0])
    PREDICT 1 IF AT LEAST 2 OF THE FOLLOWING 3 RULES ARE TRUE
    """
    run, opts = _split(dict(options))
    _refuse(
        opts,
        ("coef_range", "coef_ranges", "values", "signs", "lock", "intercept_range", "tiers"),
        "fit_m_of_n",
        "every rule carries the same points",
    )
    data = prepare_data(
        X,
        y,
        positive=run.get("positive"),
        sample_weight=run.get("sample_weight"),
        feature_names=run.get("feature_names"),
    )
    non_binary = [n for n, b in zip(data.feature_names, data.binary) if not b]
    if non_binary:
        raise ValueError(
            f"an M-of-N table needs 0/1 rules; binarize these columns first: {non_binary}"
        )
    P = data.n_features
    opts["C0"] = C0
    p = 2 if opts.get("zero_score") == "error" else 1  # points per rule
    opts["coef_range"] = (0, p)
    opts["values"] = {n: (0, p) for n in data.feature_names}
    # threshold M (or 2M - 1 under the paper's rule) for M = 0..P (M = 0: every case is positive)
    opts["intercept_range"] = (-P, 0) if p == 1 else (1 - 2 * P, 1)
    return _solve(X, y, run, opts, "m_of_n", data=data)


# -- TILM ------------------------------------------------------------------------------------------
_RULE = re.compile(r"^(?P<feature>.*\S)\s*(?P<op>>=|<=|>|<)\s*(?P<cut>[^<>=]*[^<>=\s])$")


def _parse_rule(name: str) -> tuple[str, bool] | None:
    """(original feature, reversed?) for a name like ``age >= 60`` or ``age < 40``; else None."""
    m = _RULE.match(name.strip())
    if m is None:
        return None
    try:
        cut = float(m.group("cut"))
    except ValueError:
        return None
    if math.isnan(cut):
        return None
    return m.group("feature").strip(), m.group("op") in ("<", "<=")


def threshold_groups(feature_names: Sequence[str]) -> tuple[dict[str, list[str]], list[str]]:
    """Group threshold-rule columns by the feature they threshold.

    Names of the form ``"<feature> >= <cut>"``, ``"<feature> > <cut>"``,
    ``"<feature> < <cut>"`` or ``"<feature> <= <cut>"`` (as
    :class:`slimwidgets.RuleBuilder` writes them) join the group ``<feature>``;
    a column named exactly ``<feature>`` joins it too; every other column is
    a group of its own (one-hot columns such as ``sex = F`` included: their
    categories have no order). Returns ``(groups, reversed)``, where
    ``reversed`` lists the ``<``/``<=`` rules: they rise as the feature falls,
    so their points count with the opposite sign when signs must agree.

    Parameters
    ----------
    feature_names : sequence of str
        The column names of the rules.

    Examples
    --------
    >>> rules = ["age >= 60", "age < 40", "nodes >= 3", "smoker"]
    >>> threshold_groups(rules)  # doctest: +NORMALIZE_WHITESPACE
    ({'age': ['age >= 60', 'age < 40'], 'nodes': ['nodes >= 3'], 'smoker': ['smoker']},
     ['age < 40'])
    """
    groups: dict[str, list[str]] = {}
    reversed_: list[str] = []
    plain: list[str] = []
    for name in feature_names:
        parsed = _parse_rule(name)
        if parsed is None:
            plain.append(name)
            continue
        feature, rev = parsed
        groups.setdefault(feature, []).append(name)
        if rev:
            reversed_.append(name)
    for name in plain:
        if name in groups:
            groups[name].append(name)
        else:
            groups[name] = [name]
    # keep the columns' order of first appearance
    order = {n: k for k, n in enumerate(feature_names)}
    groups = dict(sorted(groups.items(), key=lambda item: min(order[n] for n in item[1])))
    return groups, reversed_


def fit_tilm(
    X: Any,
    y: Any,
    groups: Mapping[str, Sequence[str]] | None = None,
    C_f: float = 0.01,
    C_t: float = 0.005,
    max_rules_per_feature: int | None = 3,
    signs_agree: bool = True,
    **options: Any,
) -> ScoringSystem:
    """A TILM scoring system (section 7.2.2) on threshold rules of the original features.

    The objective is training error + ``C_f`` per original feature used +
    ``C_t`` per rule of a feature beyond its first + a tiny L1 term, subject
    to at most ``max_rules_per_feature`` rules per feature and, with
    ``signs_agree``, one sign for all of a feature's rules (so the score is
    monotone in each feature).

    Parameters
    ----------
    X : 0/1 rule columns, e.g. ``slimwidgets.RuleBuilder().fit_transform(frame)``.
    y : labels, as for :func:`slimwidgets.fit`.
    groups : original feature -> its rule columns. None: inferred from names
        such as ``age >= 60`` / ``age < 40`` (see :func:`threshold_groups`).
        Columns in no group become groups of their own. Rules named with
        ``<`` or ``<=`` count with the opposite sign for ``signs_agree``.
    C_f, C_t : the least gain in training accuracy for using a feature, and
        for each further rule of a feature already in use.
    max_rules_per_feature : R_max (None: no cap).
    signs_agree : one sign for all of a feature's rules (the score is monotone in each
        feature).
    **options : other options of :func:`slimwidgets.fit` (``coef_range``,
        ``max_size``, ``max_fpr``, ``time_limit``, ...). ``C0`` (default 0) adds
        a cost per rule on top.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"age >= 50": [0, 0, 1, 1, 1, 0], "age >= 65": [0, 0, 0, 1, 1, 0],
    ...                   "smoker": [1, 0, 0, 1, 0, 0]})
    >>> card = fit_tilm(X, [0, 0, 1, 1, 1, 0], C_f=0.02, C_t=0.01)
    >>> card.points, card.family
    ({'age >= 50': 1}, 'tilm')
    """
    run, opts = _split(dict(options))
    for k in (
        "groups",
        "group_penalty",
        "rule_penalty",
        "max_rules_per_group",
        "group_signs_agree",
        "group_reversed",
    ):
        if k in opts:
            raise TypeError(
                f"fit_tilm sets {k} itself (use groups=, C_f=, C_t=, max_rules_per_feature=, "
                "signs_agree=)"
            )
    data = prepare_data(
        X,
        y,
        positive=run.get("positive"),
        sample_weight=run.get("sample_weight"),
        feature_names=run.get("feature_names"),
    )
    names = list(data.feature_names)
    if groups is None:
        grouped, reversed_ = threshold_groups(names)
    else:
        if not isinstance(groups, Mapping):
            raise TypeError(
                f"groups must be a mapping feature -> rule columns, got {type(groups).__name__}"
            )
        grouped = {
            str(g): [members] if isinstance(members, str) else list(members)
            for g, members in groups.items()
        }
        member_set = {n for members in grouped.values() for n in members}
        unknown = sorted(member_set - set(names))
        if unknown:
            raise KeyError(f"groups name unknown columns: {unknown}")
        for n in names:  # every column is a feature of its own unless grouped
            if n not in member_set:
                key = n if n not in grouped else f"{n} (column)"
                grouped[key] = [n]
        reversed_ = [n for n in member_set if (p := _parse_rule(n)) is not None and p[1]]
    opts.setdefault("C0", 0.0)
    opts.update(
        groups=grouped,
        group_penalty=C_f,
        rule_penalty=C_t,
        max_rules_per_group=max_rules_per_feature,
        group_signs_agree=bool(signs_agree),
        group_reversed=sorted(reversed_, key=names.index),
    )
    return _solve(X, y, run, opts, "tilm", data=data)
