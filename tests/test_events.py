"""The Socket.IO protocol through Flask-SocketIO's test clients."""

import json

import pytest

from .conftest import wait_until


def views(client):
    return [m["args"][0] for m in client.get_received() if m["name"] == "view"]


def test_a_bad_token_is_refused_at_connect(sio, table):
    assert not sio("forged").is_connected()
    assert not sio(auth=None).is_connected()
    assert not sio(auth={"token": 12}).is_connected()


def test_on_connect_a_socket_gets_its_own_view_and_others_see_it_connected(sio, table):
    code, ann, ben, cem = table
    a = sio(ann["token"])
    (first,) = views(a)
    assert first["you"] == ann["player"]
    assert [p["connected"] for p in first["players"]] == [True, False, False]
    b = sio(ben["token"])
    assert views(b)[-1]["you"] == ben["player"]
    (update,) = views(a)
    assert [p["connected"] for p in update["players"]] == [True, True, False]
    assert update["version"] == first["version"]  # connections do not count
    b.disconnect()
    (update,) = views(a)
    assert [p["connected"] for p in update["players"]] == [True, False, False]


def test_three_players_each_receive_only_their_own_view(sio, table, dice):
    code, ann, ben, cem = table
    clients = {p["player"]: sio(p["token"]) for p in (ann, ben, cem)}
    for client in clients.values():
        client.get_received()
    dice.add((6, 4))
    a = clients[ann["player"]]
    assert "view" in a.emit("action", {"action": "start"}, callback=True)
    ack = a.emit("action", {"action": "shake"}, callback=True)
    assert ack["view"]["dice"] == [6, 4]
    for player, client in clients.items():
        received = client.get_received()
        assert received, "every member hears of every change"
        for message in received:
            view = message["args"][0]
            assert view["you"] == player
            if player != ann["player"]:
                assert view["dice"] is None
                assert "[6, 4]" not in json.dumps(message)


def test_actions_answer_errors_in_the_ack(sio, table):
    code, ann, ben, cem = table
    b = sio(ben["token"])
    assert b.emit("action", {"action": "start"}, callback=True)["error"]["code"] == "not_host"
    assert b.emit("action", "start", callback=True)["error"]["code"] == "bad_request"
    assert b.emit("action", {"action": "start", "version": "x"}, callback=True)["error"]["code"] == "bad_request"


def test_double_submission_of_check_counts_once(sio, table, dice):
    code, ann, ben, cem = table
    a, b = sio(ann["token"]), sio(ben["token"])
    dice.add((3, 2))
    a.emit("action", {"action": "start"}, callback=True)
    a.emit("action", {"action": "shake"}, callback=True)
    view = a.emit("action", {"action": "announce", "value": 65}, callback=True)["view"]
    first = b.emit("action", {"action": "check", "version": view["version"]}, callback=True)
    second = b.emit("action", {"action": "check", "version": view["version"]}, callback=True)
    assert first["view"]["reveal"]["loser"] == ann["player"]
    assert second["error"]["code"] == "stale"
    points = {p["name"]: p["points"] for p in first["view"]["players"]}
    assert points == {"Ann": 1, "Ben": 0, "Cem": 0}
    final = b.emit("action", {"action": "check"}, callback=True)
    assert final["error"]["code"] == "not_your_turn"  # without a version the rules refuse it


def test_reconnect_with_the_same_token_takes_the_same_seat(sio, table):
    code, ann, ben, cem = table
    b = sio(ben["token"])
    seat = views(b)[-1]["you"]
    b.disconnect()
    again = sio(ben["token"])
    assert views(again)[-1]["you"] == seat == ben["player"]


def test_a_browser_connects_with_its_session_cookie(app, sio, table):
    code, ann, ben, cem = table
    browser = app.test_client()
    with browser.session_transaction() as session:
        session["seats"] = {code: cem["token"]}
    client = sio(auth={"room": code.lower()}, flask_test_client=browser)
    assert client.is_connected()
    # A page gets its areas rendered, at once: the public ones and its own controls.
    (welcome,) = [m["args"][0] for m in client.get_received() if m["name"] == "parts"]
    assert welcome["reset"] is True
    html = welcome["html"]
    assert [area for area in ("players", "table", "controls") if f'id="{area}"' in html] == [
        "players",
        "table",
        "controls",
    ]
    cup = json.loads(html.split('id="cup-view">', 1)[1].split("</script>", 1)[0])
    assert cup["you"] == cem["player"]
    stranger = app.test_client()
    assert not sio(auth={"room": code}, flask_test_client=stranger).is_connected()


def test_http_actions_reach_connected_sockets(api, sio, table):
    code, ann, ben, cem = table
    b = sio(ben["token"])
    b.get_received()
    api.act(code, ann["token"], "start")
    (view,) = views(b)
    assert view["phase"] == "playing"


