"""Refusals from the rules engine, the session and the peer core, in the player's language.

Those layers stay free of wording choices and speak English in their exceptions (their
messages are also logged and tested). What the player reads goes through `translate_refusal`:
each known message shape is matched and re-worded from the catalogs; anything unknown is
shown as it came (sanitised), never hidden.
"""

from __future__ import annotations

import re

from hanabi_p2p.i18n import N_, _
from hanabi_p2p.safe_text import safe


def _verbatim(message: str) -> tuple[str, str]:
    """A refusal whose English words are its translatable form, with no part to fill in."""
    return re.escape(message), message


# (the English message as a pattern with named parts, its translatable form)
_KNOWN: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), message)
    for pattern, message in (
        (r"game is over", N_("the game is over")),
        _verbatim(N_("the game is over")),
        (r"the game was stopped: (?P<reason>.*)", N_("the game was stopped: {reason}")),
        (r"it is (?P<name>.+)'s turn", N_("it is {name}'s turn")),
        (r"not your turn: it is seat (?P<seat>\d+)'s turn", N_("it is not your turn")),
        (r"discard not allowed: all (?P<count>\d+) clue tokens are available",
         N_("you cannot discard: all {count} clue tokens are available")),
        (r"clue not allowed: no clue tokens left", N_("no clue tokens left")),
        (r"clue not allowed: you cannot clue yourself", N_("you cannot clue yourself")),
        (r"you cannot clue your own hand", N_("you cannot clue yourself")),
        (r"clue not allowed: it touches no cards \(empty clues are off\)",
         N_("that clue touches no card, and empty clues are off")),
        (r"announce not allowed: the choreography option is off",
         N_("announcing a colour needs the choreography option")),
        (r"(?:clue|announce) not allowed: (?P<colour>\w+) cannot be named in (?P<variant>.+)",
         N_("that colour cannot be named in this variant")),
        _verbatim(N_("there is no game to resign from")),
        (r"(?:clue not allowed: )?there is no seat (?P<seat>\d+)", N_("there is no seat {seat}")),
        _verbatim(N_("the game has not started yet")),
        _verbatim(N_("you are not seated at this table")),
        _verbatim(N_("the table is closed: nothing more can be sent")),
        _verbatim(N_("one moment: the last card is still being revealed")),
        (r"only the host starts the game", N_("only the host can start the game")),
        _verbatim(N_("the game has started already")),
        (r"waiting for (?P<count>\d+) more player\(s\) to sit down",
         N_("waiting for more players to sit down ({count} missing)")),
        (r"only the host removes players", N_("only the host can remove a player")),
        _verbatim(N_("the game has started: nobody can be removed now")),
        _verbatim(N_("nobody like that is waiting in the lobby")),
        (r"spectators watch: they cannot play, talk or start the game",
         N_("you are watching: only the players play, talk and start the game")),
        (r"slow down: at most (?P<count>\d+) messages every (?P<seconds>[\d.]+) s",
         N_("slow down: at most {count} messages every {seconds} s")),
        # why a lobby ended without a game (peer/core.py)
        _verbatim(N_("the host removed you from the table")),
        _verbatim(N_("the host closed the table")),
        _verbatim(N_("the table is full: the host seated other players before our request came")),
        _verbatim(N_("the table is full and its game has begun (hanabi-p2p watch follows it)")),
        (r"the table did not fill within (?P<seconds>[\d.e+]+) s",
         N_("the table did not fill within {seconds} s")),
        (r"the host has been unreachable for (?P<seconds>\d+) s: its table has closed, or "
         r"cannot be reached from here",
         N_("the host has been unreachable for {seconds} s: its table has closed, or cannot "
            "be reached from here")),
    )
)


def translate_refusal(text: str) -> str:
    """`text` (an English refusal) in the current language when its shape is known."""
    for pattern, message in _KNOWN:
        found = pattern.fullmatch(text)
        if found is not None:
            parts = {key: safe(value) for key, value in found.groupdict().items()}
            return _(message).format(**parts)
    return safe(text)
