"""The network protocol version: what a HELLO carries (net/handshake.py) and what a table's
advert says in its `v` key (net/discovery.py).

A module of its own, with nothing to import, so that a `join` can start looking for tables
before the handshake's cryptography is loaded (commands/join.py loads it meanwhile).
"""

# 3: the deck runs in ristretto255 (SPEC 1 "Group"); a version-2 program (0.2.0) shuffles in
# edwards25519, so the two must never link.
# 4: a cheating player can no longer get an honest one blamed (SPEC 4.6: HAVE names each
# author's head so forks are found; `complete` is its sender's signed word; every link's
# HAVE/WANT are budgeted). A version-3 program reads neither, so the two must never link.
PROTOCOL_VERSION = 4
