"""Reproduce the paper's table of train error and model size on its 8 data sets.

For each data set and each C0 (0.01, and the "lose no accuracy" default of
Remark 2) this solves the SLIM IP with a time limit (60 s by default, one
thread) and prints a Markdown table: rows -> distinct rows, build time, solve
time, status, gap, objective, proven bound, train error and size, next to the paper's train
error and size.

    python benchmarks/paper_table.py [--time-limit 60] [--datasets mammo heart]
                                     [--out table.md] [--save]

Proofs and bounds never regress unnoticed: the figures of every program in the last committed
run are kept in ``paper_table.json`` beside this script, and the "since last run" column compares
with them. The bound (the proven floor on the objective, train error + C0 per point) has two
parts: the part proven by steps that end on counted work ("by work": the support scan given up
at its work limits, the same at any load) and the rest, which HiGHS proves in the seconds it gets
after the hand-over. A proof lost, or a bound by work that fell, is a miss: a ``MISS`` line at
the end and exit status 1. A bound that fell with its part by work kept is said ("fell with
HiGHS's seconds") but is not a miss: the same program moves with the machine's load.
``--save`` writes this run's figures into that file (commit it with the README's table).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

from common import ORDER, PAPER_TRAIN, load, load_line, markdown_table

import slimwidgets as sw
from slimwidgets.core.data import prepare_data
from slimwidgets.core.formulation import build_formulation

#: the figures of the last committed run, one entry per "data C0" (see --save)
STORED = Path(__file__).with_name("paper_table.json")

#: a bound below the stored one by less than this share of it is the same bound (float sums);
#: relative, since at the "lose no accuracy" C0 an objective may be ~1e-5 (mushroom)
BOUND_TOLERANCE = 1e-6


def stored_run() -> dict:
    """The last committed run's figures by program ("breastcancer 0.01"), empty if none."""
    if not STORED.exists():
        return {}
    return json.loads(STORED.read_text())["programs"]


def _fell(now: float | None, then: float | None) -> bool:
    """Whether a bound ``now`` is below the stored ``then`` (None: no bound, as -inf)."""
    then = -math.inf if then is None else then
    now = -math.inf if now is None else now
    return now < then - BOUND_TOLERANCE * abs(then) - 1e-12


def since_last(before: dict | None, now: dict) -> tuple[str, bool]:
    """What changed against the last committed run, and whether it is a miss.

    Parameters
    ----------
    before : dict or None
        The stored figures of the program (``status``, ``solve_s``, ``bound``, ``work_bound``),
        None when it was not in the stored run.
    now : dict
        This run's figures, the same keys.

    Returns
    -------
    tuple of (str, bool)
        The words for the "since last run" column, and True for a miss: a proof lost, or a
        bound by work that fell (or, where the scan ended on seconds before its work limit, a
        whole bound below the stored part by work). A bound that fell with its part by work
        kept fell with the seconds HiGHS got: said, not a miss.

    Examples
    --------
    >>> since_last({"status": "optimal", "solve_s": 0.1}, {"status": "time_limit"})
    ('**proof lost** (proven in 0.1 s then)', True)
    """
    if before is None:
        return "new", False
    if before["status"] == "optimal" and now["status"] != "optimal":
        return f"**proof lost** (proven in {before['solve_s']:.1f} s then)", True
    if before["status"] != "optimal" and now["status"] == "optimal":
        return f"proof gained (was {before['status']})", False
    if now["status"] == "optimal":
        return "same status", False
    then = before.get("work_bound")
    if _fell(now.get("work_bound"), then) and (
        now.get("work_bound") is not None or _fell(now.get("bound"), then)
    ):
        return f"**bound by work fell** (was {_bound_text(then)})", True
    if _fell(now.get("bound"), before.get("bound")):
        return f"bound fell with HiGHS's seconds (was {_bound_text(before['bound'])})", False
    if then is not None and now.get("work_bound") is None:
        return "same status (the scan ended on seconds here, not on work)", False
    return "same status", False


def _bound_text(value: float | None) -> str:
    """An objective or bound as the table prints it: 4 decimals, 3 digits below 0.001."""
    if value is None:
        return "—"
    return f"{value:.4f}" if value == 0 or abs(value) >= 1e-3 else f"{value:.3g}"


