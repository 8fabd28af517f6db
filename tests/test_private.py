"""The instance folder is the server's user's alone: 0700, and 0600 for the database (with its -wal and -shm),
the certificate key and the session key, whatever the umask and however loose an existing folder was."""

import logging
import os
import secrets
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from maxchen import client, paths, serve, tls
from maxchen.dice import FixedDice
from maxchen.rooms import Rooms
from maxchen.store import SqliteStore

from .conftest import Server

pytestmark = pytest.mark.skipif(os.name != "posix", reason="permission bits are POSIX's")

SECRETS = ("maxchen.db", "maxchen.db-wal", "maxchen.db-shm", "secret_key")


def mode(path: Path) -> str:
    return oct(stat.S_IMODE(path.stat().st_mode))


@pytest.fixture(params=[0o022, 0o000], ids=["umask 022", "umask 000"])
def umask(request):
    """The process's umask for the test (a server started in it inherits it)."""
    before = os.umask(request.param)
    yield request.param
    os.umask(before)


def loose_folder(folder: Path) -> Path:
    """What an older maxchen left: a 0755 folder with a 0644 database, and the -wal and -shm of a killed
    process, and a 0644 session key."""
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    killed = (
        "import os, sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute('PRAGMA journal_mode=WAL');"
        " db.execute('CREATE TABLE t (x)'); db.execute('INSERT INTO t VALUES (1)'); db.commit(); os._exit(9)"
    )
    subprocess.run([sys.executable, "-c", killed, str(folder / "maxchen.db")], check=False)
    (folder / "secret_key").write_text(secrets.token_hex(32))
    for name in SECRETS:
        os.chmod(folder / name, 0o644)
    return folder


@pytest.mark.parametrize("kind", ["fresh", "existing"])
def test_the_database_and_keys_are_the_users_alone_after_a_game(tmp_path, umask, kind, caplog):
    folder = tmp_path / "instance"
    if kind == "existing":
        loose_folder(folder)
    # As the server starts (maxchen/server.py `run`): the session key, the certificate, the database.
    with caplog.at_level(logging.WARNING, logger="maxchen.paths"):
        serve.secret_key(folder)
        tls.ensure_certificate(folder, ["192.168.1.20"])
        rooms = Rooms(store=SqliteStore(folder / "maxchen.db"), dice=FixedDice([(4, 2)]))
    ann = rooms.create("Ann")
    rooms.join(ann["code"], "Ben")
    # Ann starts and rolls: the hidden dice and the unrevealed server seed are written.
    rooms.act(ann["code"], ann["player"], {"action": "start"})
    rooms.act(ann["code"], ann["player"], {"action": "shake"})
    try:
        assert mode(folder) == "0o700"
        assert {name: mode(folder / name) for name in (*SECRETS, "key.pem")} == dict.fromkeys(
            (*SECRETS, "key.pem"), "0o600"
        )
    finally:
        rooms.store.close()
    tightened = [record.getMessage() for record in caplog.records if record.name == "maxchen.paths"]
    if kind == "existing":  # each loosened thing says so, once
        assert len(tightened) == 5 and all("was open to other users" in line for line in tightened)
        assert any(line.endswith("(755): now 700") for line in tightened)
    else:
        assert tightened == []


@pytest.mark.parametrize("kind", ["fresh", "existing"])
def test_the_server_keeps_its_folder_to_its_user_under_umask_000(tmp_path, kind):
    """The real server, started as a user with umask 000 starts it, plays a game's first moves."""
    folder = tmp_path / "instance"
    if kind == "existing":
        loose_folder(folder)
    before = os.umask(0)
    try:
        server = Server(instance=str(folder))
    finally:
        os.umask(before)
    try:
        server.wait_ready()
        ann = client.create_room(server.url, "Ann")
        ben = client.join_room(server.url, ann["code"], "Ben")
        client.act(server.url, ann["code"], ann["token"], "start")
        client.act(server.url, ann["code"], ann["token"], "shake", seed=secrets.token_hex(16))
        assert client.fetch(server.url, ann["code"], ben["token"])["phase"] == "playing"
        assert mode(folder) == "0o700"
        assert {name: mode(folder / name) for name in SECRETS} == dict.fromkeys(SECRETS, "0o600")
    finally:
        said = server.stop()
    assert ("was open to other users (755): now 700" in said) is (kind == "existing")


def test_a_tightened_database_keeps_what_it_held(tmp_path):
    folder = loose_folder(tmp_path / "instance")
    store = SqliteStore(folder / "maxchen.db")  # the killed process's commit is in its -wal
    try:
        assert store._db.execute("SELECT x FROM t").fetchall() == [(1,)]
    finally:
        store.close()
    assert mode(folder / "maxchen.db") == "0o600"


def test_a_key_that_is_kept_is_tightened_too(tmp_path):
    cert, key = tls.ensure_certificate(tmp_path, ["192.168.1.20"])
    os.chmod(key, 0o644)
    assert tls.ensure_certificate(tmp_path, ["192.168.1.20"]) == (cert, key)  # still good: kept
    assert mode(key) == "0o600"


@pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0, reason="needs root to own a folder for another user")
def test_a_folder_of_another_user_is_left_as_it_is(tmp_path):
    """`--instance /srv` or a shared folder: not ours to close."""
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    os.chmod(shared, 0o755)
    os.chown(shared, 12345, 12345)
    paths.private_folder(shared)
    assert mode(shared) == "0o755"


def test_a_memory_database_makes_no_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    SqliteStore(":memory:").close()
    assert list(tmp_path.iterdir()) == []


def test_no_sqlite_file_is_left_open_to_others_by_its_own_making(tmp_path, umask):
    """SQLite gives the -wal and -shm it makes the database file's own mode."""
    store = SqliteStore(tmp_path / "deep" / "rooms.db")
    try:
        Rooms(store=store).create("Ann")
        made = sorted(p.name for p in (tmp_path / "deep").iterdir())
        assert made == ["rooms.db", "rooms.db-shm", "rooms.db-wal"]
        assert {name: mode(tmp_path / "deep" / name) for name in made} == dict.fromkeys(made, "0o600")
        assert mode(tmp_path / "deep") == "0o700"
    finally:
        store.close()
