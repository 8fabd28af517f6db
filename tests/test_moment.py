"""Each screen shows the moment: a one-phone cover tells a check once, a notice leaves after its moment, the turn
line says when the player it waits for is offline, and who sat down during a game gets a seat in the next."""

import re

import pytest

from maxchen import live
from maxchen.dice import FixedDice, SeededDice
from maxchen.errors import IllegalMove
from maxchen.rooms import Rooms
from maxchen.server import create_app
from maxchen.table import MAX_SEATS

GONE = "<bdi>Cem</bdi> is gone: the round starts again."


def seeded_app(seed=7):
    """An app whose dice come from a seed (a game of any rule set rolls what it needs)."""
    return create_app({"TESTING": True, "ROOMS": Rooms(dice=SeededDice(seed)), "SECRET_KEY": "test"})


def rooms_of(app) -> Rooms:
    return app.extensions["maxchen.rooms"]


def area(html: str, name: str) -> str:
    """One area of a page: `controls` (a seat's own) or `table`."""
    tag = "section" if name == "controls" else "div"
    start = html.index(f'<{tag} id="{name}"')
    depth = 0
    for found in re.finditer(rf"<(/?){tag}\b", html[start:]):
        depth += -1 if found[1] else 1
        if depth == 0:
            return html[start : start + found.end()]
    raise AssertionError(f"{name} does not end")


def page(browser, code, board=False) -> str:
    return browser.get(f"/r/{code}/board" if board else f"/r/{code}").get_data(as_text=True)


def cover(browser, code) -> str | None:
    """The one-phone cover the device shows now (None: the phone is uncovered)."""
    controls = area(page(browser, code), "controls")
    return controls if 'class="cover"' in controls else None


def one_phone(app, rules, names=("Anna", "Boris", "Carla")):
    """A one-phone table by its form: the browser (the device) and the room's code and seats."""
    browser = app.test_client()
    response = browser.post("/table", data={"names": "\n".join(names), "rules": rules})
    assert response.status_code == 303
    code = response.headers["Location"].rsplit("/", 1)[1]
    seats = {seat["name"]: seat["id"] for seat in rooms_of(app).store.load(code)["seats"]}
    return browser, code, seats


# --- 1. The one-phone cover tells a check once -----------------------------------------------------------


@pytest.mark.parametrize("rules", ["poschen", "maexchen"])
def test_the_cover_shows_a_check_once_then_only_whose_turn(rules):
    dice = FixedDice([(3, 1), (4, 2), (5, 5), (6, 6)])
    app = create_app({"TESTING": True, "ROOMS": Rooms(dice=dice), "SECRET_KEY": "test"})
    rooms = rooms_of(app)
    browser, code, seats = one_phone(app, rules)
    device = seats["Anna"]

    def act(**payload):
        rooms.act(code, device, payload)

    def passed_to(name) -> str:
        shown = cover(browser, code)
        assert shown is not None and f"Pass the phone to <bdi>{name}</bdi>" in shown
        return shown

    # The game begins: the cover names Anna, and there is nothing to tell yet.
    assert 'class="reveal' not in passed_to("Anna")
    act(action="uncover", player=seats["Anna"])
    act(action="shake")
    act(action="announce", value=31)
    assert 'class="reveal' not in passed_to("Boris")
    act(action="uncover", player=seats["Boris"])
    # Boris checks: a true 31, Boris pays. The cover right after it shows the dice, to him and the table.
    act(action="check")
    shown = passed_to("Boris")  # Poschen: the checker opens; Mäxchen: the one who paid. Boris both times.
    assert 'class="reveal' in shown and 'data-round="1"' in shown
    assert 'class="die face-3"' in shown and 'class="die face-1"' in shown
    # Decided by the game, not by a clock: the page drawn again still tells it.
    assert cover(browser, code) == shown
    # Boris takes the phone and moves: the check is old news from now on.
    act(action="uncover", player=seats["Boris"])
    act(action="shake")
    act(action="announce", value=42)
    shown = passed_to("Carla")
    assert 'class="reveal' not in shown and "face-" not in shown
    act(action="uncover", player=seats["Carla"])
    act(action="believe")
    act(action="shake")
    act(action="announce", value=55)
    assert 'class="reveal' not in passed_to("Anna")
    # The table keeps the last round, folded, for whoever wants to look back.
    assert "Previous round" in area(page(browser, code), "table")


