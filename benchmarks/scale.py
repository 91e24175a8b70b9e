"""How the cost of a fit grows with rows and rules (issue 23): first card, settled time, peak
memory and training error, on synthetic 0/1 rules with a planted 5-rule card and 10 % label noise.

Each run is a child process (its peak RSS is the run's memory; a warm-up fit on 2,000 rows
first, so the one-off compile is not counted). ``--dask`` adds runs through a Dask
``LocalCluster`` on partitions generated lazily on the workers.

    python benchmarks/scale.py                      # rows 10^4..10^6 x 50 rules, rules 50..1,000
    python benchmarks/scale.py --rows 1e4 1e5 --rules 50 --time-limit 10
    python benchmarks/scale.py --dask 1e7 1e8       # through Dask (slow: minutes per run)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import load_line, markdown_table  # noqa: E402

PLANTED = {0: 3, 1: 2, 2: 2, 3: 1, 4: -2}  # rule index -> points; predict positive at score >= 5
THRESHOLD, NOISE = 5, 0.10


def planted_rules(n_rows: int, n_rules: int, seed: int = 0) -> tuple[pd.DataFrame, pd.Series]:
    """``n_rows`` rows of ``n_rules`` independent fair 0/1 rules (uint8 columns); the label is the
    planted card's prediction, flipped on 10 % of the rows (about 32.5 % positive)."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({f"r{j}": (rng.random(n_rows) < 0.5).astype(np.uint8) for j in range(n_rules)})
    score = sum(points * X[f"r{j}"].to_numpy().astype(np.int64) for j, points in PLANTED.items())
    flip = rng.random(n_rows) < NOISE
    y = pd.Series(((score >= THRESHOLD) ^ flip).astype(np.int8), name="event")
    return X, y


def planted_error(X: pd.DataFrame, y: pd.Series) -> float:
    score = sum(points * X[f"r{j}"].to_numpy().astype(np.int64) for j, points in PLANTED.items())
    return float(np.mean((score >= THRESHOLD) != (y.to_numpy() == 1)))


def one_run(n_rows: int, n_rules: int, time_limit: float) -> dict:
    """One fit, in this process: its figures as a dict."""
    import slimwidgets as sw

    X, y = planted_rules(2_000, 10, seed=1)
    sw.fit(
        X, y, max_size=5, time_limit=2
    )  # warm-up: compile or load the kernels, import scikit-learn
    X, y = planted_rules(n_rows, n_rules)
    first = []
    t0 = time.perf_counter()
    card = sw.fit(
        X,
        y,
        max_size=5,
        time_limit=time_limit,
        on_incumbent=lambda inc: first.append(time.perf_counter() - t0) if not first else None,
    )
    settled = time.perf_counter() - t0
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    sample = card.details.get("sample") or {}
    return {
        "rows": n_rows,
        "rules": n_rules,
        "first": first[0] if first else math.nan,
        "settled": settled,
        "peak_gb": peak_kb / 2**20,
        "error": card.train_metrics.error,
        "planted": planted_error(X, y),
        "size": card.size,
        "status": card.status,
        "sample": sample.get("rows"),
    }


def dask_run(n_rows: int, n_rules: int, time_limit: float, partition_rows: int = 1_000_000) -> dict:
    """One fit on a Dask DataFrame whose partitions are generated on the workers."""
    import dask
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    import slimwidgets as sw

    X, y = planted_rules(2_000, 10, seed=1)
    sw.fit(X, y, max_size=5, time_limit=2)
    parts = math.ceil(n_rows / partition_rows)

    def part(i: int) -> pd.DataFrame:
        Xp, yp = planted_rules(
            min(partition_rows, n_rows - i * partition_rows), n_rules, seed=100 + i
        )
        return Xp.assign(event=yp)

    meta = part(0).iloc[:0]
    frame = dd.from_delayed([dask.delayed(part)(i) for i in range(parts)], meta=meta)
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, memory_limit="2GB"
        ) as cluster,
        Client(cluster) as client,
    ):
        first = []
        t0 = time.perf_counter()
        card = sw.fit(
            frame.drop(columns="event"),
            frame["event"],
            max_size=5,
            time_limit=time_limit,
            on_incumbent=lambda inc: first.append(time.perf_counter() - t0) if not first else None,
        )
        settled = time.perf_counter() - t0
        workers = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    sample = card.details.get("sample") or {}
    return {
        "rows": n_rows,
        "rules": n_rules,
        "first": first[0] if first else math.nan,
        "settled": settled,
        "peak_gb": max(workers.values()) / 2**20,
        "error": card.train_metrics.error,
        "planted": math.nan,
        "size": card.size,
        "status": card.status,
        "sample": sample.get("rows"),
        "note": sample.get("note", "every partition read"),
    }


