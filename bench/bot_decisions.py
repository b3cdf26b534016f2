"""Does a change to the computer player keep every decision? Record, then check.

    .venv/bin/python bench/bot_decisions.py record FILE [--quick]
    .venv/bin/python bench/bot_decisions.py check FILE [--quick]

A change meant only to make the convention player faster must not change what it does.
``record`` plays seeded self-play games (the tuning range's first seeds, as bench/bots.py
deals them) and writes, per game, a digest of every decision: the action, its reason and the
coach's text; ``check`` plays them again and names the games whose digest differs (exit 1).
Record before the change, check after each step. The games: 300 at 2-5 players at each
H-group level 1-5 and at the default, and 40 per table size in each other variant and with
the empty-clue and all-or-nothing options (7,840 games, about 480,000 decisions, some two
minutes of CPU); ``--quick`` plays the first sixth of each (1,360 games, 20 s).
The last line is one JSON object: games, decisions, differing games.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from hanabi_p2p.bots.hgroup import HGroupPlayer
from hanabi_p2p.rules.cards import GameConfig, Variant
from hanabi_p2p.rules.engine import GameState

GAMES = 300  # per table size and level, standard deck
OTHER_GAMES = 40  # per table size in each other variant or option set
QUICK_SHARE = 6  # --quick plays 1 game in this many (at least 10 a set)


def game_sets() -> Iterator[tuple[GameConfig, int | None, int]]:
    """(table, H-group level, games) of every set of games played."""
    for players in (2, 3, 4, 5):
        for level in (None, 1, 2, 3, 4, 5):
            yield GameConfig(players), level, GAMES
        for variant in (Variant.RAINBOW, Variant.MULTICOLOR, Variant.MULTICOLOR_SHORT):
            yield GameConfig(players, variant=variant), None, OTHER_GAMES
        yield GameConfig(players, empty_clues=True, all_or_nothing=True), None, OTHER_GAMES


def decisions(config: GameConfig, seed: int, level: int | None) -> list[str]:
    """Every decision of one self-play game, in words (action, reason, text), then its score."""
    rng = random.Random(seed)
    faces = config.deck_faces()
    rng.shuffle(faces)
    state = GameState(config, faces)
    seats = [HGroupPlayer(config, seat, level) for seat in range(config.players)]
    out = []
    while not state.over:
        advice = seats[state.current_seat].advise(state)
        out.append(f"{advice.action!r}|{advice.reason.value}|{advice.text}")
        state.apply(advice.action)
    out.append(f"score {state.score}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("mode", choices=["record", "check"])
    parser.add_argument("file", type=Path)
    parser.add_argument("--quick", action="store_true", help="a sixth of the games")
    args = parser.parse_args()
    digests: dict[str, list[str]] = {}
    count = 0
    cpu = time.process_time()
    for config, level, full in game_sets():
        games = max(10, full // QUICK_SHARE) if args.quick else full
        key = f"{config.players}p {config.variant.value} {config.options} level {level}"
        digests[key] = []
        for seed in range(games):
            said = decisions(config, seed, level)
            count += len(said) - 1
            digests[key].append(hashlib.sha256("\n".join(said).encode()).hexdigest()[:16])
    games_played = sum(len(v) for v in digests.values())
    cpu = time.process_time() - cpu
    if args.mode == "record":
        args.file.write_text(json.dumps(digests, indent=0))
        print(f"recorded {games_played} games, {count} decisions ({cpu:.0f} CPU s)")
        print(json.dumps({"games": games_played, "decisions": count}))
        return
    recorded = json.loads(args.file.read_text())
    differ = [f"{key} game {i}" for key, seqs in digests.items()
              for i, digest in enumerate(seqs)
              if i >= len(recorded.get(key, [])) or recorded[key][i] != digest]
    for where in differ[:20]:
        print("different:", where)
    print(f"checked {games_played} games, {count} decisions ({cpu:.0f} CPU s): "
          f"{len(differ)} different")
    print(json.dumps({"games": games_played, "decisions": count, "different": len(differ)}))
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
