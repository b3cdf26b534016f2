"""Words about the game, in the player's language: the vocabulary (`terms`) and the one
narrator (`narrator`) every output tells the table's events with. Below the front ends and
the commands, above the rules and the session; it does no IO."""
