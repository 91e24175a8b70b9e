"""Shared helpers for the benchmark scripts (not part of the package)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from slimwidgets.datasets import PAPER_DATASETS, load_paper_dataset

# The paper's Table 6 (SLIM column): 10-fold CV mean train error (%) and final model size.
# adult and haberman are reported with a class-balanced (weighted) error.
PAPER_TRAIN = {
    "adult": (17.5, 18, True),
    "breastcancer": (3.2, 2, False),
    "bankruptcy": (0.0, 3, False),
    "haberman": (29.7, 3, True),
    "heart": (14.9, 3, False),
    "mammo": (18.3, 9, False),
    "mushroom": (0.0, 7, False),
    "spambase": (5.7, 34, False),
}
ORDER = (
    "bankruptcy",
    "mammo",
    "breastcancer",
    "haberman",
    "heart",
    "mushroom",
    "spambase",
    "adult",
)


def data_folder() -> Path:
    env = os.environ.get("SLIMWIDGETS_DATA")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "shared" / "data"


def load(name: str):
    return load_paper_dataset(name, folder=data_folder())


def load_line() -> str:
    """The machine's load as ``uptime`` prints it: wall-clock figures are comparable only at a
    similar load."""
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "uptime unavailable"


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


assert set(ORDER) == set(PAPER_DATASETS)
