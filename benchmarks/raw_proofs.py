"""Time to proof on small raw tables with rules: decision cards of at most 3, 4 and 5 rules.

Raw public tables that ship inside installed packages (nothing is downloaded), each of at most
1,000 rows and 10 variables, fitted with ``rules=True``, ``max_size`` 3, 4 and 5 and an explicit
time limit; then the paper's heart set at ``max_size=5`` (default C0) and at ``C0 = 0.01``.
The tables: the Palmer penguins field data (target: male), statsmodels' ``anes96`` (vote) and
every 7th row of ``fair`` (910 rows; any affair), scikit-learn's ``diabetes`` (progression above
140), ``breast_cancer`` (its 10 "mean" columns; malignant) and ``wine`` (its first 10 columns;
class 1 against the rest).

Prints one Markdown table (seconds to the end of ``fit``, status, gap, the solver that ended)
with ``uptime`` before and after: wall-clock figures on a shared machine are only comparable
at a similar load, so CPU seconds of this process are shown too.

Usage::

    python benchmarks/raw_proofs.py                    # 10 s per raw fit, heart 30 s and 60 s
    python benchmarks/raw_proofs.py --time-limit 5 --tables penguins diabetes --sizes 3 4
    python benchmarks/raw_proofs.py --sizes --no-heart --default-fit   # only the default path
    python benchmarks/raw_proofs.py --sizes --no-heart --first-card fair breast_cancer

``--default-fit`` also times the default path on each table, ``sw.fit(X, y)``: the size (and
the candidate cut points) chosen by 5-fold CV (``size_cv``: exact fits on the folds), then the
exact fit at that size, under the default time limit. It is fitted on a stratified 80 % of the
rows (seeded) and its error measured on the other 20 %; FasterRisk's own pipeline (its
binarizer, ``k=5``: ``raw_tables.py``) is timed and scored on the same split beside it when it
is installed (``pip install --no-deps fasterrisk``, benchmark-only). A small fit runs first,
untimed, so that no row pays for compiling or loading the kernels.

``--first-card`` times the default fit on larger tables (more than 1,000 rows or 10 variables:
all of ``fair``, all 30 columns of ``breast_cancer``): seconds to the first card a user sees,
and to the end of ``fit``.
"""

from __future__ import annotations

import argparse
import datetime
import math
import sys
import time
from pathlib import Path

import pandas as pd

import slimwidgets as sw

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import load, load_line, markdown_table  # noqa: E402
from generalization import has_fasterrisk  # noqa: E402
from raw_tables import fasterrisk_raw, load_raw  # noqa: E402

TABLES = ("penguins", "anes96", "fair910", "diabetes", "breast_cancer10", "wine10")


def load_table(name: str) -> tuple[pd.DataFrame, pd.Series]:
    """A raw table of at most 1,000 rows and 10 variables, and its 0/1 target."""
    if name == "fair910":  # its rows come sorted by the target: every 7th row keeps both classes
        X, y = load_raw("fair")
        return X.iloc[::7].reset_index(drop=True), y.iloc[::7].reset_index(drop=True)
    if name == "breast_cancer10":
        X, y = load_raw("breast_cancer")
        return X.iloc[:, :10], y
    if name == "wine10":
        from sklearn import datasets

        d = datasets.load_wine(as_frame=True)
        return d.data.iloc[:, :10], (d.target == 1).astype(int)
    return load_raw(name)


def timed(fit) -> list[str]:
    """Seconds (wall, CPU), status, gap and solver of one fit."""
    t, c = time.perf_counter(), time.process_time()
    card = fit()
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    gap = "0" if card.status == "optimal" else f"{100 * card.gap:.1f} %"
    return [f"{wall:.1f}", f"{cpu:.1f}", card.status, gap, str(card.solver), str(card.size)]


def split(X: pd.DataFrame, y: pd.Series) -> tuple:
    """A stratified 80/20 split of the rows (seed 0): training rows, then held-out rows."""
    from sklearn.model_selection import train_test_split

    return train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)


def default_fit_rows(name: str, X: pd.DataFrame, y: pd.Series) -> list[list[str]]:
    """The default fit, ``sw.fit(X, y)``, and FasterRisk's pipeline (when installed) on the same
    80/20 split: seconds (wall, CPU), status, size and held-out error."""
    Xtr, Xte, ytr, yte = split(X, y)
    shape = f"{X.shape[0]} x {X.shape[1]}"
    t, c = time.perf_counter(), time.process_time()
    card = sw.fit(Xtr, ytr)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    error = float((card.predict(Xte) != yte.to_numpy()).mean())
    rows = [
        [name, shape, "default fit (size by CV)", f"{wall:.1f}", f"{cpu:.1f}", card.status]
        + [str(card.size), f"{100 * error:.1f}"]
    ]
    if has_fasterrisk():
        t, c = time.perf_counter(), time.process_time()
        _, predict, size, status, _ = fasterrisk_raw(Xtr, ytr.to_numpy(), None)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        error = float((predict(Xte) != yte.to_numpy()).mean())
        rows.append(
            [name, shape, "FasterRisk (k=5)", f"{wall:.1f}", f"{cpu:.1f}", status, str(size)]
            + [f"{100 * error:.1f}"]
        )
    return rows