def test_a_removed_player_hears_it_and_loses_the_seat(api, sio, table, rooms):
    code, ann, ben, cem = table
    c = sio(cem["token"])
    c.get_received()
    api.act(code, ann["token"], "remove", player=cem["player"])
    # Told "removed" (tests/test_attacks.py hears it on a real socket), then the server lets go of
    # the socket: it hears nothing more of the room (no ghost watcher).
    assert wait_until(lambda: not c.is_connected(), 10)
    assert all(s.player != cem["player"] for s in rooms.presence.sockets(code))


def test_a_player_who_leaves_hears_nothing_more_of_the_room(api, sio, table, rooms):
    code, ann, ben, cem = table
    c = sio(cem["token"])
    assert c.emit("action", {"action": "leave"}, callback=True)["view"] is None  # answered first
    assert wait_until(lambda: not c.is_connected(), 10)
    assert all(s.player != cem["player"] for s in rooms.presence.sockets(code))


def test_others_see_a_peek_but_never_the_dice(sio, table, dice):
    code, ann, ben, cem = table
    a, b = sio(ann["token"]), sio(ben["token"])
    dice.add((5, 5))
    assert b.emit("signal", {"activity": "shaking"}, callback=True)["error"]["code"] == "not_allowed"
    a.emit("action", {"action": "start"}, callback=True)
    assert a.emit("signal", {"activity": "peeking"}, callback=True)["error"]["code"] == "not_allowed"
    assert a.emit("signal", {"activity": "shaking"}, callback=True) == {"ok": True}
    a.emit("action", {"action": "shake"}, callback=True)
    b.get_received()
    assert a.emit("signal", {"activity": "peeking"}, callback=True) == {"ok": True}
    (view,) = views(b)
    assert next(p for p in view["players"] if p["id"] == ann["player"])["activity"] == "peeking"
    assert view["dice"] is None and "[5, 5]" not in json.dumps(view)
    assert a.emit("signal", {"activity": "dancing"}, callback=True)["error"]["code"] == "bad_request"
    a.emit("signal", {"activity": None}, callback=True)
    (view,) = views(b)
    assert all(p["activity"] is None for p in view["players"])


def test_events_without_a_body_are_answered_not_dropped(sio, table):
    code, ann, ben, cem = table
    a = sio(ann["token"])
    assert a.emit("action", callback=True)["error"]["code"] == "bad_request"
    assert a.emit("signal", callback=True)["error"]["code"] == "bad_request"
    # More arguments than an event takes: the first counts, the rest is ignored (no traceback, an answer).
    assert a.emit("signal", {"activity": None}, 2, callback=True) == {"ok": True}
    assert a.emit("action", {"action": "start"}, 1, callback=True)["view"]["phase"] == "playing"


def test_client_events_named_connect_or_disconnect_change_nothing(sio, table, rooms):
    """Presence follows the real connection only (hardening 4)."""
    code, ann, ben, cem = table
    a = sio(ann["token"])
    a.get_received()
    a.emit("disconnect")
    a.emit("connect", {"token": ben["token"]})
    assert rooms.connected(code) == {ann["player"]: None}
    assert a.emit("signal", {"activity": None}, callback=True) == {"ok": True}  # still Ann, still here
    a.disconnect()
    assert rooms.connected(code) == {}


def test_a_binary_event_announcing_endless_attachments_is_ignored_and_keeps_nothing(api, sio, table):
    """'45999999999-[...]': python-socketio would keep every binary frame until all had come."""
    from maxchen.server import socketio

    code, ann, _ben, _cem = table
    client = sio(ann["token"])
    server = socketio.server
    # (on the wire '45…': engine.io's message type 4, then Socket.IO's binary event 5)
    server._handle_eio_message(client.eio_sid, '5999999999-["action",{"_placeholder":true,"num":0}]')
    assert client.eio_sid not in server._binary_packet
    for _ in range(3):
        server._handle_eio_message(client.eio_sid, bytes(12_000))  # frames with no packet to join
    assert client.eio_sid not in server._binary_packet
    assert client.is_connected()
    answer = client.emit("action", {"action": "start"}, callback=True)
    assert answer["view"]["phase"] == "playing"  # the seat plays on


def _page(app, sio, code, token, lang="en"):
    browser = app.test_client()
    with browser.session_transaction() as session:
        session["seats"] = {code: token}
    page = sio(auth={"room": code, "lang": lang}, flask_test_client=browser)
    page.get_received()
    return page


