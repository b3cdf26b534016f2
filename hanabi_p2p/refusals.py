"""Every refusal a player can meet, one class each, by the layer that refuses.

A refusal is an ``IllegalAction`` (so every caller that catches one still does) and a
``Refusal``: a dataclass whose fields are the details and whose ``template`` is the English
text; ``str(exc)`` fills it in, word for word as these layers always said it (it is logged,
tested, and given to peers as the reason of a fault). What the player reads is worded
again, by class, from the catalogs (hanabi_p2p/ui/refusals.py): rewording a template here
changes the English and nothing else.

The module depends on nothing but errors.py, so the rules engine, the session, the peer
core and the UI can all import it.
"""

from __future__ import annotations

from dataclasses import dataclass

from hanabi_p2p.errors import Refusal

# ---------------------------------------------------------------- the rules engine


@dataclass(eq=False)
class GameEnded(Refusal):
    """The engine's game has ended: no action is legal any more."""

    template = "game is over"


@dataclass(eq=False)
class SeatDoesNotExist(Refusal):
    """An action names a seat the game does not have."""

    template = "seat {seat} does not exist: seats are 0 to {last}"
    seat: int
    last: int


@dataclass(eq=False)
class CannotMoveThere(Refusal):
    """A hand reorder to a slot the hand does not have."""

    template = "cannot move card {card} to position {to}: seat {seat} holds {size} cards"
    card: int
    to: int
    seat: int
    size: int


@dataclass(eq=False)
class NotThisSeatsTurn(Refusal):
    """A turn action by a seat whose turn it is not (the engine counts seats)."""

    template = "not your turn: it is seat {seat}'s turn"
    seat: int


@dataclass(eq=False)
class CluesAllAvailable(Refusal):
    """A discard while every clue token is available (it would gain nothing)."""

    template = "discard not allowed: all {count} clue tokens are available"
    count: int


@dataclass(eq=False)
class AnnounceOff(Refusal):
    """A play that announces a colour at a table without the choreography option."""

    template = "announce not allowed: the choreography option is off"


@dataclass(eq=False)
class ColourNotInVariant(Refusal):
    """A clue or an announcement names a colour that cannot be named in the variant;
    ``what`` is "clue" or "announce"."""

    template = "{what} not allowed: {colour} cannot be named in {variant}"
    what: str
    colour: str
    variant: str


@dataclass(eq=False)
class NotInHand(Refusal):
    """An action names a card that is not in the acting seat's hand."""

    template = "card {card} is not in seat {seat}'s hand"
    card: int
    seat: int


@dataclass(eq=False)
class NoClueTokens(Refusal):
    """A clue with no clue token left."""

    template = "clue not allowed: no clue tokens left"


@dataclass(eq=False)
class ClueToSelf(Refusal):
    """A clue given to its own giver."""

    template = "clue not allowed: you cannot clue yourself"


@dataclass(eq=False)
class ClueTargetMissing(Refusal):
    """A clue to a seat the game does not have."""

    template = "clue not allowed: there is no seat {seat}"
    seat: int


@dataclass(eq=False)
class ClueNamesOneThing(Refusal):
    """A clue must name one colour or one number, not both, not neither."""

    template = "clue not allowed: name exactly one colour or one number"


@dataclass(eq=False)
class NoSuchNumber(Refusal):
    """A number clue with a number no card has."""

    template = "clue not allowed: there is no number {rank}"
    rank: object


@dataclass(eq=False)
class ClueTouchesOthers(Refusal):
    """A clue declares touched cards other than those it touches (listed, as text)."""

    template = "clue touches cards {touched}, not {declared}"
    touched: str
    declared: str


@dataclass(eq=False)
class EmptyClue(Refusal):
    """A clue that touches no card at a table where empty clues are off."""

    template = "clue not allowed: it touches no cards (empty clues are off)"


@dataclass(eq=False)
class ClueOutsideHand(Refusal):
    """A clue declares cards (listed, as text) that are not in its target's hand."""

    template = "clue touches cards {cards}, not in seat {seat}'s hand"
    cards: str
    seat: int


@dataclass(eq=False)
class ClueDeniesFace(Refusal):
    """A clue's declared cards contradict a known face; ``verb`` is "cannot touch" or "must
    touch"."""

    template = "clue {verb} card {card}: its face is known"
    verb: str
    card: int


@dataclass(eq=False)
class ClueDeniesClues(Refusal):
    """A clue's declared cards leave a card no possible face after earlier clues; ``verb``
    is "touching" or "missing"."""

    template = "clue contradicts earlier clues: {verb} card {card} leaves it no possible face"
    verb: str
    card: int


# ---------------------------------------------------------------- the session


@dataclass(eq=False)
class GameStopped(Refusal):
    """The game was stopped for good (a fault, a player gone): nothing more is played."""

    template = "the game was stopped: {reason}"
    reason: str


@dataclass(eq=False)
class GameIsOver(Refusal):
    """The game has ended: no more turns."""

    template = "the game is over"


@dataclass(eq=False)
class NotYourTurn(Refusal):
    """It is another player's turn (named)."""

    template = "it is {name}'s turn"
    name: str


