"""The ``slimwidgets`` command line: fit a card from a CSV, fit the demo, show a saved card.

Usage (``slimwidgets <command> --help`` lists every option)::

    slimwidgets fit data.csv --target Y --max-size 5 --sign age=+ --json card.json
    slimwidgets fit data.csv --time months --event died --horizons 12,36,60
    slimwidgets demo
    slimwidgets show card.json --format markdown

User errors (a missing file, an unknown column, a malformed option value,
unusable data) print ``slimwidgets: error: <message>`` on stderr and exit
with code 2; constraints that no card can satisfy exit with code 1 and name
the clashing constraints. Only the standard library's ``argparse`` is used.

``fit`` and ``demo`` stop at a time limit (30 s unless given, as ``sw.fit``), print
their progress to stderr (the best card so far and what is proven, at most one
line a second), and stop within a second on Ctrl-C: the best card found is
printed with status "interrupted", ``--json`` is written, and the exit code
is 130. A second Ctrl-C stops at once, without a card. A time-to-event card (``--time``,
``--event``) prints no progress; Ctrl-C stops it likewise, with its best card so far.
"""

from __future__ import annotations

import argparse
import atexit
import csv
import difflib
import io
import json
import math
import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .core.data import group_column_apart
from .core.family import family_of_card, family_of_file
from .core.formatting import plain
from .core.groups import GROUP_OPTIONS
from .core.options import (
    DEFAULT_TIME_LIMIT,
    Option,
    flagged,
    named_features,
    text_number,
    text_range,
    text_whole,
)
from .core.validators import positive, whole

__all__ = ["main", "run", "build_parser"]

PROG = "slimwidgets"
FORMATS = ("text", "markdown", "html", "latex", "python", "sql")
# Formats whose output is code or markup: when printed to stdout, the status
# line goes to stderr so that stdout stays valid (pipe it straight to a file).
_CODE_FORMATS = ("html", "latex", "python", "sql")
# Flags whose values may start with '-' (a range "-5:5"), glued to their flag
# before argparse reads them.
_RANGE_OPTIONS = tuple(row.flag.flag for row in flagged() if row.flag.parse is text_range)

EXIT_OK, EXIT_INFEASIBLE, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 128 + signal.SIGINT  # 130, as a shell reports a command stopped by Ctrl-C
FIT_DEFAULTS = {"time_limit": DEFAULT_TIME_LIMIT}  # the engine's own (core/options.py), in --help
DEMO_DEFAULTS = {**FIT_DEFAULTS, "max_size": 5}
PROGRESS_EVERY = 1.0  # seconds between progress lines at most


class CliError(ValueError):
    """A user error found by the command line itself (exit code 2)."""


# -- parsing option values -----------------------------------------------------------------
def _split_assignment(item: str, option: str) -> tuple[str, str]:
    """``NAME=VALUE`` -> (NAME, VALUE), split on the LAST ``=`` (names may contain ``=``)."""
    name, sep, value = item.rpartition("=")
    if not sep:
        raise CliError(f"{option} expects NAME=VALUE, got {item!r}")
    if not name:
        raise CliError(f"{option} {item!r} has no feature name before the '='")
    if not value.strip():
        raise CliError(f"{option} {item!r} has no value after the last '='")
    return name, value.strip()


def _assignments(
    items: Sequence[str] | None, option: str, parse: Callable[[str], Any] | None
) -> dict[str, Any]:
    """Repeated ``NAME=VALUE`` options -> {name: parsed value}; the same name twice must agree."""
    out: dict[str, Any] = {}
    for item in items or ():
        name, raw = _split_assignment(item, option)
        value = _read(parse, raw, f"{option} {item!r}")
        if name in out and out[name] != value:
            raise CliError(
                f"{option} gives {name!r} two different values: {out[name]!r} and {value!r}"
            )
        out[name] = value
    return out


def _whole_and_per_feature(
    items: Sequence[str], flag: str, parse: Callable[[str], Any]
) -> tuple[Any, dict[str, Any]]:
    """``FLAG VALUE`` (every feature) and ``FLAG NAME=VALUE`` (one feature), as in
    ``--coef-range -5:5 --coef-range age=0:3``."""
    global_range: Any = None
    per_feature: dict[str, Any] = {}
    for item in items:
        if "=" in item:
            per_feature.update(_assignments([item], flag, parse))
            continue
        value = _read(parse, item, f"{flag} {item!r}")
        if global_range is not None and value != global_range:
            raise CliError(f"{flag} is given twice for all features: {global_range} and {value}")
        global_range = value
    return global_range, per_feature


