"""The command line's spec flags come from the options table: every flag is in ``--help``, reads
its row's example back, and names its unknown features by the flag."""

from __future__ import annotations

import pytest

from slimwidgets.cli import (
    CliError,
    _check_names,
    _join_negative_ranges,
    _spec_options,
    build_parser,
    main,
)
from slimwidgets.core.options import OPTION, OPTIONS, flagged
from slimwidgets.core.spec import make_spec

FLAGGED = flagged()
# rows set through another row's flag (coef_ranges: --coef-range NAME=LO:HI)
BY_FLAG = {row.flag.per_feature: row for row in FLAGGED if row.flag.per_feature}
REACHED = FLAGGED + [OPTION[name] for name in BY_FLAG]


def _text(value) -> str:
    if isinstance(value, tuple) and len(value) == 2 and all(isinstance(x, int) for x in value):
        return f"{value[0]}:{value[1]}"
    return str(value)


def _argv(name: str, value) -> list[str]:
    """The flags that set option ``name`` to ``value``."""
    row = OPTION[name] if name not in BY_FLAG else BY_FLAG[name]
    flag = row.flag
    if name in BY_FLAG:
        return [a for k, x in value.items() for a in (flag.flag, f"{k}={_text(x)}")]
    if flag.kind == "switch":
        return [flag.flag]
    if flag.kind == "list":
        return [a for item in value for a in (flag.flag, item)]
    if flag.kind == "assign":
        return [a for k, x in value.items() for a in (flag.flag, f"{k}={_text(x)}")]
    return [flag.flag, _text(value)]


@pytest.mark.parametrize("command", ["fit", "demo"])
def test_help_lists_every_option_that_has_a_flag(command, capsys):
    assert main([command, "--help"]) == 0
    text = capsys.readouterr().out
    for row in FLAGGED:
        assert row.flag.flag in text, row.name
        assert " ".join(row.flag.help.split()[:4]) in " ".join(text.split()), row.name


@pytest.mark.parametrize("row", REACHED, ids=[row.name for row in REACHED])
def test_each_flag_reads_its_row_s_example(row):
    argv = [
        a
        for name, value in row.example_with.items()
        if name in OPTION and OPTION[name].flag
        for a in _argv(name, value)
    ]
    argv += _argv(row.name, row.example)
    args = build_parser().parse_args(_join_negative_ranges(["demo", *argv]))
    opts = _spec_options(args)
    spec = make_spec(**{**row.example_with, **opts})
    assert getattr(spec, row.name) == row.example


@pytest.mark.parametrize(
    "row",
    [r for r in REACHED if r.names is not None],
    ids=[r.name for r in REACHED if r.names is not None],
)
def test_an_unknown_feature_is_named_by_its_flag(row):
    flag = (BY_FLAG.get(row.name) or row).flag.flag
    args = build_parser().parse_args(_join_negative_ranges(["demo", *_argv(row.name, row.example)]))
    with pytest.raises(CliError, match=f"{flag} names an unknown feature"):
        _check_names(_spec_options(args), ["zz"], "Y")


@pytest.mark.parametrize(
    "row",
    [r for r in FLAGGED if r.flag.kind == "value"],
    ids=[r.name for r in FLAGGED if r.flag.kind == "value"],
)
def test_a_value_the_spec_refuses_is_a_usage_error_naming_the_flag(row, capsys):
    assert main(["demo", row.flag.flag, "-1:-2" if row.flag.metavar == "LO:HI" else "-1"]) == 2
    err = capsys.readouterr().err
    assert f"argument {row.flag.flag}: {row.name}" in err and "Traceback" not in err


def test_the_table_s_rows_without_a_flag_are_not_on_the_command_line(capsys):
    assert main(["fit", "--help"]) == 0
    text = capsys.readouterr().out
    for row in OPTIONS:
        if row.flag is None:
            assert "--" + row.name.replace("_", "-") not in text, row.name
