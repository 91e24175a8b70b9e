"""The command line, run for real: in-process through ``main`` and as ``python -m slimwidgets``."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.cli import main

REPO = Path(__file__).resolve().parents[2]
EQ_NAME = "b b=1"  # a feature name with a space and an '='


def make_frame(n: int = 80, seed: int = 3) -> pd.DataFrame:
    """Binary features; the label follows 2a + b - c with some noise.

    Two rows with the same features and opposite labels guarantee that no
    card reaches FPR 0 and TPR 1 together.
    """
    rng = np.random.default_rng(seed)
    a, b, c, d = (rng.integers(0, 2, n) for _ in range(4))
    y = ((2 * a + b - c + (rng.random(n) < 0.1)) > 1).astype(int)
    frame = pd.DataFrame({"a": a, EQ_NAME: b, "c": c, "d": d, "Y": y})
    clash = pd.DataFrame({"a": [1, 1], EQ_NAME: [0, 0], "c": [0, 0], "d": [1, 1], "Y": [1, 0]})
    return pd.concat([frame, clash], ignore_index=True)


def write_csv(frame: pd.DataFrame, path: Path, newline: str = "\n") -> Path:
    text = frame.to_csv(index=False, lineterminator="\n").replace("\n", newline)
    path.write_bytes(text.encode("utf-8"))
    return path


def features_and_target(frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.Series]:
    return frame.drop(columns=["Y"]), frame["Y"]


@pytest.fixture
def csv_path(tmp_path: Path) -> Path:
    return write_csv(make_frame(), tmp_path / "data.csv")


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def run_process(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run(
        [sys.executable, "-m", "slimwidgets", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=600,  # against a hang only
    )


_ROW = re.compile(r"^\d+\.\s+(?P<name>.+?)\s+(?P<points>-?\d+) points?\s", re.M)


def printed_points(text: str) -> dict[str, int]:
    """Feature -> points as printed on the text card."""
    return {m["name"]: int(m["points"]) for m in _ROW.finditer(text)}


def assert_user_error(code: int, err: str, expected_code: int = 2) -> None:
    assert code == expected_code, err
    assert err.startswith("slimwidgets: error: "), err
    assert "Traceback" not in err


# -- the data's own optimum, so the constraints below actually bind -----------------------------
@pytest.mark.slow
def test_unconstrained_card_uses_the_features_the_options_will_restrict():
    X, y = features_and_target(make_frame())
    card = sw.fit(X, y)
    assert card.points.get("c", 0) < 0 and card.points.get(EQ_NAME, 0) > 0, card.points
    assert card.points.get("a") != 3 and card.size > 2, card.points


# -- demo, version, entry point -------------------------------------------------------------------
@pytest.mark.slow
def test_demo_as_subprocess_prints_a_valid_card_with_an_honest_status():
    """The demo's proof takes 2-30 s depending on the machine's load: the card and the honesty
    of its status are asserted, not that the proof finished within the demo's time limit."""
    proc = run_process("demo")
    assert proc.returncode == 0, proc.stderr
    assert "PREDICT" in proc.stdout
    assert "Traceback" not in proc.stderr
    status, details = proc.stdout.strip().splitlines()[-2:]
    # in the user's units, proven or honestly not (a loaded machine may stop at the 30 s limit)
    assert status.startswith("status: error ") and (
        "proven lowest" in status or "best found in" in status
    )
    assert "gap" not in status and "objective" not in status
    assert re.match(
        r"details: solver status (optimal|time limit) · objective \S+ · bound \S+ · gap ", details
    )
    assert re.search(r"\d s$", details)
    assert 1 <= len(printed_points(proc.stdout)) <= 5


def test_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"slimwidgets {sw.__version__}"


def test_no_command_is_a_usage_error(capsys):
    code, _, err = run([], capsys)
    assert code == 2 and "usage:" in err and "Traceback" not in err


# -- fit -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("newline", ["\n", "\r", "\r\n"], ids=["LF", "CR", "CRLF"])
@pytest.mark.slow
def test_fit_honours_sign_lock_and_max_size(tmp_path, capsys, newline):
    path = write_csv(make_frame(), tmp_path / "data.csv", newline)
    if newline == "\r":
        assert b"\n" not in path.read_bytes()
    code, out, err = run(
        ["fit", str(path), "--target", "Y", "--sign", "c=+", "--lock", "a=3", "--max-size", "2"],
        capsys,
    )
    assert code == 0, err
    points = printed_points(out)
    assert points.get("a") == 3
    assert points.get("c", 0) >= 0
    assert 1 <= len(points) <= 2
    assert "PREDICT Y IF SCORE ≥" in out
    assert out.strip().splitlines()[-1].startswith("details: solver status optimal")


