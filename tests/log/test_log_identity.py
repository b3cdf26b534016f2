"""Identities, fingerprints, display names and the data directory."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from hanabi_p2p import identity as identity_module
from hanabi_p2p.datadir import DataDir, resolve_data_dir
from hanabi_p2p.errors import UserError
from hanabi_p2p.identity import (
    CROCKFORD_ALPHABET,
    Identity,
    display_name,
    fingerprint,
    is_valid_peer_id,
    verify_signature,
)

RFC8032_SEED_1 = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"
RFC8032_PUB_1 = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
RFC8032_SIG_1 = (
    "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
    "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
)


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_identity_matches_rfc8032_test_vector_1() -> None:
    ident = Identity.from_seed(bytes.fromhex(RFC8032_SEED_1))
    assert ident.peer_id.hex() == RFC8032_PUB_1
    assert ident.sign(b"").hex() == RFC8032_SIG_1
    assert verify_signature(ident.peer_id, bytes.fromhex(RFC8032_SIG_1), b"")
    assert not verify_signature(ident.peer_id, bytes.fromhex(RFC8032_SIG_1), b"x")


def test_a_signature_is_verified_once_per_process_and_never_confused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The seats one program runs all verify every entry: the same bytes are checked once
    (libsodium is not called again), and any other signer, signature or message gets its
    own answer."""
    signer, other = Identity.generate(), Identity.generate()
    message = os.urandom(300)
    signature = signer.sign(message)
    calls = []
    real_open = identity_module.crypto_sign_open

    def counting_open(signed: bytes, key: bytes) -> bytes:
        calls.append(key)
        return real_open(signed, key)

    monkeypatch.setattr(identity_module, "crypto_sign_open", counting_open)
    assert verify_signature(signer.peer_id, signature, message)
    assert verify_signature(bytearray(signer.peer_id), signature, bytes(message))
    assert len(calls) == 1
    assert not verify_signature(other.peer_id, signature, message)
    assert not verify_signature(signer.peer_id, signature, message + b"x")
    forged = bytes([signature[0] ^ 1]) + signature[1:]
    assert not verify_signature(signer.peer_id, forged, message)
    assert len(calls) == 4
    assert verify_signature(signer.peer_id, signature, message)
    assert len(calls) == 4


def test_fingerprint_is_two_groups_of_four_crockford_characters() -> None:
    fp = fingerprint(bytes.fromhex(RFC8032_PUB_1))
    assert len(fp) == 9 and fp[4] == "-"
    assert all(ch in CROCKFORD_ALPHABET for ch in fp.replace("-", ""))
    assert fp == "656T-5SZ6"  # also in protocol/vectors/log/entry-v1.json


def test_fingerprints_differ_between_keys() -> None:
    keys = [Identity.from_seed(bytes([i]) * 32).peer_id for i in range(50)]
    assert len({fingerprint(k) for k in keys}) == 50


def test_small_order_and_non_canonical_keys_are_not_peer_ids() -> None:
    identity_point = bytes([1]) + bytes(31)  # the neutral element: order 1
    assert not is_valid_peer_id(identity_point)
    assert not is_valid_peer_id(b"\xff" * 32)
    assert not is_valid_peer_id(b"\x00" * 31)
    assert is_valid_peer_id(bytes.fromhex(RFC8032_PUB_1))
    assert not verify_signature(identity_point, bytes(64), b"anything")


def test_display_name_cleans_hostile_names() -> None:
    pid = bytes.fromhex(RFC8032_PUB_1)
    assert display_name("Alice", pid) == "Alice (656T-5SZ6)"
    assert display_name("Eve\x1b[2J\nroot", pid) == "Eve?[2J?root (656T-5SZ6)"
    # (the rules themselves are safe_text's: tests/test_safe_text.py)
    assert display_name("  ", pid) == display_name("", pid) == "? (656T-5SZ6)"


def test_load_or_create_creates_a_private_key_once(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "data")
    first = Identity.load_or_create(data)
    assert mode_of(data.identity_path) == 0o600
    assert mode_of(data.root) == 0o700
    assert mode_of(data.private_dir) == 0o700
    again = Identity.load_or_create(data)
    assert again.peer_id == first.peer_id
    assert not list(data.root.glob(".*.tmp"))


def test_load_or_create_uses_the_injected_rng(tmp_path: Path) -> None:
    ident = Identity.load_or_create(DataDir(tmp_path), rng=lambda n: bytes.fromhex(RFC8032_SEED_1))
    assert ident.peer_id.hex() == RFC8032_PUB_1


