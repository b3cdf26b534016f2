"""Issue 32's anchor, paired: the hanab.live H-group bot and ours on the same decks.

    ip netns exec NS nice -n 5 .venv/bin/python bench/hgroup_anchor.py BOT_CHECKOUT
        --players 3 4 --games 100 [--seeds reporting|tuning] [--seed 0] [--level 1]
        [--our-level N] [--chunk 10] --out anchor.jsonl [--node node] [--game-timeout 900]
        [--no-play] [--top 10]

``BOT_CHECKOUT`` is a scratch copy of will-hanabi-bot/hanabi-bot (GPL-3: it stays outside
this repository). Its ``src/variants.js`` fetches the variant list over the network at
import; the copy must be patched to define "No Variant" locally, and the run belongs in a
network namespace with only ``lo`` so that nothing leaves the machine. Its end-game solver
gives up after 30 s a try; issue 32 capped it at 5 s (``src/conventions/shared/endgame.js``).
It needs Node 22 or newer (it uses ``Set.prototype.union``); ``--node`` names the binary.
The solver's cap is wall-clock time: on a busy machine a try gets less CPU, so say the load.
Set-up, as root, outside this repository::

    git --git-dir=MIRROR archive HEAD | tar -x -C /work/hbot   # then patch the two files
    ip netns add NS && ip netns exec NS ip link set lo up      # `ip netns del NS` after

Deck ``i`` of a table size is ``bench/bots.py``'s game ``i``: ``shuffled_faces(config,
first_seed + i)``, with the seed range and offset as there (reporting seeds by default).
Our bot (``bench/bots.py``'s ``play_game``, the convention player at ``--our-level``, by
default every convention it knows) and the H-group bot at ``--level`` (default 1) play it;
``bench/hgroup_driver.mjs`` runs the H-group bot on one deck at a time, every seat its own
bot, in the draw order of our rules engine, to our end rules (it does not stop when the
score reaches the most still possible, as hanab.live does).

Alignment: each H-group game's actions are replayed through our rules engine on the same
deck; the game must end on its last action with the fireworks and strikes the bot counted,
else the run stops (the deck or the action encoding would be misaligned).

Every game is one JSON line appended to ``--out`` (seed, both scores, the H-group bot's
actions, ...); decks already there are not played again, so a run can be stopped and
resumed, and ``--chunk K`` alternates the table sizes K decks at a time so that each has
figures if time runs short (``--no-play`` prints the table of what is there). The table
(and one JSON object after it) covers every game in ``--out`` of the requested decks: per
table size the mean of each bot under the rulebook's scoring (a strikeout scores 0; a game
the H-group bot broke off by throwing scores 0 too), the paired difference (H-group minus
ours) with its standard error, the same under hanab.live's end rule (the game ends once the
score is the most still possible, so no strike can follow), strikeouts, errors and seconds
per game; then the decks where the H-group bot beats ours by the most (``--top``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import select
import statistics
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from bots import SEED_RANGES, first_seed, play_game, shuffled_faces

from hanabi_p2p.bots import BotKind
from hanabi_p2p.bots.levels import LEVELS
from hanabi_p2p.hanablive import ACTION_COLOUR_CLUE as COLOUR_CLUE
from hanabi_p2p.hanablive import ACTION_DISCARD as DISCARD
from hanabi_p2p.hanablive import ACTION_PLAY as PLAY
from hanabi_p2p.hanablive import ACTION_RANK_CLUE as RANK_CLUE
from hanabi_p2p.rules.actions import Clue, Discard, Play, TurnAction
from hanabi_p2p.rules.cards import BASE_SUITS, Card, GameConfig, Variant
from hanabi_p2p.rules.engine import End, GameState

DRIVER = Path(__file__).resolve().parent / "hgroup_driver.mjs"

# The action types (PLAY, ...) are hanab.live's, as hanabi_p2p/hanablive.py reads its game
# files. Its "No Variant" suits in its order: Red Yellow Green Blue Purple; our fifth suit
# (white) stands where its purple does, so a suit's index is the same on both sides.
HANABLIVE_SUITS = BASE_SUITS

BotAction = Sequence[int]  # [type, target, value] as the driver reports it


class AlignmentError(Exception):
    """The H-group bot's game does not replay through our rules engine as it counted it."""


def deck_for_bot(faces: Sequence[Card]) -> list[list[int]]:
    """The deck as the driver takes it: [suit index, rank] per deck position."""
    return [[HANABLIVE_SUITS.index(face.suit), face.rank] for face in faces]


