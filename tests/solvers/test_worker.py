"""Cancellable HiGHS solves run in a child process that can be killed
(slimwidgets.solvers.backends.worker)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.core.formulation import build_formulation
from slimwidgets.solvers.backends import worker
from slimwidgets.solvers.backends.highs import solve_highs
from slimwidgets.solvers.backends.mip import solve_formulation

pytestmark = pytest.mark.slow  # HiGHS in a worker process: python -m pytest --all runs them

ROOT = Path(__file__).resolve().parents[2]


def hard_form(seed: int = 0, n: int = 400, p: int = 14):
    """Noisy random data with a small C0: HiGHS needs many seconds to prove anything here."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, p))
    y = (X[:, :4].sum(axis=1) + rng.normal(0, 1.2, size=n) > 2).astype(int)
    return build_formulation(prepare_data(X, y, warn=False), sw.make_spec(C0=0.002))


def easy_form(seed: int):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(30, 3))
    y = rng.integers(0, 2, size=30)
    y[:2] = [0, 1]
    return build_formulation(
        prepare_data(X, y, warn=False), sw.make_spec(C0=0.01, coef_range=(-3, 3))
    )


@pytest.mark.seeds(4)
def test_a_solve_in_the_child_equals_the_solve_in_process(seed):
    form = easy_form(seed)
    here = solve_highs(
        form,
        time_limit=None,
        gap=0.0,
        threads=1,
        warm_start=None,
        on_incumbent=None,
        cancel=None,
        feasibility_only=False,
    )
    seen = []
    there = worker.solve_in_child(
        form,
        time_limit=None,
        gap=0.0,
        threads=1,
        warm_start=None,
        on_incumbent=seen.append,
        cancel=threading.Event(),
    )
    assert there is not None and there.status == here.status == "optimal"
    assert there.objective == pytest.approx(here.objective, abs=1e-12)
    assert seen and seen[-1].objective == pytest.approx(
        there.objective, abs=1e-12
    )  # incumbents streamed back


def test_a_cancelled_solve_is_killed_and_returns_its_last_card(monkeypatch):
    monkeypatch.setattr(
        worker, "STOP_GRACE", 0.0
    )  # no grace: the child is killed, never asked twice
    # a child that does not hear the request (HiGHS heeds it only now and then; since the bound
    # is streamed it often heeds it at once, which would leave the kill untested)
    monkeypatch.setattr(worker._Child, "ask_to_stop", lambda self: None)
    form = hard_form()
    cancel, seen, first = threading.Event(), [], threading.Event()

    def on_incumbent(inc):
        seen.append(inc)
        first.set()

    box, bounds = {}, []
    thread = threading.Thread(
        target=lambda: box.setdefault(
            "r",
            solve_formulation(
                form,
                time_limit=120,
                cancel=cancel,
                on_incumbent=on_incumbent,
                on_bound=bounds.append,
            ),
        )
    )
    thread.start()
    assert first.wait(60), "no incumbent within a minute"
    deadline = time.monotonic() + 60
    while not bounds and time.monotonic() < deadline:
        time.sleep(0.05)
    assert bounds, "no bound streamed within a minute"
    cancel.set()
    thread.join(60)
    assert not thread.is_alive()
    result = box["r"]
    assert result.status == "interrupted"
    assert result.message == "stopped by killing the solver process"
    assert result.objective == pytest.approx(seen[-1].objective, abs=1e-12)
    assert form.objective_of(result.coefficients, result.intercept) == pytest.approx(
        result.objective, abs=1e-12
    )
    assert result.bound <= result.objective
    # the bound the child streamed before it was killed is kept, not lost with the process
    assert result.bound >= min(max(bounds), seen[-1].objective) - 1e-12
    # the killed process is gone; the next solve gets a fresh child and works
    nxt = solve_formulation(easy_form(0), cancel=threading.Event())
    assert nxt.status == "optimal"


