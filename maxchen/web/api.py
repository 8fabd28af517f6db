"""The JSON API for bots, scripts and tests (docs/API.md)."""

from functools import cache

from flask import Blueprint, Response, current_app, jsonify, request
from werkzeug.exceptions import HTTPException

from .. import paths, stats
from ..budgets import CLASS_JOINS, PAGES, ROOMS, limited
from ..errors import IllegalMove
from ..live import class_hunt_figures
from ..rulesets import DEFAULT
from ..security import bearer_token
from ..table import configured, normalize_code
from .share import link

bp = Blueprint("api", __name__, url_prefix="/api")

OPENAPI = paths.ROOT / "docs" / "openapi.yaml"


def _rooms():
    return current_app.extensions["maxchen.rooms"]


def act_as(code: str, player: str, action, view=True) -> dict | bool | None:
    """One action of a seat over HTTP, counted in the seat's budget as a socket's event is."""
    current_app.extensions["maxchen.throttle"].event(code, player)
    return _rooms().act(code, player, action, view=view)


def _body() -> dict:
    """The JSON object of the request, or IllegalMove `bad_request`."""
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise IllegalMove("not_json")
    return data


def _player(code) -> str:
    """The player the bearer token stands for in room `code`."""
    token = bearer_token()
    if token is None:
        raise IllegalMove("no_bearer")
    return _rooms().authenticate(code, token)


def json_error(error: HTTPException):
    """HTTP errors under /api answer JSON like every other refusal."""
    if not request.path.startswith(bp.url_prefix + "/"):
        return error
    code = "room_not_found" if error.code == 404 else "bad_request"
    return jsonify({"error": {"code": code, "message": error.description}}), error.code


@bp.post("/rooms")
@limited(ROOMS, open=True)
def create_room():
    """Create a room; the creator is its host."""
    body = _body()
    # Options as a lobby's configure takes them ({"options": {"mats": 6}}), checked the same way: none is dropped.
    asked = {**body, "rules": DEFAULT if body.get("rules") is None else body["rules"]}
    rules, options = configured(asked, DEFAULT, None)
    seat = _rooms().create(body.get("name"), rules, options=options)
    return jsonify({**seat, "url": link("r/" + seat["code"])}), 201


@bp.post("/rooms/<code>/players")
@limited()
def join_room(code):
    """Take a seat (or wait for the next game while one runs)."""
    return jsonify(_rooms().join(code, _body().get("name"))), 201


@bp.get("/rooms/<code>")
@limited()
def view(code):
    """The caller's view of the room."""
    return jsonify(_rooms().view(code, _player(code)))


@bp.post("/rooms/<code>/actions")
@limited()
def act(code):
    """Apply one action; answers the caller's new view."""
    player = _player(code)
    view = act_as(code, player, _body())
    return jsonify(view if view is not None else {"room": normalize_code(code), "you": None, "left": True})


@bp.get("/rooms/<code>/stats")
@limited(PAGES)
def room_stats(code):
    """The room's statistics as the statistics page shows them, for anyone with the code; no names."""
    room = _rooms().load(code)
    if room.shared:
        raise IllegalMove("one_phone")
    return jsonify({"room": room.code, "rules": room.rules, **stats.report(stats.shown(room.counts))})


def _classes():
    return current_app.extensions["maxchen.classes"]


@bp.post("/classes/<code>/students")
@limited(CLASS_JOINS)
def join_class(code):
    """Join a class as a student; the token is also the seat's at the table they are given."""
    return jsonify(_classes().join(code, _body().get("name"))), 201


@bp.get("/classes/<code>/seat")
@limited()
def class_seat(code):
    """Where the bearer's student sits: {"table": room code or null, "player": id or null}."""
    role, student = _classes().role(code, bearer_token())
    table = _classes().table_of(student) if role == "student" else None
    player = _rooms().authenticate(table, bearer_token()) if table else None
    return jsonify({"table": table, "player": player})


@bp.get("/classes/<code>/stats")
@limited(PAGES)
def class_stats(code):
    """Every table of the class pooled, as the class board shows them, for anyone with the code; no names."""
    overview = _classes().overview(code)
    loaded = overview["loaded"]
    found = overview["numbers"].get(loaded["table"]) if loaded else None
    hunt = stats.hunt_report(class_hunt_figures(overview), loaded, found)
    pooled = stats.report(_classes().pooled(overview["every_table"]))
    return jsonify({"class": overview["code"], **pooled, "hunt": hunt})


@cache
def _openapi() -> bytes:
    return OPENAPI.read_bytes()


@bp.get("/openapi.yaml")
@limited()  # one static file, cheap to send: the failure budget only, as for any door without its own
def openapi():
    """This API as an OpenAPI 3.1 document (docs/openapi.yaml)."""
    return Response(_openapi(), mimetype="application/yaml")
