"""The interactive replay: a finished game, step by step, with every hand face up.

Pure: `replay_steps` replays a game's actions once into one engine state per step,
`ReplayCursor` is where the viewer stands (and the turn number typed after `g`), and
`render_replay` draws one step into exactly `rows` lines of at most `columns`. The terminal
application around them is `hanabi_p2p.ui.replay_app`.

Every piece of the board is drawn by the live table's own functions (ui/table.py): the
header, each card with its clue marks, and under each hand the row of what its holder knew
of it then, so a replay shows the same rows as the table did. The words are the one
narrator's (narration/narrator.py). Only the faces differ: a replay shows every hand, which the
live table never does for the viewer's own hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

from hanabi_p2p.errors import IllegalAction, LocalProtocolError
from hanabi_p2p.i18n import _, ngettext
from hanabi_p2p.narration.narrator import describe, seat_name, turn_line
from hanabi_p2p.narration.terms import variant_summary
from hanabi_p2p.rules.actions import Action, Clue
from hanabi_p2p.rules.cards import Card, GameConfig
from hanabi_p2p.rules.engine import GameState, Outcome
from hanabi_p2p.rules.stats import GameStats, game_stats
from hanabi_p2p.safe_text import safe, safe_name
from hanabi_p2p.ui.board import Board, board_from_state
from hanabi_p2p.ui.summary import timeline_line
from hanabi_p2p.ui.symbols import UNICODE, Glyphs
from hanabi_p2p.ui.table import (
    MAX_NAME_COLUMNS,
    TableLabels,
    _face_cell,
    _header_section,
    _name_cell,
    _name_label,
    _narrowed,
    _possibilities,
    _spread,
    knowledge_columns,
    log_lines,
)
from hanabi_p2p.ui.text import Line, fit, join_cells, pad, width
from hanabi_p2p.ui.view import NO_SEAT  # a replay is nobody's seat: every hand face up

# PgUp/PgDn move this many steps.
PAGE_STEPS = 10
# The digits `g` accepts: a game has at most a few hundred turns.
MAX_TURN_DIGITS = 4
# How the cards this step's clue touched stand out (a style attribute added to theirs).
TOUCHED_STYLE = "reverse"
# Rows kept for what happened (this step and the ones before it) before any other detail.
MIN_STORY_ROWS = 2


@dataclass(frozen=True, slots=True)
class ReplayGame:
    """A game to replay: every face, every applied action, in order. For a game of the
    data directory the faces are the deck audit's (never a face nobody revealed)."""

    config: GameConfig
    names: tuple[str, ...]  # per seat
    faces: tuple[Card, ...]  # per deck position, top first
    actions: tuple[Action, ...]
    title: str = ""  # the table's name, or the file's


@dataclass(frozen=True, slots=True)
class Step:
    """The table after `index` actions; `action`/`outcome`/`before` say how it got there."""

    index: int
    state: GameState
    action: Action | None = None  # None for step 0, the deal
    outcome: Outcome | None = None
    before: GameState | None = None


@dataclass(frozen=True, slots=True)
class Replay:
    """Every step of one game, and where the replay had to stop if an action was illegal
    (only a hand-written file can hold one: a signed log is replayed after its audit)."""

    game: ReplayGame
    steps: tuple[Step, ...]
    illegal: str = ""  # why the action after the last step could not be applied

    @property
    def last(self) -> int:
        return len(self.steps) - 1

    def step_of_turn(self, turn: int) -> int:
        """The first step at which `turn` turns have been taken (a reorder of a hand is a
        step but not a turn); past the end, the last step."""
        for step in self.steps:
            if step.state.turn >= turn:
                return step.index
        return self.last


def replay_steps(game: ReplayGame) -> Replay:
    """Apply every action once, keeping the state after each (a game is at most a few
    hundred small states)."""
    state = GameState(game.config, list(game.faces))
    steps = [Step(0, state.copy())]
    for index, action in enumerate(game.actions, start=1):
        before = state.copy()
        try:
            outcome = state.apply(action)
        except (IllegalAction, LocalProtocolError) as exc:
            reason = _("action {number} is illegal: {reason}").format(
                number=index, reason=safe(str(exc))
            )
            return Replay(game, tuple(steps), reason)
        steps.append(Step(index, state.copy(), action, outcome, before))
    return Replay(game, tuple(steps))


# --- where the viewer stands ------------------------------------------------------------------


