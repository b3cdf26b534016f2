"""The errors the network shell raises, all in one place.

Every error about something a peer did is a `RemoteProtocolError`, so it names the peer
(its address before the handshake, its fingerprint and address after). Each docstring is
what the error means to a user.
"""

from __future__ import annotations

from hanabi_p2p.errors import HanabiError, RemoteProtocolError


class FrameError(RemoteProtocolError):
    """A peer sent bytes that are not a valid frame (bad length, bad msgpack, bad fields)."""


class LinkAuthError(FrameError):
    """A frame on an established link failed authentication: it was altered, replayed,
    reordered or injected somewhere between us and the peer. The link is closed and redialled;
    this is a problem of the path, never evidence against the player at the other end.

    It is a `FrameError` so that the frame decoder keeps one typed error for any bad input
    (the h11 fuzz invariant); layers above tell it apart by its type.
    """

    def __init__(self, peer: str, reason: str) -> None:
        super().__init__(peer, reason)
        # Worded as a fact about the link, not about the peer (whose words these are not).
        self.args = (f"link to {peer}: {reason}",)


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


class WrongCodeGuessError(WrongSecretError):
    """The peer ran the code exchange with a different table code (a typo or a guess).

    Only this failure counts as a guessed code (rate limited per source address); a peer
    that has no code at all, or one where we have none, is a plain `WrongSecretError`.
    """


class PeerRefusedError(HandshakeError):
    """The peer ended the handshake with an ERROR frame; the reason is the peer's own."""


class RetryLaterError(PeerRefusedError):
    """The table refused us for now: someone guessed its password wrong, at our address or
    (``table_wide``) many times from anywhere, and it asks us to wait ``retry_after``
    seconds (SPEC 4.4)."""

    def __init__(self, peer: str, reason: str, retry_after: float,
                 table_wide: bool = False) -> None:
        super().__init__(peer, reason)
        self.retry_after = retry_after
        self.table_wide = table_wide


class LinkTimeoutError(RemoteProtocolError):
    """The peer went silent: no handshake in time, or nothing (not even PONG) for too long."""


class LinkClosedError(HanabiError):
    """The link to a peer is closed (the peer said goodbye or the connection dropped)."""

    def __init__(self, peer: str, reason: str) -> None:
        super().__init__(f"link to {peer} closed: {reason}")
        self.peer = peer
        self.reason = reason


class LinkFloodError(RemoteProtocolError):
    """A link kept sending more frames than its budget for too long and was closed: a link
    problem, shown by address and fingerprint, never a fault in the game."""
