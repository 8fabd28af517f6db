"""Both stores behave alike; SQLite keeps everything across reopening and migrates old files."""

import json
import sqlite3

import pytest

from maxchen import store as stores
from maxchen.dice import FixedDice
from maxchen.rooms import Rooms, hash_token
from maxchen.store import MemoryStore, SqliteStore


@pytest.fixture(params=["memory", "sqlite"])
def store(request, tmp_path):
    if request.param == "memory":
        return MemoryStore()
    return SqliteStore(tmp_path / "rooms.db")


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


def test_rolls_are_logged_with_the_room(store):
    store.save("ABCDE", room_data(), rolls=[{"dice": [6, 5], "value": 65, "announced": 66, "found": False}])
    (roll,) = store.rolls()
    assert roll["room"] == "ABCDE" and roll["rules"] == "maexchen" and roll["time"] > 0
    assert (roll["dice"], roll["value"], roll["announced"], roll["found"]) == ([6, 5], 65, 66, False)


def test_a_played_round_reaches_the_roll_log_without_names(store):
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
    rolls = store.rolls()
    assert [(r["dice"], r["value"], r["announced"], r["found"]) for r in rolls] == [
        ([4, 2], 42, 42, None),  # believed: never checked
        ([3, 1], 31, 43, False),  # checked: the 43 was a lie
    ]
    assert "Annika" not in json.dumps(rolls) and "Benedikt" not in json.dumps(rolls)


def test_sqlite_keeps_everything_across_reopening(tmp_path):
    path = tmp_path / "rooms.db"
    first = Rooms(store=SqliteStore(path), dice=FixedDice([(6, 6)]))
    ann = first.create("Ann")
    ben = first.join(ann["code"], "Ben")
    first.act(ann["code"], ann["player"], {"action": "start"})
    before = first.act(ann["code"], ann["player"], {"action": "shake"})
    first.store.close()
    # A new process opens the same file: the same room, seats, tokens and hidden dice.
    again = Rooms(store=SqliteStore(path))
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


def test_a_file_from_a_newer_version_is_refused(tmp_path):
    path = tmp_path / "new.db"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {stores.SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(RuntimeError, match="schema"):
        SqliteStore(path)
