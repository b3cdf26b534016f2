"""Front ends of a peer, and the glue that starts a peer with one.

A front end sees its peer through ``hanabi_p2p.peer.handle.PeerHandle`` only: the session to
read, and commands. ``headless``: the base (shows nothing), the headless printer and the
computer player; ``screen``: the full-screen table; ``launch``: open or find a table, build
the peer's node with a front end, run it to the end (what `host`, `join`, `play` and `watch`
call). The peer itself (``hanabi_p2p.peer``) knows nothing of them.
"""
