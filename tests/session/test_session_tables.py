"""The session's two tables: entry kinds (one row each) and phase changes (one row each)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import hanabi_p2p.session as session_package
from hanabi_p2p.errors import LocalProtocolError
from hanabi_p2p.log.entry import KINDS, EntryKind
from hanabi_p2p.session import bodies as b
from hanabi_p2p.session import kinds as k
from hanabi_p2p.session.phase import START, TRANSITIONS, Phase, Trigger, next_phase

SESSION_DIR = Path(session_package.__path__[0])


def test_every_kind_has_one_row_and_the_log_knows_exactly_those_kinds() -> None:
    assert set(k.SPECS) == set(EntryKind)
    assert {spec.kind.value for spec in k.SPECS.values()} == KINDS
    assert all(kind is spec.kind for kind, spec in k.SPECS.items())


def test_steps_order_the_lobby_then_the_deck_then_a_turn() -> None:
    by_step = sorted(k.SPECS.values(), key=lambda spec: spec.step)
    assert [spec.step for spec in by_step] == list(range(len(k.SPECS)))
    assert [spec.kind.value for spec in by_step] == [
        "table.open", "lobby.join", "chat", "lobby.seat", "deck", "resign", "action", "ack",
        "move", "seed", "abandon"]  # (abandon, protocol 4, last: no other place moved)
    assert k.step_of("no such kind") == k.UNKNOWN_STEP > max(s.step for s in by_step)


def test_the_derived_lists_are_those_the_protocol_fixes() -> None:
    rows = k.SPECS.values()
    assert {s.kind.value for s in rows if s.turn_zero} == {
        "table.open", "lobby.join", "lobby.seat", "deck"}
    assert {s.kind.value for s in rows if s.after_abort} == {"chat", "seed", "resign"}
    assert {s.kind.value for s in rows if s.carries_deck} == {"deck", "action", "ack", "seed"}


def test_a_body_is_parsed_by_its_kinds_parser_and_an_unknown_kind_is_refused() -> None:
    assert k.parse_body("chat", {"text": "hi"}) == b.ChatBody("hi")
    assert k.parse_body("resign", {"reason": ""}) == b.ResignBody("")
    with pytest.raises(b.BadBody, match="unknown entry kind 'nope'"):
        k.parse_body("nope", {})
    with pytest.raises(b.BadBody, match="chat: missing field"):
        k.parse_body("chat", {})


def test_a_typed_post_is_signed_in_the_wire_form_of_its_body() -> None:
    post = k.Post(EntryKind.CHAT, 3, b.ChatBody("hi"))
    assert post.wire() == ("chat", 3, {"text": "hi"})
    assert type(post.wire()[0]) is str


def test_every_phase_change_has_a_row_and_a_missing_one_is_our_bug() -> None:
    assert START is Phase.LOBBY
    assert next_phase(Phase.LOBBY, Trigger.SEATED) is Phase.DECK
    assert next_phase(Phase.DECK, Trigger.DEALT) is Phase.PLAY
    assert next_phase(Phase.PLAY, Trigger.GAME_ENDED) is Phase.OVER
    assert next_phase(Phase.OVER, Trigger.AUDITED) is Phase.AUDITED
    assert next_phase(Phase.ABORTED, Trigger.AUDITED) is Phase.ABORTED
    for phase in Phase:
        if phase is not Phase.ABORTED:
            assert next_phase(phase, Trigger.STOPPED) is Phase.ABORTED
    with pytest.raises(LocalProtocolError, match="cannot go from play on SEATED"):
        next_phase(Phase.PLAY, Trigger.SEATED)
    with pytest.raises(LocalProtocolError):
        next_phase(Phase.ABORTED, Trigger.STOPPED)
    reachable = {START} | set(TRANSITIONS.values())
    assert reachable == set(Phase)


def _phase_assignments(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        targets = (node.targets if isinstance(node, ast.Assign)
                   else [node.target] if isinstance(node, ast.AnnAssign | ast.AugAssign)
                   else [])
        for target in targets:
            if isinstance(target, ast.Attribute) and target.attr in ("phase", "_phase"):
                found.append(f"{path.name}:{node.lineno}")
    return found


def test_the_phase_is_assigned_in_one_place_after_the_start() -> None:
    found = [line for path in sorted(SESSION_DIR.glob("*.py")) for line in
             _phase_assignments(path)]
    assert len(found) == 2 and all(line.startswith("base.py:") for line in found), found


def test_the_session_modules_stay_small() -> None:
    sizes = {path.name: len(path.read_text(encoding="utf-8").splitlines())
             for path in SESSION_DIR.glob("*.py")}
    for stage in ("base.py", "lobby.py", "dealing.py", "turns.py", "end.py", "table.py"):
        assert sizes[stage] <= 400, (stage, sizes[stage])


# Modules that may still write a kind's wire string (none since the peer moved to EntryKind).
NOT_YET_MOVED: set[str] = set()


def _kind_literals(path: Path) -> list[str]:
    """Where a module writes a kind's wire string: a dotted kind anywhere, or any kind
    compared with an entry's ``kind`` (``entry.kind``, ``e.kind``: a rules outcome has
    kinds of its own)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    dotted = {kind for kind in KINDS if "." in kind}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value in dotted:
            found.append(f"{node.lineno}: {node.value}")
        elif (isinstance(node, ast.Compare) and isinstance(node.left, ast.Attribute)
                and node.left.attr == "kind" and isinstance(node.left.value, ast.Name)
                and (node.left.value.id == "e" or "entry" in node.left.value.id)):
            for right in node.comparators:
                values = right.elts if isinstance(right, ast.Tuple | ast.Set) else [right]
                found.extend(f"{node.lineno}: {v.value}" for v in values
                             if isinstance(v, ast.Constant) and v.value in KINDS - dotted)
    return found


def test_each_kinds_wire_string_is_written_once_in_the_package() -> None:
    package = SESSION_DIR.parent
    written = {}
    for path in sorted(package.rglob("*.py")):
        name = path.relative_to(package).as_posix()
        if name != "log/entry.py" and name not in NOT_YET_MOVED:
            found = _kind_literals(path)
            if found:
                written[name] = found
    assert written == {}


def test_the_outbox_holds_typed_posts_and_gives_the_shell_their_wire_form() -> None:
    from hanabi_p2p.identity import Identity
    from hanabi_p2p.rules.cards import GameConfig
    from hanabi_p2p.session.table import TableSession

    host = Identity.from_seed(bytes([1]) * 32)
    session = TableSession(host, bytes(16), seed=bytes(32), host_id=host.peer_id)
    session.open_table("Table", "Ann", GameConfig(2))
    [post] = session.take_posts()
    assert post.kind is EntryKind.TABLE_OPEN and post.turn == 0
    assert isinstance(post.body, b.TableOpen) and post.body.host_name == "Ann"
    session.say("hello")
    assert session.take_outbox() == [("chat", 0, {"text": "hello"})]
    assert not session.has_outbox
