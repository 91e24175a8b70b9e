"""Time to proof under group caps and gaps on small raw tables with rules.

Fits each table with ``rules=True``, ``max_size`` 3, 4 and 5, a group setting on one of its
text columns (``sensitive_features=``) and an explicit time limit, and prints one Markdown
row per fit: seconds (wall, CPU), status, gap, the solver that ended and the card's size.
A small fit runs first, untimed, so that no row pays for loading the kernels. Run it once per
code tree on the same machine, one after the other, to compare a change::

    PYTHONPATH=/path/to/tree python benchmarks/group_proofs.py --time-limit 30

The tables (from ``raw_proofs.load_table``): the Palmer penguins (target: male) with the FPR
of each species at most 20 %, and every 7th row of statsmodels' ``fair`` (any affair) with
the TPR gap between the wife's occupations at most 10 %.
"""

from __future__ import annotations

import argparse
import subprocess
import time
import warnings

from raw_proofs import load_table

import slimwidgets as sw

#: (table, its group column, the group setting)
SETTINGS = (
    ("penguins", "Species", {"max_fpr_by_group": 0.2}),
    ("fair910", "occupation", {"max_tpr_gap": 0.1}),
)


def one_fit(table: str, column: str, setting: dict, size: int, limit: float) -> list[str]:
    """Seconds (wall, CPU), status, gap, solver and size of one fit."""
    X, y = load_table(table)
    t, c = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        card = sw.fit(
            X,
            y,
            rules=True,
            max_size=size,
            time_limit=limit,
            sensitive_features=X[column],
            **setting,
        )
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    gap = "0" if card.status == "optimal" else f"{100 * card.gap:.1f} %"
    return [f"{wall:.1f}", f"{cpu:.1f}", card.status, gap, str(card.solver), str(card.size)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=30.0)
    parser.add_argument("--sizes", type=int, nargs="*", default=[3, 4, 5])
    args = parser.parse_args()
    one_fit("penguins", "Species", {"max_fpr_by_group": 0.2}, 2, 10.0)  # untimed: loads kernels
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    print(f"slimwidgets from {sw.__file__}")
    print("| table | group setting | max_size | s | CPU s | status | gap | solver | size |")
    print("|---|---|---|---|---|---|---|---|---|")
    for table, column, setting in SETTINGS:
        said = ", ".join(f"{k}={v} on {column}" for k, v in setting.items())
        for size in args.sizes:
            row = one_fit(table, column, setting, size, args.time_limit)
            print("| " + " | ".join([table, said, str(size), *row]) + " |", flush=True)
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
