"""Rooms without Flask: codes, names, seats, host, versions, expiry."""

import contextlib
import secrets
import threading

import pytest

from maxchen import messages
from maxchen.classroom import Classrooms
from maxchen.dice import FixedDice
from maxchen.errors import IllegalMove
from maxchen.locks import SweepClock
from maxchen.presence import Presence, Socket
from maxchen.rooms import CODE_ALPHABET, Rooms, clean_name, normalize_code
from maxchen.rulesets import RULESETS


def refused(code, call, *args):
    with pytest.raises(IllegalMove) as caught:
        call(*args)
    assert caught.value.code == code
    return caught.value


def test_codes_avoid_look_alikes():
    assert not set("0O1IL") & set(CODE_ALPHABET)
    rooms = Rooms()
    codes = {rooms.create(f"p{i}")["code"] for i in range(200)}
    assert len(codes) == 200
    assert all(len(c) == 5 and set(c) <= set(CODE_ALPHABET) for c in codes)


@pytest.mark.parametrize("typed", ["k7wqp", " K7WQP ", "K7wQp"])
def test_codes_are_typed_case_insensitively(typed):
    assert normalize_code(typed) == "K7WQP"


@pytest.mark.parametrize("typed", ["K7WQ", "K7WQPP", "K0WQP", "KIWQP", "", None, 12345])
def test_malformed_codes_find_no_room(typed):
    refused("room_not_found", normalize_code, typed)


@pytest.mark.parametrize(
    ("typed", "name"),
    [("  Ann ", "Ann"), ("Änne", "Änne"), ("Ёжик", "Ёжик"), ("🎲🎲", "🎲🎲"), ("x" * 20, "x" * 20), ("<b>", "<b>")],
)
def test_names_in_any_script(typed, name):
    assert clean_name(typed) == name


@pytest.mark.parametrize("typed", ["", "   ", "x" * 21, "a\nb", "a\x00b", None, 7])
def test_bad_names_are_refused(typed):
    refused("bad_value", clean_name, typed)


def test_names_count_code_points_not_bytes():
    assert clean_name("ё" * 20) == "ё" * 20
    assert clean_name("🎲" * 20) == "🎲" * 20


def plug(rooms, code, player) -> str:
    """Open a (pretend) connection of `player`; returns its socket id."""
    sid = secrets.token_hex(4)
    rooms.connect(Socket(sid, code, player, kind="json"))
    return sid


@pytest.fixture
def room():
    rooms = Rooms(dice=FixedDice([(6, 5)] * 50))
    ann = rooms.create("Ann")
    code = ann["code"]
    ben = rooms.join(code, "Ben")
    return rooms, code, ann["player"], ben["player"]


def test_names_are_unique_ignoring_case(room):
    rooms, code, *_ = room
    refused("name_taken", rooms.join, code, "ANN")
    refused("name_taken", rooms.join, code, " ben")


def test_ten_seats_at_most(room):
    rooms, code, *_ = room
    for i in range(8):
        rooms.join(code, f"guest{i}")
    refused("room_full", rooms.join, code, "eleventh")


def test_unknown_rules_are_refused():
    refused("bad_value", Rooms().create, "Ann", "skat")


def test_version_counts_changes_not_connections(room):
    rooms, code, ann, ben = room
    version = rooms.view(code, ann)["version"]
    rooms.disconnect(plug(rooms, code, ann))
    assert rooms.view(code, ann)["version"] == version
    rooms.act(code, ann, {"action": "start"})
    assert rooms.view(code, ann)["version"] == version + 1


def test_a_stale_version_is_refused_and_changes_nothing(room):
    rooms, code, ann, ben = room
    view = rooms.act(code, ann, {"action": "start"})
    rooms.act(code, ann, {"action": "shake", "version": view["version"]})
    # A double tap answers the old view: it is stale.
    error = refused("stale", rooms.act, code, ann, {"action": "shake", "version": view["version"]})
    assert "moved on" in messages.text(error)
    assert rooms.view(code, ann)["version"] == view["version"] + 1
    refused("bad_request", rooms.act, code, ann, {"action": "announce", "value": 65, "version": "x"})


