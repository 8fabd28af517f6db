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


def test_a_rooms_log_keeps_its_newest_entries_up_to_its_cap(tmp_path):
    for store in (MemoryStore(room_cap=5), SqliteStore(tmp_path / "capped.db", room_cap=5)):
        store.save("OTHER", room_data("OTHER", tokens=()), rolls=[{**CHECKED, "round": 0}])
        for start in (1, 4, 7):
            store.save("ABCDE", room_data(), rolls=[{**CHECKED, "round": n} for n in range(start, start + 3)])
        assert [r["round"] for r in store.room_log("ABCDE")] == [5, 6, 7, 8, 9]
        assert [r["round"] for r in store.room_log("OTHER")] == [0]  # another room's log is its own
    store.close()
    again = SqliteStore(tmp_path / "capped.db", room_cap=5)  # a new process counts the log once
    again.save("ABCDE", room_data(), rolls=[{**CHECKED, "round": 10}])
    assert [r["round"] for r in again.room_log("ABCDE")] == [6, 7, 8, 9, 10]


def test_a_code_whose_log_is_kept_is_not_given_to_a_new_room(tmp_path, monkeypatch):
    from maxchen import rooms as registry

    store = SqliteStore(tmp_path / "rooms.db")
    store.save("AAAAA", room_data("AAAAA", tokens=()), rolls=[CHECKED])
    store.delete("AAAAA")  # the room is gone, its log is not
    letters = iter("AAAAA" + "BBBBB")
    monkeypatch.setattr(registry.secrets, "choice", lambda alphabet: next(letters))
    assert Rooms(store=store).create("Ann")["code"] == "BBBBB"


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
