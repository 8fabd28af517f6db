"""Flood control: strict on what fails, generous on what works (small limits set in the config)."""

import pytest

from maxchen.errors import IllegalMove
from maxchen.rooms import Rooms
from maxchen.server import create_app, socketio

from .conftest import Api

pytestmark = pytest.mark.usefixtures("steady_limits")  # a window's edge never falls inside a test


def _app(**limits):
    return create_app({"TESTING": True, "ROOMS": Rooms(), "SECRET_KEY": "test", **limits})


def test_guessing_codes_and_tokens_is_stopped_with_a_retry_time():
    api = Api(_app(MAXCHEN_LIMIT_FAILURES="5 per minute").test_client())
    seat = api.create("Ann")
    answers = [api.view(f"ZZZZ{n}", "guess").status_code for n in range(5)]
    assert answers == [401] * 5
    blocked = api.view("ZZZZZ", "guess")
    assert blocked.status_code == 429
    error = blocked.json["error"]
    assert error["code"] == "rate_limited" and 0 < error["params"]["seconds"] <= 61
    assert blocked.headers["Retry-After"] == str(error["params"]["seconds"])
    assert "Try again in" in error["message"]
    # Every further guess waits, whatever it guesses; a seat of its own still answers.
    assert api.view(seat["code"], "guess").status_code == 429
    assert api.client.post("/api/rooms/ZZZZZ/players", json={"name": "Eve"}).status_code == 429
    assert api.view(seat["code"], seat["token"]).status_code == 200


def test_guesses_under_way_count_as_failures_until_they_end():
    """The server may serve others while a guess waits on its body: they must see it counted."""
    throttle = _app(MAXCHEN_LIMIT_FAILURES="3 per minute").extensions["maxchen.throttle"]
    for _ in range(3):
        throttle.begin("192.0.2.7")
    with pytest.raises(IllegalMove, match="rate_limited"):
        throttle.begin("192.0.2.7")
    throttle.begin("192.0.2.8")  # another address is not held up
    throttle.end("192.0.2.7", failed=False)  # one found its room: its place is free again
    throttle.begin("192.0.2.7")
    for _ in range(3):
        throttle.end("192.0.2.7", failed=True)
    throttle.end("192.0.2.7", failed=False)
    with pytest.raises(IllegalMove, match="rate_limited"):  # three misses counted: the budget is spent
        throttle.begin("192.0.2.7")


def test_what_succeeds_is_not_counted_as_failure():
    api = Api(_app(MAXCHEN_LIMIT_FAILURES="5 per minute").test_client())
    seat = api.create("Ann")
    assert all(api.view(seat["code"], seat["token"]).status_code == 200 for _ in range(50))
    assert api.client.get("/").status_code == 200


def test_creating_rooms_is_capped_per_address_and_the_extra_room_is_not_made():
    app = _app(MAXCHEN_LIMIT_ROOMS="3 per minute")
    client = app.test_client()
    statuses = [client.post("/api/rooms", json={"name": f"Ann{n}"}).status_code for n in range(3)]
    assert statuses == [201] * 3
    page = client.post("/rooms", data={"name": "Bob"})
    assert page.status_code == 429 and "Try again in" in page.get_data(as_text=True)
    api = client.post("/api/rooms", json={"name": "Cem"})
    assert api.status_code == 429 and api.json["error"]["code"] == "rate_limited"
    assert len(app.extensions["maxchen.rooms"].store.untouched_since(float("inf"))) == 3


def test_a_flood_of_socket_events_is_refused_and_changes_nothing():
    app = _app(MAXCHEN_LIMIT_EVENTS="5 per 10 seconds")
    api = Api(app.test_client())
    seat = api.create("Ann")
    client = socketio.test_client(app, auth={"token": seat["token"]})
    try:
        answers = [client.emit("signal", {"activity": None}, callback=True) for _ in range(5)]
        assert answers == [{"ok": True}] * 5
        refused = client.emit("action", {"action": "configure", "options": {"rules": "poschen"}}, callback=True)
        assert refused["error"]["code"] == "rate_limited" and refused["error"]["params"]["seconds"] > 0
        assert api.view(seat["code"], seat["token"]).json["rules"] == "maexchen"
    finally:
        client.disconnect()


