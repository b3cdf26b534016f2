"""Typed commands: parse a line into an action or intent, and say why one cannot be done.

Pure: `parse_on_board` needs only what the player sees (a `Board`) and the seat names. Every
turn action is checked here with a localised one-line reason ("no clue tokens left") and
then, as a last safety net, by the engine's own `check`, so an illegal command is never sent.

Grammar (slots are 1-based from the left; names, colours and command words may be shortened
to any unique prefix, case-insensitive; colours in English, in the current language, or by
their letter R/Y/G/B/W/M):

    play [slot] SLOT [COLOUR]     discard [slot] SLOT     clue PLAYER COLOUR|NUMBER
    move FROM TO
    note [PLAYER] SLOT [TEXT]     info [PLAYER] SLOT
    say TEXT     log     rules     help     quit     start (lobby, host only)
    abandon (ask to end the game by agreement, or agree to it)

A PLAYER is a name (or its unique beginning) or a seat number (`clue 2 red`; `#2` where a
slot number could follow), so two players with the same name can still be told apart.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar

from hanabi_p2p.errors import HanabiError, UserError
from hanabi_p2p.i18n import _, ngettext
from hanabi_p2p.limits import MAX_CHAT_CHARS, MAX_INPUT_CHARS
from hanabi_p2p.narration.terms import colour_name
from hanabi_p2p.rules.actions import Action, Clue, Discard, Move, Play
from hanabi_p2p.rules.cards import MAX_CLUE_TOKENS, RANKS, Suit
from hanabi_p2p.rules.engine import GameState
from hanabi_p2p.safe_text import fold_marks
from hanabi_p2p.ui.board import Board, board_from_state
from hanabi_p2p.ui.notes import MAX_NOTE_CHARS
from hanabi_p2p.ui.refusals import translate_refusal


class CommandError(UserError):
    """A typed command cannot be carried out now; the message (translated) says why."""


class Mode(StrEnum):
    """Which screen the command line belongs to: each accepts its own commands."""

    LOBBY = "lobby"
    TABLE = "table"
    END = "end"
    WATCH = "watch"  # a spectator's table: read-only


COMMANDS: dict[Mode, tuple[str, ...]] = {
    Mode.LOBBY: ("start", "kick", "ban", "name", "say", "rules", "help", "quit"),
    Mode.TABLE: (
        "play", "discard", "clue", "move", "note", "info", "hint", "say", "abandon", "unqueue",
        "log", "rules", "help", "quit",
    ),
    Mode.END: ("info", "log", "say", "rules", "help", "quit"),
    Mode.WATCH: ("info", "log", "rules", "help", "quit"),
}
# What a player may type and a spectator may not: it is answered with a reason, not with
# "unknown command".
PLAYERS_ONLY = ("play", "discard", "clue", "move", "note", "hint", "say", "start", "kick",
                "ban", "name", "abandon", "unqueue")


@dataclass(frozen=True, slots=True)
class SendAction:
    """Send this game action to the table."""

    action: Action


@dataclass(frozen=True, slots=True)
class Say:
    text: str


class Panel(StrEnum):
    """What the screen can show over the board instead of it (a command's word each)."""

    HELP = "help"
    RULES = "rules"
    LOG = "log"
    INFO = "info"  # a card's story


@dataclass(frozen=True, slots=True)
class Show:
    """Show a panel locally. Nothing is sent."""

    what: Panel


@dataclass(frozen=True, slots=True)
class Quit:
    pass


@dataclass(frozen=True, slots=True)
class Kick:
    """The host removes a player from the lobby before the deal: `who` as typed (a name or
    its beginning, or the seat number the lobby shows). It may come back, unless `ban`."""

    who: str
    ban: bool = False


@dataclass(frozen=True, slots=True)
class Rename:
    """A joiner asks for its seat again under another name, before the deal."""

    name: str


@dataclass(frozen=True, slots=True)
class Note:
    """Keep a private note on a card (empty text: remove it). Nothing is sent."""

    card: int
    text: str


@dataclass(frozen=True, slots=True)
class Info:
    """Show the story of a card. Nothing is sent."""

    card: int


@dataclass(frozen=True, slots=True)
class Start:
    pass


@dataclass(frozen=True, slots=True)
class Abandon:
    """Ask to end the game by agreement, or agree to it: it ends once every player has."""


@dataclass(frozen=True, slots=True)
class Hint:
    """What our computer player would do in your seat now, and why. Nothing is sent."""


@dataclass(frozen=True, slots=True)
class Queue:
    """A turn action typed during another player's turn: kept for ours (a premove, see
    `ui.premove`). Nothing is sent now. `command`: the command as the table types it."""

    action: Play | Discard | Clue
    command: str


@dataclass(frozen=True, slots=True)
class CancelPremove:
    """Drop the queued premove. Nothing is sent."""


Intent = (SendAction | Say | Show | Quit | Start | Note | Info | Kick | Rename | Hint | Abandon
          | Queue | CancelPremove)


T = TypeVar("T")

# --- matching words ---------------------------------------------------------------------------

_FOLD = str.maketrans({"ø": "o", "æ": "ae", "ß": "ss", "ı": "i"})


def fold(text: str) -> str:
    """Case- and accent-insensitive form, so "rosu" finds "roșu" and "rod" finds "rød"."""
    return fold_marks(text.casefold().translate(_FOLD))


def match_prefix(typed: str, candidates: Iterable[tuple[str, T]]) -> list[T]:
    """Values whose label equals `typed`, else whose label starts with it (folded).

    Several labels may name the same value (a colour in two languages): duplicates count once.
    """
    key = fold(typed)
    labelled = [(fold(label), value) for label, value in candidates]
    exact = _unique(value for label, value in labelled if label == key)
    if exact:
        return exact
    return _unique(value for label, value in labelled if label.startswith(key))


def _unique(values: Iterable[T]) -> list[T]:
    out: list[T] = []
    for value in values:
        if value not in out:
            out.append(value)
    return out


def colour_labels(suits: Iterable[Suit]) -> list[tuple[str, Suit]]:
    """Every way to type a colour: its letter, English name and name in the current language."""
    labels: list[tuple[str, Suit]] = []
    for suit in suits:
        labels.append((suit.letter, suit))
        labels.append((suit.value, suit))
        if suit is Suit.MULTI:
            labels.append(("multicolour", suit))
        labels.append((colour_name(suit), suit))
    return labels


# A word people may type before a slot number: the coach says "play slot 4" (in English,
# the language of the command words).
SLOT_WORD = "slot"
# One-letter shortcuts people type from habit, where the letter starts several commands.
SHORTCUTS = {"h": "help"}


def command_word(typed: str, mode: Mode) -> str:
    shortcut = SHORTCUTS.get(typed.casefold())
    if shortcut in COMMANDS[mode]:
        return shortcut
    found = match_prefix(typed, ((word, word) for word in COMMANDS[mode]))
    if len(found) == 1:
        return found[0]
    if not found:
        raise CommandError(_("unknown command '{word}': type help for the list").format(word=typed))
    raise CommandError(
        _("'{word}' could be {choices}").format(word=typed, choices=", ".join(found))
    )


# --- parsing ----------------------------------------------------------------------------------


def parse_command(line: str, state: GameState, my_seat: int, names: Sequence[str]) -> Intent | None:
    """Parse a command typed at the table; the engine state checks it before it is sent."""
    return parse_on_board(line, board_from_state(state, my_seat), names, state.check)


def parse_simple(line: str, mode: Mode) -> Intent | None:
    """Parse a command of the lobby or end screen (no game actions there)."""
    words = line.split()
    if not words:
        return None
    word = command_word(words[0], mode)
    return _common(word, line, mode)


def _common(word: str, line: str, mode: Mode) -> Intent:
    if word == "say":
        return Say(_say_text(line))
    if word == "quit":
        return Quit()
    if word == "start":
        return Start()
    rest = line.strip().split(None, 1)[1].strip() if len(line.split()) > 1 else ""
    if word == "kick":
        if not rest:
            raise CommandError(_("usage: kick NAME (or the seat number)"))
        return Kick(rest)
    if word == "ban":
        if not rest:
            raise CommandError(_("usage: ban NAME (or the seat number)"))
        return Kick(rest, ban=True)
    if word == "name":
        if not rest:
            raise CommandError(_("usage: name NEW-NAME"))
        return Rename(rest)
    return Show(Panel(word))  # (every other word of every mode is a panel's)


def _say_text(line: str) -> str:
    text = line.strip().split(None, 1)[1].strip() if len(line.split()) > 1 else ""
    if not text:
        raise CommandError(_("usage: say TEXT"))
    if len(text) > MAX_CHAT_CHARS:
        raise CommandError(
            _("that is too long to say: at most {count} characters").format(count=MAX_CHAT_CHARS)
        )
    return "".join(ch for ch in text if ch.isprintable())


def parse_on_board(
    line: str,
    board: Board,
    names: Sequence[str],
    check: Callable[[Action], None] | None = None,
    mode: Mode = Mode.TABLE,
) -> Intent | None:
    """Parse a command of a screen showing a board (the table, or the end with its final
    board); None for a blank line. Raises `CommandError` saying why."""
    if len(line) > MAX_INPUT_CHARS:
        raise CommandError(_("that command is too long"))
    words = line.split()
    if not words:
        return None
    word = command_word(words[0], mode)
    args = words[1:]
    if word in ("say", "log", "rules", "help", "quit", "start"):
        return _common(word, line, mode)
    if word == "hint":
        if args:
            raise CommandError(_("usage: hint"))
        return Hint()
    if word == "unqueue":
        if args:
            raise CommandError(_("usage: unqueue"))
        return CancelPremove()
    if word == "info":
        card, rest = _card_ref(args, board, names, _("usage: info [PLAYER] SLOT"))
        if rest:
            raise CommandError(_("usage: info [PLAYER] SLOT"))
        return Info(card)
    if word == "note":
        card, rest = _card_ref(args, board, names, _("usage: note [PLAYER] SLOT TEXT"))
        text = line.strip().split(None, 1 + len(args) - len(rest))[-1] if rest else ""
        if len(text) > MAX_NOTE_CHARS:
            raise CommandError(
                _("that note is too long: at most {count} characters").format(
                    count=MAX_NOTE_CHARS
                )
            )
        return Note(card, "".join(ch for ch in text if ch.isprintable()))
    if board.over:
        raise CommandError(_("the game is over"))
    if word == "abandon":
        if args:
            raise CommandError(_("usage: abandon"))
        return Abandon()
    if word in ("play", "discard") and len(args) > 1 and fold(args[0]) == SLOT_WORD:
        args = args[1:]  # "play slot 4", as the coach's hint words it, is "play 4"
    if word == "move":
        action: Action = _move(args, board)
    else:
        _check_turn(board, names)
        if word == "play":
            action = _play(args, board)
        elif word == "discard":
            action = _discard(args, board)
        else:
            action = _clue(line, args, board, names)
    if check is not None:
        try:
            check(action)
        except HanabiError as exc:
            # Everything the engine forbids is normally caught above with a friendlier
            # reason; this is the safety net: the engine's message, in the player's language.
            raise CommandError(translate_refusal(exc)) from None
    return SendAction(action)


def parse_at_table(
    line: str, board: Board, names: Sequence[str], check: Callable[[Action], None] | None = None
) -> Intent | None:
    """`parse_on_board` for the player's own table, where a play, discard or clue typed
    during another player's turn is queued for ours (`Queue`, a premove) instead of refused;
    it is checked as if it were our turn now, and again by `ui.premove` when it comes."""
    if board.over or board.my_turn:
        return parse_on_board(line, board, names, check)
    # the clue tokens are those of the turn to come, which the others' moves change: a
    # count allowing both a clue and a discard now, and `ui.premove` checks the real one then
    ours = dataclasses.replace(board, current_seat=board.my_seat, clue_tokens=1)
    intent = parse_on_board(line, ours, names)
    if isinstance(intent, SendAction) and isinstance(intent.action, Play | Discard | Clue):
        hands = [[cell.card for cell in hand] for hand in board.hands]
        return Queue(intent.action, typed_command(intent.action, hands, names))
    return parse_on_board(line, board, names, check)  # (a move is no turn: as ever)


def parse_watching(line: str, board: Board | None, names: Sequence[str]) -> Intent | None:
    """Parse a command of the spectator's table: only what reads the table (`info NAME
    SLOT`, `log`, `rules`, `help`) and `quit`; a player's command gets a one-line reason.
    `board` is None in the lobby, before the deal."""
    if len(line) > MAX_INPUT_CHARS:
        raise CommandError(_("that command is too long"))
    words = line.split()
    if not words:
        return None
    everything = (*COMMANDS[Mode.WATCH], *PLAYERS_ONLY)
    found = match_prefix(words[0], ((word, word) for word in everything))
    if len(found) == 1 and found[0] in PLAYERS_ONLY:
        raise CommandError(
            _("you are watching: {word} is for the players at the table").format(word=found[0])
        )
    word = command_word(words[0], Mode.WATCH)
    args = words[1:]
    if word != "info":
        return _common(word, line, Mode.WATCH)
    if board is None:
        raise CommandError(_("the game has not started yet"))
    if len(args) != 2:
        raise CommandError(_("usage: info PLAYER SLOT"))
    return Info(_their_card(args[0], args[1], board, names))


def _their_card(player: str, slot: str, board: Board, names: Sequence[str]) -> int:
    """The card id in `slot` of the hand of `player` (a name or #seat)."""
    seat = find_player(player, names)
    hand = board.hands[seat]
    if not slot.isdigit() or not 1 <= int(slot) <= len(hand):
        raise CommandError(
            _("{name} has no card in slot {slot}").format(name=_name(seat, names), slot=slot)
        )
    return hand[int(slot) - 1].card


def _name(seat: int, names: Sequence[str]) -> str:
    return names[seat] if seat < len(names) else f"#{seat + 1}"


def _check_turn(board: Board, names: Sequence[str]) -> None:
    if board.current_seat != board.my_seat:
        raise CommandError(_("it is {name}'s turn").format(name=_name(board.current_seat, names)))


def _slot(text: str, board: Board) -> int:
    """A 1-based slot typed by the player -> 0-based index into the own hand."""
    held = len(board.hands[board.my_seat])
    if not text.isdigit():
        raise CommandError(
            _("'{text}' is not a slot: give a number from 1 to {count}").format(
                text=text, count=held
            )
        )
    slot = int(text)
    if not 1 <= slot <= held:
        raise CommandError(
            ngettext(
                "slot {slot} does not exist: you hold {count} card",
                "slot {slot} does not exist: you hold {count} cards",
                held,
            ).format(slot=slot, count=held)
        )
    return slot - 1


def _colour(text: str, board: Board) -> Suit:
    found = match_prefix(text, colour_labels(Suit))
    if len(found) > 1:
        choices = ", ".join(colour_name(s) for s in found)
        raise CommandError(_("'{word}' could be {choices}").format(word=text, choices=choices))
    if not found:
        raise CommandError(_("'{word}' is not a colour").format(word=text))
    suit = found[0]
    if suit not in board.config.suits:
        raise CommandError(_("there is no {colour} in this game").format(colour=colour_name(suit)))
    if suit not in board.config.clue_colours:
        raise CommandError(
            _("{colour} cannot be named in this variant: it counts as every colour").format(
                colour=colour_name(suit)
            )
        )
    return suit


def _my_card(board: Board, index: int) -> int:
    return board.hands[board.my_seat][index].card


def _play(args: list[str], board: Board) -> Play:
    if not 1 <= len(args) <= 2:
        raise CommandError(_("usage: play SLOT [COLOUR]"))
    card = _my_card(board, _slot(args[0], board))
    announce = None
    if len(args) == 2:
        if not board.config.choreography:
            raise CommandError(_("announcing a colour needs the choreography option"))
        announce = _colour(args[1], board)
    return Play(seat=board.my_seat, card=card, announce=announce)


def _discard(args: list[str], board: Board) -> Discard:
    if len(args) != 1:
        raise CommandError(_("usage: discard SLOT"))
    card = _my_card(board, _slot(args[0], board))
    if board.clue_tokens >= MAX_CLUE_TOKENS:
        raise CommandError(
            _("you cannot discard: all {count} clue tokens are available").format(
                count=MAX_CLUE_TOKENS
            )
        )
    return Discard(seat=board.my_seat, card=card)


def _move(args: list[str], board: Board) -> Move:
    if len(args) != 2:
        raise CommandError(_("usage: move FROM TO"))
    source = _slot(args[0], board)
    target = _slot(args[1], board)
    if source == target:
        raise CommandError(_("that card is already in slot {slot}").format(slot=source + 1))
    return Move(seat=board.my_seat, card=_my_card(board, source), to=target)


def seat_number(typed: str, players: int) -> int | None:
    """The seat a typed `2` or `#2` names (1-based, as the lobby and the table number them)."""
    digits = typed[1:] if typed.startswith("#") else typed
    if digits.isdigit() and 1 <= int(digits) <= players:
        return int(digits) - 1
    return None


def find_player(typed: str, names: Sequence[str]) -> int:
    by_number = seat_number(typed, len(names))
    if by_number is not None:
        return by_number
    found = match_prefix(typed, ((name, seat) for seat, name in enumerate(names)))
    if len(found) == 1:
        return found[0]
    if not found:
        raise CommandError(
            _("nobody here is called '{name}' (players: {names})").format(
                name=typed, names=", ".join(names)
            )
        )
    # Name them with their seat numbers, which always tell players apart.
    choices = ", ".join(
        _("{name} (seat {number})").format(name=names[seat], number=seat + 1) for seat in found
    )
    raise CommandError(
        _("'{word}' could be {choices}: give the seat number instead").format(
            word=typed, choices=choices
        )
    )


def _card_ref(
    args: list[str], board: Board, names: Sequence[str], usage: str
) -> tuple[int, list[str]]:
    """(card id, the words after the reference) from `[PLAYER] SLOT ...`: a number first is
    a slot of our own hand; otherwise a player (name or #seat), then a slot of theirs."""
    if not args:
        raise CommandError(usage)
    if args[0].isdigit():
        return _my_card(board, _slot(args[0], board)), args[1:]
    if len(args) < 2:
        raise CommandError(usage)
    return _their_card(args[0], args[1], board, names), args[2:]


def _split_clue(line: str, args: list[str], names: Sequence[str]) -> tuple[str, str]:
    """(player, value) from the clue's arguments; a player's name may contain spaces."""
    rest = line.strip().split(None, 1)[1] if len(args) >= 1 else ""
    for name in sorted(names, key=len, reverse=True):
        if " " in name and fold(rest).startswith(fold(name) + " "):
            value = rest[len(name) :].strip()
            if len(value.split()) == 1:
                return name, value
    if len(args) != 2:
        raise CommandError(_("usage: clue PLAYER COLOUR|NUMBER"))
    return args[0], args[1]


def _clue(line: str, args: list[str], board: Board, names: Sequence[str]) -> Clue:
    who, value = _split_clue(line, args, names)
    target = find_player(who, names)
    if target == board.my_seat:
        raise CommandError(_("you cannot clue yourself"))
    if board.clue_tokens <= 0:
        raise CommandError(_("no clue tokens left"))
    colour: Suit | None = None
    rank: int | None = None
    if value.isdigit():
        rank = int(value)
        if rank not in RANKS:
            raise CommandError(
                _("there is no number {number}: numbers go from 1 to 5").format(number=value)
            )
    else:
        colour = _colour(value, board)
    hand = board.hands[target]
    if any(cell.face is None for cell in hand):
        raise CommandError(
            _("{name}'s cards are not all visible yet").format(name=_name(target, names))
        )
    touched = frozenset(
        cell.card
        for cell in hand
        if cell.face is not None
        and (
            board.config.colour_touches(colour, cell.face)
            if colour is not None
            else cell.face.rank == rank
        )
    )
    if not touched and not board.config.empty_clues:
        raise CommandError(
            _("that clue touches none of {name}'s cards, and empty clues are off").format(
                name=_name(target, names)
            )
        )
    return Clue(seat=board.my_seat, target=target, colour=colour, rank=rank, touched=touched)


def typed_command(
    action: Play | Discard | Clue | Move, hands: Sequence[Sequence[int]], names: Sequence[str]
) -> str:
    """What the player types for `action` on this screen (`play 1`, `discard 3`, `clue Bob
    red`): the command words are English in every language, so the coach's advice, written
    in the player's language, ends with the command that carries it out. `hands`: the card
    ids by seat and slot, as the board shows them."""
    if isinstance(action, Clue):
        name = names[action.target] if action.target < len(names) else ""
        # a seat number when the name would not find the player again (a twin, a space)
        unique = (name and " " not in name
                  and match_prefix(name, ((n, s) for s, n in enumerate(names))) == [action.target]
                  and seat_number(name, len(names)) is None)
        who = name if unique else str(action.target + 1)
        value = str(action.rank) if action.colour is None else action.colour.value
        return f"clue {who} {value}"
    if isinstance(action, Move):
        hand = list(hands[action.seat])
        return f"move {hand.index(action.card) + 1} {action.to + 1}"
    word = "play" if isinstance(action, Play) else "discard"
    slot = list(hands[action.seat]).index(action.card) + 1
    if isinstance(action, Play) and action.announce is not None:
        return f"{word} {slot} {action.announce.value}"
    return f"{word} {slot}"