def in_child(n_rows: int, n_rules: int, time_limit: float, dask: bool = False) -> dict:
    cmd = [
        sys.executable,
        os.path.abspath(__file__),
        "--child",
        str(n_rows),
        str(n_rules),
        str(time_limit),
    ]
    if dask:
        cmd.append("--dask-child")
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        return {"rows": n_rows, "rules": n_rules, "failed": out.stderr.strip().splitlines()[-1:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def slope(runs: list[dict], key: str, what: str = "settled") -> str:
    """The exponent k of time ~ size^k, fitted on log-log (first card or settled time)."""
    ok = [r for r in runs if "failed" not in r and r[what] > 0]
    if len(ok) < 2 or len({r[key] for r in ok}) < 2:
        return "–"
    k = np.polyfit(np.log([r[key] for r in ok]), np.log([r[what] for r in ok]), 1)[0]
    return f"{k:.2f}"


def table(runs: list[dict], limit: float) -> str:
    rows = []
    for r in runs:
        if "failed" in r:
            rows.append(
                [
                    f"{r['rows']:,}",
                    f"{r['rules']:,}",
                    "failed: " + " ".join(r["failed"]),
                    "",
                    "",
                    "",
                    "",
                    "",
                ]
            )
            continue
        over = r["settled"] - limit
        rows.append(
            [
                f"{r['rows']:,}",
                f"{r['rules']:,}",
                f"{r['first']:.2f} s",
                f"{r['settled']:.1f} s ({over:+.1f} s)",
                f"{r['peak_gb']:.2f} GB",
                f"{100 * r['error']:.2f} %",
                "–" if math.isnan(r["planted"]) else f"{100 * r['planted']:.2f} %",
                f"{r['status']}, {r['size']} rules"
                + (f", sample {r['sample']:,}" if r.get("sample") else ""),
            ]
        )
    return markdown_table(
        [
            "rows",
            "rules",
            "first card",
            "settled (vs limit)",
            "peak RSS",
            "train error",
            "planted card",
            "card",
        ],
        rows,
    )


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--rows", type=float, nargs="*", default=[1e4, 1e5, 1e6])
    ap.add_argument("--rules", type=float, nargs="*", default=[50, 200, 1000])
    ap.add_argument("--rules-at", type=float, default=1e5, help="rows of the runs over rules")
    ap.add_argument("--time-limit", type=float, default=30.0)
    ap.add_argument(
        "--dask", type=float, nargs="*", default=[], help="rows through Dask (e.g. 1e7 1e8)"
    )
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    ap.add_argument("--dask-child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        n, m, limit = int(float(args.child[0])), int(float(args.child[1])), float(args.child[2])
        print(json.dumps((dask_run if args.dask_child else one_run)(n, m, limit)))
        return
    print(f"load before: {load_line()}")
    by_rows = [in_child(int(n), 50, args.time_limit) for n in args.rows]
    print(f"\n### Rows (50 rules, max_size=5, time_limit={args.time_limit:g} s)\n")
    print(table(by_rows, args.time_limit))
    print(
        f"\nslope of settled time against rows: {slope(by_rows, 'rows')}; "
        f"of the first card: {slope(by_rows, 'rows', 'first')}"
    )
    by_rules = [in_child(int(args.rules_at), int(m), args.time_limit) for m in args.rules]
    print(f"\n### Rules ({int(args.rules_at):,} rows)\n")
    print(table(by_rules, args.time_limit))
    print(
        f"\nslope of settled time against rules: {slope(by_rules, 'rules')}; "
        f"of the first card: {slope(by_rules, 'rules', 'first')}"
    )
    if args.dask:
        by_dask = [in_child(int(n), 50, args.time_limit, dask=True) for n in args.dask]
        print(
            "\n### Through Dask (LocalCluster, 2 worker processes; peak RSS: the larger worker's)\n"
        )
        print(table(by_dask, args.time_limit))
        for r in by_dask:  # how much of the frame was read within the limit, as the card says
            print(f"\n{r['rows']:,} rows: {r.get('note', '')}")
    print(f"\nload after: {load_line()}")


if __name__ == "__main__":
    main()
