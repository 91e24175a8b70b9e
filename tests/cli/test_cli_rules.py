"""The command line on a raw CSV: text, empty cells, --cuts; the card's SQL scores raw rows."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.cli import main


def raw_csv(path, n=150, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "age": rng.integers(30, 85, n),
            "bmi": np.round(rng.normal(28, 5, n), 1),
            "sex": rng.choice(["F", "M"], n),
        }
    )
    frame.loc[rng.random(n) < 0.1, "bmi"] = np.nan
    frame["y"] = ((frame.age > 60) | ((frame.sex == "M") & (rng.random(n) < 0.5))).astype(int)
    frame.to_csv(path, index=False)
    return frame


@pytest.mark.slow
def test_fit_a_raw_csv_with_cuts_and_a_sign_by_variable(tmp_path, capsys):
    frame = raw_csv(tmp_path / "raw.csv")
    card_json = tmp_path / "card.json"
    code = main(
        [
            "fit",
            str(tmp_path / "raw.csv"),
            "--target",
            "y",
            "--max-size",
            "3",
            "--cuts",
            "age=40,50,60",
            "--sign",
            "age=+",
            "--time-limit",
            "20",
            "--quiet",
            "--json",
            str(card_json),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert (
        "ADD THE POINTS OF EACH VARIABLE = SCORE" in out
        and "scores 0 points for its variable" in out
    )
    card = sw.ScoringSystem.from_json(str(card_json))
    assert card.rules.rules_of("age") == ["age >= 40", "age >= 50", "age >= 60"]
    assert all(p >= 0 for n, p in card.points.items() if n.startswith("age"))
    X = frame.drop(columns="y")
    con = sqlite3.connect(":memory:")
    X.to_sql("patients", con, index=False)
    scores = [row[-1] for row in con.execute(card.to_sql())]
    assert scores == card.score(X).tolist()
    assert json.loads(card_json.read_text())["rules"]["columns"] == ["age", "bmi", "sex"]


def test_bad_cuts_and_never_are_clear_usage_errors(tmp_path, capsys):
    raw_csv(tmp_path / "raw.csv")
    assert (
        main(["fit", str(tmp_path / "raw.csv"), "--target", "y", "--cuts", "ag=40", "--quiet"]) == 2
    )
    assert "--cuts names an unknown column 'ag' (did you mean 'age'?)" in capsys.readouterr().err
    assert (
        main(["fit", str(tmp_path / "raw.csv"), "--target", "y", "--cuts", "age=forty", "--quiet"])
        == 2
    )
    assert "must be numbers" in capsys.readouterr().err
    assert (
        main(["fit", str(tmp_path / "raw.csv"), "--target", "y", "--rules", "never", "--quiet"])
        == 2
    )
    assert "non-numeric columns: ['sex']" in capsys.readouterr().err


@pytest.mark.slow
def test_settings_by_variable_on_the_command_line(tmp_path, capsys):
    raw_csv(tmp_path / "raw.csv", seed=1)
    card_json = tmp_path / "card.json"
    code = main(
        [
            "fit",
            str(tmp_path / "raw.csv"),
            "--target",
            "y",
            "--cuts",
            "age=40,50,60,70",
            "--max-variables",
            "2",
            "--max-cuts-per-variable",
            "2",
            "--monotone",
            "age=+",
            "--C0",
            "0.001",
            "--time-limit",
            "20",
            "--quiet",
            "--json",
            str(card_json),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and "age " in out
    card = sw.ScoringSystem.from_json(str(card_json))
    assert (card.spec.max_variables, card.spec.max_cuts_per_variable, card.spec.monotone) == (
        2,
        2,
        {"age": "+"},
    )
    used = [n for n, p in card.points.items() if p]
    assert len({card.rules.variable_of(n) for n in used}) <= 2
    ages = [card.points.get(n, 0) for n in card.rules.rules_of("age")]
    assert sum(1 for p in ages if p) <= 2 and all(p >= 0 for p in ages)
    # a variable monotone names must be one of the table's columns
    assert (
        main(["fit", str(tmp_path / "raw.csv"), "--target", "y", "--monotone", "agee=+", "--quiet"])
        == 2
    )
    assert "did you mean 'age'" in capsys.readouterr().err