def test_only_the_host_starts_and_configures(room):
    rooms, code, ann, ben = room
    refused("not_host", rooms.act, code, ben, {"action": "start"})
    refused("not_host", rooms.act, code, ben, {"action": "configure", "options": {}})
    assert rooms.view(code, ann)["allowed"] == ["start"]
    assert rooms.view(code, ben)["allowed"] == []


def test_a_game_needs_two_players():
    rooms = Rooms()
    ann = rooms.create("Ann")
    assert rooms.view(ann["code"], ann["player"])["allowed"] == []
    refused("not_allowed", rooms.act, ann["code"], ann["player"], {"action": "start"})


def test_configure_checks_rules_and_options(room):
    rooms, code, ann, ben = room
    refused("bad_value", rooms.act, code, ann, {"action": "configure", "options": {"rules": "skat"}})
    refused("bad_value", rooms.act, code, ann, {"action": "configure", "options": {"speed": 3}})
    refused("bad_request", rooms.act, code, ann, {"action": "configure", "options": [1]})
    view = rooms.act(code, ann, {"action": "configure", "options": {"rules": "maexchen"}})
    assert (view["rules"], view["options"]) == ("maexchen", {"out_at": 5, "hint": "off"})
    rooms.act(code, ann, {"action": "start"})
    refused("game_running", rooms.act, code, ann, {"action": "configure", "options": {}})
    refused("game_running", rooms.act, code, ann, {"action": "start"})


# The length of a game, every rule set's first option (docs/rules.md, "A shorter game"): what the host may
# choose, what is refused, and how each seat shows it at the start (`players[]`; Lügen: the stack).
LENGTHS = {
    "maexchen": ("out_at", [3, 5, 7], [4, 2, 9, 0, "3", 3.0, None, True], lambda n: {"points": 0}),
    "poschen": ("lives", [3, 4, 7, 10], [2, 11, 0, -1, "5", 5.0, None, True], lambda n: {"lives": n}),
    "luegen": ("mats", [2, 12, 30], [1, 31, -2, "12", 12.0, None], lambda n: {"mats": 0}),
    "perudo": ("dice", [3, 4, 5], [2, 6, 0, "3", 3.0, None, True], lambda n: {"dice": n}),
}


def lobby(rules):
    """A lobby of `rules` with enough players to start: the rooms, its code, the host's and the others' ids."""
    rooms = Rooms(dice=FixedDice())
    ann = rooms.create("Ann", rules)
    others = [rooms.join(ann["code"], name)["player"] for name in ("Ben", "Cem")]
    return rooms, ann["code"], ann["player"], others


def test_every_rule_set_has_a_length_and_it_comes_first():
    assert {rules: game.LENGTH for rules, game in RULESETS.items()} == {r: LENGTHS[r][0] for r in RULESETS}
    assert all(next(iter(game.OPTIONS)) == game.LENGTH for game in RULESETS.values())


@pytest.mark.parametrize(
    ("rules", "value"), [(rules, value) for rules, (_, good, _, _) in LENGTHS.items() for value in good]
)
def test_the_host_sets_the_length_and_every_seat_sees_it(rules, value):
    rooms, code, ann, others = lobby(rules)
    option, _, _, shown = LENGTHS[rules]
    view = rooms.act(code, ann, {"action": "configure", "options": {option: value}})
    assert view["options"] == {**RULESETS[rules].default_options(), option: value}
    watcher = rooms.load(code).public_view({})
    for view in (*(rooms.view(code, player) for player in (ann, *others)), watcher):
        assert view["options"][option] == value
        assert all(p | shown(value) == p for p in view["players"])
    view = rooms.act(code, ann, {"action": "start"})
    assert rooms.load(code).game.options[option] == value
    assert all(p | shown(value) == p for p in view["players"]) and view["options"][option] == value
    if rules == "luegen":
        assert view["stack"] == value


