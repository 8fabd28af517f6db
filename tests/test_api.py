"""The JSON API through Flask's test client."""

import pytest


def test_create_room_answers_code_seat_and_link(api, client):
    answer = api.create("Ann")
    assert set(answer) == {"code", "player", "token", "url"}
    assert answer["url"].endswith("/r/" + answer["code"])
    view = api.view(answer["code"], answer["token"]).json
    assert view["host"] == view["you"] == answer["player"]
    assert (view["rules"], view["phase"], view["version"]) == ("maexchen", "lobby", 0)
    assert view["players"] == [
        {
            "id": answer["player"],
            "name": "Ann",
            "connected": False,
            "activity": None,
            "waiting": False,
            "left": False,
            "bot": None,
            "out": False,
            "points": 0,
        }
    ]


def test_join_by_lower_case_code(api):
    ann = api.create("Ann")
    ben = api.join(ann["code"].lower(), "Ben")
    assert set(ben) == {"player", "token"}
    view = api.view(ann["code"], ben["token"]).json
    assert [p["name"] for p in view["players"]] == ["Ann", "Ben"]
    assert view["version"] == 1


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"name": ""}, 400, "bad_value"),
        ({"name": "x" * 21}, 400, "bad_value"),
        ({}, 400, "bad_value"),
        ({"name": "Ann", "rules": "skat"}, 400, "bad_value"),
        ([1, 2], 400, "bad_request"),
        ("not json", 400, "bad_request"),
        ({"name": "Ann", "rules": "luegen", "options": {"mats": 99}}, 400, "bad_value"),
        ({"name": "Ann", "rules": "luegen", "mats": 6}, 400, "bad_request"),  # outside "options": not dropped
        ({"name": "Ann", "options": {"lives": 3}}, 400, "bad_value"),  # Poschen's, not Mäxchen's
        ({"name": "Ann", "options": {"x" * 5000: 1}}, 400, "bad_value"),
        ({"name": "Ann", "options": [3]}, 400, "bad_request"),
    ],
)
def test_create_refuses_bad_input(client, body, status, code):
    if isinstance(body, str):
        response = client.post("/api/rooms", data=body, content_type="application/json")
    else:
        response = client.post("/api/rooms", json=body)
    assert response.status_code == status
    assert response.json["error"]["code"] == code
    assert response.json["error"]["message"] and len(response.json["error"]["message"]) < 200


@pytest.mark.parametrize(
    ("rules", "options"),
    [("luegen", {"mats": 6}), ("maexchen", {"out_at": 3}), ("perudo", {"dice": 3, "calza": "off"})],
)
def test_create_takes_the_lobbys_options(api, client, rules, options):
    """A room made with its options starts with them, as the host's configure would set them."""
    answer = client.post("/api/rooms", json={"name": "Ann", "rules": rules, "options": options}).json
    view = api.view(answer["code"], answer["token"]).json
    assert view["rules"] == rules and {key: view["options"][key] for key in options} == options


def test_errors_have_their_statuses(api, table):
    code, ann, ben, cem = table
    cases = [
        (api.view("ZZZZZ", ann["token"]), 401, "bad_token"),
        (api.view(code, "forged"), 401, "bad_token"),
        (api.client.get(f"/api/rooms/{code}"), 401, "bad_token"),
        (api.act(code, ben["token"], "start"), 403, "not_host"),
        (api.act(code, ann["token"], "shake"), 409, "not_allowed"),
        (api.act(code, ann["token"], "fly"), 400, "bad_request"),
        (api.client.post(f"/api/rooms/{code}/players", json={"name": "ben"}), 409, "name_taken"),
        (api.client.get("/api/nothing/here"), 404, "room_not_found"),
    ]
    for response, status, error in cases:
        assert (response.status_code, response.json["error"]["code"]) == (status, error)
    # Nothing changed: the room is where it was.
    assert api.view(code, ann["token"]).json["version"] == 2
    # A missing room and a wrong token answer alike: no way to tell which codes exist.
    assert api.view("ZZZZZ", "forged").json == api.view(code, "forged").json


def test_oversized_bodies_are_refused(client):
    response = client.post("/api/rooms", json={"name": "A" * 20, "pad": "x" * 20000})
    assert response.status_code == 413
    assert response.json["error"]["code"] == "bad_request"