def _read(parse: Callable[[str], Any] | None, text: str, what: str) -> Any:
    """The value a flag's text stands for (the spec checks it); bad text names the flag."""
    try:
        return text if parse is None else parse(text)
    except ValueError as exc:
        raise CliError(f"{what}: {exc}") from None


def _value_type(row: Option) -> Callable[[str], Any]:
    """An argparse type: the flag's text read as a value, then checked as the spec checks it."""
    read = row.flag.parse or str
    return _argument_type(read, lambda value, _: row.check(value, row.name), row.flag.flag)


def _argument_type(
    read: Callable[[str], Any], check: Callable[[Any, str], Any], flag: str
) -> Callable[[str], Any]:
    """An argparse type for a flag outside the options table: the text read, then checked."""

    def parse(text: str) -> Any:
        try:
            return check(read(text), flag)
        except (TypeError, ValueError) as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


# -- data ---------------------------------------------------------------------------------
def read_csv(path: str, sep: str = ","):
    """Read a CSV with pandas after normalizing CR and CRLF line endings ("-" reads stdin)."""
    import pandas as pd

    if path == "-":
        text = sys.stdin.read()
        where = "<stdin>"
    else:
        p = Path(path)
        if not p.exists():
            raise FileNotFoundError(f"{path}: no such file")
        if p.is_dir():
            raise CliError(f"{path} is a directory, not a CSV file")
        raw = p.read_bytes()
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise CliError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
        where = path
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise CliError(f"{where} is empty")
    if len(sep) != 1:
        raise CliError(f"--sep must be a single character, got {sep!r}")
    try:
        header = next(iter(csv.reader(io.StringIO(text.split("\n", 1)[0]), delimiter=sep)), [])
    except csv.Error as exc:
        raise CliError(f"{where}: the header row could not be read as CSV ({exc})") from None
    dupes = sorted({h for h in header if header.count(h) > 1})
    if dupes:
        raise CliError(
            f"{where} has duplicate column names {dupes}; every column needs its own name"
        )
    try:
        frame = pd.read_csv(io.StringIO(text), sep=sep)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise CliError(f"{where} could not be read as CSV: {str(exc).strip()}") from None
    if frame.shape[0] == 0:
        raise CliError(f"{where} has a header but no data rows")
    return frame


def _check_writable(*paths: str | None) -> None:
    """Fail before a long solve, not after it, when an output folder does not exist."""
    for path in paths:
        if path and path != "-":
            parent = Path(path).expanduser().resolve().parent
            if not parent.is_dir():
                raise CliError(f"cannot write {path}: the folder {str(parent)!r} does not exist")
            if Path(path).is_dir():
                raise CliError(f"cannot write {path}: it is a directory")


def _match_label(raw: str, labels, target: str) -> Any:
    """The label in ``labels`` that ``raw`` means: as given, then as int/float, then true/false."""
    import pandas as pd

    present = [plain(v) for v in pd.unique(labels.dropna())]
    candidates: list[Any] = [raw]
    for convert in (int, float):
        try:
            candidates.append(convert(raw))
        except ValueError:
            pass
    if raw.strip().lower() in ("true", "false"):
        candidates.append(raw.strip().lower() == "true")
    for candidate in candidates:
        for value in present:
            if isinstance(value, str) != isinstance(candidate, str):
                continue
            if value == candidate:
                return value
    shown = ", ".join(repr(v) for v in present[:8]) + (", ..." if len(present) > 8 else "")
    raise CliError(f"--positive {raw!r} is not a label of column {target!r} (its labels: {shown})")


