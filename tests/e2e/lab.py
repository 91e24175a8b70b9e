"""Helpers of the browser tests: a JupyterLab (or Notebook 7) server, a kernel
client, offline Chromium."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts" / "e2e"
CHROMIUM = os.environ.get("SLIMWIDGETS_CHROMIUM", "/usr/bin/chromium")
#: the window widths every studio layout is checked and photographed at, and the window height
WIDTHS = (800, 1000, 1280, 1600)
HEIGHT = 1000
#: a notebook cell's first lines: a small raw clinical table X, y (numbers, a category)
RAW_COLUMNS = """\
import numpy as np, pandas as pd
from slimwidgets.widgets import Studio
rng = np.random.default_rng(0)
n = 240
X = pd.DataFrame({"age": rng.integers(30, 85, n), "bmi": np.round(rng.normal(28, 5, n), 1),
                  "sex": rng.choice(["F", "M"], n)})
y = ((X.age > 62) | ((X.sex == "M") & (rng.random(n) < 0.4)) | (X.bmi > 34)).astype(int)
"""
#: the same table with a tenth of its BMI values missing
RAW_TABLE = (
    RAW_COLUMNS
    + """X.loc[rng.random(n) < 0.1, "bmi"] = np.nan
"""
)
SETUP_HINT = (
    "run `bash scripts/setup_browser_tests.sh` (installs Debian's chromium, builds the "
    "front-end bundle)"
)
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--metrics-recording-only",
    "--mute-audio",
    # offline for sure: no host name resolves except the local server's
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def notebook(cells: list[str]) -> dict:
    return {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "id": uuid.uuid4().hex[:8],
                "metadata": {},
                "outputs": [],
                "source": src,
            }
            for src in cells
        ],
        "metadata": {
            "kernelspec": {
                "display_name": "Python 3 (ipykernel)",
                "language": "python",
                "name": "python3",
            },
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


# the front ends start_lab can serve: (python -m module, name in messages, log
# file, page of a notebook)
APPS = {
    "lab": ("jupyterlab", "JupyterLab", "jupyterlab.log", "/lab/tree/{}"),
    "notebook": ("notebook", "Jupyter Notebook", "notebook7.log", "/notebooks/{}"),
}


@dataclass
class LabServer:
    url: str
    root: Path
    proc: subprocess.Popen
    log: Path
    app: str = "lab"

    def notebook_url(self, notebook_path: str) -> str:
        """The page that opens ``notebook_path`` (relative to the root) in
        this server's front end."""
        return self.url + APPS[self.app][3].format(notebook_path)

    def get(self, path: str):
        with urllib.request.urlopen(self.url + path, timeout=10) as r:
            return json.loads(r.read())

    def kernel_id(self, notebook_path: str, timeout: float = 60) -> str:
        end = time.monotonic() + timeout
        sessions = []
        while time.monotonic() < end:
            sessions = self.get("/api/sessions")
            for s in sessions:
                if s.get("path") == notebook_path and s.get("kernel"):
                    return s["kernel"]["id"]
            time.sleep(0.2)
        raise TimeoutError(
            f"no kernel for {notebook_path} (sessions: {sessions}); server log: {self.log}"
        )

    def stop_kernel(self, kernel_id: str, timeout: float = 20) -> None:
        """Stop one kernel (``DELETE /api/kernels/ID``): a test's kernel goes with the test, so
        its studio's threads take no machine from the tests after it."""
        if self.proc.poll() is not None:
            return  # the server is down (a test shut it down), its kernels with it
        req = urllib.request.Request(self.url + f"/api/kernels/{kernel_id}", method="DELETE")
        try:
            urllib.request.urlopen(req, timeout=timeout).close()
        except urllib.error.HTTPError as exc:
            if exc.code != 404:  # 404: already gone
                raise

    def shutdown(self, timeout: float = 20) -> int:
        """Shut down through ``POST /api/shutdown`` (which stops its kernels
        first); return the exit code.

        Falls back to :meth:`stop` when the server does not exit within ``timeout`` s.
        """
        if self.proc.poll() is None:
            req = urllib.request.Request(self.url + "/api/shutdown", data=b"", method="POST")
            try:
                urllib.request.urlopen(req, timeout=timeout).close()
            except OSError:
                pass  # the server may drop the connection as it goes
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.stop()
        return self.proc.returncode

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.terminate()
                try:
                    self.proc.wait(5)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait(5)


