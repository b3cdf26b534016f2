"""The errors the network shell raises, all in one place.

Every error about something a peer did is a `RemoteProtocolError`, so it names the peer
(its address before the handshake, its fingerprint and address after). Each docstring is
what the error means to a user.
"""

from __future__ import annotations

from hanabi_p2p.errors import HanabiError, RemoteProtocolError


class FrameError(RemoteProtocolError):
    """A peer sent bytes that are not a valid frame (bad length, bad msgpack, bad fields)."""


class HandshakeError(RemoteProtocolError):
    """A peer failed the handshake; the reason says which check failed."""


class VersionMismatchError(HandshakeError):
    """The peer speaks a different version of the hanabi-p2p network protocol."""


class WrongTableError(HandshakeError):
    """The peer is at a different table (its table id differs from ours)."""


class UnexpectedPeerError(HandshakeError):
    """The peer is not the player we dialled, or is not seated at this table."""


class BadSignatureError(HandshakeError):
    """The peer could not prove it holds the identity key it claims."""


class WrongSecretError(HandshakeError):
    """The peer does not know the table code (or we do not know the peer's)."""


class PeerRefusedError(HandshakeError):
    """The peer ended the handshake with an ERROR frame; the reason is the peer's own."""


class LinkTimeoutError(RemoteProtocolError):
    """The peer went silent: no handshake in time, or nothing (not even PONG) for too long."""


class LinkClosedError(HanabiError):
    """The link to a peer is closed (the peer said goodbye or the connection dropped)."""

    def __init__(self, peer: str, reason: str) -> None:
        super().__init__(f"link to {peer} closed: {reason}")
        self.peer = peer
        self.reason = reason
