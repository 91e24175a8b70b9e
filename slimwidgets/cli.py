"""The ``slimwidgets`` command line: fit a card from a CSV, fit the demo, show a saved card.

Usage (``slimwidgets <command> --help`` lists every option)::

    slimwidgets fit data.csv --target Y --max-size 5 --sign age=+ --json card.json
    slimwidgets demo
    slimwidgets show card.json --format markdown

User errors (a missing file, an unknown column, a malformed option value,
unusable data) print ``slimwidgets: error: <message>`` on stderr and exit
with code 2; constraints that no card can satisfy exit with code 1 and name
the clashing constraints. Only the standard library's ``argparse`` is used.

``fit`` and ``demo`` stop at a time limit (60 s and 30 s unless given), print
their progress to stderr (the best card so far and what is proven, at most one
line a second), and stop within a second on Ctrl-C: the best card found is
printed with status "interrupted", ``--json`` is written, and the exit code
is 130. A second Ctrl-C stops at once, without a card.
"""

from __future__ import annotations

import argparse
import atexit
import csv
import difflib
import os
import io
import json
import math
import re
import signal
import sys
import threading
import time
import warnings
from pathlib import Path
from typing import Any, Callable, Sequence

from .core.status import degeneracy, describe, details_text

__all__ = ["main", "run", "build_parser"]

PROG = "slimwidgets"
FORMATS = ("text", "markdown", "html", "latex", "python", "sql")
# Formats whose output is code or markup: when printed to stdout, the status
# line goes to stderr so that stdout stays valid (pipe it straight to a file).
_CODE_FORMATS = ("html", "latex", "python", "sql")
_RANGE_OPTIONS = ("--coef-range", "--intercept-range")
_RANGE_RE = re.compile(r"^\s*([+-]?\d+)\s*:\s*([+-]?\d+)\s*$")

EXIT_OK, EXIT_INFEASIBLE, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 128 + signal.SIGINT  # 130, as a shell reports a command stopped by Ctrl-C
DEFAULT_TIME_LIMIT, DEMO_TIME_LIMIT = 60.0, 30.0
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


def _assignments(items: Sequence[str] | None, option: str, convert: Callable[[str, str], Any]) -> dict[str, Any]:
    """Repeated ``NAME=VALUE`` options -> {name: converted value}; the same name twice must agree."""
    out: dict[str, Any] = {}
    for item in items or ():
        name, raw = _split_assignment(item, option)
        value = convert(raw, f"{option} {item!r}")
        if name in out and out[name] != value:
            raise CliError(f"{option} gives {name!r} two different values: {out[name]!r} and {value!r}")
        out[name] = value
    return out


def _sign_value(raw: str, what: str) -> str:
    aliases = {"+": "+", "pos": "+", "positive": "+", "-": "-", "neg": "-", "negative": "-", "free": "free"}
    try:
        return aliases[raw.lower()]
    except KeyError:
        raise CliError(f"{what}: the sign must be '+', '-' or 'free', got {raw!r}") from None


def _int_value(raw: str, what: str) -> int:
    try:
        return int(raw)
    except ValueError:
        raise CliError(f"{what}: points must be a whole number, got {raw!r}") from None


