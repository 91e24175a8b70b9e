"""Small static charts as inline SVG for the report: nothing to load, they print as drawn.

One function, :func:`chart`, draws lines and points with vertical interval bars on linear axes,
a legend and axis titles. Every label is escaped; the numbers are formatted by Python.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Series", "chart", "PALETTE"]

#: colours that stay apart in print and for the common colour-vision deficiencies (Okabe–Ito)
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")


@dataclass(frozen=True)
class Series:
    """One series: a line (``kind="line"``) or points with optional intervals (``"points"``)."""

    name: str
    x: Sequence[float]
    y: Sequence[float]
    colour: str = PALETTE[0]
    kind: str = "line"
    lower: Sequence[float] | None = None
    upper: Sequence[float] | None = None
    dash: str | None = None


def _ticks(lo: float, hi: float, count: int = 5, integer: bool = False) -> list[float]:
    step = (hi - lo) / max(count, 1)
    if integer:  # totals of points: whole numbers only
        step = max(1.0, float(math.ceil(step)))
        first = float(math.ceil(lo))
        return [first + k * step for k in range(int((hi - first) / step) + 1)]
    magnitude = 10 ** math.floor(math.log10(step)) if step > 0 else 1.0
    step = min((m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= step), default=step)
    first = math.ceil(lo / step - 1e-9) * step
    return [round(first + k * step, 10) for k in range(int((hi - first) / step + 1e-9) + 1)]


def _fmt(v: float, percent: bool) -> str:
    return f"{100 * v:g} %" if percent else f"{v:g}"


def chart(
    series: Sequence[Series],
    *,
    x_range: tuple[float, float],
    y_range: tuple[float, float],
    x_title: str,
    y_title: str,
    title: str,
    x_percent: bool = False,
    y_percent: bool = False,
    x_integer: bool = False,
    diagonal: bool = False,
    width: int = 700,
    height: int = 340,
) -> str:
    """An ``<svg>`` element with the series drawn inside the given ranges (values outside are
    clipped to the plot area; a line stops where it leaves it); the legend sits to the right.

    Examples
    --------
    >>> svg = chart([Series("<a>", [0, 1], [0, 1])], x_range=(0, 1), y_range=(0, 1),
    ...             x_title="x", y_title="y", title="t")
    >>> svg.startswith("<svg") and "&lt;a&gt;" in svg and "<a>" not in svg
    True
    """
    esc = html.escape
    left, right, top, bottom = 58, 190, 20, 46  # the legend sits right of the plot
    pw, ph = width - left - right, height - top - bottom
    (x0, x1), (y0, y1) = x_range, y_range

    def px(v: float) -> float:
        return left + (min(max(v, x0), x1) - x0) / (x1 - x0) * pw

    def inside(x: float, y: float) -> bool:
        return x0 - 1e-9 <= x <= x1 + 1e-9 and y0 - 1e-9 <= y <= y1 + 1e-9

    def py(v: float) -> float:
        return top + ph - (min(max(v, y0), y1) - y0) / (y1 - y0) * ph

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="sw-chart" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{esc(title)}" '
        'font-family="system-ui, sans-serif" font-size="11">',
        f"<title>{esc(title)}</title>",
        f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#999"/>',
    ]
    for t in _ticks(x0, x1, integer=x_integer):
        out.append(
            f'<line x1="{px(t):.1f}" x2="{px(t):.1f}" y1="{top}" y2="{top + ph}" '
            f'stroke="#eee"/><text x="{px(t):.1f}" y="{top + ph + 14}" '
            f'text-anchor="middle">{esc(_fmt(t, x_percent))}</text>'
        )
    for t in _ticks(y0, y1):
        out.append(
            f'<line x1="{left}" x2="{left + pw}" y1="{py(t):.1f}" y2="{py(t):.1f}" '
            f'stroke="#eee"/><text x="{left - 5}" y="{py(t) + 4:.1f}" '
            f'text-anchor="end">{esc(_fmt(t, y_percent))}</text>'
        )
    out.append(
        f'<text x="{left + pw / 2}" y="{height - 8}" '
        f'text-anchor="middle">{esc(x_title)}</text><text transform="translate(14 '
        f'{top + ph / 2}) rotate(-90)" text-anchor="middle">{esc(y_title)}</text>'
    )
    if diagonal:
        lo, hi = max(x0, y0), min(x1, y1)
        out.append(
            f'<line x1="{px(lo):.1f}" y1="{py(lo):.1f}" x2="{px(hi):.1f}" y2="{py(hi):.1f}" '
            'stroke="#888" stroke-dasharray="4 3"/>'
        )
    for s in series:
        out.extend(_draw(s, px, py, inside))
    out.extend(_legend(series, left + pw + 14, top + 4))
    out.append("</svg>")
    return "\n".join(out)


def _draw(s: Series, px, py, inside) -> list[str]:
    pairs = [(x, y) for x, y in zip(s.x, s.y) if not (math.isnan(x) or math.isnan(y))]
    if s.kind == "line":  # one polyline per run of points inside the plot: a line leaving it stops
        dash = f' stroke-dasharray="{s.dash}"' if s.dash else ""
        runs, run = [], []
        for x, y in pairs:
            if inside(x, y):
                run.append(f"{px(x):.1f},{py(y):.1f}")
            elif run:
                runs.append(run)
                run = []
        runs.append(run)
        return [
            f'<polyline points="{" ".join(r)}" fill="none" stroke="{s.colour}" '
            f'stroke-width="1.8"{dash}/>'
            for r in runs
            if r
        ]
    out = []
    for k, (x, y) in enumerate(zip(s.x, s.y)):
        if math.isnan(x) or math.isnan(y):
            continue
        if s.lower is not None and s.upper is not None and not math.isnan(s.lower[k]):
            out.append(
                f'<line x1="{px(x):.1f}" x2="{px(x):.1f}" y1="{py(s.lower[k]):.1f}" '
                f'y2="{py(s.upper[k]):.1f}" stroke="{s.colour}" stroke-width="1.2"/>'
            )
        out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3.2" fill="{s.colour}"/>')
    return out


def _legend(series: Sequence[Series], x: float, y: float) -> list[str]:
    out = []
    for k, s in enumerate(s for s in series if s.name):  # a series without a name: no entry
        yy = y + 14 * k + 6
        mark = (
            f'<circle cx="{x + 9}" cy="{yy}" r="3.2" fill="{s.colour}"/>'
            if s.kind == "points"
            else f'<line x1="{x}" x2="{x + 18}" y1="{yy}" y2="{yy}" stroke="{s.colour}" '
            'stroke-width="1.8"' + (f' stroke-dasharray="{s.dash}"' if s.dash else "") + "/>"
        )
        out.append(mark + f'<text x="{x + 24}" y="{yy + 4}">{html.escape(s.name)}</text>')
    return out
