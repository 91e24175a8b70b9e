"""The LaTeX export compiles with pdfLaTeX: every sign written as LaTeX, hostile names inert.

pdflatex comes from Debian's texlive-latex-base (scripts/setup_latex.sh, run by
scripts/setup_browser_tests.sh). Without it the test is skipped on a developer's machine and
fails in CI (``CI`` set), so a missing install cannot pass unseen.
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw

from needs import in_ci

PDFLATEX = shutil.which("pdflatex")
pytestmark = [
    pytest.mark.skipif(
        PDFLATEX is None and not in_ci(),
        reason="pdflatex is not installed (bash scripts/setup_latex.sh)",
    ),
    pytest.mark.slow,
]  # pdflatex runs: python -m pytest --all runs them

# names a data set may carry: TeX specials, a file read, signs, accents, a script
# pdfLaTeX has no glyph for
NAMES = (
    "$\\input{secret}$ & 100%_#{}~^\\",
    "age ≥ 60 · BMI ≤ 30 – “high”",
    "é ü ø ß ą ð",
    "中文 ключ",
    "a\nb | <c>",
)


def _data():
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.integers(0, 2, (120, len(NAMES))), columns=NAMES)
    y = pd.Series(
        np.where(X.iloc[:, 0] + X.iloc[:, 1] + rng.integers(0, 2, 120) >= 2, "yes", "no"),
        name="out≥come",
    )
    return X, y


def _compile(tmp_path, body: str) -> str:
    """pdflatex on a minimal document around ``body``; returns its log (fails on any error)."""
    assert PDFLATEX is not None, "CI must install pdflatex: bash scripts/setup_latex.sh"
    # a file the hostile name would read if its \input ran: compiling it would stop the run
    (tmp_path / "secret.tex").write_text("\\errmessage{the name was executed}\n")
    doc = "\\documentclass{article}\n\\begin{document}\n" + body + "\n\\end{document}\n"
    (tmp_path / "card.tex").write_text(doc, encoding="utf-8")
    run = subprocess.run(
        [PDFLATEX, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "card.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    log = run.stdout
    assert run.returncode == 0 and "\n! " not in log, log[-3000:]
    assert (tmp_path / "card.pdf").stat().st_size > 0
    assert "Missing character" not in (tmp_path / "card.log").read_text(errors="replace")
    return log


@pytest.mark.parametrize("loss", ["zero_one", "logistic"])
def test_card_latex_compiles_with_pdflatex(tmp_path, loss):
    X, y = _data()
    card = sw.fit(
        X,
        y,
        positive="yes",
        loss=loss,
        require=list(NAMES[:4]),
        coef_range=(-3, 3),
        time_limit=10,
        **({"max_fpr": 0.4} if loss == "zero_one" else {}),
    )
    latex = card.to_latex()
    assert "\\input{" not in latex and "≥" not in latex and "·" not in latex and "–" not in latex
    assert all(ord(ch) < 0x180 for ch in latex), "a sign pdfLaTeX cannot set is left"
    _compile(tmp_path, latex)


def test_mofn_rule_table_compiles(tmp_path):
    from slimwidgets.toolbox.paper_models import fit_m_of_n

    X, y = _data()
    card = fit_m_of_n(X, y, positive="yes", max_size=3, time_limit=10)
    assert card.m_of_n is not None
    _compile(tmp_path, card.to_latex())


def test_time_to_event_card_latex_compiles(tmp_path):
    X, _ = _data()
    rng = np.random.default_rng(4)
    hazard = np.exp(X.iloc[:, 0] + 0.7 * X.iloc[:, 1])
    time = rng.exponential(5 / hazard).round(2) + 0.01
    y = np.array(list(zip(rng.random(120) < 0.8, time)), dtype=[("dé$d", "?"), ("t_%", "<f8")])
    card = sw.fit(X, y, max_size=2, time_limit=10)
    latex = card.to_latex()
    assert NAMES[0] in card.card_points, "the hostile name must be on the card"
    assert "RISK OF THE EVENT BY EACH HORIZON" in latex and "\\input{" not in latex
    _compile(tmp_path, latex)