@pytest.mark.parametrize(
    ("rules", "value"), [(rules, value) for rules, (_, _, bad, _) in LENGTHS.items() for value in bad]
)
def test_a_length_the_rule_set_does_not_offer_is_refused_and_changes_nothing(rules, value):
    rooms, code, ann, others = lobby(rules)
    option = LENGTHS[rules][0]
    before = rooms.view(code, ann)
    error = refused("bad_value", rooms.act, code, ann, {"action": "configure", "options": {option: value}})
    assert error.reason in ("option_range", "option_choice") and error.params["option"] == option
    assert rooms.view(code, ann) == before


@pytest.mark.parametrize("rules", sorted(LENGTHS))
def test_nobody_changes_the_length_while_a_game_runs(rules):
    rooms, code, ann, others = lobby(rules)
    option, good, _, _ = LENGTHS[rules]
    shorter = good[0]
    rooms.act(code, ann, {"action": "configure", "options": {option: shorter}})
    rooms.act(code, ann, {"action": "start"})
    before = rooms.view(code, ann)
    for change in ({option: good[-1]}, {"rules": rules, option: good[-1]}, {"rules": "maexchen"}):
        refused("game_running", rooms.act, code, ann, {"action": "configure", "options": change})
        assert rooms.view(code, ann) == before
    refused("not_host", rooms.act, code, others[0], {"action": "configure", "options": {option: good[-1]}})
    assert rooms.load(code).game.options[option] == shorter == rooms.load(code).public_view({})["options"][option]


@pytest.mark.parametrize("rules", sorted(LENGTHS))
def test_a_room_saved_before_its_rule_sets_length_existed_plays_the_usual_length(rules):
    rooms, code, ann, others = lobby(rules)
    option = LENGTHS[rules][0]
    data = rooms.store.load(code)
    del data["options"][option]
    rooms.store.save(code, data)
    assert rooms.view(code, ann)["options"][option] == RULESETS[rules].OPTIONS[option].default


def test_unknown_and_malformed_actions(room):
    rooms, code, ann, ben = room
    refused("bad_request", rooms.act, code, ann, {"action": "fly"})
    refused("bad_request", rooms.act, code, ann, {"action": None})
    refused("bad_request", rooms.act, code, ann, ["start"])
    refused("not_allowed", rooms.act, code, ann, {"action": "shake"})  # no game yet
    refused("room_not_found", rooms.act, "ZZZZZ", ann, {"action": "start"})
    refused("bad_token", rooms.act, code, "nobody", {"action": "start"})


def test_late_comers_wait_for_the_next_game(room):
    rooms, code, ann, ben = room
    rooms.act(code, ann, {"action": "start"})
    cem = rooms.join(code, "Cem")["player"]
    view = rooms.view(code, cem)
    seat = next(p for p in view["players"] if p["id"] == cem)
    assert seat["waiting"] and not seat["out"]
    refused("not_allowed", rooms.act, code, cem, {"action": "check"})
    # Ann leaves: Ben wins, and the host role passes on.
    rooms.act(code, ann, {"action": "leave"})
    view = rooms.view(code, ben)
    assert (view["phase"], view["winner"], view["host"]) == ("over", ben, ben)
    view = rooms.act(code, ben, {"action": "start"})
    assert [p["id"] for p in view["players"]] == [ben, cem]
    assert not any(p["waiting"] for p in view["players"])
    assert view["turn"]["player"] == ben


def test_host_handover_prefers_the_next_connected_player(room):
    rooms, code, ann, ben = room
    cem = rooms.join(code, "Cem")["player"]
    plug(rooms, code, cem)
    rooms.act(code, ann, {"action": "leave"})
    assert rooms.view(code, cem)["host"] == cem
    rooms.act(code, cem, {"action": "leave"})
    assert rooms.view(code, ben)["host"] == ben


