"""The full-screen terminal front end: the prompt_toolkit ``App`` bound to a live peer.

The App and the peer run on one event loop, so session calls need no locking. After every
change the node reports (``on_events``) the screen is rebuilt from the session, at most once
per loop turn; what the player types comes back through the App's callbacks and goes to
the session, which checks it before anything is signed or sent.

Leaving: in the lobby or after the game, ``quit`` just exits. During a game it stops this
peer *without resigning*: the others keep the game and wait, and the player can come back
from the saved log and seed (``hanabi-p2p join --resume``).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TextIO

from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from hanabi_p2p import i18n
from hanabi_p2p.errors import HanabiError, UserLeft
from hanabi_p2p.frontends.headless import BotPlayer, Frontend
from hanabi_p2p.i18n import _
from hanabi_p2p.identity import display_name, fingerprint
from hanabi_p2p.narration.narrator import (
    back_line,
    chat_hidden_line,
    connection_problem_line,
    dropped_line,
    joined_line,
    left_lobby_line,
    renamed_line,
    stopped_line,
    stopped_watching_line,
    warning_line,
    watches_line,
)
from hanabi_p2p.net.tasks import owned_tasks
from hanabi_p2p.peer.effects import (
    Abandon,
    Act,
    Command,
    JoinerLeft,
    Kick,
    Leave,
    LinkProblem,
    PeerLink,
    Rename,
    Say,
    Start,
    Watcher,
    WatchersChanged,
)
from hanabi_p2p.peer.result import RESUME_COMMAND
from hanabi_p2p.rules.actions import Action, Move
from hanabi_p2p.session import events as ev
from hanabi_p2p.session.bodies import TableOption
from hanabi_p2p.session.table import ABORTED, AUDITED, DECK, OVER, PLAY
from hanabi_p2p.ui.app import ERROR_SECONDS, App
from hanabi_p2p.ui.commands import typed_command
from hanabi_p2p.ui.live import ShellFacts, event_lines, live_view, watching_for
from hanabi_p2p.ui.notes import NoteBook
from hanabi_p2p.ui.refusals import translate_refusal
from hanabi_p2p.ui.symbols import Theme
from hanabi_p2p.ui.throttle import ChatThrottle
from hanabi_p2p.ui.view import WatcherRow

if TYPE_CHECKING:
    from hanabi_p2p.peer.handle import PeerHandle
    from hanabi_p2p.peer.result import GameResult

# Computer players this screen's machine runs pause this long before acting: a person sits
# at the table, and three moves landing at once cannot be followed.
HUMAN_TABLE_BOT_DELAY_S = 1.0
# How often we look whether the screen has started, while closing it early.
SCREEN_POLL_S = 0.02


class ScreenFrontend(Frontend):
    """The table on the terminal for a human player."""

    def __init__(
        self,
        lang: str | None = None,
        *,
        resume_command: str | None = RESUME_COMMAND,
        input: Input | None = None,
        output: Output | None = None,
        err: TextIO | None = None,
        theme: Theme = Theme.AUTO,
        bot_delay: float = HUMAN_TABLE_BOT_DELAY_S,
        bot_level: int | None = None,
    ) -> None:
        """``resume_command``: what brings a player who left back (None: no way back, as
        in a practice game whose computer players end with this process)."""
        super().__init__()
        i18n.setup(lang)
        self.resume_command = resume_command
        self.theme = theme
        self.bot_delay = bot_delay
        self.bot_level = bot_level  # the H-group level of its computer players and hints
        self._bots: list[BotPlayer] = []  # computer players this machine runs for the table
        self._notes_ready = False
        self._input = input
        self._output = output
        self._err = err
        self.app: App | None = None
        self.log: list[str] = []
        self._status = ""
        self._address: str | None = None
        self._early: list[ev.Event] = []
        self._dropped: set[bytes] = set()
        # what went wrong on a link to a player at our table, said once each in the log
        self._link_troubles: set[tuple[bytes, str]] = set()
        # set when the screen is to be rebuilt; `_refreshing` does it, once per burst
        self._refresh_wanted = asyncio.Event()
        self._chat = ChatThrottle()
        self._watchers: dict[bytes, Watcher] = {}  # the spectators we last told about
        self.left_game = False  # the player quit while the game was on
        self.peer_done = False  # our peer has stopped: its log file and sockets are closed

    # ------------------------------------------------------------ running

    async def run(self, main: Callable[[], Awaitable[GameResult]]) -> GameResult:
        app = App(
            self,
            input=self._input,
            output=self._output,
            resume_command=self.resume_command,
            theme=self.theme,
        )
        self.app = app
        # The screen and our peer run side by side in one task group: a peer that fails
        # ends the screen with its error. A broken screen is different: its error comes
        # back as a value, so that the peer stops the orderly way (its log kept) first.
        async with owned_tasks() as group:
            screen = group.create_task(_error_of(self._screen(app)), name="screen")
            game = group.create_task(_awaited(main()), name="game")
            try:
                result = await self._play_out(screen, game)
            finally:
                await _close(app, screen)
                if not game.done():
                    game.cancel()
        _raise_if_broken(screen)  # a broken screen is an error, not a silent exit
        if self.left_game and self.resume_command:
            print(
                _(
                    "You left the game; the others can wait for you. Come back with: {command}"
                ).format(command=self.resume_command),
                file=self._err or sys.stderr,
            )
        return result

    async def _play_out(self, screen: asyncio.Task[Exception | None],
                        game: asyncio.Task[GameResult]) -> GameResult:
        """Until the game is over and the player has seen its end, or the player left."""
        await asyncio.wait({screen, game}, return_when=asyncio.FIRST_COMPLETED)
        if not game.done():
            # the player left (or the screen broke): stop our peer, keep its log
            if not self._stop_peer():
                # still looking for the table: there is nothing to keep
                game.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await game
                _raise_if_broken(screen)  # a broken screen says so first
                raise UserLeft(_("you left before sitting down at a table"))
            return await game
        self.peer_done = True
        result = game.result()
        if result.table_code:
            self._refresh()  # the end screen, with the log path, until the player quits
            await screen
        # else nobody was seated (the lobby timed out, the host removed us, the table filled
        # without us): no game to look at, and a lobby left on the screen would look alive;
        # the screen closes and the reason is printed under it
        return result

    def _stop_peer(self) -> bool:
        """Make our node finish; False if there is no node yet (still finding the table)."""
        peer = self.peer
        if peer is None:
            return False
        session = peer.session
        if peer.finished or session.phase in (AUDITED, ABORTED):
            return True  # the node is only lingering so that others get our last entries
        if peer.watching:
            peer.command(Leave(_("you stopped watching")))
        elif session.my_seat is not None and session.phase in (DECK, PLAY):
            self.left_game = True  # no resign: the game waits for us to come back
            peer.command(Leave(_("you left the game")))
        elif session.phase == OVER:
            peer.command(Leave(_("you left before the deck audit")))
        else:
            peer.command(Leave(_("you left the table"), forget=True))
        return True

    # ------------------------------------------------------------ from the peer

    def attach(self, peer: PeerHandle) -> None:
        super().attach(peer)
        # read now: the mesh forgets its port once it closes, and the end screen outlives it
        self._address = peer.address
        early, self._early = self._early, []
        if early:
            self.show(early)

    def status(self, text: str) -> None:
        self._status = text
        if self.app is not None:
            self.app.notify(text)
        self._schedule_refresh()

    def show(self, events: list[ev.Event]) -> None:
        peer = self.peer
        if peer is None:
            # a resumed peer replays its saved log before it is attached: keep the story
            self._early.extend(events)
            return
        for event in events:
            if isinstance(event, WatchersChanged):
                self._watchers_changed()
                continue
            if isinstance(event, ev.Chat):
                shown, hidden = self._chat.admit(event.seat, time.monotonic())
                if hidden and 0 <= event.seat < len(peer.session.seats):
                    self.log.append(chat_hidden_line(peer.session.name_of(event.seat), hidden))
                if not shown:
                    continue  # a flood of one player's table talk is summed up, not shown
            self.log.extend(event_lines(event, peer.session, peer.table_id))
            self._tell(event)
        self._schedule_refresh()

    def _tell(self, event: ev.Event) -> None:
        """One-line notices for what the log does not keep (or should not wait for)."""
        app, peer = self.app, self.peer
        if app is None or peer is None:
            return
        session = peer.session
        if isinstance(event, PeerLink):
            self._link_changed(event)
        elif isinstance(event, LinkProblem) and not session.seats:
            app.notify(connection_problem_line(event.reason))
        elif isinstance(event, LinkProblem):
            self._link_trouble(event)
        elif isinstance(event, ev.PlayerJoined):
            app.notify(joined_line(event, event.name))
        elif isinstance(event, JoinerLeft):
            app.notify(left_lobby_line(display_name(event.name, event.peer_id)))
        elif isinstance(event, ev.Seated):
            self._tell_renamed()
        elif isinstance(event, ev.Fault):
            app.notify(stopped_line(event.reason) if event.fatal else warning_line(event.reason))

    def _link_trouble(self, event: LinkProblem) -> None:
        """A link to a player at our table keeps failing (a resumed game whose table wants
        a password we lack, say): the status line only counts such problems, so the reason
        is said once in full in the log, where it wraps instead of being cut. Problems of
        strangers' links stay counted only: anyone on the network can cause those."""
        assert self.app is not None and self.peer is not None
        session = self.peer.session
        if event.peer_id is None or session.seat_of(event.peer_id) is None:
            return
        if (event.peer_id, event.reason) in self._link_troubles:
            return
        self._link_troubles.add((event.peer_id, event.reason))
        line = connection_problem_line(f"{session.describe(event.peer_id)}: {event.reason}")
        self.log.append(line)
        self.app.notify(line)

    def _tell_renamed(self) -> None:
        """Names are unique at a table: if ours was taken, we sit under another one
        ("Dave 2"); say so, since that is the name the others will use."""
        assert self.app is not None and self.peer is not None
        session = self.peer.session
        seat = session.my_seat
        if seat is None or session.table is None:
            return
        asked = self.peer.player_name
        given = session.name_of(seat)
        if given != asked:
            line = renamed_line(given, seat)
            self.log.append(line)
            self.app.notify(line, seconds=None)

    def _watchers_changed(self) -> None:
        """Someone started or stopped watching: a line in the log (with its key's
        fingerprint, as the lobby shows a joiner) and a notice; the lists redraw."""
        peer = self.peer
        assert peer is not None
        now = {watcher.peer_id: watcher for watcher in peer.watchers()}
        lines = [watches_line(display_name(w.name, w.peer_id), w.sees_hands)
                 for peer_id, w in now.items() if peer_id not in self._watchers]
        lines += [stopped_watching_line(display_name(w.name, w.peer_id))
                  for peer_id, w in self._watchers.items() if peer_id not in now]
        self._watchers = now
        self.log.extend(lines)
        if lines and self.app is not None:
            self.app.notify(lines[-1])

    def _link_changed(self, event: PeerLink) -> None:
        assert self.app is not None and self.peer is not None
        session = self.peer.session
        seat = session.seat_of(event.peer_id)
        if seat is None or session.phase not in (DECK, PLAY):
            return  # in the lobby the seats show it; after the game peers leave anyway
        name = session.name_of(seat)
        if not event.up:
            self._dropped.add(event.peer_id)
            line = dropped_line(name)
        elif event.peer_id in self._dropped:
            self._dropped.discard(event.peer_id)
            line = back_line(name)
        else:
            return  # a first connection after seating is no news
        self.log.append(line)
        self.app.notify(line)

    def _schedule_refresh(self) -> None:
        """Rebuild the screen once this burst of entries is processed, not once per entry."""
        self._refresh_wanted.set()

    async def _screen(self, app: App) -> None:
        """The App, and beside it the task that rebuilds what it shows."""
        async with owned_tasks() as group:
            refresher = group.create_task(self._refreshing(), name="screen refresh")
            try:
                await app.run_async()
            finally:
                refresher.cancel()

    async def _refreshing(self) -> None:
        """Rebuild the screen whenever asked. A task of the screen's own group, not a loop
        callback: a bug in building the view ends the screen with that error (our peer then
        stops the orderly way, its log kept, and the error is told), where a callback's
        error would only be printed, under a screen that no longer changed."""
        while True:
            await self._refresh_wanted.wait()
            self._refresh_wanted.clear()
            self._refresh()

    def _refresh(self) -> None:
        peer, app = self.peer, self.app
        if peer is None or app is None:
            return
        if not self._notes_ready and peer.log_path is not None:
            # private notes on cards live with the game's secrets, so --resume keeps them
            self._notes_ready = True
            app.notes = NoteBook.for_game(peer.log_path)
        view = live_view(peer.session, self.facts())
        if view is not None:
            app.update(view)

    def facts(self) -> ShellFacts:
        peer = self.peer
        assert peer is not None
        return ShellFacts(
            table_id=peer.table_id,
            connected=peer.connected,
            address=self._address,
            log=tuple(self.log),
            # the launcher's lines (address, resume) matter until the deal; what strangers
            # tried stays in view all game
            status=" · ".join(x for x in (
                self._status if peer.session.state is None else "", self._alerts()) if x),
            log_path=str(peer.log_path) if peer.log_path is not None else None,
            bots=frozenset(bot.peer.session.me for bot in self._bots if bot.peer is not None),
            watchers=tuple(
                WatcherRow(w.name, fingerprint(w.peer_id), w.sees_hands) for w in peer.watchers()
            ),
            watching=watching_for(peer.session, peer.watching),
            removed=peer.left_out(),
        )

    def _alerts(self) -> str:
        """Counts of what someone on the network tried against this peer, if anything."""
        peer = self.peer
        if peer is None:
            return ""
        parts = []
        if peer.failed_code_attempts:
            parts.append(_("⚠ wrong table passwords tried: {count}").format(
                count=peer.failed_code_attempts))
        problems = peer.counters.link_problems
        if problems:
            parts.append(_("⚠ connection problems: {count}").format(count=problems))
        return " · ".join(parts)

    def for_bot(self) -> Frontend:
        """A computer player this machine runs: it pauses, since a person is watching."""
        bot = BotPlayer(out=None, delay=self.bot_delay, level=self.bot_level)
        self._bots.append(bot)
        return bot

    # ------------------------------------------------------------ from the player

    def _command(self, command: Command) -> None:
        """Send one command to the peer; a refusal becomes a notice and nothing is sent."""
        peer, app = self.peer, self.app
        assert app is not None
        if peer is None:
            app.notify(_("Not connected to the table yet"))
            return
        if self.peer_done:
            app.notify(_("The table is closed: nothing more can be sent"))
            return
        try:
            peer.command(command)
        except HanabiError as exc:
            app.notify(translate_refusal(exc), seconds=ERROR_SECONDS)
            return
        self._schedule_refresh()

    def on_action(self, action: Action) -> None:
        peer, app = self.peer, self.app
        if (peer is not None and app is not None and not isinstance(action, Move)
                and peer.session.my_turn() and not peer.session.can_act()):
            # a card of the last turn is still being revealed to us
            app.notify(_("One moment: the last card is still being revealed"))
            return
        self._command(Act(action))

    def on_say(self, text: str) -> None:
        self._command(Say(text))

    def on_start(self) -> None:
        peer = self.peer
        if peer is not None and peer.session.host_id != peer.session.me:
            assert self.app is not None
            self.app.notify(_("The host starts the game"))
            return
        self._command(Start())

    def on_kick(self, peer_id: bytes, ban: bool = False) -> None:
        self._command(Kick(peer_id, ban))

    def on_rename(self, name: str) -> None:
        self._command(Rename(name))

    def on_abandon(self) -> None:
        self._command(Abandon())

    def on_hint(self) -> str:
        """Our computer player's advice for our seat, in practice games and at tables the
        host opened with the hints option: at any other table of people a coach only one
        player has would be unfair, so it is off there."""
        peer = self.peer
        session = peer.session if peer is not None else None
        state = session.state if session is not None else None
        seat = session.my_seat if session is not None else None
        if session is None or state is None or seat is None:
            return _("No game to give a hint for yet")
        practice = len(self._bots) >= len(session.seats) - 1
        offered = session.table is not None and TableOption.HINTS in session.table.table_options
        if not (practice or offered):
            return _("Hints are off at this table: the host turns them on for everyone by "
                     "opening it with: hanabi-p2p host --option hints")
        if state.over or state.current_seat != seat:
            return _("Hints are for your own turn")
        from hanabi_p2p.bots.hgroup import explain  # the bot loads only when asked
        from hanabi_p2p.bots.levels import table_conventions

        try:
            advice = explain(state, seat, session.names, self.bot_level)
        except HanabiError as exc:
            return str(exc)
        command = typed_command(advice.action, state.hands, session.names)
        return _("Hint: {advice} ({conventions}) — type: {command}").format(
            advice=advice.text, conventions=table_conventions(self.bot_level), command=command)

    def on_quit(self) -> None:
        """The App exits right after; ``run`` stops the peer (without resigning)."""


async def _awaited(work: Awaitable[GameResult]) -> GameResult:
    return await work


async def _error_of(screen: Awaitable[None]) -> Exception | None:
    """The screen run to its end; what broke it, as a value (see `run`)."""
    try:
        await screen
    except Exception as exc:  # (raised by `_raise_if_broken` once our peer has stopped)
        return exc
    return None


def _raise_if_broken(screen: asyncio.Task[Exception | None]) -> None:
    error = screen.result()
    if error is not None:
        raise error


async def _close(app: App, screen: asyncio.Task[Exception | None]) -> None:
    """Exit the App (restoring the terminal) even if it has not started running yet."""
    while not screen.done():
        app.exit()
        await asyncio.wait({screen}, timeout=SCREEN_POLL_S)
