"""Screens built from a live `TableSession`: two in-memory peers exchanging signed entries."""

from __future__ import annotations

import dataclasses

from hanabi_p2p.identity import Identity, fingerprint
from hanabi_p2p.log.entry import make_entry
from hanabi_p2p.log.replica import Replica, Status
from hanabi_p2p.net.handshake import table_code
from hanabi_p2p.rules.actions import Play
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.session import events as ev
from hanabi_p2p.session.bodies import Address
from hanabi_p2p.session.table import TableSession
from hanabi_p2p.ui.end import render_end
from hanabi_p2p.ui.live import ShellFacts, end_view, event_lines, live_view, lobby_view
from hanabi_p2p.ui.lobby import render_lobby
from hanabi_p2p.ui.text import plain
from hanabi_p2p.ui.view import EndView, LobbyView, TableView

TABLE_ID = bytes(range(16))


class Pair:
    """Ann hosts, Bob joins; entries reach the other side only on `deliver()`."""

    def __init__(self) -> None:
        self.ids = [Identity.from_seed(bytes([i + 1]) * 32) for i in range(2)]
        host_id = self.ids[0].peer_id
        self.sessions = [
            TableSession(ident, TABLE_ID, seed=bytes([i + 7]) * 32, host_id=host_id)
            for i, ident in enumerate(self.ids)
        ]
        self.replicas = [Replica(TABLE_ID, s) for s in self.sessions]
        self.inbox: list[list[object]] = [[], []]

    @property
    def ann(self) -> TableSession:
        return self.sessions[0]

    @property
    def bob(self) -> TableSession:
        return self.sessions[1]

    def flush(self, i: int) -> None:
        while out := self.sessions[i].take_outbox():
            for kind, turn, body in out:
                seq, prev = self.replicas[i].next_link(self.ids[i].peer_id)
                entry = make_entry(
                    self.ids[i], table_id=TABLE_ID, seq=seq, prev=prev, turn=turn,
                    kind=kind, body=body,
                )  # fmt: skip
                assert self.replicas[i].add(entry).status is not Status.REJECTED
                self.inbox[1 - i].append(entry)

    def deliver(self) -> None:
        """Until quiet: everything posted reaches the other peer."""
        for i in (0, 1):
            self.flush(i)
        while any(self.inbox):
            for i in (0, 1):
                while self.inbox[i]:
                    self.replicas[i].add(self.inbox[i].pop(0))  # type: ignore[arg-type]
                self.flush(i)

    def open_and_join(self) -> None:
        self.ann.open_table("Ann's table", "Ann", GameConfig(2))
        self.deliver()
        self.bob.request_seat("Bob", Address("127.0.0.1", 40001))
        self.deliver()


def facts(
    connected: set[bytes] | None = None,
    address: str | None = None,
    log: tuple[str, ...] = (),
    log_path: str | None = None,
) -> ShellFacts:
    return ShellFacts(TABLE_ID, frozenset(connected or ()), address, log, "", log_path)


def lobby_text(view: LobbyView) -> str:
    return "\n".join(plain(line) for line in render_lobby(view, 80, 22))


def test_nothing_to_show_before_the_table_is_known() -> None:
    pair = Pair()
    assert live_view(pair.bob, facts()) is None


def test_the_host_sees_who_joined_and_whether_they_are_connected() -> None:
    pair = Pair()
    pair.open_and_join()
    bob_id = pair.ids[1].peer_id
    view = live_view(pair.ann, facts(address="127.0.0.1:7301"))
    assert isinstance(view, LobbyView)
    assert [s.name for s in view.seats] == ["Ann", "Bob"]
    assert view.seats[1].fingerprint == fingerprint(bob_id)
    assert view.i_am_host and view.seats[0].is_me and view.seats[0].is_host
    assert not view.seats[1].connected  # no link to Bob in these facts
    assert view.table_code is None and not view.seated
    assert "Address: 127.0.0.1:7301" in lobby_text(view)
    assert lobby_view(pair.ann, facts({bob_id})).seats[1].connected


