"""hanab.live JSON import/export: mapping, round trips and one error per kind of bad file."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
from engine_helpers import card

from hanabi_p2p.errors import UserError
from hanabi_p2p.hanablive import InvalidGameFile, export_game, load_game
from hanabi_p2p.rules.actions import Clue, Discard, Move, Play, Terminate
from hanabi_p2p.rules.cards import GameConfig, Suit, Variant
from hanabi_p2p.rules.engine import GameState

EXAMPLE = Path(__file__).parents[1] / "data" / "hanablive" / "example_game.json"


def _example() -> dict[str, Any]:
    obj: dict[str, Any] = json.loads(EXAMPLE.read_text())
    return obj


def _deck(config: GameConfig) -> list[dict[str, int]]:
    suits = {suit: i for i, suit in enumerate(config.suits)}
    return [{"suitIndex": suits[f.suit], "rank": f.rank} for f in config.deck_faces()]


def test_load_maps_players_deck_and_actions() -> None:
    game = load_game(_example())
    assert game.players == ("Alice", "Bob", "Cathy")
    assert game.config == GameConfig(3)
    assert game.faces[:3] == [card("G3"), card("G3"), card("B1")]
    # actor seats follow turn order; colour clue value 2 is green
    assert game.actions[:2] == [Clue(0, 1, colour=Suit.GREEN), Play(1, 6)]


@pytest.mark.parametrize(
    ("name", "variant"),
    [("No Variant", Variant.STANDARD), ("6 Suits", Variant.MULTICOLOR),
     ("Black (6 Suits)", Variant.MULTICOLOR_SHORT), ("Rainbow (6 Suits)", Variant.RAINBOW)],
)
def test_variant_names(name: str, variant: Variant) -> None:
    config = GameConfig(2, variant)
    obj = {"players": ["a", "b"], "deck": _deck(config), "actions": [],
           "options": {"variant": name, "emptyClues": True, "allOrNothing": True,
                       "deckPlays": True}}
    assert load_game(obj).config == GameConfig(2, variant, all_or_nothing=True,
                                               empty_clues=True)


def test_colour_clue_value_indexes_the_variant_clue_colours() -> None:
    multi = GameConfig(2, Variant.MULTICOLOR)
    obj = {"players": ["a", "b"], "deck": _deck(multi), "options": {"variant": "6 Suits"},
           "actions": [{"type": 2, "target": 1, "value": 5}]}
    assert load_game(obj).actions == [Clue(0, 1, colour=Suit.MULTI)]
    # a colour the variant cannot name is read (the engine refuses it: replay exits 1)
    obj["options"] = {"variant": "Rainbow (6 Suits)"}
    assert load_game(obj).actions == [Clue(0, 1, colour=Suit.MULTI)]
    obj["actions"] = [{"type": 2, "target": 1, "value": 6}]
    with pytest.raises(InvalidGameFile, match=r"actions\[0\]: no clue colour 6"):
        load_game(obj)


def test_game_over_action_becomes_terminate_and_takes_no_turn() -> None:
    obj = _example()
    obj["actions"] = [{"type": 4, "target": 2, "value": 4}, {"type": 3, "target": 0, "value": 1}]
    assert load_game(obj).actions == [Terminate(2), Clue(0, 0, rank=1)]


def test_export_of_a_conformance_game_gives_back_the_same_deck_and_actions() -> None:
    original = _example()
    game = load_game(original)
    exported = export_game(game.config, game.players, game.faces, game.actions)
    assert exported["deck"] == original["deck"] and exported["players"] == original["players"]
    assert [(a["type"], a["target"], a["value"]) for a in exported["actions"]] == [
        (a["type"], a["target"], a["value"]) for a in original["actions"]
    ]
    assert exported["options"] == {"variant": "No Variant"}


@pytest.mark.parametrize("variant", list(Variant))
def test_round_trip_of_random_games_with_every_option(variant: Variant) -> None:
    rng = random.Random(variant.value)
    config = GameConfig(3, variant, all_or_nothing=True, choreography=True, empty_clues=True)
    faces = config.deck_faces()
    rng.shuffle(faces)
    state = GameState(config, faces)
    state.apply(Move(2, state.hands[2][0], 3))
    while not state.over and state.turn < 40:
        state.apply(rng.choice(state.legal_actions()))
    if not state.over:
        state.apply(Terminate(1))
    names = ["Ann", "Bo", "Cy"]
    text = json.dumps(export_game(config, names, faces, state.history))
    back = load_game(json.loads(text))
    assert back.config == config and back.faces == faces and back.players == tuple(names)
    turns = [a for a in state.history if not isinstance(a, Move)]
    # declared touched sets are not part of the format: compare without them
    assert back.actions == [Clue(a.seat, a.target, a.colour, a.rank) if isinstance(a, Clue)
                            else a for a in turns]
    replay = GameState(back.config, back.faces)
    for action in back.actions:
        replay.apply(action)
    assert replay.public_hash() == state.public_hash()


def test_export_needs_every_face() -> None:
    config = GameConfig(2)
    faces = [*config.deck_faces()[:-1], None]
    with pytest.raises(InvalidGameFile, match="card 49's face is unknown"):
        export_game(config, ["a", "b"], faces, [Discard(0, 1)])


def _broken(change: str) -> Any:
    obj = _example()
    if change == "not an object":
        return [obj]
    if change == "no players":
        del obj["players"]
    elif change == "one player":
        obj["players"] = ["solo"]
    elif change == "six players":
        obj["players"] = list("abcdef")
    elif change == "players not a list":
        obj["players"] = "Alice"
    elif change == "name not a string":
        obj["players"][1] = 7
    elif change == "unknown variant":
        obj["options"] = {"variant": "Null (5 Suits)"}
    elif change == "option not a bool":
        obj["options"] = {"emptyClues": "yes"}
    elif change == "short deck":
        obj["deck"].pop()
    elif change == "duplicated card":
        obj["deck"][0] = obj["deck"][1] = {"suitIndex": 0, "rank": 5}
    elif change == "suit out of range":
        obj["deck"][0] = {"suitIndex": 5, "rank": 1}
    elif change == "rank as string":
        obj["deck"][0] = {"suitIndex": 0, "rank": "1"}
    elif change == "rank as bool":
        obj["deck"][0] = {"suitIndex": 0, "rank": True}
    elif change == "no actions":
        del obj["actions"]
    elif change == "unknown action type":
        obj["actions"][0] = {"type": 9, "target": 0, "value": 0}
    elif change == "play of a card outside the deck":
        obj["actions"][1] = {"type": 0, "target": 50, "value": 0}
    elif change == "clue to no seat":
        obj["actions"][0] = {"type": 3, "target": 3, "value": 1}
    elif change == "rank clue 6":
        obj["actions"][0] = {"type": 3, "target": 1, "value": 6}
    elif change == "action without target":
        obj["actions"][0] = {"type": 3, "value": 1}
    return obj


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("not an object", "must be a JSON object"),
        ("no players", "missing field 'players'"),
        ("one player", "2 to 5 players, this game has 1"),
        ("six players", "2 to 5 players, this game has 6"),
        ("players not a list", "field 'players' must be list"),
        ("name not a string", "each name must be a string"),
        ("unknown variant", r"unknown variant 'Null \(5 Suits\)'"),
        ("option not a bool", "'emptyClues' must be true or false"),
        ("short deck", "deck: not the standard deck of 50 cards"),
        ("duplicated card", "deck: not the standard deck"),
        ("suit out of range", r"deck\[0\]: no card with suitIndex 5"),
        ("rank as string", r"deck\[0\]: field 'rank' must be int"),
        ("rank as bool", r"deck\[0\]: field 'rank' must be int"),
        ("no actions", "missing field 'actions'"),
        ("unknown action type", "unknown action type 9"),
        ("play of a card outside the deck", r"actions\[1\]: no card 50 in the deck"),
        ("clue to no seat", r"actions\[0\]: no seat 3"),
        ("rank clue 6", r"actions\[0\]: no number 6"),
        ("action without target", r"actions\[0\]: missing field 'target'"),
    ],
)
def test_invalid_files_raise_a_one_line_user_error(change: str, message: str) -> None:
    with pytest.raises(InvalidGameFile, match=message) as info:
        load_game(_broken(change))
    assert isinstance(info.value, UserError) and "\n" not in str(info.value)


def test_untouched_example_is_valid() -> None:
    assert len(load_game(copy.deepcopy(_example())).actions) == len(_example()["actions"])
