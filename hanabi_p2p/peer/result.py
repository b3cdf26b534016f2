"""How a peer's game ended, as the commands report it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class GameResult:
    """How a peer's game ended; `failure` is None when it finished and was audited."""

    log_path: Path
    end: str = "in_progress"
    score: int = 0
    rating: str = ""
    audit_ok: bool | None = None
    audit_reason: str = ""
    failure: str | None = None
    names: list[str] = field(default_factory=list)
    table_code: str = ""
    chosen_leave: bool = False  # the player left by choice (quit), not for a failure

    @property
    def ok(self) -> bool:
        return self.failure is None and bool(self.audit_ok)
