"""How well ``fit`` keeps its time limit, and what a process pays once before the clock starts.

    python benchmarks/time_limits.py [--datasets heart mushroom breastcancer] [--limits 2 5] [--ctrl-c 5]
                                     [--groups 60]

For each data set (at C0 = 0.01, not yet proven within these limits on most of them) and limit,
with and without ``cancel`` (a time-limited solve runs HiGHS in a child process either way, killed
at its deadline), it prints the wall time of the whole ``fit`` call after the warm-up, and the
overshoot past the limit. ``--groups SECONDS``: adult, sex as the group, a TPR gap of at most
2 points, at most 5 features, a decision card and a risk card (issue 22's fits). A
second table gives the one-off costs of a fresh process: the kernels compiled with an empty
numba cache, then loaded from it. A third times ``slimwidgets fit`` stopped by Ctrl-C while
HiGHS runs in its child: from the SIGINT to the card on stdout, and to the end of the process.
Wall clock on this machine; print ``uptime`` beside it.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

import slimwidgets as sw
from slimwidgets.solvers.search import warm_up

from common import load, markdown_table

ROOT = Path(__file__).resolve().parents[1]


def limit_rows(datasets: list[str], limits: list[float]) -> list[list[str]]:
    warm_up()
    rows = []
    for name in datasets:
        X, y = load(name)
        for limit in limits:
            for cancellable in (False, True):
                t0 = time.perf_counter()
                card = sw.fit(X, y, C0=0.01, time_limit=limit, cancel=threading.Event() if cancellable else None)
                wall = time.perf_counter() - t0
                rows.append([name, f"{limit:g}", "cancel" if cancellable else "no cancel", card.status,
                             f"{wall:.2f}", f"{wall - limit:+.2f}"])
    return rows


def group_rows(limit: float) -> list[list[str]]:
    """Issue 22's fits on adult at ``limit``: a decision card and a risk card under a 2-point TPR gap."""
    import warnings

    X, y = load("adult")
    sex = np.where(X["Male"] == 1, "male", "female")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for loss in ("zero_one", "logistic"):  # compile and import outside the clock
            sw.fit(X.iloc[:300], y.iloc[:300], max_size=2, loss=loss, time_limit=5)
        rows = []
        for loss, extra in (("zero_one", {}), ("logistic", {"coef_range": (-5, 5)})):
            t0 = time.perf_counter()
            card = sw.fit(X, y, exclude=["Male", "Female"], max_size=5, sensitive_features=sex, max_tpr_gap=0.02,
                          loss=loss, time_limit=limit, **extra)
            wall = time.perf_counter() - t0
            rows.append(["adult, TPR gap <= 2 pt", loss, f"{limit:g}", card.status, f"{wall:.2f}", f"{wall - limit:+.2f}"])
    return rows


def fresh_process_seconds(cache: str) -> float:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    code = "import time; t = time.perf_counter(); from slimwidgets.solvers.search import warm_up; warm_up(); print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def hard_csv(folder: str) -> str:
    """Noisy labels on 14 binary features: at C0 = 0.001 no proof comes for minutes."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(400, 14))
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(14)])
    frame["Y"] = (X[:, :4].sum(axis=1) + rng.normal(0, 1.2, size=400) > 2).astype(int)
    path = os.path.join(folder, "hard.csv")
    frame.to_csv(path, index=False)
    return path


def _has_children(pid: int) -> bool:
    tasks = Path(f"/proc/{pid}/task")
    return any((t / "children").read_text().strip() for t in tasks.iterdir() if (t / "children").exists())


def ctrl_c_seconds(folder: str) -> tuple[float, float]:
    """(SIGINT -> the card's last line on stdout, SIGINT -> the process gone) for one run."""
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([sys.executable, "-m", "slimwidgets", "fit", hard_csv(folder), "--target", "Y", "--C0", "0.001",
                             "--time-limit", "600", "--json", os.path.join(folder, "card.json"), "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    while proc.poll() is None and not _has_children(proc.pid):  # HiGHS runs in its child
        time.sleep(0.1)
    time.sleep(1.0)
    t0 = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    card = next((time.perf_counter() - t0 for line in proc.stdout if line.startswith("details:")), float("nan"))
    proc.wait()
    gone = time.perf_counter() - t0
    if proc.returncode != 130:
        raise RuntimeError(f"exit code {proc.returncode}, not 130")
    return card, gone


def ctrl_c_rows(repeats: int) -> list[list[str]]:
    with tempfile.TemporaryDirectory() as folder:
        runs = [ctrl_c_seconds(folder) for _ in range(repeats)]
    rows = []
    for what, values in (("card printed", [r[0] for r in runs]), ("process gone", [r[1] for r in runs])):
        rows.append([what, f"{statistics.median(values):.2f}", f"{max(values):.2f}"])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["heart", "mushroom", "breastcancer"])
    parser.add_argument("--limits", nargs="+", type=float, default=[2.0, 5.0])
    parser.add_argument("--ctrl-c", type=int, default=5, metavar="N", help="runs of `slimwidgets fit` stopped by Ctrl-C")
    parser.add_argument("--only-ctrl-c", action="store_true", help="time Ctrl-C only")
    parser.add_argument("--groups", type=float, default=0.0, metavar="SECONDS",
                        help="also issue 22's group fits on adult at this limit")
    parser.add_argument("--no-fresh", action="store_true", help="skip the fresh-process warm-up table")
    args = parser.parse_args()
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    if args.ctrl_c:
        print(markdown_table([f"after Ctrl-C ({args.ctrl_c} runs)", "median (s)", "max (s)"], ctrl_c_rows(args.ctrl_c)))
        print()
    if args.only_ctrl_c:
        print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
        return
    if not args.no_fresh:
        with tempfile.TemporaryDirectory() as cache:
            cold, warm = fresh_process_seconds(cache), fresh_process_seconds(cache)
        print(markdown_table(["fresh process: warm-up (imports + kernels)", "seconds"],
                             [["empty numba cache (compiles)", f"{cold:.1f}"], ["cache filled (loads)", f"{warm:.1f}"]]))
        print()
    print(markdown_table(["data", "limit (s)", "fit called with", "status", "fit wall (s)", "past the limit (s)"],
                         limit_rows(args.datasets, args.limits)), flush=True)
    if args.groups:
        print()
        print(markdown_table(["data", "card", "limit (s)", "status", "fit wall (s)", "past the limit (s)"],
                             group_rows(args.groups)))
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