def test_zero_score_option_gives_the_papers_rule(tmp_path, capsys):
    path = write_csv(make_frame(), tmp_path / "data.csv", "\n")
    card_json = tmp_path / "card.json"
    code, out, err = run(
        [
            "fit",
            str(path),
            "--target",
            "Y",
            "--max-size",
            "2",
            "--zero-score",
            "error",
            "--json",
            str(card_json),
        ],
        capsys,
    )
    assert code == 0, err
    assert "PREDICT Y IF SCORE >" in out and "≥" not in out.splitlines()[0]
    card = sw.ScoringSystem.from_json(str(card_json))
    assert card.zero_score == card.spec.zero_score == "error"
    code, _, err = run(["fit", str(path), "--target", "Y", "--zero-score", "never"], capsys)
    assert code == 2 and "--zero-score" in err


@pytest.mark.slow
def test_cr_and_lf_files_give_the_same_card(tmp_path, capsys):
    cards = []
    for newline in ("\n", "\r"):
        path = write_csv(make_frame(), tmp_path / f"data{len(cards)}.csv", newline)
        code, _, err = run(
            ["fit", str(path), "--target", "Y", "--json", str(tmp_path / f"c{len(cards)}.json")],
            capsys,
        )
        assert code == 0, err
        cards.append(sw.ScoringSystem.from_json(str(tmp_path / f"c{len(cards)}.json")))
    assert cards[0].points == cards[1].points and cards[0].threshold == cards[1].threshold
    assert cards[0].feature_names == ("a", EQ_NAME, "c", "d")


def test_json_card_predicts_like_a_direct_fit(tmp_path, capsys, csv_path):
    out_json = tmp_path / "card.json"
    code, out, err = run(
        [
            "fit",
            str(csv_path),
            "--target",
            "Y",
            "--positive",
            "0",
            "--coef-range",
            "-3:3",
            "--intercept-range",
            "-9:9",  # negative values as separate tokens
            "--sign",
            "d=-",
            "--penalty",
            "d=0.02",
            "--max-size",
            "3",
            "--json",
            str(out_json),
        ],
        capsys,
    )
    assert code == 0, err
    assert f"card JSON written to {out_json}" in out
    card = sw.ScoringSystem.from_json(str(out_json))
    frame = pd.read_csv(csv_path)
    X, y = features_and_target(frame)
    direct = sw.fit(
        X,
        y,
        positive=0,
        coef_range=(-3, 3),
        intercept_range=(-9, 9),
        signs={"d": "-"},
        penalties={"d": 0.02},
        max_size=3,
    )
    assert card.points == direct.points and card.intercept == direct.intercept
    assert card.objective == pytest.approx(direct.objective)
    assert card.positive == 0 and card.negative == 1
    np.testing.assert_array_equal(np.asarray(card.predict(X)), np.asarray(direct.predict(X)))
    assert all(-3 <= v <= 3 for v in card.points.values()) and -9 <= card.intercept <= 9
    assert card.points.get("d", 0) <= 0
    assert (
        card.spec is not None and card.spec.signs == {"d": "-"} and card.spec.coef_range == (-3, 3)
    )
    assert printed_points(out) == card.points


def test_feature_name_with_equals_and_spaces_in_sign(tmp_path, capsys, csv_path):
    out_json = tmp_path / "card.json"
    code, out, err = run(
        ["fit", str(csv_path), "--target", "Y", "--sign", f"{EQ_NAME}=-", "--json", str(out_json)],
        capsys,
    )
    assert code == 0, err
    card = sw.ScoringSystem.from_json(str(out_json))
    assert card.spec.signs == {EQ_NAME: "-"}
    assert card.points.get(EQ_NAME, 0) <= 0  # the unconstrained card gives it positive points
    assert printed_points(out).get(EQ_NAME, 0) <= 0
    # the same through "--sign=VALUE" and a per-feature range naming it
    code, out, err = run(
        [
            "fit",
            str(csv_path),
            "--target",
            "Y",
            f"--sign={EQ_NAME}=-",
            "--coef-range",
            f"{EQ_NAME}=-1:0",
        ],
        capsys,
    )
    assert code == 0, err
    assert printed_points(out).get(EQ_NAME, 0) in (0, -1)