def _unknown_column(
    name: str, columns: Sequence[str], path: str, option: str = "--target"
) -> CliError:
    close = difflib.get_close_matches(name, list(columns), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    shown = ", ".join(repr(c) for c in list(columns)[:12]) + (", ..." if len(columns) > 12 else "")
    return CliError(f"{option} {name!r} is not a column of {path}{hint}; its columns: {shown}")


# -- options -> fit keyword arguments ---------------------------------------------------------
def _spec_options(args: argparse.Namespace) -> dict[str, Any]:
    """The engine options given on the command line (only those given, so defaults stay the
    engine's), read as the options table says and checked by ``make_spec``
    before any data is read."""
    from .core.spec import make_spec

    opts: dict[str, Any] = {}
    for row in flagged():
        raw, flag = getattr(args, row.name, None), row.flag
        if raw is None:
            continue
        if flag.kind == "list":
            opts[row.name] = list(dict.fromkeys(raw))
        elif flag.kind == "assign":
            opts[row.name] = _assignments(raw, flag.flag, flag.parse)
        elif flag.kind == "assign_or_value":
            whole, per_feature = _whole_and_per_feature(raw, flag.flag, flag.parse)
            if (
                whole is not None and per_feature and flag.per_feature == row.name
            ):  # a group cap: one or the other
                raise CliError(
                    f"{flag.flag}: give one value for every group or GROUP=VALUE, not both"
                )
            opts.update({} if whole is None else {row.name: whole})
            opts.update({flag.per_feature: per_feature} if per_feature else {})
        else:
            opts[row.name] = raw
    make_spec(**opts)
    return opts


def _check_group_flags(opts: dict[str, Any], sensitive: str | None) -> None:
    """The group options need --sensitive COLUMN (the demo has no group column)."""
    given = [
        row.flag.flag
        for row in flagged()
        if row.name in GROUP_OPTIONS and opts.get(row.name) is not None
    ]
    if given and sensitive is None:
        raise CliError(
            f"{', '.join(given)} need --sensitive COLUMN (the column that holds each row's group)"
        )


def _add_group_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group(
        "group fairness",
        "the column whose groups --max-tpr-gap, --max-fpr-by-group, ... compare (exact, proven)",
    )
    g.add_argument(
        "--sensitive",
        metavar="COLUMN",
        help="the column of each row's group (sex, site); a text column is not a feature",
    )


def _named_features(opts: dict[str, Any]) -> dict[str, list[str]]:
    """The feature names the options use, by the flag that gave them."""
    flags = {row.name: row.flag.flag for row in flagged()}
    return {flags.get(label, label): names for label, names in named_features(opts).items()}


def _check_names(opts: dict[str, Any], features: Sequence[str], target: str) -> None:
    """Unknown feature names in options, with a hint; caught here to name the CLI option."""
    known = set(features)
    for option, names in _named_features(opts).items():
        for name in names:
            if name == target:
                raise CliError(
                    f"{option} names {name!r}, which is the target column, not a feature"
                )
            if name not in known:
                close = difflib.get_close_matches(name, list(features), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise CliError(f"{option} names an unknown feature {name!r}{hint}")


# -- output -------------------------------------------------------------------------------------
def status_line(card) -> str:
    """What the card is and what is proven about it, in the user's units (one line)."""
    return f"status: {family_of_card(card).status_words(card)}"


def details_line(card) -> str:
    """The solver's raw figures (status word, objective, bound, gap, time), labelled as such."""
    return f"details: {family_of_card(card).details_words(card)}"


def render(card, fmt: str) -> str:
    """The card in one of FORMATS, as its family writes it."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: one of {', '.join(FORMATS)}")
    return family_of_card(card).export(card, fmt)


def _emit(card, args: argparse.Namespace) -> None:
    """Write the card (stdout or --out), the JSON (--json) and the status line."""
    body = render(card, args.format)
    if not body.endswith("\n"):
        body += "\n"
    json_path = getattr(args, "json", None)
    if json_path:
        card.to_json(json_path)
    line = status_line(card) + "\n" + details_line(card)
    if args.out:
        Path(args.out).write_text(body, encoding="utf-8")
        print(line)
        print(f"card ({args.format}) written to {args.out}")
    else:
        sys.stdout.write(body)
        print(line, file=sys.stderr if args.format in _CODE_FORMATS else sys.stdout)
    problem = family_of_card(card).degeneracy(card)
    if problem is not None:  # fit's DegenerateCardWarning, said once, for fitted and loaded cards
        print(f"{PROG}: warning: the card {problem}", file=sys.stderr)
    if json_path:
        print(
            f"card JSON written to {json_path}",
            file=sys.stderr if not args.out and args.format in _CODE_FORMATS else sys.stdout,
        )


class _Progress:
    """Progress on stderr while a fit runs: the best card so far in the user's units and what
    is proven about it, at most one line every ``PROGRESS_EVERY`` seconds and none in the first
    one. The solver threads report; the main thread prints (``tick``)."""

    def __init__(self, data, spec, stream=None):
        self.data, self.spec, self.stream = data, spec, stream or sys.stderr
        self.lock = threading.Lock()
        self.best, self.bound, self.fresh = None, -math.inf, False
        # the first line after a second: a fit that ends sooner prints only its card
        self.t0 = self.shown_at = time.perf_counter()

    def on_incumbent(self, inc) -> None:
        with self.lock:
            self.best, self.bound, self.fresh = inc, max(self.bound, inc.bound), True

    def on_bound(self, value: float) -> None:
        with self.lock:
            if value > self.bound:
                self.bound, self.fresh = value, True

    def tick(self) -> None:
        now = time.perf_counter()
        with self.lock:
            if not self.fresh or self.best is None or now - self.shown_at < PROGRESS_EVERY:
                return
            inc, bound, self.fresh, self.shown_at = self.best, self.bound, False, now
        print(
            f"{PROG}: {now - self.t0:.1f} s · best so far: {self.describe(inc, bound)}",
            file=self.stream,
            flush=True,
        )

    def describe(self, inc, bound: float) -> str:
        """The headline of the card found so far, in the same words as the final card's."""
        from .fitting.progress import describe_incumbent

        return describe_incumbent(self.data, self.spec, inc, bound, time.perf_counter() - self.t0)


def _solve_interruptibly(data, spec, progress: _Progress | None, started: float):
    """fit_dataset, stopped by Ctrl-C (:func:`_run_interruptibly`). Returns (card,
    interrupted)."""
    from .fitting.driver import fit_dataset

    def solve(cancel: threading.Event):
        return fit_dataset(
            data,
            spec,
            cancel=cancel,
            _started=started,
            on_incumbent=None if progress is None else progress.on_incumbent,
            on_bound=None if progress is None else progress.on_bound,
        )

    return _run_interruptibly(solve, progress)


def _run_interruptibly(solve: Callable[[threading.Event], Any], progress: _Progress | None = None):
    """``solve(cancel)`` on a thread, so that Ctrl-C (SIGINT) reaches the main thread at once
    while the solver runs in compiled code: the first one sets ``cancel`` (the fit returns its
    best card, "interrupted"), a second raises KeyboardInterrupt. Returns (card, interrupted)."""
    cancel, box = threading.Event(), {}

    def work() -> None:
        try:
            box["card"] = solve(cancel)
        except BaseException as exc:  # noqa: BLE001 - raised again on the main thread
            box["error"] = exc

    def on_sigint(signum, frame) -> None:
        if cancel.is_set():
            raise KeyboardInterrupt
        cancel.set()
        print(
            f"{PROG}: interrupted: stopping with the best card found (Ctrl-C again to quit at "
            "once)",
            file=sys.stderr,
            flush=True,
        )

    thread = threading.Thread(target=work, name="slimwidgets-fit", daemon=True)
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, on_sigint) if main_thread else None
    try:
        thread.start()
        while thread.is_alive():
            thread.join(0.1)
            if progress is not None:
                progress.tick()
    finally:
        if main_thread:
            signal.signal(signal.SIGINT, previous)
    if "error" in box:
        raise box["error"]
    return box["card"], cancel.is_set()


def _fit_with_warnings(
    X, y, *, quiet: bool = False, positive: Any = None, sensitive_features: Any = None, **options
):
    """Fit with progress and Ctrl-C handling, reporting the engine's data and box warnings as
    one-line messages, not source locations. Returns (card, interrupted)."""
    from .core.data import DataWarning, prepare_data
    from .core.spec import make_spec
    from .core.status import DegenerateCardWarning
    from .fitting.errors import BoxWarning
    from .solvers.search import warm_up

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DataWarning)
        warnings.simplefilter("ignore", DegenerateCardWarning)  # _emit says it, also for 'show'
        warnings.simplefilter("always", BoxWarning)
        try:
            warm_up()  # a first compile is announced, and not charged to the time limit
            started = time.perf_counter()
            data = prepare_data(X, y, positive=positive, sensitive_features=sensitive_features)
            spec = make_spec(**options)
            return _solve_interruptibly(
                data, spec, None if quiet else _Progress(data, spec), started
            )
        finally:
            for w in caught:
                if issubclass(w.category, (DataWarning, BoxWarning)):
                    print(f"{PROG}: warning: {w.message}", file=sys.stderr)
                else:
                    warnings.showwarning(w.message, w.category, w.filename, w.lineno)


