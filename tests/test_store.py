"""Every store behaves alike; SQLite and Redis keep everything across reopening; SQLite migrates old files."""

import json
import os
import sqlite3
import time
from pathlib import Path

import pytest

from maxchen import store as stores
from maxchen.dice import FixedDice
from maxchen.errors import IllegalMove
from maxchen.rooms import Rooms, hash_token
from maxchen.store import MemoryStore, RedisStore, SqliteStore

from .conftest import ROOT, RedisServer, need_redis_server

KEPT = ("sqlite", "redis")  # the stores a new process opens again with what the last one left


@pytest.fixture(params=["memory", *KEPT])
def make_store(request, tmp_path):
    """Open a store of the parameter's kind; opened again, a kept one has what the last one saved."""
    opened = []

    def make(**options):
        if request.param == "memory":
            made = MemoryStore(**options)
        elif request.param == "sqlite":
            made = SqliteStore(tmp_path / "rooms.db", **options)
        else:
            made = RedisStore(request.getfixturevalue("redis_url"), **options)
        opened.append(made)
        return made

    make.kind = request.param
    yield make
    for made in opened:
        if hasattr(made, "close"):
            made.close()


@pytest.fixture
def store(make_store):
    return make_store()


def room_data(code="ABCDE", touched=10.0, tokens=("t1", "t2")):
    seats = [
        {"id": f"p{i}", "name": f"P{i}", "token_hash": t, "waiting": False, "left": False} for i, t in enumerate(tokens)
    ]
    return {"code": code, "rules": "maexchen", "seats": seats, "touched": touched, "game": None}


def test_save_load_delete(store):
    assert store.load("ABCDE") is None
    store.save("ABCDE", room_data())
    assert store.load("ABCDE") == room_data()
    assert store.find_token("t2") == "ABCDE"
    store.save("ABCDE", room_data(tokens=("t1",)))  # t2 revoked
    assert store.find_token("t2") is None
    store.delete("ABCDE")
    assert store.load("ABCDE") is None
    assert store.find_token("t1") is None


def test_untouched_since(store):
    store.save("AAAAA", room_data("AAAAA", touched=5.0, tokens=("a",)))
    store.save("BBBBB", room_data("BBBBB", touched=50.0, tokens=("b",)))
    assert store.untouched_since(10.0) == ["AAAAA"]


CHECKED = {
    "dice": [6, 5],
    "value": 65,
    "announced": 66,
    "found": False,
    "public": True,
    "round": 3,
    "player": "p1",
    "answerer": "p0",
    "outcome": "lie",
}
DOUBTED = {
    "dice": [5, 1, 2],
    "value": 2,
    "announced": None,
    "bid": {"count": 4, "face": 5},
    "table": 3,
    "found": False,
    "public": True,
    "round": 2,
    "player": "p0",
    "answerer": "p1",
    "outcome": "lie",
}
VOID = {"dice": [4, 4, 3], "value": None, "public": False, "round": 3, "player": "p1", "outcome": "void"}


def test_rolls_are_logged_with_the_room_and_every_field_comes_back(store):
    store.save("ABCDE", room_data(), rolls=[CHECKED])
    data = {**room_data(), "rules": "luegen"}
    store.save("ABCDE", data, rolls=[{**DOUBTED, "game": 2, "name": "P0", "answerer_name": "P1"}, {**VOID, "game": 2}])
    first, doubt, void = store.rolls()
    assert first["room"] == "ABCDE" and first["rules"] == "maexchen" and first["time"] > 0
    assert {key: first[key] for key in CHECKED} == CHECKED
    assert (first["game"], first["name"], first["bid"], first["table"]) == (None, None, None, None)
    assert {key: doubt[key] for key in DOUBTED} == DOUBTED and doubt["rules"] == "luegen"
    assert (doubt["game"], doubt["name"], doubt["answerer_name"]) == (2, "P0", "P1")
    assert (void["value"], void["found"], void["public"], void["outcome"], void["answerer"]) == (
        None,
        None,
        False,
        "void",
        None,
    )
    assert store.room_log("ABCDE") == [first, doubt, void] and store.room_log("ZZZZZ") == []