def start_lab(
    root: Path,
    env: dict | None = None,
    timeout: float = 90,
    app: str = "lab",
    log_name: str | None = None,
) -> LabServer:
    """Start ``jupyter lab`` (``app="lab"``) or Notebook 7
    (``app="notebook"``) on 127.0.0.1, no token.

    The server's output goes to ``ARTIFACTS / log_name`` (by default
    jupyterlab.log or notebook7.log).
    """
    module, name, default_log, _ = APPS[app]
    port = free_port()
    state = root.parent / (root.name + "-state")
    for sub in ("config", "data-runtime", "workspaces", "settings"):
        (state / sub).mkdir(parents=True, exist_ok=True)
    full_env = {
        **os.environ,
        **(env or {}),
        "JUPYTER_CONFIG_DIR": str(state / "config"),
        "JUPYTER_RUNTIME_DIR": str(state / "data-runtime"),
        "PYTHONUNBUFFERED": "1",
    }
    # no "get notified about Jupyter news?" toast over the page (Notebook 7 reads the same file)
    (state / "config" / "labconfig").mkdir(parents=True, exist_ok=True)
    (state / "config" / "labconfig" / "page_config.json").write_text(
        json.dumps({"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}})
    )
    log = ARTIFACTS / (log_name or default_log)
    log.parent.mkdir(parents=True, exist_ok=True)
    # Notebook 7 loads the jupyterlab server extension too: the LabApp options hold for both
    front = "LabApp" if app == "lab" else "JupyterNotebookApp"
    cmd = [
        sys.executable,
        "-m",
        module,
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={root}",
        "--IdentityProvider.token=",
        "--ServerApp.password=",
        "--ServerApp.open_browser=False",
        "--ServerApp.disable_check_xsrf=True",
        f"--{front}.workspaces_dir={state / 'workspaces'}",
        f"--{front}.user_settings_dir={state / 'settings'}",
        "--LabApp.news_url=",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    fh = open(log, "w")
    proc = subprocess.Popen(
        cmd, cwd=root, env=full_env, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True
    )
    server = LabServer(f"http://127.0.0.1:{port}", root, proc, log, app)
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(
                f"{name} exited ({proc.returncode}); see {log}:\n{log.read_text()[-3000:]}"
            )
        try:
            server.get("/api/status")
            return server
        except OSError:
            time.sleep(0.25)
    server.stop()
    raise TimeoutError(f"{name} did not answer within {timeout} s; see {log}")


class Kernel:
    """Runs code in a notebook's kernel over the server's websocket (beside the
    page's own connection)."""

    def __init__(self, server: LabServer, kernel_id: str):
        import websocket

        self.kernel_id = kernel_id
        self.session = uuid.uuid4().hex
        url = (
            server.url.replace("http://", "ws://")
            + f"/api/kernels/{kernel_id}/channels?session_id={self.session}"
        )
        self.ws = websocket.create_connection(url, timeout=120)
        self.stderr: list[
            str
        ] = []  # what the kernel wrote to stderr (warnings) while running our code

    def run(self, code: str, timeout: float = 120) -> str:
        """Execute ``code``; returns its stdout; raises with the traceback on error."""
        msg_id = uuid.uuid4().hex
        msg = {
            "header": {
                "msg_id": msg_id,
                "username": "e2e",
                "session": self.session,
                "msg_type": "execute_request",
                "version": "5.3",
                "date": "",
            },
            "parent_header": {},
            "metadata": {},
            "channel": "shell",
            "content": {
                "code": code,
                "silent": False,
                "store_history": False,
                "user_expressions": {},
                "allow_stdin": False,
                "stop_on_error": True,
            },
        }
        self.ws.send(json.dumps(msg))
        out, error, idle, replied = [], None, False, False
        end = time.monotonic() + timeout
        while not (idle and replied):
            reply = self._next_message(end, code, idle, replied)
            if reply is None or reply.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind = reply["header"]["msg_type"]
            content = reply["content"]
            if kind == "stream":  # a warning (stderr) is not part of the result
                (out if content.get("name") == "stdout" else self.stderr).append(content["text"])
            elif kind == "error":
                error = "\n".join(content.get("traceback", [])) or content.get("evalue")
            elif kind == "status" and content.get("execution_state") == "idle":
                idle = True
            elif kind == "execute_reply":
                replied = True
        if error:
            raise AssertionError(f"kernel error running {code[:200]!r}:\n{error}")
        return "".join(out)

    def _next_message(self, end: float, code: str, idle: bool, replied: bool) -> dict | None:
        """The next kernel message, or None for a control frame; a TimeoutError past ``end``.

        The server pings every 30 s, and websocket-client's ``recv`` answers pings inside its
        own loop, each socket read restarting the socket timeout: a reply that never comes
        kept ``recv`` waiting forever. Control frames are returned here, so the deadline is
        checked between any two frames.
        """
        import websocket

        left = end - time.monotonic()
        if left <= 0:
            raise TimeoutError(
                f"kernel call unanswered after its timeout (execute_reply "
                f"{'received' if replied else 'missing'}, idle status "
                f"{'received' if idle else 'missing'}): {code[:200]}"
            )
        self.ws.settimeout(left)
        try:
            opcode, frame = self.ws.recv_data_frame(True)
        except websocket.WebSocketTimeoutException:
            return None  # the deadline check above raises
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            raise ConnectionError(f"the server closed the kernel's websocket: {code[:200]}")
        if opcode != websocket.ABNF.OPCODE_TEXT:
            return None
        return json.loads(frame.data.decode("utf-8"))

    def value(self, expr: str):
        """The JSON value of an expression evaluated in the kernel."""
        return json.loads(
            self.run(f"import json as _j; print(_j.dumps({expr}))").strip().splitlines()[-1]
        )

    def close(self) -> None:
        self.ws.close()


def have_chromium() -> bool:
    return Path(CHROMIUM).exists() or shutil.which(CHROMIUM) is not None


def card_in_page(page) -> dict:
    """What the card view shows: state, status line, points per feature,
    threshold, spec and metrics."""
    return page.evaluate("""() => {
        const root = document.querySelector('.sw-card-view .sw-card');
        const points = {};
        for (const i of root.querySelectorAll('input.sw-points')) {
          points[i.dataset.feature] = Number(i.value);
        }
        const thr = root.querySelector('.sw-threshold');
        return {state: root.dataset.state,
                status: root.querySelector('.sw-status-text').textContent,
                points, threshold: thr ? Number(thr.value) : null,
                spec: (root.querySelector('.sw-spec') || {}).textContent || '',
                metrics: (root.querySelector('.sw-metrics') || {}).textContent || ''};
    }""")


def open_notebook(
    server: LabServer, page, kernel_for, name: str, cells: list[str] | None = None
) -> Kernel:
    """Open notebook ``name`` (written from ``cells`` first, when given) in a fresh workspace and
    wait for its kernel to be idle; return a client of that kernel."""
    if cells is not None:
        (server.root / name).write_text(json.dumps(notebook(cells)))
    page.goto(server.notebook_url(name) + "?reset")  # no tab of an earlier test in JupyterLab
    page.wait_for_selector(
        ".jp-Notebook .jp-CodeCell .cm-content", timeout=90_000
    )  # a markdown cell's is hidden
    k = kernel_for(name)
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=60_000)
    return k


def run_first_cell(page, ready: str = ".sw-card-view input.sw-points") -> None:
    """Run the notebook's first cell (Shift+Enter) and wait for ``ready`` to appear."""
    page.click(".jp-Notebook .jp-Cell .cm-content")
    page.keyboard.press("Shift+Enter")
    page.wait_for_selector(ready, timeout=90_000)


# What a studio in the kernel is doing, for the message of a wait that timed out.
STUDIO_STATE = (
    "{'status': studio.status, 'state': studio.controller.status.state, "
    "'busy': studio.controller.core.scheduler.busy, 'group': studio.controller.group, "
    "'threads': [t.name for t in studio.controller.threads()]} "
    "if 'studio' in globals() else None"
)


def wait_kernel(k: Kernel, expr: str, timeout: float = 300) -> None:
    """Until ``expr`` is true in the kernel (against a hang only: no speed is measured)."""
    end = time.monotonic() + timeout
    while not k.value(expr):
        if time.monotonic() >= end:
            raise AssertionError(f"timed out waiting for {expr}; the studio: {studio_state(k)}")
        time.sleep(0.2)


def studio_state(k: Kernel) -> str:
    """The kernel's studio as :data:`STUDIO_STATE` reads it, or why it could not be read."""
    try:
        return repr(k.value(STUDIO_STATE))
    except Exception as exc:  # a message for a failure already under way
        return f"unreadable ({exc})"


def side_panel(page, want_open: bool) -> None:
    """Open or close JupyterLab's left side panel (the file browser)."""
    is_open = page.evaluate(
        "() => { const s = document.querySelector('#jp-left-stack');"
        " return !!s && !s.classList.contains('lm-mod-hidden') && s.offsetWidth > 0; }"
    )
    if is_open != want_open:
        page.click(".jp-SideBar.jp-mod-left .lm-TabBar-tab[data-id='filebrowser']")
        page.wait_for_function(
            "w => { const s = document.querySelector('#jp-left-stack');"
            " return (!!s && !s.classList.contains('lm-mod-hidden') && s.offsetWidth > 0) === w; }",
            arg=want_open,
            timeout=10_000,
        )


def scroll_to(page, selector: str, width: int | None = None) -> None:
    """Bring ``selector`` to the top of the notebook (after a resize to ``width`` px, once the
    notebook has re-flowed)."""
    if width is not None:
        page.set_viewport_size({"width": width, "height": HEIGHT})
        page.wait_for_timeout(400)
    page.evaluate("s => document.querySelector(s).scrollIntoView({block: 'start'})", selector)
    page.wait_for_timeout(200)