def test_an_uncovered_phone_shows_no_reveal_on_its_controls_and_the_cover_after_a_move_none():
    """The room's own decision, without pages: the private part carries the reveal only for the fresh cover."""
    rooms = Rooms(dice=FixedDice([(3, 1), (4, 2)]))
    seat = rooms.create_shared(["Anna", "Boris"], "poschen")
    code, device = seat["code"], seat["player"]
    room = rooms.load(code)
    anna, boris = (s.id for s in room.seats)
    rooms.act(code, device, {"action": "uncover", "player": anna})
    rooms.act(code, device, {"action": "shake"})
    rooms.act(code, device, {"action": "announce", "value": 31})
    rooms.act(code, device, {"action": "uncover", "player": boris})
    rooms.act(code, device, {"action": "check"})
    assert rooms.load(code).private_for(device)["reveal"]["round"] == 1
    rooms.act(code, device, {"action": "uncover", "player": boris})
    assert rooms.load(code).private_for(device)["reveal"] is None  # uncovered: Boris's turn, no cover
    rooms.act(code, device, {"action": "shake"})
    rooms.act(code, device, {"action": "announce", "value": 42})
    private = rooms.load(code).private_for(device)
    assert private["shared"]["next"] == anna and private["reveal"] is None
    # What everyone may see still has the last reveal (the table's "Previous round", the API).
    assert rooms.load(code).public_view({})["reveal"]["round"] == 1


def test_uncovering_for_the_wrong_player_is_refused_and_the_fresh_cover_stays():
    rooms = Rooms(dice=FixedDice([(3, 1)]))
    seat = rooms.create_shared(["Anna", "Boris"], "poschen")
    code, device = seat["code"], seat["player"]
    anna, boris = (s.id for s in rooms.load(code).seats)
    rooms.act(code, device, {"action": "uncover", "player": anna})
    rooms.act(code, device, {"action": "shake"})
    rooms.act(code, device, {"action": "announce", "value": 31})
    rooms.act(code, device, {"action": "uncover", "player": boris})
    rooms.act(code, device, {"action": "check"})
    before = rooms.load(code).to_dict()
    for payload, reason in (
        ({"action": "uncover", "player": anna}, "not_their_turn"),
        ({"action": "uncover", "player": "nobody"}, "not_their_turn"),
        ({"action": "shake"}, "pass_first"),
    ):
        with pytest.raises(IllegalMove) as refused:
            rooms.act(code, device, payload)
        assert refused.value.reason == reason
    assert rooms.load(code).to_dict() == before
    assert rooms.load(code).private_for(device)["reveal"] is not None


# --- 2. A notice leaves after its moment ------------------------------------------------------------------


def first_moves(rules) -> list:
    """Ann's moves before Cem goes: a two-dice game's shake and announcement, a bidding game's shake."""
    return (
        [{"action": "shake"}, {"action": "announce", "value": 31}]
        if rules in ("maexchen", "poschen")
        else [{"action": "shake"}]
    )


@pytest.mark.parametrize("rules", ["maexchen", "poschen", "luegen", "perudo"])
def test_is_gone_shows_until_the_new_rounds_first_move(rules):
    app = seeded_app()
    rooms = rooms_of(app)
    ann = rooms.create("Ann", rules)
    code = ann["code"]
    ben = rooms.join(code, "Ben")
    cem = rooms.join(code, "Cem")
    rooms.act(code, ann["player"], {"action": "start"})
    for move in first_moves(rules):
        rooms.act(code, ann["player"], move)
    # Cem goes mid-round: the round starts again, and the table (the TV board too) says why.
    rooms.act(code, cem["player"], {"action": "leave"})
    board = app.test_client()
    for _ in range(2):  # drawn again (a reload, a push of anything else): still its moment
        assert GONE in area(page(board, code, board=True), "table")
    assert rooms.view(code, ben["player"])["voided"]["player"] == cem["player"]
    # The round's first move (the first shake of it): the notice has had its moment.
    mover = rooms.load(code).game.waiting_for()[0]
    rooms.act(code, mover, {"action": "shake"})
    assert GONE not in area(page(board, code, board=True), "table")
    assert rooms.view(code, ben["player"])["voided"] is None
    # Nor does it come back later in that round.
    for seat in (ann, ben):
        if "shake" in rooms.view(code, seat["player"])["allowed"]:
            rooms.act(code, seat["player"], {"action": "shake"})
    assert GONE not in area(page(board, code, board=True), "table")


