"""A class of tables: seating, moving, starting, pooled statistics (no Flask)."""

import pytest

from maxchen import stats
from maxchen.classroom import Classrooms, normalize_class_code, split
from maxchen.errors import IllegalMove
from maxchen.rooms import Rooms
from maxchen.store import MemoryStore, SqliteStore

from .conftest import SeededDice


@pytest.fixture(params=["memory", "sqlite"])
def classes(request, tmp_path):
    store = MemoryStore() if request.param == "memory" else SqliteStore(tmp_path / "class.db")
    return Classrooms(Rooms(store=store, dice=SeededDice(7)))


def enrol(classes, code, count):
    """`count` students join; their tokens by name."""
    return {f"S{i}": classes.join(code, f"S{i}")["token"] for i in range(1, count + 1)}


def seated(classes, count, start=False) -> tuple[str, str, dict]:
    """A Mäxchen class of `count` students seated at tables of 4 (and started): its code, the teacher's
    token and the students' tokens."""
    made = classes.create("maexchen", 4)
    tokens = enrol(classes, made["code"], count)
    classes.act(made["code"], made["token"], {"action": "seat"})
    if start:
        classes.act(made["code"], made["token"], {"action": "start"})
    return made["code"], made["token"], tokens


@pytest.mark.parametrize(
    ("count", "size", "tables"),
    [
        (30, 5, [5] * 6),
        (12, 5, [4, 4, 4]),
        (12, 4, [4, 4, 4]),
        (12, 6, [6, 6]),
        (7, 5, [4, 3]),
        (3, 5, [3]),
        (31, 6, [6, 5, 5, 5, 5, 5]),
    ],
)
def test_a_class_splits_into_even_tables_no_bigger_than_its_size(count, size, tables):
    assert split(count, size) == tables


def test_students_wait_until_the_teacher_seats_them_then_sit_at_even_tables(classes):
    made = classes.create("poschen", 5)
    code, teacher = made["code"], made["token"]
    tokens = enrol(classes, code, 12)
    seen = []
    classes.changed = lambda c, seated: seen.append(seated)
    assert classes.overview(code)["tables"] == []
    assert [s["name"] for s in classes.overview(code)["waiting"]] == list(tokens)

    classes.act(code, teacher, {"action": "seat"})
    view = classes.overview(code)
    assert [len(t.members()) for t in view["tables"]] == [4, 4, 4]
    assert view["waiting"] == []
    assert len(seen[-1]) == 12  # every waiting page is told
    # A student's class token is their seat's token at their table; the first at each table hosts it.
    for name, token in tokens.items():
        role, student = classes.role(code, token)
        assert role == "student" and student["name"] == name
        table = classes.table_of(student)
        assert classes.rooms.authenticate(table, token)
    for table in view["tables"]:
        assert table.classroom == code and table.rules == "poschen"
        assert table.seat(table.host).name == table.members()[0].name

    # A latecomer sits down at once, at a table with the fewest.
    late = classes.join(code, "Late")
    _, student = classes.role(code, late["token"])
    assert classes.table_of(student) is not None
    assert sorted(len(t.members()) for t in classes.overview(code)["tables"]) == [4, 4, 5]
    assert seen[-1] == [late["student"]]


def test_the_teacher_moves_a_student_and_a_mid_game_move_leaves_that_game(classes):
    code, teacher, tokens = seated(classes, 8)
    first, second = classes.overview(code)["tables"]
    _, ann = classes.role(code, tokens["S1"])
    classes.act(code, teacher, {"action": "move", "student": ann["id"], "table": second.code})
    assert classes.table_of(ann) == second.code
    assert [len(t.members()) for t in classes.overview(code)["tables"]] == [3, 5]
    # Her old seat's token is gone from the first table: it cannot act there any more.
    with pytest.raises(IllegalMove, match="bad_token"):
        classes.rooms.authenticate(first.code, tokens["S1"])

    classes.act(code, teacher, {"action": "start"})
    assert all(t.phase == "playing" for t in classes.overview(code)["tables"])
    classes.act(code, teacher, {"action": "move", "student": ann["id"], "table": "new"})
    tables = classes.overview(code)["tables"]
    assert len(tables) == 3 and tables[2].seat(tables[2].host).name == "S1"
    left = [s for s in classes.rooms.load(second.code).seats if s.name == "S1"]
    assert left[0].left  # out of the running game, as one who leaves


