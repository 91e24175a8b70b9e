"""Where the tests find the paper's data sets: $SLIMWIDGETS_DATA, else ../shared/data.

Read once, when the tests start: a test that unsets the variable (to exercise downloads) must
still find the real files to serve them.
"""

import os
from pathlib import Path

_FOLDER = Path(
    os.environ.get("SLIMWIDGETS_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data"
)


def shared_data_dir() -> Path:
    return _FOLDER
