"""The contributor's map stays true: every module of the package has its row in CONTRIBUTING.md,
every front-end source its row in js/README.md, and no comment points to a tracker that the
repository does not have.

Read from the files, as ``test_docs.py`` reads the public names: a module added without its line
in the map fails here, naming it.
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "slimwidgets"

# "issue 22", "issues 19", "issue #7": a tag for a tracker the repository does not have.
ISSUE_TAG = re.compile(r"\bissues?\s+#?\d+", re.IGNORECASE)


def _source_files() -> list[Path]:
    kinds = ("*.py", "*.js", "*.css")
    return sorted(p for kind in kinds for p in PACKAGE.rglob(kind) if "static" not in p.parts)


def test_no_issue_tags_in_the_package():
    tagged = [
        f"{p.relative_to(ROOT)}:{n}: {line.strip()}"
        for p in _source_files()
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if ISSUE_TAG.search(line)
    ]
    assert not tagged, "say the reason itself, not an issue number:\n" + "\n".join(tagged)


def test_the_issue_tag_pattern_finds_tags():
    assert ISSUE_TAG.search("# group fairness (issue 22)")
    assert ISSUE_TAG.search("see Issues #7")
    assert not ISSUE_TAG.search("# the issue is that the rows repeat")


def _table_rows(markdown: str) -> list[str]:
    return [line for line in markdown.splitlines() if line.startswith("| `")]


def _module_row(rows: list[str], module: Path) -> str | None:
    """The row of CONTRIBUTING's table for ``module``: its folder's row, or the first column's
    file list for a module at the top of the package."""
    rel = module.relative_to(PACKAGE)
    if len(rel.parts) == 1:
        files = [r.split("|")[1] for r in rows if r.startswith("| `slimwidgets/cli.py`")]
        return files[0] if files else None
    folder = [r for r in rows if r.startswith(f"| `slimwidgets/{rel.parts[0]}/`")]
    return folder[0] if folder else None


def _unmapped_modules(contributing: str) -> list[str]:
    rows = _table_rows(contributing)
    missing = []
    for module in sorted(PACKAGE.rglob("*.py")):
        rel = module.relative_to(PACKAGE)
        if module.name == "__init__.py" and len(rel.parts) > 1:
            continue  # a folder's __init__ is the folder's own row
        row = _module_row(rows, module)
        top = len(rel.parts) == 1
        named = (
            (f"`{module.name}`", f"`slimwidgets/{module.name}`") if top else (f"`{module.stem}`",)
        )
        if row is None or not any(n in row for n in named):
            missing.append(str(rel))
    return missing


def test_every_module_is_in_contributings_table():
    missing = _unmapped_modules((ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8"))
    assert not missing, (
        "modules missing from CONTRIBUTING.md's table 'Where each kind of change "
        f"goes' (name each in its folder's row, in backticks): {missing}"
    )


def test_a_module_left_out_of_the_table_is_found():
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert _unmapped_modules(text.replace("`size_cv` (", "size_cv (")) == ["fitting/size_cv.py"]


def test_every_js_source_is_in_the_js_readme():
    readme = "\n".join(_table_rows((ROOT / "js" / "README.md").read_text(encoding="utf-8")))
    sources = sorted(p.name for p in (ROOT / "js" / "src").iterdir() if p.suffix in (".js", ".css"))
    assert sources, "no js/src files found"
    missing = [name for name in sources if f"`src/{name}`" not in readme]
    assert not missing, f"js/src files missing from js/README.md's table: {missing}"


# -- the README is a landing page, the manual lives in docs/ -----------------------------------
README_MAX_LINES = 200


def _paragraphs(markdown: str) -> list[str]:
    """The prose paragraphs of a Markdown text, whitespace folded (code blocks left out)."""
    prose = re.sub(r"```.*?```", "", markdown, flags=re.DOTALL)
    return [" ".join(block.split()) for block in re.split(r"\n\s*\n", prose) if block.strip()]


def _repeated_paragraphs(pages: dict[str, str], min_chars: int = 160) -> list[str]:
    seen: dict[str, str] = {}
    repeated = []
    for name, text in pages.items():
        for para in _paragraphs(text):
            if len(para) >= min_chars and para in seen and seen[para] != name:
                repeated.append(f"{seen[para]} and {name}: {para[:80]}...")
            seen.setdefault(para, name)
    return repeated


def test_the_readme_is_a_landing_page():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= README_MAX_LINES
    picture = "docs/_static/studio.png"
    assert picture in readme and (ROOT / picture).exists()
    links = re.findall(r"\]\(((?:docs|benchmarks)/[^)#]+|[A-Z]+\.md)\)", readme)
    assert links, "the README links to no docs page"
    broken = [link for link in links if not (ROOT / link).exists()]
    assert not broken, f"README links to missing files: {broken}"


def test_no_docs_page_repeats_another():
    pages = {p.name: p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").glob("*.md"))}
    pages["README.md"] = (ROOT / "README.md").read_text(encoding="utf-8")
    assert not _repeated_paragraphs(pages)


def test_a_repeated_paragraph_is_found():
    para = "A paragraph long enough to count as prose that a second page copied word for word. " * 3
    assert _repeated_paragraphs({"a.md": para, "b.md": "Intro.\n\n" + para})
    assert not _repeated_paragraphs({"a.md": para, "b.md": "Other words."})