def test_a_room_page_sends_its_forms_over_its_socket_and_hears_a_refusal_as_a_toast(app, sio, table, rooms):
    """The page's forms, fields as strings as a form has them; the pushes bring the change."""
    code, ann, ben, cem = table
    host, guest = _page(app, sio, code, ann["token"]), _page(app, sio, code, ben["token"], "de")
    assert host.emit("form", {"action": "start"}, callback=True) == {"ok": True}
    assert rooms.load(code).phase == "playing"
    assert any(m["name"] == "parts" for m in guest.get_received())  # as every change reaches every page

    answer = guest.emit("form", {"action": "announce", "value": "65"}, callback=True)
    assert answer["error"]["code"] == "not_your_turn"
    assert answer["toast"] == '<p class="toast-message">Du bist nicht am Zug.</p>'
    version = rooms.load(code).version
    for fields, reason in (
        ({"action": "shake", "version": "x1"}, "whole_number"),
        ({"action": 5}, "not_json"),
        (["shake"], "not_json"),
        ({"action": "shake", "version": 1}, "not_json"),
        ({f"f{i}": "" for i in range(65)}, "not_json"),
        (None, "not_json"),  # no fields: never the connection's opening request's (it read the socket)
    ):
        answer = host.emit("form", fields, callback=True)
        assert answer["error"]["reason"] == reason, fields
        assert 'class="toast-message"' in answer["toast"]
    assert rooms.load(code).version == version  # nothing changed

    bot = sio(cem["token"])
    assert bot.emit("form", {"action": "shake"}, callback=True)["error"]["reason"] == "connect_first"
    assert guest.emit("form", {"action": "leave"}, callback=True) == {"gone": f"/r/{code}?gone=left"}
    assert rooms.load(code).seat(ben["player"]) is None


@pytest.mark.parametrize(
    "packet",
    [
        '21["action",NaN]',
        '22["action",Infinity]',
        '23["action","\\ud800"]',  # a lone surrogate
        "24[" + "[" * 40 + "]" * 40 + "]",  # deeper than any message of ours
        "25[]",  # an event without a name
        "26[5]",
        '51-7["action",{"_placeholder":true,"num":0}]',  # a binary event
    ],
)
def test_an_unreadable_packet_that_asks_for_an_answer_gets_bad_request(sio, table, packet):
    """python-socketio dropped these without a word: a script waiting on its ack waited for ever."""
    from maxchen.server import socketio

    code, ann, _ben, _cem = table
    client = sio(ann["token"])
    client.acks = None
    socketio.server._handle_eio_message(client.eio_sid, packet)
    assert client.acks is not None, packet
    assert client.acks["args"][0]["error"]["code"] == "bad_request"
    assert client.is_connected()
    answer = client.emit("action", {"action": "start"}, callback=True)
    assert answer["view"]["phase"] == "playing"  # the seat plays on


@pytest.mark.parametrize("event", ["shake", "Action", "connect_error", "x" * 200, "connect", "disconnect"])
def test_an_event_of_no_known_name_that_asks_for_an_answer_hears_why(sio, table, event):
    """python-socketio left it without an ack: a script with a typo in the event's name waited for ever."""
    code, ann, _ben, _cem = table
    client = sio(ann["token"])
    answer = client.emit(event, {"action": "start"}, callback=True)
    assert answer["error"]["code"] == "bad_request"
    assert answer["error"]["reason"] == "unknown_event"
    assert client.is_connected()
    assert client.emit("action", {"action": "start"}, callback=True)["view"]["phase"] == "playing"


def test_a_packet_of_no_known_type_is_passed_over_without_a_traceback(sio, table):
    from maxchen.server import socketio

    code, ann, _ben, _cem = table
    client = sio(ann["token"])
    socketio.server._handle_eio_message(client.eio_sid, '91["x"]')  # python-socketio raised "Unknown packet type"
    assert client.is_connected()
    assert client.emit("action", {"action": "start"}, callback=True)["view"]["phase"] == "playing"


def test_a_room_takes_twenty_watchers_and_refuses_the_next_with_a_reason(app, sio, table):
    from maxchen.presence import WATCHERS_PER_ROOM

    app.config["MAXCHEN_LIMIT_PAGES"] = "1000 per second"  # a watcher costs a page: here they come all at once
    code = table[0]
    watchers = [sio(auth={"room": code, "watch": True}) for _ in range(WATCHERS_PER_ROOM)]
    assert all(w.is_connected() for w in watchers)
    assert not sio(auth={"room": code, "watch": True}).is_connected()
    # The host's own board for the projector still gets in: strangers cannot crowd out the table's screen.
    host = app.test_client()
    with host.session_transaction() as session:
        session["seats"] = [[code, table[1]["token"]]]
    own = sio(auth={"room": code, "watch": True}, flask_test_client=host)
    assert own.is_connected()
    own.disconnect()
    watchers[0].disconnect()
    assert sio(auth={"room": code, "watch": True}).is_connected()  # a place is free again


def test_a_watcher_costs_what_a_page_costs(app, sio, table, steady_limits):
    app.config["MAXCHEN_LIMIT_PAGES"] = "2 per minute"
    code = table[0]
    first, second, third = (sio(auth={"room": code, "watch": True}) for _ in range(3))
    assert first.is_connected() and second.is_connected() and not third.is_connected()
