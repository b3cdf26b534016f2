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


@dataclass
class FakeSession:
    seated: tuple[bytes, ...] = (b"B" * 32,)

    def seat_of(self, peer_id: bytes) -> int | None:
        return self.seated.index(peer_id) if peer_id in self.seated else None

    def describe(self, peer_id: bytes) -> str:
        return "Bob (K7QF-2M9D)"


@dataclass
class SeatedHandle(FakeHandle):
    session: FakeSession = field(default_factory=FakeSession)


@dataclass
class FakeApp:
    notices: list[str] = field(default_factory=list)

    def notify(self, text: str, seconds: float | None = 0) -> None:
        self.notices.append(text)


def test_a_link_to_a_seated_player_that_keeps_failing_is_said_once_in_full() -> None:
    """Issue 30: a resumed game whose table wants a password showed only a cut
    `⚠ connection prob…` on the status line; the log now says why, in full, once."""
    from hanabi_p2p.peer.effects import LinkProblem

    front = ScreenFrontend(lang="en")
    front.peer = SeatedHandle()  # type: ignore[assignment]
    front.app = FakeApp()  # type: ignore[assignment]
    reason = ("127.0.0.1:4000: the table has a password and we were given none: give it "
              "with --code (a game saved before the password was kept: join --resume "
              "--code SECRET)")
    for _ in range(3):  # the mesh redials: one line, not one per try
        front._link_trouble(LinkProblem(b"B" * 32, reason))
    front._link_trouble(LinkProblem(b"S" * 32, "a stranger's bytes"))  # not at our table
    front._link_trouble(LinkProblem(None, "an unknown address"))
    assert front.log == [f"Connection problem: Bob (K7QF-2M9D): {reason}"]
