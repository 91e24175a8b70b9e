"""Behaviour does not change: the proven cards of package trees compared, case by case.

Each package tree given (``--trees``: folders holding a ``slimwidgets`` package, e.g. older
commits unpacked by ``git archive``) fits the same deterministic cases in a child process of its
own, one tree after the other: the paper's data sets whose programs are proven within 60 s in
``paper_table.py``'s stored run (haberman, mammo, bankruptcy at both C0, mushroom at 0.01), the
six raw tables of ``raw_proofs.py`` with ``rules=True`` and ``max_size`` 3, 4, 5 (10 s), and
risk cards (``loss="logistic"``) on the same tables at ``max_size`` 3 and 4. A proven card is
deterministic: the table says, per case, whether every tree returned the same status, the same
objective and the same points, and the seconds (wall and CPU) each took. Timing on a shared
machine is comparable only at a similar load: ``uptime`` is printed around each tree.

Usage::

    git archive 6b5e244 | tar -x -C /tmp/before
    python benchmarks/same_cards.py --trees /tmp/before .
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PAPER = (("haberman", 2), ("mammo", 2), ("bankruptcy", 2), ("mushroom", 1))


def child(tree: str, only: str) -> None:
    """Fit every case whose label holds ``only`` with the package in ``tree``; one JSON line per
    card on stdout."""
    sys.path[:0] = [tree, str(Path(tree) / "benchmarks")]
    from common import load
    from raw_proofs import TABLES, load_table

    import slimwidgets as sw

    assert sw.__file__.startswith(str(Path(tree).resolve())), sw.__file__
    X, y = load_table("penguins")
    # compiles or loads the kernels of both label families, untimed
    sw.fit(X, y, rules=True, max_size=2, time_limit=5)
    sw.fit(X, y, rules=True, max_size=1, time_limit=5, loss="logistic")
    cases = []
    for name, n_C0 in PAPER:  # mushroom's max-accuracy program ran to its limit: not proven
        for C0 in (0.01, None)[:n_C0]:
            spec = sw.make_spec(C0=C0, time_limit=60, threads=1, zero_score="error")
            label = f"paper {name} C0={'0.01' if C0 else 'max-acc'}"
            cases.append((label, load(name), dict(spec=spec, rules=False)))
    for name in TABLES:
        table = load_table(name)
        for k in (3, 4, 5):
            options = dict(rules=True, max_size=k, time_limit=10)
            cases.append((f"raw {name} max_size={k}", table, options))
        for k in (3, 4):
            options = dict(rules=True, max_size=k, time_limit=10, loss="logistic")
            cases.append((f"risk {name} max_size={k}", table, options))
    for label, (X, y), options in (case for case in cases if only in case[0]):
        t, c = time.perf_counter(), time.process_time()
        card = sw.fit(X, y, **options)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        points = dict(zip(card.feature_names, card.coefficients))
        extra = {"(intercept)": card.intercept, "(multiplier)": card.multiplier}
        row = dict(case=label, status=card.status, objective=card.objective, wall=wall, cpu=cpu)
        print(json.dumps({**row, "card": {**points, **extra}}), flush=True)


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def run_tree(tree: str, only: str) -> list[dict]:
    """The cards of ``tree``, fitted in a child process."""
    print(f"{tree}: before {uptime()}", flush=True)
    out = subprocess.run(
        [sys.executable, __file__, "--child", tree, "--only", only],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    print(f"{tree}: after {uptime()}", flush=True)
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def table(trees: list[str], runs: list[list[dict]]) -> str:
    """One Markdown row per case: the status (each tree's, when they differ), whether every
    tree's objective and card equal the first's, and each tree's wall / CPU seconds."""
    head = ["case", "status", "same objective", "same card"]
    head += [f"{Path(t).name or t} wall / CPU s" for t in trees]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for rows in zip(*runs):
        first = rows[0]
        same_objective = all(r["objective"] == first["objective"] for r in rows)
        same_card = all(r["card"] == first["card"] for r in rows)
        statuses = [r["status"] for r in rows]
        status = statuses[0] if len(set(statuses)) == 1 else " / ".join(statuses)
        cells = [first["case"], status, "yes" if same_objective else "**no**"]
        cells += ["yes" if same_card else "**no**"]
        cells += [f"{r['wall']:.1f} / {r['cpu']:.1f}" for r in rows]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", nargs="+", default=["."])
    parser.add_argument("--only", default="", help="only the cases whose label holds this")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.only)
        return
    trees = [str(Path(t).resolve()) for t in args.trees]
    print(table(trees, [run_tree(t, args.only) for t in trees]))


if __name__ == "__main__":
    main()
