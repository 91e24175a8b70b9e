"""The package's version, on the ground floor: every floor may read it (exports carry it) and
``pyproject.toml`` reads it from here (``[tool.setuptools.dynamic]``)."""

__version__ = "0.1.0"