def test_code_formats_keep_stdout_clean(tmp_path, capsys, csv_path):
    code, out, err = run(
        ["fit", str(csv_path), "--target", "Y", "--max-size", "2", "--format", "python"], capsys
    )
    assert code == 0, err
    namespace: dict = {}
    exec(compile(out, "card.py", "exec"), namespace)  # stdout is only the generated module
    assert set(namespace["POINTS"]) <= {"a", EQ_NAME, "c", "d"}
    assert err.startswith("status: error ") and "details: solver status optimal" in err
    card_md = tmp_path / "card.md"
    code, out, err = run(
        ["fit", str(csv_path), "--target", "Y", "--format", "markdown", "--out", str(card_md)],
        capsys,
    )
    assert code == 0, err
    assert "**PREDICT Y IF SCORE ≥" in card_md.read_text(encoding="utf-8")
    assert out.startswith("status: error ") and "PREDICT" not in out


def test_cap_status_reads_in_tpr_and_a_degenerate_card_is_called_out(tmp_path, capsys, csv_path):
    code, out, err = run(
        ["fit", str(csv_path), "--target", "Y", "--max-fpr", "0.2", "--max-size", "2"], capsys
    )
    assert code == 0, err
    status = [line for line in out.splitlines() if line.startswith("status: ")]
    assert (
        len(status) == 1 and status[0].startswith("status: TPR ") and "under this cap" in status[0]
    )
    assert "warning" not in err
    rare = make_frame().assign(Y=0)
    rare.loc[:1, "Y"] = 1  # 2 positives among 82: the best card says "no" to everyone
    path = write_csv(rare, tmp_path / "rare.csv")
    code, out, err = run(
        ["fit", str(path), "--target", "Y", "--json", str(tmp_path / "rare.json")], capsys
    )
    assert code == 0, err
    warning = [line for line in err.splitlines() if "warning" in line]
    assert warning == [
        'slimwidgets: warning: the card predicts "0" for every training row: no training row '
        'reaches its threshold. Try class_weights="balanced", min_tpr (for example '
        "min_tpr=0.8), or a looser max_fpr."
    ]
    assert "Traceback" not in err and "DegenerateCardWarning" not in err
    code, _, err = run(["show", str(tmp_path / "rare.json")], capsys)  # a reloaded card says so too
    assert code == 0 and err.count("for every training row") == 1


def test_html_export_is_a_standalone_document(tmp_path, capsys, csv_path):
    page = tmp_path / "card.html"
    code, out, err = run(
        ["fit", str(csv_path), "--target", "Y", "--format", "html", "--out", str(page)], capsys
    )
    assert code == 0, err
    text = page.read_text(encoding="utf-8")
    assert (
        text.startswith("<!DOCTYPE html>")
        and '<meta charset="utf-8">' in text
        and "@media print" in text
    )
    assert "<title>PREDICT Y IF SCORE" in text and text.rstrip().endswith("</html>")


# -- show ------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_show_round_trip_as_subprocess(tmp_path, csv_path):
    card_json = tmp_path / "card.json"
    fitted = run_process(
        "fit", str(csv_path), "--target", "Y", "--sign", "c=+", "--json", str(card_json)
    )
    assert fitted.returncode == 0, fitted.stderr
    shown = run_process("show", str(card_json))
    assert shown.returncode == 0, shown.stderr
    fit_lines = [
        line for line in fitted.stdout.splitlines() if not line.startswith("card JSON written")
    ]
    assert shown.stdout.splitlines() == fit_lines  # the same card, notes and status line
    assert "PREDICT" in shown.stdout and "optimal" in shown.stdout


def test_show_other_format_and_tampered_card(tmp_path, capsys, csv_path):
    card_json = tmp_path / "card.json"
    assert main(["fit", str(csv_path), "--target", "Y", "--json", str(card_json)]) == 0
    capsys.readouterr()
    code, out, err = run(["show", str(card_json), "--format", "markdown"], capsys)
    assert code == 0 and out.startswith("**PREDICT Y IF SCORE ≥"), err
    data = json.loads(card_json.read_text(encoding="utf-8"))
    data["intercept"] -= 1
    card_json.write_text(json.dumps(data), encoding="utf-8")
    code, _, err = run(["show", str(card_json)], capsys)
    assert_user_error(code, err)
    assert "checksum" in err and "--no-verify" in err
    code, out, err = run(["show", str(card_json), "--no-verify"], capsys)
    assert code == 0 and "PREDICT" in out, err
    not_json = tmp_path / "x.json"
    not_json.write_text("hello", encoding="utf-8")
    code, _, err = run(["show", str(not_json)], capsys)
    assert_user_error(code, err)
    assert "not valid JSON" in err


