"""Engine throughput: random full games (seeded random legal actions) on one core.

    .venv/bin/python bench/engine.py [--seconds 5] [--players 3] [--variant standard]

Two policies share the time budget, each game shuffling its deck with its own seed:

* uniform: a uniformly random action of ``legal_actions()`` until the game ends. Random
  plays misplay, so these games are short (most end by strikeout).
* full (never misplay): the same, but never a play that would fail (the bench sees every
  face), so games run to the deck's end and the final round: the cost of a full-length game,
  the one computer players pay. The issue asks for >= 500 games/s on one core.

Prints both, and as the last line one JSON object
{"games_per_s": <uniform>, "full_games_per_s": <never misplay>, ...}.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable

from hanabi_p2p.rules.actions import Play, TurnAction
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.rules.engine import GameState

Policy = Callable[[GameState, random.Random], TurnAction]


def uniform(state: GameState, rng: random.Random) -> TurnAction:
    return rng.choice(state.legal_actions())


def never_misplay(state: GameState, rng: random.Random) -> TurnAction:
    fireworks = state.fireworks
    faces = state.faces
    # Cards of the current hand that would join their firework: every other Play misplays.
    safe = {card for card in state.hands[state.current_seat]
            if (face := faces[card]) is not None and fireworks[face.suit] == face.rank - 1}
    # type() rather than isinstance(): this filter runs over every legal action of every
    # turn and is a visible share of the bench's time (actions are final dataclasses).
    options = [action for action in state.legal_actions()
               if type(action) is not Play or (action.card in safe and action.announce is None)]
    return rng.choice(options)


def play_one(config: GameConfig, seed: int, policy: Policy) -> int:
    rng = random.Random(seed)
    faces = config.deck_faces()
    rng.shuffle(faces)
    state = GameState(config, faces)
    while not state.over:
        state.apply(policy(state, rng))
    return state.turn


def measure(config: GameConfig, policy: Policy, seconds: float) -> tuple[int, int, float]:
    games = turns = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        turns += play_one(config, games, policy)
        games += 1
    return games, turns, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="total time budget")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--option", action="append", default=[])
    args = parser.parse_args()
    config = GameConfig.from_names(args.players, args.variant, args.option)
    print(f"{config.players} players, {config.variant.value} {' '.join(config.options)}")
    result: dict[str, object] = {}
    for name, policy in (("uniform", uniform), ("full", never_misplay)):
        games, turns, elapsed = measure(config, policy, args.seconds / 2)
        print(f"{name:7} {games} games, {turns} turns in {elapsed:.2f} s: "
              f"{games / elapsed:.0f} games/s, {turns / elapsed:.0f} turns/s, "
              f"{turns / games:.1f} turns/game")
        prefix = "" if name == "uniform" else "full_"
        result[f"{prefix}games_per_s"] = round(games / elapsed, 1)
        result[f"{prefix}turns_per_s"] = round(turns / elapsed)
    result.update(players=config.players, variant=config.variant.value)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
