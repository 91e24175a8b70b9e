"""slimwidgets fit --sensitive COLUMN with group caps and gaps (issue 22)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.cli import main


def grouped_csv(tmp_path):
    rng = np.random.default_rng(1)
    n = 60
    frame = pd.DataFrame(rng.integers(0, 2, size=(n, 3)), columns=["a", "b", "c"])
    sex = np.where(rng.random(n) < 0.5, "F", "M")
    frame["Y"] = np.where(sex == "F", frame["a"], frame["b"]).astype(int)
    frame["sex"] = sex
    path = tmp_path / "g.csv"
    frame.to_csv(path, index=False)
    return path, frame


@pytest.mark.slow
def test_fit_holds_the_gap_and_the_json_carries_it(tmp_path, capsys):
    path, frame = grouped_csv(tmp_path)
    out = tmp_path / "card.json"
    code = main(
        [
            "fit",
            str(path),
            "--target",
            "Y",
            "--sensitive",
            "sex",
            "--max-tpr-gap",
            "0.1",
            "--max-fpr-by-group",
            "F=0.3",
            "--C0",
            "0.01",
            "--quiet",
            "--json",
            str(out),
        ]
    )
    assert code == 0
    card = sw.ScoringSystem.from_dict(json.loads(out.read_text()))
    assert card.spec.max_tpr_gap == 0.1 and card.spec.max_fpr_by_group == {"F": 0.3}
    assert "sex" not in card.feature_names
    rates = sw.group_rates(card, frame.drop(columns=["Y"]), frame["Y"], "sex").set_index("group")
    assert (
        rates["TPR"].max() - rates["TPR"].min() <= 0.1 + 1e-12
        and rates.loc["F", "FPR"] <= 0.3 + 1e-12
    )


def test_group_flags_need_the_column_and_a_known_one(tmp_path, capsys):
    path, _ = grouped_csv(tmp_path)
    assert main(["fit", str(path), "--target", "Y", "--max-tpr-gap", "0.1", "--quiet"]) == 2
    assert "need --sensitive COLUMN" in capsys.readouterr().err
    assert (
        main(
            [
                "fit",
                str(path),
                "--target",
                "Y",
                "--sensitive",
                "sx",
                "--max-tpr-gap",
                "0.1",
                "--quiet",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "--sensitive 'sx' is not a column" in err and "did you mean 'sex'" in err