# -- commands -------------------------------------------------------------------------------------
def cmd_fit(args: argparse.Namespace) -> int:
    opts = _spec_options(args)
    _check_group_flags(opts, args.sensitive)
    _check_writable(args.out, args.json)
    if (args.target is None) == (args.time is None) or (args.time is None) != (args.event is None):
        raise CliError("give --target COLUMN, or --time COLUMN and --event COLUMN (time to event)")
    frame = read_csv(args.data, sep=args.sep)
    columns = [str(c) for c in frame.columns]
    frame.columns = columns
    outcome = [args.target] if args.time is None else [args.time, args.event]
    for option, name in zip(("--target",) if args.time is None else ("--time", "--event"), outcome):
        if name not in columns:
            raise _unknown_column(name, columns, args.data, option)
        if frame[name].isna().any():
            n_missing = int(frame[name].isna().sum())
            raise CliError(f"{option} {name!r} has {n_missing} empty cell(s); every row needs one")
    if args.time is not None:
        return _fit_time_to_event(frame, opts, args)
    y = frame[args.target]
    if y.nunique() < 2:
        raise CliError(
            f"the target column {args.target!r} has only one value ({plain(y.iloc[0])!r}); "
            "a classifier needs rows of both classes"
        )
    X, builder, groups, opts = _features(frame, outcome, args, opts)
    positive = None if args.positive is None else _match_label(args.positive, y, args.target)
    card, interrupted = _fit_with_warnings(
        X, y, positive=positive, quiet=args.quiet, sensitive_features=groups, **opts
    )
    _emit(_with_rules(card, builder), args)
    return EXIT_INTERRUPTED if interrupted else EXIT_OK


