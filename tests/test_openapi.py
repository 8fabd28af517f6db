"""docs/openapi.yaml against the code: routes, codes, real answers, and schemathesis on the real server.

The document is checked three ways: its paths, codes and enums are the ones
the code defines; every answer of whole games of each rule set, and every
kind of refusal, fits the schema the document gives for its status; and
schemathesis sends generated requests to `python app.py` and checks each
answer against the document (no 5xx; documented status, type and schema).
"""

import random
import re

import pytest
import requests
import schemathesis
import yaml
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from maxchen.errors import REASONS, STATUS
from maxchen.rooms import Rooms
from maxchen.rules import two_dice as rules
from maxchen.rulesets import RULESETS
from maxchen.server import create_app
from maxchen.store import RedisStore
from maxchen.table import CODE_ALPHABET, ROOM_ACTIONS
from maxchen.web.locale import LANGUAGES

from .conftest import ROOT, RedisServer, SeededDice, Server, need_redis_server

OPENAPI = ROOT / "docs" / "openapi.yaml"
DOC = yaml.safe_load(OPENAPI.read_text(encoding="utf-8"))
# The schemathesis tests load the file: the server serves these very bytes (test_the_server_serves_the_document).
# schemathesis.pytest.from_fixture would load it from the server, but it fails under pytest 9.2 (Node._nodeid).
SCHEMA = schemathesis.openapi.from_dict(DOC)
TURN_ACTIONS = list(dict.fromkeys(action for game in RULESETS.values() for action in game.ACTIONS))
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]
# Generated requests per operation (beside schemathesis's coverage cases): the file stays well under a minute.
EXAMPLES = 40
EXAMPLES_IN_A_ROOM = 100
SCHEMATHESIS_SETTINGS = {
    "deadline": None,
    "suppress_health_check": list(HealthCheck),
    "derandomize": True,
    "database": None,
}
HTTP_ERRORS = {413: "bad_request"}  # errors of HTTP itself (api.json_error), beside errors.STATUS
UNLIMITED = {
    "MAXCHEN_LIMIT_FAILURES": "100000 per second",
    "MAXCHEN_LIMIT_ROOMS": "100000 per second",
    "MAXCHEN_LIMIT_EVENTS": "100000 per second",
}


def _at(ref: str):
    """The node a local `$ref` ("#/components/…") points to, refs followed."""
    node = DOC
    for key in ref.removeprefix("#/").split("/"):
        node = node[key]
    return _at(node["$ref"]) if isinstance(node, dict) and "$ref" in node else node


def _operations():
    for path, item in DOC["paths"].items():
        for method, operation in item.items():
            yield path, method, operation


def _response(response: dict) -> dict:
    """A response of the document, its `$ref` followed."""
    return _at(response["$ref"]) if "$ref" in response else response


def _error_codes(response: dict) -> list[str]:
    """The `code`s an error response of the document allows."""
    refined = _response(response)["content"]["application/json"]["schema"]["allOf"][1]
    return refined["properties"]["error"]["properties"]["code"]["enum"]


# --- the document is the code's ------------------------------------------------


def test_the_document_is_valid_openapi_3_1():
    assert DOC["openapi"].startswith("3.1.")
    SCHEMA.validate()


def test_the_document_has_every_api_route_and_no_other(app):
    routes = {
        (re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule), method.lower(), rule.endpoint)
        for rule in app.url_map.iter_rules()
        if rule.rule.startswith("/api/")
        for method in rule.methods - {"HEAD", "OPTIONS"}
    }
    documented = {(path, method, "api." + operation["operationId"]) for path, method, operation in _operations()}
    assert documented == routes


def test_every_error_code_is_documented_with_its_status():
    documented = {}
    for _, _, operation in _operations():
        for status, response in operation["responses"].items():
            if int(status) >= 400:
                for code in _error_codes(response):
                    documented.setdefault(code, set()).add(int(status))
    expected = {code: {status} for code, status in STATUS.items()}
    for status, code in HTTP_ERRORS.items():
        expected[code].add(status)
    assert documented == expected


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        ("#/components/schemas/Reason/enum", set(REASONS)),
        ("#/components/schemas/Value/enum", list(rules.VALUES)),
        ("#/components/schemas/Rules/enum", set(RULESETS)),
        ("#/components/parameters/Lang/schema/enum", set(LANGUAGES)),
        ("#/components/schemas/View/properties/allowed/items/enum", {"start", *TURN_ACTIONS}),
    ],
)
def test_the_documents_enums_are_the_codes(where, expected):
    assert type(expected)(_at(where)) == expected


def test_every_action_has_its_request_schema():
    documented = [_at(one["$ref"])["properties"]["action"]["const"] for one in _at("#/components/schemas/Action/oneOf")]
    assert sorted(documented) == sorted({*ROOM_ACTIONS, *TURN_ACTIONS})


