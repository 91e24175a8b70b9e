"""The test tiers of the root conftest.py, run on a few made-up tests with pytest's pytester.

Plain ``pytest`` leaves out the opt-in markers and runs two seeds of each brute-force test;
``--all`` runs everything with every seed; ``SLIMWIDGETS_TESTS_SEEDS`` chooses seeds.
"""

from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # each case is a pytest run of its own (about 2 s)

ROOT_CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"

MADE_UP = """
import pytest

@pytest.mark.seeds(20)
def test_brute(seed):
    assert 0 <= seed < 20

def test_plain():
    pass

@pytest.mark.slow
def test_slow():
    pass

@pytest.mark.e2e
def test_browser():
    pass
"""


@pytest.fixture
def made_up(pytester, monkeypatch):
    monkeypatch.delenv("SLIMWIDGETS_TESTS_SEEDS", raising=False)
    pytester.makeconftest(ROOT_CONFTEST.read_text())
    pytester.makeini(
        "[pytest]\nmarkers =\n    slow: slow\n    e2e: e2e\n    notebooks: nb\n    binder: b\n"
    )
    pytester.makepyfile(test_made_up=MADE_UP)
    return pytester


def _ran(result) -> list[str]:
    return sorted(
        r.nodeid.split("::")[-1]
        for r in result.getreports("pytest_runtest_logreport")
        if r.when == "call"
    )


def test_plain_pytest_is_the_fast_tier_with_two_seeds(made_up):
    result = made_up.inline_run()
    assert _ran(result) == ["test_brute[0]", "test_brute[1]", "test_plain"]
    assert len(result.getcalls("pytest_deselected")[0].items) == 2  # slow and e2e, deselected


def test_all_runs_every_marker_and_every_seed_and_lists_the_slowest(made_up):
    result = made_up.runpytest("--all")
    result.assert_outcomes(passed=23)
    result.stdout.fnmatch_lines(["*slowest 25 durations*"])


def test_a_named_file_runs_what_it_holds(made_up):
    result = made_up.inline_run("test_made_up.py")
    assert _ran(result) == [
        "test_browser",
        "test_brute[0]",
        "test_brute[1]",
        "test_plain",
        "test_slow",
    ]


def test_a_marker_expression_chooses_for_itself(made_up):
    assert _ran(made_up.inline_run("-m", "slow")) == ["test_slow"]


@pytest.mark.parametrize("chosen, seeds", [("all", range(20)), ("5-7,30", [5, 6, 7]), ("25", [])])
def test_the_environment_chooses_the_seeds(made_up, monkeypatch, chosen, seeds):
    monkeypatch.setenv("SLIMWIDGETS_TESTS_SEEDS", chosen)
    brute = [n for n in _ran(made_up.inline_run()) if n.startswith("test_brute")]
    assert brute == sorted(f"test_brute[{s}]" for s in seeds)


def test_ci_runs_the_readmes_full_test_command():
    """.ci/run runs the README's set-up line, the one that runs every tier."""
    root = ROOT_CONFTEST.parent
    readme = (root / "README.md").read_text(encoding="utf-8")
    line = next(
        x for x in readme.splitlines() if x.startswith('python -m pip install -e ".[test]"')
    )
    assert line.endswith("python -m pytest --all")
    assert line in (root / ".ci" / "run").read_text(encoding="utf-8").splitlines()
