"""Keeping the garbage collector's full passes off a game's turns.

CPython's cyclic collector now and then walks every object the program has (its full
pass, "generation 2"): the imported libraries, the table's setup, the game so far. In a
5-player game on one loop (bench/game.py) such a pass took 19-42 ms, once or twice a game,
in the middle of a turn: the worst turn of the game. While a game is being played its
older objects (everything that existed when the deck became ready) are set aside with
``gc.freeze()``: the collector no longer walks them, and a full pass walks only what the
game made since. Reference counting still frees whatever is no longer used; only cycles
among the set-aside objects wait until the game is over (``gc.unfreeze()``), which in a
game's few minutes is little.

One process may play several games at once (computer players, tests): the objects stay
set aside until the last game in play has ended.
"""

from __future__ import annotations

import gc

_games_in_play = 0


def game_in_play() -> None:
    """A game of this process has begun its turns: set aside what exists now."""
    global _games_in_play
    _games_in_play += 1
    gc.freeze()  # (again for a second game: what the first made since is old now too)


def game_ended() -> None:
    """A game that called `game_in_play` has ended (or its peer stopped)."""
    global _games_in_play
    if _games_in_play <= 0:
        raise RuntimeError("game_ended() without game_in_play()")
    _games_in_play -= 1
    if not _games_in_play:
        gc.unfreeze()