def test_a_time_limit_that_highs_overruns_is_enforced(monkeypatch):
    """The parent stops a child that runs past its time limit: status time_limit, not a hang."""
    monkeypatch.setattr(worker, "STOP_GRACE", 0.0)
    result = solve_formulation(hard_form(1), time_limit=0.5, cancel=threading.Event())
    assert result.status in ("time_limit", "no_solution")
    assert result.gap > 0


def test_a_child_stopped_for_its_time_limit_reports_time_limit(monkeypatch):
    """Asked to stop because its time was up (here: before HiGHS's own limit), a child that stops
    by itself says "interrupted"; the caller must see "time_limit", or the studio would take the
    result for a superseded solve and never show it."""
    monkeypatch.setattr(worker, "OVERRUN_GRACE", -0.3)  # ask 0.3 s before the limit
    monkeypatch.setattr(worker, "STOP_GRACE", 30.0)  # and never kill
    result = solve_formulation(hard_form(2), time_limit=0.6, cancel=threading.Event())
    assert result.status == "time_limit"
    assert result.message == ""  # it stopped by itself


def test_a_script_without_a_main_guard_is_not_run_again():
    """The child is `python -m slimwidgets.solvers.backends.worker`: it never imports
    the caller's script (spawn
    would re-run a script that lacks `if __name__ == "__main__"`)."""
    script = textwrap.dedent("""
        import threading
        import numpy as np
        import slimwidgets as sw
        print("script ran", flush=True)
        rng = np.random.default_rng(0)
        X = rng.integers(0, 2, size=(200, 10))
        y = (X[:, 0] + X[:, 1] + rng.normal(0, 1, 200) > 1).astype(int)
        card = sw.fit(X, y, C0=0.002, time_limit=1.0, cancel=threading.Event())
        print("fitted", card.status, flush=True)
    """)
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, env=env
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("script ran") == 1
    assert "fitted" in out.stdout


def test_solves_run_in_process_when_asked(monkeypatch):
    monkeypatch.setenv("SLIMWIDGETS_INPROCESS", "1")
    assert not worker.available()
    result = solve_formulation(easy_form(1), cancel=threading.Event())
    assert result.status == "optimal" and result.message == ""


def test_a_child_killed_under_its_solve_keeps_its_card_and_a_new_child_starts():
    """SIGKILL on the busy child (the out-of-memory killer's way): the solve returns its last
    card and bound as "solver_stopped", the fit's stop flag hears why (so the fit's other phases
    stop), and a new child is started for the next solve."""
    import signal

    from slimwidgets.solvers.base import FitStop

    from solver_children import busy_children

    form = hard_form(3)
    stop, seen, first = FitStop(threading.Event()), [], threading.Event()

    def on_incumbent(inc):
        seen.append(inc)
        first.set()

    box = {}
    thread = threading.Thread(
        target=lambda: box.setdefault(
            "r", solve_formulation(form, time_limit=600, cancel=stop, on_incumbent=on_incumbent)
        )
    )
    thread.start()
    assert first.wait(120), "no incumbent within two minutes"
    busy = busy_children()
    assert len(busy) == 1
    os.kill(busy[0].process.pid, signal.SIGKILL)
    thread.join(120)
    assert not thread.is_alive()
    result = box["r"]
    assert result.status == "solver_stopped"
    assert result.message.startswith("lost the HiGHS process (killed by signal 9")
    assert stop.is_set() and not stop.cancelled and stop.lost == result.message
    assert result.objective == pytest.approx(seen[-1].objective, abs=1e-12)
    assert form.objective_of(result.coefficients, result.intercept) == pytest.approx(
        result.objective, abs=1e-12
    )
    assert result.bound <= result.objective
    assert busy[0] not in worker._live  # reaped
    nxt = solve_formulation(easy_form(1), cancel=threading.Event())
    assert nxt.status == "optimal" and nxt.message == ""


