"""What strangers tried against this peer stays in view: wrong table passwords, links
closed for bytes that did not authenticate or verify."""

from __future__ import annotations

from dataclasses import dataclass, field

from hanabi_p2p.frontends.screen import ScreenFrontend
from hanabi_p2p.peer.context import Counters


@dataclass
class FakeHandle:
    failed_code_attempts: int = 0
    counters: Counters = field(default_factory=Counters)


def alerts(handle: FakeHandle) -> str:
    front = ScreenFrontend(lang="en")
    front.peer = handle  # type: ignore[assignment]
    return front._alerts()


def test_nothing_is_shown_when_nothing_happened() -> None:
    assert alerts(FakeHandle()) == ""


def test_wrong_passwords_and_link_problems_are_counted_on_screen() -> None:
    shown = alerts(FakeHandle(3, Counters(link_problems=2)))
    assert "wrong table passwords tried: 3" in shown
    assert "connection problems: 2" in shown
