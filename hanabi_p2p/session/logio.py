"""The session's view of the log layer: the types it needs, in one place."""

from hanabi_p2p.log.entry import Entry, Signer

LocalAuthor = Signer

__all__ = ["Entry", "LocalAuthor"]