def _features(frame, outcome: list[str], args: argparse.Namespace, opts: dict[str, Any]):
    """(X, its rule builder or None, the group column, the options with FIT_DEFAULTS and with
    variables standing for their rules) from every column but the outcome's."""
    X = frame.drop(columns=outcome)
    if args.sensitive is not None and args.sensitive not in X.columns:
        raise _unknown_column(args.sensitive, list(frame.columns), args.data, "--sensitive")
    if X.shape[1] == 0:
        raise CliError(f"{args.data} has no feature columns besides {', '.join(outcome)}")
    X, groups = group_column_apart(X, args.sensitive)  # a text group column is the group only
    X, builder = _rules_for(X, args)
    names = list(X.columns) + list(getattr(builder, "feature_names_in_", []))
    _check_names(opts, [str(n) for n in names], outcome[0])
    if builder is not None:  # --sign age=+ / --exclude age: every rule of the variable
        from .core.rules import options_by_variable

        opts = options_by_variable(builder, opts)
    return X, builder, groups, {**FIT_DEFAULTS, **opts}


def _with_rules(card, builder):
    """The card with the rule builder, so it scores raw rows and exports its cut points."""
    from dataclasses import replace

    return card if builder is None else replace(card, rules=builder)


def _fit_time_to_event(frame, opts: dict[str, Any], args: argparse.Namespace) -> int:
    """A time-to-event card of the CSV's --time and --event columns (see slimwidgets.fit)."""
    import numpy as np

    from .fitting.survival_driver import fit_survival

    if args.time == args.event:
        raise CliError(f"--time and --event name one column, {args.time!r}: give two")
    event, time = _events(frame[args.event], args), frame[args.time].to_numpy()
    if time.dtype.kind not in "iuf":
        raise CliError(f"--time {args.time!r} must hold numbers (each row's follow-up time)")
    y = np.array(list(zip(event, time)), dtype=[(args.event, "?"), (args.time, "<f8")])
    X, builder, groups, opts = _features(frame, [args.time, args.event], args, opts)
    card, interrupted = _run_interruptibly(
        lambda cancel: fit_survival(
            X,
            y,
            rules=False,
            horizons=args.horizons,
            sensitive_features=groups,
            cancel=cancel,
            progress=False,  # a time-to-event fit here prints no progress (see the module's notes)
            **opts,
        )
    )
    _emit(_with_rules(card, builder), args)
    return EXIT_INTERRUPTED if interrupted else EXIT_OK


def _events(column, args: argparse.Namespace):
    """Whether each row's event happened: the --positive label, else 1/0 or true/false."""
    if args.positive is not None:
        return (column == _match_label(args.positive, column, args.event)).to_numpy()
    if not {plain(v) for v in column.unique()} <= {0, 1}:
        shown = ", ".join(repr(plain(v)) for v in column.unique()[:6])
        raise CliError(
            f"--event {args.event!r} holds {shown}: give 1/0 or true/false, "
            "or name the event's label with --positive"
        )
    return column.astype(bool).to_numpy()


def _horizons(text: str) -> tuple[float, ...]:
    """``1,3,5`` -> (1.0, 3.0, 5.0): positive, finite times."""
    values = tuple(float(v) for v in text.split(","))
    if not values or not all(0 < v < math.inf for v in values):
        raise ValueError(f"horizons must be positive times, got {text!r}")
    return values


def _parse_cuts(
    items: Sequence[str] | None, columns: Sequence[str]
) -> dict[str, list[float]] | None:
    """``--cuts age=40,50,60`` (repeatable) -> ``{"age": [40.0, 50.0, 60.0]}``."""
    if not items:
        return None
    cuts: dict[str, list[float]] = {}
    for item in items:
        name, sep, values = item.rpartition("=")
        if not sep or not name:
            raise CliError(f"--cuts expects NAME=CUT,CUT,..., got {item!r}")
        if name not in columns:
            close = difflib.get_close_matches(name, list(columns), n=1)
            raise CliError(
                f"--cuts names an unknown column {name!r}"
                + (f" (did you mean {close[0]!r}?)" if close else "")
            )
        try:
            cuts[name] = [float(v) for v in values.split(",") if v.strip()]
        except ValueError:
            raise CliError(
                f"--cuts {item!r}: the cut points must be numbers separated by commas"
            ) from None
        if not cuts[name] or not all(math.isfinite(c) for c in cuts[name]):
            raise CliError(f"--cuts {item!r}: give at least one finite cut point")
    return cuts


