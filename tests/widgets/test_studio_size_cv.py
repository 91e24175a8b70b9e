"""A studio started from a card whose size ``fit`` chose by cross-validation (issue 20): the card
itself says so, but the studio's own solves (the main solve, the frontier and path, later
settings) solve at the size given and never claim the choice by CV."""

from __future__ import annotations

import pytest

import slimwidgets as sw
from slimwidgets.core.scoring import ScoringSystem
from slimwidgets.core.wording import describe_spec
from slimwidgets.widgets.controller import Controller

from studio_helpers import settle

pytestmark = pytest.mark.slow  # studio solves: python -m pytest --all runs them

CLAIM = "size chosen by"


def test_the_studios_own_solves_never_claim_the_size_chosen_by_cv(small):
    X, y = small
    card = sw.fit(X, y, size_cv=3, max_size=2, time_limit=1.0)
    assert "size_cv" in card.details and f"{CLAIM} 3-fold CV" in describe_spec(
        card.spec
    )  # fit ran the choice
    c = Controller(X, y, spec=card.spec, frontier=True, alternatives=False, max_path_size=2)
    try:
        settle(c)
        assert c.spec.size_cv is None and c.card.spec.max_size == card.spec.max_size
        assert CLAIM not in describe_spec(c.card.spec)  # solved here, at the size given
        c.load(card)  # the card fit chose: it says how its size was chosen
        assert CLAIM in describe_spec(c.card.spec)
        c.update(max_fpr=0.3)  # a later solve of the studio's own: it does not
        settle(c)
        assert c.spec.max_fpr == 0.3 and CLAIM not in describe_spec(c.card.spec)
        assert c.wait_background(300)
        solved = [r for r in c.core.cache.values() if isinstance(r, ScoringSystem)]
        assert len(solved) > 2 and all(
            r.spec.size_cv is None for r in solved
        )  # the frontier and path too
    finally:
        assert c.close()
