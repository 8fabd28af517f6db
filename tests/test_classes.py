"""A class over HTTP and Socket.IO: the teacher's desk, students finding their tables, the class board."""

import csv
import io
import json
import random
import re

import pytest

from maxchen.errors import IllegalMove
from maxchen.live import WATCHERS_PER_CLASS, ClassLive
from maxchen.rulesets import REGISTRY, RULESETS
from maxchen.server import socketio

from .conftest import SeededDice, wait_until
from .test_live import closed_salts, opened_salts, public_dice, some_move

FACE = re.compile(r'class="die face-(\d)"')
HTMX = {"HX-Request": "true"}


@pytest.fixture
def classes(app):
    return app.extensions["maxchen.classes"]


@pytest.fixture(autouse=True)
def quick_boards(monkeypatch):
    monkeypatch.setattr(ClassLive, "DELAY", 0.01)  # the board is drawn at once after a change


def received(client, event) -> list:
    return [m["args"][0] for m in client.get_received() if m["name"] == event]


def test_a_teacher_seats_the_class_and_every_student_finds_their_table(app, classes, dice):
    teacher = app.test_client()
    made = teacher.post("/classes", data={"rules": "poschen", "size": "4"})
    assert made.status_code == 303
    code = made.headers["Location"].rsplit("/", 1)[1]
    desk = teacher.get(f"/c/{code}").get_data(as_text=True)
    assert code in desk and "<svg" in desk and "Nobody has joined yet." in desk

    students = {}
    for name in ("Ann", "Ben", "Cem", "Dora", "Eli", "Fay", "Gus", "Hana"):
        browser = app.test_client()
        assert browser.post(f"/c/{code.lower()}/join", data={"name": name}).status_code == 303
        page = browser.get(f"/c/{code}")
        assert page.status_code == 200 and f"You are in, <bdi>{name}</bdi>!" in page.get_data(as_text=True)
        students[name] = browser
    # Ann's waiting page listens; it hears when she has a table.
    ann_page = socketio.test_client(app, auth={"class": code}, flask_test_client=students["Ann"])
    assert received(ann_page, "class") == [{"seated": []}]
    # Only the teacher acts on the class.
    assert students["Ann"].post(f"/c/{code}/act", data={"action": "seat"}, headers=HTMX).status_code == 403
    assert "Seat the class" in teacher.get(f"/c/{code}/roster").get_data(as_text=True)
    roster = teacher.post(f"/c/{code}/act", data={"action": "seat"}, headers=HTMX).get_data(as_text=True)
    assert "Table 1" in roster and "Table 2" in roster and "Table 3" not in roster
    (told,) = received(ann_page, "class")
    assert len(told["seated"]) == 8

    # Each student's class page now leads to their table, where they hold a seat.
    tables = {}
    for name, browser in students.items():
        answer = browser.get(f"/c/{code}")
        assert answer.status_code == 303
        table = answer.headers["Location"].rsplit("/", 1)[1]
        room = browser.get(f"/r/{table}").get_data(as_text=True)
        assert 'id="controls"' in room
        tables.setdefault(table, []).append(name)
    assert sorted(map(len, tables.values())) == [4, 4]

    # The teacher moves Ann to the other table: her old table's page sends her on, via the class.
    first = next(t for t, names in tables.items() if "Ann" in names)
    other = next(t for t in tables if t != first)
    ann = next(s for s in classes.overview(code)["roster"] if s["name"] == "Ann")
    move = {"action": "move", "student": ann["id"], "table": other}
    assert "Table 2" in teacher.post(f"/c/{code}/act", data=move, headers=HTMX).get_data(as_text=True)
    back = students["Ann"].get(f"/r/{first}")
    assert back.status_code == 303 and back.headers["Location"].endswith(f"/c/{code}")
    assert students["Ann"].get(f"/c/{code}").headers["Location"].endswith(f"/r/{other}")

    # Start every table: both play, and the desk is told a table changed (it asks for its roster again).
    desk = socketio.test_client(app, auth={"class": code}, flask_test_client=teacher)
    desk.get_received()
    teacher.post(f"/c/{code}/act", data={"action": "start"}, headers=HTMX)
    assert [t.phase for t in classes.overview(code)["tables"]] == ["playing", "playing"]
    assert wait_until(lambda: any(m["name"] == "tables" for m in desk.get_received()), 5)
    table = classes.overview(code)["tables"][0]
    dice.add((3, 1))
    app.extensions["maxchen.rooms"].act(table.code, table.host, {"action": "shake"})  # a move at a table
    assert wait_until(lambda: any(m["name"] == "tables" for m in desk.get_received()), 5)