def test_teacher_only_and_every_bad_input_changes_nothing(classes):
    made = classes.create()
    code, teacher = made["code"], made["token"]
    tokens = enrol(classes, code, 4)
    before = classes.load(code)
    bad = [
        (tokens["S1"], {"action": "seat"}, "not_teacher"),
        ("nonsense", {"action": "seat"}, "bad_token"),
        (teacher, {"action": "start"}, "nothing_to_start"),
        (teacher, {"action": "fly"}, "unknown_action"),
        (teacher, {"action": ["seat"]}, "unknown_action"),  # not a name at all
        (teacher, ["seat"], "action_object"),
        (teacher, {"action": "move", "student": "nobody", "table": "new"}, "no_such_student"),
        (teacher, {"action": "configure", "size": 9}, "table_size"),
        (teacher, {"action": "configure", "options": {"rules": "chess"}}, "unknown_rules"),
        (teacher, {"action": "configure", "options": {"lives": 99, "rules": "poschen"}}, "option_range"),
    ]
    for token, payload, reason in bad:
        with pytest.raises(IllegalMove) as refused:
            classes.act(code, token, payload)
        assert refused.value.reason == reason
    assert classes.load(code) == before
    _, ann = classes.role(code, tokens["S1"])
    classes.act(code, teacher, {"action": "seat"})
    with pytest.raises(IllegalMove, match="no_such_table"):
        classes.act(code, teacher, {"action": "move", "student": ann["id"], "table": "ZZZZZ"})
    with pytest.raises(IllegalMove, match="nobody_waiting"):
        classes.act(code, teacher, {"action": "seat"})
    with pytest.raises(IllegalMove, match="name_taken"):
        classes.join(code, "s1")
    with pytest.raises(IllegalMove, match="class_not_found"):
        classes.join("ZZZZZZ", "Ann")
    with pytest.raises(IllegalMove, match="class_not_found"):
        normalize_class_code("ABCDE")  # a room's length


def test_configure_reaches_every_table_not_playing_and_remove_frees_the_seat(classes):
    made = classes.create("maexchen", 4)
    code, teacher = made["code"], made["token"]
    tokens = enrol(classes, code, 4)
    classes.act(code, teacher, {"action": "seat"})
    classes.act(code, teacher, {"action": "configure", "options": {"rules": "poschen", "lives": 3}, "size": 6})
    table = classes.overview(code)["tables"][0]
    assert (table.rules, table.options["lives"]) == ("poschen", 3)
    assert classes.load(code)["size"] == 6
    _, ann = classes.role(code, tokens["S1"])
    classes.act(code, teacher, {"action": "remove", "student": ann["id"]})
    assert [s.name for s in classes.overview(code)["tables"][0].members()] == ["S2", "S3", "S4"]
    with pytest.raises(IllegalMove, match="bad_token"):
        classes.role(code, tokens["S1"])


def test_a_change_made_while_a_table_played_reaches_it_at_the_next_start(classes):
    code, teacher, _ = seated(classes, 4, start=True)
    classes.act(code, teacher, {"action": "configure", "options": {"rules": "poschen", "lives": 3}})
    (table,) = classes.overview(code)["tables"]
    assert table.rules == "maexchen"  # this game plays on as it began
    for seat in table.members()[1:]:  # the game ends: everyone but the first leaves it
        classes.rooms.act(table.code, seat.id, {"action": "leave"})
    assert classes.rooms.load(table.code).phase == "over"
    classes.join(code, "S5")  # a seated class seats a newcomer at once: the emptiest table
    classes.act(code, teacher, {"action": "start"})
    table = classes.rooms.load(table.code)
    assert (table.phase, table.rules, table.options["lives"]) == ("playing", "poschen", 3)


