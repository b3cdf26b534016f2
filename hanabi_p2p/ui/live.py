"""The screens of a live table: lobby, table and end views built from a `TableSession`.

Pure: reads the session (never changes it) plus the few facts only the peer's shell knows
(which peers are connected, our address, the log lines so far) and returns the view to show;
`event_lines` turns the session's events into lines of the game log. The shell
(`hanabi_p2p.frontends.screen`) calls both after every change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from hanabi_p2p.i18n import _
from hanabi_p2p.identity import display_name, fingerprint
from hanabi_p2p.lookalike import look_alike
from hanabi_p2p.narration import narrator
from hanabi_p2p.net.handshake import table_code
from hanabi_p2p.rules.cards import Card
from hanabi_p2p.rules.engine import End
from hanabi_p2p.safe_text import safe, safe_name
from hanabi_p2p.session import events as ev
from hanabi_p2p.session.bodies import TableOption
from hanabi_p2p.session.table import ABORTED, OVER, PLAY, TableSession
from hanabi_p2p.session.waiting import WaitKind
from hanabi_p2p.ui.view import (
    NO_SEAT,
    OWN_MACHINE,
    EndView,
    LobbySeat,
    LobbyView,
    ScreenView,
    TableView,
    WatcherRow,
    Watching,
    WatchView,
)


@dataclass(frozen=True, slots=True)
class ShellFacts:
    """What the peer's IO shell knows and the session does not."""

    table_id: bytes
    connected: frozenset[bytes] = field(default_factory=frozenset)
    address: str | None = None  # ours, shown to the host so others can join by address
    log: tuple[str, ...] = ()
    status: str = ""
    log_path: str | None = None
    # computer players this machine runs (their peer ids): marked with our own name
    bots: frozenset[bytes] = field(default_factory=frozenset)
    # spectators of this table as far as we know (names as they gave them)
    watchers: tuple[WatcherRow, ...] = ()
    watching: Watching | None = None  # this peer is a spectator, not a player
    # joiners the host will not seat (removed with `kick`, gone from the lobby): their
    # request for a seat stays in the log, but they are not listed nor waited for
    removed: frozenset[bytes] = field(default_factory=frozenset)


def live_view(session: TableSession, facts: ShellFacts) -> ScreenView | None:
    """The screen for the session's phase; None until the table's opening entry is known."""
    if session.table is None:
        return None
    state = session.state
    if state is None or (session.my_seat is None and facts.watching is None):
        return lobby_view(session, facts)
    if session.phase == PLAY:
        if facts.watching is not None:
            return watch_view(session, facts, facts.watching)
        return table_view(session, facts)
    return end_view(session, facts)


def watching_for(session: TableSession, spectator: bool) -> Watching | None:
    """What a spectator of this table is shown (None for a player)."""
    if not spectator:
        return None
    table = session.table
    if table is not None and TableOption.SPECTATORS in table.table_options:
        return Watching.HANDS
    return Watching.PUBLIC


def code_of(session: TableSession, table_id: bytes) -> str | None:
    """The table code everyone compares aloud, once seating is final."""
    if not session.seats:
        return None
    return table_code(table_id, [seat.peer_id for seat in session.seats])


def looks_like_note(name: str, peer_id: bytes, members: Sequence[tuple[bytes, str]]) -> str:
    """" — looks like Bob (K7QF-2M9D)" when `name` reads as another member's name but is not
    spelled the same (a name made to pass for someone else's), else nothing."""
    others = {other: pid for pid, other in members if pid != peer_id}
    twin = look_alike(name, others)
    if twin is None:
        return ""
    return " — " + _("looks like {name}").format(name=safe(display_name(twin, others[twin])))


def table_members(session: TableSession) -> list[tuple[bytes, str]]:
    """(peer id, name) of everyone at the table, in seat order (join order before seating)."""
    if session.seats:
        return [(seat.peer_id, seat.name) for seat in session.seats]
    assert session.table is not None
    out: list[tuple[bytes, str]] = []
    if session.host_id is not None:
        out.append((session.host_id, session.table.host_name))
    out.extend((peer_id, join.name) for peer_id, join in session.joins.items())
    return out


def _lobby_connected(session: TableSession, peer_id: bytes, connected: frozenset[bytes]) -> bool:
    if peer_id == session.me:
        return True
    if session.seats or session.host_id in (session.me, peer_id):
        return peer_id in connected
    return True  # before seating a guest talks only to the host: the others are unknown


def _runner(session: TableSession, facts: ShellFacts, peer_id: bytes) -> str:
    """For a computer player, the name of the player whose machine runs it (as its request
    for a seat declares, or as we know for our own), OWN_MACHINE for one on a machine of its
    own; "" for a person."""
    if peer_id in facts.bots:
        return next((name for member, name in table_members(session) if member == session.me), "")
    join = session.joins.get(peer_id)
    if join is None or join.runner is None:
        return ""
    if not join.runner:
        return OWN_MACHINE
    return next((name for member, name in table_members(session) if member == join.runner),
                OWN_MACHINE)