def test_the_options_are_the_rule_sets_options():
    documented = _at("#/components/schemas/Options/properties")
    defined = {name: option for game in RULESETS.values() for name, option in game.OPTIONS.items()}
    assert set(documented) == set(defined)
    for name, option in defined.items():
        described = option.describe()
        assert documented[name]["default"] == described["default"]
        if option.choices:
            assert documented[name]["enum"] == described["choices"]
        else:
            assert (documented[name]["minimum"], documented[name]["maximum"]) == (described["min"], described["max"])


@pytest.mark.parametrize(
    ("where", "alphabet"),
    [
        ("#/components/schemas/RoomCode/pattern", CODE_ALPHABET),
        ("#/components/parameters/Code/schema/pattern", CODE_ALPHABET + CODE_ALPHABET.lower()),
    ],
)
def test_room_codes_are_documented_with_their_alphabet(where, alphabet):
    pattern = _at(where)
    assert {ch for ch in map(chr, range(33, 127)) if re.fullmatch(pattern, ch * 5)} == set(alphabet)


def test_the_server_serves_the_document(client):
    response = client.get("/api/openapi.yaml")
    assert response.status_code == 200
    assert response.content_type == "application/yaml"
    assert response.data == OPENAPI.read_bytes()


# --- real answers fit it ------------------------------------------------------------


class Checked:
    """A JSON API client over Flask's test client that checks every answer against the document."""

    def __init__(self, client):
        self.client = client
        self.seen: set[tuple[str, str, int]] = set()  # (path, method, status) answered

    def call(self, method, path, code=None, token=None, **request):
        """One request; its answer must have a documented status and fit that status's schema."""
        headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
        response = self.client.open(path.replace("{code}", code or ""), method=method, headers=headers, **request)
        documented = DOC["paths"][path][method.lower()]["responses"]
        assert str(response.status_code) in documented, (method, path, response.status_code, response.json)
        SCHEMA[path][method].validate_response(response)
        for name, header in _response(documented[str(response.status_code)]).get("headers", {}).items():
            if header.get("required"):  # the one so far: Retry-After, in whole seconds
                assert response.headers.get(name, "").isdigit(), (name, response.headers)
        self.seen.add((path, method.lower(), response.status_code))
        return response.json

    def create(self, name, rules=None):
        return self.call("POST", "/api/rooms", json={"name": name, "rules": rules})

    def join(self, code, name):
        return self.call("POST", "/api/rooms/{code}/players", code, json={"name": name})

    def view(self, code, who):
        return self.call("GET", "/api/rooms/{code}", code, who["token"])

    def act(self, code, who, action, **body):
        return self.call("POST", "/api/rooms/{code}/actions", code, who["token"], json={"action": action, **body})


def _checked(seed) -> Checked:
    rooms = Rooms(dice=SeededDice(seed))
    # A whole game as fast as a test client plays it: far past a seat's budget of actions.
    config = {"TESTING": True, "ROOMS": rooms, "SECRET_KEY": "test", "MAXCHEN_LIMIT_EVENTS": "100000 per second"}
    config["OFFLINE_GRACE"] = 0  # the host removes a player the moment the game waits for them
    return Checked(create_app(config).test_client())


def _random_move(view, rng) -> dict:
    """A legal move drawn at random from what the view offers (low bids, so games end)."""
    action = rng.choice([a for a in view["allowed"] if a != "start"])
    move = {"action": action, "version": view["version"]}
    if action == "announce":
        move["value"] = rng.choice(view["choices"])
    elif action == "bid":
        move.update(rng.choice(view["choices"][:6]))
    return move


