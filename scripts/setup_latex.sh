#!/usr/bin/env bash
# Idempotent: Debian's texlive-latex-base (pdflatex), so that tests/export/test_latex_compiles.py
# compiles the LaTeX export instead of skipping (in CI, with CI set, a missing pdflatex fails it).
set -euo pipefail
if ! command -v pdflatex >/dev/null 2>&1; then
  echo "setup: installing texlive-latex-base (pdflatex)"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq texlive-latex-base >/dev/null
fi
echo "setup: $(pdflatex --version | head -1)"