@dataclass(eq=False)
class NoSuchSeat(Refusal):
    """A clue to a seat the table does not have."""

    template = "there is no seat {seat}"
    seat: int


@dataclass(eq=False)
class ClueOwnHand(Refusal):
    """A clue to one's own hand (whose faces one cannot see)."""

    template = "you cannot clue your own hand"


@dataclass(eq=False)
class NoGameToResign(Refusal):
    """A resignation with no game under way, or from a peer without a seat."""

    template = "there is no game to resign from"


@dataclass(eq=False)
class GameNotStarted(Refusal):
    """A game action before the deal."""

    template = "the game has not started yet"


@dataclass(eq=False)
class NotSeated(Refusal):
    """A player's action from a peer without a seat."""

    template = "you are not seated at this table"


@dataclass(eq=False)
class TooManyMoves(Refusal):
    """Our hand reordered as often as one turn allows (session/pace.py)."""

    template = "you have moved cards {count} times this turn: wait for the next turn"
    count: int


@dataclass(eq=False)
class TooMuchTalk(Refusal):
    """As many chat lines as one turn allows (session/pace.py)."""

    template = "you have said {count} lines this turn: wait for the next turn"
    count: int


@dataclass(eq=False)
class NoGameToAbandon(Refusal):
    """A request to end the game by agreement with no game under way, or without a seat."""

    template = "there is no game to end by agreement"


@dataclass(eq=False)
class AbandonAskedAlready(Refusal):
    """We asked already to end the game by agreement: the others' votes are awaited."""

    template = "you asked already to end the game: waiting for the others to agree"


# ---------------------------------------------------------------- the peer core


@dataclass(eq=False)
class TableClosed(Refusal):
    """This program's part in the table is over: nothing more can be sent."""

    template = "the table is closed: nothing more can be sent"


@dataclass(eq=False)
class SpectatorsWatch(Refusal):
    """A spectator tried to act."""

    template = "spectators watch: they cannot play, talk or start the game"


@dataclass(eq=False)
class CardBeingRevealed(Refusal):
    """It is our turn, but a card we must see before acting is still being revealed."""

    template = "one moment: the last card is still being revealed"


@dataclass(eq=False)
class SlowDown(Refusal):
    """Table talk faster than the limit."""

    template = "slow down: at most {count} messages every {seconds} s"
    count: int
    seconds: float


@dataclass(eq=False)
class OnlyHostStarts(Refusal):
    """A player who is not the host tried to start the game."""

    template = "only the host starts the game"


@dataclass(eq=False)
class GameStartedAlready(Refusal):
    """A start once the players are seated."""

    template = "the game has started already"


@dataclass(eq=False)
class WaitingForPlayers(Refusal):
    """A start before enough players wait in the lobby; ``missing`` are still needed."""

    template = "waiting for {missing} more player(s) to sit down"
    missing: int


@dataclass(eq=False)
class OnlyHostRemoves(Refusal):
    """A player who is not the host tried to remove someone."""

    template = "only the host removes players"


@dataclass(eq=False)
class TooLateToRemove(Refusal):
    """A removal once the players are seated."""

    template = "the game has started: nobody can be removed now"


@dataclass(eq=False)
class NotInLobby(Refusal):
    """A removal of someone who is not waiting in the lobby."""

    template = "nobody like that is waiting in the lobby"


@dataclass(eq=False)
class HostNameFixed(Refusal):
    """The host asked to change its name: it is the table's, set when the table opened."""

    template = "the host's name is the table's: it was set when the table opened (host --name)"


@dataclass(eq=False)
class TooLateToRename(Refusal):
    """A change of name once the players are seated: every screen shows the seats' names."""

    template = "the game has started: names cannot change now"


# ---------------------------------------------------------------- why a lobby ended without a game


@dataclass(eq=False)
class RemovedByHost(Refusal):
    """The host removed us from its lobby."""

    template = ("the host removed you from the table; you may join again, under another "
                "--name if you like")


@dataclass(eq=False)
class BannedByHost(Refusal):
    """The host banned us from its table (`ban`): it will not take us back."""

    template = "the host banned you from this table: it will not seat you"


@dataclass(eq=False)
class HostClosedTable(Refusal):
    """The host closed its table before seating us."""

    template = "the host closed the table"


@dataclass(eq=False)
class TableFull(Refusal):
    """The host seated other players before our request for a seat came."""

    template = "the table is full: the host seated other players before our request came"


@dataclass(eq=False)
class TableFullGameBegun(Refusal):
    """The table is full and its game has begun: it can only be watched."""

    template = "the table is full and its game has begun (hanabi-p2p watch follows it)"


@dataclass(eq=False)
class TableDidNotFill(Refusal):
    """The lobby waited ``seconds`` for players, in vain."""

    template = "the table did not fill within {seconds} s"
    seconds: float


@dataclass(eq=False)
class HostUnreachable(Refusal):
    """The host could not be reached for ``seconds``."""

    template = ("the host has been unreachable for {seconds} s: its table has closed, or "
                "cannot be reached from here")
    seconds: int
