"""HiGHS in a child process, for solves that another thread may cancel.

HiGHS looks at its interrupt flag only at some points: during presolve, cut rounds and root
heuristics it can run for seconds without looking (up to ~4 s was seen on mushroom), so a
superseded solve in the studio kept a core busy that long. A solve in a child process can
always be stopped: ``cancel`` first asks HiGHS to stop, and a child that has not answered
within ``STOP_GRACE`` seconds is killed. The cards it had already reported are kept, so the
caller gets the best of them, labelled ``interrupted``, with the last bound it reported.
The same holds for a time limit that HiGHS overruns: asked to stop at its limit, killed
``STOP_GRACE`` later (so a time-limited ``fit`` sends every MIP here, with or without ``cancel``),
also while its job is still on its way (a large program fills the pipe until a child still loading
reads it; the job is sent by a thread of its own, the clock kept meanwhile). A child that dies under
its solve (the system's out-of-memory killer picks the largest process) loses nothing either: the
solve returns its last card and bound with status ``solver_stopped``, a new child is started at
once, and a :class:`~.base.FitStop` passed as ``cancel`` hears why, so the
rest of the fit stops too.

A spare child is kept started, so a solve does not wait for Python and HiGHS to load (about
0.9 s), and a child that finished its solve normally serves the next one (up to two are kept
idle: the studio solves on two threads). Children run in their own session, out of reach of a
Ctrl-C aimed at the caller.

Nothing outlives the caller: a child whose parent is gone (its pipes closed) stops its solve and
exits without a word, and at the caller's exit every child still running is killed and reaped
(``atexit``), so a script, a CLI run or a joblib/Dask worker that ran a fit ends promptly.
"""

from __future__ import annotations

import atexit
import math
import os
import socket
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import replace
from multiprocessing.connection import Connection
from pathlib import Path

import numpy as np

from ...core.formulation import Formulation
from ..base import Incumbent, SolverError, SolveResult, relative_gap

__all__ = ["solve_in_child", "prestart", "available", "STOP_GRACE"]

#: seconds a child may take to stop by itself after ``cancel`` before it is killed
STOP_GRACE = 0.05
#: seconds past its time limit before a child is asked to stop (HiGHS usually stops itself)
OVERRUN_GRACE = 0.05
_POLL = 0.01


class _StopFlag:
    """The child's view of the parent's stop requests for the job it is running.

    Each request names its job, so a request that arrives after its job ended (or before the
    child took the job) stops that job and no other. A closed channel (the parent is gone)
    stops everything.
    """

    def __init__(self, conn: Connection):
        self.conn = conn
        self.job = b""
        self.hit = False

    def start(self, job: bytes) -> None:
        self.job, self.hit = job, False

    def is_set(self) -> bool:
        while not self.hit and self.conn.poll():
            try:
                self.hit = self.conn.recv_bytes() == self.job
            except (EOFError, OSError):
                self.hit = True
        return self.hit


def _serve(
    conn: Connection, stop: _StopFlag
) -> None:  # pragma: no cover - runs in the child process
    """The child's loop: one solve per message, incumbents and the result sent back. A closed
    pipe (the parent is gone) ends it: see ``_child_main``."""
    from .highs import solve_highs

    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        if job is None:
            return
        job_id, form, options = job
        stop.start(job_id)
        # the time limit counts from the parent's call: a child still loading when the job came
        # spends its own time (CLOCK_MONOTONIC is one clock for every process on the machine)
        deadline = options.pop("deadline")
        options["time_limit"] = None if deadline is None else max(deadline - time.monotonic(), 0.01)

        def report(inc: Incumbent) -> None:
            _send_or_stop(conn, stop, ("incumbent", inc))

        def rise(bound: float) -> None:
            _send_or_stop(conn, stop, ("bound", bound))

        try:
            result = solve_highs(form, on_incumbent=report, on_bound=rise, cancel=stop, **options)
            conn.send(("result", result))
        except Exception as exc:  # noqa: BLE001 - sent to the parent, which raises it
            conn.send(("error", f"{type(exc).__name__}: {exc}"))