def test_bad_input_on_a_class_is_refused_and_changes_nothing(app, classes):
    teacher = app.test_client()
    code = teacher.post("/classes", data={"rules": "maexchen", "size": "5"}).headers["Location"].rsplit("/", 1)[1]
    before = classes.load(code)
    assert teacher.post("/classes", data={"size": "9"}).status_code == 400  # a table of 9: no class made
    assert teacher.get("/c/ZZZZZZ").status_code == 404
    assert teacher.get("/c/ABCDE").status_code == 404
    assert teacher.get("/c/ZZZZZZ/board").status_code == 404
    stranger = app.test_client()
    assert stranger.get(f"/c/{code}/roster").status_code == 403
    page = stranger.post(f"/c/{code}/join", data={"name": "\x07"})
    assert page.status_code == 400 and "control characters" in page.get_data(as_text=True)
    for fields, says in [
        ({"action": "seat"}, "Nobody is waiting for a table."),
        ({"action": "start"}, "No table can start now"),
        ({"action": "move", "student": "nobody", "table": "new"}, "There is no such student in this class."),
        ({"action": "configure", "size": "x"}, "A table seats 4 to 6 students."),
        ({"action": "configure", "rules": "chess"}, "Unknown rule set"),
        ({"action": "close", "closed": "yes"}, "closed must be true or false."),  # not read as "open it"
        ({"action": "load", "table": "ZZZZZ", "six": "1/4"}, "There is no such table in this class."),
        ({"action": "reveal"}, "No table&#39;s dice are loaded."),
    ]:
        answer = teacher.post(f"/c/{code}/act", data=fields, headers=HTMX)
        assert answer.headers.get("X-Maxchen-Toast") and says in answer.get_data(as_text=True), fields
    assert classes.load(code) == before
    assert not socketio.test_client(app, auth={"class": "ZZZZZZ", "watch": True}).is_connected()
    # A class's code typed on the home page's join form leads to the class.
    typed = stranger.post("/join", data={"code": code.lower(), "name": "Zoe"})
    assert typed.status_code == 307 and typed.headers["Location"].endswith(f"/c/{code}/join")


def test_the_class_board_shows_every_table_live_and_never_a_hidden_die(app, classes, rooms, dice):
    made = classes.create("maexchen", 4)
    code = made["code"]
    for name in ("Ann", "Ben", "Cem", "Dora", "Eli", "Fay", "Gus", "Hana"):
        classes.join(code, name)
    board = socketio.test_client(app, auth={"class": code, "watch": True})
    (welcome,) = received(board, "parts")
    assert "students are here" in welcome["html"] and welcome["reset"]
    classes.act(code, made["token"], {"action": "seat"})
    classes.act(code, made["token"], {"action": "start"})
    one, two = classes.overview(code)["tables"]
    seats = {t.code: [s.id for s in t.members()] for t in (one, two)}
    html = app.test_client().get(f"/c/{code}/board").get_data(as_text=True)
    assert html.count('class="class-table"') == 2 and 'id="controls"' not in html and "cup-view" not in html
    assert wait_until(lambda: "Table 2" in pushed_now(board), 5)  # the board follows the seating

    # Table 1: a roll passed on unseen, then a check shows the second one.
    dice.add((6, 3), (5, 4))
    a, b, c, _ = seats[one.code]
    rooms.act(one.code, a, {"action": "shake"})
    rooms.act(one.code, a, {"action": "announce", "value": 63})
    rooms.act(one.code, b, {"action": "believe"})
    page = app.test_client().get(f"/c/{code}/board").get_data(as_text=True)
    assert FACE.findall(page) == []
    rooms.act(one.code, b, {"action": "shake"})
    rooms.act(one.code, b, {"action": "announce", "value": 65})
    seen = []
    rooms.act(one.code, c, {"action": "check"})
    assert wait_until(lambda: seen.append(pushed_now(board)) or "face-5" in "".join(seen), 10)
    shown = "".join(seen)
    assert "face-6" not in shown and "face-3" not in shown  # Ann's believed 6-3 never
    # Table 2: a check too; the class's statistics pool both tables' shown rolls.
    dice.add((2, 1))
    d, e, _, _ = seats[two.code]
    rooms.act(two.code, d, {"action": "shake"})
    rooms.act(two.code, d, {"action": "announce", "value": 21})
    rooms.act(two.code, e, {"action": "check"})
    stats = classes.pooled(classes.overview(code)["tables"])
    assert stats["checked_values"]["total"] == 2 and stats["checks"] == 2 and stats["values"] is None
    page = app.test_client().get(f"/c/{code}/board").get_data(as_text=True)
    assert "Statistics of the class" in page and "2 checked cups" in page and "No game is over yet" in page
    assert f'href="/c/{code}/stats.csv"' in page and f'href="/r/{code}/stats"' not in page


