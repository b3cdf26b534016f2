"""The network shell: frames, the link handshake, links, the peer mesh and LAN discovery.

- `frames`: length-prefixed msgpack frames, `FrameDecoder` and `FrameProtector` (the
  ChaCha20-Poly1305 protection of every frame after the handshake; all sans-IO).
- `handshake`: `Handshake` (identity binding over an ephemeral X25519 exchange, optional CPace
  table code, link keys; sans-IO) and `table_code()` for players to compare aloud.
- `link`: one handshaked asyncio connection with keepalive (`open_link`, `Link`).
- `mesh`: `Mesh`, links to every player with redial and events (`PeerUp`, `PeerDown`,
  `Received`, `LinkFailed`); the players' events ahead of guests'.
- `gate`: what strangers may cost, decided without IO (fair pending-handshake slots, lobby
  link caps within the open-file limit, the table-wide password wait, reading budgets).
- `discovery`: mDNS adverts (`TableAdvertiser`) and `browse_tables()`, pinned to one interface.
- `errors`: the typed errors, all `RemoteProtocolError`s naming the peer (or `LinkClosedError`);
  `LinkAuthError` (a frame failed authentication) and `LinkFloodError` (a link over its
  reading budget for long) are link problems, never the peer's fault.

Normative description: protocol/SPEC.md §4.
"""
