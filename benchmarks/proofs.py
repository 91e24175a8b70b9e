"""Proof figures: what ``solver="auto"`` and the support scan prove, and how fast.

    python benchmarks/proofs.py [--datasets mushroom breastcancer heart] [--limit 60]
                                [--c0 0.01 max]
    python benchmarks/proofs.py --tpr [--datasets breastcancer mammo] [--limit 20]

Prints Markdown tables with the date and the machine's load (``uptime``): wall-clock figures
on a shared machine are only comparable at a similar load, so CPU seconds are shown too.
"""

from __future__ import annotations

import argparse
import datetime
import math
import statistics
import time

from common import load, load_line, markdown_table

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.core.formulation import build_formulation
from slimwidgets.fitting import fit_dataset
from slimwidgets.solvers.lexicographic import class_limits


def timed_fit(data, spec):
    """(card, wall seconds, CPU seconds of this process)."""
    t, c = time.perf_counter(), time.process_time()
    card = fit_dataset(data, spec)
    return card, time.perf_counter() - t, time.process_time() - c


def proof_rows(names, limit: float, c0s=(0.01, None)) -> list[list[str]]:
    rows = []
    for name in names:
        X, y = load(name)
        data = prepare_data(X, y, warn=False)
        for C0 in c0s:
            for solver in ("auto", "scan"):
                card, wall, cpu = timed_fit(
                    data, sw.make_spec(C0=C0, solver=solver, time_limit=limit)
                )
                m = card.train_metrics
                rows.append(
                    [
                        name,
                        "max accuracy" if C0 is None else f"{C0:g}",
                        solver,
                        card.status,
                        card.solver,
                        f"{wall:.1f} s",
                        f"{cpu:.1f} s",
                        f"{m.error:.2%} / {card.size}",
                        f"{card.objective:.6f}",
                        f"{card.bound:.6f}",
                    ]
                )
                print(f"done {name} C0={C0} {solver}", flush=True)
    return rows


CAPS = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5)


def tpr_row(name: str, limit: float) -> list[str]:
    """Seconds (wall and CPU) until the best TPR under each cap is proven, reported by
    fit's incumbents; the medians over the caps."""
    X, y = load(name)
    data = prepare_data(X, y, warn=False)
    walls, cpus, proven, settled = [], [], 0, 0
    for cap in CAPS:
        spec = sw.make_spec(max_fpr=cap, time_limit=limit)
        form = build_formulation(data, spec)
        t, c = time.perf_counter(), time.process_time()
        first = []

        def heard(inc, form=form, first=first, t=t, c=c):
            if not first and class_limits(form, inc.bound, inc.coefficients, inc.intercept).get(
                "tpr_proven"
            ):
                first.append((time.perf_counter() - t, time.process_time() - c))

        card = fit_dataset(data, spec, on_incumbent=heard)
        if not first and card.details.get("tpr_proven"):
            first.append((time.perf_counter() - t, time.process_time() - c))
        if first:
            proven += 1
            walls.append(first[0][0])
            cpus.append(first[0][1])
        settled += card.status == "optimal"
    med = lambda v: f"{statistics.median(v):.2f} s" if v else "—"
    return [
        name,
        f"{proven} / {len(CAPS)}",
        med(walls),
        med(cpus),
        f"{max(walls, default=math.nan):.2f} s",
        f"{settled} / {len(CAPS)}",
    ]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="*", default=["mushroom", "breastcancer", "heart"])
    parser.add_argument("--limit", type=float, default=60.0, help="time limit per fit (s)")
    parser.add_argument(
        "--tpr", action="store_true", help="time the proof of the best TPR under max_fpr"
    )
    parser.add_argument(
        "--c0", nargs="+", default=["0.01", "max"], help="C0 values ('max': max accuracy)"
    )
    args = parser.parse_args(argv)
    sw.fit([[0], [1]], [0, 1])  # load and compile everything once, outside the timings
    started = (
        f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; load: {load_line()}"
    )
    if args.tpr:
        rows = [tpr_row(name, args.limit) for name in args.datasets]
        caps = ", ".join(f"{c:.0%}" for c in CAPS)
        print(f"\n### Best TPR proven under max_fpr = {caps} (time limit {args.limit:g} s)\n")
        print(f"started {started}\n\nended with load: {load_line()}\n")
        print(
            markdown_table(
                ["data", "TPR proven", "median wall", "median CPU", "max wall", "card settled"],
                rows,
            )
        )
        return 0
    rows = proof_rows(
        args.datasets, args.limit, [None if c == "max" else float(c) for c in args.c0]
    )
    print(f"\n### Proofs within {args.limit:g} s: auto against the support scan forced\n")
    print(f"started {started}\n\nended with load: {load_line()}\n")
    print(
        markdown_table(
            [
                "data",
                "C0",
                "solver",
                "status",
                "proof",
                "wall",
                "CPU",
                "train error / size",
                "objective",
                "bound",
            ],
            rows,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