def test_is_gone_is_said_in_each_language_and_leaves_in_each():
    app = seeded_app()
    rooms = rooms_of(app)
    ann = rooms.create("Ann", "maexchen")
    code = ann["code"]
    ben = rooms.join(code, "Ben")
    cem = rooms.join(code, "Cem <b>")
    rooms.act(code, ann["player"], {"action": "start"})
    rooms.act(code, ann["player"], {"action": "shake"})
    rooms.act(code, cem["player"], {"action": "leave"})
    words = {
        "en": "is gone: the round starts again.",
        "de": "ist weg: die Runde beginnt neu.",
        "ru": "больше нет за столом: раунд начинается заново.",
    }
    boards = {}
    for lang in words:
        boards[lang] = app.test_client()
        boards[lang].set_cookie("lang", lang)
        table = area(page(boards[lang], code, board=True), "table")
        assert f"<bdi>Cem &lt;b&gt;</bdi> {words[lang]}" in table
    rooms.act(code, rooms.load(code).game.waiting_for()[0], {"action": "shake"})
    for lang, said in words.items():
        assert "Cem &lt;b&gt;" not in area(page(boards[lang], code, board=True), "table"), lang
        assert said not in page(boards[lang], code, board=True)
    assert ben


# --- 3. The turn line says when the player it waits for is offline ----------------------------------------


OFFLINE = {
    "en": ("Ben is offline: the game waits.", "Ben is deciding."),
    "de": ("Ben ist offline: das Spiel wartet.", "Ben entscheidet."),
    "ru": ("Ben не в сети: игра ждёт.", "Ben решает."),
}


@pytest.mark.parametrize("lang", list(OFFLINE))
def test_the_turn_line_says_the_game_waits_for_an_offline_player(lang, sio):
    app = seeded_app()
    rooms = rooms_of(app)
    ann = rooms.create("Ann", "maexchen")
    code = ann["code"]
    ben = rooms.join(code, "Ben")
    rooms.act(code, ann["player"], {"action": "start"})
    rooms.act(code, ann["player"], {"action": "shake"})
    rooms.act(code, ann["player"], {"action": "announce", "value": 31})
    board = app.test_client()
    board.set_cookie("lang", lang)
    offline, deciding = OFFLINE[lang]
    status = re.search(r'<p class="status".*?</p>', area(page(board, code, board=True), "table"), re.S)[0]
    assert offline.replace("Ben", "<bdi>Ben</bdi>") in status and deciding.split()[-1] not in status
    # Ben's phone comes back: he is deciding.
    from maxchen.server import socketio

    phone = socketio.test_client(app, auth={"token": ben["token"]})
    try:
        assert phone.is_connected()
        table = area(page(board, code, board=True), "table")
        assert deciding.replace("Ben", "<bdi>Ben</bdi>") in table and offline.split(":")[0][4:] not in table
    finally:
        phone.disconnect()
    assert sio


def test_the_turn_line_is_drawn_again_when_the_awaited_player_goes_or_comes_only():
    rooms = Rooms(dice=SeededDice(3))
    ann = rooms.create("Ann", "maexchen")
    code = ann["code"]
    ben = rooms.join(code, "Ben")
    cem = rooms.join(code, "Cem")
    rooms.act(code, ann["player"], {"action": "start"})
    room = rooms.load(code)
    everyone = dict.fromkeys([ann["player"], ben["player"], cem["player"]])
    key = live._area_keys(room.public_view(everyone))["table"]
    # Ann has the turn: Cem's phone going changes nothing on the table; Ann's does.
    assert live._area_keys(room.public_view({ann["player"]: None, ben["player"]: None}))["table"] == key
    assert live._area_keys(room.public_view({ben["player"]: None, cem["player"]: None}))["table"] != key


def test_a_one_phone_table_never_says_its_players_are_offline():
    app = seeded_app()
    browser, code, seats = one_phone(app, "poschen")
    table = area(page(browser, code), "table")
    assert "<bdi>Anna</bdi>'s turn to shake." in table
    assert "offline" not in table


# --- 4. Who sat down during a game plays in the next ------------------------------------------------------


def play_out(rooms, code, seats):
    """Play the game to its end: shake, announce the lowest, check; whoever has the turn."""
    for _ in range(200):
        room = rooms.load(code)
        if room.phase != "playing":
            return
        player = room.game.waiting_for()[0]
        view = rooms.view(code, player)
        if "check" in view["allowed"]:
            rooms.act(code, player, {"action": "check"})
        elif "shake" in view["allowed"]:
            rooms.act(code, player, {"action": "shake"})
        else:
            rooms.act(code, player, {"action": "announce", "value": view["choices"][0]})
    raise AssertionError("the game did not end")


def late_comer(app, code, name, lang="en"):
    """A browser that takes a seat by the room's form (during a game: it waits for the next)."""
    browser = app.test_client()
    browser.set_cookie("lang", lang)
    response = browser.post(f"/r/{code}/join", data={"name": name})
    assert response.status_code == 303, response.get_data(as_text=True)
    return browser