def test_a_flood_of_api_actions_shares_the_seats_budget_and_changes_nothing():
    """A script on the JSON API (or a page's forms) counts as the seat's sockets do."""
    app = _app(MAXCHEN_LIMIT_EVENTS="5 per 10 seconds")
    api = Api(app.test_client())
    seat = api.create("Ann")
    rules = ["poschen", "maexchen", "luegen", "maexchen", "poschen"]
    answers = [api.act(seat["code"], seat["token"], "configure", options={"rules": r}).status_code for r in rules]
    assert answers == [200] * 5
    refused = api.act(seat["code"], seat["token"], "configure", options={"rules": "luegen"})
    assert refused.status_code == 429 and refused.json["error"]["code"] == "rate_limited"
    assert refused.headers["Retry-After"] == str(refused.json["error"]["params"]["seconds"])
    assert api.view(seat["code"], seat["token"]).json["rules"] == "poschen"


def test_sockets_guessing_tokens_are_refused_up_front():
    app = _app(MAXCHEN_LIMIT_FAILURES="3 per minute")
    seat = Api(app.test_client()).create("Ann")
    for _ in range(3):
        guess = socketio.test_client(app, auth={"token": "guess"})
        assert not guess.is_connected()
    assert not socketio.test_client(app, auth={"token": "guess again"}).is_connected()  # refused up front
    # A seat's own socket from the same address (a player behind the guesser's router) still comes in.
    honest = socketio.test_client(app, auth={"token": seat["token"]})
    assert honest.is_connected()
    honest.disconnect()


@pytest.mark.parametrize("path", ["/r/ABCDE/act"])
def test_an_htmx_form_over_the_limit_gets_a_toast(path):
    client = _app(MAXCHEN_LIMIT_FAILURES="1 per minute").test_client()
    client.get("/r/ZZZZZ")  # one miss
    response = client.post(path, data={"action": "start"}, headers={"HX-Request": "true"})
    assert response.headers["X-Maxchen-Toast"] == "1"
    assert "Try again in" in response.get_data(as_text=True)


def test_a_guesser_behind_the_same_router_does_not_stop_the_players():
    """Players of a room keep playing while someone on their address guesses codes."""
    app = _app(MAXCHEN_LIMIT_FAILURES="5 per minute")
    player = app.test_client()
    created = player.post("/rooms", data={"name": "Ann"})
    code = created.headers["Location"].rsplit("/", 1)[1]
    bot = Api(app.test_client())
    seat = bot.join(code, "Bot")
    guesser = app.test_client()
    for n in range(6):
        guesser.get(f"/r/ZZZZ{n}")
    assert guesser.get("/r/ZZZZZ").status_code == 429  # the guessing stays blocked
    assert player.get(f"/r/{code}").status_code == 200  # the page of a seat holder
    assert player.post(f"/r/{code}/act", data={"action": "start"}, headers={"HX-Request": "true"}).status_code in (
        200,
        204,
    )
    assert bot.view(code, seat["token"]).status_code == 200  # a bot's own room
    assert guesser.get("/").status_code == 200  # and the home page
    assert bot.view(code, "forged").status_code == 429


def test_over_the_failure_budget_a_browser_still_goes_back_to_its_room_and_a_student_to_their_seat():
    app = _app(MAXCHEN_LIMIT_FAILURES="3 per minute")
    browser = app.test_client()
    code = browser.post("/rooms", data={"name": "Ann"}).headers["Location"].rsplit("/", 1)[1]
    klass = app.extensions["maxchen.classes"].create("maexchen", 4)["code"]
    student = app.test_client().post(f"/api/classes/{klass}/students", json={"name": "Zoe"}).json["token"]
    for n in range(5):
        browser.get(f"/r/ZZZZ{n}")
    assert browser.get("/r/ZZZZZ").status_code == 429  # over the budget
    # The home page's join form with the room's own code (typed in lower case) goes back to the table.
    back = browser.post("/join", data={"code": code.lower(), "name": "Ann"})
    assert back.status_code == 303 and back.headers["Location"].endswith(f"/r/{code}")
    assert browser.post("/join", data={"code": "QQQQQ", "name": "Ann"}).status_code == 429
    # A student's own token asks where they sit; a guessed one stays blocked.
    seat = browser.get(f"/api/classes/{klass}/seat", headers={"Authorization": f"Bearer {student}"})
    assert seat.status_code == 200 and seat.json == {"table": None, "player": None}
    assert browser.get(f"/api/classes/{klass}/seat", headers={"Authorization": "Bearer guess"}).status_code == 429


