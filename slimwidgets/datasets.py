"""Data sets: an embedded default that needs no download, and the paper's eight.

``load_demo()`` binarizes scikit-learn's bundled Wisconsin diagnostic breast
cancer data (shipped inside scikit-learn, so no network). The paper's
processed data sets are read from a local folder: ``folder=`` or the
``SLIMWIDGETS_DATA`` environment variable.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["load_demo", "load_paper_dataset", "PAPER_DATASETS"]

PAPER_DATASETS = ("adult", "bankruptcy", "breastcancer", "haberman", "heart", "mammo", "mushroom", "spambase")

# The label column of each processed file, and what a 1 in it means. In
# breastcancer_processed.csv the column is named "Benign" but 1 marks the
# malignant tumours (see the data's provenance notes).
_POSITIVE_NAME = {
    "adult": "Over50K", "bankruptcy": "NotBankrupt", "breastcancer": "Malignant", "haberman": "AliveAfter5Yrs",
    "heart": "Disease", "mammo": "Malignant", "mushroom": "Poisonous", "spambase": "Spam",
}


def load_demo(n_features: int = 10) -> tuple[pd.DataFrame, pd.Series]:
    """scikit-learn's breast cancer data, binarized into readable threshold rules.

    Each of the first ``n_features`` "mean ..." measurements becomes a 0/1
    column ``"<measurement> >= <median>"``. ``y`` is a boolean Series named
    ``"malignant"`` (True = malignant).

    Examples
    --------
    >>> X, y = load_demo()
    >>> X.shape, y.name
    ((569, 10), 'malignant')
    """
    from sklearn.datasets import load_breast_cancer

    raw = load_breast_cancer(as_frame=True)
    frame = raw.frame
    columns = [c for c in raw.feature_names if c.startswith("mean ")][:n_features]
    X = pd.DataFrame(index=frame.index)
    for c in columns:
        cut = float(np.round(frame[c].median(), 3 if frame[c].median() < 1 else 1))
        X[f"{c.removeprefix('mean ')} >= {cut:g}"] = (frame[c] >= cut).astype(np.int8)
    y = pd.Series(raw.target == 0, name="malignant")  # sklearn codes malignant as 0
    return X, y


def _default_folder() -> Path:
    env = os.environ.get("SLIMWIDGETS_DATA")
    if env:
        return Path(env)
    raise FileNotFoundError(
        "no data folder: pass folder= or set SLIMWIDGETS_DATA to the folder holding <name>_processed.csv"
    )


def load_paper_dataset(name: str, folder: str | os.PathLike | None = None) -> tuple[pd.DataFrame, pd.Series]:
    """One of the paper's processed data sets as ``(X, y)``; ``y`` is 0/1, named for class 1.

    The files use old-Mac CR line endings, which are normalized here.
    """
    if name not in PAPER_DATASETS:
        raise ValueError(f"unknown data set {name!r}; choose from {PAPER_DATASETS}")
    path = Path(folder) if folder is not None else _default_folder()
    path = path / f"{name}_processed.csv"
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist")
    text = path.read_text().replace("\r\n", "\n").replace("\r", "\n")
    frame = pd.read_csv(io.StringIO(text))
    y = frame.iloc[:, 0].astype(int).rename(_POSITIVE_NAME[name])
    return frame.iloc[:, 1:], y