def lobby_view(session: TableSession, facts: ShellFacts) -> LobbyView:
    assert session.table is not None
    names = [name for peer_id, name in table_members(session) if peer_id not in facts.removed]
    seats = tuple(
        LobbySeat(
            name,
            fingerprint(peer_id),
            is_host=peer_id == session.host_id,
            is_me=peer_id == session.me,
            connected=_lobby_connected(session, peer_id, facts.connected),
            runner=_runner(session, facts, peer_id),
            peer_id=peer_id,
            looks_like=look_alike(name, names) or "",
        )
        for peer_id, name in table_members(session)
        if peer_id not in facts.removed
    )
    i_am_host = session.host_id == session.me
    return LobbyView(
        table_name=session.table.name,
        config=session.table.config,
        seats=seats,
        i_am_host=i_am_host,
        table_code=code_of(session, facts.table_id),
        address=facts.address if i_am_host else None,
        status=facts.status,
        seated=bool(session.seats),
        waiting_for=tuple(seat for seat, _what in session.waiting_for()),
        stopped=_stopped(session),
        watchers=facts.watchers,
        spectators_see_hands=TableOption.SPECTATORS in session.table.table_options,
        hints_on=TableOption.HINTS in session.table.table_options,
        turn_timer=session.table.turn_timer,
        total_clock=session.table.total_clock,
        watching=facts.watching,
        talk=facts.log,
    )


def _disconnected(session: TableSession, connected: frozenset[bytes]) -> frozenset[int]:
    return frozenset(
        i
        for i, seat in enumerate(session.seats)
        if seat.peer_id != session.me and seat.peer_id not in connected
    )


def table_view(session: TableSession, facts: ShellFacts) -> TableView:
    assert session.table is not None and session.state is not None
    assert session.my_seat is not None
    return TableView(
        config=session.table.config,
        my_seat=session.my_seat,
        names=tuple(session.names),
        state=session.state,
        table_name=session.table.name,
        fingerprints=tuple(fingerprint(seat.peer_id) for seat in session.seats),
        table_code=code_of(session, facts.table_id),
        log=facts.log,
        waiting_for=tuple(seat for seat, what in session.waiting_for()
                          if what is not WaitKind.TURN),
        disconnected=_disconnected(session, facts.connected),
        status=facts.status,
        runners=tuple(_runner(session, facts, seat.peer_id) for seat in session.seats),
        watchers=facts.watchers,
        turn_timer=session.table.turn_timer,
        total_clock=session.table.total_clock,
    )


def watch_view(session: TableSession, facts: ShellFacts, watching: Watching) -> WatchView:
    """The table for a spectator: nobody's seat; the faces it decoded and nothing more."""
    assert session.table is not None and session.state is not None
    return WatchView(
        config=session.table.config,
        names=tuple(session.names),
        state=session.state,
        watching=watching,
        table_name=session.table.name,
        log=facts.log,
        waiting_for=tuple(seat for seat, what in session.waiting_for()
                          if what is not WaitKind.TURN),
        disconnected=_disconnected(session, facts.connected),
        status=facts.status,
        runners=tuple(_runner(session, facts, seat.peer_id) for seat in session.seats),
        watchers=facts.watchers,
    )


def _reason(text: str) -> str:
    """A reason that may quote a peer (names, its own words): printable and bounded."""
    return safe(text)


def _stopped(session: TableSession) -> str:
    if session.phase != ABORTED:
        return ""
    reason = _reason(session.abort_reason or _("the game was aborted"))
    table = session.table
    timed = table is not None and (table.turn_timer is not None or table.total_clock is not None)
    if timed and session.blamed is None and "timed out" in reason:
        # what a timed table's end means, in the player's words (the reason is the peer's)
        return _("{reason}. The table's clock ran out: the game ends here, nobody is "
                 "blamed").format(reason=reason)
    return reason


def _names(session: TableSession, seats: list[int]) -> str:
    return ", ".join(safe_name(session.name_of(s)) for s in seats)


def _audit_text(session: TableSession) -> str:
    audit = session.audit
    if audit is not None:
        return _("Every card and clue checked out.") if audit.ok else _reason(audit.reason)
    if session.phase == OVER:
        waiting = [seat for seat, _what in session.waiting_for()]
        if waiting:
            return _("Waiting for {names} to reveal their deck seeds").format(
                names=_names(session, waiting)
            )
    return ""


def end_view(session: TableSession, facts: ShellFacts) -> EndView:
    state = session.state
    assert session.table is not None and state is not None
    # a game stopped by a fault has no end of its own in the engine
    end = End.TERMINATED if state.end is End.IN_PROGRESS else state.end
    return EndView(
        config=session.table.config,
        score=state.score,
        rating=state.rating,
        end=end,
        fireworks=tuple(state.fireworks.items()),
        strikes=state.strikes,
        audit_ok=session.audit.ok if session.audit is not None else None,
        audit_text=_audit_text(session),
        log_path=facts.log_path,
        names=tuple(session.names),
        log=facts.log,
        stopped=_stopped(session),
        hands=_face_up_hands(session),
        state=state,
        faces=_audited_faces(session),
        my_seat=session.my_seat if session.my_seat is not None else NO_SEAT,
        watching=facts.watching,
    )


def _audited_faces(session: TableSession) -> dict[int, Card]:
    audit = session.audit
    return dict(audit.faces) if audit is not None and audit.ok else {}


def _face_up_hands(session: TableSession) -> tuple[tuple[Card | None, ...], ...]:
    """Every hand at the end, face up: what we saw, plus our own cards once the audit
    decoded them (before it, our own faces are unknown even to us)."""
    state = session.state
    assert state is not None
    audited = _audited_faces(session)
    return tuple(
        tuple(state.faces[card] or audited.get(card) for card in hand) for hand in state.hands
    )


def event_lines(event: ev.Event, session: TableSession, table_id: bytes) -> list[str]:
    """Lines of the game log for one session event (most events add none), in the one
    narrator's words."""
    # (the code is a hash over every seat: made only for the line that says it)
    code = (code_of(session, table_id) or "") if isinstance(event, ev.Seated) else ""
    return narrator.event_lines(event, session.names, code)
