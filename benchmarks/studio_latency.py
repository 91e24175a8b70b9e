"""In-browser latency of the studio: from a control change to the updated card.

Starts JupyterLab on 127.0.0.1 and Debian's headless Chromium (offline), renders
the studio on each data set, and moves the max-FPR slider one step at a time with
the keyboard. For each move it times, inside the page (performance.now()):

* first card: the key press until the table shows a card solved for the new position
  (the first incumbent, or the cached card);
* settled: until that card is final (optimal / stopped at time limit);
* proven: until the status line says the card's TPR is the best possible under the new cap
  ("… proven best under this cap"), the promise a clinician acts on;

for new positions (solved: debounce + solve + render) and for positions seen before
(cache hits). Prints median and p95 per data set as a Markdown table.

With ``--switches N`` it then clicks the family switch (decision / risk) N times each way, at
max size 3, 4, ... (so every switch to risk cards is a new solve), and times the click until
the card of the new family is in the table (a risk card: its risk table is drawn) and until it
is settled; switching back to decision cards is a cache hit.

    python benchmarks/studio_latency.py [--moves 10] [--time-limit 5] [--switches 3]
                                        [--datasets breastcancer mammo]

Needs: `bash scripts/setup_browser_tests.sh` and the paper's data
(SLIMWIDGETS_DATA or ../shared/data).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "e2e"))
sys.path.insert(0, str(HERE))

from lab import CHROMIUM, CHROMIUM_ARGS, SETUP_HINT, Kernel, have_chromium, notebook, start_lab  # noqa: E402

MEASURE = """async ({expect, timeout, key}) => {
  const view = document.querySelector('.sw-card-view');
  const handle = document.querySelector('.sw-max-fpr .noUi-handle');
  const spec = () => (view.querySelector('.sw-spec') || {}).textContent || '';
  const state = () => view.querySelector('.sw-card').dataset.state;
  const headline = () => (view.querySelector('.sw-status-text') || {}).textContent || '';
  const t0 = performance.now();
  let first = null;
  let proven = null;
  const done = new Promise((resolve) => {
    const check = () => {
      const now = performance.now() - t0;
      const shown = spec().includes(expect);
      if (first === null && shown) first = now;
      if (proven === null && shown && headline().includes('proven best')) proven = now;
      if (shown && state() !== 'solving') { resolve({first, proven, settled: now}); return true; }
      if (now > timeout) { resolve({first, proven, settled: null}); return true; }
      return false;
    };
    const obs = new MutationObserver(() => { if (check()) obs.disconnect(); });
    obs.observe(view, {subtree: true, childList: true, attributes: true, characterData: true});
    setTimeout(() => { check(); obs.disconnect(); }, timeout + 50);
  });
  handle.focus();
  handle.dispatchEvent(new KeyboardEvent('keydown', {key, bubbles: true}));
  return await done;
}"""


# The family switch: click a button of the toggle, wait for the card of that family.
SWITCH = """async ({family, timeout}) => {
  const view = document.querySelector('.sw-card-view');
  const button = [...document.querySelectorAll('.sw-family button')]
    .find((b) => b.textContent.trim().startsWith(family));
  const shown = () => (family === 'risk') === !!view.querySelector('.sw-risk-table');
  const state = () => view.querySelector('.sw-card').dataset.state;
  const t0 = performance.now();
  let first = null;
  const done = new Promise((resolve) => {
    const check = () => {
      const now = performance.now() - t0;
      if (first === null && shown()) first = now;
      if (first !== null && state() !== 'solving') { resolve({first, settled: now}); return true; }
      if (now > timeout) { resolve({first, settled: null}); return true; }
      return false;
    };
    const obs = new MutationObserver(() => { if (check()) obs.disconnect(); });
    obs.observe(view, {subtree: true, childList: true, attributes: true, characterData: true});
    setTimeout(() => { check(); obs.disconnect(); }, timeout + 50);
  });
  button.click();
  return await done;
}"""


def run_switches(page, k: Kernel, switches: int, time_limit: float) -> dict:
    """Click decision -> risk (a new solve) and back (cached) ``switches`` times."""
    out = {"risk_first": [], "risk_settled": [], "back": [], "statuses": [], "cpu": []}
    cpu = "__import__('time').process_time()"  # the kernel's CPU time, solver threads included
    timeout = 1000 * (time_limit * 3 + 30)
    for i in range(switches):
        k.run(f"studio.controller.update(max_size={3 + i})")
        settle(k)
        before = k.value(cpu)
        r = page.evaluate(SWITCH, {"family": "risk", "timeout": timeout})
        out["risk_first"] += [] if r["first"] is None else [r["first"]]
        out["risk_settled"] += [] if r["settled"] is None else [r["settled"]]
        settle(k)
        out["cpu"].append(1000 * (k.value(cpu) - before))
        out["statuses"].append(k.value("studio.scoring_system.status"))
        r = page.evaluate(SWITCH, {"family": "decision", "timeout": timeout})
        out["back"] += [] if r["settled"] is None else [r["settled"]]
        settle(k)
    return out


def pct(values: list[float], q: float) -> float:
    xs = sorted(values)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def fmt(values: list[float]) -> str:
    if not values:
        return "–"
    return f"{statistics.median(values) / 1000:.2f} s / {pct(values, 0.95) / 1000:.2f} s"


def settle(k: Kernel, timeout: float = 120) -> None:
    end = time.monotonic() + timeout
    while not k.value(
        "not studio.controller.core.scheduler.busy and studio.controller.status.state != 'solving'"
    ):
        if time.monotonic() > end:
            raise TimeoutError("the studio did not settle")
        time.sleep(0.1)


def run_dataset(
    page, server, name: str, moves: int, time_limit: float, start: float, switches: int = 0
) -> dict:
    nb = f"latency_{name}.ipynb"
    (server.root / nb).write_text(
        json.dumps(
            notebook(
                [
                    "import os\nfrom slimwidgets.datasets import load_paper_dataset\nfrom "
                    f"slimwidgets.widgets import Studio\nX, y = load_paper_dataset({name!r}, "
                    "os.environ['SLIMWIDGETS_DATA'])\nstudio = Studio(X, y, "
                    f"max_fpr={start}, time_limit={time_limit}, frontier=False)\nstudio"
                ]
            )
        )
    )
    page.goto(
        f"{server.url}/lab/workspaces/latency-{name}/tree/{nb}"
    )  # a fresh workspace: this notebook only
    page.wait_for_selector(".jp-Notebook .jp-Cell .cm-content", timeout=90_000)
    k = Kernel(server, server.kernel_id(nb))
    try:
        page.click(".jp-Notebook .jp-Cell .cm-content")
        page.keyboard.press("Shift+Enter")
        page.wait_for_selector(".sw-card-view .sw-card .sw-spec", timeout=120_000)
        settle(k)
        page.wait_for_timeout(500)
        out = {
            "new_first": [],
            "new_proven": [],
            "new_settled": [],
            "cached_first": [],
            "statuses": [],
            "unproven": 0,
        }
        value = start
        timeout = 1000 * (time_limit * 3 + 30)
        for _ in range(moves):  # new positions: each one is solved
            value = round(value + 0.01, 2)
            r = page.evaluate(
                MEASURE,
                {
                    "expect": f"max FPR {100 * value:.0f} % ·",
                    "timeout": timeout,
                    "key": "ArrowRight",
                },
            )
            if r["first"] is not None:
                out["new_first"].append(r["first"])
            if r["settled"] is not None:
                out["new_settled"].append(r["settled"])
            if r["proven"] is not None:
                out["new_proven"].append(r["proven"])
            else:
                out["unproven"] += 1
            settle(k)
            out["statuses"].append(k.value("studio.scoring_system.status"))
        for _ in range(moves):  # back over the same positions: cache hits
            value = round(value - 0.01, 2)
            r = page.evaluate(
                MEASURE,
                {
                    "expect": f"max FPR {100 * value:.0f} % ·",
                    "timeout": timeout,
                    "key": "ArrowLeft",
                },
            )
            if r["settled"] is not None:
                out["cached_first"].append(r["settled"])
            settle(k)
        if switches:
            out["switch"] = run_switches(page, k, switches, time_limit)
        k.run("studio.close()")
        return out
    finally:
        k.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--moves", type=int, default=10)
    ap.add_argument("--time-limit", type=float, default=5.0)
    ap.add_argument("--start", type=float, default=0.10, help="max FPR the studio starts at")
    ap.add_argument("--datasets", nargs="+", default=["breastcancer", "mammo"])
    ap.add_argument(
        "--switches", type=int, default=0, help="family switches to risk cards and back to time"
    )
    args = ap.parse_args(argv)
    if not have_chromium():
        print(f"Chromium is not installed at {CHROMIUM}: {SETUP_HINT}", file=sys.stderr)
        return 2
    data = os.environ.get("SLIMWIDGETS_DATA") or str(HERE.parents[1] / "shared" / "data")
    from playwright.sync_api import sync_playwright

    root = Path(tempfile.mkdtemp(prefix="studio-latency-"))
    server = start_lab(root, env={"SLIMWIDGETS_DATA": data})
    rows, switch_rows = [], []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
            )
            for name in args.datasets:
                page = browser.new_page(viewport={"width": 1440, "height": 1100})
                r = run_dataset(
                    page, server, name, args.moves, args.time_limit, args.start, args.switches
                )
                if "switch" in r:
                    sw_ = r["switch"]
                    switch_rows.append(
                        (
                            name,
                            fmt(sw_["risk_first"]),
                            fmt(sw_["risk_settled"]),
                            fmt(sw_["cpu"]),
                            fmt(sw_["back"]),
                            ", ".join(
                                f"{x} ×{sw_['statuses'].count(x)}"
                                for x in sorted(set(sw_["statuses"]))
                            ),
                        )
                    )
                page.close()
                statuses = ", ".join(
                    f"{s} ×{r['statuses'].count(s)}" for s in sorted(set(r["statuses"]))
                )
                proven = f"{fmt(r['new_proven'])} ({args.moves - r['unproven']} of {args.moves})"
                rows.append(
                    (
                        name,
                        fmt(r["new_first"]),
                        proven,
                        fmt(r["new_settled"]),
                        fmt(r["cached_first"]),
                        statuses,
                    )
                )
                print(f"{name}: done ({statuses})", file=sys.stderr)
            browser.close()
    finally:
        server.stop()
    print(
        f"Studio latency, key press on the max-FPR slider -> card in the page; {args.moves} new "
        f"positions and {args.moves} cached ones per data set; time limit "
        f"{args.time_limit:g} s per solve; debounce 0.15 s; {os.cpu_count()} cores, "
        f"{platform.python_version()}, headless Chromium, JupyterLab.\n"
    )
    print(
        '| data set | first card for a new position (median / p95) | "proven best TPR" shown '
        "(median / p95, positions where it was) | settled card (median / p95) | cached "
        "position (median / p95) | final statuses |"
    )
    print("|---|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    if switch_rows:
        print(
            f"\nFamily switch, click -> card in the page; {args.switches} switches to risk cards "
            "(max size 3, 4, ...: each a new solve) and back to decision cards (cached).\n"
        )
        print(
            "| data set | risk card shown, with its risk table (median / p95) | risk card "
            "settled (median / p95) | kernel CPU per risk switch (median / p95) | back to "
            "the decision card (median / p95) | risk cards' final statuses |"
        )
        print("|---|---|---|---|---|---|")
        for row in switch_rows:
            print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
