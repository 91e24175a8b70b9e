"""Where the tests find the paper's data sets: $SLIMWIDGETS_DATA, else ../shared/data."""

import os
from pathlib import Path


def shared_data_dir() -> Path:
    env = os.environ.get("SLIMWIDGETS_DATA")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "shared" / "data"
