"""Front ends of a peer: who decides our actions and who watches.

A front end sees its peer through ``PeerHandle`` only: the session to read, and commands.

* ``Frontend``: the base: shows nothing (what a peer run by a test or a tool gets).
* ``Headless``: prints one line per turn and the table's events on a stream.
* ``BotPlayer``: a headless computer player (``--bot``, ``--bots K``).
The full-screen UI front end lives in ``hanabi_p2p.frontends.screen``.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TextIO

from hanabi_p2p.errors import HanabiError
from hanabi_p2p.ui.throttle import ChatThrottle

# What a front end shows and does is imported when it first shows or does it: a `join` looks
# for its table while the game's modules load beside it (commands/join.py), and a front end
# is made before that.
if TYPE_CHECKING:
    from hanabi_p2p.peer.effects import Watcher
    from hanabi_p2p.peer.handle import PeerHandle
    from hanabi_p2p.peer.result import GameResult
    from hanabi_p2p.session import events as ev
    from hanabi_p2p.session.table import TableSession


class Frontend:
    def __init__(self) -> None:
        self.peer: PeerHandle | None = None

    def attach(self, peer: PeerHandle) -> None:
        self.peer = peer

    def on_events(self, events: list[ev.Event]) -> None:
        self.show(events)

    def show(self, events: list[ev.Event]) -> None:
        """Present events; the base shows nothing."""

    def status(self, text: str) -> None:
        """A line about the peer itself (address, resume)."""

    async def run(self, main: Callable[[], Awaitable[GameResult]]) -> GameResult:
        """Run the peer (``main``) with this front end; a UI runs alongside it."""
        return await main()

    # the H-group level of the computer players it runs (None: every convention they know)
    bot_level: int | None = None

    def for_bot(self) -> Frontend:
        """The front end of a computer seat this peer hosts."""
        return BotPlayer(out=None, level=self.bot_level)


class Headless(Frontend):
    """One line per event, for `--bot` seats and scripts."""

    def __init__(self, out: TextIO | None = sys.stdout, prefix: str = "") -> None:
        super().__init__()
        self.chat = ChatThrottle()
        self.out = out
        self.prefix = prefix
        self._watchers: dict[bytes, Watcher] = {}  # the spectators we last printed
        self._hands_seen = ""  # a spectator's last "hands seen" line
        self._audited = False  # its game's audit was shown
        # lines are flushed once per batch of events (`show`), not one by one
        self._showing = False

    def _print(self, text: str) -> None:
        if self.out is None:
            return
        try:
            print(f"{self.prefix}{text}", file=self.out, flush=not self._showing)
        except (BrokenPipeError, ValueError):
            self._reader_gone()

    def _flush(self) -> None:
        if self.out is None:
            return
        try:
            self.out.flush()
        except (BrokenPipeError, ValueError):
            self._reader_gone()

    def _reader_gone(self) -> None:
        """Nobody reads us any more (`... | head`): the game goes on without its printout;
        point the stream at /dev/null so the interpreter's last flush stays quiet."""
        if self.out is sys.stdout:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (lives as long as the process)
        self.out = None

    def status(self, text: str) -> None:
        self._print(text)

    def show(self, events: list[ev.Event]) -> None:
        if self.peer is None or self.out is None:
            return  # (a silent computer player: nobody reads its lines, none are made)
        # the lines of one batch go out in one write: a turn's line and a spectator's
        # `hands seen:` line are one wake-up, not two, for whoever reads them (a pipe)
        self._showing = True
        try:
            self._show(events)
        finally:
            self._showing = False
            self._flush()

    def _show(self, events: list[ev.Event]) -> None:
        from hanabi_p2p.peer.effects import WatchersChanged
        from hanabi_p2p.session import events as ev

        assert self.peer is not None
        for event in events:
            if isinstance(event, WatchersChanged):
                self._watchers_changed()
                continue
            if isinstance(event, ev.Chat) and not self._admit_chat(event):
                continue
            line = self._line(event)
            if line:
                self._print(line)
            # (and once more when the audit is done)
            if (isinstance(event, ev.TurnResolved | ev.GameOver | ev.Audited)
                    and self.peer.session.observer):
                self._show_hands()
                self._audited = self._audited or isinstance(event, ev.Audited)
        if self._audited:
            # a spectator after the audit: keys of cards in hand still on their way then
            # (each player sends them over its own link) show the hands once more
            self._show_hands(if_changed=True)

    def _show_hands(self, *, if_changed: bool = False) -> None:
        """A spectator's `hands seen:` line (see `hands_seen_line`)."""
        assert self.peer is not None
        seen = hands_seen_line(self.peer.session)
        if seen and not (if_changed and seen == self._hands_seen):
            self._print(seen)
            self._hands_seen = seen

    def _watchers_changed(self) -> None:
        """A line for each spectator that came or went, named with its key's fingerprint."""
        from hanabi_p2p.identity import display_name
        from hanabi_p2p.narration.narrator import stopped_watching_line, watches_line

        assert self.peer is not None
        now = {watcher.peer_id: watcher for watcher in self.peer.watchers()}
        for peer_id, watcher in now.items():
            if peer_id not in self._watchers:
                self._print(watches_line(display_name(watcher.name, peer_id),
                                         watcher.sees_hands))
        for peer_id, watcher in self._watchers.items():
            if peer_id not in now:
                self._print(stopped_watching_line(display_name(watcher.name, peer_id)))
        self._watchers = now

    def _admit_chat(self, event: ev.Chat) -> bool:
        """A flood of one player's table talk is summed up rather than printed."""
        assert self.peer is not None
        shown, hidden = self.chat.admit(event.seat, time.monotonic())
        if hidden and 0 <= event.seat < len(self.peer.session.seats):
            from hanabi_p2p.narration.narrator import chat_hidden_line

            self._print(chat_hidden_line(self.peer.session.name_of(event.seat), hidden))
        return shown

    def _line(self, event: ev.Event) -> str | None:
        assert self.peer is not None
        session = self.peer.session
        # every sentence comes from the one narrator (narration/narrator), which also sanitises
        # the peer-provided text in it
        from hanabi_p2p.identity import display_name, fingerprint
        from hanabi_p2p.narration import narrator as say
        from hanabi_p2p.peer.effects import JoinerLeft, LinkProblem, PeerLink
        from hanabi_p2p.rules.engine import End
        from hanabi_p2p.session import events as ev
        from hanabi_p2p.session.table import DECK, PLAY
        from hanabi_p2p.ui.live import event_lines, looks_like_note, table_members

        if isinstance(event, ev.TableOpened):
            return say.table_opened_line(event.name)
        if isinstance(event, ev.PlayerJoined):
            line = say.joined_line(event, display_name(event.name, event.peer_id))
            return line + looks_like_note(event.name, event.peer_id, table_members(session))
        if isinstance(event, JoinerLeft):
            return say.left_lobby_line(display_name(event.name, event.peer_id))
        if isinstance(event, ev.Seated):
            from hanabi_p2p.net.handshake import table_code

            code = table_code(self.peer.table_id, [s.peer_id for s in session.seats])
            return say.seated_line(code, [display_name(s.name, s.peer_id) for s in session.seats])
        if isinstance(event, ev.TurnResolved):
            return say.turn_line(event.turn, "; ".join(
                event_lines(event, session, self.peer.table_id)))
        if isinstance(event, ev.GameOver):
            return say.game_over_line(End(event.end), event.score)
        if isinstance(event, ev.Fault):
            return say.stopped_line(event.reason) if event.fatal else say.warning_line(
                event.reason)
        if isinstance(event, PeerLink):
            if session.seat_of(event.peer_id) is None or session.phase not in (DECK, PLAY):
                return None  # in the lobby the seats show it; after the game peers leave
            who = self.peer.describe(event.peer_id)
            if event.up:
                return say.connected_line(who)
            return say.lost_link_line(who, event.reason)
        if isinstance(event, LinkProblem):
            # named by the key its link proved, or by address: never by a claimed identity
            where = fingerprint(event.peer_id) if event.peer_id is not None else event.address
            return say.warning_line(f"{where}: {event.reason}" if where else event.reason)
        return "; ".join(event_lines(event, session, self.peer.table_id)) or None