def test_remove_only_disconnected_players_during_a_game(room):
    rooms, code, ann, ben = room
    rooms.act(code, ann, {"action": "start"})
    sid = plug(rooms, code, ben)
    refused("not_allowed", rooms.act, code, ann, {"action": "remove", "player": ben})
    refused("bad_value", rooms.act, code, ann, {"action": "remove", "player": "ghost"})
    refused("not_allowed", rooms.act, code, ann, {"action": "remove", "player": ann})
    refused("not_host", rooms.act, code, ben, {"action": "remove", "player": ann})
    rooms.disconnect(sid)
    view = rooms.act(code, ann, {"action": "remove", "player": ben})
    gone = next(p for p in view["players"] if p["id"] == ben)
    assert gone["left"] and gone["out"]
    assert view["winner"] == ann
    # The removed player's token is revoked.
    refused("bad_token", rooms.act, code, ben, {"action": "shake"})


def test_mid_game_the_host_removes_only_after_the_grace():
    """A reload or a blip is no reason to lose one's seat: offline for the grace first."""
    now = [100.0]
    rooms = Rooms(presence=Presence(clock=lambda: now[0]))
    rooms.offline_grace = 15
    ann = rooms.create("Ann")
    code = ann["code"]
    ben, cem = rooms.join(code, "Ben")["player"], rooms.join(code, "Cem")["player"]
    rooms.act(code, ann["player"], {"action": "start"})
    sid = plug(rooms, code, ben)
    now[0] += 60
    rooms.disconnect(sid)  # Ben's phone drops
    now[0] += 5
    error = refused("not_allowed", rooms.act, code, ann["player"], {"action": "remove", "player": ben})
    assert error.reason == "offline_grace" and error.params["seconds"] == 10
    # Nobody but the host learns how long a seat has been away: Cem is told he is no host, Ann to leave.
    assert refused("not_host", rooms.act, code, cem, {"action": "remove", "player": ben}).reason == "not_host"
    error = refused("not_allowed", rooms.act, code, ann["player"], {"action": "remove", "player": ann["player"]})
    assert error.reason == "leave_instead"
    # Cem plays over the API only and was just seen acting: the same grace.
    now[0] += 1
    rooms.act(code, ann["player"], {"action": "shake"})
    with contextlib.suppress(IllegalMove):
        rooms.act(code, cem, {"action": "check"})  # refused (not Cem's turn), but Cem is seen
    error = refused("not_allowed", rooms.act, code, ann["player"], {"action": "remove", "player": cem})
    assert error.reason == "offline_grace"
    now[0] += 10
    gone = rooms.act(code, ann["player"], {"action": "remove", "player": ben})
    assert next(p for p in gone["players"] if p["id"] == ben)["left"]


def test_a_room_everyone_left_leaves_nothing_behind():
    rooms = Rooms()
    ann = rooms.create("Ann")
    code = ann["code"]
    ben = rooms.join(code, "Ben")["player"]
    sid = plug(rooms, code, ben)
    rooms.disconnect(sid)
    rooms.act(code, ben, {"action": "leave"})
    rooms.act(code, ann["player"], {"action": "leave"})
    refused("room_not_found", rooms.view, code, ann["player"])
    assert code not in rooms._locks and rooms.presence.seq(code) == 0
    assert rooms.presence.offline_for(code, ben) is not None  # a fresh start, nothing kept


def test_removing_a_player_revokes_the_token():
    rooms = Rooms()
    ann = rooms.create("Ann")
    ben = rooms.join(ann["code"], "Ben")
    assert rooms.authenticate(ann["code"], ben["token"]) == ben["player"]
    rooms.act(ann["code"], ann["player"], {"action": "remove", "player": ben["player"]})
    refused("bad_token", rooms.authenticate, ann["code"], ben["token"])
    refused("bad_token", rooms.locate, ben["token"])
    assert [p["name"] for p in rooms.view(ann["code"], ann["player"])["players"]] == ["Ann"]


