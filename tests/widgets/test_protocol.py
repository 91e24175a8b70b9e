"""The one protocol between the studio's browser views and Python (``widgets/protocol.json``):
what each side sends and reads is declared once, every request is answered with its id, and
a refusal comes back as an answer."""

from __future__ import annotations

import inspect
import re
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from slimwidgets.widgets.card_status import Status
from slimwidgets.widgets.protocol import (
    ANSWER_FIELDS,
    REQUESTS,
    STATUS_FIELDS,
    Dispatcher,
    OwnChanges,
    read_request,
)
from slimwidgets.widgets.requests import ViewRequests

JS = Path(__file__).resolve().parents[2] / "js" / "src"


def status_reads(source: str) -> set[str]:
    """The status fields a front-end source reads: ``s.x`` / ``status.x`` (the names the views
    give the status) and the names listed in ``SHOWN_STATUS``."""
    reads = set(re.findall(r"\b(?:s|status)\.([A-Za-z_]\w*)", source))
    for listed in re.findall(r"SHOWN_STATUS\s*=\s*\[([^\]]*)\]", source):
        reads |= set(re.findall(r'"(\w+)"', listed))
    return reads


def test_python_sends_exactly_the_declared_status_fields():
    sent = Status("time_limit", "stopped", objective=1.0, bound=0.5, warning="w").to_dict()
    assert tuple(sent) == STATUS_FIELDS


def test_the_front_end_reads_only_status_fields_python_sends():
    reads = status_reads((JS / "card-dom.js").read_text() + (JS / "card.js").read_text())
    assert {"state", "text", "level", "started"} <= reads  # the scan sees the views' reads
    assert not reads - set(STATUS_FIELDS), f"read but never sent: {reads - set(STATUS_FIELDS)}"


def test_the_status_check_sees_a_field_python_does_not_send():
    """The line the front end had (a ``headline`` Python never sent) is caught."""
    drifted = 'el("span", { text: s.headline || s.text || "" })'
    assert status_reads(drifted) - set(STATUS_FIELDS) == {"headline"}


def test_every_request_is_answered_with_its_id():
    done = []
    d = Dispatcher(
        {"chart": {"load": lambda key: done.append(key)}},
        done=lambda view, kind, ok: done.append((view, kind, ok)),
    )
    got = d.dispatch("chart", {"id": "c-1", "type": "load", "payload": {"key": "k"}})
    assert got == {"id": "c-1", "ok": True, "error": None} and tuple(got) == ANSWER_FIELDS
    assert done == ["k", ("chart", "load", True)]


def test_a_refusal_comes_back_as_an_answer_and_is_said():
    said = []

    def lock(feature):
        raise KeyError(f"unknown feature {feature!r}")

    handlers = {kind: (lambda **_: None) for kind in REQUESTS["card"]} | {"lock": lock}
    d = Dispatcher(
        {"card": handlers},
        refused=lambda view, kind, exc: said.append((view, kind, str(exc.args[0]))),
    )
    got = d.dispatch("card", {"id": "7", "type": "lock", "payload": {"feature": "x"}})
    assert got == {"id": "7", "ok": False, "error": "unknown feature 'x'"}
    assert said == [("card", "lock", "unknown feature 'x'")]
    unknown = d.dispatch("card", {"id": "8", "type": "paint", "payload": {}})
    assert unknown == {"id": "8", "ok": False, "error": "the card view sends no request 'paint'"}


def test_a_request_with_a_field_its_type_does_not_declare_is_refused():
    with pytest.raises(ValueError, match="has no field 'colour'"):
        read_request("cuts", {"id": "1", "type": "add", "payload": {"colour": 1}})


def test_handlers_must_match_the_declared_requests():
    with pytest.raises(ValueError, match=r"differ on \['load', 'paint'\]"):
        Dispatcher({"chart": {"paint": lambda: None}})


def test_the_dispatcher_answers_through_the_view():
    class View:
        def on_msg(self, callback):
            self.callback = callback

        def send(self, content):
            self.sent = content

    view = View()
    Dispatcher({"alternatives": {"load": lambda rank: None}}).connect("alternatives", view)
    view.callback(view, {"id": "a-3", "type": "load", "payload": {"rank": 2}}, [])
    assert view.sent == {"id": "a-3", "ok": True, "error": None}


def test_the_studios_handlers_take_the_declared_fields_by_name():
    """Each handler of the studio's views accepts its request's fields as the browser names
    them (a handler whose parameter has another name would refuse every request)."""
    handlers = ViewRequests(SimpleNamespace(controller=None)).view_handlers()
    assert {v: set(k) for v, k in handlers.items()} == {v: set(k) for v, k in REQUESTS.items()}
    for view, kinds in REQUESTS.items():
        for kind, fields in kinds.items():
            inspect.signature(handlers[view][kind]).bind(**dict.fromkeys(fields))


def test_the_package_s_own_changes_are_told_apart_per_thread():
    """While a worker shows a state (its changes are the package's own), a change on another
    thread (a user's, from the browser) is not taken for the package's; nested blocks restore."""
    own, seen = OwnChanges(), {}
    inside, done = threading.Event(), threading.Event()

    def worker():
        with own.showing():
            with own.showing():
                seen["nested"] = own.active
            seen["after nested"] = own.active
            inside.set()
            done.wait(60)

    t = threading.Thread(target=worker)
    t.start()
    assert inside.wait(60)
    seen["user thread"] = own.active
    done.set()
    t.join(60)
    assert seen == {"nested": True, "after nested": True, "user thread": False}
    assert not own.active
