"""A card in every format a person or a system reads: text, HTML, Markdown, LaTeX, SQL and
Python, all escaping the names that come from data. JSON lives with the card
(:meth:`~slimwidgets.core.scoring.ScoringSystem.to_json`)."""

from .card import CardData, RiskRows, m_of_n_count
from .html import render_document, render_html, risk_html
from .latex import render_latex, risk_latex
from .markdown import render_markdown, risk_markdown
from .python import render_python
from .sql import render_sql
from .text import render_text, risk_text

__all__ = [
    "CardData",
    "RiskRows",
    "m_of_n_count",
    "render_text",
    "render_html",
    "render_document",
    "render_latex",
    "render_markdown",
    "render_python",
    "render_sql",
    "risk_text",
    "risk_html",
    "risk_latex",
    "risk_markdown",
]
