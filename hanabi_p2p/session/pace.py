"""How much a player may post beside the game in one turn: hand moves and table talk.

Nothing in the game bounds these two kinds: a move (reordering one's own hand) and a chat
line change nothing another player checks, so a modified program could sign thousands,
which every peer must then apply, store and relay, and every verifier replay. The rule
(SPEC 5.5): between two of an author's other entries, at most ``MAX_MOVES_PER_TURN`` moves
and ``MAX_CHATS_PER_TURN`` chat lines. During play every player signs an action or an
answer each turn, so this is "per turn"; in the lobby it counts from the author's request
for a seat (or the table), after the game from its seed.

The count is a function of the author's own chain alone (a replica applies an author's
entries in chain order, at every peer and in every verifier), so each peer and every
``log verify`` find the same entry over the limit: a signed fault of its author. An honest
program never signs one: the command refuses first (``TooManyMoves``, ``TooMuchTalk``).
The limits are far above honest play: a person reorders a few times a turn, and the
program lets a player say at most 5 lines every 10 s (peer/core.py), so 256 lines is over
eight minutes of talking at that rate without a turn passing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from hanabi_p2p import refusals as rf
from hanabi_p2p.errors import Refusal
from hanabi_p2p.log.entry import EntryKind

MAX_MOVES_PER_TURN = 64
MAX_CHATS_PER_TURN = 256

# The kinds counted, with their limit.
LIMITS: Mapping[EntryKind, int] = {
    EntryKind.MOVE: MAX_MOVES_PER_TURN,
    EntryKind.CHAT: MAX_CHATS_PER_TURN,
}


class SidePosts:
    """Per author, the moves and chat lines applied since its last entry of another kind."""

    def __init__(self) -> None:
        self._since: dict[bytes, Counter[EntryKind]] = {}

    def used(self, author: bytes, kind: EntryKind) -> int:
        counts = self._since.get(author)
        return counts[kind] if counts is not None else 0

    def over_limit(self, author: bytes, kind: EntryKind) -> int | None:
        """The limit an entry of ``kind`` by ``author`` would go over now, else None."""
        limit = LIMITS.get(kind)
        if limit is None or self.used(author, kind) < limit:
            return None
        return limit

    def note(self, author: bytes, kind: EntryKind) -> None:
        """An entry of ``author`` was applied: count it, or start a new turn's count."""
        if kind in LIMITS:
            self._since.setdefault(author, Counter())[kind] += 1
        else:
            self._since.pop(author, None)

    def refusal(self, author: bytes, kind: EntryKind,
                queued: Iterable[EntryKind]) -> Refusal | None:
        """Why our own entry of ``kind`` must not be signed now (``queued``: the kinds of
        our entries waiting to be signed before it, in order), else None."""
        limit = LIMITS.get(kind)
        if limit is None:
            return None
        count = self.used(author, kind)
        for earlier in queued:
            if earlier not in LIMITS:
                count = 0
            elif earlier is kind:
                count += 1
        if count < limit:
            return None
        return rf.TooManyMoves(limit) if kind is EntryKind.MOVE else rf.TooMuchTalk(limit)


def fault_text(kind: EntryKind, limit: int) -> str:
    """The reason of the fault, as peers and ``log verify`` give it."""
    what = "moved cards" if kind is EntryKind.MOVE else "said"
    unit = "times" if kind is EntryKind.MOVE else "lines"
    return f"{what} more than {limit} {unit} in one turn"
