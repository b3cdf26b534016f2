"""One flat hierarchy of the errors hanabi-p2p raises on purpose.

Each class's docstring says what it means to a user. The split follows h11: a
`LocalProtocolError` is our own misuse (a bug or a bad local command), a
`RemoteProtocolError` is something a peer sent; it always names the peer.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar


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


class Refusal(IllegalAction):
    """An action refused by a rule, typed: the class says which rule, its fields the details.

    Each concrete refusal (hanabi_p2p/refusals.py) is a dataclass whose ``template`` is its
    English text, with its fields as ``str.format`` names; ``str(exc)`` is that text filled
    in (what is logged, tested and given as a reason to peers). The player reads it in their
    own language: hanabi_p2p/ui/refusals.py words each class again from the catalogs, by
    class and fields, never by reading the English back."""

    template: ClassVar[str] = ""

    def __post_init__(self) -> None:
        self.args = (str(self),)  # as an IllegalAction("text") has it

    def parts(self) -> dict[str, str]:
        """The fields as the texts they are shown with (a float without trailing zeros)."""
        if not dataclasses.is_dataclass(self):
            return {}
        return {f.name: _shown(getattr(self, f.name)) for f in dataclasses.fields(self)}

    def __str__(self) -> str:
        return self.template.format(**self.parts())

    def __reduce__(self) -> tuple[type[Refusal], tuple[object, ...]]:
        """Rebuilt from its fields (not from its text) when it crosses to another process."""
        return type(self), tuple(self._field_values())

    def _field_values(self) -> list[object]:
        if not dataclasses.is_dataclass(self):
            return []
        return [getattr(self, f.name) for f in dataclasses.fields(self)]


def _shown(value: object) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


class LocalProtocolError(HanabiError):
    """This program tried to do something the protocol does not allow here."""


class RemoteProtocolError(HanabiError):
    """A peer sent something invalid; `peer` names it and the message says why."""

    def __init__(self, peer: str, reason: str) -> None:
        super().__init__(f"peer {peer}: {reason}")
        self.peer = peer
        self.reason = reason
