"""hanabi-p2p: Hanabi for 2-5 players on a LAN with no server anyone has to trust."""

__version__ = "0.1.0"
PROTOCOL_VERSION = 1