def to_our_action(seat: int, action: BotAction) -> TurnAction:
    """One of the bot's actions as our rules engine's: a play's or discard's target is the
    card's deck position (our card identity), a clue's the seat it is given to."""
    kind, target, value = action
    if kind == PLAY:
        return Play(seat, target)
    if kind == DISCARD:
        return Discard(seat, target)
    if kind == COLOUR_CLUE:
        return Clue(seat, target, colour=HANABLIVE_SUITS[value])
    if kind == RANK_CLUE:
        return Clue(seat, target, rank=value)
    raise AlignmentError(f"unknown action type {kind} in {list(action)}")


@dataclass(frozen=True)
class Replayed:
    state: GameState  # after the last action
    hanablive_score: int  # the score had the game ended as hanab.live ends it


def replay(config: GameConfig, faces: Sequence[Card], actions: Iterable[TurnAction]) -> Replayed:
    """Play ``actions`` on the deck ``faces`` through our rules engine (an illegal action or
    one after the end is an AlignmentError) and score it both ways."""
    state = GameState(config, faces)
    hanablive: int | None = None
    for number, action in enumerate(actions):
        if state.over:
            raise AlignmentError(f"action {number} ({action}) comes after the game ended "
                                 f"({state.end.value})")
        if action.seat != state.current_seat:
            raise AlignmentError(f"action {number} ({action}) is not seat "
                                 f"{state.current_seat}'s turn")
        try:
            state.apply(action)
        except Exception as e:  # the engine's rule errors: any of them is a misalignment
            raise AlignmentError(f"action {number} ({action}) is illegal: {e}") from e
        if hanablive is None and not state.over and state.fireworks_total == state.max_achievable:
            hanablive = state.fireworks_total  # hanab.live: "maximum score reached"
    return Replayed(state, state.score if hanablive is None else hanablive)


def seated(players: int, actions: Sequence[BotAction]) -> list[TurnAction]:
    """The bot's actions as ours, seat 0 first, one turn each in seat order."""
    return [to_our_action(turn % players, a) for turn, a in enumerate(actions)]


def check_alignment(config: GameConfig, faces: Sequence[Card], result: Mapping[str, object]
                    ) -> Replayed:
    """Replay one driver result; it must end where and as the bot says (a broken-off game
    must not have ended yet)."""
    actions = result["actions"]
    assert isinstance(actions, list)
    done = replay(config, faces, seated(config.players, actions))
    state = done.state
    if result["error"] is not None:
        if state.over:
            raise AlignmentError(f"the bot broke off a game our engine ended ({state.end.value})")
        return done
    if not state.over:
        raise AlignmentError(f"our engine has the game going on after {len(actions)} actions")
    if (state.fireworks_total, state.strikes) != (result["score"], result["strikes"]):
        raise AlignmentError(
            f"our engine counts {state.fireworks_total} points and {state.strikes} strikes, "
            f"the bot {result['score']} and {result['strikes']}")
    return done