def _send_or_stop(conn: Connection, stop: _StopFlag, message) -> None:  # pragma: no cover - child
    """Send from inside a HiGHS callback, where an exception would be lost: a parent that is
    gone stops the solve instead, and the loop then ends on its closed pipe."""
    try:
        conn.send(message)
    except OSError:
        stop.hit = True


def _child_main(argv: list[str]) -> None:  # pragma: no cover - the child process
    """Serve until the parent says stop or goes away; a parent that went away (a broken or
    reset pipe, end of file) is the normal end of a child's life, not an error to print."""
    try:
        _serve(Connection(int(argv[1])), _StopFlag(Connection(int(argv[2]))))
    except (OSError, EOFError):
        pass
    except BaseException:  # a bug: say so, then exit like any other end
        import traceback

        traceback.print_exc()
        sys.stderr.flush()
        os._exit(1)
    # no interpreter teardown: HiGHS's threads and a half-sent pipe have nothing to flush
    os._exit(0)


class _Child:
    """A solver process started with ``python -m slimwidgets.solvers.backends.worker``:
    a fresh interpreter that
    imports only this package (never the caller's ``__main__``, unlike multiprocessing's spawn,
    which would re-run a user's script that lacks a main guard)."""

    def __init__(self) -> None:
        parent_job, child_job = socket.socketpair()
        parent_stop, child_stop = socket.socketpair()
        env = dict(os.environ)
        # the child must import this very copy of the package, wherever the caller found it
        here = str(Path(__file__).resolve().parents[3])
        env["PYTHONPATH"] = os.pathsep.join(
            [here] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
        )
        fds = (child_job.fileno(), child_stop.fileno())
        try:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "slimwidgets.solvers.backends.worker",
                    str(fds[0]),
                    str(fds[1]),
                ],
                pass_fds=fds,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                env=env,
                # its own session: a Ctrl-C or kernel interrupt aimed at the caller's process
                # group must not kill the solver (a closed pipe still stops it if the caller dies)
                start_new_session=True,
            )
        finally:
            child_job.close()
            child_stop.close()
        self.conn = Connection(parent_job.detach())
        self.stop_conn = Connection(parent_stop.detach())
        self.jobs = 0  # jobs sent; the newest one's number names its stop requests
        with _live_lock:
            _live.add(self)

    def alive(self) -> bool:
        return self.process.poll() is None

    def new_job(self) -> bytes:
        """The next job's name (its stop requests carry it), counted before the job is sent."""
        self.jobs += 1
        return str(self.jobs).encode()

    def send_job(self, job: bytes, form: Formulation, options: dict) -> None:
        self.conn.send((job, form, options))

    def ask_to_stop(self) -> None:
        self.stop_conn.send_bytes(str(self.jobs).encode())

    def kill(self) -> None:
        """Stop the process at once (an idle child has nothing to save; a busy one is the point)."""
        with _live_lock:  # once: the solve's thread and the exit's reaper may both get here
            if self not in _live:
                return
            _live.discard(self)
        self.process.kill()
        self.process.wait()
        self.conn.close()
        self.stop_conn.close()


_lock = threading.Lock()
_live_lock = threading.Lock()  # apart from _lock: kill() runs while _lock is held
_live: set[_Child] = set()  # every child not yet killed, idle or busy (reaped at exit)
_closing = False  # set at the caller's exit: no child is started or kept after it
_idle: list[_Child] = []  # started children waiting for a job
_starting: threading.Thread | None = None
_broken: str | None = None  # why children cannot be started here (then solves run in-process)
#: idle children kept: one per thread that solves at once (the studio's solver and its frontier)
POOL_SIZE = 2


@atexit.register
def _reap_all() -> None:
    """At the caller's exit: kill and reap every child, idle or busy (a busy one's solve is
    abandoned with its caller), and start none after."""
    global _closing
    _closing = True
    with _live_lock:
        children = list(_live)
    for child in children:
        child.kill()


