"""Tab completion for the command line: command words, names, colours, numbers, slots."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from hanabi_p2p.narration.terms import colour_name
from hanabi_p2p.rules.cards import RANKS
from hanabi_p2p.safe_text import safe_name
from hanabi_p2p.ui.board import Board
from hanabi_p2p.ui.commands import COMMANDS, CommandError, Mode, command_word, find_player, fold


@dataclass(frozen=True, slots=True)
class CompletionContext:
    """What the completer needs to know right now (the screen may change at any moment)."""

    mode: Mode
    board: Board | None = None
    names: Sequence[str] = ()


def suggestions(ctx: CompletionContext, words: Sequence[str], current: str) -> list[str]:
    """Words that may follow `words` and start with `current` (folded), in a useful order."""
    if not words:
        options: Iterable[str] = COMMANDS[ctx.mode]
    else:
        options = _arguments(ctx, words)
    key = fold(current)
    return [option for option in options if fold(option).startswith(key)]


def _arguments(ctx: CompletionContext, words: Sequence[str]) -> list[str]:
    board = ctx.board
    if ctx.mode is Mode.LOBBY or board is None:
        return []
    try:
        word = command_word(words[0], ctx.mode)
    except CommandError:  # an unknown or ambiguous word simply has no completions
        return []
    position = len(words)  # 1 = first argument
    # a spectator has no hand of its own: its `info` names a player first
    own = board.hands[board.my_seat] if 0 <= board.my_seat < len(board.hands) else ()
    slots = [str(n) for n in range(1, len(own) + 1)]
    colours = [colour_name(suit) for suit in board.config.clue_colours]
    if word in ("discard",) and position == 1:
        return slots
    if word == "move" and position in (1, 2):
        return slots
    if word == "play":
        if position == 1:
            return slots
        if position == 2 and board.config.choreography:
            return colours
    if word == "clue":
        if position == 1:
            return _players(ctx, board, "")
        if position == 2:
            return [*colours, *(str(rank) for rank in RANKS)]
    if word in ("note", "info"):
        if position == 1:
            return [*slots, *_players(ctx, board, "#")]
        if position == 2 and not words[1].isdigit():
            try:
                seat = find_player(words[1], ctx.names)
            except CommandError:
                return []
            return [str(n) for n in range(1, len(board.hands[seat]) + 1)]
    return []


def _players(ctx: CompletionContext, board: Board, number_prefix: str) -> list[str]:
    """The other players by name; by seat number when a name is shared (typing the name
    could not tell them apart) or holds characters the sanitiser replaces."""
    folded = [fold(name) for name in ctx.names]
    out: list[str] = []
    for seat, name in enumerate(ctx.names):
        if seat == board.my_seat:
            continue
        # a shared name, or one that cannot be shown as it is, is offered by seat number
        shared = folded.count(fold(name)) > 1 or safe_name(name) != name
        out.append(f"{number_prefix}{seat + 1}" if shared else name)
    return out


class CommandCompleter(Completer):
    """Completes the word under the cursor from `context()` (called on every keystroke)."""

    def __init__(
        self, context: Callable[[], CompletionContext], muted: Callable[[], bool] = lambda: False
    ) -> None:
        self._context = context
        self._muted = muted

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        if self._muted():
            return
        before = document.text_before_cursor
        words = before.split()
        # The word being typed, if the cursor is right after one; else a new word begins.
        current = words.pop() if before and not before[-1].isspace() and words else ""
        for option in suggestions(self._context(), words, current):
            # A trailing space, as shells do: the next word can be typed right away.
            yield Completion(option + " ", start_position=-len(current), display=option)
