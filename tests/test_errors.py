"""Every bad input gets a clear answer, never a bare 500: deep JSON, broken rooms, error pages."""

import json
import logging
import shutil

import pytest

from maxchen.classroom import Classrooms
from maxchen.errors import IllegalMove
from maxchen.fastjson import MAX_DEPTH
from maxchen.rooms import Rooms
from maxchen.server import create_app
from maxchen.store import MemoryStore, SqliteStore

from .conftest import FixedDice, SeededDice
from .test_store import make_store  # noqa: F401 - each kind of store
from .test_web import make_seat


@pytest.mark.parametrize(
    "body",
    ["[" * 5000, "[" * 5000 + "]" * 5000, '{"name": ' + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5) + "}"],
)
def test_json_nested_too_deep_is_a_bad_request(client, body, rooms):
    response = client.post("/api/rooms", data=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 400 and response.json["error"]["code"] == "bad_request"
    assert rooms.store.untouched_since(float("inf")) == []  # nothing created


def test_a_room_that_does_not_load_is_reported_once_and_explained(app, rooms, caplog):
    browser, code = make_seat(app)
    data = rooms.store.load(code)
    del data["seats"][0]["name"]  # what an old bug or a hand-edited file leaves behind
    rooms.store.save(code, data)
    with caplog.at_level(logging.ERROR, logger="maxchen.rooms"):
        for _ in range(3):
            page = browser.get(f"/r/{code}")
            assert page.status_code == 500
            html = page.get_data(as_text=True)
            assert "saved game cannot be read" in html and 'href="/"' in html
        token = app.test_client()  # the API answers the same in JSON
        api = token.post(f"/api/rooms/{code}/players", json={"name": "Ben"})
        assert api.status_code == 500 and api.json["error"]["code"] == "room_broken"
    told = [r.message for r in caplog.records if r.message.startswith(f"room {code} does not load (")]
    assert len(told) == 1 and "a field of another type" in told[0]


def _break(store, code, text, kind="room"):
    """Write `text` as the saved state of `code`, as a hand edit or a cut write leaves it."""
    if isinstance(store, MemoryStore):
        text = text.decode("utf-8", "surrogateescape") if isinstance(text, bytes) else text
        (store._rooms if kind == "room" else store._classes)[code] = text
    elif isinstance(store, SqliteStore):
        with store._lock:
            store._db.execute(
                f"UPDATE {kind}{'es' if kind == 'class' else 's'} SET data = ? WHERE code = ?", (text, code)
            )
        store._cache.pop(code, None)
    elif kind == "room":
        store._redis.set(store._key("room", code), text)
    else:
        store._redis.hset(store._key("classes"), code, text)


@pytest.mark.parametrize(
    "text",
    [
        '{"seats": [',
        "[]",
        b"\xff{",
        '{"seats": 5}',
        '{"seats": [{"name": "Ann"}], "phase": "lobby"}',
        '{"seats": [], "phase": 7, "rules": null}',
        {"version": "x"},  # JSON of a room, a field of another type: it failed later, a bare 500
        {"touched": None},
        {"seats": [{"id": "p1", "name": 5, "token_hash": None}]},
    ],
)
def test_a_room_whose_saved_text_is_no_json_object_harms_nothing_else(make_store, text, caplog):  # noqa: F811
    """A row cut short, a list, bytes that are no text: that room answers `room_broken` on its page, board,
    statistics, CSV and API; the browser holding a seat there still has its home page, its other room, new
    rooms and joins; the sweep and the start's wake pass it by (one line in the log) and do the rest."""
    now = [1000.0]
    rooms = Rooms(store=make_store(), dice=FixedDice(), clock=lambda: now[0])
    app = create_app({"TESTING": True, "ROOMS": rooms, "SECRET_KEY": "test"})
    browser, broken = make_seat(app)
    _, other = make_seat(app, name="Ben")
    browser.post(f"/r/{other}/join", data={"name": "Ann"})  # Ann's second seat, in Ben's room
    idle = rooms.create("Cem")["code"]
    dan = rooms.join(broken, "Dan")
    teacher = app.extensions["maxchen.classes"].create()
    if isinstance(text, dict):  # the room's own JSON with one field changed
        text = json.dumps({**rooms.store.load(broken), **text})
    _break(rooms.store, broken, text)
    _break(rooms.store, teacher["code"], text, kind="class")
    with caplog.at_level(logging.ERROR):
        for path in (f"/r/{broken}", f"/r/{broken}/board", f"/r/{broken}/stats", f"/r/{broken}/stats.csv"):
            page = browser.get(path)
            assert page.status_code == 500 and "saved game cannot be read" in page.get_data(as_text=True), path
        api = app.test_client().post(f"/api/rooms/{broken}/players", json={"name": "Dan"})
        assert api.status_code == 500 and api.json["error"]["code"] == "room_broken"
        # A seat's own token hears that its room is broken, not that the token is wrong.
        own = app.test_client().get(f"/api/rooms/{broken}", headers={"Authorization": f"Bearer {dan['token']}"})
        assert own.status_code == 500 and own.json["error"]["code"] == "room_broken"
        desk = app.test_client().get(f"/c/{teacher['code']}")
        assert desk.status_code == 500 and "saved state cannot be read" in desk.get_data(as_text=True)
    home = browser.get("/")
    assert home.status_code == 200 and f'href="/r/{other}"' in home.get_data(as_text=True)
    assert browser.get(f"/r/{other}").status_code == 200
    assert browser.post("/rooms", data={"name": "Ann"}).status_code == 303
    fresh = rooms.create("Eve")["code"]
    assert browser.post("/join", data={"code": fresh, "name": "Ann"}).status_code == 303
    rooms.wake()
    now[0] += 7 * 24 * 3600
    assert idle in rooms.sweep() and broken not in rooms.sweep()
    app.extensions["maxchen.classes"].sweep()
    assert f"sweep: room {broken} left as it is" in caplog.text
    told = [r for r in caplog.records if r.message.startswith(f"room {broken} does not load (")]
    assert len(told) == 1 and told[0].exc_info is None  # one line, no traceback


@pytest.mark.parametrize(
    "change",
    [
        {"game": {"history": "x"}},
        {"game": {"reveal": "x"}},
        {"game": {"round": "x"}},
        {"game": {"tally": []}},
        {"game": {}},
        {"counts": "x"},
        {"results": "x"},
        {"places": 5},
        {"ends_at": "soon"},
        {"counts": {"hunt": {"6": "x"}}},
        {"counts": {"hunt": [1, 2]}},
        {"counts": {"hunt": {"6": -5, "1": 3}}},
        {"hunt_from": "2"},
        {"closing": "time"},
        {"loaded": {"six": "1/4", "game": 1, "revealed": "no"}},
        {"hunting": "yes"},
    ],
)
def test_a_saved_game_whose_insides_have_other_types_reads_as_room_broken(tmp_path, change, caplog):
    """A hand-edited row deep inside a running game: its pages, the API's views, moves and join either work or
    say `room_broken` (never a bare 500), a refused move changes nothing, and the log has one line."""
    rooms = Rooms(store=SqliteStore(tmp_path / "maxchen.db"), dice=SeededDice(1))
    ann = rooms.create("Ann")
    code = ann["code"]
    ben = rooms.join(code, "Ben")
    rooms.act(code, ann["player"], {"action": "start"})
    data = rooms.store.load(code)
    data.update({key: {**data[key], **value} if key == "game" and value else value for key, value in change.items()})
    _break(rooms.store, code, json.dumps(data))
    rooms = Rooms(store=SqliteStore(tmp_path / "maxchen.db"), dice=SeededDice(1))  # the server started again
    app = create_app({"TESTING": True, "ROOMS": rooms, "SECRET_KEY": "test"})
    api = app.test_client()

    def broken(answer):
        return answer.status_code == 500 and answer.json["error"]["code"] == "room_broken"

    with caplog.at_level(logging.ERROR):
        for path in (f"/r/{code}", f"/r/{code}/board", f"/r/{code}/stats"):
            page = api.get(path)
            assert page.status_code == 200 or "saved game cannot be read" in page.get_data(as_text=True), path
        for seat, move in ((ann, {"action": "shake"}), (ann, {"action": "announce", "value": 31}), (ben, {})):
            bearer = {"Authorization": f"Bearer {seat['token']}"}
            view = api.get(f"/api/rooms/{code}", headers=bearer)
            assert view.status_code == 200 or broken(view)
            row = rooms.store._db.execute("SELECT data FROM rooms WHERE code = ?", (code,)).fetchone()
            answer = api.post(f"/api/rooms/{code}/actions", json={"action": "check", **move}, headers=bearer)
            assert answer.status_code in (200, 409) or broken(answer), answer.json
            if broken(answer):  # refused whole
                assert rooms.store._db.execute("SELECT data FROM rooms WHERE code = ?", (code,)).fetchone() == row
        join = api.post(f"/api/rooms/{code}/players", json={"name": "Cem"})
        assert join.status_code == 201 or broken(join)
    told = [r for r in caplog.records if r.message.startswith(f"room {code} does not load (")]
    assert len(told) == 1 and told[0].exc_info is None


def test_a_row_saved_under_another_rooms_code_never_writes_over_that_room(tmp_path):
    """Room X's row that names room Y (a hand edit, a copied row): X reads `room_broken`, and a join to X
    is never saved over Y."""
    rooms = Rooms(store=SqliteStore(tmp_path / "maxchen.db"), dice=FixedDice())
    x, y = rooms.create("Ann")["code"], rooms.create("Cat")["code"]
    rooms.join(y, "Dan")
    _break(rooms.store, x, json.dumps({**rooms.store.load(x), "code": y}))
    with pytest.raises(IllegalMove) as refused:
        rooms.join(x, "Eve")
    assert refused.value.reason == "room_broken"
    assert [seat.name for seat in rooms.load(y).seats] == ["Cat", "Dan"]


@pytest.mark.parametrize(
    "change",
    [
        {"students": [{"id": 5}]},
        {"teacher": 7},
        {"tables": [None]},
        {"options": []},
        {"code": "OTHER1"},
        {"version": "1"},
        {"rules": "chess"},
        {"loaded": "x"},
        {"loaded": {}},
        {"loaded": {"table": "ABCDE", "six": 0.5, "revealed": False}},
        {"paused_at": "x"},
        {"ends_at": "soon"},
        {"seated": "yes"},
    ],
)
def test_a_class_whose_fields_have_other_types_reads_as_class_broken(tmp_path, change):
    """A class row edited by hand: the desk, the class page and a student's join say `class_broken`."""
    rooms = Rooms(store=SqliteStore(tmp_path / "maxchen.db"), dice=FixedDice())
    app = create_app({"TESTING": True, "ROOMS": rooms, "SECRET_KEY": "test"})
    classes = app.extensions["maxchen.classes"]
    teacher = classes.create()
    code = teacher["code"]
    classes.join(code, "Ann")
    _break(rooms.store, code, json.dumps({**rooms.store.load_class(code), **change}), kind="class")
    client = app.test_client()
    desk = client.get(f"/c/{code}")
    assert desk.status_code == 500 and "saved state cannot be read" in desk.get_data(as_text=True)
    join = client.post(f"/api/classes/{code}/students", json={"name": "Ben"})
    assert join.status_code == 500 and join.json["error"]["code"] == "room_broken"
    assert join.json["error"]["reason"] == "class_broken"


def test_http_errors_are_pages_with_a_way_home(client):
    response = client.get("/rooms")  # a form's address, opened by hand
    assert response.status_code == 405
    html = response.get_data(as_text=True)
    assert "opened through its form" in html and "Error 405" in html and 'class="button primary" href="/"' in html
    assert "Content-Security-Policy" in response.headers
    german = client.get("/rooms", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "Das hat nicht geklappt" in german and "Method Not Allowed" not in german
    lost = client.get("/no/such/page").get_data(as_text=True)
    assert "There is no such page." in lost and "No such room" not in lost


def test_the_health_check_says_the_stores_state_and_no_secret(make_store, monkeypatch):  # noqa: F811
    """GET /healthz: 200 while the store answers, 503 when it does not; the store's kind and this process's
    sockets, never a path, a URL or a key."""
    rooms = Rooms(store=make_store(), dice=FixedDice())
    app = create_app({"TESTING": True, "ROOMS": rooms, "SECRET_KEY": "a-secret-key"})
    client = app.test_client()
    answer = client.get("/healthz")
    assert answer.status_code == 200 and answer.headers["Cache-Control"] == "no-store"
    assert answer.json == {"status": "ok", "store": rooms.store.KIND, "sockets": 0}

    def away():
        raise ConnectionError("Error 111 connecting to redis://:hunter2@127.0.0.1:6379")

    monkeypatch.setattr(rooms.store, "ping", away)
    down = client.get("/healthz")
    assert down.status_code == 503 and down.json["status"] == "store_down"
    assert "hunter2" not in down.get_data(as_text=True) and "a-secret-key" not in down.get_data(as_text=True)


def test_a_class_whose_tables_name_another_rooms_code_reads_as_class_broken(tmp_path):
    """A class row that lists a room of nobody's class (or of another class) among its tables: the class is
    broken, and that room's players are never seated over, started or shown on the class's board."""
    rooms = Rooms(store=SqliteStore(tmp_path / "maxchen.db"), dice=FixedDice())
    xavier = rooms.create("Xavier")
    rooms.join(xavier["code"], "Yara")
    classes = Classrooms(rooms)
    code = classes.create()["code"]
    _break(rooms.store, code, json.dumps({**rooms.store.load_class(code), "tables": [xavier["code"]]}), kind="class")
    classes = Classrooms(Rooms(store=SqliteStore(tmp_path / "maxchen.db"), dice=FixedDice()))  # started again
    with pytest.raises(IllegalMove) as refused:
        classes.join(code, "Eve")
    assert refused.value.reason == "class_broken"
    assert [seat.name for seat in rooms.load(xavier["code"]).seats] == ["Xavier", "Yara"]
    assert rooms.load(xavier["code"]).phase == "lobby"


def test_the_health_check_says_store_down_when_the_disk_of_the_database_is_full(tmp_path, monkeypatch):
    """Reads still work on a full disk, but every change is refused: the health check says so (503)."""
    rooms = Rooms(store=SqliteStore(tmp_path / "maxchen.db"), dice=FixedDice())
    client = create_app({"TESTING": True, "ROOMS": rooms, "SECRET_KEY": "test"}).test_client()
    assert client.get("/healthz").status_code == 200
    full = shutil.disk_usage(tmp_path)._replace(free=4096)
    monkeypatch.setattr(shutil, "disk_usage", lambda path: full)
    answer = client.get("/healthz")
    assert answer.status_code == 503 and answer.json["status"] == "store_down"


def test_a_full_disk_refuses_a_change_as_store_down_and_loses_nothing_saved(tmp_path):
    """SQLite's file cannot grow (a full disk; here its page limit): a change is refused with `store_down`
    (503), not a bare 500 behind "cannot rollback - no transaction is active"; what was saved stays."""
    rooms = Rooms(store=SqliteStore(tmp_path / "maxchen.db"), dice=FixedDice())
    app = create_app({"TESTING": True, "ROOMS": rooms, "SECRET_KEY": "test"})
    client = app.test_client()
    ann = client.post("/api/rooms", json={"name": "Ann"}).json
    codes = [rooms.create(f"Host {n}")["code"] for n in range(20)]
    pages = rooms.store._db.execute("PRAGMA page_count").fetchone()[0]
    rooms.store._db.execute(f"PRAGMA max_page_count = {pages}")
    answers = []
    for code in codes * 9:  # joins until a room's page overflows the file
        answers.append(client.post(f"/api/rooms/{code}/players", json={"name": f"P{len(answers)}"}))
        if answers[-1].status_code != 201:
            break
    assert answers[-1].status_code == 503, answers[-1].get_data(as_text=True)
    assert answers[-1].json["error"]["reason"] == "store_down"
    mine = client.get(f"/api/rooms/{ann['code']}", headers={"Authorization": f"Bearer {ann['token']}"})
    assert mine.status_code == 200 and mine.json["players"][0]["name"] == "Ann"
    joined = sum(answer.status_code == 201 for answer in answers)
    assert sum(len(rooms.load(code).members()) - 1 for code in codes) == joined  # every answered join kept
