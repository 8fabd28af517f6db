"""Player names: what a name may hold, which names look alike, and how pages isolate them."""

import random
import re

import pytest
from markupsafe import escape

from maxchen.errors import IllegalMove
from maxchen.rooms import Rooms, clean_name
from maxchen.rulesets import RULESETS
from maxchen.server import socketio
from tests.conftest import SeededDice
from tests.test_live import page, parts, some_move


def refused(reason, call, *args):
    with pytest.raises(IllegalMove) as caught:
        call(*args)
    assert (caught.value.reason, caught.value.code, caught.value.status) == (reason, "bad_value", 400)


@pytest.mark.parametrize(
    ("typed", "name"),
    [
        ("Jörg Müller", "Jörg Müller"),
        ("Zoe\u0308", "Zoë"),  # composed
        ("Ёжик", "Ёжик"),
        ("李雷", "李雷"),
        ("محمد", "محمد"),  # right-to-left letters are letters
        ("שלום", "שלום"),
        ("می\u200cخواهم", "می\u200cخواهم"),  # Persian: a non-joiner between two Arabic letters
        ("क्\u200dष", "क्\u200dष"),  # Devanagari: a joiner after a virama
        ("👨\u200d👩\u200d👧", "👨\u200d👩\u200d👧"),  # an emoji ZWJ sequence
        ("👩🏽\u200d💻", "👩🏽\u200d💻"),  # a skin tone before the joiner
        ("🏳\ufe0f\u200d🌈", "🏳\ufe0f\u200d🌈"),  # a variation selector before it
        ("❤\ufe0f", "❤\ufe0f"),
        ("葛\U000e0100", "葛\U000e0100"),  # an ideographic variation sequence
        ("\U0001fae8", "\U0001fae8"),  # an emoji newer than Python's Unicode
        ("Ann\u3000\u3000Lee", "Ann Lee"),  # inner spaces of any kind collapse to one
        ("Ann\u00a0 \u2003Lee", "Ann Lee"),
        ("?", "?"),
        ("Анна Smith", "Анна Smith"),  # two scripts, a word each
        ("Ангелина-Maria", "Ангелина-Maria"),  # words joined by a dash or a slash are words too
        ("Иван/Ivan", "Иван/Ivan"),
        ("やまだ太郎", "やまだ太郎"),  # Japanese writes one word in three
        ("김철수", "김철수"),
        ("Jean-Luc O'Neil", "Jean-Luc O'Neil"),
    ],
)
def test_names_in_any_script_are_kept(typed, name):
    assert clean_name(typed) == name


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("Bob says \u202e56", "name_invisible"),  # RIGHT-TO-LEFT OVERRIDE: "Bob says 65"
        ("\u200fAnn", "name_invisible"),  # RIGHT-TO-LEFT MARK
        ("Ann\u2067x\u2069", "name_invisible"),  # an isolate of its own
        ("\u061cAnn", "name_invisible"),  # ARABIC LETTER MARK
        ("Ann\u200b", "name_invisible"),  # ZERO WIDTH SPACE: looks like Ann
        ("A\u2060nn", "name_invisible"),  # WORD JOINER
        ("An\u00adn", "name_invisible"),  # SOFT HYPHEN
        ("\ufeffAnn", "name_invisible"),  # ZERO WIDTH NO-BREAK SPACE
        ("A\u034fnn", "name_invisible"),  # COMBINING GRAPHEME JOINER
        ("Ann\u200d", "name_invisible"),  # a joiner with nothing to join
        ("A\u200dnn", "name_invisible"),  # a joiner between letters
        ("A\u200cnn", "name_invisible"),  # a non-joiner outside Arabic script
        ("Ann\ufe0f\ufe0f", "name_invisible"),  # a selector selecting a selector
        ("🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f", "name_invisible"),  # tag characters
        ("\u200b", "name_invisible"),  # the invisible players
        ("\u2800", "name_invisible"),  # BRAILLE PATTERN BLANK
        ("\u3164", "name_invisible"),  # HANGUL FILLER
        ("\u115f\u1160", "name_invisible"),  # HANGUL CHOSEONG and JUNGSEONG FILLER
        ("\uffa0", "name_invisible"),  # HALFWIDTH HANGUL FILLER
        ("Ann\u2800", "name_invisible"),
        ("\ufe0f", "name_invisible"),  # a variation selector alone
        ("\u0301", "name_blank"),  # a combining mark without a base
        ("\u0301\u20dd", "name_blank"),
        ("\u2000\u200a", "name_blank"),  # spaces only
        ("\u3000", "name_blank"),
        ("\u00a0", "name_blank"),
        ("a\tb", "name_control"),
        ("\ud800", "name_control"),
        ("a\u2028b", "name_control"),
        ("Ann\U0001d159", "name_invisible"),  # a musical null notehead: drawn blank
        ("\U00016fe4", "name_invisible"),  # Khitan filler
        ("Ann\ufffc", "name_invisible"),  # OBJECT REPLACEMENT CHARACTER: drawn blank, a second "Ann"
        ("\ufffc", "name_invisible"),
        ("Alexa\u2026lski", "name_ellipsis"),  # what "Alexander Kowalski" shows as when cut
        ("Alexa...lski", "name_ellipsis"),
        ("A" + "\u0301" * 17 + "nn", "name_marks"),  # "zalgo": a letter under a heap of marks
        # One word in two scripts, the look-alike tables lacking the letter: Coptic, Canadian syllabics, Cyrillic.
        ("\u2c80nn", "name_scripts"),  # Ⲁnn
        ("\u1431nn", "name_scripts"),  # ᐱnn
        ("\ua658nn", "name_scripts"),  # Ꙙnn
        ("\u1455em", "name_scripts"),  # ᑕem
        ("A\u043f\u043f", "name_scripts"),  # Aпп
        ("Ann\u18df", "name_scripts"),  # a Canadian final dot after Ann
        ("", "bad_name"),
        ("x" * 21, "bad_name"),
    ],
)
def test_names_that_hide_or_turn_text_are_refused(typed, reason):
    refused(reason, clean_name, typed)


