from hanabi_p2p.cli import main

raise SystemExit(main())
