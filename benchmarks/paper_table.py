"""Reproduce the paper's table of train error and model size on its 8 data sets.

For each data set and each C0 (0.01, and the "lose no accuracy" default of
Remark 2) this solves the SLIM IP with a time limit (60 s by default, one
thread) and prints a Markdown table: rows -> distinct rows, build time, solve
time, status, gap, train error and size, next to the paper's train error and size.

    python benchmarks/paper_table.py [--time-limit 60] [--datasets mammo heart]
                                     [--out table.md] [--save]

Proofs never regress unnoticed: the status of every program in the last committed run is kept
in ``paper_table.json`` beside this script, and the "since last run" column marks a program
proven then and not now ("**proof lost**", also listed at the end) or proven now and not then,
and an unproven program whose proven bound ("bound": the floor on the objective) fell below the
stored one.
``--save`` writes this run's figures into that file (commit it with the README's table).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from common import ORDER, PAPER_TRAIN, load, load_line, markdown_table

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.core.formulation import build_formulation

#: the figures of the last committed run, one entry per "data C0" (see --save)
STORED = Path(__file__).with_name("paper_table.json")


def stored_run() -> dict:
    """The last committed run's figures by program ("breastcancer 0.01"), empty if none."""
    if not STORED.exists():
        return {}
    return json.loads(STORED.read_text())["programs"]


def since_last(before: dict | None, status: str, seconds: float, bound: float | None = None) -> str:
    """What changed against the last committed run: a proof lost or gained, a proven bound that
    fell (an honest bound regresses too), else its status."""
    if before is None:
        return "new"
    if before["status"] == "optimal" and status != "optimal":
        return f"**proof lost** (proven in {before['solve_s']:.1f} s then)"
    if before["status"] != "optimal" and status == "optimal":
        return f"proof gained (was {before['status']})"
    if (
        status != "optimal"
        and bound is not None
        and before.get("bound") is not None
        and bound < before["bound"] - 5e-5
    ):  # the table prints 4 decimals
        return f"bound fell (was {before['bound']:.4f})"
    return "same status"


def run(name: str, C0: float | None, time_limit: float, threads: int) -> list[str]:
    X, y = load(name)
    data = prepare_data(X, y, warn=False)
    # the paper's rule (a zero total is an error), so that its table is what is reproduced
    spec = sw.make_spec(C0=C0, time_limit=time_limit, threads=threads, zero_score="error")
    t = time.perf_counter()
    build_formulation(data, spec)
    build = time.perf_counter() - t
    card = sw.fit(
        X, y, spec=spec, rules=False
    )  # the paper's features as they are (its raw-number cards)
    m = card.metrics(X, y)
    balanced = 0.5 * (1 - m.tpr) + 0.5 * m.fpr
    paper_err, paper_size, weighted = PAPER_TRAIN[name]
    gap = "0" if card.status == "optimal" else f"{card.gap:.1%}"
    bound = card.objective if card.status == "optimal" else card.bound
    before = stored_run().get(f"{name} {'0.01' if C0 is not None else 'max-acc'}")
    return [
        name,
        "0.01" if C0 is not None else "max-acc",
        f"{data.n_samples} → {data.n_rows}",
        f"{build:.3f}",
        f"{card.solve_time:.1f}",
        card.status,
        gap,
        f"{card.objective:.4f}",
        "—" if bound is None else f"{bound:.4f}",
        f"{m.error:.1%}" + (f" ({balanced:.1%} bal.)" if weighted else ""),
        str(card.size),
        f"{paper_err:.1f} %{' (weighted)' if weighted else ''} / {paper_size}",
        since_last(before, card.status, card.solve_time, bound),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--datasets", nargs="*", default=list(ORDER))
    parser.add_argument("--C0", choices=["both", "0.01", "max-acc"], default="both")
    parser.add_argument("--out", help="also write the table to this file")
    parser.add_argument(
        "--save",
        action="store_true",
        help=f"write this run's figures into {STORED.name} (what the next run compares with)",
    )
    args = parser.parse_args(argv)
    C0s = {"both": [0.01, None], "0.01": [0.01], "max-acc": [None]}[args.C0]
    header = [
        "data",
        "C0",
        "rows → distinct",
        "build s",
        "solve s",
        "status",
        "gap",
        "objective",
        "bound",
        "train err",
        "size",
        "paper train err / size",
        "since last run",
    ]
    print(f"load before: {load_line()}", file=sys.stderr, flush=True)
    rows = []
    for name in args.datasets:
        for C0 in C0s:
            rows.append(run(name, C0, args.time_limit, args.threads))
            print(" | ".join(rows[-1]), file=sys.stderr, flush=True)
    table = markdown_table(header, rows)
    print(table)
    lost = [f"{r[0]} at C0 = {r[1]}" for r in rows if r[-1].startswith("**proof lost**")]
    print("\nproofs lost since the last committed run: " + (", ".join(lost) if lost else "none"))
    fell = [f"{r[0]} at C0 = {r[1]}" for r in rows if r[-1].startswith("bound fell")]
    if fell:
        print("proven bounds fallen since the last committed run: " + ", ".join(fell))
    print(f"load after: {load_line()}", file=sys.stderr)
    if args.save:
        save(rows, args.time_limit)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(table + "\n")
    return 0


def save(rows: list[list[str]], time_limit: float) -> None:
    """Merge this run's statuses into STORED (programs not run keep their stored figures)."""
    programs = stored_run()
    for r in rows:
        programs[f"{r[0]} {r[1]}"] = {
            "status": r[5],
            "solve_s": float(r[4]),
            "objective": float(r[7]),
        }
        if r[8] != "—":
            programs[f"{r[0]} {r[1]}"]["bound"] = float(r[8])
    body = {
        "time_limit_s": time_limit,
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "programs": dict(sorted(programs.items())),
    }
    STORED.write_text(json.dumps(body, indent=1) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
