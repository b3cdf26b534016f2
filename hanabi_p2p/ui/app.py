"""The full-screen terminal application: one screen at a time and a command line below it.

The session drives it: `update(view)` shows a new lobby/table/end view, `notify(text)` shows a
notice under the input line that expires after a few seconds (the log keeps what matters).
What the player types comes back through the `SessionCallbacks` it was given (`on_action`,
`on_say`, `on_start`, `on_quit`); nothing is sent for a command that fails its checks: the
input line is cleared (the command stays in the history, Up brings it back) and the reason
is shown under it, with the command it refers to. Leaving during a game asks once first.

Call `update` and `notify` from the thread running the application's event loop (from another
thread: ``loop.call_soon_threadsafe(app.update, view)``). Input and output can be injected
(`create_pipe_input()`, `DummyOutput()`) so tests drive the real application without a
terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import Callable, Sequence
from typing import Protocol

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import (
    BufferControl,
    Dimension,
    Float,
    FloatContainer,
    FormattedTextControl,
    HSplit,
    Layout,
    Window,
)
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.layout.processors import BeforeInput
from prompt_toolkit.output import Output

from hanabi_p2p.i18n import _, pgettext
from hanabi_p2p.limits import MAX_INPUT_CHARS
from hanabi_p2p.rules.actions import Action
from hanabi_p2p.safe_text import safe
from hanabi_p2p.ui.board import Board, board_from_state
from hanabi_p2p.ui.commands import (
    Abandon,
    CancelPremove,
    CommandError,
    Hint,
    Info,
    Intent,
    Kick,
    Mode,
    Note,
    Panel,
    Queue,
    Quit,
    Rename,
    Say,
    SendAction,
    Show,
    Start,
    find_player,
    parse_at_table,
    parse_on_board,
    parse_simple,
    parse_watching,
)
from hanabi_p2p.ui.completion import CommandCompleter, CompletionContext
from hanabi_p2p.ui.end import render_end
from hanabi_p2p.ui.helptext import command_help, rules_summary
from hanabi_p2p.ui.info import card_story
from hanabi_p2p.ui.lobby import render_lobby
from hanabi_p2p.ui.notes import NoteBook
from hanabi_p2p.ui.premove import Cancelled, Drop, Go, Premove, decide
from hanabi_p2p.ui.refusals import translate_refusal
from hanabi_p2p.ui.symbols import Glyphs, Theme, glyphs_for, style_for
from hanabi_p2p.ui.table import TableLabels, labels_for, log_lines, render_board, status_line
from hanabi_p2p.ui.text import Fragment, Line, fit, to_formatted, wrap_text
from hanabi_p2p.ui.view import NO_SEAT, EndView, LobbyView, ScreenView, TableView, WatchView
from hanabi_p2p.ui.watch import render_watch, watch_board, watch_labels, watch_status

# The input line below the screen body; under it the message, which wraps onto a few rows.
INPUT_ROWS = 1
MAX_MESSAGE_ROWS = 3
# How long a line under the input stays: a notice (someone sat down) is news for a moment,
# a refusal until it has been read; the log keeps everything that matters for longer.
NOTICE_SECONDS = 8.0
ERROR_SECONDS = 30.0
# How often a timed table's clock on the status line is redrawn.
CLOCK_TICK_S = 1.0


class SessionCallbacks(Protocol):
    """What the session does with the player's commands (all called on the UI's loop)."""

    def on_action(self, action: Action) -> None:
        """A checked, legal action (Play/Discard/Clue/Move) to send to the table."""

    def on_say(self, text: str) -> None:
        """Table talk to relay to every player."""

    def on_start(self) -> None:
        """The host asks to start the game (only offered when `LobbyView.can_start`)."""

    def on_kick(self, peer_id: bytes, ban: bool = False) -> None:
        """The host removes the player `peer_id` from the lobby (before the deal); it may
        come back, unless `ban`."""

    def on_rename(self, name: str) -> None:
        """A joiner asks for its seat again under the name `name` (before the deal)."""

    def on_hint(self) -> str:
        """What our computer player would do in the player's seat now, and why (one line,
        or the reason there is none); nothing is sent."""
        return _("Hints are not available here")

    def on_quit(self) -> None:
        """The player leaves (typed quit, or Ctrl-C/Ctrl-D); the App exits right after."""

    def on_abandon(self) -> None:
        """The player asks to end the game by agreement, or agrees to it."""


def mode_of(view: ScreenView | None) -> Mode:
    if isinstance(view, TableView):
        return Mode.TABLE
    if isinstance(view, WatchView):
        return Mode.WATCH
    if isinstance(view, EndView):
        return Mode.WATCH if view.my_seat == NO_SEAT else Mode.END
    if isinstance(view, LobbyView) and view.watching is not None:
        return Mode.WATCH
    return Mode.LOBBY


class App:
    """The hanabi-p2p terminal UI. `run()` blocks until the player quits or `exit()`."""

    def __init__(
        self,
        callbacks: SessionCallbacks,
        *,
        input: Input | None = None,
        output: Output | None = None,
        resume_command: str | None = None,
        confirm_leave: bool = True,
        theme: Theme = Theme.DARK,
        notes: NoteBook | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`resume_command` brings a player who left back (None: nothing can, as in a
        practice game); leaving a game in progress asks once unless `confirm_leave` is off.
        `clock` (seconds) times the notices, so tests can move time on."""
        self._callbacks = callbacks
        self._view: ScreenView | None = None
        self._board: Board | None = None
        self._panel: Panel | None = None
        self._info: list[str] = []  # the card story the "info" panel shows
        self._scroll = 0  # lines scrolled back in the log or panel
        self._message: Line = []
        self._message_until: float | None = None  # when the message expires (None: never)
        self._clock = clock
        self.resume_command = resume_command
        self._confirm_leave = confirm_leave
        self._leaving = False  # asked "really leave?" and waiting for the answer
        self.notes = notes if notes is not None else NoteBook()
        # log entries from this index on happened since our last turn (marked on screen)
        self._new_from: int | None = None
        self._was_my_turn = False
        self._rung_for: tuple[int, int] | None = None  # (turn, seat) we last rang the bell for
        self.bells = 0  # how often the bell rang (the session or tests may look)
        self._premove: Premove | None = None  # queued during another's turn, for ours
        # a timed table: (turn, seat) whose clock runs, and since when (our clock)
        self._turn_began: tuple[tuple[int, int], float] | None = None
        self._spent: dict[int, float] = {}  # a total clock: each seat's finished turns
        self._ticking = False  # the status line's clock redraws itself every second

        # True from a submitted line until the next Tab: a completion still running from
        # before Enter (fast typing, pasting) must not pop a menu up over the next command.
        self._completion_muted = False
        self._input = Buffer(
            multiline=False,
            completer=CommandCompleter(self._completion_context, lambda: self._completion_muted),
            complete_while_typing=False,
            accept_handler=self._accept,
        )
        body = Window(FormattedTextControl(self._body_fragments), wrap_lines=False)
        input_line = Window(
            BufferControl(self._input, input_processors=[BeforeInput("> ", style="class:prompt")]),
            height=1,
        )
        message = Window(
            FormattedTextControl(self._message_fragments),
            height=lambda: Dimension.exact(self._message_rows()),
        )
        root = FloatContainer(
            HSplit([body, input_line, message]),
            floats=[Float(xcursor=True, ycursor=True, content=CompletionsMenu(max_height=8))],
        )
        self.application: Application[None] = Application(
            layout=Layout(root, focused_element=input_line),
            key_bindings=self._key_bindings(),
            style=style_for(theme),
            full_screen=True,
            enable_page_navigation_bindings=False,
            input=input,
            output=output,
        )
        self._glyphs: Glyphs = glyphs_for(self.application.output.encoding())

    # --- pushed by the session ----------------------------------------------------------------

    def update(self, view: ScreenView) -> None:
        """Show `view` (a new snapshot replaces the old one entirely)."""
        if type(view) is not type(self._view):
            self._panel = None
            self._scroll = 0
            if isinstance(self._view, LobbyView) and not self._leaving:
                # the lobby's news (who sat down, why start was refused) is stale at the deal
                self._message, self._message_until = [], None
        self._view = view
        if isinstance(view, TableView):
            self._board = board_from_state(view.state, view.my_seat)
        elif isinstance(view, WatchView):
            self._board = watch_board(view)
        else:
            self._board = None
        self._track_new(view)
        self._signal_turn()
        self._time_turn(view)
        self._carry_out_premove()
        self.application.invalidate()

    def _time_turn(self, view: ScreenView) -> None:
        """At a timed table, note when each turn began here: the peer times it from then too
        (SPEC 5.6), so the clock on the status line runs out when the game would end."""
        board = self._board
        timed = isinstance(view, TableView) and (view.turn_timer is not None
                                                  or view.total_clock is not None)
        if not timed or board is None or board.over:
            self._turn_began = None
            return
        key = (board.turn, board.current_seat)
        if self._turn_began is None or self._turn_began[0] != key:
            now = self._clock()
            if self._turn_began is not None:  # the turn before ended: its seat's time
                (_turn, seat), began = self._turn_began
                self._spent[seat] = self._spent.get(seat, 0.0) + now - began
            self._turn_began = (key, now)
        if not self._ticking:
            self._ticking = True
            self._tick()

    def _tick(self) -> None:
        if self._turn_began is None:
            self._ticking = False
            return
        self.application.invalidate()
        with contextlib.suppress(RuntimeError):  # no loop running (tests drive it by hand)
            asyncio.get_running_loop().call_later(CLOCK_TICK_S, self._tick)
            return
        self._ticking = False

    def clock_text(self) -> str:
        """A timed table's clock for the status line: the seconds the turn has left."""
        view, began = self._view, self._turn_began
        if not isinstance(view, TableView) or began is None:
            return ""
        elapsed = self._clock() - began[1]
        seat = began[0][1]
        all_left = (None if view.total_clock is None
                    else max(0, round(view.total_clock - self._spent.get(seat, 0.0) - elapsed)))
        if view.turn_timer is None:
            return _("⏱ {left} s left in all").format(left=all_left)
        left = max(0, round(view.turn_timer - elapsed))
        if all_left is None:
            return _("⏱ {left} s left").format(left=left)
        return _("⏱ {left} s left, {all} s in all").format(left=min(left, all_left),
                                                           all=all_left)

    @property
    def premove(self) -> Premove | None:
        """The action queued for our next turn, if any."""
        return self._premove

    def _carry_out_premove(self) -> None:
        """Our turn came (or the game moved on): carry the premove out, or cancel it and say
        why (`ui.premove`)."""
        premove, view = self._premove, self._view
        if premove is None:
            return
        if not isinstance(view, TableView):
            self._premove = None  # the game ended: the end screen says how
            return
        outcome = decide(premove, view.state, view.my_seat)
        if outcome is None:
            return
        self._premove = None
        if isinstance(outcome, Go):
            self._callbacks.on_action(outcome.action)
            self.notify(_("Premove carried out: {command}").format(command=premove.command))
        elif outcome.reason is not Cancelled.OVER:
            self._error(self._cancelled_text(premove, outcome, view))

    def _cancelled_text(self, premove: Premove, drop: Drop, view: TableView) -> str:
        if drop.reason is Cancelled.CLUED:
            why = _("a clue touched that card since you queued it")
        elif drop.reason is Cancelled.GONE:
            why = _("that card is no longer in your hand")
        elif drop.reason is Cancelled.HAND_CHANGED:
            target = getattr(premove.action, "target", 0)
            name = view.names[target] if target < len(view.names) else f"#{target + 1}"
            why = _("{name}'s hand changed: the clue would touch other cards").format(name=name)
        else:
            why = translate_refusal(drop.error) if drop.error is not None else ""
        return _("✖ Premove cancelled ({command}): {reason}").format(
            command=premove.command, reason=why)

    def _track_new(self, view: ScreenView) -> None:
        """Remember where the log stood when our turn ended: what follows is news to us."""
        if not isinstance(view, TableView) or self._board is None:
            return
        mine = self._board.my_turn
        if self._new_from is None:
            # a resumed game starts with its whole story: only what comes next is new
            self._new_from = len(view.log) if view.state.turn > 0 else 0
        elif self._was_my_turn and not mine:
            self._new_from = len(view.log)
        self._was_my_turn = mine

    def notify(self, text: str, seconds: float | None = NOTICE_SECONDS) -> None:
        """A notice under the input line (e.g. "Carol dropped out"); it goes away after
        `seconds` (None: stays until replaced)."""
        self._set_message([("class:notice", text)], seconds)

    def _set_message(self, line: Line, seconds: float | None) -> None:
        self._message = line
        self._message_until = None if seconds is None else self._clock() + seconds
        if seconds is not None:
            # redraw when it expires, so a quiet table does not keep a stale line
            with contextlib.suppress(RuntimeError):
                asyncio.get_running_loop().call_later(seconds, self.application.invalidate)
        self.application.invalidate()

    def _error(self, text: str) -> None:
        self._set_message([("class:error", text)], ERROR_SECONDS)

    def exit(self) -> None:
        """Stop the application; safe to call again, or before it runs (then it does nothing)."""
        if self.application.is_running and not self.application.is_done:
            self.application.exit()

    def run(self) -> None:
        self.application.run()

    async def run_async(self) -> None:
        await self.application.run_async()

    @property
    def view(self) -> ScreenView | None:
        return self._view

    @property
    def panel(self) -> Panel | None:
        return self._panel

    @property
    def input_text(self) -> str:
        return self._input.text

    @property
    def message(self) -> str:
        return "".join(text for _style, text in self._current_message())

    @property
    def leaving(self) -> bool:
        """The player asked to leave and is being asked to confirm."""
        return self._leaving

    def _current_message(self) -> Line:
        if self._message_until is not None and self._clock() >= self._message_until:
            self._message, self._message_until = [], None
        return self._message

    def _signal_turn(self) -> None:
        """Ring the bell once when a turn of ours begins; the status line turns reverse."""
        board = self._board
        if board is None or not board.my_turn:
            return
        key = (board.turn, board.current_seat)
        if key != self._rung_for:
            self._rung_for = key
            self.bells += 1
            self.application.output.bell()

    # --- input --------------------------------------------------------------------------------

    def _completion_context(self) -> CompletionContext:
        view = self._view
        names: Sequence[str] = (
            view.names if isinstance(view, TableView | WatchView | EndView) else ()
        )
        return CompletionContext(mode_of(view), self._board_for_commands(), names)

    def _board_for_commands(self) -> Board | None:
        view = self._view
        if isinstance(view, EndView) and view.state is not None:
            return board_from_state(view.state, view.my_seat)
        return self._board

    def _accept(self, buffer: Buffer) -> bool:
        """Enter pressed. The line is always cleared (it stays in the history): a rejected
        command left in place would have the next one typed onto its end."""
        self._completion_muted = True
        buffer.cancel_completion()
        self.handle_text(buffer.text)
        return False

    def handle_text(self, text: str) -> bool:
        """Carry out one typed line as if entered; False if it was rejected (reason shown)."""
        typed = text[:MAX_INPUT_CHARS]
        if self._leaving:
            # an answer to "Leave the game?": yes leaves, no stays ("no" would otherwise be
            # taken as the start of "note", and "yes" as an unknown command)
            answer = typed.strip().casefold()
            if answer in ("y", "yes", pgettext("answer", "yes").casefold()):
                self.handle(Quit())
                return True
            if answer in ("n", "no", pgettext("answer", "no").casefold()):
                self._leaving = False
                self.notify(_("You stay at the table"))
                return True
        try:
            intent = self._parse(typed)
        except CommandError as exc:
            if self._leaving:
                # "anything else to stay": an answer like "stay" is no command, and saying
                # it is unknown would read as if the player had not been heard
                self._leaving = False
                self.notify(_("You stay at the table"))
                return True
            # the line is gone from the input: say which command the reason is about
            self._error(f"✖ {' '.join(typed.split())}: {exc}")
            return False
        if not isinstance(intent, Quit):
            self._leaving = False
        self._message, self._message_until = [], None
        if intent is not None:
            self.handle(intent)
        return True

    def _parse(self, text: str) -> Intent | None:
        view = self._view
        if isinstance(view, TableView) and self._board is not None:
            return parse_at_table(text, self._board, view.names, view.state.check)
        if isinstance(view, WatchView) and self._board is not None:
            return parse_watching(text, self._board, view.names)
        if isinstance(view, LobbyView) and view.watching is not None:
            return parse_watching(text, None, ())
        board = self._board_for_commands()
        if isinstance(view, EndView) and board is not None and view.my_seat == NO_SEAT:
            return parse_watching(text, board, view.names)
        if isinstance(view, EndView) and board is not None:
            return parse_on_board(text, board, view.names, mode=Mode.END)
        return parse_simple(text, mode_of(view))

    def _kick(self, who: str, ban: bool) -> None:
        view = self._view
        if not isinstance(view, LobbyView) or not view.i_am_host:
            self._error(_("only the host can remove a player"))
            return
        if view.seated:
            self._error(_("the game has started: nobody can be removed now"))
            return
        names = [seat.name for seat in view.seats]
        try:
            index = find_player(who, names)
        except CommandError as exc:
            self._error(str(exc))
            return
        seat = view.seats[index]
        if seat.is_me:
            self._error(_("you cannot remove yourself: quit leaves the table"))
            return
        self._callbacks.on_kick(seat.peer_id, ban)

    def _queue(self, intent: Queue) -> None:
        view = self._view
        if not isinstance(view, TableView):
            return
        self._premove = Premove.queue(intent.action, intent.command, view.state)
        self.notify(_("Queued for your turn: {command} (unqueue drops it; a clue on the card, "
                      "or a change that makes it illegal, cancels it)").format(
            command=intent.command))

    def _game_on(self) -> bool:
        """Leaving now would leave a game (or its shuffle) the others are playing."""
        view = self._view
        if isinstance(view, TableView):
            return self._board is not None and not self._board.over
        # a spectator holds nobody up: it leaves at once
        return (isinstance(view, LobbyView) and view.seated and not view.stopped
                and view.watching is None)

    def _ask_to_leave(self) -> None:
        if self.resume_command:
            text = _(
                "Leave the game? The others will wait for you; come back with: {command}. "
                "Type quit (or press Ctrl-C) again to leave, anything else to stay."
            ).format(command=self.resume_command)
        else:
            text = _(
                "Leave this game? It cannot be resumed: the computer players stop with it. "
                "Type quit (or press Ctrl-C) again to leave, anything else to stay."
            )
        self._leaving = True
        self._set_message([("class:final-round", text)], None)

    def _story(self, card: int) -> list[str]:
        view = self._view
        if isinstance(view, TableView):
            return card_story(
                view.state, card, view.names, view.my_seat, note=self.notes.get(card)
            )
        if isinstance(view, WatchView):
            return card_story(view.state, card, view.names, NO_SEAT)
        if isinstance(view, EndView) and view.state is not None:
            return card_story(
                view.state,
                card,
                view.names,
                view.my_seat,
                faces=view.faces,
                note=self.notes.get(card),
            )
        return []

    def handle(self, intent: Intent) -> None:
        """Carry out a parsed intent (public so the session can script the UI in tests)."""
        if isinstance(intent, SendAction):
            self._panel = None
            self._callbacks.on_action(intent.action)
        elif isinstance(intent, Say):
            self._callbacks.on_say(intent.text)
        elif isinstance(intent, Show):
            self._panel = None if self._panel is intent.what else intent.what
            self._scroll = 0
        elif isinstance(intent, Start):
            view = self._view
            if not isinstance(view, LobbyView) or not view.i_am_host:
                self._error(_("only the host can start the game"))
            elif not view.can_start:
                self._error(_("not everyone is here yet"))
            else:
                self._callbacks.on_start()
        elif isinstance(intent, Kick):
            self._kick(intent.who, intent.ban)
        elif isinstance(intent, Rename):
            self._callbacks.on_rename(intent.name)
        elif isinstance(intent, Note):
            self.notes.set(intent.card, intent.text)
            self.notify(_("Note kept (only you see it)") if intent.text else _("Note removed"))
        elif isinstance(intent, Hint):
            self.notify(self._callbacks.on_hint(), seconds=None)
        elif isinstance(intent, Abandon):
            self._callbacks.on_abandon()
        elif isinstance(intent, Queue):
            self._queue(intent)
        elif isinstance(intent, CancelPremove):
            if self._premove is None:
                self._error(_("there is no premove to cancel"))
            else:
                command, self._premove = self._premove.command, None
                self.notify(_("Premove cancelled: {command}").format(command=command))
        elif isinstance(intent, Info):
            self._info = self._story(intent.card)
            self._panel = Panel.INFO
            self._scroll = 0
        elif isinstance(intent, Quit):
            if self._confirm_leave and self._game_on() and not self._leaving:
                self._ask_to_leave()
            else:
                self._callbacks.on_quit()
                self.exit()
        self.application.invalidate()

    def _key_bindings(self) -> KeyBindings:
        kb = KeyBindings()

        @kb.add("tab")
        def _complete(event: KeyPressEvent) -> None:
            self._completion_muted = False
            buffer = event.current_buffer
            if buffer.complete_state:
                buffer.complete_next()
            else:
                buffer.start_completion(insert_common_part=True)

        @kb.add("escape", eager=True)
        def _close(event: KeyPressEvent) -> None:
            self._panel = None
            self._scroll = 0
            self._leaving = False
            self._message, self._message_until = [], None

        @kb.add("pageup")
        def _back(event: KeyPressEvent) -> None:
            self._scroll += max(self._rows() // 2, 1)

        @kb.add("pagedown")
        def _forward(event: KeyPressEvent) -> None:
            self._scroll = max(self._scroll - max(self._rows() // 2, 1), 0)

        @kb.add("c-c")
        @kb.add("c-d")
        def _quit(event: KeyPressEvent) -> None:
            self.handle(Quit())

        return kb

    # --- drawing ------------------------------------------------------------------------------

    def _rows(self) -> int:
        size = self.application.output.get_size().rows
        return max(size - INPUT_ROWS - self._message_rows(), 1)

    def _message_lines(self) -> list[Line]:
        """The message wrapped to the terminal (a long translation is never cut off)."""
        message = self._current_message()
        if not message:
            return [[]]
        style = message[-1][0]
        # a refusal may quote a peer's name: the one sanitiser, as everywhere else
        text = "".join(text for _style, text in message)
        text = safe(text, len(text))
        wrapped = wrap_text(text, self._columns())[:MAX_MESSAGE_ROWS]
        return [[(style, line)] for line in wrapped] or [[]]

    def _message_rows(self) -> int:
        return len(self._message_lines())

    def _columns(self) -> int:
        return max(self.application.output.get_size().columns, 20)

    def screen_lines(self) -> list[Line]:
        """The body as it is drawn now: exactly the rows above the input line."""
        rows, columns = self._rows(), self._columns()
        view, glyphs = self._view, self._glyphs
        if view is None:
            return [[("class:dim", _("Connecting..."))], *([] for _ in range(rows - 1))]
        if self._panel is not None:
            return self._panel_lines(rows, columns)
        if isinstance(view, LobbyView):
            return render_lobby(view, columns, rows, glyphs)
        if isinstance(view, EndView):
            return render_end(view, columns, rows, glyphs, self._scroll)
        if isinstance(view, WatchView):
            return render_watch(view, columns, rows, glyphs, self._scroll)
        assert self._board is not None
        return render_board(
            self._board, self._labels(view), columns, rows, glyphs=glyphs,
            log_offset=self._scroll,
        )

    def _labels(self, view: TableView) -> TableLabels:
        labels = labels_for(view, self._new_from, self.notes.all())
        return dataclasses.replace(
            labels, premove=self._premove.command if self._premove is not None else "",
            clock=self.clock_text())

    def _panel_lines(self, rows: int, columns: int) -> list[Line]:
        view = self._view
        titles = {
            Panel.HELP: _("Help"),
            Panel.RULES: _("Rules"),
            Panel.LOG: _("Game log"),
            Panel.INFO: _("Card story"),
        }
        title: Line = [("class:title", titles[self._panel] if self._panel else "")]
        title.append(("class:dim", "  " + _("(Esc to close, PageUp/PageDown to scroll)")))
        bottom: Line = []
        if isinstance(view, TableView) and self._board is not None:
            # Keep whose turn it is in sight while reading.
            bottom = status_line(self._board, self._labels(view), self._glyphs, columns)
        elif isinstance(view, WatchView) and self._board is not None:
            bottom = watch_status(view, self._board, watch_labels(view), self._glyphs, columns)
        room = rows - 1 - (1 if bottom else 0)
        if self._panel is Panel.LOG:
            log = view.log if isinstance(view, TableView | WatchView | EndView) else ()
            body = log_lines(log, columns, room, self._scroll)
        else:
            if self._panel is Panel.RULES:
                config = getattr(view, "config", None)
                text = rules_summary(config.variant if config is not None else None)
            elif self._panel is Panel.INFO:
                text = self._info
            else:
                is_host = isinstance(view, LobbyView) and view.i_am_host
                text = command_help(mode_of(view), is_host)
            wrapped = [w for line in text for w in wrap_text(line, columns)]
            start = min(self._scroll, max(len(wrapped) - room, 0))
            body = [[("", line)] for line in wrapped[start : start + room]]
        lines = [fit(title, columns), *body]
        lines.extend([] for _ in range(rows - len(lines) - (1 if bottom else 0)))
        if bottom:
            lines.append(bottom)
        return lines[:rows]

    def _encodable(self, fragments: Sequence[Fragment]) -> Line:
        """Replace what a non-UTF-8 terminal cannot show (names, translations) with '?'."""
        encoding = self.application.output.encoding()
        if encoding.lower().replace("-", "") in ("utf8", "utf16", "utf32"):
            return list(fragments)
        return [
            (style, text.encode(encoding, "replace").decode(encoding, "replace"))
            for style, text in fragments
        ]

    def _body_fragments(self) -> StyleAndTextTuples:
        lines = self.screen_lines()
        return to_formatted([self._encodable(line) for line in lines])

    def _message_fragments(self) -> StyleAndTextTuples:
        columns = self._columns()
        return to_formatted([self._encodable(fit(line, columns)) for line in self._message_lines()])
