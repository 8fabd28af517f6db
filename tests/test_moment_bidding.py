"""Waiting in a bidding game: a phone that has shaken says whose cups the round still waits for, by name, in the
sentence its language makes of one or of many, and says it again as each of them shakes."""

import pytest

from maxchen.dice import FixedDice, SeededDice
from maxchen.rooms import Rooms
from maxchen.server import create_app

from .test_moment import area, page, rooms_of

NAMES = ["Ben", "Cem <b>", "Dora", "Eve", "Fritz"]

# What Ann's phone says once she has shaken, while the others still shake: each language's words.
STILL = {
    "en": {
        5: "Waiting for <bdi>Ben</bdi>, <bdi>Cem &lt;b&gt;</bdi> and 3 others to shake.",
        3: "Waiting for <bdi>Dora</bdi>, <bdi>Eve</bdi> and <bdi>Fritz</bdi> to shake.",
        2: "Waiting for <bdi>Eve</bdi> and <bdi>Fritz</bdi> to shake.",
        1: "Waiting for <bdi>Fritz</bdi> to shake.",
    },
    "de": {
        5: "Wir warten, bis <bdi>Ben</bdi>, <bdi>Cem &lt;b&gt;</bdi> und 3 weitere geschüttelt haben.",
        3: "Wir warten, bis <bdi>Dora</bdi>, <bdi>Eve</bdi> und <bdi>Fritz</bdi> geschüttelt haben.",
        2: "Wir warten, bis <bdi>Eve</bdi> und <bdi>Fritz</bdi> geschüttelt haben.",
        1: "Wir warten, bis <bdi>Fritz</bdi> geschüttelt hat.",
    },
    "ru": {
        5: "Ждём, пока <bdi>Ben</bdi>, <bdi>Cem &lt;b&gt;</bdi> и ещё 3 встряхнут стаканчики.",
        3: "Ждём, пока <bdi>Dora</bdi>, <bdi>Eve</bdi> и <bdi>Fritz</bdi> встряхнут стаканчики.",
        2: "Ждём, пока <bdi>Eve</bdi> и <bdi>Fritz</bdi> встряхнут стаканчики.",
        1: "Ждём, пока <bdi>Fritz</bdi> встряхнёт стаканчик.",
    },
}


def host_phone(app, rules, lang):
    """Ann creates a room of `rules` by the home page's form in a browser speaking `lang`; five others join by
    the API: (her browser, the code, every seat by name)."""
    browser = app.test_client()
    browser.set_cookie("lang", lang)
    response = browser.post("/rooms", data={"name": "Ann", "rules": rules})
    assert response.status_code == 303, response.get_data(as_text=True)
    code = response.headers["Location"].rsplit("/", 1)[1]
    rooms = rooms_of(app)
    seats = {"Ann": rooms.load(code).host}
    for name in NAMES:
        seats[name] = rooms.join(code, name)["player"]
    return browser, code, seats


def controls(browser, code) -> str:
    return area(page(browser, code), "controls")


@pytest.mark.parametrize(("rules", "lang"), [("luegen", "en"), ("perudo", "de"), ("luegen", "ru"), ("perudo", "en")])
def test_my_shaken_phone_names_who_still_shakes_until_the_bidding_begins(rules, lang):
    app = create_app({"TESTING": True, "ROOMS": Rooms(dice=SeededDice(3)), "SECRET_KEY": "test"})
    rooms = rooms_of(app)
    ann, code, seats = host_phone(app, rules, lang)
    rooms.act(code, seats["Ann"], {"action": "start"})
    # Every cup is to shake at once: mine too, so my phone asks me to, and names nobody yet.
    assert "data-shake-prompt" in controls(ann, code) and "data-shaking" not in controls(ann, code)

    # I shake: my phone names the five others (two by name, and how many more).
    rooms.act(code, seats["Ann"], {"action": "shake"})
    said = STILL[lang]
    assert said[5] in controls(ann, code)

    # Ben and Cem shake: three are named; Dora: two; Eve: one, in the singular.
    rooms.act(code, seats["Ben"], {"action": "shake"})
    rooms.act(code, seats["Cem <b>"], {"action": "shake"})
    assert said[3] in controls(ann, code)
    for name, left in (("Dora", 2), ("Eve", 1)):
        rooms.act(code, seats[name], {"action": "shake"})
        shown = controls(ann, code)
        assert said[left] in shown and shown.count("data-shaking") == 1, shown
        assert "Dora" not in shown  # shaken: no longer named

    # The last cup: the bidding begins, and my phone names nobody still shaking.
    rooms.act(code, seats["Fritz"], {"action": "shake"})
    shown = controls(ann, code)
    assert "data-shaking" not in shown and "Fritz" not in shown
    assert 'form class="bid"' in shown  # I opened the round: I bid first


