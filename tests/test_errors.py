"""Every bad input gets a clear answer, never a bare 500: deep JSON, broken rooms, error pages."""

import logging

import pytest

from maxchen.fastjson import MAX_DEPTH

from .test_web import make_seat


@pytest.mark.parametrize(
    "body",
    ["[" * 5000, "[" * 5000 + "]" * 5000, '{"name": ' + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5) + "}"],
)
def test_json_nested_too_deep_is_a_bad_request(client, body, rooms):
    response = client.post("/api/rooms", data=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 400 and response.json["error"]["code"] == "bad_request"
    assert rooms.store.untouched_since(float("inf")) == []  # nothing created


def test_a_room_that_does_not_load_is_reported_once_and_explained(app, rooms, caplog):
    browser, code = make_seat(app)
    data = rooms.store.load(code)
    del data["seats"][0]["name"]  # what an old bug or a hand-edited file leaves behind
    rooms.store.save(code, data)
    with caplog.at_level(logging.ERROR, logger="maxchen.rooms"):
        for _ in range(3):
            page = browser.get(f"/r/{code}")
            assert page.status_code == 500
            html = page.get_data(as_text=True)
            assert "saved game cannot be read" in html and 'href="/"' in html
        token = app.test_client()  # the API answers the same in JSON
        api = token.post(f"/api/rooms/{code}/players", json={"name": "Ben"})
        assert api.status_code == 500 and api.json["error"]["code"] == "room_broken"
    assert [r.message for r in caplog.records].count(f"room {code} does not load; its players are told so") == 1


def test_http_errors_are_pages_with_a_way_home(client):
    response = client.get("/rooms")  # a form's address, opened by hand
    assert response.status_code == 405
    html = response.get_data(as_text=True)
    assert "opened through its form" in html and "Error 405" in html and 'class="button primary" href="/"' in html
    assert "Content-Security-Policy" in response.headers
    german = client.get("/rooms", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "Das hat nicht geklappt" in german and "Method Not Allowed" not in german
    lost = client.get("/no/such/page").get_data(as_text=True)
    assert "There is no such page." in lost and "No such room" not in lost
