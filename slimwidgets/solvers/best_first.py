"""The best-first walk over one support's boxes of points, shared by the proofs of risk cards
(:mod:`.risk_branch_and_bound`) and time-to-event cards (:mod:`.cox_tree`): each loss says how
a box is looked at (its floor, a card near its relaxation, a card when it is one point) and how
it splits; the walk keeps the open boxes least floor first until every one is cut or it is
stopped."""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

__all__ = ["walk_boxes"]

#: a box of points: (the least, the greatest index into each feature's allowed values)
Box = tuple[np.ndarray, np.ndarray]


def walk_boxes(
    root: Box,
    look: Callable[[np.ndarray, np.ndarray], tuple[float, Any] | None],
    split: Callable[[Any, np.ndarray, np.ndarray], Iterable[Box]],
    cuts: Callable[[float], bool],
    stop: Callable[[], bool],
) -> float | None:
    """Best-first branch and bound from the box ``root``: ``look(low, high)`` settles a box
    (None: a card, or a floor that ``cuts``) or opens it as (its floor, its relaxation);
    ``split(relaxation, low, high)`` gives an open box's children. Returns the least open floor
    when ``stop()`` says so, else None (every box settled).

    Examples
    --------
    >>> import numpy as np
    >>> seen = []
    >>> def look(low, high):  # floor: the box's least point; a box of one point is a card
    ...     if (low == high).all():
    ...         seen.append(int(low[0]))
    ...         return None
    ...     return float(low[0]), None
    >>> def split(relaxed, low, high):
    ...     middle = (low + high) // 2
    ...     return [(low, middle), (middle + 1, high)]
    >>> walk_boxes((np.array([0]), np.array([3])), look, split, lambda f: False, lambda: False)
    >>> seen
    [0, 1, 2, 3]
    """
    heap: list = []
    counter = itertools.count()  # ties in floor go first in, first out (no array compares)

    def visit(low: np.ndarray, high: np.ndarray) -> None:
        opened = look(low, high)
        if opened is not None:
            heapq.heappush(heap, (opened[0], next(counter), low, high, opened[1]))

    visit(*root)
    while heap:
        floor, _, low, high, relaxed = heapq.heappop(heap)
        if cuts(floor):  # the best card improved since this box was opened
            continue
        if stop():
            return floor
        for child in split(relaxed, low, high):
            visit(*child)
    return None