class Driver:
    """The node process that plays decks with the H-group bot, one at a time."""

    def __init__(self, node: str, checkout: Path, log: Path) -> None:
        self._command = [node, str(DRIVER), str(checkout)]
        self._log = log
        self._proc: subprocess.Popen[str] | None = None

    def _start(self) -> subprocess.Popen[str]:
        if self._proc is None:
            with self._log.open("a") as log:
                self._proc = subprocess.Popen(self._command, stdin=subprocess.PIPE,
                                              stdout=subprocess.PIPE, stderr=log, text=True)
        return self._proc

    def play(self, seed: int, players: int, level: int, deck: list[list[int]],
             timeout: float) -> dict[str, object]:
        proc = self._start()
        assert proc.stdin is not None and proc.stdout is not None
        job = {"seed": seed, "players": players, "level": level, "deck": deck}
        proc.stdin.write(json.dumps(job) + "\n")
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stdout], [], [], timeout)
        line = proc.stdout.readline() if ready else ""
        if not line:  # timed out or died: start afresh for the next deck
            self.close()
            why = "timed out" if not ready else "the driver exited"
            return {"seed": seed, "score": None, "strikes": None, "turns": None,
                    "actions": [], "error": f"{why} after {timeout:.0f} s", "seconds": timeout}
        result: dict[str, object] = json.loads(line)
        if result.get("seed") != seed:
            raise AlignmentError(f"the driver answered seed {result.get('seed')} for {seed}")
        return result

    def close(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._proc = None


@dataclass(frozen=True)
class GameRecord:
    players: int
    seed: int
    level: int
    our_level: int | None
    hgroup: int  # rulebook scoring: 0 on a strikeout or a broken-off game
    hgroup_kept: int  # fireworks on the table
    hgroup_hanablive: int  # had the game ended as hanab.live ends it
    hgroup_strikes: int
    hgroup_end: str
    hgroup_error: str | None
    hgroup_seconds: float
    ours: int
    ours_kept: int
    ours_hanablive: int
    ours_strikes: int
    ours_end: str
    ours_seconds: float
    actions: list[list[int]]  # the H-group bot's, [type, target, value]


def play_deck(driver: Driver, config: GameConfig, seed: int, level: int,
              our_level: int | None, timeout: float) -> GameRecord:
    faces = shuffled_faces(config, seed)
    start = time.perf_counter()
    ours_state, _, _ = play_game(config, seed, BotKind.HGROUP, level=our_level)
    ours_seconds = time.perf_counter() - start
    ours = replay(config, faces, [a for a in ours_state.history
                                  if isinstance(a, Play | Discard | Clue)])
    result = driver.play(seed, config.players, level, deck_for_bot(faces), timeout)
    theirs = check_alignment(config, faces, result)
    error = result["error"]
    broken = error is not None
    actions = result["actions"]
    seconds = result["seconds"]
    assert isinstance(actions, list) and isinstance(seconds, float | int)
    return GameRecord(
        players=config.players, seed=seed, level=level, our_level=our_level,
        hgroup=0 if broken else theirs.state.score,
        hgroup_kept=theirs.state.fireworks_total,
        hgroup_hanablive=0 if broken else theirs.hanablive_score,
        hgroup_strikes=theirs.state.strikes,
        hgroup_end="error" if broken else theirs.state.end.value,
        hgroup_error=None if error is None else str(error)[:2000],
        hgroup_seconds=round(float(seconds), 3),
        ours=ours_state.score, ours_kept=ours_state.fireworks_total,
        ours_hanablive=ours.hanablive_score, ours_strikes=ours_state.strikes,
        ours_end=ours_state.end.value, ours_seconds=round(ours_seconds, 4),
        actions=[list(a) for a in actions])


def read_records(out: Path) -> list[dict[str, object]]:
    if not out.exists():
        return []
    return [json.loads(line) for line in out.read_text().splitlines() if line.strip()]


def schedule(sizes: Sequence[int], games: int, chunk: int) -> Iterator[tuple[int, int]]:
    """(table size, deck number) in the order to play them: ``chunk`` decks of each size in
    turn, so that every size has figures if the run is stopped."""
    for low in range(0, games, chunk):
        for players in sizes:
            for i in range(low, min(low + chunk, games)):
                yield players, i


@dataclass(frozen=True)
class Paired:
    players: int
    decks: int
    hgroup_mean: float
    hgroup_stderr: float
    hgroup_kept_mean: float  # a strikeout keeps its fireworks (the bot's self-play counts so)
    ours_mean: float
    ours_stderr: float
    diff_mean: float  # H-group minus ours, per deck
    diff_stderr: float
    hgroup_hanablive_mean: float
    ours_hanablive_mean: float
    diff_hanablive_mean: float
    diff_hanablive_stderr: float
    hgroup_strikeouts: int
    hgroup_errors: int
    ours_strikeouts: int
    hgroup_s_per_game: float
    ours_s_per_game: float


def _mean_se(values: Sequence[float]) -> tuple[float, float]:
    mean = statistics.mean(values)
    se = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return round(mean, 3), round(se, 3)


def summarise(players: int, records: Sequence[Mapping[str, object]]) -> Paired:
    def column(name: str) -> list[float]:
        values = [r[name] for r in records]
        assert all(isinstance(v, int | float) for v in values)
        return [float(v) for v in values]  # type: ignore[arg-type]

    hg, ours = column("hgroup"), column("ours")
    hg_live, ours_live = column("hgroup_hanablive"), column("ours_hanablive")
    h_mean, h_se = _mean_se(hg)
    o_mean, o_se = _mean_se(ours)
    d_mean, d_se = _mean_se([a - b for a, b in zip(hg, ours, strict=True)])
    dl_mean, dl_se = _mean_se([a - b for a, b in zip(hg_live, ours_live, strict=True)])
    return Paired(
        players=players, decks=len(records), hgroup_mean=h_mean, hgroup_stderr=h_se,
        hgroup_kept_mean=round(statistics.mean(column("hgroup_kept")), 3),
        ours_mean=o_mean, ours_stderr=o_se, diff_mean=d_mean, diff_stderr=d_se,
        hgroup_hanablive_mean=round(statistics.mean(hg_live), 3),
        ours_hanablive_mean=round(statistics.mean(ours_live), 3),
        diff_hanablive_mean=dl_mean, diff_hanablive_stderr=dl_se,
        hgroup_strikeouts=sum(r["hgroup_end"] == End.STRIKEOUT.value for r in records),
        hgroup_errors=sum(r["hgroup_error"] is not None for r in records),
        ours_strikeouts=sum(r["ours_end"] == End.STRIKEOUT.value for r in records),
        hgroup_s_per_game=round(statistics.mean(column("hgroup_seconds")), 2),
        ours_s_per_game=round(statistics.mean(column("ours_seconds")), 4),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("checkout", type=Path, help="a scratch copy of the H-group bot")
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4])
    parser.add_argument("--games", type=int, default=100, help="decks per table size")
    parser.add_argument("--seeds", choices=sorted(SEED_RANGES), default="reporting")
    parser.add_argument("--seed", type=int, default=0, help="the first deck's offset in it")
    parser.add_argument("--level", type=int, default=1, help="the H-group bot's level")
    parser.add_argument("--our-level", type=int, choices=list(LEVELS), default=None,
                        help="our convention player's level (default: all it knows)")
    parser.add_argument("--chunk", type=int, default=10,
                        help="decks of one size before the next size's")
    parser.add_argument("--out", type=Path, required=True, help="per-game JSON lines")
    parser.add_argument("--node", default="node", help="a Node 22+ binary")
    parser.add_argument("--game-timeout", type=float, default=900.0,
                        help="seconds before an H-group game counts as broken off")
    parser.add_argument("--no-play", action="store_true",
                        help="play nothing: the table of the games already in --out")
    parser.add_argument("--top", type=int, default=10,
                        help="list the decks where the H-group bot beats ours the most")
    args = parser.parse_args()
    try:
        start = first_seed(SEED_RANGES[args.seeds], args.seed, args.games)
    except ValueError as e:
        parser.error(str(e))
    configs = {p: GameConfig(players=p, variant=Variant.STANDARD) for p in args.players}

    done = {(r["players"], r["seed"], r["level"], r["our_level"])
            for r in read_records(args.out)}
    driver = Driver(args.node, args.checkout, args.out.with_name(args.out.name + ".stderr"))
    try:
        for players, i in [] if args.no_play else schedule(args.players, args.games, args.chunk):
            seed = start + i
            if (players, seed, args.level, args.our_level) in done:
                continue
            record = play_deck(driver, configs[players], seed, args.level, args.our_level,
                               args.game_timeout)
            with args.out.open("a") as out:
                out.write(json.dumps(asdict(record)) + "\n")
                out.flush()
                os.fsync(out.fileno())
            print(f"  {players}p seed {seed}: H-group {record.hgroup:2} ({record.hgroup_end}, "
                  f"{record.hgroup_seconds:.0f} s), ours {record.ours:2}", file=sys.stderr)
    finally:
        driver.close()

    wanted = range(start, start + args.games)
    mine = [r for r in read_records(args.out) if r["seed"] in wanted
            and r["level"] == args.level and r["our_level"] == args.our_level]
    print(f"H-group bot level {args.level} vs ours (level {args.our_level or 'default'}), "
          f"{args.seeds} seeds {start}..{start + args.games - 1}; rulebook scoring "
          "(strikeout = 0); diff = H-group - ours, paired by deck")
    print("players  decks  H-group (kept)         ours           diff            "
          "hanab.live end: diff   H strikeouts  errors  s/game H (ours)")
    rows: list[Paired] = []
    for players in args.players:
        table = [r for r in mine if r["players"] == players]
        if not table:
            continue
        row = summarise(players, table)
        rows.append(row)
        print(f"{players:7}  {row.decks:5}  {row.hgroup_mean:5.2f} ± {row.hgroup_stderr:4.2f} "
              f"({row.hgroup_kept_mean:5.2f})  "
              f"{row.ours_mean:5.2f} ± {row.ours_stderr:4.2f}  "
              f"{row.diff_mean:+5.2f} ± {row.diff_stderr:4.2f}    "
              f"{row.diff_hanablive_mean:+5.2f} ± {row.diff_hanablive_stderr:4.2f}   "
              f"{row.hgroup_strikeouts:12}  {row.hgroup_errors:6}  "
              f"{row.hgroup_s_per_game:6.1f} ({row.ours_s_per_game:.3f})")
    ahead = sorted(mine, key=lambda r: (-(r["hgroup"] - r["ours"]),  # type: ignore[operator]
                                        r["players"], r["seed"]))[:args.top]
    if ahead:
        print("where the H-group bot leads most: "
              + ", ".join(f"{r['players']}p seed {r['seed']} {r['hgroup']}-{r['ours']}"
                          for r in ahead))
    print(json.dumps({"level": args.level, "our_level": args.our_level, "seeds": args.seeds,
                      "seed": start, "out": str(args.out), "tables": [asdict(r) for r in rows],
                      "hgroup_leads": [{"players": r["players"], "seed": r["seed"],
                                        "hgroup": r["hgroup"], "ours": r["ours"]}
                                       for r in ahead]}))


if __name__ == "__main__":
    main()
