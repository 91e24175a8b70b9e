"""benchmarks/paper_table.py's comparison with the last committed run: a proof lost and a bound
by work that fell are misses (a MISS line, exit status 1); a bound that fell with HiGHS's seconds
while its part by work held is said, not a miss; an equal run is "same status"."""

import importlib.util
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"

UNPROVEN = {"status": "time_limit", "solve_s": 59.6, "bound": 0.0091, "work_bound": 0.0007}


@pytest.fixture
def bench():
    sys.path.insert(0, str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location("paper_table", BENCHMARKS / "paper_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    sys.path.remove(str(BENCHMARKS))


def test_an_equal_run_is_the_same_status(bench):
    assert bench.since_last(UNPROVEN, dict(UNPROVEN)) == ("same status", False)
    proven = {"status": "optimal", "solve_s": 14.7, "bound": 0.0522, "work_bound": None}
    assert bench.since_last(proven, dict(proven, solve_s=30.2)) == ("same status", False)


def test_a_lost_proof_is_a_miss(bench):
    before = {"status": "optimal", "solve_s": 14.7, "bound": 0.0522}
    said, miss = bench.since_last(before, {"status": "time_limit", "bound": 0.0522})
    assert miss and said == "**proof lost** (proven in 14.7 s then)"


def test_a_bound_by_work_that_fell_is_a_miss(bench):
    said, miss = bench.since_last(UNPROVEN, dict(UNPROVEN, work_bound=0.0005))
    assert miss and said == "**bound by work fell** (was 0.0007)"
    said, miss = bench.since_last(UNPROVEN, dict(UNPROVEN, work_bound=0.0005, bound=0.02))
    assert miss, "the part by work is what must not fall, whatever HiGHS added"
    said, miss = bench.since_last(UNPROVEN, dict(UNPROVEN, work_bound=None, bound=0.0006))
    assert miss and said == "**bound by work fell** (was 0.0007)"


def test_a_scan_that_ended_on_seconds_is_said_and_missed_only_below_the_part_by_work(bench):
    """On a busy machine the scan may end on seconds before its work limit: no part by work.
    Its whole bound is then held to the stored part by work."""
    now = dict(UNPROVEN, work_bound=None, bound=0.0091)
    said, miss = bench.since_last(UNPROVEN, now)
    assert not miss and said == "same status (the scan ended on seconds here, not on work)"


def test_a_bound_that_fell_with_highs_seconds_only_is_said_not_missed(bench):
    said, miss = bench.since_last(UNPROVEN, dict(UNPROVEN, bound=0.0054))
    assert not miss and said == "bound fell with HiGHS's seconds (was 0.0091)"


def test_a_fall_within_the_printed_decimals_is_no_fall(bench):
    assert bench.since_last(UNPROVEN, dict(UNPROVEN, work_bound=0.00066)) == (
        "same status",
        False,
    )


def test_a_proof_gained_and_a_new_program_are_not_misses(bench):
    assert bench.since_last(UNPROVEN, {"status": "optimal", "bound": 0.0185}) == (
        "proof gained (was time_limit)",
        False,
    )
    assert bench.since_last(None, UNPROVEN) == ("new", False)


def test_the_summary_prints_a_miss_line_per_miss(bench, capsys):
    rows = [
        ["heart", "0.01", "**bound by work fell** (was 0.0700)"],
        ["breastcancer", "max-acc", "bound fell with HiGHS's seconds (was 0.0091)"],
        ["mammo", "0.01", "**proof lost** (proven in 0.2 s then)"],
    ]
    assert bench.summary(rows, [True, False, True]) == ["heart 0.01", "mammo 0.01"]
    out = capsys.readouterr().out
    assert "MISS heart at C0 = 0.01: **bound by work fell** (was 0.0700)" in out
    assert "MISS mammo at C0 = 0.01: **proof lost** (proven in 0.2 s then)" in out
    assert "MISS breastcancer" not in out
    assert "bounds fallen with HiGHS's seconds (parts by work kept): breastcancer" in out