def test_a_round_through_the_api(api, table, dice):
    code, ann, ben, cem = table
    dice.add((5, 2), (3, 3))
    assert api.act(code, ann["token"], "start").json["turn"] == {"player": ann["player"], "step": "shake"}
    view = api.act(code, ann["token"], "shake").json
    assert view["dice"] == [5, 2]
    assert view["choices"][0] == 31
    view = api.act(code, ann["token"], "announce", value="5-3").json
    assert view["announcement"] == {"player": ann["player"], "value": 53}
    # Ben sees the announcement but never Ann's dice.
    ben_view = api.view(code, ben["token"]).json
    assert ben_view["dice"] is None
    assert ben_view["allowed"] == ["believe", "check"]
    assert api.act(code, ben["token"], "announce", value=66).json["error"]["code"] == "not_allowed"
    api.act(code, ben["token"], "believe")
    assert api.view(code, ann["token"]).json["dice"] is None
    api.act(code, ben["token"], "shake")
    bad = api.act(code, ben["token"], "announce", value=52)
    assert (bad.status_code, bad.json["error"]["code"]) == (400, "not_higher")
    api.act(code, ben["token"], "announce", value=33)
    view = api.act(code, cem["token"], "check").json
    assert view["reveal"]["dice"] == [3, 3]
    assert view["reveal"]["loser"] == cem["player"]
    assert {p["name"]: p["points"] for p in view["players"]} == {"Ann": 0, "Ben": 0, "Cem": 1}
    assert view["turn"] == {"player": cem["player"], "step": "shake"}


def test_the_player_field_never_names_the_actor(api, table):
    code, ann, ben, cem = table
    # Ben cannot act as Ann by naming her: the token decides who acts.
    response = api.act(code, ben["token"], "start", player=ann["player"])
    assert response.json["error"]["code"] == "not_host"


def test_stale_version_over_http(api, table, dice):
    code, ann, ben, cem = table
    dice.add((4, 4))
    version = api.act(code, ann["token"], "start").json["version"]
    assert api.act(code, ann["token"], "shake", version=version).status_code == 200
    again = api.act(code, ann["token"], "shake", version=version)
    assert (again.status_code, again.json["error"]["code"]) == (409, "stale")


def test_leaving_answers_without_a_view(api, table):
    code, ann, ben, cem = table
    response = api.act(code, cem["token"], "leave")
    assert response.status_code == 200
    assert response.json["left"] is True
    assert api.view(code, cem["token"]).status_code == 401


def test_a_one_phone_table_refuses_joins_over_the_api(client, rooms, sio):
    device = rooms.create_shared(["Anna", "Boris"])
    code = device["code"]
    response = client.post(f"/api/rooms/{code}/players", json={"name": "Eve"})
    assert response.status_code == 409
    assert response.json["error"] == {
        "code": "one_phone",
        "reason": "one_phone",
        "params": {},
        "message": "This table plays on one phone.",
    }
    assert [s["name"] for s in rooms.store.load(code)["seats"]] == ["Anna", "Boris"]
    # Without a seat, no token: a socket with the room's code alone gets nothing.
    intruder = sio(auth={"room": code})
    assert not intruder.is_connected()


def test_an_option_sent_beside_options_not_in_them_is_refused_and_changes_nothing(api, table):
    """{"out_at": 3} at the top: a script would see 200 and the same game. It gets told where the option goes."""
    code, ann, _, _ = table
    before = api.view(code, ann["token"]).json
    for body in ({"out_at": 3}, {"mats": 4, "rules": "luegen"}, {"hint": "on", "options": {}}):
        response = api.act(code, ann["token"], "configure", **body)
        assert (response.status_code, response.json["error"]["code"]) == (400, "bad_request")
        assert '"options"' in response.json["error"]["message"]
        assert next(iter(k for k in body if k not in ("rules", "options"))) in response.json["error"]["message"]
    after = api.view(code, ann["token"]).json
    assert [after[k] for k in ("version", "rules", "options")] == [before[k] for k in ("version", "rules", "options")]
    # Inside "options" it takes.
    assert api.act(code, ann["token"], "configure", options={"out_at": 3}).status_code == 200
    assert api.view(code, ann["token"]).json["options"]["out_at"] == 3
