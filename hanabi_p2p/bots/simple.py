"""A simple computer player that uses only what its seat can know.

Its own cards: only through ``GameState.knowledge(card, seat)`` (clues plus the cards it
sees). Other hands: their faces, as any player sees them. It never reads the faces of its
own hand, so it plays the same whether its replica knows them (local game) or not (peer).

Policy, in order:
1. play a card known to be playable (every face it could still be is playable); with
   choreography, announce its colour when that is certain (one more clue token);
2. give a clue after which a playable card in another hand is known to be playable,
   preferring clues that fully identify it, then those that make more cards playable,
   then the player who moves soonest; failing that, a clue touching a playable card,
   which a later clue will complete;
3. save: if the next player's oldest unclued card (the one it would discard) is the last
   copy still needed, clue its number so that it is kept;
4. discard: a card known to be useless, else the oldest unclued card, else the oldest;
5. if discarding is not allowed (8 tokens): any clue; as a last resort, the oldest card
   is played.
Every action it returns is legal (``GameState.check`` passes).
"""

from __future__ import annotations

from hanabi_p2p.bots.errors import NotItsTurn
from hanabi_p2p.rules.actions import Clue, Discard, Play, TurnAction
from hanabi_p2p.rules.cards import MAX_CLUE_TOKENS, Card, Suit
from hanabi_p2p.rules.engine import GameState

# With this many clue tokens, a clue that only narrows down a playable card (a second clue
# will complete it) is worth more than a discard. Measured over 200 seeded 3-player games:
# 1 -> 18.6 average, 2 -> 18.3, 4 -> 17.8, 6 -> 17.0, never -> 13.7.
PREPARE_CLUE_MIN_TOKENS = 1


def _playable(fireworks: dict[Suit, int], face: Card) -> bool:
    return fireworks[face.suit] == face.rank - 1


def _useless(fireworks: dict[Suit, int], face: Card) -> bool:
    return face.rank <= fireworks[face.suit]


def _candidates(state: GameState, card: int, viewer: int, asker: int) -> set[Card]:
    """Faces ``viewer`` thinks ``card`` may be, as far as ``asker`` can tell."""
    knowledge = state.knowledge(card, viewer, asker)
    return set(knowledge.unseen_counts) or set(knowledge.possible)


def _known_play(state: GameState, seat: int) -> Play | None:
    fireworks = state.fireworks
    for card in state.hands[seat]:
        faces = _candidates(state, card, seat, seat)
        if faces and all(_playable(fireworks, f) for f in faces):
            announce = None
            if state.config.choreography:
                announce = next((colour for colour in state.config.clue_colours
                                 if all(state.config.colour_touches(colour, f) for f in faces)),
                                None)
            return Play(seat, card, announce)
    return None


def _clue_touches(state: GameState, clue: Clue, face: Card) -> bool:
    if clue.colour is not None:
        return state.config.colour_touches(clue.colour, face)
    return face.rank == clue.rank


def _best_clue(state: GameState, seat: int, legal: list[TurnAction]) -> Clue | None:
    fireworks = state.fireworks
    players = state.config.players
    # per other seat: its cards that are playable but not yet known to be
    targets: dict[int, list[tuple[int, set[Card]]]] = {}
    for target in range(players):
        if target == seat:
            continue
        for card in state.hands[target]:
            face = state.faces[card]
            if face is None or not _playable(fireworks, face):
                continue
            faces = _candidates(state, card, target, seat)
            if not all(_playable(fireworks, f) for f in faces):
                targets.setdefault(target, []).append((card, faces))
    best: tuple[tuple[bool, int, int, int, int], Clue] | None = None
    for action in legal:
        if not isinstance(action, Clue) or action.target not in targets:
            continue
        touched = action.touched or frozenset()
        made_playable = identifies = narrowed = 0
        for card, faces in targets[action.target]:
            if card not in touched:
                continue
            after = {f for f in faces if _clue_touches(state, action, f)}
            narrowed += 1
            if after and all(_playable(fireworks, f) for f in after):
                made_playable += 1
                identifies = max(identifies, int(len(after) == 1))
        if made_playable or (narrowed and state.clue_tokens >= PREPARE_CLUE_MIN_TOKENS):
            soon = -((action.target - seat) % players)
            key = (made_playable > 0, identifies, made_playable, narrowed, soon)
            if best is None or key > best[0]:
                best = (key, action)
    return best[1] if best else None


def _critical(state: GameState, face: Card) -> bool:
    """Is ``face`` still needed and its last copy? (Judged from public cards only.)"""
    if _useless(state.fireworks, face):
        return False
    gone = sum(1 for c in state.discard_pile if state.faces[c] == face)
    return state.config.copies(face.suit)[face.rank] - gone == 1


def _save_clue(state: GameState, seat: int, legal: list[TurnAction]) -> Clue | None:
    target = (seat + 1) % state.config.players
    chop = next((c for c in reversed(state.hands[target])
                 if not state.knowledge(c, target).clued), None)
    face = state.faces[chop] if chop is not None else None
    if face is None or not _critical(state, face):
        return None
    return next((a for a in legal if isinstance(a, Clue) and a.target == target
                 and a.rank == face.rank), None)


def _discard(state: GameState, seat: int) -> Discard:
    hand = state.hands[seat]
    fireworks = state.fireworks
    for card in reversed(hand):  # oldest first: slot 0 holds the newest card
        faces = _candidates(state, card, seat, seat)
        if faces and all(_useless(fireworks, f) for f in faces):
            return Discard(seat, card)
    for card in reversed(hand):
        if not state.knowledge(card, seat).clued:
            return Discard(seat, card)
    return Discard(seat, hand[-1])


def choose_action(state: GameState, seat: int) -> TurnAction:
    """The action ``seat`` takes now (it must be that seat's turn in a game not over: else
    NotItsTurn, as the convention player raises)."""
    if state.over or state.current_seat != seat:
        raise NotItsTurn(seat)
    play = _known_play(state, seat)
    if play is not None:
        return play
    legal = state.legal_actions()
    if state.clue_tokens > 0:
        clue = _best_clue(state, seat, legal) or _save_clue(state, seat, legal)
        if clue is not None:
            return clue
    hand = state.hands[seat]
    if hand and state.clue_tokens < MAX_CLUE_TOKENS:
        return _discard(state, seat)
    clues = [a for a in legal if isinstance(a, Clue)]
    if clues:
        return clues[0]
    return Play(seat, hand[-1])
