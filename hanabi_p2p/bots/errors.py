"""The computer players' own errors (bots may not import the refusals of the rules: those
are for actions a person takes; these are a caller's misuse of a player)."""

from __future__ import annotations

from hanabi_p2p.errors import IllegalAction


class NotItsTurn(IllegalAction):
    """A computer player was asked to act when its seat cannot: the game is over, or another
    seat is to play. A bug of the caller, not a rule a person broke; still an IllegalAction,
    so code that catches those catches it too."""

    def __init__(self, seat: int) -> None:
        super().__init__(f"seat {seat} cannot act now")
        self.seat = seat
