"""The studio: an interactive scoring-system widget for JupyterLab 4 and Notebook 7.

``Controller`` (spec editing, solve scheduling, cache, history, undo/redo, edit/lock,
export) and the chart builders need no Jupyter; :class:`Studio` puts ipywidgets
controls, the anywidget point table and Altair charts on top of them.
"""

from .controller import Controller, FeatureSettings, HistoryEntry, Status

__all__ = ["Controller", "Status", "HistoryEntry", "FeatureSettings", "Studio", "use_bundled_vega"]


def __getattr__(name):
    if name == "Studio":
        from .studio import Studio

        return Studio
    if name == "use_bundled_vega":  # Altair charts in notebooks, drawn offline
        from .offline import use_bundled_vega

        return use_bundled_vega
    raise AttributeError(name)
