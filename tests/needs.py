"""What a test needs from the machine: the paper's data, Chromium, LaTeX.

Without it a test is skipped on a contributor's machine, saying what is missing, and fails in CI
(``CI`` set, as GitHub Actions and ``.ci/run``'s host do), so a missing install cannot pass unseen.
"""

import os
from typing import NoReturn

import pytest


def in_ci() -> bool:
    """Whether the tests run in CI: ``CI`` is set to anything but empty, ``0`` or ``false``."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false")


def missing(reason: str) -> NoReturn:
    """Fail in CI, skip elsewhere, with ``reason`` (what is missing and how to get it)."""
    if in_ci():
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)
