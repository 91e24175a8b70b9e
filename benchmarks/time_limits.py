"""How well ``fit`` keeps its time limit, and what a process pays once before the clock starts.

    python benchmarks/time_limits.py [--datasets heart mushroom breastcancer]
                                     [--limits 2 5] [--ctrl-c 5]
                                     [--groups 60] [--raw-rows 1e6 --raw-limits 5 30]

For each data set (at C0 = 0.01, not yet proven within these limits on most of them) and limit,
with and without ``cancel`` (a time-limited solve runs HiGHS in a child process either way, killed
at its deadline), it prints the wall time of the whole ``fit`` call after the warm-up, and the
overshoot past the limit. ``--raw-rows N``: a raw table of N rows (10 numeric columns with
missing values, 2 text columns, the label from a planted rule + 10 % noise), ``fit(X, y,
time_limit=L)`` for a decision card (the default path: rules built, size and cut points by CV)
and for ``loss="logistic"``, with the seconds each phase took (rule building, the size/cut CV,
reading, building the program, search, solvers, polish and the card). ``--groups SECONDS``: adult,
sex as the group, a TPR gap of at most 2 points, at most 5 features, a decision card and a risk card
(issue 22's fits). A second table gives the one-off costs of a fresh process: the kernels compiled
with an empty numba cache, then loaded from it. A third times ``slimwidgets fit`` stopped by Ctrl-C
while HiGHS runs in its child: from the SIGINT to the card on stdout, and to the end of the process.
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
from common import load, markdown_table

import slimwidgets as sw
from slimwidgets.core.card_family import FamilyLoss
from slimwidgets.solvers.search import warm_up

ROOT = Path(__file__).resolve().parents[1]


def limit_rows(datasets: list[str], limits: list[float]) -> list[list[str]]:
    warm_up()
    rows = []
    for name in datasets:
        X, y = load(name)
        for limit in limits:
            for cancellable in (False, True):
                t0 = time.perf_counter()
                card = sw.fit(
                    X,
                    y,
                    C0=0.01,
                    time_limit=limit,
                    cancel=threading.Event() if cancellable else None,
                )
                wall = time.perf_counter() - t0
                rows.append(
                    [
                        name,
                        f"{limit:g}",
                        "cancel" if cancellable else "no cancel",
                        card.status,
                        f"{wall:.2f}",
                        f"{wall - limit:+.2f}",
                    ]
                )
    return rows


def group_rows(limit: float) -> list[list[str]]:
    """Issue 22's fits on adult at ``limit``: a decision card and a risk card
    under a 2-point TPR gap."""
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
            card = sw.fit(
                X,
                y,
                exclude=["Male", "Female"],
                max_size=5,
                sensitive_features=sex,
                max_tpr_gap=0.02,
                loss=loss,
                time_limit=limit,
                **extra,
            )
            wall = time.perf_counter() - t0
            rows.append(
                [
                    "adult, TPR gap <= 2 pt",
                    loss,
                    f"{limit:g}",
                    card.status,
                    f"{wall:.2f}",
                    f"{wall - limit:+.2f}",
                ]
            )
    return rows


def raw_table(n_rows: int, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """The user's own table at scale: 10 numeric columns (three with missing values), 2 text
    columns, the label from a planted rule on four of them with 10 % of labels flipped."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {f"num{j}": rng.normal(50 + 10 * j, 5 + j, n_rows).round(1) for j in range(10)}
    )
    for j in (1, 4, 7):
        X.loc[rng.random(n_rows) < 0.05 * (1 + j % 3), f"num{j}"] = np.nan
    X["colour"] = np.array(["red", "green", "blue", "grey"], dtype=object)[
        rng.integers(0, 4, n_rows)
    ]
    X["region"] = np.array([f"region {k}" for k in range(6)], dtype=object)[
        rng.integers(0, 6, n_rows)
    ]
    score = (
        2 * (X["num0"] >= 52)
        + (X["num1"].fillna(0) >= 63)
        + (X["colour"] == "red")
        - (X["num3"] >= 85)
    )
    y = ((score >= 2) ^ (rng.random(n_rows) < 0.10)).astype(int).to_numpy()
    return X, y