def test_a_played_game_reaches_the_roll_log_and_its_unseen_rolls_turn_public_at_its_end(store):
    rooms = Rooms(store=store, dice=FixedDice([(4, 2), (3, 1)]))
    ann = rooms.create("Annika")
    ben = rooms.join(ann["code"], "Benedikt")
    code = ann["code"]
    rooms.act(code, ann["player"], {"action": "start"})
    rooms.act(code, ann["player"], {"action": "shake"})
    rooms.act(code, ann["player"], {"action": "announce", "value": 42})
    rooms.act(code, ben["player"], {"action": "believe"})
    rooms.act(code, ben["player"], {"action": "shake"})
    rooms.act(code, ben["player"], {"action": "announce", "value": 43})
    rooms.act(code, ann["player"], {"action": "check"})
    rolls = store.room_log(code)
    assert [(r["dice"], r["value"], r["announced"], r["found"], r["outcome"], r["public"]) for r in rolls] == [
        ([4, 2], 42, 42, None, "believed", False),  # believed: nobody saw it
        ([3, 1], 31, 43, False, "lie", True),  # checked: the 43 was a lie, seen by all
    ]
    assert [(r["game"], r["round"], r["name"], r["answerer_name"]) for r in rolls] == [
        (1, 1, "Annika", "Benedikt"),
        (1, 1, "Benedikt", "Annika"),
    ]
    assert rolls[0]["player"] == ann["player"] and rolls[0]["answerer"] == ben["player"]
    # Ben leaves: the game is over, and Annika's believed 42 is the table's to know.
    rooms.act(code, ben["player"], {"action": "leave"})
    assert [r["public"] for r in store.room_log(code)] == [True, True]
    # The room goes (its last person leaves): its log stays, without names.
    rooms.act(code, ann["player"], {"action": "leave"})
    assert store.load(code) is None
    rolls = store.rolls()
    assert [r["dice"] for r in rolls] == [[4, 2], [3, 1]]
    assert "Annika" not in json.dumps(rolls) and "Benedikt" not in json.dumps(rolls)


def test_a_rooms_log_keeps_its_newest_entries_up_to_its_cap(make_store):
    store = make_store(room_cap=5)
    store.save("OTHER", room_data("OTHER", tokens=()), rolls=[{**CHECKED, "round": 0}])
    for start in (1, 4, 7):
        store.save("ABCDE", room_data(), rolls=[{**CHECKED, "round": n} for n in range(start, start + 3)])
    assert [r["round"] for r in store.room_log("ABCDE")] == [5, 6, 7, 8, 9]
    assert [r["round"] for r in store.room_log("OTHER")] == [0]  # another room's log is its own
    if make_store.kind in KEPT:
        again = make_store(room_cap=5)  # a new process counts the log once
        again.save("ABCDE", room_data(), rolls=[{**CHECKED, "round": 10}])
        assert [r["round"] for r in again.room_log("ABCDE")] == [6, 7, 8, 9, 10]


@pytest.mark.parametrize("make_store", KEPT, indirect=True)  # memory drops a deleted room's log
def test_a_code_whose_log_is_kept_is_not_given_to_a_new_room(make_store, monkeypatch):
    from maxchen import rooms as registry

    store = make_store()
    store.save("AAAAA", room_data("AAAAA", tokens=()), rolls=[CHECKED])
    store.delete("AAAAA")  # the room is gone, its log is not
    letters = iter("AAAAA" + "BBBBB")
    monkeypatch.setattr(registry.secrets, "choice", lambda alphabet: next(letters))
    assert Rooms(store=store).create("Ann")["code"] == "BBBBB"


