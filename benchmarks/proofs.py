"""Proof figures: what ``solver="auto"`` and the support scan prove, and how fast.

    python benchmarks/proofs.py [--datasets mushroom breastcancer heart] [--limit 60]

Prints Markdown tables with the date and the machine's load (``uptime``): wall-clock figures
on a shared machine are only comparable at a similar load, so CPU seconds are shown too.
"""

from __future__ import annotations

import argparse
import datetime
import subprocess
import time

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.core.fitting import fit_dataset

from common import load, markdown_table


def load_line() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "uptime unavailable"


def timed_fit(data, spec):
    """(card, wall seconds, CPU seconds of this process)."""
    t, c = time.perf_counter(), time.process_time()
    card = fit_dataset(data, spec)
    return card, time.perf_counter() - t, time.process_time() - c


def proof_rows(names, limit: float) -> list[list[str]]:
    rows = []
    for name in names:
        X, y = load(name)
        data = prepare_data(X, y, warn=False)
        for C0 in (0.01, None):
            for solver in ("auto", "scan"):
                card, wall, cpu = timed_fit(data, sw.make_spec(C0=C0, solver=solver, time_limit=limit))
                m = card.train_metrics
                rows.append([name, "max accuracy" if C0 is None else f"{C0:g}", solver, card.status, card.solver,
                             f"{wall:.1f} s", f"{cpu:.1f} s", f"{m.error:.2%} / {card.size}",
                             f"{card.objective:.6f}", f"{card.bound:.6f}"])
                print(f"done {name} C0={C0} {solver}", flush=True)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="*", default=["mushroom", "breastcancer", "heart"])
    parser.add_argument("--limit", type=float, default=60.0, help="time limit per fit (s)")
    args = parser.parse_args(argv)
    sw.fit([[0], [1]], [0, 1])  # load and compile everything once, outside the timings
    started = f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; load: {load_line()}"
    rows = proof_rows(args.datasets, args.limit)
    print(f"\n### Proofs within {args.limit:g} s: auto against the support scan forced\n")
    print(f"started {started}\n\nended with load: {load_line()}\n")
    print(markdown_table(["data", "C0", "solver", "status", "proof", "wall", "CPU", "train error / size",
                          "objective", "bound"], rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
