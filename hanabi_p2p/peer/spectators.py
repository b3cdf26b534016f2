"""Serving spectators (SPEC §4.8): a player's side of `hanabi-p2p watch`.

A peer that says ``watch`` gets the log read-only: never a seat, never an entry of its own
taken, a bounded number of them (`MAX_WATCHERS`), and, at a table with the ``spectators``
option, our keys of the cards we dealt to the other seats (SPEC §2.12). Players tell each
other who watches through them, so every screen lists every spectator.

The spectator's own side is `watcher.WatcherCore`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hanabi_p2p.errors import HanabiError
from hanabi_p2p.limits import MAX_WATCHERS
from hanabi_p2p.net import frames as fr
from hanabi_p2p.peer import effects as fx
from hanabi_p2p.peer import watchwire as ww
from hanabi_p2p.peer.context import PeerContext
from hanabi_p2p.peer.lobby import fold_name
from hanabi_p2p.session.bodies import TableOption

# More than this many links of unseated peers are refused by the mesh itself (spectators,
# and strangers not yet said what they are).
GUEST_LINKS = MAX_WATCHERS + 2


def hands_visible(ctx: PeerContext) -> bool:
    table = ctx.session.table
    return table is not None and TableOption.SPECTATORS in table.table_options


@dataclass
class ReportedWatchers:
    """Who watches through the other players, as they report it (players and spectators
    alike keep this, to list every spectator)."""

    ctx: PeerContext
    by_player: dict[bytes, dict[bytes, str]] = field(default_factory=dict)

    def on_report(self, peer_id: bytes, body: bytes) -> None:
        ctx = self.ctx
        if ctx.session.seat_of(peer_id) is None:
            return  # only a player's word about its own links is worth showing
        try:
            reported = ww.decode_watchers(body)
        except HanabiError as exc:
            ctx.link_problem(peer_id, f"sent a bad list of spectators: {exc}")
            return
        if self.by_player.get(peer_id) != reported:
            self.by_player[peer_id] = reported
            ctx.event(fx.WatchersChanged())

    def listing(self, ours: dict[bytes, str]) -> tuple[fx.Watcher, ...]:
        """Who watches this table, as far as we know: the spectators linked to us (``ours``)
        and those the other players report (a player is never listed; sorted by name)."""
        ctx = self.ctx
        seated = ctx.seated()
        sees = hands_visible(ctx)
        merged: dict[bytes, str] = {}
        for reported in self.by_player.values():
            merged.update(reported)
        merged.update(ours)
        return tuple(sorted((fx.Watcher(p, name, sees) for p, name in merged.items()
                             if p not in seated and p != ctx.me),
                            key=lambda w: (fold_name(w.name), w.peer_id)))


@dataclass
class Spectators:
    ctx: PeerContext
    # spectators linked to us: peer -> the name it gave
    linked: dict[bytes, str] = field(default_factory=dict)
    # what each of them last said it holds (its HAVE), for the linger
    holds: dict[bytes, dict[bytes, int]] = field(default_factory=dict)
    _keys_sent: dict[bytes, set[int]] = field(default_factory=dict)

    def on_watch(self, peer_id: bytes, body: bytes, *, kicked: set[bytes]) -> bool:
        """A peer asks to watch: taken if it is no player, not removed by the host, and
        there is room; then it gets what any peer gets, read-only. True if taken."""
        ctx = self.ctx
        session = ctx.session
        if (peer_id in kicked or session.seat_of(peer_id) is not None
                or peer_id in session.joins or peer_id == session.host_id):
            return False
        try:
            name = ww.decode_watch(body)
        except HanabiError as exc:
            ctx.link_problem(peer_id, f"asked to watch with a bad name: {exc}")
            ctx.emit(fx.Disconnect(peer_id, "a spectator's name must be printable"))
            return False
        if peer_id not in self.linked and len(self.linked) >= MAX_WATCHERS:
            reason = f"this table has {MAX_WATCHERS} spectators already"
            ctx.send(peer_id, fr.Message(ww.WATCH_REFUSED_TOPIC, ww.encode_refusal(reason)))
            ctx.emit(fx.Disconnect(peer_id, reason))
            return False
        return self._take(peer_id, name)

    def _take(self, peer_id: bytes, name: str) -> bool:
        self.ctx.sync.forget(peer_id)
        if self.linked.get(peer_id) != name:
            self.linked[peer_id] = name
            self._changed()
        return True

    def frame(self) -> fr.Message:
        return fr.Message(ww.WATCHERS_TOPIC, ww.encode_watchers(self.linked))

    def _changed(self) -> None:
        """Tell the other players who watches through us, and our own screen."""
        ctx = self.ctx
        frame = self.frame()
        for seat in ctx.session.seats:
            if seat.peer_id != ctx.me and seat.peer_id in ctx.connected:
                ctx.send(seat.peer_id, frame)
        ctx.event(fx.WatchersChanged())

    def link_down(self, peer_id: bytes) -> None:
        self.holds.pop(peer_id, None)
        if self.linked.pop(peer_id, None) is not None:
            self._keys_sent.pop(peer_id, None)
            self._changed()

    def send_keys(self) -> None:
        """At a table whose players let spectators see the hands: each spectator linked to
        us gets our key of every card we dealt to another seat, once (SPEC §2.12)."""
        ctx = self.ctx
        if not self.linked or not hands_visible(ctx):
            return
        keys = ctx.session.spectator_keys()
        for peer_id in sorted(self.linked):
            sent = self._keys_sent.setdefault(peer_id, set())
            new = {p: k for p, k in keys.items() if p not in sent}
            if new:
                sent.update(new)
                ctx.send(peer_id, fr.Message(ww.WATCH_KEYS_TOPIC, ww.encode_keys(new)))

    def one_lacks(self, ours: dict[bytes, int]) -> bool:
        """Whether a spectator linked to us has not yet said it holds all we hold (one that
        said nothing yet lacks everything)."""
        for peer_id in self.linked:
            if peer_id not in self.ctx.connected:
                continue
            theirs = self.holds.get(peer_id, {})
            if any(theirs.get(author, 0) < n for author, n in ours.items()):
                return True
        return False
