"""SLIMClassifier's parameters are the options table's estimator rows (plus its own, ``OWN``):
scikit-learn reads them from ``__init__``'s signature, so they are written
there and checked here."""

from __future__ import annotations

import inspect

import pytest
from sklearn.base import clone

from slimwidgets.core.options import OPTION, OPTIONS, estimator_options
from slimwidgets.core.spec import make_spec
from slimwidgets.toolbox.estimator import _SPEC_PARAMS, SLIMClassifier

# The estimator's own parameters, not spec options: warm_start, and how a raw table becomes
# 0/1 rules before the spec sees any feature (rules, cuts: issue 19, as in fit's own keywords).
OWN = {"warm_start", "rules", "cuts"}


def test_the_parameters_are_the_table_s_estimator_options():
    params = set(SLIMClassifier().get_params())
    assert params - OWN == set(estimator_options())
    assert set(_SPEC_PARAMS) == set(estimator_options())
    assert [row.name for row in OPTIONS if row.estimator] == list(estimator_options())
    assert not OWN & {
        row.name for row in OPTIONS
    }  # none of them is a spec option under another guise


def test_the_estimator_only_parameters_are_documented_and_default_to_off():
    signature = inspect.signature(SLIMClassifier.__init__).parameters
    for name in OWN:
        assert f"\n    {name} : " in SLIMClassifier.__doc__
        assert signature[name].default in (None, False)


@pytest.mark.parametrize("name", estimator_options())
def test_each_parameter_s_default_gives_the_spec_s_default_and_is_documented(name):
    default = inspect.signature(SLIMClassifier.__init__).parameters[name].default
    assert getattr(make_spec(**{name: default}), name) == OPTION[name].default
    assert f"\n    {name} : " in SLIMClassifier.__doc__


@pytest.mark.parametrize("name", estimator_options())
def test_each_parameter_reaches_the_spec(name):
    row = OPTION[name]
    clf = clone(SLIMClassifier(**{**row.example_with, name: row.example}))
    assert clf.get_params()[name] == row.example
    options = {p: getattr(clf, p) for p in _SPEC_PARAMS}
    assert getattr(make_spec(**options), name) == row.example
