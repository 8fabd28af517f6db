"""The lesson's end of a game: stop now, or a countdown that ends each table after its round (docs/rules.md §7)."""

import random
import re

import pytest

from maxchen.classroom import Classrooms
from maxchen.dice import FixedDice
from maxchen.errors import IllegalMove
from maxchen.rooms import Rooms
from maxchen.rulesets import REGISTRY
from maxchen.store import MemoryStore

from .conftest import SeededDice

# How each rule set's standing reads, better first (the test's own words for docs/rules.md §7).
BETTER_FIRST = {"points": 1, "lives": -1, "dice": -1, "mats": 1}


def standing_key(fields: dict) -> int:
    (name,) = (key for key in BETTER_FIRST if key in fields)
    return BETTER_FIRST[name] * fields[name]


def played(rules: str, moves: int, seed: int, players=4):
    """A game of bots `moves` moves in (or over sooner)."""
    rng = random.Random(seed)
    rule_set = REGISTRY[rules]
    ids = [f"p{i}" for i in range(players)]
    game = rule_set.game(ids, None, dice=SeededDice(rng))
    for _ in range(moves):
        if game.over:
            break
        movers = [*game.waiting_for(), *(p for p in ids if p not in game.waiting_for() and game.allowed(p))]
        for player in movers:
            view = {**game.view_for(player), "rules": rules, "phase": "playing", "you": player}
            action = rule_set.bots("statistician", view, rng)
            if action is not None:
                game.apply(player, action.pop("action"), action)
                break
    game.drain_rolls()
    return game


@pytest.mark.parametrize("rules", list(REGISTRY))
@pytest.mark.parametrize("seed", range(12))
def test_a_game_ended_now_is_ranked_by_its_standings_and_its_round_is_void(rules, seed):
    game = played(rules, moves=random.Random(seed).randrange(3, 60), seed=seed)
    if game.over:
        pytest.skip("the bots finished this game first")  # a few seeds; the others cover the rule
    still_in = game.active()
    before = {p: game.player_fields(p) for p in game.players}
    on_table = [dice for dice in (getattr(game, "cups", {}) or {}).values() if dice] or (
        [game.cup] if getattr(game, "cup", None) else []
    )
    game.end_now()
    assert game.over and game.waiting_for() == [] and all(game.allowed(p) == [] for p in game.players)
    ranking = game.view_for(None)["ranking"]
    assert sorted(ranking) == sorted(game.players)
    # Those still in rank better standing first, equals in seating order (in Lügen behind those safe, in the
    # others ahead of those out); nobody is put out or made safe by it, and the standings stay.
    order = sorted(still_in, key=lambda p: (standing_key(before[p]), still_in.index(p)))
    assert [p for p in ranking if p in still_in] == order
    assert ranking.index(order[0]) == (len(game.safe) if rules == "luegen" else 0)
    assert all(game.player_fields(p)["out"] == before[p]["out"] for p in game.players)
    assert all(standing_key(game.player_fields(p)) == standing_key(before[p]) for p in game.players)
    rolls = game.drain_rolls()
    assert sorted(r["dice"] for r in rolls) == sorted(on_table)  # the round's cups leave the table unseen
    assert all(r["outcome"] == "void" and not r["public"] for r in rolls)
    game.end_now()  # a game over stays as it is
    assert game.view_for(None)["ranking"] == ranking


def test_maexchen_stopped_ranks_fewest_points_first_and_seat_order_among_equals():
    game = REGISTRY["maexchen"].game(["a", "b", "c"], None, dice=FixedDice([(3, 1)]))
    game.score.update({"a": 2, "b": 0, "c": 2})
    game.apply("a", "shake", {})
    game.end_now()
    view = game.view_for(None)
    assert (view["winner"], view["ranking"]) == ("b", ["b", "a", "c"])
    assert view["tally"]["rounds"] == 0  # the round in play is void: none was played to its end
    (roll,) = game.drain_rolls()
    assert (roll["dice"], roll["outcome"], roll["player"]) == ([3, 1], "void", "a")