def first_card_row(name: str, X: pd.DataFrame, y: pd.Series) -> list[str]:
    """On a larger table, the default fit ``sw.fit(X, y)``: seconds to the first card a user
    sees (said before the size choice where the package does so, else the final fit's first
    card, after the choice), and to the end of ``fit``, wall and CPU."""
    from slimwidgets.fitting import driver

    t, c = time.perf_counter(), time.process_time()
    seen: list[tuple[float, float]] = []

    def note(*_args) -> None:
        if not seen:
            seen.append((time.perf_counter() - t, time.process_time() - c))

    say = getattr(driver, "say_first_card", None)  # absent from trees before it
    if say is not None:
        driver.say_first_card = lambda *a, **k: (note(), say(*a, **k))[1]
    try:
        card = sw.fit(X, y, on_incumbent=note)
    finally:
        if say is not None:
            driver.say_first_card = say
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    (first_wall, first_cpu) = seen[0] if seen else (math.nan, math.nan)
    return [name, f"{X.shape[0]} x {X.shape[1]}", f"{first_wall:.1f}", f"{first_cpu:.1f}"] + [
        f"{wall:.1f}",
        f"{cpu:.1f}",
        card.status,
        str(card.size),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=list(TABLES))
    parser.add_argument("--sizes", nargs="*", type=int, default=[3, 4, 5])
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--no-heart", action="store_true")
    parser.add_argument(
        "--default-fit", action="store_true", help="also time sw.fit(X, y, rules=True)"
    )
    parser.add_argument(
        "--first-card",
        nargs="*",
        default=[],
        help="larger tables (e.g. fair breast_cancer): seconds to the default fit's first card",
    )
    args = parser.parse_args()
    print(
        f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; load before: "
        f"{load_line()}",
        flush=True,
    )
    rows, default_rows = [], []
    X, y = load_table("penguins")
    sw.fit(X, y, rules=True, max_size=2, time_limit=5)  # compiles or loads the kernels, untimed
    for name in args.tables:
        X, y = load_table(name)
        for k in args.sizes:
            cells = timed(lambda: sw.fit(X, y, rules=True, max_size=k, time_limit=args.time_limit))
            rows.append(
                [name, f"{X.shape[0]} x {X.shape[1]}", f"rules, max_size={k}", str(args.time_limit)]
                + cells
            )
            print(" | ".join(rows[-1]), flush=True)
        if args.default_fit:
            default_rows += default_fit_rows(name, X, y)
            print(" | ".join(default_rows[-1]), flush=True)
    if not args.no_heart:
        X, y = load("heart")
        for label, spec in (
            ("max_size=5", sw.make_spec(max_size=5, time_limit=30)),
            ("C0=0.01", sw.make_spec(C0=0.01, time_limit=60)),
        ):
            cells = timed(lambda: sw.fit(X, y, spec=spec))
            rows.append(
                ["heart (paper)", f"{X.shape[0]} x {X.shape[1]}", label, str(spec.time_limit)]
                + cells
            )
            print(" | ".join(rows[-1]), flush=True)
    header = [
        "table",
        "rows x variables",
        "fit",
        "limit s",
        "wall s",
        "CPU s",
        "status",
        "gap",
        "solver",
        "size",
    ]
    if rows:
        print(markdown_table(header, rows))
        proven = sum(r[6] == "optimal" for r in rows)
        print(f"\n{proven} of {len(rows)} fits proven optimal")
    if default_rows:
        print(
            markdown_table(
                ["table", "rows x variables", "fit", "wall s", "CPU s", "status", "size"]
                + ["held-out error %"],
                default_rows,
            )
        )
    first_rows = []
    for name in args.first_card:
        X, y = load_table(name)
        first_rows.append(first_card_row(name, X, y))
        print(" | ".join(first_rows[-1]), flush=True)
    if first_rows:
        print(
            markdown_table(
                ["table", "rows x variables", "first card: wall s", "first card: CPU s"]
                + ["fit: wall s", "fit: CPU s", "status", "size"],
                first_rows,
            )
        )
    print(f"load after: {load_line()}")


if __name__ == "__main__":
    main()