@pytest.mark.parametrize("make_store", KEPT, indirect=True)
def test_a_kept_store_keeps_everything_across_reopening(make_store):
    first = Rooms(store=make_store(), dice=FixedDice([(6, 6)]))
    ann = first.create("Ann")
    ben = first.join(ann["code"], "Ben")
    first.act(ann["code"], ann["player"], {"action": "start"})
    before = first.act(ann["code"], ann["player"], {"action": "shake"})
    first.store.close()
    # A new process opens the same file: the same room, seats, tokens and hidden dice.
    again = Rooms(store=make_store())
    assert again.locate(ben["token"]) == (ann["code"], ben["player"])
    assert again.view(ann["code"], ann["player"]) == before
    assert again.view(ann["code"], ann["player"])["dice"] == [6, 6]
    assert again.view(ann["code"], ben["player"])["dice"] is None


def test_sqlite_uses_wal_and_records_its_schema(tmp_path):
    SqliteStore(tmp_path / "rooms.db").close()
    db = sqlite3.connect(tmp_path / "rooms.db")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA user_version").fetchone()[0] == stores.SCHEMA_VERSION


def test_a_file_of_the_previous_schema_is_migrated_not_discarded(tmp_path):
    path = tmp_path / "old.db"
    # What the previous version (schema 1) wrote: rooms only, no token index, no roll log.
    old = sqlite3.connect(path)
    stores.MIGRATIONS[0](old)
    old.execute("PRAGMA user_version = 1")
    data = room_data(tokens=(hash_token("secret-ann"),))
    old.execute("INSERT INTO rooms VALUES (?, ?, ?)", ("ABCDE", json.dumps(data), 10.0))
    old.commit()
    old.close()
    store = SqliteStore(path)
    assert store.load("ABCDE") == data
    assert store.find_token(hash_token("secret-ann")) == "ABCDE"
    assert store.rolls() == []
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == stores.SCHEMA_VERSION


def test_a_file_of_schema_2_keeps_its_rolls_and_a_running_games_unseen_ones_wait_for_its_end(tmp_path):
    path = tmp_path / "v2.db"
    # What schema 2 wrote: a room in a game and one whose game is over, and their rolls without players.
    old = sqlite3.connect(path)
    stores.MIGRATIONS[0](old)
    stores.MIGRATIONS[1](old)
    old.execute("PRAGMA user_version = 2")
    playing = {**room_data("PLAYS", tokens=()), "phase": "playing"}
    over = {**room_data("OVERS", tokens=()), "phase": "over"}
    for data in (playing, over):
        old.execute("INSERT INTO rooms VALUES (?, ?, ?)", (data["code"], json.dumps(data), 10.0))
    old.executemany(
        "INSERT INTO rolls (room, rules, time, dice, value, announced, found) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            ("PLAYS", "maexchen", 1.0, "[6, 2]", 62, 62, 1),  # checked: seen by all
            ("PLAYS", "maexchen", 2.0, "[4, 1]", 41, 62, None),  # believed in the game that runs
            ("OVERS", "maexchen", 3.0, "[5, 5]", 55, 55, None),  # believed in a game that is over
            ("GONE1", "luegen", 4.0, "[1, 2, 3]", 1, None, None),  # a room that is gone
        ],
    )
    old.commit()
    old.close()
    store = SqliteStore(path)
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == stores.SCHEMA_VERSION
    rolls = store.rolls()
    assert [(r["room"], r["dice"], r["value"], r["announced"], r["found"]) for r in rolls] == [
        ("PLAYS", [6, 2], 62, 62, True),
        ("PLAYS", [4, 1], 41, 62, None),
        ("OVERS", [5, 5], 55, 55, None),
        ("GONE1", [1, 2, 3], 1, None, None),
    ]
    assert [r["public"] for r in rolls] == [True, False, True, True]
    assert [r["outcome"] for r in rolls] == ["true", None, None, None]
    # The running game (game 1 of its room) ends: its unseen roll is public now.
    store.save("PLAYS", {**playing, "phase": "over"}, settle=1)
    assert [r["public"] for r in store.room_log("PLAYS")] == [True, True]