def test_a_move_the_other_table_refuses_leaves_the_student_where_they_were(classes):
    code, teacher, tokens = seated(classes, 8)
    first, second = classes.overview(code)["tables"]
    for _ in range(10 - len(first.members())):  # a full table (bots are not a class's, but a full one can be)
        classes.rooms.act(first.code, first.host, {"action": "add_bot", "strategy": "honest"}, teacher=True)
    students = [classes.role(code, token)[1] for token in tokens.values()]
    ann = next(s for s in students if classes.table_of(s) == second.code)
    before = (classes.load(code), classes.rooms.load(first.code).to_dict(), classes.rooms.load(second.code).to_dict())
    with pytest.raises(IllegalMove, match="room_full"):
        classes.act(code, teacher, {"action": "move", "student": ann["id"], "table": first.code})
    after = (classes.load(code), classes.rooms.load(first.code).to_dict(), classes.rooms.load(second.code).to_dict())
    assert after == before and classes.table_of(ann) == second.code


def test_pooled_statistics_add_every_tables_counts():
    one, two = stats.new_counts(), stats.new_counts()
    stats.count_rolls(one, [{"dice": [3, 1], "value": 31, "announced": 31, "found": True, "public": True}])
    stats.count_rolls(two, [{"dice": [3, 1], "value": 31, "announced": 42, "found": False, "public": True}])
    stats.count_rolls(two, [{"dice": [6, 6], "value": 66, "announced": None, "found": None, "public": False}])
    total = stats.new_counts()
    for counts in (one, two):
        stats.merge(total, counts)
    assert total["game"]["values"] == {"31": 2} and total["values"] == {}  # no game over yet
    assert (total["checks"], total["lies"]) == (2, 1)
    assert total["checked"] == {"31": [1, 0], "42": [1, 1]}
    assert total["pending"]["values"] == {"31": 2, "66": 1}  # every roll waits for its game's end
    assert stats.shown(total)["checked_values"]["total"] == 2 and stats.shown(total)["values"] is None
    for counts in (one, two):
        stats.settle(counts)
    total = stats.new_counts()
    for counts in (one, two):
        stats.merge(total, counts)
    assert stats.shown(total)["values"]["total"] == 3 and stats.shown(total)["checked_values"] is None


def test_a_class_whose_tables_are_gone_is_swept_after_its_time(classes):
    clock = [1000.0]
    classes.clock = classes.rooms.clock = lambda: clock[0]
    made = classes.create()
    enrol(classes, made["code"], 2)
    classes.act(made["code"], made["token"], {"action": "seat"})
    clock[0] += classes.ttl + 1
    assert classes.sweep() == []  # its table is still there
    classes.rooms.sweep()
    assert classes.sweep() == [made["code"]]
    with pytest.raises(IllegalMove, match="class_not_found"):
        classes.load(made["code"])


def test_the_teacher_closes_the_class_to_newcomers_and_opens_it_again(classes):
    made = classes.create()
    code, teacher = made["code"], made["token"]
    classes.act(code, teacher, {"action": "close", "closed": True})
    with pytest.raises(IllegalMove, match="class_closed"):
        classes.join(code, "Eve")
    with pytest.raises(IllegalMove, match="closed_flag"):
        classes.act(code, teacher, {"action": "close", "closed": "yes"})
    classes.act(code, teacher, {"action": "close", "closed": False})
    assert classes.join(code, "Ann")["token"]


def test_the_teacher_pauses_every_table_and_nobody_acts_until_they_resume(classes):
    code, teacher, _ = seated(classes, 8, start=True)
    rooms = classes.rooms
    one = classes.overview(code)["tables"][0]
    turn = one.game.waiting_for()[0]
    # The teacher pauses: every table, its phones and its views say so, and offer nothing.
    classes.act(code, teacher, {"action": "pause"})
    assert [t.paused for t in classes.overview(code)["tables"]] == [True, True]
    before = rooms.load(one.code).to_dict()
    for player, payload in ((turn, {"action": "shake"}), (one.host, {"action": "leave"})):
        with pytest.raises(IllegalMove, match="paused"):
            rooms.act(one.code, player, payload)
    assert rooms.load(one.code).to_dict() == before
    view, mine = rooms.view(one.code, turn), rooms.load(one.code).private_for(turn)
    assert view["paused"] and view["class_table"] and view["allowed"] == []
    assert mine["paused"] and mine["allowed"] == [] and mine["choices"] == []
    with pytest.raises(IllegalMove, match="already_paused"):
        classes.act(code, teacher, {"action": "pause"})
    for action in ("pause", "resume"):  # a student, the host too, never pauses or resumes
        with pytest.raises(IllegalMove, match="class_decides|not_teacher"):
            rooms.act(one.code, one.host, {"action": action})
    # A table opened while paused waits with the others.
    student = next(s for s in classes.overview(code)["roster"] if s["table"] == 2)
    classes.act(code, teacher, {"action": "move", "student": student["id"], "table": "new"})
    assert [t.paused for t in classes.overview(code)["tables"]] == [True, True, True]
    classes.act(code, teacher, {"action": "resume"})
    assert [t.paused for t in classes.overview(code)["tables"]] == [False, False, False]
    rooms.act(one.code, turn, {"action": "shake"})  # the game goes on where it stopped
    with pytest.raises(IllegalMove, match="not_paused"):
        classes.act(code, teacher, {"action": "resume"})


