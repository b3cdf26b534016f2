"""The JSON documents of `log list|show|verify --json` (docs/json.md describes every key).

One document per command, on stdout, with every key always present (null where a value is
unknown) so that a script never has to guess; `format` changes only when a key changes
meaning or goes away (a new key may be added without it). The text output stays in
commands/log.py; this module only turns what it computed into plain data.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hanabi_p2p.identity import fingerprint
from hanabi_p2p.rules.actions import Clue, Discard, Play
from hanabi_p2p.rules.stats import PlayerTally, stats_of_state
from hanabi_p2p.session import events as ev
from hanabi_p2p.session.verdict import variant_text
from hanabi_p2p.session.verify import GameReport

FORMAT = 1


def dump(document: dict[str, Any]) -> None:
    """Print one document. ASCII only: peer-chosen names reach the terminal escaped, never as
    control or bidirectional characters."""
    sys.stdout.write(json.dumps(document, ensure_ascii=True, indent=1) + "\n")


def report_document(report: GameReport, path: Path, started: bool, headline: str,
                    problems: Sequence[str]) -> dict[str, Any]:
    """What `log verify --json` prints: the verdict and everything checked."""
    state, config = report.state, report.config
    game = None
    if state is not None and config is not None:
        over = state.over
        game = {
            "variant": variant_text(config),
            "players": config.players,
            "over": over,
            "end": state.end.value if over else None,
            # the turn (1-based) at which every player agreed to end it, if they did
            "abandoned_at": report.abandoned_at + 1 if report.abandoned_at is not None else None,
            "turns": state.turn,
            "fireworks": {suit.letter: rank for suit, rank in state.fireworks.items()},
            "score": state.score,
            "rating": state.rating if over else None,
        }
    audit = report.audit
    return {
        "format": FORMAT,
        "file": str(path),
        "verdict": report.verdict.value,
        "started": started,
        "summary": headline,
        "table": {
            "id": report.table_id.hex() if report.table_id is not None else None,
            "name": report.table_name,
            "options": list(report.table_options),
        },
        "deck_group": report.deck_group or None,
        "players": [{"seat": p.seat, "name": p.name, "fingerprint": fingerprint(p.peer_id),
                     "key": p.peer_id.hex()} for p in report.players],
        "game": game,
        "audit": {
            "done": audit is not None,
            "ok": audit.ok if audit is not None else None,
            "cards": len(audit.faces) if audit is not None and audit.ok else None,
            "blamed_seat": audit.blamed_seat if audit is not None else None,
            "reason": audit.reason or None if audit is not None else None,
            "missing_seeds": list(report.missing_seeds),
        },
        "entries": report.entry_count,
        "authors": report.authors,
        "applied": len(report.applied),
        "outside_entries": report.outside_entries,
        "problems": list(problems),
        # what the players who stopped the game blaming someone said: their word, and
        # whether the log supports it (SPEC 5.7, claims)
        "claims": [{"author": fingerprint(c.author), "reason": c.reason,
                    "blame": fingerprint(c.blame) if c.blame is not None else None,
                    "supported": any(p.author == c.blame for p in report.problems)}
                   for c in report.claims],
        "digest": report.digest,
    }


def show_document(report: GameReport, path: Path, started: bool, headline: str,
                  problems: Sequence[str], created: int | None) -> dict[str, Any]:
    """What `log show --json` prints: `verify`'s document, when the table was opened, every
    checked turn, and the deck once audited."""
    document = report_document(report, path, started, headline, problems)
    faces = report.faces
    turns = [_turn(item, faces) for item in report.timeline
             if isinstance(item, ev.TurnResolved)]
    document.update({
        "created": created,
        "turns": turns,
        "unchecked_entries": len(report.unapplied),
        "deck": [str(faces[p]) for p in sorted(faces)] if faces else None,
        "numbers": _numbers(report),
    })
    return document


def _tally(tally: PlayerTally, efficiency: float | None) -> dict[str, Any]:
    return {"clues": tally.clues, "plays": tally.plays, "misplays": tally.misplays,
            "discards": tally.discards, "saves": tally.saves, "gotten": tally.gotten,
            "efficiency": efficiency}


def _numbers(report: GameReport) -> dict[str, Any] | None:
    """The game in numbers, as `log show` prints them (rules/stats.py); None for a game
    that never got past its deal or cannot be replayed."""
    state = report.state
    stats = stats_of_state(state, report.faces) if state is not None and state.history else None
    if stats is None:
        return None
    table = _tally(stats.table, stats.efficiency)
    table.update({"cards_gotten": stats.cards_gotten, "clues_lost": stats.clues_lost})
    return {
        "players": [_tally(t, t.efficiency) for t in stats.players],
        "table": table,
        "points": [{"turn": p.turn, "score": p.score, "clue_tokens": p.clue_tokens,
                    "pace": p.pace, "mark": p.mark.value if p.mark is not None else None}
                   for p in stats.points],
    }


def _face(card: int | None, faces: dict[int, Any]) -> str | None:
    return str(faces[card]) if card is not None and card in faces else None


def _turn(event: ev.TurnResolved, faces: dict[int, Any]) -> dict[str, Any]:
    """One turn: a play, a discard or a clue (moves in a hand are no turn)."""
    action, outcome = event.action, event.outcome
    record: dict[str, Any] = {
        "turn": event.turn + 1,  # 1-based, as `log show` prints it
        "seat": action.seat,
        "action": outcome.kind,
        "card": None, "face": None, "placed": None, "strike": None,
        "target": None, "clue": None, "touched": None,
        "drew": outcome.drew, "drew_face": _face(outcome.drew, faces),
        "end": outcome.end.value,
    }
    if isinstance(action, Play | Discard):
        face = outcome.face if outcome.face is not None else faces.get(action.card)
        record.update(card=action.card, face=str(face) if face is not None else None)
        if isinstance(action, Play):
            record.update(placed=outcome.placed, strike=outcome.strike)
    elif isinstance(action, Clue):
        clue = action.colour.value if action.colour is not None else action.rank
        record.update(target=action.target, clue=clue, touched=sorted(outcome.touched))
    return record


def list_document(data_dir: Path, played: Sequence[dict[str, Any]],
                  watched: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """What `log list --json` prints: every game's row, played here or watched."""
    return {
        "format": FORMAT,
        "data_dir": str(data_dir),
        "games": [{**row, "watched": False} for row in played]
        + [{**row, "watched": True} for row in watched],
    }
