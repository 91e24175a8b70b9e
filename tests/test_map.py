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
    tagged = [f"{p.relative_to(ROOT)}:{n}: {line.strip()}"
              for p in _source_files()
              for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
              if ISSUE_TAG.search(line)]
    assert not tagged, "say the reason itself, not an issue number:\n" + "\n".join(tagged)


def test_the_issue_tag_pattern_finds_tags():
    assert ISSUE_TAG.search("# group fairness (issue 22)")
    assert ISSUE_TAG.search("see Issues #7")
    assert not ISSUE_TAG.search("# the issue is that the rows repeat")
