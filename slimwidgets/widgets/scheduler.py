"""Background solve scheduling for the studio (plain threads, no Jupyter).

Two workers run off the caller's thread:

* :class:`SolveScheduler` runs the one solve the user is waiting for. Requests
  are debounced; a new request supersedes the pending one and interrupts the
  running one (its ``cancel`` event is set, which stops HiGHS within ~0.1 s).
* :class:`BackgroundQueue` works through a plan of lower-priority solves (the
  frontier and the sparsity path), one at a time; a new plan replaces the old
  one and interrupts a solve that is no longer part of it.

:class:`Throttle` passes a running solve's incumbents on to the view at most a
few times a second (a solver can find ten cards in a second; a card that
flashes by cannot be read), always delivering the newest one in the end.

Both start their thread on demand and let it end after ``idle_exit`` seconds
without work, so an abandoned studio leaves no thread behind; ``close()`` stops
them at once. The threads hold only weak references to their owner's callback.
"""

from __future__ import annotations

import atexit
import threading
import time
import weakref
from collections.abc import Callable, Hashable, Sequence
from typing import Any

__all__ = ["SolveScheduler", "BackgroundQueue", "Throttle", "THREAD_PREFIX"]

THREAD_PREFIX = "slimwidgets-"


def _weak(fn: Callable) -> Callable[[], Callable | None]:
    """A weak reference to a bound method (or a strong one to a plain function)."""
    if hasattr(fn, "__self__") and hasattr(fn, "__func__"):
        return weakref.WeakMethod(fn)
    return lambda: fn


#: workers with a thread, closed when the interpreter exits (see _close_all)
_open: weakref.WeakSet[_Worker] = weakref.WeakSet()


def _close_all(timeout: float = 2.0) -> None:
    """At exit, stop every worker's running solve and let its thread end, for up to ``timeout``
    seconds in all: a daemon thread still inside compiled code (a scikit-learn fit for a start)
    when the interpreter finalizes can abort the process instead of letting it exit."""
    end = time.monotonic() + timeout
    for worker in list(_open):
        worker.close(timeout=max(0.0, end - time.monotonic()))


atexit.register(_close_all)


class _Worker:
    """One lazily started daemon thread that runs ``run(item, cancel)``; ``close`` interrupts it."""

    def __init__(self, run: Callable[[Any, threading.Event], None], idle_exit: float, name: str):
        self._run = _weak(run)
        self.idle_exit = float(idle_exit)
        self.name = THREAD_PREFIX + name
        self._cond = threading.Condition()
        self._cancel: threading.Event | None = None
        self._closed = False
        self._thread: threading.Thread | None = None

    def _drop_queue(self) -> None:
        """Forget queued work (called under the lock when closing)."""
        raise NotImplementedError

    def _loop(self) -> None:
        raise NotImplementedError

    def close(self, timeout: float = 10.0) -> bool:
        """Stop the worker (interrupting its run); True when its thread has ended."""
        with self._cond:
            self._closed = True
            self._drop_queue()
            if self._cancel is not None:
                self._cancel.set()
            self._cond.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
            return not thread.is_alive()
        return True

    @property
    def thread(self) -> threading.Thread | None:
        return self._thread

    def _ensure_thread(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._loop, name=self.name, daemon=True)
            self._thread.start()
            _open.add(self)