def test_luegen_stopped_the_one_holding_most_mats_loses():
    game = REGISTRY["luegen"].game(["a", "b", "c", "d"], None, dice=FixedDice([(2, 3, 4)] * 4))
    game.mats.update({"a": 3, "b": 1, "c": 4, "d": 1})
    game.end_now()
    view = game.view_for(None)
    assert view["loser"] == "c" and view["ranking"] == ["b", "d", "a", "c"]


def classroom(count=8):
    clock = [1000.0]
    classes = Classrooms(Rooms(store=MemoryStore(), dice=SeededDice(3), clock=lambda: clock[0]), clock=lambda: clock[0])
    made = classes.create("maexchen", 4)
    for i in range(count):
        classes.join(made["code"], f"S{i}")
    classes.act(made["code"], made["token"], {"action": "seat"})
    return classes, made["code"], made["token"], clock


def tables(classes, code):
    return classes.overview(code)["tables"]


def test_the_teacher_stops_every_table_and_the_standings_stay():
    classes, code, teacher, _ = classroom()
    with pytest.raises(IllegalMove, match="nothing_to_stop"):
        classes.act(code, teacher, {"action": "stop"})
    classes.act(code, teacher, {"action": "start"})
    one = tables(classes, code)[0]
    classes.rooms.act(one.code, one.game.waiting_for()[0], {"action": "shake"})
    classes.act(code, teacher, {"action": "stop"})
    for table in tables(classes, code):
        view = classes.rooms.view(table.code, table.host)
        assert (table.phase, table.ended, view["ended"]) == ("over", "teacher", "teacher")
        assert sorted(view["ranking"]) == sorted(s.id for s in table.members())
    with pytest.raises(IllegalMove, match="nothing_to_stop"):
        classes.act(code, teacher, {"action": "stop"})
    # The next start clears it: a new game, not ended.
    classes.act(code, teacher, {"action": "start"})
    assert [(t.phase, t.ended, t.games) for t in tables(classes, code)] == [("playing", None, 2)] * 2


def test_next_game_everywhere_ends_the_games_running_and_starts_every_table():
    classes, code, teacher, _ = classroom()
    empty = classes.create("maexchen", 4)
    with pytest.raises(IllegalMove, match="nothing_to_start"):
        classes.act(empty["code"], empty["token"], {"action": "next"})
    classes.act(code, teacher, {"action": "next"})  # nothing ran yet: it starts every table
    assert [(t.phase, t.games) for t in tables(classes, code)] == [("playing", 1)] * 2
    classes.act(code, teacher, {"action": "next"})
    assert [(t.phase, t.games, t.ended) for t in tables(classes, code)] == [("playing", 2, None)] * 2
    logs = [classes.store.room_log(t.code) for t in tables(classes, code)]
    assert all(all(entry["game"] in (1, 2) for entry in log) for log in logs)


def test_a_countdown_ends_each_table_after_its_round_and_not_before():
    classes, code, teacher, clock = classroom()
    classes.act(code, teacher, {"action": "start"})
    for bad in (4, 90 * 60 + 1, "5", 5.5, None, True, -10):
        with pytest.raises(IllegalMove, match="countdown_seconds"):
            classes.act(code, teacher, {"action": "countdown", "seconds": bad})
    with pytest.raises(IllegalMove, match="no_countdown"):
        classes.act(code, teacher, {"action": "countdown", "seconds": 0})
    classes.act(code, teacher, {"action": "countdown", "seconds": 60})
    assert classes.load(code)["ends_at"] == 1060.0
    assert [t.ends_at for t in tables(classes, code)] == [1060.0] * 2
    one, two = tables(classes, code)
    rooms = classes.rooms

    def move(table, action, **payload):
        room = rooms.load(table.code)
        rooms.act(table.code, room.game.waiting_for()[0], {"action": action, **payload})
        return rooms.load(table.code)

    # Before zero a round ends and the next begins.
    move(one, "shake")
    move(one, "announce", value=21)
    assert move(one, "check").phase == "playing"
    clock[0] = 1061.0
    # After zero: a move inside the round changes nothing more; the round's end ends the game.
    room = move(one, "shake")
    assert room.phase == "playing" and room.game.round == 2
    room = move(one, "announce", value=21)
    assert room.phase == "playing"
    room = move(one, "check")
    assert (room.phase, room.ended, room.game.round) == ("over", "time", 3)
    assert room.public_view({})["tally"]["rounds"] == 2 == room.results[-1]["rounds"]  # the third never began
    assert sorted(room.public_view({})["ranking"]) == sorted(s.id for s in room.members())
    assert rooms.load(two.code).phase == "playing"  # its round has not ended yet
    # The teacher's next start is not ended after its first round: the time is up, the countdown goes
    # (but for the table still in its last round, which ends with it).
    classes.act(code, teacher, {"action": "start"})
    assert classes.load(code)["ends_at"] is None
    assert [t.ends_at for t in tables(classes, code)] == [None, 1060.0]


