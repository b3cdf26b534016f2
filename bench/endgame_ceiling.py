"""How many points the end game could still gain: the convention player's self-play games
against a ceiling computed from the moment the deck holds ``--deck`` cards.

    .venv/bin/python bench/endgame_ceiling.py --players 3 --games 100 --deck 4 [--seeds tuning]

The ceiling is an exhaustive search of the rest of the game by one mind that plans for every
seat and knows the order of the deck, but not the faces of the cards in the hands beyond what
everyone knows then (each clued card's public mask, as the convention player reads it; an
unclued or newly drawn card may be anything). In it a player plays a card known to be
playable, gives a clue that leaves one card of another player known exactly (its face) or a
clue that tells nothing (a stall), or discards its chop (its oldest unclued card). No real
table plans like that (nobody knows the deck, and each seat plans alone), so the gap it prints
is about as much as better end-game decisions could gain. It is not a strict bound: the
search never plays a card nobody knows is playable, so in a game where the players' blind
plays (finesses) or last-turn gambles score, they beat it. It is slow: the search grows fast
with the deck (3 players, 4 cards: about 2 s a game).

Measured on the tuning seeds 0..99 (after the end-game fill-in, bots/endgame_clues.py): 3
players from 2 cards +0.196 +- 0.074, from 4 cards +0.340 +- 0.076; 4 players from 3 cards
+0.040 +- 0.085.

Prints the self-play mean, the ceiling's mean and their paired difference with its standard
error; the last line is one JSON object with those figures.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics

from bots import SEED_RANGES, first_seed

from hanabi_p2p.bots.hgroup import HGroupPlayer
from hanabi_p2p.rules.cards import MAX_CLUE_TOKENS, GameConfig
from hanabi_p2p.rules.engine import GameState
from hanabi_p2p.rules.faces import RANKS_PER_SUIT, face_table

# A card in the search: (face index, the faces it is known to be).
Card = tuple[int, int]
Hands = tuple[tuple[Card, ...], ...]
State = tuple[tuple[int, ...], int, Hands, int, int, int]  # fw, tokens, hands, drawn, seat, left


class Ceiling:
    """The search of one position (memoised: positions recur by many orders of moves)."""

    def __init__(self, deck: tuple[int, ...], all_faces: int) -> None:
        self.deck = deck
        self.all_faces = all_faces
        self.memo: dict[State, int] = {}

    def best(self, state: State) -> int:
        fw, tokens, hands, drawn, seat, left = state
        if left == 0 or all(top == RANKS_PER_SUIT for top in fw):
            return 0
        got = self.memo.get(state)
        if got is not None:
            return got
        players = len(hands)
        hand = hands[seat]
        playable = 0
        for s, top in enumerate(fw):
            if top < RANKS_PER_SUIT:
                playable |= 1 << (s * RANKS_PER_SUIT + top)
        nxt = (seat + 1) % players
        after = left - 1 if left >= 0 else -1  # (-1: the deck is not out yet)
        best = 0
        tried: set[Card] = set()
        for i, (face, mask) in enumerate(hand):
            if mask & ~playable == 0 and (face, mask) not in tried:
                tried.add((face, mask))
                suit, rank = divmod(face, RANKS_PER_SUIT)
                if fw[suit] == rank:
                    fw2 = (*fw[:suit], rank + 1, *fw[suit + 1:])
                    gained = rank + 1 == RANKS_PER_SUIT and tokens < MAX_CLUE_TOKENS
                    points = 1 + self._draw(fw2, tokens + gained, hands, seat, i, drawn, left)
                else:  # (a card known only as "playable" that is not: a good-touch miss)
                    points = self._draw(fw, tokens, hands, seat, i, drawn, left)
                best = max(best, points)
        if tokens > 0:
            best = max(best, self.best((fw, tokens - 1, hands, drawn, nxt, after)))
            for other in range(players):
                if other == seat:
                    continue
                faces: set[int] = set()
                for i, (face, mask) in enumerate(hands[other]):
                    if (mask == 1 << face or face % RANKS_PER_SUIT < fw[face // RANKS_PER_SUIT]
                            or face in faces):
                        continue
                    faces.add(face)
                    told = (*hands[other][:i], (face, 1 << face), *hands[other][i + 1:])
                    hands2 = (*hands[:other], told, *hands[other + 1:])
                    best = max(best, self.best((fw, tokens - 1, hands2, drawn, nxt, after)))
        if tokens < MAX_CLUE_TOKENS and hand:
            chop = next((i for i in range(len(hand) - 1, -1, -1)
                         if hand[i][1] == self.all_faces), len(hand) - 1)
            best = max(best, self._draw(fw, tokens + 1, hands, seat, chop, drawn, left))
        self.memo[state] = best
        return best

    def _draw(self, fw: tuple[int, ...], tokens: int, hands: Hands, seat: int, index: int,
              drawn: int, left: int) -> int:
        """The rest of the game after ``seat`` lets go of its card at ``index``."""
        hand = hands[seat][:index] + hands[seat][index + 1:]
        players = len(hands)
        if drawn < len(self.deck):
            hand = ((self.deck[drawn], self.all_faces), *hand)
            drawn += 1
            after = players if drawn == len(self.deck) else -1
        else:
            after = left - 1
        hands2 = (*hands[:seat], hand, *hands[seat + 1:])
        return self.best((fw, tokens, hands2, drawn, (seat + 1) % players, after))


def one_game(config: GameConfig, seed: int, deck_at: int) -> tuple[int, int] | None:
    """(self-play score, ceiling) of one game; None if it ended before the deck got there."""
    table = face_table(config)
    faces = config.deck_faces()
    random.Random(seed).shuffle(faces)
    state = GameState(config, faces)
    seats = [HGroupPlayer(config, s) for s in range(config.players)]
    ceiling: int | None = None
    while not state.over:
        if ceiling is None and config.deck_size - state.draw_index <= deck_at:
            reader = seats[state.current_seat]
            reader.sync(state)
            hands = tuple(
                tuple((table.index(f), reader.public(c) if reader.clued[c] else table.all_faces)
                      for c in hand if (f := state.faces[c]) is not None)
                for hand in state.hands)
            deck = tuple(table.index(f) for c in range(state.draw_index, config.deck_size)
                         if (f := state.faces[c]) is not None)
            left = state.final_round_turns_left
            search = Ceiling(deck, table.all_faces)
            start = (tuple(state.fireworks.values()), state.clue_tokens, hands, 0,
                     state.current_seat, -1 if left is None else left)
            ceiling = state.fireworks_total + search.best(start)
        state.apply(seats[state.current_seat].act(state))
    return None if ceiling is None else (state.score, ceiling)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--deck", type=int, default=2, help="the ceiling from this many cards")
    parser.add_argument("--seeds", choices=sorted(SEED_RANGES), default="tuning")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    config = GameConfig.from_names(args.players, "standard", [])
    start = first_seed(SEED_RANGES[args.seeds], args.seed, args.games)
    pairs = [r for i in range(args.games) if (r := one_game(config, start + i, args.deck))]
    played = [a for a, _ in pairs]
    best = [b for _, b in pairs]
    gap = [b - a for a, b in pairs]
    se = statistics.stdev(gap) / math.sqrt(len(gap)) if len(gap) > 1 else 0.0
    print(f"{args.players} players, {len(pairs)} games, {args.seeds} seeds {start}..: "
          f"self-play {statistics.mean(played):.3f}, ceiling from {args.deck} cards "
          f"{statistics.mean(best):.3f}, gap {statistics.mean(gap):+.3f} ± {se:.3f}")
    print(json.dumps({"players": args.players, "games": len(pairs), "deck": args.deck,
                      "seeds": args.seeds, "seed": start, "self_play": statistics.mean(played),
                      "ceiling": statistics.mean(best), "gap": statistics.mean(gap),
                      "gap_stderr": se}))


if __name__ == "__main__":
    main()
