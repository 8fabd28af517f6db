"""Computer players at a table: seated by the host, played by the server, seeing only their own seat."""

import contextlib
import random
import threading
import time

import pytest

from maxchen import bots
from maxchen.botplay import BotPlay
from maxchen.errors import IllegalMove
from maxchen.rooms import Rooms
from maxchen.rulesets import RULESETS

from .conftest import wait_until
from .test_web import act, make_seat, version


def _spawn(fn, *args):
    threading.Thread(target=fn, args=args, daemon=True).start()


@pytest.mark.parametrize("rules", sorted(RULESETS))
def test_a_person_and_two_bots_play_a_whole_game(rules):
    rooms = Rooms()
    play = BotPlay(rooms, _spawn, time.sleep, delay=(0, 0.002), rng=random.Random(1))
    looked = []
    view_for = rooms.view

    def watched(code, player):  # every view a bot reads
        view = view_for(code, player)
        looked.append(view)
        return view

    rooms.view = watched
    rooms.outlets.changed = play.changed
    ann = rooms.create("Ann", rules)
    code = ann["code"]
    for strategy in ("statistician", "bluffer"):
        rooms.act(code, ann["player"], {"action": "add_bot", "strategy": strategy})
    players = view_for(code, ann["player"])["players"]
    assert [(p["name"], p["bot"], p["connected"]) for p in players[1:]] == [
        ("Ada", "statistician", True),
        ("Blaise", "bluffer", True),
    ]
    rooms.act(code, ann["player"], {"action": "start"})
    rng = random.Random(2)

    def over():
        view = view_for(code, ann["player"])
        if view["phase"] == "over":
            return True
        move = bots.act("honest", view, rng)  # Ann plays too, when it is hers to play
        if move:
            with contextlib.suppress(IllegalMove):  # a bot was faster (a doubt in Lügen)
                rooms.act(code, ann["player"], {**move, "version": view["version"]})
        return False

    assert wait_until(over, 60)
    # Each bot read only its own seat's view (what a player's phone gets: never another's cup).
    bot_ids = {p["id"] for p in players if p["bot"]}
    assert looked and {view["you"] for view in looked} == bot_ids


def test_the_host_seats_bots_in_the_lobby_only_and_with_a_known_strategy(app):
    ann, code = make_seat(app)
    act(ann, code, action="add_bot", strategy="honest", version=version(ann, code))
    html = ann.get(f"/r/{code}").get_data(as_text=True)
    assert "bot · honest" in html and "Ada" in html
    refused = act(ann, code, action="add_bot", strategy="psychic", version=version(ann, code))
    assert "There is no bot strategy psychic" in refused.get_data(as_text=True)
    ben, _ = make_seat(app, code, "Ben")
    refused = act(ben, code, action="add_bot", strategy="honest", version=version(ben, code))
    assert refused.headers.get("X-Maxchen-Toast") == "1"  # only the host seats bots
    rooms = app.extensions["maxchen.rooms"]
    assert [p.bot for p in rooms.load(code).members()] == [None, "honest", None]
    # A bot has no token: nobody can act for it over the network.
    assert all(p.token_hash is None for p in rooms.load(code).members() if p.bot)


def test_play_against_bots_seats_two_from_the_home_page(app):
    browser = app.test_client()
    response = browser.post("/rooms", data={"name": "Ann", "rules": "luegen", "bots": "1"})
    code = response.headers["Location"].rsplit("/", 1)[1]
    members = app.extensions["maxchen.rooms"].load(code).members()
    assert [m.bot for m in members] == [None, "statistician", "bluffer"]
    assert "Start the game" in browser.get(f"/r/{code}").get_data(as_text=True)  # Lügen's three are there


def _room_with_bots(rooms, *people):
    host = rooms.create("Ann")
    seats = [host] + [rooms.join(host["code"], name) for name in people]
    for strategy in ("honest", "bluffer"):
        rooms.act(host["code"], host["player"], {"action": "add_bot", "strategy": strategy})
    return host["code"], seats


def test_bots_do_not_play_on_alone_and_never_host():
    rooms = Rooms()
    code, (ann, ben) = _room_with_bots(rooms, "Ben")
    rooms.act(code, ann["player"], {"action": "start"})
    rooms.act(code, ann["player"], {"action": "leave"})
    assert rooms.view(code, ben["player"])["host"] == ben["player"]  # Ben, offline, before any bot
    rooms.act(code, ben["player"], {"action": "leave"})
    with pytest.raises(IllegalMove, match="room_not_found"):  # nobody but bots: the room is gone
        rooms.load(code)


def test_the_host_removes_a_bot_at_once_mid_game():
    rooms = Rooms()
    rooms.offline_grace = 15
    code, (ann,) = _room_with_bots(rooms)
    rooms.act(code, ann["player"], {"action": "start"})
    bot = next(p["id"] for p in rooms.view(code, ann["player"])["players"] if p["bot"] == "bluffer")
    view = rooms.act(code, ann["player"], {"action": "remove", "player": bot})
    assert next(p for p in view["players"] if p["id"] == bot)["left"]


def test_after_a_restart_the_bots_move_again():
    rooms = Rooms()
    code, (ann,) = _room_with_bots(rooms)
    rooms.act(code, ann["player"], {"action": "start"})
    rooms.act(code, ann["player"], {"action": "shake"})
    rooms.act(code, ann["player"], {"action": "announce", "value": 31})  # the honest bot's turn
    version = rooms.view(code, ann["player"])["version"]
    restarted = Rooms(store=rooms.store)  # a new process on the same store; nobody connects
    restarted.outlets.changed = BotPlay(restarted, _spawn, time.sleep, delay=(0, 0)).changed
    restarted.wake()
    assert wait_until(lambda: restarted.view(code, ann["player"])["version"] > version, 10)