def _float_value(raw: str, what: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise CliError(f"{what}: expected a number, got {raw!r}") from None
    if not math.isfinite(value):
        raise CliError(f"{what}: expected a finite number, got {raw!r}")
    return value


def _range_value(raw: str, what: str) -> tuple[int, int]:
    match = _RANGE_RE.match(raw)
    if not match:
        raise CliError(f"{what}: expected LOW:HIGH with whole numbers (e.g. -5:5), got {raw!r}")
    lo, hi = int(match.group(1)), int(match.group(2))
    if lo > hi:
        raise CliError(f"{what}: the range is empty (low {lo} > high {hi})")
    return lo, hi


def _coef_ranges(items: Sequence[str] | None) -> tuple[tuple[int, int] | None, dict[str, tuple[int, int]]]:
    """``--coef-range LO:HI`` (every feature) and ``--coef-range NAME=LO:HI`` (one feature)."""
    global_range: tuple[int, int] | None = None
    per_feature: dict[str, tuple[int, int]] = {}
    for item in items or ():
        if "=" in item:
            per_feature.update(_assignments([item], "--coef-range", _range_value))
            continue
        value = _range_value(item, f"--coef-range {item!r}")
        if global_range is not None and value != global_range:
            raise CliError(f"--coef-range is given twice for all features: {global_range} and {value}")
        global_range = value
    return global_range, per_feature


def _checked(convert, ok, expected: str):
    """An argparse type: ``convert`` the text, then require ``ok(value)``."""

    def parse(text: str):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
        if not ok(value):
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
        return value

    return parse


_fraction = _checked(float, lambda v: 0 <= v <= 1, "a number between 0 and 1")
_nonneg_int = _checked(int, lambda v: v >= 0, "a whole number >= 0")
_positive_float = _checked(float, lambda v: math.isfinite(v) and v > 0, "a number of seconds > 0")


def _nonneg_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}") from None
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}")
    return value


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
        raise CliError(f"{where} has duplicate column names {dupes}; every column needs its own name")
    try:
        frame = pd.read_csv(io.StringIO(text), sep=sep)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise CliError(f"{where} could not be read as CSV: {str(exc).strip()}") from None
    if frame.shape[0] == 0:
        raise CliError(f"{where} has a header but no data rows")
    return frame


def _plain(value: Any) -> Any:
    """numpy scalar -> Python scalar (for messages and JSON)."""
    return value.item() if hasattr(value, "item") and not isinstance(value, (str, bytes)) else value


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

    present = [_plain(v) for v in pd.unique(labels.dropna())]
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


