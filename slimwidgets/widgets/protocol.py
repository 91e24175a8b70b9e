"""What the studio's browser views and Python say to each other, and the one place it is handled.

The messages are declared once, in ``protocol.json`` beside this module, which the front end's
``js/src/protocol.js`` bundles too: for each view (``card``, ``cuts``, ``chart``,
``alternatives``) the requests it may send and the fields of each, the fields of an answer and
the fields of the card view's ``status`` trait. A view sends ``{id, type, payload}`` as an
anywidget custom message; :class:`Dispatcher` checks it against the declaration, runs the
handler of its type and answers ``{id, ok, error}`` with the request's id, so that the view's
``send()`` resolves. A refused request (a value the controller refuses, an unknown type or
field) is answered with ``ok`` false and the reason; the studio says it in place as well.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = [
    "ANSWER_FIELDS",
    "Dispatcher",
    "OwnChanges",
    "REFUSALS",
    "REQUESTS",
    "STATUS_FIELDS",
    "answer",
    "read_request",
    "refusal_text",
]

_DECLARED = json.loads((Path(__file__).parent / "protocol.json").read_text(encoding="utf-8"))

#: for each view, the requests it may send and the fields of each
REQUESTS: dict[str, dict[str, tuple[str, ...]]] = {
    view: {kind: tuple(fields) for kind, fields in kinds.items()}
    for view, kinds in _DECLARED["requests"].items()
}
#: the fields of every answer to a request
ANSWER_FIELDS: tuple[str, ...] = tuple(_DECLARED["answer"])
#: the fields of the card view's status line (``Status.to_dict``), all the front end may read
STATUS_FIELDS: tuple[str, ...] = tuple(_DECLARED["status"])
#: what a handler raises when it refuses a request (said to the user, the state kept)
REFUSALS = (ValueError, TypeError, KeyError, RuntimeError, OSError)


def read_request(view: str, message: Any) -> tuple[str, dict[str, Any]]:
    """The type and fields of ``message``, a request of ``view``, checked against the protocol.

    Parameters
    ----------
    view : the view that sent it (a key of :data:`REQUESTS`).
    message : the message as received: ``{"id", "type", "payload"}``.

    Returns
    -------
    the request's type and its payload.

    Raises
    ------
    ValueError
        When the view does not send this type, or the payload has a field its type does not.

    Examples
    --------
    >>> read_request("card", {"id": "1", "type": "lock", "payload": {"feature": "age >= 60"}})
    ('lock', {'feature': 'age >= 60'})
    >>> read_request("card", {"id": "2", "type": "paint", "payload": {}})
    Traceback (most recent call last):
    ValueError: the card view sends no request 'paint'
    """
    kinds = REQUESTS[view]
    kind = message.get("type") if isinstance(message, Mapping) else None
    if kind not in kinds:
        raise ValueError(f"the {view} view sends no request {kind!r}")
    payload = message.get("payload") or {}
    unknown = sorted(set(payload) - set(kinds[kind]))
    if unknown:
        raise ValueError(f"a {kind!r} request of the {view} view has no field {unknown[0]!r}")
    return kind, dict(payload)


def answer(request_id: Any, error: str | None = None) -> dict[str, Any]:
    """The answer to the request ``request_id``: ``ok`` unless ``error`` says why it was refused.

    Parameters
    ----------
    request_id : the id the request carried (echoed so that the view's ``send()`` resolves).
    error : why the request was refused, or None.

    Examples
    --------
    >>> answer("7")
    {'id': '7', 'ok': True, 'error': None}
    """
    return dict(zip(ANSWER_FIELDS, (request_id, error is None, error), strict=True))


def refusal_text(exc: BaseException) -> str:
    """What a refused request says: the exception's message (an ``OSError``'s reason)."""
    if isinstance(exc, OSError) and exc.args:
        return str(exc.args[-1])
    return str(exc.args[0]) if exc.args else str(exc)


class Dispatcher:
    """The one handler of every request the studio's views send.

    Parameters
    ----------
    handlers : for each view, a function per request type, called with the payload's fields.
    refused : called with the view, the type and the exception when a handler refuses.
    done : called with the view, the type and whether it was carried out, after every request
        (the views then show the truth again).

    Examples
    --------
    >>> shown = []
    >>> d = Dispatcher({"chart": {"load": lambda key: shown.append(key)}})
    >>> d.dispatch("chart", {"id": "1", "type": "load", "payload": {"key": "k"}})
    {'id': '1', 'ok': True, 'error': None}
    >>> d.dispatch("chart", {"id": "2", "type": "load", "payload": {"colour": 1}})["error"]
    "a 'load' request of the chart view has no field 'colour'"
    >>> shown
    ['k']
    """

    def __init__(
        self,
        handlers: Mapping[str, Mapping[str, Callable[..., Any]]],
        refused: Callable[[str, str, BaseException], None] | None = None,
        done: Callable[[str, str, bool], None] | None = None,
    ) -> None:
        for view, kinds in handlers.items():
            missing = sorted(set(kinds) ^ set(REQUESTS.get(view, {})))
            if missing:  # a declared request nobody handles, or a handler of an undeclared one
                raise ValueError(
                    f"the {view} view's handlers and protocol.json differ on {missing}"
                )
        self.handlers, self.refused, self.done = handlers, refused, done

    def connect(self, view: str, widget: Any) -> None:
        """Handle the requests ``widget`` (an anywidget view called ``view``) sends."""
        widget.on_msg(lambda w, content, _buffers: w.send(self.dispatch(view, content)))

    def dispatch(self, view: str, message: Any) -> dict[str, Any]:
        """Check and run one request of ``view``; returns its answer."""
        request_id = message.get("id") if isinstance(message, Mapping) else None
        kind, error = "", None
        try:
            kind, payload = read_request(view, message)
            self.handlers[view][kind](**payload)
        except REFUSALS as exc:
            error = refusal_text(exc)
            if self.refused is not None:
                self.refused(view, kind, exc)
        if self.done is not None:
            self.done(view, kind, error is None)
        return answer(request_id, error)


class OwnChanges:
    """Tells a control's change made while the package shows its state from a user's change.

    A view's handlers skip the changes the package makes itself (``active``) and act on the
    user's. Kept per thread: a user's change arrives on the kernel's thread while a worker may be
    showing a new state, and must not be taken for the package's own and dropped.

    Examples
    --------
    >>> own = OwnChanges()
    >>> with own.showing():
    ...     own.active
    True
    >>> own.active
    False
    """

    def __init__(self) -> None:
        self._thread = threading.local()

    @property
    def active(self) -> bool:
        """Whether this thread is showing the package's state in the controls."""
        return getattr(self._thread, "on", False)

    @contextmanager
    def showing(self) -> Iterator[None]:
        """The controls' changes in this block, on this thread, are the package's own."""
        before, self._thread.on = self.active, True
        try:
            yield
        finally:
            self._thread.on = before
