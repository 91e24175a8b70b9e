"""How well ``fit`` keeps its time limit, and what a process pays once before the clock starts.

    python benchmarks/time_limits.py [--datasets heart mushroom breastcancer] [--limits 2 5]

For each data set (at C0 = 0.01, not yet proven within these limits on most of them) and limit,
with and without ``cancel`` (a cancellable solve runs HiGHS in a child process), it prints the
wall time of the whole ``fit`` call after the warm-up, and the overshoot past the limit. A
second table gives the one-off costs of a fresh process: the kernels compiled with an empty
numba cache, then loaded from it. Wall clock on this machine; print ``uptime`` beside it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import slimwidgets as sw
from slimwidgets.core.fitting import _warm_up

from common import load, markdown_table

ROOT = Path(__file__).resolve().parents[1]


def limit_rows(datasets: list[str], limits: list[float]) -> list[list[str]]:
    _warm_up()
    rows = []
    for name in datasets:
        X, y = load(name)
        for limit in limits:
            for cancellable in (False, True):
                t0 = time.perf_counter()
                card = sw.fit(X, y, C0=0.01, time_limit=limit, cancel=threading.Event() if cancellable else None)
                wall = time.perf_counter() - t0
                rows.append([name, f"{limit:g}", "child" if cancellable else "in-process", card.status,
                             f"{wall:.2f}", f"{wall - limit:+.2f}"])
    return rows


def fresh_process_seconds(cache: str) -> float:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    code = "import time; t = time.perf_counter(); from slimwidgets.core.fitting import _warm_up; _warm_up(); print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["heart", "mushroom", "breastcancer"])
    parser.add_argument("--limits", nargs="+", type=float, default=[2.0, 5.0])
    args = parser.parse_args()
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    with tempfile.TemporaryDirectory() as cache:
        cold, warm = fresh_process_seconds(cache), fresh_process_seconds(cache)
    print(markdown_table(["fresh process: warm-up (imports + kernels)", "seconds"],
                         [["empty numba cache (compiles)", f"{cold:.1f}"], ["cache filled (loads)", f"{warm:.1f}"]]))
    print()
    print(markdown_table(["data", "limit (s)", "HiGHS", "status", "fit wall (s)", "past the limit (s)"],
                         limit_rows(args.datasets, args.limits)))
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