def test_a_new_socket_of_the_same_seat_starts_no_new_budget():
    app = _app(MAXCHEN_LIMIT_EVENTS="4 per 10 seconds")
    seat = Api(app.test_client()).create("Ann")
    answers = []
    for _ in range(3):  # reconnect after every second event
        client = socketio.test_client(app, auth={"token": seat["token"]})
        answers += [client.emit("signal", {"activity": None}, callback=True) for _ in range(2)]
        client.disconnect()
    assert [a.get("ok") for a in answers] == [True] * 4 + [None] * 2
    assert answers[-1]["error"]["code"] == "rate_limited"


def test_expired_windows_are_swept_out_in_one_pass_a_second_not_after_every_hit(monkeypatch):
    from limits import parse
    from limits.strategies import SlidingWindowCounterRateLimiter

    from maxchen.throttle import SweptMemoryStorage

    storage = SweptMemoryStorage()
    storage.timer.join(timeout=5)  # the library's first sweep, started with the storage
    windows = SlidingWindowCounterRateLimiter(storage)
    one = parse("1 per second")
    assert windows.hit(one, "seat") and not windows.hit(one, "seat")
    assert storage.timer.interval == SweptMemoryStorage.SWEEP_SECONDS  # one sweep pending, a second away
    pending = storage.timer
    windows.hit(one, "other")
    assert storage.timer is pending  # a further hit schedules no further sweep
    pending.join(timeout=5)
    storage.timer.join(timeout=5)
    windows_left = [key for key in storage.storage if "seat" in key]
    assert len(windows_left) <= 1  # the first second's window is gone; at most the one still counting stays


def test_a_one_phone_table_has_no_watchers():
    app = _app()
    table = app.extensions["maxchen.rooms"].create_shared(["Anna", "Boris"])
    watcher = socketio.test_client(app, auth={"room": table["code"], "watch": True})
    assert not watcher.is_connected()


def test_over_the_limit_an_address_still_makes_rooms_and_loads_the_manifest():
    client = _app(MAXCHEN_LIMIT_FAILURES="2 per minute").test_client()
    for n in range(3):
        client.get(f"/r/ZZZZ{n}")
    assert client.get("/r/ZZZZZ").status_code == 429
    assert client.get("/manifest.webmanifest").status_code == 200
    assert client.post("/api/rooms", json={"name": "Ann"}).status_code == 201  # nothing to guess there


def test_a_seat_in_the_cookie_does_not_vouch_for_guessed_tokens():
    app = _app(MAXCHEN_LIMIT_FAILURES="3 per minute")
    browser = app.test_client()
    code = browser.post("/rooms", data={"name": "Ann"}).headers["Location"].rsplit("/", 1)[1]
    guesses = [
        browser.get(f"/api/rooms/{code}", headers={"Authorization": f"Bearer guess{n}"}).status_code for n in range(5)
    ]
    assert guesses == [401, 401, 401, 429, 429]
    assert browser.get(f"/r/{code}").status_code == 200  # the seat's own page still opens


def test_a_flood_of_open_pages_from_one_address_waits():
    client = _app(MAXCHEN_LIMIT_PAGES="5 per minute").test_client()
    answers = [client.get(path).status_code for path in ["/", "/rules", "/", "/manifest.webmanifest", "/", "/"]]
    assert answers == [200] * 5 + [429]
    assert client.get("/static/style.css").status_code == 200  # files are not pages


def test_the_board_counts_as_a_page():
    app = _app(MAXCHEN_LIMIT_PAGES="3 per minute")
    code = Api(app.test_client()).create("Ann")["code"]
    client = app.test_client()
    assert [client.get(f"/r/{code}/board").status_code for _ in range(4)] == [200, 200, 200, 429]


def test_a_route_that_declares_no_limits_stops_the_app_from_starting():
    """Limits attach where a route is declared: one without is found at start, not by a flood."""
    from flask import Flask

    from maxchen.budgets import PAGES, limited
    from maxchen.throttle import Throttle

    app = Flask(__name__)
    app.add_url_rule("/declared", "declared", limited(PAGES, open=True)(lambda: "ok"))
    app.add_url_rule("/forgotten", "forgotten", lambda: "ok")
    with pytest.raises(RuntimeError, match="forgotten declares no limits"):
        Throttle(app)
    with pytest.raises(ValueError, match="no limit"):
        limited("MAXCHEN_LIMIT_TYPO")