def test_the_room_goes_when_the_last_player_leaves():
    rooms = Rooms()
    ann = rooms.create("Ann")
    rooms.act(ann["code"], ann["player"], {"action": "leave"})
    refused("room_not_found", rooms.view, ann["code"], ann["player"])


def test_rooms_untouched_for_six_hours_are_dropped():
    now = [1000.0]
    rooms = Rooms(clock=lambda: now[0])
    old = rooms.create("Ann")
    now[0] += 5 * 3600
    fresh = rooms.create("Ben")
    sid = plug(rooms, fresh["code"], fresh["player"])
    now[0] += 3600 + 1
    assert rooms.sweep() == [old["code"]]
    refused("room_not_found", rooms.view, old["code"], old["player"])
    now[0] += 7 * 3600
    assert rooms.sweep() == []  # Ben is still connected
    rooms.disconnect(sid)
    assert rooms.sweep() == [fresh["code"]]


def test_a_room_that_fails_to_sweep_is_logged_and_the_others_are_still_swept(caplog):
    now = [1000.0]
    rooms = Rooms(clock=lambda: now[0])
    broken, idle = rooms.create("Ann"), rooms.create("Ben")
    load = rooms.store.load

    def failing(code):
        if code == broken["code"]:
            raise ValueError("a broken row")
        return load(code)

    rooms.store.load = failing
    now[0] += 7 * 3600
    assert rooms.sweep() == [idle["code"]]
    assert f"sweep: room {broken['code']} left as it is: a broken row" in caplog.text


@pytest.mark.parametrize("jump", [7 * 3600, -7 * 3600])
def test_a_jump_of_the_wall_clock_drops_no_room_before_its_time(jump):
    """An NTP step or a resumed VM moves the wall clock by hours: a lobby, a game and a class used minutes
    earlier stay, and so does a room made after the jump; each goes once idle for six hours by the clock
    that cannot jump (after a jump back, the rooms from before it a few hours late: never early)."""
    wall, steady = [100_000.0], [50.0]
    rooms = Rooms(clock=lambda: wall[0])
    classes = Classrooms(rooms, clock=lambda: wall[0])
    clock = SweepClock(settle=rooms.ttl, wall=lambda: wall[0], steady=lambda: steady[0])
    idle_since = {}

    def later(seconds, step=0.0):
        wall[0] += seconds + step
        steady[0] += seconds
        now = clock.now()
        if now is None:  # the sweeper's first hours: no sweep
            return {}
        return {code: steady[0] - idle_since[code] for code in rooms.sweep(now) + classes.sweep(now)}

    idle_since[rooms.create("Ann")["code"]] = steady[0]  # a lobby
    game = rooms.create("Ben")
    rooms.join(game["code"], "Cem")
    rooms.act(game["code"], game["player"], {"action": "start"})
    idle_since[game["code"]] = steady[0]
    idle_since[classes.create()["code"]] = steady[0]
    assert later(300, step=jump) == {}  # five minutes, and the jump
    idle_since[rooms.create("Dan")["code"]] = steady[0]  # touched by the wall clock after the jump
    swept = {}
    for _ in range(14 * 12):  # every five minutes for fourteen hours
        swept |= later(300)
    assert sorted(swept) == sorted(idle_since)
    assert all(idle >= rooms.ttl for idle in swept.values()), swept
    late = 0 if jump > 0 else -jump
    assert all(idle <= rooms.ttl + late + 600 for idle in swept.values()), swept