@pytest.mark.parametrize(
    ("first", "second", "taken"),
    [
        ("Ann", "ANN", True),
        ("Ann", "\u0410nn", True),  # Cyrillic А
        ("ANN", "\u0391\u039d\u039d", True),  # Greek capitals
        ("Paul", "\u0420\u0430ul", True),  # Cyrillic Р and а
        ("Fiona", "\ufb01ona", True),  # the ligature ﬁ
        ("Ann", "\uff21\uff4e\uff4e", True),  # fullwidth
        ("Ann Lee", " Ann \u3000Lee ", True),
        ("Ian", "lan", True),  # capital I, small l
        ("Ivan", "ivan", True),
        ("Bob", "B0b", True),
        ("Ann", "Ꭺnn", True),  # Cherokee A
        ("Ann", "ᴀnn", True),  # small capital A
        ("Ann", "ꓮnn", True),  # Lisu A
        ("Ann", "ᗅnn", True),  # Canadian syllabics A
        ("cal", "ϲal", True),  # Greek lunate sigma, which NFKC turns into ς
        ("joe", "ϳoe", True),  # Greek yot
        ("Gus", "Ԍus", True),  # Cyrillic Komi Sje
        ("Mo", "Ϻo", True),  # Greek San
        ("Ian", "ǀan", True),  # a click letter
        ("Sam", "Sarn", True),  # m is drawn like rn
        ("Fred", "ꜰred", True),  # small capital F
        ("Ann", "Ann\u0378", True),  # an unassigned code point: nothing or a box
        ("Straße", "STRASSE", True),
        ("👨\u200d👩\u200d👧", "👨👩👧", True),
        ("Ann", "\u0391\u039d\u039d", True),  # Greek capitals beside a name in small letters
        ("Tom", "\u01acom", True),  # T with a hook
        # Whole words of other scripts, read through their TS #39 look-alikes (issue 25's second round).
        ("Tom", "Том", True),  # Cyrillic м is drawn as a small capital M
        ("Bob", "Вов", True),
        ("Kim", "ΚΙΜ", True),  # Greek capitals: Ι is the capital I, not l
        ("Mia", "МІА", True),
        ("Nina", "ΝΙΝΑ", True),
        ("Ann", "Ann\u0323", True),  # a dot below, almost invisible
        ("Ann", "Ann\u0336", True),  # a stroke through
        ("Ann", "Ann.", True),  # a speck after it
        ("Ann", "Ann\u02d9", True),
        ("Ann", "Ann\u3002", True),  # an ideographic full stop
        ("Ann", "\u02ccAnn", True),  # a low vertical line before it
        ("Ann", "A .nn", True),
        ("!!!", "???", False),  # nothing but signs: told apart by them
        # Marks are compared away (issue 25): a name with them sits beside its bare twin no more.
        ("Jörg", "Jorg", True),
        ("Zoë", "Zoe", True),
        # Names that differ to the eye are both seated.
        ("ALI", "ALL", False),
        ("ivan", "lvan", False),
        ("Anna", "Anne", False),
        ("Nguyên", "Nguyễn Anh", False),  # Vietnamese: two marks on a letter are a name's own
    ],
)
def test_a_name_is_taken_by_one_that_looks_alike(first, second, taken):
    rooms = Rooms()
    code = rooms.create(first)["code"]
    if taken:
        with pytest.raises(IllegalMove) as caught:
            rooms.join(code, second)
        # The refusal names the player already seated, as everyone sees them; a word in two scripts
        # is refused before any comparison.
        if caught.value.reason != "name_scripts":
            assert (caught.value.reason, caught.value.params) == ("name_taken", {"name": clean_name(first)})
    else:
        rooms.join(code, second)
    seated = [s.name for s in rooms.load(code).members()]
    assert seated == [clean_name(first)] if taken else [clean_name(first), clean_name(second)]


