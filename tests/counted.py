"""A family's loss piece wrapped so that it counts its calls: what tests of the families' loss
pieces register in place of the real ones, to see which pieces a real fit runs."""

from __future__ import annotations

from typing import Any


class Counted:
    """A piece that counts its calls and answers every other question as the piece it wraps."""

    def __init__(self, piece: Any) -> None:
        self.piece, self.calls = piece, 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return self.piece(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.piece, name)