def pushed_now(client) -> str:
    return "".join(m["args"][0]["html"] for m in client.get_received() if m["name"] == "parts")


def test_the_class_csv_has_every_tables_shown_rolls_and_names_only_for_the_teacher(app, classes, rooms, dice):
    teacher = app.test_client()
    code = teacher.post("/classes", data={"rules": "maexchen", "size": "4"}).headers["Location"].rsplit("/", 1)[1]
    for name in ("Ann", "Ben", "Cem", "Dora", "=cmd()", "Fay", "Gus", "Hana"):
        classes.join(code, name)
    teacher.post(f"/c/{code}/act", data={"action": "seat"}, headers=HTMX)
    teacher.post(f"/c/{code}/act", data={"action": "start"}, headers=HTMX)
    one, two = classes.overview(code)["tables"]
    dice.add((6, 3), (5, 4), (2, 1))
    a, b, c, _ = [s.id for s in one.members()]
    rooms.act(one.code, a, {"action": "shake"})
    rooms.act(one.code, a, {"action": "announce", "value": 63})
    rooms.act(one.code, b, {"action": "believe"})  # Ann's 6-3 passes on unseen: not the class's yet
    rooms.act(one.code, b, {"action": "shake"})
    rooms.act(one.code, b, {"action": "announce", "value": 65})
    rooms.act(one.code, c, {"action": "check"})
    e, f, _, _ = [s.id for s in two.members()]
    rooms.act(two.code, e, {"action": "shake"})
    rooms.act(two.code, e, {"action": "announce", "value": 21})
    rooms.act(two.code, f, {"action": "check"})

    stranger = app.test_client()
    rows = stranger.get(f"/c/{code}/stats.csv").get_data(as_text=True).lstrip("\ufeff").splitlines()
    assert rows[0].startswith("table,game,round,")
    assert [(r.split(",")[0], r.split(",")[6]) for r in rows[1:]] == [("1", "5 4"), ("2", "2 1")]
    assert all(re.fullmatch(r"P\d+", row.split(",")[5]) for row in rows[1:])  # labels, no names
    assert not any(name in "".join(rows) for name in ("Ann", "Ben", "Cem", "Eli", "cmd"))
    assert stranger.get(f"/c/{code}/stats.csv?names=1").status_code == 403
    named = teacher.get(f"/c/{code}/stats.csv?names=1")
    assert named.headers["Content-Disposition"] == f'attachment; filename="maxchen-{code}-names.csv"'
    text = named.get_data(as_text=True)
    assert "Ben" in text and "'=cmd()" in text  # a name that is a formula stays text in a spreadsheet


