"""hanab.live's JSON game format: import (``load_game``) and export (``export_game``).

The format (see tests/data/hanablive/README.md): ``players`` (seat names, seat 0 first),
``deck`` (top first, ``{suitIndex, rank}``), ``actions`` (``{type, target, value}``: 0 play
and 1 discard with target = deck index, 2 colour clue and 3 rank clue with target = seat and
value = clue-colour index or rank, 4 game over with target = seat) and optional ``options``
(``variant``, ``emptyClues``, ``allOrNothing``; others are ignored).

Suit indices follow ``GameConfig.suits`` (the five base suits, then multicolour); a colour
clue's value indexes ``GameConfig.clue_colours`` (so no multicolour clue in rainbow).

hanab.live has no choreography option. So that our own games survive a round trip, export
writes ``options.choreography = true`` and, for a play with an announcement, ``value`` =
1 + the announced colour's clue-colour index (hanab.live leaves a play's value 0); import
reads both back.

The file is user input: every field is type-checked and size-limited, and anything wrong
raises ``InvalidGameFile`` with a one-line reason.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hanabi_p2p.errors import UserError
from hanabi_p2p.rules.actions import Action, Clue, Discard, Move, Play, Terminate
from hanabi_p2p.rules.cards import Card, GameConfig, Suit, Variant

MAX_PLAYER_NAME_LENGTH = 64
# a game has at most deck + 8 + (tokens regained) turns; 10 000 is far beyond any real game
MAX_ACTIONS = 10_000
# The most digits an integer in a game file may have: every field is a small index, count or
# rank; hanab.live's own ids and timestamps fit in 18 (a signed 64-bit integer).
MAX_INT_DIGITS = 18

VARIANT_NAMES: dict[str, Variant] = {
    "No Variant": Variant.STANDARD,
    "6 Suits": Variant.MULTICOLOR,
    "Black (6 Suits)": Variant.MULTICOLOR_SHORT,
    "Rainbow (6 Suits)": Variant.RAINBOW,
}
HANABLIVE_NAME: dict[Variant, str] = {variant: name for name, variant in VARIANT_NAMES.items()}

ACTION_PLAY = 0
ACTION_DISCARD = 1
ACTION_COLOUR_CLUE = 2
ACTION_RANK_CLUE = 3
ACTION_GAME_OVER = 4
# hanab.live's end condition for a game ended by a player ("terminated")
END_CONDITION_TERMINATED = 4


class InvalidGameFile(UserError):
    """The game file cannot be used: the message says which field is wrong."""


def bounded_int(digits: str) -> int:
    """A JSON integer as ``json.loads(parse_int=...)`` hands it over, checked before it is
    made a number: no field of a game needs more than MAX_INT_DIGITS digits, and a longer
    one (100,000 digits) would cost time, raise past Python's own digit limit, and fill an
    error message."""
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise InvalidGameFile(f"a number of {len(digits.lstrip('-')):,} digits (no field of "
                              f"a game has more than {MAX_INT_DIGITS})")
    return int(digits)


@dataclass(frozen=True, slots=True)
class ImportedGame:
    config: GameConfig
    players: tuple[str, ...]
    faces: list[Card]
    actions: list[Action]


def _field(obj: dict[str, Any], name: str, kind: type, where: str) -> Any:
    if name not in obj:
        raise InvalidGameFile(f"{where}: missing field {name!r}")
    value = obj[name]
    # bool is an int subclass: true/false must not pass for a number
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise InvalidGameFile(f"{where}: field {name!r} must be {kind.__name__}")
    return value


def _config(obj: dict[str, Any], players: int) -> GameConfig:
    options = obj.get("options", {})
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise InvalidGameFile("game: field 'options' must be an object")
    name = options.get("variant", "No Variant")
    if not isinstance(name, str):
        raise InvalidGameFile("options: field 'variant' must be str")
    if name not in VARIANT_NAMES:
        known = ", ".join(repr(n) for n in VARIANT_NAMES)
        raise InvalidGameFile(f"unknown variant {name[:80]!r} (supported: {known})")
    flags = {}
    for key, option in (("emptyClues", "empty_clues"), ("allOrNothing", "all_or_nothing"),
                        ("choreography", "choreography")):
        value = options.get(key, False)
        if not isinstance(value, bool):
            raise InvalidGameFile(f"options: field {key!r} must be true or false")
        flags[option] = value
    if not 2 <= players <= 5:
        raise InvalidGameFile(f"Hanabi is for 2 to 5 players, this game has {players}")
    return GameConfig(players=players, variant=VARIANT_NAMES[name], **flags)


def _players(obj: dict[str, Any]) -> tuple[str, ...]:
    names = _field(obj, "players", list, "game")
    if not 2 <= len(names) <= 5:
        raise InvalidGameFile(f"Hanabi is for 2 to 5 players, this game has {len(names)}")
    for name in names:
        if not isinstance(name, str) or not 0 < len(name) <= MAX_PLAYER_NAME_LENGTH:
            raise InvalidGameFile(
                f"players: each name must be a string of 1 to {MAX_PLAYER_NAME_LENGTH} characters"
            )
    return tuple(names)


def _deck(obj: dict[str, Any], config: GameConfig) -> list[Card]:
    raw = _field(obj, "deck", list, "game")
    suits = config.suits
    faces: list[Card] = []
    for i, entry in enumerate(raw[: config.deck_size + 1]):
        where = f"deck[{i}]"
        if not isinstance(entry, dict):
            raise InvalidGameFile(f"{where}: must be an object")
        suit = _field(entry, "suitIndex", int, where)
        rank = _field(entry, "rank", int, where)
        if not 0 <= suit < len(suits) or not 1 <= rank <= 5:
            raise InvalidGameFile(f"{where}: no card with suitIndex {suit}, rank {rank}")
        faces.append(Card(suits[suit], rank))
    if Counter(faces) != Counter(config.deck_faces()):
        raise InvalidGameFile(
            f"deck: not the {config.variant.value} deck of {config.deck_size} cards "
            f"(got {len(raw)} cards or the wrong copies)"
        )
    return faces


def _actions(obj: dict[str, Any], config: GameConfig) -> list[Action]:
    raw = _field(obj, "actions", list, "game")
    if len(raw) > MAX_ACTIONS:
        raise InvalidGameFile(f"actions: more than {MAX_ACTIONS}")
    colours = config.clue_colours
    players = config.players
    actions: list[Action] = []
    turns = 0  # hanab.live actions do not name their actor: it is the seat whose turn it is
    for i, entry in enumerate(raw):
        where = f"actions[{i}]"
        if not isinstance(entry, dict):
            raise InvalidGameFile(f"{where}: must be an object")
        kind = _field(entry, "type", int, where)
        target = _field(entry, "target", int, where)
        value = entry.get("value", 0)
        if value is None:
            value = 0
        if not isinstance(value, int) or isinstance(value, bool):
            raise InvalidGameFile(f"{where}: field 'value' must be int")
        seat = turns % players
        action: Action
        if kind in (ACTION_PLAY, ACTION_DISCARD):
            if not 0 <= target < config.deck_size:
                raise InvalidGameFile(f"{where}: no card {target} in the deck")
            if kind == ACTION_DISCARD:
                action = Discard(seat, target)
            elif value == 0:
                action = Play(seat, target)
            elif 1 <= value <= len(colours):
                action = Play(seat, target, announce=colours[value - 1])
            else:
                raise InvalidGameFile(f"{where}: no announced colour {value}")
        elif kind in (ACTION_COLOUR_CLUE, ACTION_RANK_CLUE, ACTION_GAME_OVER):
            if not 0 <= target < players:
                raise InvalidGameFile(f"{where}: no seat {target}")
            if kind == ACTION_GAME_OVER:
                action = Terminate(target)
            elif kind == ACTION_RANK_CLUE:
                if not 1 <= value <= 5:
                    raise InvalidGameFile(f"{where}: no number {value}")
                action = Clue(seat, target, rank=value)
            else:
                # The variant's clue colours first, then the suits it cannot name: a clue
                # naming one of those (5 in "Rainbow (6 Suits)" or in a 5-suit game) is a
                # readable action that breaks a rule, refused by the engine (replay exit 1
                # naming it); only an index that names no suit at all is unreadable.
                by_index = (*colours, *(s for s in Suit if s not in colours))
                if not 0 <= value < len(by_index):
                    raise InvalidGameFile(f"{where}: no clue colour {value}")
                action = Clue(seat, target, colour=by_index[value])
        else:
            raise InvalidGameFile(f"{where}: unknown action type {kind}")
        if kind != ACTION_GAME_OVER:
            turns += 1
        actions.append(action)
    return actions


def load_game(obj: object) -> ImportedGame:
    """Validate a decoded hanab.live JSON game and turn it into our types.

    Only the structure is checked here; whether each action is legal is the engine's job.
    """
    if not isinstance(obj, dict):
        raise InvalidGameFile("a hanab.live game must be a JSON object")
    players = _players(obj)
    config = _config(obj, len(players))
    faces = _deck(obj, config)
    actions = _actions(obj, config)
    return ImportedGame(config=config, players=players, faces=faces, actions=actions)


def export_game(
    config: GameConfig,
    players: Sequence[str],
    faces: Sequence[Card | None],
    actions: Sequence[Action],
) -> dict[str, Any]:
    """The inverse of ``load_game``: a JSON-ready dict in hanab.live's format.

    Every face must be known (an audited game). ``Move`` has no hanab.live equivalent and
    is left out (hand order never changes the rules).
    """
    if len(players) != config.players:
        raise InvalidGameFile(f"{config.players} seats but {len(players)} player names")
    if len(faces) != config.deck_size:
        raise InvalidGameFile(f"a {config.variant.value} deck has {config.deck_size} cards")
    suit_index = {suit: i for i, suit in enumerate(config.suits)}
    colour_index = {colour: i for i, colour in enumerate(config.clue_colours)}
    deck = []
    for i, face in enumerate(faces):
        if face is None:
            raise InvalidGameFile(f"card {i}'s face is unknown: only a revealed deck exports")
        deck.append({"suitIndex": suit_index[face.suit], "rank": face.rank})
    out_actions: list[dict[str, int]] = []
    for action in actions:
        if isinstance(action, Play):
            value = 0 if action.announce is None else colour_index[action.announce] + 1
            out_actions.append({"type": ACTION_PLAY, "target": action.card, "value": value})
        elif isinstance(action, Discard):
            out_actions.append({"type": ACTION_DISCARD, "target": action.card, "value": 0})
        elif isinstance(action, Clue):
            if action.colour is not None:
                out_actions.append({"type": ACTION_COLOUR_CLUE, "target": action.target,
                                    "value": colour_index[action.colour]})
            else:
                out_actions.append({"type": ACTION_RANK_CLUE, "target": action.target,
                                    "value": action.rank or 0})
        elif isinstance(action, Terminate):
            out_actions.append({"type": ACTION_GAME_OVER, "target": action.seat,
                                "value": END_CONDITION_TERMINATED})
        elif not isinstance(action, Move):
            raise InvalidGameFile(f"cannot export {action!r}")
    options: dict[str, Any] = {"variant": HANABLIVE_NAME[config.variant]}
    if config.empty_clues:
        options["emptyClues"] = True
    if config.all_or_nothing:
        options["allOrNothing"] = True
    if config.choreography:
        options["choreography"] = True
    return {"players": list(players), "deck": deck, "actions": out_actions, "options": options}
