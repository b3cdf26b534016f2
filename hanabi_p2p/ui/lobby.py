"""The lobby screen: the table, its seats, the table code to compare aloud, who is missing."""

from __future__ import annotations

from hanabi_p2p.i18n import _, ngettext
from hanabi_p2p.narration.terms import variant_summary
from hanabi_p2p.safe_text import safe_name
from hanabi_p2p.ui.symbols import UNICODE, Glyphs
from hanabi_p2p.ui.text import Line, fit, wrap_text
from hanabi_p2p.ui.view import OWN_MACHINE, LobbyView
from hanabi_p2p.ui.watch import watcher_lines, watching_text


def lobby_prompt(view: LobbyView) -> str:
    """What we are waiting for, as one sentence."""
    if view.stopped:
        return _("The game was stopped: {reason}").format(reason=view.stopped)
    if view.free_seats:
        return ngettext(
            "Waiting for {count} more player to join",
            "Waiting for {count} more players to join",
            view.free_seats,
        ).format(count=view.free_seats)
    missing = [safe_name(seat.name) for seat in view.seats if not seat.connected]
    if missing:
        return _("Waiting for {names} to reconnect").format(names=", ".join(missing))
    if view.seated:
        waiting = [
            safe_name(view.seats[seat].name)
            for seat in view.waiting_for
            if 0 <= seat < len(view.seats)
        ]
        if waiting:
            return _("Shuffling the deck: waiting for {names}").format(names=", ".join(waiting))
        return _("Shuffling the deck")
    if view.watching is not None:
        return _("Everyone is here: you will watch once the host starts the game")
    if view.i_am_host:
        # the table code exists only once the deal seats everyone: before `start` the host
        # checks the names and keys listed above instead
        return _("Everyone is here: check who sat down, then type start (or kick NAME)")
    host = next((safe_name(seat.name) for seat in view.seats if seat.is_host), "")
    return _("Everyone is here: waiting for {host} to start").format(host=host)


def table_options_text(view: LobbyView) -> str:
    """The options that change what people may see or get, known to all before the deal."""
    parts = []
    if view.spectators_see_hands:
        parts.append(_("spectators see every hand"))
    if view.hints_on:
        parts.append(_("hints on"))
    if view.turn_timer is not None:
        parts.append(_("turn timer {seconds} s (a longer turn ends the game)").format(
            seconds=view.turn_timer))
    if view.total_clock is not None:
        parts.append(_("each player has {seconds} s for all its turns (running out ends the "
                       "game)").format(seconds=view.total_clock))
    return ", ".join(parts)


def render_lobby(view: LobbyView, columns: int, rows: int, glyphs: Glyphs = UNICODE) -> list[Line]:
    """Exactly `rows` lines, none wider than `columns`."""
    config = view.config
    lines: list[Line] = [
        [("class:title", _("Table {name}").format(name=safe_name(view.table_name)))],
        [
            ("class:label", _("Game")),
            ("", ": "),
            ("", variant_summary(config.variant, config.options)),
            ("class:dim", glyphs.dot),
            (
                "",
                ngettext("{count} player", "{count} players", config.players).format(
                    count=config.players
                ),
            ),
        ],
    ]
    options = table_options_text(view)
    if options:
        lines.append([("class:label", _("Table options")), ("", ": "), ("", options)])
    if view.watching is not None:
        lines.append([("class:notice", watching_text(view.watching))])
    if view.address:
        lines.append([("class:label", _("Address")), ("", f": {view.address}")])
    lines.append([])
    lines.append(
        [
            (
                "class:label",
                _("Seats: {taken} of {total} taken").format(
                    taken=len(view.seats), total=config.players
                ),
            )
        ]
    )
    # Names and fingerprints come from peers: never print their control characters.
    names = [safe_name(seat.name) for seat in view.seats]
    name_w = max([len(name) for name in names] + [8])
    for number, (seat, name) in enumerate(zip(view.seats, names, strict=True), start=1):
        line: Line = [
            ("", f" {number}. "),
            ("class:you" if seat.is_me else "", name.ljust(name_w)),
        ]
        line.append(
            (
                "class:dim",
                "  "
                + _("key {fingerprint}").format(
                    fingerprint=safe_name(seat.fingerprint)
                ),
            )
        )
        tags = []
        if seat.is_host:
            tags.append(_("host"))
        if seat.is_me:
            tags.append(_("you"))
        if seat.runner == OWN_MACHINE:
            tags.append(_("computer player on a machine of its own"))
        elif seat.runner:
            tags.append(
                _("computer player run by {name}'s machine").format(name=safe_name(seat.runner))
            )
        if tags:
            line.append(("", "  (" + ", ".join(tags) + ")"))
        if seat.looks_like:  # a name made to pass for another player's: say so
            line.append(("class:dropped", "  " + _("looks like {name}").format(
                name=safe_name(seat.looks_like))))
        if not seat.connected:
            line.append(("class:dropped", "  " + _("not connected")))
        lines.append(line)
    for number in range(len(view.seats) + 1, config.players + 1):
        lines.append([("", f" {number}. "), ("class:dim", _("free seat"))])
    lines.extend(watcher_lines(view.watchers, columns))
    lines.append([])
    if view.table_code:
        lines.append(
            [("class:label", _("Table code")), ("", ": "), ("class:code", view.table_code)]
        )
        for text in wrap_text(
            _("Read it aloud: everyone must see the same code, or someone is in the middle."),
            max(columns - 2, 10),
        ):
            lines.append([("class:dim", text)])
        lines.append([])
    # long sentences (a translation, an address) wrap instead of being cut; the launcher's
    # "table open at ADDRESS" is left out where the Address line above says it already
    status = "" if view.address and view.address in view.status else view.status
    bottom: list[Line] = []
    for text in (lobby_prompt(view), status):
        bottom.extend([("class:notice", part)] for part in wrap_text(text, columns) if text)
    # table talk in the lobby, the latest lines that fit above what we are waiting for
    room = rows - len(lines) - len(bottom) - 1
    if view.talk and room > 0:
        talk = [part for said in view.talk for part in wrap_text(said, columns)]
        lines.extend([("", part)] for part in talk[-room:])
        lines.append([])
    lines.extend(bottom)
    out = [fit(line, columns) for line in lines[:rows]]
    out.extend([] for _ in range(rows - len(out)))
    return out
