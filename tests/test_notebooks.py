"""The notebooks in notebooks/ and the Binder environment in binder/.

* every notebook is stored without outputs (and without saved widget state);
* every notebook runs top to bottom in a fresh kernel under nbmake (a pytest run of its own, on a
  copy of the notebook whose outputs are then read back); the kernel imports this checkout and
  reads the paper's data from ``SLIMWIDGETS_DATA`` (the ``shared_data_dir()`` folder);
* the notebooks that need the paper's data say so, without crashing, when the data are missing
  (partial runs, through nbclient directly);
* ``scripts/check_binder.sh`` (fresh venv + binder/requirements.txt + binder/postBuild + notebook
  1).

Markers: ``notebooks`` (execution, about 3 minutes in all) and ``binder`` (about 2-4 minutes);
deselect with ``-m "not notebooks and not binder"`` for a quick run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from needs import missing
from shared_data import shared_data_dir

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
EXPECTED = [
    "01_quickstart.ipynb",
    "02_operational_constraints.ipynb",
    "03_teaching.ipynb",
    "04_deployment.ipynb",
    "05_paper_table.ipynb",
    "06_fairness.ipynb",
    "07_raw_tables.ipynb",
    "08_time_to_event.ipynb",
]
# Notebooks that read the paper's data sets; each marks the cell that loads
# them with the tag "data".
NEEDS_PAPER_DATA = ["02_operational_constraints.ipynb", "05_paper_table.ipynb", "06_fairness.ipynb"]
# What those notebooks print when the data cannot be had.
NO_DATA = "PAPER DATA NOT AVAILABLE"
# Each notebook is designed to run in about a minute on two cores; fail well past that.
BUDGET_SECONDS = 180


def _ids(path: Path) -> str:
    return path.stem


def _kernel_env(data_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["SLIMWIDGETS_DATA"] = str(data_dir)
    # The kernel must import this checkout, whether or not it is installed.
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    )
    env["MPLBACKEND"] = "Agg"
    env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"  # silence the debugger's frozen-modules note
    return env


def _execute(nb, data_dir: Path, timeout: int = 600):
    """Run ``nb`` in place in a fresh python3 kernel started in notebooks/;
    returns the seconds taken."""
    from nbclient import NotebookClient

    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        allow_errors=False,
        resources={"metadata": {"path": str(NOTEBOOK_DIR)}},
    )
    started = time.perf_counter()
    client.execute(env=_kernel_env(data_dir))
    return time.perf_counter() - started


def _text_outputs(cell) -> str:
    parts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            parts.append(out.get("text", ""))
        elif out.get("output_type") in ("execute_result", "display_data"):
            parts.append(str(out.get("data", {}).get("text/plain", "")))
        elif out.get("output_type") == "error":
            parts.append(f"{out.get('ename')}: {out.get('evalue')}")
    return "".join(parts)


def _data_dir() -> Path:
    folder = shared_data_dir()
    if not folder.is_dir():
        missing(f"the paper's data sets are not at {folder}; set SLIMWIDGETS_DATA")
    return folder


# -- stored form -----------------------------------------------------------------------------------
def test_the_notebooks_are_all_there():
    assert [p.name for p in NOTEBOOKS] == EXPECTED


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids)
def test_stored_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3"
    assert "widgets" not in nb.metadata, "saved widget state: clear it before committing"
    dirty = []
    for k, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            assert "outputs" not in cell and "execution_count" not in cell
            continue
        if cell.outputs or cell.execution_count is not None:
            dirty.append(k)
    assert not dirty, (
        f"{path.name}: cells {dirty} carry outputs or execution counts; clear them "
        f"(e.g. jupyter nbconvert --clear-output --inplace {path.relative_to(ROOT)})"
    )


@pytest.mark.parametrize("name", NEEDS_PAPER_DATA)
def test_data_cell_is_tagged(name):
    nb = nbformat.read(NOTEBOOK_DIR / name, as_version=4)
    tagged = [c for c in nb.cells if "data" in c.metadata.get("tags", [])]
    assert len(tagged) == 1 and "load(" in tagged[0].source


# -- execution -------------------------------------------------------------------------------------
def _run_nbmake(path: Path, data_dir: Path, work: Path):
    """Run ``path`` with nbmake (``pytest --nbmake``) on a copy in ``work``; returns the executed
    notebook and the seconds taken. The copy keeps the notebook's outputs (``--overwrite``)."""
    copy = work / path.name
    shutil.copy(path, copy)
    started = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--nbmake",
            "--overwrite",
            "--nbmake-timeout=600",
            "-q",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(work),
            str(copy),
        ],
        env=_kernel_env(data_dir),
        cwd=work,
        capture_output=True,
        text=True,
        timeout=900,
    )
    seconds = time.perf_counter() - started
    assert proc.returncode == 0, (
        f"nbmake failed on {path.name}:\n{(proc.stdout + proc.stderr)[-4000:]}"
    )
    return nbformat.read(copy, as_version=4), seconds


@pytest.mark.notebooks
@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids)
def test_notebook_runs(path, record_property, tmp_path):
    data_dir = _data_dir()
    nb, seconds = _run_nbmake(path, data_dir, tmp_path)
    record_property("seconds", round(seconds, 1))
    text = "\n".join(_text_outputs(c) for c in nb.cells if c.cell_type == "code")
    assert NO_DATA not in text, f"{path.name} did not find the paper's data in {data_dir}"
    assert seconds < BUDGET_SECONDS, f"{path.name} took {seconds:.0f} s (designed for about 60 s)"


@pytest.mark.notebooks
def test_paper_table_without_data_says_so(tmp_path):
    """Notebook 5 with an empty data folder: every data set is reported missing,
    and it runs to the end."""
    nb = nbformat.read(NOTEBOOK_DIR / "05_paper_table.ipynb", as_version=4)
    _execute(nb, tmp_path)
    loop = next(c for c in nb.cells if "data" in c.metadata.get("tags", []))
    assert _text_outputs(loop).count(NO_DATA) == 8


@pytest.mark.notebooks
def test_operational_constraints_without_data_says_so(tmp_path):
    """Notebook 2 up to its data cell, with an empty data folder: it says so and falls
    back to the demo data."""
    nb = nbformat.read(NOTEBOOK_DIR / "02_operational_constraints.ipynb", as_version=4)
    last = next(k for k, c in enumerate(nb.cells) if "data" in c.metadata.get("tags", []))
    nb.cells = nb.cells[: last + 1]
    _execute(nb, tmp_path)
    text = _text_outputs(nb.cells[last])
    assert NO_DATA in text and "embedded demo data (fallback)" in text


# -- Binder ----------------------------------------------------------------------------------------
@pytest.mark.binder
def test_binder_environment(tmp_path):
    """scripts/check_binder.sh: fresh venv, binder/requirements.txt, binder/postBuild,
    notebook 1, JupyterLab URL."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PYTHON"] = sys.executable
    env["TMPDIR"] = str(tmp_path)
    proc = subprocess.run(
        ["bash", str(ROOT / "scripts" / "check_binder.sh"), str(ROOT)],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    log = (proc.stdout + "\n" + proc.stderr)[-6000:]
    assert proc.returncode == 0, log
    assert "OK: binder/ installs the package and runs the quickstart" in proc.stdout, log
