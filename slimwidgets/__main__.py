"""``python -m slimwidgets``: the same command line as the ``slimwidgets`` script."""

from .cli import run

run()
