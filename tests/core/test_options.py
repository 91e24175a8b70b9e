"""The options table (slimwidgets/core/options.py) is the one list of options: every row is tried
with its example value, and everything that lists options is checked to read the table."""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from slimwidgets.core.options import OPTION, OPTIONS, named_features, options_rst, refusals
from slimwidgets.core.spec import RISK_REFUSALS, Spec, make_spec, refused_options, set_options
from slimwidgets.core.wording import _spec_items, spec_changes
from slimwidgets.fitting.conflicts import _relaxable, _without

REPO = Path(__file__).resolve().parents[2]
NAMES = [row.name for row in OPTIONS]


def example_spec(row) -> Spec:
    """A spec that sets ``row`` to its example (with the options it needs)."""
    return make_spec(**{**row.example_with, row.name: row.example})


def base_spec(row) -> Spec:
    """The same spec without ``row`` set."""
    return make_spec(**row.example_with)


def test_every_spec_field_is_a_row_and_every_row_a_field():
    assert [f.name for f in dataclasses.fields(Spec)] == NAMES
    assert len(set(NAMES)) == len(NAMES) == len(OPTION)
    params = inspect.signature(make_spec).parameters
    assert list(params) == NAMES
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params.values())


def test_an_unknown_option_is_a_type_error_with_a_hint():
    with pytest.raises(
        TypeError, match="unexpected keyword argument 'max_fp'.*did you mean 'max_fpr'"
    ):
        make_spec(max_fp=0.1)


@pytest.mark.parametrize("row", OPTIONS, ids=NAMES)
def test_the_default_is_what_an_empty_spec_holds_and_passes_its_check(row):
    assert getattr(Spec(), row.name) == row.default == getattr(make_spec(), row.name)
    assert row.check(row.default, row.name) == row.default
    assert make_spec(**{row.name: row.signature_default}) == make_spec()


@pytest.mark.parametrize("row", OPTIONS, ids=NAMES)
def test_the_example_sets_the_option_and_survives_json(row):
    spec = example_spec(row)
    assert getattr(spec, row.name) == row.example != row.default
    assert Spec.from_dict(json.loads(json.dumps(spec.to_dict()))) == spec
    assert (row.name in base_spec(row).to_dict()) == (not row.omit_default)
    assert row.name in spec.to_dict()


@pytest.mark.parametrize("row", OPTIONS, ids=NAMES)
def test_a_value_of_the_wrong_kind_is_refused_naming_the_option(row):
    with pytest.raises((TypeError, ValueError)) as info:
        make_spec(**{**row.example_with, row.name: object()})
    assert row.name in str(info.value)


@pytest.mark.parametrize("row", OPTIONS, ids=NAMES)
def test_the_solved_for_line_words_exactly_the_rows_with_words(row):
    before, after = _spec_items(base_spec(row)), _spec_items(example_spec(row))
    new = {key: item for key, item in after.items() if before.get(key) != item}
    changes = spec_changes(base_spec(row), example_spec(row))
    if row.words is None:
        assert new == {} and changes == []
    else:
        assert new and {label for label, _ in new.values()} == {row.words.label}
        assert len(changes) == len(new)


@pytest.mark.parametrize("row", OPTIONS, ids=NAMES)
def test_conflict_explanation_relaxes_exactly_the_relaxable_rows(row):
    spec = example_spec(row)
    relaxed = [item for item in _relaxable(spec) if item[0] == row.name]
    assert [item for item in _relaxable(base_spec(row)) if item[0] == row.name] == []
    if row.relax is None:
        assert relaxed == []
    else:
        assert relaxed and all(desc for _, _, desc in relaxed)
        assert _without(spec, relaxed) == base_spec(row)


@pytest.mark.parametrize("row", OPTIONS, ids=NAMES)
def test_the_rows_that_name_features_are_checked_against_the_data(row):
    named = named_features({row.name: row.example})
    if row.names is None:
        assert named == {}
        return
    assert named and all(named.values())
    assert named.items() <= example_spec(row).named_features().items()
    known = {n for names in base_spec(row).named_features().values() for n in names}
    for label, names in named.items():
        if not set(names) <= known:  # (group_reversed names members of the example's group)
            with pytest.raises(
                KeyError, match=f"{label} names unknown features".replace("[", r"\[")
            ):
                example_spec(row).check_names(sorted(known))


REFUSALS = [(row, r) for row in OPTIONS for r in row.refused]


@pytest.mark.parametrize("row, refusal", REFUSALS, ids=[r.name(row.name) for row, r in REFUSALS])
def test_a_refused_option_is_refused_with_its_reason(row, refusal):
    value = row.example if refusal.value is None else refusal.value
    with pytest.raises(ValueError) as info:
        make_spec(**{**row.example_with, row.name: value, "loss": refusal.loss})
    assert refusal.reason in str(info.value)
    assert refusal.name(row.name) in refused_options(make_spec(loss=refusal.loss))
    family = make_spec(**{**row.example_with, "loss": refusal.loss})
    assert set_options(family, refused_options(family)) == {}


