"""The front end's own unit tests (vitest + jsdom) and the freshness of the shipped bundle."""

from __future__ import annotations

import filecmp
import shutil
import subprocess

import pytest

from lab import REPO, SETUP_HINT

JS = REPO / "js"
STATIC = REPO / "slimwidgets" / "widgets" / "static"


@pytest.fixture(scope="module")
def node_modules():
    if shutil.which("npx") is None or not (JS / "node_modules" / ".bin" / "vitest").exists():
        pytest.fail(f"the front end's npm packages are not installed: {SETUP_HINT}", pytrace=False)
    return JS / "node_modules"


def test_vitest_suite(node_modules):
    run = subprocess.run(
        ["npx", "--no-install", "vitest", "run", "--reporter=dot"],
        cwd=JS,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, f"vitest failed:\n{run.stdout[-4000:]}\n{run.stderr[-2000:]}"


def test_shipped_bundle_is_built_from_the_sources(node_modules, tmp_path):
    run = subprocess.run(
        ["node", "build.mjs", "--outdir", str(tmp_path)],
        cwd=JS,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    for name in (
        "card.js",
        "chart.js",
        "card.css",
        "alternatives.js",
        "alternatives.css",
        "cuts.js",
        "cuts.css",
        "groups.js",
        "groups.css",
        "THIRD_PARTY_LICENSES.txt",
    ):
        assert (STATIC / name).is_file(), f"{name} is not in the package: {SETUP_HINT}"
        assert filecmp.cmp(tmp_path / name, STATIC / name, shallow=False), (
            f"static/{name} is stale: rebuild with `cd js && npm run build`"
        )