class PhaseClock:
    """Seconds of each phase of one ``fit``: each named function of the fitting modules is wrapped,
    and the time goes to the innermost phase running (the size/cut CV's own fits count as CV)."""

    DRIVER = {
        "_rules": "rules",
        "_size_by_cv": "size/cut CV",
        "_read_table": "reading",
        "local_search": "first search",
        "_prove": "solvers",
        "polish": "polish",
        "_card": "card",
        "check_card": "checks",
        "fit_on_a_sample": "sample search",
    }
    RISK = {
        "_budget": "card timing",
        "_prove": "floor / proof",
        "_card": "card",
        "check_card": "checks",
    }

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.stack: list[list] = []  # [phase, started, seconds of inner phases]
        self.undo: list[tuple] = []

    def wrap(self, module, names: dict[str, str]) -> None:
        """Time the functions ``names`` of a module, or the methods of a class."""
        for attr, phase in names.items():
            self.undo.append((module, attr, vars(module)[attr]))
            setattr(module, attr, self._timed(getattr(module, attr), phase))

    def wrap_pieces(self, family, names: dict[str, str]) -> None:
        """Time the pieces ``names`` of ``family``'s loss (registered anew, restored after)."""
        for piece, phase in names.items():
            if family.loss.has(piece):
                real = family.loss.piece(piece)
                self.undo.append((family.loss, piece, real))
                family.loss.holds(**{piece: self._timed(real, phase)})

    def _timed(self, real, phase: str):
        def timed(*args, **kwargs):
            if any(frame[0] == "size/cut CV" for frame in self.stack):
                return real(*args, **kwargs)
            self.stack.append([phase, time.perf_counter(), 0.0])
            try:
                return real(*args, **kwargs)
            finally:
                _, t, inner = self.stack.pop()
                took = time.perf_counter() - t
                self.seconds[phase] = self.seconds.get(phase, 0.0) + took - inner
                if self.stack:
                    self.stack[-1][2] += took

        return timed

    def restore(self) -> None:
        for module, attr, real in reversed(self.undo):
            if isinstance(module, FamilyLoss):
                module.holds(**{attr: real})
            else:
                setattr(module, attr, real)

    def summary(self, wall: float) -> str:
        shown = sorted(self.seconds.items(), key=lambda kv: -kv[1])
        rest = wall - sum(self.seconds.values())
        return ", ".join(f"{k} {v:.1f}" for k, v in shown if v >= 0.05) + f", other {rest:.1f}"


def what_was_left_out(card) -> str:
    """How the size/cut CV went and what the time limit left out, from the card's details."""
    choice, words = card.details.get("size_cv"), []
    if choice is not None and choice.get("skipped"):
        words.append("CV: " + choice["skipped"].split(":")[0])
    elif choice is not None:
        done = choice.get("folds_in_time", choice["folds"])
        words.append(
            f"CV: size {choice['chosen']}, {choice.get('n_cuts', '?')} cuts, {done} of "
            f"{choice['folds']} folds"
        )
    if choice is not None and choice.get("untried"):
        words.append(f"cuts {choice['untried']} not tried")
    words += list(card.details.get("skipped", ()))
    return "; ".join(words)


def raw_rows(n_rows: int, limits: list[float]) -> list[list[str]]:
    """``fit`` on a raw table of ``n_rows`` within each limit, decision and risk cards: wall, past
    the limit, status and where the time went."""
    import warnings

    from slimwidgets.core.family import DECISION, RISK
    from slimwidgets.core.patterns import Patterns
    from slimwidgets.fitting import driver, risk_driver

    warm_up()
    X, y = raw_table(n_rows)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for loss in ("zero_one", "logistic"):  # compile and import outside the clock
            sw.fit(X.iloc[:2000], y[:2000], loss=loss, time_limit=2)
    rows = []
    for loss in ("zero_one", "logistic"):
        for limit in limits:
            clock = PhaseClock()
            clock.wrap(driver, PhaseClock.DRIVER)
            clock.wrap(risk_driver, PhaseClock.RISK)
            clock.wrap(Patterns, {"dataset": "patterns as rows"})
            clock.wrap_pieces(DECISION, {"problem": "program"})
            clock.wrap_pieces(RISK, {"prepare": "risk problem", "search": "search"})
            try:
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    card = sw.fit(X, y, loss=loss, time_limit=limit)
                wall = time.perf_counter() - t0
            finally:
                clock.restore()
            error = None if card.train_metrics is None else card.train_metrics.error
            rows.append(
                [
                    f"{n_rows:,} raw",
                    loss,
                    f"{limit:g}",
                    card.status,
                    f"{wall:.2f}",
                    f"{wall - limit:+.2f}",
                    "" if error is None else f"{100 * error:.1f} %",
                    str(card.size),
                    clock.summary(wall),
                    what_was_left_out(card),
                ]
            )
            print(" | ".join(rows[-1]), flush=True)
    return rows


