"""core/formatting.py: one way to write a share, a duration, a difference and a plain value,
and no second copy of these formatters anywhere in the package."""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path

import numpy as np
import pytest

from slimwidgets import make_spec
from slimwidgets.core.constraints import needs
from slimwidgets.core.formatting import percent, plain, seconds, setting_percent, signed
from slimwidgets.core.wording import describe_spec

PACKAGE = Path(__file__).resolve().parents[2] / "slimwidgets"
HOME = PACKAGE / "core" / "formatting.py"


@pytest.mark.parametrize(
    ("share", "text"),
    [(0.953, "95.3 %"), (0.0, "0.0 %"), (1.0, "100.0 %"), (None, "–"), (math.nan, "–")],
)
def test_a_share_reads_with_one_decimal(share, text):
    assert percent(share) == text
    assert percent(math.inf) == "–"


def test_two_shares_that_round_alike_get_a_second_decimal():
    assert percent(0.97101, 0.97149) == "97.10 %"
    assert percent(0.97101, 0.97101) == "97.1 %"  # the same share needs no second decimal
    assert percent(0.971, 0.95) == "97.1 %"


def test_a_setting_reads_with_the_digits_it_was_given():
    assert [setting_percent(x) for x in (0.2, 0.125, 0.05, 1 / 3)] == [
        "20 %",
        "12.5 %",
        "5 %",
        "33.33 %",
    ]
    # the "solved for" line writes caps through it
    assert "max FPR 12.5 %" in describe_spec(make_spec(max_fpr=0.125))


def test_durations_and_differences():
    assert [seconds(s) for s in (5.04, 0.347, 1.0, None)] == ["5.0 s", "0.35 s", "1.0 s", "–"]
    assert signed(-0.0123, 4) == "\u22120.0123" and signed(0.5, 1) == "+0.5"
    assert signed(0, 0) == "+0"


def test_plain_values_are_json_as_they_were():
    value = {"a": (np.int64(2), np.float64(0.5)), "b": np.bool_(True), "c": "x"}
    assert plain(value) == {"a": [2, 0.5], "b": True, "c": "x"}
    assert json.dumps(plain(value))  # numpy scalars would not serialise
    assert type(plain(np.int32(3))) is int
    assert plain(needs("a", "b")) == needs("a", "b").to_dict()


def test_spec_json_keeps_its_plain_values():
    spec = make_spec(max_fpr=0.2, constraints=[needs("a", "b")], signs={"a": "+"})
    assert json.loads(json.dumps(spec.to_dict())) == spec.to_dict()


FORMATTERS = {"percent", "setting_percent", "seconds", "signed", "plain"}
COPIES = {"_pct", "_plain", "_is_binary"}


def _defined_functions(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def test_no_module_keeps_its_own_copy_of_a_formatter():
    """The formatters live in core/formatting.py only; a 0/1 column is told by rules.is_binary."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == HOME:
            continue
        copies = _defined_functions(path) & (FORMATTERS | COPIES)
        found += [f"{path.relative_to(PACKAGE)}: {name}" for name in sorted(copies)]
    assert not found, "formatters defined outside core/formatting.py:\n" + "\n".join(found)


def test_the_copy_check_sees_a_copy(tmp_path):
    fake = tmp_path / "fake.py"
    fake.write_text("def _pct(v):\n    return f'{100 * v:.1f} %'\n", encoding="utf-8")
    assert _defined_functions(fake) & COPIES == {"_pct"}