def _unknown_column(name: str, columns: Sequence[str], path: str, option: str = "--target") -> CliError:
    close = difflib.get_close_matches(name, list(columns), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    shown = ", ".join(repr(c) for c in list(columns)[:12]) + (", ..." if len(columns) > 12 else "")
    return CliError(f"{option} {name!r} is not a column of {path}{hint}; its columns: {shown}")


# -- options -> fit keyword arguments ---------------------------------------------------------
def _spec_options(args: argparse.Namespace) -> dict[str, Any]:
    """The engine options given on the command line (only those given, so defaults stay the engine's)."""
    opts: dict[str, Any] = {}
    for attr in ("max_fpr", "min_tpr", "max_size", "C0", "time_limit", "solver", "gap", "zero_score", "loss", "scale"):
        value = getattr(args, attr, None)
        if value is not None:
            opts[attr] = value
    signs = _assignments(getattr(args, "sign", None), "--sign", _sign_value)
    if signs:
        opts["signs"] = signs
    lock = _assignments(getattr(args, "lock", None), "--lock", _int_value)
    if lock:
        opts["lock"] = lock
    penalties = _assignments(getattr(args, "penalty", None), "--penalty", _float_value)
    if penalties:
        opts["penalties"] = penalties
    if getattr(args, "exclude", None):
        opts["exclude"] = list(dict.fromkeys(args.exclude))
    if getattr(args, "require", None):
        opts["require"] = list(dict.fromkeys(args.require))
    global_range, per_feature = _coef_ranges(getattr(args, "coef_range", None))
    if global_range is not None:
        opts["coef_range"] = global_range
    if per_feature:
        opts["coef_ranges"] = per_feature
    if getattr(args, "intercept_range", None) is not None:
        opts["intercept_range"] = _range_value(args.intercept_range, f"--intercept-range {args.intercept_range!r}")
    opts.update(_group_options(args))
    return opts


# -- group fairness (issue 22): BEGIN CLI block ---------------------------------------------------
def _group_options(args: argparse.Namespace) -> dict[str, Any]:
    """--max-tpr-gap, --max-fpr-gap, and --max-fpr-by-group / --min-tpr-by-group: one FRACTION
    for every group, or GROUP=FRACTION (repeated) per group."""
    opts: dict[str, Any] = {}
    for attr in ("max_tpr_gap", "max_fpr_gap"):
        if getattr(args, attr, None) is not None:
            opts[attr] = getattr(args, attr)
    for attr in ("max_fpr_by_group", "min_tpr_by_group"):
        items = getattr(args, attr, None)
        if not items:
            continue
        option = "--" + attr.replace("_", "-")
        if len(items) == 1 and "=" not in items[0]:
            opts[attr] = _float_value(items[0], option)
        else:
            opts[attr] = _assignments(items, option, _float_value)
    if opts and getattr(args, "sensitive", None) is None:
        raise CliError(f"{', '.join('--' + k.replace('_', '-') for k in opts)} need --sensitive COLUMN "
                       "(the column that holds each row's group)")
    return opts


def _add_group_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("group fairness", "caps and gaps between the groups of one column (exact, proven)")
    g.add_argument("--sensitive", metavar="COLUMN",
                   help="the column of each row's group (sex, site); a text column is not a feature")
    g.add_argument("--max-tpr-gap", dest="max_tpr_gap", type=_fraction, metavar="FRACTION",
                   help="largest difference between two groups' TPR")
    g.add_argument("--max-fpr-gap", dest="max_fpr_gap", type=_fraction, metavar="FRACTION",
                   help="largest difference between two groups' FPR")
    g.add_argument("--max-fpr-by-group", dest="max_fpr_by_group", action="append", metavar="FRACTION|GROUP=FRACTION",
                   help="FPR cap in every group, or in one group (repeat)")
    g.add_argument("--min-tpr-by-group", dest="min_tpr_by_group", action="append", metavar="FRACTION|GROUP=FRACTION",
                   help="TPR floor in every group, or in one group (repeat)")
# -- group fairness: END ----------------------------------------------------------------------------


def _named_features(opts: dict[str, Any]) -> dict[str, list[str]]:
    named = {
        "--sign": list(opts.get("signs", {})),
        "--lock": list(opts.get("lock", {})),
        "--penalty": list(opts.get("penalties", {})),
        "--exclude": list(opts.get("exclude", [])),
        "--require": list(opts.get("require", [])),
        "--coef-range": list(opts.get("coef_ranges", {})),
    }
    return {k: v for k, v in named.items() if v}


def _check_names(opts: dict[str, Any], features: Sequence[str], target: str) -> None:
    """Unknown feature names in options, with a hint; caught here to name the CLI option."""
    known = set(features)
    for option, names in _named_features(opts).items():
        for name in names:
            if name == target:
                raise CliError(f"{option} names {name!r}, which is the target column, not a feature")
            if name not in known:
                close = difflib.get_close_matches(name, list(features), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise CliError(f"{option} names an unknown feature {name!r}{hint}")


# -- output -------------------------------------------------------------------------------------
def status_line(card) -> str:
    """What the card is and what is proven about it, in the user's units (one line)."""
    return f"status: {describe(card).headline}"


def details_line(card) -> str:
    """The solver's raw figures (status word, objective, bound, gap, time), labelled as such."""
    return f"details: {details_text(describe(card))}"


def render(card, fmt: str) -> str:
    renderers = {
        "text": card.to_text, "markdown": card.to_markdown, "html": card.to_html,
        "latex": card.to_latex, "python": card.to_python, "sql": card.to_sql,
    }
    return renderers[fmt]()


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
    problem = degeneracy(card)
    if problem is not None:  # fit's DegenerateCardWarning, said once, for fitted and loaded cards
        print(f"{PROG}: warning: the card {problem}", file=sys.stderr)
    if json_path:
        print(f"card JSON written to {json_path}", file=sys.stderr if not args.out and args.format in _CODE_FORMATS else sys.stdout)


class _Progress:
    """Progress on stderr while a fit runs: the best card so far in the user's units and what
    is proven about it, at most one line every ``PROGRESS_EVERY`` seconds and none in the first
    one. The solver threads report; the main thread prints (``tick``)."""

    def __init__(self, data, spec, stream=None):
        import numpy as np

        from .core.formulation import build_formulation
        from .core.status import limit_scale

        self.data, self.spec, self.stream = data, spec, stream or sys.stderr
        self.labels = np.where(data.y == 1, data.positive, data.negative)
        # how a bound reads in the user's units, as fit stores it on its cards
        scale = limit_scale(build_formulation(data, spec))
        self.limits = None if scale is None else scale.to_dict()
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
        print(f"{PROG}: {now - self.t0:.1f} s · best so far: {self.describe(inc, bound)}", file=self.stream, flush=True)

    def describe(self, inc, bound: float) -> str:
        """The headline of the card found so far, in the same words as the final card's."""
        from dataclasses import replace

        from .core.scoring import ScoringSystem
        from .core.status import describe
        from .solvers.base import relative_gap

        bound = min(bound, inc.objective) if math.isfinite(bound) else None
        card = ScoringSystem(
            self.data.feature_names, tuple(int(c) for c in inc.coefficients), int(inc.intercept),
            positive=self.data.positive, negative=self.data.negative, status="feasible",
            objective=inc.objective, bound=bound, gap=None if bound is None else relative_gap(inc.objective, bound),
            solve_time=time.perf_counter() - self.t0, spec=self.spec, binary=tuple(self.data.binary),
            positive_name=self.data.positive_name, details={"limits": self.limits}, zero_score=self.spec.zero_score,
        )
        card = replace(card, train_metrics=card.metrics(self.data.X, self.labels, sample_weight=self.data.weight))
        return describe(card).headline


def _solve_interruptibly(data, spec, progress: _Progress | None, started: float):
    """fit_dataset on a thread, so that Ctrl-C (SIGINT) reaches the main thread at once while
    the solver runs in compiled code: the first one sets ``cancel`` (the fit returns its best
    card, "interrupted"), a second raises KeyboardInterrupt. Returns (card, interrupted)."""
    from .fitting.driver import fit_dataset

    cancel, box = threading.Event(), {}

    def work() -> None:
        try:
            box["card"] = fit_dataset(data, spec, cancel=cancel, _started=started,
                                      on_incumbent=None if progress is None else progress.on_incumbent,
                                      on_bound=None if progress is None else progress.on_bound)
        except BaseException as exc:  # noqa: BLE001 - raised again on the main thread
            box["error"] = exc

    def on_sigint(signum, frame) -> None:
        if cancel.is_set():
            raise KeyboardInterrupt
        cancel.set()
        print(f"{PROG}: interrupted: stopping with the best card found (Ctrl-C again to quit at once)",
              file=sys.stderr, flush=True)

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


def _fit_with_warnings(X, y, *, quiet: bool = False, positive: Any = None, sensitive_features: Any = None,
                       **options):
    """Fit with progress and Ctrl-C handling, reporting the engine's data and box warnings as
    one-line messages, not source locations. Returns (card, interrupted)."""
    import slimwidgets as sw
    from .core.data import prepare_data
    from .fitting.driver import _warm_up

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", sw.DataWarning)
        warnings.simplefilter("ignore", sw.DegenerateCardWarning)  # _emit says it, also for 'show'
        warnings.simplefilter("always", sw.BoxWarning)
        try:
            _warm_up()  # a first compile is announced, and not charged to the time limit
            started = time.perf_counter()
            data = prepare_data(X, y, positive=positive, sensitive_features=sensitive_features)
            spec = sw.make_spec(**options)
            return _solve_interruptibly(data, spec, None if quiet else _Progress(data, spec), started)
        finally:
            for w in caught:
                if issubclass(w.category, (sw.DataWarning, sw.BoxWarning)):
                    print(f"{PROG}: warning: {w.message}", file=sys.stderr)
                else:
                    warnings.showwarning(w.message, w.category, w.filename, w.lineno)


# -- commands -------------------------------------------------------------------------------------
def cmd_fit(args: argparse.Namespace) -> int:
    opts = _spec_options(args)
    _check_writable(args.out, args.json)
    frame = read_csv(args.data, sep=args.sep)
    columns = [str(c) for c in frame.columns]
    frame.columns = columns
    if args.target not in columns:
        raise _unknown_column(args.target, columns, args.data)
    y = frame[args.target]
    n_missing = int(y.isna().sum())
    if n_missing:
        raise CliError(f"the target column {args.target!r} has {n_missing} empty cell(s); every row needs a label")
    if y.nunique() < 2:
        raise CliError(
            f"the target column {args.target!r} has only one value ({_plain(y.iloc[0])!r}); "
            "a classifier needs rows of both classes"
        )
    X = frame.drop(columns=[args.target])
    if args.sensitive is not None and args.sensitive not in X.columns:  # group fairness (issue 22)
        raise _unknown_column(args.sensitive, columns, args.data, "--sensitive")
    if X.shape[1] == 0:
        raise CliError(f"{args.data} has no feature columns besides the target {args.target!r}")
    _check_names(opts, [str(c) for c in X.columns], args.target)
    positive = None if args.positive is None else _match_label(args.positive, y, args.target)
    opts.setdefault("time_limit", DEFAULT_TIME_LIMIT)
    card, interrupted = _fit_with_warnings(X, y, positive=positive, quiet=args.quiet,
                                           sensitive_features=args.sensitive, **opts)
    _emit(card, args)
    return EXIT_INTERRUPTED if interrupted else EXIT_OK


def cmd_demo(args: argparse.Namespace) -> int:
    from .datasets import load_demo

    opts = _spec_options(args)
    _check_writable(args.out, args.json)
    X, y = load_demo()
    opts.setdefault("max_size", 5)
    opts.setdefault("time_limit", DEMO_TIME_LIMIT)
    _check_names(opts, list(X.columns), str(y.name))
    card, interrupted = _fit_with_warnings(X, y, quiet=args.quiet, **opts)
    _emit(card, args)
    return EXIT_INTERRUPTED if interrupted else EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    from .core.scoring import ScoringSystem

    _check_writable(args.out)
    path = Path(args.card)
    if not path.exists():
        raise FileNotFoundError(f"{args.card}: no such file")
    if path.is_dir():
        raise CliError(f"{args.card} is a directory, not a card JSON file")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise CliError(f"{args.card} is not UTF-8 text ({exc.reason})") from None
    except json.JSONDecodeError as exc:
        raise CliError(f"{args.card} is not valid JSON: {exc}") from None
    try:
        card = ScoringSystem.from_dict(data, verify=not args.no_verify)
    except ValueError as exc:
        message = str(exc)
        if "checksum" in message:
            message = f"{args.card}: its content does not match its checksum (edited after export?); use --no-verify to load it anyway"
        raise CliError(f"{args.card}: {message}" if not message.startswith(args.card) else message) from None
    _emit(card, args)
    return EXIT_OK


# -- the parser ---------------------------------------------------------------------------------
def _add_output_options(p: argparse.ArgumentParser, *, json_option: bool = True) -> None:
    g = p.add_argument_group("output")
    g.add_argument("--format", choices=FORMATS, default="text",
                   help="how to print the card (default: text). For html/latex/python/sql printed to stdout "
                        "the status line goes to stderr, so stdout stays valid code")
    g.add_argument("--out", metavar="FILE", help="write the card to FILE instead of stdout")
    if json_option:
        g.add_argument("--json", metavar="FILE", help="also write the card as JSON (reload it with 'slimwidgets show')")


def _add_solver_options(p: argparse.ArgumentParser, *, demo: bool = False) -> None:
    g = p.add_argument_group("solver")
    g.add_argument("--time-limit", dest="time_limit", type=_positive_float, metavar="SECONDS",
                   help="stop after SECONDS and print the best card found, with what is proven about it "
                        f"(default: {DEMO_TIME_LIMIT if demo else DEFAULT_TIME_LIMIT:g}); Ctrl-C stops earlier "
                        "the same way (status 'interrupted', exit code 130)")
    g.add_argument("--solver", choices=("auto", "highs", "cbc", "enumerate", "scan"), help="auto (default): enumerate small boxes, else HiGHS")
    g.add_argument("--gap", type=_fraction, metavar="FRACTION",
                   help="stop when the relative optimality gap is at most FRACTION (default: 0, prove optimality)")
    g.add_argument("--quiet", action="store_true",
                   help="print no progress lines on stderr while solving")


def _add_spec_options(p: argparse.ArgumentParser, *, demo: bool = False) -> None:
    g = p.add_argument_group("the scoring system",
                             "options naming a feature repeat; NAME=VALUE is split on the last '=' "
                             "so feature names may contain '='")
    g.add_argument("--max-size", dest="max_size", type=_nonneg_int, metavar="K",
                   help="use at most K features" + (" (default: 5)" if demo else ""))
    g.add_argument("--max-fpr", dest="max_fpr", type=_fraction, metavar="FRACTION",
                   help="false positive rate at most FRACTION on the training data")
    g.add_argument("--min-tpr", dest="min_tpr", type=_fraction, metavar="FRACTION",
                   help="true positive rate at least FRACTION on the training data")
    g.add_argument("--C0", dest="C0", type=_nonneg_float, metavar="C",
                   help="accuracy traded for one fewer feature (default: the engine's automatic value)")
    g.add_argument("--sign", action="append", metavar="NAME=SIGN", help="points of NAME must be + or - (or free)")
    g.add_argument("--exclude", action="append", metavar="NAME", help="never use feature NAME")
    g.add_argument("--require", action="append", metavar="NAME", help="always use feature NAME")
    g.add_argument("--lock", action="append", metavar="NAME=POINTS", help="fix the points of NAME")
    g.add_argument("--penalty", action="append", metavar="NAME=C",
                   help="cost of using NAME, replacing C0 for that feature")
    g.add_argument("--coef-range", dest="coef_range", action="append", metavar="LO:HI|NAME=LO:HI",
                   help="allowed points, for every feature (LO:HI, default -10:10) or one feature (NAME=LO:HI)")
    g.add_argument("--intercept-range", dest="intercept_range", metavar="LO:HI",
                   help="allowed intercept (minus the threshold); default: derived from the data, "
                        "wide enough never to limit the card")
    g.add_argument("--zero-score", dest="zero_score", choices=("positive", "error"),
                   help="what a total exactly at the threshold predicts: positive (default: the card says "
                        "'SCORE >= T') or error (the paper's rule: a zero total is an error, 'SCORE > T')")
    g.add_argument("--loss", choices=("zero_one", "logistic"),
                   help="zero_one (default): a decision card; logistic: a risk card, with its predicted risk per score")
    g.add_argument("--no-scale", dest="scale", action="store_const", const=False,
                   help="risk cards: no real multiplier (risk = 1/(1+exp(-score)), RiskSLIM's model)")


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(
        prog=PROG, allow_abbrev=False,
        description="Learn exactly optimized integer scoring systems (SLIM) from the command line.",
        epilog="exit codes: 0 success, 1 no scoring system meets the constraints, 2 usage or data error, "
               "130 interrupted by Ctrl-C (the best card found is printed)",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    fit = sub.add_parser("fit", allow_abbrev=False, help="learn a card from a CSV file",
                         description="Learn a scoring system from a CSV: --target is y, every other column a numeric feature.")
    fit.add_argument("data", metavar="DATA.csv", help="CSV file with a header row ('-' reads stdin)")
    fit.add_argument("--target", required=True, metavar="COLUMN", help="the label column (two classes)")
    fit.add_argument("--positive", metavar="LABEL",
                     help="the label to predict (default: the larger label, e.g. 1 or True)")
    fit.add_argument("--sep", default=",", metavar="CHAR", help="field separator (default: ',')")
    _add_spec_options(fit)
    _add_group_options(fit)
    _add_solver_options(fit)
    _add_output_options(fit)
    fit.set_defaults(handler=cmd_fit)

    demo = sub.add_parser("demo", allow_abbrev=False, help="fit the bundled breast cancer demo (no download)",
                          description="Fit scikit-learn's bundled breast cancer data, binarized (no download).")
    _add_spec_options(demo, demo=True)
    _add_solver_options(demo, demo=True)
    _add_output_options(demo)
    demo.set_defaults(handler=cmd_demo)

    show = sub.add_parser("show", allow_abbrev=False, help="print a card saved with --json",
                          description="Reload a card saved with --json and print it.")
    show.add_argument("card", metavar="CARD.json")
    show.add_argument("--no-verify", action="store_true", help="load the card even if its checksum does not match")
    _add_output_options(show, json_option=False)
    show.set_defaults(handler=cmd_show)
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
        if arg in _RANGE_OPTIONS and i + 1 < len(argv) and argv[i + 1].startswith("-") and argv[i + 1][1:2].isdigit():
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
    """Run the command line; returns the exit code (0 ok, 1 infeasible, 2 user error, 130 Ctrl-C)."""
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
