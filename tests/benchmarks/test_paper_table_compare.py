"""benchmarks/paper_table.py's comparison with the last committed run: a proof lost and a bound
by work that fell are misses (a MISS line, exit status 1); a bound that fell with HiGHS's seconds
while its part by work held is said, not a miss; an equal run is "same status"."""

import json

import pytest

UNPROVEN = {"status": "time_limit", "solve_s": 59.6, "bound": 0.0091, "work_bound": 0.0007}


@pytest.fixture
def bench(load_benchmark):
    return load_benchmark("paper_table")


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


def test_a_fall_within_float_rounding_is_no_fall_and_a_tiny_bound_is_compared(bench):
    """The tolerance is a share of the bound: mushroom's bound at the "lose no accuracy" C0 is
    ~1e-5, and its fall to 1e-6 is one."""
    rounded = dict(UNPROVEN, work_bound=0.0007 * (1 - 1e-9))
    assert bench.since_last(UNPROVEN, rounded) == ("same status", False)
    tiny = dict(UNPROVEN, bound=1.2e-5, work_bound=1.2e-5)
    said, miss = bench.since_last(tiny, dict(tiny, bound=1e-6, work_bound=1e-6))
    assert miss and said == "**bound by work fell** (was 1.2e-05)"


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


def test_the_committed_run_stores_every_programs_bound_and_part_by_work(bench):
    """The committed json holds a bound for every program and its part by work (null when no
    part of it ended on counted work), never above the bound."""
    programs = json.loads(bench.STORED.read_text())["programs"]
    assert all("bound" in p and "work_bound" in p for p in programs.values())
    assert all(
        p["work_bound"] is None or p["work_bound"] <= p["bound"] + 1e-12 for p in programs.values()
    )
