"""The signed, hash-chained action log: entries, replication, storage, verification.

Public API (see protocol/SPEC.md section 3 for the normative rules):

* ``entry``: ``Entry``, ``make_entry``, ``decode_entry``, ``BadEntry``, ``EntryKind`` (and
  ``KINDS``, its wire strings), limits such as ``MAX_ENTRY_BYTES``.
* ``replica``: ``Replica``, ``App`` / ``SeatedApp``, ``AddResult``, ``Status``, ``Gap``.
* ``storage``: ``GameFile``, ``load``, ``LoadResult``, ``open_game``, ``PrivateFile``.
* ``verify``: ``verify_entries``, ``StructuralReport``, ``digest``.
"""

from hanabi_p2p.limits import MAX_ENTRY_BYTES
from hanabi_p2p.log.entry import (
    KINDS,
    LOG_VERSION,
    ZERO_HASH,
    BadEntry,
    Entry,
    EntryKind,
    decode_entry,
    make_entry,
)
from hanabi_p2p.log.equivocation import Equivocation
from hanabi_p2p.log.replica import AddResult, App, Gap, Replica, SeatedApp, Status
from hanabi_p2p.log.storage import (
    CorruptLogError,
    GameFile,
    GameHeader,
    LoadResult,
    PrivateFile,
    load,
    open_game,
)
from hanabi_p2p.log.verify import StructuralReport, digest, verify_entries

__all__ = [
    "KINDS",
    "LOG_VERSION",
    "MAX_ENTRY_BYTES",
    "ZERO_HASH",
    "AddResult",
    "App",
    "BadEntry",
    "CorruptLogError",
    "Entry",
    "EntryKind",
    "Equivocation",
    "GameFile",
    "GameHeader",
    "Gap",
    "LoadResult",
    "PrivateFile",
    "Replica",
    "SeatedApp",
    "Status",
    "StructuralReport",
    "decode_entry",
    "digest",
    "load",
    "make_entry",
    "open_game",
    "verify_entries",
]
