"""The network shell: frames, the link handshake, links, the peer mesh and LAN discovery.

- `frames`: length-prefixed msgpack frames and `FrameDecoder` (sans-IO).
- `handshake`: `Handshake` (identity binding, optional CPace table code; sans-IO) and
  `table_code()` for players to compare aloud.
- `link`: one handshaked asyncio connection with keepalive (`open_link`, `Link`).
- `mesh`: `Mesh`, links to every player with redial and events (`PeerUp`, `PeerDown`,
  `Received`, `LinkFailed`).
- `discovery`: mDNS adverts (`TableAdvertiser`) and `browse_tables()`, pinned to one interface.
- `errors`: the typed errors, all `RemoteProtocolError`s naming the peer (or `LinkClosedError`).

Normative description: protocol/SPEC-net.md.
"""
