"""The studio's exports: SQL from the export menu and from ``studio.export('sql')``, run by a
real SQL engine (SQLite) on the training rows, with names that try to break out."""

from __future__ import annotations

import sqlite3

import numpy as np
import pandas as pd
import pytest

from slimwidgets.widgets.controller import EXPORT_FORMATS, Controller

NAMES = ('a"; DROP TABLE patients; --', "b ≥ 5 · 'x'", "c]) OR 1=1")


@pytest.fixture
def hostile():
    rng = np.random.default_rng(5)
    X = pd.DataFrame(rng.integers(0, 2, (80, 3)), columns=NAMES)
    y = pd.Series(np.where(X.iloc[:, 0] + X.iloc[:, 1] + rng.integers(0, 2, 80) >= 2, "yes", "no"))
    c = Controller(X, y, positive="yes", frontier=False, time_limit=2.0, require=list(NAMES[:2]))
    assert c.wait(300)
    yield X, c
    assert c.close()


def _run_sql(sql: str, X: pd.DataFrame) -> pd.DataFrame:
    with sqlite3.connect(":memory:") as db:
        X.to_sql("patients", db, index=False)
        out = pd.read_sql_query(sql, db)
        assert pd.read_sql_query("SELECT count(*) AS n FROM patients", db)["n"][0] == len(
            X
        )  # nothing dropped
    return out


def test_export_sql_runs_in_sqlite_and_agrees_with_the_card(hostile, tmp_path):
    X, c = hostile
    assert EXPORT_FORMATS["sql"] == ".sql"
    path, line = c.export("sql", tmp_path / "card.sql")
    ns: dict = {}
    exec(line, ns)  # the line runs as shown and reads the file back
    assert ns["sql"].strip() == path.read_text(encoding="utf-8").strip()
    out = _run_sql(ns["sql"], X)
    card = c.card
    assert list(out["score"]) == list(card.score(X).astype(int))
    assert list(out["prediction"].astype(bool)) == list(card.predict(X) == "yes")


@pytest.mark.slow
def test_export_menu_offers_sql(tmp_path):
    from slimwidgets.datasets import load_demo
    from slimwidgets.widgets import Studio

    X, y = load_demo(n_features=5)
    st = Studio(X, y, time_limit=1.0, frontier=False)
    try:
        assert st.controller.wait(300)
        assert ("SQL", "sql") in [tuple(o) for o in st.export_format.options]
        st.export_format.value = "sql"
        assert st.export_path.value.endswith(".sql")
        st.export_path.value = str(tmp_path / "studio.sql")
        st.export_button.click()
        assert (tmp_path / "studio.sql").read_text(encoding="utf-8").lstrip().startswith("SELECT")
        assert "studio.sql" in st.message.value and "could not" not in st.message.value
        path, _ = st.export("sql", tmp_path / "direct.sql")
        out = _run_sql(path.read_text(encoding="utf-8"), X.astype(int))
        assert list(out["score"]) == list(st.scoring_system.score(X).astype(int))
    finally:
        st.close()