class SolveScheduler(_Worker):
    """Debounced, newest-wins execution of ``run(job, cancel)`` on one worker thread."""

    def __init__(
        self,
        run: Callable[[Any, threading.Event], None],
        *,
        debounce: float = 0.15,
        idle_exit: float = 20.0,
        name: str = "solver",
    ):
        super().__init__(run, idle_exit, name)
        self.debounce = float(debounce)
        self._pending: tuple[Any, float] | None = None
        self._running = False
        self.runs = 0  # how many jobs were started (tests and benchmarks read it)
        self.interrupted = 0
        from ..solvers.backends.worker import available, prestart

        if available():  # the first solve should not wait ~1 s for the solver process to load
            prestart()

    # -- public ---------------------------------------------------------------------------------
    def submit(self, job: Any) -> None:
        """Queue ``job``; it replaces a pending one and interrupts a running one."""
        with self._cond:
            if self._closed:
                raise RuntimeError("the scheduler is closed")
            self._pending = (job, time.monotonic())
            if self._cancel is not None and not self._cancel.is_set():
                self._cancel.set()
                self.interrupted += 1
            self._ensure_thread()
            self._cond.notify_all()

    def cancel(self) -> None:
        """Drop the pending job and interrupt the running one."""
        with self._cond:
            self._pending = None
            if self._cancel is not None and not self._cancel.is_set():
                self._cancel.set()
                self.interrupted += 1
            self._cond.notify_all()

    @property
    def busy(self) -> bool:
        with self._cond:
            return self._running or self._pending is not None

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until nothing is pending or running; False on timeout."""
        end = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._running or self._pending is not None:
                left = None if end is None else end - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(left if left is None else min(left, 0.5))
            return True

    def _drop_queue(self) -> None:
        self._pending = None

    # -- worker ---------------------------------------------------------------------------------

    def _next_job(self):
        """Wait for a job and its debounce period; None means: exit the thread."""
        with self._cond:
            idle_since = time.monotonic()
            while True:
                if self._closed:
                    return None
                if self._pending is None:
                    if time.monotonic() - idle_since > self.idle_exit or self._run() is None:
                        self._thread = None
                        return None
                    self._cond.wait(0.5)
                    continue
                job, t = self._pending
                wait = t + self.debounce - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                self._pending = None
                self._cancel = threading.Event()
                self._running = True
                self.runs += 1
                return job, self._cancel

    def _loop(self) -> None:
        while True:
            got = self._next_job()
            if got is None:
                return
            job, cancel = got
            try:
                run = self._run()
                if run is not None:
                    run(job, cancel)
                del run
            finally:
                with self._cond:
                    self._running = False
                    self._cancel = None
                    self._cond.notify_all()


class BackgroundQueue(_Worker):
    """Runs ``run(item, cancel)`` for each item of a plan, in order, on one worker thread.

    ``set_plan(items)`` replaces the plan: items already done are skipped, the
    running item is interrupted unless it is still in the new plan.
    """

    def __init__(
        self,
        run: Callable[[Hashable, threading.Event], None],
        *,
        idle_exit: float = 20.0,
        name: str = "frontier",
    ):
        super().__init__(run, idle_exit, name)
        self._plan: list[Hashable] = []
        self._done: set[Hashable] = set()
        self._current: Hashable | None = None
        self._paused = False

    def set_plan(
        self, items: Sequence[Hashable], done: Callable[[Hashable], bool] | None = None
    ) -> None:
        with self._cond:
            if self._closed:
                return
            self._plan = [i for i in items if not (done is not None and done(i))]
            if (
                self._current is not None
                and self._current not in self._plan
                and self._cancel is not None
            ):
                self._cancel.set()
            if self._plan:
                self._ensure_thread()
            self._cond.notify_all()

    def pause(self, paused: bool = True) -> None:
        """A paused queue starts no new item (the running one goes on)."""
        with self._cond:
            self._paused = paused
            self._cond.notify_all()

    @property
    def remaining(self) -> int:
        with self._cond:
            return len(self._plan) + (self._current is not None)

    def wait_idle(self, timeout: float | None = None) -> bool:
        end = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._plan or self._current is not None:
                left = None if end is None else end - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(0.5 if left is None else min(left, 0.5))
            return True

    def _drop_queue(self) -> None:
        self._plan = []

    def _loop(self) -> None:
        idle_since = time.monotonic()
        while True:
            with self._cond:
                if self._closed:
                    return
                if not self._plan or self._paused:
                    if time.monotonic() - idle_since > self.idle_exit or self._run() is None:
                        self._thread = None
                        return
                    self._cond.wait(0.5)
                    continue
                item = self._plan.pop(0)
                self._current = item
                self._cancel = cancel = threading.Event()
            try:
                run = self._run()
                if run is not None:
                    run(item, cancel)
                del run
            finally:
                with self._cond:
                    self._current = None
                    self._cancel = None
                    idle_since = time.monotonic()
                    self._cond.notify_all()


def _timer_thread(delay: float, fn: Callable[[], None]) -> threading.Timer:
    timer = threading.Timer(max(0.0, delay), fn)
    timer.name = THREAD_PREFIX + "throttle"
    timer.daemon = True
    timer.start()
    return timer


class Throttle:
    """Calls ``deliver(item)`` at most once per ``interval`` seconds; the
    newest item always arrives.

    An item offered within ``interval`` of the last delivery waits; a newer one
    replaces it, and a timer delivers the waiting item when the interval is up.
    ``stop()`` drops the waiting item (the caller shows its final result instead).
    ``clock`` and ``start_timer(delay, fn) -> object with cancel()`` can be
    replaced, so tests need no wall clock.

    Examples
    --------
    >>> got = []
    >>> t = Throttle(got.append, interval=60.0)
    >>> t.offer(1); t.offer(2); t.offer(3)   # 2 and 3 arrive within the interval
    >>> got                                  # 3 waits for the timer, 2 is skipped
    [1]
    >>> t.stop()
    """

    def __init__(
        self,
        deliver: Callable[[Any], None],
        interval: float = 0.25,
        *,
        clock: Callable[[], float] = time.monotonic,
        start_timer: Callable[[float, Callable[[], None]], Any] = _timer_thread,
    ):
        self._deliver = deliver
        self.interval = float(interval)
        self._clock = clock
        self._start_timer = start_timer
        self._lock = threading.Lock()
        self._last = -float("inf")
        self._waiting: tuple[Any] | None = None
        self._timer: Any = None  # the timer of the waiting item
        self._started: Any = None  # the last timer started (it may still be delivering)
        self._stopped = False
        self.delivered = 0

    def offer(self, item: Any) -> None:
        with self._lock:
            if self._stopped:
                return
            now = self._clock()
            if self._timer is None and now - self._last >= self.interval:
                self._last = now
                self.delivered += 1
            else:
                self._waiting = (item,)
                if self._timer is None:
                    self._timer = self._started = self._start_timer(
                        self._last + self.interval - now, self._flush
                    )
                return
        self._deliver(item)

    def _flush(self) -> None:
        with self._lock:
            self._timer = None
            if self._stopped or self._waiting is None:
                return
            (item,), self._waiting = self._waiting, None
            self._last = self._clock()
            self.delivered += 1
        self._deliver(item)

    def stop(self) -> None:
        """Deliver nothing more (a waiting item is dropped, the timer cancelled)."""
        with self._lock:
            self._stopped = True
            self._waiting = None
            timer, started, self._timer = self._timer, self._started, None
        if timer is not None:
            timer.cancel()
        if isinstance(started, threading.Thread) and started is not threading.current_thread():
            started.join(1.0)  # a closed studio leaves no thread behind
