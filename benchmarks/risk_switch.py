"""The first switch to risk cards in a fresh process with a cold numba cache: seconds from the
switch to the settled risk card, with the background compile (the studio as it is), when the
switch comes before the compile could run (the switch made at once), and in the studio itself
(its views drawing the card, no browser). Also the CPU seconds the switch used (this process and
its solver process), so that a figure taken on a busy machine can be
judged. Prints a Markdown table.

    python benchmarks/risk_switch.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

CHILD = r"""
import os, sys, time
from slimwidgets.datasets import load_demo

def cpu():  # this process and its live children (the HiGHS solver process)
    try:
        import psutil
    except ImportError:
        t = os.times()
        return t.user + t.system
    me = psutil.Process()
    total = 0.0
    for p in [me] + me.children(recursive=True):
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except psutil.Error:
            pass
    return total

X, y = load_demo()
options = dict(max_fpr=0.2, time_limit=5.0, frontier=False, alternatives=False)
if sys.argv[1] == "studio":
    from slimwidgets.widgets.studio import Studio
    studio = Studio(X, y, **options)
    c = studio.controller
    switch = lambda: setattr(studio.family_toggle, "value", "risk")
else:
    from slimwidgets.widgets.controller import Controller
    c = Controller(X, y, **options)
    switch = lambda: c.set_family("risk")
assert c.wait(600)
if sys.argv[1] != "now":
    c.warming.risk.join(600)
t, used = time.perf_counter(), cpu()
switch()
assert c.wait(600)
print(f"{time.perf_counter() - t:.2f} {c.card.solve_time:.2f} {cpu() - used:.1f}")
c.close()
"""


def run(mode: str) -> list[str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": tempfile.mkdtemp(prefix="numba-cold-")}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, mode], env=env, capture_output=True, text=True, check=True
    )
    return out.stdout.split()


if __name__ == "__main__":
    print(
        "| first switch to risk cards (cold numba cache, time limit 5 s) | switch to settled "
        "card, s | solve time on the card, s | CPU, s |"
    )
    print("|---|---|---|---|")
    for mode, label in (
        (
            "after",
            "the user switches once the first card is settled and the background compile is done",
        ),
        ("studio", "the same in the studio, its views drawing the card (no browser)"),
        (
            "now",
            "the user switches at once (the compile, if still running, is waited for and said)",
        ),
    ):
        wall, solve, used = run(mode)
        print(f"| {label} | {wall} | {solve} | {used} |")
