"""The documentation (docs/) builds offline with Sphinx, warnings as errors, and is complete.

The API reference is rendered from the numpydoc docstrings and the notebooks are rendered as
pages without being executed; a docstring that Sphinx cannot parse fails this test.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

import slimwidgets

pytestmark = pytest.mark.slow  # a Sphinx build: python -m pytest --all runs them

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def built_docs(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("docs")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-W",
            "--keep-going",
            "-q",
            "-b",
            "html",
            "-d",
            str(out / "doctrees"),
            str(ROOT / "docs"),
            str(out / "html"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, f"the docs build failed or warned:\n{run.stdout}\n{run.stderr}"
    return out / "html"


def test_every_public_name_is_in_the_api_reference(built_docs):
    pages = "".join(p.read_text(encoding="utf-8") for p in (built_docs / "api").glob("*.html"))
    documented = set(re.findall(r'id="slimwidgets\.([A-Za-z_]\w*)"', pages))
    public = {name for name in slimwidgets.__all__ if name not in ("__version__", "Studio")}
    assert public - documented == set()
    assert 'id="slimwidgets.widgets.Studio"' in pages


def test_docstrings_are_rendered_by_numpydoc(built_docs):
    fitting = (built_docs / "api" / "fitting.html").read_text(encoding="utf-8")
    # the Parameters section of fit(), turned into a field list, with a parameter from the docstring
    fit_entry = fitting[fitting.index('id="slimwidgets.fit"') :]
    assert "Parameters" in fit_entry[:20000] and "max_fpr" in fit_entry[:20000]
    # a doctest example rendered as code
    assert "&gt;&gt;&gt;" in fitting


def test_notebooks_are_pages(built_docs):
    names = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert names, "no notebooks found"
    for name in names:
        page = built_docs / "notebooks" / f"{name}.html"
        assert page.exists(), f"{name}.ipynb is not rendered"
    quickstart = (built_docs / "notebooks" / "01_quickstart.html").read_text(encoding="utf-8")
    assert "Studio" in quickstart and "load_demo" in quickstart
    exactness = (built_docs / "exactness.html").read_text(encoding="utf-8")
    assert "brute-force" in exactness


def test_the_options_page_lists_every_option(built_docs):
    from slimwidgets.core.options import OPTIONS

    page = (built_docs / "api" / "options.html").read_text(encoding="utf-8")
    table = page[page.index("<table") : page.index("</table>")]
    for row in OPTIONS:
        assert f'<span class="pre">{row.name}</span>' in table, row.name
        if row.flag is not None:
            assert f'<span class="pre">{row.flag.flag}</span>' in table, row.flag.flag