def test_the_api_refuses_a_hidden_name_and_creates_nothing(client, rooms):
    response = client.post("/api/rooms", json={"name": "Bob says \u202e56"})
    assert response.status_code == 400
    error = response.json["error"]
    assert (error["code"], error["reason"]) == ("bad_value", "name_invisible")
    assert error["message"] == "Names cannot contain invisible or direction-changing characters."
    response = client.post("/api/rooms", json={"name": "\u0301"}, headers={"Accept-Language": "de"})
    assert (response.status_code, response.json["error"]["reason"]) == (400, "name_blank")
    assert response.json["error"]["message"].startswith("Ein Name braucht")
    assert rooms.store.untouched_since(float("inf")) == []


def test_the_join_form_refuses_an_invisible_player(app, rooms):
    code = rooms.create("Ann")["code"]
    stranger = app.test_client()
    response = stranger.post(f"/r/{code}/join", data={"name": "\u3164"})
    assert response.status_code == 400
    assert "Names cannot contain invisible or direction-changing characters." in response.get_data(as_text=True)
    response = stranger.post(f"/r/{code}/join", data={"name": "\u0410nn"})  # a Cyrillic А
    assert response.status_code == 400
    assert "Write each word of a name in one alphabet" in response.get_data(as_text=True)
    assert [s.name for s in rooms.load(code).members()] == ["Ann"]


# --- names in the page ------------------------------------------------------

# A name that would be markup, and a right-to-left one.
NAMES = ("<b>Ann</b>", "سارا")


def unisolated(html: str) -> list[str]:
    """Each player name in `html` that stands outside a <bdi> (or, in an attribute, outside U+2068…U+2069)."""
    loose = []
    for name in NAMES:
        shown = str(escape(name))
        inside = html.count(f"<bdi>{shown}</bdi>") + html.count(f"\u2068{shown}\u2069")
        loose += [name] * (html.count(shown) - inside)
    return loose


def test_every_name_on_the_room_page_is_isolated_and_escaped(app, rooms):
    host = rooms.create(NAMES[0], "maexchen")
    code = host["code"]
    rooms.join(code, NAMES[1])
    browser = app.test_client()
    with browser.session_transaction() as session:
        session["seats"] = {code: host["token"]}
    html = browser.get(f"/r/{code}").get_data(as_text=True)
    assert "<b>Ann" not in html
    assert html.count("<bdi>&lt;b&gt;Ann&lt;/b&gt;</bdi>") >= 2  # the list and "Waiting for … to start."
    assert "\u2068سارا\u2069" in html  # the host's remove button's label
    assert unisolated(html) == []


@pytest.mark.parametrize("rules", sorted(RULESETS))
def test_every_pushed_name_is_isolated_and_escaped(app, rooms, rules):
    rooms.dice = SeededDice(3)
    rng = random.Random(3)
    host = rooms.create(NAMES[0], rules)
    code = host["code"]
    seats = [host, rooms.join(code, NAMES[1]), rooms.join(code, "Cem")]
    watcher = socketio.test_client(app, auth={"room": code, "watch": True})
    pages = [page(app, code, seat["token"]) for seat in seats]
    rooms.act(code, host["player"], {"action": "start"})
    pushed = []
    for _ in range(300):
        move = some_move(rooms, code, seats, rng)
        if move is None:
            break
        rooms.act(code, *move)
        pushed += parts(watcher) + [html for p in pages for html in parts(p)]
    # The game got as far as sentences with names in them.
    assert any(re.search(r"<bdi>[^<]*</bdi> (says|bids|loses|checked|doubted)", html) for html in pushed)
    assert all("<b>Ann" not in html for html in pushed)
    assert [name for html in pushed for name in unisolated(html)] == []


def test_the_one_phone_cover_isolates_the_next_name(app, rooms):
    rooms.dice = SeededDice(1)
    seat = rooms.create_shared(list(NAMES), "poschen")
    browser = app.test_client()
    with browser.session_transaction() as session:
        session["seats"] = {seat["code"]: seat["token"]}
    html = browser.get(f"/r/{seat['code']}").get_data(as_text=True)
    assert re.search(r"Pass the phone to <bdi>", html) and re.search(r"I&#39;m <bdi>|I'm <bdi>", html)
    assert unisolated(html) == []


def test_a_refused_hidden_name_comes_back_without_what_could_not_be_seen(client):
    response = client.post("/rooms", data={"name": "Ben\u200b"})
    html = response.get_data(as_text=True)
    assert response.status_code == 400
    assert 'value="Ben"' in html and "\u200b" not in html
