#!/usr/bin/env bash
# Idempotent set-up for the studio's front-end and browser tests:
#   - Debian's chromium at /usr/bin/chromium (apt-get) when it is missing;
#   - js/node_modules from js/package-lock.json (npm ci) when missing or out of date;
#   - the anywidget bundle in slimwidgets/widgets/static/ when missing or older than js/;
#   - pdflatex (scripts/setup_latex.sh), for the test that compiles the LaTeX export.
# Safe to run again: each step is skipped when its result is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/chromium ]; then
  echo "setup: installing Debian's chromium"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi

if ! command -v npm >/dev/null 2>&1; then
  echo "setup: npm is missing; install Node.js >= 20.19 (with npm) first" >&2
  exit 1
fi

if [ ! -f js/node_modules/.package-lock.json ] || [ js/package-lock.json -nt js/node_modules/.package-lock.json ]; then
  echo "setup: npm ci in js/"
  (cd js && npm ci --no-audit --no-fund --loglevel=error)
fi

static=slimwidgets/widgets/static
build=0
for f in card.js chart.js card.css; do
  [ -f "$static/$f" ] || build=1
done
if [ "$build" = 0 ] && [ -n "$(find js/src js/build.mjs js/package-lock.json -newer "$static/chart.js" -print -quit)" ]; then
  build=1
fi
if [ "$build" = 1 ]; then
  echo "setup: building the front-end bundle"
  (cd js && npm run --silent build)
fi
bash scripts/setup_latex.sh
echo "setup: chromium $(/usr/bin/chromium --version 2>/dev/null | awk '{print $2}'), bundle in $static"
