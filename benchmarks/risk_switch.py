"""The first switch to risk cards in a fresh process with a cold numba cache: seconds from the
switch to the settled risk card, with the background compile (the studio as it is) and when
the switch comes before the compile could run (the switch made at once). Prints a Markdown table.

    python benchmarks/risk_switch.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

CHILD = r"""
import sys, time
from slimwidgets.datasets import load_demo
from slimwidgets.widgets.controller import Controller
X, y = load_demo()
c = Controller(X, y, max_fpr=0.2, time_limit=5.0, frontier=False, alternatives=False)
assert c.wait(600)
wait_compile = sys.argv[1] == "after"
if wait_compile:
    c._warmup.join(600)
t = time.perf_counter()
c.set_family("risk")
assert c.wait(600)
print(f"{time.perf_counter() - t:.1f} {c.card.solve_time:.1f}")
c.close()
"""


def run(mode: str) -> tuple[str, str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": tempfile.mkdtemp(prefix="numba-cold-")}
    out = subprocess.run([sys.executable, "-c", CHILD, mode], env=env, capture_output=True, text=True, check=True)
    wall, solve = out.stdout.split()
    return wall, solve


if __name__ == "__main__":
    print("| first switch to risk cards (cold numba cache, time limit 5 s) | switch to settled card, s | solve time on the card, s |")
    print("|---|---|---|")
    for mode, label in (("after", "the user switches once the first card is settled and the background compile is done"),
                        ("now", "the user switches at once (the compile, if still running, is waited for and said)")):
        wall, solve = run(mode)
        print(f"| {label} | {wall} | {solve} |")