def test_the_loss_choices_are_the_losses_there_are():
    from slimwidgets.core.losses import LOSSES

    assert OPTION["loss"].choices == LOSSES


def test_the_refusals_read_the_table():
    assert RISK_REFUSALS == {name: r.reason for name, (_, r) in refusals("logistic").items()}
    assert {name for loss in ("zero_one", "logistic") for name in refusals(loss)} == set(refusals())


def test_every_option_is_on_the_documentation_s_table():
    text = options_rst()
    for row in OPTIONS:
        assert f"   * - ``{row.name}``" in text
        if row.flag is not None:
            assert f"``{row.flag.flag}``" in text


# A toy option added to the table before anything reads it: a cap in [0, 1], worded, relaxable,
# with a flag. Nothing else is edited; Spec, make_spec, the words, conflict explanation and the
# command line must all know it.
TOY = r"""
import importlib.util, json, sys

class AddToy:
    def find_spec(self, name, path=None, target=None):
        if name != "slimwidgets.core.options":
            return None
        sys.meta_path.remove(self)
        found = importlib.util.find_spec(name)
        run = found.loader.exec_module

        def exec_module(module):
            run(module)
            toy = module.Option(
                "toy_cap", None, 0.3, module.v.fraction, "float | None", "a toy cap",
                words=module.Words("toy", module.setting_percent),
                relax=module.Relax(lambda x: f"toy_cap={x:g}"),
                flag=module.Flag("--toy-cap", "a toy cap at most FRACTION", "FRACTION",
                                 parse=module.text_number),
                omit_default=True)
            module.OPTIONS = module.OPTIONS + (toy,)
            module.OPTION["toy_cap"] = toy

        found.loader.exec_module = exec_module
        return found

sys.meta_path.insert(0, AddToy())

import contextlib, io
from slimwidgets.cli import _join_negative_ranges, _spec_options, build_parser, main
from slimwidgets.core.spec import Spec, make_spec
from slimwidgets.core.wording import describe_spec, spec_changes
from slimwidgets.fitting.conflicts import _relaxable, _without

spec = make_spec(toy_cap=0.3, max_size=2)
try:
    make_spec(toy_cap=2)
    bad = ""
except ValueError as exc:
    bad = str(exc)
help_text, err = io.StringIO(), io.StringIO()
with contextlib.redirect_stdout(help_text), contextlib.redirect_stderr(err):
    main(["fit", "--help"])
    code = main(["demo", "--toy-cap", "2"])
print(json.dumps({
    "field": spec.toy_cap,
    "json": Spec.from_dict(json.loads(json.dumps(spec.to_dict()))) == spec,
    "omitted": "toy_cap" not in make_spec().to_dict(),
    "line": describe_spec(spec),
    "changes": spec_changes(make_spec(max_size=2), spec),
    "relaxed": [desc for _, _, desc in _relaxable(spec)],
    "without": _without(spec, [item for item in _relaxable(spec) if item[0] == "toy_cap"]).toy_cap,
    "cli": _spec_options(
        build_parser().parse_args(_join_negative_ranges(["demo", "--toy-cap", "0.3"]))
    ),
    "help": " ".join(help_text.getvalue().split()),
    "bad": bad,
    "cli_bad": [code, err.getvalue()],
}))
"""


@pytest.mark.slow
def test_a_new_row_is_all_it_takes_for_spec_words_conflicts_and_the_command_line():
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, "-c", TOY], capture_output=True, text=True, cwd=REPO, env=env, timeout=600
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["field"] == 0.3 and out["json"] and out["omitted"]
    assert out["line"].endswith("· toy 30 %")
    assert out["changes"] == ["added toy 30 %"]
    assert out["relaxed"] == ["max_size=2", "toy_cap=0.3"]
    assert out["without"] is None
    assert out["cli"] == {"toy_cap": 0.3}
    assert "--toy-cap FRACTION a toy cap at most FRACTION" in out["help"]
    assert out["bad"] == "toy_cap must be a number in [0, 1], got 2"
    assert (
        out["cli_bad"][0] == 2
        and "argument --toy-cap: toy_cap must be a number in [0, 1], got 2.0" in out["cli_bad"][1]
    )


def test_the_solved_for_line_words_no_time_limit():
    """``time_limit=None`` (wait for the proof) is worded, not formatted as a number."""
    from slimwidgets.core.spec import make_spec
    from slimwidgets.core.wording import describe_spec

    assert describe_spec(make_spec(time_limit=None)).endswith("limit none, until proven")
    assert describe_spec(make_spec(time_limit=7)).endswith("limit 7 s")
