"""The convention player's constants: the weights of a clue's value and the thresholds of its
choices (docs/conventions.md says what each convention is; hgroup.py is the player).

Tuning honesty: every constant below that says "measured" was chosen on bench/bots.py's
tuning seeds (TUNING_SEEDS, seeds 0 to 999,999: its "seeds 0..", "seeds 5000..", "seeds
10000.." and unnamed "seeded games" are offsets there), never on REPORTING_SEEDS, which
the figures we publish come from. Constants with no measurement are conventions.
"""

# Weights of a clue's value (see _rate_clue). A clue that makes a card playable is worth
# more than a save that is not urgent (an urgent save is given before anything else, see
# _urgent_save), and touching a card that will never be played is the cost good touch avoids.
# Tried for issue 32's middle game (paired, same decks, tuning seeds 0..999, 1000 games, 3p
# then 4p; "e1a9fff": against the player before EARLY_RICH_TOKENS, else with it): GOOD_TOUCH_
# WEIGHT 0 -0.495 +- 0.053, -0.318 +- 0.050 (a one-play clue then falls short of MIN_CLUE_
# VALUE), 3 +0.000 +- 0.023, +0.025 +- 0.026; SAVE_WEIGHT 0 -0.057 +- 0.016, -0.037 +- 0.020,
# 6 -0.017 +- 0.014, +0.022 +- 0.020 (e1a9fff); PLAY_WEIGHT, MIN_CLUE_VALUE with it: 7 -0.024
# +- 0.019, +0.009 +- 0.020; 15 -0.015 +- 0.009, +0.008 +- 0.011; 20 -0.004 +- 0.011, -0.004
# +- 0.012. A newly touched card that the clue leaves known exactly (not yet playable: no
# clue needed when its turn comes) worth 3 more: -0.017 +- 0.022, +0.013 +- 0.021; 6 more:
# -0.012 +- 0.024, +0.001 +- 0.024. (Of 1,670 play clues in 100 games at 3p, 2 were given
# while a clue that got more cards played was there: the choice of clue is not the limit.)
PLAY_WEIGHT = 10
SAVE_WEIGHT = 3
GOOD_TOUCH_WEIGHT = 1
# A play clue to a player with nothing safe to do saves a discard too.
# Tried near the deck's end (paired, tuning seeds 0..999, 1000 games, 3p unless said), to
# spread the plays left across players: within 15 cards, 3 less per card the receiver already
# knows to play: 3p -0.027 +- 0.013, 4p -0.028 +- 0.013 (within 10, from its second card:
# +0.000 +- 0.001); within 15, this bonus also when the receiver knows only trash to discard:
# +0.000 +- 0.006. Within 20, 1 or 3 more per rank its suit still needs: -0.013 +- 0.022,
# +0.003 +- 0.027; 3 more per clued card waiting behind it: -0.016 +- 0.019 (4p -0.027 +-
# 0.023), the same all game -0.096 +- 0.029. All game (e1a9fff, seeds 0..999, 3p then 4p):
# 2 -0.003 +- 0.021, -0.001 +- 0.021; 8 -0.027 +- 0.013, +0.004 +- 0.018.
IDLE_WEIGHT = 5
BAD_TOUCH_WEIGHT = 12
# A clue that touches the chop makes the next card the chop: if that one must be saved
# too, the clue has a cost. Tried (e1a9fff, seeds 0..999, 3p then 4p): 0 -0.047 +- 0.020,
# -0.022 +- 0.017; 8 -0.001 +- 0.001, -0.002 +- 0.004.
EXPOSE_WEIGHT = 4
# A clue that leaves its receiver no unclued card (a locked hand) has a cost too. Tried
# (e1a9fff, seeds 0..999, 3p then 4p): 0 -0.039 +- 0.014, +0.014 +- 0.020; 8 -0.002 +- 0.003,
# -0.012 +- 0.005.
LOCK_WEIGHT = 4
# A clue worth less than this is not given while a discard is possible: discarding the chop
# gains a token and keeps the clue for later. One play that touches no new card (a clued
# card re-clued until it reads as playable) falls short: measured over 2000 seeded games,
# PLAY_WEIGHT -> this: 3p 23.32 -> 23.37, 2p 22.79 -> 22.79 (4p, 5p: +0.02, +0.05).
# Tried: PLAY_WEIGHT alone with 8 cards or fewer in the deck (paired, tuning seeds 0..1999, 3p):
# +0.006 +- 0.005; with 15 or fewer: -0.006 +- 0.009. Again (paired, tuning seeds 0..999,
# 3p): PLAY_WEIGHT only within 15 cards of the deck's end: -0.021 +- 0.010, within 30: -0.041
# +- 0.022; PLAY_WEIGHT + 5 within 15 (more discards, faster draws): -0.049 +- 0.017;
# PLAY_WEIGHT + 3 all game: -0.087 +- 0.029.
MIN_CLUE_VALUE = PLAY_WEIGHT + GOOD_TOUCH_WEIGHT
# With this many clue tokens or more, any clue that does some good (touches a card that
# will be played) beats discarding a chop card that may be needed.
# Tried: 3 instead with 15 cards or fewer in the deck (paired, 2000 games): 3p +0.028 +- 0.012
# (seeds 0..1999) but -0.001 +- 0.011 (seeds 2000..3999), 2p +0.002, 4p -0.011, 5p -0.005;
# 1 or 2: 3p +0.024 (seeds 0..1999); 7: -0.011. (Paired, tuning seeds 0..999, 3p, all game:
# 6 +0.011 +- 0.034, 4 -0.023 +- 0.035.) With EARLY_RICH_TOKENS in (paired, tuning seeds
# 0..1999, 3p then 4p), from 20 cards down: 6 -0.001 +- 0.010, -0.006 +- 0.008; 4 +0.011 +-
# 0.013, -0.022 +- 0.010.
RICH_TOKENS = 5
# From three players on, while the deck holds more than EARLY_RICH_CARDS cards, that many
# tokens become EARLY_RICH_TOKENS: early, a clue that gets no card played (it only touches
# cards to play later) waits, and the chop's discard banks the token for a play clue, of
# which the middle game runs short. Measured (paired, same decks, 2000 games) against
# RICH_TOKENS all game, 7 tokens over 20 cards: 3p +0.034 +- 0.026 (tuning seeds 0..1999),
# +0.009 +- 0.027 (seeds 2000..3999); 4p +0.064 +- 0.023, +0.048 +- 0.023; 5p +0.030 +-
# 0.018 (seeds 0..1999); 2p -0.044 +- 0.032 (so not at two players), 0 strikeouts. Over 25
# cards (seeds 0..1999): 7 tokens 3p +0.021 +- 0.026, 4p +0.062 +- 0.023; 6 tokens +0.003,
# +0.031; 9 (only at 8) +0.010, +0.007 (+- 0.04, seeds 0..999); over 15 cards, 7 tokens:
# +0.032, +0.060. The other way, spending tokens early (H-group's early game: any clue that
# does some good before the first discard: 3p -0.105 +- 0.046, 4p -0.130 +- 0.045; 3 tokens
# over 28 cards: -0.094, -0.028, seeds 0..999) cost points. Also tried over 20 cards, with
# this in (paired, seeds 0..1999, 3p then 4p): a play clue needing 5 more (so one play only
# for a receiver with nothing safe to do) -0.057 +- 0.026, -0.008 +- 0.027; 2 more -0.004 +-
# 0.020, +0.029 +- 0.022; the clue after a save on my chop (AFTER_SAVE_TOKENS) also waiting
# for these tokens unless it gets a card played: -0.050 +- 0.017, +0.010 +- 0.013. Again
# once TWIN_PLAYERS, TRADE_SAVE_PLAYERS and PACE_STALL_PLAYERS were widened with it: 6 tokens
# -0.038 +- 0.021, -0.035 +- 0.019; over 25 cards -0.015 +- 0.010, +0.002 +- 0.009.
EARLY_RICH_TOKENS = 7
EARLY_RICH_CARDS = 20
EARLY_RICH_PLAYERS = 3
# With this many tokens or fewer, while some chop holds a card that must be saved, a clue
# must be worth twice MIN_CLUE_VALUE: the tokens are kept for the save. Tried (e1a9fff, paired,
# seeds 0..999, 3p then 4p): 1 -0.031 +- 0.017, +0.026 +- 0.029; 3 -0.019 +- 0.019, +0.012 +-
# 0.025.
LOW_TOKENS = 2
# Two players: with this many instead (measured, paired, same decks, 2000 games, 2 -> 1: 2p
# +0.032 +- 0.010 (seeds 0..), +0.032 +- 0.010 (seeds 5000..); in a trial with another change
# in, 0: +0.030, +0.045 and 3: -0.011). With one partner, a play clue now is worth more than
# a token held back: an urgent save is given anyway (_urgent_save comes before play clues).
LOW_TOKENS_2P = 1
# From this many players on, with LOW_TOKENS_MANY instead: with more players, more of them
# may give the save the token is kept for, and a play clue now is worth more. Measured once
# EARLY_RICH_TOKENS banks tokens early (paired, same decks, 2000 games), 1 against 2: 4p
# +0.030 +- 0.019 (tuning seeds 0..1999), +0.074 +- 0.020 (seeds 2000..3999), +0.045 +- 0.019
# (seeds 4000..5999); 5p +0.032 +- 0.025 (seeds 0..1999); 0 strikeouts; 3p -0.014 +- 0.012
# (seeds 0..1999), so not there. 0 against 1: 4p -0.025 +- 0.020, 5p +0.086 +- 0.026.
LOW_TOKENS_MANY = 1
LOW_TOKENS_MANY_PLAYERS = 4
# With this many cards or fewer left in the deck, a player with nothing to play stalls with a
# clue instead of discarding (a discard draws a card and brings the end closer). Paired,
# tuning seeds 0..999, 3p: 3 -0.014 +- 0.014, 6 -0.036 +- 0.019, 8 -0.069 +- 0.024. Not in
# the final round (a discard there brings a token for the players still to act): 3p -0.002
# +- 0.001, 4p -0.001 +- 0.001 (the end-game plan decides alike in all but 1-2 games).
# Again once STALL_ONLY_FOR_PLAYS_MANY was in (paired, tuning seeds 0..1999, 3p then 4p): 6
# -0.019 +- 0.011, -0.032 +- 0.011; 8 -0.038 +- 0.014, -0.055 +- 0.014; before it, 5: 3p
# -0.022 +- 0.009, 4p -0.023 +- 0.009, 6: 4p -0.050 +- 0.012.
ENDGAME_STALL_CARDS = 4
# ... if it has more tokens than this (measured: keeping 1 back costs 0.1-0.2 points at 3-5p).
ENDGAME_KEEP_TOKENS = 0
# With this many cards or fewer left in the deck, between clues of equal value, the one that
# tells most about clued cards still to be played is given (bots/endgame_clues.py); a card it
# leaves known exactly counts FILL_IN_EXACT faces more. Measured (paired, same decks, tuning
# seeds 0..1499 and 5000..6499) against no such preference, 3p: +0.023 +- 0.009, +0.016 +-
# 0.008; 4p (seeds 0..999) +0.009 +- 0.011; at 10 cards: 3p +0.009, +0.016, 4p +0.006, 2p
# +0.007, 5p +0.027 +- 0.011; at 20: 3p +0.024, +0.016, 4p +0.008; at 50: 3p +0.005 +- 0.018.
# FILL_IN_EXACT 0 or 5 (at 10 cards): 3p +0.010, +0.009. Counting a fill-in as worth
# more than other clues of its value (+3 or +6) instead: 3p +0.004, +0.003 (+- 0.014).
# Those figures counted only the clued cards the clue touches; counting what it tells of the
# receiver's other clued cards too (as now), against that: 3p +0.015 +- 0.007, +0.005 +-
# 0.008, 4p +0.007 +- 0.010; against no preference: 2p +0.013 +- 0.008, 5p +0.041 +- 0.021.
# Then against 15 cards: 10 cards 3p -0.019 +- 0.008, +0.001; 25 cards 3p +0.005, +0.021
# (+- 0.013), 4p -0.023 +- 0.018; 35 cards 3p +0.012, +0.025 (+- 0.021), 4p -0.052 +- 0.025.
FILL_IN_CARDS = 15
FILL_IN_EXACT = 2
# The end-game plan (bots/endgame.py) looks ahead over the remaining turns once the deck holds
# no more cards than there are players plus this (and in the final round); -1: no plan.
# Measured over 2000 seeded games, no plan -> 0: 2p 22.79 -> 22.86, 3p 23.37 -> 23.45,
# 4p 23.08 -> 23.16, 5p 21.79 -> 21.83, multicolour 2p 26.72 -> 26.78; 1 and 3 did no better
# (3p 23.44, 23.43) and cost more. Again, paired, 1000 games (tuning seeds 0.., 5000..,
# 10000..): 3p 1: +0.005 +- 0.007; 2: +0.011 +- 0.010, +0.001 +- 0.009, +0.002 +- 0.009,
# 4p -0.005 +- 0.010, 5p -0.037 +- 0.020; 4: +0.020 +- 0.012, -0.003 +- 0.011, 4p -0.013 +-
# 0.014; 8: +0.034 +- 0.018, -0.025 +- 0.018; 12: +0.039 +- 0.024 (seeds 0.. only).
PLAN_EXTRA_CARDS = 0
# At tables of this many players or fewer the plan also weighs one clue that gets nothing
# played (a stall): it keeps the deck's last card for a player who has more to play.
# Measured (paired, same decks, 2000 games), 2p: +0.014 +- 0.005 (seeds 0..), +0.011 +-
# 0.006 (seeds 5000..); taking the first such clue rather than the best rated: +0.018,
# +0.012, +0.020 (seeds 10000..), multicolour 2p +0.012. Earlier, at every table: 4p -0.01,
# 5p -0.03. Later (paired, tuning seeds 0..1999, with bots/duplicates.py in): 3p +0.022 +-
# 0.006, 4p +0.010 +- 0.006, so up to 4 players. Again at 5p (paired, tuning seeds
# 0..999): +0.001 +- 0.010.
PLAN_STALL_PLAYERS = 4
# A prompt or finesse asks at most this many players (the first ones after the giver) in
# turn: the longer the wait, the longer the focus stays ambiguous and no other can start.
# Measured over 200 seeded games: 1 -> 22.52 (4p), 21.04 (5p); 2 -> 22.35, 20.66. Again,
# paired, tuning seeds 0..999, 4p: 2 -0.383 +- 0.044.
MAX_CHAIN = 1
# Bluffs (from 3 players): the next player blind-plays a playable card that is not the one
# the focus needs; the focus is then known to be one above its firework's next card.
BLUFFS = True
# A bluff whose focus then reads as one exact card is worth this much more. Tried (e1a9fff,
# paired, seeds 0..999, 3p then 4p): 0 -0.076 +- 0.023, -0.096 +- 0.025; 6 +0.003 +- 0.013,
# +0.017 +- 0.015.
BLUFF_NAMES_WEIGHT = 3
# A player whose chop was just saved gives a clue that does some good rather than discard
# its new chop, with this many tokens or more (the saver had no turn to see that card yet).
# Measured over 1000 seeded games: 2p 22.57 -> 22.63; 1, 3, 4 did no better. Again (e1a9fff,
# paired, seeds 0..999, 3p then 4p): 1 -0.014 +- 0.016, +0.017 +- 0.014; 3 -0.043 +- 0.017,
# -0.003 +- 0.018.
# At four players, 1 with STALL_ONLY_FOR_PLAYS_MANY out (paired, tuning seeds 0..1999):
# -0.005 +- 0.010.
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
# any chop: -0.007; 2 tokens: +0.050. 3p +0.024, 4p +0.001, 5p -0.001 (1000 games). 4 tokens,
# with EARLY_RICH_TOKENS and TRADE_SAVE_PLAYERS as now (paired, tuning seeds 0..1999): 3p
# -0.005 +- 0.004, 4p -0.005 +- 0.004.
AFTER_SAVE_STALL_TOKENS = 3
# At three and four players (paired, tuning seeds 0..1999): a loss of 0.2 -0.006 +- 0.006,
# +0.000 +- 0.004; 0.5 -0.003 +- 0.006, +0.005 +- 0.003.
AFTER_SAVE_STALL_LOSS = 0.3
# Two and three players: the player before me just discarded a card whose other copy is now a
# last copy that I cannot see (it may be my chop, and that player, who sees it, had no turn
# to save it): with
# this many tokens or more a clue that does some good is given rather than a discard.
# Measured (paired, same decks): 2p +0.021 and +0.022 (two sets of 2000 games, each
# +-0.017), multicolour 2p +0.027; 2 tokens: +0.010, 4: +0.003. Not from 3 players on:
# 3p +0.000, 4p +0.023, 5p -0.016 (1000 games). Once EARLY_RICH_TOKENS banks tokens early,
# at three players too (paired, same decks, 2000 games): 3p +0.029 +- 0.015 (tuning seeds
# 0..1999), +0.036 +- 0.015 (seeds 2000..3999), 0 strikeouts; 4p -0.011 +- 0.013 (seeds
# 0..1999), so not there. At three players, 2 or 4 tokens instead (seeds 0..1999): -0.004
# +- 0.008, -0.003 +- 0.007.
TWIN_TOKENS = 3
TWIN_PLAYERS = 3
# With this many cards or fewer left in the deck, a player who would discard (no card known
# to play, no clue worth giving or stall to make) plays instead its card likeliest to be
# playable, if that chance is above EARLY_GAMBLE_P and a strike cannot end the game: so
# near the end the token a discard brings back is worth little, a card played is a point.
# Measured (paired, same decks) against discarding: 2p +0.026 and +0.041 (two sets of 2000
# games), 3p +0.028, 4p +0.000, 5p +0.021 (1000 games); 1 card: 2p +0.028; chance above 0.3
# instead of 0.1: 2p +0.021, 0.5: +0.002; 3 cards: 3p +0.019; 4 cards: 4p -0.043. Again,
# 3 cards against 2 (paired, tuning seeds 0..999): 3p -0.010 +- 0.011.
EARLY_GAMBLE_CARDS = 2
# 0.3 at three and four players (paired, tuning seeds 0..1999): -0.001 +- 0.005, +0.000 +-
# 0.004.
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
# From this many players on, with STALL_ONLY_FOR_PLAYS_MANY tokens or fewer instead: a stall
# that gets nothing played, while nobody knows a card to play, spends a token that the players
# after me, one of whom may see a card to clue once the discard has drawn, use better than the
# turn it keeps. Measured (paired, same decks, 2000 games) against 1: 3 tokens 3p +0.029 +-
# 0.010 (tuning seeds 0..1999), +0.025 +- 0.010 (seeds 2000..3999), +0.037 +- 0.010 (seeds
# 4000..5999); 4p +0.013, +0.014, +0.022 (+- 0.007); 5p -0.002 +- 0.004 (seeds 0..1999); 0
# strikeouts. 2 tokens: 3p +0.024, +0.026 (+- 0.009), 4p +0.000 +- 0.007, 5p +0.001 +-
# 0.004, 2p -0.024 +- 0.009 (so not at two players); any number: 3p +0.023, +0.024 (+-
# 0.010), 4p -0.006 +- 0.005 (against 3); 0 (any stall there): 3p -0.046 +- 0.009, 4p
# -0.019 +- 0.006; at two players 0 instead of 1: -0.177 +- 0.013.
STALL_ONLY_FOR_PLAYS_MANY = 3
STALL_ONLY_FOR_PLAYS_MANY_PLAYERS = 3
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
# At three and four players (paired, tuning seeds 0..1999): 2.0 +0.001 +- 0.001, +0.000;
# 0.5 -0.002 +- 0.001, -0.001 +- 0.001 (a scream comes about once in 20 games). A shout
# discard (known trash let go instead of the chop, which costs nothing) changed no game of
# 2000 at either: a player with no token, a known play and known trash is too rare.
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
# 0.3 at three and four players (paired, tuning seeds 0..1999): +0.001 +- 0.001, +0.000.
OVERLOOKED_WEIGHT = 0.5
UNSAVED_WEIGHT = 0.0
# The end-game plan's model gives my clued cards what I know of them (_mine), not only what
# everyone knows. Measured (paired, 2000 games), 2p: +0.003 +- 0.001, +0.001 +- 0.001.
MODEL_MINE = True
# On my last turn, a clue that makes the last player's last play a playable card (see
# _last_clue). Measured (paired, 2000 games), 2p: +0.008 +- 0.002 (seeds 0.. and 10000..),
# 3p +0.006 +- 0.003.
LAST_CLUE = True
# At tables of this many players or fewer: no save that leaves fewer tokens than the receiver
# needs to stall after it (_after_save_tokens: 3 at two players, 2 from three on) when the
# card behind the chop is worth saving too and costs as many points or more if lost: with no
# token to spare for a stall, the receiver would discard that one instead. Measured (paired,
# same decks, 2000 games), 2p: +0.028 +- 0.013 (seeds 0..), +0.019 +- 0.012 (seeds 10000..);
# 3p -0.008, so at two players only then. ("More" instead of "as many or more": 2p -0.003
# +- 0.004, +0.002 +- 0.004.) Once EARLY_RICH_TOKENS banks tokens early, against two players
# only (paired, tuning seeds 0..1999 then 2000..3999, 2000 games): 3p +0.009 +- 0.007,
# +0.019 +- 0.007; 4p +0.030 +- 0.007, +0.009 +- 0.007; 5p +0.018 +- 0.007 (seeds 0..1999);
# 0 strikeouts. So at every table.
TRADE_SAVE_PLAYERS = 5
# Pace (see _pace): the turns left if each one draws a card (the deck, then the final
# round), less the cards the fireworks still need. A discard spends one turn of it, a play or
# a clue none; below 0, every discard costs a point. Two players: with the pace this low or
# lower and this many tokens or more, while my partner knows a card to play, a clue that does
# no harm beats a discard (even of a card known to be trash): my partner plays meanwhile and
# the deck keeps its card. Measured (paired, same decks, 2000 games), 2p: +0.029 +- 0.008
# (seeds 0..), +0.015 +- 0.007 (seeds 5000..), +0.017 +- 0.007 (seeds 10000..); pace 0:
# +0.022, +0.017; pace 2: +0.023 +- 0.010; 1 token: +0.022; 3 tokens (pace 0): +0.014.
# Without a known play to wait for, the stall costs: pace 0 -0.040, pace 2 -0.150; keeping
# the discard of known trash: +0.019 (pace 0). 3p (pace 1): -0.028, so not used there;
# again (paired, tuning seeds 0..999, 3p): pace 0 -0.004 +- 0.009, pace -1 -0.001 +- 0.005.
# Once EARLY_RICH_TOKENS banks tokens early (with TWIN_PLAYERS and TRADE_SAVE_PLAYERS as
# now), at three players too (pace 1, paired, same decks, 2000 games): 3p +0.018 +- 0.010
# (tuning seeds 0..1999), +0.015 +- 0.009 (seeds 2000..3999), +0.006 +- 0.009 (seeds
# 4000..5999): +0.013 +- 0.005 over the 6000, 0 strikeouts; 4p -0.006 +- 0.007 (seeds
# 0..1999, before it was at three players), so not there.
# Again at three players (paired, tuning seeds 0..1999, before STALL_ONLY_FOR_PLAYS_MANY):
# pace 2 -0.009 +- 0.009; PACE_STALL_TOKENS 1 -0.017 +- 0.006, 3 +0.002 +- 0.006. At four
# players (with it): pace 1 -0.007 +- 0.006, pace 0 +0.004 +- 0.005.
PACE_STALL = 1
PACE_STALL_TOKENS = 2
PACE_STALL_PLAYERS = 3
# At tables of this many players or fewer, a save that leaves its receiver no unclued card and
# nothing to play (see NO_LOCKING_LAST_SAVE) is left out not only with the last token but
# whenever the tokens left after it are too few for the receiver to stall (fewer than
# _after_save_tokens: 3 at two players, 2 at three), unless the clued card the receiver would
# then give up costs fewer points than the chop saved (LOCKING_SAVE_MARGIN; then the save is
# given even with the last token). Measured (paired, same decks, 2000 games, then with a margin
# of 1) against the last token only, 2p:
# +0.099 +- 0.020 (seeds 0..), +0.068 +- 0.020 (seeds 5000..); 3p +0.007 +- 0.006; 4p
# -0.006, 5p -0.011 (so not used there). Leaving out such saves up to 2 tokens only (2p):
# about half of that; up to 4 or 8: no better than 3. With EARLY_RICH_TOKENS and TRADE_SAVE_
# PLAYERS as now (paired, tuning seeds 0..1999), at four players too: 4p -0.010 +- 0.006.
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
# 5p -0.111 (the clue is worth more elsewhere, and the card's other copies come back). Again
# at three players once EARLY_RICH_TOKENS banks tokens early (paired, tuning seeds 0..1999,
# 2000 games): 3p -0.051 +- 0.023.
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
# With this many cards or fewer left in the deck, a clue's bad touch (a card that will never be
# played: a copy of a card clued elsewhere or in the same clue, or a card known to be trash)
# costs LATE_BAD_TOUCH_WEIGHT instead of BAD_TOUCH_WEIGHT: so late, a clue that gets cards
# played (often one colour clue for several cards at once) is worth more than the hand space
# the extra card takes, and the turns left are too few to clue the cards one by one. Measured
# (paired, same decks, tuning seeds 0..1999, 2000 games) against none: 2p +0.042 +- 0.010,
# 3p +0.090 +- 0.014, 4p +0.020 +- 0.013, 5p +0.022 +- 0.017, 0 strikeouts. Other limits
# (seeds 0..999, weight 0), 3p: 10 cards +0.056, 14 +0.078, 17 +0.094 (seeds 1000..1999:
# +0.082), 20 +0.090, 25 +0.015 (1 strikeout), 30 +0.053; 4p: 10 +0.012, 17 +0.013, 20
# +0.023; 5p: 10 +0.039, 14 +0.029, 20 +0.037; 2p: 10 +0.038, 17 +0.040, 20 +0.043. Weight 2
# (3p, 17 cards): +0.055, 6: +0.028. A lower BAD_TOUCH_WEIGHT all game long did not pay
# (3p, seeds 0..999: 8 +0.001, 4 -0.011; and 16 -0.086).
LATE_TOUCH_CARDS = 15
LATE_BAD_TOUCH_WEIGHT = 0
# Then too (LATE_TOUCH_CARDS), at tables of this many players or fewer, a colour play clue may
# touch one trash card of its colour, off its focus, at a cost of TRASH_TOUCH_WEIGHT: good
# touch makes its receiver read that card as a later card of the colour, to keep. Only if it
# reads as no card to play, now, after the clued cards are played, nor once its receiver rules
# out the faces it sees every copy of (one face left, or all playable). Measured (paired, same
# decks, tuning seeds 0..1999, 2000 games, over LATE_TOUCH_CARDS): 3p +0.022 +- 0.007, 2p
# +0.005 +- 0.004, 0 strikeouts; 4p +0.006 +- 0.005, 5p -0.016 +- 0.007 (so not there); any
# clue (rank clues too): 3p +0.030 +- 0.009, 2p +0.004, 4p -0.001 +- 0.005, 5p -0.011 +-
# 0.008. Weight 2: the same at 3p. Alone (without LATE_BAD_TOUCH_WEIGHT, any clue, seeds
# 0..999, 3p): all game long, weight 4 -0.004 +- 0.032 and 1 strikeout, weight 0 -0.095 and 2
# strikeouts (the misread cards later read as playable, by elimination); up to 20 cards left:
# +0.010 and 1 strikeout; up to 10: +0.031; up to 5: +0.011.
TRASH_TOUCH_PLAYERS = 3
TRASH_TOUCH_WEIGHT = 4
# A fix (see _fix) also for a card misread by a bad touch (its true face ruled out) that its
# holder alone may read as playable, once it rules out the faces it sees every copy of (public
# knowledge does not say so: the other players would not fix it before). Measured (paired,
# same decks, tuning seeds 0..1999, 2000 games, over the two above): 3p +0.010 +- 0.004, 2p
# +0.001 +- 0.001, 4p -0.001 +- 0.003, 5p +0.003 +- 0.002.
FIX_SEEN = True
