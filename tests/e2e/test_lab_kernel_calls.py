"""The harness's kernel calls (lab.Kernel.run) against a scripted websocket, without a browser:
a reply that never comes fails with a clear message at the call's timeout, even while the
server keeps pinging (websocket-client's ``recv`` answered pings in its own loop and waited
forever); the reply and the idle status are taken in either order; other calls' messages are
ignored."""

from __future__ import annotations

import json

import pytest
import websocket

import lab

PING_SECONDS = 30.0  # jupyter_server's ping interval


class FakeClock:
    """``time.monotonic`` for lab, moved on by the scripted socket as frames arrive."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now


class ScriptedSocket:
    """A kernel websocket that answers an execute_request with ``script(msg_id)`` frames, then
    only pings, one every :data:`PING_SECONDS` of the fake clock."""

    def __init__(self, clock: FakeClock, script) -> None:
        self.clock, self.script, self.frames, self.reads = clock, script, [], 0

    def send(self, text: str) -> None:
        msg_id = json.loads(text)["header"]["msg_id"]
        self.frames = [json.dumps(m).encode() for m in self.script(msg_id)]

    def settimeout(self, seconds: float) -> None:
        self.timeout = seconds

    def recv_data_frame(self, control_frame: bool = False):
        self.reads += 1
        if self.frames:
            return websocket.ABNF.OPCODE_TEXT, websocket.ABNF(data=self.frames.pop(0))
        assert control_frame, "a ping answered inside recv would hide the deadline"
        self.clock.now += PING_SECONDS
        return websocket.ABNF.OPCODE_PING, websocket.ABNF(opcode=websocket.ABNF.OPCODE_PING)


def message(msg_id: str, kind: str, content: dict) -> dict:
    return {"parent_header": {"msg_id": msg_id}, "header": {"msg_type": kind}, "content": content}


def kernel_on(monkeypatch, script) -> tuple[lab.Kernel, ScriptedSocket]:
    clock = FakeClock()
    monkeypatch.setattr(lab, "time", clock)
    kernel = object.__new__(lab.Kernel)  # no server: the socket is the scripted one
    kernel.session, kernel.stderr = "s", []
    kernel.ws = ScriptedSocket(clock, script)
    return kernel, kernel.ws


def test_a_lost_reply_fails_at_the_timeout_while_the_server_pings(monkeypatch):
    kernel, ws = kernel_on(
        monkeypatch, lambda mid: [message(mid, "status", {"execution_state": "idle"})]
    )
    with pytest.raises(TimeoutError, match="execute_reply missing, idle status received"):
        kernel.run("studio.close()", timeout=120)
    assert ws.reads == 1 + 4  # the idle status, then pings until 120 s had passed


def test_reply_and_idle_in_either_order_with_other_calls_ignored(monkeypatch):
    def script(mid):
        return [
            message("another call", "stream", {"name": "stdout", "text": "not ours"}),
            message(mid, "stream", {"name": "stdout", "text": "42\n"}),
            message(mid, "status", {"execution_state": "idle"}),
            message(mid, "execute_reply", {"status": "ok"}),
        ]

    kernel, _ = kernel_on(monkeypatch, script)
    assert kernel.run("print(42)") == "42\n"
