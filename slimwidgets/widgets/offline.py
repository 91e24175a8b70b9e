"""Any Altair chart drawn offline, with the Vega bundled in ``static/chart.js`` (no CDN).

Its own module, above the views (:class:`~slimwidgets.widgets.studio.ChartView`) and the chart
builders: the renderer needs anywidget, so it loads only when a chart is shown this way.
"""

from __future__ import annotations

from typing import Any

import altair as alt

from .studio import ChartView

__all__ = ["render_offline", "use_bundled_vega"]


def render_offline(spec: dict, **metadata: Any) -> dict:
    """Altair renderer: the chart as a widget drawn by the Vega bundled in ``static/chart.js``.

    Altair 5.4+ renders with Vega fetched from a CDN unless told otherwise, which leaves every
    chart blank on a network that blocks CDNs; this one fetches nothing. Enable it with
    :func:`use_bundled_vega` (or ``alt.renderers.enable("slimwidgets")``).
    """
    return ChartView(spec=spec)._repr_mimebundle_()


alt.renderers.register("slimwidgets", render_offline)


def use_bundled_vega() -> None:
    """Draw every Altair chart of this kernel with the Vega bundled in slimwidgets (no internet).

    >>> import altair as alt
    >>> previous = alt.renderers.active
    >>> use_bundled_vega()
    >>> alt.renderers.active
    'slimwidgets'
    >>> _ = alt.renderers.enable(previous)
    """
    alt.renderers.enable("slimwidgets")