def test_the_countdown_can_be_called_off_and_reaches_a_table_opened_meanwhile():
    classes, code, teacher, _ = classroom()
    with pytest.raises(IllegalMove, match="nothing_to_stop"):
        classes.act(code, teacher, {"action": "countdown", "seconds": 300})
    classes.act(code, teacher, {"action": "start"})
    classes.act(code, teacher, {"action": "countdown", "seconds": 300})
    student = next(s for s in classes.overview(code)["roster"] if s["table"] == 2)
    classes.act(code, teacher, {"action": "move", "student": student["id"], "table": "new"})
    assert [t.ends_at for t in tables(classes, code)] == [1300.0] * 3
    classes.act(code, teacher, {"action": "countdown", "seconds": 0})
    assert [t.ends_at for t in tables(classes, code)] == [None] * 3


def test_only_the_teacher_ends_games_and_a_party_room_never_counts_down():
    classes, code, teacher, _ = classroom()
    classes.act(code, teacher, {"action": "start"})
    one = tables(classes, code)[0]
    student = classes.join(code, "Late")["token"]
    for payload in ({"action": "stop"}, {"action": "next"}, {"action": "countdown", "seconds": 60}):
        with pytest.raises(IllegalMove, match="not_teacher"):
            classes.act(code, student, payload)
    before = classes.rooms.load(one.code).to_dict()
    for action in ({"action": "stop"}, {"action": "countdown", "ends_at": 1.0}):
        with pytest.raises(IllegalMove, match="not_teacher"):
            classes.rooms.act(one.code, one.host, action)
    assert classes.rooms.load(one.code).to_dict() == before
    rooms = Rooms()
    ann = rooms.create("Ann")
    rooms.join(ann["code"], "Bob")
    rooms.act(ann["code"], ann["player"], {"action": "start"})
    for action in ({"action": "stop"}, {"action": "countdown", "ends_at": 1.0}):
        with pytest.raises(IllegalMove, match="not_teacher"):
            rooms.act(ann["code"], ann["player"], action)
    view = rooms.view(ann["code"], ann["player"])
    assert (view["phase"], view["ends_at"], view["ended"]) == ("playing", None, None)


def test_stopped_and_counted_tables_keep_it_over_a_restart(tmp_path):
    from maxchen.store import SqliteStore

    path = tmp_path / "lesson.db"
    clock = [1000.0]
    classes = Classrooms(Rooms(store=SqliteStore(path), dice=SeededDice(1)), clock=lambda: clock[0])
    made = classes.create("perudo", 4)
    for i in range(4):
        classes.join(made["code"], f"S{i}")
    classes.act(made["code"], made["token"], {"action": "seat"})
    classes.act(made["code"], made["token"], {"action": "start"})
    classes.act(made["code"], made["token"], {"action": "countdown", "seconds": 600})
    again = Classrooms(Rooms(store=SqliteStore(path), dice=SeededDice(1)))
    (table,) = again.overview(made["code"])["tables"]
    assert table.ends_at == 1600.0
    again.act(made["code"], made["token"], {"action": "stop"})
    (table,) = Classrooms(Rooms(store=SqliteStore(path))).overview(made["code"])["tables"]
    assert (table.phase, table.ended, table.ends_at) == ("over", "teacher", None)


# --- the desk, the phones, the boards and the summary over HTTP ---------------------------------

HTMX = {"HX-Request": "true"}


