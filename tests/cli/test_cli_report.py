"""`slimwidgets report CARD.json DATA.csv --target Y -o report.html`."""

from __future__ import annotations

import pytest

import slimwidgets as sw
from slimwidgets.cli import main
from slimwidgets.datasets import load_demo

pytestmark = pytest.mark.slow  # reports of fitted cards: python -m pytest --all runs them


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    X, y = load_demo()
    card = sw.fit(X[:350], y[:350], max_fpr=0.2, max_size=3, time_limit=2)
    card.to_json(str(folder / "card.json"))
    frame = X.assign(
        malignant=y, site=["<script>alert(1)</script>" if k % 2 else "B" for k in range(len(X))]
    )
    frame[:350].to_csv(folder / "train.csv", index=False)
    frame[350:460].to_csv(folder / "test.csv", index=False)
    frame[460:].to_csv(folder / "ext.csv", index=False)
    return folder, card


def test_report_writes_the_document_with_every_part(files, capsys):
    folder, card = files
    out = folder / "report.html"
    code = main(
        [
            "report",
            str(folder / "card.json"),
            str(folder / "train.csv"),
            "--target",
            "malignant",
            "-o",
            str(out),
            "--test",
            str(folder / "test.csv"),
            "--external",
            str(folder / "ext.csv"),
            "--groups",
            "site",
        ]
    )
    assert code == 0 and "wrote" in capsys.readouterr().err
    doc = out.read_text(encoding="utf-8")
    assert "held-out" in doc and "external" in doc and "By group" in doc
    assert "<script>" not in doc and "&lt;script&gt;alert(1)&lt;/script&gt;" in doc
    assert card.to_dict()["checksum"] in doc


def test_report_names_a_wrong_target_and_a_wrong_group_column(files, capsys):
    folder, _ = files
    out = folder / "x.html"
    args = ["report", str(folder / "card.json"), str(folder / "train.csv"), "-o", str(out)]
    assert main(args + ["--target", "Malignant"]) == 2
    assert "did you mean 'malignant'" in capsys.readouterr().err
    assert main(args + ["--target", "malignant", "--groups", "sex"]) == 2
    assert "--groups 'sex'" in capsys.readouterr().err
    assert not out.exists()


def test_report_refuses_an_edited_card(files, capsys):
    folder, _ = files
    text = (folder / "card.json").read_text().replace('"status": "', '"status": "x', 1)
    (folder / "bad.json").write_text(text)
    assert (
        main(
            [
                "report",
                str(folder / "bad.json"),
                str(folder / "train.csv"),
                "--target",
                "malignant",
                "-o",
                str(folder / "y.html"),
            ]
        )
        == 2
    )
    assert "checksum" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("flag", "text", "said"),
    [
        ("--bootstrap", "-1", "--bootstrap must be >= 0, got -1"),
        ("--bootstrap", "ten", "expected a whole number, got 'ten'"),
        ("--bootstrap-time-limit", "0", "--bootstrap-time-limit must be > 0"),
        ("--bootstrap-time-limit", "soon", "expected a number, got 'soon'"),
    ],
)
def test_report_names_a_bad_bootstrap_setting(files, capsys, flag, text, said):
    folder, _ = files
    out = folder / "z.html"
    code = main(
        [
            "report",
            str(folder / "card.json"),
            str(folder / "train.csv"),
            "--target",
            "malignant",
            "-o",
            str(out),
            flag,
            text,
        ]
    )
    assert code == 2 and said in capsys.readouterr().err
    assert not out.exists()