@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("maexchen", {}),
        ("maexchen", {"out_at": 3}),
        ("poschen", {"lives": 3}),
        ("luegen", {"mats": 3}),
        ("luegen", {"mats": 4, "playoff": "last_two"}),
        ("perudo", {"dice": 3}),
    ],
)
def test_every_answer_of_a_whole_game_fits_the_document(game, options):
    checked, rng = _checked(game), random.Random(game)
    ann = checked.create("Ann", game)
    code = ann["code"]
    seats = [ann] + [checked.join(code.lower(), name) for name in ("Ben", "Cem", "Dan", "Eva")]
    checked.act(code, ann, "configure", options=options)
    checked.act(code, ann, "seat", player=seats[4]["player"], seat=0)
    checked.act(code, ann, "start")
    # Fay comes late and waits; Eva leaves and Dan is removed mid-game.
    late = checked.join(code, "Fay")
    moves = 0
    while checked.view(code, ann)["phase"] == "playing":
        views = [(seat, checked.view(code, seat)) for seat in seats]
        checked.view(code, late)
        seat, view = rng.choice([(seat, view) for seat, view in views if set(view["allowed"]) - {"start"}])
        checked.act(code, seat, **_random_move(view, rng))
        if rng.random() < 0.1:  # now and then, any action by anyone: most are refused
            anything = [action for action in (*ROOM_ACTIONS, *TURN_ACTIONS) if action != "leave"]
            checked.act(code, rng.choice(seats), rng.choice(anything))
        moves += 1
        if moves == 6:
            assert checked.act(code, seats.pop(), "leave") == {"room": code, "you": None, "left": True}
        if moves == 12:
            checked.act(code, ann, "remove", player=seats.pop()["player"])
        assert moves < 5000, "the game never ended"
    for seat in [*seats, late]:
        checked.view(code, seat)
    # The statistics count the game at its length (the usual one where the host chose none).
    option = RULESETS[game].LENGTH
    length = options.get(option, RULESETS[game].OPTIONS[option].default)
    assert checked.call("GET", "/api/rooms/{code}/stats", code)["lengths"] == [
        {"rules": game, "length": length, "games": 1}
    ]
    # After the game the host may switch the rule set: a clean lobby of the new one.
    other = next(name for name in RULESETS if name != game)
    checked.act(code, ann, "configure", rules=other)
    for seat in [*seats, late]:
        checked.view(code, seat)


@pytest.mark.parametrize("game", [name for name, ruleset in RULESETS.items() if ruleset.SHARED_PHONE])
def test_every_answer_at_a_one_phone_table_fits_the_document(game):
    checked, rng = _checked(game), random.Random(game)
    rooms = checked.client.application.extensions["maxchen.rooms"]
    device = rooms.create_shared(["Anna", "Boris", "Carla"], game)
    code = device["code"]
    view = checked.view(code, device)
    while view["phase"] == "playing":
        if view["you"] is None:  # the cover is up: pass the phone on
            view = checked.act(code, device, "uncover", player=view["shared"]["next"])
        else:
            view = checked.act(code, device, **_random_move(view, rng))
    checked.view(code, device)


def test_every_documented_status_comes_up(tmp_path, steady_limits):
    checked = _checked("errors")
    app = checked.client.application
    ann = checked.create("Ann")
    code = ann["code"]
    ben = checked.join(code, "Ben")
    checked.create("", "maexchen")  # 400
    checked.call("POST", "/api/rooms", data="x" * 20_000, content_type="application/json")  # 413
    checked.join(code, "ben")  # 409 name_taken
    checked.join(code, "\x07")  # 400
    checked.join("ZZZZZ", "Ben")  # 404
    checked.call("POST", "/api/rooms/{code}/players", code, data="x" * 20_000, content_type="application/json")
    checked.view(code, ann)
    checked.view(code + "/nothing", ann)  # 404: no such path
    checked.call("GET", "/api/rooms/{code}", code, "forged")  # 401
    checked.call("GET", "/api/rooms/{code}", code, query_string={"lang": "de"})  # 401, no token
    checked.act(code, ben, "start")  # 403
    checked.act(code, {"token": "forged"}, "start")  # 401
    checked.act(code, ann, "configure", options={"lives": 3})  # 400 no_such_option
    checked.act(code, ann, "configure", options={"out_at": 4})  # 400 option_choice
    checked.act(code, ann, "start")
    checked.act(code, ann, "start")  # 409 game_running
    checked.act(code + "/nothing", ann, "start")  # 404: no such path
    checked.call("POST", "/api/rooms/{code}/actions", code, ann["token"], json={"action": "x" * 20_000})  # 413
    checked.call("GET", "/api/openapi.yaml")
    # A class: students join, and ask where they sit.
    klass = app.extensions["maxchen.classes"].create()["code"]
    students = "/api/classes/{code}/students"
    student = checked.call("POST", students, klass, json={"name": "Ann"})
    checked.call("POST", students, klass, json={"name": "ann"})  # 409
    checked.call("POST", students, klass, json={"name": ""})  # 400
    checked.call("POST", students, "ZZZZZZ", json={"name": "Ann"})  # 404
    checked.call("POST", students, klass, data="x" * 20_000, content_type="application/json")  # 413
    checked.call("GET", "/api/classes/{code}/seat", klass, student["token"])
    checked.call("GET", "/api/classes/{code}/seat", klass, "forged")  # 401
    checked.call("GET", "/api/classes/{code}/seat", "ZZZZZZ", student["token"])  # 404
    # The statistics, of a room, a one-phone table and a class; unknown codes.
    checked.call("GET", "/api/rooms/{code}/stats", code)
    checked.call("GET", "/api/rooms/{code}/stats", "ZZZZZ")  # 404
    rooms = app.extensions["maxchen.rooms"]
    checked.call("GET", "/api/rooms/{code}/stats", rooms.create_shared(["Al", "Bo"])["code"])  # 409 one_phone
    checked.call("GET", "/api/classes/{code}/stats", klass)
    checked.call("GET", "/api/classes/{code}/stats", "ZZZZZZ")  # 404
    # A room whose saved state does not load refuses everything, with 500.
    rooms.store.save(code, {**rooms.store.load(code), "game": {"spoilt": True}})
    checked.join(code, "Cem")
    checked.view(code, ann)
    checked.act(code, ann, "shake")
    checked.call("GET", "/api/rooms/{code}/stats", code)
    # Past its limit of failures, an address waits for all but the rooms it holds a seat in.
    app.config["MAXCHEN_LIMIT_FAILURES"] = "1 per hour"
    checked.call("GET", "/api/rooms/{code}", code, "forged")  # the one failure allowed
    app.config["MAXCHEN_LIMIT_ROOMS"] = "1 per hour"  # rooms have their own limit
    checked.create("Dan")
    checked.create("Eve")  # 429
    checked.join(code, "Dan")
    checked.view(code, {"token": "forged"})
    checked.act(code, {"token": "forged"}, "shake")
    checked.call("GET", "/api/classes/{code}/seat", klass, "forged")  # 429
    checked.call("POST", students, klass, json={"name": "Ben"})  # 429
    checked.call("GET", "/api/rooms/{code}/stats", "ZZZZZ")  # 429
    checked.call("GET", "/api/classes/{code}/stats", "ZZZZZZ")  # 429
    checked.call("GET", "/api/openapi.yaml")
    documented = {(path, method, int(status)) for path, method, op in _operations() for status in op["responses"]}
    assert checked.seen | _store_down(tmp_path) == documented


