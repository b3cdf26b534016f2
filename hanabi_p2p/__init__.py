"""hanabi-p2p: Hanabi for 2-5 players on a LAN with no server anyone has to trust."""

__version__ = "0.3.0"
# (the network protocol version is hanabi_p2p.net.version.PROTOCOL_VERSION, the log's
# hanabi_p2p.log.entry.LOG_VERSION: one definition each)