def _rules_for(X, args: argparse.Namespace):
    """The raw table's rules (a column not 0/1, a missing value, --cuts, --rules always), with the
    rule builder's data warnings as one-line messages."""
    from .core.data import DataWarning
    from .core.rules import build_rules

    rules = {"auto": None, "always": True, "never": False}[getattr(args, "rules", None) or "auto"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DataWarning)
        try:
            return build_rules(
                X, rules, _parse_cuts(getattr(args, "cuts", None), [str(c) for c in X.columns])
            )
        finally:
            for w in caught:
                print(f"{PROG}: warning: {w.message}", file=sys.stderr)


def cmd_demo(args: argparse.Namespace) -> int:
    from .datasets import load_demo

    opts = _spec_options(args)
    _check_group_flags(opts, None)
    _check_writable(args.out, args.json)
    X, y = load_demo()
    opts = {**DEMO_DEFAULTS, **opts}
    _check_names(opts, list(X.columns), str(y.name))
    card, interrupted = _fit_with_warnings(X, y, quiet=args.quiet, **opts)
    _emit(card, args)
    return EXIT_INTERRUPTED if interrupted else EXIT_OK


def _load_card(where: str, verify: bool):
    """The card in the JSON file ``where``, with a message naming the file
    when it cannot be read."""
    path = Path(where)
    if not path.exists():
        raise FileNotFoundError(f"{where}: no such file")
    if path.is_dir():
        raise CliError(f"{where} is a directory, not a card JSON file")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise CliError(f"{where} is not UTF-8 text ({exc.reason})") from None
    except json.JSONDecodeError as exc:
        raise CliError(f"{where} is not valid JSON: {exc}") from None
    try:
        return family_of_file(data).read_card(data, verify=verify)
    except ValueError as exc:
        message = str(exc)
        if "checksum" in message:
            message = (
                f"{where}: its content does not match its checksum (edited after export?); use "
                "--no-verify to load it anyway"
            )
        raise CliError(
            f"{where}: {message}" if not message.startswith(where) else message
        ) from None


def cmd_show(args: argparse.Namespace) -> int:
    _check_writable(args.out)
    card = _load_card(args.card, verify=not args.no_verify)
    _emit(card, args)
    return EXIT_OK


def _labelled_rows(path: str, target: str, sep: str):
    """(X, y) from a CSV whose column ``target`` holds the labels."""
    frame = read_csv(path, sep=sep)
    frame.columns = [str(c) for c in frame.columns]
    if target not in frame.columns:
        raise _unknown_column(target, list(frame.columns), path)
    return frame.drop(columns=[target]), frame[target]


def cmd_report(args: argparse.Namespace) -> int:
    """Write the validation report of a saved card on labelled CSV data (see slimwidgets.report)."""
    from .reporting import report

    _check_writable(args.out)
    card = _load_card(args.card, verify=not args.no_verify)
    X, y = _labelled_rows(args.data, args.target, args.sep)
    test = None if args.test is None else _labelled_rows(args.test, args.target, args.sep)
    external = (
        None if args.external is None else _labelled_rows(args.external, args.target, args.sep)
    )
    if args.groups is not None and args.groups not in X.columns:
        raise CliError(f"--groups {args.groups!r} is not a column of {args.data}")
    doc = report(
        card,
        X,
        y,
        test=test,
        external=external,
        groups=args.groups,
        bootstrap=args.bootstrap,
        n_jobs=args.n_jobs,
        time_limit=args.bootstrap_time_limit,
        progress=False if args.quiet else None,
    )
    Path(args.out).write_text(doc, encoding="utf-8")
    if not args.quiet:
        print(f"wrote {args.out}", file=sys.stderr)
    return EXIT_OK


