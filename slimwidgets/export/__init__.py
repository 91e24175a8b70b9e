"""A card in every format a person or a system reads: text, HTML, Markdown, LaTeX, SQL and
Python, all escaping the names that come from data. JSON lives with the card
(:meth:`~slimwidgets.core.scoring.ScoringSystem.to_json`)."""

from .card import CardData, HorizonRows, RiskRows, m_of_n_count
from .html import horizon_html, render_document, render_html, risk_html
from .latex import horizon_latex, render_latex, risk_latex
from .markdown import horizon_markdown, render_markdown, risk_markdown
from .python import render_python, render_survival_python
from .sql import render_sql, render_survival_sql
from .text import render_text, risk_text

__all__ = [
    "CardData",
    "RiskRows",
    "HorizonRows",
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
    "render_survival_python",
    "render_survival_sql",
    "horizon_html",
    "horizon_latex",
    "horizon_markdown",
]