def desk_class(app, students=8):
    """A class made on the home page by a teacher's browser, `students` joined and seated."""
    teacher = app.test_client()
    code = teacher.post("/classes", data={"rules": "maexchen", "size": "4"}).headers["Location"].rsplit("/", 1)[1]
    browsers = {}
    for i in range(students):
        browsers[f"S{i}"] = app.test_client()
        browsers[f"S{i}"].post(f"/c/{code}/join", data={"name": f"S{i}"})
    teacher.post(f"/c/{code}/act", data={"action": "seat"}, headers=HTMX)
    return teacher, code, browsers


def controls(html: str) -> set:
    return set(re.findall(r'data-action="([a-z-]+)"', html))


def test_the_desk_offers_only_the_lesson_controls_that_apply(app):
    teacher, code, _ = desk_class(app)
    act = f"/c/{code}/act"
    assert controls(teacher.get(f"/c/{code}/roster").get_data(as_text=True)) == {"start", "load", "close"}
    html = teacher.post(act, data={"action": "start"}, headers=HTMX).get_data(as_text=True)
    assert controls(html) == {"next", "pause", "stop", "countdown", "load", "close"}
    assert "Game 1, round 1" in html and "waiting for" in html
    html = teacher.post(act, data={"action": "countdown", "seconds": "300"}, headers=HTMX).get_data(as_text=True)
    assert controls(html) == {"next", "pause", "stop", "no-countdown", "load", "close"} and "data-ends-at=" in html
    html = teacher.post(act, data={"action": "pause"}, headers=HTMX).get_data(as_text=True)
    assert controls(html) == {"resume", "load", "close"}
    teacher.post(act, data={"action": "resume"}, headers=HTMX)
    html = teacher.post(act, data={"action": "stop"}, headers=HTMX).get_data(as_text=True)
    assert controls(html) == {"start", "load", "close"} and "Next game everywhere" in html  # a new game now
    assert html.count("Game 1 is over.") == 2 and "data-ends-at=" not in html
    # The hunt: once a table is loaded the desk offers its reveal instead, and after the reveal nothing more.
    table = app.extensions["maxchen.classes"].overview(code)["tables"][0].code
    html = teacher.post(act, data={"action": "load", "table": table, "six": "1/4"}, headers=HTMX).get_data(as_text=True)
    assert controls(html) == {"start", "reveal", "close"}
    html = teacher.post(act, data={"action": "reveal"}, headers=HTMX).get_data(as_text=True)
    assert controls(html) == {"start", "close"} and "The class knows." in html


def test_every_bad_lesson_input_is_refused_in_words_and_changes_nothing(app):
    teacher, code, browsers = desk_class(app)
    classes = app.extensions["maxchen.classes"]
    act = f"/c/{code}/act"
    before = classes.load(code)
    for fields, says in [
        ({"action": "stop"}, "No table is playing a game."),
        ({"action": "countdown", "seconds": "300"}, "No table is playing a game."),
        ({"action": "countdown", "seconds": "0"}, "No countdown is running."),
        ({"action": "resume"}, "The tables are not paused."),
    ]:
        answer = teacher.post(act, data=fields, headers=HTMX)
        assert answer.headers.get("X-Maxchen-Toast") and says in answer.get_data(as_text=True), fields
    teacher.post(act, data={"action": "start"}, headers=HTMX)
    before = classes.load(code)
    tables = [t.to_dict() for t in classes.overview(code)["tables"]]
    for seconds in ("abc", "3", "99999", "", "-60", "٣٠٠"):
        answer = teacher.post(act, data={"action": "countdown", "seconds": seconds}, headers=HTMX)
        assert "A countdown runs from 5 to 5400 seconds." in answer.get_data(as_text=True), seconds
    for action in ("stop", "next", "countdown", "pause", "load", "reveal"):  # a student's browser, and a stranger's
        for browser in (browsers["S0"], app.test_client()):
            assert browser.post(act, data={"action": action, "seconds": "60"}, headers=HTMX).status_code == 403
    assert classes.load(code) == before
    assert [t.to_dict() for t in classes.overview(code)["tables"]] == tables


