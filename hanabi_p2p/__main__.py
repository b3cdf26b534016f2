from hanabi_p2p.entry import run

run()
