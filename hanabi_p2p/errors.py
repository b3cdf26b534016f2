"""One flat hierarchy of the errors hanabi-p2p raises on purpose.

Each class's docstring says what it means to a user. The split follows h11: a
`LocalProtocolError` is our own misuse (a bug or a bad local command), a
`RemoteProtocolError` is something a peer sent; it always names the peer.
"""

from __future__ import annotations


class HanabiError(Exception):
    """Something went wrong in hanabi-p2p."""


class UserError(HanabiError):
    """A command-line argument, file or command from the user cannot be used."""


class UserLeft(HanabiError):
    """The user stopped the program on purpose before there was anything to keep (a table
    still being looked for): said plainly, as an interruption, not as an error."""


class GameInUse(HanabiError):
    """The game is being played by another hanabi-p2p of the same data directory: one
    program at a time writes a game's log (two would sign two different entries with the
    same number, which every other player would take for cheating)."""


class IllegalAction(HanabiError):
    """An action breaks a rule of the game; the message names the rule."""


class LocalProtocolError(HanabiError):
    """This program tried to do something the protocol does not allow here."""


class RemoteProtocolError(HanabiError):
    """A peer sent something invalid; `peer` names it and the message says why."""

    def __init__(self, peer: str, reason: str) -> None:
        super().__init__(f"peer {peer}: {reason}")
        self.peer = peer
        self.reason = reason
