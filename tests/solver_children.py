"""Whether a solver child process (HiGHS in :mod:`slimwidgets.solvers.worker`) still runs:
the process tests and the CLI's Ctrl-C tests check their children by pid with it."""

from __future__ import annotations

from pathlib import Path


def solver_child_alive(pid: int) -> bool:
    """Whether ``pid`` is still a running solver child (a pid reused by another program, or a
    zombie already reaped, is not)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return b"slimwidgets.solvers.worker" in cmdline and state != "Z"