class _StubClock:
    """``time`` for solvers/backends/worker.py: each look at perf_counter or monotonic
    moves it on by 0.01 s."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        self.now += 0.01
        return self.now

    monotonic = perf_counter


class _DeafChild:
    """A child that sends one card, then ignores its time limit and every stop request; with
    ``stuck_sending`` it never even reads its job (a child still loading, a full pipe)."""

    def __init__(self, form, clock, stuck_sending=False):
        self.clock, self.stuck_sending, self.killed_at, self.asked_at = (
            clock,
            stuck_sending,
            None,
            None,
        )
        points = np.zeros(len(form.data.feature_names))
        card = worker.Incumbent(points, 0, form.objective_of(points, 0), -np.inf, 0.0)
        self.messages = [] if stuck_sending else [("incumbent", card)]
        self.jobs, self.unblock = 0, threading.Event()
        self.conn = self
        self.process = type("P", (), {"returncode": -9})()

    def new_job(self):
        self.jobs += 1
        return str(self.jobs).encode()

    def send_job(self, job, form, options):
        if self.stuck_sending and not self.unblock.wait(60):
            raise AssertionError("never unblocked")
        if self.killed_at is not None:
            raise OSError("the child was killed")

    def poll(self, timeout):
        return bool(self.messages)

    def recv(self):
        return self.messages.pop(0)

    def ask_to_stop(self):
        self.asked_at = self.clock.now

    def kill(self):
        self.killed_at = self.clock.now
        self.unblock.set()

    def alive(self):
        return self.killed_at is None


@pytest.mark.parametrize("stuck_sending", [False, True])
def test_a_child_that_ignores_its_limit_is_asked_then_killed_at_its_deadline(
    monkeypatch, stuck_sending
):
    """Whatever the child does (runs on past its limit, or never reads its job), the parent asks
    it to stop at the limit and kills it a grace later, and returns the last card it sent as
    status "time_limit" saying the process was killed (a fake clock and child: no wall-clock)."""
    clock = _StubClock()
    form = easy_form(0)
    child = _DeafChild(form, clock, stuck_sending)
    monkeypatch.setattr(worker, "time", clock)
    monkeypatch.setattr(worker, "_take", lambda: child)
    result = worker.solve_in_child(
        form,
        time_limit=2.0,
        gap=0.0,
        threads=1,
        warm_start=None,
        on_incumbent=None,
        cancel=threading.Event(),
    )
    assert child.asked_at == pytest.approx(2.0 + worker.OVERRUN_GRACE, abs=0.05)
    assert child.killed_at - child.asked_at == pytest.approx(worker.STOP_GRACE, abs=0.05)
    if stuck_sending:  # no card ever came: none is made up
        assert result.status == "no_solution" and result.coefficients is None
    else:
        assert result.status == "time_limit" and result.objective == form.objective_of(
            np.zeros(len(form.data.feature_names)), 0
        )
    assert "killing the solver process" in result.message


def test_a_job_whose_pipe_is_closed_while_it_is_being_sent_ends_quietly(monkeypatch):
    """The child killed at its deadline closes the pipe while a large job is still being written
    to it: the sending thread keeps the failure, and no traceback reaches the user's output."""
    import multiprocessing

    reader, writer = multiprocessing.Pipe(duplex=False)

    class Child:  # a child that never reads its job: the write blocks on the full pipe
        conn = writer

        def new_job(self) -> bytes:
            return b"1"

        def send_job(self, job, form, options):
            self.conn.send((job, form, options))

    raised = []
    monkeypatch.setattr(threading, "excepthook", lambda args: raised.append(args.exc_value))
    sending = worker._send_in_background(Child(), np.zeros(2_000_000), {})
    for _ in range(200):  # wait until the write is under way (the thread is blocked in it)
        if sending.thread.is_alive():
            break
        time.sleep(0.01)
    writer.close()  # what the kill does to the parent's end
    reader.close()
    sending.thread.join(30)
    assert not sending.thread.is_alive()
    assert raised == [] and sending.failed is not None
