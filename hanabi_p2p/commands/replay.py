"""`hanabi-p2p replay [FILE] [--json]`: replay a hanab.live-format game through the engine.

Exit status: 0 every action legal, 1 an illegal action (the replay stops there, the state
shown is the one before it), 2 the file cannot be used (one line on stderr, via the CLI's
HanabiError handling).
"""

from __future__ import annotations

import argparse
import json
from importlib import resources
from pathlib import Path
from typing import Any

from hanabi_p2p import i18n
from hanabi_p2p.commands import replay_interactive
from hanabi_p2p.errors import IllegalAction, LocalProtocolError
from hanabi_p2p.hanablive import ImportedGame, InvalidGameFile, load_game
from hanabi_p2p.narration.narrator import describe, final_summary
from hanabi_p2p.rules.engine import GameState

HELP = "replay a game file (hanab.live JSON) turn by turn, or the bundled example"

# A long real game is ~40 kB; anything near this limit is not a Hanabi game.
MAX_FILE_BYTES = 5_000_000
EXAMPLE_NAME = "example_game.json"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", nargs="?", metavar="FILE",
                        help="game file in hanab.live's JSON format (default: the example)")
    parser.add_argument("--example", action="store_true",
                        help="replay the example game bundled with hanabi-p2p")
    parser.add_argument("--json", action="store_true",
                        help="end with one JSON line summarising the result")
    replay_interactive.add_file_arguments(parser)


def _read(args: argparse.Namespace) -> tuple[str, bytes]:
    if args.example or args.file is None:
        data = resources.files("hanabi_p2p").joinpath("data", EXAMPLE_NAME).read_bytes()
        return "example game", data
    path = Path(args.file)
    try:
        with path.open("rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise InvalidGameFile(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise InvalidGameFile(f"{path}: larger than {MAX_FILE_BYTES} bytes")
    return str(path), data


def _parse(label: str, data: bytes) -> ImportedGame:
    try:
        obj = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        where = f" (line {exc.lineno})" if isinstance(exc, json.JSONDecodeError) else ""
        raise InvalidGameFile(f"{label}: not valid JSON{where}") from None
    except RecursionError:
        raise InvalidGameFile(f"{label}: JSON nested too deeply") from None
    try:
        return load_game(obj)
    except InvalidGameFile as exc:
        raise InvalidGameFile(f"{label}: {exc}") from None


def summary(game: ImportedGame, state: GameState, illegal: dict[str, Any] | None) -> dict[str, Any]:
    """The --json line: the state reached and the first illegal action, if any."""
    return {
        "variant": game.config.variant.value,
        "options": list(game.config.options),
        "players": game.config.players,
        "names": list(game.players),
        "score": state.score,
        "fireworks_total": state.fireworks_total,
        "max_score": state.max_score,
        "rating": state.rating,
        "strikes": state.strikes,
        "clues": state.clue_tokens,
        "turns": state.turn,
        "actions_applied": len(state.history),
        "cards_left": state.cards_left,
        "over": state.over,
        "end": state.end.value,
        "fireworks": {suit.value: rank for suit, rank in state.fireworks.items()},
        "illegal": illegal,
    }


def run(args: argparse.Namespace) -> int:
    i18n.resolve_language(args.lang)  # an unknown --lang is refused even where it is unused
    label, data = _read(args)
    game = _parse(label, data)
    if args.interactive:
        return replay_interactive.run_file_replay(args, game, label)
    names = game.players
    state = GameState(game.config, game.faces)
    if not args.json:
        options = ", ".join(game.config.options) or "no options"
        print(f"{label}: {game.config.variant.value}, {options}; players {', '.join(names)}")
    illegal: dict[str, Any] | None = None
    for index, action in enumerate(game.actions):
        before = state.copy()
        try:
            outcome = state.apply(action)
        except (IllegalAction, LocalProtocolError) as exc:
            illegal = {"action_index": index, "reason": str(exc)}
            if not args.json:
                print(f"action {index} is illegal ({names[action.seat]}): {exc}")
            break
        if not args.json:
            # the one narrator, as on the table, in headless lines and log show
            text = "; ".join(describe(action, outcome, names, before.hands, before))
            print(f"turn {before.turn + 1:<3} {text}")
            if before.final_round_turns_left is None and state.final_round_turns_left:
                print(f"         the last card is drawn: final round of "
                      f"{state.final_round_turns_left} turns")
    if args.json:
        print(json.dumps(summary(game, state, illegal), sort_keys=True))
    else:
        for line in final_summary(state):
            print(line)
    return 1 if illegal else 0
