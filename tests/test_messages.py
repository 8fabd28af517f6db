"""One catalogue of refusals: a reason and params, rendered in the reader's language."""

import pytest

from maxchen import messages
from maxchen.errors import REASONS, IllegalMove

PARAMS = {
    "option": "mats",
    "choices": "a, b",
    "low": 2,
    "high": 10,
    "game": "Lügen",
    "action": "bid",
    "name": "Cem",
    "dice": 9,
    "field": "version",
    "limit": 20,
    "rules": "skat",
    "seconds": 30,
    "strategy": "psychic",
    "key": "out_at",
}


@pytest.mark.parametrize("lang", ["en", "de", "ru"])
@pytest.mark.parametrize("reason", sorted(REASONS))
def test_every_reason_reads_as_a_sentence_in_every_language(app, reason, lang):
    with app.app_context():
        text = messages.text(IllegalMove(reason, **PARAMS), lang)
    assert text and "%(" not in text and "?" not in text  # "?" stands for a missing param
    if lang != "en":
        assert text != messages.text(IllegalMove(reason, **PARAMS)), f"{reason} is not translated to {lang}"


@pytest.mark.parametrize(
    ("accept", "text"),
    [
        ("de-DE,de;q=0.9", "\u2068Cem\u2069 war schneller."),
        ("ru", "\u2068Cem\u2069 успел(а) раньше."),
        ("", "\u2068Cem\u2069 was faster."),
    ],
)
def test_the_api_answers_a_lost_race_in_the_callers_language(doubt_race, accept, text):
    from maxchen.server import create_app

    rooms, code, ben, version = doubt_race
    client = create_app({"TESTING": True, "ROOMS": rooms, "SECRET_KEY": "t"}).test_client()
    response = client.post(
        f"/api/rooms/{code}/actions",
        json={"action": "doubt", "version": version},
        headers={"Authorization": f"Bearer {ben['token']}", "Accept-Language": accept},
    )
    assert response.status_code == 409
    error = response.json["error"]
    assert (error["code"], error["reason"], error["params"], error["message"]) == (
        "stale",
        "faster",
        {"name": "Cem"},
        text,
    )


def test_a_socket_ack_speaks_the_lang_the_bot_sent(doubt_race):
    from maxchen.server import create_app, socketio

    rooms, code, ben, version = doubt_race
    app = create_app({"TESTING": True, "ROOMS": rooms, "SECRET_KEY": "t"})
    bot = socketio.test_client(app, auth={"token": ben["token"], "lang": "de"})
    ack = bot.emit("action", {"action": "doubt", "version": version}, callback=True)
    assert ack["error"]["message"] == "\u2068Cem\u2069 war schneller."
    bot.disconnect()


@pytest.mark.parametrize(
    ("lang", "error", "text"),
    [
        (
            "en",
            IllegalMove("option_choice", option="out_at", choices="3, 5, 7"),
            "Points to go out must be one of 3, 5, 7.",
        ),
        (
            "de",
            IllegalMove("option_choice", option="dice", choices="3, 4, 5"),
            "Würfel pro Spieler muss eines davon sein",
        ),
        ("ru", IllegalMove("option_range", option="lives", low=3, high=10), "Жизни"),
        (
            "en",
            IllegalMove("option_range", option="mats", low=2, high=30),
            "Beer mats must be a whole number from 2 to 30.",
        ),
        (
            "en",
            IllegalMove("no_such_option", game="Poschen", option="speed"),
            "The rule set Poschen has no option speed.",
        ),
    ],
)
def test_a_refused_option_is_named_as_the_hosts_settings_name_it(app, lang, error, text):
    """The message names the option in the reader's words; the API's params keep its name."""
    with app.app_context():
        assert text in messages.text(error, lang)
        assert messages.answer(error, lang)["error"]["params"]["option"] == error.params["option"]
