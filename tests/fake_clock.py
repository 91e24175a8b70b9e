"""A fake ``time`` module the time-limit tests put in place of a module's own (its ``perf_counter``
only): time moves when the test says, never with the machine's speed or load."""

from __future__ import annotations


class FakeClock:
    """Each look at ``perf_counter`` moves the clock on by ``step`` seconds; ``jump`` moves it at
    once (a phase that took that long)."""

    def __init__(self, step: float = 0.001):
        self.now, self.step = 1000.0, step

    def perf_counter(self) -> float:
        self.now += self.step
        return self.now

    def jump(self, seconds: float) -> None:
        self.now += seconds