def _add_report_parser(sub) -> None:
    rep = sub.add_parser(
        "report",
        allow_abbrev=False,
        help="write the validation report of a saved card",
        description="Write a standalone HTML validation report of a card saved with --json, "
        "on labelled CSV data (optionally held-out and external rows too).",
    )
    rep.add_argument("card", metavar="CARD.json")
    rep.add_argument(
        "data", metavar="DATA.csv", help="the card's training rows, with the label column"
    )
    rep.add_argument(
        "--target", required=True, metavar="COLUMN", help="the label column (in every CSV)"
    )
    rep.add_argument(
        "-o", "--out", required=True, metavar="REPORT.html", help="where to write the report"
    )
    rep.add_argument("--test", metavar="TEST.csv", help="held-out rows from the same source")
    rep.add_argument(
        "--external", metavar="EXTERNAL.csv", help="rows from elsewhere (external validation)"
    )
    rep.add_argument("--groups", metavar="COLUMN", help="a column: every figure by group too")
    rep.add_argument(
        "--bootstrap",
        type=_argument_type(text_whole, whole(0), "--bootstrap"),
        default=0,
        metavar="N",
        help="bootstrap samples for the optimism-corrected AUC (default 0: none)",
    )
    rep.add_argument(
        "--bootstrap-time-limit",
        default=2.0,
        metavar="SECONDS",
        type=_argument_type(text_number, positive("a refit needs time"), "--bootstrap-time-limit"),
        help="time limit of each bootstrap refit (default 2)",
    )
    rep.add_argument(
        "--n-jobs", type=int, default=None, metavar="N", help="bootstrap refits in parallel"
    )
    rep.add_argument("--sep", default=",", metavar="CHAR", help="field separator (default: ',')")
    rep.add_argument(
        "--no-verify", action="store_true", help="load the card even if its checksum does not match"
    )
    rep.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    rep.set_defaults(handler=cmd_report)


# -- the parser ---------------------------------------------------------------------------------
def _add_output_options(p: argparse.ArgumentParser, *, json_option: bool = True) -> None:
    g = p.add_argument_group("output")
    g.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="how to print the card (default: text). For html/latex/python/sql printed to stdout "
        "the status line goes to stderr, so stdout stays valid code",
    )
    g.add_argument("--out", metavar="FILE", help="write the card to FILE instead of stdout")
    if json_option:
        g.add_argument(
            "--json",
            metavar="FILE",
            help="also write the card as JSON (reload it with 'slimwidgets show')",
        )


def _add_table_options(group, section: str, defaults: dict[str, Any]) -> None:
    """The flags of the options table in ``section`` ("spec" or "solver"), in its order; the
    command's own defaults (``defaults``) are said in the help."""
    for row in flagged():
        flag = row.flag
        if flag.group != section:
            continue
        help_text = flag.help + (
            f" (default: {defaults[row.name]:g})" if row.name in defaults else ""
        )
        kwargs: dict[str, Any] = {"dest": row.name, "help": help_text}
        if flag.kind == "value":
            kwargs.update(type=_value_type(row), metavar=flag.metavar)
        elif flag.kind == "choice":
            kwargs.update(choices=row.choices)
        elif flag.kind == "switch":
            kwargs.update(action="store_const", const=flag.const)
        else:
            kwargs.update(action="append", metavar=flag.metavar)
        group.add_argument(flag.flag, **kwargs)


def _add_solver_options(p: argparse.ArgumentParser, *, demo: bool = False) -> None:
    g = p.add_argument_group("solver")
    _add_table_options(g, "solver", DEMO_DEFAULTS if demo else FIT_DEFAULTS)
    g.add_argument(
        "--quiet", action="store_true", help="print no progress lines on stderr while solving"
    )


def _add_spec_options(p: argparse.ArgumentParser, *, demo: bool = False) -> None:
    g = p.add_argument_group(
        "the scoring system",
        "options naming a feature repeat; NAME=VALUE is split on the last '=' "
        "so feature names may contain '='",
    )
    _add_table_options(g, "spec", DEMO_DEFAULTS if demo else FIT_DEFAULTS)


