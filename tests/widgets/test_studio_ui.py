"""The studio's look, without a browser: layout by flex/grid with the card first, feature
names with their full text on hover, chart legends and one sparsity point per size, and
Altair charts drawn offline in notebooks. (Calm incumbents and edits during a solve are
the controller's: tests/widgets/test_studio.py.)

The browser tests in tests/e2e/ check the same things on screen (test_studio_layout.py,
test_notebooks_offline.py); these pin them at the Python level.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pandas as pd
import pytest

from slimwidgets.datasets import load_demo

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def small():
    return load_demo(n_features=5)


# -- layout: card first, widths from the notebook --------------------------------------------------
def _widgets(root):
    todo, out = [root], []
    while todo:
        w = todo.pop()
        out.append(w)
        todo += list(getattr(w, "children", ()))
    return out


def test_layout_is_flex_and_grid_with_the_card_first(small):
    from slimwidgets.widgets import Studio
    from slimwidgets.widgets.studio import STATIC

    st = Studio(*small, time_limit=1.0, frontier=False)
    try:
        rows = list(st.children)
        top = rows[0]
        first = top.children[0]  # the card, atop the column it shares with its alternatives
        assert first.children[0] is st.card_view and st.alts_view in first.children[1:], (
            "the card is not the first thing in the studio"
        )
        assert top.layout.flex_flow == "row wrap"
        fixed = []
        for w in _widgets(st):
            lay = w.layout
            if lay.width and lay.width.endswith("px"):
                fixed.append((type(w).__name__, lay.width))
        assert fixed == [], f"fixed pixel widths: {fixed}"
        assert (
            not st.feature_panel.layout.grid_template_columns
        )  # in card.css, with a narrow variant
        css = (STATIC / "card.css").read_text()
        columns = re.findall(r"\.sw-features \{ grid-template-columns: ([^;]+);", css)
        assert len(columns) == 2, "the feature grid needs its wide and its narrow columns"
        for cols in columns:  # every column may shrink or grow: minmax(..., fr)
            parts = re.findall(r"minmax\([^)]*\)", cols)
            assert (
                parts
                and "".join(parts).count("fr") == len(parts)
                and re.sub(r"minmax\([^)]*\)|\s", "", cols) == ""
            )
        assert "@container" in css and "sw-flabel { grid-column: 1 / -1" in css
    finally:
        st.close()


def test_feature_names_keep_their_full_text_on_hover_and_stay_text():
    from slimwidgets.widgets import Studio

    X, y = load_demo(n_features=3)
    evil = 'radius <b>≥</b> 13.4 & "more"'
    X = X.rename(columns={X.columns[0]: evil})
    st = Studio(X, y, time_limit=0.5, frontier=False)
    try:
        labels = [w for w in _widgets(st.feature_panel) if "sw-fname" in getattr(w, "value", "")]
        assert len(labels) == 3
        label = next(w.value for w in labels if "radius" in w.value)
        assert f"title='{html.escape(evil, quote=True)}'" in label and "<b>" not in label
    finally:
        st.close()


# -- charts ----------------------------------------------------------------------------------------
def test_roc_chart_has_a_legend_for_every_layer():
    from slimwidgets.widgets import charts

    spec = charts.roc_chart(None, None, None, None).to_dict()
    names = [charts.FRONTIER, charts.THIS_CARD, charts.CARD_ROC, charts.CAP]
    for layer in spec["layer"]:
        color = layer["encoding"]["color"]
        assert color["scale"]["domain"] == names and color["legend"]["orient"] == "bottom"
        series = [t["calculate"] for t in layer["transform"] if t.get("as") == "series"]
        assert len(series) == 1 and series[0].strip("'") in names
    assert {
        t["calculate"].strip("'") for layer in spec["layer"] for t in layer["transform"]
    } == set(names)


def test_sparsity_chart_shows_one_point_per_size():
    from slimwidgets.widgets import charts

    # max sizes 3..7 all gave 3-feature cards: five points would stack on size 3
    path = pd.DataFrame(
        {
            "key": [f"k{m}" for m in range(1, 8)],
            "max_size": range(1, 8),
            "size": [1, 2, 3, 3, 3, 3, 3],
            "error": [0.3, 0.2, 0.12, 0.1, 0.1, 0.1, 0.1],
            "tpr": [0.5] * 7,
            "fpr": [0.1] * 7,
            "status": ["optimal"] * 7,
        }
    )
    rows = charts.sparsity_datasets(path, None)["path"]
    assert [r["size"] for r in rows] == [1, 2, 3]
    best3 = rows[2]
    assert best3["key"] == "k4" and best3["error"] == 0.1 and best3["max_sizes"] == "3–7"
    assert charts.sparsity_datasets(None, None)["path"] == []


# -- Altair charts in notebooks, offline -----------------------------------------------------------
def test_altair_charts_render_with_the_bundled_vega():
    import altair as alt

    from slimwidgets.widgets import use_bundled_vega
    from slimwidgets.widgets.studio import STATIC, ChartView

    before = alt.renderers.active
    try:
        use_bundled_vega()
        chart = (
            alt.Chart(pd.DataFrame({"x": [1, 2], "y": [3, 4]}))
            .mark_point()
            .encode(x="x:Q", y="y:Q")
        )
        bundle = chart._repr_mimebundle_()
        bundle = bundle[0] if isinstance(bundle, tuple) else bundle
        assert "text/html" not in bundle  # no <script src=cdn...>
        from ipywidgets.widgets.widget import _instances

        view = _instances[bundle["application/vnd.jupyter.widget-view+json"]["model_id"]]
        assert isinstance(view, ChartView)
        assert view.spec == chart.to_dict()
    finally:
        alt.renderers.enable(before)
    shipped = (STATIC / "chart.js").read_text()
    assert "cdn.jsdelivr" not in shipped and "unpkg.com" not in shipped


def _code(name: str) -> list[str]:
    nb = json.loads((ROOT / "notebooks" / name).read_text())
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb")))
def test_notebooks_draw_altair_offline_and_keep_the_studio(name):
    cells = _code(name)
    charts = [k for k, s in enumerate(cells) if "alt.Chart(" in s]
    if charts:
        enabled = [k for k, s in enumerate(cells) if "use_bundled_vega()" in s]
        assert enabled and enabled[0] <= charts[0], (
            f"{name} draws Altair charts before use_bundled_vega()"
        )
    if any("Studio(" in s for s in cells):  # Run All must leave the studio alive
        assert not any("studio.close()" in s for s in cells), f"{name} closes its studio"


def test_charts_draw_held_out_points_as_their_own_series():
    from slimwidgets.widgets import charts

    spec = charts.roc_chart(None, None, None, None, held_out=True).to_dict()
    domain = spec["layer"][0]["encoding"]["color"]["scale"]["domain"]
    assert (
        charts.FRONTIER + charts.HELD_OUT in domain and charts.THIS_CARD + charts.HELD_OUT in domain
    )
    assert (
        charts.CARD_ROC + charts.HELD_OUT not in domain
    )  # the card's own ROC is on the training rows only
    assert "(train)" not in json.dumps(spec["layer"][0]["encoding"])
    # the sparsity chart keeps, for each size, the card chosen on training
    # error, and its held-out twin
    path = pd.DataFrame(
        {
            "key": ["a", "b", "c", "a", "b", "c"],
            "max_size": [1, 2, 3] * 2,
            "size": [1, 2, 2] * 2,
            "error": [0.3, 0.1, 0.2, 0.3, 0.25, 0.05],
            "tpr": [0.5] * 6,
            "fpr": [0.1] * 6,
            "status": ["optimal"] * 6,
            "set": ["train"] * 3 + ["validation"] * 3,
        }
    )
    rows = charts.sparsity_datasets(path, None)["path"]
    assert [(r["set"], r["key"], r["max_sizes"]) for r in rows] == [
        ("train", "a", "1"),
        ("train", "b", "2–3"),
        ("validation", "a", "1"),
        ("validation", "b", "2–3"),
    ]
