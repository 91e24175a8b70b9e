#!/usr/bin/env bash
# CI check of the Binder environment (binder/): do its files install the package and run the quickstart?
#
# What repo2docker does, without Docker:
#   1. copy the repository's files (tracked and untracked-but-not-ignored) to a temporary folder;
#   2. create a fresh virtual environment and install binder/requirements.txt into it;
#   3. run binder/postBuild from the copy's root (it must be executable, as repo2docker runs it directly);
#   4. check that the installed package (not the source tree) is what a kernel imports, and that it
#      carries every non-Python file of the source package (e.g. the studio's front-end bundle);
#   5. execute notebooks/01_quickstart.ipynb with nbclient in that environment;
#   6. start JupyterLab on 127.0.0.1 and check that the Binder link's urlpath
#      (lab/tree/notebooks/01_quickstart.ipynb) and the notebook itself are served.
#
# Usage: scripts/check_binder.sh [REPO_DIR]   (default: the repository holding this script)
# Environment: PYTHON (interpreter for the venv, default python3), KEEP_BINDER_CHECK=1 keeps the folder.
set -euo pipefail

ROOT="$(cd "${1:-$(dirname "$0")/..}" && pwd)"
PYTHON="${PYTHON:-python3}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/binder-check.XXXXXX")"
SERVER_PID=""
START=$SECONDS

cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  if [ "${KEEP_BINDER_CHECK:-0}" = 1 ]; then
    echo "binder-check: kept $WORK"
  else
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT

step() { echo "binder-check [$((SECONDS - START)) s]: $*"; }
fail() { echo "binder-check: FAILED: $*" >&2; exit 1; }

# -- 1. a copy of the repository, as Binder would see it ------------------------------------------------
step "copying $ROOT"
mkdir -p "$WORK/repo"
if git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$ROOT" && git ls-files -z --cached --others --exclude-standard \
    | tar --null --files-from=- --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$WORK/repo"
else
  (cd "$ROOT" && tar --exclude=.git -cf - .) | tar -xf - -C "$WORK/repo"
fi
REPO="$WORK/repo"
[ -f "$REPO/binder/requirements.txt" ] || fail "binder/requirements.txt is missing"
[ -f "$REPO/binder/postBuild" ] || fail "binder/postBuild is missing"
[ -x "$REPO/binder/postBuild" ] || fail "binder/postBuild is not executable (repo2docker runs it as a program): chmod +x binder/postBuild"
[ -f "$REPO/notebooks/01_quickstart.ipynb" ] || fail "notebooks/01_quickstart.ipynb is missing"

# -- 2. a fresh environment with binder/requirements.txt -------------------------------------------------
step "creating a virtual environment with $("$PYTHON" --version 2>&1)"
"$PYTHON" -m venv "$WORK/venv"
export VIRTUAL_ENV="$WORK/venv"
export PATH="$VIRTUAL_ENV/bin:$PATH"
unset PYTHONPATH PYTHONHOME SLIMWIDGETS_DATA PIP_USER || true
# Jupyter looks for config, kernels and extensions in these folders too: keep the user's out of the check.
export JUPYTER_CONFIG_DIR="$WORK/jupyter-config" JUPYTER_DATA_DIR="$WORK/jupyter-data"
export JUPYTER_RUNTIME_DIR="$WORK/jupyter-runtime" IPYTHONDIR="$WORK/ipython"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_PROGRESS_BAR=off

step "installing binder/requirements.txt"
python -m pip install --quiet -r "$REPO/binder/requirements.txt"

# -- 3. postBuild, from the repository root --------------------------------------------------------------
step "running binder/postBuild"
(cd "$REPO" && ./binder/postBuild)

