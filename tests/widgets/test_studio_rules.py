"""The studio's controller on a raw table: rules fit on the training rows,
every card carries them."""

from __future__ import annotations

import numpy as np
import pandas as pd

from slimwidgets.widgets.controller import Controller


def raw(n=160, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "age": rng.integers(30, 85, n),
            "bmi": np.round(rng.normal(28, 5, n), 1),
            "sex": rng.choice(["F", "M"], n),
        }
    )
    y = ((X.age > 60) | ((X.sex == "M") & (rng.random(n) < 0.5))).astype(int)
    X.loc[rng.random(n) < 0.1, "bmi"] = np.nan
    return X, y


def test_controller_takes_a_raw_table_with_held_out_rows(tmp_path):
    X, y = raw()
    c = Controller(
        X,
        y,
        holdout=0.25,
        random_state=0,
        max_size=3,
        cuts={"age": [50, 60]},
        signs={"age": "+"},
        time_limit=20,
        frontier=False,
        debounce=0.0,
    )
    try:
        assert c.wait(300), c.status.text
        card = c.card
        assert card.rules is c.rules and c.rules.rules_of("age") == ["age >= 50", "age >= 60"]
        assert "bmi missing" in c.data.feature_names
        assert c.data.n_samples == 120  # the rules were fit on the 120 training rows only
        assert card.validation_metrics is not None and card.validation_metrics.n == 40
        assert all(
            p >= 0 for n, p in card.points.items() if n.startswith("age")
        )  # a sign by variable
        edited = c.edit(points={card.feature_names[0]: 2})
        assert edited.rules is c.rules and len(edited.predict(X)) == len(
            X
        )  # edits score raw rows too
        path, _ = c.export("markdown", tmp_path / "card.md")
        assert "ADD THE POINTS OF EACH VARIABLE" in path.read_text()
    finally:
        c.close()
