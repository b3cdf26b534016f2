"""A local hot-seat game for trying the screens by hand: ``python -m hanabi_p2p.ui.demo``.

One engine holds every face; the screen always shows the table from the seat whose turn it
is (pass the keyboard around). No network, no log file: it exists to look at the UI.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence

from hanabi_p2p import i18n
from hanabi_p2p.i18n import _
from hanabi_p2p.narration.narrator import chat_line, describe
from hanabi_p2p.rules.actions import Action, Move, Play
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.rules.engine import GameState
from hanabi_p2p.ui.app import INPUT_ROWS, App
from hanabi_p2p.ui.commands import typed_command
from hanabi_p2p.ui.end import render_end
from hanabi_p2p.ui.lobby import render_lobby
from hanabi_p2p.ui.table import render_table
from hanabi_p2p.ui.text import plain_lines
from hanabi_p2p.ui.view import EndView, LobbySeat, LobbyView, TableView

NAMES = ("Alice", "Bob", "Carol", "Dave", "Eve")


class HotSeat:
    """Session callbacks for a game where everybody shares one keyboard."""

    def __init__(self, config: GameConfig, seed: int, names: Sequence[str]) -> None:
        faces = config.deck_faces()
        random.Random(seed).shuffle(faces)
        self.config = config
        self.state = GameState(config, faces)
        self.names = tuple(names)
        self.log: list[str] = []
        self.app: App | None = None
        self.seat = 0  # whose view is shown

    def view(self) -> TableView | EndView:
        state = self.state
        if state.over:
            return EndView(
                config=self.config,
                score=state.score,
                rating=state.rating,
                end=state.end,
                fireworks=tuple(state.fireworks.items()),
                strikes=state.strikes,
                audit_ok=True,
                audit_text=_("Every card and clue checked out."),
                log_path=None,
                names=self.names,
                log=tuple(self.log),
                hands=tuple(tuple(state.faces[c] for c in hand) for hand in state.hands),
                state=state,
                faces={c: f for c, f in enumerate(state.faces) if f is not None},
                my_seat=self.seat,
            )
        return TableView(
            config=self.config,
            my_seat=self.seat,
            names=self.names,
            state=state,
            table_name="demo",
            log=tuple(self.log),
            runners=self.runners(),
        )

    def runners(self) -> tuple[str, ...]:
        """Seats named like computer players ("bot1") show as run on the first player's
        machine, as a practice game's are."""
        return tuple(self.names[0] if name.startswith("bot") else "" for name in self.names)

    def lobby(self) -> LobbyView:
        runners = self.runners()
        seats = tuple(
            LobbySeat(
                name,
                f"{i:02x}{i:02x} {i:02x}{i:02x}",
                is_host=i == 0,
                is_me=i == 0,
                runner=runners[i],
            )
            for i, name in enumerate(self.names)
        )
        return LobbyView("demo", self.config, seats, i_am_host=True, table_code="123 456 789 012")

    def on_action(self, action: Action) -> None:
        hands_before = [list(hand) for hand in self.state.hands]
        before = self.state.copy()
        outcome = self.state.apply(action)
        self.log.extend(describe(action, outcome, self.names, hands_before, before))
        if not isinstance(action, Move):
            self.seat = self.state.current_seat
        self._refresh()

    def on_say(self, text: str) -> None:
        self.log.append(chat_line(self.names[self.seat], text))
        self._refresh()

    def on_start(self) -> None:
        self._refresh()

    def on_kick(self, peer_id: bytes, ban: bool = False) -> None:
        pass  # everybody shares one keyboard: nobody to remove

    def on_rename(self, name: str) -> None:
        pass  # nobody asks for a seat: the seats are the demo's

    def on_abandon(self) -> None:
        pass  # everybody shares one keyboard: quit ends the practice game

    def on_hint(self) -> str:
        from hanabi_p2p.bots.hgroup import explain  # the bot loads only when asked

        if self.state.over:
            return _("the game is over")
        # the hot seat sees every hand, but the advice uses only what this seat may know
        advice = explain(self.state, self.state.current_seat, self.names)
        command = typed_command(advice.action, self.state.hands, self.names)
        return _("Hint: {advice} — type: {command}").format(advice=advice.text, command=command)

    def on_quit(self) -> None:
        pass

    def _refresh(self) -> None:
        if self.app is not None:
            self.app.update(self.view())


def snapshot(game: HotSeat, turns: int, seed: int, columns: int, rows: int) -> str:
    """Text captures of the screens (for the README): seeded random legal turns, no misplays."""
    rng = random.Random(seed)
    body_rows = rows - INPUT_ROWS
    lobby = render_lobby(game.lobby(), columns, body_rows)
    for _turn in range(turns):
        if game.state.over:
            break
        choices = [
            action
            for action in game.state.legal_actions()
            if not isinstance(action, Play) or _fits(game.state, action)
        ]
        game.on_action(rng.choice(choices))
    view = game.view()
    if isinstance(view, TableView):
        screen = render_table(view, columns, body_rows)
    else:
        screen = render_end(view, columns, body_rows)
    rule = "=" * columns
    return "\n".join([rule, *plain_lines(lobby), rule, *plain_lines(screen), rule])


def _fits(state: GameState, play: Play) -> bool:
    face = state.faces[play.card]
    if face is None:
        return False
    fits = state.fireworks[face.suit] + 1 == face.rank
    return fits and (play.announce is None or play.announce is face.suit)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hanabi_p2p.ui.demo", allow_abbrev=False)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--option", action="append", default=[])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--lang", default=None)
    parser.add_argument("--names", default=",".join(NAMES), help="comma-separated player names")
    parser.add_argument(
        "--snapshot",
        metavar="TURNS",
        type=int,
        help="print the lobby and the table after TURNS seeded turns as plain text, and exit",
    )
    parser.add_argument("--size", default="80x24", help="terminal size for --snapshot")
    args = parser.parse_args(argv)
    i18n.setup(args.lang)
    config = GameConfig.from_names(args.players, args.variant, args.option)
    game = HotSeat(config, args.seed, args.names.split(",")[: args.players])
    if args.snapshot is not None:
        columns, rows = (int(n) for n in args.size.split("x"))
        print(snapshot(game, args.snapshot, args.seed, columns, rows))
        return 0
    app = App(game)
    game.app = app
    app.update(game.lobby())
    app.run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