def build_parser() -> argparse.ArgumentParser:
    from ._version import __version__

    parser = argparse.ArgumentParser(
        prog=PROG,
        allow_abbrev=False,
        description="Learn exactly optimized integer scoring systems (SLIM) from the command line.",
        epilog="exit codes: 0 success, 1 no scoring system meets the constraints, 2 usage or data "
        "error, 130 interrupted by Ctrl-C (the best card found is printed)",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    fit = sub.add_parser(
        "fit",
        allow_abbrev=False,
        help="learn a card from a CSV file",
        description="Learn a scoring system from a CSV: --target is y (or --time and --event: "
        "a time-to-event card), every other column a feature.",
    )
    fit.add_argument(
        "data", metavar="DATA.csv", help="CSV file with a header row ('-' reads stdin)"
    )
    fit.add_argument("--target", metavar="COLUMN", help="the label column (two classes)")
    fit.add_argument(
        "--positive",
        metavar="LABEL",
        help="the label to predict (default: the larger label, e.g. 1 or True); with --event, "
        "the label of an event (default: 1 or true)",
    )
    g = fit.add_argument_group("time to event", "a time-to-event card instead of --target")
    g.add_argument("--time", metavar="COLUMN", help="each row's follow-up time")
    g.add_argument("--event", metavar="COLUMN", help="whether the event happened (1) or not (0)")
    g.add_argument(
        "--horizons",
        type=_argument_type(_horizons, lambda value, flag: value, "--horizons"),
        metavar="T,T,...",
        help="the times the card gives the risk of the event by (default: the follow-up's "
        "quartiles, rounded)",
    )
    fit.add_argument("--sep", default=",", metavar="CHAR", help="field separator (default: ',')")
    fit.add_argument(
        "--cuts",
        action="append",
        metavar="NAME=CUT,CUT,...",
        help="your own cut points for a numeric column, e.g. age=40,50,60 (rules age >= 40, ...)",
    )
    fit.add_argument(
        "--rules",
        choices=("auto", "always", "never"),
        default="auto",
        help="turn columns into 0/1 rules (round cut points, levels, 'missing'): auto (default) "
        "when a column is not 0/1 (numbers, text, empty cells) or --cuts is given; always; "
        "never (the paper's raw-number cards)",
    )
    _add_spec_options(fit)
    _add_group_options(fit)
    _add_solver_options(fit)
    _add_output_options(fit)
    fit.set_defaults(handler=cmd_fit)

    demo = sub.add_parser(
        "demo",
        allow_abbrev=False,
        help="fit the bundled breast cancer demo (no download)",
        description="Fit scikit-learn's bundled breast cancer data, binarized (no download).",
    )
    _add_spec_options(demo, demo=True)
    _add_solver_options(demo, demo=True)
    _add_output_options(demo)
    demo.set_defaults(handler=cmd_demo)

    show = sub.add_parser(
        "show",
        allow_abbrev=False,
        help="print a card saved with --json",
        description="Reload a card saved with --json and print it.",
    )
    show.add_argument("card", metavar="CARD.json")
    show.add_argument(
        "--no-verify", action="store_true", help="load the card even if its checksum does not match"
    )
    _add_output_options(show, json_option=False)
    show.set_defaults(handler=cmd_show)
    _add_report_parser(sub)
    return parser


def _join_negative_ranges(argv: list[str]) -> list[str]:
    """argparse reads ``--coef-range -5:5`` as two options; glue such values to their option."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            out.extend(argv[i:])
            break
        if (
            arg in _RANGE_OPTIONS
            and i + 1 < len(argv)
            and argv[i + 1].startswith("-")
            and argv[i + 1][1:2].isdigit()
        ):
            out.append(f"{arg}={argv[i + 1]}")
            i += 2
            continue
        out.append(arg)
        i += 1
    return out


def _message(exc: BaseException) -> str:
    # str(KeyError("x")) is "'x'": use the argument itself
    if isinstance(exc, KeyError) and exc.args:
        return str(exc.args[0])
    if isinstance(exc, OSError) and exc.strerror and exc.filename:
        return f"{exc.filename}: {exc.strerror}"
    return str(exc) or type(exc).__name__


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 infeasible, 2
    user error, 130 Ctrl-C)."""
    from .fitting.errors import InfeasibleError, NoSolutionError
    from .solvers.base import SolverError

    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args = parser.parse_args(_join_negative_ranges(argv))
    except SystemExit as exc:  # --help, --version and usage errors (argparse already printed)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_USAGE)
    try:
        return args.handler(args)
    except InfeasibleError as exc:
        print(f"{PROG}: error: {_message(exc)}", file=sys.stderr)
        return EXIT_INFEASIBLE
    except (NoSolutionError, SolverError) as exc:
        print(f"{PROG}: error: {_message(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # e.g. piped into `head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_INFEASIBLE
    except (ValueError, TypeError, KeyError, OSError) as exc:
        print(f"{PROG}: error: {_message(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def run() -> None:
    """The ``slimwidgets`` command (and ``python -m slimwidgets``): :func:`main`, then the
    process ends at once with its exit code.

    The interpreter's own teardown after the output (freeing numba's compiled kernels,
    scikit-learn, pandas, ...) took 0.5-1.7 s, so a Ctrl-C printed its card at once but the
    process lingered. Nothing in that teardown matters once the output is flushed and the exit
    handlers have run (they kill and reap the solver children), so it is skipped.
    """
    code = main()
    atexit._run_exitfuncs()  # what the interpreter would run first: the children are reaped here
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (e.g. into `head`): nothing more to say
            pass
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    run()
