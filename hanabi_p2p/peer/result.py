"""How a peer's game ended, as the commands report it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from hanabi_p2p.errors import Refusal
from hanabi_p2p.rules.engine import End

# What brings a player back to a game its program left (followed by --data-dir DIR where one
# was given: see commands/peerargs.py). Here, not beside the node that uses it, so that the
# commands name it without importing the peer.
RESUME_COMMAND = "hanabi-p2p join --resume"


@dataclass
class GameResult:
    """How a peer's game ended; `failure` is None when it finished and was audited."""

    log_path: Path
    end: End = End.IN_PROGRESS
    score: int = 0
    rating: str = ""
    audit_ok: bool | None = None
    audit_reason: str = ""
    failure: str | None = None
    # the same, typed, when it is why a lobby ended without a game (worded by its class)
    refusal: Refusal | None = None
    names: list[str] = field(default_factory=list)
    table_code: str = ""
    chosen_leave: bool = False  # the player left by choice (quit), not for a failure

    @property
    def ok(self) -> bool:
        return self.failure is None and bool(self.audit_ok)