# -- errors ----------------------------------------------------------------------------------------
def _bad_frames() -> dict[str, pd.DataFrame]:
    frame = make_frame()
    return {
        "text": frame.assign(city=["Paris"] * len(frame)),
        "one_class": frame.assign(Y=1),
    }


@pytest.mark.parametrize(
    "extra, data, needle",
    [
        (["--target", "Y"], "missing", "no such file"),
        (["--target", "y"], "ok", "'y' is not a column"),
        (["--target", "Y", "--sign", "e=+"], "ok", "--sign names an unknown feature 'e'"),
        (["--target", "Y", "--sign", "cc=+"], "ok", "did you mean 'c'"),
        (["--target", "Y", "--sign", "Y=+"], "ok", "target column"),
        (["--target", "Y", "--sign", "c"], "ok", "NAME=VALUE"),
        (["--target", "Y", "--sign", "c=up"], "ok", "'+', '-' or 'free'"),
        (["--target", "Y", "--coef-range", "5"], "ok", "LOW:HIGH"),
        (["--target", "Y", "--coef-range", "a:b"], "ok", "LOW:HIGH"),
        (["--target", "Y", "--coef-range", "5:-5"], "ok", "empty"),
        (["--target", "Y", "--lock", "a=1.5"], "ok", "whole number"),
        (["--target", "Y", "--positive", "yes"], "ok", "not a label of column 'Y'"),
        (["--target", "Y", "--require", "a", "--exclude", "a"], "ok", "both excluded and required"),
        (["--target", "Y", "--rules", "never"], "text", "non-numeric columns: ['city']"),
        (["--target", "Y"], "one_class", "only one value"),
        (["--target", "Y", "--max-fpr", "1.5"], "ok", "--max-fpr"),
    ],
    ids=[
        "missing-file",
        "unknown-target",
        "unknown-feature",
        "hint",
        "target-as-feature",
        "no-equals",
        "bad-sign",
        "range-one-number",
        "range-words",
        "range-empty",
        "lock-fraction",
        "unknown-positive",
        "exclude-and-require",
        "text-column",
        "one-class",
        "fpr-out-of-range",
    ],
)
def test_bad_inputs_are_user_errors(tmp_path, capsys, csv_path, extra, data, needle):
    if data == "ok":
        path = csv_path
    elif data == "missing":
        path = tmp_path / "nope.csv"
    else:
        path = write_csv(_bad_frames()[data], tmp_path / f"{data}.csv")
    code, out, err = run(["fit", str(path), *extra], capsys)
    assert code == 2, (out, err)
    assert "Traceback" not in err and needle in err, err
    assert "error: " in err
    if "usage:" not in err:  # argparse's own errors print usage first
        assert_user_error(code, err)


@pytest.mark.slow
def test_error_in_a_real_process_has_no_traceback(tmp_path):
    proc = run_process("fit", str(tmp_path / "missing.csv"), "--target", "Y")
    assert proc.returncode == 2
    assert proc.stderr.startswith("slimwidgets: error: ") and "no such file" in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_output_folder_checked_before_solving(tmp_path, capsys, csv_path):
    code, _, err = run(
        ["fit", str(csv_path), "--target", "Y", "--json", str(tmp_path / "no" / "card.json")],
        capsys,
    )
    assert_user_error(code, err)
    assert "does not exist" in err


@pytest.mark.slow
def test_infeasible_constraints_exit_1_and_name_the_clash(capsys, csv_path):
    code, out, err = run(
        [
            "fit",
            str(csv_path),
            "--target",
            "Y",
            "--max-fpr",
            "0",
            "--min-tpr",
            "1",
            "--max-size",
            "4",
        ],
        capsys,
    )
    assert_user_error(code, err, expected_code=1)
    assert "max_fpr=0" in err and "min_tpr=1" in err
    assert "max_size" not in err  # not part of the clash: the diagnosis is minimal
    assert out == ""


def test_stdin_input(monkeypatch, capsys):
    monkeypatch.setattr(
        sys, "stdin", io.StringIO(make_frame().to_csv(index=False).replace("\n", "\r"))
    )
    code, out, err = run(["fit", "-", "--target", "Y", "--max-size", "1"], capsys)
    assert code == 0, err
    assert len(printed_points(out)) == 1
