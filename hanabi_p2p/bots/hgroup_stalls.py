"""Stalls: what to do when there is nothing to play, nothing safe to discard and no clue worth
giving (a stall clue, the pace stall), and how a stall clue is said."""

from __future__ import annotations

from hanabi_p2p.bots.hgroup_facts import Advice, Reason
from hanabi_p2p.bots.hgroup_giving import ClueGiving
from hanabi_p2p.bots.hgroup_tuning import (
    AFTER_SAVE_TOKENS,
    AFTER_SAVE_TOKENS_2P,
    PACE_STALL,
    PACE_STALL_PLAYERS,
    PACE_STALL_TOKENS,
)
from hanabi_p2p.bots.words import Say
from hanabi_p2p.rules.actions import Clue, Play
from hanabi_p2p.rules.cards import MAX_STRIKES


class Stalls(ClueGiving):
    """The stalling part of a turn's ``_Decision`` (hgroup_turn: the order of the parts)."""

    def _stall_saying(self, advice: Advice, say: Say) -> Advice:
        """``advice`` as it is, or, when it is a stall clue, with the reason ``say`` gives."""
        if advice.reason is Reason.STALL and isinstance(advice.action, Clue):
            return Advice(advice.action, Reason.STALL,
                          self.words(say, advice.action.target, clue=advice.action))
        return advice

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
