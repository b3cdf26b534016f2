"""`tasks.py`: `play` installs only what playing needs, `test` adds the developer tools."""

from __future__ import annotations

import importlib.util
import io
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


def load_tasks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[ModuleType, list[str]]:
    spec = importlib.util.spec_from_file_location("tasks_under_test", ROOT / "tasks.py")
    assert spec is not None and spec.loader is not None
    tasks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tasks)
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text("")  # the venv "exists"
    monkeypatch.setattr(tasks, "VENV", venv)
    monkeypatch.setattr(tasks, "PY", venv / "bin" / "python")
    monkeypatch.setattr(tasks, "STAMP", venv / ".pyproject-hash")
    installs: list[str] = []

    def fake_run(argv: list[str], **_kw: Any) -> subprocess.CompletedProcess[str]:
        if "-e" in argv:
            installs.append(argv[argv.index("-e") + 1])
        return subprocess.CompletedProcess(argv, 0)

    monkeypatch.setattr(tasks.subprocess, "run", fake_run)
    return tasks, installs


def test_play_installs_the_game_without_the_developer_tools(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tasks, installs = load_tasks(tmp_path, monkeypatch)
    tasks.setup(dev=False)
    assert installs == [str(tasks.ROOT)]  # no [dev] extra
    tasks.setup(dev=False)
    assert len(installs) == 1  # nothing to do the second time


def test_test_adds_the_developer_tools_and_play_keeps_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tasks, installs = load_tasks(tmp_path, monkeypatch)
    tasks.setup(dev=False)
    tasks.setup(dev=True)
    assert installs == [str(tasks.ROOT), f"{tasks.ROOT}[dev]"]
    tasks.setup(dev=False)
    tasks.setup(dev=True)
    assert len(installs) == 2


def test_an_old_stamp_counts_as_a_full_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tasks, installs = load_tasks(tmp_path, monkeypatch)
    tasks.STAMP.write_text(tasks._pyproject_hash())
    tasks.setup(dev=True)
    assert installs == []


class Finished:
    """A check started in the background that has already exited with `status`."""

    def __init__(self, status: int) -> None:
        self.status = status

    def wait(self) -> int:
        return self.status


def commands_of_test(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extra: list[str],
                     failing: str = "") -> tuple[int, list[list[str]], list[list[str]]]:
    """What `tasks.py test EXTRA...` does: its exit status, the commands it runs in the
    foreground and those it starts in the background, each from the module name on, in the
    order they start (the command named `failing` exits 1)."""
    tasks, _installs = load_tasks(tmp_path, monkeypatch)
    ran: list[list[str]] = []
    started: list[list[str]] = []
    environments: list[dict[str, str] | None] = []

    def record(*argv: str, env: dict[str, str] | None = None) -> int:
        ran.append(list(argv[2:]))  # past "python -m"
        environments.append(env)
        return 1 if argv[2] == failing else 0

    def start(argv: list[str], env: dict[str, str]) -> tuple[Finished, io.BytesIO]:
        started.append(argv[2:])
        environments.append(env)
        return Finished(1 if argv[2] == failing else 0), io.BytesIO(b"")

    monkeypatch.setattr(tasks, "setup", lambda dev=True: None)
    monkeypatch.setattr(tasks, "run", record)
    monkeypatch.setattr(tasks, "start_quietly", start)
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    status = tasks.test(extra)
    for env in environments:  # bytecode is kept, out of the source tree
        assert env is not None and "PYTHONDONTWRITEBYTECODE" not in env
        assert Path(env["PYTHONPYCACHEPREFIX"]).is_relative_to(tasks.VENV)
    return status, ran, started


def test_the_whole_suite_runs_pytest_with_the_arguments_given_then_ruff_and_mypy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    status, ran, started = commands_of_test(tmp_path, monkeypatch, ["-x", "-k", "deck"])
    assert status == 0
    assert ran == [["pytest", "-x", "-k", "deck"]]
    assert [command[0] for command in started] == ["ruff", "mypy"]


def test_the_fast_tier_is_only_a_choice_of_pytest_and_the_checks_stay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    status, ran, started = commands_of_test(tmp_path, monkeypatch, ["--fast", "-q"])
    assert status == 0
    assert ran == [["pytest", "-n", "2", "--fast", "-q"]]
    assert [command[0] for command in started] == ["ruff", "mypy"]


def test_the_whole_suite_runs_in_memory_tests_on_both_cores_then_the_rest_several_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    status, ran, started = commands_of_test(tmp_path, monkeypatch, [])
    assert status == 0
    assert ran == [["pytest", "-m", "not real_io", "-n", "2"],
                   ["pytest", "-m", "real_io and not alone", "-n", "4", "--dist", "loadgroup"],
                   ["pytest", "-m", "real_io and alone"]]  # by itself, after the others
    assert [command[0] for command in started] == ["ruff", "mypy"]


def test_no_test_marked_alone_is_no_failure_but_an_empty_selection_elsewhere_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tasks, _installs = load_tasks(tmp_path, monkeypatch)
    monkeypatch.setattr(tasks, "setup", lambda dev=True: None)
    monkeypatch.setattr(tasks, "start_quietly", lambda argv, env: (Finished(0), io.BytesIO()))
    empty = tasks.NO_TESTS_COLLECTED
    monkeypatch.setattr(tasks, "run", lambda *argv, env=None: empty if "alone" in argv[-1] else 0)
    assert tasks.test([]) == 0
    monkeypatch.setattr(tasks, "run", lambda *argv, env=None: empty)
    assert tasks.test([]) == 1


@pytest.mark.parametrize("failing", ["pytest", "ruff", "mypy"])
def test_a_failing_step_fails_the_whole_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    status, ran, started = commands_of_test(tmp_path, monkeypatch, [], failing)
    assert status == 1
    assert len(ran) == 3 and len(started) == 2  # every step still ran
