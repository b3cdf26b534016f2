"""Where hanabi-p2p keeps its files: the identity key, one log per game, private material.

Resolution order (first that is set wins): the ``--data-dir`` option, the environment variable
``HANABI_P2P_DATA_DIR``, then the system's place for an application's per-user data, as the
`platformdirs` package's ``user_data_dir`` names it: ``$XDG_DATA_HOME/hanabi-p2p`` or
``~/.local/share/hanabi-p2p`` (Linux and other Unix systems, the XDG base directory
specification), ``~/Library/Application Support/hanabi-p2p`` (macOS),
``%LOCALAPPDATA%\\hanabi-p2p`` (Windows: the local, not roaming, application data: game logs
grow with every game and belong to one machine's player). These three rules are written out
here rather than taken from `platformdirs`: resolution stays a pure function of the
environment and the system's name, which the tests pass in.

Layout::

    <data>/identity.pem            Ed25519 private key (0600)
    <data>/games/<table_id>.hlog   shareable signed log of one game (append-only)
    <data>/private/<table_id>.msgpack   secrets of one game: seed, channel keys (0600)
    <data>/watching/...            the same for `watch`: a spectator's key, the games it followed

The root and ``private/`` are created with mode 0700. Path resolution is pure (the environment
is passed in) so it can be tested without touching the real home directory.

A data directory, ``games/`` or ``private/`` that other users can write to would let them
plant files or links where we write a game (`DataDir.secure`): one of ours loses those write
permissions, one that is not ours is reported, once per command, before anything is written.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import stat
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from hanabi_p2p.errors import UserError
from hanabi_p2p.limits import TABLE_ID_BYTES
from hanabi_p2p.portable import BINARY, our_uid, permission_bits_apply

ENV_DATA_DIR = "HANABI_P2P_DATA_DIR"
APP_DIR_NAME = "hanabi-p2p"
IDENTITY_FILE = "identity.pem"
GAMES_DIR = "games"
# A spectator's own data directory inside the player's: its identity and the logs it followed
WATCHING_DIR = "watching"
PRIVATE_DIR = "private"
GAME_SUFFIX = ".hlog"
PRIVATE_SUFFIX = ".msgpack"

# What a data directory holds: one of these at least, unless it is new (empty).
DATA_DIR_MARKS = (IDENTITY_FILE, GAMES_DIR, PRIVATE_DIR, WATCHING_DIR)

DIR_MODE = 0o700
# Write permission for anyone but the owner: what `secure` removes or reports.
OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH


def resolve_data_dir(
    override: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    system: str = sys.platform,
) -> Path:
    """Return the data directory path (not created). ``env`` defaults to ``os.environ``;
    ``system`` is a ``sys.platform`` value (the default location depends on it)."""
    environ = os.environ if env is None else env
    if override:
        return Path(override).expanduser()
    if environ.get(ENV_DATA_DIR):
        return Path(environ[ENV_DATA_DIR]).expanduser()
    home = environ.get("HOME")
    base = Path(home) if home else Path.home()
    if system == "win32":
        local = environ.get("LOCALAPPDATA")
        if local and Path(local).is_absolute():
            return Path(local) / APP_DIR_NAME
        return base / "AppData" / "Local" / APP_DIR_NAME
    if system == "darwin":
        return base / "Library" / "Application Support" / APP_DIR_NAME
    xdg = environ.get("XDG_DATA_HOME")
    # The XDG spec says a relative XDG_DATA_HOME is invalid and must be ignored.
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / APP_DIR_NAME
    return base / ".local" / "share" / APP_DIR_NAME


def default_location_text(system: str = sys.platform) -> str:
    """Where the data directory is when nothing names one, as `--help` says it."""
    if system == "win32":
        return f"%LOCALAPPDATA%\\{APP_DIR_NAME}"
    if system == "darwin":
        return f"~/Library/Application Support/{APP_DIR_NAME}"
    return f"$XDG_DATA_HOME/{APP_DIR_NAME}, else ~/.local/share/{APP_DIR_NAME}"


def add_data_dir_argument(parser: argparse.ArgumentParser) -> None:
    """The shared ``--data-dir`` option for subcommands that touch stored files."""
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        default=None,
        help=f"where keys and game logs live (default: ${ENV_DATA_DIR}, "
        f"else {default_location_text()})",
    )


def _make_private_dir(path: Path) -> None:
    try:
        path.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create directory {path}: {exc.strerror}") from exc
    if not path.is_dir():
        raise UserError(f"{path} exists but is not a directory")


def table_hex(table_id: bytes) -> str:
    if len(table_id) != TABLE_ID_BYTES:
        raise ValueError(f"table id must be {TABLE_ID_BYTES} bytes, got {len(table_id)}")
    return table_id.hex()


@dataclass(frozen=True, slots=True)
class DataDir:
    """The resolved data directory and the paths inside it."""

    root: Path

    @classmethod
    def resolve(
        cls,
        override: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> DataDir:
        return cls(resolve_data_dir(override, env))

    @property
    def identity_path(self) -> Path:
        return self.root / IDENTITY_FILE

    @property
    def games_dir(self) -> Path:
        return self.root / GAMES_DIR

    @property
    def private_dir(self) -> Path:
        return self.root / PRIVATE_DIR

    def watching(self) -> DataDir:
        """Where `watch` keeps its identity and the games it followed."""
        return DataDir(self.root / WATCHING_DIR)

    def game_path(self, table_id: bytes) -> Path:
        return self.games_dir / (table_hex(table_id) + GAME_SUFFIX)

    def private_path(self, table_id: bytes) -> Path:
        return self.private_dir / (table_hex(table_id) + PRIVATE_SUFFIX)

    def secure(self) -> list[str]:
        """Remove write permission for group and others from the data directory, games/ and
        private/ where they exist and are ours; a warning for each one changed, and for each
        one that is another user's (that user could change what we write there). Nothing on
        Windows, whose mode bits say nothing of who may write (its access lists do)."""
        warnings: list[str] = []
        if not permission_bits_apply():
            return warnings
        uid = our_uid()  # None: a system that says no owner (after a notice)
        for path in (self.root, self.games_dir, self.private_dir):
            try:
                info = path.stat()  # through a link: what matters is where files land
            except OSError:
                continue  # not made yet: `ensure` creates it 0700
            if not stat.S_ISDIR(info.st_mode):
                continue  # `ensure` refuses it by name
            mode = stat.S_IMODE(info.st_mode)
            if uid is not None and info.st_uid != uid:
                warnings.append(f"{path} belongs to another user (uid {info.st_uid}), who "
                                f"could plant or change files in it; use another --data-dir")
                continue
            if not mode & OTHERS_WRITE:
                continue
            try:
                os.chmod(path, mode & ~OTHERS_WRITE)
            except OSError as exc:
                if exc.errno == errno.EROFS:
                    continue  # a read-only file system: nobody writes there (mode aside)
                warnings.append(f"{path} can be written by other users and could not be "
                                f"changed ({exc.strerror}); fix it with: chmod go-w {path}")
                continue
            warnings.append(f"{path} could be written by other users (mode {mode:04o}); "
                            f"changed to {mode & ~OTHERS_WRITE:04o}")
        return warnings

    def ensure(self) -> DataDir:
        """Create root, games/ and private/ if missing. New directories get mode 0700;
        private/ is forced to 0700 even if it already existed, since it holds secrets."""
        _make_private_dir(self.root)
        _make_private_dir(self.games_dir)
        _make_private_dir(self.private_dir)
        try:
            if stat.S_IMODE(self.private_dir.stat().st_mode) != DIR_MODE:
                os.chmod(self.private_dir, DIR_MODE)
        except OSError as exc:
            raise UserError(f"cannot make {self.private_dir} private: {exc.strerror}") from exc
        return self

    def check_for_reading(self) -> None:
        """Refuse (UserError) a root that cannot be a data directory to read games from:
        a file, or a directory holding other things and nothing of ours (`--data-dir /etc`,
        a mistyped path, the games/ directory itself). A missing or empty directory is
        one with no games yet. Without this, such a path listed as 'no games', exit 0."""
        try:
            names = set(os.listdir(self.root))
        except FileNotFoundError:
            return
        except NotADirectoryError:
            raise UserError(f"data directory {self.root} is a file, not a directory") from None
        except OSError as exc:
            raise UserError(f"cannot read data directory {self.root}: {exc.strerror}") from exc
        if not names or names & set(DATA_DIR_MARKS):
            return
        reason = (f"{self.root} is not a hanabi-p2p data directory (it holds no "
                  f"{IDENTITY_FILE}, {GAMES_DIR}/ or {PRIVATE_DIR}/)")
        if any(name.endswith(GAME_SUFFIX) for name in names):
            reason += (f": game logs are in its {GAMES_DIR}/; the data directory is "
                       f"{self.root.parent}")
        raise UserError(reason)

    def game_files(self) -> list[Path]:
        """Every stored game log, sorted by name (stable for listings and tests)."""
        if not self.games_dir.is_dir():
            return []
        return sorted(self.games_dir.glob("*" + GAME_SUFFIX))


def fsync_dir(path: Path) -> None:
    """Make a create/rename/link inside ``path`` durable (skipped where a directory can't be
    opened, e.g. some network filesystems)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes, *, mode: int, replace: bool) -> None:
    """Write ``data`` to ``path`` so that a crash leaves either the old file or the new one.

    A temp file in the same directory is created with ``mode`` from the start (secrets are
    never briefly world-readable), fsync'd, then moved into place: ``os.replace`` when
    ``replace`` is true, else ``os.link``, which raises ``FileExistsError`` instead of
    overwriting (two first runs racing must not end up with two different keys).
    """
    path.parent.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)  # left over by a crashed run of a process with our pid
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | BINARY, mode)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if replace:
            os.replace(tmp, path)
        else:
            os.link(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    fsync_dir(path.parent)
