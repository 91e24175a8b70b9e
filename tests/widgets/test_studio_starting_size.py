"""A studio started on a raw table with fit's defaults shows a quick card, then the card ``fit``
returns: the size (and the cut points) chosen by the same cross-validation, said in the notice in
the user's units; an action of the user's meanwhile wins over the choice."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import slimwidgets as sw
from slimwidgets.core.options import DEFAULT_TIME_LIMIT
from slimwidgets.fitting import size_cv
from slimwidgets.widgets.controller import DEFAULT_TIME_LIMIT as STUDIO_TIME_LIMIT
from slimwidgets.widgets.controller import Controller
from slimwidgets.widgets.size_choice import size_cv_applies

from studio_helpers import settle

pytestmark = pytest.mark.slow  # studio solves and cross-validation


def _table(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {"lwt": rng.integers(90, 200, n).astype(float), "race": rng.choice(["white", "black"], n)}
    )
    y = ((X.lwt < 115) | ((X.race == "black") & (rng.random(n) < 0.5))).astype(int)
    return X, y


def _settled(c: Controller) -> None:
    settle(c)
    assert c.starting_size.join(300)
    settle(c)


def test_the_studio_starts_on_the_card_fit_returns():
    X, y = _table()
    c = Controller(X, y, frontier=False, alternatives=False, time_limit=None)  # every fit proven
    try:
        assert c.notice.startswith("choosing the card's size by 5-fold cross-validation")
        _settled(c)
        card = sw.fit(X, y, time_limit=None)
        chosen = card.details["size_cv"]
        assert (
            c.spec.max_size == chosen["chosen"]
            and c.starting_size.choice["chosen"] == chosen["chosen"]
        )
        assert c.card.points == card.points and c.card.threshold == card.threshold
        assert c.card.status == card.status == "optimal"
        assert c.notice.startswith(
            "size chosen by 5-fold cross-validation, as fit chooses it: at most"
        )
        assert "mean held-out error" in c.notice and "%" in c.notice
        assert c.spec.size_cv is None  # the studio solves at the size chosen, claiming no CV itself
        c.undo()  # the choice is one step: undo shows the quick card again
        assert c.spec.max_size is None
    finally:
        assert c.close()


def test_the_studio_starts_on_the_card_fit_returns_at_fits_default_limit():
    X, y = _table()
    c = Controller(X, y, frontier=False, alternatives=False, time_limit=DEFAULT_TIME_LIMIT)
    try:
        _settled(c)
        card = sw.fit(X, y)
        assert c.starting_size.choice["chosen"] == card.details["size_cv"]["chosen"]
        assert c.spec.max_size == card.details["size_cv"]["chosen"]
        assert c.card.points == card.points and c.card.threshold == card.threshold
        assert c.card.status == card.status == "optimal"
    finally:
        assert c.close()


def test_at_the_studios_own_limit_the_choice_is_made_under_fits_default_limit():
    """The studio's short limit is for its live solves: the size is chosen under fit's default
    limit (fit's choice needs fit's time), and the studio's solves keep their own limit."""
    X, y = _table()
    c = Controller(X, y, frontier=False, alternatives=False)  # no time_limit given
    try:
        assert f"(within {size_cv.SHARE * DEFAULT_TIME_LIMIT:.1f} s)" in c.notice
        _settled(c)
        card = sw.fit(X, y)
        assert c.spec.time_limit == STUDIO_TIME_LIMIT
        assert c.starting_size.choice["chosen"] == card.details["size_cv"]["chosen"]
        assert c.spec.max_size == card.details["size_cv"]["chosen"]
        assert c.card.points == card.points and c.card.threshold == card.threshold
    finally:
        assert c.close()


def test_the_card_at_the_chosen_size_is_timed_from_the_studios_start():
    # its solve gets the limit less what the choice took, as fit's final solve does: the job
    # carries the moment the choice was asked for, from which FinishClock counts the limit
    X, y = _table()
    c = Controller(X, y, frontier=False, alternatives=False, time_limit=None, start=False)
    jobs = []  # (max_size, when the solve was asked for)
    submit = c.core.scheduler.submit

    def recorded(job):
        jobs.append((job[1].max_size, job[3]))
        return submit(job)

    c.core.scheduler.submit = recorded
    try:
        c.begin()
        _settled(c)
        chosen = c.starting_size.choice["chosen"]
        asked = [at for size, at in jobs if size == chosen]
        assert asked == [c.starting_size.started], (jobs, c.starting_size.started)
        assert jobs[0][1] < c.starting_size.started  # the quick card's own clock
    finally:
        assert c.close()


def test_an_action_of_the_users_wins_over_a_late_choice():
    X, y = _table()
    c = Controller(X, y, frontier=False, alternatives=False, time_limit=None)
    try:
        _settled(c)
        before = (c.spec, c.card)
        other = c.spec.max_size + 1
        c.adopt_size(c.rules, other, dict(c.starting_size.choice), c.generation - 1)  # stale
        assert (c.spec, c.card) == before
    finally:
        assert c.close()


def test_a_risk_studio_starts_on_the_risk_card_fit_returns():
    """A risk card's size is chosen on held-out log-loss, in the studio as in ``fit``."""
    X, y = _table()
    # a limit never reached (a risk fit without one gets 2 s): every fit is proven at any load
    limit = 600
    c = Controller(X, y, loss="logistic", frontier=False, alternatives=False, time_limit=limit)
    try:
        _settled(c)
        card = sw.fit(X, y, loss="logistic", time_limit=limit)
        assert c.spec.max_size == card.details["size_cv"]["chosen"] == card.spec.max_size
        # both proven best: the same objective (a level and its complement may trade places)
        assert c.card.status == card.status == "optimal" and c.card.size == card.size
        assert c.card.objective == pytest.approx(card.objective, abs=1e-9)
        assert "mean held-out log-loss 0." in c.notice and "%" not in c.notice
    finally:
        assert c.close()


def test_the_choice_is_made_only_where_fit_would_make_it():
    X, y = _table()
    from slimwidgets.widgets.holdout import RawRows

    raw = RawRows(X, y, None, None)
    assert size_cv_applies({}, raw, None) and size_cv_applies({"loss": "logistic"}, raw, None)
    for fixed in ({"max_size": 3}, {"C0": 0.01}, {"cuts": {"lwt": [110]}}):
        assert not size_cv_applies(fixed, raw, None)
    assert not size_cv_applies({}, None, None)  # a table of 0/1 rules: fit chooses no cut points
    assert not size_cv_applies({}, RawRows(X.head(6), y.head(6), None, None), None)  # too few rows
    c = Controller(X, y, frontier=False, alternatives=False, time_limit=1.0, max_size=2)
    try:
        assert c.starting_size.thread is None
    finally:
        assert c.close()


def test_the_studio_widget_chooses_the_size_too():
    from slimwidgets.widgets.studio import Studio

    X, y = _table()
    studio = Studio(X, y, frontier=False, alternatives=False, time_limit=None)
    try:
        c = studio.controller
        _settled(c)
        assert c.spec.max_size == c.starting_size.choice["chosen"]
        assert "size chosen by 5-fold cross-validation" in studio.message.value
    finally:
        studio.close()
