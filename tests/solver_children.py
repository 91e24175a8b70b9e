"""Whether a solver child process (HiGHS in :mod:`slimwidgets.solvers.backends.worker`) still runs:
the process tests and the CLI's Ctrl-C tests check their children by pid with it; and the
children busy with a job, which the lost-solver tests kill as the out-of-memory killer would."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

from slimwidgets.solvers.backends import worker

HANG = 240  # seconds: only so that a broken build fails instead of hanging the suite


def solver_child_alive(pid: int) -> bool:
    """Whether ``pid`` is still a running solver child (a pid reused by another program, or a
    zombie already reaped, is not)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return b"slimwidgets.solvers.backends.worker" in cmdline and state != "Z"


def busy_children() -> list:
    """Solver children that have taken a job and not given it back (not idle)."""
    with worker._lock:
        idle = list(worker._idle)
    with worker._live_lock:
        live = list(worker._live)
    return [c for c in live if c.jobs > 0 and c not in idle and c.alive()]


def kill_a_busy_child(ready: threading.Event) -> threading.Thread:
    """Start a thread that, once ``ready`` is set, SIGKILLs the first child busy with a job;
    its ``killed`` attribute lists the pids it killed."""

    def run():
        assert ready.wait(HANG)
        end = time.monotonic() + HANG
        while time.monotonic() < end:
            busy = busy_children()
            if busy:
                os.kill(busy[0].process.pid, signal.SIGKILL)
                thread.killed.append(busy[0].process.pid)
                return
            time.sleep(0.01)

    thread = threading.Thread(target=run, daemon=True)
    thread.killed = []
    thread.start()
    return thread