def _start_spare() -> None:
    global _broken
    if _closing:
        return
    try:
        child = _Child()
    except Exception as exc:  # noqa: BLE001 - e.g. no permission to start processes
        _broken = f"{type(exc).__name__}: {exc}"
        return
    _give_back(child)


def prestart() -> None:
    """Start a spare child in the background unless one is idle or starting (the studio
    calls this when it opens, and every solve after taking a child)."""
    global _starting
    with _lock:
        if (
            _closing
            or _idle
            or _broken is not None
            or (_starting is not None and _starting.is_alive())
        ):
            return
        _starting = threading.Thread(target=_start_spare, name="slimwidgets-spawn", daemon=True)
        _starting.start()


def _pop_idle() -> _Child | None:
    with _lock:
        while _idle:
            child = _idle.pop()
            if child.alive():
                return child
            child.kill()
    return None


def _take() -> _Child | None:
    """An idle child (waiting for one that is starting, else starting one), and a spare
    started in the background for the next solve."""
    child = _pop_idle()
    if child is None:
        starting = _starting
        if starting is not None:
            starting.join()
        child = _pop_idle()
    if child is None:
        _start_spare()
        child = _pop_idle()
    prestart()
    return child


def _give_back(child: _Child) -> None:
    """Keep a child that finished its job for the next one (up to ``POOL_SIZE`` idle)."""
    with _lock:
        if not _closing and len(_idle) < POOL_SIZE and child.alive():
            _idle.append(child)
            return
    child.kill()


def available() -> bool:
    """Whether solves can run in a child process here (False after a failed start)."""
    return (
        os.name == "posix"
        and _broken is None
        and os.environ.get("SLIMWIDGETS_INPROCESS", "") in ("", "0")
    )


def solve_in_child(
    form: Formulation,
    *,
    time_limit: float | None,
    gap: float,
    threads: int,
    warm_start: tuple[np.ndarray, int] | None,
    on_incumbent: Callable[[Incumbent], None] | None,
    cancel: threading.Event,
    feasibility_only: bool = False,
    on_bound: Callable[[float], None] | None = None,
) -> SolveResult | None:
    """Run HiGHS on ``form`` in the spare child; None if no child could be started. The child
    streams incumbents and bounds; a child killed after a stop request leaves its last
    incumbent with the best bound it sent."""
    refused = _refused(cancel)
    if refused is not None:
        return refused
    t0 = time.perf_counter()
    deadline = None if time_limit is None else time.monotonic() + time_limit
    child = _take()
    if child is None:
        if _broken is not None:
            warnings.warn(
                f"solving in-process: cannot start a solver process ({_broken})",
                RuntimeWarning,
                stacklevel=3,
            )
        return None
    options = dict(
        gap=gap,
        threads=threads,
        warm_start=warm_start,
        feasibility_only=feasibility_only,
        deadline=deadline,
    )
    last: Incumbent | None = None
    streamed = -math.inf  # the best bound the child has sent
    asked_at: float | None = None
    why = "interrupted"
    try:
        sending = _send_in_background(child, form, options)
        while True:
            if child.conn.poll(_POLL):
                kind, payload = child.conn.recv()
                if kind == "incumbent":
                    last = payload
                    if on_incumbent is not None:
                        on_incumbent(payload)
                    continue
                if kind == "bound":
                    streamed = max(streamed, payload)
                    if on_bound is not None:
                        on_bound(payload)
                    continue
                if kind == "error":
                    child.kill()
                    raise SolverError(payload)
                _give_back(child)
                if asked_at is not None and why == "time_limit" and payload.status == "interrupted":
                    # we stopped it for running past its time limit: say so,
                    # as in-process HiGHS would
                    payload = replace(payload, status="time_limit")
                return payload
            now = time.perf_counter()
            if asked_at is None:
                overrun = time_limit is not None and now - t0 > time_limit + OVERRUN_GRACE
                if cancel.is_set() or overrun:
                    why = "interrupted" if cancel.is_set() else "time_limit"
                    child.ask_to_stop()
                    asked_at = now
            elif now - asked_at > STOP_GRACE:
                break
            if sending.failed is not None and not _closing:  # the job never reached the child
                return _lost(child, cancel, last, streamed, t0)
            if not child.alive():
                if _closing:  # killed by _reap_all: the caller is exiting, no one to tell
                    break
                return _lost(child, cancel, last, streamed, t0)
    except (EOFError, OSError):
        if not _closing:
            return _lost(child, cancel, last, streamed, t0)
    child.kill()
    return _stopped(
        why, last, streamed, time.perf_counter() - t0, "stopped by killing the solver process"
    )