def _store_down(folder) -> set:
    """What a server on a Redis that stopped answers (503 `store_down`), route by route."""
    need_redis_server()
    redis_server = RedisServer(folder).start()
    try:
        rooms = Rooms(store=RedisStore(redis_server.url))
        checked = Checked(create_app({"TESTING": True, "ROOMS": rooms, "SECRET_KEY": "test"}).test_client())
        ann = checked.create("Ann")
        klass = checked.client.application.extensions["maxchen.classes"].create()["code"]
        redis_server.shutdown()
        checked.call("GET", "/api/rooms/{code}/stats", ann["code"])
        checked.call("GET", "/api/classes/{code}/stats", klass)
        checked.join(ann["code"], "Ben")
        checked.view(ann["code"], ann)
        checked.act(ann["code"], ann, "start")
        return {seen for seen in checked.seen if seen[2] == 503}
    finally:
        redis_server.stop()


# --- schemathesis against the real server -----------------------------------------


@pytest.fixture(scope="module")
def live():
    """One real server process (`python app.py`) for all generated requests.

    Made-up codes and tokens fail, and past the flood limits every answer
    would be 429: the limits are raised here (429 is checked above, through
    the test client).
    """
    started = Server("--db", "memory", env=UNLIMITED).wait_ready()
    yield started
    output = started.stop()
    assert "Traceback" not in output, output


def _post(url, body, token=None) -> dict:
    """A request that must work (setting up a room for generated requests)."""
    headers = {"Authorization": "Bearer " + token} if token else {}
    response = requests.post(url, json=body, headers=headers, timeout=10)
    assert response.status_code in (200, 201), response.text
    return response.json()


@SCHEMA.include(path_regex=r"\{code\}").parametrize()
@SCHEMA.given(game=st.sampled_from(list(RULESETS)), started=st.booleans())
@settings(max_examples=EXAMPLES_IN_A_ROOM, **SCHEMATHESIS_SETTINGS)
def test_the_real_server_keeps_to_the_document_in_a_real_room(case, live, game, started):
    # A fresh room of three, in the lobby or started; the request is the host's.
    ann = _post(live.url + "/api/rooms", {"name": "Ann", "rules": game})
    code = ann["code"]
    for name in ("Ben", "Cem"):
        _post(f"{live.url}/api/rooms/{code}/players", {"name": name})
    if started:
        _post(f"{live.url}/api/rooms/{code}/actions", {"action": "start"}, ann["token"])
    case.path_parameters = {**(case.path_parameters or {}), "code": code}
    case.headers = {**(case.headers or {}), "Authorization": "Bearer " + ann["token"]}
    case.call_and_validate(base_url=live.url, checks=CHECKS, timeout=10)


@SCHEMA.parametrize()
@settings(max_examples=EXAMPLES, **SCHEMATHESIS_SETTINGS)
def test_the_real_server_keeps_to_the_document(case, live):
    case.call_and_validate(base_url=live.url, checks=CHECKS, timeout=10)
