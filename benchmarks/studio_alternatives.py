"""The studio's alternatives list: how long until it fills in, and how often it is complete.

For each data set and spec, a studio controller (no browser) solves the card, then lists up to
10 cards at most 2 pt worse than the best on its own worker. Prints, per case: the card's time,
the time from the settled card to the first other row and to the finished list, the rows, whether
the list is complete (every fit proven), and the process's CPU time (the machine is shared).

    python benchmarks/studio_alternatives.py [--time-limit 5] [--datasets breastcancer mammo heart]
"""

from __future__ import annotations

import argparse
import os
import time

from common import load, markdown_table

from slimwidgets.widgets.controller import Controller

SPECS = {"no cap": {}, "max FPR 20 %": {"max_fpr": 0.2}, "size ≤ 3": {"max_size": 3}}


def one_case(X, y, options: dict, time_limit: float) -> list[str]:
    cpu0, t0 = time.process_time(), time.monotonic()
    c = Controller(X, y, frontier=False, alternatives=True, time_limit=time_limit, **options)
    try:
        c.wait(None)
        settled = time.monotonic()
        first = None
        while not c.alts.wait(0.05):
            if first is None and len(c.alternatives()["rows"]) > 1:
                first = time.monotonic() - settled
        done = time.monotonic() - settled
        view = c.alternatives()
        rows = view["rows"]
        if first is None and len(rows) > 1:
            first = done
        complete = view["state"].get("complete", False)
        proven = sum(r["how"].startswith("proven") for r in rows)
    finally:
        c.close()
    return [
        f"{settled - t0:.2f}",
        "–" if first is None else f"{first:.2f}",
        f"{done:.2f}",
        str(len(rows)),
        f"{proven}/{len(rows)}",
        "yes" if complete else "no",
        f"{time.process_time() - cpu0:.1f}",
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-limit", type=float, default=5.0)
    ap.add_argument("--datasets", nargs="+", default=["breastcancer", "mammo", "heart"])
    args = ap.parse_args()
    print(
        f"load before: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}; "
        f"time limit {args.time_limit:g} s per fit"
    )
    table = []
    for name in args.datasets:
        X, y = load(name)
        for label, options in SPECS.items():
            table.append([name, label] + one_case(X, y, options, args.time_limit))
            print(" | ".join(table[-1]), flush=True)
    print()
    print(
        markdown_table(
            [
                "data",
                "spec",
                "card s",
                "first other row s",
                "list done s",
                "rows",
                "proven",
                "complete",
                "CPU s",
            ],
            table,
        )
    )
    print(
        f"\nload after: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}"
    )


if __name__ == "__main__":
    main()
