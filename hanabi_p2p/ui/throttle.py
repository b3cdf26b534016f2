"""How much table talk one player may put on our screen: a flood is summed up, not shown.

Peers accept every chat entry a seated player signs (the log must stay the same for all),
and a player's own program refuses to send more than a few per window (peer/core.py). A
modified program can still send thousands; this keeps them from scrolling the game away:
per player, at most ``CHAT_SHOWN_PER_WINDOW`` lines per ``CHAT_SHOWN_WINDOW_S``, and one
line saying how many were not shown. Pure: the caller passes the time.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hanabi_p2p.ratelimit import SlidingWindow

CHAT_SHOWN_PER_WINDOW = 8
CHAT_SHOWN_WINDOW_S = 10.0


@dataclass
class ChatThrottle:
    _shown: dict[int, SlidingWindow] = field(default_factory=dict)
    _hidden: dict[int, int] = field(default_factory=dict)

    def admit(self, seat: int, now: float) -> tuple[bool, int]:
        """(show this message?, how many of this seat's messages were not shown since the
        last one shown: worth a line before it)."""
        window = self._shown.setdefault(
            seat, SlidingWindow(CHAT_SHOWN_PER_WINDOW, CHAT_SHOWN_WINDOW_S))
        if not window.admit(now):
            self._hidden[seat] = self._hidden.get(seat, 0) + 1
            return False, 0
        return True, self._hidden.pop(seat, 0)
