"""Computer players' strength and speed: seeded self-play games through the rules engine.

    .venv/bin/python bench/bots.py --players 3 --games 2000 [--variant standard]
                                   [--seeds reporting|tuning] [--seed 0] [--bot hgroup]
                                   [--option NAME] [--losses] [--level N]

``--players`` takes one or more table sizes. Game ``i`` of a table size shuffles its deck
with ``random.Random(start + seed + i)``, where ``start`` is the first seed of the chosen
range, so a run is reproducible and two bots meet the same decks.

Two seed ranges, so that no figure we report flatters a constant tuned on it:

* ``tuning`` (``TUNING_SEEDS``, seeds 0 to 999,999): where the convention player's constants
  are tried and chosen. Every figure in a ``Measured`` comment of ``hanabi_p2p/bots`` comes
  from this range (its "seeds 0..", "seeds 5000..", "seeds 10000.." are offsets in it);
* ``reporting`` (``REPORTING_SEEDS``, seeds 1,000,000 to 1,999,999), the default: the
  figures we publish (README, issues, closing notes). No constant is chosen on these: a
  change tuned on a reporting seed would make the reported figure optimistic again.

``--level N`` has the convention player follow H-group level N (bots/levels.py; default:
every convention it knows but those it skips among computer players).
``--seed`` is an offset inside the range; a run that would leave its range is refused.
Per table size it prints the mean score under both scoring rules (the rulebook's, where a
strikeout scores 0, and "fireworks kept", where it scores the fireworks on the table), the
standard error of each mean, the perfect-game and strikeout rates, games per second, and the
slowest single decision. The last line is one JSON object with those figures.

``--losses`` also says where the points short of the maximum went, per game (the JSON object
then has them under "losses", by table size):

* ``strikeout``: the fireworks a strikeout scored 0;
* a suit cut short (every copy of a rank it still needed is gone) loses the ranks from that
  one up, by how its last copy went: ``cut_chop`` (discarded untouched by any clue),
  ``cut_clued`` (discarded though a clue had touched it), ``cut_misplay``;
* ``time_clued``, ``time_unclued``: a suit that could still be finished when the game ended
  (or that stopped below the rank it lost): the ranks it missed, by whether the next card it
  needed was touched by a clue in someone's hand at the end or not.

Counting them makes the games slower: the games/s figures of such a run are not the player's.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time
from collections import Counter
from dataclasses import asdict, dataclass

from hanabi_p2p.bots import BotKind, make_player
from hanabi_p2p.bots.levels import LEVELS
from hanabi_p2p.rules.actions import Discard, Play
from hanabi_p2p.rules.cards import Card, GameConfig
from hanabi_p2p.rules.engine import End, GameState
from hanabi_p2p.rules.faces import RANKS_PER_SUIT, face_table

# The two seed ranges (see the module's docstring): tune on the first, report on the second.
TUNING_SEEDS = range(0, 1_000_000)
REPORTING_SEEDS = range(1_000_000, 2_000_000)
SEED_RANGES = {"tuning": TUNING_SEEDS, "reporting": REPORTING_SEEDS}


def first_seed(seeds: range, offset: int, games: int) -> int:
    """The seed of game 0 of a run of ``games`` games from ``offset`` inside ``seeds``; a run
    that would leave the range is a ValueError (its figures would mix the two)."""
    if offset < 0 or games < 0 or offset + games > len(seeds):
        raise ValueError(f"games {offset}..{offset + games - 1} leave the range "
                         f"{seeds.start}..{seeds.stop - 1}")
    return seeds.start + offset


@dataclass
class TableFigures:
    players: int
    games: int
    mean: float  # strikeout scores 0
    stderr: float
    mean_kept: float  # strikeout keeps the fireworks
    stderr_kept: float
    perfect_rate: float
    strikeout_rate: float
    games_per_s: float  # wall clock
    games_per_cpu_s: float  # this process's CPU time: fairer on a busy machine
    max_decision_ms: float  # wall clock
    max_decision_cpu_ms: float


def shuffled_faces(config: GameConfig, seed: int) -> list[Card]:
    """Game ``seed``'s deck: its faces by deck position (0 = dealt first). Every bot measured
    on a seed meets this deck (bench/hgroup_anchor.py gives it to the H-group bot too)."""
    faces = config.deck_faces()
    random.Random(seed).shuffle(faces)
    return faces


def play_game(config: GameConfig, seed: int, kind: BotKind,
              losses: Counter[str] | None = None,
              level: int | None = None) -> tuple[GameState, float, float]:
    """One self-play game; returns the final state and its slowest decision (seconds, wall
    clock and CPU time). With ``losses``, adds to it where this game's missing points went
    (see the module's docstring)."""
    state = GameState(config, shuffled_faces(config, seed))
    seats = [make_player(kind, config, seat, level) for seat in range(config.players)]
    slowest = slowest_cpu = 0.0
    # face index -> how its last copy to leave the game went (when losses are counted)
    last_gone: dict[int, str] = {}
    table = face_table(config)
    while not state.over:
        start = time.perf_counter()
        cpu_start = time.process_time()
        action = seats[state.current_seat].act(state)
        slowest = max(slowest, time.perf_counter() - start)
        slowest_cpu = max(slowest_cpu, time.process_time() - cpu_start)
        if losses is not None and isinstance(action, Play | Discard):
            how = ("cut_misplay" if isinstance(action, Play)
                   else "cut_clued" if any(r.touched for r in state.clues[action.card])
                   else "cut_chop")
            face = state.faces[action.card]
            outcome = state.apply(action)
            if face is not None and not outcome.placed:
                last_gone[table.index(face)] = how
            continue
        state.apply(action)
    if losses is not None:
        count_losses(state, last_gone, losses)
    return state, slowest, slowest_cpu


def count_losses(state: GameState, last_gone: dict[int, str], losses: Counter[str]) -> None:
    """Add to ``losses`` where the points ``state`` (a finished game) is short went."""
    config = state.config
    table = face_table(config)
    if state.end is End.STRIKEOUT:
        losses["strikeout"] += state.fireworks_total
    gone = Counter(table.index(f) for c in state.discard_pile if (f := state.faces[c]))
    where: dict[int, bool] = {}  # face index -> some copy in a hand is touched by a clue
    for hand in state.hands:
        for c in hand:
            if (f := state.faces[c]) is not None:
                i = table.index(f)
                where[i] = where.get(i, False) or any(r.touched for r in state.clues[c])
    for s, top in enumerate(state.fireworks.values()):
        base = s * RANKS_PER_SUIT
        cut = next((r for r in range(top, RANKS_PER_SUIT)
                    if gone[base + r] >= table.copies[base + r]), RANKS_PER_SUIT)
        if cut < RANKS_PER_SUIT:
            losses[last_gone.get(base + cut, "cut_chop")] += RANKS_PER_SUIT - cut
        if cut > top:
            nxt = base + top
            losses["time_clued" if where.get(nxt) else "time_unclued"] += cut - top


def _stderr(values: list[int]) -> float:
    return statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0


def measure(config: GameConfig, games: int, seed: int, kind: BotKind,
            losses: Counter[str] | None = None, level: int | None = None) -> TableFigures:
    scores: list[int] = []
    kept: list[int] = []
    perfect = strikeouts = 0
    slowest = slowest_cpu = 0.0
    start = time.perf_counter()
    cpu_start = time.process_time()
    for i in range(games):
        state, worst, worst_cpu = play_game(config, seed + i, kind, losses, level)
        slowest = max(slowest, worst)
        slowest_cpu = max(slowest_cpu, worst_cpu)
        scores.append(state.score)
        kept.append(state.fireworks_total)
        perfect += state.fireworks_total == config.max_score
        strikeouts += state.end is End.STRIKEOUT
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    return TableFigures(
        players=config.players,
        games=games,
        mean=round(statistics.mean(scores), 3),
        stderr=round(_stderr(scores), 3),
        mean_kept=round(statistics.mean(kept), 3),
        stderr_kept=round(_stderr(kept), 3),
        perfect_rate=round(perfect / games, 4),
        strikeout_rate=round(strikeouts / games, 4),
        games_per_s=round(games / elapsed, 1),
        games_per_cpu_s=round(games / cpu, 1),
        max_decision_ms=round(slowest * 1000, 2),
        max_decision_cpu_ms=round(slowest_cpu * 1000, 2),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[3])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--seeds", choices=sorted(SEED_RANGES), default="reporting",
                        help="the seed range: tuning (to choose constants) or reporting "
                             "(the figures to publish; the default)")
    parser.add_argument("--seed", type=int, default=0, help="the first game's offset in it")
    parser.add_argument("--bot", choices=[k.value for k in BotKind], default=BotKind.HGROUP.value)
    parser.add_argument("--option", action="append", default=[])
    parser.add_argument("--level", type=int, choices=list(LEVELS), default=None,
                        help="the H-group level the convention player follows")
    parser.add_argument("--losses", action="store_true",
                        help="say where the points short of the maximum went")
    args = parser.parse_args()
    kind = BotKind(args.bot)
    try:
        seed = first_seed(SEED_RANGES[args.seeds], args.seed, args.games)
    except ValueError as e:
        parser.error(str(e))
    rows: list[TableFigures] = []
    losses_by_table: dict[int, dict[str, float]] = {}
    level = "" if args.level is None else f" level {args.level},"
    print(f"bot {kind.value},{level} {args.variant} {' '.join(args.option)}, {args.games} games "
          f"per table size, {args.seeds} seeds {seed}..{seed + args.games - 1}")
    print("players  score(0 on strikeout)   fireworks kept   perfect  strikeout  games/s"
          " (per CPU s)  slowest decision (CPU)")
    for players in args.players:
        config = GameConfig.from_names(players, args.variant, args.option)
        losses: Counter[str] | None = Counter() if args.losses else None
        row = measure(config, args.games, seed, kind, losses, args.level)
        rows.append(row)
        print(f"{players:7}  {row.mean:6.2f} ± {row.stderr:5.3f}        "
              f"{row.mean_kept:6.2f} ± {row.stderr_kept:5.3f}  {row.perfect_rate:7.1%}  "
              f"{row.strikeout_rate:8.1%}  {row.games_per_s:7.1f} ({row.games_per_cpu_s:5.1f})"
              f"       {row.max_decision_ms:.1f} ms ({row.max_decision_cpu_ms:.1f} ms)")
        if losses is not None:
            per_game = {k: round(v / args.games, 3) for k, v in sorted(losses.items())}
            losses_by_table[players] = per_game
            print("         points lost a game: "
                  + ", ".join(f"{k} {v:.3f}" for k, v in per_game.items()))
    out: dict[str, object] = {"bot": kind.value, "level": args.level, "variant": args.variant,
                              "options": args.option, "seeds": args.seeds, "seed": seed,
                              "tables": [asdict(r) for r in rows]}
    if args.losses:
        out["losses"] = losses_by_table
    print(json.dumps(out))


if __name__ == "__main__":
    main()