def hands_seen_line(session: TableSession) -> str:
    """For a spectator: every card in every hand as it knows it, by card id, so a test or
    a script can check it against the deck audit ("12=R3", "13=??" for a face not known).
    In English whatever the language, like the score line: it is read by programs."""
    from hanabi_p2p.safe_text import safe_name

    state = session.state
    if state is None:
        return ""
    hands = [
        f"{safe_name(session.name_of(seat))} "
        + " ".join(f"{card}={state.faces[card] or '??'}" for card in hand)
        for seat, hand in enumerate(state.hands)
    ]
    return "hands seen: " + "; ".join(hands)


class BotPlayer(Headless):
    """A computer player: acts whenever it is its turn, with an optional pause."""

    def __init__(self, out: TextIO | None = sys.stdout, prefix: str = "",
                 delay: float = 0.0, level: int | None = None) -> None:
        super().__init__(out, prefix)
        self.delay = delay
        self.bot_level = level  # the H-group level it plays (bots/levels.py)
        self._scheduled = False
        self._agreeing = False

    def on_events(self, events: list[ev.Event]) -> None:
        from hanabi_p2p.session import events as ev

        super().on_events(events)
        if any(isinstance(event, ev.AbandonVoted) for event in events):
            self._maybe_agree()
        self._maybe_act()

    def _maybe_agree(self) -> None:
        """Another player asks to end the game by agreement: a computer player agrees (it
        never minds stopping), once; from the loop, never inside the node's processing."""
        peer = self.peer
        if peer is None or self._agreeing:
            return
        session = peer.session
        if session.my_seat is None or session.asked_to_abandon or not session.abandon_votes:
            return
        self._agreeing = True
        peer.after(0.0, self._agree, "computer player agrees")

    def _agree(self) -> None:
        from hanabi_p2p.peer.effects import Abandon

        peer = self.peer
        if peer is None or peer.finished or peer.session.asked_to_abandon:
            return
        try:
            peer.command(Abandon())
        except HanabiError as exc:  # (the game ended meanwhile): nothing to agree to
            self._print(f"computer player could not agree to end the game: {exc}")
        self._maybe_act()

    def _maybe_act(self) -> None:
        peer = self.peer
        if peer is None or self._scheduled or not peer.session.can_act():
            return
        if peer.session.deck_checks_pending():
            # (only just after the deal: the core tells us again when they are done)
            return
        self._scheduled = True
        # never act from inside the node's own processing; a bug in choosing ends the peer
        # visibly rather than leave the table waiting for a turn that never comes
        peer.after(self.delay, self._act, "computer player acts")

    def _act(self) -> None:
        from hanabi_p2p.bots.hgroup import choose_action
        from hanabi_p2p.peer.effects import Act, Resign

        self._scheduled = False
        peer = self.peer
        if peer is None or peer.finished or not peer.session.can_act():
            return
        state = peer.session.state
        seat = peer.session.my_seat
        assert state is not None and seat is not None
        try:
            peer.command(Act(choose_action(state, seat, self.bot_level)))
        except HanabiError as exc:  # a bot bug must not hang the table: say so, resign
            self._print(f"computer player error: {exc}")
            peer.command(Resign(f"computer player error: {exc}"))
        self._maybe_act()
