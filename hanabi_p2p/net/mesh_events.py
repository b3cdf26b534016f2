"""What the mesh reports to the layer above, and the inbox it keeps them in.

`PeerUp`, `PeerDown`, `Received` (a frame from a peer) and `LinkFailed` (a connection that
never became a link). `Inbox` holds them in two bounded queues: the seated players' and the
guests' (spectators, lobby strangers). A guest's events are taken only when the players'
queue is empty, so a guest's flood can never delay a player's frames; one peer's events
still come out in the order they happened, even when it stops being a guest.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from dataclasses import dataclass

from hanabi_p2p.errors import HanabiError
from hanabi_p2p.net.frames import Frame

# Events waiting for the layer above; when full, links stop reading (TCP back-pressure).
EVENT_QUEUE_LIMIT = 1024
# Events of links of peers that are not seated (spectators, lobby guests) wait in a queue of
# their own, taken only when the seated players' queue is empty: a guest's flood can never
# delay a player's frames (it once filled the shared queue and ended a game).
GUEST_QUEUE_LIMIT = 256


@dataclass(frozen=True, slots=True)
class PeerUp:
    """A link to `peer_id` is up (again). Send it your HAVE."""

    peer_id: bytes
    address: str


@dataclass(frozen=True, slots=True)
class PeerDown:
    """The link to `peer_id` dropped; if we dial it, we are redialling."""

    peer_id: bytes
    reason: str
    error: HanabiError | None = None


@dataclass(frozen=True, slots=True)
class Received:
    """A frame from `peer_id` (never PING/PONG/BYE/ERROR or handshake frames)."""

    peer_id: bytes
    frame: Frame


@dataclass(frozen=True, slots=True)
class LinkFailed:
    """A connection to or from `address` did not become a link; `error` says why."""

    address: str
    error: HanabiError
    peer_id: bytes | None = None  # set when we were dialling a known peer


MeshEvent = PeerUp | PeerDown | Received | LinkFailed


def _peer_of(event: MeshEvent) -> bytes | None:
    return None if isinstance(event, LinkFailed) else event.peer_id


class Inbox:
    """The players' queue, the guests' queue, and the wake-up of whoever waits on them."""

    def __init__(self) -> None:
        self._events: asyncio.Queue[MeshEvent | None] = asyncio.Queue(EVENT_QUEUE_LIMIT)
        self._guest_events: asyncio.Queue[MeshEvent] = asyncio.Queue(GUEST_QUEUE_LIMIT)
        # how many events each guest has waiting, and the players' events held back until
        # a guest's earlier ones are out
        self._guest_waiting: dict[bytes, int] = {}
        self._held: collections.deque[MeshEvent] = collections.deque()
        self.wakeup = asyncio.Event()

    def report(self, event: LinkFailed) -> None:
        """Diagnostics only: dropped when the queue is full, so strangers cannot fill it."""
        with contextlib.suppress(asyncio.QueueFull):
            self._events.put_nowait(event)
            self.wakeup.set()

    def close(self) -> None:
        """Wake a reader waiting for the next event: there will be none."""
        with contextlib.suppress(asyncio.QueueFull):
            self._events.put_nowait(None)
        self.wakeup.set()

    async def put(self, event: PeerUp | PeerDown | Received, *, guest: bool) -> None:
        """Queue a link's event: a guest's in the guests' queue (waiting there when it is
        full: that guest's link stops being read), anyone else's in the players' queue."""
        if guest:
            await self._guest_events.put(event)
            self._guest_waiting[event.peer_id] = self._guest_waiting.get(event.peer_id, 0) + 1
        else:
            await self._events.put(event)
        self.wakeup.set()

    def _take_guest_event(self) -> MeshEvent:
        event = self._guest_events.get_nowait()
        peer_id = _peer_of(event)
        if peer_id is not None:
            left = self._guest_waiting.get(peer_id, 1) - 1
            if left > 0:
                self._guest_waiting[peer_id] = left
            else:
                self._guest_waiting.pop(peer_id, None)
        return event

    def ready(self) -> tuple[bool, MeshEvent | None]:
        """(True, the next event) if one is ready, players' first; (False, None) if none.
        A player's event waits while the same peer has older events in the guests' queue
        (it was a guest a moment ago): those come out first, so a peer's order holds."""
        while True:
            if self._held:
                peer_id = _peer_of(self._held[0])
                if peer_id is not None and self._guest_waiting.get(peer_id):
                    return True, self._take_guest_event()
                return True, self._held.popleft()
            if not self._events.empty():
                event = self._events.get_nowait()
                peer_id = _peer_of(event) if event is not None else None
                if peer_id is not None and self._guest_waiting.get(peer_id):
                    self._held.append(event)  # type: ignore[arg-type]  # (not None here)
                    continue
                return True, event
            if not self._guest_events.empty():
                return True, self._take_guest_event()
            return False, None