class CursorMode(Enum):
    BROWSING = "browsing"  # arrows, pages, Home/End move; q/Esc quit
    TYPING_TURN = "typing_turn"  # after `g`: digits, Enter jumps, Esc cancels


@dataclass
class ReplayCursor:
    """The step shown, and the turn number being typed after `g`."""

    replay: Replay
    step: int = 0
    mode: CursorMode = CursorMode.BROWSING
    typed: str = ""

    def __post_init__(self) -> None:
        self.move(0)  # a step past either end is the end

    def move(self, delta: int) -> None:
        self.step = max(0, min(self.step + delta, self.replay.last))

    def home(self) -> None:
        self.step = 0

    def end(self) -> None:
        self.step = self.replay.last

    def start_typing(self) -> None:
        self.mode, self.typed = CursorMode.TYPING_TURN, ""

    def type_digit(self, digit: str) -> None:
        if digit.isdigit() and len(self.typed) < MAX_TURN_DIGITS:
            self.typed += digit

    def backspace(self) -> None:
        self.typed = self.typed[:-1]

    def cancel(self) -> None:
        self.mode, self.typed = CursorMode.BROWSING, ""

    def submit(self) -> None:
        """Jump to the turn typed (nothing typed: stay)."""
        if self.typed:
            self.step = self.replay.step_of_turn(int(self.typed))
        self.cancel()


# --- drawing ----------------------------------------------------------------------------------


@lru_cache(maxsize=4)
def replay_stats(game: ReplayGame) -> GameStats | None:
    """The game's numbers, counted once per game replayed (every key redraws the screen)."""
    return game_stats(game.config, game.faces, game.actions)


def face_up_board(state: GameState) -> Board:
    """The table with every hand face up: what each holder knew of each card stays as the
    live table computes it (from clues and what that holder could see)."""
    return board_from_state(state, NO_SEAT)


def _title(replay: Replay, step: Step, glyphs: Glyphs, columns: int) -> Line:
    config = replay.game.config
    left: Line = [("class:title", _("Replay"))]
    if replay.game.title:
        left.extend([("class:dim", glyphs.dot), ("class:title", safe_name(replay.game.title))])
    left.extend([("class:dim", glyphs.dot), ("", variant_summary(config.variant, config.options))])
    total = replay.steps[-1].state.turn
    right: Line = [("class:label", _("turn {number} of {total}").format(
        number=step.state.turn, total=total))]
    turns_left = step.state.final_round_turns_left
    if turns_left is not None and not step.state.over:
        # the live table's marker, in its words
        marker = ngettext(
            "FINAL ROUND: {count} turn left", "FINAL ROUND: {count} turns left", turns_left
        ).format(count=turns_left)
        right = [("class:final-round", marker), ("class:dim", glyphs.dot), *right]
    return _spread(left, right, columns)


