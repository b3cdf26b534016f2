"""Refusals from the rules engine, the session and the peer core, in the player's language.

Those layers stay free of wording choices: they raise typed refusals (hanabi_p2p/refusals.py)
whose English text is also logged and tested. What the player reads is chosen here by the
refusal's class, from the catalogs, with the refusal's fields filled in (made safe to print):
no English text is ever read back. Rewording a refusal's English changes nothing here; a
refusal class with no wording below is shown in English. Anything else — a plain
``IllegalAction("text")``, or a reason given as text — is shown as it came, made safe,
never hidden.
"""

from __future__ import annotations

from collections.abc import Mapping

from hanabi_p2p import refusals as rf
from hanabi_p2p.errors import Refusal
from hanabi_p2p.i18n import N_, _
from hanabi_p2p.safe_text import safe

# The translatable wording of each refusal class, by the names of its fields.
WORDING: Mapping[type[Refusal], str] = {
    # the rules engine
    rf.GameEnded: N_("the game is over"),
    rf.NotThisSeatsTurn: N_("it is not your turn"),
    rf.CluesAllAvailable: N_("you cannot discard: all {count} clue tokens are available"),
    rf.NoClueTokens: N_("no clue tokens left"),
    rf.ClueToSelf: N_("you cannot clue yourself"),
    rf.EmptyClue: N_("that clue touches no card, and empty clues are off"),
    rf.AnnounceOff: N_("announcing a colour needs the choreography option"),
    rf.ColourNotInVariant: N_("that colour cannot be named in this variant"),
    rf.ClueTargetMissing: N_("there is no seat {seat}"),
    # the session
    rf.GameIsOver: N_("the game is over"),
    rf.GameStopped: N_("the game was stopped: {reason}"),
    rf.NotYourTurn: N_("it is {name}'s turn"),
    rf.ClueOwnHand: N_("you cannot clue yourself"),
    rf.NoGameToResign: N_("there is no game to resign from"),
    rf.NoSuchSeat: N_("there is no seat {seat}"),
    rf.GameNotStarted: N_("the game has not started yet"),
    rf.NotSeated: N_("you are not seated at this table"),
    rf.TooManyMoves: N_("you have moved cards {count} times this turn: wait for the next turn"),
    rf.TooMuchTalk: N_("you have said {count} lines this turn: wait for the next turn"),
    rf.NoGameToAbandon: N_("there is no game to end by agreement"),
    rf.AbandonAskedAlready: N_("you asked already to end the game: waiting for the others"),
    # the peer core
    rf.TableClosed: N_("the table is closed: nothing more can be sent"),
    rf.CardBeingRevealed: N_("one moment: the last card is still being revealed"),
    rf.OnlyHostStarts: N_("only the host can start the game"),
    rf.GameStartedAlready: N_("the game has started already"),
    rf.WaitingForPlayers: N_("waiting for more players to sit down ({missing} missing)"),
    rf.OnlyHostRemoves: N_("only the host can remove a player"),
    rf.TooLateToRemove: N_("the game has started: nobody can be removed now"),
    rf.NotInLobby: N_("nobody like that is waiting in the lobby"),
    rf.HostNameFixed: N_("the host's name is the table's: it was set when the table opened "
                         "(host --name)"),
    rf.TooLateToRename: N_("the game has started: names cannot change now"),
    rf.SpectatorsWatch: N_("you are watching: only the players play, talk and start the game"),
    rf.SlowDown: N_("slow down: at most {count} messages every {seconds} s"),
    # why a lobby ended without a game
    rf.RemovedByHost: N_("the host removed you from the table; you may join again, under "
                         "another --name if you like"),
    rf.BannedByHost: N_("the host banned you from this table: it will not seat you"),
    rf.HostClosedTable: N_("the host closed the table"),
    rf.TableFull: N_("the table is full: the host seated other players before our request came"),
    rf.TableFullGameBegun: N_(
        "the table is full and its game has begun (hanabi-p2p watch follows it)"),
    rf.TableDidNotFill: N_("the table did not fill within {seconds} s"),
    rf.HostUnreachable: N_(
        "the host has been unreachable for {seconds} s: its table has closed, or cannot "
        "be reached from here"),
}


def translate_refusal(refusal: BaseException | str) -> str:
    """A refusal (or a reason given as text) in the current language, safe to print."""
    if isinstance(refusal, Refusal):
        wording = WORDING.get(type(refusal))
        if wording is not None:
            parts = {name: safe(text) for name, text in refusal.parts().items()}
            return _(wording).format(**parts)
    return safe(str(refusal))
