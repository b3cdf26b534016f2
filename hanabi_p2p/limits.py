"""Sizes and limits shared by several layers, each defined exactly once.

A value here is part of what peers agree on (wire and file formats) or of what a user may
type that travels to peers: the log, the network frames, the deck derivation, mDNS adverts
and the data directory all import it from here instead of keeping a copy that could drift.
Limits used by one module only stay in that module. This module imports nothing, so any
layer can depend on it.
"""

from __future__ import annotations

# A table is named by 16 random bytes (32 hex digits in file names and adverts).
TABLE_ID_BYTES = 16
# A peer is named by its Ed25519 public key.
PEER_ID_BYTES = 32
# An entry hash (SHA-256), as HAVE heads and acks name entries.
ENTRY_HASH_BYTES = 32
# The longest table name: it must fit an mDNS TXT record beside the other keys, and it is
# shown on one line of `tables` and of the lobby.
MAX_TABLE_NAME_CHARS = 40
# A player's name as peers carry it (lobby entries, the host's name in an mDNS advert).
MAX_PLAYER_NAME_CHARS = 32
# Spectators one seated peer serves at once (each costs it a link and a copy of every frame);
# the peer's mesh lets at most this many links of peers that are not seated stay up.
MAX_WATCHERS = 8
# An Ed25519 signature (entries, handshake transcripts).
SIGNATURE_BYTES = 64
# A TCP port (a table's address, --port).
MAX_PORT = 65535
# Seats at a table.
MIN_PLAYERS = 2
MAX_PLAYERS = 5
# The largest encoded log entry. A deck message for 60 cards with proofs is about 8 KiB;
# 64 KiB leaves room for variants and stays well under the network frame limit.
MAX_ENTRY_BYTES = 64 * 1024
# A sequence number (of a log entry, of a frame): an unsigned 32-bit integer on the wire.
MAX_SEQ = 2**32 - 1
# Table talk: one message, as typed, carried and shown. Also the most of any other text a peer
# chose (a reason) that an output shows.
MAX_CHAT_CHARS = 280
# A reason given on the wire (resigning, stopping the game, a BYE or an ERROR frame).
MAX_REASON_CHARS = 200
# A name as every output shows it (safe_text.safe_name): names carried may be longer
# (MAX_PLAYER_NAME_CHARS), a screen's columns are not.
MAX_SHOWN_NAME_CHARS = 24
# One line typed at the full-screen UI's prompt.
MAX_INPUT_CHARS = 400

# Joiners a host names in one `lobby.out` message (SPEC 4.7): the list is only for showing the
# lobby as the host sees it, so a host with more removed joiners than this names the first.
MAX_LOBBY_OUT = 64
