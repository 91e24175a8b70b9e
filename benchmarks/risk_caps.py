"""Risk cards (``loss="logistic"``) under the caps ``max_fpr`` / ``min_tpr``, on the paper's data.

A risk card decides positive where its predicted risk is at least 50 %; the caps hold for that
decision on the training rows. Per data set and cap: the training log-loss of the capped card
beside the uncapped one's (what the cap costs in calibration), its training TPR and FPR, the
status and bound, the seconds to the first card, and the wall-clock and CPU seconds per fit
(CPU time is what the machine's load does not inflate). At most 5 features, points in -5..5.

Run: ``PYTHONPATH=$PWD SLIMWIDGETS_DATA=/work/shared/data python benchmarks/risk_caps.py``
(``--sets heart,mammo`` for a subset, ``--seconds 2`` for the time limit per fit).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import warnings
from datetime import datetime, timezone

import pandas as pd

sys.path.insert(0, os.path.dirname(__file__))
from common import load, markdown_table  # noqa: E402

import slimwidgets as sw  # noqa: E402

CAPS = (
    {},
    {"max_fpr": 0.05},
    {"max_fpr": 0.1},
    {"max_fpr": 0.2},
    {"min_tpr": 0.9},
    {"min_tpr": 0.95},
)
SETS = ("heart", "mammo", "breastcancer", "haberman", "spambase")


def _fit(X, y, cap: dict, seconds: float) -> dict:
    first: list[float] = []
    wall, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # degenerate-card warnings: the table shows TPR and FPR
        card = sw.fit(
            X,
            y,
            loss="logistic",
            max_size=5,
            coef_range=(-5, 5),
            time_limit=seconds,
            on_incumbent=lambda inc: first.append(inc.elapsed) if not first else None,
            **cap,
        )
    m = card.train_metrics
    return {
        "logloss": card.details["log_loss"],
        "tpr": m.tpr,
        "fpr": m.fpr,
        "status": card.status,
        "bound": card.bound,
        "first": first[0] if first else float("nan"),
        "wall": time.perf_counter() - wall,
        "cpu": time.process_time() - cpu,
    }


def _cap_name(cap: dict) -> str:
    return ", ".join(f"{k} {v:g}" for k, v in cap.items()) or "no cap"


def run(names: list[str], seconds: float) -> None:
    sw.fit(
        pd.DataFrame({"a": [0, 1, 1, 0]}), [0, 1, 1, 1], loss="logistic"
    )  # compile the kernels first
    rows = []
    for name in names:
        X, y = load(name)
        free = None
        for cap in CAPS:
            r = _fit(X, y, cap, seconds)
            free = r["logloss"] if not cap else free
            bound = "–" if r["bound"] is None else f"{r['bound']:.4f}"
            rows.append(
                [
                    name,
                    _cap_name(cap),
                    f"{r['logloss']:.4f}",
                    f"{r['logloss'] - free:+.4f}",
                    f"{100 * r['tpr']:.1f} %",
                    f"{100 * r['fpr']:.1f} %",
                    r["status"],
                    bound,
                    f"{r['first']:.3f}",
                    f"{r['wall']:.2f}",
                    f"{r['cpu']:.2f}",
                ]
            )
            print("row: | " + " | ".join(rows[-1]) + " |", file=sys.stderr, flush=True)
    header = [
        "data set",
        "cap",
        "train log-loss",
        "vs no cap",
        "train TPR",
        "train FPR",
        "status",
        "bound",
        "s to first card",
        "s per fit (wall)",
        "CPU s per fit",
    ]
    print(
        f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC; uptime: "
        f"{subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}"
    )
    print(f"at most 5 features, points -5..5, time limit {seconds:g} s per fit\n")
    print(markdown_table(header, rows))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    run(args.sets.split(","), args.seconds)