def test_a_joiner_the_host_removed_no_longer_takes_a_seat_in_the_lobby() -> None:
    # `kick bob` used to leave Bob listed ("not connected"), counted among the seats taken,
    # and the lobby waited for him to reconnect while `start` said not everyone was here
    pair = Pair()
    pair.open_and_join()
    bob_id = pair.ids[1].peer_id
    view = lobby_view(pair.ann, dataclasses.replace(facts(), removed=frozenset({bob_id})))
    assert [s.name for s in view.seats] == ["Ann"]
    text = lobby_text(view)
    assert "Seats: 1 of 2 taken" in text and "Bob" not in text
    assert "Waiting for 1 more player to join" in text


def test_the_host_screen_leaves_out_whom_its_peer_removed() -> None:
    """The lobby's list follows the peer's own record of whom it kicked (a refused kick
    removes nobody)."""
    from types import SimpleNamespace

    from hanabi_p2p.errors import IllegalAction
    from hanabi_p2p.frontends.screen import ScreenFrontend
    from hanabi_p2p.peer.context import Counters
    from hanabi_p2p.peer.effects import Kick

    pair = Pair()
    pair.open_and_join()
    kicked: set[bytes] = set()

    def command(what: object) -> None:
        assert isinstance(what, Kick)
        if what.peer_id == b"nobody":
            raise IllegalAction("nobody like that is waiting in the lobby")
        kicked.add(what.peer_id)

    front = ScreenFrontend()
    front.app = SimpleNamespace(notify=lambda *a, **k: None)  # type: ignore[assignment]
    front.peer = SimpleNamespace(
        command=command, session=pair.ann, table_id=TABLE_ID, connected=frozenset(),
        log_path=None, watchers=lambda: (), watching=False, failed_code_attempts=0,
        counters=Counters(), finished=False, left_out=lambda: frozenset(kicked))
    front._schedule_refresh = lambda: None  # type: ignore[method-assign]
    bob_id = pair.ids[1].peer_id
    front.on_kick(b"nobody")
    assert front.facts().removed == frozenset()
    front.on_kick(bob_id)
    assert front.facts().removed == {bob_id}
    view = lobby_view(pair.ann, front.facts())
    assert bob_id not in {seat.peer_id for seat in view.seats}


def test_a_guest_never_shows_an_address_and_watches_the_host_link() -> None:
    pair = Pair()
    pair.open_and_join()
    view = lobby_view(pair.bob, facts(address="127.0.0.1:7302"))
    assert view.address is None and not view.i_am_host
    assert not view.seats[0].connected and view.seats[1].connected  # Bob is always "here"


def test_once_seated_the_lobby_shows_the_code_and_whom_the_shuffle_waits_for() -> None:
    pair = Pair()
    pair.open_and_join()
    pair.ann.seat_players(Address("127.0.0.1", 40000))
    pair.flush(0)  # Ann seated everyone and started her shuffle; Bob has seen nothing yet
    everyone = {ident.peer_id for ident in pair.ids}
    view = live_view(pair.ann, facts(everyone))
    assert isinstance(view, LobbyView) and view.seated and not view.can_start
    assert view.table_code == table_code(TABLE_ID, [i.peer_id for i in pair.ids])
    text = lobby_text(view)
    assert f"Table code: {view.table_code}" in text
    assert "Shuffling the deck: waiting for Bob" in text


def test_the_table_lists_dropped_seats_and_waits_other_than_the_turn() -> None:
    pair = Pair()
    pair.open_and_join()
    pair.ann.seat_players(Address("127.0.0.1", 40000))
    pair.deliver()
    view = live_view(pair.bob, facts(set(), log=("a line",)))
    assert isinstance(view, TableView)
    assert view.names == ("Ann", "Bob") and view.my_seat == 1
    assert view.disconnected == frozenset({0})  # Ann's link is down in these facts
    assert view.waiting_for == ()  # only Ann's turn: the status line names her already
    assert view.log == ("a line",)
    assert view.table_code == table_code(TABLE_ID, [i.peer_id for i in pair.ids])


