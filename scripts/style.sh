#!/usr/bin/env bash
# Apply the house style (pyproject.toml's [tool.ruff]) to the whole tree, then check it as
# tests/test_style.py does: ruff's formatter and linter, and mypy on core/ and fitting/.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m ruff format .
python -m ruff check --fix .   # import order, pyupgrade and the other safe fixes
python -m ruff format .        # a fix may leave a line for the formatter
python -m ruff check .
python -m ruff format --check .
python -m mypy