def test_phones_and_boards_show_the_countdown_and_why_a_game_ended(app):
    teacher, code, browsers = desk_class(app)
    act = f"/c/{code}/act"
    teacher.post(act, data={"action": "start"}, headers=HTMX)
    teacher.post(act, data={"action": "countdown", "seconds": "600"}, headers=HTMX)
    phone = browsers["S0"]
    table = phone.get(f"/c/{code}").headers["Location"].rsplit("/", 1)[1]
    ends_at = app.extensions["maxchen.classes"].load(code)["ends_at"]
    page = phone.get(f"/r/{table}").get_data(as_text=True)
    assert f'data-ends-at="{ends_at}"' in page and 'name="server-time"' in page and "/static/lesson.js" in page
    assert f'data-ends-at="{ends_at}"' in app.test_client().get(f"/c/{code}/board").get_data(as_text=True)
    teacher.post(act, data={"action": "stop"}, headers=HTMX)
    page = phone.get(f"/r/{table}").get_data(as_text=True)
    assert "Your teacher ended the game." in page and "data-ends-at" not in page


def test_the_join_screen_and_the_summary_of_the_lesson(app):
    teacher, code, _ = desk_class(app, students=5)
    act = f"/c/{code}/act"
    screen = app.test_client().get(f"/c/{code}/board?show=join").get_data(as_text=True)
    assert 'data-show="join"' in screen and "5 students have joined." in screen and "<bdi>S4</bdi>" in screen
    assert 'data-show="all"' in app.test_client().get(f"/c/{code}/board?show=<script>").get_data(as_text=True)
    desk = teacher.get(f"/c/{code}").get_data(as_text=True)
    assert f'href="/c/{code}/board?show=join"' in desk and f'href="/c/{code}/summary"' in desk
    teacher.post(act, data={"action": "start"}, headers=HTMX)
    summary = app.test_client().get(f"/c/{code}/summary").get_data(as_text=True)
    assert summary.count("No game is over at this table yet.") == 2 and "A game is still running here." in summary
    teacher.post(act, data={"action": "next"}, headers=HTMX)  # game 1 ends everywhere, game 2 starts
    summary = app.test_client().get(f"/c/{code}/summary").get_data(as_text=True)
    classes = app.extensions["maxchen.classes"]
    for table in classes.overview(code)["tables"]:
        (result,) = table.results
        assert (result["game"], result["ended"]) == (1, "teacher")
        assert sorted(result["ranking"]) == sorted(s.name for s in table.members())
        assert result["places"] == [1] * len(result["ranking"])  # no round was played out: everyone ties
        ranked = " · ".join(f"1.&nbsp;<bdi>{name}</bdi>" for name in result["ranking"])
        assert ranked in summary
    assert summary.count("stopped by the teacher") == 2 and "Statistics of the class" in summary
    assert "data-print" in summary and f'href="/api/classes/{code}/stats"' in summary
    assert app.test_client().get("/c/ZZZZZZ/summary").status_code == 404


def test_a_game_ended_early_ties_equal_standings_and_names_no_winner_by_the_seating(app):
    classes = app.extensions["maxchen.classes"]
    rooms = app.extensions["maxchen.rooms"]
    rooms.dice = FixedDice([(3, 1)] * 2)
    made = classes.create("maexchen", 4)
    for name in ("Ann", "Ben", "Cem"):
        classes.join(made["code"], name)
    classes.act(made["code"], made["token"], {"action": "seat"})
    classes.act(made["code"], made["token"], {"action": "start"})
    (table,) = classes.overview(made["code"])["tables"]
    first, second, third = table.game.players
    rooms.act(table.code, first, {"action": "shake"})
    rooms.act(table.code, first, {"action": "announce", "value": 65})
    rooms.act(table.code, second, {"action": "check"})  # a lie: the first gets a point, the others none
    classes.act(made["code"], made["token"], {"action": "stop"})
    view = rooms.view(table.code, first)
    assert view["ranking"][2] == first and view["places"] == [1, 1, 3]
    (result,) = rooms.load(table.code).results
    assert result["places"] == [1, 1, 3] and result["ended"] == "teacher"
    browser = app.test_client()
    html = browser.get(f"/r/{table.code}/board").get_data(as_text=True)
    assert "Game over: a tie." in html and "wins!" not in html and 'class="trophy"' not in html
    assert re.findall(r'<span class="place">(\d)\.</span>', html) == ["1", "1", "3"]
    # A game played out has no places: one winner, places by the ranking.
    classes.act(made["code"], made["token"], {"action": "start"})
    assert rooms.view(table.code, first)["places"] is None