def run(name: str, C0: float | None, time_limit: float, threads: int) -> tuple[list[str], dict]:
    """Fit one program: its table row and its figures (what ``--save`` stores)."""
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
    proven = card.status == "optimal"
    bound = card.objective if proven else card.bound
    figures = {
        "status": card.status,
        "solve_s": round(card.solve_time, 1),
        "objective": round(card.objective, 6),
        "bound": None if bound is None or not math.isfinite(bound) else bound,
        "work_bound": card.details.get("bound_by_work"),
        "gap_pct": 0.0 if proven else round(100 * card.gap, 1),
        "train_error_pct": round(100 * m.error, 2),
        "size": card.size,
    }
    said, miss = since_last(stored_run().get(row_key(name, C0)), figures)
    figures["miss"] = miss
    row = [
        name,
        "0.01" if C0 is not None else "max-acc",
        f"{data.n_samples} → {data.n_rows}",
        f"{build:.3f}",
        f"{card.solve_time:.1f}",
        card.status,
        "0" if proven else f"{card.gap:.1%}",
        _bound_text(card.objective),
        _bound_text(figures["bound"]),
        _bound_text(figures["work_bound"]),
        f"{m.error:.1%}" + (f" ({balanced:.1%} bal.)" if weighted else ""),
        str(card.size),
        f"{paper_err:.1f} %{' (weighted)' if weighted else ''} / {paper_size}",
        said,
    ]
    return row, figures


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
        "bound by work",
        "train err",
        "size",
        "paper train err / size",
        "since last run",
    ]
    print(f"load before: {load_line()}", file=sys.stderr, flush=True)
    rows, figures = [], {}
    for name in args.datasets:
        for C0 in C0s:
            row, figures[row_key(name, C0)] = run(name, C0, args.time_limit, args.threads)
            rows.append(row)
            print(" | ".join(row), file=sys.stderr, flush=True)
    table = markdown_table(header, rows)
    print(table)
    misses = summary(rows, [f["miss"] for f in figures.values()])
    print(f"load after: {load_line()}", file=sys.stderr)
    if args.save:
        save(figures, args.time_limit)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(table + "\n")
    return 1 if misses else 0


def row_key(name: str, C0: float | None) -> str:
    """The program's name in ``paper_table.json``: "heart 0.01", "heart max-acc"."""
    return f"{name} {'0.01' if C0 is not None else 'max-acc'}"


def summary(rows: list[list[str]], missed: list[bool]) -> list[str]:
    """Print what changed since the last committed run and a ``MISS`` line per row ``missed``
    (a proof lost or a bound by work fallen, :func:`since_last`); return the misses."""

    def said(start: str) -> list[str]:
        return [f"{r[0]} at C0 = {r[1]}" for r in rows if r[-1].startswith(start)]

    lost, fell, seconds = said("**proof lost**"), said("**bound by work"), said("bound fell")
    print("\nproofs lost since the last committed run: " + (", ".join(lost) or "none"))
    print("bounds by work fallen since the last committed run: " + (", ".join(fell) or "none"))
    if seconds:
        print("bounds fallen with HiGHS's seconds (parts by work kept): " + ", ".join(seconds))
    misses = [r for r, miss in zip(rows, missed) if miss]
    for r in misses:
        print(f"MISS {r[0]} at C0 = {r[1]}: {r[-1]}")
    return [f"{r[0]} {r[1]}" for r in misses]


def save(figures: dict[str, dict], time_limit: float) -> None:
    """Merge this run's figures into STORED (programs not run keep their stored figures)."""
    programs = stored_run()
    for key, values in figures.items():
        programs[key] = {k: v for k, v in values.items() if k != "miss"}
    head = {
        "time_limit_s": time_limit,
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load": load_line(),
    }
    lines = [f" {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()]
    lines += [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in sorted(programs.items())]
    lines[-1] = lines[-1].rstrip(",")  # one program a line: a run's diff reads as a table
    text = "{\n" + "\n".join(lines[: len(head)]) + '\n "programs": {\n'
    STORED.write_text(text + "\n".join(lines[len(head) :]) + "\n }\n}\n")


if __name__ == "__main__":
    raise SystemExit(main())
