"""``SLIMClassifier``: the SLIM engine behind the scikit-learn estimator API.

The estimator is a thin layer: it validates input the scikit-learn way,
hands the data and its parameters to :func:`slimwidgets.fitting.fit`, and
exposes the resulting :class:`~slimwidgets.core.scoring.ScoringSystem` as
``coef_``/``intercept_`` so that the usual tools (``cross_val_score``,
``Pipeline``, ``GridSearchCV``, ``clone``) work on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from ..core.data import group_column_apart, refuse_time_to_event
from ..core.family import family_of_loss
from ..core.options import DEFAULT_TIME_LIMIT, estimator_options
from ..core.rules import build_rules, options_by_variable
from ..fitting import driver

__all__ = ["SLIMClassifier"]

# Parameters handed to the engine's spec (see slimwidgets.make_spec): the options table's rows
# marked ``estimator``. ``__init__`` lists them again because scikit-learn reads an estimator's
# parameters from its signature; tests/toolbox/test_estimator.py checks that the two agree.
_SPEC_PARAMS = estimator_options()


class SLIMClassifier(ClassifierMixin, BaseEstimator):
    """A SLIM scoring system as a scikit-learn binary classifier.

    Fits integer points per feature and an integer intercept by solving the
    SLIM integer program exactly (Ustun & Rudin), then predicts the positive
    class ``classes_[1]`` when ``X @ coef_ + intercept_ >= 0``, i.e. when the
    total score reaches the threshold ``-intercept_`` (``> 0`` with
    ``zero_score="error"``, the paper's rule).

    Every parameter is stored as given and only checked in :meth:`fit`, by
    :func:`slimwidgets.make_spec`; see it, and the table of options
    (:doc:`/api/options`), for the full meaning of each option.
    Options that name features (``signs``, ``exclude``, ``lock``, ...) use the
    DataFrame's column names, or ``"x0"``, ``"x1"``, ... for arrays.

    Parameters
    ----------
    C0 : float or None, default=None
        Cost of using one feature, in units of training error (one
        misclassified sample of weight 1 costs 1/n). None makes all the
        features together cost less than one error: the card minimizes the
        error first and the number of features among cards of equal error.
    max_size : int or None, default=None
        Most features the scoring system may use.
    max_fpr : float in [0, 1] or None, default=None
        Largest false positive rate allowed on the training data.
    min_tpr : float in [0, 1] or None, default=None
        Smallest true positive rate allowed on the training data.
    signs : dict or None, default=None
        Feature name -> ``"+"`` or ``"-"``: the sign its points must have.
    penalties : dict or None, default=None
        Feature name -> its own ``C0``.
    exclude : sequence of str, default=()
        Features that must get 0 points.
    require : sequence of str, default=()
        Features that must get non-zero points.
    coef_range : (int, int) or dict, default=(-10, 10)
        Allowed points of every feature, or feature name -> (low, high).
    intercept_range : (int, int) or None, default=None
        Allowed intercept (minus the threshold); None: a box from the data that never binds.
    values : dict or None, default=None
        Feature name -> the list of points values it may take.
    lock : dict or None, default=None
        Feature name -> fixed points.
    constraints : sequence of LogicalConstraint, default=()
        Logical constraints on which features are used, built with
        :func:`slimwidgets.needs`, :func:`slimwidgets.at_most`, ...
    max_variables : int or None, default=None
        Most variables (columns of a raw table) the card may use; a column's cuts count once.
    max_cuts_per_variable : int or None, default=None
        Most cut points of each variable in use (rules built from a raw table).
    monotone : dict or None, default=None
        Variable -> ``"+"`` (its bands' points never fall as it rises, ``{"age": "+"}``)
        or ``"-"``; its ``missing`` rule and levels stay free.
    class_weights : "balanced", (float, float), dict or None, default=None
        Weights of the two classes in the training error: a ``(negative, positive)``
        pair, ``"balanced"``, a dict with keys ``"negative"``/``"positive"``, or (as in
        scikit-learn) a dict keyed by class labels, where a class left out weighs 1.
    missing : dict or None, default=None
        Feature name -> number of training rows where it was missing; adds
        that share to the feature's cost (see :func:`slimwidgets.make_spec`).
    margin : float or None, default=None
        Margin of the loss constraints; None picks an exact one for integer
        or few-decimal data and 0.1 otherwise.
    zero_score : {"positive", "error"}, default="positive"
        What a total exactly at the threshold predicts: "positive" (predict
        ``classes_[1]`` iff score >= threshold, trained with exactly that
        rule: cards in their smallest form), or the paper's "error" (a zero
        total is an error for either class; predict iff score > threshold).
    time_limit : float or None, default=30.0
        Seconds the fit may run (as ``sw.fit`` and the command line; None:
        until proven). When it stops at the limit the best card so far is
        kept (``status_ == "time_limit"``, ``gap_ > 0``); if it has found
        none (nor has the engine's quick local search),
        :class:`slimwidgets.NoSolutionError` is raised. A
        solve cut by the clock depends on the machine's speed, so only
        untimed (or finished) solves are reproducible.
    gap : float, default=0.0
        Relative optimality gap at which the solver may stop.
    threads : int, default=1
        Solver threads.
    solver : {"auto", "highs", "cbc", "enumerate", "scan", "pulp"}, default="auto"
        The MIP solver (``"pulp"``: through PuLP, with PuLP's HiGHS when it is there, else its CBC).
    warm_start : bool, default=False
        When True and the estimator was fitted before, start the solver from
        the previous ``scoring_system_`` (matched by feature name).
    loss : {"zero_one", "logistic"}, default="zero_one"
        ``"zero_one"``: a decision card (SLIM). ``"logistic"``: a risk card
        (RiskSLIM's objective), which adds :meth:`predict_proba`; it takes
        every option but ``margin``, ``missing``, ``linear`` and ``solver="cbc"`` /
        ``"scan"`` / ``"pulp"``, and its caps (per group too) hold for its decision (risk >= 50 %).
    scale : bool, default=True
        Risk cards: fit a real multiplier ``m >= 1/2`` that divides the score
        before the logistic link (False: ``m = 1``).
    rules : None, bool or RuleBuilder, default=None
        How a raw table (text, categories, missing values) becomes 0/1 rules, as in
        :func:`slimwidgets.fit`; the fitted builder is ``rules_`` and ``predict`` then takes
        the raw columns.
    cuts : dict or None, default=None
        The user's own cut points per numeric column, ``{"age": [40, 50, 60]}``.
    max_fpr_by_group : float, dict or None, default=None
        FPR cap in every group of the fit parameter ``sensitive_features`` (a
        number), or per group (``{group: number}``); decision cards only.
    min_tpr_by_group : float, dict or None, default=None
        TPR floor in every group, or per group, likewise.
    max_fpr_gap : float or None, default=None
        Largest difference between any two groups' FPR on the training data.
    max_tpr_gap : float or None, default=None
        Largest difference between any two groups' TPR on the training data.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two class labels, sorted; ``classes_[1]`` is the positive class.
    coef_ : ndarray of shape (1, n_features), int
        Points of each feature.
    intercept_ : ndarray of shape (1,), int
        The intercept; the card's threshold is ``-intercept_[0]``.
    scoring_system_ : ScoringSystem
        The fitted card: print it, export it (``to_html``, ``to_python``,
        ``to_json`` ...) or read its ``train_metrics``.
    status_ : str
        How the solve ended: ``"optimal"`` (proven), ``"time_limit"``,
        ``"feasible"`` ...
    gap_ : float
        Relative gap between the card's objective and the solver's proven
        bound; 0 for a proven optimum.
    n_features_in_ : int
        Number of features seen in :meth:`fit`.
    feature_names_in_ : ndarray of shape (n_features,)
        Column names, when ``X`` in :meth:`fit` was a DataFrame with string
        column names.

    Notes
    -----
    A decision card (the default) has no ``predict_proba``: SLIM's objective
    (training error plus sparsity) says nothing about how likely the
    positive class is at a given score, so the estimator does not pretend
    to know; use :meth:`decision_function` wherever a ranking score is
    needed (e.g. ROC AUC). With ``loss="logistic"`` the card is fitted for
    its risk, and :meth:`predict_proba` gives it.

    Only binary classification is supported.

    Examples
    --------
    >>> import pandas as pd
    >>> from slimwidgets.toolbox.estimator import SLIMClassifier
    >>> X = pd.DataFrame({"fever": [1, 1, 0, 0, 1, 0], "cough": [0, 1, 0, 1, 1, 0]})
    >>> y = ["yes", "yes", "no", "no", "yes", "no"]
    >>> clf = SLIMClassifier(max_size=1).fit(X, y)
    >>> clf.classes_.tolist(), clf.coef_.shape, clf.status_
    (['no', 'yes'], (1, 2), 'optimal')
    >>> list(clf.scoring_system_.points)
    ['fever']
    >>> new = pd.DataFrame({"fever": [1, 0], "cough": [1, 1]})
    >>> clf.predict(new).tolist()
    ['yes', 'no']
    >>> (clf.decision_function(new) > 0).tolist()
    [True, False]
    >>> clf.scoring_system_.threshold, clf.decision_function(new).tolist()  # score 1 and 0
    (1, [0.5, -1.5])
    """

    def __init__(
        self,
        C0=None,
        max_size=None,
        max_fpr=None,
        min_tpr=None,
        signs=None,
        penalties=None,
        exclude=(),
        require=(),
        coef_range=(-10, 10),
        intercept_range=None,
        values=None,
        lock=None,
        constraints=(),
        max_variables=None,
        max_cuts_per_variable=None,
        monotone=None,
        class_weights=None,
        missing=None,
        margin=None,
        zero_score="positive",
        time_limit=DEFAULT_TIME_LIMIT,
        gap=0.0,
        threads=1,
        solver="auto",
        warm_start=False,
        loss="zero_one",
        scale=True,
        rules=None,
        cuts=None,
        max_fpr_by_group=None,
        min_tpr_by_group=None,
        max_fpr_gap=None,
        max_tpr_gap=None,
    ):
        self.C0 = C0
        self.max_size = max_size
        self.max_fpr = max_fpr
        self.min_tpr = min_tpr
        self.signs = signs
        self.penalties = penalties
        self.exclude = exclude
        self.require = require
        self.coef_range = coef_range
        self.intercept_range = intercept_range
        self.values = values
        self.lock = lock
        self.constraints = constraints
        self.max_variables = max_variables
        self.max_cuts_per_variable = max_cuts_per_variable
        self.monotone = monotone
        self.class_weights = class_weights
        self.missing = missing
        self.margin = margin
        self.zero_score = zero_score
        self.time_limit = time_limit
        self.gap = gap
        self.threads = threads
        self.solver = solver
        self.warm_start = warm_start
        self.loss = loss
        self.scale = scale
        self.rules = rules
        self.cuts = cuts
        # fairness between groups (the groups come as the fit parameter sensitive_features)
        self.max_fpr_by_group = max_fpr_by_group
        self.min_tpr_by_group = min_tpr_by_group
        self.max_fpr_gap = max_fpr_gap
        self.max_tpr_gap = max_tpr_gap

    def fit(self, X, y, sample_weight=None, sensitive_features=None):
        """Solve the SLIM program on ``X, y``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Features as they are (an array), or a table of variables (a
            DataFrame) made into rules by ``rules`` (None: if a column is not 0/1).
        y : array-like of shape (n_samples,)
            Labels with exactly two values.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weight of each row.
        sensitive_features : array-like of shape (n_samples,) or str, default=None
            Each row's group (or a column name of the DataFrame ``X``), for
            ``max_fpr_by_group``, ``min_tpr_by_group``, ``max_fpr_gap`` and
            ``max_tpr_gap`` (fairlearn's name; pass it as a fit parameter, e.g.
            through metadata routing).

        Returns
        -------
        self : SLIMClassifier

        Raises
        ------
        ValueError
            For one class or more than two classes, NaN/inf in ``X``, bad
            options, or constraints that no card can meet
            (:class:`slimwidgets.InfeasibleError`, naming a clashing subset).
        slimwidgets.NoSolutionError
            When ``time_limit`` ran out before the solver found any card.
        """
        if isinstance(
            sensitive_features, str
        ):  # a column of the frame, read before X becomes an array
            if not isinstance(X, pd.DataFrame) or sensitive_features not in X.columns:
                raise KeyError(f"sensitive_features={sensitive_features!r} is not a column of X")
        X, sensitive_features = group_column_apart(
            X, sensitive_features
        )  # a text column is the group only
        refuse_time_to_event(np.asarray(y))
        X, builder = build_rules(X, self.rules, self.cuts)
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite=True)
        check_classification_targets(y)
        classes = np.unique(y)
        if len(classes) < 2:
            raise ValueError(
                f"y has only one class ({classes[0]!r}); SLIMClassifier needs examples of both "
                "classes"
            )
        y_type = type_of_target(y, input_name="y", raise_unknown=True)
        if y_type != "binary" or len(classes) != 2:
            shown = ", ".join(repr(c) for c in classes[:6]) + (", ..." if len(classes) > 6 else "")
            raise ValueError(
                f"Only binary classification is supported. The type of the target is {y_type}, "
                f"with {len(classes)} classes ({shown}); a scoring system separates exactly two."
            )
        if sample_weight is not None:
            sample_weight = _check_sample_weight(
                sample_weight, X, dtype=np.float64, ensure_non_negative=True
            )
        names = [
            str(n) for n in getattr(self, "feature_names_in_", [f"x{j}" for j in range(X.shape[1])])
        ]

        options = {p: getattr(self, p) for p in _SPEC_PARAMS}
        options["class_weights"] = self._engine_class_weights(
            classes
        )  # labels -> (negative, positive)
        if builder is not None:
            options = options_by_variable(builder, options)
        warm = None
        if self.warm_start and getattr(self, "scoring_system_", None) is not None:
            warm = self.scoring_system_
        card = driver.fit(
            X,
            y,
            positive=classes[1],
            sample_weight=sample_weight,
            feature_names=names,
            warm_start=warm,
            sensitive_features=sensitive_features,
            **options,
        )

        self.rules_ = builder
        if builder is not None:  # the estimator takes the raw table, as it was given to fit
            card = replace(card, rules=builder)
            self.feature_names_in_, self.n_features_in_ = (
                builder.feature_names_in_,
                builder.n_features_in_,
            )
        self.classes_ = classes
        self.scoring_system_ = card
        self.coef_ = np.asarray(card.coefficients, dtype=np.int64).reshape(1, -1)
        self.intercept_ = np.array([card.intercept], dtype=np.int64)
        self.status_ = card.status
        self.gap_ = card.gap
        return self

    def _engine_class_weights(self, classes):
        """``class_weights`` in the engine's form; a dict keyed by labels becomes a pair."""
        cw = self.class_weights
        if not isinstance(cw, Mapping) or set(cw) == {"negative", "positive"}:
            return cw
        known = {c.item() if isinstance(c, np.generic) else c for c in classes}
        unknown = [k for k in cw if k not in known]
        if unknown:
            raise ValueError(
                f"class_weights names labels that are not in y: {unknown}; the classes are "
                f"{list(classes)} (or use the keys 'negative' and 'positive')"
            )
        return (cw.get(classes[0], 1.0), cw.get(classes[1], 1.0))

    def decision_function(self, X):
        """> 0 exactly where the card predicts ``classes_[1]``, as scikit-learn expects.

        With the paper's rule (``zero_score="error"``) it is the score minus the
        threshold, ``X @ coef_[0] + intercept_[0]``. With the default rule a total
        of exactly 0 predicts ``classes_[1]``, so totals t >= 0 become t + 1/2 and
        totals t < 0 become t - 1/2: the same order of rows (ROC curves, AUC), the
        sign of the prediction, and ``abs(value) - 1/2`` is the distance to the threshold.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = self._engine_matrix(X)
        total = X @ self.coef_[0].astype(np.float64) + float(self.intercept_[0])
        if self.scoring_system_.zero_score == "error":
            return total
        return np.where(self.scoring_system_.predicts_positive(total), total + 0.5, total - 0.5)

    def predict(self, X):
        """The predicted label of each row, one of ``classes_``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        return self.classes_[(self.decision_function(X) > 0).astype(np.intp)]

    @available_if(lambda self: family_of_loss(self.loss).predicts_risk)
    def predict_proba(self, X):
        """Predicted probability of each class (risk cards, ``loss="logistic"``).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, 2)
            Columns in the order of ``classes_``.
        """
        check_is_fitted(self)
        m = self.scoring_system_.multiplier
        X = self._engine_matrix(X)
        # the card's own total, not decision_function's (shifted by 1/2 under the default rule)
        z = (X @ self.coef_[0].astype(np.float64) + float(self.intercept_[0])) / m
        risk = np.where(
            z >= 0, 1 / (1 + np.exp(-np.abs(z))), np.exp(-np.abs(z)) / (1 + np.exp(-np.abs(z)))
        )
        return np.column_stack([1 - risk, risk])

    def _engine_matrix(self, X):
        """The rows as the card's features: raw tables through the fitted rules, if any."""
        if getattr(self, "rules_", None) is not None:
            return self.rules_.transform(X).to_numpy(dtype=np.float64)
        return validate_data(self, X, reset=False, dtype=np.float64, ensure_all_finite=True)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.allow_nan = False
        tags.input_tags.sparse = False
        return tags
