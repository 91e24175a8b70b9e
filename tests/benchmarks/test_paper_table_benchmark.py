"""benchmarks/paper_table.py marks a proof lost since the last committed run (its figures are
measured, not tested): run on bankruptcy against a stored run that had it proven, and not."""

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # benchmark runs: python -m pytest --all runs them

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture
def bench(load_benchmark, tmp_path, monkeypatch):
    module = load_benchmark("paper_table")
    monkeypatch.setattr(module, "STORED", tmp_path / "paper_table.json")
    return module


def test_the_committed_figures_name_every_program(bench):
    stored = json.loads((BENCHMARKS / "paper_table.json").read_text())["programs"]
    assert {k.split()[0] for k in stored} == set(bench.ORDER)
    assert all(v["status"] in ("optimal", "time_limit", "feasible") for v in stored.values())


def _unproven_against(bench, capsys, stored: dict) -> tuple[int, str]:
    """The exit status and the table of bankruptcy at C0 = 0.01 with a time limit of a few
    milliseconds (so it is not proven) against ``stored`` as the last committed run."""
    bench.STORED.write_text(json.dumps({"programs": {"bankruptcy 0.01": stored}}))
    code = bench.main(["--datasets", "bankruptcy", "--C0", "0.01", "--time-limit", "0.001"])
    out = capsys.readouterr().out
    if "| optimal |" in out:
        pytest.skip("proven within the first search: nothing lost to mark")
    return code, out


def test_a_proof_lost_since_the_stored_run_is_a_miss(bench, capsys):
    code, out = _unproven_against(
        bench, capsys, {"status": "optimal", "solve_s": 0.1, "objective": 0.0242}
    )
    assert code == 1 and "**proof lost** (proven in 0.1 s then)" in out
    assert "proofs lost since the last committed run: bankruptcy at C0 = 0.01" in out
    assert "MISS bankruptcy at C0 = 0.01: **proof lost**" in out


def test_a_proof_kept_is_not_marked_and_save_stores_the_run(bench, capsys):
    assert (
        bench.main(["--datasets", "bankruptcy", "--C0", "0.01", "--time-limit", "60", "--save"])
        == 0
    )
    out = capsys.readouterr().out
    assert "| new |" in out and "proofs lost since the last committed run: none" in out
    stored = json.loads(bench.STORED.read_text())["programs"]
    assert stored["bankruptcy 0.01"]["status"] == "optimal"
    assert bench.main(["--datasets", "bankruptcy", "--C0", "0.01", "--time-limit", "60"]) == 0
    assert "| same status |" in capsys.readouterr().out


def test_a_bound_fallen_since_the_stored_run_is_marked(bench, capsys):
    """An unproven program whose proven bound is below the stored one is marked: at a time limit
    of a few milliseconds bankruptcy's bound is below the optimum, stored here as a bound. With
    no part by work stored, the fall is HiGHS's seconds (said); below a stored part by work, it
    is a miss."""
    stored = {"status": "time_limit", "solve_s": 60.0, "objective": 0.0242, "bound": 0.0242}
    code, out = _unproven_against(bench, capsys, stored)
    assert code == 0 and "bound fell with HiGHS's seconds (was 0.0242)" in out
    assert "bounds fallen with HiGHS's seconds (parts by work kept): bankruptcy at C0 = 0.01" in out
    code, out = _unproven_against(bench, capsys, dict(stored, work_bound=0.0242))
    assert code == 1 and "MISS bankruptcy at C0 = 0.01: **bound by work fell** (was 0.0242)" in out


def test_save_stores_the_proven_bound(bench, capsys):
    assert (
        bench.main(["--datasets", "bankruptcy", "--C0", "0.01", "--time-limit", "60", "--save"])
        == 0
    )
    stored = json.loads(bench.STORED.read_text())["programs"]["bankruptcy 0.01"]
    assert stored["status"] == "optimal" and stored["bound"] == stored["objective"]
