"""Tab completion for bash, zsh and fish (generated from the parser by shtab) and the examples
every subcommand's --help ends with, each of which the parser accepts."""

from __future__ import annotations

import argparse
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from hanabi_p2p import cli
from hanabi_p2p.commands.completion import SHELLS, completion_script

# Completes the words of $1 as bash would on TAB: with the function the script registered.
COMPLETE = r"""
source "$SCRIPT"
COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}
read -ra COMP_WORDS <<< "$1"
[[ "$1" == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
function=$(complete -p hanabi-p2p | sed -E 's/.*-F ([^ ]+).*/\1/')
"$function" hanabi-p2p "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
"""


@pytest.fixture(scope="module")
def bash_script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("completion") / "hanabi-p2p.bash"
    path.write_text(completion_script("bash"))
    return path


def bash_completes(script: Path, line: str) -> list[str]:
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("no bash here")
    done = subprocess.run([bash, "--norc", "-c", COMPLETE, "complete", line],
                          env={"SCRIPT": str(script), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=30, check=True)
    return done.stdout.split()


@pytest.mark.process
@pytest.mark.parametrize(("line", "expected"), [
    ("hanabi-p2p lo", ["log"]),
    ("hanabi-p2p log ve", ["verify"]),
    ("hanabi-p2p log verify --js", ["--json"]),
    ("hanabi-p2p tables --ti", ["--timeout"]),
    ("hanabi-p2p completion ", list(SHELLS)),
])
def test_bash_completes_commands_and_options(bash_script: Path, line: str,
                                             expected: list[str]) -> None:
    assert bash_completes(bash_script, line) == expected


@pytest.mark.parametrize("shell", SHELLS)
def test_completion_prints_each_shells_script(shell: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["completion", shell]) == 0
    script = capsys.readouterr().out
    assert script.startswith("#")  # a script for the shell, not a message
    # every subcommand, a nested one and their options (fish writes `-l json`) are offered
    for word in [*(command.name for command in cli.SUBCOMMANDS), "verify", "data-dir",
                 "json", "interactive"]:
        assert word in script


def test_an_unknown_shell_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["completion", "csh"])
    assert exit_info.value.code == cli.EXIT_USAGE


def every_help() -> list[tuple[str, ...]]:
    """Every command line whose --help is asked: each subcommand and each `log` one."""
    parser = cli.build_parser(every=True)
    found: list[tuple[str, ...]] = []

    def walk(p: argparse.ArgumentParser, words: tuple[str, ...]) -> None:
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    found.append((*words, name))
                    walk(sub, (*words, name))

    walk(parser, ())
    return found


@pytest.mark.parametrize("words", [(), *every_help()], ids=lambda w: " ".join(w) or "top")
def test_every_help_ends_with_two_or_three_examples_the_parser_accepts(
        words: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main([*words, "--help"])
    help_text = capsys.readouterr().out
    _head, sep, examples = help_text.rstrip("\n").rpartition("\nexamples:\n")
    assert sep, help_text
    lines = examples.splitlines()
    assert 2 <= len(lines) <= 3
    for line in lines:
        assert line.startswith("  hanabi-p2p ")
        command = shlex.split(line.split("&&")[0].split(">")[0])[1:]
        parser = cli.build_parser(cli.chosen_subcommand(command))
        parser.parse_args(command)  # a usage error would exit 2


@pytest.mark.parametrize("words", [("log", "verify"), ("log", "show")])
def test_log_verify_and_show_help_say_their_exit_status(
        words: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main([*words, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "exit status: 0 valid" in text and "1 invalid" in text and "3 unfinished" in text
    assert "2 the file cannot be used or the command line is wrong" in text