def test_only_a_phone_that_has_shaken_names_the_others_and_the_board_does_not():
    """Ben has not shaken: his part names nobody; my part, not the table's (the TV's rows tag who shakes), does."""
    app = create_app({"TESTING": True, "ROOMS": Rooms(dice=SeededDice(3)), "SECRET_KEY": "test"})
    rooms = rooms_of(app)
    ann, code, seats = host_phone(app, "perudo", "en")
    rooms.act(code, seats["Ann"], {"action": "start"})
    rooms.act(code, seats["Ann"], {"action": "shake"})
    assert rooms.load(code).private_for(seats["Ben"])["shaking"] == []
    assert rooms.load(code).private_for(seats["Ann"])["shaking"] == [seats[name] for name in NAMES]
    board = page(app.test_client(), code, board=True)
    assert "Waiting for" not in board and board.count('class="tag to-shake"') == len(NAMES)


# The bidder's turn line, in each language: while a raise is left, and at the top bid.
RAISE_OR_CALL = {
    "en": ("Your turn: bid or doubt.", "Your turn: no higher bid is left."),
    "de": ("Du bist dran: bieten oder anzweifeln.", "Du bist dran: höher bieten geht nicht mehr."),
    "ru": ("Твой ход: ставка или сомнение.", "Твой ход: выше ставки уже нет."),
}


@pytest.mark.parametrize("lang", ["en", "de", "ru"])
def test_at_the_top_bid_the_turn_line_asks_for_a_call_not_a_bid(lang):
    """All the dice on the table as pacos: nothing can follow, so the turn line does not say 'bid or doubt'."""
    app = create_app({"TESTING": True, "ROOMS": Rooms(dice=SeededDice(3)), "SECRET_KEY": "test"})
    rooms = rooms_of(app)
    ann, code, seats = host_phone(app, "perudo", lang)
    rooms.act(code, seats["Ann"], {"action": "start"})
    for seat in seats.values():
        rooms.act(code, seat, {"action": "shake"})
    everything = rooms.load(code).game.dice_in_play()
    ordinary, top = RAISE_OR_CALL[lang]
    rooms.act(code, seats["Ann"], {"action": "bid", "count": everything, "face": 6})
    line = area(page(ann, code), "table")
    assert ordinary in line and top not in line  # pacos are left above all sixes
    rooms.act(code, rooms.load(code).game.turn, {"action": "bid", "count": everything, "face": 1})
    room = rooms.load(code)
    assert room.game.allowed(room.game.turn) == ["dudo", "calza"]
    assert room.game.view_for(room.game.turn)["can_raise"] is False
    line = area(page(ann, code), "table")
    assert top in line and ordinary not in line


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "Level on beer mats: the play-off's doubt decided."),
        ("de", "Gleich viele Bierdeckel: der Zweifel im Ausspielen hat entschieden."),
        ("ru", "Поровну подставок: решило сомнение в решающем споре."),
    ],
)
def test_a_lugen_game_decided_by_the_play_off_says_so_beside_its_level_mats(lang, said):
    """Six players, six mats: one lie each hands them all out, all level; the next doubt decides the game."""
    app = create_app({"TESTING": True, "ROOMS": Rooms(dice=FixedDice([[2, 3, 4]] * 60)), "SECRET_KEY": "test"})
    rooms = rooms_of(app)
    ann, code, seats = host_phone(app, "luegen", lang)
    rooms.act(code, seats["Ann"], {"action": "configure", "options": {"mats": 6}})
    rooms.act(code, seats["Ann"], {"action": "start"})

    def lie_doubted(liar):
        """Every cup 4-3-2: 'one five' is a lie; the liar bids it in turn and the next doubts it."""
        for seat in seats.values():
            rooms.act(code, seat, {"action": "shake"})
        while (game := rooms.load(code).game).turn != liar:
            rooms.act(code, game.turn, {"action": "bid", **game.choices()[0]})
        rooms.act(code, liar, {"action": "bid", "count": 1, "face": 5})
        rooms.act(code, rooms.load(code).game.turn, {"action": "doubt"})

    for name in seats:
        lie_doubted(seats[name])
        html = area(page(ann, code), "table")
        assert said not in html  # handing out: nothing is decided
    assert rooms.load(code).game.stage == "play_off"
    lie_doubted(seats["Fritz"])  # he lost the last mat's doubt: he opens the play-off
    html = area(page(ann, code), "table")
    assert 'class="result"' in html and said in html and "Fritz" in html[html.index('class="result"') :]
