"""A computer player that follows the H-group conventions (docs/conventions.md).

Blindness by construction: each player keeps a private replica of the game built only from
what its seat can know (every other hand's faces, public cards, clues with their touched
sets). It never reads a face of its own hand from the state it is given, so it plays the
same whether that state knows those faces (a local game) or not (a networked peer).

Two kinds of knowledge:

* *public* (common knowledge): what every player concludes about a card from the clues and
  the conventions. ``inf[card]`` is a face mask (faces.py) kept identical in every seat's
  player, because it is computed only from public facts: the clue, the touched set, the
  fireworks, the discard pile and earlier public conclusions;
* *private*: the acting seat also counts the copies it sees in the other hands.

The convention meaning of a clue is decided by one function (``_read_clue``) used both by the
receiver to read it and by the giver to predict that reading, so giver and receiver agree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import cache
from typing import NamedTuple

from hanabi_p2p.bots.duplicates import deferred_for, surplus_copies
from hanabi_p2p.bots.endgame import Model, ModelCard
from hanabi_p2p.bots.levels import Convention, check_level, knows
from hanabi_p2p.bots.seatview import SeatView
from hanabi_p2p.bots.words import Say, Words
from hanabi_p2p.errors import IllegalAction
from hanabi_p2p.rules.actions import Action, Clue, Discard, Move, Play, Terminate, TurnAction
from hanabi_p2p.rules.cards import MAX_CLUE_TOKENS, MAX_STRIKES, Card, GameConfig
from hanabi_p2p.rules.engine import GameState
from hanabi_p2p.rules.faces import RANKS_PER_SUIT, FaceTable, face_table

# Tuning honesty: every constant below that says "measured" was chosen on bench/bots.py's
# tuning seeds (TUNING_SEEDS, seeds 0 to 999,999: its "seeds 0..", "seeds 5000..", "seeds
# 10000.." and unnamed "seeded games" are offsets there), never on REPORTING_SEEDS, which
# the figures we publish come from. Constants with no measurement are conventions.
#
# Weights of a clue's value (see _rate_clue). A clue that makes a card playable is worth
# more than a save that is not urgent (an urgent save is given before anything else, see
# _urgent_save), and touching a card that will never be played is the cost good touch avoids.
PLAY_WEIGHT = 10
SAVE_WEIGHT = 3
GOOD_TOUCH_WEIGHT = 1
# A play clue to a player with nothing safe to do saves a discard too.
IDLE_WEIGHT = 5
BAD_TOUCH_WEIGHT = 12
# A clue that touches the chop makes the next card the chop: if that one must be saved
# too, the clue has a cost.
EXPOSE_WEIGHT = 4
# A clue that leaves its receiver no unclued card (a locked hand) has a cost too.
LOCK_WEIGHT = 4
# A clue worth less than this is not given while a discard is possible: discarding the chop
# gains a token and keeps the clue for later. One play that touches no new card (a clued
# card re-clued until it reads as playable) falls short: measured over 2000 seeded games,
# PLAY_WEIGHT -> this: 3p 23.32 -> 23.37, 2p 22.79 -> 22.79 (4p, 5p: +0.02, +0.05).
MIN_CLUE_VALUE = PLAY_WEIGHT + GOOD_TOUCH_WEIGHT
# With this many clue tokens or more, any clue that does some good (touches a card that
# will be played) beats discarding a chop card that may be needed.
RICH_TOKENS = 5
# With this many tokens or fewer, while some chop holds a card that must be saved, a clue
# must be worth twice MIN_CLUE_VALUE: the tokens are kept for the save.
LOW_TOKENS = 2
# Two players: with this many instead (measured, paired, same decks, 2000 games, 2 -> 1: 2p
# +0.032 +- 0.010 (seeds 0..), +0.032 +- 0.010 (seeds 5000..); in a trial with another change
# in, 0: +0.030, +0.045 and 3: -0.011). With one partner, a play clue now is worth more than
# a token held back: an urgent save is given anyway (_urgent_save comes before play clues).
LOW_TOKENS_2P = 1
# With this many cards or fewer left in the deck, a player with nothing to play stalls with a
# clue instead of discarding (a discard draws a card and brings the end closer).
ENDGAME_STALL_CARDS = 4
# ... if it has more tokens than this (measured: keeping 1 back costs 0.1-0.2 points at 3-5p).
ENDGAME_KEEP_TOKENS = 0
# The end-game plan (bots/endgame.py) looks ahead over the remaining turns once the deck holds
# no more cards than there are players plus this (and in the final round); -1: no plan.
# Measured over 2000 seeded games, no plan -> 0: 2p 22.79 -> 22.86, 3p 23.37 -> 23.45,
# 4p 23.08 -> 23.16, 5p 21.79 -> 21.83, multicolour 2p 26.72 -> 26.78; 1 and 3 did no better
# (3p 23.44, 23.43) and cost more.
PLAN_EXTRA_CARDS = 0
# At tables of this many players or fewer the plan also weighs one clue that gets nothing
# played (a stall): it keeps the deck's last card for a player who has more to play.
# Measured (paired, same decks, 2000 games), 2p: +0.014 +- 0.005 (seeds 0..), +0.011 +-
# 0.006 (seeds 5000..); taking the first such clue rather than the best rated: +0.018,
# +0.012, +0.020 (seeds 10000..), multicolour 2p +0.012. Earlier, at every table: 4p -0.01,
# 5p -0.03. Later (paired, tuning seeds 0..1999, with bots/duplicates.py in): 3p +0.022 +-
# 0.006, 4p +0.010 +- 0.006, so up to 4 players.
PLAN_STALL_PLAYERS = 4
# A prompt or finesse asks at most this many players (the first ones after the giver) in
# turn: the longer the wait, the longer the focus stays ambiguous and no other can start.
# Measured over 200 seeded games: 1 -> 22.52 (4p), 21.04 (5p); 2 -> 22.35, 20.66.
MAX_CHAIN = 1
# Bluffs (from 3 players): the next player blind-plays a playable card that is not the one
# the focus needs; the focus is then known to be one above its firework's next card.
BLUFFS = True
# A bluff whose focus then reads as one exact card is worth this much more.
BLUFF_NAMES_WEIGHT = 3
# A player whose chop was just saved gives a clue that does some good rather than discard
# its new chop, with this many tokens or more (the saver had no turn to see that card yet).
# Measured over 1000 seeded games: 2p 22.57 -> 22.63; 1, 3, 4 did no better.
AFTER_SAVE_TOKENS = 2
# Two players: with this many instead (measured, paired, 2000 games, 2 -> 3: 2p +0.022 +-
# 0.020 and +0.031 +- 0.019 on two sets of decks; 3p -0.032). It also sets when a save that
# only moves the loss is left out (TRADE_SAVE_PLAYERS).
AFTER_SAVE_TOKENS_2P = 3
# A player whose chop was just saved, with this many tokens or more, when no clue does some
# good, still gives a clue that does no harm (worth 0: it touches no new card, only tells more
# about clued ones) rather than discard that new chop, if the chop is likely to be needed: if
# losing it costs at least AFTER_SAVE_STALL_LOSS points on average over the faces it may be
# (as for a locked hand: _expected_loss). The saver saw that card, and gets a turn to save it too.
# Measured (paired, same decks, 2000 games), 2p: +0.052 +- 0.020 (seeds 0..), +0.070 +-
# 0.023 (seeds 10000..); a loss of 0.15: +0.032, 0.25: +0.038, 0.4: +0.043, 0.5: +0.011,
# any chop: -0.007; 2 tokens: +0.050. 3p +0.024, 4p +0.001, 5p -0.001 (1000 games).
AFTER_SAVE_STALL_TOKENS = 3
AFTER_SAVE_STALL_LOSS = 0.3
# Two players: my partner just discarded a card whose other copy is now a last copy that I
# cannot see (it may be my chop, and my partner, who sees it, had no turn to save it): with
# this many tokens or more a clue that does some good is given rather than a discard.
# Measured (paired, same decks): 2p +0.021 and +0.022 (two sets of 2000 games, each
# +-0.017), multicolour 2p +0.027; 2 tokens: +0.010, 4: +0.003. Not from 3 players on:
# 3p +0.000, 4p +0.023, 5p -0.016 (1000 games).
TWIN_TOKENS = 3
TWIN_PLAYERS = 2
# With this many cards or fewer left in the deck, a player who would discard (no card known
# to play, no clue worth giving or stall to make) plays instead its card likeliest to be
# playable, if that chance is above EARLY_GAMBLE_P and a strike cannot end the game: so
# near the end the token a discard brings back is worth little, a card played is a point.
# Measured (paired, same decks) against discarding: 2p +0.026 and +0.041 (two sets of 2000
# games), 3p +0.028, 4p +0.000, 5p +0.021 (1000 games); 1 card: 2p +0.028; chance above 0.3
# instead of 0.1: 2p +0.021, 0.5: +0.002; 3 cards: 3p +0.019; 4 cards: 4p -0.043.
EARLY_GAMBLE_CARDS = 2
EARLY_GAMBLE_P = 0.1
# A locked hand gives up the clued card whose loss costs the fewest points (a 5 before a
# 4 that is a last copy), not just one that may not be a last copy. (Giving up a known 5
# before a card that only may be a last copy but costs more on average measured 2p +0.037
# and +0.024 better, paired over 2000 games, but breaks the rule that no known last copy
# goes while another card may be safe: tests/bots/test_hgroup_behaviour.py.)
LOCKED_BY_LOSS = True
# At the deck's end a stall (see ENDGAME_STALL_CARDS) with this many tokens or fewer is
# given only if it gets a card played or someone knows a card to play: otherwise the last
# token is better kept for the next player, and the discard gains one.
STALL_ONLY_FOR_PLAYS = 1
# No save with the last token that leaves its receiver no unclued card and nothing to play:
# it would have to discard a clued card next turn instead, with no token left to stall (at
# two and three players: see LOCKING_SAVE_PLAYERS).
NO_LOCKING_LAST_SAVE = True
# 2 saves (a 2 whose other copy nobody else holds) are given at tables of this many players
# or fewer: with more players the other copy is more likely drawn by someone who can keep
# it, and the clue is worth more elsewhere. Measured over 1000-2000 seeded games, with 2
# saves -> without: 2p 22.74 -> 22.59, 3p 23.11 -> 23.32, 4p 22.80 -> 23.05, 5p 21.44 ->
# 21.78. A "2" on the chop still reads as a save at every table.
TWO_SAVES_UP_TO = 2
# Two players: a locked hand with this many tokens or fewer discards a clued card that is no
# last copy rather than stall with a clue (the token is worth more to the partner than the
# card's tempo). Measured over 1000 seeded games: 2p 22.74 -> 22.81 (3p: no gain).
LOCKED_FREE_DISCARD = 4
# Scream discards at tables of this many players or fewer: with no clue token, a player who
# publicly knows a card to play discards its chop instead, and that tells the next player its
# chop must not go (it is kept as if clued, "chop moved"). Given when the next player's chop
# must be saved, that player has nothing safe to do, and my own chop is worth less than
# SCREAM_MAX_LOSS points on average. Not near the deck's end (the end-game plan may discard
# there for other reasons). Measured (paired, same decks), none -> every table: 2p +0.03 and
# +0.05 (two sets of 2000 games), 3p +0.023, 4p +0.018, 5p +0.016 (1000 games each); the
# limit on my chop's loss (0.5, 1, 2, none) made no difference at 2p.
SCREAM_PLAYERS = 5
SCREAM_MAX_LOSS = 1.0
# A player counts its own cards known exactly among the copies it has not seen: another of
# its cards cannot be a face whose copies they take (see _mine). Measured (paired, same
# decks, seeds 0.., 2000 games): 2p +0.060 +- 0.012, 3p +0.043 +- 0.008.
SHARE_OUT = True
# Reading the other players' discards (see _passed_over), when a player gambles on its last
# turn: each time another player discarded while it could have clued my unclued card, a face
# that card may be and that was playable then counts this much less (a play clue would have
# been likelier); a face worth a save counts not at all on a chop it did not save. Measured
# (paired, same decks, 2000 games), 2p: +0.016 +- 0.004 (seeds 0..), +0.009 +- 0.003 (seeds
# 10000..). Read in the early gamble too (EARLY_GAMBLE_CARDS): +0.025, +0.012, but a card the
# other player has looked at for long then rarely seems worth the gamble. Weights 0.3, 0.7,
# also counting another clue as a pass, or a save weight of 0.05-0.5 did no better.
OVERLOOKED_WEIGHT = 0.5
UNSAVED_WEIGHT = 0.0
# The end-game plan's model gives my clued cards what I know of them (_mine), not only what
# everyone knows. Measured (paired, 2000 games), 2p: +0.003 +- 0.001, +0.001 +- 0.001.
MODEL_MINE = True
# On my last turn, a clue that makes the last player's last play a playable card (see
# _last_clue). Measured (paired, 2000 games), 2p: +0.008 +- 0.002 (seeds 0.. and 10000..),
# 3p +0.006 +- 0.003.
LAST_CLUE = True
# Two players: no save with AFTER_SAVE_TOKENS_2P tokens or fewer when the card behind the
# chop is worth saving too and costs as many points or more if lost: with no token to spare
# for a stall, the receiver would discard that one instead. Measured (paired, same decks, 2000
# games), 2p: +0.028 +- 0.013 (seeds 0..), +0.019 +- 0.012 (seeds 10000..); 3p -0.008.
# ("More" instead of "as many or more": 2p -0.003 +- 0.004, +0.002 +- 0.004.)
TRADE_SAVE_PLAYERS = 2
# Pace (see _pace): the turns left if each one draws a card (the deck, then the final
# round), less the cards the fireworks still need. A discard spends one turn of it, a play or
# a clue none; below 0, every discard costs a point. Two players: with the pace this low or
# lower and this many tokens or more, while my partner knows a card to play, a clue that does
# no harm beats a discard (even of a card known to be trash): my partner plays meanwhile and
# the deck keeps its card. Measured (paired, same decks, 2000 games), 2p: +0.029 +- 0.008
# (seeds 0..), +0.015 +- 0.007 (seeds 5000..), +0.017 +- 0.007 (seeds 10000..); pace 0:
# +0.022, +0.017; pace 2: +0.023 +- 0.010; 1 token: +0.022; 3 tokens (pace 0): +0.014.
# Without a known play to wait for, the stall costs: pace 0 -0.040, pace 2 -0.150; keeping
# the discard of known trash: +0.019 (pace 0). 3p (pace 1): -0.028, so not used there.
PACE_STALL = 1
PACE_STALL_TOKENS = 2
PACE_STALL_PLAYERS = 2
# At tables of this many players or fewer, a save that leaves its receiver no unclued card and
# nothing to play (see NO_LOCKING_LAST_SAVE) is left out not only with the last token but
# whenever the tokens left after it are too few for the receiver to stall (fewer than
# _after_save_tokens: 3 at two players, 2 at three), unless the clued card the receiver would
# then give up costs fewer points than the chop saved (LOCKING_SAVE_MARGIN; then the save is
# given even with the last token). Measured (paired, same decks, 2000 games, then with a margin
# of 1) against the last token only, 2p:
# +0.099 +- 0.020 (seeds 0..), +0.068 +- 0.020 (seeds 5000..); 3p +0.007 +- 0.006; 4p
# -0.006, 5p -0.011 (so not used there). Leaving out such saves up to 2 tokens only (2p):
# about half of that; up to 4 or 8: no better than 3.
LOCKING_SAVE_PLAYERS = 3
# ... given anyway when the card the receiver gives up instead costs at least this many points
# fewer than the chop (so never for a 5). Measured (paired, 2000 games) against 1: 2p +0.013
# +- 0.018, +0.047 +- 0.019, +0.037 +- 0.018 (three sets of decks), 3p +0.001; 3: +0.004 on
# average over two sets; never: -0.06.
LOCKING_SAVE_MARGIN = 2
# Good touch after a play (see _good_touch_again) narrows only cards known to be 1s: a clued
# 1 no longer reads "maybe R1" once R1 is played. On other cards it misread a bad-touched
# copy as the next card (a misplay). Measured (tuning seeds 0..999, 3p, 1000 games): none
# 23.62, 0 strikeouts; every card 23.69, 5 strikeouts; 1s only 23.72, 0 strikeouts.
GTA_ONES_ONLY = True
# A play clue on the next player's chop when it is playable and that player would discard
# it (see _urgent_play), before my own play, at tables of this many players or fewer.
# Measured (tuning seeds 0..999, 1000 games) against never: 2p +0.036, 3p -0.029, 4p -0.083,
# 5p -0.111 (the clue is worth more elsewhere, and the card's other copies come back).
URGENT_PLAY_PLAYERS = 2
# Read a finesse our player never gives: a clue that makes a card read as X while it is the
# card after X, with no X in sight, asks me to blind-play X (see _late_finesse).
READ_LATE_FINESSES = True
# A last copy whose every save clue bad-touches (see _bad_touch_save) is saved anyway at tables
# of this many players or fewer. Measured (tuning seeds 0..999, 1000 games) against never:
# 2p +0.004, 3p +0.045, 4p +0.038, 5p -0.033 with 2 strikeouts (the cards bad-touched by the
# save later misread), so not at 5 players then. Once two cards read as one last copy are no
# longer played as known (bots/duplicates.py), 5p: +0.014 +- 0.005, 0 strikeouts (paired,
# tuning seeds 0..1999), so at every table.
BAD_TOUCH_SAVE_PLAYERS = 5
# How many boards and contexts the players share (see _caches_for) before starting afresh.
# Small: about one game's worth. Entries kept longer pile up as long-lived objects, and the
# garbage collector's full passes they bring made the slowest decisions (measured at 1024:
# 4p worst decision 17 ms CPU over 2000 games, against 3.5 ms; at 64, no full pass in 1000
# games and the same speed otherwise).
SHARED_CACHE_SIZE = 64
# How many choose_action() replicas to keep (one per seat and game being played).
CACHE_SIZE = 32


class Reason(str, Enum):
    """Why the player took its action (``Advice.text`` says it in words)."""

    PLAY_KNOWN = "play_known"
    ANSWER = "answer"  # a prompt or a finesse
    SAVE = "save"
    PLAY_CLUE = "play_clue"
    DISCARD_TRASH = "discard_trash"
    DISCARD_CHOP = "discard_chop"
    STALL = "stall"
    LOCKED = "locked"
    GAMBLE = "gamble"  # the last turn: a card that may be playable
    FIX = "fix"  # a clue that corrects a misread one
    PLAN = "plan"  # the end-game look-ahead preferred it to the conventions' choice
    SCREAM = "scream"  # a discard that tells the next player to keep its chop


@dataclass(frozen=True, slots=True)
class Advice:
    """An action and why the convention player takes it (``text``: in words, in the current
    language, rendered only when read)."""

    action: TurnAction
    reason: Reason
    words: Words

    @property
    def text(self) -> str:
        return self.words.render()


class Board(NamedTuple):
    """Public facts about the fireworks, as face masks (one bit per face index). (A named
    tuple: every player makes one after every play and discard.)"""

    playable: int  # the next card of each firework
    trash: int  # already played, or above a rank whose every copy is gone
    critical: int  # still needed and the last copy left


class Context(NamedTuple):
    """What the clued cards and the fireworks mean for reading the next clue."""

    known: int  # faces everyone knows a clued card is (good touch: no other is clued so)
    queued: tuple[int, ...]  # per suit, the rank reached once those known cards are played
    next_mask: int  # the card each firework needs after the queued ones: a play clue's meaning
    connectable: int  # faces a prompt or finesse may make a focus (one above next, not queued)
    eventual: int  # faces playable once the queued cards are played


@dataclass(frozen=True, slots=True)
class Connection:
    """One way a play clue's focus may be one rank above the card its firework needs: a
    player between the giver and the receiver holds that missing card."""

    missing: int  # face index of the card the firework needs first
    focus_face: int  # what the focus then is
    # per player between giver and receiver, in turn order: the card it would play as the
    # missing one (a clued card that may be it: a prompt; else its newest unclued: finesse)
    cards: tuple[tuple[int, int], ...]  # (seat, card)

    def card_of(self, seat: int) -> int | None:
        return next((card for s, card in self.cards if s == seat), None)


@dataclass(frozen=True, slots=True)
class Pending:
    """A clue whose focus may wait for an answer (a prompt or a finesse) from a player
    between its giver and its receiver."""

    focus: int
    options: tuple[Connection, ...]
    waiting: tuple[int, ...]  # players between giver and receiver yet to act, in order

    @property
    def connected(self) -> int:
        m = 0
        for option in self.options:
            m |= 1 << option.focus_face
        return m


class HGroupPlayer:
    """The convention player of one seat; ``act(state)`` returns its action."""

    def __init__(self, config: GameConfig, seat: int, level: int | None = None) -> None:
        """``level``: the H-group level the table plays (bots/levels.py); None: every
        convention this player knows."""
        self.config = config
        self.seat = seat
        self.level = check_level(level)
        # the conventions above the level are neither given nor read
        self.bluffs = BLUFFS and knows(level, Convention.BLUFF)
        self.screams = knows(level, Convention.SCREAM)
        self.ones_in_order = knows(level, Convention.ONES_IN_ORDER)
        table = face_table(config)
        self.table: FaceTable = table
        n = config.deck_size
        self.fi = [-1] * n  # card id -> face index, as this seat knows it
        self.replica = SeatView(config, table, seat, self.fi)
        self.synced = 0  # history entries of the followed game applied to the replica
        self.last: object = None  # the last entry applied (to notice another game)
        self.inf = [table.all_faces] * n  # card id -> public convention mask
        # card id -> faces its clues allow (as the replica's possible_mask, kept here too
        # because the clue ratings read it thousands of times a turn)
        self.poss = [table.all_faces] * n
        self.clued = [False] * n
        # card id -> per discard by another player who could have clued it instead, the
        # faces playable then (see _passed_over)
        self.overlooked: list[list[int]] = [[] for _ in range(n)]
        # card id -> per discard by another player while it was my chop and I had nothing
        # safe to do, the faces worth a save then (see _passed_over)
        self.unsaved: list[list[int]] = [[] for _ in range(n)]
        self.fw = [0] * len(table.suits)
        self.gone = [0] * len(table.cards)  # face index -> copies discarded
        self.used = [0] * len(table.cards)  # face index -> copies played
        # face index -> copies this seat has seen (in other hands, played or discarded: the
        # cards whose face it knows), and the faces of which it has not seen every copy
        self.seen = [0] * len(table.cards)
        self.unseen = table.all_faces
        self.suit_of = [i // RANKS_PER_SUIT for i in range(len(table.cards))]
        self.rank_of = [i % RANKS_PER_SUIT + 1 for i in range(len(table.cards))]
        # the fireworks and the discard counts packed in one int each (3 bits a suit, 2 bits
        # a face: a face has at most 3 copies), keys of the shared caches of boards and
        # contexts
        self._fw_key = self._gone_key = 0
        self._boards, self._contexts = _caches_for(table)
        self.board = self._make_board()
        self.pending: Pending | None = None
        self._ctx: Context | None = None
        self._chops: dict[int, int | None] = {}  # seat -> chop, valid while _ctx is
        # per seat, the faces everyone knows its clued cards are (None: to be recomputed,
        # as its hand or what is known of it changed)
        self._known_in: list[int | None] = [None] * config.players
        self._dealt = False
        # my last clue and how it reads, as rated when I chose it (see advise)
        self._my_read: tuple[TurnAction, tuple[dict[int, int], Pending | None]] | None = None
        # the seat whose chop the last action (a clue) touched, if any
        self.saved: int | None = None
        # cards a clue touched while they were their holder's chop (the clue's focus)
        self.chop_focus: set[int] = set()
        # card ids below this were dealt at the start; the others were drawn later ("fresh")
        self.first_drawn = config.players * config.hand_size
        # (face, how many) of my cards known exactly, as _mine last counted them
        self.known_mine: list[tuple[int, int]] = []

    # ------------------------------------------------------------------ following the game

    def follows(self, state: GameState) -> bool:
        """Is ``state`` the game this player has followed so far (or a later point of it)?"""
        hist = state.history
        n = self.synced
        return (state.config == self.config and len(hist) >= n
                and (n == 0 or hist[n - 1] is self.last))

    def sync(self, state: GameState) -> None:
        """Apply to the replica every action of ``state`` not applied yet."""
        if not self._dealt:
            self._deal(state)
        hist = state.history
        for i in range(self.synced, len(hist)):
            self._observe(hist[i], state)
            self.last = hist[i]
        self.synced = len(hist)
        # A peer may learn a drawn card's face after the draw was applied: see it now.
        fi = self.fi
        for other, hand in enumerate(self.replica.hands):
            if other != self.seat:
                for card in hand:
                    if fi[card] < 0:
                        self._see(card, state)

    def _deal(self, state: GameState) -> None:
        size = self.config.hand_size
        for other in range(self.config.players):
            if other != self.seat:
                for card in range(other * size, (other + 1) * size):
                    self._see(card, state)
        self._dealt = True

    def _see(self, card: int, state: GameState) -> None:
        if self.fi[card] >= 0:
            return  # seen already
        face = state.faces[card]
        if face is not None:
            f = self.fi[card] = self.table.index(face)
            self.seen[f] += 1
            if self.seen[f] >= self.table.copies[f]:
                self.unseen &= ~(1 << f)

    def _observe(self, action: Action, state: GameState) -> None:
        self._ctx = None
        self._follow(action, state)
        self._ctx = None  # reading a clue used the context before the clue

    def _follow(self, action: Action, state: GameState) -> None:
        replica = self.replica
        mine, self._my_read = self._my_read, None  # (only for the very next action)
        if isinstance(action, Move | Terminate):
            replica.apply(action)
            return
        if self.pending is not None and action.seat in self.pending.waiting:
            self._resolve(self.pending, action, state)
        if isinstance(action, Discard) and action.seat != self.seat and replica.clue_tokens:
            self._passed_over()
        if isinstance(action, Clue):
            touched = action.touched
            if touched is None:  # a local game: every face is known to ``state``
                mask = self._clue_mask(action)
                faces = state.faces
                touched = frozenset(c for c in replica.hands[action.target]
                                    if (f := faces[c]) is not None
                                    and mask >> self.table.index(f) & 1)
                action = Clue(action.seat, action.target, action.colour, action.rank, touched)
            if mine is not None and mine[0] == action and self.pending is None:
                meaning, self.pending = mine[1]
            else:
                meaning, self.pending = self._read_clue(action, touched)
            self._known_in[action.target] = None
            chop = self.chop(action.target)
            self.saved = action.target if chop is not None and chop in touched else None
            if chop is not None and chop in touched:
                self.chop_focus.add(chop)  # (the order of 1s: see _Decision._play)
            for card, mask in meaning.items():
                self.inf[card] = mask
            for card in touched:
                self.clued[card] = True
            replica.apply(action)
            hit = self._clue_mask(action)
            miss = ~hit
            poss = self.poss
            for card in replica.hands[action.target]:
                poss[card] &= hit if card in touched else miss
            return
        self.saved = None
        scream = isinstance(action, Discard) and self.is_scream(action.seat)
        blind_play = isinstance(action, Play) and not self.clued[action.card]
        if isinstance(action, Play | Discard):
            self._known_in[action.seat] = None
            self._see(action.card, state)
            placed, drew = replica.apply(action)
            fi = self.fi[action.card]
            if placed:
                self.fw[self.suit_of[fi]] += 1
                self._fw_key += 1 << 3 * self.suit_of[fi]
                self.used[fi] += 1
            else:
                self.gone[fi] += 1
                self._gone_key += 1 << 2 * fi
            if drew is not None and action.seat != self.seat:
                self._see(drew, state)
            self.board = self._make_board()
            self._good_touch_again(fi if placed else -1, action.seat, blind_play)
        if scream:
            self._move_chop((action.seat + 1) % self.config.players)

    def _good_touch_again(self, placed: int, player: int, blind: bool) -> None:
        """Good touch holds after a play or discard too: a clued 1 (any clued card, without
        GTA_ONES_ONLY) that may still be a face now trash (a copy just played) is not that
        face, unless it can be nothing else (else a clued 1 read "any 1" goes on reading
        "maybe R1" once R1 is played, and is never played). And a clued card read as
        exactly the face another player has just played (``placed``, a face index, or -1)
        without a clue on it (``blind``) was the card after it: its clue was a finesse on
        that player (``player``), who saw it and played first (a delayed finesse), not a
        play clue on a copy it would be bad touch to have clued."""
        trash = self.board.trash
        ones = self.table.rank_mask[1]
        inf, poss, clued = self.inf, self.poss, self.clued
        after = (placed + 1 if blind and placed >= 0 and self.rank_of[placed] < RANKS_PER_SUIT
                 else -1)
        for seat, hand in enumerate(self.replica.hands):
            for c in hand:
                if clued[c]:
                    m = inf[c] & poss[c]
                    if m & trash and m & ~trash and (not GTA_ONES_ONLY or m & ~ones == 0):
                        inf[c] = m & ~trash
                        self._known_in[seat] = None
                    elif (after >= 0 and seat != player and m == 1 << placed
                          and poss[c] >> after & 1
                          and not trash >> after & 1):
                        inf[c] = 1 << after
                        self._known_in[seat] = None

    def _passed_over(self) -> None:
        """Another player discards though it could have clued me: had one of my unclued cards
        been playable, a play clue would have been likelier; had my chop (when I had nothing
        safe to do) been a card worth saving, a save would have come. Noted for _gamble."""
        playable = self.board.playable
        hand = self.replica.hands[self.seat]
        for c in hand:
            if not self.clued[c]:
                self.overlooked[c].append(playable)
        chop = self.chop(self.seat)
        if chop is not None and not self.has_known_safe_action(self.seat):
            self.unsaved[chop].append(self._save_worthy_faces())

    def is_scream(self, seat: int) -> bool:
        """Would a discard by ``seat`` now be a scream discard (see SCREAM_PLAYERS): no clue
        token, a card ``seat`` publicly knows to be playable, the deck not near its end?"""
        replica = self.replica
        if (not self.screams or self.config.players > SCREAM_PLAYERS or replica.clue_tokens > 0
                or replica.cards_left <= self.config.players + PLAN_EXTRA_CARDS
                or replica.final_round_turns_left is not None):
            return False
        return any(self._is_playable(self.public(c)) for c in replica.hands[seat])

    def _move_chop(self, seat: int) -> None:
        """``seat``'s chop is to be kept: it counts as clued from now on, as a card that
        may need saving (a 5, a last copy, or a 2)."""
        chop = self.chop(seat)
        if chop is None:
            return
        self.clued[chop] = True
        worth = self._save_worthy_faces()
        self.inf[chop] = self.inf[chop] & worth or self.inf[chop]
        self._known_in[seat] = None
        self._ctx = None

    def _save_worthy_faces(self) -> int:
        """The faces a save clue keeps, as a mask: a last copy, a 5 or a 2, not yet trash."""
        table = self.table
        return (self.board.critical | table.rank_mask[RANKS_PER_SUIT]
                | table.rank_mask[2]) & ~self.board.trash

    def _resolve(self, pending: Pending, action: Play | Discard | Clue | None,
                 state: GameState) -> None:
        """A player asked to answer acted (``action``; None: this player, passing). If it
        played its connecting card and that was the missing card, the focus is the card one
        above. Otherwise it passed; once every player asked has passed, the clue was direct."""
        focus = pending.focus
        seat = pending.waiting[0]
        self._ctx = None
        holder = self.replica.holder(focus)
        if holder is not None:
            self._known_in[holder] = None
        face = state.faces[action.card] if isinstance(action, Play) else None
        if isinstance(action, Play) and face is not None:
            fi = self.table.index(face)
            answering = [o for o in pending.options if o.card_of(seat) == action.card]
            for option in answering:
                if fi == option.missing:
                    self.inf[focus] = 1 << option.focus_face
                    self.pending = None
                    return
            if (self.bluffs and answering
                    and self.fw[self.suit_of[fi]] == self.rank_of[fi] - 1):
                # a blind play of another playable card: a bluff. The focus is still one
                # above its firework's next card (but not the blind card's firework).
                m = 0
                for option in answering:
                    m |= 1 << option.focus_face
                self.inf[focus] = (self.inf[focus] & m) or self.inf[focus]
                self.pending = None
                return
        waiting = pending.waiting[1:]
        if waiting:
            self.pending = Pending(focus, pending.options, waiting)
            return
        m = self.inf[focus] & ~pending.connected
        self.inf[focus] = m or self.inf[focus]
        self.pending = None

    # ------------------------------------------------------------------ public facts

    def _make_board(self) -> Board:
        """The board from the fireworks and the discard pile."""
        key = (self._fw_key, self._gone_key)
        board = self._boards.get(key)
        if board is None:
            if len(self._boards) >= SHARED_CACHE_SIZE:
                self._boards.clear()
            board = self._boards[key] = _board_of(self.fw, self.gone, self.table.copies)
        return board

    def _clue_mask(self, clue: Clue) -> int:
        if clue.colour is not None:
            return self.table.colour_mask[clue.colour]
        return self.table.rank_mask[clue.rank or 0]

    def public(self, card: int) -> int:
        """What everyone knows ``card`` may be: its clues and the conventions."""
        poss = self.poss[card]
        m = self.inf[card] & poss
        return m or poss

    def _known_faces(self) -> int:
        """Faces of clued cards whose face everyone knows (good touch: no other card
        will be clued as one of them)."""
        known = 0
        clued = self.clued
        inf = self.inf
        possible = self.poss
        known_in = self._known_in
        for seat, hand in enumerate(self.replica.hands):
            k = known_in[seat]
            if k is None:
                k = 0
                for c in hand:
                    if clued[c]:
                        poss = possible[c]
                        m = inf[c] & poss or poss
                        if m & (m - 1) == 0:
                            k |= m
                known_in[seat] = k
            known |= k
        return known

    def chop(self, seat: int) -> int | None:
        """The oldest unclued card of ``seat``: the one it discards next."""
        if self._ctx is not None and seat in self._chops:
            return self._chops[seat]
        chop = None
        for c in reversed(self.replica.hands[seat]):
            if not self.clued[c]:
                chop = c
                break
        if self._ctx is not None:
            self._chops[seat] = chop
        return chop

    def _save_mask(self, clue: Clue) -> int:
        """Faces a clue on the chop may be saving."""
        board = self.board
        table = self.table
        if clue.rank == RANKS_PER_SUIT:
            return table.rank_mask[RANKS_PER_SUIT] & ~board.trash
        if clue.rank == 2:
            return table.rank_mask[2] & ~board.trash
        fives = table.rank_mask[RANKS_PER_SUIT]
        return self._clue_mask(clue) & board.critical & ~fives

    def finesse_position(self, seat: int) -> int | None:
        """The newest unclued card of ``seat``: the one it plays blind when finessed."""
        for c in self.replica.hands[seat]:
            if not self.clued[c]:
                return c
        return None

    def _chain(self, clue: Clue) -> tuple[int, ...]:
        """The players asked to answer a prompt or finesse: the first ``MAX_CHAIN`` who act
        after the giver and before the receiver, in order."""
        return _chain_of(self.config.players, clue.seat, clue.target)

    def _connecting_card(self, seat: int, missing: int) -> int | None:
        for c in self.replica.hands[seat]:
            if self.clued[c] and self.public(c) >> missing & 1:
                return c  # a prompt: the (first) clued card that may be it
        return self.finesse_position(seat)

    def _connections(self, clue: Clue, base: int, queued: tuple[int, ...]
                     ) -> tuple[Connection, ...]:
        """Ways the focus (faces ``base``) may be one above what its firework needs, the
        missing card coming from a player between giver and receiver (who then plays it).
        One question at a time: no new one while another waits for its answer."""
        chain = self._chain(clue)
        if not chain or self.pending is not None:
            return ()
        out = []
        for s, top in enumerate(queued):
            # the missing card must be playable now: the responder plays it at once
            if top + 2 > RANKS_PER_SUIT or top != self.fw[s]:
                continue
            missing = s * RANKS_PER_SUIT + top
            face = missing + 1
            if not base >> face & 1:
                continue
            cards = []
            for seat in chain:
                card = self._connecting_card(seat, missing)
                if card is not None:
                    cards.append((seat, card))
            if cards:
                out.append(Connection(missing, face, tuple(cards)))
        return tuple(out)

    def _context(self) -> Context:
        """What the clued cards and the fireworks mean for the next clue (see ``Context``),
        cached until the next action or public conclusion changes it."""
        ctx = self._ctx
        if ctx is None:
            known = self._known_faces()
            key = (self._fw_key, known)
            ctx = self._contexts.get(key)
            if ctx is None:
                if len(self._contexts) >= SHARED_CACHE_SIZE:
                    self._contexts.clear()
                ctx = self._contexts[key] = _context_of(self.fw, known)
            self._ctx = ctx
            self._chops = {}
        return ctx

    def _read_clue(self, clue: Clue, touched: frozenset[int]
                   ) -> tuple[dict[int, int], Pending | None]:
        """The public meaning of ``clue`` (touching ``touched``), before it is applied:
        the new convention mask of each touched card, and what waits on the next player."""
        clued = self.clued
        chop = self.chop(clue.target)
        known, queued, next_mask, connectable, _ = self._ctx or self._context()
        mask = self._clue_mask(clue)
        out: dict[int, int] = {}
        pending = None
        # the focus: the chop if the clue touches it (it is unclued: newly touched), else
        # the newest newly touched card
        focus = chop if chop is not None and chop in touched else None
        if focus is None:
            for c in self.replica.hands[clue.target]:
                if c in touched and not clued[c]:
                    focus = c
                    break
        useless = self.board.trash | known
        poss_of = self.poss
        inf = self.inf
        for c in touched:
            poss = poss_of[c] & mask
            if clued[c]:
                m = inf[c] & poss
                out[c] = m or poss
                continue
            base = poss & ~useless  # good touch
            if c == focus:
                meaning = next_mask
                if c == chop:
                    meaning |= self._save_mask(clue)
                options = (self._connections(clue, base & ~meaning, queued)
                           if base & ~meaning & connectable else ())
                if options:
                    pending = Pending(c, options, self._chain(clue))
                    meaning |= pending.connected
                m = base & meaning
            else:
                m = base
            out[c] = m or base or poss
        return out, pending

    # ------------------------------------------------------------------ private view

    def _unseen(self) -> int:
        """Faces of which this seat has not seen every copy (others' hands, public cards)."""
        return self.unseen

    def _mine(self) -> list[tuple[int, int]]:
        """My cards, each with the faces it may be: what everyone knows of it, less the faces
        whose every copy I see elsewhere or know to be another card of mine (the last copy
        of a face one of my cards is known to be is not also another card of mine)."""
        unseen = self._unseen()
        out = []
        single = False
        for c in self.replica.hands[self.seat]:
            pub = self.public(c)
            # (what I see may rule out every face the conventions allow: then the clues
            # alone say what it is, as a clue broke a convention)
            m = (pub & unseen) or (self.poss[c] & unseen) or pub
            out.append((c, m))
            single = single or m & (m - 1) == 0
        self.known_mine = []
        if single:  # more of my cards read as one face than it has copies left?
            surplus_copies(out, self.poss, self.table.copies, self.seen, unseen)
        if single and SHARE_OUT:
            self._share_out(out)
        return out

    def _share_out(self, out: list[tuple[int, int]]) -> None:
        """Narrow ``out`` (my cards and their masks) in place: see _mine."""
        # my cards known exactly take copies of their faces: a face whose copies not seen
        # they take up is none of my other cards (repeated: a card may become known so)
        copies = self.table.copies
        seen = self.seen
        taken: dict[int, int] = {}
        done = 0  # cards counted, by index
        exhausted = 0
        while True:
            more = 0
            for i, (_, m) in enumerate(out):
                if m & (m - 1) == 0 and not done >> i & 1:
                    done |= 1 << i
                    f = m.bit_length() - 1
                    n = taken[f] = taken.get(f, 0) + 1
                    if n >= copies[f] - seen[f]:
                        more |= m
            if not more & ~exhausted:
                break
            exhausted |= more
            for i, (c, m) in enumerate(out):
                if not done >> i & 1 and m & exhausted and m & ~exhausted:
                    out[i] = (c, m & ~exhausted)
        self.known_mine = list(taken.items())

    # ------------------------------------------------------------------ deciding

    def act(self, state: GameState) -> TurnAction:
        return self.advise(state).action

    def advise(self, state: GameState, names: Sequence[str] | None = None) -> Advice:
        """The action this seat takes now, and why."""
        if state.over or state.current_seat != self.seat:
            raise IllegalAction(f"seat {self.seat} cannot act now")
        self.sync(state)
        avoid: frozenset[int] = frozenset()
        pending = self.pending
        if (pending is not None and pending.waiting[0] == self.seat
                and self.answer_to(pending) is None):
            # I pass: settle that now, as everyone will once they see I did not answer, so
            # that my own choice builds on it. A play of a card that would answer would
            # read as an answer: not this turn.
            self._resolve(pending, None, state)
            # (card ids start at 0: "is not None", as card 0 is a card too)
            avoid = frozenset(c for o in pending.options
                              if (c := o.card_of(self.seat)) is not None)
        decision = _Decision(self, names, avoid)
        advice = decision.decide()
        action = advice.action
        # my clue, once it is in the history, reads as it did when I rated it: nothing
        # happens in between (a pending question to me was settled before I chose)
        read = (decision.reads.get(id(action))
                if isinstance(action, Clue) and self.pending is None else None)
        self._my_read = (action, read) if read is not None else None
        return advice

    def answer_to(self, pending: Pending) -> Connection | None:
        """Must this seat (the first still asked) answer ``pending``? It sees the focus:
        if it is one above its firework's next card, the missing card is with the last
        player asked whose connecting card this seat sees is it, or else with this seat."""
        f = self.fi[pending.focus]
        option = next((o for o in pending.options if o.focus_face == f), None)
        if option is None or option.card_of(self.seat) is None:
            return None
        for seat, card in option.cards:
            if seat != self.seat and seat in pending.waiting and self.fi[card] == option.missing:
                return None  # a later player holds it
        return option

    def _is_playable(self, m: int) -> bool:
        return m != 0 and m & ~self.board.playable == 0

    def _is_trash(self, m: int) -> bool:
        return m != 0 and m & ~self.board.trash == 0

    def has_known_safe_action(self, seat: int) -> bool:
        """Does ``seat`` publicly know of a card to play or to discard safely?"""
        inf = self.inf
        possible = self.poss
        not_playable = ~self.board.playable
        not_trash = ~self.board.trash
        for c in self.replica.hands[seat]:
            poss = possible[c]
            m = inf[c] & poss or poss
            if m and (m & not_playable == 0 or m & not_trash == 0):
                return True
        return False


class _Decision:
    """One turn's choice. Kept apart so that its scratch data never outlives the turn."""

    def __init__(self, player: HGroupPlayer, names: Sequence[str] | None,
                 avoid: frozenset[int]) -> None:
        self.p = player
        self.names = names
        self.avoid = avoid  # cards not to play this turn
        self.rep = player.replica
        self.known, self.queued, _, _, self.eventual = player._context()
        self._busy: dict[int, bool] = {}
        self._clues: list[Clue] | None = None
        self._ratings: dict[int, tuple[int, int] | None] = {}
        # what a rated clue tells its receiver, as the rating read it (for the end-game plan)
        self._meanings: dict[int, dict[int, int]] = {}
        # how each rated clue reads (``_read_clue``), by id
        self.reads: dict[int, tuple[dict[int, int], Pending | None]] = {}
        # every face some clued card visible to this seat is (for good touch as a giver)
        clued_faces: dict[int, int] = {}
        self.clued_faces = clued_faces
        clued = player.clued
        fi = player.fi
        for other, hand in enumerate(self.rep.hands):
            if other != player.seat:
                for c in hand:
                    if clued[c] and (f := fi[c]) >= 0:
                        clued_faces[f] = clued_faces.get(f, 0) + 1
                continue
            for c in hand:
                if clued[c]:
                    m = player.public(c)
                    if m & (m - 1) == 0:
                        f = m.bit_length() - 1
                        clued_faces[f] = clued_faces.get(f, 0) + 1

    def words(self, say: Say, seat: int = 0, *, slot: int = 0, clue: Clue | None = None,
              card: Card | None = None, focus: Card | None = None, count: int = 0) -> Words:
        """What to say: ``say`` about player ``seat`` (a clue's receiver, a card's holder)."""
        name = self.names[seat] if self.names is not None and seat < len(self.names) else None
        return Words(say, slot=slot, seat=seat, player=name, clue=clue, card=card,
                     focus=focus, number=count)

    def _stall_saying(self, advice: Advice, say: Say) -> Advice:
        """``advice`` as it is, or, when it is a stall clue, with the reason ``say`` gives."""
        if advice.reason is Reason.STALL and isinstance(advice.action, Clue):
            return Advice(advice.action, Reason.STALL,
                          self.words(say, advice.action.target, clue=advice.action))
        return advice

    def clues(self) -> list[Clue]:
        """Every clue this seat may give now (computed once per turn)."""
        if self._clues is None:
            self._clues = self.rep.clues()
        return self._clues

    def decide(self) -> Advice:
        advice = self._by_conventions()
        rep = self.rep
        final_round = rep.final_round_turns_left is not None
        if (PLAN_EXTRA_CARDS >= 0 and advice.reason in _PLANNED
                and not self.p.config.all_or_nothing  # (no final round: play goes on)
                # in the final round nothing beat playing a known card (3p: 0 of 594 looked
                # at; skipping it measured 2p, 3p, 5p the same, 4p 23.16 -> 23.15)
                and not (final_round and advice.reason is Reason.PLAY_KNOWN)
                and (final_round
                     or rep.cards_left <= self.p.config.players + PLAN_EXTRA_CARDS)):
            return self._plan(advice)
        return advice

    def _by_conventions(self) -> Advice:
        p = self.p
        rep = self.rep
        tokens = rep.clue_tokens
        mine = p._mine()
        self.avoid |= deferred_for(p, mine, GTA_ONES_ONLY)  # (see bots/duplicates.py)
        players = p.config.players
        nxt = (p.seat + 1) % players
        answer = self._answer()
        if answer is not None:
            return answer
        if tokens > 0:
            fix = self._fix()
            if fix is not None:
                return fix
        if tokens > 0 and rep.final_round_turns_left is None:
            # (in the final round nobody draws: a card discarded then could not have
            # been played in time anyway)
            urgent = self._urgent_save(nxt)
            if urgent is not None:
                return urgent
            if players <= URGENT_PLAY_PLAYERS:
                urgent = self._urgent_play(nxt)
                if urgent is not None:
                    return urgent
        if tokens == 0:
            scream = self._scream(mine, nxt)
            if scream is not None:
                return scream
        play = self._play(mine)
        if play is not None:
            return play
        need = MIN_CLUE_VALUE
        if tokens <= (LOW_TOKENS_2P if players == 2 else LOW_TOKENS) and self._threatened():
            need *= 2  # keep the last token for a save
        twin = (tokens >= TWIN_TOKENS and p.config.players <= TWIN_PLAYERS
                and self._twin_may_be_mine())
        clue = None
        if tokens > 0:
            # Most turns only a clue worth ``need`` would be given (else my chop goes): then
            # no clue worth less needs rating. Not in the cases below that take a lesser clue.
            only_good = (tokens < RICH_TOKENS and rep.final_round_turns_left is None
                         and rep.cards_left > ENDGAME_STALL_CARDS
                         and not (p.saved == p.seat and tokens >= self._after_save_tokens())
                         and not twin
                         and not self._pace_stall()
                         and p.chop(p.seat) is not None)
            clue = self._best_clue(need if only_good else None)
        if rep.final_round_turns_left is not None:
            last = self._last_turn(mine, clue)
            if last is not None:
                return last
        if clue is not None and (clue[0] >= need or tokens == MAX_CLUE_TOKENS
                                 or (tokens >= RICH_TOKENS and clue[0] > 0)):
            return clue[1]
        if p.saved == p.seat and tokens >= self._after_save_tokens() and clue is not None:
            # my chop was just saved: the card behind it is my chop now, and nobody has had
            # a turn to look at it yet. A clue that does some good keeps it a turn longer;
            # so does a harmless one, with tokens to spare, if that card is likely needed.
            if clue[0] > 0:
                return self._stall_saying(clue[1], Say.STALL_AFTER_SAVE)
            if (clue[0] == 0 and tokens >= AFTER_SAVE_STALL_TOKENS
                    and self._chop_loss(mine) >= AFTER_SAVE_STALL_LOSS):
                return self._stall_saying(clue[1], Say.STALL_AFTER_SAVE_RISK)
        if twin and clue is not None and clue[0] > 0:
            return self._stall_saying(clue[1], Say.STALL_TWIN)
        if (clue is not None and clue[0] >= 0 and tokens < MAX_CLUE_TOKENS
                and self._pace_stall() and self._plays_coming()):
            # few turns are left for the cards still to play: a discard would use one up,
            # a clue lets my partner's known card be played first
            return self._stall_saying(clue[1], Say.STALL_PACE)
        if tokens < MAX_CLUE_TOKENS:
            if (rep.cards_left <= ENDGAME_STALL_CARDS and tokens > ENDGAME_KEEP_TOKENS
                    and clue is not None
                    and (tokens > STALL_ONLY_FOR_PLAYS or clue[1].reason is Reason.PLAY_CLUE
                         or self._plays_coming())):
                return clue[1]
            if rep.cards_left <= EARLY_GAMBLE_CARDS and rep.strikes < MAX_STRIKES - 1:
                gamble = self._gamble(mine, EARLY_GAMBLE_P, Say.GAMBLE_EARLY)
                if gamble is not None:
                    return gamble
            return self._discard(mine, clue)
        return self._stall(mine)

    def _pace(self) -> int:
        """The turns left if each draws a card (the deck and a final round) less the cards
        the fireworks still need: a discard spends one, a play or a clue none."""
        p = self.p
        needed = bin(p.table.all_faces & ~p.board.trash).count("1")
        return self.rep.cards_left + p.config.players - needed

    def _pace_stall(self) -> bool:
        """Is the pace so low that a harmless clue may beat discarding (PACE_STALL)?"""
        p = self.p
        return (p.config.players <= PACE_STALL_PLAYERS
                and self.rep.clue_tokens >= PACE_STALL_TOKENS
                and self.rep.final_round_turns_left is None
                and self._pace() <= PACE_STALL)

    def _after_save_tokens(self) -> int:
        """With this many tokens or more a player whose chop was just saved gives a clue
        that does some good rather than discard its new chop."""
        return AFTER_SAVE_TOKENS_2P if self.p.config.players == 2 else AFTER_SAVE_TOKENS

    # -- the end-game plan

    def _model(self) -> Model:
        p = self.p
        rep = self.rep
        all_faces = p.table.all_faces
        unseen = p._unseen()
        mine = dict(p._mine()) if MODEL_MINE else {}
        hands: list[list[ModelCard]] = []
        for seat, hand in enumerate(rep.hands):
            cards: list[ModelCard] = []
            for c in hand:
                if not p.clued[c]:
                    cards.append((p.fi[c], all_faces))
                elif seat == p.seat:
                    pub = p.public(c)
                    cards.append((-1, mine.get(c) or pub & unseen or pub))
                else:
                    cards.append((p.fi[c], p.public(c)))
            hands.append(cards)
        return Model(p.fw[:], rep.clue_tokens, rep.cards_left, rep.final_round_turns_left,
                     hands, p.seat, ENDGAME_STALL_CARDS, all_faces)

    def _outcome(self, base: Model, action: TurnAction, reachable: int) -> int:
        """The points the model scores by the game's end if this seat takes ``action`` (at
        most ``reachable``)."""
        p = self.p
        m = base.copy()
        hand = self.rep.hands[p.seat]
        scored = 0
        if isinstance(action, Play):
            i = hand.index(action.card)
            mask = m.hands[p.seat][i][1]
            if p._is_playable(mask):
                scored = m.play(p.seat, i, (mask & -mask).bit_length() - 1)
            else:  # a gamble: its chance is counted by the caller
                m.play(p.seat, i, -1)
        elif isinstance(action, Discard):
            m.discard(p.seat, hand.index(action.card))
        elif isinstance(action, Clue):
            meaning = self._meanings.get(id(action))
            if meaning is None:
                meaning, _ = p._read_clue(action, action.touched or frozenset())
            target = self.rep.hands[action.target]
            hit = p._clue_mask(action)
            update = {}
            for c, mask in meaning.items():
                poss = p.poss[c] & hit
                update[target.index(c)] = mask & poss or poss
            m.clue(update, action.target)
        else:
            return 0
        return scored + m.run((p.seat + 1) % p.config.players, reachable - scored)

    def _reachable(self, model: Model) -> int:
        """The most points the model could score: per suit, the run of next ranks found in
        the hands (a clued card of mine counts as any face it may be; the model never plays
        an unclued one of mine, nor a card still to be drawn)."""
        have = 0
        everything = model.all_faces
        for hand in model.hands:
            for face, mask in hand:
                if face >= 0:
                    have |= 1 << face
                elif mask != everything:  # (nobody can show me an unclued card of mine)
                    have |= mask
        total = 0
        for s, top in enumerate(model.fireworks):
            base = s * RANKS_PER_SUIT
            rank = top
            while rank < RANKS_PER_SUIT and have >> (base + rank) & 1:
                rank += 1
            total += rank - top
        return total

    def _plan(self, advice: Advice) -> Advice:
        """Near the end: of the actions the conventions would consider (the chosen one, a
        known playable card, a clue that gets a card played, the chop's discard), the one
        after which the model of the remaining turns scores most; the conventions' choice
        on a tie."""
        p = self.p
        rep = self.rep
        base = self._model()
        reachable = self._reachable(base)
        if reachable == 0:
            return advice  # no card anybody could still learn to play
        best: float = self._outcome(base, advice.action, reachable)
        if advice.reason is Reason.GAMBLE:
            best += advice.words.number / 100  # its chance to score
        if best >= reachable:
            return advice  # nothing can do better in the model
        best_advice = advice
        candidates: list[TurnAction] = []
        for c, m in p._mine():
            if p._is_playable(m) and c not in self.avoid:
                candidates.append(Play(p.seat, c))
        if rep.clue_tokens > 0:
            stall: tuple[int, Clue] | None = None  # the best clue that gets nothing played
            for clue in self.clues():
                if type(clue) is Clue:
                    rated = self._rate_clue(clue)
                    if rated is not None:
                        if rated[1]:
                            candidates.append(clue)
                        elif stall is None or rated[0] > stall[0]:
                            stall = (rated[0], clue)
            if stall is not None and p.config.players <= PLAN_STALL_PLAYERS:
                candidates.append(stall[1])
        chop = p.chop(p.seat)
        if rep.clue_tokens < MAX_CLUE_TOKENS and chop is not None:
            candidates.append(Discard(p.seat, chop))
        for action in candidates:
            if action == advice.action:
                continue
            points = self._outcome(base, action, reachable)
            if points > best:
                best = points
                best_advice = self._planned(action, points)
                if points >= reachable:
                    break
        return best_advice

    def _planned(self, action: TurnAction, points: int) -> Advice:
        hand = self.rep.hands[self.p.seat]
        if isinstance(action, Clue):
            return Advice(action, Reason.PLAN,
                          self.words(Say.PLAN_CLUE, action.target, clue=action, count=points))
        assert isinstance(action, Play | Discard)
        say = Say.PLAN_PLAY if isinstance(action, Play) else Say.PLAN_DISCARD
        return Advice(action, Reason.PLAN,
                      self.words(say, slot=hand.index(action.card) + 1, count=points))

    def _plays_coming(self) -> bool:
        """Does another player know of a card to play (so a stall buys it a turn)?"""
        p = self.p
        for seat, hand in enumerate(self.rep.hands):
            if seat != p.seat and any(p._is_playable(p.public(c)) for c in hand):
                return True
        return False

    # -- playing

    def _answer(self) -> Advice | None:
        """The last clue's focus is one above what its firework needs, and the missing card
        is mine: play it (from my clued cards: a prompt; blind: a finesse)."""
        p = self.p
        pending = p.pending
        if pending is None or pending.waiting[0] != p.seat:
            if READ_LATE_FINESSES and self.rep.strikes < MAX_STRIKES - 1:
                return self._late_finesse()
            return None
        option = p.answer_to(pending)
        card = option.card_of(p.seat) if option is not None else None
        if option is None or card is None:
            return None
        f = option.focus_face
        hand = self.rep.hands[p.seat]
        slot = hand.index(card) + 1
        holder = self.rep.holder(pending.focus) or 0
        say = (Say.PROMPT if p.clued[card] else Say.FINESSE_OR_BLUFF if p.bluffs
               else Say.FINESSE)
        return Advice(Play(p.seat, card), Reason.ANSWER,
                      self.words(say, holder, slot=slot, card=p.table.cards[option.missing],
                                 focus=p.table.cards[f]))

    def _play(self, mine: list[tuple[int, int]]) -> Advice | None:
        p = self.p
        best: tuple[tuple[int, int, int, int], int] | None = None
        ones = p.table.rank_mask[1]
        for slot, (c, m) in enumerate(mine):
            if p._is_playable(m) and c not in self.avoid:
                rank = min(p.rank_of[f] for f in _bits(m))
                if p.ones_in_order and m & ~ones == 0:
                    # 1s known only as 1s go in the order people play them: the one a
                    # clue's focus on the chop touched, then any drawn since the deal, then
                    # from the oldest (so that everyone knows which goes next)
                    order = (0 if c in p.chop_focus else 1 if c >= p.first_drawn else 2,
                             -slot)
                else:
                    order = (0, slot)
                key = (-self._unlocks(m), rank, *order)
                if best is None or key < best[0]:
                    best = (key, c)
        if best is None:
            return None
        c = best[1]
        slot = self.rep.hands[p.seat].index(c) + 1
        return Advice(Play(p.seat, c), Reason.PLAY_KNOWN,
                      self.words(Say.PLAY_KNOWN, slot=slot))

    def _unlocks(self, m: int) -> int:
        """How many cards clued in other hands a play of one of the faces ``m`` brings
        closer (for the choice between two playable cards)."""
        p = self.p
        n = 0
        for f in _bits(m):
            nxt = f + 1
            if p.rank_of[f] < RANKS_PER_SUIT and self.clued_faces.get(nxt, 0):
                n += 1
        return n

    def _last_turn(self, mine: list[tuple[int, int]], clue: tuple[int, Advice] | None
                   ) -> Advice | None:
        """The deck is empty: this is my last turn. A clue that gets a card played in time
        is worth a point; failing that, while a strike cannot end the game, a card that may
        be playable is worth playing (nothing is lost by a misplay now but a fuse)."""
        p = self.p
        rep = self.rep
        players = p.config.players
        later = (rep.final_round_turns_left or 0) - 1  # players still to act after me
        if clue is not None and clue[0] >= PLAY_WEIGHT:
            target = clue[1].action
            if isinstance(target, Clue) and 0 < (target.target - p.seat) % players <= later:
                return clue[1]
        gamble = (self._gamble(mine, 0.0, Say.GAMBLE, read=True)
                  if rep.strikes < MAX_STRIKES - 1 else None)
        if LAST_CLUE and rep.clue_tokens > 0 and later > 0:
            shown = self._last_clue(gamble)
            if shown is not None:
                return shown
        return gamble

    def _last_clue(self, gamble: Advice | None) -> Advice | None:
        """My last turn, and the last player to act after me sees every card but its own:
        it will play the card it knows is playable, else the one likeliest to be. A clue
        that makes that a playable card, when it would not be otherwise, may be worth more
        than my own gamble (its chance ``gamble`` says)."""
        p = self.p
        rep = self.rep
        later = (rep.final_round_turns_left or 0) - 1
        last = (p.seat + later) % p.config.players
        strikes = rep.strikes
        none = self._last_play(last, None, strikes)
        mine = gamble.words.number / 100 if gamble is not None else 0.0
        if strikes == MAX_STRIKES - 2 and gamble is not None:
            # a misplay of mine would leave it no gamble
            after_miss = self._last_play(last, None, strikes + 1)
            keep = mine + mine * none + (1 - mine) * after_miss
        else:
            keep = mine + none
        keep = max(keep, none)
        best: Clue | None = None
        for clue in self._clues_to(last):
            if self._misleads(clue):
                continue  # (a misread play on a table with two strikes scores 0)
            if self._last_play(last, clue, strikes) > keep:
                best = clue
                break
        if best is None:
            return None
        return Advice(best, Reason.PLAN, self.words(Say.PLAN_CLUE, last, clue=best, count=1))

    def _last_play(self, seat: int, clue: Clue | None, strikes: int) -> float:
        """Will ``seat``, on its last turn (after ``clue``, if any), play a playable card?
        Its own hand is all it does not see: it knows which faces are there, not where."""
        p = self.p
        fi = p.fi
        hand = self.rep.hands[seat]
        counts = [0] * len(p.table.cards)
        for c in hand:
            if fi[c] < 0:
                return 0.0
            counts[fi[c]] += 1
        there = 0
        for f, n in enumerate(counts):
            if n:
                there |= 1 << f
        meaning = p._read_clue(clue, clue.touched or frozenset())[0] if clue is not None else {}
        masks = [m & there or m for m in self._known_after(hand, clue, meaning)[1]]
        # its cards known exactly take their faces' copies (as _share_out)
        left = counts[:]
        for m in masks:
            if m & (m - 1) == 0:
                left[m.bit_length() - 1] -= 1
        gone = 0
        for f, n in enumerate(left):
            if n <= 0:
                gone |= 1 << f
        playable = p.board.playable
        best: tuple[float, int] | None = None
        for c, known in zip(hand, masks, strict=True):
            m = known & ~gone or known if known & (known - 1) else known
            if m & ~playable == 0:
                return 1.0 if 1 << fi[c] & playable else 0.0  # it knows one: it plays it
            total = sum(max(left[f], 0) for f in _bits(m))
            good = sum(max(left[f], 0) for f in _bits(m & playable))
            if total and good and (best is None or good / total > best[0]):
                best = (good / total, c)
        if best is None or strikes >= MAX_STRIKES - 1:
            return 0.0
        return 1.0 if 1 << fi[best[1]] & playable else 0.0

    def _gamble(self, mine: list[tuple[int, int]], least: float, say: Say, read: bool = False
                ) -> Advice | None:
        """Play my card likeliest to be playable, if that chance is above ``least`` (with
        ``read``: counting what the other players' discards say of it, see _passed_over)."""
        p = self.p
        rep = self.rep
        counts = self._unseen_counts()
        for f, n in p.known_mine:
            counts[f] -= n  # (those copies are my known cards)
        best: tuple[float, int] | None = None
        playable = p.board.playable
        for c, m in mine:
            if c in self.avoid:
                continue  # it would read as an answer to the question I passed on
            if m & (m - 1) == 0:
                total = good = float(bool(m & playable))  # known exactly
            else:
                # what the other players' discards say of it (see _passed_over)
                passed = p.overlooked[c] if read and not p.clued[c] else ()
                unsaved = p.unsaved[c] if read and not p.clued[c] else ()
                total = good = 0.0
                for f in _bits(m):
                    bit = 1 << f
                    w = float(max(counts[f], 0))
                    if w and passed:
                        w *= OVERLOOKED_WEIGHT ** sum(1 for q in passed if q & bit)
                    if w and unsaved:
                        w *= UNSAVED_WEIGHT ** sum(1 for q in unsaved if q & bit)
                    total += w
                    if bit & playable:
                        good += w
            if total and good > least * total and (best is None or good / total > best[0]):
                best = (good / total, c)
        if best is None:
            return None
        slot = rep.hands[p.seat].index(best[1]) + 1
        return Advice(Play(p.seat, best[1]), Reason.GAMBLE,
                      self.words(say, slot=slot, count=round(best[0] * 100)))

    def _unseen_counts(self) -> list[int]:
        """Per face, the copies this seat has not seen."""
        p = self.p
        return [c - s for c, s in zip(p.table.copies, p.seen, strict=True)]

    # -- cluing

    def _late_finesse(self) -> Advice | None:
        """A clue given since my last turn made another player's card read as exactly a
        playable card X, while I see it is the card after X, and no copy of X is anywhere I
        can see: the giver, following the conventions, meant a finesse on me (a reverse
        finesse, or one on a player further than the first after the giver, which our
        player never asks: MAX_CHAIN). X is my finesse position: I blind-play it; everyone
        then reads that card as the next one (_good_touch_again's delayed finesse)."""
        p = self.p
        rep = self.rep
        players = p.config.players
        recent: set[int] = set()  # cards touched by the clues since my last turn
        turns = 0
        for action in reversed(rep.history):
            if isinstance(action, Move):
                continue
            if action.seat == p.seat or turns >= players - 1:
                break
            turns += 1
            if isinstance(action, Clue):
                recent |= action.touched or frozenset()
        mine = p.finesse_position(p.seat)
        if not recent or mine is None or mine in self.avoid:
            return None
        playable = p.board.playable
        for seat, hand in enumerate(rep.hands):
            if seat == p.seat:
                continue
            for c in hand:
                if c not in recent or not p.clued[c]:
                    continue
                m = p.public(c)
                f = p.fi[c]
                if (m & (m - 1) or not m & playable or f < 0
                        or f != m.bit_length() - 1 + 1 or p.rank_of[f] == 1):
                    continue
                x = f - 1
                if p.table.copies[x] - p.seen[x] <= 0:
                    continue  # every copy of X is in sight: not in my hand
                hand_mine = rep.hands[p.seat]
                return Advice(Play(p.seat, mine), Reason.ANSWER,
                              self.words(Say.FINESSE, seat,
                                         slot=hand_mine.index(mine) + 1,
                                         card=p.table.cards[x], focus=p.table.cards[f]))
        return None

    def _fix(self) -> Advice | None:
        """Someone reads a clued card as playable and it is not (a clue was misread or
        broke a convention): tell them, with a clue after which it no longer reads so,
        before their turn comes. The soonest such player first."""
        p = self.p
        players = p.config.players
        board = p.board
        for k in range(1, players):
            target = (p.seat + k) % players
            wrong = [c for c in self.rep.hands[target]
                     if p.clued[c] and p.fi[c] >= 0 and not 1 << p.fi[c] & board.playable
                     and p._is_playable(p.public(c))]
            if not wrong:
                continue
            for clue in self._clues_to(target):
                touched = clue.touched or frozenset()
                meaning, _ = p._read_clue(clue, touched)
                possible = self.p.poss
                mask = p._clue_mask(clue)
                fixed = True
                for c in wrong:
                    after = meaning.get(c, p.public(c) & (possible[c] & ~mask))
                    if p._is_playable(after):
                        fixed = False
                if fixed and not self._misleads(clue):
                    card = p.table.cards[p.fi[wrong[0]]]
                    slot = self.rep.hands[target].index(wrong[0]) + 1
                    return Advice(clue, Reason.FIX, self.words(Say.FIX, target, clue=clue,
                                                               slot=slot, card=card))
        return None

    def _scream(self, mine: list[tuple[int, int]], target: int) -> Advice | None:
        """No clue token, and the next player must discard its chop, a card that must not
        go: discard my chop instead of playing the card I (publicly) know is playable, which
        tells them to keep their chop (a scream discard), if my chop is worth little."""
        p = self.p
        if not p.is_scream(p.seat):
            return None
        chop = p.chop(target)
        if chop is None or not self._worth_saving(chop) or p.has_known_safe_action(target):
            return None
        mine_chop = p.chop(p.seat)
        if mine_chop is None:
            return None
        known = dict(mine)
        if self._expected_loss((mine_chop, known[mine_chop])) >= SCREAM_MAX_LOSS:
            return None
        hand = self.rep.hands[p.seat]
        return Advice(Discard(p.seat, mine_chop), Reason.SCREAM,
                      self.words(Say.SCREAM, target, slot=hand.index(mine_chop) + 1,
                                 card=p.table.cards[p.fi[chop]]))

    def _twin_may_be_mine(self) -> bool:
        """The last action discarded a card whose other copy is now a last copy I cannot
        see: it may be my chop, and the discarder saw my hand but had no turn to warn me."""
        p = self.p
        last = next((a for a in reversed(self.rep.history) if not isinstance(a, Move)), None)
        if not isinstance(last, Discard):
            return False
        f = p.fi[last.card]
        if f < 0 or not 1 << f & p.board.critical:
            return False
        return p.table.copies[f] - p.seen[f] > 0

    def _threatened(self) -> bool:
        """Does some other player's chop hold a card that must not be discarded?"""
        p = self.p
        for seat in range(p.config.players):
            if seat != p.seat:
                chop = p.chop(seat)
                if chop is not None and self._worth_saving(chop):
                    return True
        return False

    def _urgent_save(self, target: int) -> Advice | None:
        """The next player must discard its chop, and that card is needed: save it."""
        p = self.p
        rep = self.rep
        if target == p.seat or rep.clue_tokens - 1 >= MAX_CLUE_TOKENS:
            return None
        chop = p.chop(target)
        if chop is None or not self._worth_saving(chop):
            return None
        if p.has_known_safe_action(target):
            return None
        best: tuple[int, Clue] | None = None
        hand = rep.hands[target]
        by_loss = p.config.players <= LOCKING_SAVE_PLAYERS
        locking_tokens = self._after_save_tokens() if by_loss else 1
        refused_all = True  # every save clue refused by its rating (bad touch)
        for clue in self._clues_to(target):
            touched = clue.touched or frozenset()
            if chop not in touched:
                continue
            rated = self._rate_clue(clue)
            if rated is None:
                continue
            refused_all = False
            if (NO_LOCKING_LAST_SAVE and not rated[1]
                    and rep.clue_tokens <= locking_tokens
                    and all(p.clued[c] or c in touched for c in hand)
                    and not (by_loss
                             and self._locked_loss(target, clue)
                             <= self._face_loss(p.fi[chop]) - LOCKING_SAVE_MARGIN)):
                # it would lock the hand with too few tokens left to stall: a clued card
                # goes next, and costs nearly as much as the chop (see LOCKING_SAVE_PLAYERS)
                continue
            if best is None or rated[0] > best[0]:
                best = (rated[0], clue)
        if (best is None and refused_all and 1 << p.fi[chop] & p.board.critical
                and p.config.players <= BAD_TOUCH_SAVE_PLAYERS):
            best = self._bad_touch_save(target, chop)
        if best is None:
            return None
        clue = best[1]
        f = p.fi[chop]
        if (p.config.players <= TRADE_SAVE_PLAYERS
                and rep.clue_tokens - 1 < self._after_save_tokens()):
            # the save moves the chop on, and with no token to spare for a stall the next
            # card goes instead: not worth it if that one costs as much (see
            # TRADE_SAVE_PLAYERS)
            touched = clue.touched or frozenset()
            new_chop = next((c for c in reversed(hand)
                             if not p.clued[c] and c not in touched), None)
            if (new_chop is not None and self._worth_saving(new_chop)
                    and self._face_loss(p.fi[new_chop]) >= self._face_loss(f)):
                return None
        face = p.table.cards[f]
        say = (Say.SAVE_FIVE if face.rank == RANKS_PER_SUIT
               else Say.SAVE_LAST if 1 << f & p.board.critical else Say.SAVE_TWO)
        return Advice(clue, Reason.SAVE, self.words(say, target, clue=clue, card=face))

    def _urgent_play(self, target: int) -> Advice | None:
        """The next player has nothing safe to do and will discard its chop, a card playable
        now that nobody else holds clued: a play clue on it first (H-group level 1), before
        my own play."""
        p = self.p
        chop = p.chop(target)
        if chop is None or p.has_known_safe_action(target):
            return None
        f = p.fi[chop]
        if f < 0 or not 1 << f & p.board.playable or self.clued_faces.get(f, 0):
            return None
        if any(p.clued[c] and p.public(c) >> f & 1 for c in self.rep.hands[p.seat]):
            return None  # a clued card of mine may be it: I may play it myself
        best: tuple[int, Clue] | None = None
        for clue in self._clues_to(target):
            if chop not in (clue.touched or frozenset()):
                continue
            rated = self._rate_clue(clue)
            if rated is not None and rated[1] and (best is None or rated[0] > best[0]):
                best = (rated[0], clue)
        if best is None:
            return None
        return Advice(best[1], Reason.PLAY_CLUE,
                      self.words(Say.PLAY_CLUE, target, clue=best[1], count=1))

    def _bad_touch_save(self, target: int, chop: int) -> tuple[int, Clue] | None:
        """Every clue that would save ``target``'s chop, a last copy, also touches a card that
        will never be played (bad touch, which the ratings refuse): H-group accepts that
        rather than lose the card. The one touching fewest cards of those after which the
        chop reads as what it may be and no touched card reads as playable when it is not."""
        p = self.p
        best: tuple[int, Clue] | None = None
        for clue in self._clues_to(target):
            touched = clue.touched or frozenset()
            if chop not in touched:
                continue
            meaning, _ = p._read_clue(clue, touched)
            if not meaning.get(chop, 0) >> p.fi[chop] & 1 or self._harm(clue)[0]:
                continue
            if best is None or len(touched) < -best[0]:
                best = (-len(touched), clue)
        return best

    def _known_after(self, hand: Sequence[int], clue: Clue | None,
                     meaning: Mapping[int, int]) -> tuple[list[int], list[int]]:
        """Per card of ``hand``: the faces its clues allow, and what everyone then knows of
        it (as ``public``), after ``clue`` read with ``meaning`` (no clue: as things are)."""
        p = self.p
        if clue is None:
            return [p.poss[c] for c in hand], [p.public(c) for c in hand]
        touched = clue.touched or frozenset()
        hit = p._clue_mask(clue)
        possible, known = [], []
        for c in hand:
            poss = p.poss[c] & (hit if c in touched else ~hit)
            possible.append(poss)
            known.append(meaning.get(c, p.inf[c]) & poss or poss)
        return possible, known

    def _locked_loss(self, target: int, clue: Clue | None) -> int:
        """The points lost when ``target``, every card clued (after ``clue``, if any) and no
        token left, gives up the card it would choose: as _discard chooses, by what everyone
        knows of its cards (the copies counted are those it has not seen: not discarded, not
        played; my hand's are left in, as I do not know them all)."""
        p = self.p
        hand = self.rep.hands[target]
        meaning = self.reads.get(id(clue), ({}, None))[0] if clue is not None else {}
        possible, masks = self._known_after(hand, clue, meaning)
        # copies neither discarded nor played, and the faces that have one
        counts = [n - g - u for n, g, u in zip(p.table.copies, p.gone, p.used, strict=True)]
        left = sum(1 << f for f, n in enumerate(counts) if n > 0)
        best: tuple[tuple[bool, bool, float], int] | None = None
        for c, m, poss in zip(hand, masks, possible, strict=True):
            key = self._give_up_order(poss, m, left, counts)
            if best is None or key < best[0]:
                best = (key, c)
        if best is None or p.fi[best[1]] < 0:
            return 0
        return self._face_loss(p.fi[best[1]])

    def _worth_saving(self, card: int) -> bool:
        p = self.p
        f = p.fi[card]
        if f < 0:
            return False
        bit = 1 << f
        if bit & p.board.trash or self.clued_faces.get(f, 0):
            return False
        if bit & p.board.critical or p.rank_of[f] == RANKS_PER_SUIT:
            return True
        if p.rank_of[f] == 2 and p.config.players <= TWO_SAVES_UP_TO:
            # another copy in a hand this seat sees: that one can be saved later
            return not any(p.fi[c] == f and c != card
                           for s, hand in enumerate(self.rep.hands) if s != p.seat
                           for c in hand)
        return False

    def _clues_to(self, target: int) -> list[Clue]:
        return [a for a in self.clues()
                if type(a) is Clue and a.target == target]

    def _value_bounds(self, clues: list[Clue], floor: int | None = None) -> list[int]:
        """Per clue, no less than the value ``_rate`` gives it (when it gives one), and
        cheap: the touched cards' faces are known to this seat, so good and bad touch are
        counted as ``_rate`` counts them, a save as well, and a card counts as a play if its
        face is one the queued plays reach and its holder does not know that yet (or, for a
        prompt or finesse, if a face is one above a firework's next card: then the
        connecting card plays too). With ``floor`` (at least MIN_CLUE_VALUE), a clue that
        touches no such card is worth less (a save and good touch alone fall short) and
        gets a bound below it at once."""
        p = self.p
        fi = p.fi
        clued = p.clued
        inf = p.inf
        possible = p.poss
        eventual = self.eventual
        not_eventual = ~eventual
        connectable = p._context().connectable
        trash = p.board.trash
        clued_faces = self.clued_faces
        saves: dict[int, int | None] = {}  # target -> its chop if worth saving
        hopeless = -BAD_TOUCH_WEIGHT * len(fi)
        may_play: set[int] | None = None
        if floor is not None and floor >= MIN_CLUE_VALUE:
            may_play = set()
            for seat, hand in enumerate(self.rep.hands):
                if seat != p.seat:
                    for c in hand:
                        if (f := fi[c]) >= 0 and 1 << f & (eventual | connectable):
                            may_play.add(c)
        out = []
        for clue in clues:
            if may_play is not None and may_play.isdisjoint(clue.touched or ()):
                out.append(hopeless)
                continue
            plays = good = bad = conn = 0
            seen_here = 0
            touched = clue.touched or frozenset()
            for c in touched:
                f = fi[c]
                if f < 0:
                    continue  # (_rate gives no value then)
                bit = 1 << f
                if bit & eventual:
                    poss = possible[c]
                    if (inf[c] & poss or poss) & not_eventual:
                        plays += 1
                elif bit & connectable and not conn and self._may_connect(clue, c, f):
                    conn = 1
                if clued[c]:
                    continue
                if bit & trash or f in clued_faces or bit & seen_here:
                    bad += 1
                else:
                    good += 1
                seen_here |= bit
            plays += 2 * conn
            value = (plays * PLAY_WEIGHT + good * GOOD_TOUCH_WEIGHT
                     + conn * BLUFF_NAMES_WEIGHT - bad * BAD_TOUCH_WEIGHT)
            target = clue.target
            if plays and not self.busy(target):
                value += IDLE_WEIGHT
            if target not in saves:
                chop = p.chop(target)
                saves[target] = chop if chop is not None and self._worth_saving(chop) else None
            if saves[target] in touched:
                value += SAVE_WEIGHT
            out.append(value)
        return out

    def _may_connect(self, clue: Clue, card: int, face: int) -> bool:
        """Could ``clue`` be rated as a prompt, finesse or bluff that ``card`` (face
        ``face``, one above its firework's next card) is the focus of? Only if it is the
        focus, some player is asked to answer, and the card that player would play is the
        missing one (or, asked alone, another playable card: a bluff). A cheap test of the
        conditions ``_rate`` checks, for its bound."""
        p = self.p
        if p.pending is not None:
            return False  # one question at a time
        chain = p._chain(clue)
        if not chain:
            return False
        touched = clue.touched or frozenset()
        chop = p.chop(clue.target)
        clued = p.clued
        if chop is not None and chop in touched:
            if chop != card:
                return False
        elif next((c for c in self.rep.hands[clue.target] if c in touched and not clued[c]),
                  None) != card:
            return False
        missing = face - 1
        fi = p.fi
        for seat in chain:
            answer = p._connecting_card(seat, missing)
            if answer is None:
                continue
            f = fi[answer]
            if f == missing or (p.bluffs and len(chain) == 1 and not clued[answer] and f >= 0
                                and 1 << f & p.board.playable):
                return True
        return False

    def _rate_clue(self, clue: Clue) -> tuple[int, int] | None:
        """(value, plays) of a clue, or None if it would mislead its receiver (computed
        once a turn: a save, the best clue and a stall may each ask)."""
        key = id(clue)  # the clues of this turn live as long as the turn
        if key in self._ratings:
            return self._ratings[key]
        rated = self._rate(clue)
        self._ratings[key] = rated
        return rated

    def _rate(self, clue: Clue) -> tuple[int, int] | None:
        p = self.p
        touched = clue.touched or frozenset()
        mask = p._clue_mask(clue)
        possible = p.poss
        hand = self.rep.hands[clue.target]
        for c in hand:
            poss = possible[c]
            if (poss & mask if c in touched else poss & ~mask) != poss:
                break
        else:
            return None  # a repeat: tells nobody anything
        # Cheap early exit, same verdict as below: good touch would rule out the true face
        # of a newly touched useless card (unless every face it may be is useless).
        excluded = p.board.trash | self.known
        clued = p.clued
        fi = p.fi
        for c in touched:
            if (not clued[c] and fi[c] >= 0 and 1 << fi[c] & excluded
                    and possible[c] & mask & ~excluded):
                return None
        meaning, pending = p._read_clue(clue, touched)
        self.reads[id(clue)] = (meaning, pending)
        chop = p.chop(clue.target)
        plays = bad = good = save = 0
        bluffed = False
        if pending is not None:
            meaning = dict(meaning)  # (the reading as read is kept in self.reads)
            f = p.fi[pending.focus]
            option = next((o for o in pending.options if o.focus_face == f), None)
            if option is not None:
                if self.clued_faces.get(f, 0):
                    return None
                blind = option.card_of(pending.waiting[0])
                if (blind is not None and not p.clued[blind] and p.fi[blind] >= 0
                        and self.clued_faces.get(p.fi[blind], 0)):
                    # the blind play would copy a clued card: its holder, reading it by
                    # good touch (a clued 1 once the copy is played), would misplay it
                    return None
                if any(p.fi[card] == option.missing for _, card in option.cards):
                    meaning[pending.focus] = 1 << f  # once the responder has played
                else:
                    bluff = self._bluff(pending, option)
                    if bluff is None:
                        return None  # the responder's card would misplay
                    meaning[pending.focus] &= bluff
                    bluffed = True
                    if bluff & (bluff - 1) == 0:
                        good += BLUFF_NAMES_WEIGHT  # and the focus will be known exactly
                plays += 1  # the connecting card
            else:
                if any(p.fi[card] == o.missing for o in pending.options for _, card in o.cards):
                    return None  # a copy of the focus where an answer would come from
                meaning[pending.focus] &= ~pending.connected
        finessed = pending.focus if pending is not None and plays and not bluffed else None
        self._meanings[id(clue)] = meaning
        seen_here: set[int] = set()
        not_eventual = ~self.eventual
        trash = p.board.trash
        clued_faces = self.clued_faces
        inf = p.inf
        ones = p.table.rank_mask[1]
        for c, m in meaning.items():
            f = fi[c]
            if f < 0 or not m >> f & 1:
                return None  # the receiver would rule out its true face
            poss = possible[c]
            old = inf[c] & poss or poss  # p.public(c)
            if (m & not_eventual == 0 or c == finessed) and old & not_eventual != 0:
                plays += 1
            if clued[c]:
                continue
            if 1 << f & trash or f in clued_faces or f in seen_here:
                if GTA_ONES_ONLY and p.rank_of[f] == 1 and m & ones == m:
                    # a second copy of a 1 read as a 1: once the first is played, good
                    # touch reads this one as another 1 (_good_touch_again), a misplay
                    return None
                bad += 1
            else:
                good += 1
            seen_here.add(f)
            if c == chop and self._worth_saving(c):
                save += 1
        value = (plays * PLAY_WEIGHT + save * SAVE_WEIGHT + good * GOOD_TOUCH_WEIGHT
                 - bad * BAD_TOUCH_WEIGHT)
        if plays and not self.busy(clue.target):
            value += IDLE_WEIGHT  # it would have discarded otherwise
        if chop in touched and not plays:
            # the clue moves the chop on: onto a card that must not be discarded?
            new_chop = next((c for c in reversed(hand)
                             if not clued[c] and c not in touched), None)
            if new_chop is not None and self._worth_saving(new_chop):
                value -= EXPOSE_WEIGHT
            if new_chop is None:
                value -= LOCK_WEIGHT  # every card clued: it must discard a clued one
        return value, plays

    def _bluff(self, pending: Pending, option: Connection) -> int | None:
        """The answer to ``option`` would be a blind play of another playable card (a
        bluff): what the focus then reads as, or None if that card would not play."""
        p = self.p
        if not p.bluffs or len(pending.waiting) != 1:
            return None
        seat = pending.waiting[0]
        card = option.card_of(seat)
        if card is None or p.clued[card] or p.fi[card] < 0:
            return None  # a prompt is never a bluff
        f = p.fi[card]
        if not 1 << f & p.board.playable:
            return None
        m = 0
        for o in pending.options:
            if o.card_of(seat) == card:
                if o.missing == f:
                    return None  # it would read as that finesse instead
                m |= 1 << o.focus_face
        return m

    def _misleads(self, clue: Clue) -> bool:
        """Would ``clue`` get a card misplayed: one it touches read as playable when it is not,
        or a blind play asked of a player whose card would not play (a false finesse)?"""
        if self._harm(clue)[0]:
            return True
        p = self.p
        _, pending = p._read_clue(clue, clue.touched or frozenset())
        if pending is None:
            return False
        f = p.fi[pending.focus]
        option = next((o for o in pending.options if o.focus_face == f), None)
        if option is None or any(p.fi[card] == option.missing for _, card in option.cards):
            return False  # a direct clue, or the missing card comes
        return self._bluff(pending, option) is None

    def _harm(self, clue: Clue) -> tuple[int, int]:
        """How many touched cards would read as playable, and as trash, when they are not."""
        p = self.p
        meaning, _ = p._read_clue(clue, clue.touched or frozenset())
        misplays = misdiscards = 0
        eventual = self.eventual
        for c, m in meaning.items():
            bit = 1 << p.fi[c] if p.fi[c] >= 0 else 0
            if p._is_playable(m) and not bit & p.board.playable:
                misplays += 1
            elif bit and not m & bit and m & ~eventual == 0:
                # read as a card that will be playable once the clued ones before it are
                # (a delayed play clue), and it is not that card: a misplay to come
                misplays += 1
            if p._is_trash(m) and not bit & p.board.trash:
                misdiscards += 1
        return misplays, misdiscards

    def busy(self, seat: int) -> bool:
        """Does ``seat`` know of a safe action (so it will not discard its chop)?"""
        known = self._busy.get(seat)
        if known is None:
            known = self._busy[seat] = self.p.has_known_safe_action(seat)
        return known

    def _recent_clues(self) -> set[tuple[int, object, object]]:
        """(target, colour, rank) of the clues given in the last round of turns."""
        out: set[tuple[int, object, object]] = set()
        turns = 0
        for action in reversed(self.rep.history):
            if isinstance(action, Move):
                continue
            turns += 1
            if turns > self.p.config.players:
                break
            if isinstance(action, Clue):
                out.add((action.target, action.colour, action.rank))
        return out

    def _best_clue(self, floor: int | None = None) -> tuple[int, Advice] | None:
        """The clue worth most and its value; None if there is none (with ``floor``: none
        worth that much, and clues worth less are not rated)."""
        p = self.p
        players = p.config.players
        best: tuple[tuple[int, bool, int, int], Clue, int] | None = None
        recent = self._recent_clues()
        clues = [clue for clue in self.clues() if type(clue) is Clue]
        bounds = self._value_bounds(clues, floor)
        # Rated from the most promising on, and no further once a clue's bound is below the
        # best value found: the same choice as rating them all, for about half the work.
        for i in sorted(range(len(clues)), key=bounds.__getitem__, reverse=True):
            if ((best is not None and bounds[i] < best[0][0])
                    or (floor is not None and bounds[i] < floor)):
                break
            clue = clues[i]
            rated = self._rate_clue(clue)
            if rated is None:
                continue
            value, plays = rated
            soon = -((clue.target - p.seat) % players)
            # between equal clues, not the one just given again (people find that odd)
            fresh = (clue.target, clue.colour, clue.rank) not in recent
            key = (value, fresh, soon, -i)  # (-i: the first listed of equal clues)
            if best is None or key > best[0]:
                best = (key, clue, plays)
        if best is None or (floor is not None and best[0][0] < floor):
            return None
        (value, _, _, _), clue, plays = best
        if plays:
            say, reason = Say.PLAY_CLUE, Reason.PLAY_CLUE
        elif self.rep.clue_tokens == MAX_CLUE_TOKENS:
            say, reason = Say.STALL_FULL, Reason.STALL
        else:
            say, reason = Say.STALL_SPARE, Reason.STALL
        return value, Advice(clue, reason,
                             self.words(say, clue.target, clue=clue, count=plays))

    # -- discarding

    def _discard(self, mine: list[tuple[int, int]], clue: tuple[int, Advice] | None
                 ) -> Advice:
        p = self.p
        hand = self.rep.hands[p.seat]
        trash = self._known_trash(mine)
        if trash is not None:
            return trash
        chop = p.chop(p.seat)
        if chop is not None:
            critical = p.board.critical
            known = dict(mine)
            if known[chop] & ~critical == 0:
                # what I know of my chop says it is a last copy: the next unclued card
                # that may not be goes instead
                other = next((c for c, m in reversed(mine)
                              if not p.clued[c] and m & ~critical), None)
                if other is not None:
                    slot = hand.index(other) + 1
                    return Advice(Discard(p.seat, other), Reason.DISCARD_CHOP,
                                  self.words(Say.DISCARD_NEXT, slot=slot))
            slot = hand.index(chop) + 1
            return Advice(Discard(p.seat, chop), Reason.DISCARD_CHOP,
                          self.words(Say.DISCARD_CHOP, slot=slot))
        if not mine:  # no card left to discard (all or nothing: no final round)
            return clue[1] if clue is not None else self._stall(mine)
        # every card is clued: give up the one least likely to be needed
        if LOCKED_BY_LOSS:
            # never one the clues alone say is a last copy while another may not be (nor
            # one the conventions say is); then the one whose loss costs the fewest points
            unseen = p._unseen()
            counts = self._unseen_counts()
            best = min(mine, key=lambda cm: self._give_up_order(p.poss[cm[0]], cm[1], unseen,
                                                                counts))
        else:
            best = min(mine, key=lambda cm: (bin(cm[1] & p.board.critical).count("1")
                                             / max(1, bin(cm[1]).count("1"))))
        say = Say.DISCARD_LOCKED
        if clue is not None and self.rep.clue_tokens > 0:
            if not (p.config.players == 2 and self.rep.clue_tokens <= LOCKED_FREE_DISCARD
                    and self._expected_loss(best) == 0):
                return clue[1]
            say = Say.DISCARD_LOCKED_FREE
        slot = hand.index(best[0]) + 1
        return Advice(Discard(p.seat, best[0]), Reason.LOCKED,
                      self.words(say, slot=slot))

    def _chop_loss(self, mine: list[tuple[int, int]]) -> float:
        """``_expected_loss`` of my chop (0 if I have none)."""
        chop = self.p.chop(self.p.seat)
        if chop is None:
            return 0.0
        return self._expected_loss((chop, dict(mine)[chop]))

    def _expected_loss(self, card_mask: tuple[int, int]) -> float:
        """The points the fireworks can no longer reach if this card of mine goes, averaged
        over the faces it may be (weighted by the copies of each I have not seen)."""
        return self._mean_loss(card_mask[1], self._unseen_counts())

    def _mean_loss(self, faces: int, counts: Sequence[int]) -> float:
        """The points lost if a card that is one of ``faces`` goes, averaged over them, each
        weighted by its copies in ``counts`` (none: not counted): a last copy loses itself and
        every rank above it that could still be played."""
        critical = self.p.board.critical
        total = weight = 0.0
        for f in _bits(faces):
            w = counts[f]
            if w <= 0:
                continue
            weight += w
            if 1 << f & critical:
                total += w * self._reach_above(f)
        return total / weight if weight else 0.0

    def _give_up_order(self, possible: int, known: int, pool: int,
                       counts: Sequence[int]) -> tuple[bool, bool, float]:
        """Which card of a locked hand goes first (the smallest): never one the clues alone
        (``possible``) say is a last copy among the faces still in ``pool`` while another may
        not be, nor one known (``known``) to be; then the one whose loss costs fewest points."""
        critical = self.p.board.critical
        return (possible & pool & ~critical == 0, known & ~critical == 0,
                self._mean_loss(known, counts))

    def _face_loss(self, f: int) -> int:
        """The points lost if a card of face ``f`` goes now."""
        return self._reach_above(f) if 1 << f & self.p.board.critical else 0

    def _reach_above(self, f: int) -> int:
        """How many ranks from face ``f`` up its firework can still reach."""
        p = self.p
        base = f - f % RANKS_PER_SUIT
        n = 0
        for g in range(f, base + RANKS_PER_SUIT):
            if p.table.copies[g] - p.gone[g] <= 0:
                break
            n += 1
        return n

    def _known_trash(self, mine: list[tuple[int, int]]) -> Advice | None:
        p = self.p
        for c, m in reversed(mine):
            if p._is_trash(m):
                slot = self.rep.hands[p.seat].index(c) + 1
                return Advice(Discard(p.seat, c), Reason.DISCARD_TRASH,
                              self.words(Say.DISCARD_TRASH, slot=slot))
        return None

    def _stall(self, mine: list[tuple[int, int]]) -> Advice:
        """8 clue tokens and nothing to play: any clue that does not mislead; failing
        that, the one that misleads least, or a gamble on my likeliest playable card while
        a strike cannot end the game."""
        p = self.p
        best: tuple[tuple[int, int], Clue] | None = None
        for clue in self.clues():
            if type(clue) is not Clue:
                continue
            if self._rate_clue(clue) is not None:
                return Advice(clue, Reason.STALL,
                              self.words(Say.STALL_FREE, clue.target, clue=clue))
            harm = self._harm(clue)
            if best is None or harm < best[0]:
                best = (harm, clue)
        if best is not None and (best[0][0] == 0 or self.rep.strikes >= MAX_STRIKES - 1
                                 or not mine):
            clue = best[1]
            return Advice(clue, Reason.STALL,
                          self.words(Say.STALL_UNCLEAN, clue.target, clue=clue))
        board = p.board
        # (not a card that would read as an answer to the question I passed on, if I can)
        options = [cm for cm in mine if cm[0] not in self.avoid] or mine
        c, _ = max(options, key=lambda cm: (bin(cm[1] & board.playable).count("1")
                                            / max(1, bin(cm[1]).count("1"))))
        slot = self.rep.hands[p.seat].index(c) + 1
        return Advice(Play(p.seat, c), Reason.LOCKED, self.words(Say.LOCKED_PLAY, slot=slot))


# What the end-game plan may overrule: not an answer to a finesse or prompt, a fix, or a save.
_PLANNED = frozenset({Reason.PLAY_KNOWN, Reason.PLAY_CLUE, Reason.DISCARD_TRASH,
                      Reason.DISCARD_CHOP, Reason.STALL, Reason.LOCKED, Reason.GAMBLE})


# Boards and contexts are public: every seat's player computes the same ones after each play
# and discard, so they share them. A board depends only on the fireworks, the discard counts
# and the copies of each face in the deck, a context on the fireworks and the known faces:
# one pair of caches per tuple of copies (which also fixes the number of suits) serves all.
_shared: dict[tuple[int, ...],
              tuple[dict[tuple[int, int], Board], dict[tuple[int, int], Context]]] = {}


def _caches_for(table: FaceTable
                ) -> tuple[dict[tuple[int, int], Board], dict[tuple[int, int], Context]]:
    caches = _shared.get(table.copies)
    if caches is None:
        caches = _shared[table.copies] = ({}, {})
    return caches


def _board_of(fireworks: Sequence[int], gone: Sequence[int], copies: tuple[int, ...]
              ) -> Board:
    """The board of these fireworks and discard counts (per face index), with ``copies``
    of each face in the deck."""
    playable = trash = critical = 0
    for s, top in enumerate(fireworks):
        base = s * RANKS_PER_SUIT
        end = base + RANKS_PER_SUIT
        p_mask, t_mask, c_mask = _suit_facts(top, copies[base:end], tuple(gone[base:end]))
        playable |= p_mask << base
        trash |= t_mask << base
        critical |= c_mask << base
    return Board(playable, trash, critical)


@cache
def _suit_facts(top: int, copies: tuple[int, ...], gone: tuple[int, ...]
                ) -> tuple[int, int, int]:
    """(playable, trash, critical) rank masks (bit 0: rank 1) of a suit whose firework has
    reached ``top``, with ``copies`` of each rank in the deck and ``gone`` discarded."""
    playable = trash = critical = 0
    dead = False
    for r in range(RANKS_PER_SUIT):
        if r < top or dead:
            trash |= 1 << r
            continue
        if r == top:
            playable |= 1 << r
        left = copies[r] - gone[r]
        if left <= 0:
            dead = True
            trash |= 1 << r
        elif left == 1:
            critical |= 1 << r
    return playable, trash, critical


def _context_of(fireworks: Sequence[int], known: int) -> Context:
    """The context for these fireworks when the faces ``known`` are known."""
    queued = []
    next_mask = connectable = eventual = 0
    for s, top in enumerate(fireworks):
        base = s * RANKS_PER_SUIT
        reach = top
        while reach < RANKS_PER_SUIT and known >> (base + reach) & 1:
            reach += 1
        queued.append(reach)
        if reach < RANKS_PER_SUIT:
            next_mask |= 1 << (base + reach)
            if reach == top and top + 2 <= RANKS_PER_SUIT:
                connectable |= 1 << (base + top + 1)
        # ranks top..reach (the card after the queued ones included), up to the 5
        above = min(reach + 1, RANKS_PER_SUIT) - top
        if above > 0:
            eventual |= ((1 << above) - 1) << (base + top)
    return Context(known, tuple(queued), next_mask, connectable, eventual)


@cache
def _chain_of(players: int, giver: int, target: int) -> tuple[int, ...]:
    between = min(MAX_CHAIN, (target - giver) % players - 1)
    return tuple((giver + k) % players for k in range(1, between + 1))


def _bits(m: int) -> list[int]:
    out = []
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out


# ---------------------------------------------------------------------- stateless entry

# (id of the game state, seat) -> (that very state, its player). The state is kept with its
# player so that its id cannot be reused by another game's state while the entry lives: a
# fresh game would otherwise "follow" a stale replica of another deal at turn 0.
_players: dict[tuple[int, int, int | None], tuple[GameState, HGroupPlayer]] = {}


def _player_for(state: GameState, seat: int, level: int | None) -> HGroupPlayer:
    key = (id(state), seat, level)
    cached = _players.get(key)
    player = cached[1] if cached is not None and cached[0] is state else None
    if player is None or not player.follows(state):
        player = HGroupPlayer(state.config, seat, level)
        _players.pop(key, None)
        if len(_players) >= CACHE_SIZE:
            del _players[next(iter(_players))]
        _players[key] = (state, player)
    return player


def choose_action(state: GameState, seat: int, level: int | None = None) -> TurnAction:
    """The action ``seat`` takes now (its turn, game not over), playing the conventions of
    H-group ``level`` (None: every one it knows). Keeps a replica per game and seat between
    calls, so each call only reads the actions since the last one."""
    return explain(state, seat, level=level).action


def explain(state: GameState, seat: int, names: Sequence[str] | None = None,
            level: int | None = None) -> Advice:
    """What the convention player would do in ``seat`` now, and why (``.text``, in the current
    language), e.g. ``clue Bob red: focus on the chop, it is the last R4 — a save``.
    ``names``: the players' names by seat (default "seat 1", "seat 2", ...); ``level``: the
    H-group level whose conventions it follows (None: every one it knows)."""
    return _player_for(state, seat, level).advise(state, names)


__all__ = ["Advice", "HGroupPlayer", "Reason", "choose_action", "explain"]