def test_a_pause_holds_the_countdown_and_the_paused_class_takes_no_new_game_or_countdown():
    classes, code, teacher, clock = classroom()
    classes.act(code, teacher, {"action": "start"})
    classes.act(code, teacher, {"action": "countdown", "seconds": 60})
    clock[0] += 20
    classes.act(code, teacher, {"action": "pause"})
    before = classes.load(code)
    for action in ({"action": "start"}, {"action": "next"}, {"action": "countdown", "seconds": 30}):
        with pytest.raises(IllegalMove, match="resume_first"):
            classes.act(code, teacher, action)
    assert classes.load(code) == before
    clock[0] += 300  # a long pause: the countdown waits with the tables
    classes.act(code, teacher, {"action": "resume"})
    assert classes.load(code)["ends_at"] == 1360.0  # 40 s left, as when paused
    assert [t.ends_at for t in tables(classes, code)] == [1360.0] * 2
    classes.act(code, teacher, {"action": "stop"})  # the teacher may end the lesson from a pause too


def test_starting_the_waiting_tables_after_zero_leaves_a_table_in_its_last_round_to_end():
    classes, code, teacher, clock = classroom()
    classes.act(code, teacher, {"action": "start"})
    classes.act(code, teacher, {"action": "countdown", "seconds": 5})
    clock[0] += 6
    one, two = tables(classes, code)
    rooms = classes.rooms
    for action in ({"action": "shake"}, {"action": "announce", "value": 21}, {"action": "check"}):
        rooms.act(one.code, rooms.load(one.code).game.waiting_for()[0], action)
    assert rooms.load(one.code).ended == "time"
    rooms.act(two.code, two.game.waiting_for()[0], {"action": "shake"})  # table 2 is in its last round
    classes.act(code, teacher, {"action": "start"})  # only table 1 waits
    assert rooms.load(one.code).ends_at is None and rooms.load(one.code).phase == "playing"
    two = rooms.load(two.code)
    assert two.ends_at == 1005.0
    rooms.act(two.code, two.game.waiting_for()[0], {"action": "announce", "value": 21})
    rooms.act(two.code, rooms.load(two.code).game.waiting_for()[0], {"action": "check"})
    assert rooms.load(two.code).ended == "time"


def test_a_table_everyone_left_keeps_its_games_in_the_summary_and_its_rolls_in_the_class():
    classes, code, teacher, _ = classroom()
    classes.act(code, teacher, {"action": "start"})
    classes.act(code, teacher, {"action": "next"})
    one = tables(classes, code)[0]
    counts = classes.pooled(classes.overview(code)["every_table"])
    for student in [s for s in classes.overview(code)["roster"] if s["table"] == 1]:
        classes.act(code, teacher, {"action": "remove", "student": student["id"]})
    overview = classes.overview(code)
    assert [t.code for t in overview["tables"]] == [tables(classes, code)[0].code] != [one.code]
    assert one.code in [t.code for t in overview["every_table"]]
    assert [r["game"] for r in classes.rooms.load(one.code).results] == [1, 2]  # the second ended as they went
    pooled = classes.pooled(overview["every_table"])
    # Its rolls stay counted, none more (its last round was void); its second game counts as one more over.
    assert {**pooled, "lengths": None} == {**counts, "lengths": None}
    assert [row["games"] for row in counts["lengths"]] == [2] and pooled["lengths"] == [
        {"rules": "maexchen", "length": 5, "games": 3}
    ]


def test_a_closed_class_shows_a_newcomer_no_name_form(app):
    teacher, code, _ = desk_class(app, students=2)
    teacher.post(f"/c/{code}/act", data={"action": "close", "closed": "1"}, headers=HTMX)
    page = app.test_client().get(f"/c/{code}").get_data(as_text=True)
    assert "The teacher has closed this class to newcomers." in page and 'name="name"' not in page
    teacher.post(f"/c/{code}/act", data={"action": "close", "closed": "0"}, headers=HTMX)
    assert 'name="name"' in app.test_client().get(f"/c/{code}").get_data(as_text=True)
