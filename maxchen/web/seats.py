"""A browser's seats and classes, kept in its signed session cookie, and the rooms they name.

Kept as [code, token] pairs, newest last: the cookie's JSON sorts a dict's
keys and would lose which are the newest.
"""

from flask import abort, current_app, make_response, redirect, request, session, url_for

from ..errors import IllegalMove
from ..rooms import normalize_code
from ..security import bearer_token
from ..table import hash_token

SEATS_KEPT = 20  # the newest seats a browser keeps in its cookie: the cookie stays far below 4 KB
CLASSES_KEPT = 5  # the newest classes a browser keeps


def rooms():
    """The app's rooms registry."""
    return current_app.extensions["maxchen.rooms"]


def _held(key: str) -> dict[str, str]:
    """The {code: token} pairs the session cookie keeps under `key`, oldest first."""
    pairs = session.get(key)
    if isinstance(pairs, dict):  # cookies written before the pairs
        return dict(pairs)
    if isinstance(pairs, list):
        return {pair[0]: pair[1] for pair in pairs if isinstance(pair, list) and len(pair) == 2}
    return {}


def _keep(key: str, held: dict[str, str], kept: int) -> None:
    session[key] = [[code, token] for code, token in list(held.items())[-kept:]]


def browser_seats() -> dict[str, str]:
    """This browser's seats, {room code: token}, oldest first."""
    return _held("seats")


def browser_classes() -> dict[str, str]:
    """This browser's classes, {class code: token} (the teacher's or a student's), oldest first."""
    return _held("classes")


def holds(code: str) -> bool:
    """This request holds a seat in room `code` or a place in class `code`.

    A bearer token speaks for itself: a seat in the cookie vouches for no guessed token.
    """
    token = bearer_token()
    if token is None:
        return code in browser_seats() or code in browser_classes()
    if rooms().store.find_token(hash_token(token)) == code:
        return True
    try:
        current_app.extensions["maxchen.classes"].role(code, token)
    except IllegalMove:  # no such class, or not its token
        return False
    return True


def remember(code: str, token: str, name: str) -> None:
    """Keep a seat in the cookie, newest last; seats of rooms that are gone are dropped."""
    registry = rooms()
    seats = {old: held for old, held in browser_seats().items() if old != code and registry.exists(old)}
    seats[code] = token
    _keep("seats", seats, SEATS_KEPT)
    session["name"] = name
    session.permanent = True


def remember_class(code: str, token: str) -> None:
    """Keep a class (the teacher's or a student's token) in the cookie, newest last."""
    held = {old: t for old, t in browser_classes().items() if old != code}
    held[code] = token
    _keep("classes", held, CLASSES_KEPT)
    session.permanent = True


def me(code: str) -> str | None:
    """The player this browser is in room `code`, or None (a seat the room no longer knows is forgotten)."""
    token = browser_seats().get(code)
    if not token:
        return None
    try:
        return rooms().authenticate(code, token)
    except IllegalMove:
        seats = browser_seats()
        seats.pop(code, None)
        _keep("seats", seats, SEATS_KEPT)
        return None


def code_or_404(code: str) -> str:
    """A URL's room code, normalized; 404 when it cannot be one."""
    try:
        return normalize_code(code)
    except IllegalMove:
        abort(404)


def room_or_404(code: str) -> str:
    """The code of a room that is there; 404 when it is not."""
    code = code_or_404(code)
    if not rooms().exists(code):
        abort(404)
    return code


def gone(code: str, why: str):
    """Send a page back to the room's name form, saying why (`?gone=`)."""
    url = url_for("pages.room", code=code, gone=why)
    if not request.headers.get("HX-Request"):  # a form sent before the page's scripts ran
        return redirect(url, 303)
    response = make_response("", 204)
    response.headers["HX-Redirect"] = url
    return response


def seated(code: str) -> tuple[str, str]:
    """The room's code and this browser's player; a lost seat goes back to the name form."""
    code = code_or_404(code)
    player = me(code)  # a seat says the room is there; without one, is it?
    if player is None:
        abort(gone(room_or_404(code), "seat"))
    return code, player