class _Sending:
    """A job on its way to a child, sent by a thread of its own: a large program (megabytes of
    rows) fills the pipe, and ``send`` then waits until the child reads it, which a child still
    loading Python and HiGHS does only after a second or more on a busy machine. The solve's
    loop meanwhile keeps its clock and its stop requests (a child killed at its deadline ends
    the sending with an error, kept here, not raised)."""

    def __init__(self, child: _Child, form: Formulation, options: dict):
        self.failed: str | None = None
        self.job = child.new_job()  # named now: a stop request may come before the job is sent
        self.thread = threading.Thread(
            target=self._send, args=(child, form, options), daemon=True, name="slimwidgets-send-job"
        )

    def _send(self, child: _Child, form: Formulation, options: dict) -> None:
        try:
            child.send_job(self.job, form, options)
        # a closed or reset pipe: the child was killed or died; a pipe closed by the kill while
        # its write was under way fails with TypeError (the connection's handle is gone)
        except (OSError, ValueError, TypeError) as exc:
            self.failed = f"{type(exc).__name__}: {exc}"


def _send_in_background(child: _Child, form: Formulation, options: dict) -> _Sending:
    """Start sending the job to ``child`` (see :class:`_Sending`)."""
    sending = _Sending(child, form, options)
    sending.thread.start()
    return sending


def _refused(cancel: threading.Event) -> SolveResult | None:
    """The result of a solve that must not start, or None: superseded before it started, or
    the caller exiting (no child then, and no in-process HiGHS either, whose threads would
    hold the interpreter's exit until the solve ends)."""
    if cancel.is_set():
        return SolveResult.no_card("highs")
    if _closing:
        return SolveResult.no_card("highs", message="not solved: the process is exiting")
    return None


def _stopped(
    status: str, last: Incumbent | None, streamed: float, elapsed: float, message: str
) -> SolveResult:
    """The result of a solve whose process is gone: its last card, with the best bound it sent."""
    if last is None:
        return SolveResult(
            "no_solution", None, None, None, streamed, math.inf, elapsed, "highs", message=message
        )
    bound = min(max(last.bound, streamed), last.objective)
    return SolveResult(
        status,
        last.coefficients,
        last.intercept,
        last.objective,
        bound,
        relative_gap(last.objective, bound),
        elapsed,
        "highs",
        message=message,
    )


def _lost(child: _Child, cancel, last: Incumbent | None, streamed: float, t0: float) -> SolveResult:
    """A child that died under its solve (the system kills the largest process when memory runs
    out): its last card and bound are kept, a new child is started at once for the next solve,
    and ``cancel.lose`` (a :class:`~.base.FitStop`) stops the rest of the fit."""
    child.kill()  # reaps it: its exit code says how it ended
    code = child.process.returncode
    how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
    why = f"lost the HiGHS process ({how}; the system does this when memory runs out)"
    prestart()
    lose = getattr(cancel, "lose", None)
    if lose is not None:
        lose(why)
    result = _stopped("solver_stopped", last, streamed, time.perf_counter() - t0, why)
    return replace(result, status="solver_stopped")  # also without a card: the caller says why


if __name__ == "__main__":  # pragma: no cover - the child process
    _child_main(sys.argv)