def test_a_table_keeps_its_number_when_another_empties(classes):
    made = classes.create("maexchen", 4)
    code, teacher = made["code"], made["token"]
    for name in ("Ann", "Ben", "Cem", "Dora", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jule", "Kai", "Lea"):
        classes.join(code, name)
    classes.act(code, teacher, {"action": "seat"})
    view = classes.overview(code)
    first, second, third = view["tables"]
    for student in [s for s in view["roster"] if s["table"] == 2]:
        classes.act(code, teacher, {"action": "move", "student": student["id"], "table": third.code})
    view = classes.overview(code)
    assert [view["numbers"][t.code] for t in view["tables"]] == [1, 3]  # table 3 is still table 3
    assert {s["table"] for s in view["roster"]} == {1, 3}


def test_a_class_table_seats_only_the_class_and_its_host_leaves_the_game_to_the_teacher(app, classes, rooms):
    made = classes.create("maexchen", 4)
    code, teacher = made["code"], made["token"]
    tokens = {name: classes.join(code, name)["token"] for name in ("Ann", "Ben", "Cem", "Dora")}
    classes.act(code, teacher, {"action": "seat"})
    (table,) = classes.overview(code)["tables"]
    # An outsider who reads the table's code on the class board cannot sit down there.
    outsider = app.test_client()
    page = outsider.get(f"/r/{table.code}")
    assert page.status_code == 303 and page.headers["Location"].endswith(f"/c/{code}")
    api = outsider.post(f"/api/rooms/{table.code}/players", json={"name": "Eve"})
    assert api.status_code == 409 and api.json["error"]["reason"] == "class_table"
    # Ann hosts the table, but the game and the people are the teacher's: she starts nothing, adds no
    # bot, moves and removes nobody, and is offered none of it.
    ann = rooms.authenticate(table.code, tokens["Ann"])
    ben = rooms.authenticate(table.code, tokens["Ben"])
    ben_page = socketio.test_client(app, auth={"token": tokens["Ben"]})
    before = rooms.load(table.code).to_dict()
    for payload in (
        {"action": "start"},
        {"action": "add_bot", "strategy": "honest"},
        {"action": "seat", "player": ben, "seat": 0},
        {"action": "configure", "options": {"rules": "luegen"}},
        {"action": "remove", "player": ben},
    ):
        with pytest.raises(IllegalMove, match="class_decides"):
            rooms.act(table.code, ann, payload)
    assert rooms.load(table.code).to_dict() == before
    mine = rooms.load(table.code).private_for(ann)
    assert mine["host"] and not mine["decides"] and mine["allowed"] == [] and mine["options"] is None
    assert rooms.view(table.code, ann)["allowed"] == []
    ben_page.disconnect()
    with pytest.raises(IllegalMove, match="class_decides"):  # gone before a game: the teacher reseats
        rooms.act(table.code, ann, {"action": "remove", "player": ben})
    classes.act(code, teacher, {"action": "configure", "options": {"rules": "poschen"}})
    assert rooms.load(table.code).rules == "poschen"
    classes.act(code, teacher, {"action": "start"})
    assert rooms.load(table.code).phase == "playing"
    rooms.offline_grace = 0  # the grace before a removal: tests/test_rooms.py
    rooms.act(table.code, ann, {"action": "remove", "player": ben})  # gone mid-game: the game must go on
    assert rooms.load(table.code).seat(ben) is None
    # The names of a class's table are the teacher's: not even its host gets them from the table.
    host = app.test_client()
    with host.session_transaction() as session:
        session["seats"] = [[table.code, tokens["Ann"]]]
    assert host.get(f"/r/{table.code}/stats.csv?names=1").status_code == 403


def test_strangers_fill_at_most_the_boards_places_and_never_keep_the_class_out(app, classes):
    teacher = app.test_client()
    code = teacher.post("/classes", data={"rules": "maexchen", "size": "4"}).headers["Location"].rsplit("/", 1)[1]
    student = app.test_client()
    student.post(f"/c/{code}/join", data={"name": "Ann"})
    boards = [socketio.test_client(app, auth={"class": code, "watch": True}) for _ in range(WATCHERS_PER_CLASS)]
    assert all(board.is_connected() for board in boards)
    extra = socketio.test_client(app, auth={"class": code, "watch": True})
    assert not extra.is_connected()
    for browser in (teacher, student):  # the class's own pages always get in
        assert socketio.test_client(app, auth={"class": code}, flask_test_client=browser).is_connected()
    assert socketio.test_client(app, auth={"class": code, "watch": True}, flask_test_client=teacher).is_connected()


def test_one_address_joins_a_class_only_so_fast(app, classes, steady_limits):
    app.config["MAXCHEN_LIMIT_CLASS_JOINS"] = "3 per minute"
    code = classes.create()["code"]
    answers = [app.test_client().post(f"/api/classes/{code}/students", json={"name": f"Fake{i}"}) for i in range(4)]
    assert [a.status_code for a in answers] == [201, 201, 201, 429]
    assert app.test_client().post(f"/c/{code}/join", data={"name": "Eve"}).status_code == 429  # the form too
    assert len(classes.load(code)["students"]) == 3


def test_the_board_page_takes_the_last_drawing_until_the_class_changes(app, classes, monkeypatch):
    from maxchen import live

    made = classes.create()
    code = made["code"]
    classes.join(code, "Ann")
    board = socketio.test_client(app, auth={"class": code, "watch": True, "lang": "en"})
    assert received(board, "parts")
    drawn = []
    real = live.class_parts
    monkeypatch.setattr(live, "class_parts", lambda *args: drawn.append(args) or real(*args))
    page = app.test_client().get(f"/c/{code}/board", headers={"Accept-Language": "en"})
    assert page.status_code == 200 and "1 student is here" in page.get_data(as_text=True)
    assert drawn == []  # nothing changed since the board's socket got it
    classes.join(code, "Ben")
    assert wait_until(lambda: received(board, "parts"), 5)
    drawn.clear()
    page = app.test_client().get(f"/c/{code}/board", headers={"Accept-Language": "en"})
    assert "2 students are here" in page.get_data(as_text=True) and drawn == []  # the new drawing


def test_the_class_board_draws_each_table_in_its_own_game(app, classes, rooms, dice):
    """A table still playing Mäxchen after the teacher chose Lügen for the class shows its Mäxchen check."""
    made = classes.create("maexchen", 4)
    code, teacher = made["code"], made["token"]
    for name in ("Ann", "Ben", "Cem", "Dora", "Eli", "Fay", "Gus", "Hana"):
        classes.join(code, name)
    classes.act(code, teacher, {"action": "seat"})
    one, two = classes.overview(code)["tables"]
    rooms.act(one.code, one.host, {"action": "start"}, teacher=True)  # one table alone, started for the teacher
    dice.add((2, 1))
    a, b = [s.id for s in one.members()][:2]
    rooms.act(one.code, a, {"action": "shake"})
    rooms.act(one.code, a, {"action": "announce", "value": 21})
    rooms.act(one.code, b, {"action": "check"})
    classes.act(code, teacher, {"action": "configure", "options": {"rules": "luegen"}})
    assert (rooms.load(one.code).rules, rooms.load(two.code).rules) == ("maexchen", "luegen")
    page = app.test_client().get(f"/c/{code}/board")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "Mäxchen" in html[html.index('class="class-reveal"') :]  # its own game's word for 21


def test_a_removed_student_is_told_so_at_the_class_and_a_class_tables_phone_shows_no_room_code(app, classes):
    teacher = app.test_client()
    code = teacher.post("/classes", data={"rules": "maexchen", "size": "4"}).headers["Location"].rsplit("/", 1)[1]
    ann, ben = app.test_client(), app.test_client()
    ann.post(f"/c/{code}/join", data={"name": "Ann"})
    ben.post(f"/c/{code}/join", data={"name": "Ben"})
    teacher.post(f"/c/{code}/act", data={"action": "seat"}, headers=HTMX)
    table = ann.get(f"/c/{code}").headers["Location"].rsplit("/", 1)[1]
    room = ann.get(f"/r/{table}").get_data(as_text=True)
    assert 'class="share"' not in room and 'id="join-link"' not in room  # newcomers come through the class
    roster = teacher.get(f"/c/{code}/roster").get_data(as_text=True)
    assert "Mäxchen needs 2 players" not in roster
    student = next(s for s in classes.overview(code)["roster"] if s["name"] == "Ann")
    roster = teacher.post(f"/c/{code}/act", data={"action": "remove", "student": student["id"]}, headers=HTMX)
    assert "Mäxchen needs 2 players: 1 more." in roster.get_data(as_text=True)  # Ben's table is short now
    gone = ann.get(f"/r/{table}?gone=removed")
    assert gone.headers["Location"].endswith(f"/c/{code}?gone=removed")
    page = ann.get(f"/c/{code}?gone=removed").get_data(as_text=True)
    assert "You are no longer in this class." in page and "Join the class" in page


def revealed(public, seen: dict) -> list:
    """Every cup the table has seen opened so far (`seen` by reveal round), the reveal of `public` added."""
    reveal = public.get("reveal")
    if reveal and reveal.get("dice"):  # an accepted 21 opens no cup
        dice = reveal["dice"]
        seen[(reveal["round"], json.dumps(dice))] = list(dice.values()) if isinstance(dice, dict) else [dice]
    return [cup for cups in seen.values() for cup in cups]


@pytest.mark.parametrize("rules", sorted(RULESETS))
def test_the_class_board_never_holds_a_hidden_die_or_salt_in_any_phase(app, classes, rooms, rules):
    """A whole game at a class's table, the class board drawn after every move (page and pushes)."""
    rooms.dice = SeededDice(3)
    rng = random.Random(3)
    app.config["MAXCHEN_LIMIT_PAGES"] = "100000 per second"  # the board is asked for after every move
    made = classes.create(rules, 4)
    code = made["code"]
    for name in ("Ann", "Ben", "Cem", "Dora"):
        classes.join(code, name)
    classes.act(code, made["token"], {"action": "seat"})
    classes.act(code, made["token"], {"action": "start"})
    (table,) = classes.overview(code)["tables"]
    seats = [{"player": s.id} for s in table.members()]
    board = socketio.test_client(app, auth={"class": code, "watch": True})
    drawn, opened, pushed, seen = set(), set(), [], {}
    for _ in range(600):
        room = rooms.load(table.code)
        public = room.public_view(rooms.connected(room.code))
        drawn |= closed_salts(room.game)
        opened |= opened_salts(public)
        html = app.test_client().get(f"/c/{code}/board").get_data(as_text=True)
        section = html[html.index(f'data-table="{table.code}"') : html.index('id="stats"')]
        shown_again = (
            len(FACE.findall(section[section.index('class="class-reveal"') :])) if "class-reveal" in section else 0
        )
        assert len(FACE.findall(section)) - shown_again == public_dice(public), section
        pushed += [m["args"][0]["html"] for m in board.get_received() if m["name"] == "parts"]
        numbers = app.test_client().get(f"/api/classes/{code}/stats").get_json()
        if room.phase == "playing":  # no game is over: nothing tested yet, and only the cups the table saw
            assert numbers["dice"] == {"values": None, "faces": None}
            checked = sum((sample or {"total": 0})["total"] for sample in numbers["checked_cups"].values())
            faces = REGISTRY[rules].dice == "faces"  # every die counts, or the value of a two-dice cup
            assert checked == sum(len(cup) if faces else 1 for cup in revealed(public, seen))
        assert not any(salt in text for salt in drawn - opened for text in [html, *pushed, json.dumps(numbers)])
        if room.phase != "playing":
            break
        rooms.act(room.code, *some_move(rooms, room.code, seats, rng))
    assert rooms.load(table.code).phase == "over"


def test_the_hunt_from_the_desk_the_board_finds_it_and_the_reveal_tells_everyone(monkeypatch):
    from maxchen.rooms import Rooms
    from maxchen.server import create_app

    from .test_classroom import play_out

    app = create_app({"TESTING": True, "ROOMS": Rooms(dice=SeededDice(4)), "SECRET_KEY": "test"})
    classes = app.extensions["maxchen.classes"]
    teacher, stranger = app.test_client(), app.test_client()
    code = teacher.post("/classes", data={"rules": "maexchen", "size": "4"}).headers["Location"].rsplit("/", 1)[1]
    students = {}
    for name in ("Ann", "Ben", "Cem", "Dora", "Eli", "Fay", "Gus", "Hana"):
        students[name] = app.test_client()
        students[name].post(f"/c/{code}/join", data={"name": name})
    teacher.post(f"/c/{code}/act", data={"action": "seat"}, headers=HTMX)
    one, two = classes.overview(code)["tables"]
    at_two = next(n for n in students if n in {s.name for s in two.members()})
    two_page = students[at_two].get(f"/c/{code}").headers["Location"]

    # Only the teacher loads; a bad share is refused in words and loads nothing.
    load = {"action": "load", "table": two.code, "six": "1/2"}
    assert students["Ann"].post(f"/c/{code}/act", data=load, headers=HTMX).status_code == 403
    bad = teacher.post(f"/c/{code}/act", data={**load, "six": "9/10"}, headers=HTMX)
    assert "Choose how often a loaded die shows a six: 1/4, 1/3, 1/2." in bad.get_data(as_text=True)
    assert classes.load(code)["loaded"] is None
    desk = " ".join(teacher.post(f"/c/{code}/act", data=load, headers=HTMX).get_data(as_text=True).split())
    assert "Table 2's dice are loaded: a six 1 time in 2. Only you know." in desk
    assert 'data-action="reveal"' in desk and 'data-action="load"' not in desk
    teacher.post(f"/c/{code}/act", data={"action": "start"}, headers=HTMX)
    rng = random.Random(5)
    for table in (one, two):
        play_out(classes.rooms, table.code, rng)

    # The board hunts: it knows the loading, not the table; table 2's dice stand out.
    board = stranger.get(f"/c/{code}/board?show=hunt").get_data(as_text=True)
    assert "Which table's dice are loaded?" in board and "Which one?" in board
    assert "It was table" not in board and 'class="loaded"' not in board
    rows = dict(re.findall(r'<tr data-table="(\d)" data-verdict="(\w+)"', board))
    assert rows == {"1": "no_sign", "2": "loaded"}  # one seeded lesson: found
    assert "The dice at this table are loaded" not in students[at_two].get(two_page).get_data(as_text=True)
    csv_rows = list(csv.DictReader(io.StringIO(stranger.get(f"/c/{code}/stats.csv").get_data(as_text=True))))
    # Nor does the CSV: no loading, and while the hunt runs no table's server seeds or weights (fair.held).
    assert csv_rows and all(row["loaded"] == row["server_seed"] == row["weights"] == "" for row in csv_rows)
    assert all(row["commit"] and row["client_seed"] for row in csv_rows)
    assert "It was table" not in stranger.get(f"/c/{code}/summary").get_data(as_text=True)
    mine = teacher.get(f"/c/{code}/summary").get_data(as_text=True)  # the teacher's own summary knows
    assert "It was table 2. (Only you see this: reveal it from the desk.)" in mine

    # Over time: the share of sixes of every die of the games that are over, and the test's p as they came in.
    trend = stranger.get(f"/c/{code}/board?show=trend").get_data(as_text=True)
    assert 'class="chart convergence"' in trend
    dice = sum(int(n) for n in re.findall(r'<td class="hunt-dice">(\d+)', board))  # every game began in the hunt
    assert f"{dice} dice so far." in trend

    teacher.post(f"/c/{code}/act", data={"action": "reveal"}, headers=HTMX)
    board = stranger.get(f"/c/{code}/board?show=hunt").get_data(as_text=True)
    assert "It was table 2." in board
    assert re.search(r'<tr data-table="2" data-verdict="loaded" data-dice="\d+" class="loaded">', board)
    page = students[at_two].get(two_page).get_data(as_text=True)
    assert "The dice at this table are loaded: a six comes up 1 time in 2." in page
    csv_rows = list(csv.DictReader(io.StringIO(stranger.get(f"/c/{code}/stats.csv").get_data(as_text=True))))
    loaded = {row["\ufefftable"]: row["loaded"] for row in csv_rows}
    assert loaded == {"1": "", "2": "1/2"}
    # Revealed: every table's seeds, and the loaded table's weights (a six half the time).
    weights = {(row["\ufefftable"], row["weights"]) for row in csv_rows}
    assert weights == {("1", ""), ("2", "1 1 1 1 1 5")} and all(row["server_seed"] for row in csv_rows)
    summary = stranger.get(f"/c/{code}/summary").get_data(as_text=True)
    assert "It was table 2." in summary and "Only you see this" not in summary


def test_while_the_hunt_runs_every_table_holds_its_seeds_back_one_opened_later_too():
    """No table's reveals tell which one is loaded (maxchen/fair.py `held`): all hold their server seeds back
    from the load to the teacher's reveal, a table the teacher opens meanwhile as well."""
    from maxchen.rooms import Rooms
    from maxchen.server import create_app

    app = create_app({"TESTING": True, "ROOMS": Rooms(dice=SeededDice(4)), "SECRET_KEY": "test"})
    classes = app.extensions["maxchen.classes"]
    teacher = app.test_client()
    code = teacher.post("/classes", data={"rules": "maexchen", "size": "4"}).headers["Location"].rsplit("/", 1)[1]
    for name in ("Ann", "Ben", "Cem", "Dora", "Eli", "Fay", "Gus", "Hana"):
        app.test_client().post(f"/c/{code}/join", data={"name": name})
    teacher.post(f"/c/{code}/act", data={"action": "seat"}, headers=HTMX)
    one, two = classes.overview(code)["tables"]
    assert not any(classes.rooms.load(t.code).held for t in (one, two))
    teacher.post(f"/c/{code}/act", data={"action": "load", "table": two.code, "six": "1/3"}, headers=HTMX)
    assert all(classes.rooms.load(t.code).held for t in (one, two))
    dora = next(s for s in classes.overview(code)["roster"] if s["name"] == "Dora")
    teacher.post(f"/c/{code}/act", data={"action": "move", "student": dora["id"], "table": "new"}, headers=HTMX)
    tables = classes.load(code)["tables"]
    assert len(tables) == 3 and all(classes.rooms.load(t).held for t in tables)
    teacher.post(f"/c/{code}/act", data={"action": "reveal"}, headers=HTMX)
    assert not any(classes.rooms.load(t).held for t in tables)


def test_after_a_check_the_class_board_weighs_the_claim(app, classes, rooms, dice):
    """Is the claim true? A 63 after 62 from a player who lies only when they must: true 1 time in 12 (Bayes,
    counted here over the 36 rolls), though a fresh roll reaches 63 14 times in 36; beside this class's checks."""
    from fractions import Fraction

    from maxchen.rules import two_dice

    teacher = app.test_client()
    code = teacher.post("/classes", data={"rules": "maexchen", "size": "4"}).headers["Location"].rsplit("/", 1)[1]
    for name in ("Ann", "Ben", "Cem", "Dora"):
        classes.join(code, name)
    teacher.post(f"/c/{code}/act", data={"action": "seat"}, headers=HTMX)
    board = app.test_client()
    empty = board.get(f"/c/{code}/board?show=claims").get_data(as_text=True)
    assert 'aria-current="page">Claims<' in empty and "No check yet. After a check at a table" in empty
    teacher.post(f"/c/{code}/act", data={"action": "start"}, headers=HTMX)
    (table,) = classes.overview(code)["tables"]
    a, b, c, _ = [s.id for s in table.members()]
    dice.add((6, 2), (5, 1))
    rooms.act(table.code, a, {"action": "shake"})
    rooms.act(table.code, a, {"action": "announce", "value": 62})
    rooms.act(table.code, b, {"action": "believe"})
    rooms.act(table.code, b, {"action": "shake"})
    rooms.act(table.code, b, {"action": "announce", "value": 63})  # the smallest lie after 62
    rooms.act(table.code, c, {"action": "check"})
    rolls = [two_dice.value_of((x, y)) for x in range(1, 7) for y in range(1, 7)]
    beats_62 = [v for v in rolls if two_dice.is_higher(v, 62)]
    said_63 = rolls.count(63) + (len(rolls) - len(beats_62))  # the true 63s, and every roll that cannot beat 62
    assert Fraction(rolls.count(63), said_63) == Fraction(1, 12)
    page = " ".join(board.get(f"/c/{code}/board?show=claims").get_data(as_text=True).split())
    claim = re.search(
        r'<tr class="claim" data-table="1" data-value="63" data-before="62" data-true="([\d/]+)">(.*?)</tr>', page
    )
    assert claim and claim[1] == "1/12"
    assert '"claim-said">63 after 62 <span class="tag bad">a lie</span>' in claim[2]
    reach = Fraction(sum(1 for v in rolls if not two_dice.is_higher(62, v) and v != 62), 36)  # 63 or higher
    assert reach == Fraction(14, 36)
    assert '"claim-true">8.3 % <span class="claim-odds">(1/12)</span>' in claim[2]  # spaces joined
    assert '"claim-reach">39 %<' in claim[2] and '"claim-class">0 of 1<' in claim[2]
    poschen = teacher.post("/classes", data={"rules": "poschen", "size": "4"}).headers["Location"].rsplit("/", 1)[1]
    other = board.get(f"/c/{poschen}/board?show=claims").get_data(as_text=True)
    assert 'id="claims"' not in other and ">Claims<" not in other  # Bayes here models Mäxchen's ladder


def test_a_board_that_fails_to_draw_keeps_no_place(app, classes, monkeypatch):
    """A board whose first drawing fails is turned away and its place freed: failed connects never use up a
    class's places for boards."""
    from maxchen import live

    code = classes.create()["code"]
    class_live = app.extensions["maxchen.class_live"]
    monkeypatch.setattr(live, "class_parts", lambda *args, **kwargs: 1 / 0)
    for number in range(WATCHERS_PER_CLASS + 2):
        with pytest.raises(ZeroDivisionError):
            class_live.join(f"failed{number}", code, "en", watch=True, member=False)
    monkeypatch.undo()
    class_live.join("drawn", code, "en", watch=True, member=False)  # not refused: watchers_full
    assert class_live._strangers[code] == {"drawn"}


@pytest.mark.parametrize("rules", ["luegen", "poschen"])
def test_a_class_changed_to_maexchen_mid_game_keeps_its_board(app, classes, rooms, dice, rules):
    """The tables still playing their old game show no claim of it: the board draws, and the claims wait."""
    teacher = app.test_client()
    code = teacher.post("/classes", data={"rules": rules, "size": "4"}).headers["Location"].rsplit("/", 1)[1]
    for name in ("Ann", "Ben", "Cem"):
        classes.join(code, name)
    teacher.post(f"/c/{code}/act", data={"action": "seat"}, headers=HTMX)
    teacher.post(f"/c/{code}/act", data={"action": "start"}, headers=HTMX)
    (table,) = classes.overview(code)["tables"]
    a, b, c = [s.id for s in table.members()]
    if rules == "luegen":  # a doubt: Lügen's reveal is no two-dice check
        dice.add((2, 2, 2), (3, 3, 3), (4, 4, 4))
        for player in (a, b, c):
            rooms.act(table.code, player, {"action": "shake"})
        rooms.act(table.code, a, {"action": "bid", "count": 2, "face": 2})
        rooms.act(table.code, b, {"action": "doubt"})
    else:  # Poschen: 21 after 21 is no claim above the one before on Mäxchen's ladder
        dice.add((2, 1), (2, 1))
        rooms.act(table.code, a, {"action": "shake"})
        rooms.act(table.code, a, {"action": "announce", "value": 21})
        rooms.act(table.code, b, {"action": "believe"})
        rooms.act(table.code, b, {"action": "shake"})
        rooms.act(table.code, b, {"action": "announce", "value": 21})
        rooms.act(table.code, c, {"action": "check"})
    assert rooms.load(table.code).game.reveal is not None
    changed = teacher.post(f"/c/{code}/act", data={"action": "configure", "rules": "maexchen"}, headers=HTMX)
    assert changed.status_code == 200 and classes.load(code)["rules"] == "maexchen"
    board = app.test_client().get(f"/c/{code}/board?show=claims")
    assert board.status_code == 200
    assert "No check yet" in board.get_data(as_text=True)
    watcher = socketio.test_client(app, auth={"class": code, "watch": True})
    assert watcher.is_connected() and received(watcher, "parts")