def test_a_stopped_game_ends_on_the_reason_without_an_audit() -> None:
    pair = Pair()
    pair.open_and_join()
    pair.ann.seat_players(Address("127.0.0.1", 40000))
    pair.deliver()
    pair.ann.abort(None, "Bob kept the game waiting")
    view = live_view(pair.ann, facts(log_path="/tmp/x.hlog"))
    assert isinstance(view, EndView)
    assert view.stopped == "Bob kept the game waiting" and view.audit_ok is None
    text = "\n".join(plain(line) for line in render_end(view, 80, 22))
    assert "The game was stopped: Bob kept the game waiting" in text
    assert "No audit: the game did not end normally" in text
    assert "Log saved to /tmp/x.hlog" in text


def test_a_game_stopped_before_the_deal_stays_in_the_lobby() -> None:
    pair = Pair()
    pair.open_and_join()
    pair.ann.abort(None, "the host left")
    view = lobby_view(pair.ann, facts())
    assert view.stopped == "the host left" and not view.can_start
    assert "The game was stopped: the host left" in lobby_text(view)


def test_log_lines_for_session_events_quote_peers_harmlessly() -> None:
    pair = Pair()
    pair.open_and_join()
    pair.ann.seat_players(Address("127.0.0.1", 40000))
    pair.deliver()
    lines = event_lines(ev.Resigned(1, "bye\x1b[2J now"), pair.ann, TABLE_ID)
    assert lines == ["Bob left the game: bye?[2J now"]
    code = table_code(TABLE_ID, [i.peer_id for i in pair.ids])
    assert event_lines(ev.Seated(), pair.ann, TABLE_ID) == [
        f"Everyone is seated; table code {code}"
    ]
    assert event_lines(ev.Fault(None, "x", fatal=False), pair.ann, TABLE_ID) == []
    assert event_lines(ev.Chat(1, "hi"), pair.ann, TABLE_ID) == ["Bob says: hi"]


def test_a_finished_game_ends_on_the_audit() -> None:
    pair = Pair()
    pair.open_and_join()
    pair.ann.seat_players(Address("127.0.0.1", 40000))
    pair.deliver()
    # each plays the leftmost card: misplays end the game quickly
    while pair.ann.state is not None and not pair.ann.state.over:
        actor = pair.ann if pair.ann.can_act() else pair.bob
        state = actor.state
        assert state is not None and actor.my_seat is not None
        actor.take_action(Play(actor.my_seat, state.hands[actor.my_seat][0]))
        pair.deliver()
    view = end_view(pair.ann, facts())
    assert view.audit_ok is True
    assert view.audit_text == "Every card and clue checked out."
    assert pair.ann.state is not None and view.score == pair.ann.state.score
    assert view.stopped == ""


def test_a_timed_tables_end_says_in_words_that_its_clock_ran_out() -> None:
    pair = Pair()
    pair.ann.open_table("Blitz", "Ann", GameConfig(2), turn_timer=30)
    pair.deliver()
    pair.bob.request_seat("Bob", Address("127.0.0.1", 40001))
    pair.deliver()
    pair.ann.seat_players(Address("127.0.0.1", 40000))
    pair.deliver()
    reason = "waited 31 s for Bob (its turn): timed out (the table's turn timer is 30 s)"
    pair.ann.abort(None, reason)
    view = live_view(pair.ann, facts(log_path="/tmp/x.hlog"))
    assert isinstance(view, EndView)
    assert view.stopped == (f"{reason}. The table's clock ran out: the game ends here, "
                            "nobody is blamed")
    text = " ".join(" ".join(plain(line) for line in render_end(view, 80, 22)).split())
    assert "The table's clock ran out: the game ends here, nobody is blamed" in text
    pair.bob.abort(None, "Ann kept the game waiting")  # any other end: the reason alone
    other = live_view(pair.bob, facts(log_path="/tmp/y.hlog"))
    assert isinstance(other, EndView) and other.stopped == "Ann kept the game waiting"