def hand_lines(
    board: Board,
    labels: TableLabels,
    glyphs: Glyphs,
    columns: int,
    touched: frozenset[int] = frozenset(),
    *,
    knowledge_rows: bool = True,
) -> list[Line]:
    """Every hand face up, each with the live table's knowledge row under it; a narrow
    terminal puts fewer cards on each pair of rows, never hides one. The `touched` cards
    (by identity: those this step's clue touched) are drawn in reverse video. Without
    `knowledge_rows` (a short terminal) each hand takes one row per line of cards."""
    players = len(board.hands)
    labels_w = [width(_name_label(board, labels, seat, glyphs)) for seat in range(players)]
    # as the live table lays names out, with the gap kept after a name cut short
    name_w = min(max(labels_w), MAX_NAME_COLUMNS)
    lines: list[Line] = []
    for seat in range(players):
        hand = board.hands[seat]
        name_cell = [*_name_cell(board, labels, seat, glyphs, name_w), ("", " ")]
        indent: Line = [("", " " * width(name_cell))]
        faces = [_face_cell(cell, glyphs, noted=False) for cell in hand]
        faces = [
            [(f"{style} {TOUCHED_STYLE}", text) for style, text in face]
            if cell.card in touched else face
            for cell, face in zip(hand, faces, strict=True)
        ]
        knowledge: list[Line] = []
        for cell in hand:
            colours, ranks = _possibilities(cell, board, glyphs)
            knowledge.append([*colours, ("", " "), *ranks] if _narrowed(cell, board) else [])
        cell_w = max([width(f) for f in faces] + [knowledge_columns(board, hand)])
        per_row = max((columns - width(name_cell) + 1) // (cell_w + 1), 1)
        if not hand:
            lines.append([*name_cell, ("class:dim", _("no cards left"))])
            continue
        for start in range(0, len(hand), per_row):
            chunk = slice(start, start + per_row)
            top = [*(name_cell if start == 0 else indent)]
            top.extend(join_cells([pad(f, cell_w) for f in faces[chunk]], " "))
            lines.append(fit(top, columns))
            if knowledge_rows:
                bottom = [*indent, *join_cells([pad(k, cell_w) for k in knowledge[chunk]], " ")]
                lines.append(fit(bottom, columns))
    return lines


def step_story(replay: Replay, step: Step) -> list[str]:
    """What this step did, in the narrator's words, and what it revealed: the cards a clue
    touched, the card drawn after a play or a discard."""
    if step.action is None or step.outcome is None or step.before is None:
        return [_("The deal: every hand face up. Right arrow: the first turn.")]
    names = replay.game.names
    before, outcome = step.before, step.outcome
    first, *more = describe(step.action, outcome, names, before.hands, before) or [""]
    lines = [turn_line(before.turn, first)]
    faces = step.state.faces
    if isinstance(step.action, Clue) and outcome.touched:
        shown = [str(faces[card]) for card in before.hands[step.action.target]
                 if card in outcome.touched]
        lines.append(_("it touches {cards}").format(cards=" ".join(shown)))
    elif outcome.drew is not None:
        lines.append(_("{player} draws {card}").format(
            player=seat_name(names, outcome.seat), card=str(faces[outcome.drew])))
    lines.extend(more)  # a last copy lost, the end of the game
    if step.index == replay.last and replay.illegal:
        lines.append(replay.illegal)
    return lines


def story(replay: Replay, upto: int) -> tuple[list[str], int]:
    """Every step's lines up to step `upto`, oldest first, and where step `upto`'s begin."""
    lines: list[str] = []
    start = 0
    for step in replay.steps[: upto + 1]:
        if step.index == upto:
            start = len(lines)
        if step.index or upto == 0:  # the deal's line only while the deal is shown
            lines.extend(step_story(replay, step))
    return lines, start


def keys_line(cursor: ReplayCursor, glyphs: Glyphs, columns: int) -> Line:
    """The keys, or the turn being typed after `g`."""
    if cursor.mode is CursorMode.TYPING_TURN:
        prompt = _("Go to turn (0 to {last}), Enter to jump, Esc to cancel: ").format(
            last=cursor.replay.steps[-1].state.turn)
        return fit([("class:your-turn", prompt), ("class:your-turn", cursor.typed + "_")],
                   columns)
    text = _("←/→ step  PgUp/PgDn {count} steps  Home/End  g N Enter: turn N  q quit").format(
        count=PAGE_STEPS)
    return fit([("class:dim", text)], columns)


def render_replay(
    cursor: ReplayCursor, columns: int, rows: int, glyphs: Glyphs = UNICODE
) -> list[Line]:
    """Exactly `rows` lines, none wider than `columns`: the table at the cursor's step, its
    story so far (this step's lines marked), the keys."""
    replay = cursor.replay
    step = replay.steps[cursor.step]
    board = face_up_board(step.state)
    labels = TableLabels(names=tuple(safe_name(n) for n in replay.game.names))
    header = [_title(replay, step, glyphs, columns), *_header_section(board, labels, glyphs,
                                                                      columns)[1:]]
    stats = replay_stats(replay.game)
    if stats is not None:  # where this step stands in the game: misplays and saves marked
        header.append(timeline_line(stats, columns, glyphs, cursor=step.state.turn))
    rule: Line = [("class:rule", glyphs.rule * columns)]
    touched = step.outcome.touched if step.outcome is not None else frozenset()
    hands = hand_lines(board, labels, glyphs, columns, touched)
    body = [*header, rule, *hands, rule]
    room = rows - len(body) - 1
    if room < MIN_STORY_ROWS:
        # a short terminal: the rules go first, then the board is clipped from the bottom
        body = [*header, *hands]
        room = max(rows - len(body) - 1, MIN_STORY_ROWS)
        body = body[: max(rows - 1 - room, 0)]
    lines, start = story(replay, cursor.step)
    body.extend(log_lines(lines, columns, min(room, rows - 1), 0, start, glyphs))
    out = [fit(line, columns) for line in body[: rows - 1]]
    out.extend([] for _ in range(rows - 1 - len(out)))
    return [*out, keys_line(cursor, glyphs, columns)][:rows]