# -- 4. the installed package is complete and is the one imported ----------------------------------------
step "checking the installed package"
(cd "$WORK" && python - "$REPO" <<'PY'
import importlib.util
import sys
from pathlib import Path

repo = Path(sys.argv[1])
spec = importlib.util.find_spec("slimwidgets")
installed = Path(spec.origin).parent
if repo in installed.parents or installed == repo / "slimwidgets":
    sys.exit(f"slimwidgets is imported from the source tree ({installed}), not from an installed copy")
source = repo / "slimwidgets"
wanted = {p.relative_to(source) for p in source.rglob("*")
          if p.is_file() and p.suffix not in (".py", ".pyc", ".nbi", ".nbc") and "__pycache__" not in p.parts}
missing = sorted(str(p) for p in wanted if not (installed / p).is_file())
if missing:
    sys.exit(
        "pip install . left out these files of the source package: " + ", ".join(missing) + "\n"
        "Declare them as package data in pyproject.toml, e.g.\n"
        "  [tool.setuptools.package-data]\n"
        '  "slimwidgets.widgets" = ["static/*"]'
    )
print(f"slimwidgets installed at {installed}, with all {len(wanted)} data files of the source package")
PY
) || fail "the installed package is incomplete (see above)"

python -m jupyter labextension list > "$WORK/labextensions.txt" 2>&1 || true
for ext in "@jupyter-widgets/jupyterlab-manager" "anywidget"; do
  grep -q "$ext" "$WORK/labextensions.txt" || { cat "$WORK/labextensions.txt"; fail "JupyterLab extension $ext is not installed"; }
done

# -- 5. the quickstart, top to bottom, in a kernel of this environment -----------------------------------
step "executing notebooks/01_quickstart.ipynb"
(cd "$WORK" && python - "$REPO" "$VIRTUAL_ENV" <<'PY'
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

repo, venv = Path(sys.argv[1]), Path(sys.argv[2])
path = repo / "notebooks" / "01_quickstart.ipynb"
nb = nbformat.read(path, as_version=4)
# A first cell (in memory only) proves that the kernel runs in this environment on the installed package.
probe = nbformat.v4.new_code_cell(
    "import sys, pathlib, slimwidgets\n"
    f"assert pathlib.Path(sys.prefix).resolve() == pathlib.Path({str(venv)!r}).resolve(), sys.prefix\n"
    f"assert pathlib.Path({str(repo)!r}).resolve() not in pathlib.Path(slimwidgets.__file__).resolve().parents, slimwidgets.__file__\n"
)
nb.cells.insert(0, probe)
started = time.perf_counter()
NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
print(f"01_quickstart.ipynb ran in {time.perf_counter() - started:.1f} s")
PY
) || fail "notebooks/01_quickstart.ipynb did not run in the Binder environment"

# -- 6. JupyterLab serves the quickstart at the Binder link's urlpath ------------------------------------
step "starting JupyterLab on 127.0.0.1"
PORT="$(python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
python -m jupyter lab --no-browser --allow-root --ip=127.0.0.1 --port="$PORT" --ServerApp.port_retries=0 \
  --IdentityProvider.token="" --ServerApp.password="" --ServerApp.root_dir="$REPO" \
  > "$WORK/jupyterlab.log" 2>&1 &
SERVER_PID=$!
python - "$PORT" <<'PY' || { tail -n 40 "$WORK/jupyterlab.log"; fail "JupyterLab did not serve the quickstart"; }
import json
import sys
import time
import urllib.request

base = f"http://127.0.0.1:{sys.argv[1]}"
deadline = time.monotonic() + 90
while True:
    try:
        with urllib.request.urlopen(f"{base}/api/status", timeout=5) as r:
            if r.status == 200:
                break
    except OSError:
        pass
    if time.monotonic() > deadline:
        sys.exit("JupyterLab did not start within 90 s")
    time.sleep(0.5)
with urllib.request.urlopen(f"{base}/lab/tree/notebooks/01_quickstart.ipynb", timeout=30) as r:
    page = r.read().decode("utf-8", "replace")
    assert r.status == 200 and "JupyterLab" in page, (r.status, page[:200])
with urllib.request.urlopen(f"{base}/api/contents/notebooks/01_quickstart.ipynb?content=0", timeout=30) as r:
    model = json.load(r)
    assert model["type"] == "notebook", model
print("JupyterLab serves lab/tree/notebooks/01_quickstart.ipynb")
PY
kill "$SERVER_PID" 2>/dev/null || true
wait "$SERVER_PID" 2>/dev/null || true
SERVER_PID=""

step "OK: binder/ installs the package and runs the quickstart"