def test_a_party_room_is_never_paused():
    from maxchen.rooms import Rooms

    rooms = Rooms()
    ann = rooms.create("Ann")
    for action in ("pause", "resume"):
        with pytest.raises(IllegalMove, match="not_teacher"):
            rooms.act(ann["code"], ann["player"], {"action": action})
    assert rooms.view(ann["code"], ann["player"])["paused"] is False


@pytest.mark.parametrize("action", [{"a": 1}, ["pause"], None, 7])
def test_an_action_that_is_no_word_is_refused_at_a_class_table_and_changes_nothing(classes, action):
    code, _, tokens = seated(classes, 4)
    (table,) = classes.overview(code)["tables"]
    before = classes.rooms.load(table.code).to_dict()
    with pytest.raises(IllegalMove, match="unknown_action"):
        classes.rooms.act(table.code, table.host, {"action": action})
    assert classes.rooms.load(table.code).to_dict() == before


def play_out(rooms, code, rng) -> None:
    """Every seat of a table plays as an honest bot until its game is over."""
    from maxchen import bots

    for _ in range(5000):
        room = rooms.load(code)
        if room.phase != "playing":
            return
        player = room.game.waiting_for()[0]
        rooms.act(code, player, bots.act("honest", rooms.view(code, player), rng))
    raise AssertionError("the game did not end")


def test_the_hunt_loads_one_table_in_secret_and_the_reveal_tells_it(classes):
    import random

    code, teacher, _ = seated(classes, 8)
    one, two = classes.overview(code)["tables"]
    rooms = classes.rooms
    before = {t.code: rooms.view(t.code, t.host) for t in (one, two)}
    classes.act(code, teacher, {"action": "load", "table": two.code, "six": "1/2"})
    # Secret: no view changes, not even the version (a student watching the API learns nothing).
    assert {t.code: rooms.view(t.code, t.host) for t in (one, two)} == before
    assert classes.load(code)["loaded"] == {"table": two.code, "six": "1/2", "revealed": False}
    classes.act(code, teacher, {"action": "start"})
    rng = random.Random(3)
    for table in (one, two):
        play_out(rooms, table.code, rng)
    overview = classes.overview(code)
    faces = {t.code: stats.faces_of(t.counts) for t in overview["every_table"]}
    # Half the loaded table's dice are sixes (every die of every roll of its game: both dice of a cup).
    assert faces[two.code][6] / sum(faces[two.code].values()) > 0.35
    assert faces[one.code][6] / sum(faces[one.code].values()) < 0.3
    assert rooms.view(two.code, two.host)["loaded"] is None  # not yet told

    classes.act(code, teacher, {"action": "reveal"})
    assert rooms.view(two.code, two.host)["loaded"] == "1/2"
    assert rooms.view(one.code, one.host)["loaded"] is None
    classes.act(code, teacher, {"action": "start"})  # the next game is loaded too, and says so
    assert rooms.view(two.code, two.host)["loaded"] == "1/2"