def test_a_file_from_a_newer_version_is_refused(tmp_path):
    path = tmp_path / "new.db"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {stores.SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(RuntimeError, match="schema"):
        SqliteStore(path)


def test_a_redis_save_that_fails_leaves_the_old_room_its_tokens_and_its_log(redis_url, monkeypatch):
    import redis

    store = RedisStore(redis_url)
    store.save("ABCDE", room_data(), rolls=[CHECKED])
    queue = store._queue_save

    def broken(pipe, *args):
        queue(pipe, *args)
        pipe.execute_command("HSET", "maxchen:broken")  # a command Redis refuses: EXEC runs none of them

    monkeypatch.setattr(store, "_queue_save", broken)
    with pytest.raises(redis.RedisError):
        store.save("ABCDE", {**room_data(tokens=("t3",)), "touched": 99.0}, rolls=[DOUBTED], settle=1)
    assert store.load("ABCDE") == room_data()
    assert (store.find_token("t1"), store.find_token("t2"), store.find_token("t3")) == ("ABCDE", "ABCDE", None)
    assert [r["dice"] for r in store.room_log("ABCDE")] == [CHECKED["dice"]]
    assert store.untouched_since(11.0) == ["ABCDE"]


def test_a_redis_save_raced_by_another_process_starts_again_with_what_that_one_wrote(redis_url, monkeypatch):
    store, other = RedisStore(redis_url), RedisStore(redis_url)
    store.save("ABCDE", room_data())
    settled = store._settled
    raced = []

    def race(pipe, log, game):
        if not raced:  # between this save's reading and its EXEC, another process seats t3
            raced.append(other.save("ABCDE", room_data(tokens=("t1", "t2", "t3"))))
        return settled(pipe, log, game)

    monkeypatch.setattr(store, "_settled", race)
    store.save("ABCDE", room_data(tokens=("t1",)), settle=1)
    assert raced
    # The save read the tokens again: t3's index entry went with the seats it replaced, none is left stale.
    assert (store.find_token("t1"), store.find_token("t2"), store.find_token("t3")) == ("ABCDE", None, None)


def test_a_bad_redis_url_or_a_redis_that_does_not_answer_is_one_clear_error():
    with pytest.raises(RuntimeError, match="cannot use Redis at bogus://x: Redis URL must"):
        RedisStore("bogus://x")
    with pytest.raises(RuntimeError, match=r"cannot use Redis at redis://:\*\*\*@127.0.0.1:1/0") as caught:
        RedisStore("redis://:hunter2@127.0.0.1:1/0")
    assert "hunter2" not in str(caught.value)


def test_a_process_that_stalled_past_its_lock_cannot_write_over_the_change_made_meanwhile(redis_url, monkeypatch):
    """Process A holds a room's lock and freezes (SIGSTOP, a paused VM) until the lock expires; process B
    changes the room (a shake: its cup under the commit); A wakes and saves. A's save is refused whole:
    one commit is never rolled twice (an attack round saw both answered and A's written last)."""
    monkeypatch.setattr(stores, "LOCK_SECONDS", 0.3)
    first, second = RedisStore(redis_url), RedisStore(redis_url)
    first.save("ABCDE", room_data())
    with first.lock("ABCDE"):
        stalled = first.load("ABCDE")
        time.sleep(0.45)  # past the lock's time: it expired in Redis
        with second.lock("ABCDE"):
            second.save("ABCDE", {**room_data(), "touched": 22.0})
        with pytest.raises(IllegalMove) as refused:
            first.save("ABCDE", {**stalled, "touched": 11.0})
    assert refused.value.reason == "room_busy"
    assert first.load("ABCDE")["touched"] == 22.0
    with first.lock("ABCDE"):  # a holder in its time saves as ever
        first.save("ABCDE", {**room_data(), "touched": 33.0})
    assert second.load("ABCDE")["touched"] == 33.0


def test_more_redis_callers_at_once_than_connections_wait_for_one_instead_of_failing(redis_url):
    """A busy process has thousands of sockets: redis-py 8's own pool refused the 101st caller at once, and
    that move was refused as `store_down` (2,004 bots on two processes, bench/load.py)."""
    import threading

    client = RedisStore(redis_url).client
    answers, failures = [], []

    def wait_on_redis():
        try:
            answers.append(client.blpop(["maxchen:never"], timeout=0.3))  # holds its connection 0.3 s
        except Exception as error:  # noqa: BLE001 - counted, and the assertion shows them
            failures.append(repr(error))

    callers = [threading.Thread(target=wait_on_redis) for _ in range(stores.REDIS_CONNECTIONS + 50)]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join()
    assert failures == [] and answers == [None] * len(callers)


@pytest.mark.parametrize("stop", ["shutdown", "kill -9"])
def test_redis_with_aof_keeps_rooms_tokens_log_and_classes_across_a_restart(tmp_path, stop):
    need_redis_server()
    aof = ("--appendonly", "yes", "--appendfsync", "always")  # always: even kill -9 loses no acknowledged save
    server = RedisServer(tmp_path, *aof).start()
    try:
        store = RedisStore(server.url)
        store.save("ABCDE", room_data(), rolls=[CHECKED, {**VOID, "game": 1}])
        store.save("ABCDE", room_data(tokens=("t1",)), settle=1)
        store.save("GONE1", room_data("GONE1", tokens=("g",)), rolls=[DOUBTED])
        store.delete("GONE1")
        store.save_class("CLASS", {"code": "CLASS", "tables": ["ABCDE"]})
        before = store.rolls()
        store.close()
        if stop == "shutdown":
            server.shutdown()
        else:
            server.process.kill()
            server.process.wait()
        server = RedisServer(tmp_path, *aof, port=server.port).start()
        again = RedisStore(server.url)
        assert again.load("ABCDE") == room_data(tokens=("t1",))
        assert (again.find_token("t1"), again.find_token("t2"), again.find_token("g")) == ("ABCDE", None, None)
        assert again.load("GONE1") is None and again.untouched_since(11.0) == ["ABCDE"]
        assert again.rolls() == before and [r["public"] for r in again.room_log("ABCDE")] == [True, True]
        assert again.load_class("CLASS") == {"code": "CLASS", "tables": ["ABCDE"]} and again.classes() == ["CLASS"]
        again.close()
    finally:
        server.stop()


def test_redis_keys_carry_the_prefix_so_a_shared_redis_is_safe(redis_url):
    import redis

    store = RedisStore(redis_url)
    store.save("ABCDE", room_data(), rolls=[CHECKED])
    store.save_class("CLASS", {"code": "CLASS"})
    keys = [key.decode() for key in redis.Redis.from_url(redis_url).keys("*")]
    assert keys and all(key.startswith("maxchen:") for key in keys)


def _written(path) -> bytes:
    store = SqliteStore(path)
    for n in range(200):  # a file of many pages: cut in half, its second half is gone
        store.save(f"A{n:04d}", room_data(f"A{n:04d}", tokens=(f"t{n}",)))
    store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store._db.close()
    return Path(path).read_bytes()


@pytest.mark.parametrize("damage", ["random", "zeros", "half", "header"])
def test_a_damaged_database_file_at_start_is_one_clear_line_and_stays_as_it_was(tmp_path, damage):
    """A file cut short, overwritten with noise or zeros: the server says in one line what is wrong and what
    to do, and exits; the file is not touched (it may be all that is left of the games)."""
    import subprocess
    import sys

    path = tmp_path / "maxchen.db"
    whole = _written(path)
    broken = {
        "random": os.urandom(len(whole)),
        "zeros": bytes(len(whole)),
        "half": whole[: len(whole) // 2],
        "header": whole[:100] + os.urandom(len(whole) - 100),
    }[damage]
    path.write_bytes(broken)
    started = subprocess.run(
        [sys.executable, "app.py", "--db", str(path), "--port", "1", "--no-tls", "--instance", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert started.returncode == 1
    lines = [line for line in started.stderr.splitlines() if line.startswith("maxchen:")]
    assert len(lines) == 1 and "cannot be read as a database" in lines[0] and "Traceback" not in started.stderr
    assert "move it" in lines[0]
    assert path.read_bytes() == broken and not (tmp_path / "maxchen.db-wal").exists()