def fresh_process_seconds(cache: str) -> float:
    env = dict(
        os.environ,
        NUMBA_CACHE_DIR=cache,
        PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    )
    code = (
        "import time; t = time.perf_counter(); from slimwidgets.solvers.search import warm_up; "
        "warm_up(); print(time.perf_counter() - t)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
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
    return any(
        (t / "children").read_text().strip() for t in tasks.iterdir() if (t / "children").exists()
    )


def ctrl_c_seconds(folder: str) -> tuple[float, float]:
    """(SIGINT -> the card's last line on stdout, SIGINT -> the process gone) for one run."""
    env = dict(
        os.environ,
        PYTHONUNBUFFERED="1",
        PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "slimwidgets",
            "fit",
            hard_csv(folder),
            "--target",
            "Y",
            "--C0",
            "0.001",
            "--time-limit",
            "600",
            "--json",
            os.path.join(folder, "card.json"),
            "--quiet",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    while proc.poll() is None and not _has_children(proc.pid):  # HiGHS runs in its child
        time.sleep(0.1)
    time.sleep(1.0)
    t0 = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    card = next(
        (time.perf_counter() - t0 for line in proc.stdout if line.startswith("details:")),
        float("nan"),
    )
    proc.wait()
    gone = time.perf_counter() - t0
    if proc.returncode != 130:
        raise RuntimeError(f"exit code {proc.returncode}, not 130")
    return card, gone


def ctrl_c_rows(repeats: int) -> list[list[str]]:
    with tempfile.TemporaryDirectory() as folder:
        runs = [ctrl_c_seconds(folder) for _ in range(repeats)]
    rows = []
    for what, values in (
        ("card printed", [r[0] for r in runs]),
        ("process gone", [r[1] for r in runs]),
    ):
        rows.append([what, f"{statistics.median(values):.2f}", f"{max(values):.2f}"])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="*", default=["heart", "mushroom", "breastcancer"])
    parser.add_argument("--limits", nargs="+", type=float, default=[2.0, 5.0])
    parser.add_argument(
        "--ctrl-c",
        type=int,
        default=5,
        metavar="N",
        help="runs of `slimwidgets fit` stopped by Ctrl-C",
    )
    parser.add_argument("--only-ctrl-c", action="store_true", help="time Ctrl-C only")
    parser.add_argument(
        "--groups",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="also issue 22's group fits on adult at this limit",
    )
    parser.add_argument(
        "--raw-rows",
        type=float,
        default=0,
        metavar="N",
        help="also fit a raw table of N rows (numbers, text, missing values)",
    )
    parser.add_argument("--raw-limits", nargs="+", type=float, default=[5.0, 30.0])
    parser.add_argument(
        "--no-fresh", action="store_true", help="skip the fresh-process warm-up table"
    )
    args = parser.parse_args()
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    if args.ctrl_c:
        print(
            markdown_table(
                [f"after Ctrl-C ({args.ctrl_c} runs)", "median (s)", "max (s)"],
                ctrl_c_rows(args.ctrl_c),
            )
        )
        print()
    if args.only_ctrl_c:
        print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
        return
    if not args.no_fresh:
        with tempfile.TemporaryDirectory() as cache:
            cold, warm = fresh_process_seconds(cache), fresh_process_seconds(cache)
        print(
            markdown_table(
                ["fresh process: warm-up (imports + kernels)", "seconds"],
                [
                    ["empty numba cache (compiles)", f"{cold:.1f}"],
                    ["cache filled (loads)", f"{warm:.1f}"],
                ],
            )
        )
        print()
    if args.datasets:
        print(
            markdown_table(
                [
                    "data",
                    "limit (s)",
                    "fit called with",
                    "status",
                    "fit wall (s)",
                    "past the limit (s)",
                ],
                limit_rows(args.datasets, args.limits),
            ),
            flush=True,
        )
    if args.raw_rows:
        print()
        print(
            markdown_table(
                [
                    "data",
                    "card",
                    "limit (s)",
                    "status",
                    "fit wall (s)",
                    "past the limit (s)",
                    "train error",
                    "size",
                    "seconds by phase",
                    "CV and what was left out",
                ],
                raw_rows(int(args.raw_rows), args.raw_limits),
            ),
            flush=True,
        )
    if args.groups:
        print()
        print(
            markdown_table(
                ["data", "card", "limit (s)", "status", "fit wall (s)", "past the limit (s)"],
                group_rows(args.groups),
            )
        )
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