def test_key_readable_by_others_is_refused(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    Identity.load_or_create(data)
    os.chmod(data.identity_path, 0o644)
    with pytest.raises(UserError, match="chmod 600"):
        Identity.load_or_create(data)


def test_damaged_key_file_is_a_user_error(tmp_path: Path) -> None:
    data = DataDir(tmp_path).ensure()
    fd = os.open(data.identity_path, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, b"-----BEGIN PRIVATE KEY-----\nnot base64\n")
    os.close(fd)
    with pytest.raises(UserError, match="not a valid private key"):
        Identity.load_or_create(data)


def test_symlinked_key_file_is_refused(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "d").ensure()
    elsewhere = tmp_path / "someone-elses.pem"
    elsewhere.write_bytes(Identity.from_seed(bytes(32)).to_pem())
    os.chmod(elsewhere, 0o600)
    data.identity_path.symlink_to(elsewhere)
    with pytest.raises(UserError, match="cannot read identity key"):
        Identity.load_or_create(data)


def test_data_dir_that_is_a_file_is_a_user_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(UserError):
        DataDir(tmp_path / "file").ensure()


def test_a_key_created_by_a_racing_process_wins(tmp_path: Path) -> None:
    data = DataDir(tmp_path).ensure()
    other = Identity.from_seed(bytes(range(32)))
    calls = []

    def rng(n: int) -> bytes:
        # While we "generate", another process finishes creating the key file.
        calls.append(n)
        fd = os.open(data.identity_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, other.to_pem())
        os.close(fd)
        return bytes(32)

    got = Identity.load_or_create(data, rng=rng)
    assert calls == [32]
    assert got.peer_id == other.peer_id


def test_repr_does_not_leak_the_key() -> None:
    ident = Identity.from_seed(bytes.fromhex(RFC8032_SEED_1))
    assert repr(ident) == "Identity(656T-5SZ6)"


@pytest.mark.parametrize(
    ("override", "env", "expected"),
    [
        ("/o", {"HANABI_P2P_DATA_DIR": "/e", "XDG_DATA_HOME": "/x", "HOME": "/h"}, "/o"),
        (None, {"HANABI_P2P_DATA_DIR": "/e", "XDG_DATA_HOME": "/x", "HOME": "/h"}, "/e"),
        (None, {"XDG_DATA_HOME": "/x", "HOME": "/h"}, "/x/hanabi-p2p"),
        (None, {"XDG_DATA_HOME": "relative", "HOME": "/h"}, "/h/.local/share/hanabi-p2p"),
        (None, {"HOME": "/h"}, "/h/.local/share/hanabi-p2p"),
    ],
)
def test_data_dir_resolution_order(
    override: str | None, env: dict[str, str], expected: str
) -> None:
    assert resolve_data_dir(override, env, system="linux") == Path(expected)


@pytest.mark.parametrize(
    ("system", "env", "expected"),
    [
        # platformdirs' user_data_dir for each: macOS ignores XDG, Windows takes the local
        # (not roaming) application data
        ("darwin", {"XDG_DATA_HOME": "/x", "HOME": "/Users/ann"},
         "/Users/ann/Library/Application Support/hanabi-p2p"),
        ("win32", {"LOCALAPPDATA": "/c/Users/ann/AppData/Local", "HOME": "/h"},
         "/c/Users/ann/AppData/Local/hanabi-p2p"),
        ("win32", {"HOME": "/h"}, "/h/AppData/Local/hanabi-p2p"),
        ("win32", {"HANABI_P2P_DATA_DIR": "/e", "LOCALAPPDATA": "/l", "HOME": "/h"}, "/e"),
        ("freebsd14", {"HOME": "/h"}, "/h/.local/share/hanabi-p2p"),
    ],
)
def test_the_default_data_dir_is_each_systems_place_for_user_data(
    system: str, env: dict[str, str], expected: str
) -> None:
    assert resolve_data_dir(None, env, system=system) == Path(expected)


def test_data_dir_paths(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    table = bytes(range(16))
    assert data.game_path(table) == tmp_path / "games" / (table.hex() + ".hlog")
    assert data.private_path(table) == tmp_path / "private" / (table.hex() + ".msgpack")
    with pytest.raises(ValueError):
        data.game_path(b"short")


def test_ensure_tightens_an_existing_private_dir(tmp_path: Path) -> None:
    (tmp_path / "private").mkdir(mode=0o755)
    os.chmod(tmp_path / "private", 0o755)
    DataDir(tmp_path).ensure()
    assert mode_of(tmp_path / "private") == 0o700