def test_a_process_started_after_a_jump_of_the_clock_drops_no_room_before_its_time():
    """A jump while no process ran (a VM resumed, a clock set by hand) cannot be seen: a process started after
    it sweeps nothing for its first `ttl` seconds, then what stayed idle that long by its own clock."""
    wall, steady = [100_000.0], [50.0]
    rooms = Rooms(clock=lambda: wall[0])
    lobby = rooms.create("Ann")["code"]
    wall[0] += 2 * 24 * 3600  # two days on, by a clock set wrong; a new process starts
    clock = SweepClock(settle=rooms.ttl, wall=lambda: wall[0], steady=lambda: steady[0])
    while steady[0] + 300 < 50 + rooms.ttl:
        wall[0], steady[0] = wall[0] + 300, steady[0] + 300
        assert clock.now() is None and rooms.load(lobby)
    wall[0], steady[0] = wall[0] + 300, steady[0] + 300
    assert rooms.sweep(clock.now()) == [lobby]


def test_pushes_hand_on_the_room_and_private_parts_hold_only_their_own_dice(room):
    rooms, code, ann, ben = room
    pushed = []
    rooms.outlets.push = lambda changed, gone, areas, welcomed: pushed.append((changed, areas))
    plug(rooms, code, ann)
    plug(rooms, code, ben)
    assert [areas for _, areas in pushed] == [("players",), ("players",)]  # a connect touches nothing else
    pushed.clear()
    rooms.act(code, ann, {"action": "start"})
    rooms.act(code, ann, {"action": "shake"})
    changed, areas = pushed[-1]
    assert areas is None  # a change of the room: every public area may have changed
    assert changed.private_for(ann)["dice"] == [6, 5]
    assert changed.private_for(ben)["dice"] is None
    assert "6, 5" not in str(changed.private_for(ben)) + str(changed.public_view(rooms.connected(code)))


