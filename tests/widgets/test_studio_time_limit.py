"""The studio's time limit runs from the request to the card drawn (issue 20 item 3): a solve gets
the limit less the time its request waited and less a reserve for drawing the card, measured in
the studio. Fake clocks: the fit "takes" all the time it is given and the views "take" a set
time, on the clock the studio reads; nothing here depends on the machine's speed or load."""

from __future__ import annotations

from dataclasses import replace

import pytest

from slimwidgets.widgets import finish, solving
from slimwidgets.widgets.finish import (
    FIRST_RESERVE_SHARE,
    MAX_RESERVE_SHARE,
    RESERVE_FACTOR,
    FinishClock,
)

from fake_clock import FakeClock
from studio_helpers import settle

pytestmark = pytest.mark.slow  # studio solves: python -m pytest --all runs them

LIMIT, WAIT = 5.0, 0.3  # the user's time limit; how long each request waits before its solve starts


@pytest.fixture
def timed(make, monkeypatch):
    """A settled studio on the fake clock: each request waits ``WAIT``, each fit takes all it is
    given, each settled card takes ``draw[0]`` seconds to draw. Yields (controller, clock, log of
    (requested at, seconds given to the fit, drawn at), draw)."""
    clock = FakeClock()
    monkeypatch.setattr(finish, "time", clock)
    log, draw, real_fit = [], [0.4], solving.fit_dataset

    def fit(data, spec, **kwargs):  # really a short solve; on the fake clock, all it was given
        if log:  # (the studio's first solve, at its start, is not logged)
            log[-1][1] = spec.time_limit
        card = real_fit(data, spec.replace(time_limit=min(spec.time_limit, 0.5)), **kwargs)
        clock.jump(spec.time_limit)
        return replace(card, spec=spec)

    monkeypatch.setattr(solving, "fit_dataset", fit)
    c = make(time_limit=LIMIT, max_fpr=0.3, alternatives=False)
    real_submit = c.core.scheduler.submit

    def submit(job):
        log.append([job[3], None, None])  # the request's time (read by set_spec)
        clock.jump(WAIT)  # before the worker can start it: the debounce, a solve being stopped
        real_submit(job)

    monkeypatch.setattr(c.core.scheduler, "submit", submit)

    def views(events):
        if (
            "notice" in events and not c.solving and log and log[-1][2] is None
        ):  # a settled card drawn
            clock.jump(draw[0])
            log[-1][2] = clock.perf_counter()

    c.subscribe(views)
    settle(c)
    c.update(max_fpr=0.2)  # a decision card drawn: the studio's finish measured once
    settle(c)
    assert c.warming.risk.join(
        300
    )  # the risk kernels compiled (a wait for them is said, and not timed)
    return c, clock, log, draw


def test_the_first_switch_to_risk_cards_is_drawn_within_its_time_limit(timed):
    c, clock, log, draw = timed
    c.set_family("risk")
    settle(c)
    requested, given, drawn = log[-1]
    assert (
        c.card.family == "risk" and c.card.spec.time_limit == LIMIT
    )  # the card carries the user's spec
    assert drawn - requested <= LIMIT
    # no risk card drawn yet: a share of the limit was kept back, the rest (less the wait) solved
    assert given == pytest.approx(LIMIT - WAIT - FIRST_RESERVE_SHARE * LIMIT, abs=0.05)


@pytest.mark.parametrize("draw_seconds", [0.2, 1.0])
def test_later_solves_keep_back_what_drawing_took_and_end_within_the_limit(timed, draw_seconds):
    """Once a risk card has settled, the reserve is what its drawing took, with room to spare
    (capped at a quarter of the limit); a solve then ends by the limit while
    drawing takes as long."""
    c, clock, log, draw = timed
    draw[0] = draw_seconds
    c.set_family("risk")
    settle(c)
    c.update(max_fpr=0.25)
    settle(c)
    requested, given, drawn = log[-1]
    assert drawn - requested <= LIMIT
    reserve = min(RESERVE_FACTOR * draw_seconds, MAX_RESERVE_SHARE * LIMIT)
    assert given == pytest.approx(LIMIT - WAIT - reserve, abs=0.05)


def test_a_request_kept_waiting_past_its_limit_still_gets_a_solve():
    clock = FinishClock()
    from slimwidgets.core.spec import make_spec

    spec = make_spec(time_limit=1.0)
    assert clock.seconds(spec, requested=clock.now() - 10.0) == finish.MIN_SOLVE_SECONDS
    assert clock.seconds(make_spec(time_limit=None), requested=clock.now()) is None