SEAT_YOURS = {
    "en": "A seat is yours: you play in the next game.",
    "de": "Ein Platz ist dein: Im nächsten Spiel bist du dabei.",
    "ru": "Место за тобой: ты играешь в следующей партии.",
}


def test_late_comers_are_told_their_seat_before_play_again_and_play_it():
    app = seeded_app()
    rooms = rooms_of(app)
    host = app.test_client()
    response = host.post("/rooms", data={"name": "Ann", "rules": "maexchen"})
    code = response.headers["Location"].rsplit("/", 1)[1]
    ben = rooms.join(code, "Ben")
    ann = rooms.load(code).host
    rooms.act(code, ann, {"action": "start"})
    # Cem and Dora <i> sit down during the game: they watch it.
    cem = late_comer(app, code, "Cem")
    dora = late_comer(app, code, "Dora <i>", "de")
    assert "You are watching. You play from the next game on." in area(page(cem, code), "controls")
    play_out(rooms, code, [ann, ben["player"]])
    # The game is over. Before the host presses Play again, the late comers' phones say a seat is theirs...
    assert SEAT_YOURS["en"] in area(page(cem, code), "controls")
    assert SEAT_YOURS["de"] in area(page(dora, code), "controls")
    # ...and the table says who joins (names escaped), to the host too, beside Play again.
    table = area(page(host, code), "table")
    assert "<bdi>Cem</bdi>, <bdi>Dora &lt;i&gt;</bdi> play in the next game." in table
    assert "Dora <i>" not in table
    assert "Play again" in area(page(host, code), "controls")
    # The players of the game just played are told nothing of the kind.
    assert SEAT_YOURS["en"] not in area(page(host, code), "controls")
    rooms.act(code, ann, {"action": "start"})
    room = rooms.load(code)
    names = {s.id: s.name for s in room.seats}
    assert [names[p] for p in room.game.players] == ["Ann", "Ben", "Cem", "Dora <i>"]
    controls = area(page(cem, code), "controls")
    assert SEAT_YOURS["en"] not in controls and "You are watching" not in controls
    assert "play in the next game" not in area(page(host, code), "table")


def test_a_late_comer_who_left_is_not_named_and_a_lone_one_is_said_in_the_singular():
    app = seeded_app()
    rooms = rooms_of(app)
    ann = rooms.create("Ann", "poschen")
    code = ann["code"]
    ben = rooms.join(code, "Ben")
    rooms.act(code, ann["player"], {"action": "start"})
    cem = rooms.join(code, "Cem")
    eve = rooms.join(code, "Eve")
    rooms.act(code, eve["player"], {"action": "leave"})
    play_out(rooms, code, [ann["player"], ben["player"]])
    ru = app.test_client()
    ru.set_cookie("lang", "ru")
    table = area(page(app.test_client(), code, board=True), "table")
    assert "<bdi>Cem</bdi> plays in the next game." in table and "<bdi>Eve</bdi>" not in table
    assert "<bdi>Cem</bdi> играет в следующей партии." in area(page(ru, code, board=True), "table")
    rooms.act(code, ann["player"], {"action": "start"})
    assert cem["player"] in rooms.load(code).game.players


def test_a_full_table_seats_every_late_comer_at_the_rematch_and_refuses_an_eleventh():
    """A table never holds more than its ten (the players and those waiting): each waiting one fits."""
    rooms = Rooms(dice=SeededDice(5))
    ann = rooms.create("Ann", "maexchen")
    code = ann["code"]
    ben = rooms.join(code, "Ben")
    rooms.act(code, ann["player"], {"action": "start"})
    waiting = [rooms.join(code, f"Late{i}")["player"] for i in range(MAX_SEATS - 2)]
    before = rooms.load(code).to_dict()
    with pytest.raises(IllegalMove) as refused:
        rooms.join(code, "Eleven")
    assert refused.value.reason == "room_full"
    assert rooms.load(code).to_dict() == before
    # A late comer may neither move in this game nor start the next.
    for payload, reason in (({"action": "shake"}, "next_game"), ({"action": "start"}, "not_host")):
        with pytest.raises(IllegalMove) as refused:
            rooms.act(code, waiting[0], payload)
        assert refused.value.reason == reason
    play_out(rooms, code, [ann["player"], ben["player"]])
    with pytest.raises(IllegalMove) as refused:
        rooms.act(code, waiting[0], {"action": "start"})
    assert refused.value.reason == "not_host"
    rooms.act(code, ann["player"], {"action": "start"})
    game = rooms.load(code).game
    assert len(game.players) == MAX_SEATS and set(waiting) <= set(game.players)
