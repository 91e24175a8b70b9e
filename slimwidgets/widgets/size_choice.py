"""The studio's first card on a raw table, sized as :func:`slimwidgets.fit` sizes it, without
Jupyter.

``sw.fit(X, y)`` on a raw table, given no ``max_size`` nor ``C0``, chooses the card's size (and
how many candidate cut points each numeric column gets) by 5-fold cross-validation
(:func:`~slimwidgets.fitting.size_cv.choose_cuts_and_size`), then solves at that size. A studio
started the same way (``Studio(X, y)``, its own rules, no size given) shows a quick card first,
solved without the choice, while :class:`StartingSize` makes the same choice on a worker thread
of its own, under ``fit``'s time limit as ``fit`` would under it: the user's ``time_limit``
when given (the folds end by :data:`~slimwidgets.fitting.size_cv.SHARE` of it, and the card at
the chosen size gets what is left, the limit counted from the moment the choice was asked for),
else ``fit``'s default (:data:`~slimwidgets.core.options.DEFAULT_TIME_LIMIT`), not the studio's
short one: the choice is ``fit``'s and needs ``fit``'s time to be the same choice, while the
card at the chosen size is then a studio solve under the studio's own limit. The choice then
becomes the
studio's settings: the chosen cut points (a table of rules of :mod:`~slimwidgets.widgets.cuts`) and
``max_size``, one undo step, said in the notice in the user's units (the mean held-out error of
the size chosen). Anything the user does meanwhile wins: the choice is then dropped, unused.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..core.family import family_of_loss
from ..core.options import DEFAULT_TIME_LIMIT as FIT_TIME_LIMIT
from ..fitting import size_cv
from .holdout import RawRows

if TYPE_CHECKING:
    from .studio_core import StudioCore

__all__ = ["StartingSize", "size_cv_applies", "FOLDS", "choice_text"]

#: The folds of the choice: ``fit``'s own default.
FOLDS = 5
#: Options that fix the size or how the rules are made: with any, the studio solves as asked.
_FIXING = ("max_size", "C0", "size_cv", "rules", "cuts")


def size_cv_applies(options: Mapping[str, Any], raw: RawRows | None, groups: Any) -> bool:
    """Whether ``fit`` would choose the size of this studio's table by CV: the studio made rules
    of a raw table itself (no ``rules`` nor ``cuts`` given), nothing fixes the size, the card is
    a decision card without group columns, and each class has a row for every fold.

    Examples
    --------
    >>> import pandas as pd
    >>> raw = RawRows(pd.DataFrame({"a": range(20)}), [0, 1] * 10, None, None)
    >>> size_cv_applies({}, raw, None), size_cv_applies({"max_size": 3}, raw, None)
    (True, False)
    """
    if raw is None or groups is not None or any(options.get(k) is not None for k in _FIXING):
        return False
    if not family_of_loss(options.get("loss")).chooses_size_by_cv or raw.sample_weight is not None:
        return False
    import pandas as pd

    counts = pd.Series(list(raw.y)).value_counts()
    return len(counts) == 2 and int(counts.min()) >= FOLDS


def choice_text(choice: Mapping[str, Any], loss: str | None = None) -> str:
    """The choice in the user's units, as the notice says it.

    Parameters
    ----------
    choice : mapping
        What :func:`~slimwidgets.fitting.size_cv.choose_size` found.
    loss : str, optional
        The spec's ``loss``: its card family words the held-out score (a decision card's
        error in %, a risk card's log-loss).

    Returns
    -------
    str
        The notice's words.

    Examples
    --------
    >>> choice_text({"folds": 5, "chosen": 2, "n_cuts": 3,  # doctest: +NORMALIZE_WHITESPACE
    ...              "candidates": [{"max_size": 2, "test_error": 0.2125}]})
    'size chosen by 5-fold cross-validation, as fit chooses it: at most 2 rules, 3 candidate cut
    points per numeric variable (mean held-out error 21.2 %)'
    >>> choice_text({"folds": 5, "chosen": 1,  # doctest: +NORMALIZE_WHITESPACE
    ...              "candidates": [{"max_size": 1, "test_error": 0.4}]}, "logistic")
    'size chosen by 5-fold cross-validation, as fit chooses it: at most 1 rules (mean held-out
    log-loss 0.4000)'
    """
    if choice.get("skipped"):
        return f"the size was not chosen by cross-validation: {choice['skipped']}"
    row = next((r for r in choice["candidates"] if r.get("max_size") == choice["chosen"]), {})
    score, family = row.get("test_error"), family_of_loss(loss)
    said = (
        ""
        if score is None
        else f" (mean held-out {family.held_out_measure} {family.held_out_words(score)})"
    )
    cuts = (
        f", {choice['n_cuts']} candidate cut points per numeric variable"
        if "n_cuts" in choice
        else ""
    )
    return (
        f"size chosen by {choice['folds']}-fold cross-validation, as fit chooses it: at most "
        f"{choice['chosen']} rules{cuts}{said}"
    )


class StartingSize:
    """The size choice of a studio started on a raw table with ``fit``'s defaults.

    Parameters
    ----------
    core : StudioCore
        The studio's core (its spec, lock, generation and notice).
    options : mapping
        The options the studio was started with (before its rules were made).
    raw : RawRows or None
        The raw rows behind the rules.
    adopt : callable
        Solves with the rules and size chosen (the cut panel's
        :meth:`~slimwidgets.widgets.cuts.CutEditing.adopt_size`).
    """

    def __init__(
        self,
        core: StudioCore,
        options: Mapping[str, Any],
        raw: RawRows | None,
        adopt: Callable[..., None],
    ):
        self._core, self._raw, self._adopt = core, raw, adopt
        self._options = {k: v for k, v in options.items() if k not in ("rules", "cuts")}
        self.thread: threading.Thread | None = None
        self.choice: dict | None = None
        self.running = False
        #: when the choice was asked for (``time.perf_counter()``): the studio's time limit
        #: runs from it to the card at the chosen size
        self.started: float | None = None

    def start(self) -> None:
        """Choose on a worker thread; the first card is being solved meanwhile."""
        c = self._core
        limit = self.limit(c.spec.time_limit)
        within = "" if limit is None else f" (within {size_cv.SHARE * limit:.1f} s)"
        with c.lock:
            gen = c.generation
            c.say(
                f"choosing the card's size by {FOLDS}-fold cross-validation, as fit does{within}…"
            )
        c.emit("notice")
        self.running = True
        self.started = time.perf_counter()
        self.thread = threading.Thread(target=self._run, args=(gen,), name="size-cv", daemon=True)
        self.thread.start()

    def _run(self, gen: int) -> None:
        c = self._core
        try:
            from ..fitting.driver import fit

            spec = c.spec.replace(size_cv=FOLDS)
            raw = self._raw
            started = self.started if self.started is not None else time.perf_counter()
            limit = self.limit(spec.time_limit)
            deadline = None if limit is None else started + size_cv.SHARE * limit
            spec = spec.replace(time_limit=limit)
            _, builder, chosen, choice = size_cv.choose_cuts_and_size(
                fit, raw.X, raw.y, {**self._options, "time_limit": limit}, None, spec,
                positive=raw.positive, progress=False, deadline=deadline,
            )  # fmt: skip
            self.choice = dict(choice)
            # under the user's limit, the card at the chosen size gets what the choice left of
            # it, as in fit; under fit's default, the studio's own limit from now
            given = "time_limit" in self._options
            self._adopt(
                builder, chosen.max_size, self.choice, gen, requested=started if given else None
            )
        except Exception as problem:  # the quick card stays; the notice says why
            with c.lock:
                if c.generation == gen and not c.closed:
                    c.say(f"the size could not be chosen by cross-validation: {problem}", "warning")
            c.emit("notice")
        finally:
            self.running = False

    def limit(self, studio_limit: float | None) -> float | None:
        """The choice's time limit: the user's ``time_limit`` when given (the studio's limit
        ``studio_limit`` is then the user's), else ``fit``'s default."""
        return studio_limit if "time_limit" in self._options else FIT_TIME_LIMIT

    def join(self, timeout: float | None) -> bool:
        if self.thread is not None:
            self.thread.join(timeout)
        return self.thread is None or not self.thread.is_alive()