def test_every_bad_hunt_move_is_refused_and_changes_nothing(classes):
    code, teacher, tokens = seated(classes, 8)
    one = classes.overview(code)["tables"][0]
    stored = classes.load(code)
    cases = [
        ({"action": "reveal"}, "nothing_loaded"),
        ({"action": "load", "table": one.code, "six": "1/6"}, "loading"),
        ({"action": "load", "table": one.code, "six": 0.25}, "loading"),
        ({"action": "load", "table": one.code}, "loading"),
        ({"action": "load", "table": "ZZZZZ", "six": "1/4"}, "no_such_table"),
        ({"action": "load", "table": ["x"], "six": "1/4"}, "no_such_table"),
    ]
    for payload, reason in cases:
        with pytest.raises(IllegalMove, match=reason):
            classes.act(code, teacher, payload)
        assert classes.load(code)["loaded"] is None
        assert classes.rooms.load(one.code).loaded is None
    # A student never loads or reveals, neither through the class nor at their table.
    with pytest.raises(IllegalMove, match="not_teacher"):
        classes.act(code, tokens["S1"], {"action": "load", "table": one.code, "six": "1/4"})
    with pytest.raises(IllegalMove, match="not_teacher|class_decides|unknown_action"):
        classes.rooms.act(one.code, one.host, {"action": "reveal"})
    classes.act(code, teacher, {"action": "load", "table": one.code, "six": "1/4"})
    with pytest.raises(IllegalMove, match="already_loaded"):
        classes.act(code, teacher, {"action": "load", "table": one.code, "six": "1/3"})
    classes.act(code, teacher, {"action": "reveal"})
    with pytest.raises(IllegalMove, match="already_revealed"):
        classes.act(code, teacher, {"action": "reveal"})
    assert stored["version"] < classes.load(code)["version"]


def test_a_party_rooms_dice_are_never_loaded():
    rooms = Rooms()
    ann = rooms.create("Ann")
    with pytest.raises(IllegalMove, match="not_teacher"):
        rooms.load_dice(ann["code"], "1/4")
    with pytest.raises(IllegalMove, match="not_teacher"):
        rooms.act(ann["code"], ann["player"], {"action": "reveal"})
    assert rooms.load(ann["code"]).loaded is None


def test_a_hunt_begun_mid_game_ends_every_game_with_its_round_and_counts_only_the_next_ones(classes):
    import random

    from maxchen import bots

    code, teacher, _ = seated(classes, 8, start=True)
    rooms, rng = classes.rooms, random.Random(6)
    tables = [t.code for t in classes.overview(code)["tables"]]
    for table in tables:  # a few moves in: mid-round
        for _ in range(4):
            player = rooms.load(table).game.waiting_for()[0]
            rooms.act(table, player, bots.act("honest", rooms.view(table, player), rng))
    in_play = {table: rooms.load(table).game.round for table in tables}
    # The teacher loads table 2: every game in play (not only the loaded table's) ends with its round.
    classes.act(code, teacher, {"action": "load", "table": tables[1], "six": "1/2"})
    for table in tables:
        view = rooms.view(table, rooms.load(table).host)
        assert (view["phase"], view["closing"]) == ("playing", "hunt")
        play_out(rooms, table, rng)
        room = rooms.load(table)
        assert room.ended == "hunt" and room.results[-1]["ended"] == "hunt"
        assert room.results[-1]["rounds"] == in_play[table]  # the round in play, to its end, and no more
        assert sum(stats.hunt_faces(room.counts).values()) == 0  # a game begun before the hunt: not counted
        assert room.closing is None and rooms.view(table, room.host)["closing"] is None
    # The hunt's games: every die of them counts, at both tables; the loaded table's are loaded.
    classes.act(code, teacher, {"action": "start"})
    for table in tables:
        play_out(rooms, table, rng)
        room = rooms.load(table)
        rolled = [face for e in rooms.store.room_log(table) if e["game"] == room.games for face in e["dice"]]
        assert stats.hunt_faces(room.counts) == {face: rolled.count(face) for face in range(1, 7)}
        assert room.ended is None and rolled
    # A last round is the teacher's, at a table in play only.
    with pytest.raises(IllegalMove):
        rooms.act(tables[0], rooms.load(tables[0]).host, {"action": "last_round"}, teacher=True)
    with pytest.raises(IllegalMove):
        rooms.act(tables[0], rooms.load(tables[0]).host, {"action": "last_round"})
