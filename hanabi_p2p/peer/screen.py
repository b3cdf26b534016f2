"""The full-screen terminal front end (placeholder until the UI is wired)."""

from __future__ import annotations

from hanabi_p2p.errors import UserError
from hanabi_p2p.peer.frontends import Frontend


class ScreenFrontend(Frontend):
    def __init__(self, lang: str | None = None) -> None:
        super().__init__()
        raise UserError("the full-screen table is not wired yet: use --bot")
