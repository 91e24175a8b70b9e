"""Time to proof of risk cards on small raw tables with rules, before and after, in one run.

The six raw tables of ``raw_proofs.py``, fitted with ``loss="logistic"``, ``rules=True``,
``max_size`` 3, 4 and 5 and a time limit (10 s); with ``--size-choice TABLE ...`` also the
size of those tables' risk cards chosen by cross-validation: ``sw.fit_cv(X, y, rules=True,
loss="logistic", max_size=[1, 2, 3, 4, 5], cv=5)`` (25 fits on the folds, then the final fit at
the size chosen; each under the same time limit) and, in a tree whose risk cards choose their
size inside ``fit`` (``RISK.chooses_size_by_cv``), the default fit ``sw.fit(X, y, rules=True,
loss="logistic")``: 25 fold fits within its share of the default 30 s limit, then the card at
the size chosen. Both compare held-out log-loss in such a tree; an older tree's ``fit_cv``
compared held-out error.

Each table is fitted by every package tree given (``--trees``: folders holding a
``slimwidgets`` package, e.g. an older commit unpacked with ``git archive``), one child process
per tree and table, one after the other, so the figures of the trees are taken at a similar
load. Each child first fits a tiny risk card, so
the compile of the kernels (or their load from the cache) is not in any figure.

Prints one Markdown table (seconds to the end of ``fit``, CPU seconds of the child, status,
gap, the solver and how the supports were floored) with ``uptime`` before and after.

Usage::

    mkdir -p /tmp/before && git archive 6b5e244 | tar -x -C /tmp/before
    python benchmarks/raw_risk_proofs.py --trees /tmp/before .
    python benchmarks/raw_risk_proofs.py --trees . --tables wine10 --sizes 5 --size-choice wine10
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from common import load_line, markdown_table  # noqa: E402


def _warm_up() -> None:
    """A tiny risk fit past the walk, so every kernel is compiled (or loaded) before timing."""
    import numpy as np

    import slimwidgets as sw

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(60, 8)).astype(float)
    y = (X[:, 0] + X[:, 1] + rng.random(60) > 1.5).astype(int)
    sw.fit(X, y, loss="logistic", max_size=3, time_limit=5)


def _child(table: str, sizes: list[int], limit: float, size_choice: list[str]) -> None:
    """Fit one table in this process (the tree on ``PYTHONPATH``); one JSON line per fit."""
    from raw_proofs import load_table

    import slimwidgets as sw
    from slimwidgets.core.family import RISK
    from slimwidgets.core.options import DEFAULT_TIME_LIMIT

    _warm_up()
    X, y = load_table(table)
    fits = [(f"max_size={k}", sw.fit, dict(max_size=k)) for k in sizes]
    if table in size_choice:
        fits.append(("fit_cv, max_size 1-5", sw.fit_cv, dict(max_size=[1, 2, 3, 4, 5], cv=5)))
        if getattr(RISK, "chooses_size_by_cv", False):  # the default limit, not --time-limit
            fits.append(("fit, size by 5-fold CV", sw.fit, dict(time_limit=DEFAULT_TIME_LIMIT)))
    for label, how, options in fits:
        t, c = time.perf_counter(), time.process_time()
        card = how(X, y, rules=True, loss="logistic", **{"time_limit": limit, **options})
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        line = {
            "fit": label,
            "shape": f"{X.shape[0]} x {X.shape[1]}",
            "limit": str(options.get("time_limit", limit)),
            "wall": wall,
            "cpu": cpu,
            "status": card.status,
            "gap": card.gap,
            "solver": str(card.solver),
            "size": card.size,
            "note": str(card.details.get("support_proof", "")),
            "chosen": _chosen(card),
        }
        print(json.dumps(line), flush=True)


def _chosen(card) -> str:
    """The size a choice by CV settled on and what it compared, or "" for a fit at a size."""
    cv = card.details.get("cv") or card.details.get("size_cv")
    if not cv:
        return ""
    chosen = cv["chosen"]["max_size"] if isinstance(cv["chosen"], dict) else cv["chosen"]
    if cv.get("skipped"):
        return f"{chosen} (no choice: no time)"
    return f"{chosen} on {cv.get('error') or cv.get('measure', 'error')}"


def _run(tree: str, table: str, args: argparse.Namespace) -> list[dict]:
    command = [sys.executable, __file__, "--child", table, "--time-limit", str(args.time_limit)]
    command += ["--sizes", *map(str, args.sizes), "--size-choice", *args.size_choice]
    env = dict(os.environ, PYTHONPATH=str(Path(tree).resolve()))
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd="/tmp")
    lines = [json.loads(s) for s in done.stdout.splitlines() if s.startswith("{")]
    if done.returncode != 0:
        print(done.stderr[-2000:], file=sys.stderr)
    return lines


def _row(table: str, tree: str, fit: dict) -> list[str]:
    gap = "0" if fit["status"] == "optimal" else f"{100 * (fit['gap'] or 1.0):.1f} %"
    note = fit["note"].split(";")[0].replace("|", "/") or "-"
    return [table, fit["shape"], fit["fit"], fit["limit"], tree, f"{fit['wall']:.1f}"] + [
        f"{fit['cpu']:.1f}",
        fit["status"],
        gap,
        fit["solver"],
        str(fit["size"]),
        fit.get("chosen") or "-",
        note,
    ]


def main() -> None:
    from raw_proofs import TABLES

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", nargs="+", default=["."])
    parser.add_argument("--tables", nargs="+", default=list(TABLES))
    parser.add_argument("--sizes", nargs="*", type=int, default=[3, 4, 5])
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument(
        "--size-choice", nargs="*", default=[], help="tables whose fit_cv size choice is timed"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.sizes, args.time_limit, args.size_choice)
        return
    when = datetime.datetime.now(datetime.timezone.utc)
    print(f"{when:%Y-%m-%d %H:%M} UTC; load before: {load_line()}", flush=True)
    rows = []
    for table in args.tables:
        for tree in args.trees:
            for fit in _run(tree, table, args):
                rows.append(_row(table, tree, fit))
                print(" | ".join(rows[-1]), flush=True)
    header = ["table", "rows x variables", "fit", "limit s", "tree", "wall s", "CPU s"]
    header += ["status", "gap", "solver", "size", "size chosen", "supports"]
    print(markdown_table(header, rows))
    for tree in args.trees:
        mine = [r for r in rows if r[4] == tree and r[2].startswith("max_size")]
        quick = sum(r[7] == "optimal" and float(r[5]) <= 10.0 for r in mine)
        print(f"\n{tree}: {quick} of {len(mine)} fits proven optimal within 10 s")
    print(f"load after: {load_line()}")


if __name__ == "__main__":
    main()