def test_simultaneous_checks_count_once(room):
    rooms, code, ann, ben = room
    rooms.act(code, ann, {"action": "start"})
    rooms.act(code, ann, {"action": "shake"})
    view = rooms.act(code, ann, {"action": "announce", "value": 65})
    results = []

    def check():
        try:
            rooms.act(code, ben, {"action": "check", "version": view["version"]})
            results.append("ok")
        except IllegalMove as error:
            results.append(error.code)

    threads = [threading.Thread(target=check) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == ["ok"] + ["stale"] * 7
    assert {p["name"]: p["points"] for p in rooms.view(code, ann)["players"]} == {"Ann": 0, "Ben": 1}


def test_a_one_phone_table_seats_everyone_and_starts_with_the_cover_up():
    rooms = Rooms(dice=FixedDice([(4, 1)]))
    device = rooms.create_shared(["Anna", "Boris", "Carla"])
    code, me = device["code"], device["player"]
    view = rooms.view(code, me)
    assert (view["rules"], view["phase"], view["you"]) == ("poschen", "playing", None)
    assert view["shared"] == {"holder": None, "next": view["turn"]["player"]}
    anna = view["turn"]["player"]
    # Nobody acts while the cover is up; only the player whose turn it is may take the phone.
    refused("not_allowed", rooms.act, code, me, {"action": "shake"})
    boris = view["players"][1]["id"]
    refused("not_allowed", rooms.act, code, me, {"action": "uncover", "player": boris})
    view = rooms.act(code, me, {"action": "uncover", "player": anna})
    assert (view["you"], view["allowed"]) == (anna, ["shake"])
    view = rooms.act(code, me, {"action": "shake"})
    assert view["dice"] == [4, 1]
    view = rooms.act(code, me, {"action": "announce", "value": 41})
    # Handed on: the cover is up and the device sees no dice at all.
    assert view["shared"] == {"holder": None, "next": boris}
    assert view["dice"] is None and view["you"] is None
    view = rooms.act(code, me, {"action": "uncover", "player": boris})
    assert view["dice"] is None  # Boris never sees Anna's cup
    view = rooms.act(code, me, {"action": "check"})
    # A check shows the dice to the table under the cover; Boris, the accuser, goes on next.
    assert view["shared"]["holder"] is None and view["reveal"]["dice"] == [4, 1]
    assert view["shared"]["next"] == boris


@pytest.mark.parametrize(
    ("names", "code"),
    [
        (["Solo"], "bad_value"),
        ([f"P{i}" for i in range(11)], "bad_value"),
        (["Anna", "anna"], "name_taken"),
        (["Anna", ""], "bad_value"),
        ("Anna", "bad_request"),
    ],
)
def test_a_one_phone_table_needs_two_to_ten_distinct_names(names, code):
    refused(code, Rooms().create_shared, names)


def test_only_a_one_phone_table_passes_the_phone(room):
    rooms, code, ann, ben = room
    rooms.act(code, ann, {"action": "start"})
    refused("bad_request", rooms.act, code, ann, {"action": "uncover", "player": ann})


def test_guessing_codes_leaves_nothing_behind():
    rooms = Rooms()
    for guess in ("ABCDE", "ZZZZZ", "K7WQP"):
        refused("room_not_found", rooms.join, guess, "Eve")
    assert len(rooms._locks) == 0


def test_nobody_joins_a_one_phone_table():
    """Hardening 1: a second phone must never get a seat (and so the holder's dice)."""
    rooms = Rooms(dice=FixedDice([(4, 1)]))
    device = rooms.create_shared(["Anna", "Boris"])
    code = device["code"]
    before = rooms.store.load(code)
    refused("one_phone", rooms.join, code, "Eve")
    assert rooms.store.load(code) == before
    # Not after the game either: a new game keeps the table closed.
    data = rooms.store.load(code)
    data["phase"] = "over"
    rooms.store.save(code, data)
    rooms.act(code, device["player"], {"action": "start"})
    refused("one_phone", rooms.join, code, "Eve")


@pytest.mark.parametrize(("first", "then"), [("maexchen", "luegen"), ("luegen", "maexchen"), ("maexchen", "poschen")])
def test_a_new_rule_set_after_a_game_starts_a_clean_lobby(first, then):
    """Hardening 2: the finished game of the old rule set must not be loaded as the new one."""
    rooms = Rooms(dice=FixedDice([(6, 5)] * 50))
    ann = rooms.create("Ann", first)
    code = ann["code"]
    ben = rooms.join(code, "Ben")
    rooms.join(code, "Cem")
    rooms.act(code, ann["player"], {"action": "start"})
    rooms.act(code, ben["player"], {"action": "leave"})  # Ben goes for good mid-game
    data = rooms.store.load(code)
    data["phase"] = "over"
    rooms.store.save(code, data)
    view = rooms.act(code, ann["player"], {"action": "configure", "options": {"rules": then}})
    assert (view["rules"], view["phase"], view["reveal"]) == (then, "lobby", None)
    assert [p["name"] for p in view["players"]] == ["Ann", "Cem"]
    assert rooms.load(code).game is None
    if then != "luegen":  # Lügen needs three
        assert rooms.act(code, ann["player"], {"action": "start"})["phase"] == "playing"


def test_the_sweeper_lives_through_a_store_away_and_sweeps_on_its_next_pass(app, monkeypatch, caplog):
    """A pass that fails (Redis away) is one line in the log; the next pass sweeps as ever."""
    from maxchen import server

    passes = []

    class Stop(Exception):
        pass

    def sleep(seconds):
        if len(passes) == 3:
            raise Stop
        passes.append(seconds)

    rooms = app.extensions["maxchen.rooms"]
    claims = iter([ConnectionError("Redis away"), True, True])

    def claim(name, seconds):
        answer = next(claims)
        if isinstance(answer, Exception):
            raise answer
        return answer

    swept = []
    monkeypatch.setattr(server, "SweepClock", lambda settle: SweepClock(settle=0))  # not a fresh process
    monkeypatch.setattr(server.socketio, "sleep", sleep)
    monkeypatch.setattr(rooms.store, "claim", claim)
    monkeypatch.setattr(rooms, "sweep", lambda now=None: swept.append(now) or [])
    with pytest.raises(Stop):
        server._sweeper(app)
    assert len(swept) == 2 and "sweep skipped: Redis away" in caplog.text
