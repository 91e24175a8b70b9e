"""The test tiers: what plain ``python -m pytest`` runs and what ``python -m pytest --all`` adds.

Plain ``python -m pytest`` (no paths, no ``-m``) is the fast tier: it deselects the tests marked
``slow``, ``e2e``, ``notebooks`` and ``binder`` and gives each brute-force test two of its seeds.
``--all`` runs every test with every seed and lists the 25 slowest (CI runs it, via ``.ci/run``).
Naming a file or a test runs what is named, slow or not; ``-m`` chooses the markers itself.

The seeds come from one place, as scikit-learn's ``global_random_seed`` does: a test marked
``@pytest.mark.seeds(n)`` takes a ``seed`` argument, parametrised with ``SEEDS_BY_DEFAULT`` of
``range(n)``, or with all of them under ``--all`` or ``SLIMWIDGETS_TESTS_SEEDS=all``.
``SLIMWIDGETS_TESTS_SEEDS`` also takes a list such as ``3,7`` or a range such as ``0-9``.
This file sits at the repository's root so that ``--all`` is known whatever paths are named.
"""

import os

import pytest

pytest_plugins = ("pytester",)  # tests/test_tiers.py runs this file on a few made-up tests

OPT_IN_MARKERS = ("slow", "e2e", "notebooks", "binder")
SEEDS_BY_DEFAULT = (0, 1)
DURATIONS_IN_FULL_RUN = 25


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--all",
        action="store_true",
        dest="run_all",
        help="run every test (slow, e2e, notebooks, binder) with every seed; what CI runs",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "seeds(n): a brute-force test over range(n) of seeds, "
        "two of them by default and all with --all or SLIMWIDGETS_TESTS_SEEDS=all",
    )
    if config.option.run_all:
        if not config.option.durations:
            config.option.durations = DURATIONS_IN_FULL_RUN
        return
    if not config.option.markexpr and not config.option.file_or_dir:
        config.option.markexpr = " and ".join(f"not {m}" for m in OPT_IN_MARKERS)


def pytest_report_header(config: pytest.Config) -> str:
    if config.option.run_all:
        return "tier: everything (--all), every seed"
    if not config.option.file_or_dir and config.option.markexpr.startswith("not slow and"):
        return (
            f"tier: fast ({', '.join(OPT_IN_MARKERS)} deselected; --all runs them), "
            f"seeds {_seed_words()}"
        )
    return f"tier: as named, seeds {_seed_words()}"


def _seed_words() -> str:
    chosen = os.environ.get("SLIMWIDGETS_TESTS_SEEDS", "")
    return chosen or ", ".join(map(str, SEEDS_BY_DEFAULT))


def chosen_seeds(n: int, run_all: bool, chosen: str) -> list[int]:
    """The seeds of ``range(n)`` a test runs with.

    Parameters
    ----------
    n : int
        How many seeds the test has (``@pytest.mark.seeds(n)``).
    run_all : bool
        ``--all`` was given: every seed.
    chosen : str
        ``SLIMWIDGETS_TESTS_SEEDS``: ``""`` (the default seeds), ``"all"``, ``"3,7"`` or ``"0-9"``.

    Examples
    --------
    >>> chosen_seeds(20, False, "")
    [0, 1]
    >>> chosen_seeds(20, False, "5-7,30")
    [5, 6, 7]
    >>> len(chosen_seeds(20, True, ""))
    20
    """
    if run_all or chosen.strip().lower() == "all":
        return list(range(n))
    if not chosen.strip():
        return [s for s in SEEDS_BY_DEFAULT if s < n]
    wanted: set[int] = set()
    for part in chosen.split(","):
        first, _, last = part.strip().partition("-")
        wanted.update(range(int(first), int(last or first) + 1))
    return sorted(s for s in wanted if s < n)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    marker = metafunc.definition.get_closest_marker("seeds")
    if marker is None:
        return
    if "seed" not in metafunc.fixturenames:
        raise pytest.UsageError(f"{metafunc.definition.nodeid} is marked seeds() but takes no seed")
    seeds = chosen_seeds(
        marker.args[0],
        metafunc.config.option.run_all,
        os.environ.get("SLIMWIDGETS_TESTS_SEEDS", ""),
    )
    metafunc.parametrize("seed", seeds)  # none chosen: pytest skips it, saying so
