"""`slimwidgets fit --time COL --event COL`: a time-to-event card from a CSV, printed with its risk
by each horizon, in every format, saved and shown again; refusals named. In process (main) and
as a real process."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.cli import FORMATS, main
from slimwidgets.core.survival_card import SurvivalCard

pytestmark = pytest.mark.slow  # each fits a card (the process test starts Python)

REPO = Path(__file__).resolve().parents[2]
HOSTILE = 'stage"; DROP TABLE t; --'


def survival_frame(seed: int = 0, n: int = 150) -> pd.DataFrame:
    """Raw columns (age with empty cells, a stage under a hostile name) and a yes/no event."""
    rng = np.random.default_rng(seed)
    age = rng.integers(30, 85, n).astype(float)
    stage = rng.choice(["I", "II", "III"], n, p=[0.4, 0.35, 0.25])
    hazard = np.exp((age - 55) / 15 + 2.0 * (stage == "III"))
    frame = pd.DataFrame({"age": age, HOSTILE: stage})
    frame.loc[::9, "age"] = np.nan
    frame["months"] = np.round(rng.exponential(8 / hazard), 2) + 0.01
    frame["died"] = np.where(rng.random(n) < 0.75, "dead", "alive")
    return frame


@pytest.fixture
def csv(tmp_path) -> Path:
    path = tmp_path / "surv.csv"
    survival_frame().to_csv(path, index=False)
    return path


def fit_args(csv: Path, *more: str) -> list[str]:
    return ["fit", str(csv), "--time", "months", "--event", "died", "--positive", "dead", *more]


def test_fit_prints_the_card_with_risk_by_the_horizons_given(csv, tmp_path, capsys):
    saved = tmp_path / "card.json"
    args = fit_args(csv, "--horizons", "1,3,5", "--max-size", "3", "--json", str(saved))
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "Time-to-event card: died over months" in out
    assert (
        all(f"by {h}" in out for h in (1, 3, 5))
        and "status: proven best: no card within these limits" in out
    )
    card = SurvivalCard.from_json(str(saved))
    assert card.horizons == (1.0, 3.0, 5.0) and len(card.card_points) <= 3
    frame = survival_frame()
    y = np.array(
        list(zip(frame["died"] == "dead", frame["months"])),
        dtype=[("died", "?"), ("months", "<f8")],
    )
    same = sw.fit(
        frame.drop(columns=["months", "died"]), y, max_size=3, horizons=(1, 3, 5), rules=True
    )
    assert same.card_points == card.card_points  # the command fits what sw.fit fits
    assert np.isclose(same.multiplier, card.multiplier)


def test_default_horizons_are_the_cards(csv, capsys):
    assert main(fit_args(csv, "--max-size", "2")) == 0
    out = capsys.readouterr().out
    frame = survival_frame()
    from slimwidgets.core.survival_card import default_horizons

    for h in default_horizons(frame["months"].to_numpy()):
        assert f"by {h:g}" in out


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_prints_the_card(csv, tmp_path, capsys, fmt):
    out_file = tmp_path / f"card.{fmt}"
    args = fit_args(csv, "--max-size", "2", "--horizons", "2,4", "--format", fmt)
    assert main([*args, "--out", str(out_file)]) == 0
    body = out_file.read_text(encoding="utf-8")
    assert "status: proven best" in capsys.readouterr().out
    if fmt == "sql":
        con = sqlite3.connect(":memory:")
        survival_frame().to_sql("patients", con, index=False)
        rows = con.execute(body).fetchall()
        assert len(rows) == 150 and all(0 < row[-1] < 1 for row in rows)
    elif fmt == "python":
        namespace: dict = {}
        exec(body, namespace)
        assert set(namespace["BASELINE_HAZARD"]) == {2.0, 4.0}
    else:
        assert "by 2" in body and "by 4" in body


def test_show_reprints_a_saved_card(csv, tmp_path, capsys):
    saved = tmp_path / "card.json"
    assert main(fit_args(csv, "--max-size", "2", "--json", str(saved))) == 0
    first = capsys.readouterr().out.split("status:")[0]
    assert main(["show", str(saved)]) == 0
    assert capsys.readouterr().out.split("status:")[0] == first
    data = json.loads(saved.read_text(encoding="utf-8"))
    data["multiplier"] *= 2
    saved.write_text(json.dumps(data), encoding="utf-8")
    assert main(["show", str(saved)]) == 2
    assert "checksum" in capsys.readouterr().err


def test_options_by_variable_reach_the_card(csv, capsys):
    assert main(fit_args(csv, "--max-size", "3", "--exclude", "age")) == 0
    out = capsys.readouterr().out
    assert "age:" not in out and "III" in out


def test_settings_by_variable_hold_on_the_card(csv, tmp_path, capsys):
    saved = tmp_path / "card.json"
    more = ["--max-size", "3", "--max-variables", "1", "--require", HOSTILE, "--json", str(saved)]
    assert main(fit_args(csv, *more, "--monotone", "age=+")) == 0
    card = SurvivalCard.from_json(str(saved))
    assert {rule.split(" = ")[0] for rule in card.card_points} == {HOSTILE}


@pytest.mark.parametrize(
    "args, message",
    [
        (["--time", "months"], "--time COLUMN and --event COLUMN"),
        (["--target", "died", "--time", "months", "--event", "died"], "give --target COLUMN, or"),
        (["--time", "month", "--event", "died"], "'month' is not a column"),
        (["--time", "died", "--event", "died"], "name one column"),
        (["--time", "months", "--event", "age"], "--event 'age' has 17 empty cell(s)"),
        (["--time", "months", "--event", "died"], "give 1/0 or true/false"),
        (["--time", "months", "--event", "died", "--positive", "x"], "not a label"),
        (
            ["--time", "months", "--event", "died", "--positive", "dead", "--max-fpr", "0.2"],
            "do not take max_fpr",
        ),
        (
            ["--time", "months", "--event", "died", "--positive", "dead", "--horizons", "1,-2"],
            "positive times",
        ),
    ],
)
def test_usage_errors_are_named(csv, capsys, args, message):
    assert main(["fit", str(csv), *args]) == 2
    assert message in capsys.readouterr().err


def test_a_time_column_of_text_is_refused(tmp_path, capsys):
    frame = survival_frame()
    frame["months"] = "soon"
    frame.to_csv(tmp_path / "t.csv", index=False)
    assert main(fit_args(tmp_path / "t.csv")) == 2
    assert "must hold numbers" in capsys.readouterr().err


def test_the_command_as_a_process(csv, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run = subprocess.run(
        [sys.executable, "-m", "slimwidgets", *fit_args(csv, "--max-size", "2", "--format", "sql")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("SELECT *,") and "status: proven best" in run.stderr
    con = sqlite3.connect(":memory:")
    survival_frame().to_sql("patients", con, index=False)
    assert len(con.execute(run.stdout).fetchall()) == 150


def test_ctrl_c_prints_the_best_card_so_far_and_exits_130(csv, tmp_path, capsys, monkeypatch):
    """A real SIGINT while the proof runs (sent from its first node floor, which then waits
    for the proof's stop): the card printed and saved as "interrupted", exit code 130."""
    import signal
    import threading

    from slimwidgets.core.survival_family import TIME_TO_EVENT

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("the SIGINT handler is installed from the main thread only")
    node_floor, sent = TIME_TO_EVENT.loss.piece("cone"), []

    def interrupted_floor(*args, stop=None, **kwargs):
        if not sent:
            sent.append(signal.SIGINT)
            signal.raise_signal(signal.SIGINT)  # handled on the main thread: sets the cancel
            pause = threading.Event()  # never set: a pause of 10 ms, at most 3000 times
            for _ in range(3000):
                if stop() or pause.wait(0.01):
                    break
        return node_floor(*args, stop=stop, **kwargs)

    TIME_TO_EVENT.loss.holds(cone=interrupted_floor)
    saved = tmp_path / "card.json"
    try:
        code = main(fit_args(csv, "--max-size", "3", "--time-limit", "600", "--json", str(saved)))
    finally:
        TIME_TO_EVENT.loss.holds(cone=node_floor)
    captured = capsys.readouterr()
    assert code == 130 and sent and "interrupted: stopping with the best card" in captured.err
    assert "Time-to-event card: died over months" in captured.out and "interrupted" in captured.out
    assert SurvivalCard.from_json(str(saved)).status == "interrupted"
