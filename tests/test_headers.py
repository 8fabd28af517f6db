"""Headers, cookies, host names and redirects (the hardening issue, point 7 and 10)."""

import pytest

from maxchen.rooms import Rooms
from maxchen.server import create_app

from .test_web import make_seat


def test_every_answer_forbids_inline_script_framing_and_sniffing(app, client):
    _, code = make_seat(app)
    paths = ("/", f"/r/{code}", "/rules", "/static/live.js", "/api/rooms/NOPE", "/no/such/page", SOCKET)
    for path in paths:
        headers = client.get(path).headers
        policy = dict(part.strip().split(" ", 1) for part in headers["Content-Security-Policy"].split(";"))
        assert policy["script-src"] == "'self'" and policy["frame-ancestors"] == "'none'", path
        assert "unsafe" not in headers["Content-Security-Policy"], path
        assert headers["X-Content-Type-Options"] == "nosniff", path
        assert headers["X-Frame-Options"] == "DENY" and headers["Referrer-Policy"] == "same-origin", path
        assert "Strict-Transport-Security" not in headers, path  # plain HTTP: no HSTS


SOCKET = "/socket.io/?EIO=4&transport=polling"


def _cookie(response, name):
    return next(value for value in response.headers.getlist("Set-Cookie") if value.startswith(name + "="))


def test_the_seat_cookie_is_secure_over_https_and_never_readable_by_script(app):
    plain = app.test_client().post("/rooms", data={"name": "Ann"})
    secure = app.test_client().post("/rooms", data={"name": "Ann"}, base_url="https://localhost")
    assert "Secure" not in _cookie(plain, "session")
    assert "Secure" in _cookie(secure, "session")
    for response in (plain, secure):
        assert "HttpOnly" in _cookie(response, "session") and "SameSite=Lax" in _cookie(response, "session")
    assert secure.headers["Strict-Transport-Security"].startswith("max-age=")
    lang = app.test_client().post("/lang", data={"lang": "de"}, base_url="https://localhost")
    assert all(flag in _cookie(lang, "lang") for flag in ("Secure", "HttpOnly", "SameSite=Lax"))


@pytest.mark.parametrize(
    "next_path",
    ["//evil.example/", "/\t/evil.example", "/\n/evil.example", "/\\evil.example", "https://evil.example/", "/é"],
)
def test_the_language_switch_never_leaves_the_site(client, next_path):
    response = client.post("/lang", data={"lang": "de", "next": next_path})
    assert response.status_code == 303 and response.headers["Location"] == "/"


def test_a_browser_keeps_its_newest_seats_and_forgets_rooms_that_are_gone(app):
    browser = app.test_client()
    rooms = app.extensions["maxchen.rooms"]
    codes = []
    for number in range(120):
        response = browser.post("/rooms", data={"name": f"Ann{number}"})
        codes.append(response.headers["Location"].rsplit("/", 1)[1])
        if number == 100:
            rooms.store.delete(codes[50])  # a room that went away meanwhile
    cookie = browser.get_cookie("session")
    assert len(cookie.value) < 2000  # browsers drop cookies past 4 KB
    with browser.session_transaction() as session:
        kept = [code for code, _ in session["seats"]]
    assert list(kept) == codes[-len(kept) :] and codes[50] not in kept
    page = browser.get(f"/r/{codes[-1]}").get_data(as_text=True)
    assert "Ann119" in page and 'name="name"' not in page  # still seated in the newest room


@pytest.fixture
def guarded():
    app = create_app(
        {"TESTING": True, "ROOMS": Rooms(), "MAXCHEN_HOSTS": ["localhost", "192.168.1.5", "party.example"]}
    )
    return app.test_client()


@pytest.mark.parametrize("host", ["localhost", "192.168.1.5:5000", "party.example", "LOCALHOST", "Party.Example:5000"])
def test_the_server_answers_to_its_own_names(guarded, host):
    assert guarded.get("/", headers={"Host": host}).status_code == 200


@pytest.mark.parametrize("path", ["/", "/api/rooms/ABCD", "/socket.io/?EIO=4&transport=polling"])
def test_another_host_name_is_refused_before_anything_runs(guarded, path):
    """DNS rebinding: a page of evil.example whose name now points at this server."""
    response = guarded.get(path, headers={"Host": "evil.example:5000", "Origin": "http://evil.example:5000"})
    assert response.status_code == 400
    assert b"--public-host" in response.data
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
